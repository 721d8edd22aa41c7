"""Values of a Kineto chunk as the scanner (:mod:`.jsonscan`) reads them,
compiled by numba: the hash of a value's bytes, and numbers parsed.

Numbers: a decimal whose digits make an integer below 2**53 and that
has at most 22 digits after its point is converted exactly (one correctly
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


@njit(cache=True, nogil=True, _nrt=False)
def parse_float(buf, start, end):
    """(value, True) for a decimal converted exactly, else (0.0, False)."""
    i = start
    negative = buf[U(i)] == 45
    if negative:
        i += 1
    mantissa = 0
    digits = 0
    scale = 0
    while i < end and 48 <= buf[U(i)] <= 57:
        if mantissa or buf[U(i)] != 48:
            digits += 1
        mantissa = mantissa * 10 + (buf[U(i)] - 48)
        i += 1
        if digits > 16:
            return 0.0, False
    if i < end and buf[U(i)] == 46:
        i += 1
        while i < end and 48 <= buf[U(i)] <= 57:
            if mantissa or buf[U(i)] != 48:
                digits += 1
            mantissa = mantissa * 10 + (buf[U(i)] - 48)
            scale -= 1
            i += 1
            if digits > 16:
                return 0.0, False
    if i != end or mantissa >= _MAX_EXACT or scale < -22:
        return 0.0, False               # an exponent, or more than an exact double holds
    value = mantissa / _POW10[-scale]
    return (-value if negative else value), True


@njit(cache=True, nogil=True, _nrt=False)
def parse_int(buf, start, end):
    """(value, True) for an integer of at most 18 digits, else (0, False)."""
    i = start
    negative = buf[U(i)] == 45
    if negative:
        i += 1
    if end - i > 18 or end <= i:
        return 0, False
    value = 0
    while i < end:
        c = buf[U(i)]
        if c < 48 or c > 57:
            return 0, False
        value = value * 10 + (c - 48)
        i += 1
    return (-value if negative else value), True
