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

from ..core.placement import Placements
from .geometry import fitted_limits, placement_roofs
from .labels import Occupied, offsets
from .names import short_name  # noqa: F401  (charts and tables label kernels with it)
from .style import CLASS_STYLE, LEVEL_COLOR, LEVEL_MARKER
from ..core.units import format_percent, format_si



MODELLED_EDGE = "#222222"
# Artists carry ids (SVG group ids when saved as SVG) so a chart can be
# read back by content: a roof, the kernels at a level, a label.
COMPUTE_GID, BANDWIDTH_GID, KERNELS_GID = "roof-compute-", "roof-bandwidth-", "kernels-"
ROOF_LABEL_GID, KERNEL_LABEL_GID, RIDGE_LABEL_GID = "roof-label", "kernel-label", "ridge-label"


def halo():
    """A white outline around a roof or ridge label: readable over the grey
    density of a dense chart and over the grid."""
    from matplotlib import patheffects
    return [patheffects.withStroke(linewidth=2.5, foreground="white")]


@plain_text
def roofline_figure(p: Placements, view: str = "auto", title: str | None = None,
                    label_top: int = 8, size=(10, 6.5), banner: str = "", unlabelled=frozenset(),
                    ax=None, decorate=None) -> Figure:
    """Hierarchical (a point per memory level) or cache-aware (one point at the
    nearest level) roofline of placed kernels; ``view='auto'`` picks
    hierarchical when some kernel has bytes at more than one level.
    ``banner``: a note boxed above the axes (:func:`draw_banner`);
    ``unlabelled``: rows not to name (another label names them); ``ax``:
    matplotlib axes to draw into (a subplot of your own figure; the kernels
    that cannot be drawn are then not listed under it); ``decorate``: a
    function of the axes run after the markers and before the kernel names
    (variant arrows and their chain labels), returning the boxes and
    leaders it drew in display pixels, which the names then keep off.
    Returns the figure."""
    levels = [lv for lv in p.intensity if np.any(p.intensity[lv] > 0)]
    if view == "auto":
        multi = sum(np.isfinite(p.intensity[lv]) for lv in levels) if levels else 0
        view = "hierarchical" if np.any(np.asarray(multi) > 1) else "cache-aware"
    shown = _points(p, view)
    own = ax is None           # a figure of our own: the unplotted list and the banner go in it
    fig = Figure(figsize=size, layout="constrained") if own else ax.figure
    # kernels that cannot be drawn are listed in a panel under the chart,
    # where the list covers no roof label or point
    unplotted = np.flatnonzero(~_drawn(p, shown))
    if ax is None and len(unplotted):
        grid = fig.add_gridspec(2, 1, height_ratios=[6.0, 1.0])
        ax = fig.add_subplot(grid[0])
        _note_unplotted(fig.add_subplot(grid[1]), p, unplotted)
    elif ax is None:
        ax = fig.add_subplot()
    _frame(ax, p, shown, view, levels, title)
    if banner and own:
        draw_banner(fig, banner)
    # Lay the frame out now, so labels placed in display units (the slope
    # of a roof's label, kernel labels kept off each other) stay where the
    # saved figure puts them.
    fig.draw_without_rendering()
    occupied = Occupied(ax)
    for x in shown.values():
        occupied.take_points(x, p.achieved_flop_s, _marker_sizes(p))
    _draw_ceilings(ax, p, ax.get_xlim(), occupied)
    _draw_cache_ranges(ax, p, shown)
    _legend(ax, p, shown, view)
    _draw_kernels(ax, p, shown, view)
    if decorate is not None:
        boxes, leaders = decorate(ax)
        occupied.take(boxes, text=True)
        for lead in leaders:
            occupied.take_leader(lead)
    # the legend (as decorated) before the names: no name may go under it
    occupied.take([tuple(ax.get_legend().get_window_extent().padded(2).extents)], text=True)
    left_off = _label_top(ax, p, shown, p.achieved_flop_s, np.nan_to_num(p.kernels.time_s), label_top,
                          occupied, unlabelled)
    if left_off:
        note_left_off(ax, left_off)
    return fig


def note_left_off(ax, count: int) -> None:
    """Say under the x axis how many kernel labels found no free place (the
    report's tables name those kernels), rather than leave them out unseen."""
    ax.set_xlabel(ax.get_xlabel() + f"\n({count} kernel label{'s' if count > 1 else ''} left off: "
                  "no free place on the chart)")


def _frame(ax, p: Placements, shown, view, levels, title) -> None:
    from .style import plain_log_ticks
    ax.set_xscale("log")
    ax.set_yscale("log")
    xlim, ylim = _limits(p, shown)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    plain_log_ticks(ax)
    ax.set_xlabel("arithmetic intensity [FLOP/byte]" + _x_qualifier(levels, view))
    ax.set_ylabel("performance [FLOP/s]")
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)
    method = p.device.provenance.get("method", "")
    ax.set_title(title or f"{view.capitalize()} roofline on {p.roof_device.name}"
                 + (f" ({method})" if method else ""))


def draw_banner(fig, text: str) -> None:
    """A box above the axes: red when the roofs may not hold, grey for a
    note (something about the profile that could not be checked)."""
    import textwrap
    wrapped = textwrap.fill(text, width=int(fig.get_figwidth() * 15))
    doubt = text.startswith("These roofs may not hold")
    colors = ("#8a1c0f", "#fdecea", "#CC3311") if doubt else ("#444444", "#f3f4f6", "#999999")
    # no x or y: the constrained layout then keeps room for it above the axes
    fig.suptitle(wrapped, fontsize=8.5, color=colors[0],
                 bbox=dict(boxstyle="round,pad=0.4", facecolor=colors[1], edgecolor=colors[2]))


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
    """Axes fitted to the roofs drawn and the points (:mod:`.geometry`)."""
    xs = np.concatenate([x[np.isfinite(x) & (x > 0)] for x in shown.values()] or [np.array([])])
    roofs = placement_roofs(p)
    ys = p.achieved_flop_s[_drawn(p, shown)]
    (lo_x, hi_x), (_, hi_y) = fitted_limits(roofs, xs, ys, margin=3.0)
    # a decade more below than the interactive chart: the labels' leaders need the room
    return (min(lo_x, 0.05), max(hi_x, 100.0)), (min([roofs.top / 1e4] + list(ys / 3)), hi_y)


def _draw_ceilings(ax, p: Placements, xlim, occupied: Occupied) -> None:
    # Roofs for the precisions the kernels use; the device's peak only when
    # no kernel has a FLOP counter. Bandwidth lines meet the highest of these.
    roofs = placement_roofs(p)
    draw_roof_lines(ax, roofs, xlim, occupied)
    if p.mixed_threads:
        _draw_one_core(ax, p, roofs.compute[0][0], xlim, occupied)
    occupied.take_texts()
    for _, rate in roofs.compute:
        occupied.take_hline(rate)


def draw_roof_lines(ax, roofs, xlim, occupied: Occupied) -> None:
    """The compute roofs (labelled above their line at the right), the
    bandwidth lines up to the top one (labelled along their slope where no
    point or label is) and the ridges (their intensity under the dot)."""
    top = roofs.top
    for i, (key, rate) in enumerate(roofs.compute):
        ax.axhline(rate, color="#333333", lw=1.6 if i == 0 else 1.0, ls="-" if i == 0 else "--", zorder=2,
                   gid=COMPUTE_GID + key)
        _label_roof(ax, xlim, rate, f"{key.upper()} {format_si(rate, 'FLOP/s')}", occupied)
    occupied.take_texts()
    along, previous = 0.06, None
    for lv, bw in roofs.levels:
        ridge = top / bw
        xs = np.array([xlim[0], min(ridge, xlim[1])])
        color = LEVEL_COLOR.get(lv, "#555555")
        ax.plot(xs, xs * bw, color=color, lw=1.4, zorder=2, gid=BANDWIDTH_GID + lv)
        if ridge < xlim[1]:
            ax.plot([ridge], [top], "o", color=color, ms=4, zorder=3)
            _label_ridge(ax, ridge, top, color, occupied)
        # a level within 2.5x of the previous one's bandwidth would put its
        # label on top of that one's: move it further along its line
        along = along + 0.11 if previous and previous / bw < 2.5 else 0.06
        previous = bw
        _label_diagonal(ax, xs, bw, f"{lv} {format_si(bw, 'B/s')}", color, along, occupied)


def _label_roof(ax, xlim, rate: float, text: str, occupied: Occupied) -> None:
    """A compute roof's label, right-aligned at the right end above its line;
    where markers (kernels at the roof) or another label are there, further
    left along the line, then under it: the first place free of both."""
    places = [(xlim[1] / 1.15 / 2.2 ** k, va) for va in ("bottom", "top") for k in range(6)]
    for x, va in places:
        if not xlim[0] < x:
            continue
        anchor = ax.transData.transform((x, rate * (1.08 if va == "bottom" else 1 / 1.08)))
        box = occupied.text_box(anchor, text, 9, "right", va)
        if occupied.free([box]):
            break
    else:
        x, va = places[0]
    label = ax.text(x, rate * (1.08 if va == "bottom" else 1 / 1.08), text, ha="right", va=va, fontsize=9,
                    color="#333333", gid=ROOF_LABEL_GID, path_effects=halo())
    occupied.take([occupied.text_box(ax.transData.transform(label.get_position()), text, 9, "right", va)], label)


def draw_roofs(ax, device, precisions=None, levels=None, xlim=None, ylim=None):
    """The roofs of ``device`` on matplotlib axes of your own (log-log; the
    limits fitted to the roofs unless given): compute roofs for
    ``precisions`` (default: the device's peak), bandwidth lines for
    ``levels`` (default: every level but the host link), each labelled, the
    ridges marked. Returns the :class:`.geometry.Roofs` drawn, so your
    points can be placed against them."""
    from .geometry import roofs_of
    roofs = roofs_of(device, precisions, levels)
    ax.set_xscale("log")
    ax.set_yscale("log")
    auto_x, auto_y = fitted_limits(roofs, np.array([]), np.array([]))
    ax.set_xlim(*(xlim or auto_x))
    ax.set_ylim(*(ylim or auto_y))
    if not ax.get_xlabel():
        ax.set_xlabel("arithmetic intensity [FLOP/byte]")
    if not ax.get_ylabel():
        ax.set_ylabel("performance [FLOP/s]")
    ax.figure.draw_without_rendering()      # labels are placed in display units
    draw_roof_lines(ax, roofs, ax.get_xlim(), Occupied(ax))
    return roofs


def _label_ridge(ax, ridge: float, top: float, color: str, occupied: Occupied) -> None:
    """The ridge's intensity under its dot; lower still where a close
    ridge's label is there already."""
    anchor = ax.transData.transform((ridge, top))
    text = f"{ridge:.3g}"
    for dy in (-12, -21, -30, -39):
        box = occupied.text_box(anchor, text, 7, "center", "baseline", (0, dy))
        if occupied.free([box]):
            break
    label = ax.annotate(text, (ridge, top), textcoords="offset points", xytext=(0, dy),
                        ha="center", fontsize=7, color=color, gid=RIDGE_LABEL_GID, path_effects=halo())
    occupied.take([box], label)


def _draw_one_core(ax, p: Placements, key: str, xlim, occupied: Occupied) -> None:
    """Dotted one-core compute and DRAM roofs, for the single-threaded
    kernels among multi-threaded ones, each labelled (the diagonal along
    its slope, where no label or point is)."""
    from ..core.cores import one_core_device
    one = one_core_device(p.device)
    if one is None or key not in one.compute:
        return
    top = one.compute[key].value
    ax.axhline(top, color="#777777", lw=0.9, ls=":", zorder=2)
    ax.text(xlim[0] * 1.3, top * 1.08, f"1 core: {key.upper()} {format_si(top, 'FLOP/s')}",
            ha="left", va="bottom", fontsize=8, color="#555555", gid=ROOF_LABEL_GID, path_effects=halo())
    lv = "DRAM" if "DRAM" in one.memory else next(iter(one.memory), None)
    if lv is None:
        return
    bw = one.memory[lv].bytes_s
    xs = np.array([xlim[0], min(top / bw, xlim[1])])
    ax.plot(xs, xs * bw, color="#777777", lw=0.9, ls=":", zorder=2, gid=BANDWIDTH_GID + "one-core")
    occupied.take_texts()
    _label_diagonal(ax, xs, bw, f"1 core: {lv} {format_si(bw, 'B/s')}", "#555555", 0.35, occupied)


def _label_diagonal(ax, xs, bw, text, color, along: float, occupied: Occupied) -> None:
    """Label a bandwidth line along its slope, from ``along`` of the way
    from its left end on (levels are staggered: close bandwidths would stack
    labels), at the first place no point or other label covers."""
    ylim = ax.get_ylim()
    for step in range(8):
        x = xs[0] * (xs[1] / xs[0]) ** min(along + 0.09 * step, 0.85)
        y = x * bw
        if not (ylim[0] < y < ylim[1]):
            x = ylim[0] * 2 / bw
            y = x * bw
        # angle of a slope-1 line in display coordinates
        p0 = ax.transData.transform((x, y))
        p1 = ax.transData.transform((x * 10, y * 10))
        angle = math.degrees(math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
        boxes = occupied.slanted_boxes(ax.transData.transform((x, y * 1.25)), text, 8.5, angle)
        if occupied.free(boxes):
            break
    occupied.take(boxes, text=True)     # words: no kernel name's leader may run through them
    ax.text(x, y * 1.25, text, rotation=angle, rotation_mode="anchor", fontsize=8.5,
            color=color, ha="left", va="bottom", transform_rotates_text=False, gid=ROOF_LABEL_GID,
            path_effects=halo())


def _draw_kernels(ax, p: Placements, shown, view) -> None:
    y = p.achieved_flop_s
    sizes = _marker_sizes(p)
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
        if not draw.any():
            continue
        ax.scatter(x[draw], y[draw], s=sizes[draw], c=list(colors[draw]),
                   marker=LEVEL_MARKER.get(lv, "o"), edgecolors=list(edges[draw]), linewidths=0.9,
                   alpha=alpha, zorder=4, gid=KERNELS_GID + (lv or "nearest"))


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


def _label_top(ax, p, shown, y, time, label_top, occupied: Occupied, unlabelled=frozenset()) -> int:
    """Name the longest kernels, each label moved up or down (down first
    near the compute roof) until it clears every label, roof and point
    already there; a kernel whose label finds no free place stays unnamed
    (the report's tables name it). Returns how many were left unnamed."""
    xs = np.vstack(list(shown.values()))
    x_any = np.array([np.nanmax(col) if np.isfinite(col).any() else np.nan for col in xs.T]) if xs.size else np.array([])
    order = [i for i in np.argsort(-time)
             if np.isfinite(x_any[i]) and np.isfinite(y[i]) and i not in unlabelled][:label_top]
    radius = 0.5 * np.sqrt(_marker_sizes(p))
    left_off = 0
    for i in order:
        pos = ax.transData.transform((x_any[i], y[i]))
        ax_x, ax_y = ax.transAxes.inverted().transform(pos)
        variant = str(p.kernels.variants[i])
        label = short_name(str(p.kernels.names[i])) + (f" ({variant})" if variant else "")
        first = -14 if ax_y > 0.8 else 14
        box = None
        # labels of points near the right edge go to their left; the other
        # side is tried only when the preferred one has no free place
        places = [(side, dy) for side in ((ax_x > 0.75), not (ax_x > 0.75))
                  for dy in offsets(first, 13 if first > 0 else -13)]
        for right, dy in places:
            dx = (radius[i] + 4) * (-1 if right else 1)
            box = occupied.text_box(pos, label, 8, "right" if right else "left", "center", (dx, dy))
            # the leader runs from the point towards the label's middle (matplotlib's
            # annotation arrow, cut at the box): it may cross no other leader
            lead = (pos[0], pos[1], (box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            # nor run through a label or the legend, nor have its label lie across an earlier leader
            if (occupied.free([box]) and not occupied.crosses(lead)
                    and occupied.leader_clear(lead, box, (radius[i] + 1) * occupied.px)):
                break
        else:
            left_off += 1    # nowhere free: a label left out (and counted) beats one printed over another
            continue
        occupied.take([box], text=True)
        occupied.take_leader(lead)
        ax.annotate(label, (x_any[i], y[i]), textcoords="offset points",
                    xytext=(dx, dy), ha="right" if right else "left", va="center",
                    fontsize=8, color="#222222", gid=KERNEL_LABEL_GID,
                    arrowprops=dict(arrowstyle="-", color="#888888", lw=0.6), zorder=5)
    return left_off


def _marker_sizes(p: Placements) -> np.ndarray:
    """Marker areas in points squared: 25 plus 900 times the share of time."""
    time = np.nan_to_num(p.kernels.time_s)
    share = time / time.sum() if time.sum() > 0 else np.full(len(p), 1.0 / max(len(p), 1))
    return 25 + 900 * share


def _legend(ax, p, shown, view) -> None:
    # the classes of the points drawn: kernels listed under the chart are not on it
    drawn = _drawn(p, shown)
    present = {c for c, d in zip(_fine_classes(p), drawn) if d}
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
    return ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.9)


def _note_unplotted(ax, p: Placements, missing: np.ndarray) -> None:
    """Kernels that cannot sit on a FLOP roofline (copies, no counters) are
    listed with their bound in the panel ``ax``, so their time is not hidden."""
    ax.axis("off")
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
