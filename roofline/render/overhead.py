"""The overhead analysis (:mod:`roofline.analysis.overhead`) written out and
drawn: :func:`overhead_text` as plain text, :func:`time_view_figure` as a
chart of time per call against FLOP per call with the profile's typical
fixed cost and the compute line (matplotlib, imported when called)."""
from __future__ import annotations

import math

import numpy as np

from ..analysis.overhead import OverheadAnalysis, TimeView
from ..core.evidence import FAR_ABOVE
from ..core.placement import CLASSES
from ..core.units import format_si
from .style import plain_text


def overhead_text(a: OverheadAnalysis) -> str:
    """The analysis as plain text."""
    K = a.kernels
    lines = ["kernel overhead (time that does not scale with the work)"]
    lines.append(f"  overhead-bound: {K.overhead_rows} kernel(s), {K.overhead_calls:,} calls, "
                 f"{format_si(K.overhead_time_s, 's')} ({_pct(K.overhead_share)} of kernel time)")
    for kind, t in K.by_kind.items():
        lines.append(f"    {kind}: {format_si(t, 's')} ({_pct(t / K.total_time_s if K.total_time_s else None)})")
    if K.fitted_groups:
        lines.append(f"  fixed costs fitted across sizes for {K.fitted_groups} operator(s)/kernel(s), "
                     f"typical {format_si(K.typical_fixed_s, 's')} per call; all fixed costs "
                     f"{format_si(K.fixed_cost_s, 's')} ({_pct(K.fixed_cost_share)} of kernel time)")
    elif not K.discarded_fits:
        lines.append("  no operator or kernel appears at enough sizes to fit a fixed cost")
    if K.discarded_fits:
        yardstick = (f"or more than {FAR_ABOVE:g}x the element-wise operators' {format_si(K.dispatch_s, 's')}"
                     if K.dispatch_s is not None else "or far above any dispatch cost")
        lines.append(f"  {K.discarded_fits} fit(s) across sizes discarded as no fixed cost (larger than the "
                     f"shortest call, {yardstick}): slow work, not overhead")
    for k in K.top:
        lines.append(f"    {k.name[:60]:<60} {k.calls:>9,} calls  {format_si(k.per_call_s, 's'):>9}/call")
    if K.launch_cost_s is not None:
        lines.append(f"  host launch cost (calls x launch overhead {format_si(K.launch_overhead_s, 's')}): "
                     f"{format_si(K.launch_cost_s, 's')}, program-level: it shows as gaps between kernels")
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


WORK_SPAN = 1e6   # at most this factor above the compute line is drawn where it is


@plain_text
def time_view_figure(view: TimeView, title: str | None = None, size=(10, 5.5), max_points: int = 2000,
                     label_top: int = 6):
    """Matplotlib Figure (no pyplot): time per call against FLOP per call,
    the profile's typical fixed cost and the compute line; kernels without a
    FLOP count in a strip on the left. Over ``max_points`` rows, a density
    replaces points."""
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
    floor = view.fixed_cost_s
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
    # left of the line at its height there: a text under the line's end ran across it
    ax.text(x_label / 1.5, x_label / view.peak_flop_s, f"W / peak ({format_si(view.peak_flop_s, 'FLOP/s')})",
            ha="right", va="center", fontsize=8.5, color="#333333", clip_on=True)
    if floor:
        ax.axhline(floor, color="#E69F00", lw=1.6, zorder=2)
        ax.text(xlim[0] * 1.2, floor * 0.8, f"typical fixed cost {format_si(floor, 's')} (fitted across sizes)",
                va="top", fontsize=8.5, color="#9a6a00")
    x = np.where(has_w, w, strip)
    ax.axvspan(xlim[0], strip * 1.6, color="#ebebeb", zorder=0)
    time = np.nan_to_num(view.time_s)
    classes = [CLASSES[c] for c in view.code]
    if len(view) > max_points:
        from .density import draw_density
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
        handles.append(Line2D([], [], color="#E69F00", label="typical fixed cost per call"))
    line = np.column_stack([xs, xs / view.peak_flop_s])
    dots = np.column_stack([x[ok_t], t[ok_t]])
    place_legend(ax, handles, np.vstack([line, dots]) if len(dots) else line)
    ax.set_xlabel("work per call [FLOP]")
    ax.set_ylabel("time per call [s]")
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title(title or f"Time per call against work on {view.device_name}")
    return fig


LEGEND_PLACES = ("lower right", "upper left", "center right", "lower center", "upper center")


def place_legend(ax, handles, avoid: np.ndarray) -> None:
    """The legend at the first of :data:`LEGEND_PLACES` whose box holds no
    point of ``avoid`` (data coordinates: the W / peak line sampled along its
    length, the markers) and no text; right of the axes when none is free.
    The line runs from lower left to upper right, so which corner is free
    depends on the axes' span, not on a rule."""
    fig = ax.figure
    xy = ax.transData.transform(avoid) if len(avoid) else np.empty((0, 2))
    for loc in LEGEND_PLACES:
        legend = ax.legend(handles=handles, loc=loc, fontsize=8, framealpha=0.9)
        fig.draw_without_rendering()
        box = legend.get_window_extent().padded(2)
        inside = (xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)
        texts = [t.get_window_extent() for t in ax.texts if t.get_visible() and t.get_text()]
        if not inside.any() and not any(box.overlaps(t) for t in texts):
            return
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, framealpha=0.9)


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
