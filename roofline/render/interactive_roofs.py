"""The roofs of the interactive roofline (:mod:`.interactive`): the compute
roofs of the precisions the kernels use, each memory level's bandwidth line
up to the highest compute roof shown, the labels along the lines and each
ridge marked with its intensity.

The precision selector (:mod:`.interactive_controls`) can hide the highest
roofs. A bandwidth line that ran on to a hidden roof would then end in
empty space above the roofs shown, with ridges no kernel shown can reach.
So every level has a line, ridge marks and a label per compute roof, each
tagged with that roof's precision, and the page shows the set of the
highest roof selected (``interactive_controls.FILTER_JS``); before any
choice, the highest.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.placement import Placements
from ..core.units import format_si
from .geometry import placement_roofs
from .style import LEVEL_COLOR

def drawn_roofs(p: Placements):
    """The compute roofs drawn, highest first, and the memory levels drawn
    (:func:`.geometry.placement_roofs`, as the static chart)."""
    roofs = placement_roofs(p)
    return list(roofs.compute), [lv for lv, _ in roofs.levels]


def draw_roofs(fig, p: Placements, xlim, dense: bool = False) -> tuple[list, list]:
    """Draws the roofs; returns the compute roofs' lines and labels (tagged
    with their precision) and the bandwidth parts (lines, ridges and
    labels, tagged with the precisions whose roof they end at). ``dense``:
    a density image lies under them, so each roof's label gets a light
    box to stay readable over it."""
    roofs, levels = drawn_roofs(p)
    compute = []
    for i, (key, rate) in enumerate(roofs):
        compute.append(fig.line(list(xlim), [rate, rate], color="#333333", line_width=2 if i == 0 else 1,
                                line_dash="solid" if i == 0 else "dashed", name="roof-compute"))
        # at the left end, above the line: the ridges and their labels are at the right
        compute.append(_label(fig, xlim[0] * 1.15, rate * 1.06, f"{key.upper()} {format_si(rate, 'FLOP/s')}",
                              dense, text_align="left", text_font_size="9pt", text_color="#333333"))
        compute[-2].tags = compute[-1].tags = [key]
    if p.mixed_threads:
        _one_core(fig, p, roofs[0][0], xlim)
    bandwidth = []
    for i, (key, top) in enumerate(roofs):
        parts = _bandwidth_lines(fig, p, levels, top, xlim) + _ridges(fig, p, levels, top, xlim)
        for r in parts:
            r.tags = [key]
            r.visible = i == 0
        bandwidth += parts
    bandwidth += _bandwidth_labels(fig, p, levels, roofs, xlim, dense)
    return compute, bandwidth


def _label(fig, x: float, y: float, text: str, dense: bool, **style):
    """A roof's label: a text glyph, or over a density image an annotation
    on a light box (a glyph has no background)."""
    if not dense:
        return fig.text([x], [y], text=[text], name="roof-label", **style)
    from bokeh.models import Label
    label = Label(x=x, y=y, text=text, background_fill_color="white", background_fill_alpha=0.75,
                  name="roof-label", **style)
    fig.add_layout(label)
    return label


def _bandwidth_lines(fig, p: Placements, levels, top: float, xlim) -> list:
    """Each level's bandwidth line up to its ridge on the roof at ``top``."""
    out = []
    for lv in levels:
        bw = p.roof_device.memory[lv].bytes_s
        ridge = min(top / bw, xlim[1])
        out.append(fig.line([xlim[0], ridge], [xlim[0] * bw, ridge * bw], color=LEVEL_COLOR.get(lv, "#555555"),
                            line_width=1.6, name="roof-bandwidth"))
    return out


def _label_at(k: int, ridge: float, xlim) -> float | None:
    """Where level ``k``'s label starts along its line ending at ``ridge``:
    staggered (levels of close bandwidths would stack); at the line's start
    where there is no room; None where even that does not fit."""
    at = xlim[0] * 2.0 * 3.0 ** k
    if at > ridge / 3:
        at = xlim[0] * 1.3
    return at if at < ridge / 1.5 else None


def _bandwidth_labels(fig, p: Placements, levels, roofs, xlim, dense: bool) -> list:
    """One label per level, rotated to the line's slope on screen, above it,
    at the place it takes when its line ends at the highest roof; tagged
    with every roof whose line is long enough to carry it there."""
    out = []
    for k, lv in enumerate(levels):
        bw = p.roof_device.memory[lv].bytes_s
        at = _label_at(k, min(roofs[0][1] / bw, xlim[1]), xlim)
        fits = [key for key, top in roofs if at is not None and at < min(top / bw, xlim[1]) / 1.5]
        if not fits:
            continue
        out.append(_label(fig, at, at * bw * 1.25, f"{lv} {format_si(bw, 'B/s')}", dense, text_font_size="8.5pt",
                          text_color=LEVEL_COLOR.get(lv, "#555555"), angle=slope_angle(fig, xlim),
                          text_baseline="bottom"))
        out[-1].tags = fits
    return out


def _ridges(fig, p: Placements, levels, top: float, xlim) -> list:
    """Each level's ridge on the roof at ``top`` (inside the axes), marked
    and labelled with its intensity; a ridge close to the one before it is
    labelled above the roof, not beside that one's label."""
    from bokeh.models import ColumnDataSource, LabelSet
    xs = [top / p.roof_device.memory[lv].bytes_s for lv in levels]
    xs = [x for x in xs if x < xlim[1]]
    if not xs:
        return []
    marks = fig.scatter(xs, [top] * len(xs), size=5, color="#333333", marker="diamond", name="ridge")
    dy, prev = [0.0] * len(xs), None
    for j in np.argsort(xs).tolist():
        close = prev is not None and xs[j] / xs[prev] < 2.2 and dy[prev] < 0
        dy[j] = 5.0 if close else -16.0
        prev = j
    labels = LabelSet(source=ColumnDataSource(dict(x=xs, y=[top] * len(xs), text=[f"{x:.3g}" for x in xs], dy=dy)),
                      x="x", y="y", text="text", y_offset="dy", x_offset=4, text_font_size="7.5pt",
                      text_color="#555555", name="ridge-label")
    fig.add_layout(labels)
    return [marks, labels]


def roof_label_boxes(fig, p: Placements, xlim) -> list[tuple]:
    """Frame-pixel boxes of the compute roofs' labels and the ridges'
    intensities on every roof (as :func:`draw_roofs` draws them): no
    point's name goes there, whichever precisions are shown."""
    from .interactive_labels import text_box
    roofs, levels = drawn_roofs(p)
    out = [text_box(fig, xlim[0] * 1.15, rate * 1.06, f"{key.upper()} {format_si(rate, 'FLOP/s')}")
           for key, rate in roofs]
    for _, top in roofs:
        for lv in levels:
            ridge = top / p.roof_device.memory[lv].bytes_s
            if ridge < xlim[1]:
                out.append(text_box(fig, ridge, top, f"{ridge:.3g}", px_per_char=5.5, height=12, dx=4, dy=-16))
                out.append(text_box(fig, ridge, top, f"{ridge:.3g}", px_per_char=5.5, height=12, dx=4, dy=5))
    return out


def _one_core(fig, p: Placements, key: str, xlim) -> None:
    """Dotted one-core compute and DRAM roofs, labelled, for the single-threaded
    operators among multi-threaded ones (as the static chart)."""
    from ..core.cores import one_core_device
    one = one_core_device(p.device)
    if one is None or key not in one.compute:
        return
    top = one.compute[key].value
    fig.line(list(xlim), [top, top], color="#777777", line_width=1, line_dash="dotted", name="one-core")
    fig.text([xlim[0] * 1.15], [top / 1.06], text=[f"1 core: {key.upper()} {format_si(top, 'FLOP/s')}"],
             text_align="left", text_baseline="top", text_font_size="8pt", text_color="#555555", name="roof-label")
    lv = "DRAM" if "DRAM" in one.memory else next(iter(one.memory), None)
    if lv is None:
        return
    bw = one.memory[lv].bytes_s
    end = min(top / bw, xlim[1])
    fig.line([xlim[0], end], [xlim[0] * bw, end * bw], color="#777777", line_width=1, line_dash="dotted",
             name="one-core")
    at = (xlim[0] * end) ** 0.5          # halfway along on the log axis, under the line
    fig.text([at], [at * bw / 2.0], text=[f"1 core: {lv} {format_si(bw, 'B/s')}"], text_font_size="8pt",
             text_color="#555555", angle=slope_angle(fig, xlim), text_baseline="top", name="roof-label")


def slope_angle(fig, xlim) -> float:
    """The screen angle of a line of slope 1 in log-log (radians)."""
    yr = fig.y_range
    dx = math.log10(xlim[1] / xlim[0]) / max(fig.frame_width, 1)
    dy = math.log10(yr.end / yr.start) / max(fig.frame_height, 1)
    return math.atan2(1 / dy, 1 / dx)
