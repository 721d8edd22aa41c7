"""The charts of a projection report (:mod:`.projection_report`): time per
family on both devices, and the target's roofline with the projected rows.

Both are matplotlib Figures built without pyplot; every text from the
input (family and kernel names, device names) is drawn as typed (no
mathtext, :func:`.style.plain_text`) with its control and bidi characters
shown as escapes (:func:`.terminal.visible`).
"""
from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ..analysis.projection import Projection
from ..analysis.projection_bases import KEYS
from ..core.placement import Placements
from ..core.units import format_si
from .labels import Occupied
from .projection import device_label
from .style import plain_text
from .terminal import visible

MEASURED, PROJECTED, AT_ROOF = "#9a9a9a", "#0072B2", "#D55E00"
# a colour per basis (Okabe-Ito first, then greys): what a point rests on
# one colour per basis key (a test checks that each of projection_bases.KEYS has one)
BASIS_COLOR = {"matrix": "#CC79A7", "matrix_carried": "#E69F00", "attention": "#117733", "older_kernel": "#D55E00",
               "fallback": "#882255", "fallback_unobserved": "#AA4499", "compute": "#44AA99",
               "bandwidth": "#0072B2", "floor": "#009E73", "collective": "#56B4E9", "no_work_own": "#F0E442",
               "twin": "#999999", "family": "#777777", "trace": "#555555", "kept": "#333333",
               "unmeasured": "#BBBBBB"}
MAX_MARKERS = 2000         # roofline markers beyond these: a density of every row
MAX_FAMILIES = 24          # bars beyond these: named in a note (the table lists them all)


def _label(text, width: int = 28) -> str:
    s = visible(str(text))
    return s if len(s) <= width else s[: width - 1] + "…"


def _time_tick(value: float, _pos=None) -> str:
    """A log time axis' tick at a power of ten, in SI units (1 ms, 10 µs)."""
    if not (value > 0 and math.isfinite(value)):
        return ""
    exponent = math.log10(value)
    return format_si(value, "s") if abs(exponent - round(exponent)) < 1e-6 else ""


def _time_between(value: float, _pos=None) -> str:
    """A minor tick's label: 2 and 5 times a power of ten, in SI units."""
    if not (value > 0 and math.isfinite(value)):
        return ""
    lead = value / 10 ** math.floor(math.log10(value) + 1e-9)
    return format_si(value, "s") if any(abs(lead - d) < 1e-6 for d in (2, 5)) else ""


def families_figure(p: Projection, width: float = 10.0) -> Figure:
    """Per family (longest measured first): measured time on the source, the
    projected time on the target with its 80 % interval, and the time at
    ``share`` of the target's roofs; horizontal bars on a log time axis
    ticked in SI time units (not :func:`.style.plain_text`, which would
    put powers of ten back; texts are drawn as typed all the same)."""
    import matplotlib
    with matplotlib.rc_context({"text.parse_math": False}):
        return _families_figure(p, width)


def _families_figure(p: Projection, width: float) -> Figure:
    items = [(f, s) for f, s in p.totals.families.items() if s.measured_s > 0 or s.projected_s > 0]
    shown, rest = items[:MAX_FAMILIES], items[MAX_FAMILIES:]
    n = max(len(shown), 1)
    fig = Figure(figsize=(width, 1.9 + 0.52 * n), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(shown))[::-1].astype(float)          # the longest on top
    h = 0.36
    meas = np.array([s.measured_s for _, s in shown])
    proj = np.array([s.projected_s for _, s in shown])
    low = np.array([s.low_s for _, s in shown])
    high = np.array([s.high_s for _, s in shown])
    roof = np.array([s.at_roof_s for _, s in shown])
    values = np.concatenate([meas, proj, low, high, roof]) if shown else np.array([1e-6])
    positive = values[np.isfinite(values) & (values > 0)]
    lo = positive.min() / 3 if len(positive) else 1e-6
    hi = positive.max() * 3 if len(positive) else 1.0
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    if shown:
        # bars from the axis' left end (log scale: no zero) to the value
        bars_m = ax.barh(y + h / 2, np.maximum(meas - lo, 0), height=h, left=lo, color=MEASURED,
                label=f"measured on {_label(device_label(p.source), 40)}")
        bars_p = ax.barh(y - h / 2, np.maximum(proj - lo, 0), height=h, left=lo, color=PROJECTED,
                label=f"projected on {_label(device_label(p.target), 40)}")
        err = np.vstack([np.clip(proj - low, 0, None), np.clip(high - proj, 0, None)])
        interval = ax.errorbar(proj, y - h / 2, xerr=err, fmt="none", ecolor="#111111", elinewidth=1.1, capsize=3.5,
                    label="80 % interval of the projection")
        (at_roof,) = ax.plot(np.maximum(roof, lo), y - h / 2, ls="", marker="D", ms=5.5, color=AT_ROOF,
                markeredgecolor="white", markeredgewidth=0.6, zorder=4,
                label=f"at {p.share:.0%} of each roof on the target")
    ax.set_yticks(y, [_label(f) for f, _ in shown])
    ax.set_ylim(-0.8, len(shown) - 0.2)
    ax.xaxis.set_major_locator(LogLocator(base=10))
    ax.xaxis.set_major_formatter(FuncFormatter(_time_tick))
    if hi / lo < 300:       # few powers of ten to read it by: 2 and 5 of each decade named too
        ax.xaxis.set_minor_formatter(FuncFormatter(_time_between))
    else:
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("kernel time summed over the family's calls (log scale)")
    ax.grid(True, axis="x", which="major", alpha=0.3)
    ax.set_title(f"Time per family: {_label(device_label(p.source), 40)} -> {_label(device_label(p.target), 40)}")
    if shown:
        # filled column by column: measured over projected, interval over at-roof
        fig.legend(handles=[bars_m, bars_p, interval, at_roof], loc="outside lower center", ncols=2,
                   fontsize=8.5, frameon=False)
    if rest:
        more = sum(s.measured_s for _, s in rest)
        fig.text(0.01, 0.005, f"{len(rest)} more families ({format_si(more, 's')} measured) are in the table",
                 fontsize=8, color="#555555")
    return fig


def target_view(p: Projection) -> Placements | None:
    """The rows placed on the target with their projected times in place of
    the measured ones: achieved FLOP/s is then work / projected time. None
    without a placement on the target."""
    if p.on_target is None:
        return None
    kernels = copy.copy(p.on_target.kernels)
    kernels.time_s = np.asarray(p.projected_s, dtype=float)
    return dataclasses.replace(p.on_target, kernels=kernels)


def limiting_level(on: Placements) -> np.ndarray:
    """The memory level that limits each row on the target ("" where none is
    known): its limiter where that is a level, else (compute-bound rows)
    the level that takes longest, the one whose roof it meets at the ridge."""
    levels = [lv for lv in on.time_level_s if lv in on.intensity]
    out = np.full(len(on), "", dtype=object)
    if not levels:
        return out
    times = np.vstack([np.nan_to_num(on.time_level_s[lv], nan=-1.0) for lv in levels])
    longest = np.argmax(times, axis=0)
    known = np.max(times, axis=0) >= 0
    limiter = on.limiter
    for k, lv in enumerate(levels):
        out[(limiter == lv) | ((limiter == "compute") & (longest == k) & known)] = lv
    return out


def limiting_intensity(on: Placements, level: np.ndarray | None = None) -> np.ndarray:
    """Each row's FLOP per byte at its :func:`limiting_level` (NaN: none)."""
    level = limiting_level(on) if level is None else level
    x = np.full(len(on), math.nan)
    for lv in set(level.tolist()) - {""}:
        x = np.where(level == lv, on.intensity[lv], x)
    return x


@plain_text
def target_roofline_figure(p: Projection, size=(10, 6.5), label_top: int = 6) -> Figure | None:
    """The target's roofline with each row at its projected FLOP/s (work /
    projected time) over its intensity at its limiting level; a vertical bar
    spans its 80 % interval; colour: the basis; size: share of projected
    time. The memory roofs drawn are those of the levels rows sit at (a
    point at its DRAM intensity says nothing against the L1 roof). Rows
    without work (or bytes) cannot be placed: a note under the chart says
    how many and how much projected time. None without a placement."""
    from .plot import _draw_ceilings, _frame, _marker_sizes
    view = target_view(p)
    if view is None:
        return None
    level = limiting_level(view)
    x, y = _placed(view, level)
    drawn = np.isfinite(x) & np.isfinite(y)
    roofs = _with_levels(view, set(level[drawn].tolist()))
    fig = Figure(figsize=size, layout="constrained")
    note = _unplaced_text(p, view, drawn)
    if note:    # in a panel under the chart, where it covers no roof or point
        grid = fig.add_gridspec(2, 1, height_ratios=[9.0, 1.0])
        ax = fig.add_subplot(grid[0])
        panel = fig.add_subplot(grid[1])
        panel.axis("off")
        panel.text(0.0, 1.0, note, transform=panel.transAxes, ha="left", va="top", fontsize=8.5, color="#333333")
    else:
        ax = fig.add_subplot()
    title = (f"Roofline of {_label(device_label(p.target), 50)}: rows projected from "
             f"{_label(device_label(p.source), 50)}")
    _frame(ax, roofs, {"": x}, "cache-aware", list(view.intensity), title)
    if drawn.any():     # room right of the last point: the roofs' labels sit at the right edge
        lo, hi = ax.get_xlim()
        ax.set_xlim(lo, max(hi, float(np.nanmax(x)) * 20))
    ax.set_xlabel("arithmetic intensity on the target [FLOP/byte] at each row's limiting memory level")
    ax.set_ylabel("projected performance: work / projected time [FLOP/s]")
    fig.draw_without_rendering()
    occupied = Occupied(ax)
    occupied.take_points(x, y, _marker_sizes(view))
    _draw_ceilings(ax, roofs, ax.get_xlim(), occupied)
    _draw_points(ax, p, view, x, y, drawn)
    _label_rows(ax, view, x, y, label_top, occupied)
    return fig


def _with_levels(view: Placements, levels: set) -> Placements:
    """``view`` on a copy of its device with only the memory ``levels`` (all
    of them when none is given): the roofs the chart draws."""
    device = view.device
    if not levels or not set(device.memory) & levels:
        return view
    memory = {lv: m for lv, m in device.memory.items() if lv in levels}
    return dataclasses.replace(view, device=dataclasses.replace(device, memory=memory))


def _placed(view: Placements, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x and y of every row the chart can draw (NaN elsewhere): work, bytes
    and a projected time, inside the chart's window."""
    from .plot import _window
    (x_lo, x_hi), (y_lo, y_hi) = _window(view)
    x, y = limiting_intensity(view, level), view.achieved_flop_s
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(x) & np.isfinite(y) & (y >= y_lo) & (y <= y_hi) & (x >= x_lo) & (x <= x_hi) & (y > 0)
    return np.where(ok, x, math.nan), np.where(ok, y, math.nan)


def _label_rows(ax, view: Placements, x, y, top: int, occupied: Occupied) -> None:
    """Name the ``top`` rows with most projected time, each label on the
    first side and height (right, then left) where it clears every label,
    roof and point already there; unnamed where nowhere is free."""
    from .labels import offsets
    from .names import distinct_names
    from .plot import _marker_sizes
    time = np.nan_to_num(view.kernels.time_s)
    radius = 0.5 * np.sqrt(_marker_sizes(view))
    order = [i for i in np.argsort(-time, kind="stable") if np.isfinite(x[i]) and np.isfinite(y[i])][:top]
    labels = distinct_names([view.kernels.names[i] for i in order], width=34)
    for i, label in zip(order, labels):
        pos = ax.transData.transform((x[i], y[i]))
        label = visible(label)
        spot = _free_spot(occupied, pos, label, radius[i], offsets(14, 13, tries=12))
        if spot is None:
            continue
        ha, dx, dy, box = spot
        occupied.take([box])
        ax.annotate(label, (x[i], y[i]), textcoords="offset points", xytext=(dx, dy), ha=ha, va="center",
                    fontsize=8, color="#222222", arrowprops=dict(arrowstyle="-", color="#888888", lw=0.6),
                    zorder=5)


def _free_spot(occupied: Occupied, pos, label: str, radius: float, heights):
    for dy in heights:
        for ha, sign in (("left", 1), ("right", -1)):
            dx = sign * (radius + 4)
            box = occupied.text_box(pos, label, 8, ha, "center", (dx, dy))
            if occupied.free([box]):
                return ha, dx, dy, box
    return None


def _draw_points(ax, p: Projection, view: Placements, x, y, drawn) -> None:
    """A marker and an interval bar per placed row; beyond ``MAX_MARKERS``
    rows, those with most projected time, over a density of every placed
    row (a million markers take minutes to draw and cannot be told apart)."""
    from .plot import _marker_sizes
    rows = np.flatnonzero(drawn)
    dense = len(rows) > MAX_MARKERS
    if dense:
        rows = rows[np.argsort(-np.nan_to_num(p.projected_s[rows]), kind="stable")[:MAX_MARKERS]]
    work = view.work[rows]
    with np.errstate(divide="ignore", invalid="ignore"):
        y_low, y_high = work / p.high_s[rows], work / p.low_s[rows]       # slower is lower
    bars = np.isfinite(y_low) & np.isfinite(y_high)
    if bars.any():
        ax.vlines(x[rows][bars], y_low[bars], y_high[bars], colors="#444444", lw=0.8, alpha=0.55, zorder=3)
    colors = np.array([BASIS_COLOR[k] for k in KEYS], dtype=object)[p.basis[rows].astype(int)]
    ax.scatter(x[rows], y[rows], s=_marker_sizes(view)[rows], c=list(colors), edgecolors="white", linewidths=0.8,
               alpha=0.85 if len(rows) < 200 else 0.5, zorder=4)
    present = [KEYS[c] for c in np.unique(p.basis[rows].astype(int))]
    handles = [Patch(color=BASIS_COLOR[k], label=f"basis: {k}") for k in present]
    handles += [Line2D([], [], color="#444444", lw=0.8, label="80 % interval of the projection"),
                Line2D([], [], ls="", marker="o", color="#bbbbbb", ms=9, label="size = share of projected time")]
    ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.92)
    if dense:
        from .density import draw_density
        draw_density(ax, x[drawn], y[drawn], label=f"all {int(drawn.sum()):,} placed rows (markers: the "
                     f"{MAX_MARKERS:,} with most time)")


def _unplaced_text(p: Projection, view: Placements, drawn) -> str:
    """How many rows (and how much projected time) are not on the chart, and
    why ("" when every row is)."""
    projected = np.nan_to_num(p.projected_s)
    total = projected.sum()
    no_work = ~(np.nan_to_num(view.work) > 0)
    other = ~drawn & ~no_work
    parts = []
    for rows, why in ((no_work, "have no work (no FLOPs known): no intensity to place them at"),
                      (other, "have work but no bytes at a memory level, or fall off the chart")):
        if rows.any():
            share = f" ({projected[rows].sum() / total:.0%} of it)" if total > 0 else ""
            parts.append(f"{int(rows.sum()):,} of {len(p):,} rows {why}: "
                         f"{format_si(projected[rows].sum(), 's')} of projected time{share}")
    return "Not on this chart: " + ";\n".join(parts) + "." if parts else ""
