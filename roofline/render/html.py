"""The report as HTML: one self-contained page (or a Jupyter fragment).

Nothing outside the page: the interactive roofline's JavaScript (Bokeh) and
the tables' sorting and search are inline, the other charts come in as
``data:`` URIs, styles are inline and scoped to ``.rr``, and every name
from a profile is escaped. Sections that do not apply to the data are left
out (:meth:`_HtmlWriter._sections`).

The report is the :class:`~roofline.render.report.Report` that calls
:func:`render_html` (it is not imported here: the report imports its
renderers, never the reverse).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .names import distinct_names, html_text
from .cells import _bound_text, _pct, _rate, _reason_text, _short, _t, _x
from .html_tables import TABLE_JS, kernels_section
from .collectives import communication_html, has_communication
from .step_sections import steps_html
from . import block_sched

SECTIONS = (("summary", "Summary"), ("steps", "Step split"), ("rooflines", "Rooflines"), ("kernels", "Kernels"), ("variants", "Variants"),
            ("families", "Families"), ("ranks", "Ranks"), ("communication", "Communication"), ("operators", "Operators"), ("instruction", "Instruction roofline"),
            ("overhead", "Overhead"), ("block-sched", "Block scheduling"), ("warnings", "Warnings"))


def render_html(report, images: dict[str, str], full: bool = True, interactive: str = "",
                interactive_js: str = "") -> str:
    """A whole document, or (``full=False``) a fragment with its scoped
    style; ``images`` maps chart names to image URIs; ``interactive`` is the
    interactive roofline (replacing the cache-aware PNG) and
    ``interactive_js`` the script it needs."""
    body = _HtmlWriter(report, images, interactive, interactive_js).render()
    if not full:
        return f"<style>{CSS}</style>\n{body}"
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{_e(report.title)}: {_e(report.device.name)}</title>\n<style>{CSS}</style>\n</head>\n"
            f"<body>\n{body}\n</body>\n</html>\n")


def _e(text) -> str:
    """Every string from a profile, and every message that may quote one,
    goes in as text (:func:`.names.html_text`)."""
    return html_text(text)


CSS = """
.rr{--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--accent:#0072B2;
 font:15px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--ink);
 max-width:1180px;margin:0 auto;padding:24px 28px 48px;background:#fff}
.rr h1{font-size:26px;margin:0 0 4px;font-weight:600}
.rr h2{font-size:20px;margin:36px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--line);font-weight:600}
.rr h3{font-size:16px;margin:22px 0 8px;font-weight:600}
.rr p{margin:6px 0 10px}
.rr .sub{color:var(--muted);margin:0 0 14px}
.rr .muted{color:var(--muted)}
.rr nav{display:flex;flex-wrap:wrap;gap:6px 16px;padding:8px 0 10px;border-bottom:1px solid var(--line);font-size:14px}
.rr nav a{color:var(--accent);text-decoration:none}
.rr nav a:hover{text-decoration:underline}
.rr .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px;margin:14px 0}
.rr .card{border:1px solid var(--line);border-radius:6px;padding:10px 12px;background:var(--soft)}
.rr .card b{display:block;font-size:19px;font-weight:600;font-variant-numeric:tabular-nums}
.rr .card span{color:var(--muted);font-size:13px}
.rr .bar{display:flex;height:22px;border-radius:4px;overflow:hidden;border:1px solid var(--line);margin:10px 0 6px}
.rr .bar span{display:block;height:100%}
.rr .swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:-1px}
.rr .scroll{overflow-x:auto}
.rr table.compact{width:auto;min-width:520px}
.rr table{border-collapse:collapse;width:100%;font-size:13.5px;margin:6px 0 12px;font-variant-numeric:tabular-nums}
.rr th,.rr td{padding:5px 9px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap;vertical-align:top}
.rr th{background:var(--soft);font-weight:600;border-bottom:2px solid var(--line)}
.rr th:first-child,.rr td:first-child,.rr td.l,.rr th.l{text-align:left}
.rr td.l{white-space:normal;min-width:80px}
.rr tbody tr:nth-child(even){background:#fbfcfd}
.rr td.name{white-space:normal;overflow-wrap:anywhere;min-width:240px;max-width:420px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.rr span.name{display:inline-block;min-width:240px;max-width:420px;white-space:normal;overflow-wrap:anywhere;text-align:left;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.rr .faster{color:#117733;font-weight:600}.rr .slower{color:#CC3311;font-weight:600}
.rr figure{margin:14px 0 22px}
.rr figure img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px}
.rr figcaption{color:var(--muted);font-size:13px;margin-top:4px}
.rr .note{color:var(--muted);font-size:14px;background:var(--soft);border-left:3px solid var(--line);padding:6px 10px}
.rr .banner{border:1px solid #CC3311;border-left:6px solid #CC3311;background:#fdecea;color:#5c1208;padding:10px 14px;margin:10px 0 16px;border-radius:4px;font-size:14.5px}
.rr .note-banner{border-color:var(--line);border-left-color:#999999;background:var(--soft);color:inherit}
.rr table.sortable th{cursor:pointer;user-select:none}
.rr table.sortable th[data-dir=asc]::after{content:" \\25B2";font-size:10px}
.rr table.sortable th[data-dir=desc]::after{content:" \\25BC";font-size:10px}
.rr input.rr-search{width:420px;max-width:100%;padding:5px 8px;border:1px solid var(--line);border-radius:4px;font-size:14px}
.rr tr.rr-hit{background:#fff3bf !important;transition:background .3s}
.rr figure.interactive{border:1px solid var(--line);border-radius:4px;padding:8px}
.rr ul.warn{padding-left:0;list-style:none}
.rr ul.warn li{border-left:3px solid #E69F00;background:#fffaf0;padding:6px 10px;margin:6px 0;font-size:14px}
.rr ul.warn li .adv{color:var(--muted);display:block;font-size:13px}
.rr code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;background:var(--soft);padding:1px 4px;border-radius:3px}
.rr code.wrap{white-space:normal;overflow-wrap:anywhere}
.rr footer{margin-top:36px;color:var(--muted);font-size:12.5px;border-top:1px solid var(--line);padding-top:8px}
"""


class _HtmlWriter:
    def __init__(self, report, images: dict[str, str], interactive: str = "", interactive_js: str = ""):
        self.r = report
        self.images = images
        self.interactive = interactive          # the cache-aware roofline as a Bokeh chart
        self.interactive_js = interactive_js

    def render(self) -> str:
        r = self.r
        parts = ['<div class="rr">', f"<h1>{_e(r.title)}</h1>",
                 f'<p class="sub">{_e(r.device.name)} · {len(r.placements):,} kernel rows from '
                 f"{_e(', '.join(Path(s).name for s in r.sources) or 'the given kernels')}</p>",
                 "<nav>" + "".join(f'<a href="#rr-{k}">{_e(t)}</a>' for k, t in self._sections()) + "</nav>"]
        banner = r.banner()
        if banner:
            kind = "banner" if banner.startswith("These roofs may not hold") else "banner note-banner"
            parts.append(f'<div class="{kind}" role="alert"><b>Device profile:</b> {_e(banner)}</div>')
        writers = {"summary": self.summary, "rooflines": self.rooflines, "kernels": lambda: kernels_section(r),
                   "variants": self.variants, "families": self.families, "ranks": self.ranks,
                   "operators": self.operators, "instruction": self.instruction, "overhead": self.overhead,
                   "block-sched": lambda: block_sched.section_html(r, self.images),
                   "steps": lambda: steps_html(r, _table, _e),
                   "communication": lambda: communication_html(r, _table, _e),
                   "warnings": self.warnings}
        parts += [writers[key]() for key, _ in self._sections()]
        from .._version import __version__
        parts.append(f"<footer>roofline {_e(__version__)} · device profile: "
                     f"{_e(r.device.provenance.get('method', 'unknown'))} · all times are kernel (GPU) "
                     "time summed over calls unless stated</footer></div>")
        if self.interactive:
            parts.insert(0, self.interactive_js)
        parts.append(f"<script>{TABLE_JS}</script>")
        return "\n".join(parts)

    def _figure(self, key: str, caption: str) -> str:
        if key not in self.images:
            return ""
        return (f'<figure><img src="{self.images[key]}" alt="{_e(caption)}">'
                f"<figcaption>{_e(caption)}</figcaption></figure>")

    def summary(self) -> str:
        r = self.r
        bounds = r.bound_shares()
        over = sum(b.share for b in bounds if b.label.startswith("overhead"))
        cards = [("device", _e(r.device.name), _e(f"{r.device.kind}, {r.device.provenance.get('method', '?')}")),
                 ("kernel time", _e(_t(r.total_time_s)), f"{r.total_calls:,} calls"),
                 ("kernel names", f"{len(set(r.grouped.kernels.names)):,}", f"{len(r.placements):,} rows"),
                 ("overhead-bound", _e(_pct(over)), "of kernel time")]
        prog = r.overhead.program
        if prog is not None and prog.span_s:
            cards.append(("timeline span", _e(_t(prog.span_s)), f"GPU idle {_e(_pct(prog.idle_share))}"))
        out = ['<section id="rr-summary"><h2>Summary</h2><div class="cards">']
        out += [f'<div class="card"><span>{_e(k)}</span><b>{v}</b><span>{s}</span></div>' for k, v, s in cards]
        out.append("</div><h3>Time by bound class</h3>")
        out.append('<div class="bar">' + "".join(
            f'<span style="width:{100 * b.share:.3f}%;background:{b.color}" title="{_e(b.label)}: '
            f'{_e(_pct(b.share))}"></span>' for b in bounds if b.share > 0) + "</div>")
        rows = [[f'<span class="swatch" style="background:{b.color}"></span>{_e(b.label)}',
                 _e(_t(b.time_s)), _e(_pct(b.share)), f"{b.rows:,}"] for b in bounds]
        out.append(_table(["bound", "time", "share", "kernel rows"], rows, compact=True))
        lost = r.lost_by_reason()
        if lost:
            out.append("<h3>Time lost against the roofs, by reason</h3><p class=\"note\">Time minus roofline "
                       "time, summed by why each kernel is below its roof: what to fix first. Kernels within "
                       "80 % of their roof need no reason.</p>")
            out.append(_table(["reason", "time lost", "share of kernel time", "kernel rows", "what to do"],
                              [[_e(x.reason), _e(_t(x.lost_s)), _e(_pct(x.share)), f"{x.rows:,}", _e(x.fix)]
                               for x in lost], compact=True))
        out.append(f"<h3>Top kernels</h3>{self._top_table()}")
        if "operators" not in dict(self._sections()):
            out.append('<p class="note">No framework operators in this profile: a PyTorch trace recorded with '
                       "<code>record_shapes=True</code> adds an Operators section (time and work per "
                       "operator, FLOPs modelled from the shapes).</p>")
        out.append("</section>")
        return "\n".join(out)

    def _top_table(self) -> str:
        r = self.r
        rows = []
        top = r.top_kernels()
        shown = distinct_names([k["name"] for k in top], width=60)
        for k, label in zip(top, shown):
            calls = k["count"]
            rows.append([_name_cell(k["name"], label), _e(k["variant"] or ""), _e(k["family"] or ""), f"{calls:,}",
                         _e(_t(k["time_s"])), _e(_pct(k["share"])),
                         _e(_t(k["time_s"] / calls if k["time_s"] is not None and calls else None)),
                         _e(_rate(k["achieved_flop_s"])), _e(_pct(k["efficiency"], 0)), _e(_bound_text(k)),
                         _e(_reason_text(k))])
        more = len(r.grouped) - len(rows)
        note = (f'<p class="note">{more:,} more kernel{"s" if more > 1 else ""}; the families table sums '
                "all of them.</p>" if more > 0 else "")
        return _table(["kernel", "variant", "family", "calls", "time", "share", "per call", "FLOP/s",
                       "% of roof", "bound", "why below the roof"], rows, left={0, 1, 2, 9, 10},
                      raw_first=True) + note

    def families(self) -> str:
        rows = [[_e(f.family), f"{f.names:,}", f"{f.calls:,}", _e(_t(f.time_s)), _e(_pct(f.share)),
                 _e(_rate(f.flop_s)), _e(_pct(f.efficiency, 0)),
                 f'{_e(f.bound)} <span class="muted">{_e(_pct(f.bound_share, 0))}</span>']
                for f in self.r.family_rows()]
        return ('<section id="rr-families"><h2>Families</h2><p>Kernels grouped by what they do '
                "(the profile's family, else read from the name). % of roof is the roofline time over the "
                "measured time of the members that have a roof; bound is the class with the most time.</p>"
                + _table(["family", "names", "calls", "time", "share", "FLOP/s", "% of roof", "main bound"],
                         rows, left={0, 7}) + "</section>")

    def _sections(self):
        """The sections that apply: ranks for a multi-rank job, variants when
        a kernel has two or more, operators when the trace names them, the
        instruction roofline when there is one or the input came from a
        profiler that can count instructions (its note says what to collect)."""
        r = self.r
        split = r.step_split()
        applies = {"ranks": r.row_ranks is not None, "variants": bool(r.variant_rows()),
                   "communication": has_communication(r),
                   "steps": split is not None and (len(split.overall) > 1 or bool(split.steps)),
                   "operators": bool(np.any(r.placements.kernels.operators != "")),
                   "instruction": r.instruction is not None
                   or any(str(getattr(x, "format", "")).startswith(("ncu", "nvprof")) for x in r.results),
                   "block-sched": block_sched.has_block_clocks(r)}
        return [(k, t) for k, t in SECTIONS if applies.get(k, True)]

    def ranks(self) -> str:
        spread = self.r.rank_spread()
        if spread is None:
            return ""
        rows = self.r.rank_rows()
        slow = int(np.argmax(spread.time_s))
        coll = float(spread.collectives_s.sum()) / float(spread.time_s.sum()) if spread.time_s.sum() else 0.0
        out = ['<section id="rr-ranks"><h2>Ranks</h2>',
               f"<p>{len(spread.ranks)} ranks. Slowest: rank {_e(spread.slowest)} with "
               f"{_e(_t(float(spread.time_s[slow])))} of kernel time against a median of "
               f"{_e(_t(spread.median_s))} (+{_e(_pct(spread.spread))}). Collective and point-to-point "
               f"kernels (NCCL/RCCL): {_e(_pct(coll))} of kernel time.</p>"]
        out.append(_table(["rank", "kernel time", "vs median", "collectives"],
                          [[str(int(r)), _e(_t(float(t))), _e(_x(float(t) / spread.median_s if spread.median_s else None)),
                            _e(_t(float(c)))] for r, t, c in zip(spread.ranks, spread.time_s, spread.collectives_s)],
                          compact=True))
        out.append("<h3>Per family and rank</h3><p>% of roof: roofline time over time; bound: the class "
                   "with the most of the family's time on that rank.</p>")
        out.append(_table(["family", "rank", "calls", "time", "% of roof", "main bound"],
                          [[_e(c.family), _e(c.rank), f"{c.calls:,}", _e(_t(c.time_s)),
                            _e(_pct(c.fraction_of_roof, 0)), _e(c.bound)] for c in rows],
                          left={0, 5}))
        out.append("</section>")
        return "\n".join(out)

    def operators(self) -> str:
        out = ['<section id="rr-operators"><h2>Operators</h2>']
        split = self.r.work_split()
        out.append("<h3>Time by kind of work</h3>")
        out.append(_table(["kind", "kernel rows", "calls", "time", "share"],
                          [[_e(c.category), f"{c.rows:,}", f"{c.calls:,}", _e(_t(c.time_s)), _e(_pct(c.share))]
                           for c in split], compact=True))
        ops = self.r.operator_rows()
        if not ops:
            out.append('<p class="note">The profile names no framework operators (a PyTorch trace recorded '
                       "with <code>record_shapes=True</code> does).</p></section>")
            return "\n".join(out)
        shown = ops[: 2 * self.r.top]
        out.append("<h3>Per operator</h3><p>Work from the operator models where <i>modelled</i> is above 0: "
                   "FLOPs of the direct algorithm and the compulsory bytes (every input read once, every "
                   "output written once), a lower bound on traffic, so each point is an upper bound on "
                   "intensity. Operators with no model stay <i>unknown</i>: their time is shown, not their work.</p>")
        out.append(_table(["operator", "calls", "time", "share", "FLOP/s", "% of roof", "main bound", "modelled"],
                          [[_e(o.operator), f"{o.calls:,}", _e(_t(o.time_s)), _e(_pct(o.share)), _e(_rate(o.flop_s)),
                            _e(_pct(o.efficiency, 0)), _e(o.bound), _e(_pct(o.modelled, 0))] for o in shown],
                          left={0, 6}))
        if len(ops) > len(shown):
            out.append(f'<p class="note">{len(ops) - len(shown):,} more operators with less time.</p>')
        out.append("</section>")
        return "\n".join(out)

    def variants(self) -> str:
        tables = self.r.variant_rows()
        out = ['<section id="rr-variants"><h2>Variants: before and after</h2>']
        if not tables:
            out.append('<p class="note">No kernel has two or more variants (a <code>variant</code> column, '
                       "or <code>--variants</code> naming them).</p></section>")
            return "\n".join(out)
        out.append("<p>Each version of a kernel against the previous one and the first; speed-up = time "
                   "before / time after. On the rooflines, arrows join consecutive variants.</p>")
        for rows in tables:
            body = []
            for v in rows:
                cls = "" if v.vs_previous is None else (' class="faster"' if v.vs_previous >= 1 else ' class="slower"')
                body.append([_e(v.variant), _e(_t(v.time_s)), f"<span{cls}>{_e(_x(v.vs_previous))}</span>",
                             _e(_x(v.vs_first)), _e(_rate(v.flop_s)), _e(_pct(v.efficiency, 0)), _e(v.bound)])
            out.append(f'<h3><code title="{_e(rows[0].kernel)}">{_e(_short(rows[0].kernel, 90))}</code></h3>')
            out.append(_table(["variant", "time", "vs previous", "vs first", "FLOP/s", "% of roof", "bound"],
                              body, left={0, 6}))
        out.append("</section>")
        return "\n".join(out)

    def rooflines(self) -> str:
        r = self.r
        out = ['<section id="rr-rooflines"><h2>Rooflines</h2>']
        if r.dense:
            out.append(f'<p class="note">{len(r.placements):,} kernel rows: the markers are the '
                       f"{len(r.plotted):,} kernel names with the most time (rows summed; the rest in one marker "
                       "per family), the grey density shows every row.</p>")
        if not r.views():
            out.append('<p class="note">No kernel has FLOPs, bytes and a time together, so none can be placed on a '
                       "FLOP roofline; the time view under Overhead shows every kernel. Collect FLOP and byte "
                       "counters with Nsight Compute (ncu --section SpeedOfLight_RooflineChart), or supply the "
                       "work from a cost model (docs/costmodels.md).</p></section>")
            return "\n".join(out)
        if self.interactive:
            out.append(f'<figure class="interactive">{self.interactive}<figcaption>Cache-aware roofline (Ilic et '
                       "al.): intensity over the bytes at the nearest level with a counter; marker size = share of "
                       "time, colour = bound class. Hover a point for its numbers, scroll to zoom, drag to pan, "
                       "click a legend entry to hide a class, choose families, bounds or operators above, click a "
                       "point to find its row in the kernels table.</figcaption></figure>")
        else:
            out.append(self._figure("roofline-cache-aware",
                                    "Cache-aware roofline (Ilic et al.): intensity over the bytes at the nearest level "
                                    "with a counter; marker size = share of time, colour = bound class."))
        if "hierarchical" in r.views():
            out.append(self._figure("roofline-hierarchical",
                                    "Hierarchical roofline (Yang et al.): one marker per memory level at the same "
                                    "achieved FLOP/s; the level closest to its own roof limits the kernel."))
        else:
            out.append('<p class="note">No hierarchical roofline: no kernel has bytes at two or more memory '
                       "levels (collect L1, L2 and DRAM bytes with Nsight Compute to see one).</p>")
        out.append("</section>")
        return "\n".join(out)

    def instruction(self) -> str:
        r = self.r
        out = ['<section id="rr-instruction"><h2>Instruction roofline</h2>']
        roof = r.instruction
        if roof is None:
            note = _e(r.instruction_note())
            if "ncu --metrics " in note:  # the metric list as code that wraps
                head, metrics = note.split("ncu --metrics ", 1)
                note = f'{head}<code class="wrap">ncu --metrics {metrics.replace(",", ",<wbr>")}</code>'
            out.append(f'<p class="note">{note}</p></section>')
            return "\n".join(out)
        c = roof.ceilings
        out.append(f"<p>Warp instructions per second against warp instructions per transaction "
                   f"(Ding and Williams 2019). Peak {_e(f'{c.warp_inst_s / 1e9:.1f}')} warp GIPS; "
                   + ", ".join(f"{_e(lv)} {_e(f'{rate / 1e9:.3g}')} GTXN/s" for lv, rate in c.transactions_s.items())
                   + ".</p>")
        out.append(self._figure("instruction", "Instruction roofline; dotted lines are access-pattern walls."))
        levels = [lv for lv in ("L1", "shared", "L2", "DRAM") if any(lv in p.intensity for p in roof.points)]
        rows = []
        points = sorted(roof.points, key=lambda p: -p.time_s)[: r.top]
        for p, label in zip(points, distinct_names([p.name for p in points], width=60)):
            rows.append([_name_cell(p.name, label), _e(p.variant), _e(_t(p.time_s)), _e(f"{p.warp_inst_s / 1e9:.1f}"),
                         *[_e(f"{p.intensity[lv]:.3g}") if lv in p.intensity else "–" for lv in levels],
                         _e(p.limiter), _e(_pct(p.efficiency, 0)),
                         "–" if p.predication is None else _e(f"{p.predication:.2f}")])
        out.append(_table(["kernel", "variant", "time", "warp GIPS", *[f"inst/txn {lv}" for lv in levels],
                           "limiter", "% of roof", "predication"], rows, left={0, 1}, raw_first=True))
        out.append("</section>")
        return "\n".join(out)

    def overhead(self) -> str:
        r = self.r
        a = r.overhead
        K = a.kernels
        out = ['<section id="rr-overhead"><h2>Overhead</h2>',
               '<p class="note">Overhead is time that does not scale with the work. A kernel is '
               "overhead-bound only on evidence: a fixed cost per call fitted across the sizes of the same "
               "operator or kernel (or the profile's typical one) that is at least half of each call, a launch "
               "too small to fill the GPU, or a framework operator with no work of its own; never when its "
               "roofline time per call is 100 µs or more.</p>"]
        rows = [["overhead-bound kernels", _e(_t(K.overhead_time_s)),
                 f"{_e(_pct(K.overhead_share))} · {K.overhead_calls:,} calls"]]
        rows += [[f"&nbsp;&nbsp;{_e(kind)}", _e(_t(t)), _e(_pct(t / K.total_time_s if K.total_time_s else None))]
                 for kind, t in K.by_kind.items()]
        if K.fitted_groups:
            rows.append([f"all fixed costs (fitted for {K.fitted_groups} operators/kernels, typical "
                         f"{_e(_t(K.typical_fixed_s))} per call)", _e(_t(K.fixed_cost_s)), _e(_pct(K.fixed_cost_share))])
        if K.launch_cost_s is not None:
            rows.append(["host launch cost (calls × launch overhead; shows as gaps between kernels)",
                         _e(_t(K.launch_cost_s)), ""])
        out.append("<h3>Kernels</h3>" + _table(["", "time", "share of kernel time"], rows, left={0}, compact=True))
        if K.top:
            out.append(_table(["overhead-bound kernel", "calls", "time", "per call"],
                              [[_name_cell(k.name, label), f"{k.calls:,}", _e(_t(k.time_s)), _e(_t(k.per_call_s))]
                               for k, label in zip(K.top, distinct_names([k.name for k in K.top], width=60))],
                              left={0}, raw_first=True))
        P = a.program
        out.append("<h3>Host API and GPU idle time</h3>")
        if P is None:
            out.append('<p class="note">The inputs have no program-level times (host API calls, a timeline). '
                       "nvprof summaries, Nsight Systems and PyTorch profiler traces have them.</p>")
        else:
            est = " (estimated: kernel and copy times)" if P.busy_estimated else ""
            api = _e(_t(P.api_total_s)) if P.api_s else "– (no API calls in the input)"
            prog_rows = [["host API time", api, f"{_e(_pct(P.api_share))} of API + GPU busy" if P.api_s else ""],
                         ["GPU busy" + est, _e(_t(P.gpu_busy_s)), ""]]
            if P.span_s is not None:
                prog_rows += [["timeline span", _e(_t(P.span_s)), ""],
                              ["GPU idle (span − busy)", _e(_t(P.idle_s)), f"{_e(_pct(P.idle_share))} of the span"]]
            out.append(_table(["", "time", "share"], prog_rows, left={0}, compact=True))
            if P.api_s:
                out.append(_table(["host API call", "time", "share of API time"],
                                  [[_name_cell(n), _e(_t(t)), _e(_pct(t / P.api_total_s if P.api_total_s else None))]
                                   for n, t in P.top_api(8)], left={0}, raw_first=True))
        out.append(self._figure("overhead", "Time per call against FLOP per call. A call takes at least W / peak "
                                "(black); the orange line is the profile's typical fixed cost per call, fitted "
                                "across sizes. Calls near it are dominated by that cost. Kernels without a FLOP "
                                "count sit in the grey strip."))
        out.append("</section>")
        return "\n".join(out)

    def warnings(self) -> str:
        items = self.r.warnings()
        out = ['<section id="rr-warnings"><h2>Warnings</h2>']
        if not items:
            out.append('<p class="note">None.</p>')
        else:
            out.append('<ul class="warn">')
            for w in items:
                head = f"<b>{_e(w.subject)}</b>: " if w.subject else ""
                adv = f'<span class="adv">{_e(w.advice)}</span>' if w.advice else ""
                out.append(f"<li>{head}{_e(w.message)}{adv}</li>")
            out.append("</ul>")
        out.append("</section>")
        return "\n".join(out)


def _name_cell(name: str, shown: str | None = None) -> str:
    """A kernel name cell: the short name shown (``shown``: one told apart
    from the table's others, :func:`.names.distinct_names`), the full one on hover."""
    return f'<td class="name" title="{_e(name)}">{_e(_short(str(name)) if shown is None else shown)}</td>'


def _table(header, rows, left=frozenset({0}), raw_first: bool = False, compact: bool = False) -> str:
    head = "".join(f'<th class="l">{_e(h)}</th>' if i in left else f"<th>{_e(h)}</th>" for i, h in enumerate(header))
    body = []
    for row in rows:
        cells = []
        for i, c in enumerate(row):
            if i == 0 and raw_first:
                cells.append(c)  # already a <td>
            else:
                cells.append(f'<td class="l">{c}</td>' if i in left else f"<td>{c}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    cls = ' class="compact"' if compact else ""
    return (f'<div class="scroll"><table{cls}><thead><tr>{head}</tr></thead><tbody>'
            + "\n".join(body) + "</tbody></table></div>")

