"""Kernels placed on a device's rooflines, and the bound class of each.

The reading (from "Making Deep Learning Go Brrrr", and the hierarchical
roofline of Yang et al.): for each kernel

    t_compute = sum_p flops_p / peak_p          (each precision on its unit)
    t_level   = bytes_level / bandwidth_level   (every level with a counter)
    t_roof    = max(t_compute, t_level ...)

The largest term names the limiter. When t_roof explains less than
``overhead_share`` of the measured time, the roofline does not explain the
kernel and it is overhead-bound: launch-bound when its time per call is
within ``launch_multiple`` x the device's launch overhead, otherwise
latency/occupancy-bound. Efficiency is t_roof / t (= achieved FLOP/s /
attainable FLOP/s when the kernel does FLOPs); headroom is its inverse.

All of it is vectorised over a :class:`~roofline.core.model.KernelSet`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .compulsory import place_compulsory
from .cores import one_core_device
from .errors import Advice
from .model import Device, KernelSet

COMPUTE, BANDWIDTH, OVERHEAD, UNKNOWN = "compute", "bandwidth", "overhead", "unknown"
LAUNCH, LATENCY = "launch", "latency"
# Fine classes; launch and latency are the two kinds of overhead.
CLASSES = (COMPUTE, BANDWIDTH, LAUNCH, LATENCY, UNKNOWN)
_CODE = {c: i for i, c in enumerate(CLASSES)}
_BOUND_OF = {COMPUTE: COMPUTE, BANDWIDTH: BANDWIDTH, LAUNCH: OVERHEAD,
             LATENCY: OVERHEAD, UNKNOWN: UNKNOWN}

# A point this far above its roof is reported (counter or ceiling error).
ABOVE_ROOF_TOLERANCE = 1.05


def _quiet():
    """Ratios of work and time: 0/0, x/0 and overflow (work / 1e-300 s) are
    NaN or inf, which callers treat as not finite, not numpy warnings."""
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


# Families that do no FLOPs by nature: no "missing FLOP counter" warning.
NO_FLOP_FAMILIES = frozenset({"memcpy", "memset"})


@dataclass(frozen=True)
class Rules:
    """The thresholds of the classification (documented in docs/concepts.md)."""

    overhead_share: float = 0.5
    launch_multiple: float = 4.0


@dataclass
class Placements:
    """Columns, one entry per kernel; see the module doc for the formulas."""

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
        return np.array([_BOUND_OF[c] for c in CLASSES], dtype=object)[self.code]

    @property
    def level(self) -> np.ndarray:
        return np.where(self.code == _CODE[BANDWIDTH], self.limiter, "")

    @property
    def overhead_kind(self) -> np.ndarray:
        kinds = np.array([c if c in (LAUNCH, LATENCY) else "" for c in CLASSES], dtype=object)
        return kinds[self.code]

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
        """The JSON/CSV fields of ``classify`` as one list per field (None
        for a missing value), for all kernels or those at ``indices``;
        ``bytes`` and ``intensity`` as one list per level."""
        idx = slice(None) if indices is None else np.asarray(indices, dtype=np.int64)
        ks = self.kernels
        return {
            "name": _strings(ks.names[idx]), "family": _texts(ks.families[idx]),
            "variant": _texts(ks.variants[idx]), "operator": _texts(ks.operators[idx]),
            "modelled": ks.modelled[idx].tolist(), "count": ks.count[idx].astype(np.int64).tolist(),
            "time_s": _numbers(ks.time_s[idx]), "flops": _numbers(self.work[idx]),
            "bytes": {lv: _numbers(v[idx]) for lv, v in ks.bytes.items()},
            "bound": _strings(self.bound[idx]), "level": _texts(self.level[idx]),
            "predicted_bound": _texts(self.predicted_bound[idx]),
            "overhead_kind": _texts(self.overhead_kind[idx]), "limiter": _texts(self.limiter[idx]),
            "intensity": {lv: _numbers(v[idx]) for lv, v in self.intensity.items()},
            "achieved_flop_s": _numbers(self.achieved_flop_s[idx]),
            "attainable_flop_s": _numbers(self.attainable_flop_s[idx]),
            "roofline_time_s": _numbers(self.roofline_time_s[idx]),
            "efficiency": _numbers(self.efficiency[idx]),
        }

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


def _numbers(values: np.ndarray) -> list:
    """Floats, with None where not finite (C loops, no Python per value)."""
    out = np.asarray(values, dtype=float).astype(object)
    out[~np.isfinite(np.asarray(values, dtype=float))] = None
    return out.tolist()


def _strings(values: np.ndarray) -> list:
    return [str(v) for v in values.tolist()]


def _texts(values: np.ndarray) -> list:
    """Strings, with None for empty ones."""
    return [str(v) if v else None for v in values.tolist()]


def _num(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def place(kernels: KernelSet, device: Device, rules: Rules = Rules()) -> Placements:
    """Place every kernel on ``device``'s rooflines and classify it.
    Modelled kernels' compulsory bytes are first put on the level that holds
    their working set (:func:`roofline.core.compulsory.place_compulsory`)."""
    kernels = place_compulsory(kernels, device)
    n = len(kernels)
    warnings: list[Advice] = []
    no_flop_family = np.zeros(n, dtype=bool)
    for family in NO_FLOP_FAMILIES:
        no_flop_family |= kernels.families == family
    work = kernels.work()
    work = np.where(np.isnan(work) & no_flop_family, 0.0, work)

    t_compute = _compute_time(kernels, device)
    t_levels, intensity = _level_times(kernels, device, work, warnings)
    one = one_core_device(device) if np.any(kernels.threads == 1) else None
    if one is not None:  # kernels that ran on one thread go on the one-core roofs
        single = kernels.threads == 1
        t_compute = np.where(single, _compute_time(kernels, one), t_compute)
        t_one, _ = _level_times(kernels, one, work, [])
        t_levels = {lv: np.where(single, t_one[lv], t) if lv in t_one else t for lv, t in t_levels.items()}

    stack = np.vstack([t_compute] + list(t_levels.values()))
    limiter_names = ("compute",) + tuple(t_levels)
    known = ~np.all(np.isnan(stack), axis=0)
    filled = np.where(np.isnan(stack), -1.0, stack)
    limiter_index = np.where(known, np.argmax(filled, axis=0), -1).astype(np.int8)
    t_roof = np.where(known, np.max(filled, axis=0), math.nan)

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
    code[~(time_s > 0)] = _CODE[UNKNOWN]
    overhead = known & np.isfinite(efficiency) & (efficiency < rules.overhead_share)
    per_call = time_s / np.maximum(kernels.count, 1)
    launch_floor = rules.launch_multiple * (device.launch_overhead_s or 0.0)
    code[overhead & (per_call <= launch_floor)] = _CODE[LAUNCH]
    code[overhead & (per_call > launch_floor)] = _CODE[LATENCY]

    _warn_substituted(kernels, device, warnings)
    _warn_missing(kernels, work, known, no_flop_family, warnings)
    _warn_above_roof(kernels, efficiency, warnings)
    return Placements(kernels, device, work, t_compute, t_levels, t_roof,
                      limiter_names, limiter_index, code, efficiency, intensity, warnings)


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


def _warn_substituted(kernels, device, warnings):
    for precision, flops in kernels.flops.items():
        key = device.compute_key(precision)
        if key != precision and np.nansum(flops) > 0:
            warnings.append(Advice(
                f"device {device.name!r} has no {precision} ceiling; that work is timed on its {key} roof",
                f"add a {precision} ceiling to the device profile for an exact roof", subject=precision))


def _warn_missing(kernels, work, known, no_flop_family, warnings):
    no_counters = ~known
    unmodelled_ops = no_counters & (kernels.operators != "")
    if unmodelled_ops.any():
        warnings.append(Advice(
            f"{int(unmodelled_ops.sum())} row(s) linked to PyTorch operators have no modelled work and "
            "cannot be placed", "they are listed as unknown; the report's operator table shows their time",
            subject="models"))
    no_counters &= kernels.operators == ""
    if no_counters.any():
        warnings.append(Advice(
            f"{int(no_counters.sum())} kernel(s) have neither FLOP nor byte counters and cannot be placed",
            "collect FLOP and byte metrics (ncu --section SpeedOfLight_RooflineChart) "
            "or supply work from a cost model", subject="counters"))
    no_flops = known & np.isnan(work) & ~no_flop_family
    if no_flops.any():
        warnings.append(Advice(
            f"{int(no_flops.sum())} kernel(s) have byte counters but no FLOP counters; "
            "their compute roof is not checked",
            "add ncu --metrics smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,"
            "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,"
            "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", subject="counters"))


def _times(ratio: float) -> str:
    """2.13x; 6.4e+295x for a time of 1e-300 s; past the float range
    (5e-324 s), more than 1e308x."""
    if not math.isfinite(ratio):
        return "more than 1e308x"
    return f"{ratio:.2f}x" if ratio < 1e4 else f"{ratio:.2g}x"


def _warn_above_roof(kernels, efficiency, warnings, listed: int = 5):
    above = np.flatnonzero(np.nan_to_num(efficiency) > ABOVE_ROOF_TOLERANCE)
    for i in above[:listed]:
        warnings.append(Advice(
            f"runs at {_times(efficiency[i])} its roof",
            "check the counters and that the device profile matches the GPU the profile came from",
            subject=str(kernels.names[i])))
    if len(above) > listed:
        warnings.append(Advice(f"{len(above) - listed} more kernel(s) above their roof", subject="roof"))
