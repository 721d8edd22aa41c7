"""Values of a Kineto chunk as the scanner (:mod:`.jsonscan`) reads them,
compiled by numba: the hash of a value's bytes, and numbers scanned and
converted in one pass.

Numbers: a decimal whose digits (less its fraction's last zeros) make an
integer below 2**53 and that has at most 22 digits after its point is
converted exactly (one correctly
rounded division of two exact doubles, as a correctly rounding decoder
gives: Kineto's microsecond timestamps, 16 digits, are); any other number
is marked, and decoded from its bytes in Python.
"""
from __future__ import annotations

import numpy as np
from numba import njit

# compiled without reference counting (they allocate nothing; .jsonscan says why)
# indices as unsigned: numba checks a signed index for a negative value on
# every access (a string's bytes scanned 1.7x faster without that check)
U = np.uint64

_POW10 = np.array([10.0 ** k for k in range(23)])
_MAX_EXACT = 1 << 53
FNV_OFFSET, FNV_PRIME = np.uint64(0xcbf29ce484222325), np.uint64(0x100000001b3)
TRUNCATED, BAD = -1, -2      # where a value ends: the chunk ended in it, or it is not JSON
# an event's row of the scanner's output: three words, then three per field
PRESENT, MARKS, INEXACT, FIRST = 0, 1, 2, 3


@njit(cache=True, nogil=True, _nrt=False)
def hash_of(buf, start, end):
    """A 64-bit hash of ``buf[start:end]``, eight bytes per multiplication
    (values of equal length and hash are one value: :mod:`.spancodes`)."""
    h = FNV_OFFSET ^ np.uint64(end - start)
    j = np.uint64(start)
    stop = np.uint64(end)
    while j + np.uint64(8) <= stop:
        word = (np.uint64(buf[j]) | (np.uint64(buf[j + np.uint64(1)]) << np.uint64(8))
                | (np.uint64(buf[j + np.uint64(2)]) << np.uint64(16))
                | (np.uint64(buf[j + np.uint64(3)]) << np.uint64(24))
                | (np.uint64(buf[j + np.uint64(4)]) << np.uint64(32))
                | (np.uint64(buf[j + np.uint64(5)]) << np.uint64(40))
                | (np.uint64(buf[j + np.uint64(6)]) << np.uint64(48))
                | (np.uint64(buf[j + np.uint64(7)]) << np.uint64(56)))
        h = (h ^ word) * FNV_PRIME
        j += np.uint64(8)
    word = np.uint64(0)
    while j < stop:
        word = (word << np.uint64(8)) | np.uint64(buf[j])
        j += np.uint64(1)
    h = (h ^ word) * FNV_PRIME
    return np.int64(h ^ (h >> np.uint64(29)))


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def number(buf, i, n, as_float):
    """The JSON number at ``buf[i]`` (a minus or a digit), checked against
    the grammar and converted in the same pass: (the index after it, or
    TRUNCATED where the chunk ends in it, BAD where it is no number; its
    value as a float (``as_float``) or an int; whether that is exact)."""
    negative = buf[U(i)] == 45
    if negative:
        i += 1
        if i >= n:
            return TRUNCATED, 0.0, 0, False
    c = buf[U(i)]
    mantissa = 0                # the digits from the first that is not zero, while 18 fit (10**18 < 2**63)
    significant = 0             # how many of those there are
    lost = False                # whether a digit that changes the value did not fit
    scale = 0
    fraction = exponent = False
    if c == 48:
        i += 1
    elif 49 <= c <= 57:
        while i < n:
            c = buf[U(i)]
            if c < 48 or c > 57:
                break
            significant += 1
            if significant <= 18:
                mantissa = mantissa * 10 + (c - 48)
            else:
                lost = True
            i += 1
    else:
        return BAD, 0.0, 0, False
    if i < n and buf[U(i)] == 46:
        fraction = True
        i += 1
        first = i
        while i < n:
            c = buf[U(i)]
            if c < 48 or c > 57:
                break
            if mantissa or c != 48:
                significant += 1
            if significant <= 18:
                mantissa = mantissa * 10 + (c - 48)
                scale -= 1
            elif c != 48:
                lost = True
            i += 1
        if i == first:
            return (TRUNCATED if i >= n else BAD), 0.0, 0, False
    if i < n and (buf[U(i)] == 101 or buf[U(i)] == 69):
        exponent = True
        i += 1
        if i < n and (buf[U(i)] == 43 or buf[U(i)] == 45):
            i += 1
        first = i
        while i < n and 48 <= buf[U(i)] <= 57:
            i += 1
        if i == first:
            return (TRUNCATED if i >= n else BAD), 0.0, 0, False
    if i >= n:
        return TRUNCATED, 0.0, 0, False
    if as_float:
        while scale < 0 and mantissa and mantissa % 10 == 0 and not lost:
            mantissa //= 10             # a fraction's last zeros say nothing (1683564903138155.0 is
            scale += 1                  # 16 digits, as Python's json writes an integral float)
        if exponent or lost or mantissa >= _MAX_EXACT or scale < -22:
            return i, 0.0, 0, False     # more than an exact double holds: Python decodes it
        value = mantissa / _POW10[U(-scale)]
        return i, (-value if negative else value), 0, True
    if exponent or fraction or lost:
        return i, 0.0, 0, False
    return i, 0.0, (-mantissa if negative else mantissa), True
