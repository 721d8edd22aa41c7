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
after); the chains and the points with the most time are named
(:mod:`.interactive_labels`: no name covers another or a point, leader
lines do not cross); roof labels run along their lines; ridges carry their
intensity; the axes fit the roofs of the precisions used and the points.
The controls (:mod:`.interactive_controls`): the wheel zooms, a drag pans;
the bound legend hides a class, the family legend isolates a family (or a
kernel, when there are few and one family); a slider keeps the kernels
that make up the top X % of the time; a precision selector shows the roofs
(and kernels) of chosen precisions where several apply; a level selector
adds a point per memory level (the hierarchical view) where rows have
bytes at several; selectors keep only some families, bounds or operators;
a click on a point jumps to its row in the kernels table. Rows not on the
chart are named under it. Every control runs in the page, no server.

The chart is built with a fixed plot frame (``frame_width``,
``frame_height``) and its legends to the right of it, so the names placed in
frame pixels are where the browser draws them and no legend covers a point.

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
from .style import CLASS_STYLE, LEVEL_MARKER
from . import interactive_controls as ctl
from .interactive_controls import choices  # noqa: F401  (the report's tests check its escaping)
from .interactive_roofs import draw_roofs, drawn_roofs, roof_label_boxes
from .interactive_labels import CHAR_PX, LINE_PX, _screen, point_labels  # noqa: F401
from .names import short_name
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
        "row": row_ids, "precision": _precision(p),
        "cum": _time_before(time),
    }


def _precision(p: Placements) -> list[str]:
    """The device precision (its compute roof's key) of most of each row's
    FLOPs; "–" for a row without FLOPs."""
    keys = list(p.kernels.flops)
    if not keys:
        return ["–"] * len(p)
    device = p.roof_device
    stack = np.vstack([np.nan_to_num(np.asarray(p.kernels.flops[k], dtype=float)) for k in keys])
    names = np.asarray([device.compute_key(k) for k in keys], dtype=object)
    return np.where(stack.max(axis=0) > 0, names[np.argmax(stack, axis=0)], "–").tolist()


def _time_before(time: np.ndarray) -> np.ndarray:
    """Per row, the share of the total time taken by the rows with more
    time (0 for the longest): the slider keeps the rows below its value,
    which together make up that share of the time."""
    order = np.argsort(-time, kind="stable")
    total = time.sum()
    before = np.empty(len(time))
    before[order] = (np.cumsum(time[order]) - time[order]) / total if total > 0 else 0.0
    return before


LEVEL_TOOLTIP = """
<div style="max-width:460px;font-size:12px">
<div style="font-family:monospace;font-weight:600;overflow-wrap:anywhere">@name</div>
<div>at @level: @at · @flop_s</div>
<div>@bound_label · @roof of roof · @reason · @time</div>
</div>"""

TOOLTIP = """
<div style="max-width:460px;font-size:12px">
<div style="font-family:monospace;font-weight:600;overflow-wrap:anywhere">@name</div>
<div>@bound_label · @roof of roof · @reason</div>
<div>@calls calls · @time (@per_call per call)</div>
<div>@flop_s · @bytes_s</div>
<div style="color:#666">family @family · operator @operator</div>
</div>"""

def roofline_html(p: Placements, x: np.ndarray, row_ids: list[str], title: str,
                  density: tuple | None = None, width: int = 780, height: int = 520,
                  chains=(), label_top: int = 5, unit: str = "kernel") -> str:
    """:func:`roofline_layout` as a ``<div>`` and its ``<script>``."""
    from bokeh.embed import components
    return "\n".join(components(roofline_layout(p, x, row_ids, title, density, width, height, chains,
                                                 label_top, unit)[0]))


def roofline_layout(p: Placements, x: np.ndarray, row_ids: list[str], title: str,
                    density: tuple | None = None, width: int = 780, height: int = 520,
                    chains=(), label_top: int = 5, unit: str = "kernel"):
    """The interactive cache-aware roofline of the kernels of ``p`` at
    intensities ``x`` (NaN: not drawn): the Bokeh layout and its figure
    (no Bokeh JavaScript: :func:`resources` brings it once per page).
    ``width`` and ``height`` are the plot frame's (the legends sit right of
    it); ``density``: ``(image, x0, x1, y0, y1)`` of every row of a huge
    trace; ``chains``: variant chains (:func:`.variants.variant_chains` of
    ``p``'s rows), drawn as arrows from each variant to the next; the
    ``label_top`` points with the most time outside a chain are named."""
    from bokeh.layouts import column, row
    from bokeh.models import CDSView, ColumnDataSource, GroupFilter, HoverTool, IndexFilter
    from bokeh.plotting import figure

    drawn = np.isfinite(x) & (x > 0) & np.isfinite(p.achieved_flop_s) & (p.achieved_flop_s > 0)
    cols = _columns(p, x, row_ids)
    cols["drawn"] = drawn.tolist()
    cols["group"], kind = ctl.legend_groups(cols["family"], cols["name"], np.nan_to_num(p.kernels.time_s), drawn,
                                            unit)
    source = ColumnDataSource(cols)
    shown = IndexFilter(np.flatnonzero(drawn).tolist())
    xlim, ylim = _limits(p, x[drawn], p.achieved_flop_s[drawn])
    fig = figure(x_axis_type="log", y_axis_type="log", frame_width=width, frame_height=height, title=title,
                 x_range=xlim, y_range=ylim, tools="pan,wheel_zoom,box_zoom,reset,save", toolbar_location="above",
                 active_scroll="wheel_zoom", x_axis_label="arithmetic intensity [FLOP/byte] (nearest level)",
                 y_axis_label="performance [FLOP/s]")
    if density is not None:
        _density(fig, density)
    roof_lines, bandwidth = draw_roofs(fig, p, xlim, dense=density is not None)
    points, groups = [], []
    for g in dict.fromkeys(np.asarray(cols["group"], dtype=object)[drawn].tolist()):
        view = CDSView(filter=GroupFilter(column_name="group", group=g) & shown)
        points.append(fig.scatter("x", "y", source=source, view=view, size="size", fill_color="color",
                                  line_color="#333333", line_width=0.6, fill_alpha=0.75, name="points"))
        # the legend's entry: a grey marker of its own (the points' colour is their bound's), no point
        groups.append(fig.scatter([math.nan], [math.nan], size=9, fill_color="#bbbbbb", line_color="#333333",
                                  name="group"))
        points[-1].tags = groups[-1].tags = [g]   # on the renderer (a glyph method's tags= goes to the glyph)
    classes = []
    for c in CLASSES:
        if np.any(p.bound[drawn] == c):        # a legend entry of its own, with no point: the filter hides the class
            classes.append(fig.scatter([math.nan], [math.nan], size=9, fill_color=CLASS_STYLE[c][0],
                                       line_color="#333333",
                                       name="class"))
            classes[-1].tags = [c]
    follow, full = _arrows(fig, x, p.achieved_flop_s, chains, drawn)
    labelled = point_labels(fig, p, x, drawn, chains, label_top, np.asarray(cols["size"], dtype=float),
                            blocked=roof_label_boxes(fig, p, xlim))
    if labelled:
        for src in labelled:
            follow.append(src); full.append(ColumnDataSource(dict(src.data)))
    levels = _level_points(fig, p, source, drawn)
    if levels:
        follow.append(levels["joins"]); full.append(levels["all_joins"])
    _legends(fig, classes, groups, kind)
    fig.add_tools(HoverTool(tooltips=TOOLTIP, renderers=points))
    widgets = ctl.selectors(source, drawn)
    widgets["slider"] = ctl.time_slider(unit)
    widgets["precisions"] = ctl.precision_picker([k for k, _ in drawn_roofs(p)[0]])
    widgets["levels"] = ctl.level_picker(levels["levels"]) if levels else None
    parts = dict(classes=classes, groups=groups, points=points, roofs=roof_lines, bandwidth=bandwidth, follow=follow,
                 full=full)
    if levels:
        parts.update(level_source=levels["source"], level_shown=levels["shown"],
                     level_renderers=levels["renderers"])
    ctl.wire(fig, source, shown, widgets, parts)
    pickers = [w for w in (widgets.get("families"), widgets.get("bounds"), widgets.get("operators")) if w]
    tools = [w for w in (widgets["slider"], widgets["precisions"], widgets["levels"]) if w is not None]
    rows = ([row(*pickers)] if pickers else []) + [row(*tools)]
    missing = _not_on_chart(p, drawn, unit)
    return column(*rows, fig, *([missing] if missing is not None else [])), fig


def _density(fig, density) -> None:
    """Every row of a huge trace as a grey density image under the markers."""
    from bokeh.models import LinearColorMapper
    from bokeh.palettes import Greys256
    image, x0, x1, y0, y1 = density
    # light for few rows, dark for many; empty cells transparent
    shades = LinearColorMapper(palette=list(reversed(Greys256))[40:], nan_color="rgba(0,0,0,0)")
    fig.image(image=[image], x=x0, y=y0, dw=x1 - x0, dh=y1 - y0, color_mapper=shades, alpha=0.6)


def _legends(fig, classes, groups, kind: str) -> None:
    """Right of the frame, where they cover no point: the bound classes (a
    click hides one) and, when there are several, the families or kernels
    (``kind``; a click isolates one, grey: the colour is the bound's)."""
    from bokeh.models import Legend, LegendItem
    fig.add_layout(Legend(items=[LegendItem(label=CLASS_STYLE[r.tags[0]][1].split(":")[0], renderers=[r])
                                 for r in classes], click_policy="hide", title="bound (click: hide)",
                          label_text_font_size="9pt", title_text_font_size="9pt", name="class-legend"), "right")
    if len(groups) > 1:
        fig.add_layout(Legend(items=[LegendItem(label=visible(short_name(str(r.tags[0]), 26)), renderers=[r])
                                     for r in groups], click_policy="hide", title=f"{kind} (click: isolate)",
                              label_text_font_size="8.5pt", title_text_font_size="9pt", name="group-legend"),
                       "right")


def _not_on_chart(p: Placements, drawn: np.ndarray, unit: str):
    """A note under the chart naming the rows with the most time that are
    not on it (no FLOPs, bytes or time, or far off the roofs), as the
    static chart lists them; None when every row is drawn."""
    missing = np.flatnonzero(~drawn)
    if not len(missing):
        return None
    from bokeh.models import Div
    time = np.nan_to_num(p.kernels.time_s)
    total = time.sum()
    top = sorted(missing.tolist(), key=lambda i: -time[i])[:4]
    parts = []
    for i, r in zip(top, p.records(top)):
        share = f"{100 * time[i] / total:.0f} % of time, " if total else ""
        bound = r["bound"] + (f" {r['level']}" if r["level"] else "")
        parts.append(html.escape(f"{visible(short_name(str(r['name']), 60))}: {share}{bound}"))
    more = f"; … and {len(missing) - 4:,} more" if len(missing) > 4 else ""
    what = f"{len(missing):,} {unit}" + ("s" if len(missing) != 1 else "")
    return Div(text=(f'<div style="font-size:12px;color:#444">Not on this chart ({what}: no '
                     f"FLOPs, bytes or time, or far off the roofs): " + "; ".join(parts) + more + "</div>"),
               width=1000, name="not-on-chart")


def _limits(p: Placements, xs: np.ndarray, ys: np.ndarray):
    """Axes fitted to what is drawn (:func:`.geometry.fitted_limits`)."""
    return fitted_limits(placement_roofs(p), xs, ys)


def _arrows(fig, x: np.ndarray, y: np.ndarray, chains, drawn: np.ndarray):
    """An arrow from each variant of a kernel to the next (before to after).
    Returns ([shown source], [complete source]), empty without arrows: the
    filter keeps the arrows whose two ends are shown."""
    from bokeh.models import Arrow, ColumnDataSource, VeeHead
    cols = {"x0": [], "y0": [], "x1": [], "y1": [], "point": [], "point2": []}
    for c in chains:
        rows = [i for i in c.rows if drawn[i]]
        for a, b in zip(rows, rows[1:]):
            for k, v in zip(cols, (float(x[a]), float(y[a]), float(x[b]), float(y[b]), a, b)):
                cols[k].append(v)
    if not cols["x0"]:
        return [], []
    src = ColumnDataSource(cols)
    fig.add_layout(Arrow(end=VeeHead(size=9, fill_color="#444444", line_color="#444444"), source=src,
                         x_start="x0", y_start="y0", x_end="x1", y_end="y1", line_color="#444444",
                         line_width=1.3, name="variant-arrow"))
    return [src], [ColumnDataSource(dict(cols))]


BOKEH_MARKER = {"o": "circle", "s": "square", "^": "triangle", "D": "diamond", "v": "inverted_triangle"}


def _level_points(fig, p: Placements, source, drawn: np.ndarray):
    """A point per memory level at the kernel's intensity there (the
    hierarchical view), hidden until chosen, when some drawn row has bytes
    at two or more levels; the points of one kernel joined by a thin line.
    Returns the levels, their source, filter and renderers, or None."""
    from bokeh.models import CDSView, ColumnDataSource, GroupFilter, HoverTool, IndexFilter
    from .plot import chart_points
    at = {lv: v for lv, v in chart_points(p, "hierarchical").items() if np.any(np.isfinite(v) & drawn)}
    if not at:
        return None
    stack = np.vstack([np.where(drawn, v, np.nan) for v in at.values()])
    if not np.any(np.sum(np.isfinite(stack), axis=0) > 1):
        return None
    y = p.achieved_flop_s
    cols = {"x": [], "y": [], "point": [], "level": []}
    for lv, v in at.items():
        rows = np.flatnonzero(np.isfinite(v) & drawn)
        cols["x"] += v[rows].tolist(); cols["y"] += y[rows].tolist()
        cols["point"] += rows.tolist(); cols["level"] += [lv] * len(rows)
    pt = np.asarray(cols["point"], dtype=int)
    for k in ("name", "color", "bound_label", "roof", "reason", "time", "flop_s"):
        cols[k] = np.asarray(source.data[k], dtype=object)[pt].tolist()
    cols["size"] = (0.8 * np.asarray(source.data["size"], dtype=float)[pt]).tolist()
    cols["at"] = _fmt(cols["x"], "FLOP/B")
    src = ColumnDataSource(cols)
    shown = IndexFilter(list(range(len(pt))))
    renderers = []
    for lv in at:
        view = CDSView(filter=GroupFilter(column_name="level", group=lv) & shown)
        renderers.append(fig.scatter("x", "y", source=src, view=view, size="size", fill_color="color",
                                     marker=BOKEH_MARKER.get(LEVEL_MARKER.get(lv, "o"), "circle"),
                                     line_color="#333333", fill_alpha=0.6, visible=False, name="level-points"))
        renderers[-1].tags = [lv]
    joined = np.flatnonzero(np.sum(np.isfinite(stack), axis=0) > 1)
    every = dict(x0=np.nanmin(stack[:, joined], axis=0).tolist(), y0=y[joined].tolist(),
                 x1=np.nanmax(stack[:, joined], axis=0).tolist(), y1=y[joined].tolist(), point=joined.tolist(),
                 color=np.asarray(source.data["color"], dtype=object)[joined].tolist())
    joins = ColumnDataSource({k: [] for k in every}, tags=["levels"])     # shown only with the level points
    fig.segment("x0", "y0", "x1", "y1", source=joins, line_color="color", line_width=0.8, line_alpha=0.6,
                name="level-join")
    fig.add_tools(HoverTool(renderers=renderers, tooltips=LEVEL_TOOLTIP))
    return dict(levels=list(at), source=src, shown=shown, renderers=renderers, joins=joins,
                all_joins=ColumnDataSource(every))
