"""Before/after arrows between variants of a kernel on a roofline chart.

An optimisation study runs one kernel in several versions (ECE408's
``forward_kernel``: baseline, constant-memory filters, shared-memory tiling,
double buffering). Each version is a row with the same name and its own
``variant``. :func:`variant_chains` orders the variants of every name that
has two or more; :func:`draw_variant_arrows` draws an arrow from each
variant to the next on a chart made by :func:`roofline.render.plot.roofline_figure`:
solid green when the next variant is faster, dashed red when slower, with
one label per kernel listing the steps and their speed-ups
(time before / time after).

The arrows join points at the cache-aware intensity (the nearest level with
a counter, which is also a marker of the hierarchical view) and the
achieved FLOP/s. Variants that only change the time move straight up or
down; those are drawn as brackets beside the points so that short steps
stay visible.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.placement import Placements

FASTER, SLOWER = "#117733", "#CC3311"
ARROW_GID = "variant-arrow"
LABEL_GID = "variant-label"


@dataclass(frozen=True)
class VariantChain:
    """The variants of one kernel name in order: ``rows`` index the
    KernelSet, ``variants`` name them."""

    name: str
    variants: tuple[str, ...]
    rows: tuple[int, ...]

    def speedups(self, time_s) -> list[float]:
        """time of the previous variant / time of each next one."""
        t = [float(time_s[i]) for i in self.rows]
        return [a / b if b > 0 and math.isfinite(a) and math.isfinite(b) else math.nan
                for a, b in zip(t, t[1:])]


def variant_order(kernels, order=None) -> tuple[str, ...]:
    """``order`` (a list or a comma-separated string) or else the variants in
    order of first appearance."""
    if order:
        items = order.split(",") if isinstance(order, str) else list(order)
        return tuple(dict.fromkeys(v.strip() for v in items if v.strip()))
    return tuple(dict.fromkeys(str(v) for v in kernels.variants if v))


def variant_chains(kernels, order=None) -> list[VariantChain]:
    """Chains of two or more variants of the same kernel name, in
    ``variant_order``; a name with two rows of one variant uses the first."""
    ordered = variant_order(kernels, order)
    rank = {v: i for i, v in enumerate(ordered)}
    by_name: dict[str, dict[str, int]] = {}
    for i in np.flatnonzero(kernels.variants != ""):
        v = str(kernels.variants[i])
        if v in rank:
            by_name.setdefault(str(kernels.names[i]), {}).setdefault(v, int(i))
    chains = []
    for name, rows in by_name.items():
        if len(rows) >= 2:
            vs = sorted(rows, key=rank.get)
            chains.append(VariantChain(name, tuple(vs), tuple(rows[v] for v in vs)))
    return chains


def draw_variant_arrows(fig_or_ax, p: Placements, order=None, relabel: bool = True,
                        label_width: int = 34) -> list:
    """Arrows between consecutive variants of each kernel name on a roofline
    chart of ``p`` (the axes of :func:`roofline.render.plot.roofline_figure`).

    Returns the arrow annotations (``gid`` ``"variant-arrow"``). With
    ``relabel``, the per-point labels that chart gave these kernels are
    replaced by one label per chain (``gid`` ``"variant-label"``).
    """
    from matplotlib.lines import Line2D

    from .plot import short_name
    ax = fig_or_ax.axes[0] if hasattr(fig_or_ax, "savefig") else fig_or_ax
    chains = variant_chains(p.kernels, order)
    if not chains:
        return []
    fig = ax.figure
    fig.draw_without_rendering()  # final layout, so display coordinates hold
    renderer = _renderer(fig)
    x_all, y_all = p.cache_aware_intensity, p.achieved_flop_s
    time = p.kernels.time_s
    radius = _marker_radius(p)
    shown = np.isfinite(x_all) & np.isfinite(y_all) & (x_all > 0) & (y_all > 0)
    arrows, members = [], []
    for chain in chains:
        pts = [(i, v) for i, v in zip(chain.rows, chain.variants) if shown[i]]
        if len(pts) < 2:
            continue
        members.append((chain, pts))
        for step, ((a, _), (b, _)) in enumerate(zip(pts, pts[1:])):
            arrows.append(_arrow(ax, (x_all[a], y_all[a]), (x_all[b], y_all[b]), time[a], time[b], step,
                                 radius[a], radius[b]))
    if relabel:
        _drop_point_labels(ax, p, {i for _, pts in members for i, _ in pts}, short_name)
    # the legend at its final size first: the chain labels keep off all of it
    _extend_legend(ax, Line2D)
    obstacles = _Obstacles(ax, renderer)
    for arrow in arrows:
        obstacles.add_extent(arrow.arrow_patch.get_window_extent(renderer))
    for chain, pts in members:
        _chain_label(ax, renderer, pts, x_all, y_all, time, short_name(chain.name, label_width), obstacles)
    return arrows


def variant_decoration(p: Placements, order=None):
    """A ``decorate`` for :func:`roofline.render.plot.roofline_figure`: the
    variant arrows and chain labels, drawn before the kernel names, giving
    back the labels' boxes and leaders (display pixels) for the names to
    keep off."""
    def decorate(ax) -> tuple[list, list]:
        from matplotlib.text import Text
        draw_variant_arrows(ax, p, order, relabel=False)
        renderer = _renderer(ax.figure)
        labels = [t for t in ax.texts if t.get_gid() == LABEL_GID]
        # the words' own box (an annotation's spans its arrow), grown by the round box's padding
        pad = 0.3 * 7.5 * ax.figure.dpi / 72.0 + 1
        boxes = [tuple(Text.get_window_extent(t, renderer).padded(pad).extents) for t in labels]
        return boxes, [_leader(ax, t, renderer) for t in labels]
    return decorate


def _marker_radius(p: Placements) -> np.ndarray:
    """Radius in points of each marker of roofline_figure (area 25 + 900 x
    share of time, in points squared), so arrows stop at the marker's edge."""
    time = np.nan_to_num(p.kernels.time_s)
    share = time / time.sum() if time.sum() > 0 else np.zeros(len(p))
    return np.sqrt(25 + 900 * share) / 2


def _arrow(ax, start, end, t_start, t_end, step, r_start=3.0, r_end=3.0):
    faster = t_end <= t_start
    p0, p1 = ax.transData.transform(start), ax.transData.transform(end)
    if abs(p1[0] - p0[0]) < 14:  # same intensity: a bracket beside the points
        arm = max(r_start, r_end) + 14 + 9 * (step // 2)
        angle = 0 if step % 2 == 0 else 180
        style = f"arc,angleA={angle},angleB={angle},armA={arm:.0f},armB={arm:.0f},rad=5"
    else:
        style = "arc3,rad=0.18"
    ann = ax.annotate("", xy=end, xytext=start, zorder=6,
                      arrowprops=dict(arrowstyle="-|>,head_length=0.55,head_width=0.28",
                                      connectionstyle=style, color=FASTER if faster else SLOWER,
                                      lw=1.7, ls="-" if faster else (0, (3, 1.5)),
                                      shrinkA=r_start + 1, shrinkB=r_end + 1))
    ann.set_gid(ARROW_GID)
    return ann


def _renderer(fig):
    get = getattr(fig.canvas, "get_renderer", None)
    return get() if get is not None else fig._get_renderer()


class _Obstacles:
    """What a label should not cover, in display pixels: markers, texts
    already on the axes, the legend, and labels placed so far."""

    def __init__(self, ax, renderer):
        self.ax = ax
        self.points = []  # (x, y, radius px)
        scale = ax.figure.dpi / 72.0
        for coll in ax.collections:
            if not hasattr(coll, "get_sizes"):  # line collections are not markers
                continue
            offsets = np.asarray(coll.get_offsets())
            if not len(offsets):
                continue
            xy = coll.get_offset_transform().transform(offsets)
            sizes = np.asarray(coll.get_sizes()) if len(coll.get_sizes()) else np.array([36.0])
            r = np.sqrt(np.resize(sizes, len(xy))) / 2 * scale
            self.points.extend(zip(xy[:, 0], xy[:, 1], r))
        self.points = np.array(self.points).reshape(-1, 3)
        from matplotlib.text import Text
        # the words' own boxes: an annotation's extent spans its arrow and point too
        self.boxes = [Text.get_window_extent(t, renderer) for t in ax.texts if t.get_visible() and t.get_text()]
        legend = ax.get_legend()
        if legend is not None:
            self.boxes.append(legend.get_window_extent(renderer))
        self.frame = ax.get_window_extent(renderer)
        self.leaders = [_leader(ax, t, renderer) for t in ax.texts
                        if getattr(t, "arrow_patch", None) is not None and t.get_text()]

    def crossing_cost(self, segment) -> float:
        """Leaders already drawn that a new leader ``segment`` crosses: two
        crossing leaders tie each label to the other's point."""
        from .geometry import segments_cross
        return 3000.0 * sum(segments_cross(segment, other) for other in self.leaders)

    def cost(self, x0, y0, x1, y1) -> float:
        f = self.frame
        m = 6.0       # the drawn box (its padding, the line width) reaches a little past the estimate
        outside = max(0, f.x0 + m - x0) + max(0, x1 - f.x1 + m) + max(0, f.y0 + m - y0) + max(0, y1 - f.y1 + m)
        pts = self.points
        covered = 0
        if len(pts):
            covered = int(np.sum((pts[:, 0] + pts[:, 2] > x0) & (pts[:, 0] - pts[:, 2] < x1)
                                 & (pts[:, 1] + pts[:, 2] > y0) & (pts[:, 1] - pts[:, 2] < y1)))
        areas = [max(0, min(x1, b.x1) - max(x0, b.x0)) * max(0, min(y1, b.y1) - max(y0, b.y0))
                 for b in self.boxes]
        # a label hidden costs more than a point, and more than a leader crossing or under a label
        return 1e4 * outside + 300 * covered + 5 * sum(areas) + 4000 * sum(a > 0 for a in areas)

    def leader_cost(self, x0, y0, x1, y1, skip: float, own=None) -> float:
        """Markers a straight leader from (x0, y0) to (x1, y1) passes through,
        ignoring the first ``skip`` pixels (the marker it points at), and
        texts it runs through outside its own label's box ``own``
        (x0, y0, x1, y1)."""
        pts = self.points
        if not len(pts):
            return 0.0
        d = np.array([x1 - x0, y1 - y0])
        length = float(np.hypot(*d)) or 1.0
        rel = pts[:, :2] - np.array([x0, y0])
        along = rel @ d / length
        across = np.abs(rel[:, 0] * d[1] - rel[:, 1] * d[0]) / length
        hit = (along > skip) & (along < length) & (across < pts[:, 2] + 2)
        # and the texts it runs through (sampled along its length, the part in its own label left out)
        t = np.linspace(min(skip / length, 1.0), 1.0, 48)
        sx, sy = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
        if own is not None:
            keep = ~((sx >= own[0]) & (sx <= own[2]) & (sy >= own[1]) & (sy <= own[3]))
            sx, sy = sx[keep], sy[keep]
        through = sum(bool(np.any((sx > b.x0) & (sx < b.x1) & (sy > b.y0) & (sy < b.y1))) for b in self.boxes)
        # a leader through words makes them as hard to read as a label over them
        return 300.0 * float(hit.sum()) + 3000.0 * through

    def crossed_cost(self, x0, y0, x1, y1) -> float:
        """Leaders already drawn that would run under a label at this box."""
        t = np.linspace(0.0, 1.0, 48)
        hits = 0
        for a0, b0, a1, b1 in self.leaders:
            lx, ly = a0 + t * (a1 - a0), b0 + t * (b1 - b0)
            hits += bool(np.any((lx > x0) & (lx < x1) & (ly > y0) & (ly < y1)))
        return 1500.0 * hits

    def add_extent(self, bbox) -> None:
        self.boxes.append(bbox)

    def add(self, x0, y0, x1, y1) -> None:
        from matplotlib.transforms import Bbox
        self.boxes.append(Bbox([[x0, y0], [x1, y1]]))


def _chain_label(ax, renderer, pts, x_all, y_all, time, short, obstacles):
    """One label per chain: the kernel name, then variant -> variant with
    speed-ups, at the nearby spot that covers the fewest markers and texts,
    with a leader to the chain's last point."""
    steps = [pts[0][1]]
    for (a, _), (b, vb) in zip(pts, pts[1:]):
        s = time[a] / time[b] if time[b] > 0 else math.nan
        steps.append(f"{vb} {s:.2f}x")
    text = f"{short}\n" + " → ".join(steps)
    last = pts[-1][0]
    xy = (x_all[last], y_all[last])
    ann = ax.annotate(text, xy, textcoords="offset points", xytext=(0, 0), fontsize=7.5, color="#222222",
                      va="center", ha="left", zorder=7,
                      bbox=dict(boxstyle="round,pad=0.3", facecolor="white", edgecolor="#bbbbbb", alpha=0.92),
                      arrowprops=dict(arrowstyle="-", color="#888888", lw=0.6, shrinkA=0, shrinkB=6))
    ann.set_gid(LABEL_GID)
    ann.set_in_layout(False)
    ext = ann.get_window_extent(renderer)
    w, h = ext.width + 8, ext.height + 8
    px, py = ax.transData.transform(xy)
    skip = 12 * ax.figure.dpi / 72.0
    # candidates around the chain: right first, then left, above, below
    # a grid of places around the chain: right first, then left, above,
    # below (a few named ones missed the one free place on the ECE408 chart)
    xs = [px + 70, px + 110, px - 70 - w, px - 110 - w, px + 30, px - w / 2, px + 180, px - 180 - w]
    xs += [px - w - 200 + 40 * k for k in range(int((w + 400) // 40) + 1)]
    ys = [py + k * h for k in (0, -0.9, 0.9, -1.8, 1.8, -2.8, 2.8, -3.8, 3.8, -4.8, 4.8, -5.8)]
    ys += [py + k * 0.45 * h for k in range(-13, 14) if k % 2]
    best = None
    for cy in ys:
        for cx in xs:
            # matplotlib aims the leader at the box's middle and cuts it at the box
            own = (cx, cy - h / 2, cx + w, cy + h / 2)
            c = (obstacles.cost(*own) + obstacles.crossed_cost(*own)
                 + obstacles.leader_cost(px, py, cx + w / 2, cy, skip=skip, own=own)
                 + obstacles.crossing_cost((px, py, cx + w / 2, cy))
                 + 0.05 * (abs(cx - px) + abs(cy - py)))
            if best is None or c < best[0]:
                best = (c, cx, cy)
    _, cx, cy = best
    scale = ax.figure.dpi / 72.0
    ann.set_position(((cx + 4 - px) / scale, (cy - py) / scale))
    obstacles.add(cx, cy - h / 2, cx + w, cy + h / 2)
    obstacles.leaders.append((px, py, cx + w / 2, cy))
    return ann


def _leader(ax, text, renderer) -> tuple[float, float, float, float]:
    """The leader of an annotation in display pixels: from its point to the
    middle of its text box (where matplotlib aims the arrow)."""
    from matplotlib.text import Text
    px, py = ax.transData.transform(text.xy)
    box = Text.get_window_extent(text, renderer)     # the text's own box: an Annotation's includes its arrow
    return px, py, (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2


def _drop_point_labels(ax, p: Placements, members, short_name) -> None:
    """Remove the chart's own labels of the points a chain label now names."""
    from .plot import KERNEL_LABEL_GID
    texts = set()
    for i in members:
        variant = str(p.kernels.variants[i])
        texts.add(short_name(str(p.kernels.names[i])) + (f" ({variant})" if variant else ""))
    for t in list(ax.texts):
        if t.get_gid() in (None, KERNEL_LABEL_GID) and t.get_text() in texts and hasattr(t, "xy"):
            t.remove()


def _extend_legend(ax, Line2D) -> None:
    legend = ax.get_legend()
    handles = list(legend.legend_handles) if legend is not None else []
    labels = [t.get_text() for t in legend.get_texts()] if legend is not None else []
    extra = [Line2D([], [], color=FASTER, lw=1.6, label="next variant faster"),
             Line2D([], [], color=SLOWER, lw=1.6, ls=(0, (3, 2)), label="next variant slower")]
    loc = legend._loc if legend is not None else "lower right"
    ax.legend(handles=handles + extra, labels=labels + [h.get_label() for h in extra], loc=loc,
              fontsize=8, framealpha=0.9)
