"""The step split of a report: time by phase (forward, backward, optimizer,
communication, data loading, other), overall and per ``ProfilerStep#N``,
with the time by bound class inside each phase.

The phases come from the readers (:mod:`roofline.importers.kineto.phases`
says what marks each); this module only joins them with the placed rows.
Host time in a range but in no operator (the optimizer's own loop on a CPU
trace) is counted under its phase as "outside operators", beside the
kernel time: the split's total can exceed the kernel total by it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.phases import PHASES

OUTSIDE = "outside operators"


@dataclass(frozen=True)
class PhaseRow:
    """One phase of one step (``step`` None: all steps together)."""

    step: int | None
    phase: str
    time_s: float
    share: float                 # of the step's time, outside operators included
    by_bound: dict               # bound class (or OUTSIDE) -> seconds


@dataclass(frozen=True)
class StepSplit:
    overall: list                # PhaseRow per phase with time, all steps
    steps: dict                  # step number -> {phase: seconds}; empty with one step or none marked
    basis: tuple                 # what the phases rest on, per reader
    outside_s: float             # host time outside operators, in the totals above


def _tables(r):
    """(first placement row, PhaseTable) of every result that has one."""
    out = []
    for result, start in zip(r.results, r.result_rows):
        table = getattr(result, "phases", None)
        if table is not None and start is not None and len(table):
            out.append((start, table))
    return out


def step_split(r) -> StepSplit | None:
    """The split, or None when no input marks phases."""
    tables = _tables(r)
    if not tables:
        return None
    bound = np.asarray(r.placements.bound, dtype=object)
    labels, steps, phases, times = [], [], [], []
    for start, t in tables:
        inside = t.row >= 0
        label = np.full(len(t), OUTSIDE, dtype=object)
        label[inside] = bound[start + t.row[inside]]
        labels.append(label)
        steps.append(t.step)
        phases.append(t.phase)
        times.append(np.nan_to_num(t.time_s))
    label, step, phase, time = (np.concatenate(x) for x in (labels, steps, phases, times))
    total = time.sum()
    overall = []
    for code, name in enumerate(PHASES):
        mine = phase == code
        if not mine.any() or time[mine].sum() <= 0:
            continue
        by = {str(b): float(time[mine & (label == b)].sum()) for b in dict.fromkeys(label[mine].tolist())}
        overall.append(PhaseRow(None, name, float(time[mine].sum()), float(time[mine].sum() / total), by))
    per_step = {}
    marked = sorted(set(step[step >= 0].tolist()))
    if len(marked) > 1:
        for s in marked:
            mine = step == s
            per_step[s] = {PHASES[c]: float(time[mine & (phase == c)].sum()) for c in range(len(PHASES))}
    basis = tuple(dict.fromkeys(b for _, t in tables for b in t.basis))
    return StepSplit(overall, per_step, basis, float(time[label == OUTSIDE].sum()))
