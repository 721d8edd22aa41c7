"""Names on the interactive roofline (:mod:`.interactive`): one per variant
chain and the points with the most time, each placed right of its point (left
of it near the right edge) and moved down a line at a time until it covers
no other label and no point, with a leader line when moved.

Positions are computed in the plot frame's pixels (the figure is built with
a fixed ``frame_width`` and ``frame_height``, so they are exact, whatever
the legends and axes around the frame take)."""
from __future__ import annotations

import math

import numpy as np

from ..core.placement import Placements
from .geometry import segments_cross
from .terminal import visible

CHAR_PX, LINE_PX = 6.2, 13.0        # an 8 pt label's character width and line height, in screen pixels
GAP_PX = 4.0                         # kept free between two labels side by side


def frame_size(fig) -> tuple[float, float]:
    """The plot frame's width and height in pixels."""
    return float(fig.frame_width), float(fig.frame_height)


def _screen(fig, xv: float, yv: float) -> tuple[float, float]:
    """Pixels from the plot frame's lower left corner (log axes, the figure's ranges)."""
    xr, yr = fig.x_range, fig.y_range
    w, h = frame_size(fig)
    fx = math.log10(xv / xr.start) / math.log10(xr.end / xr.start)
    fy = math.log10(yv / yr.start) / math.log10(yr.end / yr.start)
    return fx * w, fy * h


def _data(fig, px: float, py: float) -> tuple[float, float]:
    """The data point at frame pixels (the inverse of :func:`_screen`)."""
    xr, yr = fig.x_range, fig.y_range
    w, h = frame_size(fig)
    return xr.start * (xr.end / xr.start) ** (px / w), yr.start * (yr.end / yr.start) ** (py / h)


def label_boxes(fig, x, y, found, points=(), radius=None, blocked=()) -> list[tuple]:
    """(px, py, width, x offset, y offset, align) of each label in
    ``found`` ((row, text) each), placed so that no two boxes overlap and
    none covers a point (``points``: screen positions); ``radius``: each
    row's marker radius in pixels (a label starts beyond its marker);
    ``blocked``: boxes (left, bottom, right, top, frame pixels) of texts
    already drawn, the roofs' labels."""
    # left, bottom, right, top; a point is (px, py) or (px, py, its marker's radius)
    placed = [(q[0] - r, q[1] - r, q[0] + r, q[1] + r) for q in points for r in [q[2] if len(q) > 2 else 5.0]]
    placed += list(blocked)
    width, _ = frame_size(fig)
    out = []
    for i, label in found:
        px, py = _screen(fig, float(x[i]), float(y[i]))
        w = CHAR_PX * len(label) + GAP_PX
        gap = 4 + (float(radius[i]) if radius is not None else 5.0)
        right = px + gap + w < width * 0.98
        dx = gap if right else -gap
        left = px + dx if right else px + dx - w
        dy = 0.0
        while any(left < r and left + w > l0 and py + dy - LINE_PX / 2 < t and py + dy + LINE_PX / 2 > b
                  for l0, b, r, t in placed) and dy > -20 * LINE_PX:
            dy -= LINE_PX
        placed.append((left, py + dy - LINE_PX / 2, left + w, py + dy + LINE_PX / 2))
        out.append((px + dx, py + dy, w, dx, dy, "left" if right else "right"))
    return _uncrossed(fig, x, y, found, out, placed[: len(points) + len(blocked)])


def leader(fig, x, y, i, box) -> tuple[float, float, float, float]:
    """The leader line of a label (its ``box`` from :func:`label_boxes`) from
    its point to the label's end, in frame pixels."""
    px, py = _screen(fig, float(x[i]), float(y[i]))
    return px, py, box[0], box[1]


def _box(b) -> tuple[float, float, float, float]:
    ax, ay, w, dx, dy, align = b
    left = ax if align == "left" else ax - w
    return left, ay - LINE_PX / 2, left + w, ay + LINE_PX / 2


def _overlap(a, b) -> bool:
    return a[0] < b[2] and a[2] > b[0] and a[1] < b[3] and a[3] > b[1]


def _uncrossed(fig, x, y, found, out, dots) -> list[tuple]:
    """Labels whose leader lines cross swap their heights (each keeps its
    side of its point) where the swap overlaps nothing: two names moved
    down from neighbouring points otherwise tie each to the other's place."""
    out = list(out)
    for _ in range(len(out)):
        swapped = False
        for a in range(len(out)):
            for b in range(a + 1, len(out)):
                la, lb = leader(fig, x, y, found[a][0], out[a]), leader(fig, x, y, found[b][0], out[b])
                if not (out[a][4] or out[b][4]) or not segments_cross(la, lb):
                    continue
                ya, yb = out[a][1], out[b][1]
                na = (out[a][0], yb, out[a][2], out[a][3], out[a][4] + yb - ya, out[a][5])
                nb = (out[b][0], ya, out[b][2], out[b][3], out[b][4] + ya - yb, out[b][5])
                rest = [_box(o) for k, o in enumerate(out) if k not in (a, b)] + list(dots)
                if any(_overlap(_box(n), r) for n in (na, nb) for r in rest) or _overlap(_box(na), _box(nb)):
                    continue
                out[a], out[b], swapped = na, nb, True
        if not swapped:
            break
    return out


def text_box(fig, xv: float, yv: float, text: str, px_per_char: float = 6.5, height: float = 14.0,
             dx: float = 0.0, dy: float = 0.0, above: bool = True) -> tuple[float, float, float, float]:
    """The frame-pixel box of a left-aligned text at data (xv, yv) moved by
    (dx, dy) pixels, above (baseline at the point) or under it."""
    px, py = _screen(fig, xv, yv)
    left, base = px + dx, py + dy
    return (left, base, left + px_per_char * len(text), base + height) if above else \
        (left, base - height, left + px_per_char * len(text), base)


def labelled_rows(p: Placements, drawn: np.ndarray, chains, top: int) -> list[tuple[int, str]]:
    """(row, text) of every name the chart shows: each chain at its last
    drawn variant, then the ``top`` other points with the most time."""
    from .names import short_name
    found, in_chain = [], set()
    # the name without its namespaces: variants of forward_kernel[conv1] and [conv2] stay apart
    for c in chains:
        rows = [i for i in c.rows if drawn[i]]
        in_chain.update(c.rows)
        if rows:
            found.append((rows[-1], f"{short_name(str(c.name).rsplit('::', 1)[-1], 34)} ({len(c.variants)} variants)"))
    time = np.where(drawn, np.nan_to_num(p.kernels.time_s), -1.0)
    seen = set()
    for i in np.argsort(-time, kind="stable").tolist():
        if len(seen) >= top or time[i] < 0:
            break
        name = short_name(str(p.kernels.names[i]), 34)
        if i not in in_chain and name not in seen:
            seen.add(name)
            found.append((i, name))
    return found


def point_labels(fig, p: Placements, x: np.ndarray, drawn: np.ndarray, chains, top: int, sizes: np.ndarray,
                 blocked=()):
    """Draw the names (:func:`labelled_rows`) and their leader lines; returns
    the label and the leader sources (each row carries its ``point``, so a
    filter can drop the names of hidden points), or None when nothing is named."""
    from bokeh.models import ColumnDataSource, LabelSet
    y = p.achieved_flop_s
    found = labelled_rows(p, drawn, chains, top)
    if not found:
        return None
    # a big marker is mostly kept free; its outer edge may hold a label (radius capped)
    points = [(*_screen(fig, float(a), float(b)), min(float(s) / 2, 12.0))
              for a, b, s in zip(x[drawn], y[drawn], sizes[drawn])]
    boxes = label_boxes(fig, x, y, found, points, radius=sizes / 2, blocked=blocked)
    cols = {"x": [], "y": [], "text": [], "dx": [], "dy": [], "align": [], "point": []}
    lead = {"x0": [], "y0": [], "x1": [], "y1": [], "point": []}
    for (px, py, w, dx, dy, align), (i, label) in zip(boxes, found):
        xi, yi = float(x[i]), float(y[i])
        for k, v in zip(cols, (xi, yi, visible(label), dx, dy, "left" if align == "left" else "right", i)):
            cols[k].append(v)
        if dy:           # a label moved off its point's line is tied to it
            ax, ay = _data(fig, px, py)
            for k, v in zip(lead, (ax, ay, xi, yi, i)):
                lead[k].append(v)
    leaders = ColumnDataSource(lead)
    fig.segment("x0", "y0", "x1", "y1", source=leaders, line_color="#999999", line_width=0.7, name="leader")
    labels = ColumnDataSource(cols)
    fig.add_layout(LabelSet(source=labels, x="x", y="y", text="text", x_offset="dx", y_offset="dy",
                            text_align="align", text_baseline="middle", text_font_size="8pt", text_color="#222222",
                            background_fill_color="white", background_fill_alpha=0.75, name="point-label"))
    return labels, leaders
