"""A column of a million rows as its few distinct objects (or values) and
each row's index into them, without reading a million Python strings.

The text columns ``classify`` writes (bound, reason, limiter, family,
name ...) are object arrays filled from a handful of strings: a code
indexed into a small array (``np.array(CLASSES)[code]``), ``np.full(n,
"")``, a name per distinct kernel. Their rows share a few objects, so the
objects' addresses (a C array of pointers, read as integers) are hashed
by Arrow's C++ kernel instead: 10 ms for a million rows where converting
or hashing the strings took 50-120 ms per column, for some 17 columns.
Equal strings held by different objects get different codes; the writers
only need each code's text, so a repeated text in the distinct values
costs nothing but its one formatting. A column of mostly distinct objects
gains nothing and returns None (the caller converts the strings).
"""
from __future__ import annotations

import ctypes
import sys

import numpy as np

# above this share of distinct objects, the strings themselves are converted
MOST_DISTINCT = 0.25
# rows of a number column sampled, and the share of them holding a value
# seen once in the sample above which the column is not hashed whole
SAMPLE_ROWS = 16384
NEW_VALUE_SHARE = 0.5


def distinct_objects(values) -> tuple[np.ndarray, np.ndarray] | None:
    """(the distinct objects of ``values``, an object array; each row's
    int32 index into them), or None where
    ``values`` is no object array or most of its rows are distinct objects."""
    import pyarrow as pa
    import pyarrow.compute as pac
    if sys.implementation.name != "cpython":     # addresses are object identities in CPython only
        return None
    values = np.ascontiguousarray(values)
    n = len(values)
    if values.dtype != object or values.ndim != 1 or n == 0:
        return None
    addresses = _addresses(values)
    if addresses[0] == addresses[-1] and (addresses == addresses[0]).all():
        # one object in every row (an empty variant, operator, dtype ...
        # column): a comparison, not a hash of a million addresses
        return values[:1].copy(), np.zeros(n, dtype=np.int32)
    encoded = pac.dictionary_encode(pa.array(addresses))
    if len(encoded.dictionary) > MOST_DISTINCT * n:
        return None
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
    # each distinct address back to its object: ``values`` holds a reference
    # to every one of them, so each is alive while it is read
    distinct = np.empty(len(encoded.dictionary), dtype=object)
    distinct[:] = [ctypes.cast(address, ctypes.py_object).value
                   for address in encoded.dictionary.to_numpy(zero_copy_only=False).tolist()]
    return distinct, codes


def _addresses(values: np.ndarray) -> np.ndarray:
    """The pointers an object array holds, copied as unsigned integers
    (``values`` keeps the objects alive while they are read)."""
    raw = (ctypes.c_char * (values.itemsize * len(values))).from_address(values.ctypes.data)
    return np.frombuffer(raw, dtype=np.uintp).copy()


def repeated_numbers(values) -> tuple[np.ndarray, np.ndarray] | None:
    """(the distinct values of a column of 8-byte numbers, each row's int32
    index into them) where its rows repeat a few values (a fixed cost per
    kernel name, call counts), judged on a sample before the whole column
    is hashed; None otherwise. Values are told apart bit for bit (-0.0 is
    not 0.0, as their texts are not)."""
    import pyarrow as pa
    import pyarrow.compute as pac
    values = np.ascontiguousarray(values)
    n = len(values)
    if values.ndim != 1 or n == 0 or values.dtype.kind not in "iuf" or values.dtype.itemsize != 8:
        return None
    bits = values.view(np.int64)
    sample = bits[::max(1, n // SAMPLE_ROWS)]
    # the share of the sample's rows whose value it holds once estimates the
    # share of the column's rows holding a value the sample has not seen
    # (Good-Turing): where it is high, the column has too many values to be
    # worth hashing whole (a peak repeated by 18 % of the rows, the rest
    # distinct); a fixed cost per kernel name (5,000 values in a million
    # rows) leaves 4 % of a sample of 16,384 seen once
    _, seen = np.unique(sample, return_counts=True)
    if np.count_nonzero(seen == 1) > NEW_VALUE_SHARE * len(sample):
        return None
    encoded = pac.dictionary_encode(pa.array(bits))
    if len(encoded.dictionary) > MOST_DISTINCT * n:
        return None
    distinct = encoded.dictionary.to_numpy(zero_copy_only=False).view(values.dtype)
    return distinct, encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
