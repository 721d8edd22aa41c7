"""The sections of a report, one module each, in the order they appear.

Each module has ``KEY``, ``TITLE`` and ``build(report, ctx)``, which returns
the section's blocks (:mod:`roofline.render.document`) or None when the
section does not apply to the data. :func:`report_sections` runs them in
:data:`ORDER`; the HTML and Markdown writers only format what it returns.
A new section is a module here and its name in :data:`ORDER`.

- :mod:`.summary` (headline numbers, time by bound and by reason, top
  kernels), :mod:`.steps` (time by phase of the training step),
  :mod:`.serving` (per prefill/decode phase of a serving step, the time
  by bound),
  :mod:`.rooflines` (the charts), :mod:`.kernels` (every name, most time
  first), :mod:`.variants` (each version of a kernel against the previous),
  :mod:`.families` (kernels grouped by what they do);
- multi-rank jobs: :mod:`.ranks` (time per rank) and :mod:`.communication`
  (collectives on their roofs, exposed communication);
- :mod:`.operators` (time by kind of work and per framework operator),
  :mod:`.instruction` (instruction roofline, or what to collect for one),
  :mod:`.overhead` (fixed costs, host API, idle time), :mod:`.block_sched`
  (block scheduling inside kernels), :mod:`.warnings` (every step's advice,
  once);
- :mod:`.context`: what every section needs to word itself (CPU or GPU,
  trace or table, the rules' thresholds).

Part of :mod:`roofline.render`: imports ``core``, ``devices``,
``analysis`` and the rest of ``render``, never the writers; numpy.
"""
from __future__ import annotations

from importlib import import_module

from ...core.placement import Rules
from ..document import Section
from .context import Context

ORDER = ("summary", "steps", "serving", "rooflines", "kernels", "variants", "families", "ranks", "communication",
         "operators", "instruction", "overhead", "block_sched", "warnings")


def report_sections(report, rules: Rules | None = None) -> tuple[Section, ...]:
    """The sections that apply to ``report``, in order, each built once;
    thresholds quoted from ``rules`` (default: the report's own)."""
    ctx = Context.of(report, rules)
    out = []
    for name in ORDER:
        mod = import_module(f"{__name__}.{name}")
        blocks = mod.build(report, ctx)
        if blocks is not None:
            out.append(Section(mod.KEY, mod.TITLE, tuple(blocks)))
    return tuple(out)


def report_document(report, rules: Rules | None = None):
    """The whole report: title, the line under it, the device banner, the
    sections (:func:`report_sections`) and the footer."""
    from ..._version import __version__
    from ..document import Document
    from pathlib import Path
    ctx = Context.of(report, rules)
    sources = ", ".join(Path(s).name for s in report.sources) or "the given kernels"
    method = report.device.provenance.get("method", "unknown")
    doubts = report.doubts
    return Document(
        title=report.title,
        subtitle=f"{report.device.name} · {len(report.placements):,} {ctx.unit} rows from {sources}",
        sections=report_sections(report, rules), banner=report.banner(),
        alarm=any(not getattr(d, "note", False) for d in doubts),
        footer=f"roofline {__version__} · device profile: {method} · all times are {ctx.time_name} summed over "
               "calls unless stated", version=__version__, extras={"device": report.device.name})
