"""TensorFlow's Trace Viewer JSON (``<host>.trace.json.gz``, written beside
the XPlane by TF 2.2-2.x profilers and by JAX) -> a
:class:`~.xplane_capture.Capture`.

It is a Chrome trace, like a PyTorch/Kineto one, so the sniff looks for
what only TensorFlow's exporter writes: a ``process_name`` metadata event
naming a TensorFlow device or host (``{"name":"/device:GPU:0"}``,
``/host:CPU``); Kineto names processes after the program or the GPU
number. Processes named ``/device:GPU:N`` are the GPUs, their threads
named ``Stream #N(...)`` the streams; each complete event (``ph`` X) there
is a kernel, copy or memset with its ``args`` as stats. ``ts``/``dur`` are
microseconds (``displayTimeUnit`` only sets the viewer's display). What the
XPlane has and this JSON lacks: ``kernel_details`` (no launch
configuration), the GPU plane's device properties (so the device must be
given with ``--device``), memory allocations (no output shapes).

The ``traceEvents`` array is decoded a chunk of events at a time
(:mod:`.xplane_json_chunks`), each chunk's events becoming rows of numbers
and interned names before the next is decoded: memory holds the columns,
not the file's events.
"""
from __future__ import annotations

import re
from array import array
from pathlib import Path

import msgspec

from ..options import DEFAULT, ReadOptions
from ...core.errors import InputError
from ...core.import_result import ImportResult
from .xplane_capture import CORRELATION, Capture, Interner
from .xplane_json_chunks import event_chunks
from .xplane_kernels import import_result
from .xplane_wire import MAX_NAME_BYTES

_TF_PROCESS = re.compile(rb'"process_name"[^{}]*"args"\s*:\s*\{\s*"name"\s*:\s*"/(?:device|host):'
                         rb'|"args"\s*:\s*\{\s*"name"\s*:\s*"/(?:device|host):[^"]*"\s*\}[^{}]*"process_name"')
_GPU_PROCESS = re.compile(r"^/device:GPU:\d+")
_STREAM = re.compile(r"^Stream #(\d+)")
MAX_STREAM_DIGITS = 18
ABSENT, NOT_ID = -1, -2
NOT_READABLE = "not a readable Trace Viewer JSON (TensorFlow .trace.json.gz)"
_NUMERIC = frozenset({CORRELATION, "flops", "model_flops", "bytes_accessed"})
# args the kernels module reads (xplane_capture.USED_STATS) and a metadata event's name
_ARG_FIELDS = [("tf_op", "tf_op"), ("hlo_op", "hlo_op"), ("hlo_module", "hlo_module"), ("annotation", "annotation"),
               ("level_0", "level 0"), ("long_name", "long_name"), ("kernel_details", "kernel_details"),
               ("correlation_id", CORRELATION), ("memcpy_details", "memcpy_details"),
               ("Memset_details", "Memset_details"), ("memset_details", "memset_details"), ("flops", "flops"),
               ("model_flops", "model_flops"), ("bytes_accessed", "bytes_accessed"), ("shape", "shape"),
               ("region_type", "region_type"), ("name", "name")]
Args = msgspec.defstruct("Args", [(f, object, msgspec.field(default=None, name=k)) for f, k in _ARG_FIELDS],
                         gc=False)


class Event(msgspec.Struct, gc=False):
    ph: str = ""
    pid: int | str | None = None
    tid: int | str | None = None
    ts: float | None = None
    dur: float | None = None
    name: str = ""
    args: Args | None = None


def sniff_trace_json(path: Path, head: bytes) -> bool:
    text = head.lstrip()
    return text.startswith(b"{") and b'"traceEvents"' in text and _TF_PROCESS.search(text) is not None


def read_trace_json(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    return import_result(capture(path))


class _Rows:
    """The complete events, in file order, until the processes and threads
    (named by metadata events anywhere in the file) are known."""

    def __init__(self):
        self.threads, self.names = Interner(), Interner()
        self.thread, self.name, self.host_name = array("q"), array("q"), array("q")
        self.profile, self.start, self.duration = array("q"), array("d"), array("d")
        # a correlation id an int64 holds; ABSENT, or NOT_ID (present but no such number)
        self.correlation = array("q")


def capture(path) -> Capture:
    cap = Capture(str(path), "tf-trace-json")
    rows, processes, threads = _Rows(), {}, {}
    for first, events in event_chunks(path, Event, NOT_READABLE):
        for k, e in enumerate(events):
            if len(e.name) > MAX_NAME_BYTES:
                raise InputError(path, None, f"traceEvents[{first + k}].name: {len(e.name):,} characters, "
                                 f"longer than any name ({MAX_NAME_BYTES:,} at most)")
            if e.ph == "M":
                _metadata(e, processes, threads)
            elif e.ph == "X" and e.ts is not None:
                _row(cap, rows, e, path, first + k)
    for pid, name in processes.items():
        if _GPU_PROCESS.match(name):
            cap.devices[name] = {}
            cap.device_names.id_of(name)
    _place(cap, rows, processes, threads, path)
    return cap


def _metadata(e: Event, processes: dict, threads: dict) -> None:
    name = e.args.name if e.args is not None else None
    if isinstance(name, str):
        if e.name == "process_name":
            processes[e.pid] = name
        elif e.name == "thread_name":
            threads[(e.pid, e.tid)] = name


def _row(cap: Capture, rows: _Rows, e: Event, path, index: int) -> None:
    stats = _stats(e.args, path, index)
    correlation = stats.pop(CORRELATION, None)
    key = tuple(stats.items())
    try:
        hash(key)
    except TypeError:                  # a list or object in the args
        key = ("json", msgspec.json.encode(key))
    rows.profile.append(cap.profile_id(key, lambda: stats))
    long_name = stats.get("long_name")
    rows.thread.append(rows.threads.id_of((e.pid, e.tid)))
    rows.name.append(rows.names.id_of(e.name))
    rows.host_name.append(rows.names.id_of(long_name if isinstance(long_name, str) and long_name else e.name))
    rows.start.append(e.ts * 1e3)
    rows.duration.append((e.dur or 0.0) * 1e3)
    rows.correlation.append(correlation if isinstance(correlation, int) and not isinstance(correlation, bool)
                            and 0 <= correlation < 1 << 63 else ABSENT if correlation is None else NOT_ID)


def _stats(args, path, index: int) -> dict:
    """The args the kernels module reads, numbers where a number is meant
    (TF writes ``"correlation_id": "1"``)."""
    out = {}
    if args is None:
        return out
    for field, key in _ARG_FIELDS[:-1]:
        value = getattr(args, field)
        if value is None:
            continue
        if isinstance(value, str):
            if len(value) > MAX_NAME_BYTES:
                raise InputError(path, None, f"traceEvents[{index}].args.{key}: {len(value):,} characters "
                                 f"(at most {MAX_NAME_BYTES:,})")
            if key in _NUMERIC:
                value = _number(value)
        out[key] = value
    return out


def _number(value: str):
    if len(value) > 40:          # no count has that many digits (and int() of thousands of them is slow)
        return value
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            return value


def _place(cap: Capture, rows: _Rows, processes: dict, threads: dict, path) -> None:
    """Each complete event where its process and thread put it: a GPU
    stream's activity, an XLA op's cost, a host event."""
    routes = [_route(cap, processes.get(pid, ""), threads.get((pid, tid), ""), path)
              for pid, tid in rows.threads.values]
    names = rows.names.values
    for j, thread in enumerate(rows.thread):
        start, duration = rows.start[j], rows.duration[j]
        cap.see(start, start + duration)
        kind, process, stream = routes[thread]
        if kind == "stream":
            correlation = rows.correlation[j]
            cap.add_activity(cap.names.id_of(names[rows.name[j]]), process, stream, start, duration,
                             rows.profile[j], correlation if correlation >= 0 else None)
        elif kind == "xla":
            cap.hlo_event(process, names[rows.name[j]], rows.profile[j])
        elif kind == "host":
            cap.host_event(names[rows.host_name[j]], rows.profile[j], rows.correlation[j] != ABSENT, duration)


def _route(cap: Capture, process: str, thread: str, path) -> tuple:
    if _GPU_PROCESS.match(process):
        stream = _STREAM.match(thread)
        if stream:
            if len(stream.group(1)) > MAX_STREAM_DIGITS:
                raise InputError(path, None, f"thread name {thread[:30]!r}...: a stream number of "
                                 f"{len(stream.group(1)):,} digits (at most {MAX_STREAM_DIGITS})")
            return "stream", cap.device_names.id_of(process), int(stream.group(1))
        if thread == "XLA Ops":
            return "xla", process, None
        return "none", None, None
    if process.startswith("/host:"):
        return "host", None, None
    return "none", None, None
