"""TensorFlow/JAX profiles: XPlane protobufs (``<host>.xplane.pb``) and the
Trace Viewer JSON (``<host>.trace.json.gz``) -> one kernel per GPU launch.

This module reads an XSpace (:mod:`.xplane_schema`) into a
:class:`~.xplane_kernels.Capture` and registers both readers; the Trace
Viewer JSON is read by :mod:`.xplane_json`, and both become kernels in
:mod:`.xplane_kernels`. What is read from an XSpace:

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
"""
from __future__ import annotations

import re
from pathlib import Path

from .base import ImportResult, Reader, register
from .xplane_json import read_trace_json, sniff_trace_json
from .xplane_kernels import Activity, Capture, add_hlo_cost, add_host_event, import_result
from .xplane_schema import parse_xspace

SUFFIXES = (".xplane.pb", ".xspace.pb")
_GPU_PLANE = re.compile(r"^/device:GPU:\d+")
_STREAM_LINE = re.compile(r"^Stream #(\d+)")
_PLANE_NAMES = (b"/host:", b"/device:", b"Task Environment")


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


def read(path: Path) -> ImportResult:
    return import_result(capture(parse_xspace(path), str(path)))


def capture(space, path: str) -> Capture:
    """What an XSpace says, as :func:`~.xplane_kernels.import_result` takes it."""
    cap = Capture(path, "xplane")
    lo, hi = float("inf"), float("-inf")
    for plane in space.planes:
        names = {k: m.name for k, m in plane.stat_metadata.items()}
        gpu = bool(_GPU_PLANE.match(plane.name))
        if gpu:
            cap.devices[plane.name] = _stats(plane.stats, names)
        for line in plane.lines:
            stream = _STREAM_LINE.match(line.name or line.display_name)
            base_ps = line.timestamp_ns * 1000
            for event in line.events:
                if event.WhichOneof("data") == "num_occurrences":
                    continue
                start = (base_ps + event.offset_ps) / 1000.0
                lo, hi = min(lo, start), max(hi, start + event.duration_ps / 1000.0)
                meta = plane.event_metadata.get(event.metadata_id)
                name = meta.name if meta is not None else ""
                stats = _stats(meta.stats, names) if meta is not None and meta.stats else {}
                stats.update(_stats(event.stats, names))
                if gpu and stream:
                    cap.activities.append(Activity(name, plane.name, int(stream.group(1)), start,
                                                   event.duration_ps / 1000.0, stats))
                elif gpu and line.name == "XLA Ops":
                    add_hlo_cost(cap, plane.name, name, stats)
                elif not gpu:
                    add_host_event(cap, name, stats, event.duration_ps / 1000.0)
    if lo <= hi:
        cap.span_ns = (lo, hi)
    cap.activities.sort(key=lambda a: a.start_ns)
    return cap


def _stats(stats, names: dict) -> dict:
    out = {}
    for s in stats:
        kind = s.WhichOneof("value")
        if kind is None:
            continue
        value = getattr(s, kind)
        if kind == "ref_value":
            value = names.get(value, "")
        elif kind == "bytes_value":
            continue
        out[names.get(s.metadata_id, str(s.metadata_id))] = value
    return out


# Both before the Kineto reader: a Trace Viewer JSON is also a Chrome trace.
register(Reader("xplane", sniff, read))
register(Reader("tf-trace-json", sniff_trace_json, read_trace_json))
