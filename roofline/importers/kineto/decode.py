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

import io
import operator
import re
import typing
import zlib
from pathlib import Path

import msgspec

from ...core.errors import InputError
from ...core.gcpause import paused
from .scan import top_level_keys

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
    # the kernel a ROCm runtime launch names (roctracer): the launches of a
    # graph's capture, whose kernels run only when the graph is replayed (.replay)
    ("kernel", object, None),
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
    # autograd marks the operators it runs in the backward pass with the forward's thread
    ("fwd_thread", object, msgspec.field(default=None, name="Fwd thread id")),
]
# What a collective moves (on record_param_comms and, since 2024, on the NCCL
# kernel) and Inductor's counts on a Triton launch: rare fields, decoded only
# from the bytes that name one (COMM_MARKS): each field costs every event.
_COMM_FIELDS = [
    ("coll_name", object, msgspec.field(default=None, name="Collective name")),
    ("in_nelems", object, msgspec.field(default=None, name="In msg nelems")),
    ("out_nelems", object, msgspec.field(default=None, name="Out msg nelems")),
    ("group_size", object, msgspec.field(default=None, name="Group size")),
    ("dtype", object, None),
    ("pg_name", object, msgspec.field(default=None, name="Process Group Name")),
    ("pg_ranks", object, msgspec.field(default=None, name="Process Group Ranks")),
    # Inductor's own counts on a Triton launch (torch >= 2.9, TORCHINDUCTOR_BENCHMARK_KERNEL=1)
    ("kernel_flop", object, None),
    ("kernel_num_gb", object, None),
]
# Events that may carry them: a chunk decoded without the fields is decoded
# again with them only when it holds one (a scan of every chunk's bytes for
# the keys cost several times the decode of the fields themselves).
COMM_EVENT_PREFIXES = ("record_param_comms", "nccl", "rccl")
INDUCTOR_PREFIX = "triton_"
INDUCTOR_MARKS = (b'"kernel_num_gb"', b'"kernel_flop"')

# gc=False: millions of small structs that never form reference cycles;
# tracking them made the garbage collector run through every one of them
# again and again during decoding (3.5x slower on a 117 MB trace).
# Two argument structs: with the range profiler's 12 counter fields, and
# without them for the bytes that hold none of them (almost every trace:
# the smaller struct decodes a BERT-size trace about 15 % faster).
Args = msgspec.defstruct("Args", _ARG_FIELDS + _COMM_FIELDS + _counter_fields(), kw_only=True, gc=False)
LeanArgs = msgspec.defstruct("LeanArgs", _ARG_FIELDS, kw_only=True, gc=False)
CommArgs = msgspec.defstruct("CommArgs", _ARG_FIELDS + _COMM_FIELDS, kw_only=True, gc=False)
COUNTER_MARK = b"sass_thread_inst_executed_op_"


def _event_struct(name: str, args_type):
    return msgspec.defstruct(name, [
        ("ph", object, None), ("cat", object, None), ("name", object, None),
        ("ts", float | None, None),    # microseconds; msgspec rejects anything but a number
        ("dur", float | None, None), ("pid", object, None), ("tid", object, None),
        ("args", args_type | None, None)], gc=False)


Event = _event_struct("Event", Args)
LeanEvent = _event_struct("LeanEvent", LeanArgs)
CommEvent = _event_struct("CommEvent", CommArgs)
EVENT_TYPES = (Event, CommEvent, LeanEvent)

# The reader reads complete events ("X") only; the other phases (flow
# arrows, instants, counters, metadata: two of five events of a GPU trace)
# need only their category (counted where it is not read). Decoded as a
# union tagged by "ph", each of them is a struct of its category (and its
# times, checked as every event's are), the rest of its bytes skipped (a
# BERT-shaped trace decodes about 15 % faster).
# Events of another phase, or none, fail the union: those bytes are decoded
# as LeanEvent (FirstTagged).
OTHER_PHASES = tuple("BEIiCbnestfPNODMVvRc()")
_NOT_READ = {"name": None, "pid": None, "tid": None, "args": None}
LeanComplete = msgspec.defstruct("LeanComplete", [
    ("cat", object, None), ("name", object, None), ("ts", float | None, None), ("dur", float | None, None),
    ("pid", object, None), ("tid", object, None), ("args", LeanArgs | None, None)],
    gc=False, tag_field="ph", tag="X", namespace={"ph": "X"})
# ts and dur are typed in every phase, as in the untagged decoding: whether
# a damaged flow's ts was refused depended on whether its chunk also held an
# event of no known phase (which sends a chunk to LeanEvent)
_OTHERS = tuple(msgspec.defstruct(f"Phase{i}", [("cat", object, None), ("ts", float | None, None),
                                                ("dur", float | None, None)],
                                  gc=False, tag_field="ph", tag=ph, namespace={"ph": ph, **_NOT_READ})
                for i, ph in enumerate(OTHER_PHASES))
LEAN_TYPES = frozenset((LeanEvent, LeanComplete) + _OTHERS)
TaggedEvent = typing.Union[(LeanComplete,) + _OTHERS]


class FirstTagged:
    """A decoder of LeanEvent bytes that tries the tagged union first and,
    where it refuses them (a phase it does not know, a damaged event), the
    plain decoder, which says what is wrong as it always has."""

    def __init__(self, tagged: msgspec.json.Decoder, plain: msgspec.json.Decoder):
        self.tagged, self.plain = tagged, plain

    def decode(self, data):
        try:
            return self.tagged.decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return self.plain.decode(data)


def events_type(raw) -> type:
    """The event struct for these bytes: with counter fields only where
    the bytes name a counter (the collective and Inductor fields: see
    :func:`needs_comm_fields`)."""
    return Event if COUNTER_MARK in raw else LeanEvent


_NAME_OF = operator.attrgetter("name")


def needs_comm_fields(events: list, raw, end: int | None = None) -> bool:
    """Whether events decoded as ``LeanEvent`` from ``raw[:end]`` (bytes or
    a bytearray: not a memoryview, which has no substring search) must be
    decoded again as ``CommEvent``: one of them may carry a collective's
    arguments (``record_param_comms``, an NCCL/RCCL kernel) or is a Triton
    launch and the bytes hold Inductor's counts."""
    if not events or type(events[0]) not in LEAN_TYPES:
        return False
    end = len(raw) if end is None else end
    # the distinct names, gathered in C (map, attrgetter): a byte search for
    # the four words costs half the decode, a set comprehension a sixth
    try:
        names = set(map(_NAME_OF, events))
    except TypeError:               # a damaged event names itself with a list
        names = {e.name for e in events if isinstance(e.name, str)}
    starts = [n for n in names if isinstance(n, str) and n.startswith(COMM_EVENT_PREFIXES + (INDUCTOR_PREFIX,))]
    if any(not n.startswith(INDUCTOR_PREFIX) for n in starts):
        return True
    return bool(starts) and any(raw.find(mark, 0, end) >= 0 for mark in INDUCTOR_MARKS)


_EXTERNAL_OF = operator.attrgetter("external_id")
_CORRELATION_OF = operator.attrgetter("correlation")


def external_ids(args: list) -> list:
    """Each event's External id (``external id`` in 2021 traces; None
    without args), gathered in C where every event has the current key."""
    if None not in args:
        ids = list(map(_EXTERNAL_OF, args))
        if None not in ids:
            return ids
    return [None if a is None else (a.external_id if a.external_id is not None else a.external_id_2021)
            for a in args]


def field_of(args: list, getter) -> list:
    """``getter(a)`` of each event's args (None without args), gathered in C
    when every event has args."""
    if None not in args:
        return list(map(getter, args))
    return [None if a is None else getter(a) for a in args]


def correlations(args: list) -> list:
    """Each event's correlation id (None without args)."""
    return field_of(args, _CORRELATION_OF)


def has_comm_fields(args) -> bool:
    """Whether decoded args carry the collective and Inductor fields."""
    return hasattr(type(args), "coll_name")


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


class CommTrace(Trace):
    traceEvents: list[CommEvent] | None = None


class TaggedTrace(Trace):
    traceEvents: list[TaggedEvent] | None = None


# The whole-file decoder holds the file's bytes and every event decoded
# from them at once (several times the file's size): past this, in a file or
# inflated from one, it refuses. read() sends every file above a MiB, and
# every gzip file, to the chunked reader (.stream), which has no such limit.
MAX_INFLATED_BYTES = 256 << 20
MAX_WHOLE_BYTES = MAX_INFLATED_BYTES
GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_INFLATE_STEP = 1 << 20


def raw_bytes(path: Path) -> bytes:
    """The file's JSON bytes (gzip-compressed or not), as UTF-8 without a
    byte-order mark."""
    try:
        size = Path(path).stat().st_size
        if size > MAX_WHOLE_BYTES:
            raise InputError(path, None, f"{size:,} bytes: too big to decode whole (at most "
                             f"{MAX_WHOLE_BYTES:,}); kineto.read() reads it in chunks")
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if raw[:2] == GZIP_MAGIC:
        raw = _inflate(raw, path)
    return utf8(raw, path)


def _inflate(raw: bytes, path) -> bytes:
    out, size = [], 0
    for piece in gunzip(io.BytesIO(raw).read, path, _INFLATE_STEP):
        size += len(piece)
        if size > MAX_INFLATED_BYTES:
            raise InputError(path, None, f"inflates to more than {MAX_INFLATED_BYTES >> 20} MiB, too much "
                             "to decode whole (a decompression bomb?); kineto.read() reads it in chunks")
        out.append(piece)
    return b"".join(out)


def gunzip(read, path, piece_bytes: int):
    """The inflated bytes of the gzip file ``read(n)`` reads, every member,
    at most ``piece_bytes`` at a time (a small file may inflate to GBs).
    Zero padding after the last member is skipped, as gzip(1) does; damage
    is an InputError saying what is wrong."""
    data = read(piece_bytes)
    inflate = zlib.decompressobj(wbits=31)
    while True:
        try:
            out = inflate.decompress(data, piece_bytes)
        except zlib.error as exc:
            raise InputError(path, None, gzip_damage(exc)) from None
        if out:
            yield out
        if inflate.eof:            # a member ended: what follows is another one, padding or nothing
            data = _after_member(inflate.unused_data, read, piece_bytes)
            if not data:
                return
            if data[:2] != GZIP_MAGIC:
                raise InputError(path, None, "corrupt gzip stream: the bytes after its end are "
                                 "neither another gzip member nor zero padding")
            inflate = zlib.decompressobj(wbits=31)
            continue
        data = inflate.unconsumed_tail or read(piece_bytes)
        if not data:
            rest = inflate.flush()             # output zlib still holds for consumed input
            if rest:
                yield rest
            if not inflate.eof:
                raise InputError(path, None, "corrupt gzip stream: truncated (the file ends inside it)")
            return


def _after_member(data: bytes, read, piece_bytes: int) -> bytes:
    """The bytes after a gzip member, zero padding skipped (b"": nothing more)."""
    data = data.lstrip(b"\0")
    while len(data) < 2:            # enough to tell a gzip magic number from padding
        more = read(piece_bytes)
        if not more:
            return data
        data = (data + more) if data else more.lstrip(b"\0")
    return data


def gzip_damage(exc: zlib.error) -> str:
    """What zlib's complaint about a gzip stream means."""
    text = str(exc)
    if "incorrect data check" in text:
        return "corrupt gzip stream: CRC mismatch (the file is damaged)"
    if "incorrect length check" in text:
        return "corrupt gzip stream: length mismatch (the file is damaged)"
    return f"corrupt gzip stream: the file is damaged ({text.split(': ', 1)[-1]})"


def utf8(raw: bytes, path) -> bytes:
    """``raw`` without a UTF-8 byte-order mark; UTF-16 with one re-encoded
    as UTF-8; UTF-16 without one refused (nothing says its byte order)."""
    if raw.startswith(UTF8_BOM):
        return raw[len(UTF8_BOM):]
    if raw.startswith(UTF16_BOMS):
        try:
            return raw.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(path, None, f"not valid UTF-16 (byte {exc.start})") from None
    refuse_utf16_without_bom(raw[:64], path)
    return raw


def refuse_utf16_without_bom(head: bytes, path) -> None:
    """An InputError when the first bytes are UTF-16 without a byte-order
    mark: a NUL beside nearly every character, on one side."""
    sample = head[:64]
    half = len(sample) // 2
    if half < 2 or b"\0" not in sample:
        return
    even, odd = sample[0:2 * half:2].count(0), sample[1:2 * half:2].count(0)
    if min(even, odd) <= 0.1 * half and max(even, odd) >= 0.9 * half:
        order = "little-endian" if odd > even else "big-endian"
        raise InputError(path, 1, f"UTF-16 ({order}) without a byte-order mark: re-save the trace as UTF-8")


# The top level is an object with traceEvents or (older tools) a bare list.
_DECODERS = {Event: msgspec.json.Decoder(Trace | list[Event]),
             LeanEvent: FirstTagged(msgspec.json.Decoder(TaggedTrace | list[TaggedEvent]),
                                    msgspec.json.Decoder(LeanTrace | list[LeanEvent])),
             CommEvent: msgspec.json.Decoder(CommTrace | list[CommEvent])}


# msgspec decodes nested JSON recursively, one C stack frame per level
NESTED_TOO_DEEP = ("JSON nested deeper than Python's recursion limit can decode (arrays or objects "
                   "inside each other about 1,000 levels deep): no profiler writes that")


def decode(raw: bytes, path: Path) -> Trace:
    """Typed trace from JSON bytes; malformed JSON -> InputError with the line."""
    try:
        with no_gc():
            data = _DECODERS[events_type(raw)].decode(raw)
            events = data if isinstance(data, list) else data.traceEvents
            if isinstance(events, list) and needs_comm_fields(events, raw):
                data = _DECODERS[CommEvent].decode(raw)
    except msgspec.ValidationError as exc:
        raise InputError(path, None, validation_message(exc)) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise syntax_error(path, raw, exc) from None
    except RecursionError:
        raise InputError(path, None, NESTED_TOO_DEEP) from None
    except MemoryError:
        raise InputError(path, None, f"{len(raw):,} bytes of JSON do not fit in memory decoded") from None
    if isinstance(data, list):
        return Trace(traceEvents=data)
    if not isinstance(data.traceEvents, list):
        raise InputError(path, None, "no traceEvents list: not a Chrome/Kineto trace")
    _refuse_duplicate(raw, path)
    return data


DUPLICATE = "a second traceEvents array at the top level: the trace is damaged (which one holds the events?)"


def _refuse_duplicate(raw: bytes, path) -> None:
    """An InputError when the top-level object has two traceEvents keys
    (msgspec, like json.loads, would keep the last without a word). Only a
    file that names the key twice, or spells it with escapes, is scanned."""
    if raw.count(b'"traceEvents"') < 2 and b"\\u" not in raw:
        return
    keys = top_level_keys(raw, "traceEvents")
    if len(keys) > 1:
        raise InputError(path, raw.count(b"\n", 0, keys[1]) + 1, DUPLICATE)


_EVENT_PATH = re.compile(r"`\$(?:\.traceEvents)?\[(\d+)\]([^`]*)`")


def validation_message(exc: msgspec.ValidationError, first: int = 0) -> str:
    """msgspec's complaint about a value, naming the event by its index in
    traceEvents (``first``: the index of the decoded chunk's first event)."""
    text = str(exc)
    m = _EVENT_PATH.search(text)
    if m is None:
        return f"not a Chrome/Kineto trace: {text}"
    what = text[:m.start()].removesuffix(" - at ")
    return f"traceEvents[{first + int(m.group(1))}]{m.group(2)}: {what} (not a Chrome/Kineto trace event)"


def syntax_error(path, raw, exc: Exception, line0: int = 0, start: int = 0, offset: int = 0,
                 base: int = 0) -> InputError:
    """The InputError for JSON that does not parse, naming its line and
    byte: ``raw`` holds the file's text from its byte ``base`` on, starting
    at ``raw[start]``, with ``line0`` lines before it; byte 0 of what
    msgspec decoded is ``raw[offset]``."""
    if is_utf8_error(exc):            # where msgspec says, if it does, is in a string, not in raw
        at = non_utf8_at(raw)
        if at is not None:
            line = line0 + raw.count(b"\n", start, max(at, start)) + 1
            return InputError(path, line, f"not UTF-8 text (byte {base + at - start}): save the trace as UTF-8")
        return InputError(path, None, f"not UTF-8 text ({exc})")
    text = str(exc)
    at = byte_of(text)
    if at is None:
        return InputError(path, None, f"not valid JSON: {text}")
    at = max(at + offset, start)
    text = f"{text[:text.rfind('byte ')]}byte {base + at - start})"
    return InputError(path, line0 + raw.count(b"\n", start, at) + 1, f"not valid JSON: {text}")


def is_utf8_error(exc: Exception) -> bool:
    """Whether msgspec refused bytes that are not UTF-8: a
    UnicodeDecodeError up to msgspec 0.22, a DecodeError saying so from
    0.23 on (with no byte named)."""
    return isinstance(exc, UnicodeDecodeError) or (isinstance(exc, msgspec.DecodeError) and "UTF-8" in str(exc))


def non_utf8_at(raw) -> int | None:
    """The offset of the first byte of ``raw`` that is not UTF-8 (one cut
    short at its end included), or None where all of it is."""
    try:
        bytes(raw).decode("utf-8")
    except UnicodeDecodeError as where:
        return where.start
    return None


no_gc = paused  # kept for the readers that import it from here


def byte_of(message: str) -> int | None:
    """The byte offset msgspec names ("... (byte 123)"), or None."""
    marker = "byte "
    at = message.rfind(marker)
    if at < 0:
        return None
    digits = "".join(ch for ch in message[at + len(marker):] if ch.isdigit())
    return int(digits) if digits else None


def load(path: Path) -> Trace:
    return decode(raw_bytes(path), path)
