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
is below its roof; the wheel zooms, a drag pans; the legend hides a bound
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
                  density: tuple | None = None, width: int = 1000, height: int = 620) -> str:
    """The interactive cache-aware roofline of the kernels of ``p`` at
    intensities ``x`` (NaN: not drawn), as a ``<div>`` and its ``<script>``
    (no Bokeh JavaScript: :func:`resources` brings it once per page).
    ``density``: ``(image, x0, x1, y0, y1)`` of every row of a huge trace."""
    from bokeh.embed import components
    from bokeh.layouts import column, row
    from bokeh.models import (CDSView, ColumnDataSource, CustomJS, GroupFilter, HoverTool, IndexFilter,
                              Legend, LegendItem, TapTool)
    from bokeh.plotting import figure

    drawn = np.isfinite(x) & (x > 0) & np.isfinite(p.achieved_flop_s) & (p.achieved_flop_s > 0)
    source = ColumnDataSource(_columns(p, x, row_ids))
    shown = IndexFilter(np.flatnonzero(drawn).tolist())
    xlim, ylim = _limits(p, x[drawn])
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
                        line_width=0.6, fill_alpha=0.75)
        if np.any(p.bound[drawn] == cls):
            items.append(LegendItem(label=CLASS_STYLE[cls][1], renderers=[r]))
    fig.add_layout(Legend(items=items, click_policy="hide", location="bottom_right", label_text_font_size="9pt"))
    fig.add_tools(HoverTool(tooltips=TOOLTIP, renderers=fig.renderers[-len(CLASSES):]))
    fig.add_tools(TapTool(callback=CustomJS(args=dict(source=source), code=TAP_JS)))
    widgets = _selectors(source, shown, drawn)
    return "\n".join(components(column(row(*widgets), fig) if widgets else fig))


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


def _limits(p: Placements, xs: np.ndarray):
    device = p.roof_device
    peak = max(c.value for c in device.compute.values())
    ridges = [device.ridge_point(lv) for lv in device.memory]
    ys = p.achieved_flop_s[np.isfinite(p.achieved_flop_s) & (p.achieved_flop_s > 0)]
    lo_x = min([0.01] + list(xs / 3) + [r / 30 for r in ridges])
    hi_x = max([100.0] + list(xs * 3) + [r * 10 for r in ridges])
    lo_y = min([peak / 1e4] + list(ys / 3))
    return (lo_x, hi_x), (lo_y, peak * 2.5)


def _roofs(fig, p: Placements, xlim) -> None:
    """The compute roofs of the precisions the kernels use and every memory
    level's bandwidth line up to the highest of them."""
    from ..core.model import HOST_LINK
    device = p.roof_device
    used = {device.compute_key(k) for k, v in p.kernels.flops.items() if np.nansum(v) > 0} or {device.peak_precision}
    roofs = sorted(((k, device.compute[k].value) for k in used), key=lambda kv: -kv[1])
    top = roofs[0][1]
    for i, (key, rate) in enumerate(roofs):
        fig.line(list(xlim), [rate, rate], color="#333333", line_width=2 if i == 0 else 1,
                 line_dash="solid" if i == 0 else "dashed")
        fig.text([xlim[1] / 1.3], [rate * 1.1], text=[f"{key.upper()} {format_si(rate, 'FLOP/s')}"],
                 text_align="right", text_font_size="9pt", text_color="#333333")
    drawn = [lv for lv in device.memory
             if lv != HOST_LINK or np.any(p.intensity.get(lv, np.array([0.0])) > 0)]
    for k, lv in enumerate(drawn):
        bw = device.memory[lv].bytes_s
        ridge = min(top / bw, xlim[1])
        color = LEVEL_COLOR.get(lv, "#555555")
        fig.line([xlim[0], ridge], [xlim[0] * bw, ridge * bw], color=color, line_width=1.6)
        # labels staggered along the lines: levels of close bandwidths would stack
        at = xlim[0] * 1.5 * 4.0 ** k
        if at < ridge:
            fig.text([at], [at * bw * 1.3], text=[f"{lv} {format_si(bw, 'B/s')}"], text_font_size="8.5pt",
                     text_color=color)
