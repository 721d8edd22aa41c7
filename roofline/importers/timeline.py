"""Timelines: how long the GPU was busy, from activity intervals."""
from __future__ import annotations

import numpy as np


def busy_time(starts, ends) -> float:
    """Length of the union of intervals [start, end) (any unit), vectorised:
    sort by start; each interval adds what reaches past the furthest end
    seen before it."""
    s = np.asarray(starts, dtype=np.float64)
    e = np.asarray(ends, dtype=np.float64)
    if s.size == 0:
        return 0.0
    order = np.argsort(s, kind="stable")
    s, e = s[order], e[order]
    reach = np.maximum.accumulate(e)
    prev = np.empty_like(reach)
    prev[0] = -np.inf
    prev[1:] = reach[:-1]
    return float(np.sum(np.maximum(e - np.maximum(s, prev), 0.0)))
