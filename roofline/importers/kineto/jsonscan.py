"""The events of a Kineto chunk scanned into columns, no Python object per
event: a strict JSON scanner compiled by numba over the chunk's bytes.

What :mod:`.decode` makes with msgspec (a struct per event and one per
event's args) was most of a big trace's reading time, and the Python
passes over those structs most of the rest. This scanner walks the bytes
once and writes, per event, where each field the reader uses lies (its
byte span and a hash of its bytes, so a value repeated by a million events
is decoded once: :mod:`.scanned`), and parses timestamps and ids as
numbers on the way.

It is strict where it reads and conservative everywhere: it checks the
whole chunk against JSON's grammar (what it skips too), and stops at the
first thing it does not read plainly (a key spelt with escapes or in
anything but ASCII, a key twice in one event, nesting deeper than
:data:`.jsongrammar.MAX_DEPTH`). Then the chunk is decoded by msgspec as
before, which says what is wrong, if anything, as it always has
(:mod:`.stream`).

Where a value ends is found by :mod:`.jsongrammar`; numbers are parsed and
values hashed by :mod:`.jsonvalues`.

numba caches the compiled scan beside this file and checks only this file's
time stamp: after an edit of :mod:`.jsongrammar`, :mod:`.jsonvalues` or
:mod:`.spancodes` alone,
delete ``__pycache__/*.nbi`` and ``*.nbc`` (benchmarks/fresh_process.py
does). An install writes every file anew, so a user never meets a stale scan.

Every function the scan calls per token is compiled without numba's
reference counting (``_nrt=False``: they allocate nothing): with it, each
call counted each array it was handed up and down again, atomically, and
that was 39% of the scan's time (perf, cpu-clock samples).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .jsongrammar import MAX_DEPTH, key_end, number_end, skip_blanks, string_end, value_end
from .jsonvalues import BAD as _BAD, FIRST, INEXACT, MARKS, PRESENT, TRUNCATED as _TRUNCATED, U as _U, hash_of, number
from .spancodes import number as number_values


# field kinds in the key tables
RAW, NUM, INT, ARGS, MARK = 0, 1, 2, 3, 4
# what scan() returns as its status
ENDED_IN_EVENT, ARRAY_CLOSED, IRREGULAR, FULL = 0, 1, 2, 3
# a number's state in its column
ABSENT, PARSED, DECODE = 0, 1, 2
# an event's marks
HAS_ARGS, ODD_ARGS, MARKED = 1, 2, 4
KEY_SLOTS = 256


class KeyTables:
    """The keys of an event (level 0) and of its args (level 1), as the
    scanner reads them: ``keys[level, k]`` the bytes of key ``k``,
    ``meta[level, k]`` its (length, kind, column), ``slots[level]`` where
    a key met is looked for (:func:`_key_slot`, then the next slots)."""

    def __init__(self, top: list[tuple[str, int, int]], args: list[tuple[str, int, int]]):
        levels = [[(k.encode(), kind, col) for k, kind, col in keys] for keys in (top, args)]
        width = max(len(k) for keys in levels for k, _, _ in keys)
        size = max(len(keys) for keys in levels)
        if size > 63:
            raise ValueError("at most 63 keys a level (a bit each)")
        self.keys = np.zeros((2, size, width), dtype=np.uint8)
        self.meta = np.full((2, size, 3), -1, dtype=np.int64)
        self.slots = np.full((2, KEY_SLOTS), -1, dtype=np.int64)
        for level, keys in enumerate(levels):
            for k, (key, kind, col) in enumerate(keys):
                self.keys[level, k, :len(key)] = np.frombuffer(key, dtype=np.uint8)
                self.meta[level, k] = (len(key), kind, col)
                at = _key_slot_of(key)
                while self.slots[_U(level), _U(at)] >= 0:
                    at = (at + 1) & (KEY_SLOTS - 1)
                self.slots[_U(level), _U(at)] = k


def _key_slot_of(key: bytes) -> int:
    """_key_slot of a key of ours (in Python: no compiled code is loaded to build the tables)."""
    return (len(key) * 97 + key[0] * 31 + key[-1]) & (KEY_SLOTS - 1) if key else 0


@njit(cache=True, nogil=True, _nrt=False)
def _key_slot(buf, start, end):
    """Where a key's search starts in a table's slots: from its length
    and its first and last bytes (three loads, not a hash of every byte)."""
    size = end - start
    if size == 0:
        return 0
    return (size * 97 + np.int64(buf[_U(start)]) * 31 + np.int64(buf[_U(end - 1)])) & (KEY_SLOTS - 1)


@njit(cache=True, nogil=True, _nrt=False)
def _key_index(buf, start, end, level, keys, meta, slots):
    """The row of the level's table holding the key ``buf[start:end]``, or -1."""
    size = end - start
    at = _key_slot(buf, start, end)
    while True:
        k = slots[_U(level), _U(at)]
        if k < 0:
            return -1
        if meta[_U(level), _U(k), 0] == size:
            same = True
            for j in range(size):
                if keys[_U(level), _U(k), _U(j)] != buf[_U(start + j)]:
                    same = False
                    break
            if same:
                return k
        at = (at + 1) & (KEY_SLOTS - 1)


def row_width(fields: int) -> int:
    """The words of an event's row of ``out`` with ``fields`` fields: PRESENT,
    MARKS and INEXACT, then each field's start, end, and hash or value."""
    return FIRST + 3 * fields


@njit(cache=True, nogil=True, _nrt=False)
def _object(buf, i, n, row, keys, meta, slots, out, floats, stack):
    """Scan the event at ``buf[i]`` (``{``), and its args object, into
    ``out[row]`` (and ``floats[row]``); the index after it, or _TRUNCATED
    / _BAD. (One loop for both levels: numba's cache keeps no recursion.)"""
    seen0 = seen1 = np.int64(0)                  # the keys met, per level
    level = 0
    i = skip_blanks(buf, i + 1, n)
    if i >= n:
        return _TRUNCATED
    if buf[_U(i)] == 125:                           # an empty event
        return i + 1
    closed = False
    while True:
        if not closed:
            if buf[_U(i)] != 34:
                return _BAD
            after_key = key_end(buf, i, n)
            if after_key < 0:
                return after_key
            k = _key_index(buf, i + 1, after_key - 1, level, keys, meta, slots)
            i = skip_blanks(buf, after_key, n)
            if i >= n:
                return _TRUNCATED
            if buf[_U(i)] != 58:
                return _BAD
            i = skip_blanks(buf, i + 1, n)
            if i >= n:
                return _TRUNCATED
            if k >= 0:
                bit = np.int64(1) << k
                if (seen0 if level == 0 else seen1) & bit:
                    return _BAD                 # a key twice: msgspec keeps the last, say nothing
                if level == 0:
                    seen0 |= bit
                else:
                    seen1 |= bit
                kind = meta[_U(level), _U(k), 1]
                col = meta[_U(level), _U(k), 2]
                if kind == ARGS and buf[_U(i)] == 123:
                    out[_U(row), _U(MARKS)] |= HAS_ARGS
                    level = 1
                    seen1 = np.int64(0)
                    i = skip_blanks(buf, i + 1, n)
                    if i >= n:
                        return _TRUNCATED
                    if buf[_U(i)] != 125:
                        continue                # the args' first key
                    level = 0                   # empty args
                    end = i + 1
                elif (kind == NUM or kind == INT) and (buf[_U(i)] == 45 or 48 <= buf[_U(i)] <= 57):
                    end = _number_field(buf, i, n, row, kind, col, out, floats)
                else:
                    end = string_end(buf, i, n) if buf[_U(i)] == 34 else value_end(buf, i, n, stack)
                    if end >= 0:
                        _record(buf, i, end, row, kind, col, out, floats)
            elif buf[_U(i)] == 34:                  # most values: no call of value_end's loop
                end = string_end(buf, i, n)
            elif buf[_U(i)] == 45 or 48 <= buf[_U(i)] <= 57:
                end = number_end(buf, i, n)
            else:
                end = value_end(buf, i, n, stack)
            if end < 0:
                return end
            i = end
        closed = False
        # after a value: the next key, or the end of the args or of the event
        i = skip_blanks(buf, i, n)
        if i >= n:
            return _TRUNCATED
        if buf[_U(i)] == 125:
            if level == 0:
                return i + 1
            level = 0
            i += 1
            closed = True                       # the args ended: what follows them
            continue
        if buf[_U(i)] != 44:
            return _BAD
        i = skip_blanks(buf, i + 1, n)
        if i >= n:
            return _TRUNCATED


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _record(buf, start, end, row, kind, col, out, floats):
    """Write the value ``buf[start:end]`` of field ``col`` into ``out[row]``:
    its span, and the hash of its bytes (RAW), or, a NUM or INT field that
    holds no number, its INEXACT bit (left to Python)."""
    if kind == MARK:
        out[_U(row), _U(MARKS)] |= MARKED
        return
    if kind == ARGS:
        # args null: none, as msgspec reads it (an event's args are an object
        # or None; a flow's are not read); any other value is the msgspec path's
        if not (end - start == 4 and buf[_U(start)] == 110):
            out[_U(row), _U(MARKS)] |= ODD_ARGS
        return
    if kind == RAW:
        _put(out, floats, row, col, kind, start, end, 0.0, hash_of(buf, start, end), True)
    else:                   # a NUM or INT field that is no number (a number goes to _number_field)
        _put(out, floats, row, col, kind, start, end, 0.0, 0, False)


@njit(cache=True, nogil=True, _nrt=False)
def _number_field(buf, i, n, row, kind, col, out, floats):
    """Scan the number at ``buf[i]`` (a minus or a digit) of field ``col``
    and write it into ``out[row]`` as _record does, converted in the same
    pass: the index after it, or _TRUNCATED / _BAD."""
    end, as_float, as_int, exact = number(buf, i, n, kind == NUM)
    if end >= 0:
        _put(out, floats, row, col, kind, i, end, as_float, as_int, exact)
    return end


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _put(out, floats, row, col, kind, start, end, as_float, as_int, exact):
    """Field ``col`` of ``out[row]`` present: its span, its value (a NUM's
    in ``floats``; a RAW's hash or an INT's value in the row), and its
    INEXACT bit where Python decodes it."""
    bit = np.int64(1) << col
    out[_U(row), _U(PRESENT)] |= bit
    at = FIRST + 3 * col
    out[_U(row), _U(at)] = start
    out[_U(row), _U(at + 1)] = end
    if kind == NUM:
        floats[_U(row), _U(col)] = as_float
    else:
        out[_U(row), _U(at + 2)] = as_int
    if not exact:
        out[_U(row), _U(INEXACT)] |= bit


@njit(cache=True, nogil=True)
def scan(buf, i, capacity, keys, meta, slots, out, floats, bounds, numbering):
    """Scan the events of a traceEvents array from ``buf[i]`` (just after
    its ``[`` or after a comma between two events) into the rows of
    ``out``, at most ``capacity`` of them, then number their values
    (``numbering``: spancodes.number's arrays): (events, the index after
    the last one's comma (or after the array's ``]``), status)."""
    stack = np.empty(MAX_DEPTH, dtype=np.uint8)
    rows, done, status = _events(buf, i, capacity, keys, meta, slots, out, floats, bounds, stack)
    cols, codes, reps, counts, tuples, tuple_codes, tuple_reps, tuple_counts = numbering
    number_values(out, rows, cols, codes, reps, counts, tuples, tuple_codes, tuple_reps, tuple_counts)
    return rows, done, status


@njit(cache=True, nogil=True, _nrt=False)
def _events(buf, i, capacity, keys, meta, slots, out, floats, bounds, stack):
    """The events of :func:`scan`, before their values are numbered
    (``stack``: MAX_DEPTH bytes for value_end)."""
    n = buf.shape[0]
    rows = 0
    done = i
    while True:
        i = skip_blanks(buf, i, n)
        if i >= n:
            return rows, done, ENDED_IN_EVENT
        if buf[_U(i)] != 123:          # an empty array, a comma before its end, not an event: msgspec's
            return rows, done, IRREGULAR
        out[_U(rows), PRESENT] = 0
        out[_U(rows), MARKS] = 0
        out[_U(rows), INEXACT] = 0
        bounds[_U(rows), 0] = i
        end = _object(buf, i, n, rows, keys, meta, slots, out, floats, stack)
        if end == _TRUNCATED:
            return rows, done, ENDED_IN_EVENT
        if end == _BAD:
            return rows, done, IRREGULAR
        bounds[_U(rows), 1] = end
        i = skip_blanks(buf, end, n)
        if i >= n:
            return rows, done, ENDED_IN_EVENT
        if buf[_U(i)] == 93:
            return rows + 1, i + 1, ARRAY_CLOSED
        if buf[_U(i)] != 44:
            return rows, done, IRREGULAR
        rows += 1
        i += 1
        done = i
        if rows == capacity:
            return rows, done, FULL
