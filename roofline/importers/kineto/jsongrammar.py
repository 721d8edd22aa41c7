"""Where a JSON value, key or run of blanks ends in a Kineto chunk's bytes,
checked against JSON's grammar as it goes: the primitives the scanner
(:mod:`.jsonscan`) is made of, compiled by numba without reference
counting (they allocate nothing; .jsonscan says why).

Each returns the index after what it read, or TRUNCATED where the chunk
ends in it, BAD where it is not JSON (or, for a key, not one the scanner
reads plainly: an escape or a byte past ASCII).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from .jsonvalues import BAD as _BAD, TRUNCATED as _TRUNCATED, U as _U

MAX_DEPTH = 64                  # nesting value_end follows (deeper: BAD, and msgspec says what is wrong)
_LITERALS = np.array([list(b"true "), list(b"false"), list(b"null ")], dtype=np.uint8)
_LITERAL_SIZES = np.array([4, 5, 4], dtype=np.int64)


@njit(cache=True, nogil=True, _nrt=False)
def _blank(c):
    return c == 32 or c == 10 or c == 13 or c == 9


@njit(cache=True, nogil=True, _nrt=False)
def skip_blanks(buf, i, n):
    while i < n and _blank(buf[_U(i)]):
        i += 1
    return i


@njit(cache=True, nogil=True, _nrt=False)
def _hex(c):
    return (48 <= c <= 57) or (65 <= c <= 70) or (97 <= c <= 102)


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
        return builder.load(builder.bitcast(at, context.get_value_type(types.uint64).as_pointer()), align=1)
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


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _string_bytes(w):
    """As _key_bytes, for a value's string: a byte past ASCII is text (UTF-8
    is checked where a value is decoded), so only a quote, a backslash or
    a control character ends its plain run."""
    q = w ^ _QUOTES
    b = w ^ _BACKSLASHES
    return ((q - _ONES) & ~q | (b - _ONES) & ~b | (w - _SPACES) & ~w) & _HIGHS


@njit(cache=True, nogil=True, _nrt=False)
def string_end(buf, i, n):
    """The index after the string whose opening quote is at ``i``;
    _TRUNCATED or _BAD (a control character or a bad escape: the msgspec
    path reports those). Plain runs eight bytes a step while the chunk
    holds them (kernel names run to thousands of bytes)."""
    i += 1
    while i < n:
        if i + 8 <= n:
            m = _string_bytes(_word(buf, _U(i)))
            if m == 0:
                i += 8
                continue
            i += np.int64(trailing_zeros(m)) >> 3
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


@njit(cache=True, nogil=True, _nrt=False)
def key_end(buf, i, n):
    """As string_end, for a key: _BAD where it holds an escape or a
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
def number_end(buf, i, n):
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
def value_end(buf, i, n, stack):
    """The index after the JSON value starting at ``i`` (checked against
    the grammar, nested at most MAX_DEPTH deep: ``stack`` holds the open
    brackets, 0 array, 1 object); _TRUNCATED or _BAD."""
    depth = 0
    while True:
        i = skip_blanks(buf, i, n)
        if i >= n:
            return _TRUNCATED
        c = buf[_U(i)]
        if c == 123 or c == 91:                      # { or [
            if depth == MAX_DEPTH:
                return _BAD
            stack[_U(depth)] = 1 if c == 123 else 0
            depth += 1
            i = skip_blanks(buf, i + 1, n)
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
                i = string_end(buf, i, n)
            elif c == 45 or 48 <= c <= 57:
                i = number_end(buf, i, n)
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
            i = skip_blanks(buf, i, n)
            if i >= n:
                return _TRUNCATED
            c = buf[_U(i)]
            if c == 44:
                i += 1
                if stack[_U(depth - 1)] == 1:
                    i = skip_blanks(buf, i, n)
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
    i = string_end(buf, i, n)
    if i < 0:
        return i
    i = skip_blanks(buf, i, n)
    if i >= n:
        return _TRUNCATED
    if buf[_U(i)] != 58:
        return _BAD
    return i + 1
