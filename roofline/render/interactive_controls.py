"""The controls of the interactive roofline (:mod:`.interactive`), all run
in the page (no server): selectors of families, bounds and operators, a
cumulative-time slider (the kernels that make up the top X % of the time),
a precision selector when several compute roofs apply, a switch between
the nearest level's intensity and a point per memory level, and the two
legends: bound classes (a click hides one) and families or kernels (a
click isolates one, as rocprof-compute's and Plotly's legends do; another
click adds or removes one; a click on the only one shown brings all back).

One filter (:data:`FILTER_JS`) computes the shown points from every control
and makes the names, leader lines and arrows of hidden points follow.
Every selector's option label is escaped: Choices.js puts it in with
``innerHTML``; the value stays the name the points carry."""
from __future__ import annotations

import html

import numpy as np

FILTER_JS = """
const d = source.data, n = d.x.length;
const pick = (w) => new Set(w ? w.value : []);
const fam = pick(families), bnd = pick(bounds), op = pick(operators);
const hidden = new Set(classes.filter((r) => !r.visible).map((r) => r.tags[0]));
const prec = precisions ? new Set(precisions.active.map((k) => precisions.tags[k])) : null;
if (prec) for (const r of roofs) r.visible = prec.has(r.tags[0]);
// bandwidth lines, ridges and their labels end at the highest roof selected (none: the highest)
const top = (prec && roofs.map((r) => r.tags[0]).find((k) => prec.has(k))) || (roofs.length ? roofs[0].tags[0] : null);
for (const r of bandwidth) r.visible = r.tags.includes(top);
const limit = slider ? slider.value / 100 : 1;
const lit = new Set(groups.filter((r) => r.visible).map((r) => r.tags[0]));
for (const r of points) r.visible = lit.has(r.tags[0]);
const keep = [], seen = new Set();
for (let i = 0; i < n; i++) {
  if (!d.drawn[i] || hidden.has(d.bound[i])) continue;
  if ((fam.size && !fam.has(d.family[i])) || (bnd.size && !bnd.has(d.bound[i]))
      || (op.size && !op.has(d.operator[i]))) continue;
  if (prec && d.precision[i] !== "\u2013" && !prec.has(d.precision[i])) continue;
  if (limit < 1 && d.cum[i] >= limit) continue;          // the point with the most time always stays
  keep.push(i);
  if (lit.has(d.group[i])) seen.add(i);
}
const on = new Set(levels ? levels.active : [0]);
const nearest = on.has(0);
shown.indices = nearest ? keep : [];
if (level_source) {
  const ld = level_source.data, idx = [];
  for (let k = 0; k < ld.point.length; k++) if (seen.has(ld.point[k])) idx.push(k);
  level_shown.indices = idx;
  level_renderers.forEach((r, k) => { r.visible = on.has(k + 1); });
  level_source.change.emit();
}
for (let f = 0; f < follow.length; f++) {
  const all = full[f].data, out = {}, ok = [];
  const wanted = follow[f].tags[0] === "levels" ? on.size > (nearest ? 1 : 0) : nearest;
  for (let j = 0; j < all.point.length; j++)
    if (wanted && seen.has(all.point[j]) && (all.point2 === undefined || seen.has(all.point2[j]))) ok.push(j);
  for (const c of Object.keys(all)) out[c] = ok.map((j) => all[c][j]);
  follow[f].data = out;
}
source.change.emit();
"""

# Legend of families or kernels: a click on an entry while every entry is
# shown isolates it; a click on the only one shown shows all again. (The
# callbacks run asynchronously, after every change of a click: the changes
# made here call this again, and it then matches neither case.)
ISOLATE_JS = """
const me = cb_obj, others = groups.filter((r) => r !== me);
if (!me.visible && others.every((r) => r.visible)) { me.visible = true; others.forEach((r) => { r.visible = false; }); }
else if (!me.visible && others.every((r) => !r.visible)) groups.forEach((r) => { r.visible = true; });
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

MAX_GROUPS = 12


def choices(values: list[str]) -> list[tuple[str, str]]:
    """A selector's options: (value, label) with the label as HTML text,
    since Choices.js shows labels with ``innerHTML``; the value (what the
    filter compares with the points' field) is the name itself."""
    return [(v, html.escape(v, quote=True)) for v in values]


def legend_groups(families: list[str], names: list[str], time: np.ndarray, drawn: np.ndarray,
                  unit: str = "kernel") -> tuple[list[str], str]:
    """The entry of the isolating legend each row belongs to, and what the
    entries are: its family when the drawn rows have two or more (the
    ``MAX_GROUPS - 1`` with the most time, the rest as "other families"),
    else its name when at most ``MAX_GROUPS`` are drawn, else one entry."""
    fams = np.asarray(families, dtype=object)
    distinct = sorted(set(fams[drawn].tolist()))
    if len(distinct) >= 2:
        t = {f: float(np.nansum(np.where(fams == f, time, 0.0))) for f in distinct}
        kept = set(sorted(distinct, key=lambda f: -t[f])[: MAX_GROUPS - 1]) if len(distinct) > MAX_GROUPS \
            else set(distinct)
        return [f if f in kept else "other families" for f in fams.tolist()], "family"
    if 2 <= int(drawn.sum()) <= MAX_GROUPS:
        return list(names), unit
    return ["all"] * len(names), ""


def selectors(source, drawn) -> dict:
    """One multiple choice per field with more than one value among the drawn points."""
    from bokeh.models import MultiChoice
    widgets = {}
    for field, label in (("family", "families"), ("bound", "bounds"), ("operator", "operators")):
        values = sorted(set(np.asarray(source.data[field], dtype=object)[drawn].tolist()) - {"–"})
        if len(values) > 1:
            widgets[label] = MultiChoice(options=choices(values), placeholder=f"all {label}", width=300,
                                         title=label)
    return widgets


def time_slider(unit: str):
    """The cumulative-time filter: the points that make up the top X % of the time."""
    from bokeh.models import Slider
    return Slider(start=5, end=100, step=5, value=100, width=300, name="time-slider",
                  title=f"{unit}s making up the top … % of the time")


def precision_picker(keys: list[str]):
    """One toggle per compute roof (its precision), all on; None for one roof."""
    if len(keys) < 2:
        return None
    from bokeh.models import CheckboxButtonGroup
    return CheckboxButtonGroup(labels=[k.upper() for k in keys], active=list(range(len(keys))), tags=list(keys),
                               name="precision-picker")


def level_picker(levels: list[str]):
    """Nearest level (the cache-aware point) and one toggle per memory level
    (a point at each level's intensity, the hierarchical view)."""
    if not levels:
        return None
    from bokeh.models import CheckboxButtonGroup
    return CheckboxButtonGroup(labels=["nearest level"] + [f"at {lv}" for lv in levels], active=[0],
                               name="level-picker")


def wire(fig, source, shown, widgets: dict, parts: dict) -> list:
    """Connect every control to :data:`FILTER_JS` (and the isolating legend
    to :data:`ISOLATE_JS` first); returns the widgets in the order shown."""
    from bokeh.models import CustomJS, TapTool
    args = dict(source=source, shown=shown, families=widgets.get("families"), bounds=widgets.get("bounds"),
                operators=widgets.get("operators"), slider=widgets.get("slider"),
                precisions=widgets.get("precisions"), levels=widgets.get("levels"),
                classes=parts["classes"], groups=parts["groups"], points=parts["points"], roofs=parts["roofs"],
                bandwidth=parts.get("bandwidth", []),
                level_source=parts.get("level_source"), level_shown=parts.get("level_shown"),
                level_renderers=parts.get("level_renderers", []), follow=parts["follow"], full=parts["full"])
    run = CustomJS(args=args, code=FILTER_JS)
    for key in ("families", "bounds", "operators", "slider"):
        if widgets.get(key) is not None:
            widgets[key].js_on_change("value", run)
    for key in ("precisions", "levels"):
        if widgets.get(key) is not None:
            widgets[key].js_on_change("active", run)
    for r in parts["classes"]:
        r.js_on_change("visible", run)
    if len(parts["groups"]) > 1:
        isolate = CustomJS(args=args, code=ISOLATE_JS + FILTER_JS)
        for r in parts["groups"]:
            r.js_on_change("visible", isolate)
    fig.add_tools(TapTool(callback=CustomJS(args=dict(source=source), code=TAP_JS)))
    return [w for w in widgets.values() if w is not None]
