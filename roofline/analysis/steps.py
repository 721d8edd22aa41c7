"""The step split: time by phase (forward, backward, optimizer,
communication, data loading, other), overall and per ``ProfilerStep#N``,
with the time by bound class inside each phase.

The phases come from the readers (:mod:`roofline.importers.kineto.phases`
says what marks each, as a table of (kernel row, step, phase, time)); this
module joins them with the placed rows through the group summary
(:mod:`.groups`), each phase a group weighted by the table's times. Host
time in a range but in no operator (the optimizer's own loop on a CPU
trace) is counted under its phase as "outside operators", beside the
kernel time: the split's total can exceed the kernel total by it.

A serving engine's steps (:func:`serving_phases`) are split the same way
by phase (prefill, decode, both), each with its kernel time by bound:
compute, bandwidth, communication (the collectives), overhead, unknown.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.phases import PHASES, SERVING_PHASES
from ..core.placement import CLASSES, Placements
from .groups import summarize

OUTSIDE = "outside operators"


@dataclass(frozen=True)
class PhaseRow:
    """One phase of one step (``step`` None: all steps together)."""

    step: int | None
    phase: str
    time_s: float
    share: float                 # of the step's time, outside operators included
    by_bound: dict               # bound class (or OUTSIDE) -> seconds, for the classes it has rows of


@dataclass(frozen=True)
class StepSplit:
    overall: list                # PhaseRow per phase with time, all steps
    steps: dict                  # step number -> {phase: seconds}; empty with one step or none marked
    basis: tuple                 # what the phases rest on, per reader
    outside_s: float             # host time outside operators, in the totals above


def step_split(p: Placements, tables) -> StepSplit | None:
    """The split of ``tables``: (first placement row of a result, its
    PhaseTable) pairs; None when there are none."""
    if not tables:
        return None
    row = np.concatenate([np.where(t.row >= 0, start + t.row, -1) for start, t in tables]).astype(np.int64)
    step, phase = (np.concatenate([getattr(t, c) for _, t in tables]) for c in ("step", "phase"))
    time = np.concatenate([np.nan_to_num(t.time_s) for _, t in tables])
    phase = phase.astype(np.int64)
    inside = row >= 0
    st = summarize(p, phase[inside], len(PHASES), rows=row[inside], time_s=time[inside])
    total = time.sum()
    overall = []
    for code, name in enumerate(PHASES):
        mine = phase == code
        if not mine.any() or time[mine].sum() <= 0:
            continue
        by = {cls: float(st.class_time_s[code, c]) for c, cls in enumerate(CLASSES) if st.class_rows[code, c]}
        outside = mine & ~inside
        if outside.any():
            by[OUTSIDE] = float(time[outside].sum())
        overall.append(PhaseRow(None, name, float(time[mine].sum()), float(time[mine].sum() / total), by))
    per_step = {}
    marked = sorted(set(step[step >= 0].tolist()))
    if len(marked) > 1:
        for s in marked:
            mine = step == s
            per_step[s] = {PHASES[c]: float(time[mine & (phase == c)].sum()) for c in range(len(PHASES))}
    basis = tuple(dict.fromkeys(b for _, t in tables for b in t.basis))
    return StepSplit(overall, per_step, basis, float(time[~inside].sum()))


@dataclass(frozen=True)
class ServingPhase:
    """One phase of a serving engine's steps (prefill, decode or both)
    and where its kernel time is bound."""

    phase: str
    time_s: float                # kernel time launched in those steps
    share: float                 # of the kernel time of every serving phase
    compute_s: float             # rows bound by a compute roof
    bandwidth_s: float           # rows bound by a memory level
    communication_s: float       # collective kernels, whatever their bound
    overhead_s: float
    unknown_s: float             # rows with no work (no model, no counters)


def serving_phases(p: Placements, tables) -> list[ServingPhase]:
    """Per serving phase marked by a reader (:data:`SERVING_PHASES`), its
    kernel time by bound: compute, bandwidth (a memory level),
    communication (every collective kernel, on a link's roof or not),
    overhead and unknown; empty when no input marks a serving phase."""
    if not tables:
        return []
    row = np.concatenate([np.where(t.row >= 0, start + t.row, -1) for start, t in tables]).astype(np.int64)
    phase = np.concatenate([t.phase for _, t in tables]).astype(np.int64)
    time = np.concatenate([np.nan_to_num(t.time_s) for _, t in tables])
    wanted = [PHASES.index(name) for name in SERVING_PHASES]
    keep = np.isin(phase, wanted) & (row >= 0)
    if not keep.any():
        return []
    row, phase, time = row[keep], phase[keep], time[keep]
    comm = np.asarray([f == "communication" for f in p.kernels.families], dtype=bool)[row]
    # a collective is communication-bound time whatever its label; the rest by class
    codes = phase * 2 + comm
    st = summarize(p, codes, 2 * len(PHASES), rows=row, time_s=time)
    cls = {c: i for i, c in enumerate(CLASSES)}
    total = float(time.sum())
    out = []
    for code in wanted:
        own, coll = 2 * code, 2 * code + 1
        t = float(st.time_s[own] + st.time_s[coll])
        if t <= 0:
            continue
        by = st.class_time_s[own]
        out.append(ServingPhase(PHASES[code], t, t / total if total else 0.0,
                                float(by[cls["compute"]]), float(by[cls["bandwidth"]]), float(st.time_s[coll]),
                                float(by[cls["overhead"]]), float(by[cls["unknown"]])))
    return out
