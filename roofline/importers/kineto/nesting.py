"""How the operators of a Kineto trace nest: each one's parent (per
thread, by interval containment), its self time and its depth, computed
once per trace by :func:`nest` and read by every later stage (operator
work, attribution, why a kernel has no work, collectives, the step split);
and the innermost operator holding a time on a thread (:class:`Enclosing`,
which attribution asks for each kernel's runtime call).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .columns import distinct, distinct_ints
from .op_columns import OpEvents

# Kineto rounds timestamps to 1 ns (1 us in older traces): intervals that
# touch within this are siblings, not parent and child.
NEST_SLACK_US = 2e-3


@dataclass(frozen=True, slots=True, eq=False)
class Nesting:
    """Nesting of every operator (arrays indexed like :class:`OpEvents`),
    and the operator columns every later stage reads as arrays, converted
    from the lists once here rather than once per stage (#36)."""

    parent: np.ndarray                 # int64: the enclosing operator, -1 at the top
    self_time_us: np.ndarray           # duration minus the direct children's durations
    levels: tuple[np.ndarray, ...]     # operators by depth below the top (index 0: depth 1)
    ts: np.ndarray                     # float64: each operator's start (us), ``OpEvents.ts``
    dur: np.ndarray                    # float64: its duration (us)
    thread_code: np.ndarray            # int64: its thread's index in ``threads``
    threads: list                      # the distinct threads, in order of first operator
    name_code: np.ndarray              # int64: its name's index in ``names``
    names: list                        # the distinct operator names, in order of first operator
    call_keys: tuple                   # what ``OpEvents.call_keys()`` returns, found on the codes

    def __len__(self) -> int:
        return len(self.parent)

    def per_name(self, value, dtype=bool) -> np.ndarray:
        """``value(name)`` for every operator, worked out once per distinct name."""
        return np.array([value(name) for name in self.names], dtype=dtype).reshape(-1)[self.name_code]


def nest(ops: OpEvents) -> Nesting:
    """The nesting of a trace's operators (empty arrays without any)."""
    n = len(ops)
    ts, dur = np.asarray(ops.ts, dtype=float).reshape(-1), np.asarray(ops.dur, dtype=float).reshape(-1)
    first_thread, thread_code = distinct(ops.thread, n)
    first_name, name_code = distinct(ops.names, n)
    parent, self_time = _parents(ts, dur, thread_code)
    # (name, call) pairs as one integer each: calls run from -1 to len(calls) - 1
    pair = name_code * (len(ops.calls) + 1) + (np.asarray(ops.call, dtype=np.int64).reshape(-1) + 1)
    return Nesting(parent, self_time, levels(parent), ts, dur, thread_code,
                   [ops.thread[i] for i in first_thread.tolist()], name_code,
                   [ops.names[i] for i in first_name.tolist()], distinct_ints(pair))


def parents(ts: list, dur: list, thread: list) -> tuple[np.ndarray, np.ndarray]:
    """Parent of each interval (per thread, by containment) and its self
    time (duration minus its direct children's durations)."""
    return _parents(np.asarray(ts, dtype=float).reshape(-1), np.asarray(dur, dtype=float).reshape(-1),
                    distinct(thread, len(thread))[1])


def _parents(ts: np.ndarray, dur: np.ndarray, thread_code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = len(ts)
    # Python lists, not numpy scalars, inside the loop: an element access
    # of an array costs several times a list's (0.4 s -> 0.2 s at 300k operators)
    parent = [-1] * n
    child_time = [0.0] * n
    ends, starts, durs = (ts + dur).tolist(), (ts + NEST_SLACK_US).tolist(), dur.tolist()
    thread = thread_code.tolist()
    stacks: list[list[int]] = [[] for _ in range(max(thread) + 1 if n else 0)]
    for i in np.lexsort((-dur, ts)).tolist():   # longest first among equal starts: parent, then child
        stack = stacks[thread[i]]
        start, end = starts[i], ends[i]
        # The top encloses i unless it ended before i began or i outlasts it
        # (timestamps are rounded, so siblings may touch).
        while stack and (ends[stack[-1]] <= start or end > ends[stack[-1]] + NEST_SLACK_US):
            stack.pop()
        if stack:
            p = stack[-1]
            parent[i] = p
            child_time[p] += durs[i]
        stack.append(i)
    self_time = np.maximum(dur - np.array(child_time, dtype=float), 0.0)
    return np.array(parent, dtype=np.int64), self_time


def levels(parent: np.ndarray) -> tuple[np.ndarray, ...]:
    """Operators by depth below the top (index 0: depth 1), by pointer
    jumping: one pass per level of nesting, not one per operator."""
    depth = np.zeros(len(parent), dtype=np.int64)
    above = parent.copy()
    active = np.flatnonzero(above >= 0)
    while len(active):
        depth[active] += 1
        above[active] = parent[above[active]]
        active = active[above[active] >= 0]
    if not len(depth) or depth.max() == 0:
        return ()
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(1, depth.max() + 2))
    return tuple(order[bounds[d]:bounds[d + 1]] for d in range(len(bounds) - 1))


class Enclosing:
    """Innermost operator of a thread that holds a given time."""

    def __init__(self, nesting: Nesting):
        self.parent = nesting.parent
        self.ts = nesting.ts
        self.end = nesting.ts + nesting.dur
        self.code_of = {t: c for c, t in enumerate(nesting.threads)}
        # per thread code: its operators in start order, and their starts
        order = np.lexsort((self.ts, nesting.thread_code))
        bounds = np.searchsorted(nesting.thread_code[order], np.arange(len(nesting.threads) + 1))
        self.threads = [(order[a:b], self.ts[order[a:b]]) for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())]

    def codes_of(self, threads: list) -> np.ndarray:
        """Each thread's code among the operators' (-1: a thread with no operator)."""
        first, code = distinct(threads, len(threads))
        known = np.array([self.code_of.get(threads[i], -1) for i in first.tolist()] + [-1], dtype=np.int64)
        return known[code] if len(code) else np.zeros(0, dtype=np.int64)

    def at_many(self, threads: list, times: np.ndarray) -> np.ndarray:
        """:meth:`at_codes` for many (thread, time) pairs."""
        return self.at_codes(self.codes_of(threads), times)

    def at_codes(self, code: np.ndarray, times: np.ndarray) -> np.ndarray:
        """The innermost operator holding each time on its thread (by its
        code, :meth:`codes_of`; -1: none), one search per thread."""
        out = np.full(len(times), -1, dtype=np.int64)
        order = np.argsort(code, kind="stable")
        bounds = np.flatnonzero(np.diff(code[order])) + 1
        for members in np.split(order, bounds):
            if not len(members) or code[members[0]] < 0:
                continue
            idx, starts = self.threads[int(code[members[0]])]
            t = times[members]
            k = np.searchsorted(starts, t, side="right") - 1
            cand = np.where(k >= 0, idx[np.maximum(k, 0)], -1)
            ended = (cand >= 0) & (self.end[np.maximum(cand, 0)] < t)
            while ended.any():     # climb to the enclosing operators still running
                cand[ended] = self.parent[cand[ended]]
                ended = (cand >= 0) & (self.end[np.maximum(cand, 0)] < t)
            out[members] = cand
        return out
