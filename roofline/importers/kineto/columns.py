"""Small column helpers every Kineto stage may use (no stage of its own)."""
from __future__ import annotations

import itertools

import numpy as np


def codes(values: list) -> np.ndarray:
    """An integer per value, equal for equal values (not contiguous)."""
    code: dict = {}
    return np.fromiter(map(code.setdefault, values, itertools.count()), dtype=np.int64, count=len(values))


def distinct(values, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of an iterable of ``n`` hashables, as (index of
    each one's first occurrence, in order, and each value's rank among
    them): one pass of a dict in C, no Python code per value."""
    first_of: dict = {}
    first = np.fromiter(map(first_of.setdefault, values, itertools.count()), dtype=np.int64, count=n)
    # the dict's values are the first positions, ascending in insertion order
    starts = np.fromiter(first_of.values(), dtype=np.int64, count=len(first_of))
    return starts, np.searchsorted(starts, first)
