"""Values of a scanned chunk (:mod:`.jsonscan`) numbered by content,
compiled by numba: each field's distinct values, and distinct tuples of
them, in order of first appearance, so :mod:`.scanned` decodes each once.

Two values are one where their lengths and 64-bit hashes are (comparing
their bytes as well cost more than the scan itself). Two different values
of one field are taken for one with a chance of about n**2 / 2**65 for n
distinct values in a chunk (3e-8 at a million); a file made to collide
says nothing its author could not have written plainly.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .jsonvalues import FIRST, FNV_OFFSET, FNV_PRIME, PRESENT, U as _U



@njit(cache=True, nogil=True)
def _grown(slots, hashes_of, reps, count):
    """A table twice the size of ``slots`` holding the same codes."""
    size = slots.shape[0] * 2
    mask = size - 1
    bigger = np.full(size, -1, dtype=np.int64)
    for c in range(count):
        at = hashes_of[_U(c)] & mask
        while bigger[at] >= 0:
            at = (at + 1) & mask
        bigger[at] = c
    return bigger


@njit(cache=True, nogil=True)
def _added(slots, hashes_of, reps, count, at, key, row):
    """``slots`` holding number ``count`` (its hash ``key``, its first row
    ``row``) at ``at``; twice as big where that fills half of it."""
    slots[_U(at)] = count
    reps[_U(count)] = row
    hashes_of[_U(count)] = key
    if 2 * (count + 1) > slots.shape[0]:
        return _grown(slots, hashes_of, reps, count + 1)
    return slots


@njit(cache=True, nogil=True)
def distinct_codes(out, col, rows, codes, reps):
    """Number the distinct values of field ``col`` of ``rows`` in order of
    first appearance: ``codes[_U(r)]`` for each, ``reps[_U(c)]`` the first row of
    code ``c``; returns how many. The table starts small and doubles: most
    fields hold a few values a chunk."""
    slots = np.full(64, -1, dtype=np.int64)
    hashes_of = np.empty(rows.shape[0], dtype=np.int64)
    mask = 63
    at0 = FIRST + 3 * col
    count = 0
    for r in rows:
        h = out[_U(r), _U(at0 + 2)]
        at = h & mask
        while True:
            c = slots[_U(at)]
            if c < 0:
                slots = _added(slots, hashes_of, reps, count, at, h, r)
                mask = slots.shape[0] - 1
                codes[_U(r)] = count
                count += 1
                break
            if hashes_of[_U(c)] == h:
                q = reps[_U(c)]
                if out[_U(r), _U(at0 + 1)] - out[_U(r), _U(at0)] == out[_U(q), _U(at0 + 1)] - out[_U(q), _U(at0)]:
                    codes[_U(r)] = c
                    break
            at = (at + 1) & mask
    return count


@njit(cache=True, nogil=True)
def distinct_tuples(codes, fields, n, out, reps):
    """Number the distinct tuples ``codes[fields, r]`` of rows ``r`` below
    ``n`` in order of first appearance: ``out[r]`` for each row, ``reps[c]``
    the first row of number ``c``; returns how many."""
    m = fields.shape[0]
    slots = np.full(64, -1, dtype=np.int64)
    hashes_of = np.empty(n, dtype=np.int64)
    mask = 63
    count = 0
    for r in range(n):
        h = FNV_OFFSET
        for j in range(m):
            h = (h ^ np.uint64(codes[_U(fields[_U(j)]), _U(r)] + 1)) * FNV_PRIME
        key = np.int64(h ^ (h >> np.uint64(29)))
        at = key & mask
        while True:
            c = slots[_U(at)]
            if c < 0:
                slots = _added(slots, hashes_of, reps, count, at, key, r)
                mask = slots.shape[0] - 1
                out[_U(r)] = count
                count += 1
                break
            q = reps[_U(c)]
            same = True
            for j in range(m):
                if codes[_U(fields[_U(j)]), _U(q)] != codes[_U(fields[_U(j)]), _U(r)]:
                    same = False
                    break
            if same:
                out[_U(r)] = c
                break
            at = (at + 1) & mask
    return count


@njit(cache=True, nogil=True)
def all_codes(out, n, cols, codes, reps, counts):
    """distinct_codes of each field in ``cols`` over the first ``n`` rows,
    in one call: ``codes[_U(j), _U(r)]`` (-1: row ``r`` has no field ``cols[j]``),
    ``reps[j, c]``, ``counts[j]``."""
    rows = np.empty(n, dtype=np.int64)
    present = out[:n, PRESENT].copy()      # (read once: a row of ``out`` is tens of words wide)
    codes[:, :n] = -1
    for j in range(cols.shape[0]):
        bit = np.int64(1) << cols[j]
        m = 0
        for r in range(n):
            if present[_U(r)] & bit:
                rows[_U(m)] = r
                m += 1
        counts[j] = distinct_codes(out, cols[j], rows[:m], codes[j], reps[j])


@njit(cache=True, nogil=True)
def number(out, n, cols, codes, reps, counts, tuples, tuple_codes, tuple_reps, tuple_counts):
    """all_codes, then distinct_tuples of each row of ``tuples`` (indices
    into ``cols``): what :mod:`.scanned` needs numbered, in the call that
    scans (one compiled entry point: each costs its own load from the cache)."""
    all_codes(out, n, cols, codes, reps, counts)
    for t in range(tuples.shape[0]):
        tuple_counts[t] = distinct_tuples(codes, tuples[t], n, tuple_codes[t], tuple_reps[t])
