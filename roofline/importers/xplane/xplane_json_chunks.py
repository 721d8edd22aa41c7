"""The ``traceEvents`` array of a Chrome-trace JSON file, decoded a chunk
of events at a time, so memory holds one chunk (about a MiB of text and its
events), not the file.

The file is read as a stream (gunzipped on the fly, a byte-order mark
handled: :mod:`.kineto.stream`'s ``file_bytes``/``utf8_pieces``), and
:class:`~.kineto.scan.Scanner` finds, outside strings, the top-level
``traceEvents`` key, where each element of its array ends, and how deep
the brackets go. Nesting deeper than :data:`MAX_DEPTH` is refused as it is
scanned, before msgspec (which decodes nested JSON with one C stack frame
per level: 50,000 levels are a RecursionError) sees it. The text before
and after the array is decoded once the array has ended, so a syntax error
anywhere is refused as the whole-file decoder would.
"""
from __future__ import annotations

from collections.abc import Iterator

import msgspec
import numpy as np

from ...core.errors import InputError
from ...core.text_files import regular_file

CHUNK_BYTES = 1 << 20
MAX_EVENT_BYTES = 64 << 20     # no event of a trace is this long
MAX_OUTSIDE_BYTES = 32 << 20   # the most top-level text before (or after) traceEvents
# A trace event is an object in an array in an object, its args one or two
# levels more: nothing a profiler writes goes near this.
MAX_DEPTH = 64
_CLOSERS = np.array([ord("}"), ord("]")], dtype=np.uint8)


def event_chunks(path, event_type, not_readable: str) -> Iterator[tuple[int, list]]:
    """(index of the first event, the events) of each chunk of the file's
    ``traceEvents`` array, decoded as ``event_type``; an InputError
    starting with ``not_readable`` for what is not such a file."""
    regular_file(path)
    decoder = msgspec.json.Decoder(list[event_type])
    reader = _Reader(path, not_readable)
    first = 0
    for text in reader.chunks():
        try:
            events = decoder.decode(text)
        except msgspec.ValidationError as exc:
            raise reader.error(f"traceEvents[{first}...]: {exc}") from None
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            raise reader.error(str(exc)) from None
        except RecursionError:       # the scanner refuses deep nesting first; in case it did not
            raise reader.error(_deep(MAX_DEPTH)) from None
        yield first, events
        first += len(events)
    reader.check_outside()


def _kineto():
    """The Kineto reader's scanner and stream modules, imported when a file
    is read: importing the kineto package registers its reader, which must
    come after the TensorFlow readers (a Trace Viewer JSON is also a
    Chrome trace)."""
    from ..kineto import scan, stream  # noqa: PLC0415
    return scan, stream


def _deep(depth: int) -> str:
    return (f"JSON nested more than {depth} levels deep (objects or arrays inside each other): "
            "no profiler writes that")


class _Reader:
    """The bytes of the file's traceEvents array in chunks of whole
    elements, and the top-level text around it."""

    def __init__(self, path, not_readable: str):
        self.path, self.not_readable = path, not_readable
        self.scan, stream = _kineto()
        self.pieces = stream.utf8_pieces(stream.file_bytes(path), path)
        self.buf = bytearray()
        self.scanner = self.scan.Scanner(marks=self.scan.KEY_MARKS)
        self.head = b""          # the top level before the array's [
        self.tail = b""          # after its ]
        self.exhausted = False

    def error(self, what: str) -> InputError:
        return InputError(self.path, None, f"{self.not_readable}: {what}")

    def _more(self) -> bool:
        piece = next(self.pieces, None)
        if piece is None:
            self.exhausted = True
            return False
        self.buf += piece
        return True

    def _marks(self):
        """(positions, bytes, depths) of the structure in the bytes not scanned yet."""
        for pos, chars, depths in self.scanner.scan(self.buf):
            if len(depths) and int(depths.max()) > MAX_DEPTH:
                raise self.error(_deep(MAX_DEPTH))
            yield pos, chars, depths

    def _array_start(self) -> int:
        """The position after the ``[`` of the top-level traceEvents array."""
        colon = None
        while True:
            for pos, chars, depths in self._marks():
                if colon is None:
                    for c in pos[(chars == self.scan.COLON) & (depths == 1)].tolist():
                        if self.scan.key_before(self.buf, c)[0] == "traceEvents":
                            colon = c
                            break
                if colon is not None:
                    value = self.scan.skip_blanks(self.buf, colon + 1)
                    if value < len(self.buf):
                        if self.buf[value] != ord("["):
                            raise self.error("traceEvents is not a list")
                        # rescan from the bracket: the array's elements start after it
                        self.scanner = self.scan.Scanner(depth=2, pos=value + 1, marks=self.scan.KEY_MARKS)
                        self.head = bytes(self.buf[:value])
                        return value + 1
                if len(depths) and (depths == 0).any():
                    raise self.error("the top-level object has no traceEvents key")
            if len(self.buf) > MAX_OUTSIDE_BYTES:
                raise self.error(f"no traceEvents array in the first {MAX_OUTSIDE_BYTES >> 20} MiB")
            if not self._more():
                raise self.error("no traceEvents array (the file ends before it)" if self.buf.strip()
                                 else "empty file")

    def chunks(self) -> Iterator[bytes]:
        """Each chunk of whole elements as a JSON array's text."""
        start = self._array_start()
        del self.buf[:start]
        self.scanner.pos -= start
        last_end = None            # where the last whole element ends (its } or ])
        while True:
            closed = None
            for pos, chars, depths in self._marks():
                ends = pos[(depths == 2) & np.isin(chars, _CLOSERS)]
                if len(ends):
                    last_end = int(ends[-1])
                done = np.flatnonzero(depths == 1)
                if len(done):
                    closed = int(pos[done[0]])
                    break
            if closed is not None:
                yield b"[" + _body(self.buf[:closed]) + b"]"
                self._take_tail(closed + 1)
                return
            if last_end is not None and (len(self.buf) >= CHUNK_BYTES or self.exhausted):
                yield b"[" + _body(self.buf[:last_end + 1]) + b"]"
                del self.buf[:last_end + 1]
                self.scanner.pos -= last_end + 1
                last_end = None
                continue
            if len(self.buf) > MAX_EVENT_BYTES:
                raise self.error(f"an element of traceEvents does not end within {MAX_EVENT_BYTES >> 20} MiB "
                                 "(no event is that long: the file is damaged)")
            if not self._more():
                raise self.error("the file ends inside the traceEvents array (truncated?)")

    def _take_tail(self, after: int) -> None:
        tail = bytearray(self.buf[after:])
        for piece in self.pieces:
            tail += piece
            if len(tail) > MAX_OUTSIDE_BYTES:
                raise self.error(f"more than {MAX_OUTSIDE_BYTES >> 20} MiB after the traceEvents array")
        self.tail = bytes(tail)
        self.buf = bytearray()

    def check_outside(self) -> None:
        """The top level around the array must be JSON too (and not too deep)."""
        text = self.head + b"[]" + self.tail
        scanner = self.scan.Scanner(marks=self.scan.KEY_MARKS)
        for pos, chars, depths in scanner.scan(text):
            if len(depths) and int(depths.max()) > MAX_DEPTH:
                raise self.error(_deep(MAX_DEPTH))
        try:
            msgspec.json.decode(text)
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            raise self.error(str(exc)) from None


def _body(text) -> bytes:
    """The elements in ``text``, without the comma a previous chunk left before them."""
    body = bytes(text).lstrip(b" \t\r\n")
    return body[1:] if body.startswith(b",") else body
