"""Optimisation reports: one self-contained HTML page (or Markdown with PNGs).

    from roofline.report import build_report
    report = build_report(["run.ncu-rep"], "v100-sxm2",
                          variants="baseline,constmem,tiled,double-buffer")
    report.save("report.html")       # or "report.md" (PNGs written beside it)
    report                           # in Jupyter: the report itself (_repr_html_)
    report.plot_roofline()           # matplotlib Figures, for notebooks
    report.plot_instruction(); report.plot_overhead()

Sections: summary (device, total time, time by bound class, top kernels),
families, before/after variants, the cache-aware and hierarchical
rooflines with arrows between variants, the instruction roofline when the
profile has warp instruction counts, overhead (launch, host API, GPU idle,
time per call against work), and the warnings of every step.

Huge traces (more than ``max_points`` kernel rows) are aggregated by name
before plotting and drawn as a density underneath
(:mod:`roofline.plot_density`); the tables are computed from every row,
vectorised, so a million-row trace renders in seconds.

This module computes what the report shows (:class:`Report`,
:func:`build_report`) and draws its charts; :mod:`roofline.report_html`
writes the page (no JavaScript and nothing outside the file: charts are PNGs
in ``data:`` URIs, styles are inline and scoped to ``.rr``, and every name
from a profile is escaped), :mod:`roofline.report_markdown` the Markdown.
"""
from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import Advice, InputError, RooflineError
from .model import Device, Kernel, KernelRows, KernelSet
from .placement import BANDWIDTH, CLASSES, COMPUTE, LATENCY, LAUNCH, UNKNOWN, Placements, Rules, place
from .report_format import _bound_text
from .report_html import render_html
from .report_markdown import render_markdown
from .style import CLASS_STYLE, LEVEL_COLOR
from .units import format_si

FIGURE_DPI = 120
CLASS_LABEL = {COMPUTE: "compute", BANDWIDTH: "bandwidth", LAUNCH: "overhead (launch)",
               LATENCY: "overhead (latency/occupancy)", UNKNOWN: "no counters"}
CLASS_COLOR = {c: CLASS_STYLE[c][0] for c in (COMPUTE, LAUNCH, LATENCY, UNKNOWN)}


@dataclass(frozen=True)
class BoundShare:
    """Time in one bound class (bandwidth split by level)."""

    label: str
    color: str
    time_s: float
    share: float
    rows: int


@dataclass(frozen=True)
class FamilyRow:
    family: str
    names: int
    calls: int
    time_s: float
    share: float
    flop_s: float | None       # achieved, over members that do FLOPs
    efficiency: float | None   # sum t_roof / sum t over members with a roof
    bound: str                 # the class with the most time
    bound_share: float         # its share of the family's time


@dataclass(frozen=True)
class OperatorRow:
    """One framework operator (aten::addmm ...) over every kernel row it
    launched (GPU) or ran as (CPU)."""

    operator: str
    rows: int
    calls: int
    time_s: float
    share: float
    flop_s: float | None
    efficiency: float | None
    bound: str
    modelled: float            # share of its time with work from an operator model


@dataclass(frozen=True)
class SplitRow:
    """Time of one kind of work: GEMM, convolution, attention, ..."""

    category: str
    rows: int
    calls: int
    time_s: float
    share: float


# Kernel families by the kind of work the seeds' BERT lecture splits time into.
SPLIT_OF_FAMILY = {
    "gemm": "GEMM",
    "implicit_gemm": "convolution", "explicit_gemm": "convolution", "winograd": "convolution",
    "fft": "convolution", "conv_custom": "convolution", "convolution": "convolution",
    "attention": "attention",
    "normalization": "normalisation", "softmax": "normalisation",
    "elementwise": "element-wise", "copy": "element-wise",
}
SPLIT_ORDER = ("GEMM", "convolution", "attention", "normalisation", "element-wise", "other")


@dataclass(frozen=True)
class VariantRow:
    kernel: str
    variant: str
    time_s: float
    vs_previous: float | None  # speed-up: previous time / this time
    vs_first: float | None
    flop_s: float | None
    efficiency: float | None
    bound: str


@dataclass(repr=False)
class Report:
    """Everything a report shows, computed once; figures are drawn on demand.

    ``placements`` has every kernel row; ``grouped`` sums rows by name and
    variant (tables, arrows); ``plotted`` is what the charts draw: the rows
    themselves, or when there are more than ``max_points`` the condensed
    groups of :func:`roofline.plot_density.condense` over a density.
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
        p = self.placements
        time = np.nan_to_num(p.kernels.time_s)
        total = time.sum()
        nlim = len(p.limiter_names) + 1
        key = p.code.astype(np.int64) * nlim + (p.limiter_index.astype(np.int64) + 1)
        t = np.bincount(key, weights=time, minlength=len(CLASSES) * nlim)
        n = np.bincount(key, minlength=len(CLASSES) * nlim)
        out = []
        for code, cls in enumerate(CLASSES):
            if cls == BANDWIDTH:
                for j, lv in enumerate(p.limiter_names):
                    k = code * nlim + j + 1
                    if n[k]:
                        out.append(BoundShare(f"bandwidth ({lv})", LEVEL_COLOR.get(lv, "#0072B2"),
                                              float(t[k]), float(t[k] / total) if total else 0.0, int(n[k])))
                continue
            sl = slice(code * nlim, (code + 1) * nlim)
            if n[sl].sum():
                tt = float(t[sl].sum())
                out.append(BoundShare(CLASS_LABEL[cls], CLASS_COLOR[cls], tt, tt / total if total else 0.0,
                                      int(n[sl].sum())))
        return sorted(out, key=lambda b: -b.time_s)

    def top_kernels(self, n: int | None = None) -> list[dict]:
        """The longest kernels (rows summed by name and variant), as records
        with ``share`` of total time."""
        records = self.grouped.records()
        total = self.total_time_s
        records.sort(key=lambda r: -(r["time_s"] or 0.0))
        for r in records:
            r["share"] = (r["time_s"] or 0.0) / total if total else None
        return records[: n or self.top]

    def family_rows(self) -> list[FamilyRow]:
        """Per family (its own, or :func:`roofline.families.family_of` the
        name), from every row: time, calls, names, FLOP/s, % of roof, and
        the bound class with the most time."""
        from .plot_density import factorize, group_keys, kernel_families
        ks = self.placements.kernels
        g = self.grouped.kernels
        row_group = self.row_group if self.row_group is not None else group_keys(ks, "variant")[0]
        group_fam, fams = factorize(kernel_families(g))  # families of the groups, then of the rows
        fam_codes = group_fam[row_group]
        nf = len(fams)
        name_codes, names = factorize(g.names)
        pairs = np.unique(group_fam * max(len(names), 1) + name_codes)
        n_names = np.bincount(pairs // max(len(names), 1), minlength=nf)
        st = _group_stats(self.placements, fam_codes, nf)
        rows = [FamilyRow(family=str(fams[f]), names=int(n_names[f]), calls=st.calls[f], time_s=st.time_s[f],
                          share=st.share[f], flop_s=st.flop_s[f], efficiency=st.efficiency[f],
                          bound=st.bound[f], bound_share=st.bound_share[f]) for f in range(nf)]
        return sorted(rows, key=lambda r: -r.time_s)

    def rank_rows(self) -> list:
        """Per kernel family and rank (a multi-rank job; empty otherwise)."""
        if self.row_ranks is None:
            return []
        from .ranks import family_rank_table
        return family_rank_table(self.placements, self.row_ranks)

    def rank_spread(self):
        """Kernel time per rank, the slowest rank and the spread (or None)."""
        if self.row_ranks is None:
            return None
        from .ranks import rank_spread
        return rank_spread(self.placements, self.row_ranks)

    def operator_rows(self) -> list[OperatorRow]:
        """Per framework operator (rows whose trace named one), by time."""
        from .plot_density import factorize
        p = self.placements
        ks = p.kernels
        has = ks.operators != ""
        if not has.any():
            return []
        idx = np.flatnonzero(has)
        codes, ops = factorize(ks.operators[idx])
        st = _group_stats(p, codes, len(ops), rows=idx, grand=float(np.nansum(ks.time_s)))
        t = np.nan_to_num(ks.time_s[idx])
        modelled_t = np.bincount(codes, weights=np.where(ks.modelled[idx], t, 0.0), minlength=len(ops))
        n_rows = np.bincount(codes, minlength=len(ops))
        out = [OperatorRow(operator=str(ops[o]), rows=int(n_rows[o]), calls=st.calls[o], time_s=st.time_s[o],
                           share=st.share[o], flop_s=st.flop_s[o], efficiency=st.efficiency[o], bound=st.bound[o],
                           modelled=float(modelled_t[o] / st.time_s[o]) if st.time_s[o] > 0 else 0.0)
               for o in range(len(ops))]
        return sorted(out, key=lambda r: -r.time_s)

    def work_split(self) -> list[SplitRow]:
        """Time by kind of work (GEMM, convolution, attention,
        normalisation, element-wise, other), from the kernels' families."""
        from .plot_density import kernel_families
        ks = self.placements.kernels
        cats = np.array([SPLIT_OF_FAMILY.get(str(f), "other") for f in kernel_families(ks)], dtype=object)
        codes = np.array([SPLIT_ORDER.index(c) for c in cats], dtype=np.int64)
        n = len(SPLIT_ORDER)
        t = np.nan_to_num(ks.time_s)
        time = np.bincount(codes, weights=t, minlength=n)
        calls = np.bincount(codes, weights=ks.count, minlength=n)
        rows = np.bincount(codes, minlength=n)
        grand = time.sum()
        return [SplitRow(category=c, rows=int(rows[i]), calls=int(calls[i]), time_s=float(time[i]),
                         share=float(time[i] / grand) if grand else 0.0)
                for i, c in enumerate(SPLIT_ORDER) if rows[i]]

    def chains(self):
        from .plot_variants import variant_chains
        return variant_chains(self.grouped.kernels, self.variants)

    def variant_rows(self) -> list[list[VariantRow]]:
        """Before/after tables: one list per kernel with two or more variants."""
        g = self.grouped
        rec = g.records()
        out = []
        for chain in self.chains():
            first = g.kernels.time_s[chain.rows[0]]
            prev = None
            rows = []
            for i, v in zip(chain.rows, chain.variants):
                t = float(g.kernels.time_s[i])
                rows.append(VariantRow(
                    kernel=chain.name, variant=v, time_s=t,
                    vs_previous=prev / t if prev and t > 0 else None,
                    vs_first=first / t if first and t > 0 and prev is not None else None,
                    flop_s=rec[i]["achieved_flop_s"] or None, efficiency=rec[i]["efficiency"],
                    bound=_bound_text(rec[i])))
                prev = t
            out.append(rows)
        return out

    @property
    def instruction(self):
        """The instruction roofline, or None when the profile has no warp
        instruction counts or the device no instruction ceiling."""
        if self._instruction is None:
            self._instruction = _instruction_roofline(self)
        return self._instruction or None

    def instruction_note(self) -> str:
        from .instruction import NCU_METRICS
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
                              variants=self.variants, arrows=arrows, size=size)

    def plot_instruction(self, size=(10, 6.5)):
        """The instruction roofline Figure, or None without instruction counts."""
        roof = self.instruction
        if roof is None:
            return None
        from .instruction import instruction_roofline_figure
        return instruction_roofline_figure(roof, size=size)

    def plot_overhead(self, size=(10, 5.2)):
        """Time per call against FLOP per call with the launch floor."""
        from .overhead import time_view, time_view_figure
        fig = time_view_figure(time_view(self.plotted), size=size, max_points=self.max_points)
        if self.dense:
            from .plot_density import draw_density
            v = self.overhead.view
            ax = fig.axes[0]
            x = np.where(np.isfinite(v.work_per_call), v.work_per_call, ax.get_xlim()[0] * 3)
            draw_density(ax, x, v.time_per_call_s, label="density of all rows")
        return fig

    def figures(self) -> dict[str, object]:
        """name -> Figure, for every chart of the report."""
        figs = {f"roofline-{v}": self.plot_roofline(v) for v in self.views()}
        inst = self.plot_instruction()
        if inst is not None:
            figs["instruction"] = inst
        figs["overhead"] = self.plot_overhead()
        return figs

    # ------------------------------------------------------------ output

    def to_html(self, full: bool = True) -> str:
        """The report as HTML: a whole document, or (``full=False``) a
        fragment with its scoped style, as Jupyter shows it."""
        images = {k: "data:image/png;base64," + base64.b64encode(_png(f)).decode("ascii")
                  for k, f in self.figures().items()}
        return render_html(self, images, full)

    def _repr_html_(self) -> str:
        return self.to_html(full=False)

    def to_markdown(self, image_prefix: str = "report") -> tuple[str, dict[str, bytes]]:
        """Markdown text and the PNGs it links to (file name -> bytes), named
        ``<image_prefix>_<chart>.png``."""
        figs = self.figures()
        names = {k: f"{image_prefix}_{k}.png" for k in figs}
        return render_markdown(self, names), {names[k]: _png(f) for k, f in figs.items()}

    def save(self, path) -> list[Path]:
        """Write ``.html`` (self-contained) or ``.md`` (with PNGs beside it),
        each file atomically. Returns the paths written."""
        from .atomic import atomic_path, write_text_atomic
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


# ---------------------------------------------------------------- building

def build_report(inputs, device, variants=None, title: str | None = None, top: int = 15,
                 max_points: int | None = None, rules: Rules = Rules(), row_ranks=None) -> Report:
    """A :class:`Report` of profile files, ImportResults, KernelSets or
    Kernels (one or a list) on ``device`` (a Device or a profile name).

    ``variants``: the order of the variants to link with arrows (a list or
    ``"baseline,constmem,tiled"``); default: the ``variant`` column in the
    order the variants first appear. ``row_ranks``: the rank of every
    kernel row, in input order, for the per-rank section of a multi-rank job.
    """
    from .overhead import analyze_overhead
    from .plot_density import aggregate_set, concat, condense
    if isinstance(device, str):
        from .profile import find_device
        device = find_device(device)
    from .plot_density import MAX_MARKERS, MAX_POINTS, group_keys
    max_points = MAX_POINTS if max_points is None else max_points
    results, kernel_objs, sets = _collect(inputs)
    parts = ([KernelSet.from_kernels(kernel_objs)] if kernel_objs else []) + sets
    if not parts or sum(len(s) for s in parts) == 0:
        where = ", ".join(r.path for r in results) or "the input"
        raise RooflineError(f"no kernels in {where}: nothing to report")
    kernels = parts[0] if len(parts) == 1 else concat(parts)
    placements = place(kernels, device, rules)
    groups = group_keys(kernels, "variant")
    grouped_set = aggregate_set(kernels, "variant", groups=groups)
    grouped = place(grouped_set, device, rules)
    if len(kernels) > max_points:
        plotted = place(condense(kernels, min(max_points, MAX_MARKERS), grouped=grouped_set), device, rules)
    else:
        plotted = placements
    order = None
    if variants:
        from .plot_variants import variant_order
        order = variant_order(kernels, variants)
    extra = []
    if order:
        present = set(str(v) for v in kernels.variants)
        missing = [v for v in order if v not in present]
        if missing:
            extra.append(Advice(f"variant(s) {', '.join(missing)} not found in the kernels",
                                "check --variants against the variant column", subject="variants"))
    overhead = analyze_overhead(placements, results, rules, groups=(groups[0], grouped_set.names))
    source = tuple(kernel_objs) if kernel_objs and not sets and len(kernel_objs) <= max_points else None
    return Report(device=device, placements=placements, grouped=grouped, plotted=plotted, overhead=overhead,
                  row_group=groups[0],
                  results=tuple(results), source_kernels=source, variants=order,
                  title=title or "Roofline report", top=top, max_points=max_points,
                  extra_warnings=tuple(extra),
                  row_ranks=None if row_ranks is None else np.asarray(row_ranks, dtype=np.int64))


def _collect(inputs):
    from .importers import ImportResult, read_profile
    from .placement import Placements as _P
    if isinstance(inputs, (str, Path, KernelSet, ImportResult, Kernel, _P)):
        inputs = [inputs]
    results, kernels, sets = [], [], []
    for item in inputs:
        if isinstance(item, (str, Path)):
            item = read_profile(item)
        if isinstance(item, ImportResult):
            results.append(item)
            if isinstance(item.kernels, KernelRows):   # columns: no object per row
                sets.append(item.kernels.columns)
            else:
                kernels.extend(item.kernels)
        elif isinstance(item, Kernel):
            kernels.append(item)
        elif isinstance(item, KernelSet):
            sets.append(item)
        elif isinstance(item, KernelRows):                 # ImportResult.kernels of a columnar read
            sets.append(item.columns)
        elif isinstance(item, _P):
            sets.append(item.kernels)
        else:
            raise RooflineError(f"cannot report on {type(item).__name__}: give profile paths, "
                                "ImportResults, KernelSets or Kernels")
    return results, kernels, sets


@dataclass(frozen=True)
class _Stats:
    calls: list
    time_s: list
    share: list
    flop_s: list
    efficiency: list
    bound: list
    bound_share: list


def _group_stats(p: Placements, codes: np.ndarray, n: int, rows=None, grand: float | None = None) -> _Stats:
    """Per group of rows (``codes`` for the rows at ``rows``, all by
    default): calls, time, share of ``grand`` (all time), achieved FLOP/s
    over members with work, roofline time over measured time, and the fine
    bound class with the most time."""
    ks = p.kernels
    sel = slice(None) if rows is None else rows
    time = ks.time_s[sel]
    timed = np.isfinite(time)
    t = np.nan_to_num(time)
    total_t = np.bincount(codes, weights=t, minlength=n)
    calls = np.bincount(codes, weights=ks.count[sel], minlength=n)
    work_all = p.work[sel]
    has_work = timed & np.isfinite(work_all) & (work_all > 0)
    work = np.bincount(codes, weights=np.where(has_work, work_all, 0.0), minlength=n)
    work_t = np.bincount(codes, weights=np.where(has_work, t, 0.0), minlength=n)
    roof_all = p.roofline_time_s[sel]
    roofed = timed & np.isfinite(roof_all)
    roof = np.bincount(codes, weights=np.where(roofed, roof_all, 0.0), minlength=n)
    roof_t = np.bincount(codes, weights=np.where(roofed, t, 0.0), minlength=n)
    lab_codes, lab_names = _fine_label_codes(p)
    lab_codes = lab_codes[sel]
    by = np.bincount(codes * len(lab_names) + lab_codes, weights=t,
                     minlength=n * len(lab_names)).reshape(n, len(lab_names))
    grand = float(t.sum()) if grand is None else grand
    best = np.argmax(by, axis=1) if n else np.zeros(0, dtype=int)
    return _Stats(
        calls=[int(c) for c in calls], time_s=[float(x) for x in total_t],
        share=[float(x / grand) if grand else 0.0 for x in total_t],
        flop_s=[float(work[f] / work_t[f]) if work_t[f] > 0 else None for f in range(n)],
        efficiency=[float(roof[f] / roof_t[f]) if roof_t[f] > 0 else None for f in range(n)],
        bound=[str(lab_names[best[f]]) for f in range(n)],
        bound_share=[float(by[f, best[f]] / total_t[f]) if total_t[f] > 0 else 0.0 for f in range(n)])


def _instruction_roofline(r: Report):
    from .instruction import instruction_roofline
    if r.device.instruction_rate is None:
        return False
    if r.source_kernels is not None:
        ks = list(r.source_kernels)
    else:
        g = r.grouped.kernels
        if g.instructions is None or not np.any(np.nan_to_num(g.instructions) > 0):
            return False
        if len(g) > r.max_points:  # the kernels with the most time
            from .plot_density import _take
            g = _take(g, np.sort(np.argsort(-np.nan_to_num(g.time_s), kind="stable")[: r.max_points]))
        ks = [k for k in g.kernels() if k.instructions]
    if not any(k.instructions for k in ks):
        return False
    roof = instruction_roofline(ks, r.device)
    # a chart needs transactions too: instruction intensity is per transaction
    return roof if any(p.intensity for p in roof.points) else False


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=FIGURE_DPI)
    return buf.getvalue()


def _fine_label_codes(p: Placements) -> tuple[np.ndarray, list[str]]:
    """Each row's class as a code into labels such as ``bandwidth (DRAM)``."""
    nlim = len(p.limiter_names) + 1
    labels = []
    for cls in CLASSES:
        if cls == BANDWIDTH:
            labels += ["bandwidth"] + [f"bandwidth ({lv})" for lv in p.limiter_names]
        else:
            labels += [CLASS_LABEL[cls]] * nlim
    codes = p.code.astype(np.int64) * nlim
    bw = p.code == CLASSES.index(BANDWIDTH)
    codes = np.where(bw, codes + p.limiter_index.astype(np.int64) + 1, codes)
    return codes, labels
