"""Core types: what a device can do and what a kernel did. numpy at most.

All quantities in SI base units: seconds, bytes, FLOP, FLOP/s, bytes/s, Hz.
Names carry the unit where a value crosses an interface (``time_s``,
``bytes_s``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Iterable, Mapping

import numpy as np

from .errors import Advice
from .families import filled

# Memory level names, nearest the cores first. HBM/GDDR is "DRAM"; the host
# link is "PCIe" (NVLink-C2C and the like also go there).
LEVELS = ("L1", "L2", "L3", "DRAM", "PCIe")
HOST_LINK = "PCIe"

# Compute ceiling keys. tensor_* run on matrix units; int32 counts integer ops.
# tensor_fp16 and tensor_fp8 are matrix products accumulating in FP32, as
# PyTorch's GEMMs and convolutions do; *_acc16 those accumulating in FP16,
# which GeForce parts run at twice the rate (where a profile has no *_acc16
# roof the two rates are the same, and the fallback below says so).
PRECISIONS = ("fp64", "fp32", "fp16", "bf16", "tf32", "fp8", "int32", "int8",
              "tensor_fp64", "tensor_fp16", "tensor_bf16", "tensor_tf32",
              "tensor_fp8", "tensor_int8", "tensor_fp6", "tensor_fp4",
              "tensor_fp16_acc16", "tensor_fp8_acc16")

# When a device has no ceiling for a kernel's precision, its work runs on the
# next unit down this chain (fp16 on a GTX 970 runs at the fp32 rate or
# slower; a conservative roof would overstate nothing).
PRECISION_FALLBACK = {
    "fp16": "fp32", "bf16": "fp32", "tf32": "fp32", "fp8": "fp16",
    "int8": "int32", "int32": "fp32",
    "tensor_fp16": "fp16", "tensor_bf16": "bf16", "tensor_tf32": "fp32",
    "tensor_fp8": "tensor_fp16", "tensor_int8": "int8", "tensor_fp64": "fp64",
    # FP4/FP6 matrix formats (Blackwell, CDNA4): without such units the work runs as FP8
    # (NVIDIA's FP6 runs at the FP8 rate, so its profiles state no tensor_fp6 roof)
    "tensor_fp4": "tensor_fp6", "tensor_fp6": "tensor_fp8",
    # FP16 accumulate: a datasheet gives it a rate of its own only where it differs
    "tensor_fp16_acc16": "tensor_fp16", "tensor_fp8_acc16": "tensor_fp8",
}


def _frozen(mapping: Mapping | None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class Ceiling:
    """One roof: a rate (FLOP/s, bytes/s or warp instructions/s).

    ``value`` is the rate the roof is drawn at. For a measured ceiling it is
    the best sample (peaks come from the max; the median is the robust
    figure) and ``samples`` keeps every raw rate. ``theoretical`` is the
    datasheet rate at the clock actually observed, when known.
    """

    value: float
    samples: tuple[float, ...] = ()
    theoretical: float | None = None
    clock_hz: float | None = None
    source: str = ""

    def __post_init__(self):
        object.__setattr__(self, "samples", tuple(float(s) for s in self.samples))
        if not (math.isfinite(self.value) and self.value > 0):
            raise ValueError(f"a ceiling must be a positive finite rate, got {self.value!r}")

    @property
    def median(self) -> float:
        return float(np.median(self.samples)) if self.samples else self.value

    @property
    def spread(self) -> float:
        """(max - min) / median of the samples; 0 for a datasheet figure."""
        if len(self.samples) < 2:
            return 0.0
        return (max(self.samples) - min(self.samples)) / self.median

    @property
    def fraction_of_theoretical(self) -> float | None:
        return self.value / self.theoretical if self.theoretical else None

    def scaled(self, factor: float) -> "Ceiling":
        return replace(self, value=self.value * factor,
                       samples=tuple(s * factor for s in self.samples),
                       theoretical=None if self.theoretical is None else self.theoretical * factor)


@dataclass(frozen=True)
class MemoryLevel:
    """A memory level or the host link: bandwidth plus what is known of it."""

    name: str
    bandwidth: Ceiling
    transaction_bytes: float | None = None
    capacity_bytes: float | None = None

    @property
    def bytes_s(self) -> float:
        return self.bandwidth.value


@dataclass(frozen=True)
class Device:
    """What a device can do: the ceilings of its rooflines.

    ``memory`` is ordered nearest the cores first, host link last.
    ``instruction_rate`` is in warp instructions per second (GPU) or
    instructions per second (CPU). ``provenance`` says where the numbers
    come from (``method``: measured or datasheet, tool, version, date,
    sources).
    """

    name: str
    kind: str
    compute: Mapping[str, Ceiling]
    memory: Mapping[str, MemoryLevel]
    instruction_rate: Ceiling | None = None
    launch_overhead_s: float | None = None
    clocks_hz: Mapping[str, float] = field(default_factory=dict)
    architecture: Mapping[str, object] = field(default_factory=dict)
    provenance: Mapping[str, object] = field(default_factory=dict)
    warnings: tuple[Advice, ...] = ()
    # the links collectives run on (roofline.core.comm.LinkRoofs), derived
    # from the profile when it is loaded (roofline.devices.links); not saved
    links: object = field(default=None, compare=False, repr=False)

    def __repr__(self) -> str:
        """One line: name, kind, method, the best compute roof and the first
        memory level's (the whole profile: ``roofline show NAME``)."""
        method = (self.provenance or {}).get("method", "")
        best = max(self.compute.items(), key=lambda kv: kv[1].value)
        first = next(iter(self.memory.items()), None)
        parts = [f"{self.kind}" + (f", {method}" if method else ""),
                 f"{len(self.compute)} compute roofs (best {best[0]} {best[1].value:.3g} FLOP/s)"]
        if first is not None:
            parts.append(f"{len(self.memory)} memory levels ({first[0]} {first[1].bandwidth.value:.3g} B/s)")
        return f"Device({self.name!r}: {'; '.join(parts)})"

    def __post_init__(self):
        if self.kind not in ("cpu", "gpu"):
            raise ValueError(f"device kind must be 'cpu' or 'gpu', got {self.kind!r}")
        if not self.compute:
            raise ValueError(f"device {self.name!r} has no compute ceiling")
        ordered = sorted(self.memory.items(), key=lambda kv: _level_rank(kv[0]))
        object.__setattr__(self, "memory", _frozen(ordered))
        object.__setattr__(self, "compute", _frozen(self.compute))
        object.__setattr__(self, "clocks_hz", _frozen(self.clocks_hz))
        object.__setattr__(self, "architecture", _frozen(self.architecture))
        object.__setattr__(self, "provenance", _frozen(self.provenance))
        object.__setattr__(self, "warnings", tuple(self.warnings))

    def compute_rate(self, precision: str) -> float:
        """FLOP/s for work of ``precision``, falling back down the unit chain."""
        key = self.compute_key(precision)
        return self.compute[key].value

    def compute_key(self, precision: str) -> str:
        """The ceiling that work of ``precision`` runs on: its own, else the
        next unit down the fallback chain, else the slowest vector unit (so
        a missing ceiling never raises the roof)."""
        key = precision
        while key not in self.compute:
            key = PRECISION_FALLBACK.get(key)
            if key is None:
                return self.slowest_precision
        return key

    @property
    def slowest_precision(self) -> str:
        vector = {k: c for k, c in self.compute.items() if not k.startswith("tensor")}
        pool = vector or self.compute
        return min(pool, key=lambda k: pool[k].value)

    @property
    def peak_precision(self) -> str:
        """The non-tensor floating-point precision with the highest rate (the
        default roof): integer ops (a CPU's int8 dot products run at 4x its
        fp32 FMA rate) are no FLOP roof for work of unknown precision."""
        vector = {k: c for k, c in self.compute.items() if not k.startswith(("tensor", "int"))}
        pool = vector or {k: c for k, c in self.compute.items() if not k.startswith("tensor")} or self.compute
        return max(pool, key=lambda k: pool[k].value)

    def bandwidth(self, level: str) -> float:
        return self.memory[level].bytes_s

    def ridge_point(self, level: str, precision: str | None = None) -> float:
        """Arithmetic intensity (FLOP/byte) where the ``level`` roof meets the
        compute roof of ``precision``."""
        return self.compute_rate(precision or self.peak_precision) / self.bandwidth(level)

    def attainable(self, intensity, level: str, precision: str | None = None):
        """Roofline: min(peak, intensity x bandwidth), vectorised over intensity."""
        peak = self.compute_rate(precision or self.peak_precision)
        return np.minimum(peak, np.asarray(intensity, dtype=float) * self.bandwidth(level))


def _level_rank(name: str) -> tuple[int, str]:
    return (LEVELS.index(name) if name in LEVELS else len(LEVELS) - 1, name)


@dataclass(frozen=True)
class Kernel:
    """What one kernel (or kernel group) did.

    ``time_s`` is the total over ``count`` invocations (NaN when the profile
    has no time). ``flops`` maps precision to FLOP, ``bytes`` maps memory
    level to bytes moved, both totals over all invocations.
    ``instructions`` are warp instructions; ``transactions`` per level.
    """

    name: str
    time_s: float = math.nan
    count: int = 1
    flops: Mapping[str, float] = field(default_factory=dict)
    bytes: Mapping[str, float] = field(default_factory=dict)
    instructions: float | None = None
    transactions: Mapping[str, float] = field(default_factory=dict)
    launch: Mapping[str, object] = field(default_factory=dict)
    source: str = ""
    family: str = ""
    variant: str = ""
    modelled: bool = False
    operator: str = ""  # the framework operator behind it (aten::addmm), when the trace says
    threads: int | None = None  # CPU threads it ran on; None: all cores (or not known)
    # what a communication kernel communicates (roofline.core.comm.Collective);
    # its sizes ride in ``bytes`` under the comm: keys
    collective: object = None
    why: str = ""       # why it has no work, when it has none (roofline.core.reasons)
    # the dtype(s) of its operator's tensors ("bf16", "bf16,fp32"; a cast "fp32->bf16"), when the trace says
    dtype: str = ""
    # what its work model assumed (random numbers, causal attention's convention, a tensor read once), "; "-joined
    assumed: str = ""
    # the share of its time whose matrix operands had a row stride that is no
    # multiple of 16 bytes (NaN: not a matrix product, or no shapes): newer
    # GPUs' GEMM kernels (TMA, sm_90 on) cannot take them
    unaligned: float = math.nan
    # the device it ran on, where its file holds several ("/device:GPU:3"); "" otherwise
    device: str = ""

    def __post_init__(self):
        if self.unaligned != self.unaligned:    # every NaN as math.nan itself, so equal Kernels compare equal
            object.__setattr__(self, "unaligned", math.nan)
        object.__setattr__(self, "flops", _frozen(self.flops))
        object.__setattr__(self, "bytes", _frozen(self.bytes))
        object.__setattr__(self, "transactions", _frozen(self.transactions))
        object.__setattr__(self, "launch", _frozen(self.launch))

    @property
    def work(self) -> float:
        return float(sum(self.flops.values()))


class KernelSet:
    """Many kernels as columns, for vectorised placement of millions of rows.

    ``flops`` and ``bytes`` map a precision or level to a float array (NaN
    where a kernel has no such counter). Build with :meth:`from_kernels` or
    directly from arrays (importers of huge traces do the latter).
    """

    def __init__(self, names, time_s, count=None, flops=None, bytes=None,
                 families=None, variants=None, instructions=None, transactions=None,
                 modelled=None, operators=None, threads=None, sources=None, blocks=None,
                 collectives=None, whys=None, dtypes=None, assumed=None, unaligned=None, devices=None,
                 launches=None):
        self.names = np.asarray(names, dtype=object)
        n = len(self.names)
        self.time_s = _column(time_s, n, "time_s")
        self.count = _column(np.ones(n) if count is None else count, n, "count")
        self.flops = {k: _column(v, n, f"flops[{k}]") for k, v in (flops or {}).items()}
        self.bytes = {k: _column(v, n, f"bytes[{k}]") for k, v in (bytes or {}).items()}
        # every row has a family: the file's, else the one its name gives
        # (roofline.core.families), so no caller falls back to family_of
        self.families = filled(self.names, np.asarray([""] * n if families is None else families, dtype=object))
        self.variants = np.asarray([""] * n if variants is None else variants, dtype=object)
        self.instructions = None if instructions is None else _column(instructions, n, "instructions")
        self.transactions = {k: _column(v, n, f"transactions[{k}]") for k, v in (transactions or {}).items()}
        # Work from a cost or operator model rather than counters.
        self.modelled = np.zeros(n, dtype=bool) if modelled is None else np.asarray(modelled, dtype=bool)
        self.operators = np.asarray([""] * n if operators is None else operators, dtype=object)
        if self.modelled.shape != (n,) or self.operators.shape != (n,):
            raise ValueError(f"modelled/operators must have shape ({n},)")
        # CPU threads each kernel ran on (NaN: all cores or not known).
        self.threads = _column(np.full(n, math.nan) if threads is None else threads, n, "threads")
        self.sources = np.asarray([""] * n if sources is None else sources, dtype=object)
        # Thread blocks (CUDA) or workgroups per launch, from the launch
        # configuration (NaN: not known); the largest launch of a group.
        self.blocks = _column(np.full(n, math.nan) if blocks is None else blocks, n, "blocks")
        # per row: its Collective (None), and why it has no work ("": not said);
        # sums of rows drop both (their comm: bytes are summed)
        self.collectives = _objects(collectives, n, "collectives", None)
        self.whys = _objects(whys, n, "whys", "")
        # per row: the dtype(s) of its operator ("bf16", "fp32->bf16"; "": not said)
        self.dtypes = _objects(dtypes, n, "dtypes", "")
        # per row: what its work model assumed ("": nothing said)
        self.assumed = _objects(assumed, n, "assumed", "")
        # per row: the share of its time with matrix operands not 16-byte aligned (NaN: not known)
        self.unaligned = _column(np.full(n, math.nan) if unaligned is None else unaligned, n, "unaligned")
        # per row: the device it ran on where the file holds several ("": one device, or not said)
        self.devices = _objects(devices, n, "devices", "")
        # per row: its launch configuration and what the reader noted of it
        # (grid, block, time source, Neutrino's block schedule); {}: none
        self.launches = _objects(launches, n, "launches", _NO_LAUNCH)

    def __len__(self) -> int:
        return len(self.names)

    def with_columns(self, **columns) -> "KernelSet":
        """A new set with the given columns replaced and the others shared."""
        current = dict(names=self.names, time_s=self.time_s, count=self.count, flops=self.flops,
                       bytes=self.bytes, families=self.families, variants=self.variants,
                       instructions=self.instructions, transactions=self.transactions,
                       modelled=self.modelled, operators=self.operators, threads=self.threads,
                       sources=self.sources, blocks=self.blocks, collectives=self.collectives,
                       whys=self.whys, dtypes=self.dtypes, assumed=self.assumed, unaligned=self.unaligned,
                       devices=self.devices, launches=self.launches)
        unknown = set(columns) - set(current)
        if unknown:
            raise TypeError(f"no such column: {', '.join(sorted(unknown))}")
        return KernelSet(**{**current, **columns})

    @classmethod
    def from_kernels(cls, kernels: Iterable[Kernel]) -> "KernelSet":
        ks = list(kernels)
        precisions = sorted({p for k in ks for p in k.flops})
        levels = sorted({lv for k in ks for lv in k.bytes}, key=_level_rank)
        nan = math.nan
        has_inst = any(k.instructions is not None for k in ks)
        tx_levels = sorted({lv for k in ks for lv in k.transactions}, key=_level_rank)
        return cls(
            names=[k.name for k in ks],
            time_s=[k.time_s for k in ks],
            count=[k.count for k in ks],
            flops={p: [k.flops.get(p, nan) for k in ks] for p in precisions},
            bytes={lv: [k.bytes.get(lv, nan) for k in ks] for lv in levels},
            families=[k.family for k in ks],
            variants=[k.variant for k in ks],
            instructions=[nan if k.instructions is None else k.instructions for k in ks] if has_inst else None,
            transactions={lv: [k.transactions.get(lv, nan) for k in ks] for lv in tx_levels},
            modelled=[k.modelled for k in ks],
            operators=[k.operator for k in ks],
            threads=[nan if k.threads is None else k.threads for k in ks],
            sources=[k.source for k in ks],
            blocks=[_blocks(k.launch) for k in ks],
            collectives=[k.collective for k in ks] if any(k.collective is not None for k in ks) else None,
            whys=[k.why for k in ks] if any(k.why for k in ks) else None,
            dtypes=[k.dtype for k in ks] if any(k.dtype for k in ks) else None,
            assumed=[k.assumed for k in ks] if any(k.assumed for k in ks) else None,
            unaligned=[k.unaligned for k in ks],
            devices=[k.device for k in ks] if any(k.device for k in ks) else None,
            launches=[dict(k.launch) for k in ks] if any(k.launch for k in ks) else None,
        )

    def kernels(self) -> list[Kernel]:
        return [self._row(i) for i in range(len(self))]

    def _row(self, i: int) -> Kernel:
        return Kernel(
            name=str(self.names[i]), time_s=float(self.time_s[i]), count=int(self.count[i]),
            flops={p: float(v[i]) for p, v in self.flops.items() if not math.isnan(v[i])},
            bytes={lv: float(v[i]) for lv, v in self.bytes.items() if not math.isnan(v[i])},
            instructions=None if self.instructions is None or math.isnan(self.instructions[i]) else float(self.instructions[i]),
            transactions={lv: float(v[i]) for lv, v in self.transactions.items() if not math.isnan(v[i])},
            family=str(self.families[i]), variant=str(self.variants[i]),
            modelled=bool(self.modelled[i]), operator=str(self.operators[i]),
            threads=None if math.isnan(self.threads[i]) else int(self.threads[i]),
            source=str(self.sources[i]), collective=self.collectives[i], why=str(self.whys[i]),
            dtype=str(self.dtypes[i]), assumed=str(self.assumed[i]), unaligned=float(self.unaligned[i]),
            device=str(self.devices[i]), launch=self.launches[i])

    # The set seen as a sequence of Kernel objects, for code and tests that
    # look at a few rows: each built when asked for (the columns stay the
    # data, and may be changed in place, so nothing is cached).
    def __iter__(self):
        return (self._row(i) for i in range(len(self)))

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._row(j) for j in range(len(self))[i]]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"kernel {i} of {n}")
        return self._row(i % n)

    def __eq__(self, other):
        if isinstance(other, (KernelSet, list, tuple)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None     # equal by rows, and mutable: no hash

    def __repr__(self) -> str:
        return f"KernelSet({len(self):,} kernels)"

    def work(self) -> np.ndarray:
        """Total FLOP per kernel (NaN where no precision has a counter)."""
        if not self.flops:
            return np.full(len(self), math.nan)
        stack = np.vstack(list(self.flops.values()))
        return np.where(np.all(np.isnan(stack), axis=0), math.nan, np.nansum(stack, axis=0))


_NO_LAUNCH: dict = {}     # shared by every row without a launch: never changed (rows pickle, so no mappingproxy)


def _blocks(launch) -> float:
    """Thread blocks of one launch: the product of its grid (NaN when the
    launch configuration gives none or an odd one)."""
    grid = launch.get("grid") if launch else None
    if isinstance(grid, (int, float)) and not isinstance(grid, bool):
        grid = (grid,)
    if not isinstance(grid, (tuple, list)) or not grid:
        return math.nan
    if not all(isinstance(g, int) and not isinstance(g, bool) and g > 0 for g in grid):
        return math.nan
    return float(math.prod(grid))


def carry_labels(rows: KernelSet, grouped: KernelSet, codes: np.ndarray) -> KernelSet:
    """``grouped`` (rows summed into groups, ``codes`` each row's group) with
    what sums of rows drop: why a group has no work (that of its member with
    the most time that states one) and its collective (when every member
    has the same one)."""
    if not rows.whys.any() and not any(c is not None for c in rows.collectives):
        return grouped
    n = len(grouped)
    whys = np.full(n, "", dtype=object)
    best = np.full(n, -1.0)
    time = np.nan_to_num(rows.time_s, nan=0.0)
    for i in np.flatnonzero(rows.whys != "").tolist():
        g = int(codes[i])
        if time[i] > best[g]:
            best[g], whys[g] = time[i], rows.whys[i]
    colls = np.full(n, None, dtype=object)
    mixed = np.zeros(n, dtype=bool)
    for i, c in enumerate(rows.collectives.tolist()):
        g = int(codes[i])
        if colls[g] is None and not mixed[g]:
            colls[g] = c
        elif colls[g] != c:
            colls[g], mixed[g] = None, True
    return grouped.with_columns(whys=whys, collectives=colls)


def _objects(values, n: int, what: str, empty) -> np.ndarray:
    if values is None:
        return np.full(n, empty, dtype=object)
    arr = np.empty(n, dtype=object)
    values = list(values)
    if len(values) != n:
        raise ValueError(f"{what} has {len(values)} values, expected {n}")
    arr[:] = values
    return arr


def _column(values, n: int, what: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.shape != (n,):
        raise ValueError(f"{what} has shape {arr.shape}, expected ({n},)")
    return arr
