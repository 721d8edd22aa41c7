"""A report: everything it shows, computed once from placed kernels, and
its charts drawn on demand (:class:`Report`; built from files by
:func:`roofline.report.build_report`).

Sections: summary (device, total time, time by bound class, top kernels),
families, before/after variants, the cache-aware and hierarchical
rooflines with arrows between variants, the instruction roofline when the
profile has warp instruction counts, overhead (fixed costs, host API, GPU idle,
time per call against work), and the warnings of every step. The tables
are computed in :mod:`.report_rows`; :mod:`.sections` builds the report
once as a :class:`~.document.Document`, which :mod:`.html` (one
self-contained page, every name escaped) and :mod:`.markdown` only format.

Huge traces (more than ``max_points`` kernel rows) are aggregated by name
before plotting and drawn as a density underneath (:mod:`.density`).
"""
from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.errors import Advice, InputError
from ..core.model import Device, Kernel
from ..core.placement import Placements, Rules
from ..core.units import format_si
from .html import render_html
from .markdown import render_markdown
from .report_rows import (BoundShare, FamilyRow, LostRow, OperatorRow, SplitRow, VariantRow, bound_shares,
                          family_rows, lost_by_reason, operator_rows, variant_rows, work_split)

FIGURE_DPI = 120


def banner_text(doubts) -> str:
    """The doubts about a profile as one statement: the reasons first, the
    notes (what could not be checked) after."""
    reasons = [str(d) for d in doubts if not getattr(d, "note", False)]
    notes = [str(d) for d in doubts if getattr(d, "note", False)]
    note = "; ".join(notes)
    note = note[:1].upper() + note[1:] + "." if note else ""
    if not reasons:
        return note
    return " ".join(filter(None, ["These roofs may not hold: " + "; ".join(reasons) + ".", note]))


@dataclass(repr=False)
class Report:
    """Everything a report shows, computed once; figures are drawn on demand.

    ``placements`` has every kernel row; ``grouped`` sums rows by name and
    variant (tables, arrows); ``plotted`` is what the charts draw: the rows
    themselves, or when there are more than ``max_points`` the condensed
    groups of :func:`roofline.core.aggregate.condense` over a density.
    """

    device: Device
    placements: Placements
    grouped: Placements
    plotted: Placements
    overhead: object
    row_group: np.ndarray | None = None  # each row's index into grouped
    results: tuple = ()
    source_kernels: tuple[Kernel, ...] | None = None
    variants: tuple[str, ...] | None = None
    title: str = "Roofline report"
    top: int = 15
    max_points: int = 2000
    extra_warnings: tuple[Advice, ...] = ()
    _instruction: object = field(default=None, repr=False)
    row_ranks: np.ndarray | None = None   # each placement row's rank (a multi-rank job)
    doubts: tuple = ()                    # why the profile's roofs may not hold (devices.trust)
    result_rows: tuple = ()               # first placement row of each result's kernels (None: unknown)
    rules: Rules = Rules()                # the thresholds the kernels were classified with
    _records: list | None = field(default=None, repr=False, compare=False)

    def grouped_records(self) -> list[dict]:
        """The grouped rows as records, made once per report (the kernels
        table, top kernels, variants and block clocks all read them); each
        a copy, so a caller may add keys."""
        if self._records is None:
            self._records = self.grouped.records()
        return [dict(r) for r in self._records]

    def banner(self) -> str:
        """One paragraph on why the device profile's roofs may not hold for
        these kernels ("" when nothing casts doubt on them)."""
        return banner_text(self.doubts)

    def __repr__(self) -> str:
        return (f"<Report {self.title!r}: {len(self.placements):,} kernel rows on {self.device.name}, "
                f"{format_si(self.total_time_s, 's')}>")

    # ------------------------------------------------------------ data

    @property
    def dense(self) -> bool:
        return len(self.placements) > self.max_points

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(r.path for r in self.results)

    @property
    def total_time_s(self) -> float:
        return float(np.nansum(self.placements.kernels.time_s))

    @property
    def total_calls(self) -> int:
        return int(np.sum(self.placements.kernels.count))

    def bound_shares(self) -> list[BoundShare]:
        """Kernel time by class over every row, bandwidth split by level."""
        return bound_shares(self)

    def lost_by_reason(self) -> list[LostRow]:
        """Time lost against the roofs by reason, most first."""
        return lost_by_reason(self)

    def top_kernels(self, n: int | None = None) -> list[dict]:
        """The longest kernels (rows summed by name and variant), as records
        with ``share`` of total time."""
        records = self.grouped_records()
        total = self.total_time_s
        records.sort(key=lambda r: -(r["time_s"] or 0.0))
        for r in records:
            r["share"] = (r["time_s"] or 0.0) / total if total else None
        return records[: n or self.top]

    def family_rows(self) -> list[FamilyRow]:
        """Per family (its own, or :func:`roofline.core.families.family_of` the
        name), from every row: time, calls, names, FLOP/s, % of roof, and
        the bound class with the most time."""
        return family_rows(self)

    def rank_rows(self) -> list:
        """Per kernel family and rank (a multi-rank job; empty otherwise)."""
        if self.row_ranks is None:
            return []
        from ..analysis.ranks import family_rank_table
        return family_rank_table(self.placements, self.row_ranks)

    def rank_spread(self):
        """Kernel time per rank, the slowest rank and the spread (or None)."""
        if self.row_ranks is None:
            return None
        from ..analysis.ranks import rank_spread
        return rank_spread(self.placements, self.row_ranks)

    def operator_rows(self) -> list[OperatorRow]:
        """Per framework operator (rows whose trace named one), by time."""
        return operator_rows(self)

    def step_split(self):
        """Time by phase of the training step (forward, backward, optimizer,
        communication, data loading, other), overall and per ProfilerStep;
        None when no input marks phases (:mod:`.step_rows`)."""
        from .step_rows import step_split
        return step_split(self)

    def work_split(self) -> list[SplitRow]:
        """Time by kind of work (GEMM, convolution, attention,
        normalisation, element-wise, other), from the kernels' families."""
        return work_split(self)

    def chains(self):
        from .variants import variant_chains
        return variant_chains(self.grouped.kernels, self.variants)

    def variant_rows(self) -> list[list[VariantRow]]:
        """Before/after tables: one list per kernel with two or more variants."""
        return variant_rows(self)

    @property
    def instruction(self):
        """The instruction roofline, or None when the profile has no warp
        instruction counts or the device no instruction ceiling."""
        if self._instruction is None:
            self._instruction = _instruction_roofline(self)
        return self._instruction or None

    def instruction_note(self) -> str:
        from ..analysis.instruction import NCU_METRICS
        if self.device.instruction_rate is None:
            return (f"The device profile {self.device.name!r} has no instruction ceiling "
                    "(instruction_rate), so there is no instruction roofline.")
        ks = self.grouped.kernels
        if ks.instructions is not None and np.any(np.nan_to_num(ks.instructions) > 0):
            return ("The kernels have warp instruction counts but no transaction counts per memory level. "
                    f"Collect them with ncu --metrics {','.join(NCU_METRICS)}")
        return ("No kernel has a warp instruction count. Collect them with "
                f"ncu --metrics {','.join(NCU_METRICS)}")

    def warnings(self) -> list[Advice]:
        """Advice from the importers, placement, instruction roofline,
        overhead analysis and device profile, without repeats."""
        items: list[Advice] = []
        for r in self.results:
            name = Path(r.path).name
            items += [w if name in w.subject else
                      Advice(w.message, w.advice, f"{name}: {w.subject}" if w.subject else name)
                      for w in r.warnings]
        items += list(self.placements.warnings)
        roof = self.instruction
        if roof is not None:
            items += list(roof.warnings)
        items += list(self.overhead.advice) + list(self.device.warnings) + list(self.extra_warnings)
        seen, out = set(), []
        for w in items:
            if str(w) not in seen:
                seen.add(str(w))
                out.append(w)
        return out

    # ------------------------------------------------------------ figures

    def drawable(self) -> int:
        """How many kernels a FLOP roofline can show (FLOPs, bytes and time)."""
        from .chart import drawable
        return drawable(self.plotted)

    def views(self) -> list[str]:
        """``cache-aware``, plus ``hierarchical`` when some kernel has bytes
        at two or more levels; none when no kernel can be drawn."""
        from .chart import views
        return views(self.plotted)

    def plot_roofline(self, view: str = "cache-aware", arrows: bool = True, size=(10, 6.5)):
        """The roofline chart (a matplotlib Figure): markers sized by time and
        coloured by bound class, arrows between variants, and for huge traces
        a density of every row under the aggregated markers."""
        from .chart import roofline_chart
        shown = self.plotted if self.dense else self.placements
        return roofline_chart(self.placements, shown, self.device.name, view=view,
                              variants=self.variants, arrows=arrows, size=size, banner=self.banner())

    def plot_instruction(self, size=(10, 6.5)):
        """The instruction roofline Figure, or None without instruction counts."""
        roof = self.instruction
        if roof is None:
            return None
        from .instruction import instruction_roofline_figure
        return instruction_roofline_figure(roof, size=size)

    def plot_overhead(self, size=(10, 5.2)):
        """Time per call against FLOP per call with the typical fixed cost."""
        from ..analysis.overhead import time_view
        from .overhead import time_view_figure
        fig = time_view_figure(time_view(self.plotted), size=size, max_points=self.max_points)
        if self.dense:
            from .density import draw_density
            v = self.overhead.view
            ax = fig.axes[0]
            x = np.where(np.isfinite(v.work_per_call), v.work_per_call, ax.get_xlim()[0] * 3)
            draw_density(ax, x, v.time_per_call_s, label="density of all rows")
        return fig

    def figures(self, skip=()) -> dict[str, object]:
        """name -> Figure, for every chart of the report (but those in ``skip``)."""
        from .views import VIEWS
        figs = {VIEWS[v].figure: self.plot_roofline(v) for v in self.views() if VIEWS[v].figure not in skip}
        inst = self.plot_instruction()
        if inst is not None:
            figs[VIEWS["instruction"].figure] = inst
        figs["overhead"] = self.plot_overhead()
        if "communication" not in skip:
            from .collectives import communication_figure
            comm = communication_figure(self)
            if comm is not None:
                figs["communication"] = comm
        from .block_sched import figures as block_sched_figures
        figs.update({k: f for k, f in block_sched_figures(self).items() if k not in skip})
        return figs

    # ------------------------------------------------------------ output

    def sections(self, rules: Rules | None = None):
        """The report's sections (:mod:`.document` blocks), built once from
        the analyses; thresholds quoted from ``rules`` (default: the ones
        the kernels were classified with)."""
        from .sections import report_sections
        return report_sections(self, rules)

    def document(self, rules: Rules | None = None):
        """The whole report as a :class:`~.document.Document`, which the
        HTML and Markdown writers only format."""
        from .sections import report_document
        return report_document(self, rules)

    def interactive_roofline(self) -> str:
        """The cache-aware roofline as an interactive chart (HTML and script,
        :mod:`.interactive`), or "" when Bokeh is missing or no kernel can be
        drawn (the PNG is used then)."""
        if not self.views():
            return ""
        try:
            from . import interactive
        except ImportError:        # pragma: no cover - bokeh is a dependency
            return ""
        from .plot import chart_points
        shown = self.plotted if self.dense else self.placements
        x = chart_points(shown, "cache-aware")[""]
        title = f"Cache-aware roofline on {shown.roof_device.name}"
        density = _density(self.placements) if self.dense else None
        from .variants import variant_chains
        chains = variant_chains(shown.kernels, self.variants)
        unit = "operator" if self.device.kind == "cpu" else "kernel"
        return interactive.roofline_html(shown, x, self._row_ids(shown), title, density, chains=chains, unit=unit)

    def _row_ids(self, shown: Placements) -> list[str]:
        """The kernels-table row each drawn point belongs to."""
        from .sections.kernels import row_id
        if shown is self.placements and self.row_group is not None:
            return [row_id(int(g)) for g in self.row_group]
        index = {(str(n), str(v)): i for i, (n, v) in
                 enumerate(zip(self.grouped.kernels.names.tolist(), self.grouped.kernels.variants.tolist()))}
        return [row_id(index[(str(n), str(v))]) if (str(n), str(v)) in index else ""
                for n, v in zip(shown.kernels.names.tolist(), shown.kernels.variants.tolist())]

    def to_html(self, full: bool = True) -> str:
        """The report as HTML: a whole document, or (``full=False``) a
        fragment with its scoped style, as Jupyter shows it."""
        chart = self.interactive_roofline()
        from .views import VIEWS
        figures = self.figures(skip=(VIEWS["cache-aware"].figure,) if chart else ())
        images = {k: "data:image/png;base64," + base64.b64encode(_png(f)).decode("ascii")
                  for k, f in figures.items()}
        script = ""
        if chart:
            from .interactive import resources
            script = resources()
        return render_html(self.document(), images, full, interactive=chart, interactive_js=script)

    def _repr_html_(self) -> str:
        return self.to_html(full=False)

    def to_markdown(self, image_prefix: str = "report") -> tuple[str, dict[str, bytes]]:
        """Markdown text and the PNGs it links to (file name -> bytes), named
        ``<image_prefix>_<chart>.png``."""
        figs = self.figures()
        names = {k: f"{image_prefix}_{k}.png" for k in figs}
        return render_markdown(self.document(), names), {names[k]: _png(f) for k, f in figs.items()}

    def save(self, path) -> list[Path]:
        """Write ``.html`` (self-contained) or ``.md`` (with PNGs beside it),
        each file atomically. Returns the paths written."""
        from ..core.atomic import atomic_path, write_text_atomic
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix in (".html", ".htm"):
            write_text_atomic(path, self.to_html())
            return [path]
        if suffix in (".md", ".markdown"):
            text, images = self.to_markdown(image_prefix=path.stem)
            written = []
            for name, data in images.items():
                target = path.parent / name
                with atomic_path(target) as tmp:
                    tmp.write_bytes(data)
                written.append(target)
            write_text_atomic(path, text)
            return written + [path]
        raise InputError(path, None, "expected a report file ending in .html or .md")


def _instruction_roofline(r: Report):
    from ..analysis.instruction import instruction_roofline
    if r.device.instruction_rate is None:
        return False
    if r.source_kernels is not None:
        ks = list(r.source_kernels)
    else:
        g = r.grouped.kernels
        if g.instructions is None or not np.any(np.nan_to_num(g.instructions) > 0):
            return False
        if len(g) > r.max_points:  # the kernels with the most time
            from ..core.aggregate import _take
            g = _take(g, np.sort(np.argsort(-np.nan_to_num(g.time_s), kind="stable")[: r.max_points]))
        ks = [k for k in g.kernels() if k.instructions]
    if not any(k.instructions for k in ks):
        return False
    roof = instruction_roofline(ks, r.device)
    # a chart needs transactions too: instruction intensity is per transaction
    return roof if any(p.intensity for p in roof.points) else False


def _density(p: Placements, bins: int = 120):
    """Every row of a huge trace as a density image on log-spaced bins:
    (image, x0, x1, y0, y1) for the interactive chart, or None."""
    x, y = p.cache_aware_intensity, p.achieved_flop_s
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if ok.sum() < 2:
        return None
    lx, ly = np.log10(x[ok]), np.log10(y[ok])
    hist, xe, ye = np.histogram2d(lx, ly, bins=(bins, int(bins * 0.65)))
    image = np.where(hist.T > 0, np.log10(hist.T + 1), np.nan)
    return image, 10 ** xe[0], 10 ** xe[-1], 10 ** ye[0], 10 ** ye[-1]


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=FIGURE_DPI)
    return buf.getvalue()
