"""Kernels placed on a device's rooflines: for each, its bound, its
efficiency, and overhead only where the evidence says so.

The reading (from "Making Deep Learning Go Brrrr", and the hierarchical
roofline of Yang et al.): for each kernel

    t_compute = sum_p flops_p / peak_p          (each precision on its unit)
    t_level   = bytes_level / bandwidth_level   (every level with a counter)
    t_roof    = max(t_compute, t_level ...)

Three answers, kept apart (docs/concepts.md has the whole rule):

- **bound**: the largest term names the limiter, compute or bandwidth at a
  level: the roof that limits the kernel at its intensity;
- **efficiency** = t_roof / t (achieved / attainable FLOP/s), and the time
  lost against the roof, t - t_roof;
- **overhead** only on evidence that the time does not scale with the work
  (:mod:`.evidence`: a fixed cost fitted across sizes, a call near the
  profile's floor, a launch too small to fill the GPU, a framework operator
  with no work of its own), for kernels the roofline explains less than
  half of, and never for a kernel whose roofline time per call is
  ``Rules.substantial_s`` or more.

Every kernel below ``Rules.near_roof`` of its roof gets a reason
(:mod:`.reasons`). Modelled compulsory bytes go on DRAM unless the kernel
beat DRAM (:mod:`.compulsory`). All of it is vectorised over a
:class:`~roofline.core.model.KernelSet`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import reasons as R
from .comm import is_comm_key, link_times, link_warnings
from .placement_warnings import ABOVE_ROOF_TOLERANCE, warn_above_roof, warn_missing, warn_substituted  # noqa: F401
from .causes import cause_evidence
from .compulsory import place_compulsory
from .cores import one_core_device
from .cpu_units import matrix_unit_assumed, matrix_unit_note
from .errors import Advice
from .families import COPIES, MATRIX
from .evidence import FixedCosts, device_floor, fixed_costs, grid_fill, group_keys, too_small, under_filled
from .kernel_precision import precision_from_name
from .model import Device, KernelSet

COMPUTE, BANDWIDTH, OVERHEAD, UNKNOWN = "compute", "bandwidth", "overhead", "unknown"
CLASSES = (COMPUTE, BANDWIDTH, OVERHEAD, UNKNOWN)
_CODE = {c: i for i, c in enumerate(CLASSES)}
# The reasons that make a kernel overhead-bound name its kind of overhead.
OVERHEAD_REASONS = (R.DISPATCH, R.NO_WORK, R.FIXED, R.UNDER_FILLED)


def _quiet():
    """Ratios of work and time: 0/0, x/0 and overflow (work / 1e-300 s) are
    NaN or inf, which callers treat as not finite, not numpy warnings."""
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


@dataclass(frozen=True)
class Rules:
    """The thresholds of the classification (documented in docs/concepts.md).

    ``near_roof``: at this share of its roof or above a kernel needs no
    reason. ``fixed_share``: a fixed cost this share of each call or more
    makes a kernel overhead-bound. ``substantial_s``: from this roofline
    time per call on, no evidence makes a kernel overhead-bound."""

    near_roof: float = 0.8
    fixed_share: float = 0.5
    substantial_s: float = 100e-6


@dataclass(repr=False)
class Placements:
    """Columns, one entry per kernel; see the module doc for the formulas.

    ``kernels``: the rows placed (a KernelSet); ``device``: the profile;
    ``work``: FLOP per row over all precisions; ``time_compute_s`` and
    ``time_level_s`` (per memory level): the time each roof alone allows;
    ``roofline_time_s``: the largest of them, the row's time at its roof;
    ``limiter_names``/``limiter_index``: which roof that is; ``code``: the
    bound class (``bound`` gives its name); ``efficiency``: roofline time /
    measured time; ``intensity``: FLOP per byte at each level. The
    properties (``bound``, ``level``, ``reason``, ``achieved_flop_s`` ...) and
    :meth:`records`, :meth:`columns` and :meth:`to_pandas` give what
    ``classify`` writes (:mod:`.row_schema`).
    """

    kernels: KernelSet
    device: Device
    work: np.ndarray
    time_compute_s: np.ndarray
    time_level_s: dict[str, np.ndarray]
    roofline_time_s: np.ndarray
    limiter_names: tuple[str, ...]
    limiter_index: np.ndarray  # into limiter_names; -1 where nothing is known
    code: np.ndarray           # index into CLASSES
    efficiency: np.ndarray
    intensity: dict[str, np.ndarray]
    warnings: list[Advice] = field(default_factory=list)
    reason_code: np.ndarray | None = None   # index into reasons.REASONS
    fixed_s: np.ndarray | None = None       # fixed time per call the evidence gives (NaN: none)
    cache_level: str | None = None          # the last-level cache, other end of modelled rows' range
    fits_cache: np.ndarray | None = None    # modelled working set fits in it
    typical_fixed_s: float = math.nan       # median fixed cost of the profile's fits
    floor_s: float = math.nan               # the least a call costs here (evidence.fixed_costs)
    fitted_groups: int = 0                  # operators or kernels whose fixed cost was fitted
    discarded_fits: int = 0                 # fits found implausible and dropped (evidence.plausible_fits)
    dispatch_s: float = math.nan            # CPU: the element-wise operators' typical fixed cost
    reason_detail: np.ndarray | None = None  # per row: what its reason rests on, where it names a peer
    link: object = None                     # collectives' link times (roofline.core.comm.LinkTimes)

    def fixed_costs(self) -> FixedCosts:
        """This placement's fixed costs, to carry into sums of its rows."""
        basis = np.where(np.isfinite(self.fixed_s), 1, 0).astype(np.int8)
        return FixedCosts(self.fixed_s, basis, self.fitted_groups, self.typical_fixed_s, self.floor_s,
                          self.discarded_fits, self.dispatch_s)

    def __post_init__(self):
        n = len(self.kernels)
        if self.reason_code is None:
            self.reason_code = np.zeros(n, dtype=np.int8)
        if self.fixed_s is None:
            self.fixed_s = np.full(n, math.nan)
        if self.fits_cache is None:
            self.fits_cache = np.zeros(n, dtype=bool)
        if self.reason_detail is None:
            self.reason_detail = np.full(n, "", dtype=object)

    def __len__(self) -> int:
        return len(self.kernels)

    # Kept as small integer codes: object arrays of strings would cost more
    # than the whole placement for a million kernels.
    @property
    def roof_device(self) -> Device:
        """The device whose roofs the kernels are compared with: its one-core
        roofs when every kernel ran on one thread."""
        threads = self.kernels.threads
        if len(threads) and np.all(threads == 1):
            return one_core_device(self.device) or self.device
        return self.device

    @property
    def mixed_threads(self) -> bool:
        """Some kernels ran on one thread and others on all cores."""
        single = self.kernels.threads == 1
        return bool(single.any() and not single.all())

    @property
    def limiter(self) -> np.ndarray:
        names = np.array(self.limiter_names + ("",), dtype=object)
        return names[self.limiter_index]

    @property
    def bound(self) -> np.ndarray:
        return np.array(CLASSES, dtype=object)[self.code]

    @property
    def level(self) -> np.ndarray:
        return np.where(self.code == _CODE[BANDWIDTH], self.limiter, "")

    @property
    def reason(self) -> np.ndarray:
        """Why the kernel is below its roof (or overhead-bound); "" when it
        needs no reason."""
        return np.array(R.REASONS, dtype=object)[self.reason_code]

    @property
    def overhead_kind(self) -> np.ndarray:
        """The evidence of an overhead-bound kernel: dispatch, no work,
        fixed cost, under-fills the device ("" for other classes)."""
        return np.where(self.code == _CODE[OVERHEAD], self.reason, "")

    @property
    def lost_s(self) -> np.ndarray:
        """Time lost against the roof: t - t_roof (NaN where either is unknown)."""
        return self.kernels.time_s - self.roofline_time_s

    @property
    def predicted_bound(self) -> np.ndarray:
        """What the roofline predicts from the work alone (compute or
        bandwidth, "" when nothing is known): the only class for kernels
        without a measured time, beside the measured one otherwise."""
        out = np.full(len(self), "", dtype=object)
        out[self.limiter_index == 0] = COMPUTE
        out[self.limiter_index > 0] = BANDWIDTH
        return out

    @property
    def time_per_call_s(self) -> np.ndarray:
        return self.kernels.time_s / np.maximum(self.kernels.count, 1)

    @property
    def achieved_flop_s(self) -> np.ndarray:
        with _quiet():
            return self.work / self.kernels.time_s

    @property
    def attainable_flop_s(self) -> np.ndarray:
        with _quiet():
            return np.where(self.roofline_time_s > 0, self.work / self.roofline_time_s, math.nan)

    @property
    def headroom(self) -> np.ndarray:
        with _quiet():
            return 1.0 / self.efficiency

    @property
    def cache_aware_intensity(self) -> np.ndarray:
        """FLOP per byte at the nearest level with a counter (Ilic et al.):
        every access as the cores see it."""
        out = np.full(len(self), math.nan)
        for lv in reversed(list(self.intensity)):
            vals = self.intensity[lv]
            out = np.where(np.isnan(vals), out, vals)
        return out

    def columns(self, indices=None) -> dict[str, list]:
        """The JSON/CSV fields of ``classify`` (:mod:`.row_schema`) as one list
        per field (None for a missing value), for all kernels or those at
        ``indices``; ``bytes`` and ``intensity`` as one list per level."""
        from .row_schema import listed_columns
        return listed_columns(self, indices)

    def to_pandas(self):
        """Every row as a pandas DataFrame with the CSV's columns (per-level
        fields one column per level, ``bytes_DRAM``); needs pandas."""
        from .row_schema import data_frame
        return data_frame(self)

    def __repr__(self) -> str:
        from .row_schema import placements_summary
        return f"Placements({placements_summary(self)})"

    def records(self, indices=None) -> list[dict]:
        """One plain dict per kernel (the JSON/CSV shape of ``classify``), or
        only for the kernels at ``indices``."""
        cols = self.columns(indices)
        per_level = {key: cols.pop(key) for key in ("bytes", "intensity")}
        keys = list(cols)
        rows = [dict(zip(keys, values)) for values in zip(*cols.values())]
        for key, levels in per_level.items():
            for row, values in zip(rows, zip(*levels.values()) if levels else ((),) * len(rows)):
                row[key] = {lv: v for lv, v in zip(levels, values) if v is not None}
        return rows


def place(kernels: KernelSet, device: Device, rules: Rules = Rules(), fixed: FixedCosts | None = None) -> Placements:
    """Place every kernel on ``device``'s rooflines and classify it (see the
    module doc). Kernels that ran on one thread go on the one-core roofs of
    a measured CPU profile; modelled compulsory bytes go on DRAM unless the
    kernel beat it (:func:`roofline.core.compulsory.place_compulsory`).
    ``fixed``: fixed costs already known for these rows (sums of placed
    rows, :func:`roofline.core.evidence.carried`) instead of fitting them."""
    one = one_core_device(device) if np.any(kernels.threads == 1) else None
    single = (kernels.threads == 1) if one is not None else np.zeros(len(kernels), dtype=bool)
    compulsory = place_compulsory(kernels, device, _bandwidths(device, one, single))
    kernels = compulsory.kernels
    warnings: list[Advice] = []
    # families that do no FLOPs by nature (copies): no "missing FLOP counter" warning
    no_flop_family = np.isin(kernels.families, list(COPIES))
    work = kernels.work()
    work = np.where(np.isnan(work) & no_flop_family, 0.0, work)

    t_compute = _compute_time(kernels, device)
    t_levels, intensity = _level_times(kernels, device, work, warnings)
    if one is not None:
        t_compute = np.where(single, _compute_time(kernels, one), t_compute)
        t_one, _ = _level_times(kernels, one, work, [])
        t_levels = {lv: np.where(single, t_one[lv], t) if lv in t_one else t for lv, t in t_levels.items()}
    link = link_times(kernels, device.links)     # collectives on their link roofs (roofline.core.comm)
    if link is not None:
        t_levels.update(link.terms())
        warnings += link_warnings(link, device.links)

    # fewer blocks than SMs: the compute roof of the SMs filled (a few SMs pull
    # more than their share of DRAM; a collective is on its links)
    fill = grid_fill(kernels.blocks, multiprocessors(device))
    if link is not None:
        fill = np.where(np.asarray(link.level) != "", 1.0, fill)
    t_compute = t_compute / fill
    limiter_names = ("compute",) + tuple(t_levels)
    limiter_index, t_roof = limiting(t_compute, t_levels)
    known = limiter_index >= 0

    time_s = kernels.time_s
    with _quiet():
        efficiency = np.where(time_s > 0, t_roof / time_s, math.nan)
    if np.any(time_s == 0):
        warnings.append(Advice(
            f"{int(np.sum(time_s == 0))} kernel(s) have a time of 0: treated as unmeasured "
            "(the bound is the roofline's prediction)", "check the time column", subject="time"))

    code = np.where(limiter_index == 0, _CODE[COMPUTE], _CODE[BANDWIDTH]).astype(np.int8)
    code[~known] = _CODE[UNKNOWN]
    # Without a measured time nothing is measured against the roof: the
    # class stays unknown and the roofline's guess is predicted_bound.
    timed = known & (time_s > 0)
    code[~timed] = _CODE[UNKNOWN]

    count = np.maximum(kernels.count, 1)
    cpu = device.kind == "cpu"
    if fixed is None:
        # on a CPU, fits are checked against the element-wise operators' (evidence.plausible_fits)
        fixed = fixed_costs(group_keys(kernels.names, kernels.operators), time_s / count, t_roof / count,
                            floor_cap_s=rules.substantial_s,
                            elementwise=(kernels.families == "elementwise") if cpu else None,
                            cap_s=rules.substantial_s if cpu else math.inf,
                            device_floor_s=device_floor(device.architecture if device.kind == "gpu" else None))
    # a share of a memory roof is comparable between peers only for working sets beyond the LLC
    fair_roof = (limiter_index == 0) | ((limiter_index > 0) & ~compulsory.fits_cache)
    causes = cause_evidence(kernels, cpu, efficiency, t_roof, rules.substantial_s, fair_roof, compulsory.from_cache)
    evidence = _evidence(kernels, device, one, single, compulsory.from_cache, fixed, t_roof,
                         limiter_index, work, link, causes[:3])
    below = timed & (efficiency < rules.near_roof)
    with _quiet():
        fixed_most = fixed.fixed_s >= rules.fixed_share * (time_s / count)    # of each call
    # a kernel the roof explains half of or more is bound by it, whatever
    # fixed cost the fits give (the rest of its time then beat the roof)
    unexplained = efficiency < 1 - rules.fixed_share
    candidate = timed & (evidence.dispatch | evidence.no_work | evidence.latency
                         | ((fixed_most | too_small(t_roof / count, fixed.floor_s)) & unexplained
                            & ~(t_roof == 0)))
    overhead = candidate & ~(t_roof / count >= rules.substantial_s)
    reason = R.reasons(evidence, below & timed, efficiency, overhead)
    code[overhead] = _CODE[OVERHEAD]
    unplaced = ~known       # no work: the importer's why (roofline.core.reasons.WITHOUT_WORK)
    if unplaced.any():
        reason[unplaced] = R.without_work(_whys(kernels, device)[unplaced], time_s[unplaced])

    warn_substituted(kernels, device, warnings)
    note = matrix_unit_note(kernels, device)
    if note is not None:
        warnings.append(note)
    warn_missing(kernels, work, known, no_flop_family, warnings)
    warn_above_roof(kernels, efficiency, device, warnings)
    return Placements(kernels, device, work, t_compute, t_levels, t_roof,
                      limiter_names, limiter_index, code, efficiency, intensity, warnings,
                      reason_code=reason, fixed_s=fixed.fixed_s, cache_level=compulsory.cache_level,
                      fits_cache=compulsory.fits_cache, typical_fixed_s=fixed.typical_s, floor_s=fixed.floor_s,
                      fitted_groups=fixed.groups_fitted, discarded_fits=fixed.groups_discarded,
                      dispatch_s=fixed.dispatch_s, reason_detail=np.where(reason == R.SLOW_KERNEL, causes[3], ""),
                      link=link)


def limiting(t_compute: np.ndarray, t_levels: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the largest term's index (0 compute, then the levels; -1: none known) and its time.

    Term by term, the first of equal largest terms kept (as an argmax over
    the stacked terms, which read a million rows across a strided stack 3x
    slower)."""
    known = ~np.isnan(t_compute)
    best = np.where(known, t_compute, -1.0)
    index = np.zeros(len(best), dtype=np.int8)
    for i, t in enumerate(t_levels.values(), start=1):
        has = ~np.isnan(t)
        higher = has & (t > best)
        best = np.where(higher, t, best)
        index[higher] = i
        known |= has
    return np.where(known, index, -1).astype(np.int8), np.where(known, best, math.nan)


def _bandwidths(device: Device, one: Device | None, single: np.ndarray) -> dict[str, np.ndarray]:
    """Each level's bandwidth on each row's roofs (one-core rows have theirs)."""
    out = {}
    for name, level in device.memory.items():
        rate = np.full(len(single), level.bytes_s)
        if one is not None and name in one.memory:
            rate[single] = one.memory[name].bytes_s
        out[name] = rate
    return out


def _evidence(kernels: KernelSet, device: Device, one: Device | None, single: np.ndarray,
              from_cache: np.ndarray, fixed: FixedCosts, t_roof: np.ndarray, limiter_index: np.ndarray,
              work: np.ndarray, link=None, causes=(None, None, None)) -> R.Evidence:
    """The boolean columns the reasons and the overhead class rest on."""
    count = np.maximum(kernels.count, 1)
    fixed_s = fixed.fixed_s
    no_roof = t_roof == 0
    with _quiet():
        lost_per_call = (kernels.time_s - t_roof) / count
        explains = fixed_s >= 0.5 * lost_per_call      # the fixed cost is most of what is lost
    return R.Evidence(
        dispatch=no_roof & kernels.modelled,
        no_work=no_roof & ~kernels.modelled,
        fixed=explains & ~no_roof,
        # a collective is placed on its link, not the SMs (NCCL launches few blocks by design)
        under_filled=under_filled(kernels.blocks, multiprocessors(device), t_roof / count, fixed.floor_s)
        & (link is None or np.asarray(link.level == "")),
        fewer_threads=_fewer_threads(kernels, device, one, single),
        from_cache=from_cache,
        precision_assumed=_precision_assumed(kernels, device, work) | matrix_unit_assumed(kernels, device),
        modelled_bandwidth=kernels.modelled & (limiter_index > 0),
        latency=(np.zeros(len(kernels), dtype=bool) if link is None else
                 np.nan_to_num(link.latency_s) >= 0.5 * np.where(np.isfinite(link.time_s), link.time_s, np.inf)),
        rng=causes[0], page_faults=causes[1], slow_kernel=causes[2],
    )


def _whys(kernels: KernelSet, device: Device) -> np.ndarray:
    """The importer's reasons, and ``no link roof`` for collectives with a
    size on a device without links."""
    whys = kernels.whys
    if device.links is None and any(k.startswith("comm:bus:") for k in kernels.bytes):
        sized = np.zeros(len(kernels), dtype=bool)
        for k, v in kernels.bytes.items():
            sized |= k.startswith("comm:bus:") & (np.nan_to_num(v) > 0)
        whys = np.where(sized, R.NO_LINK, whys)
    return whys


def multiprocessors(device: Device) -> int | None:
    sms = device.architecture.get("sms") if device.kind == "gpu" and device.architecture else None
    return sms if isinstance(sms, int) and not isinstance(sms, bool) and sms > 0 else None


def _fewer_threads(kernels: KernelSet, device: Device, one: Device | None, single: np.ndarray) -> np.ndarray:
    """CPU rows that ran on fewer threads than the roofs they are placed on
    assume: one thread on all-core roofs (no one-core figures), or more than
    one but fewer than the profile's threads."""
    threads = kernels.threads
    if device.kind != "cpu":
        return np.zeros(len(kernels), dtype=bool)
    cores = device.architecture.get("threads") if device.architecture else None
    if not isinstance(cores, int) or isinstance(cores, bool):
        cores = None
    fewer = (threads == 1) & ~single
    if cores:
        fewer |= (threads > 1) & (threads < cores)
    return fewer


def _precision_assumed(kernels: KernelSet, device: Device, work: np.ndarray) -> np.ndarray:
    """Modelled fp32 matrix work on a GPU whose kernel name does not say
    which unit ran it (FFMA, or TF32 tensor cores when allowed). A GPU
    without TF32 tensor cores (Volta, Turing and older) runs it on FFMA:
    nothing is assumed there."""
    n = len(kernels)
    fp32 = kernels.flops.get("fp32")
    if device.kind != "gpu" or "tensor_tf32" not in device.compute or fp32 is None or not kernels.modelled.any():
        return np.zeros(n, dtype=bool)
    only_fp32 = kernels.modelled & (np.nan_to_num(fp32) > 0) & (np.nan_to_num(fp32) >= work)
    matrix = np.isin(kernels.families, list(MATRIX))
    rows = np.flatnonzero(only_fp32 & matrix)
    out = np.zeros(n, dtype=bool)
    named = {name: precision_from_name(str(name)) is not None for name in set(kernels.names[rows].tolist())}
    out[rows] = [not named[name] for name in kernels.names[rows].tolist()]
    return out


def _compute_time(kernels: KernelSet, device: Device) -> np.ndarray:
    """Sum over precisions of FLOP / peak; NaN where no precision is known."""
    n = len(kernels)
    total = np.zeros(n)
    seen = np.zeros(n, dtype=bool)
    for precision, flops in kernels.flops.items():
        has = ~np.isnan(flops)
        total = total + np.where(has, flops, 0.0) / device.compute_rate(precision)
        seen |= has
    return np.where(seen, total, math.nan)


def _level_times(kernels: KernelSet, device: Device, work: np.ndarray,
                 warnings: list[Advice]) -> tuple[dict, dict]:
    times, intensity = {}, {}
    for lv, nbytes in kernels.bytes.items():
        if is_comm_key(lv):          # a collective's quantities: its link term (roofline.core.comm)
            continue
        if lv not in device.memory:
            if np.any(~np.isnan(nbytes)):
                warnings.append(Advice(
                    f"device {device.name!r} has no {lv} ceiling; those bytes are ignored",
                    "use a device profile that measures this level", subject=lv))
            continue
        times[lv] = nbytes / device.bandwidth(lv)
        with _quiet():
            intensity[lv] = np.where(nbytes > 0, work / nbytes, math.nan)
    order = [lv for lv in device.memory if lv in times]
    return {lv: times[lv] for lv in order}, {lv: intensity[lv] for lv in order}
