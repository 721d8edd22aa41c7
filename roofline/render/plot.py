"""Roofline charts with matplotlib (imported here only, never at package import).

``roofline_figure(placements)`` returns a matplotlib Figure built without
pyplot, so no global style or backend is touched.
"""
from __future__ import annotations

import math

import numpy as np

from .style import plain_text
from matplotlib.figure import Figure
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..core.model import HOST_LINK
from ..core.placement import Placements
from .names import short_name  # noqa: F401  (charts and tables label kernels with it)
from .style import CLASS_STYLE, LEVEL_COLOR, LEVEL_MARKER
from ..core.units import format_percent, format_si



MODELLED_EDGE = "#222222"


@plain_text
def roofline_figure(p: Placements, view: str = "auto", title: str | None = None,
                    label_top: int = 8, size=(10, 6.5)) -> Figure:
    """Hierarchical (a point per memory level) or cache-aware (one point at the
    nearest level) roofline of placed kernels; ``view='auto'`` picks
    hierarchical when some kernel has bytes at more than one level."""
    levels = [lv for lv in p.intensity if np.any(p.intensity[lv] > 0)]
    if view == "auto":
        multi = sum(np.isfinite(p.intensity[lv]) for lv in levels) if levels else 0
        view = "hierarchical" if np.any(np.asarray(multi) > 1) else "cache-aware"
    fig = Figure(figsize=size, layout="constrained")
    shown = _points(p, view)
    # kernels that cannot be drawn are listed in a panel under the chart,
    # where the list covers no roof label or point
    unplotted = np.flatnonzero(~_drawn(p, shown))
    if len(unplotted):
        grid = fig.add_gridspec(2, 1, height_ratios=[6.0, 1.0])
        ax = fig.add_subplot(grid[0])
        note = fig.add_subplot(grid[1])
        note.axis("off")
    else:
        ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_yscale("log")
    xlim, ylim = _limits(p, shown)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    _draw_ceilings(ax, p, xlim)
    _draw_cache_ranges(ax, p, shown)
    _draw_kernels(ax, p, shown, view, label_top)
    ax.set_xlabel("arithmetic intensity [FLOP/byte]" + _x_qualifier(levels, view))
    ax.set_ylabel("performance [FLOP/s]")
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)
    method = p.device.provenance.get("method", "")
    ax.set_title(title or f"{view.capitalize()} roofline on {p.roof_device.name}"
                 + (f" ({method})" if method else ""))
    _legend(ax, p, shown, view)
    if len(unplotted):
        _note_unplotted(note, p, unplotted)
    return fig


def _x_qualifier(levels, view) -> str:
    if view == "hierarchical":
        return " at each memory level"
    if len(levels) == 1:
        return f" over {levels[0]} bytes"
    return " over bytes at the nearest level with a counter"


# A chart spans at most this factor beyond the device's roofs (and its
# square below the peak): a kernel claiming 1e300 FLOP stretched the log
# axes past what matplotlib can put ticks on (an OverflowError). Such
# kernels are listed beside the chart instead.
_SPAN = 1e6


def _window(p: Placements) -> tuple[tuple[float, float], tuple[float, float]]:
    peak = max(c.value for c in p.roof_device.compute.values())
    ridges = [p.roof_device.ridge_point(lv) for lv in p.roof_device.memory] or [1.0]
    return (min(ridges) / _SPAN, max(ridges) * _SPAN), (peak / _SPAN ** 2, peak * _SPAN)


def chart_points(p: Placements, view: str) -> dict[str, np.ndarray]:
    """Level -> x of every kernel as a chart draws it (NaN where not drawn);
    y is achieved FLOP/s. The interactive report chart uses it too."""
    return _points(p, view)


def _points(p: Placements, view: str) -> dict[str, np.ndarray]:
    """Level -> x per kernel (NaN where not drawn); y is achieved FLOP/s."""
    (x_lo, x_hi), (y_lo, y_hi) = _window(p)
    y = p.achieved_flop_s
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(y) & (y > 0) & (y >= y_lo) & (y <= y_hi)

        def inside(x):
            return np.where(ok & (x >= x_lo) & (x <= x_hi), x, np.nan)
        if view == "hierarchical":
            return {lv: inside(x) for lv, x in p.intensity.items()}
        return {"": inside(p.cache_aware_intensity)}


def _drawn(p: Placements, shown) -> np.ndarray:
    """Kernels with a point at some level."""
    drawn = np.zeros(len(p), dtype=bool)
    for x in shown.values():
        drawn |= np.isfinite(x)
    return drawn


def _limits(p: Placements, shown):
    xs = np.concatenate([x[np.isfinite(x) & (x > 0)] for x in shown.values()] or [np.array([])])
    ys = p.achieved_flop_s[_drawn(p, shown)]
    peak = max(c.value for c in p.roof_device.compute.values())
    ridges = [p.roof_device.ridge_point(lv) for lv in p.roof_device.memory]
    lo_x = min([0.01] + list(xs / 3) + [r / 30 for r in ridges])
    hi_x = max([100.0] + list(xs * 3) + [r * 10 for r in ridges])
    lo_y = min([peak / 1e4] + list(ys / 3))
    return (lo_x, hi_x), (lo_y, peak * 2.5)


def _draw_ceilings(ax, p: Placements, xlim) -> None:
    device = p.roof_device
    # Roofs for the precisions the kernels use; the device's peak only when
    # no kernel has a FLOP counter. Bandwidth lines meet the highest of these.
    used = {device.compute_key(k) for k, v in p.kernels.flops.items() if np.nansum(v) > 0}
    used = used or {device.peak_precision}
    roofs = sorted(((k, device.compute[k].value) for k in used), key=lambda kv: -kv[1])
    top = roofs[0][1]
    for i, (key, rate) in enumerate(roofs):
        ax.axhline(rate, color="#333333", lw=1.6 if i == 0 else 1.0, ls="-" if i == 0 else "--", zorder=2)
        ax.text(xlim[1] / 1.15, rate * 1.08, f"{key.upper()} {format_si(rate, 'FLOP/s')}",
                ha="right", va="bottom", fontsize=9, color="#333333")
    along, previous = 0.06, None
    for lv, level in device.memory.items():
        # The host link only belongs on a FLOP roofline when kernels have
        # bytes there; copies (no FLOPs) are listed under the chart instead.
        if lv == HOST_LINK and not np.any(p.intensity.get(lv, np.array([0.0])) > 0):
            continue
        bw = level.bytes_s
        ridge = top / bw
        xs = np.array([xlim[0], min(ridge, xlim[1])])
        color = LEVEL_COLOR.get(lv, "#555555")
        ax.plot(xs, xs * bw, color=color, lw=1.4, zorder=2)
        if ridge < xlim[1]:
            ax.plot([ridge], [top], "o", color=color, ms=4, zorder=3)
            ax.annotate(f"{ridge:.3g}", (ridge, top), textcoords="offset points", xytext=(0, -12),
                        ha="center", fontsize=7, color=color)
        # a level within 2.5x of the previous one's bandwidth would put its
        # label on top of that one's: move it further along its line
        along = along + 0.11 if previous and previous / bw < 2.5 else 0.06
        previous = bw
        _label_diagonal(ax, xs, bw, f"{lv} {format_si(bw, 'B/s')}", color, along)
    if p.mixed_threads:
        _draw_one_core(ax, p, roofs[0][0], xlim)


def _draw_one_core(ax, p: Placements, key: str, xlim) -> None:
    """Dashed one-core compute and DRAM roofs, for the single-threaded
    kernels among multi-threaded ones."""
    from ..core.cores import one_core_device
    one = one_core_device(p.device)
    if one is None or key not in one.compute:
        return
    top = one.compute[key].value
    ax.axhline(top, color="#777777", lw=0.9, ls=":", zorder=2)
    ax.text(xlim[0] * 1.3, top * 1.08, f"1 core: {key.upper()} {format_si(top, 'FLOP/s')}",
            ha="left", va="bottom", fontsize=8, color="#555555")
    lv = "DRAM" if "DRAM" in one.memory else next(iter(one.memory), None)
    if lv is None:
        return
    bw = one.memory[lv].bytes_s
    xs = np.array([xlim[0], min(top / bw, xlim[1])])
    ax.plot(xs, xs * bw, color="#777777", lw=0.9, ls=":", zorder=2)


def _label_diagonal(ax, xs, bw, text, color, along: float = 0.12) -> None:
    """Label a bandwidth line along its slope, ``along`` of the way from its
    left end (levels are staggered: close bandwidths would stack labels)."""
    x = xs[0] * (xs[1] / xs[0]) ** along
    y = x * bw
    if not (ax.get_ylim()[0] < y < ax.get_ylim()[1]):
        x = ax.get_ylim()[0] * 2 / bw
        y = x * bw
    # angle of a slope-1 line in display coordinates
    p0 = ax.transData.transform((x, y))
    p1 = ax.transData.transform((x * 10, y * 10))
    angle = math.degrees(math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
    ax.text(x, y * 1.25, text, rotation=angle, rotation_mode="anchor", fontsize=8.5,
            color=color, ha="left", va="bottom", transform_rotates_text=False)


def _draw_kernels(ax, p: Placements, shown, view, label_top) -> None:
    y = p.achieved_flop_s
    time = np.nan_to_num(p.kernels.time_s)
    share = time / time.sum() if time.sum() > 0 else np.full(len(p), 1.0 / max(len(p), 1))
    sizes = 25 + 900 * share
    colors = np.array([CLASS_STYLE[c][0] for c in _fine_classes(p)], dtype=object)
    alpha = 0.85 if len(p) < 200 else 0.5
    if view == "hierarchical":  # thin line joining one kernel's levels
        xs = np.vstack(list(shown.values()))
        joined = np.flatnonzero(np.sum(np.isfinite(xs), axis=0) > 1)[:2000]
        segments = [[(np.nanmin(xs[:, i]), y[i]), (np.nanmax(xs[:, i]), y[i])] for i in joined]
        ax.add_collection(LineCollection(segments, colors=list(colors[joined]), linewidths=0.6,
                                         alpha=0.5, zorder=3))
    # Modelled work gets a dark edge: its bytes are compulsory bytes, so the
    # point is an upper bound on intensity (it may sit further left).
    edges = np.where(p.kernels.modelled, MODELLED_EDGE, "white")
    for lv, x in shown.items():
        draw = np.isfinite(x)
        ax.scatter(x[draw], y[draw], s=sizes[draw], c=list(colors[draw]),
                   marker=LEVEL_MARKER.get(lv, "o"), edgecolors=list(edges[draw]), linewidths=0.9,
                   alpha=alpha, zorder=4)
    _label_top(ax, p, shown, y, time, label_top)


def _cache_ranges(p: Placements, shown) -> tuple[list, str | None]:
    """Segments from the DRAM roof up to the last-level cache's roof at the
    intensity of modelled kernels whose working set fits in that cache but
    that are placed on DRAM: their roof lies somewhere between the two."""
    x = shown.get("")
    cache = p.cache_level
    device = p.roof_device
    if x is None or cache is None or cache not in device.memory or "DRAM" not in device.memory:
        return [], None
    rows = np.flatnonzero(p.fits_cache & np.isfinite(x) & (p.limiter == "DRAM"))[:2000]
    peak = max(c.value for c in device.compute.values())
    lo = np.minimum(peak, x[rows] * device.bandwidth("DRAM"))
    hi = np.minimum(peak, x[rows] * device.bandwidth(cache))
    return [[(xi, a), (xi, b)] for xi, a, b in zip(x[rows], lo, hi) if b > a], cache


def _draw_cache_ranges(ax, p: Placements, shown) -> None:
    segments, _ = _cache_ranges(p, shown)
    if segments:
        ax.add_collection(LineCollection(segments, colors="#777777", linewidths=0.9, linestyles=":",
                                         alpha=0.7, zorder=3))


def _fine_classes(p: Placements):
    from ..core.placement import CLASSES
    return [CLASSES[c] for c in p.code]


def _label_top(ax, p, shown, y, time, label_top) -> None:
    """Name the longest kernels; stagger labels so neighbours do not collide."""
    xs = np.vstack(list(shown.values()))
    x_any = np.array([np.nanmax(col) if np.isfinite(col).any() else np.nan for col in xs.T]) if xs.size else np.array([])
    order = [i for i in np.argsort(-time) if np.isfinite(x_any[i]) and np.isfinite(y[i])][:label_top]
    placed: list[tuple[float, float]] = []
    for i in order:
        pos = ax.transData.transform((x_any[i], y[i]))
        ax_x, ax_y = ax.transAxes.inverted().transform(pos)
        step = -13 if ax_y > 0.8 else 13  # below points near the compute roof
        dy = step + (1 if step > 0 else -1)
        while any(abs(pos[0] - px) < 120 and abs(pos[1] + dy - py) < 12 for px, py in placed):
            dy += step
        placed.append((pos[0], pos[1] + dy))
        variant = str(p.kernels.variants[i])
        label = short_name(str(p.kernels.names[i])) + (f" ({variant})" if variant else "")
        right = ax_x > 0.75  # labels of points near the right edge go to their left
        ax.annotate(label, (x_any[i], y[i]), textcoords="offset points",
                    xytext=(-8 if right else 8, dy), ha="right" if right else "left",
                    fontsize=8, color="#222222",
                    arrowprops=dict(arrowstyle="-", color="#888888", lw=0.6), zorder=5)


def _legend(ax, p, shown, view) -> None:
    present = set(_fine_classes(p))
    handles = [Patch(color=CLASS_STYLE[c][0], label=CLASS_STYLE[c][1]) for c in CLASS_STYLE if c in present]
    if view == "hierarchical":
        handles += [Line2D([], [], ls="", marker=LEVEL_MARKER.get(lv, "o"), color="#555555",
                           label=f"intensity at {lv}") for lv, x in shown.items() if np.isfinite(x).any()]
    handles.append(Line2D([], [], ls="", marker="o", color="#bbbbbb", ms=9, label="size = share of time"))
    segments, cache = _cache_ranges(p, shown)
    if segments:
        handles.append(Line2D([], [], color="#777777", lw=0.9, ls=":",
                              label=f"roof range: DRAM up to {cache}\n(working set fits in {cache})"))
    if p.kernels.modelled.any():
        handles.append(Line2D([], [], ls="", marker="o", color="#bbbbbb", markeredgecolor=MODELLED_EDGE, ms=9,
                              markeredgewidth=1.2, label="dark edge = modelled work\n(intensity is an upper bound)"))
    ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.9)


def _note_unplotted(ax, p: Placements, missing: np.ndarray) -> None:
    """Kernels that cannot sit on a FLOP roofline (copies, no counters) are
    listed with their bound in the panel ``ax``, so their time is not hidden."""
    time = np.nan_to_num(p.kernels.time_s)
    total = time.sum()
    top = sorted(missing.tolist(), key=lambda i: -time[i])[:4]
    lines = []
    for i, r in zip(top, p.records(top)):     # only the rows shown (a trace may hold a million)
        share = f"{100 * time[i] / total:.0f}% of time, " if total else ""
        bound = r["bound"] + (f" {r['level']}" if r["level"] else "")
        eff = f", {format_percent(r['efficiency'])} of roof" if r["efficiency"] is not None else ""
        lines.append(f"{short_name(r['name'], 44)}: {share}{bound}{eff}")
    if len(missing) > 4:
        lines.append(f"... and {len(missing) - 4} more")
    ax.text(0.0, 1.0, "not on this chart (no FLOPs, bytes or time, or far off the roofs):\n" + "\n".join(lines),
            transform=ax.transAxes, va="top", ha="left", fontsize=7.5, family="monospace", color="#333333")


def save_figure(fig: Figure, path) -> None:
    """Write PNG/SVG/PDF by extension, atomically."""
    from ..core.atomic import atomic_path
    from pathlib import Path
    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=fmt, dpi=150)
