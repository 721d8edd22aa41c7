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

from .decode import Event, LeanEvent, Trace, events_type

# Small chunks are faster: the events of a 256 KiB chunk (about a thousand,
# some 0.5 MB of Python objects) stay in the core's cache while every pass
# over them runs, and are freed before the next chunk reuses their memory.
# Reading a 1 GB BERT-size trace took 10-11 s with them and 15-17 s with
# 32 MiB chunks (same machine, alternating runs).
CHUNK_BYTES = 256 << 10
MAX_CHUNK_BYTES = 256 << 20   # no single event of a trace is this long
READ_BYTES = 64 << 10         # at most CHUNK_BYTES, or chunks grow to a piece
HEAD_BYTES = 32 << 20         # where the traceEvents array must start
MAX_TRIES = 64
_ARRAY_START = re.compile(rb'"traceEvents"\s*:\s*\[')
_END = re.compile(rb"\}\s*\]")
_BARE_LIST = re.compile(rb"\s*\[")
_OVERLAP = 4096
_EVENTS = {Event: msgspec.json.Decoder(list[Event]), LeanEvent: msgspec.json.Decoder(list[LeanEvent])}
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
        rest, head = self._array_start()
        pieces = self._pieces
        exhausted = False
        target = CHUNK_BYTES
        while True:
            parts, size = [b"[", rest], len(rest)
            while size < target and not exhausted:
                piece = next(pieces, None)
                if piece is None:
                    exhausted = True
                else:
                    parts.append(piece)
                    size += len(piece)
            # The one copy of a chunk: a bytearray starting with the array's
            # "[", so a cut is decoded in place (a "]" written over the comma)
            # instead of being copied into a new "[...]" twice per chunk.
            buf = bytearray().join(parts)
            del parts
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
                rest = bytes(memoryview(buf)[1:])
                continue
            events, rest = cut
            target = CHUNK_BYTES
            yield events

    def _array_start(self) -> tuple[bytes, bytes]:
        """(bytes after the ``[`` of traceEvents, bytes before it)."""
        buf = bytearray()
        for piece in self._pieces:
            seen = max(0, len(buf) - _OVERLAP)     # search only what is new (and a margin)
            buf += piece
            m = _ARRAY_START.search(buf, seen)
            if m:
                return bytes(buf[m.end():]), bytes(buf[:m.start()])
            bare = _BARE_LIST.match(buf)
            if bare:                               # older tools: a bare list of events
                return bytes(buf[bare.end():]), b""
            if len(buf) > HEAD_BYTES:
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


def _cut_chunk(buf: bytearray) -> tuple[list[Event], bytes] | None:
    """The events of ``buf`` (``[`` and events) up to its last event
    boundary and the bytes after that boundary's comma, or None when the
    second half of ``buf`` holds no boundary."""
    decoder = _EVENTS[events_type(buf)]
    for comma in _cuts_from_the_end(buf, len(buf) // 2):
        buf[comma] = 0x5D               # "]": the chunk ends here
        try:
            with memoryview(buf) as view:
                events = decoder.decode(view[:comma + 1])
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        finally:
            buf[comma] = 0x2C           # ","
        return events, bytes(memoryview(buf)[comma + 1:])
    return None


def _cuts_from_the_end(buf: bytearray, lo: int):
    """Positions of the ``,`` after a ``}`` (blanks between allowed), last
    first, at most MAX_TRIES of them: candidates for the end of an event."""
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
            yield nxt


def _last_chunk(buf: bytearray) -> tuple[list[Event], bytes]:
    """The last events and the top-level bytes after the array."""
    if buf[1:].lstrip()[:1] == b"]":               # an empty array
        return [], bytes(buf[1:].lstrip()[1:])
    decoder = _EVENTS[events_type(buf)]
    with memoryview(buf) as view:
        for tries, m in enumerate(_END.finditer(buf)):
            if tries >= MAX_TRIES:
                break
            try:
                events = decoder.decode(view[:m.end()])
            except (msgspec.DecodeError, msgspec.ValidationError):
                continue
            return events, bytes(view[m.end():])
    raise NotStreamable("the end of traceEvents was not found")
