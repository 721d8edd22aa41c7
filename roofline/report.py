"""Optimisation reports: one self-contained HTML page (or Markdown with PNGs).

    from roofline.report import build_report
    report = build_report(["run.ncu-rep"], "v100-sxm2",
                          variants="baseline,constmem,tiled,double-buffer")
    report.save("report.html")       # or "report.md" (PNGs written beside it)
    report                           # in Jupyter: the report itself (_repr_html_)
    report.plot_roofline()           # matplotlib Figures, for notebooks
    report.plot_instruction(); report.plot_overhead()

:func:`build_report` is an entry point of the library, like the CLI: it
reads the files (:mod:`roofline.importers`), places the kernels
(:mod:`roofline.core`), analyses the overhead (:mod:`roofline.analysis`)
and returns a :class:`~roofline.render.report.Report`, which computes its
sections and draws its charts (:mod:`roofline.render`).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .core.errors import Advice, RooflineError
from .core.evidence import carried
from .core.model import Kernel, KernelSet, carry_labels
from .core.placement import Placements, Rules, place
from .render.report import Report
from .render.report_rows import BoundShare, FamilyRow, OperatorRow, SplitRow, VariantRow  # noqa: F401



def build_report(inputs, device, variants=None, title: str | None = None, top: int = 15,
                 max_points: int | None = None, rules: Rules = Rules(), row_ranks=None) -> Report:
    """A :class:`Report` of profile files, ImportResults, KernelSets or
    Kernels (one or a list) on ``device`` (a Device or a profile name).

    ``variants``: the order of the variants to link with arrows (a list or
    ``"baseline,constmem,tiled"``); default: the ``variant`` column in the
    order the variants first appear. ``row_ranks``: the rank of every
    kernel row, in input order, for the per-rank section of a multi-rank job.
    """
    from .analysis.overhead import analyze_overhead
    from .core.aggregate import aggregate_set, concat, condense
    if isinstance(device, str):
        from .devices.profile import find_device
        device = find_device(device)
    if device.links is None:           # collectives need the link roofs (roofline.devices.links)
        from .devices.links import with_links
        device = with_links(device)
    from .core.aggregate import MAX_MARKERS, MAX_POINTS, group_keys
    max_points = MAX_POINTS if max_points is None else max_points
    results, parts, starts = _collect(inputs)
    if not parts or sum(len(s) for s in parts) == 0:
        where = ", ".join(r.path for r in results) or "the input"
        raise RooflineError(f"no kernels in {where}: nothing to report")
    kernels = parts[0] if len(parts) == 1 else concat(parts)
    placements = place(kernels, device, rules)
    groups = group_keys(kernels, "variant")
    grouped_set = carry_labels(kernels, aggregate_set(kernels, "variant", groups=groups), groups[0])
    # the groups keep their rows' fixed costs: their sums have lost the sizes
    fixed = carried(placements.fixed_s, placements.kernels.count, groups[0], groups[1], placements.fixed_costs())
    grouped = place(grouped_set, device, rules, fixed=fixed)
    if len(kernels) > max_points:
        plotted = place(condense(kernels, min(max_points, MAX_MARKERS), grouped=grouped_set), device, rules)
    else:
        plotted = placements
    order = None
    if variants:
        from .render.variants import variant_order
        order = variant_order(kernels, variants)
    extra = []
    if order:
        present = set(str(v) for v in kernels.variants)
        missing = [v for v in order if v not in present]
        if missing:
            extra.append(Advice(f"variant(s) {', '.join(missing)} not found in the kernels",
                                "check --variants against the variant column", subject="variants"))
    overhead = analyze_overhead(placements, results, groups=(groups[0], grouped_set.names))
    # the instruction roofline shows every row (each launch of an ncu file) when they fit; only
    # rows with instruction counters need Kernel objects
    source = tuple(kernels) if len(kernels) <= max_points and kernels.instructions is not None else None
    from .devices.trust import doubts_for
    return Report(device=device, placements=placements, grouped=grouped, plotted=plotted, overhead=overhead,
                  row_group=groups[0],
                  results=tuple(results), source_kernels=source, variants=order,
                  title=title or "Roofline report", top=top, max_points=max_points,
                  extra_warnings=tuple(extra),
                  row_ranks=None if row_ranks is None else np.asarray(row_ranks, dtype=np.int64),
                  doubts=tuple(doubts_for(device, results)), result_rows=tuple(starts), rules=rules)


def _collect(inputs):
    """The results among ``inputs``, every input's kernels as one KernelSet
    each (in input order; a run of bare Kernels is one set), and the first
    row of each result's kernels in the rows placed."""
    from .core.import_result import ImportResult
    from .importers import read_profile
    if isinstance(inputs, (str, Path, KernelSet, ImportResult, Kernel, Placements)):
        inputs = [inputs]
    results, sets, starts, loose, rows = [], [], [], [], 0
    for item in list(inputs) + [None]:
        if loose and not isinstance(item, Kernel):     # a run of Kernels ends: one set
            sets.append(KernelSet.from_kernels(loose))
            rows, loose = rows + len(loose), []
        if item is None:
            break
        if isinstance(item, (str, Path)):
            item = read_profile(item)
        if isinstance(item, ImportResult):
            results.append(item)
            starts.append(rows)
            item = item.kernels
        if isinstance(item, Kernel):
            loose.append(item)
            continue
        if isinstance(item, Placements):
            item = item.kernels
        if not isinstance(item, KernelSet):
            raise RooflineError(f"cannot report on {type(item).__name__}: give profile paths, "
                                "ImportResults, KernelSets or Kernels")
        sets.append(item)
        rows += len(item)
    return results, sets, starts