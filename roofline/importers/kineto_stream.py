"""Kineto traces larger than memory: the ``traceEvents`` array decoded a
chunk at a time, so memory holds one chunk of events (plus the columns the
reader keeps), not the file.

The file is read (and gunzipped) as a stream. Each chunk of the array is
cut after an event: a cut candidate is a ``}`` followed by ``,`` (or by the
array's ``]``), and msgspec decoding the candidate chunk as a list of
events is what proves it is a boundary (a ``},`` inside an event's
arguments leaves that chunk unbalanced, so decoding fails and the previous
candidate is tried). No JSON is tokenised here. The rest of the top-level
object (``deviceProperties``, ``distributedInfo`` ...) is decoded once the
array has ended. Anything unexpected raises :class:`NotStreamable` and the
caller decodes the whole file the ordinary way (which also names the line
of a syntax error).
"""
from __future__ import annotations

import re
import zlib
from pathlib import Path
from typing import Iterator

import msgspec

from .kineto_decode import Event, Trace

CHUNK_BYTES = 32 << 20
MAX_CHUNK_BYTES = 256 << 20   # no single event of a trace is this long
READ_BYTES = 8 << 20
MAX_TRIES = 64
_ARRAY_START = re.compile(rb'"traceEvents"\s*:\s*\[')
_END = re.compile(rb"\}\s*\]")
_EVENTS = msgspec.json.Decoder(list[Event])
_META = msgspec.json.Decoder(Trace)


class NotStreamable(Exception):
    """The file cannot be read in chunks: decode it whole."""


def file_bytes(path: Path) -> Iterator[bytes]:
    """The file's JSON bytes in pieces, gunzipped on the fly (every gzip member)."""
    with open(path, "rb") as f:
        first = f.read(READ_BYTES)
        if first[:2] != b"\x1f\x8b":
            while first:
                yield first
                first = f.read(READ_BYTES)
            return
        inflate = zlib.decompressobj(wbits=31)
        data = first
        while data:
            # at most READ_BYTES of output per call: a small file may inflate to GBs
            try:
                out = inflate.decompress(data, READ_BYTES)
            except zlib.error as exc:
                raise NotStreamable(f"corrupt gzip stream: {exc}") from None
            if out:
                yield out
            if inflate.eof:        # a member ended: what follows it starts the next one
                data = inflate.unused_data or f.read(READ_BYTES)   # (it includes any unconsumed tail)
                if data:
                    inflate = zlib.decompressobj(wbits=31)
                continue
            data = inflate.unconsumed_tail or f.read(READ_BYTES)
        rest = inflate.flush()                 # output zlib still holds for consumed input
        if rest:
            yield rest
        if not inflate.eof:
            raise NotStreamable("truncated gzip stream")


class StreamedTrace:
    """A Trace whose ``traceEvents`` is an iterator of events; the other
    fields are filled when the iterator is exhausted."""

    def __init__(self, pieces: Iterator[bytes]):
        self._pieces = pieces
        self.deviceProperties = None
        self.distributedInfo = None
        self.roofline = None
        self.event_chunks = self._chunks()

    @property
    def traceEvents(self) -> Iterator[Event]:
        return (e for chunk in self.event_chunks for e in chunk)

    def _chunks(self) -> Iterator[list[Event]]:
        buf, head = self._array_start()
        pieces = self._pieces
        exhausted = False
        target = CHUNK_BYTES
        while True:
            parts, size = [buf], len(buf)
            while size < target and not exhausted:
                piece = next(pieces, None)
                if piece is None:
                    exhausted = True
                else:
                    parts.append(piece)
                    size += len(piece)
            buf = b"".join(parts)           # one copy per chunk, not one per piece
            if exhausted:
                events, tail = _last_chunk(buf)
                self._metadata(head, tail)
                yield events
                return
            cut = _cut_chunk(buf)
            if cut is None:                 # an event longer than the window: read further
                if target >= MAX_CHUNK_BYTES:
                    raise NotStreamable("no event boundary found in a chunk")
                target *= 2
                continue
            events, buf = cut
            target = CHUNK_BYTES
            yield events

    def _array_start(self) -> tuple[bytes, bytes]:
        """(bytes after the ``[`` of traceEvents, bytes before it)."""
        buf = b""
        for piece in self._pieces:
            buf += piece
            m = _ARRAY_START.search(buf)
            if m:
                return buf[m.end():], buf[:m.start()]
            stripped = buf.lstrip()
            if stripped[:1] == b"[":              # older tools: a bare list of events
                return stripped[1:], b""
            if len(buf) > CHUNK_BYTES:
                break
        raise NotStreamable("no traceEvents array near the start")

    def _metadata(self, head: bytes, tail: bytes) -> None:
        if not head:                          # a bare list: nothing but events
            if tail.strip():
                raise NotStreamable("bytes after the event list")
            return
        try:
            meta = _META.decode(head + b'"traceEvents":[]' + tail)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise NotStreamable(f"top level: {exc}") from None
        self.deviceProperties = meta.deviceProperties
        self.distributedInfo = meta.distributedInfo
        self.roofline = meta.roofline


def _cut_chunk(buf: bytes) -> tuple[list[Event], bytes] | None:
    """The events of ``buf`` up to its last event boundary and the rest, or
    None when its second half holds no boundary."""
    for pos in _cuts_from_the_end(buf, len(buf) // 2):
        try:
            events = _EVENTS.decode(b"[" + buf[:pos + 1] + b"]")
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        rest = buf[pos + 1:].lstrip()
        return events, rest[1:]          # drop the comma between events
    return None


def _cuts_from_the_end(buf: bytes, lo: int):
    """Positions of a ``}`` followed (after blanks) by ``,``, last first, at
    most MAX_TRIES of them: candidates for the end of an event."""
    pos, tries = len(buf), 0
    while tries < MAX_TRIES:
        pos = buf.rfind(b"}", lo, pos)
        if pos < 0:
            return
        nxt = pos + 1
        while nxt < len(buf) and buf[nxt] in b" \t\r\n":
            nxt += 1
        if nxt < len(buf) and buf[nxt] == 44:   # ","
            tries += 1
            yield pos


def _last_chunk(buf: bytes) -> tuple[list[Event], bytes]:
    """The last events and the top-level bytes after the array."""
    stripped = buf.lstrip()
    if stripped[:1] == b"]":                       # an empty array
        return [], stripped[1:]
    for tries, m in enumerate(_END.finditer(buf)):
        if tries >= MAX_TRIES:
            break
        try:
            events = _EVENTS.decode(b"[" + buf[:m.start() + 1] + b"]")
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        return events, buf[m.end():]
    raise NotStreamable("the end of traceEvents was not found")
