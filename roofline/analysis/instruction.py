"""Instruction roofline for GPUs (Ding and Williams, PMBS 2019).

For a kernel that issues ``I`` warp instructions in ``t`` seconds and makes
``X_l`` transactions at level ``l`` (L1, shared, L2, DRAM)::

    performance          = I / t                 [warp instructions/s]
    instruction intensity = I / X_l              [warp instructions/transaction]
    attainable_l(x)      = min(peak, x * R_l)
    t_inst = I / peak,  t_l = X_l / R_l,  t_roof = max(t_inst, t_l ...)

``peak`` is the device's ``instruction_rate`` (SMs x schedulers x 1
instruction/clock x clock: 489.6 warp GIPS on V100 SXM2). ``R_l`` is the
level's bandwidth divided by its transaction size: 32-byte sectors for L1,
L2 and DRAM (``MemoryLevel.transaction_bytes`` when the profile sets it);
128-byte wavefronts (32 banks x 4 B) for shared memory, whose rate is taken
from a ``shared`` memory level when the device has one, else from the L1
bandwidth (shared memory and L1 are the same SRAM). The limiter is the
largest term, as on the FLOP roofline; efficiency = t_roof / t.

Walls (vertical lines) mark access patterns, for instructions that access
memory: x = load/store warp instructions per transaction.

- global memory (L1 sectors per request): stride 0 (all threads one word)
  1 sector -> x = 1; unit stride, 32-bit words: 128 B = 4 sectors -> x = 1/4;
  scattered (every thread its own sector) 32 -> x = 1/32
- shared memory (wavefronts per request): no bank conflict 1 -> x = 1;
  32-way bank conflict 32 -> x = 1/32

Optional counters, read from ``Kernel.launch``: ``thread_instructions``
(thread predication ratio = thread instructions / (32 x warp
instructions); 1 means no divergence or predication), and
``global_ldst_instructions`` / ``shared_ldst_instructions`` (warp-level
memory instructions, to place a kernel against the walls).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from ..core.errors import Advice, RooflineError
from ..core.model import Device, Kernel
from ..core.units import format_si

LEVELS = ("L1", "shared", "L2", "DRAM")
SECTOR_BYTES = 32.0
WAVEFRONT_BYTES = 128.0
ALIASES = {"l1": "L1", "l1tex": "L1", "shared": "shared", "smem": "shared", "shm": "shared",
           "l2": "L2", "dram": "DRAM", "hbm": "DRAM", "gddr": "DRAM"}
GLOBAL_WALLS = (("stride-0", 1.0), ("unit stride (32-bit)", 1 / 4), ("scattered", 1 / 32))
SHARED_WALLS = (("no bank conflict", 1.0), ("32-way bank conflict", 1 / 32))
WARP_SIZE = 32
# What to collect when counters are missing (Nsight Compute metric names).
NCU_METRICS = ("smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
               "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
               "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
               "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
               "lts__t_sectors.sum", "dram__sectors_read.sum", "dram__sectors_write.sum")


def level_name(key: str) -> str:
    """Canonical transaction level (``HBM`` -> ``DRAM``, ``smem`` -> ``shared``)."""
    return ALIASES.get(str(key).lower(), key)


@dataclass(frozen=True)
class InstructionCeilings:
    """Peak warp instructions/s and transactions/s per level, with how each
    was obtained."""

    device_name: str
    warp_inst_s: float
    transactions_s: Mapping[str, float]
    sources: Mapping[str, str] = field(default_factory=dict)

    def ridge(self, level: str) -> float:
        """Instruction intensity where the level's roof meets the peak."""
        return self.warp_inst_s / self.transactions_s[level]

    def attainable(self, intensity: float, level: str) -> float:
        return min(self.warp_inst_s, intensity * self.transactions_s[level])


def instruction_ceilings(device: Device) -> InstructionCeilings:
    """Ceilings of ``device``: ``instruction_rate`` and bandwidth /
    transaction size for L1, shared, L2 and DRAM (those it has)."""
    if device.instruction_rate is None:
        raise RooflineError(f"device {device.name!r} has no instruction ceiling (instruction_rate); "
                            "use a built-in GPU profile or `roofline measure`")
    rates, sources = {}, {"instructions": "device instruction_rate"}
    for key, level in device.memory.items():
        lv = level_name(key)
        if lv not in LEVELS:
            continue
        size = level.transaction_bytes or (WAVEFRONT_BYTES if lv == "shared" else SECTOR_BYTES)
        rates[lv] = level.bytes_s / size
        sources[lv] = f"{format_si(level.bytes_s, 'B/s')} / {size:g} B"
    if "shared" not in rates and "L1" in rates and device.kind == "gpu":
        l1 = device.memory["L1"].bytes_s
        rates["shared"] = l1 / WAVEFRONT_BYTES
        sources["shared"] = f"L1 {format_si(l1, 'B/s')} / {WAVEFRONT_BYTES:g} B wavefronts (same SRAM as L1)"
    ordered = {lv: rates[lv] for lv in LEVELS if lv in rates}
    return InstructionCeilings(device.name, device.instruction_rate.value, ordered, sources)


@dataclass(frozen=True)
class InstructionPoint:
    """One kernel on the instruction roofline (see the module doc)."""

    name: str
    time_s: float
    instructions: float
    warp_inst_s: float
    intensity: Mapping[str, float]
    limiter: str
    roofline_time_s: float
    efficiency: float
    predication: float | None = None
    access: Mapping[str, float] = field(default_factory=dict)
    family: str = ""
    variant: str = ""

    def record(self) -> dict:
        return {"name": self.name, "family": self.family or None, "variant": self.variant or None,
                "time_s": self.time_s, "warp_instructions": self.instructions,
                "warp_inst_s": self.warp_inst_s, "intensity": dict(self.intensity),
                "limiter": self.limiter, "roofline_time_s": self.roofline_time_s,
                "efficiency": self.efficiency, "predication": self.predication,
                "access": {k: {"intensity": v, "pattern": describe_access(k, v)}
                           for k, v in self.access.items()}}


@dataclass(frozen=True)
class InstructionRoofline:
    ceilings: InstructionCeilings
    points: tuple[InstructionPoint, ...]
    warnings: tuple[Advice, ...] = ()

    def records(self) -> list[dict]:
        return [p.record() for p in self.points]


def instruction_roofline(kernels: Iterable[Kernel], device: Device) -> InstructionRoofline:
    """Place kernels that have warp instructions and a time; the others are
    left out with a warning naming the counters to collect."""
    ceilings = instruction_ceilings(device)
    points, skipped, unknown_levels = [], [], set()
    for k in kernels:
        if k.instructions is None or not (k.time_s > 0) or not k.instructions > 0:
            skipped.append(k.name)
            continue
        txn = {level_name(lv): float(v) for lv, v in k.transactions.items() if v and v > 0}
        unknown_levels |= {lv for lv in txn if lv not in ceilings.transactions_s}
        points.append(_point(k, txn, ceilings))
    warnings = []
    if skipped:
        warnings.append(Advice(
            f"{len(skipped)} kernel(s) have no warp instruction count or time and are not placed",
            "collect ncu --metrics " + ",".join(NCU_METRICS), subject="counters"))
    for lv in sorted(unknown_levels):
        warnings.append(Advice(f"device {device.name!r} has no {lv} ceiling; those transactions are ignored",
                               "use a device profile with that level", subject=lv))
    return InstructionRoofline(ceilings, tuple(points), tuple(warnings))


def _point(k: Kernel, txn: Mapping[str, float], c: InstructionCeilings) -> InstructionPoint:
    terms = {"instructions": k.instructions / c.warp_inst_s}
    terms.update({lv: x / c.transactions_s[lv] for lv, x in txn.items() if lv in c.transactions_s})
    limiter = max(terms, key=terms.get)
    intensity = {lv: k.instructions / txn[lv] for lv in LEVELS if lv in txn}
    return InstructionPoint(
        name=k.name, time_s=k.time_s, instructions=k.instructions,
        warp_inst_s=k.instructions / k.time_s, intensity=intensity, limiter=limiter,
        roofline_time_s=terms[limiter], efficiency=terms[limiter] / k.time_s,
        predication=predication_ratio(k), access=access_intensity(k, txn),
        family=k.family, variant=k.variant)


def predication_ratio(k: Kernel) -> float | None:
    """thread instructions / (32 x warp instructions), from
    ``launch["thread_instructions"]``; None when unknown."""
    threads = k.launch.get("thread_instructions")
    if threads is None or not k.instructions:
        return None
    return float(threads) / (WARP_SIZE * k.instructions)


def access_intensity(k: Kernel, txn: Mapping[str, float]) -> dict[str, float]:
    """Memory instructions per transaction: ``global`` = global load/store
    warp instructions / L1 sectors, ``shared`` = shared load/store warp
    instructions / shared wavefronts (to compare with the walls)."""
    out = {}
    for kind, level in (("global", "L1"), ("shared", "shared")):
        n = k.launch.get(f"{kind}_ldst_instructions")
        if n and txn.get(level):
            out[kind] = float(n) / txn[level]
    return out


def describe_access(kind: str, intensity: float) -> str:
    """The access pattern an intensity against the walls implies."""
    per_request = 1.0 / intensity
    if kind == "shared":
        return "no bank conflict" if per_request <= 1.05 else f"{per_request:.1f}-way bank conflicts"
    if per_request <= 1.05:
        return "stride-0 (one sector per request)"
    if per_request <= 4.2:
        return "unit stride (coalesced)"
    if per_request < 31.5:
        return f"strided ({per_request:.1f} sectors per request)"
    return "scattered (32 sectors per request)"
