"""Where a chart's labels go: boxes in display pixels, each new label
kept off the labels, roof lines and kernel points already placed.

Sizes come from the font's metrics (matplotlib's text-to-path layout), so
a box is the text's real extent, not a guess per character. The figure must
be laid out before (``fig.draw_without_rendering()``): display positions
move when the layout changes the axes' size.
"""
from __future__ import annotations

import math

import numpy as np

Box = tuple[float, float, float, float]   # x0, y0, x1, y1 in display pixels
_HA = {"left": 0.0, "center": 0.5, "right": 1.0}
_VA = {"bottom": 0.0, "baseline": 0.2, "center": 0.5, "center_baseline": 0.5, "top": 1.0}


def text_size(text: str, fontsize: float) -> tuple[float, float]:
    """Width and height of one line of ``text`` in points."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path
    lines = text.split("\n")
    sizes = [text_to_path.get_text_width_height_descent(line or " ", FontProperties(size=fontsize),
                                                        ismath=False) for line in lines]
    return max(w for w, _, _ in sizes), sum(h for _, h, _ in sizes) * (1.2 if len(lines) > 1 else 1.0)


def _intersect(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class Occupied:
    """The boxes already taken in one axes."""

    def __init__(self, ax, margin_pt: float = 1.5):
        self.ax = ax
        self.px = ax.figure.dpi / 72.0          # pixels per point
        self.margin = margin_pt * self.px
        self.boxes: list[Box] = []
        self.inside = ax.get_window_extent()    # labels stay within the axes
        self._seen: set[int] = set()
        self.leaders: list[Box] = []            # (x0, y0, x1, y1) segments: a new one must cross none
        self.texts: list[Box] = []              # label and legend boxes: no leader may run through one

    def crosses(self, segment: Box) -> bool:
        """Whether a leader ``segment`` crosses one already taken."""
        from .geometry import segments_cross
        return any(segments_cross(segment, other) for other in self.leaders)

    def take_leader(self, segment: Box) -> None:
        self.leaders.append(segment)

    def leader_clear(self, segment: Box, own: Box, skip_px: float) -> bool:
        """Whether a leader ``segment`` from a point to the middle of its
        label ``own`` runs through no text (its first ``skip_px``, the
        marker, and its part inside ``own`` left out), and whether ``own``
        lies across no leader drawn before."""
        x0, y0, x1, y1 = segment
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        t = np.linspace(min(skip_px / length, 1.0), 1.0, 48)
        sx, sy = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
        mine = (sx >= own[0]) & (sx <= own[2]) & (sy >= own[1]) & (sy <= own[3])
        sx, sy = sx[~mine], sy[~mine]
        for b in self.texts:
            if np.any((sx > b[0]) & (sx < b[2]) & (sy > b[1]) & (sy < b[3])):
                return False
        u = np.linspace(0.0, 1.0, 48)
        for a0, b0, a1, b1 in self.leaders:
            lx, ly = a0 + u * (a1 - a0), b0 + u * (b1 - b0)
            if np.any((lx > own[0]) & (lx < own[2]) & (ly > own[1]) & (ly < own[3])):
                return False
        return True

    def free(self, boxes: list[Box]) -> bool:
        m = self.margin
        for b in boxes:
            if b[0] < self.inside.x0 or b[2] > self.inside.x1 or b[1] < self.inside.y0 or b[3] > self.inside.y1:
                return False
            grown = (b[0] - m, b[1] - m, b[2] + m, b[3] + m)
            if any(_intersect(grown, other) for other in self.boxes):
                return False
        return True

    def take(self, boxes: list[Box], artist=None, text: bool = False) -> None:
        """Take ``boxes``; ``artist``, the text drawn there, is then not
        taken again by :meth:`take_texts`; ``text``: the boxes hold words
        (a label, the legend), which no leader may cross."""
        self.boxes.extend(boxes)
        if text or artist is not None:
            self.texts.extend(boxes)
        if artist is not None:
            self._seen.add(id(artist))

    def text_box(self, anchor, text: str, fontsize: float, ha: str = "left", va: str = "baseline",
                 offset_pt=(0.0, 0.0)) -> Box:
        """The box of an unrotated text at display ``anchor`` moved by ``offset_pt``."""
        width, height = (v * self.px for v in text_size(text, fontsize))
        x = anchor[0] + offset_pt[0] * self.px - _HA[ha] * width
        y = anchor[1] + offset_pt[1] * self.px - _VA[va] * height
        return (x, y, x + width, y + height)

    def slanted_boxes(self, anchor, text: str, fontsize: float, degrees: float) -> list[Box]:
        """Squares along a rotated text from its anchor (left, bottom): a
        slanted label's own bounding box would cover the whole triangle
        under it."""
        width, height = (v * self.px for v in text_size(text, fontsize))
        c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
        out = []
        for k in range(max(1, int(width // height))):
            along = (k + 0.5) * height
            cx = anchor[0] + along * c - 0.5 * height * s
            cy = anchor[1] + along * s + 0.5 * height * c
            out.append((cx - height / 2, cy - height / 2, cx + height / 2, cy + height / 2))
        return out

    def take_texts(self) -> None:
        """The unrotated texts in the axes not taken yet (roof labels)."""
        for t in self.ax.texts:
            if t.get_rotation() != 0 or not t.get_text() or id(t) in self._seen:
                continue
            self._seen.add(id(t))
            if hasattr(t, "xyann") and t.anncoords == "offset points":
                anchor, offset = self.ax.transData.transform(t.xy), t.xyann
            else:
                anchor, offset = t.get_transform().transform(t.get_position()), (0.0, 0.0)
            box = self.text_box(anchor, t.get_text(), t.get_fontsize(),
                                t.get_horizontalalignment(), t.get_verticalalignment(), offset)
            self.boxes.append(box)
            self.texts.append(box)

    def take_hline(self, y: float, half_width_pt: float = 1.5) -> None:
        _, py = self.ax.transData.transform((1.0, y))
        h = half_width_pt * self.px
        self.boxes.append((self.inside.x0, py - h, self.inside.x1, py + h))

    def take_points(self, x: np.ndarray, y: np.ndarray, sizes_pt2: np.ndarray, limit: int = 500) -> None:
        """Marker boxes of the ``limit`` largest points (scatter sizes are
        areas in points squared)."""
        ok = np.flatnonzero(np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0))
        ok = ok[np.argsort(-sizes_pt2[ok])][:limit]
        if not len(ok):
            return
        xy = self.ax.transData.transform(np.column_stack([x[ok], y[ok]]))
        r = 0.5 * np.sqrt(sizes_pt2[ok]) * self.px
        self.boxes.extend(zip(xy[:, 0] - r, xy[:, 1] - r, xy[:, 0] + r, xy[:, 1] + r))


def offsets(first: float, step: float, tries: int = 40):
    """first, first+step, the same below, first+2 step... (in points): the
    preferred side first, then alternating."""
    yield first
    for k in range(1, tries):
        yield first + k * step
        yield -first - (k - 1) * step
