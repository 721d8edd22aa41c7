"""Small column helpers every Kineto stage may use (no stage of its own)."""
from __future__ import annotations

import itertools

import numpy as np


def codes(values: list) -> np.ndarray:
    """An integer per value, equal for equal values (not contiguous)."""
    code: dict = {}
    return np.fromiter(map(code.setdefault, values, itertools.count()), dtype=np.int64, count=len(values))
