"""TensorFlow/JAX profiles: XPlane protobufs (``<host>.xplane.pb``) and the
Trace Viewer JSON (``<host>.trace.json.gz``) -> one kernel per GPU launch.

This module reads an XSpace (schema: :mod:`.xplane_schema`; wire format:
:mod:`.xplane_wire`) into a :class:`~.xplane_capture.Capture` and
registers both readers; the Trace Viewer JSON is read by
:mod:`.xplane_json`, and both become kernels in :mod:`.xplane_kernels`.
What is read from an XSpace:

- GPU planes (``/device:GPU:N``): every event on a ``Stream #N`` line is a
  kernel, copy or memset (start = line ``timestamp_ns`` + ``offset_ps``,
  duration ``duration_ps``), with its stats and its event metadata's stats
  (a ``ref_value`` stat is the name of the stat metadata it points to); the
  plane's stats are the device's (``core_count``, ``clock_rate`` kHz,
  ``memory_bandwidth`` B/s, ``memory_size``, ``compute_cap_major/minor``,
  ``device_vendor``, ``gpu_device_name`` in newer files); events of the
  ``XLA Ops`` line carry an HLO op's cost analysis where XLA wrote it
  (``flops``, ``model_flops``, ``bytes_accessed``).
- Host planes (``/host:...``): CUDA API calls (events with a
  ``correlation_id``: a launch is recorded under the kernel's name), TF op
  events ``name:type`` with their ``shape`` stat (input shapes, at host
  tracer level 3), and ``MemoryAllocation`` events with ``tf_op``,
  ``region_type`` ``output`` and ``shape`` (the shapes ops allocated).

An event metadata's stats are decoded once, when the plane is read, not
for every event that points to it; the events of a line are decoded one
at a time into columns (:mod:`.xplane_capture`).
"""
from __future__ import annotations

import re
from array import array
from pathlib import Path

from ..options import DEFAULT, ReadOptions
from ...core.errors import InputError
from ...core.text_files import regular_file
from ...core.import_result import ImportResult
from ..base import Reader, register
from .xplane_capture import CORRELATION, USED_STATS, Capture
from .xplane_json import read_trace_json, sniff_trace_json
from .xplane_kernels import import_result
from .xplane_wire import (MAX_LINES, MAX_PLANES, MAX_STATS, TooLarge, WireError, fields, signed, stat, stat_bytes,
                          text, varint, varint_bytes)

SUFFIXES = (".xplane.pb", ".xspace.pb")
# An XSpace larger than this is refused: protobuf messages stop at 2 GiB.
MAX_XSPACE_BYTES = 2 ** 31 - 1
_GPU_PLANE = re.compile(r"^/device:GPU:\d+")
_STREAM_LINE = re.compile(r"^Stream #(\d+)")
MAX_STREAM_DIGITS = 18        # a stream id an int64 holds; thousands of digits are no stream
_PLANE_NAMES = (b"/host:", b"/device:", b"Task Environment")
# The plane whose event metadata carry the compiled HLO modules (stat "Hlo Proto", bytes)
METADATA_PLANE, HLO_PROTO = "/host:metadata", "Hlo Proto"
_NOT_XSPACE = "not a readable XSpace protobuf (a TensorFlow/JAX .xplane.pb)"


def sniff(path: Path, head: bytes) -> bool:
    """A ``.xplane.pb`` by name (read says what is wrong if it is not one),
    else by content: the XSpace's first field is a plane (field 1,
    length-delimited) whose id (field 1) may come first and whose name
    (field 2) is a device or host plane's."""
    if str(path).lower().endswith(SUFFIXES):
        return True
    if not head.startswith(b"\x0a"):
        return False
    i = _skip_varint(head, 1)
    if i is not None and i < len(head) and head[i] == 0x08:           # XPlane.id
        i = _skip_varint(head, i + 1)
    if i is None or i >= len(head) or head[i] != 0x12:                # XPlane.name
        return False
    j = _skip_varint(head, i + 1)
    return j is not None and head[j:].startswith(_PLANE_NAMES)


def _skip_varint(data: bytes, i: int) -> int | None:
    for n in range(10):
        if i + n >= len(data):
            return None
        if not data[i + n] & 0x80:
            return i + n + 1
    return None


def read(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    return import_result(capture(path))


def capture(path) -> Capture:
    """What the XSpace in ``path`` says, as :func:`~.xplane_kernels.import_result`
    takes it; an InputError naming the file and the field for what is wrong."""
    size = regular_file(path).st_size
    if size > MAX_XSPACE_BYTES:
        raise InputError(path, None, f"{size:,} bytes: larger than a protobuf message can be (2 GiB)")
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    cap = Capture(str(path), "xplane")
    try:
        named = _space(cap, data)
    except TooLarge as exc:
        raise InputError(path, None, f"{_NOT_XSPACE}: refused: {exc}") from None
    except WireError as exc:
        raise InputError(path, None, f"{_NOT_XSPACE}: truncated or damaged ({exc})") from None
    if not named:
        raise InputError(path, None, "not an XSpace protobuf (a TensorFlow/JAX .xplane.pb): "
                         "it holds no named plane")
    return cap


def _space(cap: Capture, data: bytes) -> bool:
    """Read every plane of the XSpace; whether any has a name."""
    planes = [span for number, wire, span in fields(data, 0, len(data)) if number == 1 and wire == 2]
    if len(planes) > MAX_PLANES:
        raise TooLarge(f"{len(planes):,} planes (at most {MAX_PLANES:,}: one per device and host)")
    named = False
    for index, span in enumerate(planes):
        named |= bool(_Plane(cap, data, span, index).read())
    return named


class _Plane:
    """One XPlane: its stat names first, then its event metadata (stats
    decoded once each), then its lines event by event."""

    def __init__(self, cap: Capture, data: bytes, span: tuple[int, int], index: int):
        self.cap, self.data, self.index = cap, data, index
        self.name = ""
        self.lines: list = []
        self.entries = array("q")        # event metadata map entries: start, end, start, end ...
        self.stat_names: dict[int, str] = {}
        self.own_stats: list = []
        for number, wire, value in fields(data, *span):
            if wire != 2:
                continue
            if number == 2:
                self.name = text(data, value, "a plane's name")
            elif number == 3:
                self.lines.append(value)
                if len(self.lines) > MAX_LINES:
                    raise TooLarge(f"plane {self.name[:60]!r}: more than {MAX_LINES:,} lines")
            elif number == 4:
                self.entries.extend(value)
            elif number == 5:
                key, meta = _entry(data, value)
                self.stat_names[key] = _field_text(data, meta, 2, "a stat metadata's name")
            elif number == 6:
                self.own_stats.append(value)
        self.used = {k for k, name in self.stat_names.items() if name in USED_STATS}
        self.hlo_stat = next((k for k, n in self.stat_names.items() if n == HLO_PROTO), None) \
            if self.name == METADATA_PLANE else None
        self.meta_names: dict[int, int] = {}       # metadata id -> index in cap.names
        self.meta_stats: dict[int, dict] = {}      # metadata id -> its used stats (when it has any)

    def read(self) -> str:
        self._metadata()
        gpu = bool(_GPU_PLANE.match(self.name))
        if gpu:
            self.cap.devices[self.name] = self.stats(self.own_stats, lambda _: True)
            self.device = self.cap.device_names.id_of(self.name)
        for span in self.lines:
            _Line(self, span, gpu).read()
        return self.name

    def _metadata(self) -> None:
        data, entries = self.data, self.entries
        for j in range(0, len(entries), 2):
            key, meta = _entry(data, (entries[j], entries[j + 1]))
            name, stats = "", []
            if meta is not None:
                for number, wire, value in fields(data, *meta):
                    if number == 2 and wire == 2:
                        name = text(data, value, "an event metadata's name")
                    elif number == 5 and wire == 2:
                        stats.append(value)
                if len(stats) > MAX_STATS:
                    raise TooLarge(f"event metadata {name[:60]!r}: {len(stats):,} stats (at most {MAX_STATS:,})")
            self.meta_names[key] = self.cap.names.id_of(name)
            if self.hlo_stat is not None:
                self._hlo_module(name, stats)
            decoded = self.stats(stats, self.used.__contains__) if stats else {}
            if decoded:
                self.meta_stats[key] = decoded
            else:
                self.meta_stats.pop(key, None)
        del self.entries

    def _hlo_module(self, name: str, spans) -> None:
        """Keep the serialized HLO module an event metadata of the metadata
        plane carries, under its name (``jit_step(15)``: module and program id)."""
        for s, e in spans:
            found = stat_bytes(self.data, s, e, self.hlo_stat)
            if found:
                self.cap.hlo_protos[name] = found

    def stats(self, spans, keep) -> dict:
        """The stats at ``spans`` that ``keep`` takes, by name (references resolved)."""
        out = {}
        for s, e in spans:
            found = stat(self.data, s, e, keep)
            if found is not None:
                meta, kind, value = found
                out[self.stat_names.get(meta, str(meta))] = self.stat_names.get(value, "") if kind == "ref" else value
        return out


def _entry(data: bytes, span) -> tuple[int, tuple[int, int] | None]:
    """(key, the value message's span) of a map<int64, message> entry."""
    key, value = 0, None
    for number, wire, v in fields(data, *span):
        if number == 1 and wire == 0:
            key = signed(v)
        elif number == 2 and wire == 2:
            value = v
    return key, value


def _field_text(data: bytes, span, number: int, what: str) -> str:
    found = ""
    if span is not None:
        for n, wire, value in fields(data, *span):
            if n == number and wire == 2:
                found = text(data, value, what)
    return found


class _Line:
    """One XLine: its events decoded one at a time into columns, then placed
    by the line's name (known only once the line is read: TF writes the
    display name after the events)."""

    def __init__(self, plane: _Plane, span, gpu: bool):
        self.plane, self.span, self.gpu = plane, span, gpu
        self.name = self.display_name = ""
        self.timestamp_ns = 0

    def read(self) -> None:
        plane, data = self.plane, self.plane.data
        offsets, durations, profiles, correlations = array("q"), array("q"), array("q"), []
        s, e = self.span
        i = s
        while i < e:
            key, i = varint(data, i, e)
            if key == 0x22:                                   # events (4), length-delimited
                n, i = varint(data, i, e)
                if n > e - i:
                    raise WireError(f"truncated (an event declares {n:,} bytes, {e - i:,} are left)")
                event = _event(plane, data, i, i + n)
                i += n
                if event is not None:
                    offsets.append(event[0])
                    durations.append(event[1])
                    profiles.append(event[2])
                    correlations.append(event[3])
                continue
            i = self._header(data, key, i, e)
        self._place(offsets, durations, profiles, correlations)

    def _header(self, data: bytes, key: int, i: int, e: int) -> int:
        """Read one field of the line other than an event; the position after it."""
        span = _one_field(data, key, i, e)
        for number, wire, value in fields(data, *span):
            if number == 2 and wire == 2:
                self.name = text(data, value, "a line's name")
            elif number == 11 and wire == 2:
                self.display_name = text(data, value, "a line's display name")
            elif number == 3 and wire == 0:
                self.timestamp_ns = signed(value)
        return span[1]

    def _place(self, offsets, durations, profiles, correlations) -> None:
        plane, cap = self.plane, self.plane.cap
        label = self.name or self.display_name
        stream = _stream(label)
        base_ps = self.timestamp_ns * 1000
        names = cap.names.values
        for j, (offset, duration, profile) in enumerate(zip(offsets, durations, profiles)):
            start = (base_ps + offset) / 1000.0
            duration_ns = duration / 1000.0
            cap.see(start, start + duration_ns)
            name_id = cap.profile_names[profile]
            if self.gpu and stream is not None:
                cap.add_activity(name_id, plane.device, stream, start, duration_ns, profile,
                                 correlations[j])
            elif self.gpu and self.name == "XLA Ops":
                cap.hlo_event(plane.name, names[name_id], profile)
            elif not self.gpu:
                cap.host_event(names[name_id], profile, correlations[j] is not None, duration_ns)


def _one_field(data: bytes, key: int, i: int, e: int) -> tuple[int, int]:
    """(start, end) of the field whose key was read just before ``i``, key included."""
    wire = key & 7
    if wire == 0:
        _, j = varint(data, i, e)
    elif wire == 2:
        n, j = varint(data, i, e)
        j += n
    elif wire == 1:
        j = i + 8
    elif wire == 5:
        j = i + 4
    else:
        raise WireError(f"wire type {wire} of field {key >> 3}: not a protobuf message of the XSpace schema")
    if j > e:
        raise WireError(f"truncated (field {key >> 3} runs past the end of its message)")
    return i - len(varint_bytes(key)), j


def _stream(label: str) -> int | None:
    """The stream id of a ``Stream #N`` line, None for other lines; a
    number of more digits than an id has is refused."""
    m = _STREAM_LINE.match(label)
    if m is None:
        return None
    digits = m.group(1)
    if len(digits) > MAX_STREAM_DIGITS:
        raise TooLarge(f"line {label[:30]!r}...: a stream number of {len(digits):,} digits "
                       f"(at most {MAX_STREAM_DIGITS})")
    return int(digits)


def _event(plane: _Plane, data: bytes, s: int, e: int):
    """(offset_ps, duration_ps, profile index, correlation id or None) of
    the XEvent in ``data[s:e]``; None for an aggregate (``num_occurrences``)."""
    meta = offset = duration = 0
    counted = False
    stats = None
    i = s
    while i < e:
        key, i = varint(data, i, e)
        if key == 0x08:
            meta, i = varint(data, i, e)
        elif key == 0x10:
            offset, i = varint(data, i, e)
            counted = False
        elif key == 0x18:
            duration, i = varint(data, i, e)
        elif key == 0x28:
            _, i = varint(data, i, e)
            counted = True
        elif key == 0x22:
            n, i = varint(data, i, e)
            if n > e - i:
                raise WireError(f"truncated (a stat declares {n:,} bytes, {e - i:,} are left)")
            if stats is None:
                stats = []
            stats.append((i, i + n))
            i += n
            if len(stats) > MAX_STATS:
                raise TooLarge(f"an event with more than {MAX_STATS:,} stats")
        else:
            i = _one_field(data, key, i, e)[1]
    if counted:
        return None
    meta = signed(meta)
    correlation = None
    own = plane.stats(stats, plane.used.__contains__) if stats else None
    if own and CORRELATION in own:
        correlation = own.pop(CORRELATION)
    key = (plane.index, meta, tuple(own.items())) if own else (plane.index, meta)
    cap = plane.cap
    profile = cap.profile_id(key, lambda: _profile(plane, meta, own))
    return signed(offset), signed(duration), profile, correlation


def _profile(plane: _Plane, meta: int, own: dict | None) -> dict:
    """A new profile: the metadata's stats updated with the event's own
    (the correlation id aside), and the event's name."""
    stats = dict(plane.meta_stats.get(meta, {}))
    if own:
        stats.update(own)
    cap = plane.cap
    name_id = plane.meta_names.get(meta)
    cap.profile_names.append(cap.names.id_of("") if name_id is None else name_id)
    return stats


# Both before the Kineto reader: a Trace Viewer JSON is also a Chrome trace.
register(Reader("xplane", sniff, read))
register(Reader("tf-trace-json", sniff_trace_json, read_trace_json))
