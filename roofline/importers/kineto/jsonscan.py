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
:data:`MAX_DEPTH`). Then the chunk is decoded by msgspec as before, which
says what is wrong, if anything, as it always has (:mod:`.stream`).

Numbers are parsed and values hashed by :mod:`.jsonvalues`.

numba caches the compiled scan beside this file and checks only this file's
time stamp: after an edit of :mod:`.jsonvalues` or :mod:`.spancodes` alone,
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
from numba.core import types
from numba.extending import intrinsic
from numba.cpython.unsafe.numbers import trailing_zeros
from llvmlite import ir

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
MAX_DEPTH = 64
KEY_SLOTS = 256
_LITERALS = np.array([list(b"true "), list(b"false"), list(b"null ")], dtype=np.uint8)
_LITERAL_SIZES = np.array([4, 5, 4], dtype=np.int64)


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


@njit(cache=True, nogil=True, _nrt=False)
def _blank(c):
    return c == 32 or c == 10 or c == 13 or c == 9


@njit(cache=True, nogil=True, _nrt=False)
def _skip_blanks(buf, i, n):
    while i < n and _blank(buf[_U(i)]):
        i += 1
    return i


@njit(cache=True, nogil=True, _nrt=False)
def _hex(c):
    return (48 <= c <= 57) or (65 <= c <= 70) or (97 <= c <= 102)


@njit(cache=True, nogil=True, _nrt=False)
def _string_end(buf, i, n):
    """The index after the string whose opening quote is at ``i``;
    _TRUNCATED or _BAD (a control character or a bad escape: the msgspec
    path reports those)."""
    i += 1
    while i < n:
        c = buf[_U(i)]
        if c == 34:
            return i + 1
        if c == 92:
            if i + 1 >= n:
                return _TRUNCATED
            e = buf[_U(i + 1)]
            if e == 117:                       # \u and four hex digits
                if i + 5 >= n:
                    return _TRUNCATED
                for k in range(2, 6):
                    if not _hex(buf[_U(i + k)]):
                        return _BAD
                i += 6
                continue
            if e == 34 or e == 92 or e == 47 or e == 98 or e == 102 or e == 110 or e == 114 or e == 116:
                i += 2
                continue
            return _BAD
        if c < 32:                         # (UTF-8 is checked where a value is decoded, as
            return _BAD                    # msgspec checks it: a skipped or raw value is not)
        i += 1
    return _TRUNCATED


_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)
_QUOTES = np.uint64(0x2222222222222222)
_BACKSLASHES = np.uint64(0x5C5C5C5C5C5C5C5C)
_SPACES = np.uint64(0x2020202020202020)


@intrinsic
def _word(typingctx, buf, j):
    """The eight bytes at ``buf[j]`` as one word, the first in its lowest
    byte (one unaligned load: on a little-endian machine; elsewhere the
    reader does not scan, see kineto._scanner); the caller keeps ``j + 8``
    within ``buf``."""
    def codegen(context, builder, sig, args):
        array = context.make_array(sig.args[0])(context, builder, args[0])
        at = builder.gep(array.data, [args[1]])
        return builder.load(builder.bitcast(at, ir.IntType(64).as_pointer()), align=1)
    return types.uint64(buf, j), codegen


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _key_bytes(w):
    """The high bit of each byte of ``w`` that ends a key's plain run (a
    quote, a backslash, a control character, a byte past ASCII). Only the
    lowest set bit is exact (a borrow can mark a byte above a true one),
    and only it is used."""
    q = w ^ _QUOTES
    b = w ^ _BACKSLASHES
    return ((q - _ONES) & ~q | (b - _ONES) & ~b | (w - _SPACES) & ~w | w) & _HIGHS


@njit(cache=True, nogil=True, _nrt=False)
def _key_end(buf, i, n):
    """As _string_end, for a key: _BAD where it holds an escape or a
    non-ASCII byte (a key spelt with escapes may be one of ours: msgspec
    reads those). Eight bytes a step while the chunk holds them (a key's
    end, found byte by byte, was the scan's costliest branch)."""
    i += 1
    while i + 8 <= n:
        m = _key_bytes(_word(buf, _U(i)))
        if m != 0:
            i += np.int64(trailing_zeros(m)) >> 3
            return i + 1 if buf[_U(i)] == 34 else _BAD
        i += 8
    while i < n:
        c = buf[_U(i)]
        if c == 34:
            return i + 1
        if c == 92 or c < 32 or c >= 128:
            return _BAD
        i += 1
    return _TRUNCATED


@njit(cache=True, nogil=True, _nrt=False)
def _number_end(buf, i, n):
    """The index after the JSON number starting at ``i``; _TRUNCATED
    when the chunk ends in it, _BAD when it is not one."""
    if i < n and buf[_U(i)] == 45:
        i += 1
    if i >= n:
        return _TRUNCATED
    c = buf[_U(i)]
    if c == 48:
        i += 1
    elif 49 <= c <= 57:
        while i < n and 48 <= buf[_U(i)] <= 57:
            i += 1
    else:
        return _BAD
    if i < n and buf[_U(i)] == 46:
        i = _digits_end(buf, i + 1, n)
        if i < 0:
            return i
    if i < n and (buf[_U(i)] == 101 or buf[_U(i)] == 69):
        i += 1
        if i < n and (buf[_U(i)] == 43 or buf[_U(i)] == 45):
            i += 1
        i = _digits_end(buf, i, n)
        if i < 0:
            return i
    return _TRUNCATED if i >= n else i


@njit(cache=True, nogil=True, _nrt=False)
def _digits_end(buf, i, n):
    """The index after the one or more digits at ``i`` (a fraction's, an
    exponent's); _TRUNCATED or _BAD where there are none."""
    start = i
    while i < n and 48 <= buf[_U(i)] <= 57:
        i += 1
    if i == start:
        return _TRUNCATED if i >= n else _BAD
    return i


@njit(cache=True, nogil=True, _nrt=False)
def _literal_end(buf, i, n):
    """The index after true, false or null at ``i``."""
    c = buf[_U(i)]
    row = 0 if c == 116 else (1 if c == 102 else 2)
    size = _LITERAL_SIZES[row]
    for k in range(size):
        if i + k >= n:
            return _TRUNCATED
        if buf[_U(i + k)] != _LITERALS[_U(row), _U(k)]:
            return _BAD
    return i + size


@njit(cache=True, nogil=True, _nrt=False)
def _value_end(buf, i, n, stack):
    """The index after the JSON value starting at ``i`` (checked against
    the grammar, nested at most MAX_DEPTH deep: ``stack`` holds the open
    brackets, 0 array, 1 object); _TRUNCATED or _BAD."""
    depth = 0
    while True:
        i = _skip_blanks(buf, i, n)
        if i >= n:
            return _TRUNCATED
        c = buf[_U(i)]
        if c == 123 or c == 91:                      # { or [
            if depth == MAX_DEPTH:
                return _BAD
            stack[_U(depth)] = 1 if c == 123 else 0
            depth += 1
            i = _skip_blanks(buf, i + 1, n)
            if i >= n:
                return _TRUNCATED
            if buf[_U(i)] == (125 if c == 123 else 93):   # empty
                depth -= 1
                i += 1
            elif c == 123:
                i = _key_then_colon(buf, i, n)
                if i < 0:
                    return i
                continue
            else:
                continue
        else:
            if c == 34:
                i = _string_end(buf, i, n)
            elif c == 45 or 48 <= c <= 57:
                i = _number_end(buf, i, n)
            elif c == 116 or c == 102 or c == 110:
                i = _literal_end(buf, i, n)
            else:
                return _BAD
            if i < 0:
                return i
        # after a value: a comma (then the next element or key) or the closing bracket
        while True:
            if depth == 0:
                return i
            i = _skip_blanks(buf, i, n)
            if i >= n:
                return _TRUNCATED
            c = buf[_U(i)]
            if c == 44:
                i += 1
                if stack[_U(depth - 1)] == 1:
                    i = _skip_blanks(buf, i, n)
                    i = _key_then_colon(buf, i, n)
                    if i < 0:
                        return i
                break
            if c == (125 if stack[_U(depth - 1)] == 1 else 93):
                depth -= 1
                i += 1
                continue
            return _BAD


@njit(cache=True, nogil=True, _nrt=False)
def _key_then_colon(buf, i, n):
    """The index after ``"key" :`` at ``i`` (blanks skipped)."""
    if i >= n:
        return _TRUNCATED
    if buf[_U(i)] != 34:
        return _BAD
    i = _string_end(buf, i, n)
    if i < 0:
        return i
    i = _skip_blanks(buf, i, n)
    if i >= n:
        return _TRUNCATED
    if buf[_U(i)] != 58:
        return _BAD
    return i + 1


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
    i = _skip_blanks(buf, i + 1, n)
    if i >= n:
        return _TRUNCATED
    if buf[_U(i)] == 125:                           # an empty event
        return i + 1
    closed = False
    while True:
        if not closed:
            if buf[_U(i)] != 34:
                return _BAD
            key_end = _key_end(buf, i, n)
            if key_end < 0:
                return key_end
            k = _key_index(buf, i + 1, key_end - 1, level, keys, meta, slots)
            i = _skip_blanks(buf, key_end, n)
            if i >= n:
                return _TRUNCATED
            if buf[_U(i)] != 58:
                return _BAD
            i = _skip_blanks(buf, i + 1, n)
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
                    i = _skip_blanks(buf, i + 1, n)
                    if i >= n:
                        return _TRUNCATED
                    if buf[_U(i)] != 125:
                        continue                # the args' first key
                    level = 0                   # empty args
                    end = i + 1
                elif (kind == NUM or kind == INT) and (buf[_U(i)] == 45 or 48 <= buf[_U(i)] <= 57):
                    end = _number_field(buf, i, n, row, kind, col, out, floats)
                else:
                    end = _string_end(buf, i, n) if buf[_U(i)] == 34 else _value_end(buf, i, n, stack)
                    if end >= 0:
                        _record(buf, i, end, row, kind, col, out, floats)
            elif buf[_U(i)] == 34:                  # most values: no call of _value_end's loop
                end = _string_end(buf, i, n)
            elif buf[_U(i)] == 45 or 48 <= buf[_U(i)] <= 57:
                end = _number_end(buf, i, n)
            else:
                end = _value_end(buf, i, n, stack)
            if end < 0:
                return end
            i = end
        closed = False
        # after a value: the next key, or the end of the args or of the event
        i = _skip_blanks(buf, i, n)
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
        i = _skip_blanks(buf, i + 1, n)
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
    if kind == ARGS:                       # args that are not an object (null): the msgspec path
        out[_U(row), _U(MARKS)] |= ODD_ARGS
        return
    bit = np.int64(1) << col
    out[_U(row), _U(PRESENT)] |= bit
    at = FIRST + 3 * col
    out[_U(row), _U(at)] = start
    out[_U(row), _U(at + 1)] = end
    if kind == RAW:
        out[_U(row), _U(at + 2)] = hash_of(buf, start, end)
        return
    # a NUM or INT field that is no number (a number goes to _number_field): Python decodes it
    if kind == NUM:
        floats[_U(row), _U(col)] = 0.0
    else:
        out[_U(row), _U(at + 2)] = 0
    out[_U(row), _U(INEXACT)] |= bit


@njit(cache=True, nogil=True, _nrt=False)
def _number_field(buf, i, n, row, kind, col, out, floats):
    """Scan the number at ``buf[i]`` (a minus or a digit) of field ``col``
    and write it into ``out[row]`` as _record does, converted in the same
    pass: the index after it, or _TRUNCATED / _BAD."""
    end, as_float, as_int, exact = number(buf, i, n, kind == NUM)
    if end < 0:
        return end
    bit = np.int64(1) << col
    out[_U(row), _U(PRESENT)] |= bit
    at = FIRST + 3 * col
    out[_U(row), _U(at)] = i
    out[_U(row), _U(at + 1)] = end
    if kind == NUM:
        floats[_U(row), _U(col)] = as_float
    else:
        out[_U(row), _U(at + 2)] = as_int
    if not exact:
        out[_U(row), _U(INEXACT)] |= bit
    return end


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
    (``stack``: MAX_DEPTH bytes for _value_end)."""
    n = buf.shape[0]
    rows = 0
    done = i
    while True:
        i = _skip_blanks(buf, i, n)
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
        i = _skip_blanks(buf, end, n)
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
