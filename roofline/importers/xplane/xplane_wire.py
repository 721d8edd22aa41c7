"""The protobuf wire format of an XSpace (:mod:`.xplane_schema` lists its
messages and field numbers), read field by field without building a
message per event.

The protobuf runtime's ``ParseFromString`` keeps every event and every
stat of the file as a message (about 250 bytes an event, 400 with two
stats: 1.2 GB for 3M events before the reader sees one), and a field's
bytes are copied before anyone can check its length. Here the file's bytes
are walked once: every length is read, and checked against what the field
may hold (:data:`MAX_NAME_BYTES`, :data:`MAX_STATS`, :data:`MAX_PLANES`,
:data:`MAX_LINES`), before the field is sliced; stats the reader does not
use are skipped without decoding them. What is wrong is a :class:`WireError`
naming the field, which the reader turns into one line naming the file.
"""
from __future__ import annotations

import struct

# Longest string field read (names, stat strings): real kernel names (C++
# templates) run to a few KB; a 1.2 GB "name" is a damaged or hostile file.
MAX_NAME_BYTES = 1 << 20
# Stats on one event or one event metadata (real profiles: tens).
MAX_STATS = 1 << 20
MAX_PLANES = 1 << 16          # one per device and host
MAX_LINES = 1 << 20           # per plane: one per stream or host thread
_DOUBLE = struct.Struct("<d")
_INT64_SIGN = 1 << 63
_UINT64 = 1 << 64
# XStat value fields -> kind; 6 (bytes) is skipped: nothing the reader uses is bytes
_STAT_KINDS = {2: "double", 3: "uint64", 4: "int64", 5: "str", 6: "bytes", 7: "ref"}


class WireError(ValueError):
    """Bytes that are no XSpace of the schema; the message names the field."""


class TooLarge(WireError):
    """A field, or a count of fields, past what the reader takes (checked
    before anything of that size is allocated)."""


def varint(data: bytes, i: int, end: int) -> tuple[int, int]:
    """(value, next position) of the varint at ``data[i]``, ending before ``end``."""
    if i >= end:
        raise WireError("truncated (a field runs past the end of its message)")
    b = data[i]
    if b < 0x80:
        return b, i + 1
    value, shift, i = b & 0x7F, 7, i + 1
    while True:
        if i >= end:
            raise WireError("truncated (a varint runs past the end of its message)")
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7
        if shift > 63:
            raise WireError("a varint longer than 10 bytes (damaged)")


def varint_bytes(value: int) -> bytes:
    """``value`` (taken modulo 2^64, as protobuf writes negatives) as a varint."""
    value &= _UINT64 - 1
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field_bytes(number: int, value) -> bytes:
    """One field as protobuf writes it: an int as a varint, a float as a
    double, str/bytes length-delimited (tests and benchmarks write XPlanes with it)."""
    if isinstance(value, float):
        return varint_bytes(number << 3 | 1) + _DOUBLE.pack(value)
    if isinstance(value, int):
        return varint_bytes(number << 3) + varint_bytes(value)
    data = value.encode() if isinstance(value, str) else value
    return varint_bytes(number << 3 | 2) + varint_bytes(len(data)) + data


def signed(value: int) -> int:
    """An int64 field's varint as the signed number it encodes."""
    return value - _UINT64 if value >= _INT64_SIGN else value


def fields(data: bytes, start: int, end: int):
    """(field number, wire type, value) of each field of the message in
    ``data[start:end]``: a varint's value, a length-delimited field's
    (start, end), a fixed64 field's position."""
    i = start
    while i < end:
        key, i = varint(data, i, end)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(data, i, end)
        elif wire == 2:
            n, i = varint(data, i, end)
            if n > end - i:
                raise WireError(f"truncated (field {number} declares {n:,} bytes, {end - i:,} are left)")
            value, i = (i, i + n), i + n
        elif wire == 1:
            if i + 8 > end:
                raise WireError("truncated (a 64-bit field runs past the end of its message)")
            value, i = i, i + 8
        elif wire == 5:
            if i + 4 > end:
                raise WireError("truncated (a 32-bit field runs past the end of its message)")
            value, i = i, i + 4
        else:
            raise WireError(f"wire type {wire} of field {number}: not a protobuf message of the XSpace schema")
        if number == 0:
            raise WireError("field number 0: not a protobuf message")
        yield number, wire, value


def text(data: bytes, span, what: str) -> str:
    """The UTF-8 string field at ``span`` (a (start, end) pair), its length
    checked before it is copied."""
    if not isinstance(span, tuple):
        raise WireError(f"{what} is not a string field")
    s, e = span
    if e - s > MAX_NAME_BYTES:
        raise TooLarge(f"{what} of {e - s:,} bytes: longer than any name ({MAX_NAME_BYTES:,} bytes at most)")
    try:
        return data[s:e].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WireError(f"{what} is not UTF-8 text (byte {exc.start})") from None


def stat(data: bytes, s: int, e: int, keep) -> tuple[int, str, object] | None:
    """(metadata id, kind, value) of the XStat in ``data[s:e]`` when
    ``keep(metadata id)``, else None (its value is then not decoded). A
    string's bytes are checked for length before they are copied; a
    ``ref`` value is the id of the stat metadata that names it."""
    if s < e and data[s] == 0x08:          # the metadata id first, as writers put it: skip early
        first, _ = varint(data, s + 1, e)
        if not keep(signed(first)):     # a stat nobody reads is not decoded further
            return None
    meta, kind, value, where = 0, None, None, None
    for number, wire, v in fields(data, s, e):
        if number == 1 and wire == 0:
            meta = signed(v)
        elif number in _STAT_KINDS:
            kind, where = _STAT_KINDS[number], (wire, v)
    if kind is None or kind == "bytes" or not keep(meta):
        return None
    wire, v = where
    if kind == "double":
        if wire != 1:
            raise WireError("a stat's double_value is not a 64-bit field")
        value = _DOUBLE.unpack_from(data, v)[0]
    elif kind == "str":
        value = text(data, v, "a stat's str_value")
    elif wire != 0:
        raise WireError(f"a stat's {kind} value is not a varint")
    else:
        value = signed(v) if kind == "int64" else v
    return meta, kind, value


def stat_bytes(data: bytes, s: int, e: int, wanted: int) -> bytes | None:
    """The ``bytes_value`` of the XStat in ``data[s:e]`` when its metadata id
    is ``wanted`` (the embedded HLO modules), else None; its length was
    checked against its message when the fields were walked."""
    meta, found = 0, None
    for number, wire, v in fields(data, s, e):
        if number == 1 and wire == 0:
            meta = signed(v)
        elif number == 6 and wire == 2:
            found = v
    if meta != wanted or found is None:
        return None
    return data[found[0]:found[1]]
