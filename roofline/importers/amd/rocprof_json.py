"""rocprofv3 JSON (``rocprofv3 --output-format json``, the
rocprofiler-sdk-tool's ``results.json``, gzipped or not).

Layout (ROCm/rocprofiler-sdk ``source/lib/rocprofiler-sdk-tool/generateJSON.cpp``
and ``source/include/rocprofiler-sdk/cxx/serialization.hpp``)::

    {"rocprofiler-sdk-tool": [{            # one entry per profiled process
        "metadata": {"pid", "init_time", "fini_time", "config": {...}},
        "agents": [{"id": {"handle"}, "type": 2 (GPU), "name": "gfx950",
                    "product_name": "AMD Instinct MI350X", "cu_count",
                    "wave_front_size", "gfx_target_version": 90500,
                    "mem_banks": [{"heap_type", "size_in_bytes"}], ...}],
        "counters": [{"id": {"handle"}, "name": "SQ_WAVES", ...}],
        "strings": {"buffer_records": [{"kind": "HIP_RUNTIME_API",
                    "operations": [...]}, ...]},     # indexed by record kind
        "kernel_symbols": [{"kernel_id", "kernel_name" (mangled, ".kd"),
                    "formatted_kernel_name", "demangled_kernel_name",
                    "arch_vgpr_count", "accum_vgpr_count", "sgpr_count", ...}],
        "callback_records": {"counter_collection": [{"dispatch_data": {
                    "start_timestamp", "end_timestamp", "dispatch_info"},
                    "records": [{"counter_id": {"handle"}, "value"}]}]},
        "buffer_records": {"kernel_dispatch": [{"start_timestamp",
                    "end_timestamp", "dispatch_info": {"agent_id",
                    "kernel_id", "dispatch_id", "private_segment_size",
                    "group_segment_size", "workgroup_size": {x,y,z},
                    "grid_size": {x,y,z}}}], "memory_copy": [...],
                    "hip_api": [...], ...}}]}

msgspec decodes only these keys, into typed structs (a wrong type is one
InputError naming the record, e.g. ``rocprofiler-sdk-tool[0].buffer_records
.kernel_dispatch[12].start_timestamp``). Dispatches join their kernel
symbol by ``kernel_id`` (the name: ``formatted_kernel_name``, else the
demangled or mangled one without ``.kd``) and their counters by
``dispatch_id``; a counter's records (one per hardware instance) are summed.
With counters but no kernel trace, a dispatch's time is its counting
record's timestamps. Times are ``end - start`` in ns, exact.

Copies (``memory_copy``) become ``[HIP memcpy HtoD]``-style kernels of
family memcpy, their ``bytes`` on PCIe (host-device) or twice on DRAM
(device-device). Program time: HIP runtime API totals per function,
GPU busy time and the span of API calls and GPU activity.

The device is the GPU agent with the most kernel time: its product name,
and in device_properties its CU count, wavefront size, GFX version
(gfx950 -> 9.5), memory (its frame-buffer banks) and gfx target.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import msgspec
import numpy as np

from ..options import DEFAULT, ReadOptions
from ...core.errors import InputError
from ...core.gcpause import paused
from ...core.model import Kernel, KernelSet
from ...core.text_files import read_text
from ..recipes import missing_counter_advice
from ...core.import_result import DeviceClues, ImportResult, ProgramTime
from ..base import Reader, register
from ..copies import ROCPROFILER_KINDS, copy_bytes, copy_name
from ..sums import sum_by_name
from .rocprof_checks import AGENT_FIGURES, agent_figures, int64_column, int64_table, repeated_records, symbols_by_id
from .rocprof_common import (
    CONFIG,
    AmdDevice,
    Dispatches,
    advice,
    gfx_of_version,
    identity,
    kernel_name,
    kernels_of,
)
from .rocprof_table import Columns
from ..timeline import busy_time

TOOL_KEY = b'"rocprofiler-sdk-tool"'
Count = Annotated[int, msgspec.Meta(ge=0)]


class _Handle(msgspec.Struct, frozen=True, gc=False):
    handle: int = 0


class _Dim(msgspec.Struct, frozen=True, gc=False):
    x: Count = 1
    y: Count = 1
    z: Count = 1


class _Info(msgspec.Struct, gc=False):
    kernel_id: Count
    agent_id: _Handle = _Handle()
    dispatch_id: Count = 0
    private_segment_size: Count = 0
    group_segment_size: Count = 0
    workgroup_size: _Dim = _Dim()
    grid_size: _Dim = _Dim()


class _Dispatch(msgspec.Struct, gc=False):
    start_timestamp: Count
    end_timestamp: Count
    dispatch_info: _Info


class _DispatchData(msgspec.Struct, gc=False):
    dispatch_info: _Info
    start_timestamp: Count = 0
    end_timestamp: Count = 0


class _Value(msgspec.Struct, gc=False):
    counter_id: _Handle
    value: Annotated[float, msgspec.Meta(ge=0)]


class _Counting(msgspec.Struct, gc=False):
    dispatch_data: _DispatchData
    records: list[_Value] = []


class _Copy(msgspec.Struct, gc=False):
    operation: Count
    start_timestamp: Count
    end_timestamp: Count
    bytes: Count | None = None


class _Api(msgspec.Struct, gc=False):
    kind: Count
    operation: Count
    start_timestamp: Count
    end_timestamp: Count


class _Symbol(msgspec.Struct, gc=False):
    kernel_id: Count
    kernel_name: str = ""
    formatted_kernel_name: str = ""
    demangled_kernel_name: str = ""
    arch_vgpr_count: int = -1
    accum_vgpr_count: int = -1
    sgpr_count: int = -1


class _Bank(msgspec.Struct, gc=False):
    heap_type: int = -1
    size_in_bytes: Count = 0


class _Agent(msgspec.Struct, gc=False):
    id: _Handle
    type: int = 0
    name: str = ""
    product_name: str = ""
    cu_count: int = 0
    wave_front_size: int = 0
    gfx_target_version: int = 0
    num_xcc: int = 0
    max_engine_clk_fcompute: int = 0
    mem_banks: list[_Bank] = []


class _CounterInfo(msgspec.Struct, gc=False):
    id: _Handle
    name: str


class _Kinds(msgspec.Struct, gc=False):
    kind: str = ""
    operations: list[str] = []


class _Strings(msgspec.Struct, gc=False):
    buffer_records: list[_Kinds] = []


class _Buffers(msgspec.Struct, gc=False):
    kernel_dispatch: list[_Dispatch] = []
    memory_copy: list[_Copy] = []
    hip_api: list[_Api] = []


class _Callbacks(msgspec.Struct, gc=False):
    counter_collection: list[_Counting] = []


class _Process(msgspec.Struct, gc=False):
    agents: list[_Agent] = []
    counters: list[_CounterInfo] = []
    strings: _Strings = msgspec.field(default_factory=_Strings)
    kernel_symbols: list[_Symbol] = []
    buffer_records: _Buffers = msgspec.field(default_factory=_Buffers)
    callback_records: _Callbacks = msgspec.field(default_factory=_Callbacks)


class _File(msgspec.Struct, gc=False):
    tool: list[_Process] = msgspec.field(name="rocprofiler-sdk-tool")


_DECODER = msgspec.json.Decoder(_File)
_HEAP_FRAME_BUFFER = (1, 2)          # HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC / _PRIVATE


def sniff(path: Path, head: bytes) -> bool:
    return head.lstrip().startswith(b"{") and TOOL_KEY in head[:4096]


def read(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    path = Path(path)
    text = read_text(path, options.max_text_bytes)
    with paused():
        data = _decode(text, path)
    parts = [_process(p, i, path) for i, p in enumerate(data.tool)]
    d = _concat(path, [p.columns for p in parts])
    if not len(d) and not any(p.copies for p in parts):
        raise InputError(path, None, "no kernel dispatches, counter records or copies: was rocprofv3 "
                         "run with --kernel-trace (or --pmc, --memory-copy-trace)?")
    kernels, notes = kernels_of(d)
    notes = [n for p in parts for n in p.columns.get("notes", ())] + notes
    kernels += [k for p in parts for k in p.copies]
    device, more = _device(data.tool, d)
    more += list(device.doubts)
    subject = path.name
    warnings = advice(notes + more, subject)
    warnings += missing_counter_advice(kernels, tool="rocprofv3", subject=subject, gfx=device.gfx)
    return ImportResult(str(path), "rocprofv3-json", tuple(kernels), program=_program(parts),
                        warnings=tuple(warnings),
                        device=DeviceClues(name=device.name, kind="gpu", properties=device.properties))


def _decode(text: str, path: Path) -> _File:
    try:
        return _DECODER.decode(text)
    except msgspec.ValidationError as exc:
        raise InputError(path, None, _validation(exc)) from None
    except RecursionError:      # values nested thousands deep (in a key the reader skips, too)
        raise InputError(path, None, "JSON nested too deeply to read: not rocprofv3 JSON output") from None
    except msgspec.DecodeError as exc:
        at = re.search(r"byte (\d+)", str(exc))
        line = text.count("\n", 0, int(at.group(1))) + 1 if at else None
        raise InputError(path, line, f"not valid JSON: {exc}") from None


def _validation(exc: msgspec.ValidationError) -> str:
    text = str(exc)
    m = re.search(r" - at `\$\.?([^`]*)`", text)
    if m is None:
        return f"not a rocprofv3 JSON file: {text}"
    return f"record {m.group(1)}: {text[:m.start()]} (not rocprofv3 JSON output)"


# --------------------------------------------------------------------------
# one process
# --------------------------------------------------------------------------

@dataclass
class _Part:
    """What one process (entry of rocprofiler-sdk-tool) holds."""

    columns: dict
    copies: list[Kernel]
    copy_intervals: list[tuple[int, int]]
    api: dict[str, float]
    api_intervals: list[tuple[int, int]]


def _process(p: _Process, e: int, path: Path) -> _Part:
    where = f"rocprofiler-sdk-tool[{e}]"
    symbols, notes = symbols_by_id(p.kernel_symbols, _symbol_name, f"{where}.kernel_symbols")
    counters, more = _counters(p, e, path)
    if p.buffer_records.kernel_dispatch:
        rows = [(r.start_timestamp, r.end_timestamp, r.dispatch_info) for r in p.buffer_records.kernel_dispatch]
        label = f"rocprofiler-sdk-tool[{e}].buffer_records.kernel_dispatch"
    else:   # counters without a kernel trace: the counting records are the dispatches
        rows = [(c.dispatch_data.start_timestamp, c.dispatch_data.end_timestamp, c.dispatch_data.dispatch_info)
                for c in p.callback_records.counter_collection]
        label = f"rocprofiler-sdk-tool[{e}].callback_records.counter_collection"
    waves = {a.id.handle: a.wave_front_size for a in p.agents if a.wave_front_size > 0}
    columns = _columns(rows, symbols, waves, counters, label, path, timed=bool(p.buffer_records.kernel_dispatch))
    columns["notes"] = notes + more
    copies, copy_intervals = _copies(p, e, path)
    api, api_intervals = _api(p)
    return _Part(columns, copies, copy_intervals, api, api_intervals)


def _counters(p: _Process, e: int, path: Path) -> tuple[dict[int, dict[str, float]], list[str]]:
    """dispatch_id -> counter name -> value (instances summed), and notes."""
    names = {c.id.handle: c.name for c in p.counters}
    out: dict[int, dict[str, float]] = {}
    records, notes = repeated_records(p.callback_records.counter_collection)
    for i, rec in enumerate(records):
        values = out.setdefault(rec.dispatch_data.dispatch_info.dispatch_id, {})
        for v in rec.records:
            name = names.get(v.counter_id.handle)
            if name is None:
                raise InputError(path, None, f"record rocprofiler-sdk-tool[{e}].callback_records."
                                 f"counter_collection[{i}]: counter id {v.counter_id.handle} is not in "
                                 "the file's counters list")
            values[name] = values.get(name, 0.0) + v.value
    return out, notes


def _columns(rows, symbols, waves, counters, label: str, path: Path, timed: bool) -> dict:
    n = len(rows)
    names: dict[str, int] = {}
    code_of = {k: names.setdefault(_symbol_name(s), len(names)) for k, s in symbols.items()}
    for i, (t0, t1, info) in enumerate(rows):
        if info.kernel_id not in code_of:
            raise InputError(path, None, f"record {label}[{i}]: kernel_id {info.kernel_id} is not in "
                             "kernel_symbols")
        if t1 < t0:
            raise InputError(path, None, f"record {label}[{i}]: end_timestamp {t1} is before "
                             f"start_timestamp {t0}")
    start = int64_column([r[0] for r in rows], "start_timestamp", label, path)
    end = int64_column([r[1] for r in rows], "end_timestamp", label, path)
    # a counting record without timestamps has zeros: no time, not a time of 0
    has_time = np.full(n, True) if timed else start > 0
    time_ns = np.where(has_time, (end - start).astype(np.float64), np.nan)
    used = [code_of[r[2].kernel_id] for r in rows]
    return {"names": list(names), "code": np.array(used, dtype=np.int64).reshape(n), "time_ns": time_ns,
            "config": _config(rows, symbols, waves, label, path), "counters": _counter_columns(rows, counters),
            "label": label, "start": np.where(has_time, start, -1), "end": np.where(has_time, end, -1)}


def _config(rows, symbols, waves: dict[int, int], label: str, path: Path) -> dict[str, np.ndarray]:
    """The launch figures of :data:`CONFIG`, the wave size from the agent."""
    def figures(info: _Info) -> tuple:
        g, w, sym = info.grid_size, info.workgroup_size, symbols[info.kernel_id]
        return (g.x, g.y, g.z, w.x, w.y, w.z, info.group_segment_size, info.private_segment_size,
                sym.arch_vgpr_count, sym.accum_vgpr_count, sym.sgpr_count,
                waves.get(info.agent_id.handle, -1), info.agent_id.handle)
    table = int64_table([figures(r[2]) for r in rows], _CONFIG_FIELDS, label, path)
    return {k: table[:, j] for j, k in enumerate(CONFIG)}


_CONFIG_FIELDS = ("grid_size.x", "grid_size.y", "grid_size.z", "workgroup_size.x", "workgroup_size.y",
                  "workgroup_size.z", "group_segment_size", "private_segment_size", "arch_vgpr_count",
                  "accum_vgpr_count", "sgpr_count", "wave_front_size", "agent_id.handle")


def _counter_columns(rows, counters: dict[int, dict[str, float]]) -> dict[str, np.ndarray]:
    values: dict[str, np.ndarray] = {}
    if not counters:
        return values
    for i, (_, _, info) in enumerate(rows):
        for name, v in counters.get(info.dispatch_id, {}).items():
            values.setdefault(name, np.full(len(rows), np.nan))[i] = v
    return values


def _symbol_name(sym: _Symbol) -> str:
    for raw in (sym.formatted_kernel_name, sym.demangled_kernel_name, sym.kernel_name):
        if raw.strip():
            return kernel_name(raw)
    return f"kernel_{sym.kernel_id}"


def _copies(p: _Process, e: int, path: Path) -> tuple[list[Kernel], list[tuple[int, int]]]:
    """One kernel per copy direction, and the copies' intervals."""
    records = p.buffer_records.memory_copy
    for i, c in enumerate(records):
        if c.end_timestamp < c.start_timestamp:
            raise InputError(path, None, f"record rocprofiler-sdk-tool[{e}].buffer_records.memory_copy[{i}]: "
                             f"end_timestamp {c.end_timestamp} is before start_timestamp {c.start_timestamp}")
    directions = [ROCPROFILER_KINDS.get(c.operation, "unknown") for c in records]
    # older SDKs do not record the size: a direction's bytes are known when every copy has one
    moved = [copy_bytes(d, math.nan if c.bytes is None else float(c.bytes)) for d, c in zip(directions, records)]
    levels = sorted({lv for m in moved for lv in m})
    rows = sum_by_name(KernelSet([copy_name(d, "HIP") for d in directions],
                                 [float(c.end_timestamp - c.start_timestamp) for c in records],
                                 families=["memcpy"] * len(records),
                                 bytes={lv: [m.get(lv, math.nan) for m in moved] for lv in levels}))
    kernels = rows.with_columns(time_s=rows.time_s * 1e-9).kernels()     # nanoseconds summed exactly
    return kernels, [(c.start_timestamp, c.end_timestamp) for c in records]


def _api(p: _Process) -> tuple[dict[str, float], list[tuple[int, int]]]:
    kinds = p.strings.buffer_records
    out: dict[str, float] = {}
    intervals = []
    for r in p.buffer_records.hip_api:
        kind = kinds[r.kind] if r.kind < len(kinds) else None
        if kind is None or not kind.kind.startswith("HIP_RUNTIME_API") or r.end_timestamp < r.start_timestamp:
            continue
        name = kind.operations[r.operation] if r.operation < len(kind.operations) else f"hip_api_{r.operation}"
        out[name] = out.get(name, 0.0) + (r.end_timestamp - r.start_timestamp) * 1e-9
        intervals.append((r.start_timestamp, r.end_timestamp))
    return out, intervals


# --------------------------------------------------------------------------
# the file
# --------------------------------------------------------------------------

def _concat(path: Path, parts: list[dict]) -> Dispatches:
    """All processes' dispatches as one set of columns (names merged)."""
    names: dict[str, int] = {}
    codes, offsets = [], [0]
    for part in parts:
        remap = np.array([names.setdefault(n, len(names)) for n in part["names"]] or [0], dtype=np.int64)
        codes.append(remap[part["code"]])
        offsets.append(offsets[-1] + len(part["code"]))
    labels = [part["label"] for part in parts]

    def where(i: int) -> tuple[None, str]:
        k = int(np.searchsorted(offsets, i, side="right")) - 1
        return None, f"record {labels[k]}[{i - offsets[k]}]: "
    counters = {c: np.concatenate([part["counters"].get(c, np.full(len(part["code"]), np.nan)) for part in parts])
                for c in sorted({c for part in parts for c in part["counters"]})}
    return Dispatches(path, list(names), _joined(parts, "code", codes), _joined(parts, "time_ns"),
                      {k: _joined(parts, ("config", k)) for k in CONFIG}, where,
                      Columns(counters) if counters else None)


def _joined(parts: list[dict], key, given=None) -> np.ndarray:
    if given is not None:
        arrays = given
    elif isinstance(key, tuple):
        arrays = [part[key[0]][key[1]] for part in parts]
    else:
        arrays = [part[key] for part in parts]
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)


def _program(parts: list[_Part]) -> ProgramTime | None:
    """HIP API seconds per function; GPU busy time over dispatches and
    copies; the span of all of them and the API calls."""
    timed = [(p.columns["start"], p.columns["end"]) for p in parts]
    starts = np.concatenate([s[s >= 0] for s, _ in timed] + [np.array([c[0] for c in p.copy_intervals],
                                                                        dtype=np.int64) for p in parts])
    ends = np.concatenate([e[s >= 0] for s, e in timed] + [np.array([c[1] for c in p.copy_intervals],
                                                                      dtype=np.int64) for p in parts])
    if not starts.size:
        return None
    api: dict[str, float] = {}
    for p in parts:
        for name, seconds in p.api.items():
            api[name] = api.get(name, 0.0) + seconds
    calls = [iv for p in parts for iv in p.api_intervals]
    first = min([int(starts.min())] + [s for s, _ in calls])
    last = max([int(ends.max())] + [e for _, e in calls])
    return ProgramTime(api_s=api, gpu_busy_s=busy_time(starts, ends) * 1e-9, span_s=(last - first) * 1e-9)


def _device(processes: list[_Process], d: Dispatches) -> tuple[AmdDevice, list[str]]:
    """The GPU agent with the most kernel time, and a note when several ran kernels."""
    agents = {a.id.handle: a for p in processes for a in p.agents if a.type == 2}
    handles, inverse = np.unique(d.config["agent"], return_inverse=True)
    time = np.bincount(inverse.reshape(-1), weights=np.nan_to_num(d.time_ns), minlength=len(handles))
    used = [int(h) for h in handles[np.argsort(-time, kind="stable")] if int(h) in agents]
    notes = ["device_name is the GPU with the most kernel time"] if len(used) > 1 else []
    agent = agents.get(used[0]) if used else (next(iter(agents.values())) if len(agents) == 1 else None)
    return _agent_device(agent), notes


def _agent_device(a: _Agent | None) -> AmdDevice:
    if a is None:
        return AmdDevice()
    gfx = gfx_of_version(a.gfx_target_version) or (a.name if a.name.startswith("gfx") else None)
    memory = sum(b.size_in_bytes for b in a.mem_banks if b.heap_type in _HEAP_FRAME_BUFFER)
    f, doubts = agent_figures({k: getattr(a, k) for k in AGENT_FIGURES}, f"agent {a.id.handle}",
                              zero_is_absent=True)
    props = identity(sms=f["cu_count"], warp_size=f["wave_front_size"], gfx=gfx, memory_bytes=memory)
    return AmdDevice(name=a.product_name.strip() or a.name or None, properties=props, gfx=gfx,
                     xcds=f["num_xcc"], sclk_hz=(f["max_engine_clk_fcompute"] or 0) * 1e6 or None,
                     doubts=tuple(doubts))


register(Reader("rocprofv3-json", sniff, read))
