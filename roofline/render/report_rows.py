"""The tables of a report, computed from its placements over every kernel
row, vectorised (a million rows take seconds): time by bound class, per
kernel family, per framework operator, by kind of work, and before/after
rows of a kernel's variants. Each function takes a
:class:`~roofline.render.report.Report` and returns small frozen rows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.aggregate import factorize, group_keys
from ..core.families import TABLE
from ..core.placement import BANDWIDTH, CLASSES, COMPUTE, OVERHEAD, UNKNOWN, Placements
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
    time = np.nan_to_num(p.kernels.time_s)
    total = time.sum()
    lost = np.where(np.isfinite(p.lost_s), np.maximum(p.lost_s, 0.0), 0.0)
    codes = p.reason_code.astype(np.int64)
    t = np.bincount(codes, weights=lost, minlength=len(REASONS))
    n = np.bincount(codes, weights=(lost > 0).astype(float), minlength=len(REASONS))
    out = [LostRow(REASONS[c] or "near the roof", float(t[c]), float(t[c] / total) if total else 0.0, int(n[c]),
                   REASON_FIXES.get(REASONS[c], ""))
           for c in range(len(REASONS)) if t[c] > 0]
    return sorted(out, key=lambda row: -row.lost_s)


def bound_shares(r) -> list[BoundShare]:
    """Kernel time by class over every row, bandwidth split by level."""
    p = r.placements
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
    name_codes, names = factorize(g.names)
    pairs = np.unique(group_fam * max(len(names), 1) + name_codes)
    n_names = np.bincount(pairs // max(len(names), 1), minlength=nf)
    st = _group_stats(r.placements, fam_codes, nf)
    rows = [FamilyRow(family=str(fams[f]), names=int(n_names[f]), calls=st.calls[f], time_s=st.time_s[f],
                      share=st.share[f], flop_s=st.flop_s[f], efficiency=st.efficiency[f],
                      bound=st.bound[f], bound_share=st.bound_share[f]) for f in range(nf)]
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
    st = _group_stats(p, codes, len(ops), rows=idx, grand=float(np.nansum(ks.time_s)))
    t = np.nan_to_num(ks.time_s[idx])
    modelled_t = np.bincount(codes, weights=np.where(ks.modelled[idx], t, 0.0), minlength=len(ops))
    n_rows = np.bincount(codes, minlength=len(ops))
    out = [OperatorRow(operator=str(ops[o]), rows=int(n_rows[o]), calls=st.calls[o], time_s=st.time_s[o],
                       share=st.share[o], flop_s=st.flop_s[o], efficiency=st.efficiency[o], bound=st.bound[o],
                       modelled=float(modelled_t[o] / st.time_s[o]) if st.time_s[o] > 0 else 0.0)
           for o in range(len(ops))]
    return sorted(out, key=lambda r: -r.time_s)


def work_split(r) -> list[SplitRow]:
    """Time by kind of work (GEMM, convolution, attention,
    normalisation, element-wise, other), from the kernels' families."""
    ks = r.placements.kernels
    cats = np.array([TABLE[f].split if f in TABLE else "other" for f in ks.families.tolist()], dtype=object)
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
