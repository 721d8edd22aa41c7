"""Overhead: the time a roofline does not explain.

Three views, each a small function returning a frozen dataclass:

- :func:`launch_overhead`: kernels whose calls are too short to amortise a
  launch. A kernel is **launch-bound** (``placement.LAUNCH``) when the
  roofline explains less than ``Rules.overhead_share`` of its time and a
  call lasts at most ``Rules.launch_multiple`` x the device's launch
  overhead ``t_launch``. Because profiles without counters (Nsight Systems,
  Kineto) classify nothing, calls that short are also counted whatever
  their class (**short calls**). The **launch cost** is
  ``calls x t_launch``: the time the launches alone take at the least.
- :func:`program_overhead`: from the :class:`~roofline.importers.base.ProgramTime`
  of summaries and timelines,

      host API share = api / (api + GPU busy)
      GPU idle       = span - GPU busy,     idle share = idle / span

  When a file has no timeline (an nvprof summary), GPU busy is estimated
  as the sum of its kernel and copy times (``busy_estimated``).
- :func:`time_view`: the data of a time-based chart, time per call against
  FLOP per call, with the launch floor (``t = t_launch``) and the compute
  line (``t = W / peak``): a call cannot take less than either.

:func:`analyze_overhead` gathers the three with advice. numpy only:
:mod:`roofline.render.overhead` writes them out and draws the time view.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from ..core.errors import Advice
from ..core.placement import CLASSES, LATENCY, LAUNCH, Placements, Rules
from ..core.units import format_si

# Advice is given when launch-bound (or short) calls take this share of the
# kernel time, when host API time is this share of API + GPU busy, and when
# the GPU idles this share of the timeline.
LAUNCH_ADVICE_SHARE = 0.10
API_ADVICE_SHARE = 0.5
IDLE_ADVICE_SHARE = 0.2

_LAUNCH_CODE = CLASSES.index(LAUNCH)
_LATENCY_CODE = CLASSES.index(LATENCY)


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
class LaunchOverhead:
    """Launch-bound kernels and short calls against the device's launch
    overhead (see the module doc)."""

    launch_overhead_s: float | None
    threshold_s: float | None       # launch_multiple x launch overhead
    total_time_s: float             # kernel time (NaN times excluded)
    total_calls: int
    launch_bound_rows: int          # placement rows classified launch-bound
    launch_bound_calls: int
    launch_bound_time_s: float
    latency_bound_time_s: float     # the other kind of overhead, for context
    short_calls: int                # calls <= threshold, whatever their class
    short_time_s: float
    top: tuple[KernelTime, ...] = ()  # launch-bound or short kernels, by time

    @property
    def launch_bound_share(self) -> float:
        return self.launch_bound_time_s / self.total_time_s if self.total_time_s > 0 else 0.0

    @property
    def latency_bound_share(self) -> float:
        return self.latency_bound_time_s / self.total_time_s if self.total_time_s > 0 else 0.0

    @property
    def short_share(self) -> float:
        return self.short_time_s / self.total_time_s if self.total_time_s > 0 else 0.0

    @property
    def launch_cost_s(self) -> float | None:
        """calls x launch overhead: the least time the launches alone take."""
        if self.launch_overhead_s is None:
            return None
        return self.total_calls * self.launch_overhead_s

    @property
    def launch_cost_share(self) -> float | None:
        cost = self.launch_cost_s
        if cost is None or not self.total_time_s > 0:
            return None
        return cost / self.total_time_s


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
    launch_overhead_s: float | None
    threshold_s: float | None
    peak_flop_s: float
    device_name: str = ""

    def __len__(self) -> int:
        return len(self.names)

    def floor_s(self, work_per_call) -> np.ndarray:
        """max(launch overhead, W / peak): the least time a call can take."""
        w = np.asarray(work_per_call, dtype=float)
        return np.maximum(self.launch_overhead_s or 0.0, w / self.peak_flop_s)


@dataclass(frozen=True)
class OverheadAnalysis:
    launch: LaunchOverhead
    program: ProgramOverhead | None
    view: TimeView
    advice: tuple[Advice, ...] = field(default=())


# ---------------------------------------------------------------- analysis

def launch_overhead(p: Placements, rules: Rules = Rules(), top: int = 8, groups=None) -> LaunchOverhead:
    """Launch-bound kernels and short calls of placed kernels. ``groups``:
    ``(codes, names)``, each row's index into a list of kernel names, when
    known (saves hashing a million names again)."""
    ks = p.kernels
    t_launch = p.device.launch_overhead_s
    threshold = None if t_launch is None else rules.launch_multiple * t_launch
    time = np.nan_to_num(ks.time_s)
    calls = np.maximum(ks.count, 1)
    per_call = ks.time_s / calls
    launch = p.code == _LAUNCH_CODE
    latency = p.code == _LATENCY_CODE
    short = (np.isfinite(per_call) & (per_call <= threshold)) if threshold else np.zeros(len(ks), bool)
    listed = launch | short
    return LaunchOverhead(
        launch_overhead_s=t_launch, threshold_s=threshold,
        total_time_s=float(time.sum()), total_calls=int(calls.sum()),
        launch_bound_rows=int(launch.sum()), launch_bound_calls=int(calls[launch].sum()),
        launch_bound_time_s=float(time[launch].sum()),
        latency_bound_time_s=float(time[latency].sum()),
        short_calls=int(calls[short].sum()), short_time_s=float(time[short].sum()),
        top=_top_by_name(ks.names, listed, calls, time, top, groups))


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


def time_view(p: Placements, rules: Rules = Rules()) -> TimeView:
    """Data of the time-based view: FLOP per call and time per call."""
    calls = np.maximum(p.kernels.count, 1)
    device = p.device
    used = [device.compute_key(k) for k, v in p.kernels.flops.items() if np.nansum(v) > 0]
    peak = max((device.compute[k].value for k in used), default=device.compute_rate(device.peak_precision))
    with np.errstate(invalid="ignore"):
        work = np.where(p.work > 0, p.work / calls, math.nan)
    return TimeView(names=p.kernels.names, work_per_call=work, time_per_call_s=p.kernels.time_s / calls,
                    time_s=p.kernels.time_s, code=p.code, launch_overhead_s=device.launch_overhead_s,
                    threshold_s=None if device.launch_overhead_s is None
                    else rules.launch_multiple * device.launch_overhead_s, peak_flop_s=peak,
                    device_name=device.name)


def analyze_overhead(p: Placements, programs: Iterable = (), rules: Rules = Rules(),
                     groups=None) -> OverheadAnalysis:
    """Launch overhead, program overhead and the time view, with advice
    (``groups`` as for :func:`launch_overhead`)."""
    launch = launch_overhead(p, rules, groups=groups)
    program = program_overhead(programs)
    view = time_view(p, rules)
    return OverheadAnalysis(launch, program, view, tuple(_advice(launch, program)))


def _advice(launch: LaunchOverhead, program: ProgramOverhead | None) -> list[Advice]:
    out = []
    # short calls of any class are listed in the table, but only launch-bound
    # ones (roofline time under half the measured time) earn this advice
    share = launch.launch_bound_share
    if launch.threshold_s is not None and share >= LAUNCH_ADVICE_SHARE:
        calls = launch.launch_bound_calls
        out.append(Advice(
            f"{100 * share:.0f}% of kernel time is in {calls:,} calls of at most "
            f"{format_si(launch.threshold_s, 's')} (launch-bound)",
            "fuse small kernels, give each launch more work, or capture the launches in a CUDA graph",
            subject="launch overhead"))
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
