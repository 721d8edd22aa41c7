"""The roofline as an interactive chart for the HTML report (Bokeh, with
its JavaScript inlined once per page: the report opens with no network).

Bokeh was chosen over Plotly by measuring both on 100,000 points written
as one offline HTML file and loaded in headless Chromium (this project's
2-vCPU VM): Bokeh 7.3 MB and 2.2 s to a drawn canvas, Plotly 11.0 MB and
3.4 s. A report draws at most ``max_points`` markers (kernel names summed,
the rest of a huge trace as a density image under them), so its chart
stays small whatever the trace.

Hover shows a kernel's name with its shapes, calls, time, time per call,
FLOP/s, bytes/s at its limiting level, % of roof, bound and the reason it
is below its roof. Arrows join consecutive variants of a kernel (before to
after); the chains and the points with the most time are named, each label
moved down until it covers no other label or point (with a leader line
then); roof labels run along their lines; ridges carry their intensity; the
axes fit the roofs of the precisions used and the points. The wheel zooms, a drag pans; the legend hides a bound
class; the selectors above the chart keep only some families, bounds or
operators; a click on a point jumps to its row in the kernels table.

Names come from the files read, so they reach the page as text only. The
tooltip's ``@field`` values are escaped by Bokeh; the selectors' options
are not (Choices.js, under Bokeh's ``MultiChoice``, puts an option's label
in with ``innerHTML``), so each option's label is escaped here and its value
stays the name the points carry. Every shown name has its bidi and other
control characters written as escapes, as the terminal output does.
"""
from __future__ import annotations

import html
import math

import numpy as np

from ..core.placement import CLASSES, Placements
from ..core.units import format_si
from .geometry import fitted_limits, placement_roofs
from .names import distinct_names
from .style import CLASS_STYLE, LEVEL_COLOR
from .terminal import visible

MAX_MARKER_PX = 34.0


def resources() -> str:
    """Bokeh's JavaScript, inline: once per page, before any chart. Only the
    core and the widgets (the selectors): 1.65 MB, where every bundle,
    MathJax and tables included, is 3.9 MB."""
    from bokeh.resources import Resources
    return Resources(mode="inline", components=["bokeh", "bokeh-widgets"]).render_js()


def _fmt(values, unit: str, digits: int = 3) -> list[str]:
    return ["–" if not (isinstance(v, float) and math.isfinite(v)) else format_si(v, unit, digits)
            for v in np.asarray(values, dtype=float).tolist()]


def _percent(values) -> list[str]:
    return ["–" if not math.isfinite(v) else f"{100 * v:.0f} %" for v in np.asarray(values, dtype=float).tolist()]


def _bytes_rate(p: Placements) -> np.ndarray:
    """Achieved bytes/s at each kernel's limiting level (its nearest level
    with a counter when compute limits it)."""
    ks = p.kernels
    out = np.full(len(ks), math.nan)
    limiter = p.limiter
    levels = list(ks.bytes)
    with np.errstate(invalid="ignore", divide="ignore"):
        for lv in reversed(levels):                       # nearest level last: it wins
            v = ks.bytes[lv] / ks.time_s
            out = np.where(np.isfinite(v) & np.isnan(out), v, out)
        for lv in levels:
            v = ks.bytes[lv] / ks.time_s
            out = np.where(limiter == lv, v, out)
    return out


def _columns(p: Placements, x: np.ndarray, row_ids: list[str]) -> dict:
    """The chart's data source: one entry per drawn kernel."""
    ks = p.kernels
    time = np.nan_to_num(ks.time_s)
    share = time / time.sum() if time.sum() > 0 else np.full(len(ks), 1.0 / max(len(ks), 1))
    calls = np.maximum(ks.count, 1)
    bound = p.bound
    labels = [b + (f" ({lv})" if lv else "") for b, lv in zip(bound.tolist(), p.level.tolist())]
    names = distinct_names(ks.names, width=120)
    variants = ks.variants.tolist()
    return {
        "x": x, "y": p.achieved_flop_s,
        "size": 6 + MAX_MARKER_PX * np.sqrt(share),
        "color": [CLASS_STYLE[c][0] for c in bound.tolist()],
        "bound": bound.tolist(), "bound_label": labels,
        "name": [visible(n + (f" [{v}]" if v else "")) for n, v in zip(names, variants)],
        "full_name": [str(n) for n in ks.names.tolist()],      # data only: never shown
        "family": [visible(str(f)) or "–" for f in ks.families.tolist()],
        "operator": [visible(str(o)) or "–" for o in ks.operators.tolist()],
        "calls": [f"{int(c):,}" for c in ks.count.tolist()],
        "time": _fmt(ks.time_s, "s"), "per_call": _fmt(ks.time_s / calls, "s"),
        "flop_s": _fmt(p.achieved_flop_s, "FLOP/s"), "bytes_s": _fmt(_bytes_rate(p), "B/s"),
        "roof": _percent(p.efficiency), "reason": [visible(str(r)) if r else "–" for r in p.reason.tolist()],
        "row": row_ids,
    }


TOOLTIP = """
<div style="max-width:460px;font-size:12px">
<div style="font-family:monospace;font-weight:600;overflow-wrap:anywhere">@name</div>
<div>@bound_label · @roof of roof · @reason</div>
<div>@calls calls · @time (@per_call per call)</div>
<div>@flop_s · @bytes_s</div>
<div style="color:#666">family @family · operator @operator</div>
</div>"""

# Keep the rows whose family, bound and operator are among those chosen (an
# empty choice keeps all), then tell every view of the source.
FILTER_JS = """
const data = source.data, keep = [];
const pick = (w) => new Set(w ? w.value : []);
const fam = pick(families), bnd = pick(bounds), op = pick(operators);
for (let i = 0; i < data.x.length; i++) {
  if ((fam.size === 0 || fam.has(data.family[i])) && (bnd.size === 0 || bnd.has(data.bound[i]))
      && (op.size === 0 || op.has(data.operator[i]))) keep.push(i);
}
shown.indices = keep;
source.change.emit();
"""

# A click on a point: scroll its row of the kernels table into view.
TAP_JS = """
const i = source.selected.indices[0];
if (i === undefined) return;
const row = document.getElementById(source.data.row[i]);
if (row) { const t = row.closest("table"); if (t) t.classList.remove("rr-collapsed");
           row.scrollIntoView({behavior: "smooth", block: "center"}); row.classList.add("rr-hit");
           setTimeout(() => row.classList.remove("rr-hit"), 2500); }
"""


def roofline_html(p: Placements, x: np.ndarray, row_ids: list[str], title: str,
                  density: tuple | None = None, width: int = 1000, height: int = 620,
                  chains=(), label_top: int = 5) -> str:
    """:func:`roofline_layout` as a ``<div>`` and its ``<script>``."""
    from bokeh.embed import components
    return "\n".join(components(roofline_layout(p, x, row_ids, title, density, width, height, chains,
                                                 label_top)[0]))


def roofline_layout(p: Placements, x: np.ndarray, row_ids: list[str], title: str,
                    density: tuple | None = None, width: int = 1000, height: int = 620,
                    chains=(), label_top: int = 5):
    """The interactive cache-aware roofline of the kernels of ``p`` at
    intensities ``x`` (NaN: not drawn): the Bokeh layout and its figure
    (no Bokeh JavaScript: :func:`resources` brings it once per page).
    ``density``: ``(image, x0, x1, y0, y1)`` of every row of a huge trace;
    ``chains``: variant chains (:func:`.variants.variant_chains` of ``p``'s
    rows), drawn as arrows from each variant to the next; the ``label_top``
    points with the most time outside a chain are named on the chart."""
    from bokeh.layouts import column, row
    from bokeh.models import (CDSView, ColumnDataSource, CustomJS, GroupFilter, HoverTool, IndexFilter,
                              Legend, LegendItem, TapTool)
    from bokeh.plotting import figure

    drawn = np.isfinite(x) & (x > 0) & np.isfinite(p.achieved_flop_s) & (p.achieved_flop_s > 0)
    source = ColumnDataSource(_columns(p, x, row_ids))
    shown = IndexFilter(np.flatnonzero(drawn).tolist())
    xlim, ylim = _limits(p, x[drawn], p.achieved_flop_s[drawn])
    fig = figure(x_axis_type="log", y_axis_type="log", width=width, height=height, title=title,
                 x_range=xlim, y_range=ylim, tools="pan,wheel_zoom,box_zoom,reset,save",
                 active_scroll="wheel_zoom", x_axis_label="arithmetic intensity [FLOP/byte] (nearest level)",
                 y_axis_label="performance [FLOP/s]")
    if density is not None:
        image, x0, x1, y0, y1 = density
        from bokeh.models import LinearColorMapper
        from bokeh.palettes import Greys256
        # light for few rows, dark for many; empty cells transparent
        shades = LinearColorMapper(palette=list(reversed(Greys256))[40:], nan_color="rgba(0,0,0,0)")
        fig.image(image=[image], x=x0, y=y0, dw=x1 - x0, dh=y1 - y0, color_mapper=shades, alpha=0.6)
    _roofs(fig, p, xlim)
    items = []
    for cls in CLASSES:
        view = CDSView(filter=GroupFilter(column_name="bound", group=cls) & shown)
        r = fig.scatter("x", "y", source=source, view=view, size="size", fill_color="color", line_color="#333333",
                        line_width=0.6, fill_alpha=0.75, name="points")
        if np.any(p.bound[drawn] == cls):
            items.append(LegendItem(label=CLASS_STYLE[cls][1], renderers=[r]))
    _arrows(fig, x, p.achieved_flop_s, chains, drawn)
    _point_labels(fig, p, x, drawn, chains, label_top)
    fig.add_layout(Legend(items=items, click_policy="hide", location="bottom_right", label_text_font_size="9pt"))
    fig.add_tools(HoverTool(tooltips=TOOLTIP, renderers=[r for r in fig.renderers if r.name == "points"]))
    fig.add_tools(TapTool(callback=CustomJS(args=dict(source=source), code=TAP_JS)))
    widgets = _selectors(source, shown, drawn)
    return (column(row(*widgets), fig) if widgets else fig), fig


def _selectors(source, shown, drawn) -> list:
    """One multiple choice per field with more than one value among the drawn points."""
    from bokeh.models import CustomJS, MultiChoice
    widgets = {}
    for field, label in (("family", "families"), ("bound", "bounds"), ("operator", "operators")):
        values = sorted(set(np.asarray(source.data[field], dtype=object)[drawn].tolist()) - {"–"})
        if len(values) > 1:
            widgets[label] = MultiChoice(options=choices(values), placeholder=f"all {label}", width=300,
                                         title=label)
    if not widgets:
        return []
    args = dict(source=source, shown=shown, families=widgets.get("families"), bounds=widgets.get("bounds"),
                operators=widgets.get("operators"))
    callback = CustomJS(args=args, code=FILTER_JS)
    for w in widgets.values():
        w.js_on_change("value", callback)
    return list(widgets.values())


def choices(values: list[str]) -> list[tuple[str, str]]:
    """A selector's options: (value, label) with the label as HTML text,
    since Choices.js shows labels with ``innerHTML``; the value (what the
    filter compares with the points' field) is the name itself."""
    return [(v, html.escape(v, quote=True)) for v in values]


def _drawn_roofs(p: Placements):
    """The compute roofs drawn, highest first, and the memory levels drawn
    (:func:`.geometry.placement_roofs`, as the static chart)."""
    roofs = placement_roofs(p)
    return list(roofs.compute), [lv for lv, _ in roofs.levels]


def _limits(p: Placements, xs: np.ndarray, ys: np.ndarray):
    """Axes fitted to what is drawn (:func:`.geometry.fitted_limits`)."""
    return fitted_limits(placement_roofs(p), xs, ys)


def _arrows(fig, x: np.ndarray, y: np.ndarray, chains, drawn: np.ndarray) -> None:
    """An arrow from each variant of a kernel to the next (before to after)."""
    from bokeh.models import Arrow, ColumnDataSource, VeeHead
    xs0, ys0, xs1, ys1 = [], [], [], []
    for c in chains:
        rows = [i for i in c.rows if drawn[i]]
        for a, b in zip(rows, rows[1:]):
            xs0.append(float(x[a])); ys0.append(float(y[a])); xs1.append(float(x[b])); ys1.append(float(y[b]))
    if not xs0:
        return
    src = ColumnDataSource(dict(x0=xs0, y0=ys0, x1=xs1, y1=ys1))
    fig.add_layout(Arrow(end=VeeHead(size=9, fill_color="#444444", line_color="#444444"), source=src,
                         x_start="x0", y_start="y0", x_end="x1", y_end="y1", line_color="#444444",
                         line_width=1.3, name="variant-arrow"))


def _point_labels(fig, p: Placements, x: np.ndarray, drawn: np.ndarray, chains, top: int) -> None:
    """Names on the chart: one per variant chain (at its last variant, with
    the variants in order) and the ``top`` other points with the most time;
    right of the point in the left part of the chart, left of it in the
    right part, moved down a line at a time until it overlaps no other."""
    from bokeh.models import ColumnDataSource, LabelSet
    from .plot import short_name
    y = p.achieved_flop_s
    found = []
    in_chain = set()
    # the name without its namespaces: variants of forward_kernel[conv1] and [conv2] stay apart
    told = {c.name: short_name(str(c.name).rsplit("::", 1)[-1], 34) for c in chains}
    for c in chains:
        rows = [i for i in c.rows if drawn[i]]
        in_chain.update(c.rows)
        if rows:
            found.append((rows[-1], f"{told[c.name]} ({len(c.variants)} variants)"))
    time = np.where(drawn, np.nan_to_num(p.kernels.time_s), -1.0)
    seen = set()
    for i in np.argsort(-time, kind="stable").tolist():
        if len(seen) >= top or time[i] < 0:
            break
        name = short_name(str(p.kernels.names[i]), 34)
        if i not in in_chain and name not in seen:
            seen.add(name)
            found.append((i, name))
    if not found:
        return
    cols = {"x": [], "y": [], "text": [], "dx": [], "dy": [], "align": []}
    points = [_screen(fig, float(a), float(b)) for a, b in zip(x[drawn], y[drawn])]
    for (px, py, w, dx, dy, align), (i, label) in zip(label_boxes(fig, x, y, found, points), found):
        cols["x"].append(float(x[i])); cols["y"].append(float(y[i])); cols["text"].append(visible(label))
        cols["dx"].append(dx); cols["dy"].append(dy); cols["align"].append(align)
    lead = [(_data(fig, px, py), (xi, yi)) for (px, py, w, dx, dy, align), xi, yi
            in zip(label_boxes(fig, x, y, found, points), cols["x"], cols["y"]) if dy]
    if lead:            # a label moved off its point's line is tied to it
        fig.segment([a[0] for a, _ in lead], [a[1] for a, _ in lead], [b[0] for _, b in lead],
                    [b[1] for _, b in lead], line_color="#999999", line_width=0.7, name="leader")
    fig.add_layout(LabelSet(source=ColumnDataSource(cols), x="x", y="y", text="text", x_offset="dx", y_offset="dy",
                            text_align="align", text_baseline="middle", text_font_size="8pt", text_color="#222222",
                            background_fill_color="white", background_fill_alpha=0.75, name="point-label"))


CHAR_PX, LINE_PX = 5.6, 13.0        # an 8 pt label's character width and line height, in screen pixels


FRAME = (90, 95)      # pixels of the figure outside its plot frame: axes and toolbar, title and axis


def _screen(fig, xv: float, yv: float) -> tuple[float, float]:
    """Pixels from the plot frame's lower left corner (log axes, the figure's ranges)."""
    xr, yr = fig.x_range, fig.y_range
    fx = math.log10(xv / xr.start) / math.log10(xr.end / xr.start)
    fy = math.log10(yv / yr.start) / math.log10(yr.end / yr.start)
    return fx * (fig.width - FRAME[0]), fy * (fig.height - FRAME[1])


def _data(fig, px: float, py: float) -> tuple[float, float]:
    """The data point at frame pixels (the inverse of :func:`_screen`)."""
    xr, yr = fig.x_range, fig.y_range
    fx, fy = px / (fig.width - FRAME[0]), py / (fig.height - FRAME[1])
    return xr.start * (xr.end / xr.start) ** fx, yr.start * (yr.end / yr.start) ** fy


def label_boxes(fig, x, y, found, points=()) -> list[tuple]:
    """(px, py, width, x offset, y offset, align) of each label in
    ``found`` ((row, text) each), placed so that no two boxes overlap and
    none covers a point (``points``: screen positions)."""
    placed = [(px - 5, py - 5, px + 5, py + 5) for px, py in points]     # left, bottom, right, top
    out = []
    for i, label in found:
        px, py = _screen(fig, float(x[i]), float(y[i]))
        w = CHAR_PX * len(label) + 4
        right = px + 9 + w < (fig.width - FRAME[0]) * 0.98
        dx = 9 if right else -9
        left = px + dx if right else px + dx - w
        dy = 0.0
        while any(left < r and left + w > l0 and py + dy - LINE_PX / 2 < t and py + dy + LINE_PX / 2 > b
                  for l0, b, r, t in placed) and dy > -20 * LINE_PX:
            dy -= LINE_PX
        placed.append((left, py + dy - LINE_PX / 2, left + w, py + dy + LINE_PX / 2))
        out.append((px + dx, py + dy, w, dx, dy, "left" if right else "right"))
    return out


def _roofs(fig, p: Placements, xlim) -> None:
    """The compute roofs of the precisions the kernels use, every memory
    level's bandwidth line up to the highest of them, the labels along the
    lines (roofs above their line at the right, bandwidths rotated to their
    slope) and each ridge marked with its intensity."""
    from bokeh.models import ColumnDataSource, LabelSet
    device = p.roof_device
    roofs, levels = _drawn_roofs(p)
    top = roofs[0][1]
    for i, (key, rate) in enumerate(roofs):
        fig.line(list(xlim), [rate, rate], color="#333333", line_width=2 if i == 0 else 1,
                 line_dash="solid" if i == 0 else "dashed")
        # at the left end, above the line: the ridges and their labels are at the right
        fig.text([xlim[0] * 1.15], [rate * 1.06], text=[f"{key.upper()} {format_si(rate, 'FLOP/s')}"],
                 text_align="left", text_font_size="9pt", text_color="#333333", name="roof-label")
    ridge_x, ridge_y, ridge_t = [], [], []
    for k, lv in enumerate(levels):
        bw = device.memory[lv].bytes_s
        ridge = min(top / bw, xlim[1])
        color = LEVEL_COLOR.get(lv, "#555555")
        fig.line([xlim[0], ridge], [xlim[0] * bw, ridge * bw], color=color, line_width=1.6)
        # along the line, staggered (levels of close bandwidths would stack), rotated to the
        # line's slope on screen (45 degrees on equal decades), above it
        at = xlim[0] * 2.0 * 3.0 ** k
        if at > ridge / 3:          # no room along a short line: at its start
            at = xlim[0] * 1.3
        if at < ridge / 1.5:
            fig.text([at], [at * bw * 1.25], text=[f"{lv} {format_si(bw, 'B/s')}"], text_font_size="8.5pt",
                     text_color=color, angle=_slope_angle(fig, xlim), text_baseline="bottom", name="roof-label")
        if ridge < xlim[1]:
            ridge_x.append(ridge); ridge_y.append(top); ridge_t.append(f"{ridge:.3g}")
    if ridge_x:
        fig.scatter(ridge_x, ridge_y, size=5, color="#333333", marker="diamond")
        # a ridge close to the one before it is labelled above the roof, not beside that one's label
        order = np.argsort(ridge_x)
        dy, prev = [0.0] * len(ridge_x), None
        for j in order.tolist():
            close = prev is not None and ridge_x[j] / ridge_x[prev] < 2.2 and dy[prev] < 0
            dy[j] = 5.0 if close else -16.0
            prev = j
        fig.add_layout(LabelSet(source=ColumnDataSource(dict(x=ridge_x, y=ridge_y, text=ridge_t, dy=dy)), x="x",
                                y="y", text="text", y_offset="dy", x_offset=4, text_font_size="7.5pt",
                                text_color="#555555", name="ridge-label"))


def _slope_angle(fig, xlim) -> float:
    """The screen angle of a line of slope 1 in log-log (radians)."""
    yr = fig.y_range
    dx = math.log10(xlim[1] / xlim[0]) / max(fig.width, 1)
    dy = math.log10(yr.end / yr.start) / max(fig.height, 1)
    return math.atan2(1 / dy, 1 / dx)
