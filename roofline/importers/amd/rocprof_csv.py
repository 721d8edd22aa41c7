"""CSV files of the AMD profilers: one reader per table shape.

* **One dispatch per row**: rocprof v1 ``results.csv`` (``Index,KernelName,
  gpu-id,...,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,sig,obj,
  <counters>,DispatchNs,BeginNs,EndNs,CompleteNs``; ROCm/rocprofiler
  ``bin/tblextr.py``), rocprof v2's file plugin (``Dispatch_ID,GPU_ID,Queue_ID,
  PID,TID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,Scratch_Per_Workitem,
  Arch_VGPR,Accum_VGPR,SGPR,Wave_Size,Kernel_Name,Start_Timestamp,End_Timestamp,
  Correlation_ID,<counters>``; ROCm/rocprofiler ``plugin/file/file.cpp``),
  rocprof-compute's ``pmc_perf.csv`` (those passes merged, per-instance
  counters as ``X[i]`` and their ``X_sum``) and rocprofv3's
  ``*_kernel_trace.csv`` (``Kind,Agent_Id,Queue_Id,...,Kernel_Name,
  Start_Timestamp,End_Timestamp,...,Grid_Size_X/Y/Z``; ROCm/rocprofiler-sdk
  ``source/lib/output/generateCSV.cpp``). Columns: :mod:`.rocprof_rows`;
  counters: :mod:`.amd_counters`.
* **One counter per row**: rocprofv3's ``*_counter_collection.csv``
  (``...,Dispatch_Id,...,Kernel_Name,...,Counter_Name,Counter_Value[,
  Start_Timestamp,End_Timestamp]``), pivoted to a column per counter. Without
  timestamps, times come from the ``*_kernel_trace.csv`` beside it (by
  Dispatch_Id), else stay unknown.
* **One kernel per row**: ``*_kernel_stats.csv`` (rocprofv3, and rocprof
  v1's ``results.stats.csv``): ``Name,Calls,TotalDurationNs,...``.

The GPU: rocprof-compute's ``sysinfo.csv`` beside a ``pmc_perf.csv``
(``run_pmc_perf.csv`` -> ``run_sysinfo.csv``), rocprofv3's
``*_agent_info.csv`` beside its tables; rocprof v1/v2 name none. Files that
describe rather than profile (``sysinfo.csv``, ``agent_info.csv``,
rocprof-compute's ``roofline.csv``) are recognised and refused with a
message saying what to read instead.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..options import DEFAULT, ReadOptions
from ...core.errors import Advice, InputError
from ...core.families import family_of
from ...core.model import Kernel
from ..recipes import missing_counter_advice
from ...core.import_result import DeviceClues, ImportResult
from ..base import Reader, register
from .rocprof_common import (
    AmdDevice,
    advice,
    kernel_name,
    kernels_of,
    program_time,
    row_groups,
)
from .rocprof_rows import (
    agent_codes,
    agent_info_device,
    beside,
    dispatches,
    find,
    grbm_times,
    sysinfo_device,
    times,
)
from .rocprof_checks import first_rows
from .rocprof_table import Columns, RowsOf, Table, header_cells

PMC_SUFFIXES = ("pmc_perf.csv",)
V3_SUFFIXES = ("kernel_trace.csv", "counter_collection.csv", "kernel_stats.csv")
GRBM_SOURCE = "GRBM_GUI_ACTIVE / num_xcd / max_sclk"
NO_TRACE = ("the counter table has no timestamps and no *_kernel_trace.csv is beside it: kernel times are "
            "unknown (collect with --kernel-trace too)")


def _has(cells: list[str], *names: str) -> bool:
    folded = {c.lower() for c in cells}
    return all(n.lower() in folded for n in names)


# --------------------------------------------------------------------------
# one dispatch per row
# --------------------------------------------------------------------------

def sniff_dispatches(path: Path, head: bytes) -> bool:
    cells = header_cells(head)
    if _has(cells, "Counter_Name") or not (_has(cells, "Kernel_Name") or _has(cells, "KernelName")):
        return False
    return any(_has(cells, c) for c in ("Dispatch_ID", "Index"))


def read_dispatches(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    path = Path(path)
    table = Table.read(path, options.max_text_bytes)
    device, tool = _device_beside(path, table)
    time, coarse, note = times(table)
    source = ""
    if coarse.any() and np.isnan(time[coarse]).any():
        time, more, source = _coarse_times(table, device, time, coarse)
        note += "; " + more
    notes = [note] if note else []
    rows = None
    if tool == "rocprofv3" and table.column("Dispatch_Id"):     # a dispatch is one row
        rows, more = first_rows(_dispatch_keys(table), "the dispatch (Process_Id, Dispatch_Id)", path.name)
        notes += more
    d = dispatches(table, rows=rows, counters=table if rows is None else RowsOf(table, rows), time_ns=time,
                   notes=notes)
    d.time_source = source if coarse.all() else ""      # mixed files: the warning says which
    _default_wave(d, device)
    start_col, end_col = find(table, "start"), find(table, "end")
    program = None
    if start_col and end_col and not coarse.any():
        program = program_time(table.timestamps(start_col)[0], table.timestamps(end_col)[0])
    fmt = {"rocprofv3": "rocprofv3-csv"}.get(tool, tool)
    return _result(path, fmt, d, device, program, tool)


def _device_beside(path: Path, table: Table) -> tuple[AmdDevice, str]:
    """(device, tool) of a dispatch table: rocprof-compute's sysinfo.csv
    beside a pmc_perf.csv, rocprofv3's agent_info.csv beside a kernel trace."""
    if table.column("Kind"):
        return _agents_beside(path, set(agent_codes(table).tolist())), "rocprofv3"
    sysinfo = beside(path, PMC_SUFFIXES, "sysinfo.csv")
    if sysinfo is not None:
        return sysinfo_device(sysinfo), "rocprof-compute"
    return AmdDevice(), "rocprof-compute" if path.name.endswith(PMC_SUFFIXES) else "rocprof"


def _coarse_times(table: Table, device: AmdDevice, time: np.ndarray, coarse: np.ndarray):
    """Times for the dispatches whose timestamps hold none: GPU-busy cycles
    when the file has them and sysinfo gives the clock, else unknown."""
    unknown = coarse & np.isnan(time)
    grbm = grbm_times(table, device)
    if grbm is not None:
        filled = np.where(unknown, grbm, time)
        return filled, (f"their time is GRBM_GUI_ACTIVE / {device.xcds or 1} XCDs / {device.sclk_hz / 1e6:.0f} "
                        "MHz (rocprof-compute's Kernel Time (Cycles) at max_sclk): GPU-busy cycles of "
                        "the counter pass, an estimate"), GRBM_SOURCE
    return time, (f"their time is unknown ({_no_time_reason(table, device)}): the roofline predicts their "
                  "bound; save the timestamps as integers (not through a spreadsheet) to measure it"), ""


def _no_time_reason(table: Table, device: AmdDevice) -> str:
    """Why GPU-busy cycles give no time: no counter, no sysinfo.csv, or
    the sysinfo.csv's field that cannot serve (named, not blamed on the file)."""
    if table.get("GRBM_GUI_ACTIVE") is None:
        return "the file has no GRBM_GUI_ACTIVE counter"
    if device.source is None:
        return "no sysinfo.csv beside it gives the clock and XCD count"
    problems = "; ".join(device.doubts) or "it gives no max_sclk"
    return f"{device.source} beside it cannot turn GPU-busy cycles into time: {problems}"


def _result(path: Path, fmt: str, d, device: AmdDevice, program, tool: str) -> ImportResult:
    kernels, notes = kernels_of(d)
    said = " ".join(notes)          # a sysinfo field the time note already names is not said again
    notes += [d_ if d_.startswith(device.source or "") else f"{device.source}: {d_}" for d_ in device.doubts
              if d_ not in said]
    subject = path.name
    warnings = advice(notes, subject) + missing_counter_advice(kernels, tool=tool, subject=subject, gfx=device.gfx)
    if device.name is None:
        warnings.append(_no_device(path, tool))
    return ImportResult(str(path), fmt, tuple(kernels), program=program, warnings=tuple(warnings),
                        device=DeviceClues(name=device.name, kind="gpu", properties=device.properties))


def _no_device(path: Path, tool: str) -> Advice:
    keep = {"rocprof-compute": "keep rocprof-compute's sysinfo.csv beside it (as sysinfo.csv, or "
                               "<prefix>sysinfo.csv for <prefix>pmc_perf.csv), or read the workload folder",
            "rocprofv3": "keep rocprofv3's *_agent_info.csv beside it"}.get(tool, "rocprof v1/v2 do not record it")
    return Advice("the file does not name its GPU", f"pass --device ({keep})", path.name)


# --------------------------------------------------------------------------
# rocprofv3: one counter per row, one kernel per row
# --------------------------------------------------------------------------

def sniff_counters(path: Path, head: bytes) -> bool:
    return _has(header_cells(head), "Counter_Name", "Counter_Value", "Kernel_Name")


def read_counters(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    path = Path(path)
    table = Table.read(path, options.max_text_bytes)
    keys = _dispatch_keys(table)
    inverse, first = row_groups(keys)
    name_codes, _ = table.codes(table.column("Counter_Name"))
    value_codes, _ = table.codes(table.column("Counter_Value"))
    kept, repeats = first_rows(keys + [name_codes, value_codes], "the dispatch, counter and value", path.name)
    counters = _pivot(table, inverse, len(first), kept)
    time, notes = _counting_times(path, table, first)
    notes += repeats
    device = _agents_beside(path, set(agent_codes(table).tolist()))
    d = dispatches(table, rows=first, counters=Columns(counters), time_ns=time, notes=notes)
    _default_wave(d, device)
    return _result(path, "rocprofv3-csv", d, device, None, "rocprofv3")


def _default_wave(d, device: AmdDevice) -> None:
    """The agent's wavefront size for dispatches whose row gives none."""
    size = (device.properties or {}).get("warp_size")
    if size:
        d.config["wave"] = np.where(d.config["wave"] > 0, d.config["wave"], size)


def _dispatch_keys(table: Table) -> list[np.ndarray]:
    """A dispatch is its Dispatch_Id within its process."""
    cols = [table.column("Process_Id"), table.column("Dispatch_Id")]
    if cols[1] is None:
        raise InputError(table.path, table.header_line, "no Dispatch_Id column")
    return [table.integers(c, default=0) for c in cols]


def _pivot(table: Table, inverse: np.ndarray, n: int, kept: np.ndarray) -> dict[str, np.ndarray]:
    """One column per counter name, the values of one dispatch summed over
    the ``kept`` rows (NaN where a dispatch has no value of that counter)."""
    values = table.get("Counter_Value")
    codes, names = table.codes(table.column("Counter_Name"))
    use = np.zeros(len(codes), dtype=bool)
    use[kept] = True
    out: dict[str, np.ndarray] = {}
    for j, name in enumerate(names):
        rows = np.flatnonzero((codes == j) & use)
        seen = np.bincount(inverse[rows], minlength=n)
        total = np.bincount(inverse[rows], weights=values[rows], minlength=n)
        out[name.strip()] = np.where(seen > 0, total, np.nan)
    return out


def _counting_times(path: Path, table: Table, first: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Per-row times from the file's own timestamps, else the kernel trace
    beside it by Dispatch_Id, else unknown (with a note)."""
    if find(table, "start") and find(table, "end"):
        time, _, note = times(table)
        return time, [note] if note else []
    trace = beside(path, ("counter_collection.csv",), "kernel_trace.csv")
    n = len(table)
    if trace is None:
        return np.full(n, np.nan), [NO_TRACE]
    other = Table.read(trace)
    their_time, _, note = times(other)
    by_id = dict(zip(other.integers(other.column("Dispatch_Id")).tolist(), their_time.tolist()))
    ids = table.integers(table.column("Dispatch_Id")).tolist()
    time = np.array([by_id.get(i, np.nan) for i in ids])
    missing = int(np.isnan(time[first]).sum())
    notes = [f"times from {trace.name}"] + ([note] if note else [])
    if missing:
        notes.append(f"{missing} counted dispatches are not in {trace.name}: their time is unknown")
    return time, notes


def _agents_beside(path: Path, agents: set[int]) -> AmdDevice:
    """The GPU of rocprofv3's *_agent_info.csv beside ``path``, if there."""
    info = beside(path, V3_SUFFIXES, "agent_info.csv")
    return AmdDevice() if info is None else agent_info_device(info, agents)


def sniff_stats(path: Path, head: bytes) -> bool:
    cells = header_cells(head)
    return len(cells) >= 3 and [c.lower() for c in cells[:3]] == ["name", "calls", "totaldurationns"]


def read_stats(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    path = Path(path)
    if any(part in path.name for part in ("api_stats", "memory_copy_stats", "memory_allocation_stats",
                                          "scratch_memory_stats", "marker", "domain_stats")):
        raise InputError(path, None, "API or copy statistics, not kernels: read the *_kernel_stats.csv "
                         "(or *_kernel_trace.csv) of the same run")
    table = Table.read(path, options.max_text_bytes)
    calls = table.integers(table.column("Calls"), default=-1)
    total = table.get(table.column("TotalDurationNs"))
    names = table.text(table.column("Name"))
    for i in np.flatnonzero((calls < 0) | np.isnan(total)).tolist():
        raise InputError(path, table.line_of(i), "expected Calls and TotalDurationNs, found an empty cell")
    kernels = [Kernel(name=kernel_name(n), time_s=float(t) * 1e-9, count=int(c), family=family_of(kernel_name(n)))
               for n, c, t in zip(names, calls.tolist(), total.tolist())]
    device = _agents_beside(path, set())
    warnings = missing_counter_advice(kernels, tool="rocprofv3", subject=path.name, gfx=device.gfx)
    warnings.append(Advice("kernel statistics: no launch configuration", "read the *_kernel_trace.csv of the "
                           "same run for grids and workgroups", path.name))
    return ImportResult(str(path), "rocprofv3-csv", tuple(kernels), warnings=tuple(warnings),
                        device=DeviceClues(name=device.name, kind="gpu", properties=device.properties))


# --------------------------------------------------------------------------
# files that describe the machine: recognised, refused with a pointer
# --------------------------------------------------------------------------

_DESCRIPTIONS = (
    (("workload_name", "gpu_model", "gpu_arch"),
     ("rocprof-compute's sysinfo.csv describes the system, not kernels: read the pmc_perf.csv beside it "
     "(or the workload folder)")),
    (("Node_Id", "Agent_Type", "Product_Name"),
     ("rocprofv3's agent_info.csv describes the GPUs, not kernels: read the *_kernel_trace.csv or "
     "*_counter_collection.csv beside it")),
    (("device", "HBMBw", "L2Bw"),
     ("rocprof-compute's roofline.csv is a device profile (measured roofs), not kernels: use it with "
     "--device PATH (library: roofline.devices.rocprof_roofline.read_rocprof_roofline)")),
)


def _description(head: bytes) -> str | None:
    cells = header_cells(head)
    return next((why for names, why in _DESCRIPTIONS if _has(cells, *names)), None)


def sniff_description(path: Path, head: bytes) -> bool:
    return _description(head) is not None


def read_description(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    from ...core.text_files import read_head
    raise InputError(path, None, _description(read_head(path)) or "not a kernel profile")


register(Reader("rocprof-csv", sniff_dispatches, read_dispatches))
register(Reader("rocprofv3-counter-csv", sniff_counters, read_counters))
register(Reader("rocprofv3-stats-csv", sniff_stats, read_stats))
register(Reader("rocprof-description", sniff_description, read_description))
