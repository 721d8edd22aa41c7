"""Profiler outputs read as text, the same way by every reader: gzip
streams are inflated (recognised by their magic bytes, whatever the file
is called), a UTF-8 byte-order mark is dropped and UTF-16 with a
byte-order mark is re-encoded (Windows tools write it). Errors name the
file and the byte where decoding failed.

Only regular files are read: a FIFO or pipe (``<(cat x.csv)``,
``/dev/stdin`` fed by a pipe) would block on open or be consumed by the
format sniffer before the reader sees it, and a device never ends. Text is
bounded (:data:`MAX_TEXT_BYTES`, and :data:`MAX_GZIP_RATIO` for a gzip
stream), so a decompression bomb is a one-line error, not a MemoryError."""
from __future__ import annotations

import codecs
import os
import stat
import zlib
from pathlib import Path

from .errors import InputError

HEAD_BYTES = 64 * 1024

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")

# A text profile, on disk or inflated, larger than this is refused: parsing
# it would need several times its size in memory (real exports of a million
# kernels stay well under it).
MAX_TEXT_BYTES = 1 << 30
# A gzip stream inflating to more than this multiple of its compressed size
# (and past GZIP_SMALL_BYTES) is a decompression bomb: profiler CSV and JSON
# compress 10-25 fold, a stream of zeros 1000 fold.
MAX_GZIP_RATIO = 200
GZIP_SMALL_BYTES = 64 << 20
_INFLATE_STEP = 16 << 20          # inflated per call, so the cap is checked as it grows


def regular_file(path) -> os.stat_result:
    """``path``'s status, or an InputError when it cannot be read as a
    profile: missing, or not a regular file (checked before opening, which
    would block on a FIFO)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if stat.S_ISREG(st.st_mode):
        return st
    if stat.S_ISDIR(st.st_mode):
        raise InputError(path, None, "is a directory, not a profile file")
    what = ("a FIFO or pipe" if stat.S_ISFIFO(st.st_mode) else
            "a socket" if stat.S_ISSOCK(st.st_mode) else "a device")
    raise InputError(path, None, f"not a regular file ({what}); save the profile to a file first")


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


def read_text(path, limit: int | None = None) -> str:
    """A profile's text, or an InputError naming the file and the problem.

    Every text reader comes through here, so all of them take gzip-compressed
    files (``.gz``, recognised by their magic bytes), a UTF-8 byte-order mark
    and UTF-16 text with a byte-order mark. ``limit``: the most bytes of
    text, compressed or inflated (default :data:`MAX_TEXT_BYTES`)."""
    limit = MAX_TEXT_BYTES if limit is None else limit
    size = regular_file(path).st_size
    if size > limit:
        raise InputError(path, None, f"{size:,} bytes: too big for a text profile "
                         f"(at most {limit:,}); export fewer kernels or metrics")
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if raw.startswith(GZIP_MAGIC):
        raw = gunzip(raw, path, limit)
    skipped = len(UTF8_BOM) if raw.startswith(UTF8_BOM) else 0
    try:
        raw = text_bytes(raw)
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not UTF-16 text (byte {exc.start})") from None
    order = _utf16_order(raw[:HEAD_BYTES])
    if order:       # valid UTF-8 (NUL is a character), but no reader could use it
        raise InputError(path, None, _UTF16_HINT.format(order))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, None, _UTF8_HINT.format(exc.start + skipped)) from None


_UTF8_HINT = "not UTF-8 text (byte {}): save it as UTF-8 (Latin-1 and other code pages are not read)"
_UTF16_HINT = ("UTF-16 text ({}) without a byte-order mark: save it as UTF-8, or as UTF-16 "
               "with a byte-order mark")


def _utf16_order(raw: bytes) -> str | None:
    """The byte order when ``raw`` looks like UTF-16 text without a
    byte-order mark (a NUL beside nearly every ASCII character), else None."""
    sample = raw[:1024]
    half = len(sample) // 2
    if half < 2 or b"\0" not in sample:
        return None
    even, odd = sample[0:2 * half:2].count(0), sample[1:2 * half:2].count(0)
    if odd >= 0.9 * half and even <= 0.1 * half:
        return "little-endian"
    if even >= 0.9 * half and odd <= 0.1 * half:
        return "big-endian"
    return None


def head_problem(path) -> str | None:
    """Why the start of ``path`` is no text any reader could take: empty,
    only white space or NULs, UTF-16 without a byte-order mark, or not UTF-8
    (the byte named); None when it is text, or binary data of another kind.
    Asked only once no reader recognised the file, so it reads the head
    again rather than burdening every sniff."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(HEAD_BYTES)
    except OSError:
        return None
    whole = len(raw) < HEAD_BYTES
    if raw.startswith(GZIP_MAGIC):
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            raw = inflate.decompress(raw, HEAD_BYTES)
        except zlib.error:
            return None
        whole = whole and inflate.eof and len(raw) < HEAD_BYTES
    if raw.startswith(UTF16_BOMS):
        return None
    skipped = len(UTF8_BOM) if raw.startswith(UTF8_BOM) else 0
    body = raw[skipped:]
    if not body.strip():
        return "empty file" if not body else "holds only white space"
    if not body.strip(b"\0"):
        return "holds only NUL bytes (a damaged or unfinished file)"
    order = _utf16_order(body)
    if order or b"\0" in body:
        return _UTF16_HINT.format(order) if order else None
    try:   # a character cut at the end of a head is no error
        codecs.getincrementaldecoder("utf-8")().decode(body, final=whole)
    except UnicodeDecodeError as exc:
        return _UTF8_HINT.format(exc.start + skipped)
    return None


def gunzip(raw: bytes, path, limit: int | None = None) -> bytes:
    """Every gzip member of ``raw`` inflated, as gzip(1) reads them (zero
    padding after the last member is ignored); an InputError when the stream
    is damaged, truncated or inflates past the cap (see the module doc)."""
    limit = MAX_TEXT_BYTES if limit is None else limit
    cap = min(limit, max(GZIP_SMALL_BYTES, MAX_GZIP_RATIO * len(raw)))
    out, size, data = [], 0, raw
    while data:
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        while not inflate.eof:
            try:
                chunk = inflate.decompress(data, _INFLATE_STEP)
            except zlib.error as exc:
                raise InputError(path, None, gzip_damage(exc)) from None
            if not chunk and not data:      # all input taken, nothing more came out
                raise InputError(path, None, "corrupt gzip stream: truncated (the file ends inside it)")
            size += len(chunk)
            if size > cap:
                raise InputError(path, None, f"gzip stream inflates to more than {cap:,} bytes, the most "
                                 f"a {len(raw):,}-byte compressed profile may hold: a decompression "
                                 f"bomb, or text too big to read (at most {limit:,} bytes)")
            out.append(chunk)
            data = inflate.unconsumed_tail
        data = inflate.unused_data
        if not data.strip(b"\0"):           # padding after the last member
            break
        if not data.startswith(GZIP_MAGIC):
            raise InputError(path, None, f"corrupt gzip stream: {len(data):,} bytes after its end "
                             "are neither a gzip member nor zero padding")
    return b"".join(out)


def gzip_damage(exc: zlib.error) -> str:
    """What zlib's complaint means for the user."""
    text = str(exc)
    if "data check" in text or "length check" in text:
        return "corrupt gzip stream: the data does not match its checksum (the file is damaged)"
    return f"corrupt gzip stream: the file is damaged ({text.split(': ', 1)[-1]})"


def read_head(path) -> bytes:
    """The first bytes a reader's sniff sees: of the decompressed stream for
    a gzip file, as UTF-8 without a byte-order mark for text (see
    :func:`read_text`). A gzip stream damaged within the head is an
    InputError saying so (a truncated one gives what it holds)."""
    regular_file(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if head.startswith(GZIP_MAGIC):
        try:   # as much as the head holds, even of a truncated stream
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, HEAD_BYTES)
        except zlib.error as exc:
            raise InputError(path, None, gzip_damage(exc)) from None
    return text_bytes(head, partial=True)
