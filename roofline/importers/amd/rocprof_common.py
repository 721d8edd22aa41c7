"""What the rocprof readers share: dispatches as columns summed into
kernels, and the AMD device a file names.

Every AMD format gives one row (or record) per dispatch. The readers put
them in :class:`Dispatches` (columns, never an object per dispatch), and
:func:`kernels_of` turns them into one :class:`~roofline.core.model.Kernel`
per kernel name and launch configuration (grid, workgroup, LDS, scratch,
registers, wave size, agent): times and counts summed, counters turned into
FLOP and bytes per dispatch by :mod:`.amd_counters` and summed too. A group
where only some dispatches have a time (or counters) gets the total of those
scaled to all its dispatches, with a warning; none gives NaN.

Grids: HSA (and so every rocprof) gives the grid in work-items; the launch
recorded is ``grid`` = workgroups per dimension (ceil(grid / workgroup)) and
``block`` = the workgroup, as CUDA counts blocks and threads.

Kernel names lose the code-object suffix the tools append to the symbol
(``.kd``, `` [clone .kd]``, `` (.kd)``): it marks the kernel descriptor,
not a different kernel.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...core.errors import Advice, InputError
from ...core.families import family_of
from ...core.model import Kernel
from .amd_counters import AmdWork, CounterError, Counters, amd_work
from ...core.import_result import ProgramTime
from ..timeline import busy_time

# launch figures a kernel group is keyed on; -1 where the file does not give one
CONFIG = ("grid_x", "grid_y", "grid_z", "wg_x", "wg_y", "wg_z", "lds", "scratch",
          "arch_vgpr", "accum_vgpr", "sgpr", "wave", "agent")
_LAUNCH = {"lds": "lds_bytes", "scratch": "scratch_bytes", "arch_vgpr": "arch_vgpr",
           "accum_vgpr": "accum_vgpr", "sgpr": "sgpr", "wave": "wave_size", "agent": "agent"}
_KD_SUFFIXES = ("[clone .kd]", "(.kd)", ".kd")
DEFAULT_WAVE = 64        # CDNA's wavefront; RDNA runs HIP as wave32, but its files give the size


def kernel_name(raw: str) -> str:
    name = raw.strip()
    for suffix in _KD_SUFFIXES:
        if name.endswith(suffix):
            return name[:-len(suffix)].rstrip()
    return name


@dataclass
class Dispatches:
    """One entry per dispatch, as columns.

    ``code`` indexes ``names``; ``time_ns`` is NaN where unknown; ``config``
    maps each :data:`CONFIG` key to int64 (-1: unknown); ``where(i)`` is the
    line (CSV) or None and a label (JSON record) of dispatch ``i``."""

    path: Path
    names: list[str]
    code: np.ndarray
    time_ns: np.ndarray
    config: dict[str, np.ndarray]
    where: Callable[[int], tuple[int | None, str]]
    counters: Counters | None = None
    time_source: str = ""
    notes: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.code)


def blank_config(n: int) -> dict[str, np.ndarray]:
    return {k: np.full(n, -1, dtype=np.int64) for k in CONFIG}


def kernels_of(d: Dispatches) -> tuple[list[Kernel], list[str]]:
    """One Kernel per name and launch configuration, and notes for warnings."""
    work = _work(d)
    inverse, first = _groups(d)
    n = len(first)
    notes = list(d.notes) + work.notes
    agents = np.unique(d.config["agent"][d.config["agent"] >= 0])
    if len(agents) > 1:
        notes.append(f"kernels ran on {len(agents)} GPUs (agents {', '.join(map(str, agents[:8].tolist()))}): "
                     "one row per kernel, launch configuration and GPU")
    count = np.bincount(inverse, minlength=n)
    time, partial_time = _summed(d.time_ns, inverse, count)
    if partial_time:
        notes.append(f"{partial_time} kernel group(s) have a time for only some dispatches: "
                     "their totals are scaled to all")
    flops = {p: _summed(v, inverse, count) for p, v in work.flops.items()}
    nbytes = {lv: _summed(v, inverse, count) for lv, v in work.bytes.items()}
    if any(part for _, part in list(flops.values()) + list(nbytes.values())):
        notes.append("counters cover only some dispatches of some kernels: their totals are scaled "
                     "per dispatch to all")
    kernels = []
    for g, i in enumerate(first):
        name = d.names[d.code[i]]
        kernels.append(Kernel(
            name=name, time_s=float(time[g]) * 1e-9, count=int(count[g]),
            flops={p: float(v[0][g]) for p, v in flops.items() if not math.isnan(v[0][g])},
            bytes={lv: float(v[0][g]) for lv, v in nbytes.items() if not math.isnan(v[0][g])},
            launch=_launch(d, i), family=family_of(name)))
    return kernels, notes


def _work(d: Dispatches) -> AmdWork:
    if d.counters is None:
        return AmdWork()
    wave = d.config["wave"].astype(np.float64)
    unknown = wave <= 0
    wave[unknown] = DEFAULT_WAVE
    try:
        work = amd_work(d.counters, wave)
    except CounterError as exc:
        line, label = d.where(exc.index)
        raise InputError(d.path, line, f"{label}{exc.message}") from None
    if unknown.any() and any(not p.startswith("tensor") for p in work.flops):
        work.notes.append(f"the wave size is not in the file: VALU work counted for {DEFAULT_WAVE}-wide "
                          "wavefronts (CDNA)")
    return work


def _groups(d: Dispatches) -> tuple[np.ndarray, np.ndarray]:
    return row_groups([d.code] + [d.config[k] for k in CONFIG])


def row_groups(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Group of each row of equal ``columns`` (numbered by first
    appearance) and each group's first row. One 1-D sort per column (a
    million rows of 14 figures in about a second; sorting the rows as
    records took fifteen)."""
    n = len(columns[0]) if columns else 0
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    code, size = np.zeros(n, dtype=np.int64), 1
    for col in columns:
        _, inv = np.unique(col, return_inverse=True)
        k = int(inv.max()) + 1
        if size * k >= 2 ** 62:               # keep the mixed-radix code inside int64
            _, code = np.unique(code, return_inverse=True)
            size = int(code.max()) + 1
        code, size = code * k + inv.reshape(n), size * k
    _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")          # groups in file order
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[inverse.reshape(n)], first[order]


def _summed(values: np.ndarray, inverse: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, int]:
    """Per-group totals of ``values`` (NaN: unknown), scaled up where only
    some dispatches are known; and how many groups were scaled."""
    n = len(count)
    values = np.asarray(values, dtype=np.float64)
    known = ~np.isnan(values)
    total = np.bincount(inverse, weights=np.where(known, values, 0.0), minlength=n)
    seen = np.bincount(inverse, weights=known.astype(np.float64), minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(seen > 0, total * count / np.where(seen > 0, seen, 1), np.nan)
    return out, int(np.count_nonzero((seen > 0) & (seen < count)))


def _launch(d: Dispatches, i: int) -> dict:
    c = {k: int(v[i]) for k, v in d.config.items()}
    launch: dict = {}
    if min(c["wg_x"], c["wg_y"], c["wg_z"]) > 0:
        block = (c["wg_x"], c["wg_y"], c["wg_z"])
        launch["block"] = block
        if min(c["grid_x"], c["grid_y"], c["grid_z"]) > 0:
            grid = (c["grid_x"], c["grid_y"], c["grid_z"])
            launch["grid"] = tuple(-(-g // b) for g, b in zip(grid, block))
            launch["grid_size"] = grid
    launch.update({name: c[k] for k, name in _LAUNCH.items() if c[k] >= 0})
    if d.time_source:
        launch["time_source"] = d.time_source
    return launch


def program_time(start: np.ndarray, end: np.ndarray) -> ProgramTime | None:
    """GPU busy time (union of the dispatch intervals) and the span from the
    first start to the last end, over dispatches with both timestamps."""
    ok = (start >= 0) & (end >= start)
    if not ok.any():
        return None
    s, e = start[ok].astype(np.float64), end[ok].astype(np.float64)
    return ProgramTime(gpu_busy_s=busy_time(s, e) * 1e-9,
                       span_s=float(int(end[ok].max()) - int(start[ok].min())) * 1e-9)


def advice(notes: list[str], subject: str) -> list[Advice]:
    return [Advice(note, "", subject) for note in dict.fromkeys(notes)]


# --------------------------------------------------------------------------
# the device a file names
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class AmdDevice:
    """The GPU as the file gives it: ``name`` for the ImportResult,
    ``properties`` in its terms (sms, warp_size, capability, memory_bytes,
    gfx_target), and what the counter rules need."""

    name: str | None = None
    properties: dict | None = None
    gfx: str | None = None
    xcds: int | None = None
    sclk_hz: float | None = None
    # the file that described the GPU, and what in it cannot serve (a clock of 0 MHz)
    source: str | None = None
    doubts: tuple[str, ...] = ()


_GFX = re.compile(r"^gfx(\d+)([0-9a-f])([0-9a-f])$", re.IGNORECASE)


def capability_of(gfx: str | None) -> str | None:
    """HIP's major.minor of a gfx target: gfx90a -> 9.0, gfx942 -> 9.4,
    gfx950 -> 9.5, gfx1100 -> 11.0 (what Kineto reports as computeMajor/Minor)."""
    m = _GFX.match(gfx or "")
    return f"{int(m.group(1))}.{int(m.group(2), 16)}" if m else None


def gfx_of_version(version: int) -> str | None:
    """HSA's gfx_target_version (90500) -> 'gfx950'; 90010 -> 'gfx90a'."""
    if not isinstance(version, int) or version <= 0:
        return None
    major, minor, stepping = version // 10000, (version // 100) % 100, version % 100
    if minor > 15 or stepping > 15:
        return None
    return f"gfx{major}{minor:x}{stepping:x}"


def identity(*, sms=None, warp_size=None, gfx=None, memory_bytes=None) -> dict | None:
    """device_properties as the Kineto reader gives them for AMD GPUs, plus
    the gfx target; only the figures that are known."""
    out = {}
    if isinstance(sms, int) and sms > 0:
        out["sms"] = sms
    if isinstance(warp_size, int) and warp_size > 0:
        out["warp_size"] = warp_size
    capability = capability_of(gfx)
    if capability:
        out["capability"] = capability
    if isinstance(memory_bytes, (int, float)) and memory_bytes > 0:
        out["memory_bytes"] = float(memory_bytes)
    if gfx:
        out["gfx_target"] = gfx.lower()
    return out or None
