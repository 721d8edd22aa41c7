"""Kineto trace bytes -> typed events, keeping only the fields roofline uses.

msgspec decodes straight into the structs below and skips every other key
(``ac2g`` flow events, occupancy figures, ``Ev Idx`` ...), which is several
times faster and smaller than ``json.loads`` into dicts
(``benchmarks/import_speed.py`` measures both in one run). Values whose
type varies between PyTorch versions and vendors (``pid``/``tid`` as
integers or ``"stream 7"``, ROCm's ``size`` as a string) are decoded as
``object`` and checked where they are used.
"""
from __future__ import annotations

import zlib
from pathlib import Path

import msgspec

from ...core.gcpause import paused
from ...core.errors import InputError

# One field per (scope, precision, operation) of the CUPTI range profiler's
# SASS FLOP counters (see kineto.flops_from_counters).
COUNTER_KEYS = tuple(f"{scope}__sass_thread_inst_executed_op_{p}{op}_pred_on.sum"
                     for scope in ("sm", "smsp") for p in "dfh" for op in ("add", "mul", "fma"))


def _counter_fields():
    return [(f"c_{i}", object, msgspec.field(default=None, name=key)) for i, key in enumerate(COUNTER_KEYS)]


_ARG_FIELDS = [
    ("external_id", object, msgspec.field(default=None, name="External id")),
    ("external_id_2021", object, msgspec.field(default=None, name="external id")),
    ("correlation", object, None),
    ("device", object, None),
    ("bytes", object, None),
    ("size", object, None),
    ("kind", object, None),
    ("grid", msgspec.Raw, msgspec.field(default=None)),
    ("block", msgspec.Raw, msgspec.field(default=None)),
    ("registers", object, msgspec.field(default=None, name="registers per thread")),
    ("shared", object, msgspec.field(default=None, name="shared memory")),
    # Operator arguments stay undecoded JSON (msgspec.Raw): a trace repeats a
    # few distinct calls many times, and each distinct one is decoded once.
    ("input_dims", msgspec.Raw, msgspec.field(default=None, name="Input Dims")),
    ("input_dims_2021", msgspec.Raw, msgspec.field(default=None, name="Input dims")),
    ("input_type", msgspec.Raw, msgspec.field(default=None, name="Input type")),
    ("input_strides", msgspec.Raw, msgspec.field(default=None, name="Input Strides")),
    ("concrete", msgspec.Raw, msgspec.field(default=None, name="Concrete Inputs")),
    ("flops", object, None),
]

# gc=False: millions of small structs that never form reference cycles;
# tracking them made the garbage collector run through every one of them
# again and again during decoding (3.5x slower on a 117 MB trace).
# Two argument structs: with the range profiler's 12 counter fields, and
# without them for the bytes that hold none of them (almost every trace:
# the smaller struct decodes a BERT-size trace about 15 % faster).
Args = msgspec.defstruct("Args", _ARG_FIELDS + _counter_fields(), kw_only=True, gc=False)
LeanArgs = msgspec.defstruct("LeanArgs", _ARG_FIELDS, kw_only=True, gc=False)
COUNTER_MARK = b"sass_thread_inst_executed_op_"


def _event_struct(name: str, args_type):
    return msgspec.defstruct(name, [
        ("ph", object, None), ("cat", object, None), ("name", object, None),
        ("ts", float | None, None),    # microseconds; msgspec rejects anything but a number
        ("dur", float | None, None), ("pid", object, None), ("tid", object, None),
        ("args", args_type | None, None)], gc=False)


Event = _event_struct("Event", Args)
LeanEvent = _event_struct("LeanEvent", LeanArgs)


def events_type(raw) -> type:
    """The event struct for these bytes: with counter fields only where
    the bytes name a counter."""
    return Event if COUNTER_MARK in raw else LeanEvent


def counter_values(args) -> list:
    """The range-profiler counters of an event's args (None where absent)."""
    return [getattr(args, f"c_{i}", None) for i in range(len(COUNTER_KEYS))]


class Trace(msgspec.Struct):
    traceEvents: list[Event] | None = None
    deviceProperties: object = None
    distributedInfo: object = None
    roofline: object = None  # what examples/pytorch_cpu.py adds (intra-op threads)


class LeanTrace(Trace):
    traceEvents: list[LeanEvent] | None = None


# A gzip file inflating past this in one piece is refused: the chunked
# reader handles real traces of any size, so only a file it cannot read
# (or a decompression bomb) comes here.
MAX_INFLATED_BYTES = 256 << 20


def raw_bytes(path: Path) -> bytes:
    """The file's JSON bytes (gzip-compressed or not)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if raw[:2] == b"\x1f\x8b":
        raw = _inflate(raw, path)
    return raw


def _inflate(raw: bytes, path) -> bytes:
    out, data = [], raw
    size = 0
    while data:
        inflate = zlib.decompressobj(wbits=31)
        try:
            chunk = inflate.decompress(data, MAX_INFLATED_BYTES - size + 1)
        except zlib.error as exc:
            raise InputError(path, None, f"corrupt gzip stream: {exc}") from None
        size += len(chunk)
        out.append(chunk)
        if size > MAX_INFLATED_BYTES or inflate.unconsumed_tail:
            raise InputError(path, None, f"inflates to more than {MAX_INFLATED_BYTES >> 20} MiB and is "
                             "not a Kineto trace that can be read in chunks (a decompression bomb?)")
        if not inflate.eof:
            raise InputError(path, None, "corrupt gzip stream: truncated")
        data = inflate.unused_data        # the next gzip member, if any
    return b"".join(out)


# The top level is an object with traceEvents or (older tools) a bare list.
_DECODERS = {Event: msgspec.json.Decoder(Trace | list[Event]),
             LeanEvent: msgspec.json.Decoder(LeanTrace | list[LeanEvent])}


def decode(raw: bytes, path: Path) -> Trace:
    """Typed trace from JSON bytes; malformed JSON -> InputError with the line."""
    try:
        with no_gc():
            data = _DECODERS[events_type(raw)].decode(raw)
    except msgspec.ValidationError as exc:
        raise InputError(path, None, f"not a Chrome/Kineto trace: {exc}") from None
    except msgspec.DecodeError as exc:
        raise InputError(path, _line_of(raw, str(exc)), f"not valid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise InputError(path, raw.count(b"\n", 0, exc.start) + 1, f"not UTF-8 JSON (byte {exc.start})") from None
    if isinstance(data, list):
        data = Trace(traceEvents=data)
    if not isinstance(data.traceEvents, list):
        raise InputError(path, None, "no traceEvents list: not a Chrome/Kineto trace")
    return data


no_gc = paused  # kept for the readers that import it from here


def _line_of(raw: bytes, message: str) -> int | None:
    """The 1-based line of the byte offset msgspec names ("... at byte 123")."""
    marker = "byte "
    at = message.rfind(marker)
    if at < 0:
        return None
    digits = "".join(ch for ch in message[at + len(marker):] if ch.isdigit())
    if not digits:
        return None
    return raw.count(b"\n", 0, int(digits)) + 1


def load(path: Path) -> Trace:
    return decode(raw_bytes(path), path)
