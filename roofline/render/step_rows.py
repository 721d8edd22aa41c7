"""The step split of a report (:mod:`roofline.analysis.steps`), given the
phase tables of the report's inputs: time by phase, overall and per
``ProfilerStep#N``, with the time by bound class inside each phase."""
from __future__ import annotations

from ..analysis.steps import OUTSIDE, PhaseRow, StepSplit
from ..analysis.steps import step_split as split_of
from ..core.phases import PHASES

__all__ = ["OUTSIDE", "PHASES", "PhaseRow", "StepSplit", "step_split"]


def _tables(r):
    """(first placement row, PhaseTable) of every result that has one."""
    out = []
    for result, start in zip(r.results, r.result_rows):
        table = getattr(result, "phases", None)
        if table is not None and start is not None and len(table):
            out.append((start, table))
    return out


def step_split(r) -> StepSplit | None:
    """The split of report ``r``, or None when no input marks phases."""
    return split_of(r.placements, _tables(r))


def serving_phases(r):
    """The serving phases of report ``r`` with their time by bound
    (:func:`roofline.analysis.steps.serving_phases`); empty when no input
    marks a serving engine's steps."""
    from ..analysis.steps import serving_phases as phases_of
    return phases_of(r.placements, _tables(r))
