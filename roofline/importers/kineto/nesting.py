"""How the operators of a Kineto trace nest: each one's parent (per
thread, by interval containment), its self time and its depth, computed
once per trace by :func:`nest` and read by every later stage (operator
work, attribution, why a kernel has no work, collectives, the step split);
and the innermost operator holding a time on a thread (:class:`Enclosing`,
which attribution asks for each kernel's runtime call).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from .columns import distinct, distinct_ints, distinct_values, int_column, nearly_sorted_order
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
    first_thread, thread_code = distinct_values(ops.thread)
    first_name, name_code = distinct(ops.names, n)
    parent, self_time = _parents(ts, dur, thread_code)
    # (name, call) pairs as one integer each: calls run from -1 to len(calls) - 1
    call = int_column(ops.call) if n else None
    call = np.asarray(ops.call, dtype=np.int64).reshape(-1) if call is None else call
    pair = name_code * (len(ops.calls) + 1) + (call + 1)
    return Nesting(parent, self_time, levels(parent), ts, dur, thread_code,
                   [ops.thread[i] for i in first_thread.tolist()], name_code,
                   [ops.names[i] for i in first_name.tolist()], distinct_ints(pair))


def parents(ts: list, dur: list, thread: list) -> tuple[np.ndarray, np.ndarray]:
    """Parent of each interval (per thread, by containment) and its self
    time (duration minus its direct children's durations)."""
    return _parents(np.asarray(ts, dtype=float).reshape(-1), np.asarray(dur, dtype=float).reshape(-1),
                    distinct_values(thread)[1])


def coded_parents(ts: np.ndarray, dur: np.ndarray, thread_code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`parents` of float arrays, threads as integer codes (equal for
    one thread)."""
    return _parents(ts, dur, thread_code)


def _parents(ts: np.ndarray, dur: np.ndarray, thread_code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`parents` on arrays. The answer is that of a stack walk per
    thread (:func:`_stack_walk`); it is guessed for all operators at once
    from their depths (:func:`_guess`), checked against the walk's rule
    for all at once (:func:`_walk_agrees`), and the walk itself runs only
    on the threads where the guess fails (operators that overlap without
    nesting). 200k operators: 0.06 s as a walk, under 0.02 s guessed."""
    n = len(ts)
    # each thread's operators in a run, in start order, longest first among
    # equal starts (a parent and its first child may share ts)
    order = nearly_sorted_order(ts, -dur, thread_code)
    thread, start, end = thread_code[order], (ts + NEST_SLACK_US)[order], (ts + dur)[order]
    if n >= COMPILED_WALK_FROM and "numba.core.registry" in sys.modules:
        # numba is loaded (the trace was scanned): the walk itself, compiled,
        # in one pass (5 ms to load; 15 ms where the guess took 0.75 s at 2.4M)
        from .nestwalk import walked_parents
        at = walked_parents(thread, start, end, NEST_SLACK_US)
    else:
        at = _guess(thread, start, end)                 # parent's position in ``order``, -1: none
        wrong = ~_walk_agrees(thread, start, end, at)
        if wrong.any():
            redo = np.flatnonzero(np.isin(thread, np.unique(thread[wrong])))
            at[redo] = _stack_walk(redo, thread, start, end)
    parent = np.empty(n, dtype=np.int64)
    parent[order] = np.where(at >= 0, order[np.maximum(at, 0)], -1)
    # children's durations added in the walk's order (bincount adds in input order)
    inner = at >= 0
    child_time = np.bincount(order[at[inner]], weights=dur[order][inner], minlength=n)
    return parent, np.maximum(dur - child_time, 0.0)


# From this many operators a process with numba loaded walks them compiled
# (.nestwalk); below, the numpy guess costs less than loading the walk.
COMPILED_WALK_FROM = 100_000


def _pops(top, i, start: np.ndarray, end: np.ndarray):
    """The walk's rule: ``top`` does not enclose ``i`` when it ended before
    ``i`` began or ``i`` outlasts it (timestamps are rounded, so siblings
    may touch)."""
    return (end[top] <= start[i]) | (end[i] > end[top] + NEST_SLACK_US)


def _stack_walk(rows: np.ndarray, thread: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The parent (a position, -1: none) of each of ``rows`` (ascending
    positions, whole threads) by a stack per thread."""
    # Python lists, not numpy scalars, inside the loop: an element access
    # of an array costs several times a list's
    ends, starts, threads = end.tolist(), start.tolist(), thread.tolist()
    out = []
    stack: list[int] = []
    current = None
    for i in rows.tolist():
        if threads[i] != current:
            current, stack = threads[i], []
        s, e = starts[i], ends[i]
        while stack and (ends[stack[-1]] <= s or e > ends[stack[-1]] + NEST_SLACK_US):
            stack.pop()
        out.append(stack[-1] if stack else -1)
        stack.append(i)
    return np.array(out, dtype=np.int64)


def _guess(thread: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Each operator's parent where operators nest cleanly: the last one
    opened before it one level up, the levels counted over the opens and
    closes of each thread in time order (a close before an open at the
    same time; an operator shorter than the slack closes at its open)."""
    n = len(start)
    # 4-byte integers where they fit, temporaries freed as they go: this
    # was the peak of a big trace's read (18 arrays of n at 800k operators)
    small = np.int32 if 4 * n + 2 < 2 ** 31 else np.int64
    k = np.arange(n, dtype=small)
    leaf = end <= start
    times = np.concatenate([start, np.where(leaf, start, end)])
    # at one time: closes first, innermost first; then opens in position
    # order, a leaf's close right after its open (one key: closes below 2n)
    tie = np.concatenate([2 * n + 2 * k, np.where(leaf, 2 * n + 2 * k + 1, n - 1 - k)])
    del k, leaf
    one_thread = n == 0 or thread[0] == thread[-1]     # threads run in order: the first and last tell
    events = nearly_sorted_order(times, tie, None if one_thread else np.concatenate([thread, thread]))
    del tie, times
    opens = events < n
    depth = np.where(opens, small(1), small(-1)).cumsum(dtype=small)
    opened = np.empty(n, dtype=np.int64)             # each operator's open among the events
    opened[events[opens]] = np.flatnonzero(opens)
    del events, opens
    d = depth[opened]
    del depth
    key = d.astype(np.int64) * (2 * n) + opened
    # opens come in position order (sorted by thread, start, then position),
    # so ``opened`` rises with position: sorting by key is a stable sort by
    # depth (radix where depths fit 16 bits)
    by_key = np.argsort(d.astype(np.int16) if n and int(d.max()) < 2 ** 15 and int(d.min()) > -2 ** 15 else d,
                        kind="stable")
    sorted_key = key[by_key]
    del key
    # asked in key order: numpy's search starts each answer from the last
    # one when the asked values rise (a third of the time of asking in
    # position order, at 2.4M operators)
    j = np.empty(n, dtype=np.int64)
    j[by_key] = np.searchsorted(sorted_key, sorted_key - 2 * n) - 1
    del sorted_key, opened
    guess = np.where((j >= 0) & (d > 1), by_key[np.maximum(j, 0)], -1)
    return np.where((guess >= 0) & (d[np.maximum(guess, 0)] == d - 1), guess, -1)


def _walk_agrees(thread: np.ndarray, start: np.ndarray, end: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Per position: whether :func:`_stack_walk` gives ``at`` there, given
    ``at`` before it. The walk's stack before ``i`` is the operator before
    it on its thread and that one's ancestors: ``at`` is right when every
    one of them above ``at[i]`` pops and ``at[i]`` does not. Each operator
    pops once, so the climbs take one pass per level dropped, not per
    operator."""
    n = len(at)
    first = np.ones(n, dtype=bool)
    first[1:] = thread[1:] != thread[:-1]
    ok = ~(first & (at != -1))                          # a thread's first operator has no parent
    ok &= (at < 0) | ~_pops(np.maximum(at, 0), np.arange(n), start, end)
    ok &= at < np.arange(n)
    climbing = np.flatnonzero(~first & ok)
    top = climbing - 1
    while len(climbing):
        going = top != at[climbing]
        climbing, top = climbing[going], top[going]
        bad = (top < 0) | ~_pops(np.maximum(top, 0), climbing, start, end)
        ok[climbing[bad]] = False
        climbing, top = climbing[~bad], at[top[~bad]]
    return ok


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
        order = nearly_sorted_order(self.ts, None, nesting.thread_code)
        bounds = np.searchsorted(nesting.thread_code[order], np.arange(len(nesting.threads) + 1))
        self.threads = [(order[a:b], self.ts[order[a:b]]) for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())]

    def codes_of(self, threads: list) -> np.ndarray:
        """Each thread's code among the operators' (-1: a thread with no operator)."""
        first, code = distinct_values(threads)
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
            ended = np.flatnonzero((cand >= 0) & (self.end[np.maximum(cand, 0)] < t))
            while len(ended):      # climb to the enclosing operators still running
                up = cand[ended] = self.parent[cand[ended]]
                ended = ended[(up >= 0) & (self.end[np.maximum(up, 0)] < t[ended])]
            out[members] = cand
        return out
