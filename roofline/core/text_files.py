"""Profiler outputs read as text, the same way by every reader: gzip
streams are inflated (recognised by their magic bytes, whatever the file
is called), a UTF-8 byte-order mark is dropped and UTF-16 with a
byte-order mark is re-encoded (Windows tools write it). Errors name the
file and the byte where decoding failed."""
from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from .errors import InputError

HEAD_BYTES = 64 * 1024

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def text_bytes(raw: bytes, *, partial: bool = False) -> bytes:
    """Bytes of a text file as UTF-8 without a byte-order mark: a UTF-8 BOM
    is dropped and UTF-16 with a BOM (Windows tools write it) is re-encoded.
    Anything else is returned unchanged. ``partial``: ``raw`` is the head of
    a file (a UTF-16 code unit may be cut at the end)."""
    if raw.startswith(UTF8_BOM):
        return raw[len(UTF8_BOM):]
    if raw.startswith(UTF16_BOMS):
        body = raw[: len(raw) - (len(raw) % 2)] if partial else raw
        return body.decode("utf-16", errors="replace" if partial else "strict").encode("utf-8")
    return raw


def read_text(path) -> str:
    """A profile's text, or an InputError naming the file and the problem.

    Every text reader comes through here, so all of them take gzip-compressed
    files (``.gz``, recognised by their magic bytes), a UTF-8 byte-order mark
    and UTF-16 text with a byte-order mark."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if raw.startswith(GZIP_MAGIC):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(path, None, f"corrupt gzip stream: {exc}") from None
    try:
        raw = text_bytes(raw)
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not UTF-16 text (byte {exc.start})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not UTF-8 text (byte {exc.start})") from None


def read_head(path) -> bytes:
    """The first bytes a reader's sniff sees: of the decompressed stream for
    a gzip file, as UTF-8 without a byte-order mark for text (see
    :func:`read_text`). A gzip stream that cannot be read gives its raw
    bytes (no reader claims them, or the reader reports the damage)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if head.startswith(GZIP_MAGIC):
        try:   # as much as the head holds, even of a truncated stream
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, HEAD_BYTES)
        except zlib.error:
            pass
    return text_bytes(head, partial=True)
