"""One summary of placed kernels per group (a family, an operator, a kernel
name, a (family, rank) cell, a phase of the step), as columns: what the
report's tables, ``roofline diff``, the rank table and the step split all
show of a group, computed in one place so that they agree.

Per group: rows, calls, time (measured, NaN counts as none), share of all
time, achieved FLOP/s and bytes/s (over the members that have work or
bytes and a time), % of roof (sum t_roof / sum t over the members with a
roof and a time), time per bound class, and the group's **bound**: the
label with the most time. The labels are those of the report's "time by
bound class" table: ``compute``, ``bandwidth (LEVEL)`` for each level (in
the device's order, nearest the cores first), ``overhead``, ``unknown``.
Ties go to the first label in that order; a group with no measured time
(nothing to weigh the classes by) is ``unknown``, as its rows are
(docs/concepts.md, "A group's bound").
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.placement import BANDWIDTH, CLASSES, UNKNOWN, Placements
from ..core.units import whole_counts


@dataclass(frozen=True)
class GroupSummary:
    """Columns, one entry per group code (0 .. n - 1); a group with no rows
    has zeros, NaN rates and the bound ``unknown``."""

    rows: np.ndarray            # int64: placement rows in the group
    calls: np.ndarray           # summed launch counts: int64, Python ints past 2**63 (core.units.whole_counts)
    time_s: np.ndarray          # summed measured time (rows without one add 0)
    timed: np.ndarray           # bool: some row has a measured time
    share: np.ndarray           # time / the grand total given (0 when that is 0)
    flop_s: np.ndarray          # FLOP / time over rows with work and time; NaN: none
    bytes_s: dict               # level -> bytes / time over rows with bytes there and time; NaN: none
    roofline_time_s: np.ndarray  # summed t_roof over rows with a roof and a time
    efficiency: np.ndarray      # roofline_time_s / those rows' time; NaN: none
    class_time_s: np.ndarray    # (n, len(CLASSES)): time per coarse class
    class_rows: np.ndarray      # (n, len(CLASSES)): rows per coarse class
    labels: tuple               # bound labels, in tie-break order
    label_time_s: np.ndarray    # (n, len(labels)): time per label
    label_rows: np.ndarray      # (n, len(labels)): rows per label
    bound: np.ndarray           # object: the label with the most time
    bound_share: np.ndarray     # its share of the group's time (0 with no time)

    def __len__(self) -> int:
        return len(self.time_s)


def bound_labels(p: Placements) -> tuple[np.ndarray, tuple[str, ...]]:
    """Each row's bound label as a code into the labels (``compute``,
    ``bandwidth``, ``bandwidth (LEVEL)`` ..., ``overhead``, ``unknown``):
    the coarse class, with the level a bandwidth-bound row is bound at."""
    # limiter 0 is the compute roof, 1.. the levels: a bandwidth row at
    # limiter k (k >= 1) takes the k-th slot after the bare "bandwidth"
    levels = p.limiter_names[1:]
    starts, labels = [], []
    for cls in CLASSES:
        starts.append(len(labels))
        labels += [cls] + ([f"{cls} ({lv})" for lv in levels] if cls == BANDWIDTH else [])
    bw = p.code == CLASSES.index(BANDWIDTH)
    codes = np.asarray(starts, dtype=np.int64)[p.code.astype(np.int64)]
    codes = codes + np.where(bw, np.maximum(p.limiter_index.astype(np.int64), 0), 0)
    return codes, tuple(labels)


def summarize(p: Placements, codes: np.ndarray, n: int, rows=None, grand: float | None = None,
              time_s: np.ndarray | None = None) -> GroupSummary:
    """The summary of ``n`` groups: ``codes`` gives the group of each row
    at ``rows`` (every row by default; an index array may repeat a row).
    ``time_s``: the time each of those rows counts with, when it is not the
    kernel's own (a phase's share of it); ``grand``: the total shares are
    of (by default these rows' time)."""
    codes = np.asarray(codes, dtype=np.int64)
    sel = slice(None) if rows is None else np.asarray(rows, dtype=np.int64)
    ks = p.kernels
    time = ks.time_s[sel] if time_s is None else np.asarray(time_s, dtype=float)
    timed = np.isfinite(time)
    t = np.where(timed, time, 0.0)
    total = _sum(codes, t, n)
    roof_all = p.roofline_time_s[sel]
    roofed = timed & np.isfinite(roof_all)
    roof = _sum(codes, np.where(roofed, roof_all, 0.0), n)
    roof_t = _sum(codes, np.where(roofed, t, 0.0), n)
    lab_codes, labels = bound_labels(p)
    by_label = _per(codes, lab_codes[sel], len(labels), n, t)
    by_class = _per(codes, p.code[sel].astype(np.int64), len(CLASSES), n, t)
    best = np.argmax(by_label[0], axis=1) if n else np.zeros(0, dtype=np.int64)
    best_t = by_label[0][np.arange(n), best] if n else np.zeros(0)
    has_time = total > 0
    grand = float(t.sum()) if grand is None else float(grand)
    return GroupSummary(
        rows=np.bincount(codes, minlength=n).astype(np.int64),
        calls=whole_counts(_sum(codes, ks.count[sel].astype(float), n)),
        time_s=total, timed=_sum(codes, timed.astype(float), n) > 0,
        share=total / grand if grand else np.zeros(n),
        flop_s=_rate(codes, p.work[sel], t, timed, n),
        bytes_s={lv: _rate(codes, q[sel], t, timed, n) for lv, q in ks.bytes.items()},
        roofline_time_s=roof, efficiency=_ratio(roof, roof_t),
        class_time_s=by_class[0], class_rows=by_class[1],
        labels=labels, label_time_s=by_label[0], label_rows=by_label[1],
        bound=np.where(has_time, np.array(labels, dtype=object)[best] if n else best, UNKNOWN).astype(object),
        bound_share=np.where(has_time, best_t / np.where(has_time, total, 1.0), 0.0))


def one_group(p: Placements) -> GroupSummary:
    """Every row as one group: the time by bound label of the whole profile."""
    return summarize(p, np.zeros(len(p), dtype=np.int64), 1)


def distinct(codes: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """How many distinct ``values`` (int codes) each of ``n`` groups holds."""
    codes, values = np.asarray(codes, dtype=np.int64), np.asarray(values, dtype=np.int64)
    width = int(values.max()) + 1 if len(values) else 1
    pairs = np.unique(codes * width + values)
    return np.bincount(pairs // width, minlength=n).astype(np.int64)


def lost_by_reason(p: Placements) -> tuple[np.ndarray, np.ndarray]:
    """(time lost against the roof, rows that lose any) per reason code
    (roofline.core.reasons.REASONS): t - t_roof where both are known and
    positive; a row without a roof loses nothing that can be counted."""
    from ..core.reasons import REASONS
    lost = np.where(np.isfinite(p.lost_s), np.maximum(p.lost_s, 0.0), 0.0)
    codes = p.reason_code.astype(np.int64)
    return (_sum(codes, lost, len(REASONS)),
            np.bincount(codes, weights=(lost > 0).astype(float), minlength=len(REASONS)).astype(np.int64))


def _sum(codes: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(codes, weights=weights, minlength=n).astype(float)


def _per(codes, sub, width: int, n: int, t) -> tuple[np.ndarray, np.ndarray]:
    """(time, rows) per group and sub-code, as (n, width) arrays."""
    cell = codes * width + sub
    size = n * width
    return (np.bincount(cell, weights=t, minlength=size).reshape(n, width),
            np.bincount(cell, minlength=size).reshape(n, width).astype(np.int64))


def _rate(codes, amount, t, timed, n) -> np.ndarray:
    """Sum of ``amount`` / sum of time over rows with both (NaN: none)."""
    has = timed & np.isfinite(amount) & (amount > 0)
    return _ratio(_sum(codes, np.where(has, amount, 0.0), n), _sum(codes, np.where(has, t, 0.0), n))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(len(num), math.nan)
    pos = den > 0
    with np.errstate(over="ignore"):     # work over 1e-300 s is inf, not a warning (tests/test_near_zero.py)
        out[pos] = num[pos] / den[pos]
    return out
