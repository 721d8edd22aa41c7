"""Where JSON objects and arrays open and close, without decoding them.

The chunked reader (:mod:`.stream`) must know where each event of the
``traceEvents`` array ends and which key of the top-level object is
``traceEvents``; a byte search cannot tell a ``},`` or a ``"traceEvents"``
inside a string or a nested object from a real one. :class:`Scanner` finds
the brackets (and colons, for keys) that lie outside strings and the depth
after each, with numpy, a window of bytes at a time (memory: a few arrays
the size of one window). A quote is a string's delimiter unless an odd run
of backslashes precedes it. The scanner does not validate: the bytes it
delimits are decoded by msgspec, which refuses what is not JSON.
"""
from __future__ import annotations

import re

import msgspec
import numpy as np

QUOTE, BACKSLASH, COLON = 0x22, 0x5C, 0x3A
WINDOW_BYTES = 1 << 20       # the most scanned at once (bounds the scanner's arrays)
BLANKS = b" \t\r\n"
_BLANK_RUN = re.compile(rb"[ \t\r\n]*")


def _table(chars: bytes) -> np.ndarray:
    table = np.zeros(256, dtype=bool)
    table[list(chars)] = True
    return table


EVENT_MARKS = _table(b'{}[]"')       # enough to find where array elements end
KEY_MARKS = _table(b'{}[]":')        # and the colons after the keys of an object
_DEPTH_STEP = np.zeros(256, dtype=np.int64)
_DEPTH_STEP[list(b"{[")] = 1
_DEPTH_STEP[list(b"}]")] = -1


class Scanner:
    """Depth and string state of JSON text scanned in order: each call of
    :meth:`scan` continues where the previous one stopped, in the same
    (growing) buffer."""

    def __init__(self, depth: int = 0, pos: int = 0, marks: np.ndarray = EVENT_MARKS):
        self.depth, self.pos, self.marks = depth, pos, marks
        self.in_string = False

    def scan(self, buf, end: int | None = None):
        """Per window of ``buf[pos:end]``: the positions and bytes of the
        structural characters outside strings and the depth after each. A
        run of backslashes at the end is left for the next call (it may
        escape what follows)."""
        end = len(buf) if end is None else end
        if end > self.pos and buf[end - 1] == BACKSLASH:
            end = self.pos + len(bytes(buf[self.pos:end]).rstrip(b"\\"))
        while self.pos < end:
            hi = min(self.pos + WINDOW_BYTES, end)
            marks = self._window(buf, self.pos, hi)
            self.pos = hi
            yield marks

    def _window(self, buf, lo: int, hi: int):
        whole = np.frombuffer(buf, dtype=np.uint8)
        view = whole[lo:hi]
        pos = np.flatnonzero(self.marks[view]) + lo
        chars = whole[pos]
        quote = chars == QUOTE
        maybe_escaped = quote & (pos > 0)
        maybe_escaped[maybe_escaped] = whole[pos[maybe_escaped] - 1] == BACKSLASH
        if maybe_escaped.any():
            quote[maybe_escaped] = ~_odd_backslash_runs(whole, pos[maybe_escaped])
        before = np.cumsum(quote) - quote + self.in_string     # delimiters before each mark
        outside = (chars != QUOTE) & (before % 2 == 0)
        self.in_string = bool((int(quote.sum()) + self.in_string) % 2)
        pos, chars = pos[outside], chars[outside]
        depth = self.depth + np.cumsum(_DEPTH_STEP[chars])
        if len(depth):
            self.depth = int(depth[-1])
        return pos, chars, depth


def _odd_backslash_runs(whole: np.ndarray, quotes: np.ndarray) -> np.ndarray:
    """Whether an odd number of backslashes precedes each quote (then the
    quote is escaped), counted a step at a time for all quotes at once."""
    run = np.zeros(len(quotes), dtype=np.int64)
    active = np.arange(len(quotes))
    while len(active):
        before = quotes[active] - run[active] - 1
        more = before >= 0
        more[more] = whole[before[more]] == BACKSLASH
        active = active[more]
        run[active] += 1
    return run % 2 == 1


def skip_blanks(buf, pos: int) -> int:
    """The first position at or after ``pos`` that is not a JSON blank."""
    return _BLANK_RUN.match(buf, pos).end()


def key_before(buf, colon: int) -> tuple[str | None, int]:
    """The key whose ``:`` is at ``colon`` (None where it is not a JSON
    string: msgspec then names the error) and the position of its opening
    quote. Escapes are decoded, so ``"trace\\u0045vents"`` is ``traceEvents``
    (as it is to every JSON parser)."""
    close = colon - 1
    while close >= 0 and buf[close] in BLANKS:
        close -= 1
    if close < 1 or buf[close] != QUOTE:
        return None, colon
    opening = close
    while True:
        opening = buf.rfind(b'"', 0, opening)
        if opening < 0:
            return None, colon
        run = 0
        while opening - run > 0 and buf[opening - run - 1] == BACKSLASH:
            run += 1
        if run % 2 == 0:
            break
    try:
        key = msgspec.json.decode(bytes(buf[opening:close + 1]))
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None, opening
    return (key if isinstance(key, str) else None), opening


def top_level_keys(buf, name: str, start: int = 0, depth: int = 0) -> list[int]:
    """Positions of the opening quotes of the keys called ``name`` of the
    object at depth 1 (the top level), in ``buf[start:]`` scanned from
    ``depth``."""
    scanner = Scanner(depth=depth, pos=start, marks=KEY_MARKS)
    found = []
    for pos, chars, depths in scanner.scan(buf):
        for colon in pos[(chars == COLON) & (depths == 1)].tolist():
            key, opening = key_before(buf, colon)
            if key == name:
                found.append(opening)
    return found
