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

:func:`analyze_overhead` gathers the three with advice, and
:func:`overhead_text` formats them as a string. numpy only;
:func:`time_view_figure` imports matplotlib when called.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from .style import plain_text

from .errors import Advice
from .placement import CLASSES, LATENCY, LAUNCH, Placements, Rules
from .units import format_si

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


# ---------------------------------------------------------------- formatter

def overhead_text(a: OverheadAnalysis) -> str:
    """The analysis as plain text."""
    L = a.launch
    lines = ["launch overhead"]
    if L.launch_overhead_s is None:
        lines.append("  the device profile has no launch overhead; launch-bound kernels cannot be found")
    else:
        lines.append(f"  device launch overhead {format_si(L.launch_overhead_s, 's')}; "
                     f"launch-bound below {format_si(L.threshold_s, 's')} per call")
        lines.append(f"  launch-bound: {L.launch_bound_rows} kernel(s), {L.launch_bound_calls:,} calls, "
                     f"{format_si(L.launch_bound_time_s, 's')} ({_pct(L.launch_bound_share)} of kernel time)")
        lines.append(f"  short calls (any class): {L.short_calls:,} of {L.total_calls:,}, "
                     f"{format_si(L.short_time_s, 's')} ({_pct(L.short_share)})")
        lines.append(f"  launch cost (calls x overhead): {format_si(L.launch_cost_s, 's')} "
                     f"({_pct(L.launch_cost_share)} of kernel time)")
    lines.append(f"  latency/occupancy-bound: {format_si(L.latency_bound_time_s, 's')} "
                 f"({_pct(L.latency_bound_share)} of kernel time)")
    for k in L.top:
        lines.append(f"    {k.name[:60]:<60} {k.calls:>9,} calls  {format_si(k.per_call_s, 's'):>9}/call")
    P = a.program
    if P is not None:
        lines.append("program")
        busy = "n/a" if P.gpu_busy_s is None else format_si(P.gpu_busy_s, "s")
        est = " (estimated from kernel and copy times)" if P.busy_estimated else ""
        api = format_si(P.api_total_s, "s") if P.api_s else "n/a"
        lines.append(f"  host API {api}, GPU busy {busy}{est}, API share {_pct(P.api_share)}")
        if P.span_s is not None:
            lines.append(f"  timeline span {format_si(P.span_s, 's')}, GPU idle "
                         f"{format_si(P.idle_s, 's') if P.idle_s is not None else 'n/a'} ({_pct(P.idle_share)})")
        for name, t in P.top_api():
            lines.append(f"    {name[:60]:<60} {format_si(t, 's'):>9}")
    for w in a.advice:
        lines.append(f"advice: {w}")
    return "\n".join(lines) + "\n"


def _pct(x) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{100 * x:.1f}%"


# ---------------------------------------------------------------- figure

WORK_SPAN = 1e6   # at most this factor above the compute line is drawn where it is


@plain_text
def time_view_figure(view: TimeView, title: str | None = None, size=(10, 5.5), max_points: int = 2000,
                     label_top: int = 6):
    """Matplotlib Figure (no pyplot): time per call against FLOP per call,
    the launch floor and the compute line; kernels without a FLOP count in a
    strip on the left. Over ``max_points`` rows, a density replaces points."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from .plot import CLASS_STYLE, short_name
    fig = Figure(figsize=size, layout="constrained")
    ax = fig.add_subplot()
    ax.set(xscale="log", yscale="log")
    t = view.time_per_call_s
    w = view.work_per_call
    ok_t = np.isfinite(t) & (t > 0)
    # work that would run far above the peak (1e300 FLOP in a millisecond)
    # is drawn in the strip: it would stretch the axis past matplotlib's ticks
    with np.errstate(invalid="ignore", over="ignore"):
        has_w = ok_t & np.isfinite(w) & (w > 0) & (w <= t * view.peak_flop_s * WORK_SPAN)
    floor = view.launch_overhead_s
    ts = t[ok_t]
    ws = w[has_w]
    lo_y = min([ts.min() / 3 if ts.size else 1e-6] + ([floor / 3] if floor else []))
    hi_y = max([ts.max() * 3 if ts.size else 1e-2] + ([floor * 30] if floor else []))
    # without FLOP counts, span the work where W / peak crosses the time range
    lo_w = ws.min() / 10 if ws.size else max(lo_y * view.peak_flop_s / 30, 1.0)
    hi_w = ws.max() * 3 if ws.size else hi_y * view.peak_flop_s
    # the compute line should be visible: extend x to where W / peak reaches the floor
    if floor:
        lo_w = min(lo_w, floor * view.peak_flop_s / 30)
    strip = lo_w  # kernels with no FLOP count sit at the left edge
    xlim = (lo_w / 3, hi_w)
    ax.set_xlim(*xlim)
    ax.set_ylim(lo_y, hi_y)
    xs = np.geomspace(xlim[0], xlim[1], 200)
    ax.plot(xs, xs / view.peak_flop_s, color="#333333", lw=1.4, zorder=2)
    x_label = min(xlim[1] / 1.2, hi_y / 3 * view.peak_flop_s)  # on the line, inside the axes
    ax.text(x_label, x_label / view.peak_flop_s / 1.6, f"W / peak ({format_si(view.peak_flop_s, 'FLOP/s')})",
            ha="right", va="top", fontsize=8.5, color="#333333", clip_on=True)
    if floor:
        ax.axhline(floor, color="#E69F00", lw=1.6, zorder=2)
        ax.text(xlim[0] * 1.2, floor * 0.8, f"launch overhead {format_si(floor, 's')}",
                va="top", fontsize=8.5, color="#9a6a00")
        if view.threshold_s:
            ax.axhline(view.threshold_s, color="#E69F00", lw=1.0, ls="--", zorder=2)
            ax.text(xlim[0] * 1.2, view.threshold_s * 1.15, f"launch-bound below {format_si(view.threshold_s, 's')}",
                    va="bottom", fontsize=8, color="#9a6a00")
    x = np.where(has_w, w, strip)
    ax.axvspan(xlim[0], strip * 1.6, color="#ebebeb", zorder=0)
    time = np.nan_to_num(view.time_s)
    classes = [CLASSES[c] for c in view.code]
    if len(view) > max_points:
        from .plot_density import draw_density
        draw_density(ax, x[ok_t], t[ok_t], label="density of all rows")
    else:
        share = time / time.sum() if time.sum() > 0 else np.full(len(view), 1.0)
        colors = [CLASS_STYLE[c][0] for c in classes]
        ax.scatter(x[ok_t], t[ok_t], s=(20 + 500 * share)[ok_t], c=[colors[i] for i in np.flatnonzero(ok_t)],
                   edgecolors="white", linewidths=0.6, alpha=0.85, zorder=4)
        _label_names(ax, view.names, x, t, time, ok_t, label_top, short_name)
    present = [c for c in CLASS_STYLE if c in set(classes)] if len(view) <= max_points else []
    handles = [Patch(color=CLASS_STYLE[c][0], label=CLASS_STYLE[c][1]) for c in present]
    handles.append(Line2D([], [], color="#333333", label="compute floor W / peak"))
    handles.append(Patch(facecolor="#ebebeb", edgecolor="#cccccc", label="no FLOP count, or far off the compute line (left strip)"))
    if floor:
        handles.append(Line2D([], [], color="#E69F00", label="launch floor"))
    # below both floors nothing can run: the lower right corner is always free
    ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.9)
    ax.set_xlabel("work per call [FLOP]")
    ax.set_ylabel("time per call [s]")
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title(title or f"Time per call against work on {view.device_name}")
    return fig


def _label_names(ax, names, x, t, time, ok, n, short_name) -> None:
    """Name the ``n`` kernel names with the most time (one label per name, at
    its longest row), left of the point in the right half, stacked so
    neighbours do not collide."""
    best: dict[str, int] = {}
    for i in np.argsort(-time):
        if ok[i]:
            best.setdefault(short_name(str(names[i]), 40), int(i))
        if len(best) >= n:
            break
    placed: list[tuple[float, float]] = []
    mid = ax.transAxes.transform((0.62, 0))[0]
    for label, i in best.items():
        px, py = ax.transData.transform((x[i], t[i]))
        right = px < mid
        dy = 4.0
        while any(abs(px - qx) < 190 and abs(py + dy - qy) < 11 for qx, qy in placed):
            dy -= 11
        placed.append((px, py + dy))
        ax.annotate(label, (x[i], t[i]), textcoords="offset points", xytext=(7 if right else -7, dy),
                    ha="left" if right else "right", va="center", fontsize=7.5, color="#222222", zorder=5,
                    arrowprops=dict(arrowstyle="-", color="#aaaaaa", lw=0.5, shrinkA=0, shrinkB=3)
                    if abs(dy) > 6 else None)
