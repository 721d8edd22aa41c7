"""Dispatch rows of the AMD CSV files as :class:`~.rocprof_common.Dispatches`,
and the files found beside them that name the GPU.

Column names differ by tool; each figure is read from the first of its
aliases the header has (ignoring case):

=========  ==========================================================================
figure     rocprof v2 / rocprof-compute, rocprof v1, rocprofv3
=========  ==========================================================================
name       Kernel_Name, KernelName
start/end  Start_Timestamp/End_Timestamp, BeginNs/EndNs (ns)
duration   DurationNs (when a file has it, checked against end - start)
grid       Grid_Size, grd (work-items); Grid_Size_X/_Y/_Z
workgroup  Workgroup_Size, wgr; Workgroup_Size_X/_Y/_Z
LDS        LDS_Per_Workgroup, lds, LDS_Block_Size, Group_Segment_Size (bytes)
scratch    Scratch_Per_Workitem, scr, Scratch_Size, Private_Segment_Size
registers  Arch_VGPR (vgpr, VGPR_Count), Accum_VGPR (Accum_VGPR_Count), SGPR (SGPR_Count)
wave size  Wave_Size
agent      GPU_ID, gpu-id, Agent_Id (rocprofv3 writes "Agent 2" or "GPU 0" as well as 2)
=========  ==========================================================================

Time is ``end - start`` computed exactly (:meth:`.rocprof_table.Table.timestamps`).
A timestamp written with fewer digits than a duration needs (``8.1097E+14``
has a resolution of 10^10 ns, so the end - start of a microsecond kernel
is 0 +- 2 x 10^10) gives no duration: the dispatch's time comes from the
file's duration column, else (rocprof-compute, with sysinfo.csv) from
``GRBM_GUI_ACTIVE / num_xcd / max_sclk``, the GPU-busy cycles rocprof-compute
reports as "Kernel Time (Cycles)" (``$GRBM_GUI_ACTIVE_PER_XCD``,
ROCm/rocprofiler-compute ``src/utils/parser.py`` and
``src/rocprof_compute_soc/analysis_configs/gfx942/0700_wavefront-launch.yaml``),
else it stays unknown; a warning says which.
"""
from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import numpy as np

from ...core.errors import InputError
from ...devices.rocprof_roofline import product_name
from .rocprof_common import (
    CONFIG,
    AmdDevice,
    Dispatches,
    gfx_of_version,
    identity,
    kernel_name,
)
from .rocprof_checks import agent_figures
from .rocprof_table import Table

_ALIASES = {
    "name": ("Kernel_Name", "KernelName"),
    "start": ("Start_Timestamp", "BeginNs"), "end": ("End_Timestamp", "EndNs"),
    "duration": ("DurationNs",),
    "grid": ("Grid_Size", "grd"), "wg": ("Workgroup_Size", "wgr"),
    "lds": ("LDS_Per_Workgroup", "lds", "LDS_Block_Size", "Group_Segment_Size"),
    "scratch": ("Scratch_Per_Workitem", "scr", "Scratch_Size", "Private_Segment_Size"),
    "arch_vgpr": ("Arch_VGPR", "arch_vgpr", "vgpr", "VGPR_Count"),
    "accum_vgpr": ("Accum_VGPR", "accum_vgpr", "Accum_VGPR_Count"),
    "sgpr": ("SGPR", "sgpr", "SGPR_Count"), "wave": ("Wave_Size", "wave_size"),
    "agent": ("GPU_ID", "gpu-id", "Agent_Id"),
}
COARSE_SHARE = 0.01        # a timestamp's resolution may be at most 1 % of the duration


def find(table: Table, figure: str) -> str | None:
    return table.column(*_ALIASES[figure])


def dispatches(table: Table, rows: np.ndarray | None = None, counters=None,
               time_ns: np.ndarray | None = None, notes: list[str] | None = None) -> Dispatches:
    """The dispatches of ``table`` (all rows, or those of ``rows``), with
    their times (given, else :func:`times`)."""
    rows = np.arange(len(table)) if rows is None else rows
    name_col = find(table, "name")
    if name_col is None:
        raise InputError(table.path, table.header_line, "no Kernel_Name (or KernelName) column")
    codes, names = _names(table, name_col, rows)
    if time_ns is None:
        time_ns, _, note = times(table)
        notes = [note] if note else []
    config = {k: v[rows] for k, v in launch_columns(table).items()}
    return Dispatches(table.path, names, codes, time_ns[rows], config,
                      lambda i: (table.line_of(int(rows[i])), ""), counters, notes=list(notes or []))


def _names(table: Table, column: str, rows: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Codes of the kernel names of ``rows``, the code-object suffix
    dropped (two spellings of one kernel get one code)."""
    raw_codes, raw = table.codes(column)
    index: dict[str, int] = {}
    remap = np.array([index.setdefault(kernel_name(r), len(index)) for r in raw] or [0], dtype=np.int64)
    return remap[raw_codes[rows]], list(index)


def launch_columns(table: Table) -> dict[str, np.ndarray]:
    """The :data:`CONFIG` figures of every row (-1: not in the file). A
    one-number grid or workgroup (v1/v2) is its x, with y = z = 1."""
    out = {}
    for axis, figure in (("grid", "Grid_Size"), ("wg", "Workgroup_Size")):
        parts = [table.column(f"{figure}_{a}") for a in "XYZ"]
        if all(parts):
            for a, part in zip("xyz", parts):
                out[f"{axis}_{a}"] = table.integers(part)
        else:
            out[f"{axis}_x"] = table.integers(find(table, axis))
            out[f"{axis}_y"] = out[f"{axis}_z"] = np.ones(len(table), dtype=np.int64)
    for key in ("lds", "scratch", "arch_vgpr", "accum_vgpr", "sgpr", "wave"):
        out[key] = table.integers(find(table, key))
    out["agent"] = agent_codes(table)
    return {k: out[k] for k in CONFIG}


def agent_codes(table: Table) -> np.ndarray:
    """The agent column as integers: the number in "Agent 2" / "GPU 0"."""
    col = find(table, "agent")
    if col is None:
        return np.full(len(table), -1, dtype=np.int64)
    codes, texts = table.codes(col)
    numbers = []
    for j, cell in enumerate(texts):
        m = re.search(r"(\d+)\s*$", cell)
        if m is None and cell.strip():
            i = int(np.flatnonzero(codes == j)[0])
            raise InputError(table.path, table.line_of(i), f"column {col}: expected an agent number "
                             f"(2, 'Agent 2' or 'GPU 0'), found {cell[:40]!r}")
        numbers.append(int(m.group(1)) if m else -1)
    return np.array(numbers or [-1], dtype=np.int64)[codes]


# --------------------------------------------------------------------------
# time
# --------------------------------------------------------------------------

def times(table: Table) -> tuple[np.ndarray, np.ndarray, str]:
    """Each dispatch's duration in ns (NaN: unknown), which dispatches have
    timestamps too coarse for one, and a note saying so ("" if none)."""
    n = len(table)
    start_col, end_col, dur_col = find(table, "start"), find(table, "end"), find(table, "duration")
    time, coarse, note = np.full(n, np.nan), np.zeros(n, dtype=bool), ""
    if start_col and end_col:
        time, coarse, example = _from_timestamps(table, start_col, end_col)
        if coarse.any():
            note = (f"{int(coarse.sum())} of {n} dispatches have {start_col}/{end_col} written too coarsely "
                    f"for their duration ({example!r}: a resolution of {_resolution(example):.0e} ns)")
    if dur_col:
        time = _with_durations(table, dur_col, time)
        if coarse.any() and not np.isnan(time[coarse]).any():
            note += f"; their time comes from {dur_col}"
    return time, coarse, note


def _from_timestamps(table: Table, start_col: str, end_col: str):
    start, res_s = table.timestamps(start_col)
    end, res_e = table.timestamps(end_col)
    both = (start >= 0) & (end >= 0)
    spread = np.where((res_s > 1) | (res_e > 1), res_s + res_e, 0)
    backwards = both & (start - end > spread)
    if backwards.any():
        i = int(np.flatnonzero(backwards)[0])
        raise InputError(table.path, table.line_of(i), f"{end_col} {table.text(end_col)[i]} is before "
                         f"{start_col} {table.text(start_col)[i]}")
    duration = (end - start).astype(np.float64)
    coarse = both & (spread > COARSE_SHARE * np.maximum(duration, 0))
    time = np.where(both & ~coarse, duration, np.nan)
    example = table.text(start_col)[int(np.flatnonzero(coarse)[0])] if coarse.any() else ""
    return time, coarse, example.strip()


def _resolution(cell: str) -> float:
    """The value of the last digit written: 1e10 for '8.1097E+14'."""
    return 10.0 ** max(Decimal(cell).as_tuple().exponent, 0)


def _with_durations(table: Table, dur_col: str, time: np.ndarray) -> np.ndarray:
    """The duration column where the timestamps give none; where both give
    one they must agree (to the nanosecond, and 1 ppm of rounding)."""
    dur = table.get(dur_col)
    both = ~np.isnan(time) & ~np.isnan(dur)
    off = both & (np.abs(dur - time) > 1.0 + 1e-6 * time)
    if off.any():
        i = int(np.flatnonzero(off)[0])
        raise InputError(table.path, table.line_of(i), f"column {dur_col}: {table.text(dur_col)[i]} ns, but "
                         f"the timestamps give {time[i]:.0f} ns (a damaged or edited file)")
    return np.where(np.isnan(time), dur, time)


def grbm_times(table: Table, device: AmdDevice) -> np.ndarray | None:
    """GRBM_GUI_ACTIVE / num_xcd / max_sclk in ns, or None without them."""
    grbm = table.get("GRBM_GUI_ACTIVE")
    if grbm is None or not device.sclk_hz or device.xcds == 0:
        return None
    return grbm / (device.xcds or 1) / device.sclk_hz * 1e9


# --------------------------------------------------------------------------
# files beside, naming the GPU
# --------------------------------------------------------------------------

def beside(path: Path, suffixes: tuple[str, ...], wanted: str) -> Path | None:
    """The file ``wanted`` written with ``path``: ``run_pmc_perf.csv`` ->
    ``run_sysinfo.csv``, ``123_kernel_trace.csv`` -> ``123_agent_info.csv``."""
    name = path.name
    for suffix in suffixes:
        if name.endswith(suffix):
            candidate = path.with_name(name[:-len(suffix)] + wanted)
            return candidate if candidate.is_file() else None
    return None


def sysinfo_device(path: Path) -> AmdDevice:
    """rocprof-compute's sysinfo.csv (one row): gpu_model, gpu_arch,
    cu_per_gpu, wave_size, num_xcd, max_sclk (MHz)."""
    table = Table.read_small(path, "rocprof-compute's sysinfo.csv (one row of about 1 KB)")
    if len(table) != 1:
        raise InputError(path, table.header_line, f"expected one row of system information, found {len(table)}")
    cell = {h.lower(): table.text(h)[0].strip() for h in table.header}
    gfx = cell.get("gpu_arch") or None
    model = cell.get("gpu_model", "")
    figure = {k: _figure(cell.get(k), k, path, table.line_of(0)) for k in ("cu_per_gpu", "wave_size", "num_xcd",
                                                                            "max_sclk")}
    return AmdDevice(name=product_name(model) if model else None,
                     properties=identity(sms=figure["cu_per_gpu"], warp_size=figure["wave_size"],
                                         gfx=gfx, memory_bytes=None),
                     gfx=gfx, xcds=figure["num_xcd"],
                     sclk_hz=(figure["max_sclk"] or 0) * 1e6 or None,
                     source=path.name, doubts=_zero_figures(figure))


def _zero_figures(figure: dict) -> tuple[str, ...]:
    """Figures no GPU has, which the time from GPU-busy cycles cannot use:
    a clock or XCD count of 0."""
    return tuple(f"its {key} is 0{unit}, which no GPU has"
                 for key, unit in (("max_sclk", " MHz"), ("num_xcd", "")) if figure[key] == 0)


MAX_FIGURE = 10 ** 7    # CUs, wave size, XCDs, clock in MHz: no GPU comes near it


def _figure(text, field: str, path: Path, line) -> int | None:
    """A sysinfo.csv figure as a whole number (None where absent or not a
    number); one that no GPU has (a clock of 400 digits) is refused naming
    the field, before it reaches a float."""
    value = _int(text)
    if value is not None and not (0 <= value <= MAX_FIGURE):
        shown = str(text).strip()
        shown = shown if len(shown) <= 20 else shown[:20] + f"... ({len(shown)} digits)"
        raise InputError(path, line, f"column {field}: {shown} is no GPU's figure (expected 0 to {MAX_FIGURE:,})")
    return value


def agent_info_device(path: Path, agents: set[int]) -> AmdDevice:
    """rocprofv3's agent_info.csv: the GPU the dispatches ran on (by node
    id), else the one kind of GPU the node has; unknown when GPUs of
    several kinds could be meant."""
    table = Table.read_small(path, "rocprofv3's agent_info.csv (a row per CPU and GPU)")
    gpus = [_agent_row(table, i) for i, kind in enumerate(_texts(table, "Agent_Type")) if kind.upper() == "GPU"]
    used = [g for g in gpus if _int(g.get("node_id")) in agents] or gpus
    if len({g.get("product_name") for g in used}) != 1:
        return AmdDevice()
    g = used[0]
    gfx = gfx_of_version(_int(g.get("gfx_target_version")) or 0) or (g.get("name") or None)
    f, doubts = agent_figures(g, path.name)
    return AmdDevice(name=g.get("product_name") or None, gfx=gfx, xcds=f["num_xcc"],
                     properties=identity(sms=f["cu_count"], warp_size=f["wave_front_size"], gfx=gfx),
                     sclk_hz=(f["max_engine_clk_fcompute"] or 0) * 1e6 or None,
                     source=path.name, doubts=tuple(doubts))


def _texts(table: Table, name: str) -> list[str]:
    col = table.column(name)
    return [c.strip() for c in table.text(col)] if col else [""] * len(table)


def _agent_row(table: Table, i: int) -> dict[str, str]:
    return {h.lower(): table.text(h)[i].strip() for h in table.header}


def _int(text) -> int | None:
    text = str(text).strip()
    if len(text) > 30:          # int() of thousands of digits is slow, and no figure here needs them
        return 10 ** 30 if text.lstrip("+-").isdigit() else None
    try:
        return int(text)
    except (TypeError, ValueError):
        return None
