"""The tables of a report as small frozen rows: time by bound class, per
kernel family, per framework operator, by kind of work, time lost by
reason, and before/after rows of a kernel's variants. Every sum comes from
:mod:`roofline.analysis.groups` (one summary per group, vectorised: a
million rows take seconds); this module picks the groups and shapes the
rows. Each function takes a :class:`~roofline.render.report.Report`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.groups import distinct, lost_by_reason as lost_time, one_group, summarize
from ..core.aggregate import factorize, group_keys
from ..core.families import TABLE
from ..core.placement import BANDWIDTH, COMPUTE, OVERHEAD, UNKNOWN
from .cells import _bound_text
from .style import CLASS_STYLE, LEVEL_COLOR

CLASS_LABEL = {COMPUTE: "compute", BANDWIDTH: "bandwidth", OVERHEAD: "overhead", UNKNOWN: "unknown"}
CLASS_COLOR = {c: CLASS_STYLE[c][0] for c in (COMPUTE, OVERHEAD, UNKNOWN)}


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


# The kinds of work the seeds' BERT lecture splits time into (each family's
# is its ``split`` in roofline.core.families.TABLE).
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


@dataclass(frozen=True)
class LostRow:
    """Time lost against the roofs (time - roofline time) for one reason."""

    reason: str
    lost_s: float
    share: float        # of all kernel time
    rows: int
    fix: str = ""       # what to do about it, where the reason names a cause (reasons.REASON_FIXES)


def lost_by_reason(r) -> list[LostRow]:
    """Time lost against the roofs by reason, most first: what to fix first.
    Rows near their roof (no reason) are summed as "near the roof"; rows
    without a roof (unknown) lose nothing that can be counted."""
    from ..core.reasons import REASON_FIXES, REASONS
    p = r.placements
    total = np.nan_to_num(p.kernels.time_s).sum()
    t, n = lost_time(p)
    out = [LostRow(REASONS[c] or "near the roof", float(t[c]), float(t[c] / total) if total else 0.0, int(n[c]),
                   REASON_FIXES.get(REASONS[c], ""))
           for c in range(len(REASONS)) if t[c] > 0]
    return sorted(out, key=lambda row: -row.lost_s)


def bound_shares(r) -> list[BoundShare]:
    """Kernel time by bound label over every row (bandwidth split by
    level): :func:`roofline.analysis.groups.one_group`."""
    p = r.placements
    s = one_group(p)
    color = dict(CLASS_COLOR, **{f"{BANDWIDTH} ({lv})": LEVEL_COLOR.get(lv, "#0072B2") for lv in p.limiter_names})
    out = [BoundShare(label, color.get(label, "#0072B2"), float(s.label_time_s[0, j]),
                      float(s.label_time_s[0, j] / s.time_s[0]) if s.time_s[0] else 0.0, int(s.label_rows[0, j]))
           for j, label in enumerate(s.labels) if s.label_rows[0, j]]
    return sorted(out, key=lambda b: -b.time_s)


def family_rows(r) -> list[FamilyRow]:
    """Per family (its own, or :func:`roofline.core.families.family_of` the
    name), from every row: time, calls, names, FLOP/s, % of roof, and
    the bound class with the most time."""
    ks = r.placements.kernels
    g = r.grouped.kernels
    row_group = r.row_group if r.row_group is not None else group_keys(ks, "variant")[0]
    group_fam, fams = factorize(g.families)  # families of the groups, then of the rows
    fam_codes = group_fam[row_group]
    nf = len(fams)
    n_names = distinct(group_fam, factorize(g.names)[0], nf)
    st = summarize(r.placements, fam_codes, nf)
    rows = [FamilyRow(family=str(fams[f]), names=int(n_names[f]), calls=int(st.calls[f]),
                      time_s=float(st.time_s[f]), share=float(st.share[f]), flop_s=_known(st.flop_s[f]),
                      efficiency=_known(st.efficiency[f]), bound=str(st.bound[f]),
                      bound_share=float(st.bound_share[f])) for f in range(nf)]
    return sorted(rows, key=lambda r: -r.time_s)


def operator_rows(r) -> list[OperatorRow]:
    """Per framework operator (rows whose trace named one), by time."""
    p = r.placements
    ks = p.kernels
    has = ks.operators != ""
    if not has.any():
        return []
    idx = np.flatnonzero(has)
    codes, ops = factorize(ks.operators[idx])
    st = summarize(p, codes, len(ops), rows=idx, grand=float(np.nansum(ks.time_s)))
    # the modelled rows as groups of their own: their time is what the models explain
    modelled = summarize(p, codes[ks.modelled[idx]], len(ops), rows=idx[ks.modelled[idx]])
    out = [OperatorRow(operator=str(ops[o]), rows=int(st.rows[o]), calls=int(st.calls[o]),
                       time_s=float(st.time_s[o]), share=float(st.share[o]), flop_s=_known(st.flop_s[o]),
                       efficiency=_known(st.efficiency[o]), bound=str(st.bound[o]),
                       modelled=float(modelled.time_s[o] / st.time_s[o]) if st.time_s[o] > 0 else 0.0)
           for o in range(len(ops))]
    return sorted(out, key=lambda r: -r.time_s)


def work_split(r) -> list[SplitRow]:
    """Time by kind of work (GEMM, convolution, attention,
    normalisation, element-wise, other), from the kernels' families."""
    ks = r.placements.kernels
    cats = np.array([TABLE[f].split if f in TABLE else "other" for f in ks.families.tolist()], dtype=object)
    codes = np.array([SPLIT_ORDER.index(c) for c in cats], dtype=np.int64)
    st = summarize(r.placements, codes, len(SPLIT_ORDER))
    return [SplitRow(category=c, rows=int(st.rows[i]), calls=int(st.calls[i]), time_s=float(st.time_s[i]),
                     share=float(st.share[i])) for i, c in enumerate(SPLIT_ORDER) if st.rows[i]]


def variant_rows(r) -> list[list[VariantRow]]:
    """Before/after tables: one list per kernel with two or more variants."""
    g = r.grouped
    rec = g.records()
    out = []
    for chain in r.chains():
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


def _known(x) -> float | None:
    """A rate or ratio of the summary, None where it is NaN (no member had one)."""
    return None if np.isnan(x) else float(x)
