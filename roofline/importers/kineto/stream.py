"""Kineto traces larger than memory: the ``traceEvents`` array decoded a
chunk at a time, so memory holds one chunk of events (plus the columns the
reader keeps), not the file.

The file is read (and gunzipped, and re-encoded from UTF-16 where it has a
byte-order mark) as a stream. The ``traceEvents`` key is found among the
keys of the top-level object by :mod:`.scan` (a ``"traceEvents"`` inside
another value is no key of it). Each chunk of the array is cut after an
event: first at the last ``}`` followed by ``,`` (msgspec decoding the
chunk proves it a boundary: a ``},`` inside an event's arguments leaves the
chunk unbalanced); where that fails, at the last event that :mod:`.scan`
sees end. The rest of the top-level object (``deviceProperties``,
``distributedInfo`` ...) is decoded once the array has ended. Whatever is
wrong is an InputError naming the event (its index in ``traceEvents``) or
the line; nothing is decoded whole.
"""
from __future__ import annotations

import codecs
import itertools
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import numpy as np

from ...core.errors import InputError
from .decode import (
    DUPLICATE,
    GZIP_MAGIC,
    UTF8_BOM,
    UTF16_BOMS,
    EVENT_TYPES,
    CommEvent,
    Event,
    FirstTagged,
    LeanEvent,
    TaggedEvent,
    Trace,
    byte_of,
    events_type,
    is_utf8_error,
    needs_comm_fields,
    non_utf8_at,
    gunzip,
    refuse_utf16_without_bom,
    syntax_error,
    validation_message,
)
from .scan import COLON, KEY_MARKS, Scanner, key_before, skip_blanks, top_level_keys

# Small chunks are faster: the events of a 256 KiB chunk (about a thousand,
# some 0.5 MB of Python objects) stay in the core's cache while every pass
# over them runs, and are freed before the next chunk reuses their memory.
# Reading a 1 GB BERT-size trace took 10-11 s with them and 15-17 s with
# 32 MiB chunks (same machine, alternating runs).
CHUNK_BYTES = 256 << 10
# The scanner's chunks: its columns are reused, and each chunk costs a few
# numpy calls per field, so bigger is faster (it stops at Scanner.capacity events)
SCANNED_CHUNK_BYTES = 4 << 20
MAX_CHUNK_BYTES = 256 << 20   # no single event of a trace is this long
READ_BYTES = 64 << 10         # at most CHUNK_BYTES, or chunks grow to a piece
SCANNED_READ_BYTES = 1 << 20  # (the scanner's chunks are bigger: fewer reads, and fewer copies)
HEAD_BYTES = 32 << 20         # the most top-level data before (or after) traceEvents
# Candidate cuts tried before scanning the chunk: the last one is almost
# always an event boundary, and a failed try costs a decode of the chunk.
QUICK_TRIES = 2
# A syntax error this near the end of a chunk that ends inside an event may
# be a token cut short: only an earlier one is reported before the chunk grows.
PROBE_SLACK = 64
_EVENTS = {t: msgspec.json.Decoder(list[t]) for t in EVENT_TYPES}
_EVENTS[LeanEvent] = FirstTagged(msgspec.json.Decoder(list[TaggedEvent]), _EVENTS[LeanEvent])
_META = msgspec.json.Decoder(Trace)
_CLOSE = np.array([ord("}"), ord("]")], dtype=np.uint8)
_BLANKS_THEN_COMMA = re.compile(rb"[ \t\r\n]*,")


def file_bytes(path: Path, piece_bytes: int | None = None) -> Iterator[bytes]:
    """The file's JSON bytes in pieces of ``piece_bytes`` (default
    :data:`READ_BYTES`), gunzipped on the fly (every gzip member)."""
    piece = READ_BYTES if piece_bytes is None else piece_bytes
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    with f:
        first = f.read(piece)
        if first[:2] != GZIP_MAGIC:
            if first:
                yield first
                yield from read_into(f, piece)
            return
        unread = [first]
        yield from gunzip(lambda n: unread.pop() if unread else f.read(n), path, piece)


def read_into(f, piece: int, left: int = -1) -> Iterator[memoryview]:
    """What is left of file ``f`` (at most ``left`` bytes; -1: all), in
    pieces read into one buffer: each piece is valid until the next is asked
    for (every reader here copies it first). A fresh bytes object a read
    cost the pages the allocator maps for it: about 0.3 s of a 700 MB half."""
    block = bytearray(piece)
    view = memoryview(block)
    while left:
        n = f.readinto(view if left < 0 else view[:min(piece, left)])
        if not n:
            return
        left -= n if left > 0 else 0
        yield view[:n]


def utf8_pieces(pieces: Iterator[bytes], path) -> Iterator[bytes]:
    """``pieces`` without a UTF-8 byte-order mark, or re-encoded from UTF-16
    with one; UTF-16 without one is refused (as :func:`.decode.utf8`)."""
    pieces = iter(pieces)
    head = b""
    for piece in pieces:
        head += piece
        if len(head) >= 64:
            break
    if head.startswith(UTF16_BOMS):
        yield from _from_utf16(head, pieces, path)
        return
    head = head.removeprefix(UTF8_BOM)
    refuse_utf16_without_bom(head, path)
    if head:
        yield head
    yield from pieces


def _from_utf16(head: bytes, pieces: Iterator[bytes], path) -> Iterator[bytes]:
    decoder = codecs.getincrementaldecoder("utf-16")("strict")
    done = 0
    try:
        for piece in itertools.chain((head,), pieces):
            yield decoder.decode(piece).encode("utf-8")
            done += len(piece)
        yield decoder.decode(b"", final=True).encode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not valid UTF-16 (near byte {done + exc.start})") from None


class StreamedTrace:
    """A Trace whose ``traceEvents`` is an iterator of events; the other
    fields are filled when the iterator is exhausted."""

    def __init__(self, pieces: Iterator[bytes], path: str | Path = "<kineto trace>",
                 reread: Callable[[], Iterator[bytes]] | None = None, chunk_bytes: int | None = None,
                 scanner: Callable | None = None):
        """``reread``: the same pieces again from the start, where the source
        can give them twice (a file): lines are then counted only for an
        error message, not for every chunk (a tenth of the decoding time).
        ``chunk_bytes``: the bytes decoded at a time (default
        :data:`CHUNK_BYTES`; ReadOptions.chunk_bytes). ``scanner``: reads
        a chunk's events into columns where it can (:class:`EventArray`)."""
        self._chunk_bytes = chunk_bytes
        self._scanner = scanner
        self.path = Path(str(path))
        self._pieces = utf8_pieces(pieces, self.path)
        self._reread = reread
        self.deviceProperties = None
        self.distributedInfo = None
        self.roofline = None
        self.event_chunks = self._chunks()

    @property
    def traceEvents(self) -> Iterator[Event]:
        return (e for chunk in self.event_chunks for e in chunk)

    def _chunks(self) -> Iterator[list[Event]]:
        head, rest, lines, base = self._array_start()
        self.head = head        # the top level before traceEvents (.halves decodes it with another tail)
        if head:       # report what is wrong before traceEvents first, as the whole-file reader does
            self._refuse_syntax_errors(head + b'"traceEvents":[]}', len(head))
        lines_before = None if self._reread is None else self._lines_before
        array = EventArray(rest, self._pieces, lines, base, self.path, lines_before, self._chunk_bytes,
                           self._scanner)
        self._scanner = None                # (the array holds it while it reads)
        yield from array.chunks()
        self.metadata(head, array)

    def _lines_before(self, base: int) -> int:
        """The lines in the first ``base`` bytes of the UTF-8 stream, read again."""
        lines = 0
        for piece in utf8_pieces(self._reread(), self.path):
            lines += bytes(piece[:max(base, 0)]).count(b"\n")
            base -= len(piece)
            if base <= 0:
                break
        return lines

    def _array_start(self) -> tuple[bytes, bytes, int, int]:
        """(the top level before the traceEvents key, the bytes after its
        array's ``[``, the lines and bytes before those); a bare list has no
        top level."""
        buf = bytearray()
        scanner = key = None
        start = value = 0                 # how far blanks were skipped (not again for every piece)
        for piece in self._pieces:
            buf += piece
            if scanner is None:
                start = skip_blanks(buf, start)
                if start == len(buf):
                    continue
                if buf[start] == ord("["):                 # older tools: a bare list of events
                    return b"", bytes(buf[start + 1:]), buf.count(b"\n", 0, start), start + 1
                if buf[start] != ord("{"):
                    raise InputError(self.path, buf.count(b"\n", 0, start) + 1,
                                     "not a Chrome/Kineto trace: JSON starting with { or [ expected")
                scanner = Scanner(pos=start, marks=KEY_MARKS)
            key = key or self._trace_events_key(buf, scanner)
            if key is not None:
                value = skip_blanks(buf, max(value, key[1] + 1))
                if value < len(buf):
                    if buf[value] != ord("["):
                        raise InputError(self.path, buf.count(b"\n", 0, value) + 1,
                                         "traceEvents is not a list: not a Chrome/Kineto trace")
                    return (bytes(buf[:key[0]]), bytes(buf[value + 1:]), buf.count(b"\n", 0, value + 1),
                            value + 1)
            if len(buf) > HEAD_BYTES:
                raise InputError(self.path, None, f"no traceEvents array in the first {HEAD_BYTES >> 20} MiB "
                                 "of the top-level object: not a Chrome/Kineto trace")
        self._refuse_syntax_errors(bytes(buf), len(buf))
        raise InputError(self.path, None, "empty file" if not buf.strip() else
                         "no traceEvents list: not a Chrome/Kineto trace (the file ends before it)")

    def _trace_events_key(self, buf: bytearray, scanner: Scanner) -> tuple[int, int] | None:
        """(opening quote, colon) of the top-level object's traceEvents key
        in what ``scanner`` has not seen yet, or None."""
        for pos, chars, depths in scanner.scan(buf):
            closed = np.flatnonzero(depths == 0)
            colons = pos[(chars == COLON) & (depths == 1)]
            if len(closed):
                colons = colons[colons < pos[closed[0]]]
            for colon in colons.tolist():
                name, opening = key_before(buf, colon)
                if name == "traceEvents":
                    return opening, colon
            if len(closed):
                self._refuse_syntax_errors(bytes(buf), len(buf))
                raise InputError(self.path, None, "no traceEvents list: not a Chrome/Kineto trace "
                                 "(the top-level object has no traceEvents key)")
        return None

    def _refuse_syntax_errors(self, text: bytes, before: int) -> None:
        """The InputError for a syntax error in the first ``before`` bytes
        of ``text``, the file's top level from its start, if it has one."""
        try:
            _META.decode(text)
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            at = non_utf8_at(text) if is_utf8_error(exc) else byte_of(str(exc))
            if at is not None and at < before:
                raise syntax_error(self.path, text, exc) from None
        except msgspec.ValidationError:
            pass

    def metadata(self, head: bytes, array) -> None:
        """The top-level fields other than traceEvents, from the bytes before
        and after the array (``array.tail``, ``array.line0`` lines and
        ``array.base`` bytes after the file's start)."""
        tail = array.tail
        if not head:                          # a bare list: nothing but events
            if tail.strip():
                at = skip_blanks(tail, 0)
                raise InputError(self.path, array.line0 + tail.count(b"\n", 0, at) + 1,
                                 "not valid JSON: bytes after the event list")
            return
        again = top_level_keys(tail, "traceEvents", depth=1)
        if again:
            raise InputError(self.path, array.line0 + tail.count(b"\n", 0, again[0]) + 1, DUPLICATE)
        middle = b'"traceEvents":[]'
        try:
            meta = _META.decode(head + middle + tail)
        except msgspec.ValidationError as exc:
            raise InputError(self.path, None, f"not a Chrome/Kineto trace: {exc}") from None
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            at = byte_of(str(exc))
            if at is not None and at < len(head):
                raise syntax_error(self.path, head, exc) from None
            raise syntax_error(self.path, tail, exc, line0=array.line0, offset=-len(head) - len(middle),
                               base=array.base) from None
        self.deviceProperties = meta.deviceProperties
        self.distributedInfo = meta.distributedInfo
        self.roofline = meta.roofline


class EventArray:
    """The traceEvents array, from the bytes after its ``[``, in chunks of
    whole events; then ``tail`` holds what follows its ``]``."""

    def __init__(self, rest: bytes, pieces: Iterator[bytes], line0: int, base: int, path: Path,
                 lines_before: Callable[[int], int] | None = None, chunk_bytes: int | None = None,
                 scanner: Callable | None = None):
        """``scanner(buf)``: (the first events of a chunk's bytes read as
        columns, where the rest starts, whether the array ended), or None
        where they are left to msgspec (:mod:`.scanned`)."""
        self.rest, self.pieces, self.path = rest, pieces, path
        self.scanner = scanner
        self.chunk_bytes = CHUNK_BYTES if chunk_bytes is None else chunk_bytes
        # once the scanner reads the events (not before: a file of garbage is
        # refused at a first chunk of the usual size), its bigger chunks
        self.scanned_bytes = SCANNED_CHUNK_BYTES if chunk_bytes is None and scanner else self.chunk_bytes
        self._line0 = line0         # lines of the file before the chunk being read (counted as read
        self._lines_before = lines_before    # or, with this, only when asked: lines before a byte)
        self.base = base            # bytes of the file before the chunk
        self.first = 0              # index in traceEvents of the chunk's first event
        self.exhausted = False
        self.tail = b""

    def chunks(self) -> Iterator[list[Event]]:
        # The one copy of a chunk: a bytearray starting with a "[", so a cut
        # is decoded in place (a "]" written over the comma).
        buf = bytearray(b"[")
        buf += self.rest
        self.rest = b""
        ends, target = _Ends(), self.chunk_bytes
        while True:
            self._fill(buf, target)
            scanned = None if self.scanner is None else self.scanner(buf)
            events, end, last = scanned if scanned is not None else self._cut(buf, ends)
            size = self.chunk_bytes if scanned is None else self.scanned_bytes
            if events is not None:
                yield events
            if last:
                self._take_tail(buf, end)
                self.scanner = None         # its reused arrays (16 MB) outlive the read otherwise
                return
            if events is None:                 # no event ends in buf: read further
                target = self._grown(buf, target)
                continue
            self._count_lines(buf, end)
            self.base += end - 1
            self.first += len(events)
            del events
            buf = bytearray(b"[") + memoryview(buf)[end:]
            ends, target = _Ends(), size

    def _cut(self, buf: bytearray, ends: _Ends) -> tuple[list[Event] | None, int, bool]:
        """(the events of ``buf`` up to the last boundary in it, or None;
        where the bytes after them start; whether the array ended)."""
        quick = None if self.exhausted else self._quick_cut(buf)
        if quick is not None:
            return quick[0], quick[1] + 1, False
        comma, close = ends.find(buf)
        if close is not None:
            return self._decode(buf, close + 1), close + 1, True
        if comma is None:
            return None, 0, False
        buf[comma] = 0x5D                       # "]": the chunk ends here
        return self._decode(buf, comma + 1), comma + 1, False

    def _grown(self, buf: bytearray, target: int) -> int:
        """The next size to fill ``buf`` to, which holds no whole event; an
        InputError where what it holds is wrong, or the file has ended."""
        self._probe(buf, 0 if self.exhausted else PROBE_SLACK)
        if self.exhausted:
            raise InputError(self.path, self.line0 + buf.count(b"\n") + 1,
                             "not valid JSON: the file ends inside the traceEvents array (truncated?)")
        if target >= MAX_CHUNK_BYTES:
            raise InputError(self.path, self.line0 + 1, f"traceEvents[{self.first}] does not end within "
                             f"{MAX_CHUNK_BYTES >> 20} MiB: no event is that long (the file is damaged)")
        return target * 2

    def _fill(self, buf: bytearray, target: int) -> None:
        while len(buf) < target and not self.exhausted:
            piece = next(self.pieces, None)
            if piece is None:
                self.exhausted = True
            else:
                buf += piece

    def _quick_cut(self, buf: bytearray) -> tuple[list[Event], int] | None:
        """The events of ``buf`` up to one of its last ``},`` and that comma,
        or None when those do not end an event. A chunk starts at an event,
        so a value of the wrong type in it is an error whatever the cut."""
        decoder = _EVENTS[events_type(buf)]
        for comma in _cuts_from_the_end(buf, len(buf) // 2):
            buf[comma] = 0x5D
            try:
                with memoryview(buf) as view:
                    events = decoder.decode(view[:comma + 1])
                    if needs_comm_fields(events, buf, comma + 1):     # a collective's args (.decode)
                        events = _EVENTS[CommEvent].decode(view[:comma + 1])
                    return events, comma
            except msgspec.ValidationError as exc:
                raise InputError(self.path, None, validation_message(exc, self.first)) from None
            except (msgspec.DecodeError, UnicodeDecodeError):
                continue
            finally:
                buf[comma] = 0x2C           # ","
        return None

    def _decode(self, buf: bytearray, end: int) -> list[Event]:
        """The events of ``buf[:end]``, which ends at an event boundary."""
        try:
            with memoryview(buf) as view:
                events = _EVENTS[events_type(buf)].decode(view[:end])
                if needs_comm_fields(events, buf, end):
                    events = _EVENTS[CommEvent].decode(view[:end])
                return events
        except msgspec.ValidationError as exc:
            raise InputError(self.path, None, validation_message(exc, self.first)) from None
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            raise syntax_error(self.path, buf, exc, line0=self.line0, start=1, base=self.base) from None

    def _probe(self, buf: bytearray, slack: int) -> None:
        """An InputError for what is wrong in ``buf``, an unfinished chunk,
        if that shows before its last ``slack`` bytes."""
        try:
            with memoryview(buf) as view:
                _EVENTS[events_type(buf)].decode(view)
        except msgspec.ValidationError as exc:
            raise InputError(self.path, None, validation_message(exc, self.first)) from None
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            # (a character cut short by the chunk's end is no error: the slack)
            at = non_utf8_at(buf) if is_utf8_error(exc) else byte_of(str(exc))
            if at is not None and at < len(buf) - slack:
                raise syntax_error(self.path, buf, exc, line0=self.line0, start=1, base=self.base) from None

    @property
    def line0(self) -> int:
        """Lines of the file before the chunk being read."""
        return self._line0 if self._lines_before is None else self._lines_before(self.base)

    def _count_lines(self, buf: bytearray, end: int) -> None:
        if self._lines_before is None:
            self._line0 += buf.count(b"\n", 1, end)

    def _take_tail(self, buf: bytearray, end: int) -> None:
        self._count_lines(buf, end)
        self.base += end - 1
        tail = bytearray(memoryview(buf)[end:])
        for piece in self.pieces:
            tail += piece
            if len(tail) > HEAD_BYTES:
                raise InputError(self.path, None, f"more than {HEAD_BYTES >> 20} MiB after the traceEvents "
                                 "array: not a Chrome/Kineto trace")
        self.tail = bytes(tail)


class _Ends:
    """Where the events of a chunk end (and the array, if it ends in the
    chunk), each byte scanned once as the chunk grows."""

    def __init__(self):
        self.scanner = Scanner(depth=1, pos=1)
        self.ends: list[int] = []     # the last positions where an element of the array ended
        self.comma = None             # the comma after the last of them that has one

    def find(self, buf: bytearray) -> tuple[int | None, int | None]:
        """(the comma after the last whole event, or None; the array's
        closing bracket, or None)."""
        for pos, chars, depths in self.scanner.scan(buf):
            closed = np.flatnonzero(depths == 0)
            if len(closed):
                return None, int(pos[closed[0]])
            ended = pos[(depths == 1) & np.isin(chars, _CLOSE)]
            self.ends = (self.ends + ended[-3:].tolist())[-3:]
        for end in reversed(self.ends):
            m = _BLANKS_THEN_COMMA.match(buf, end + 1)
            if m:
                self.comma = max(self.comma or 0, m.end() - 1)
                break
        return self.comma, None


def _cuts_from_the_end(buf: bytearray, lo: int):
    """Positions of the ``,`` after a ``}`` (blanks between allowed), last
    first, at most QUICK_TRIES of them: candidates for the end of an event."""
    pos, tries = len(buf), 0
    while tries < QUICK_TRIES:
        pos = buf.rfind(b"}", lo, pos)
        if pos < 0:
            return
        m = _BLANKS_THEN_COMMA.match(buf, pos + 1)
        if m:
            tries += 1
            yield m.end() - 1
