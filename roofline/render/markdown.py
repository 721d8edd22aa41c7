"""The report as Markdown, linking the charts as PNG files.

The report is the :class:`~roofline.render.report.Report` that calls
:func:`render_markdown` (it is not imported here: the report imports its
renderers, never the reverse).
"""
from __future__ import annotations

import html
import re
from pathlib import Path

from .names import distinct_names
from .terminal import visible
from .cells import _bound_text, _pct, _rate, _reason_text, _short, _t, _x


def _md_code(text) -> str:
    """A table cell with a name: a code span (no HTML, no Markdown inside),
    pipes escaped for the table; the span's fence is longer than any run of
    backticks in the name, so none can close it."""
    s = visible(str(text).replace("\n", " ")).replace("|", "\\|")   # bidi and controls as escapes
    fence = "`" * (_longest_backticks(s) + 1)
    return f"{fence} {s} {fence}" if len(fence) > 1 else f"`{s}`"


def _longest_backticks(s: str) -> int:
    return max((len(m) for m in re.findall(r"`+", s)), default=0)


def _md_block(text: str) -> list[str]:
    """A fenced code block whose fence no line of ``text`` can close."""
    fence = "`" * max(3, _longest_backticks(text) + 1)
    return [fence, text, fence]


def _md_text(text) -> str:
    """Plain text for Markdown: HTML and Markdown specials escaped
    (underscores only where they could start emphasis, not inside words)."""
    s = html.escape(visible(str(text)), quote=False)   # bidi and control characters as escapes
    for ch in "\\`*[]|":
        s = s.replace(ch, "\\" + ch)
    s = re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", s)
    return s.replace("\n", " ")


def _md_table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def render_markdown(r, images: dict[str, str]) -> str:
    """The Markdown text; ``images`` maps chart names to PNG file names."""
    out = [f"# {_md_text(r.title)}", "",
           f"{_md_text(r.device.name)} · {len(r.placements):,} kernel rows from "
           f"{_md_text(', '.join(Path(s).name for s in r.sources) or 'the given kernels')}", "",
           *([f"> **Device profile:** {_md_text(r.banner())}", ""] if r.banner() else []), "## Summary", "",
           f"- device: {_md_text(r.device.name)} ({r.device.kind}, {_md_text(r.device.provenance.get('method', '?'))})",
           f"- kernel time: {_t(r.total_time_s)} in {r.total_calls:,} calls", ""]
    bounds = r.bound_shares()
    out += ["### Time by bound class", "",
            _md_table(["bound", "time", "share", "kernel rows"],
                      [[_md_text(b.label), _t(b.time_s), _pct(b.share), f"{b.rows:,}"] for b in bounds])]
    lost = r.lost_by_reason()
    if lost:
        out += ["### Time lost against the roofs, by reason", "",
                "Time minus roofline time, summed by why each kernel is below its roof: what to fix first. "
                "Kernels within 80 % of their roof need no reason.", "",
                _md_table(["reason", "time lost", "share of kernel time", "kernel rows", "what to do"],
                          [[_md_text(x.reason), _t(x.lost_s), _pct(x.share), f"{x.rows:,}", _md_text(x.fix)]
                           for x in lost])]
    top = r.top_kernels()
    out += ["### Top kernels", "", _md_table(
        ["kernel", "variant", "family", "calls", "time", "share", "FLOP/s", "% of roof", "bound",
         "why below the roof"],
        [[_md_code(label), _md_text(k["variant"] or ""), _md_text(k["family"] or ""),
          f"{k['count']:,}", _t(k["time_s"]), _pct(k["share"]), _rate(k["achieved_flop_s"]),
          _pct(k["efficiency"], 0), _md_text(_bound_text(k)), _md_text(_reason_text(k))]
         for k, label in zip(top, distinct_names([k["name"] for k in top], width=60))])]
    split = r.step_split()
    if split is not None and (len(split.overall) > 1 or split.steps):
        from .step_sections import steps_markdown
        out += steps_markdown(r, _md_table, _md_text)
    out += ["## Rooflines", ""]
    if not r.views():
        out += ["No kernel has FLOPs, bytes and a time together, so none can be placed on a FLOP roofline.", ""]
    for key, caption in (("roofline-cache-aware", "Cache-aware roofline"),
                         ("roofline-hierarchical", "Hierarchical roofline")):
        if key in images:
            out += [f"![{caption}]({images[key]})", ""]
    out += ["## Variants: before and after", ""]
    tables = r.variant_rows()
    if not tables:
        out += ["No kernel has two or more variants.", ""]
    for rows in tables:
        out += [f"### {_md_code(_short(rows[0].kernel, 90))}", "", _md_table(
            ["variant", "time", "vs previous", "vs first", "FLOP/s", "% of roof", "bound"],
            [[_md_text(v.variant), _t(v.time_s), _x(v.vs_previous), _x(v.vs_first), _rate(v.flop_s),
              _pct(v.efficiency, 0), _md_text(v.bound)] for v in rows])]
    out += ["## Families", "", _md_table(
        ["family", "names", "calls", "time", "share", "FLOP/s", "% of roof", "main bound"],
        [[_md_text(f.family), f"{f.names:,}", f"{f.calls:,}", _t(f.time_s), _pct(f.share), _rate(f.flop_s),
          _pct(f.efficiency, 0), f"{_md_text(f.bound)}, {_pct(f.bound_share, 0)}"] for f in r.family_rows()])]
    spread = r.rank_spread()
    if spread is not None:
        out += ["## Ranks", "", f"{len(spread.ranks)} ranks; slowest: rank {spread.slowest} "
                f"(+{_pct(spread.spread)} over the median of {_t(spread.median_s)}).", "", _md_table(
                    ["rank", "kernel time", "collectives"],
                    [[str(int(k)), _t(float(t)), _t(float(c))]
                     for k, t, c in zip(spread.ranks, spread.time_s, spread.collectives_s)]),
                "### Per family and rank", "", _md_table(
                    ["family", "rank", "calls", "time", "% of roof", "main bound"],
                    [[_md_text(c.family), str(c.rank), f"{c.calls:,}", _t(c.time_s), _pct(c.fraction_of_roof, 0),
                      _md_text(c.bound)] for c in r.rank_rows()])]
    out += ["## Operators", "", "### Time by kind of work", "", _md_table(
        ["kind", "kernel rows", "calls", "time", "share"],
        [[_md_text(c.category), f"{c.rows:,}", f"{c.calls:,}", _t(c.time_s), _pct(c.share)] for c in r.work_split()])]
    ops = r.operator_rows()
    if ops:
        out += ["### Per operator", "", "Modelled work: direct-algorithm FLOPs and compulsory bytes "
                "(a lower bound on traffic, so an upper bound on intensity).", "", _md_table(
                    ["operator", "calls", "time", "share", "FLOP/s", "% of roof", "main bound", "modelled"],
                    [[_md_code(o.operator), f"{o.calls:,}", _t(o.time_s), _pct(o.share), _rate(o.flop_s),
                      _pct(o.efficiency, 0), _md_text(o.bound), _pct(o.modelled, 0)] for o in ops[: 2 * r.top]])]
    out += ["## Instruction roofline", ""]
    if "instruction" in images:
        out += [f"![Instruction roofline]({images['instruction']})", ""]
    else:
        out += [_md_text(r.instruction_note()), ""]
    from .overhead import overhead_text
    out += ["## Overhead", "", *_md_block(overhead_text(r.overhead).rstrip()), "",
            f"![Time per call against work]({images['overhead']})", ""]
    from .block_sched import section_markdown
    out += [section_markdown(r, images), "## Warnings", ""]
    items = r.warnings()
    out += [f"- {_md_text(w)}" for w in items] or ["None."]
    return "\n".join(out) + "\n"

