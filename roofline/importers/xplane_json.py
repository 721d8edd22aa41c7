"""TensorFlow's Trace Viewer JSON (``<host>.trace.json.gz``, written beside
the XPlane by TF 2.2-2.x profilers and by JAX) -> a
:class:`~.xplane_kernels.Capture`.

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
"""
from __future__ import annotations

import re
from pathlib import Path

import msgspec

from ..core.errors import InputError
from ..core.text_files import read_text
from .base import ImportResult
from .xplane_kernels import Activity, Capture, add_hlo_cost, add_host_event, import_result

_TF_PROCESS = re.compile(rb'"process_name"[^{}]*"args"\s*:\s*\{\s*"name"\s*:\s*"/(?:device|host):'
                         rb'|"args"\s*:\s*\{\s*"name"\s*:\s*"/(?:device|host):[^"]*"\s*\}[^{}]*"process_name"')
_GPU_PROCESS = re.compile(r"^/device:GPU:\d+")
_STREAM = re.compile(r"^Stream #(\d+)")


class _Event(msgspec.Struct):
    ph: str = ""
    pid: int | str | None = None
    tid: int | str | None = None
    ts: float | None = None
    dur: float | None = None
    name: str = ""
    args: dict = {}


class _Trace(msgspec.Struct):
    traceEvents: list[_Event] = []


def sniff_trace_json(path: Path, head: bytes) -> bool:
    text = head.lstrip()
    return text.startswith(b"{") and b'"traceEvents"' in text and _TF_PROCESS.search(text) is not None


def read_trace_json(path: Path) -> ImportResult:
    return import_result(capture(path))


def capture(path) -> Capture:
    text = read_text(path)
    try:
        trace = msgspec.json.decode(text, type=_Trace)
    except msgspec.DecodeError as exc:
        raise InputError(path, None, f"not a readable Trace Viewer JSON (TensorFlow .trace.json.gz): {exc}") from None
    processes: dict = {}
    threads: dict = {}
    for e in trace.traceEvents:
        if e.ph == "M" and isinstance(e.args.get("name"), str):
            if e.name == "process_name":
                processes[e.pid] = e.args["name"]
            elif e.name == "thread_name":
                threads[(e.pid, e.tid)] = e.args["name"]
    cap = Capture(str(path), "tf-trace-json")
    for pid, name in processes.items():
        if _GPU_PROCESS.match(name):
            cap.devices[name] = {}
    lo, hi = float("inf"), float("-inf")
    for e in trace.traceEvents:
        if e.ph != "X" or e.ts is None:
            continue
        start, duration = e.ts * 1e3, (e.dur or 0.0) * 1e3
        lo, hi = min(lo, start), max(hi, start + duration)
        process = processes.get(e.pid, "")
        stats = {k: _value(k, v) for k, v in e.args.items()}
        if _GPU_PROCESS.match(process):
            thread = threads.get((e.pid, e.tid), "")
            stream = _STREAM.match(thread)
            if stream:
                cap.activities.append(Activity(e.name, process, int(stream.group(1)), start, duration, stats))
            elif thread == "XLA Ops":
                add_hlo_cost(cap, process, e.name, stats)
        elif process.startswith("/host:"):
            long_name = stats.get("long_name")
            add_host_event(cap, long_name if isinstance(long_name, str) and long_name else e.name,
                           stats, duration)
    if lo <= hi:
        cap.span_ns = (lo, hi)
    cap.activities.sort(key=lambda a: a.start_ns)
    return cap


def _value(key: str, value):
    """Args are written as strings ("correlation_id": "1"); numbers where
    a number is meant."""
    if isinstance(value, str) and key in ("correlation_id", "flops", "model_flops", "bytes_accessed"):
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return value
    return value
