"""Operator nesting (roofline/importers/kineto/nesting.py) found for all
operators at once (#36) is the stack walk's, interval for interval: on
cleanly nested operators (the guess), and on operators that overlap
without nesting, touch within the slack, last 0 us or share a start (the
walk, on the threads where the guess fails)."""
from __future__ import annotations

import sys

import numba.core.registry  # noqa: F401  (loaded, as a scanned trace loads it: the compiled walk is checked too)
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.importers.kineto import nesting

SLACK = nesting.NEST_SLACK_US


def stack_walk(ts: list, dur: list, thread: list) -> tuple[list, list]:
    """The rule written plainly: per thread, in start order (longest first
    among equal starts), pop the stack's top while it ended before the
    operator began or the operator outlasts it (both within the slack)."""
    n = len(ts)
    parent, child = [-1] * n, [0.0] * n
    stacks: dict = {}
    for i in sorted(range(n), key=lambda i: (ts[i], -dur[i], i)):
        stack = stacks.setdefault(thread[i], [])
        while stack and (ts[stack[-1]] + dur[stack[-1]] <= ts[i] + SLACK
                         or ts[i] + dur[i] > ts[stack[-1]] + dur[stack[-1]] + SLACK):
            stack.pop()
        if stack:
            parent[i] = stack[-1]
            child[stack[-1]] += dur[i]
        stack.append(i)
    return parent, [max(d - c, 0.0) for d, c in zip(dur, child)]


def _check(ts, dur, thread):
    """The rule's parents and self times, from the numpy guess and from the
    compiled walk (.nestwalk, taken where numba is loaded and operators are many)."""
    want_parent, want_self = stack_walk(ts, dur, thread)
    for compiled_from in (nesting.COMPILED_WALK_FROM, 0):
        saved, nesting.COMPILED_WALK_FROM = nesting.COMPILED_WALK_FROM, compiled_from
        try:
            parent, self_time = nesting.parents(ts, dur, thread)
        finally:
            nesting.COMPILED_WALK_FROM = saved
        assert parent.tolist() == want_parent, compiled_from
        assert self_time.tolist() == want_self, compiled_from


def test_the_compiled_walk_is_taken_where_numba_is_loaded(monkeypatch):
    """(So the tests above check it: numba is loaded here, as the scanner loads it.)"""
    import roofline.importers.kineto.nestwalk as nestwalk
    calls = []
    real = nestwalk.walked_parents
    monkeypatch.setattr(nestwalk, "walked_parents", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(nesting, "COMPILED_WALK_FROM", 0)
    _check([0.0, 1.0], [5.0, 1.0], [1, 1])
    assert "numba.core.registry" in sys.modules and calls


def _nested(draw_sizes: list[tuple[float, float, int]]) -> tuple[list, list]:
    """Cleanly nested intervals: each (gap, length, children) opens after
    the previous sibling by ``gap`` and holds ``children`` halves of itself."""
    ts, dur = [], []

    def place(start: float, length: float, depth: int, children: int):
        ts.append(start)
        dur.append(length)
        if depth < 5:
            for c in range(children):
                place(start + c * length / children, length / children, depth + 1, children - 1)

    t = 0.0
    for gap, length, children in draw_sizes:
        place(t + gap, length, 0, children)
        t += gap + length
    return ts, dur


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.001, 1.0]), st.sampled_from([0.0, 0.001, 4.0, 8.0]),
                          st.integers(0, 3)), max_size=8),
       st.sampled_from([0.0, 1.7e12]))
def test_cleanly_nested_operators_get_the_walks_parents(sizes, offset):
    ts, dur = _nested(sizes)
    ts = [t + offset for t in ts]
    _check(ts, dur, [7] * len(ts))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0, 1.001, 2.0, 3.0]),
                          st.sampled_from([0.0, 0.001, 0.002, 0.5, 1.0, 2.0, 5.0]),
                          st.sampled_from([1, 2, "t"])), max_size=30))
def test_overlapping_touching_and_empty_operators_get_the_walks_parents(rows):
    ts = [r[0] for r in rows]
    dur = [r[1] for r in rows]
    _check(ts, dur, [r[2] for r in rows])


def test_a_thread_that_overlaps_is_walked_and_a_clean_one_is_not(monkeypatch):
    walked = []
    real = nesting._stack_walk
    monkeypatch.setattr(nesting, "_stack_walk", lambda rows, *a: walked.append(len(rows)) or real(rows, *a))
    # thread 1 nests: a(0..10) holds b(1..4), c(4..9); thread 2: x(0..5) and y(3..8) overlap
    ts, dur, thread = [0.0, 1.0, 4.0, 0.0, 3.0], [10.0, 3.0, 5.0, 5.0, 5.0], [1, 1, 1, 2, 2]
    _check(ts, dur, thread)
    assert walked == [2]
    walked.clear()
    _check(ts[:3], dur[:3], thread[:3])
    assert walked == []
