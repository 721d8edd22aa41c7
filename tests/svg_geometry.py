"""Where a saved SVG chart puts its texts, legend and points, read from the
file alone (no matplotlib object is asked where anything went).

matplotlib (svg.fonttype 'path', its default) writes a text as a group
``<g id="text_N">`` (or the artist's gid) holding one ``<g transform=...>``
per line of glyphs, each glyph a ``<use xlink:href="#DejaVuSans-XX">`` of an
outline in ``<defs>``. This module reads the subset matplotlib writes, and
raises on anything else so a change in its output cannot pass unseen:

- path data with absolute M, L, Q, C and Z commands (no H, V, A or
  relative ones);
- transforms translate(), scale(), rotate() and matrix().

A text's extent is the box of its glyph outlines (control points of the
curves included: their hull holds the curve, so the box is never smaller
than the ink) in the line's own frame, mapped through the line's transform:
a rotated label stays a rotated rectangle. svgelements, the library tried
first, stops on the empty outline matplotlib writes for a space (a <path>
with no ``d``), so this small reader stands in for it.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import numpy as np

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}href"
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_COMMANDS = re.compile(r"[A-Za-z]")
_TRANSFORM = re.compile(r"(translate|scale|rotate|matrix)\s*\(([^)]*)\)")
# ids of the chart's labels (roofline.render.plot and variants set them as gids)
LABEL_IDS = ("roof-label", "kernel-label", "variant-label", "ridge-label", "chart-note")


def path_points(d: str) -> np.ndarray:
    """Every coordinate pair of path data (end and control points)."""
    letters = set(_COMMANDS.findall(re.sub(r"[eE][-+]?\d", "", d)))
    if not letters <= set("MLQCZz"):
        raise ValueError(f"path commands outside the subset read here: {sorted(letters - set('MLQCZz'))}")
    values = [float(v) for v in _NUMBER.findall(d)]
    if len(values) % 2:
        raise ValueError("odd number of path coordinates")
    return np.array(values, dtype=float).reshape(-1, 2)


def parse_transform(text: str | None) -> np.ndarray:
    """3x3 affine matrix of an SVG transform list (applied right to left)."""
    m = np.eye(3)
    if not text:
        return m
    rest = _TRANSFORM.sub("", text).strip(" ,")
    if rest:
        raise ValueError(f"transform outside the subset read here: {text!r}")
    for name, args in _TRANSFORM.findall(text):
        v = [float(a) for a in _NUMBER.findall(args)]
        if name == "translate":
            step = np.array([[1, 0, v[0]], [0, 1, v[1] if len(v) > 1 else 0.0], [0, 0, 1]])
        elif name == "scale":
            sy = v[1] if len(v) > 1 else v[0]
            step = np.diag([v[0], sy, 1.0])
        elif name == "rotate":
            if len(v) != 1:
                raise ValueError("rotate about a point is outside the subset read here")
            a = np.radians(v[0])
            step = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
        else:
            a, b, c, d, e, f = v
            step = np.array([[a, c, e], [b, d, f], [0, 0, 1]])
        m = m @ step
    return m


def apply(m: np.ndarray, points: np.ndarray) -> np.ndarray:
    return points @ m[:2, :2].T + m[:2, 2]


@dataclass
class Label:
    """One text: its id, its words (matplotlib's comment), the outline of
    each line (4x2 corners, SVG pixels, y down)."""
    gid: str
    text: str
    lines: list = field(default_factory=list)
    leaders: list = field(default_factory=list)    # (start, end) of each leader line, SVG pixels


@dataclass
class Drawing:
    axes: list                  # (x0, y0, x1, y1) of each axes' background patch
    texts: list                 # every Label in the figure (ticks, titles, notes, labels)
    labels: list                # Labels with a chart-label id: they must lie inside their axes
    legends: list               # 4x2 corners of each legend's frame
    points: list                # (x, y) centres of the kernel markers


def _defs(root) -> dict[str, np.ndarray]:
    """Glyph and marker outlines by id, in their own frame (their transform applied)."""
    out = {}
    for defs in root.iter(SVG + "defs"):
        for p in defs.iter(SVG + "path"):
            if p.get("id"):
                pts = path_points(p.get("d") or "")
                out[p.get("id")] = apply(parse_transform(p.get("transform")), pts) if len(pts) else pts
    return out


def _line_box(line, glyphs) -> np.ndarray | None:
    """Corners of one line of glyphs (a <g transform> of <use>s) in SVG pixels."""
    local = []
    for use in line.iter(SVG + "use"):
        pts = glyphs.get((use.get(XLINK) or "").lstrip("#"))
        if pts is None or not len(pts):
            continue
        shift = np.array([float(use.get("x", 0)), float(use.get("y", 0))])
        local.append(apply(parse_transform(use.get("transform")), pts) + shift)
    if not local:
        return None
    pts = np.vstack(local)
    (x0, y0), (x1, y1) = pts.min(0), pts.max(0)
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    return apply(parse_transform(line.get("transform")), corners)


def _is_text(g) -> bool:
    gid = g.get("id", "")
    return gid.startswith("text_") or gid in LABEL_IDS


def min_area_rectangle(points: np.ndarray) -> np.ndarray:
    """Corners of the smallest rectangle around ``points``, at any angle
    (one side lies along an edge of their convex hull): the outline of a
    text drawn as plain paths, rotated or not."""
    pts = np.unique(points, axis=0)
    if len(pts) < 3:
        (x0, y0), (x1, y1) = pts.min(0), pts.max(0)
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    hull = []
    for p in list(pts) + list(pts[::-1]):          # monotone chain, lower then upper
        while len(hull) >= 2 and _cross(hull[-1] - hull[-2], p - hull[-2]) <= 0:
            hull.pop()
        hull.append(p)
    hull = np.array(hull)
    best = None
    for a, b in zip(hull, np.roll(hull, -1, axis=0)):
        edge = b - a
        if not edge.any():
            continue
        u = edge / np.hypot(*edge)
        v = np.array([-u[1], u[0]])
        s, t = hull @ u, hull @ v
        area = (s.max() - s.min()) * (t.max() - t.min())
        if best is None or area < best[0]:
            best = (area, u, v, s.min(), s.max(), t.min(), t.max())
    _, u, v, s0, s1, t0, t1 = best
    return np.array([s0 * u + t0 * v, s1 * u + t0 * v, s1 * u + t1 * v, s0 * u + t1 * v])


def _label(g, glyphs) -> Label:
    comment = ""
    lines = []
    for child in g:
        if child.tag is ET.Comment:
            comment = (child.text or "").strip()
        elif child.tag == SVG + "g" and child.get("transform") and any(True for _ in child.iter(SVG + "use")):
            box = _line_box(child, glyphs)
            if box is not None:
                lines.append(box)
    if not lines:
        # a text with path effects (a halo) is written as outline paths in
        # pixels, the stroke's first, without its words: the fill's path is its ink
        fills = [p for p in g.findall(SVG + "path") if "stroke" not in p.get("style", "")]
        if fills:
            lines.append(min_area_rectangle(path_points(fills[-1].get("d"))))
            comment = comment or f"{g.get('id', '')} drawn as paths"
    return Label(g.get("id", ""), comment, lines)


def _leaders(groups) -> list[np.ndarray]:
    """End points of the unfilled paths of arrow patches among ``groups``
    (a label's leader line: a straight line or a quadratic with its control
    point on the line)."""
    out = []
    for patch in groups:
        if not patch.get("id", "").startswith("patch_"):
            continue
        for p in patch.iter(SVG + "path"):
            if "fill: none" in p.get("style", ""):
                pts = apply(parse_transform(patch.get("transform")), path_points(p.get("d")))
                out.append(np.array([pts[0], pts[-1]]))
    return out


def read_drawing(path) -> Drawing:
    """The texts, labels, legend frames, axes boxes and marker centres of a
    matplotlib SVG. Every transform from the root down is applied (matplotlib
    writes none above the text groups today; a future one would count)."""
    tree = ET.parse(path, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
    root = tree.getroot()
    glyphs = _defs(root)
    drawing = Drawing([], [], [], [], [])

    def walk(el, m, inside_legend, inside_axes, previous=None):
        m = m @ parse_transform(el.get("transform")) if el.tag == SVG + "g" else m
        gid = el.get("id", "")
        if el.tag == SVG + "defs":
            return
        if el.tag == SVG + "g" and _is_text(el):
            label = _label(el, glyphs)
            label.lines = [apply(m, c) for c in label.lines]
            # an annotation's arrow is written just before its text, as a sibling
            label.leaders = [apply(m, ends) for ends in _leaders([previous] if previous is not None else [])]
            if label.lines and not inside_legend:
                drawing.texts.append(label)
                if gid in LABEL_IDS:
                    drawing.labels.append((label, inside_axes))
            return
        if gid.startswith("axes_"):
            inside_axes = len(drawing.axes)
            # the background patch is the axes' first child (none where the axis is off)
            first = next((c for c in el if c.tag == SVG + "g"), None)
            if first is not None and first.get("id", "").startswith("patch_"):
                pts = apply(m @ parse_transform(first.get("transform")),
                            path_points(next(first.iter(SVG + "path")).get("d")))
                drawing.axes.append((*pts.min(0), *pts.max(0)))
            else:
                drawing.axes.append(None)
        if gid.startswith("legend_"):
            frame = next(el.iter(SVG + "path"))
            pts = apply(m, path_points(frame.get("d")))
            (x0, y0), (x1, y1) = pts.min(0), pts.max(0)
            drawing.legends.append(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
            inside_legend = True
        if gid.startswith("kernels-"):
            marker_defs = {id(p) for d in el.iter(SVG + "defs") for p in d.iter(SVG + "path")}
            for p in (p for p in el.iter(SVG + "path") if id(p) not in marker_defs):
                pts = apply(m, path_points(p.get("d")))
                drawing.points.append(((pts.min(0) + pts.max(0)) / 2, inside_axes))
            for use in el.iter(SVG + "use"):
                drawing.points.append((apply(m, np.array([[float(use.get("x", 0)), float(use.get("y", 0))]]))[0],
                                       inside_axes))
        previous = None
        for child in el:
            if isinstance(child.tag, str):
                walk(child, m, inside_legend, inside_axes, previous)
                previous = child

    walk(root, np.eye(3), False, None)
    return drawing


# ------------------------------------------------------------ geometry

def _ccw(poly: np.ndarray) -> np.ndarray:
    x, y = poly[:, 0], poly[:, 1]
    signed = 0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    return poly if signed >= 0 else poly[::-1]


def _area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


def _cross(u, v) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def intersection_area(a: np.ndarray, b: np.ndarray) -> float:
    """Area common to two convex polygons (Sutherland-Hodgman clipping)."""
    if (a[:, 0].max() <= b[:, 0].min() or b[:, 0].max() <= a[:, 0].min()
            or a[:, 1].max() <= b[:, 1].min() or b[:, 1].max() <= a[:, 1].min()):
        return 0.0
    out, clip = list(_ccw(a)), _ccw(b)
    for i in range(len(clip)):
        p0, p1 = clip[i], clip[(i + 1) % len(clip)]
        points, out = out, []
        for j, q in enumerate(points):
            r = points[j - 1]
            q_in, r_in = _cross(p1 - p0, q - p0) >= 0, _cross(p1 - p0, r - p0) >= 0
            if q_in != r_in:
                d1, d2 = q - r, p1 - p0
                out.append(r + _cross(p0 - r, d2) / _cross(d1, d2) * d1)
            if q_in:
                out.append(q)
        if not out:
            return 0.0
    return _area(np.array(out)) if len(out) >= 3 else 0.0


def overlaps(drawing: Drawing, min_area_px: float = 1.0) -> list[tuple[str, str, float]]:
    """Pairs of texts whose ink boxes share more than ``min_area_px`` square
    pixels, and texts that reach into a legend frame: (text, text or
    'legend', area)."""
    found = []
    texts = drawing.texts
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            area = sum(intersection_area(p, q) for p in a.lines for q in b.lines)
            if area > min_area_px:
                found.append((a.text, b.text, round(area, 1)))
        for frame in drawing.legends:
            area = sum(intersection_area(p, frame) for p in a.lines)
            if area > min_area_px:
                found.append((a.text, "legend", round(area, 1)))
    return found


def outside_axes(drawing: Drawing, slack_px: float = 0.5) -> list[str]:
    """Chart labels and kernel points not wholly inside their axes."""
    out = []
    for label, k in drawing.labels:
        if k is None or drawing.axes[k] is None:
            out.append(f"{label.text} (not in a framed axes)")
            continue
        x0, y0, x1, y1 = drawing.axes[k]
        for corners in label.lines:
            if (corners[:, 0].min() < x0 - slack_px or corners[:, 0].max() > x1 + slack_px
                    or corners[:, 1].min() < y0 - slack_px or corners[:, 1].max() > y1 + slack_px):
                out.append(label.text)
                break
    for (x, y), k in drawing.points:
        if k is None or drawing.axes[k] is None:
            out.append(f"point at ({x:.0f}, {y:.0f}) outside any framed axes")
            continue
        x0, y0, x1, y1 = drawing.axes[k]
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            out.append(f"point at ({x:.0f}, {y:.0f})")
    return out


def _inside_convex(poly: np.ndarray, points: np.ndarray, inset_px: float) -> np.ndarray:
    """Which ``points`` lie inside convex ``poly`` by more than ``inset_px``."""
    poly = _ccw(poly)
    inside = np.ones(len(points), dtype=bool)
    for a, b in zip(poly, np.roll(poly, -1, axis=0)):
        edge = b - a
        length = np.hypot(*edge)
        if length == 0:
            continue
        # signed distance to the left of the edge (inside, counter-clockwise)
        dist = (edge[0] * (points[:, 1] - a[1]) - edge[1] * (points[:, 0] - a[0])) / length
        inside &= dist > inset_px
    return inside


def leaders_over_texts(drawing: Drawing, inset_px: float = 1.0, samples: int = 200) -> list[tuple[str, str]]:
    """Leader lines drawn across another text or into the legend: (the
    leader's label, the text or 'legend' it crosses)."""
    found = []
    t = np.linspace(0.0, 1.0, samples)[:, None]
    for owner in drawing.texts:
        for start, end in owner.leaders:
            points = start + t * (end - start)
            for other in drawing.texts:
                if other is owner:
                    continue
                if any(_inside_convex(poly, points, inset_px).any() for poly in other.lines):
                    found.append((owner.text, other.text))
            for frame in drawing.legends:
                if _inside_convex(frame, points, inset_px).any():
                    found.append((owner.text, "legend"))
    return found
