"""Step split: time by phase of the training step, overall and per
ProfilerStep (rows from :mod:`..step_rows`)."""
from __future__ import annotations

from ...core.phases import SERVING_PHASES, TRAINING_PHASES
from ...core.placement import CLASSES
from ..document import Code, Heading, Table, note, share, text, time
from ..step_rows import OUTSIDE, PHASES

KEY, TITLE = "steps", "Step split"
_COLUMNS = CLASSES + (OUTSIDE,)


def build(r, ctx):
    split = r.step_split()
    if split is None or not (len(split.overall) > 1 or split.steps):
        return None
    shown = {p.phase for p in split.overall}
    if shown & set(SERVING_PHASES) and not shown & set(TRAINING_PHASES) and not split.steps:
        return None                      # a serving step: the Serving step section says it
    basis = "Phases from " + ", ".join(split.basis) + "."
    if split.outside_s > 0:
        basis += (f" {time(split.outside_s).text} of host time ran inside these ranges but in no operator "
                  "(Python between operators, the optimizer's own loop): it is counted under its phase as "
                  f"'{OUTSIDE}', beside the {ctx.unit} time.")
    out = [note("Time by phase of the training step: communication is every collective kernel; optimizer what "
                "runs inside ", Code("Optimizer.step"), "/", Code("zero_grad"), "; backward what autograd runs; "
                "data loading the DataLoader's ranges; forward any other operator; other what no operator "
                "launched (copies, kernels before the profiler's window). " + basis),
           Table(("phase", "time", "share") + _COLUMNS,
                 tuple((text(p.phase), time(p.time_s), share(p.share))
                       + tuple(time(p.by_bound[c]) if p.by_bound.get(c) else text("") for c in _COLUMNS)
                       for p in split.overall), compact=True)]
    if split.steps:
        shown = [ph for ph in PHASES if any(v.get(ph) for v in split.steps.values())]
        out += [Heading("Per step"),
                Table(("step", "total", *shown),
                      tuple((text(f"ProfilerStep#{s}"), time(sum(v.values())), *(time(v[ph]) for ph in shown))
                            for s, v in split.steps.items()), compact=True)]
    return out
