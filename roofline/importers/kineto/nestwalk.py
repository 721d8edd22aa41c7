"""Each operator's parent by the nesting's stack walk, compiled by numba:
one pass over the operators in (thread, start) order, a stack of the
ones still open, no temporary array per step.

:mod:`.nesting` guesses the parents of all operators at once with numpy
and checks the guess against the walk's rule; at millions of operators
that is a dozen sorts and gathers over arrays of tens of MB, a third of
its time the kernel's page faults on their fresh pages. Where numba is
loaded already (a trace big enough to be scanned, :mod:`.jsonscan`) this
walk does the same in one pass. It is the rule of ``nesting._stack_walk``
exactly (the tests hold the two to the same answers).
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def walked_parents(thread: np.ndarray, start: np.ndarray, end: np.ndarray, slack: float) -> np.ndarray:
    """The parent (a position, -1: none) of each operator, given in order
    of thread, start (with ``slack`` added) and longest first: the last
    one still open on its thread that has not ended before it began and
    that it does not outlast by more than ``slack``."""
    n = len(start)
    parent = np.empty(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    top = -1
    for i in range(n):
        if i > 0 and thread[i] != thread[i - 1]:
            top = -1
        s, e = start[i], end[i]
        while top >= 0 and (end[stack[top]] <= s or e > end[stack[top]] + slack):
            top -= 1
        parent[i] = stack[top] if top >= 0 else -1
        top += 1
        stack[top] = i
    return parent
