"""Overhead: the time a roofline does not explain, and why.

Three views, each a small function returning a frozen dataclass:

- :func:`kernel_overhead`: kernels whose time does not scale with their
  work. The evidence is the placement's (:mod:`roofline.core.evidence`):
  a fixed cost per call fitted across the sizes of one operator or kernel,
  a call near the profile's typical fixed cost, a GPU launch too small to
  fill the device, a framework operator with no work of its own. Their
  time by kind, the kernels with most of it, and the time fixed costs take
  in all (``calls x fixed cost``, whatever the kernels' class). Only
  plausible fits count (:func:`roofline.core.evidence.plausible_fits`);
  the number discarded is said, their fixed costs are not.
- :func:`program_overhead`: from the :class:`~roofline.importers.base.ProgramTime`
  of summaries and timelines,

      host API share = api / (api + GPU busy)
      GPU idle       = span - GPU busy,     idle share = idle / span

  When a file has no timeline (an nvprof summary), GPU busy is estimated
  as the sum of its kernel and copy times (``busy_estimated``). The host's
  launch cost (``calls x launch overhead``) belongs here too: it shows as
  gaps between kernels, never inside a kernel's duration.
- :func:`time_view`: the data of a time-based chart, time per call against
  FLOP per call, with the compute line (``t = W / peak``) and the profile's
  typical fixed cost: a call cannot take less than either.

:func:`analyze_overhead` gathers the three with advice. numpy only:
:mod:`roofline.render.overhead` writes them out and draws the time view.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from ..core.errors import Advice
from ..core.placement import CLASSES, OVERHEAD, Placements
from ..core.units import format_si

# Advice is given when overhead-bound kernels take this share of the kernel
# time, when host API time is this share of API + GPU busy, and when the GPU
# idles this share of the timeline.
OVERHEAD_ADVICE_SHARE = 0.10
API_ADVICE_SHARE = 0.5
IDLE_ADVICE_SHARE = 0.2

_OVERHEAD_CODE = CLASSES.index(OVERHEAD)


@dataclass(frozen=True)
class KernelTime:
    """One kernel name with its calls and time (a row of a top list)."""

    name: str
    calls: int
    time_s: float

    @property
    def per_call_s(self) -> float:
        return self.time_s / self.calls if self.calls else math.nan


@dataclass(frozen=True)
class KernelOverhead:
    """Overhead-bound kernels by kind, and fixed costs (see the module doc)."""

    total_time_s: float             # kernel time (NaN times excluded)
    total_calls: int
    overhead_rows: int
    overhead_calls: int
    overhead_time_s: float
    by_kind: dict[str, float]       # kind of overhead -> time of the kernels it bounds
    fixed_cost_s: float             # calls x fixed cost over every row that has one
    typical_fixed_s: float | None   # median fixed cost of the profile's fits
    fitted_groups: int              # operators or kernels whose fixed cost was fitted
    launch_overhead_s: float | None  # the device's host-side launch overhead
    top: tuple[KernelTime, ...] = ()  # overhead-bound kernels, by time
    discarded_fits: int = 0         # fits found implausible: no fixed cost (evidence.plausible_fits)
    dispatch_s: float | None = None  # CPU: the element-wise operators' typical fixed cost, fits' yardstick

    @property
    def overhead_share(self) -> float:
        return self.overhead_time_s / self.total_time_s if self.total_time_s > 0 else 0.0

    @property
    def fixed_cost_share(self) -> float:
        return self.fixed_cost_s / self.total_time_s if self.total_time_s > 0 else 0.0

    @property
    def launch_cost_s(self) -> float | None:
        """calls x launch overhead: host time the launches take at the least
        (program-level: it shows as gaps between kernels)."""
        if self.launch_overhead_s is None:
            return None
        return self.total_calls * self.launch_overhead_s


@dataclass(frozen=True)
class ProgramOverhead:
    """Host API time and GPU idle gaps of one or more programs."""

    api_s: dict[str, float]
    gpu_busy_s: float | None
    span_s: float | None
    idle_s: float | None
    busy_estimated: bool = False
    sources: tuple[str, ...] = ()

    @property
    def api_total_s(self) -> float:
        return float(sum(self.api_s.values()))

    @property
    def api_share(self) -> float | None:
        """api / (api + GPU busy); None when there is no API time or busy time."""
        if self.gpu_busy_s is None or not self.api_s:
            return None
        denom = self.api_total_s + self.gpu_busy_s
        return self.api_total_s / denom if denom > 0 else None

    @property
    def idle_share(self) -> float | None:
        if self.idle_s is None or not self.span_s:
            return None
        return self.idle_s / self.span_s

    def top_api(self, n: int = 5) -> list[tuple[str, float]]:
        return sorted(self.api_s.items(), key=lambda kv: -kv[1])[:n]


@dataclass(frozen=True)
class TimeView:
    """Per kernel row: FLOP per call (NaN when unknown) and time per call,
    with the two floors a call cannot go below."""

    names: np.ndarray
    work_per_call: np.ndarray
    time_per_call_s: np.ndarray
    time_s: np.ndarray
    code: np.ndarray                # index into placement.CLASSES
    fixed_cost_s: float | None      # the profile's typical fixed cost per call (fits)
    peak_flop_s: float
    device_name: str = ""

    def __len__(self) -> int:
        return len(self.names)

    def floor_s(self, work_per_call) -> np.ndarray:
        """max(typical fixed cost, W / peak): the least time a call takes."""
        w = np.asarray(work_per_call, dtype=float)
        return np.maximum(self.fixed_cost_s or 0.0, w / self.peak_flop_s)


@dataclass(frozen=True)
class OverheadAnalysis:
    kernels: KernelOverhead
    program: ProgramOverhead | None
    view: TimeView
    advice: tuple[Advice, ...] = field(default=())


# ---------------------------------------------------------------- analysis

def kernel_overhead(p: Placements, top: int = 8, groups=None) -> KernelOverhead:
    """Overhead-bound kernels and fixed costs of placed kernels. ``groups``:
    ``(codes, names)``, each row's index into a list of kernel names, when
    known (saves hashing a million names again)."""
    ks = p.kernels
    time = np.nan_to_num(ks.time_s)
    calls = np.maximum(ks.count, 1)
    overhead = p.code == _OVERHEAD_CODE
    kinds = p.overhead_kind
    by_kind = {}
    for kind in dict.fromkeys(kinds[overhead].tolist()):
        by_kind[str(kind)] = float(time[overhead & (kinds == kind)].sum())
    with np.errstate(invalid="ignore"):
        fixed = np.where(np.isfinite(p.fixed_s), np.minimum(p.fixed_s * calls, time), 0.0)
    typical = p.typical_fixed_s
    return KernelOverhead(
        total_time_s=float(time.sum()), total_calls=int(calls.sum()),
        overhead_rows=int(overhead.sum()), overhead_calls=int(calls[overhead].sum()),
        overhead_time_s=float(time[overhead].sum()), by_kind=dict(sorted(by_kind.items(), key=lambda kv: -kv[1])),
        fixed_cost_s=float(fixed.sum()), typical_fixed_s=typical if math.isfinite(typical) else None,
        fitted_groups=p.fitted_groups, launch_overhead_s=p.device.launch_overhead_s,
        top=_top_by_name(ks.names, overhead, calls, time, top, groups), discarded_fits=p.discarded_fits,
        dispatch_s=p.dispatch_s if math.isfinite(p.dispatch_s) else None)


def _top_by_name(names, listed, calls, time, n, groups=None) -> tuple[KernelTime, ...]:
    if not listed.any():
        return ()
    if groups is not None:
        codes, keys = groups[0][listed], [str(k) for k in groups[1]]
    else:
        index: dict[str, int] = {}
        codes = np.fromiter((index.setdefault(str(x), len(index)) for x in names[listed]), dtype=np.int64,
                            count=int(listed.sum()))
        keys = list(index)
    calls, time = calls[listed], time[listed]
    t = np.bincount(codes, weights=time, minlength=len(keys))
    c = np.bincount(codes, weights=calls, minlength=len(keys))
    order = [i for i in np.argsort(-t, kind="stable") if c[i] > 0][:n]  # groups with listed rows only
    return tuple(KernelTime(keys[i], int(c[i]), float(t[i])) for i in order)


def program_overhead(programs: Iterable) -> ProgramOverhead | None:
    """Host API share and GPU idle time of ImportResults (or ProgramTimes).

    API times are summed by call name over all programs; busy, span and idle
    are summed over those that report them. None when no program says
    anything about time outside kernels.
    """
    api: dict[str, float] = {}
    busy = span = idle = None
    estimated, sources = False, []
    for item in programs:
        prog = getattr(item, "program", item)
        if prog is None or not hasattr(prog, "api_s"):
            continue
        if not prog.api_s and prog.gpu_busy_s is None and prog.span_s is None:
            continue
        path = getattr(item, "path", None)
        if path:
            sources.append(str(path))
        for name, t in prog.api_s.items():
            api[name] = api.get(name, 0.0) + float(t)
        b = prog.gpu_busy_s
        if b is None and hasattr(item, "kernels"):  # a summary: kernel and copy times
            times = [k.time_s for k in item.kernels if k.time_s == k.time_s]
            if times:
                b, estimated = float(sum(times)), True
        if b is not None:
            busy = (busy or 0.0) + b
        if prog.span_s is not None:
            span = (span or 0.0) + prog.span_s
        if prog.idle_s is not None:
            idle = (idle or 0.0) + prog.idle_s
    if not sources and not api and busy is None and span is None:
        return None
    return ProgramOverhead(api, busy, span, idle, estimated, tuple(sources))


def time_view(p: Placements) -> TimeView:
    """Data of the time-based view: FLOP per call and time per call."""
    calls = np.maximum(p.kernels.count, 1)
    device = p.device
    used = [device.compute_key(k) for k, v in p.kernels.flops.items() if np.nansum(v) > 0]
    peak = max((device.compute[k].value for k in used), default=device.compute_rate(device.peak_precision))
    with np.errstate(invalid="ignore"):
        work = np.where(p.work > 0, p.work / calls, math.nan)
    return TimeView(names=p.kernels.names, work_per_call=work, time_per_call_s=p.kernels.time_s / calls,
                    time_s=p.kernels.time_s, code=p.code,
                    fixed_cost_s=p.typical_fixed_s if math.isfinite(p.typical_fixed_s) else None,
                    peak_flop_s=peak, device_name=device.name)


def analyze_overhead(p: Placements, programs: Iterable = (), groups=None) -> OverheadAnalysis:
    """Kernel overhead, program overhead and the time view, with advice
    (``groups`` as for :func:`kernel_overhead`)."""
    kernels = kernel_overhead(p, groups=groups)
    program = program_overhead(programs)
    return OverheadAnalysis(kernels, program, time_view(p), tuple(_advice(kernels, program, p.device.kind)))


# What to do about each kind of overhead, on a GPU and on a CPU.
_FIX = {
    ("dispatch", "cpu"): "fewer, larger operators: torch.compile, larger batches, fused operators",
    ("fixed cost", "gpu"): "fuse small kernels, give each launch more work, or capture the launches in a CUDA graph",
    ("fixed cost", "cpu"): "fewer, larger operators: torch.compile, larger batches, fused operators",
    ("under-fills the device", "gpu"): "give each launch enough thread blocks to fill every SM (larger batches, "
                                       "split-K, fusing)",
}


def _advice(kernels: KernelOverhead, program: ProgramOverhead | None, kind: str) -> list[Advice]:
    out = []
    share = kernels.overhead_share
    if share >= OVERHEAD_ADVICE_SHARE and kernels.by_kind:
        main = next(iter(kernels.by_kind))
        parts = ", ".join(f"{k} {format_si(t, 's')}" for k, t in kernels.by_kind.items())
        out.append(Advice(
            f"{100 * share:.0f}% of kernel time is overhead-bound, in {kernels.overhead_calls:,} calls ({parts})",
            _FIX.get((main, kind), "give each call more work, or fewer calls"), subject="overhead"))
    if program is not None:
        api = program.api_share
        if api is not None and api >= API_ADVICE_SHARE and program.top_api(1):
            name, t = program.top_api(1)[0]
            out.append(Advice(
                f"host API calls take {100 * api:.0f}% of API + GPU time "
                f"({name} alone {format_si(t, 's')})",
                "keep allocation, stream creation and synchronisation out of the timed loop",
                subject="host API"))
        idle = program.idle_share
        if idle is not None and idle >= IDLE_ADVICE_SHARE:
            out.append(Advice(
                f"the GPU is idle for {100 * idle:.0f}% of the timeline ({format_si(program.idle_s, 's')})",
                "overlap copies with compute on streams, prefetch inputs, move host work off the critical path",
                subject="GPU idle"))
    return out
