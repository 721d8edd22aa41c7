"""``roofline diff``: what changed between two runs, or between two devices.

Two runs of the same program (placements on a device each): kernels are
matched by name (variants and repeated rows are summed) or by family, and
each row says

    time A, time B, speed-up = time A / time B, delta = time B - time A,
    % of roof (efficiency = roofline time / time) on each side, bound on each side

For a group of kernels the efficiency is sum(t_roof) / sum(t) over the
members that have a roof (a time-weighted mean), and the bound is the class
with the most time, as in the report (:mod:`.groups`). Rows come by
descending |delta|.

Two device profiles: every ceiling (compute per precision, bandwidth per
level, instruction rate, launch overhead) side by side with ratio B / A.

:mod:`roofline.render.diff` writes either comparison as a table or JSON.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.aggregate import factorize
from ..core.model import Device
from ..core.placement import Placements
from .groups import GroupSummary, summarize


@dataclass(frozen=True)
class KernelChange:
    key: str
    time_a_s: float | None
    time_b_s: float | None
    count_a: int
    count_b: int
    efficiency_a: float | None
    efficiency_b: float | None
    bound_a: str | None
    bound_b: str | None

    @property
    def delta_s(self) -> float | None:
        if self.time_a_s is None or self.time_b_s is None:
            return None
        return self.time_b_s - self.time_a_s

    @property
    def speedup(self) -> float | None:
        if not self.time_a_s or not self.time_b_s:
            return None
        return self.time_a_s / self.time_b_s

    @property
    def status(self) -> str:
        if self.time_a_s is None and self.count_a == 0:
            return "only in B"
        if self.time_b_s is None and self.count_b == 0:
            return "only in A"
        known_a, known_b = _known(self.bound_a), _known(self.bound_b)
        if known_a and known_b:
            return "bound changed" if self.bound_a != self.bound_b else ""
        if known_a != known_b:
            return "no counters in B" if known_a else "no counters in A"
        return ""

    def record(self) -> dict:
        return {"key": self.key, "time_a_s": self.time_a_s, "time_b_s": self.time_b_s,
                "delta_s": self.delta_s, "speedup": self.speedup,
                "count_a": self.count_a, "count_b": self.count_b,
                "efficiency_a": self.efficiency_a, "efficiency_b": self.efficiency_b,
                "bound_a": self.bound_a, "bound_b": self.bound_b, "status": self.status}


@dataclass(frozen=True)
class PlacementDiff:
    by: str
    device_a: str
    device_b: str
    rows: tuple[KernelChange, ...]
    total_a_s: float
    total_b_s: float

    @property
    def speedup(self) -> float | None:
        return self.total_a_s / self.total_b_s if self.total_b_s else None

    def records(self) -> list[dict]:
        return [r.record() for r in self.rows]


@dataclass(frozen=True)
class CeilingChange:
    kind: str      # compute, memory, issue, launch
    key: str
    unit: str
    value_a: float | None
    value_b: float | None

    @property
    def ratio(self) -> float | None:
        return self.value_b / self.value_a if self.value_a and self.value_b else None

    def record(self) -> dict:
        return {"kind": self.kind, "key": self.key, "unit": self.unit, "a": self.value_a,
                "b": self.value_b, "ratio": self.ratio}


@dataclass(frozen=True)
class DeviceDiff:
    device_a: str
    device_b: str
    rows: tuple[CeilingChange, ...] = field(default=())

    def records(self) -> list[dict]:
        return [r.record() for r in self.rows]


def diff_placements(a: Placements, b: Placements, by: str = "name") -> PlacementDiff:
    """Match the kernels of two placements by ``name`` or ``family``."""
    if by not in ("name", "family"):
        raise ValueError(f"diff by 'name' or 'family', not {by!r}")
    keys_a, sum_a = _groups(a, by)
    keys_b, sum_b = _groups(b, by)
    index_a, index_b = {k: i for i, k in enumerate(keys_a)}, {k: i for i, k in enumerate(keys_b)}
    keys = keys_a + [k for k in keys_b if k not in index_a]
    rows = [_change(key, sum_a, index_a.get(key), sum_b, index_b.get(key)) for key in keys]
    rows.sort(key=lambda r: -abs(r.delta_s if r.delta_s is not None else (r.time_a_s or r.time_b_s or 0.0)))
    return PlacementDiff(by, a.device.name, b.device.name, tuple(rows),
                         _total(sum_a), _total(sum_b))


def _groups(p: Placements, by: str) -> tuple[list[str], GroupSummary]:
    """The keys in order of first appearance and their summary."""
    codes, keys = factorize(p.kernels.names if by == "name" else p.kernels.families)
    return [str(k) for k in keys], summarize(p, codes, len(keys))


def _total(s: GroupSummary) -> float:
    # the groups' times added in key order, as the totals always were (a
    # pairwise sum could differ in the last digit JSON writes)
    return float(sum(s.time_s.tolist()))


def _change(key: str, a: GroupSummary, i: int | None, b: GroupSummary, j: int | None) -> KernelChange:
    """One key's row; a side without the key has no time, no calls and no bound."""
    def side(s: GroupSummary, k: int | None):
        if k is None:
            return None, 0, None, None
        eff = s.efficiency[k]
        return (float(s.time_s[k]) if s.timed[k] else None, int(s.calls[k]),
                None if np.isnan(eff) else float(eff), str(s.bound[k]))
    ta, ca, ea, ba = side(a, i)
    tb, cb, eb, bb = side(b, j)
    return KernelChange(key, ta, tb, ca, cb, ea, eb, ba, bb)


def diff_devices(a: Device, b: Device) -> DeviceDiff:
    """Every ceiling of two device profiles side by side."""
    rows = []
    for key in _union(a.compute, b.compute):
        rows.append(CeilingChange("compute", key, "FLOP/s", _value(a.compute.get(key)),
                                  _value(b.compute.get(key))))
    for key in _union(a.memory, b.memory):
        ma, mb = a.memory.get(key), b.memory.get(key)
        rows.append(CeilingChange("memory", key, "B/s", ma and ma.bytes_s, mb and mb.bytes_s))
    if a.instruction_rate or b.instruction_rate:
        key = "warp instructions" if "gpu" in (a.kind, b.kind) else "instructions"
        rows.append(CeilingChange("issue", key, "inst/s",
                                  _value(a.instruction_rate), _value(b.instruction_rate)))
    if a.launch_overhead_s or b.launch_overhead_s:
        rows.append(CeilingChange("launch", "launch_overhead", "s", a.launch_overhead_s, b.launch_overhead_s))
    return DeviceDiff(a.name, b.name, tuple(rows))


def _union(first, second) -> list[str]:
    return list(first) + [k for k in second if k not in first]


def _value(ceiling) -> float | None:
    return None if ceiling is None else ceiling.value


def _known(bound) -> bool:
    """A bound class that was measured (not unknown / no counters)."""
    return bool(bound) and str(bound) not in ("unknown", "no counters")
