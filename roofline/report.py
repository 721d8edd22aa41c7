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

The HTML needs no JavaScript and nothing outside the file: charts are PNGs
in ``data:`` URIs, styles are inline and scoped to ``.rr``, and every name
from a profile is escaped.
"""
from __future__ import annotations

import base64
import html
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import Advice, InputError, RooflineError
from .model import Device, Kernel, KernelSet
from .placement import BANDWIDTH, CLASSES, COMPUTE, LATENCY, LAUNCH, UNKNOWN, Placements, Rules, place
from .units import format_si

FIGURE_DPI = 120
CLASS_LABEL = {COMPUTE: "compute", BANDWIDTH: "bandwidth", LAUNCH: "overhead (launch)",
               LATENCY: "overhead (latency/occupancy)", UNKNOWN: "no counters"}
CLASS_COLOR = {COMPUTE: "#D55E00", LAUNCH: "#E69F00", LATENCY: "#CC79A7", UNKNOWN: "#999999"}
LEVEL_COLOR = {"L1": "#56B4E9", "L2": "#009E73", "L3": "#7F7F7F", "DRAM": "#0072B2", "PCIe": "#000000"}
SECTIONS = (("summary", "Summary"), ("rooflines", "Rooflines"), ("variants", "Variants"),
            ("families", "Families"), ("instruction", "Instruction roofline"),
            ("overhead", "Overhead"), ("warnings", "Warnings"))


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
        p = self.placements
        ks = p.kernels
        g = self.grouped.kernels
        row_group = self.row_group if self.row_group is not None else group_keys(ks, "variant")[0]
        group_fam, fams = factorize(kernel_families(g))  # families of the groups, then of the rows
        fam_codes = group_fam[row_group]
        nf = len(fams)
        time = ks.time_s
        timed = np.isfinite(time)
        t = np.nan_to_num(time)
        total_t = np.bincount(fam_codes, weights=t, minlength=nf)
        calls = np.bincount(fam_codes, weights=ks.count, minlength=nf)
        name_codes, names = factorize(g.names)
        pairs = np.unique(group_fam * max(len(names), 1) + name_codes)
        n_names = np.bincount(pairs // max(len(names), 1), minlength=nf)
        has_work = timed & np.isfinite(p.work) & (p.work > 0)
        work = np.bincount(fam_codes, weights=np.where(has_work, p.work, 0.0), minlength=nf)
        work_t = np.bincount(fam_codes, weights=np.where(has_work, t, 0.0), minlength=nf)
        roofed = timed & np.isfinite(p.roofline_time_s)
        roof = np.bincount(fam_codes, weights=np.where(roofed, p.roofline_time_s, 0.0), minlength=nf)
        roof_t = np.bincount(fam_codes, weights=np.where(roofed, t, 0.0), minlength=nf)
        lab_codes, lab_names = _fine_label_codes(p)
        by = np.bincount(fam_codes * len(lab_names) + lab_codes, weights=t,
                         minlength=nf * len(lab_names)).reshape(nf, len(lab_names))
        grand = t.sum()
        rows = []
        for f in range(nf):
            j = int(np.argmax(by[f]))
            rows.append(FamilyRow(
                family=str(fams[f]), names=int(n_names[f]), calls=int(calls[f]), time_s=float(total_t[f]),
                share=float(total_t[f] / grand) if grand else 0.0,
                flop_s=float(work[f] / work_t[f]) if work_t[f] > 0 else None,
                efficiency=float(roof[f] / roof_t[f]) if roof_t[f] > 0 else None,
                bound=str(lab_names[j]), bound_share=float(by[f, j] / total_t[f]) if total_t[f] > 0 else 0.0))
        return sorted(rows, key=lambda r: -r.time_s)

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
        p = self.plotted
        y = p.achieved_flop_s
        x = p.cache_aware_intensity
        return int(np.sum(np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)))

    def views(self) -> list[str]:
        """``cache-aware``, plus ``hierarchical`` when some kernel has bytes
        at two or more levels; none when no kernel can be drawn."""
        if not self.drawable():
            return []
        p = self.plotted
        multi = sum(np.isfinite(v).astype(int) for v in p.intensity.values()) if p.intensity else 0
        return ["cache-aware"] + (["hierarchical"] if np.any(np.asarray(multi) > 1) else [])

    def plot_roofline(self, view: str = "cache-aware", arrows: bool = True, size=(10, 6.5)):
        """The roofline chart (a matplotlib Figure): markers sized by time and
        coloured by bound class, arrows between variants, and for huge traces
        a density of every row under the aggregated markers."""
        from .plot import roofline_figure
        from .plot_variants import draw_variant_arrows, variant_chains
        p = self.plotted
        chains = variant_chains(p.kernels, self.variants) if arrows else []
        members = sum(len(c.rows) for c in chains)
        title = None
        if self.dense:
            title = (f"{view.capitalize()} roofline on {self.device.name}: {len(self.placements):,} kernel rows\n"
                     f"markers: {len(p):,} kernel names (summed), grey: density of every row")
        fig = roofline_figure(p, view=view, title=title, label_top=8 + members, size=size)
        if self.dense:
            from .plot_density import draw_density
            full = self.placements
            mesh = draw_density(fig.axes[0], full.cache_aware_intensity, full.achieved_flop_s,
                                label="density of all rows (nearest level)")
            if mesh is not None and mesh.outside:
                fig.axes[0].text(0.99, 0.01, f"{mesh.outside:,} rows outside the chart", ha="right",
                                 va="bottom", transform=fig.axes[0].transAxes, fontsize=7, color="#777777")
        if chains:
            draw_variant_arrows(fig, p, self.variants)
        return fig

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
        body = _HtmlWriter(self, images).render()
        if not full:
            return f"<style>{CSS}</style>\n{body}"
        return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                f"<title>{_e(self.title)}: {_e(self.device.name)}</title>\n<style>{CSS}</style>\n</head>\n"
                f"<body>\n{body}\n</body>\n</html>\n")

    def _repr_html_(self) -> str:
        return self.to_html(full=False)

    def to_markdown(self, image_prefix: str = "report") -> tuple[str, dict[str, bytes]]:
        """Markdown text and the PNGs it links to (file name -> bytes), named
        ``<image_prefix>_<chart>.png``."""
        figs = self.figures()
        names = {k: f"{image_prefix}_{k}.png" for k in figs}
        return _markdown(self, names), {names[k]: _png(f) for k, f in figs.items()}

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
                 max_points: int = 2000, rules: Rules = Rules()) -> Report:
    """A :class:`Report` of profile files, ImportResults, KernelSets or
    Kernels (one or a list) on ``device`` (a Device or a profile name).

    ``variants``: the order of the variants to link with arrows (a list or
    ``"baseline,constmem,tiled"``); default: the ``variant`` column in the
    order the variants first appear.
    """
    from .overhead import analyze_overhead
    from .plot_density import aggregate_set, concat, condense
    if isinstance(device, str):
        from .profile import find_device
        device = find_device(device)
    from .plot_density import MAX_MARKERS, group_keys
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
                  extra_warnings=tuple(extra))


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
            kernels.extend(item.kernels)
        elif isinstance(item, Kernel):
            kernels.append(item)
        elif isinstance(item, KernelSet):
            sets.append(item)
        elif isinstance(item, _P):
            sets.append(item.kernels)
        else:
            raise RooflineError(f"cannot report on {type(item).__name__}: give profile paths, "
                                "ImportResults, KernelSets or Kernels")
    return results, kernels, sets


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


def _bound_text(record: dict) -> str:
    if record["bound"] == "bandwidth" and record["level"]:
        return f"bandwidth ({record['level']})"
    if record["bound"] == "overhead":
        return f"overhead ({record['overhead_kind']})"
    return "no counters" if record["bound"] == "unknown" else record["bound"]


# ---------------------------------------------------------------- formatting helpers

def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _t(v) -> str:
    return "–" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format_si(v, "s")


def _pct(v, digits: int = 1) -> str:
    return "–" if v is None or not math.isfinite(v) else f"{100 * v:.{digits}f}%"


def _rate(v, unit="FLOP/s") -> str:
    return "–" if not v or not math.isfinite(v) else format_si(v, unit)


def _x(v) -> str:
    return "–" if v is None or not math.isfinite(v) else f"{v:.2f}x"


def _short(name: str, width: int = 60) -> str:
    from .plot import short_name
    return short_name(name, width)


# ---------------------------------------------------------------- HTML

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
.rr tbody tr:nth-child(even){background:#fbfcfd}
.rr td.name{white-space:normal;overflow-wrap:anywhere;max-width:420px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.rr .faster{color:#117733;font-weight:600}.rr .slower{color:#CC3311;font-weight:600}
.rr figure{margin:14px 0 22px}
.rr figure img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px}
.rr figcaption{color:var(--muted);font-size:13px;margin-top:4px}
.rr .note{color:var(--muted);font-size:14px;background:var(--soft);border-left:3px solid var(--line);padding:6px 10px}
.rr ul.warn{padding-left:0;list-style:none}
.rr ul.warn li{border-left:3px solid #E69F00;background:#fffaf0;padding:6px 10px;margin:6px 0;font-size:14px}
.rr ul.warn li .adv{color:var(--muted);display:block;font-size:13px}
.rr code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;background:var(--soft);padding:1px 4px;border-radius:3px}
.rr code.wrap{white-space:normal;overflow-wrap:anywhere}
.rr footer{margin-top:36px;color:var(--muted);font-size:12.5px;border-top:1px solid var(--line);padding-top:8px}
"""


class _HtmlWriter:
    def __init__(self, report: Report, images: dict[str, str]):
        self.r = report
        self.images = images

    def render(self) -> str:
        r = self.r
        parts = ['<div class="rr">', f"<h1>{_e(r.title)}</h1>",
                 f'<p class="sub">{_e(r.device.name)} · {len(r.placements):,} kernel rows from '
                 f"{_e(', '.join(Path(s).name for s in r.sources) or 'the given kernels')}</p>",
                 "<nav>" + "".join(f'<a href="#rr-{k}">{_e(t)}</a>' for k, t in SECTIONS) + "</nav>"]
        parts += [self.summary(), self.rooflines(), self.variants(), self.families(), self.instruction(),
                  self.overhead(), self.warnings()]
        from . import __version__
        parts.append(f"<footer>roofline {_e(__version__)} · device profile: "
                     f"{_e(r.device.provenance.get('method', 'unknown'))} · all times are kernel (GPU) "
                     "time summed over calls unless stated</footer></div>")
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
        out.append(f"<h3>Top kernels</h3>{self._top_table()}</section>")
        return "\n".join(out)

    def _top_table(self) -> str:
        r = self.r
        rows = []
        for k in r.top_kernels():
            calls = k["count"]
            rows.append([_name_cell(k["name"]), _e(k["variant"] or ""), _e(k["family"] or ""), f"{calls:,}",
                         _e(_t(k["time_s"])), _e(_pct(k["share"])),
                         _e(_t(k["time_s"] / calls if k["time_s"] is not None and calls else None)),
                         _e(_rate(k["achieved_flop_s"])), _e(_pct(k["efficiency"], 0)), _e(_bound_text(k))])
        more = len(r.grouped) - len(rows)
        note = (f'<p class="note">{more:,} more kernel{"s" if more > 1 else ""}; the families table sums '
                "all of them.</p>" if more > 0 else "")
        return _table(["kernel", "variant", "family", "calls", "time", "share", "per call", "FLOP/s",
                       "% of roof", "bound"], rows, left={0, 1, 2, 9}, raw_first=True) + note

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
            out.append('<p class="note">No kernel has both FLOPs and bytes, so none can be placed on a '
                       "FLOP roofline; the time view under Overhead shows every kernel. Collect FLOP and byte "
                       "counters with Nsight Compute (ncu --section SpeedOfLight_RooflineChart), or supply the "
                       "work from a cost model (docs/costmodels.md).</p></section>")
            return "\n".join(out)
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
        for p in sorted(roof.points, key=lambda p: -p.time_s)[: r.top]:
            rows.append([_name_cell(p.name), _e(p.variant), _e(_t(p.time_s)), _e(f"{p.warp_inst_s / 1e9:.1f}"),
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
        L = a.launch
        out = ['<section id="rr-overhead"><h2>Overhead</h2>']
        if L.launch_overhead_s is None:
            out.append('<p class="note">The device profile has no launch overhead; launch-bound kernels '
                       "cannot be told apart from latency-bound ones.</p>")
        rows = []
        if L.launch_overhead_s is not None:
            rows += [["device launch overhead", _e(_t(L.launch_overhead_s)), ""],
                     [f"launch-bound (t<sub>roof</sub> &lt; half the time, a call ≤ {_e(_t(L.threshold_s))})",
                      _e(_t(L.launch_bound_time_s)),
                      f"{_e(_pct(L.launch_bound_share))} · {L.launch_bound_calls:,} calls"],
                     [f"short calls (≤ {_e(_t(L.threshold_s))}, any class)", _e(_t(L.short_time_s)),
                      f"{_e(_pct(L.short_share))} · {L.short_calls:,} of {L.total_calls:,} calls"],
                     ["launch cost (calls × launch overhead)", _e(_t(L.launch_cost_s)), _e(_pct(L.launch_cost_share))]]
        rows.append(["latency/occupancy-bound", _e(_t(L.latency_bound_time_s)), _e(_pct(L.latency_bound_share))])
        out.append("<h3>Launches</h3>" + _table(["", "time", "share of kernel time"], rows, left={0}, compact=True))
        if L.top:
            out.append(_table(["launch-bound or short kernel", "calls", "time", "per call"],
                              [[_name_cell(k.name), f"{k.calls:,}", _e(_t(k.time_s)), _e(_t(k.per_call_s))]
                               for k in L.top], left={0}, raw_first=True))
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
        out.append(self._figure("overhead", "Time per call against FLOP per call. A call cannot take less than "
                                "the launch overhead (orange) nor W / peak (black); kernels near the orange lines "
                                "are launch-bound. Kernels without a FLOP count sit in the grey strip."))
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


def _name_cell(name: str) -> str:
    """A kernel name cell: the short name shown, the full one on hover."""
    return f'<td class="name" title="{_e(name)}">{_e(_short(str(name)))}</td>'


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


# ---------------------------------------------------------------- Markdown

def _md_code(text) -> str:
    """A table cell with a name: a code span (no HTML, no Markdown inside),
    pipes escaped for the table."""
    s = str(text).replace("\n", " ").replace("|", "\\|")
    fence = "``" if "`" in s else "`"
    return f"{fence} {s} {fence}" if fence == "``" else f"`{s}`"


def _md_text(text) -> str:
    """Plain text for Markdown: HTML and Markdown specials escaped
    (underscores only where they could start emphasis, not inside words)."""
    s = html.escape(str(text), quote=False)
    for ch in "\\`*[]|":
        s = s.replace(ch, "\\" + ch)
    s = re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", s)
    return s.replace("\n", " ")


def _md_table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _markdown(r: Report, images: dict[str, str]) -> str:
    out = [f"# {_md_text(r.title)}", "",
           f"{_md_text(r.device.name)} · {len(r.placements):,} kernel rows from "
           f"{_md_text(', '.join(Path(s).name for s in r.sources) or 'the given kernels')}", "", "## Summary", "",
           f"- device: {_md_text(r.device.name)} ({r.device.kind}, {_md_text(r.device.provenance.get('method', '?'))})",
           f"- kernel time: {_t(r.total_time_s)} in {r.total_calls:,} calls", ""]
    bounds = r.bound_shares()
    out += ["### Time by bound class", "",
            _md_table(["bound", "time", "share", "kernel rows"],
                      [[_md_text(b.label), _t(b.time_s), _pct(b.share), f"{b.rows:,}"] for b in bounds])]
    out += ["### Top kernels", "", _md_table(
        ["kernel", "variant", "family", "calls", "time", "share", "FLOP/s", "% of roof", "bound"],
        [[_md_code(_short(k["name"])), _md_text(k["variant"] or ""), _md_text(k["family"] or ""),
          f"{k['count']:,}", _t(k["time_s"]), _pct(k["share"]), _rate(k["achieved_flop_s"]),
          _pct(k["efficiency"], 0), _md_text(_bound_text(k))] for k in r.top_kernels()])]
    out += ["## Rooflines", ""]
    if not r.views():
        out += ["No kernel has both FLOPs and bytes, so none can be placed on a FLOP roofline.", ""]
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
    out += ["## Instruction roofline", ""]
    if "instruction" in images:
        out += [f"![Instruction roofline]({images['instruction']})", ""]
    else:
        out += [_md_text(r.instruction_note()), ""]
    from .overhead import overhead_text
    out += ["## Overhead", "", "```", overhead_text(r.overhead).rstrip(), "```", "",
            f"![Time per call against work]({images['overhead']})", "", "## Warnings", ""]
    items = r.warnings()
    out += [f"- {_md_text(w)}" for w in items] or ["None."]
    return "\n".join(out) + "\n"
