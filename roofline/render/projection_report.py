"""A projection (:mod:`roofline.analysis.projection`) as a report: one
self-contained HTML page (no script, nothing fetched: the charts are PNGs in
``data:`` URIs, the style is inline) or Markdown with its charts as PNG
files beside it (``<stem>_projection-families.png``,
``<stem>_projection-roofline.png``).

Sections: the header (both devices, the three totals and what each rests
on, the time by basis, the evidence notes), time per family as bars,
the rows that move most, the target's roofline with the projected rows,
and the family table. Every name from the input is text: escaped for HTML
(:func:`.names.html_text`) and Markdown (:func:`.markdown._md_text`,
:func:`.markdown._md_code`), control and bidi characters shown as escapes.
"""
from __future__ import annotations

import base64
import io
import math
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import numpy as np

from ..analysis.projection import Projection
from ..analysis.projection_bases import CODE, KEYS, SIGMA, TEXT
from ..core.errors import InputError
from .cells import _pct, _t
from .projection import device_label

CHARTS = {"projection-families": "Time per family on both devices",
          "projection-roofline": "The target's roofline with the projected rows"}
HTML_SUFFIXES, MARKDOWN_SUFFIXES = (".html", ".htm"), (".md", ".markdown")
FIGURE_DPI = 120
# bases of rows without work: "at the roof" keeps their projection
_NO_WORK = tuple(CODE[k] for k in ("no_work_own", "twin", "family", "trace", "kept"))


def chart_files(path) -> dict[str, Path]:
    """chart key -> the PNG a Markdown report at ``path`` writes beside it."""
    path = Path(path)
    return {key: path.parent / f"{path.stem}_{key}.png" for key in CHARTS}


def check_output_path(path) -> Path:
    """``path`` if a projection report can be written there, else an
    InputError, before anything is read or written: a suffix that names no
    format, a directory (the report's or, for Markdown, one where a chart
    goes), a parent that is no directory. What only the write can tell (a
    full disk) is said by the write."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in HTML_SUFFIXES + MARKDOWN_SUFFIXES:
        raise InputError(path, None, "expected a report file ending in .html, .htm, .md or .markdown")
    if path.is_dir():
        raise InputError(path, None, f"is a directory: give the report's file name, e.g. {path / ('projection' + suffix)}")
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise InputError(path, None, f"{parent} is not a directory: the report cannot be written there")
    if suffix in MARKDOWN_SUFFIXES:
        for png in chart_files(path).values():
            if png.is_dir():
                raise InputError(png, None, "is a directory where the Markdown report writes a chart: move it, "
                                 "or give another report name")
    return path


# ------------------------------------------------------------------ content

@dataclass(frozen=True)
class Headline:
    """One headline figure: what it is, its value, what it rests on."""
    label: str
    value: str
    basis: str


def change(new: float, old: float) -> str:
    return f"x{new / old:.2f}" if old > 0 and math.isfinite(new) and math.isfinite(old) else "–"


def interval(low: float, high: float) -> str:
    return f"{_t(low)} .. {_t(high)}"


def headline(p: Projection) -> list[Headline]:
    """The three totals, each with what it rests on."""
    t = p.totals.total
    rows = p.counted & np.isfinite(p.projected_s)
    copies = ~p.counted
    copy_note = (f"; memcpy/memset rows ({_t(float(np.nansum(p.measured_s[copies])))}) are projected but "
                 "left out" if copies.any() else "")
    by_basis = basis_rows(p)
    lead = ", ".join(f"{b.key} {_pct(b.share, 0)}" for b in by_basis[:3])
    no_work = rows & np.isin(p.basis, _NO_WORK)
    kept = float(np.sum(p.projected_s[no_work]))
    return [
        Headline(f"measured on {device_label(p.source)}", _t(t.measured_s),
                f"the trace's kernel time, {int(rows.sum()):,} rows{copy_note}"),
        Headline(f"projected on {device_label(p.target)}",
                f"{_t(t.projected_s)} ({change(t.projected_s, t.measured_s)})",
                f"80 % interval {interval(t.low_s, t.high_s)}; each row moved by its basis (the table "
                f"below), by projected time: {lead}"),
        Headline(f"at {p.share:.0%} of each roof on the target", _t(t.at_roof_s),
                f"every row with work at {p.share:.0%} of its roof there (never above its projection; not "
                f"below the target's kernel floor): what tuning could reach; rows without work keep their "
                f"projection ({_t(kept)})"),
    ]


@dataclass(frozen=True)
class BasisRow:
    key: str
    text: str
    sigma: float
    rows: int
    measured_s: float
    projected_s: float
    share: float        # of the projected total


def basis_rows(p: Projection) -> list[BasisRow]:
    """Time by basis over the rows in the totals, most projected time first."""
    rows = p.counted & np.isfinite(p.projected_s)
    total = float(np.sum(p.projected_s[rows]))
    out = []
    for code in np.unique(p.basis[rows]):
        part = rows & (p.basis == code)
        projected = float(np.sum(p.projected_s[part]))
        out.append(BasisRow(KEYS[int(code)], TEXT[int(code)], SIGMA[int(code)], int(part.sum()),
                            float(np.nansum(p.measured_s[part])), projected,
                            projected / total if total > 0 else math.nan))
    return sorted(out, key=lambda b: -b.projected_s)


def moved_rows(p: Projection, top: int) -> np.ndarray:
    """The ``top`` rows whose projected time differs most from their measured."""
    return np.argsort(-np.abs(np.nan_to_num(p.projected_s - p.measured_s)), kind="stable")[:top]


def figures(p: Projection) -> dict:
    """chart key -> matplotlib Figure (the roofline only with a placement on the target)."""
    from .projection_chart import families_figure, target_roofline_figure
    out = {"projection-families": families_figure(p)}
    roof = target_roofline_figure(p)
    if roof is not None:
        out["projection-roofline"] = roof
    return out


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=FIGURE_DPI)
    return buf.getvalue()


def _sources(sources) -> str:
    """The input files' names, the first three and how many more (a rank
    folder holds one file per rank)."""
    names = [Path(str(s)).name for s in sources]
    more = f" and {len(names) - 3:,} more" if len(names) > 3 else ""
    return ", ".join(names[:3]) + more


def _title(p: Projection) -> str:
    return f"Projection: {device_label(p.source)} → {device_label(p.target)}"


_ROOFLINE_TEXT = ("Each row with work at its projected FLOP/s (work / projected time) over its arithmetic "
                  "intensity at the memory level that limits it on the target; the vertical bar is its 80 % "
                  "interval, the colour its basis. Rows without work have no intensity and are not drawn: "
                  "the note under the chart says how many and how much time.")
_FAMILIES_TEXT = ("Grey: measured on the source. Blue: projected on the target, with its 80 % interval. "
                  "Diamond: the time at the roof share on the target. Log time axis; longest measured first.")


# ------------------------------------------------------------------ HTML

def projection_html(p: Projection, images: dict[str, str], sources=(), top: int = 15) -> str:
    """The page; ``images`` maps chart keys to image URIs."""
    from .._version import __version__
    from .html import CSS, _e, _name_cell, _table
    from .names import distinct_names
    t = p.totals.total
    cards = "".join(f'<div class="card"><span>{_e(f.label)}</span><b>{_e(f.value)}</b><span>{_e(f.basis)}</span>'
                    "</div>" for f in headline(p))
    src = f"<p class=\"sub\">from {_e(_sources(sources))}</p>" if sources else ""
    bases = _table(["basis", "what it rests on", "sigma", "rows", "measured", "projected", "share"],
                   [[_e(b.key), _e(b.text), f"{b.sigma:.2f}", f"{b.rows:,}", _e(_t(b.measured_s)),
                     _e(_t(b.projected_s)), _e(_pct(b.share))] for b in basis_rows(p)], left={0, 1})
    notes = "".join(f"<li>{_e(n)}</li>" for n in p.notes) or "<li>none</li>"
    moved = moved_rows(p, top)
    labels = distinct_names([p.names[i] for i in moved], width=60)
    moved_table = _table(
        ["kernel", "family", "measured", "projected", "change", "80 % interval", "basis"],
        [[_name_cell(str(p.names[i]), label), _e(_family(p, i)), _e(_t(p.measured_s[i])),
          _e(_t(p.projected_s[i])), _e(change(p.projected_s[i], p.measured_s[i])),
          _e(interval(p.low_s[i], p.high_s[i])),
          f'{_e(KEYS[int(p.basis[i])])} <span class="muted">{_e(TEXT[int(p.basis[i])])}</span>']
         for i, label in zip(moved, labels)], left={0, 1, 6}, raw_first=True)
    parts = ['<div class="rr">', f"<h1>{_e(_title(p))}</h1>", src,
             '<section id="rr-summary"><h2>Summary</h2>', # wider cards than the report's: each says what its figure rests on
             f'<div class="cards" style="grid-template-columns:repeat(auto-fill,minmax(320px,1fr))">{cards}</div>',
             "<h3>What the projection rests on</h3><p class=\"note\">Projected time by basis over the rows in "
             "the totals; sigma is the spread of ln(measured / projected) expected for a row of that basis "
             "(its 80 % interval is projected x exp(±1.28 sigma)).</p>", bases,
             f"<h3>Evidence</h3><ul>{notes}</ul></section>",
             '<section id="rr-families-chart"><h2>Time per family</h2>',
             _figure(images, "projection-families", _FAMILIES_TEXT, _e), "</section>",
             f'<section id="rr-moved"><h2>Rows that move most</h2><p>The {len(moved):,} of {len(p):,} rows '
             "whose projected time differs most from their measured time.</p>", moved_table, "</section>",
             '<section id="rr-roofline"><h2>Roofline of the target</h2>',
             _figure(images, "projection-roofline", _ROOFLINE_TEXT, _e)
             or "<p>No placement on the target: no roofline.</p>", "</section>",
             '<section id="rr-families"><h2>Families</h2>', _families_table_html(p, _table, _e), "</section>",
             f"<footer>roofline {_e(__version__)} · intervals hold 80 % · the model: docs/concepts.md, "
             f"\"Projection\" · measured total {_e(_t(t.measured_s))}</footer></div>"]
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{_e(_title(p))}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(x for x in parts if x) + "\n</body>\n</html>\n")


def _family(p: Projection, i: int) -> str:
    return str(p.families[i]) + ("" if p.counted[i] else " (not in the totals)")


def _figure(images, key: str, caption: str, e) -> str:
    if key not in images:
        return ""
    return (f'<figure><img src="{e(images[key])}" alt="{e(CHARTS[key])}">'
            f"<figcaption>{e(caption)}</figcaption></figure>")


def _family_cells(p: Projection):
    """Family rows then the total: name and cell texts."""
    total = p.totals.total
    rows = [(f, s) for f, s in p.totals.families.items()] + [("total", total)]
    for name, s in rows:
        yield name, [_t(s.measured_s), _t(s.projected_s), change(s.projected_s, s.measured_s),
                     interval(s.low_s, s.high_s), _t(s.at_roof_s),
                     _pct(s.projected_s / total.projected_s if total.projected_s > 0 else math.nan)]


_FAMILY_HEADER = ["family", "measured", "projected", "change", "80 % interval", "at roof", "share of projected"]


def _families_table_html(p: Projection, table, e) -> str:
    rows = [[e(name) if i < len(p.totals.families) else "<b>total</b>", *map(e, cells)]
            for i, (name, cells) in enumerate(_family_cells(p))]
    return table(_FAMILY_HEADER, rows)


# ------------------------------------------------------------------ Markdown

def projection_markdown(p: Projection, images: dict[str, str], sources=(), top: int = 15) -> str:
    """The Markdown text; ``images`` maps chart keys to PNG file names."""
    from .markdown import _md_code, _md_table, _md_text
    from .names import distinct_names
    out = [f"# {_md_text(_title(p))}", ""]
    if sources:
        out += [f"from {_md_text(_sources(sources))}", ""]
    out += ["## Summary", ""]
    out += [f"- **{_md_text(f.label)}: {_md_text(f.value)}**: {_md_text(f.basis)}" for f in headline(p)]
    out += ["", "### What the projection rests on", "",
            "Projected time by basis over the rows in the totals; sigma is the spread of ln(measured / projected) "
            "expected for a row of that basis (its 80 % interval is projected x exp(±1.28 sigma)).", "",
            _md_table(["basis", "what it rests on", "sigma", "rows", "measured", "projected", "share"],
                      [[_md_text(b.key), _md_text(b.text), f"{b.sigma:.2f}", f"{b.rows:,}", _t(b.measured_s),
                        _t(b.projected_s), _pct(b.share)] for b in basis_rows(p)]),
            "### Evidence", ""]
    out += [f"- {_md_text(n)}" for n in p.notes] or ["- none"]
    out += ["", "## Time per family", "", _FAMILIES_TEXT, ""]
    if "projection-families" in images:
        out += [f"![{CHARTS['projection-families']}]({quote(images['projection-families'])})", ""]
    moved = moved_rows(p, top)
    labels = distinct_names([p.names[i] for i in moved], width=60)
    out += ["## Rows that move most", "",
            f"The {len(moved):,} of {len(p):,} rows whose projected time differs most from their measured time.", "",
            _md_table(["kernel", "family", "measured", "projected", "change", "80 % interval", "basis"],
                      [[_md_code(label), _md_text(_family(p, i)), _t(p.measured_s[i]), _t(p.projected_s[i]),
                        change(p.projected_s[i], p.measured_s[i]), interval(p.low_s[i], p.high_s[i]),
                        f"{_md_text(KEYS[int(p.basis[i])])}: {_md_text(TEXT[int(p.basis[i])])}"]
                       for i, label in zip(moved, labels)]),
            "## Roofline of the target", ""]
    if "projection-roofline" in images:
        out += [_ROOFLINE_TEXT, "", f"![{CHARTS['projection-roofline']}]({quote(images['projection-roofline'])})", ""]
    else:
        out += ["No placement on the target: no roofline.", ""]
    rows = [[_md_text(name) if i < len(p.totals.families) else "**total**", *cells]
            for i, (name, cells) in enumerate(_family_cells(p))]
    out += ["## Families", "", _md_table(_FAMILY_HEADER, rows),
            "Intervals hold 80 %; the model: docs/concepts.md, \"Projection\"."]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ files

def save_projection_report(p: Projection, path, sources=(), top: int = 15) -> list[Path]:
    """Write ``.html`` (self-contained) or ``.md`` (with its PNGs beside it),
    each file atomically, after :func:`check_output_path`. Returns the paths
    written, the report last."""
    from ..core.atomic import atomic_path, write_text_atomic
    path = check_output_path(path)
    pngs = {k: _png(f) for k, f in figures(p).items()}
    if path.suffix.lower() in HTML_SUFFIXES:
        images = {k: "data:image/png;base64," + base64.b64encode(v).decode("ascii") for k, v in pngs.items()}
        write_text_atomic(path, projection_html(p, images, sources, top))
        return [path]
    files = chart_files(path)
    written = []
    for key, data in pngs.items():
        with atomic_path(files[key]) as tmp:
            tmp.write_bytes(data)
        written.append(files[key])
    write_text_atomic(path, projection_markdown(p, {k: files[k].name for k in pngs}, sources, top))
    return written + [path]
