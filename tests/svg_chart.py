"""Read a roofline chart back from its SVG: the numbers on its axes, the
roofs and points it draws (in data units, through the tick positions), the
legend's entries. The chart's artists carry ids (roofline.render.plot's
*_GID); texts are <text> elements when the figure is saved with
``svg.fonttype: none``.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import numpy as np

SVG = "{http://www.w3.org/2000/svg}"
_SUPER = str.maketrans("\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079", "-0123456789")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def tick_value(text: str) -> float | None:
    """The number a tick label writes: 10⁻² -> 0.01, 0.5 -> 0.5; None for ''."""
    text = text.strip()
    if not text:
        return None
    if text.startswith("10") and len(text) > 2:
        return 10.0 ** int(text[2:].translate(_SUPER))
    return float(text)


def _coords(d: str) -> np.ndarray:
    return np.array([float(v) for v in _NUMBER.findall(d)]).reshape(-1, 2)


def _style(el, key: str) -> str | None:
    m = re.search(rf"(?:^|;)\s*{key}:\s*([^;]+)", el.get("style", ""))
    return m.group(1).strip() if m else None


@dataclass
class Axis:
    """Pixel position -> log10 of the value, fitted through the labelled ticks."""
    pixels: np.ndarray
    values: np.ndarray
    slope: float = 0.0
    offset: float = 0.0
    residual_px: float = 0.0

    def __post_init__(self):
        self.slope, self.offset = np.polyfit(self.pixels, np.log10(self.values), 1)
        fitted = (np.log10(self.values) - self.offset) / self.slope
        self.residual_px = float(np.max(np.abs(fitted - self.pixels)))

    def value(self, pixel) -> np.ndarray:
        return 10.0 ** (self.slope * np.asarray(pixel, dtype=float) + self.offset)


@dataclass
class Chart:
    x: Axis
    y: Axis
    compute_roofs: dict = field(default_factory=dict)      # key -> FLOP/s
    bandwidth_roofs: dict = field(default_factory=dict)    # level -> (x, y) data points of the line
    points: dict = field(default_factory=dict)             # level -> (x, y, colour) per point
    legend: list = field(default_factory=list)             # (text, colour or None)
    roof_labels: list = field(default_factory=list)
    kernel_labels: list = field(default_factory=list)


def _ticks(axes, prefix: str, coordinate: str):
    pixels, values = [], []
    for tick in axes.iter(SVG + "g"):
        if not tick.get("id", "").startswith(prefix):
            continue
        uses = [u for u in tick.iter(SVG + "use")]
        texts = [t.text or "" for t in tick.iter(SVG + "text")]
        value = tick_value(texts[0]) if texts else None
        if uses and value is not None:
            pixels.append(float(uses[0].get(coordinate)))
            values.append(value)
    return np.array(pixels), np.array(values)


def read_chart(path) -> Chart:
    root = ET.parse(path).getroot()
    axes = next(g for g in root.iter(SVG + "g") if g.get("id") == "axes_1")
    x = Axis(*_ticks(axes, "xtick_", "x"))
    y = Axis(*_ticks(axes, "ytick_", "y"))
    chart = Chart(x, y)
    for g in axes.iter(SVG + "g"):
        gid = g.get("id", "")
        paths = list(g.iter(SVG + "path"))
        if gid.startswith("roof-compute-"):
            chart.compute_roofs[gid[len("roof-compute-"):]] = float(y.value(_coords(paths[0].get("d"))[0, 1]))
        elif gid.startswith("roof-bandwidth-"):
            xy = _coords(paths[0].get("d"))
            chart.bandwidth_roofs[gid[len("roof-bandwidth-"):]] = (x.value(xy[:, 0]), y.value(xy[:, 1]))
        elif gid.startswith("kernels-"):
            centres = [(_coords(p.get("d")).min(0) + _coords(p.get("d")).max(0)) / 2 for p in paths]
            colours = [_style(p, "fill") for p in paths]
            xy = np.array(centres).reshape(-1, 2)
            chart.points[gid[len("kernels-"):]] = (x.value(xy[:, 0]), y.value(xy[:, 1]), colours)
        elif gid in ("roof-label", "kernel-label"):
            texts = [t.text for t in g.iter(SVG + "text")]
            (chart.roof_labels if gid == "roof-label" else chart.kernel_labels).extend(texts)
        elif gid.startswith("legend_"):
            chart.legend = _legend(g)
    return chart


def _legend(g) -> list[tuple[str, str | None]]:
    """Entries in order, each with the fill of the patch drawn just before
    its text (None for marker entries: their handle is a line)."""
    entries, colour = [], None
    for child in g:
        cid = child.get("id", "")
        if cid.startswith("patch_"):
            path = next(child.iter(SVG + "path"))
            fill = _style(path, "fill")
            colour = fill if fill not in (None, "none", "#ffffff") else None
        elif cid.startswith("text_"):
            text = " ".join(t.text or "" for t in child.iter(SVG + "text"))
            entries.append((text, colour))
            colour = None
        elif cid.startswith("line2d_"):
            colour = None
    return entries


# ------------------------------------------------------------ label overlap
# Measured on the drawn figure rather than the SVG: matplotlib knows each
# text's exact extent; the SVG only has its anchor.

def text_outlines(fig) -> list[tuple[str, np.ndarray]]:
    """(text, 4x2 corners in display pixels) of every visible text drawn in
    the figure's axes: roof, ridge and kernel labels, notes, tick labels
    inside the view, titles, and the legend's box. Rotated texts keep
    their rotated rectangle (an axis-aligned box would overstate overlap)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = []
    for ax in fig.axes:
        texts = [t for t in ax.texts + [ax.title, ax.xaxis.label, ax.yaxis.label]
                 if t.get_visible() and t.get_text().strip()]
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if lo <= tick.get_loc() <= hi and tick.label1.get_visible() and tick.label1.get_text():
                    texts.append(tick.label1)
        out += [(t.get_text(), _outline(t, renderer, Text)) for t in texts]
        legend = ax.get_legend()
        if legend is not None:
            box = legend.get_window_extent(renderer)
            out.append(("legend", np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])))
    return out


def _outline(t, renderer, Text) -> np.ndarray:
    angle = t.get_rotation()
    if angle % 180 == 0:
        box = Text.get_window_extent(t, renderer)     # an annotation's own would add its arrow
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    t.set_rotation(0)
    flat = Text.get_window_extent(t, renderer)
    t.set_rotation(angle)
    turned = Text.get_window_extent(t, renderer)
    corners = np.array([[flat.x0, flat.y0], [flat.x1, flat.y0], [flat.x1, flat.y1], [flat.x0, flat.y1]])
    rad = np.radians(angle)
    rot = np.array([[np.cos(rad), -np.sin(rad)], [np.sin(rad), np.cos(rad)]])
    centre = corners.mean(0)
    turned_corners = (corners - centre) @ rot.T
    # place the rotated rectangle where matplotlib drew it: same bounding-box centre
    return turned_corners + np.array([(turned.x0 + turned.x1) / 2, (turned.y0 + turned.y1) / 2])


def _area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


def _clip(subject: np.ndarray, clip: np.ndarray) -> np.ndarray:
    """Sutherland-Hodgman: the part of convex polygon ``subject`` inside
    convex polygon ``clip`` (both counter-clockwise)."""
    out = list(subject)
    for i in range(len(clip)):
        a, b = clip[i], clip[(i + 1) % len(clip)]
        inside = [_cross(b - a, p - a) >= 0 for p in out]
        points, out = out, []
        for j, p in enumerate(points):
            q = points[j - 1]
            if inside[j]:
                if not inside[j - 1]:
                    out.append(_crossing(q, p, a, b))
                out.append(p)
            elif inside[j - 1]:
                out.append(_crossing(q, p, a, b))
        if not out:
            break
    return np.array(out).reshape(-1, 2)


def _cross(u, v) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def _crossing(p, q, a, b):
    d1, d2 = q - p, b - a
    t = _cross(a - p, d2) / _cross(d1, d2)
    return p + t * d1


def overlap_share(a: np.ndarray, b: np.ndarray) -> float:
    """Area of the intersection over the area of the smaller outline."""
    if (a[:, 0].max() <= b[:, 0].min() or b[:, 0].max() <= a[:, 0].min()
            or a[:, 1].max() <= b[:, 1].min() or b[:, 1].max() <= a[:, 1].min()):
        return 0.0                                  # bounding boxes apart
    inter = _clip(a, b)
    small = min(_area(a), _area(b))
    return _area(inter) / small if len(inter) >= 3 and small > 0 else 0.0


def overlapping_labels(fig, tolerance: float = 0.05) -> list[tuple[str, str, float]]:
    outlines = text_outlines(fig)
    found = []
    for i, (ta, a) in enumerate(outlines):
        for tb, b in outlines[i + 1:]:
            share = overlap_share(a, b)
            if share > tolerance:
                found.append((ta, tb, round(share, 2)))
    return found
