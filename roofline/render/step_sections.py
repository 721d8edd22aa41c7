"""The step split as an HTML section and as Markdown (rows from
:mod:`.step_rows`). The HTML writer passes its table and escape functions,
so the section looks like the others without this module importing it."""
from __future__ import annotations

from ..core.placement import CLASSES
from .cells import _pct, _t
from .step_rows import OUTSIDE, PHASES

_COLUMNS = CLASSES + (OUTSIDE,)


def _bound_cells(row, fmt) -> list[str]:
    return [fmt(row.by_bound.get(c, 0.0)) if row.by_bound.get(c) else "" for c in _COLUMNS]


def _basis_note(split) -> str:
    note = "Phases from " + ", ".join(split.basis) + "."
    if split.outside_s > 0:
        note += (f" {_t(split.outside_s)} of host time ran inside these ranges but in no operator "
                 "(Python between operators, the optimizer's own loop): it is counted under its phase as "
                 f"'{OUTSIDE}', beside the kernel time.")
    return note


def steps_html(r, table, e) -> str:
    split = r.step_split()
    out = ['<section id="rr-steps"><h2>Step split</h2>',
           '<p class="note">Time by phase of the training step: communication is every collective kernel; '
           "optimizer what runs inside <code>Optimizer.step</code>/<code>zero_grad</code>; backward what "
           "autograd runs; data loading the DataLoader's ranges; forward any other operator; other what no "
           f"operator launched (copies, kernels before the profiler's window). {e(_basis_note(split))}</p>"]
    rows = [[e(p.phase), e(_t(p.time_s)), e(_pct(p.share))] + [e(c) for c in _bound_cells(p, _t)]
            for p in split.overall]
    out.append(table(["phase", "time", "share"] + list(_COLUMNS), rows, compact=True))
    if split.steps:
        shown = [ph for ph in PHASES if any(v.get(ph) for v in split.steps.values())]
        out.append("<h3>Per step</h3>")
        out.append(table(["step", "total"] + shown,
                         [[e(f"ProfilerStep#{s}"), e(_t(sum(v.values())))] + [e(_t(v[ph])) for ph in shown]
                          for s, v in split.steps.items()], compact=True))
    out.append("</section>")
    return "\n".join(out)


def steps_markdown(r, md_table, md_text) -> list[str]:
    split = r.step_split()
    out = ["## Step split", "", md_text(_basis_note(split)), ""]
    out.append(md_table(["phase", "time", "share"] + list(_COLUMNS),
                        [[p.phase, _t(p.time_s), _pct(p.share)] + _bound_cells(p, _t) for p in split.overall]))
    if split.steps:
        shown = [ph for ph in PHASES if any(v.get(ph) for v in split.steps.values())]
        out += ["", md_table(["step", "total"] + shown,
                             [[f"ProfilerStep#{s}", _t(sum(v.values()))] + [_t(v[ph]) for ph in shown]
                              for s, v in split.steps.items()])]
    return out + [""]
