"""Kernel rows summed into groups, as columns: by name, by name and
variant, or by family. Reports and rank summaries use it, and so do charts
of huge traces, which aggregate before plotting.

A BERT training trace has about a million kernel rows but a few hundred
distinct names. Drawn one marker per row they are an unreadable smear that
takes minutes to render. So, above ``MAX_POINTS`` rows:

1. :func:`aggregate_set` sums rows by name (and variant): time, calls, FLOP
   per precision, bytes per level, instructions and transactions, with the
   rule of :func:`roofline.core.families.aggregate` (a group has a value when
   some member has one). The aggregate's intensity is total FLOP / total
   bytes and its performance total FLOP / total time: the time-weighted
   mean of its members.
2. :func:`condense` keeps the ``MAX_MARKERS`` names with the most time and
   folds the rest into one row per family (``other gemm kernels (312
   names)``), so every second of the trace is still drawn somewhere.
3. the chart draws every row underneath, as a density
   (:func:`roofline.render.density.draw_density`).

Everything is vectorised over :class:`~roofline.core.model.KernelSet` columns;
only the distinct names go through Python.
"""
from __future__ import annotations

import math

import numpy as np

from .model import KernelSet

MAX_POINTS = 2000     # more rows than this: aggregate and draw a density (build_report's default)
MAX_MARKERS = 400     # then at most this many names as markers, the rest per family


def factorize(values) -> tuple[np.ndarray, list]:
    """Codes (int64) and the distinct values in order of first appearance."""
    index: dict = {}
    arr = np.asarray(values, dtype=object)
    codes = np.fromiter((index.setdefault(v, len(index)) for v in arr), dtype=np.int64, count=len(arr))
    return codes, list(index)


def group_keys(ks: KernelSet, by: str = "name") -> tuple[np.ndarray, int]:
    """Group codes in order of first appearance, by ``name``, ``variant``
    (name and variant: the variants of one kernel stay apart) or ``family``."""
    if by == "family":
        codes, keys = factorize(ks.families)
        return codes, len(keys)
    if by not in ("name", "variant"):
        raise ValueError(f"group by 'name', 'variant' or 'family', not {by!r}")
    name_codes, names = factorize(ks.names)
    if by == "name" or not np.any(ks.variants != ""):
        return name_codes, len(names)
    var_codes, variants = factorize(ks.variants)
    combined = name_codes * len(variants) + var_codes
    _, first, inverse = np.unique(combined, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")          # groups in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[inverse.ravel()], len(order)


def _sum(codes, n, values) -> np.ndarray:
    nan = np.isnan(values)
    total = np.bincount(codes, weights=np.where(nan, 0.0, values), minlength=n)
    seen = np.bincount(codes, weights=(~nan).astype(float), minlength=n)
    return np.where(seen > 0, total, math.nan)


def _common(codes, n, values) -> np.ndarray:
    """Per group, the value all members share (NaN when they differ or none has one)."""
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    finite = np.isfinite(values)
    np.minimum.at(lo, codes[finite], values[finite])
    np.maximum.at(hi, codes[finite], values[finite])
    known = np.bincount(codes, weights=finite.astype(float), minlength=n) == np.bincount(codes, minlength=n)
    return np.where(known & (lo == hi), lo, math.nan)


def _largest(codes, n, values) -> np.ndarray:
    """Per group, the largest known value (NaN when no member has one)."""
    out = np.full(n, -np.inf)
    finite = np.isfinite(values)
    np.maximum.at(out, codes[finite], values[finite])
    return np.where(np.isfinite(out), out, math.nan)


def _shared_label(codes, n, first, labels) -> np.ndarray:
    """Per group: its first member's label when every member has it, else ""."""
    out = labels[first].copy()
    if len(labels):
        label_codes, _ = factorize(labels)
        mixed = np.bincount(codes, weights=(label_codes != label_codes[first][codes]).astype(float), minlength=n) > 0
        out[mixed] = ""
    return out


def _time_weighted(codes, n, values, time_s) -> np.ndarray:
    """Per group: the time-weighted mean of ``values`` over its members that
    have one and a time (NaN where none has)."""
    known = np.isfinite(values) & np.isfinite(time_s)
    weight = np.where(known, time_s, 0.0)
    total = np.bincount(codes, weights=weight, minlength=n)
    share = np.bincount(codes, weights=np.where(known, values, 0.0) * weight, minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, share / total, math.nan)


def aggregate_set(ks: KernelSet, by: str = "variant", groups=None) -> KernelSet:
    """One row per group (see :func:`group_keys`), columns summed.

    Names are the kernel name (``by="name"``/``"variant"``) or the family;
    a group keeps a variant only when all its members share it, and its
    family is its first member's.
    ``groups``: the ``(codes, n)`` of :func:`group_keys`, when known.
    """
    codes, n = groups if groups is not None else group_keys(ks, by)
    first = np.full(n, len(ks), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(ks)))
    fams = ks.families
    variants = ks.variants[first].copy() if by == "variant" else _shared_label(codes, n, first, ks.variants)
    names = fams[first] if by == "family" else ks.names[first]
    # A group is modelled when all its members are; it names an operator
    # only when all its members came from the same one.
    modelled = np.bincount(codes, weights=ks.modelled.astype(float), minlength=n) == np.bincount(codes, minlength=n)
    operators = _shared_label(codes, n, first, ks.operators)
    return KernelSet(
        names=names, time_s=_sum(codes, n, ks.time_s),
        count=np.bincount(codes, weights=ks.count, minlength=n),
        flops={p: _sum(codes, n, v) for p, v in ks.flops.items()},
        bytes={lv: _sum(codes, n, v) for lv, v in ks.bytes.items()},
        families=fams[first], variants=variants,
        instructions=None if ks.instructions is None else _sum(codes, n, ks.instructions),
        transactions={lv: _sum(codes, n, v) for lv, v in ks.transactions.items()},
        modelled=modelled, operators=operators, threads=_common(codes, n, ks.threads),
        blocks=_largest(codes, n, ks.blocks), unaligned=_time_weighted(codes, n, ks.unaligned, ks.time_s),
        devices=_shared_label(codes, n, first, ks.devices))


def condense(ks: KernelSet, max_points: int = MAX_MARKERS, grouped: KernelSet | None = None) -> KernelSet:
    """At most ``max_points`` rows by name (and variant), plus one row per
    family for the names with less time ("other <family> kernels (N names)").
    ``grouped``: ``aggregate_set(ks, "variant")`` when already computed."""
    grouped = aggregate_set(ks, "variant") if grouped is None else grouped
    if len(grouped) <= max_points:
        return grouped
    order = np.argsort(-np.nan_to_num(grouped.time_s), kind="stable")
    keep, rest = np.sort(order[:max_points]), order[max_points:]
    tail = _take(grouped, rest)
    folded = aggregate_set(tail, "family")
    fam_codes, fams = factorize(tail.families)
    counts = np.bincount(fam_codes, minlength=len(fams))
    folded.names = np.array([f"other {f} kernels ({c:,} names)" for f, c in zip(folded.names, counts)],
                            dtype=object)
    return concat([_take(grouped, keep), folded])


def _take(ks: KernelSet, idx) -> KernelSet:
    return KernelSet(
        names=ks.names[idx], time_s=ks.time_s[idx], count=ks.count[idx],
        flops={p: v[idx] for p, v in ks.flops.items()}, bytes={lv: v[idx] for lv, v in ks.bytes.items()},
        families=ks.families[idx], variants=ks.variants[idx],
        instructions=None if ks.instructions is None else ks.instructions[idx],
        transactions={lv: v[idx] for lv, v in ks.transactions.items()},
        modelled=ks.modelled[idx], operators=ks.operators[idx], threads=ks.threads[idx],
        sources=ks.sources[idx], blocks=ks.blocks[idx], unaligned=ks.unaligned[idx], devices=ks.devices[idx],
        collectives=ks.collectives[idx], whys=ks.whys[idx], dtypes=ks.dtypes[idx], assumed=ks.assumed[idx],
        launches=ks.launches[idx])


def concat(sets) -> KernelSet:
    """Rows of several KernelSets (every column: a label dropped here would be
    lost from a report of several files), counters a set lacks filled with NaN."""
    sets = list(sets)
    n = [len(s) for s in sets]

    def col(get, keys):
        return {k: np.concatenate([get(s).get(k, np.full(m, math.nan)) for s, m in zip(sets, n)]) for k in keys}

    precisions = list(dict.fromkeys(p for s in sets for p in s.flops))
    levels = list(dict.fromkeys(lv for s in sets for lv in s.bytes))
    tx = list(dict.fromkeys(lv for s in sets for lv in s.transactions))
    has_inst = any(s.instructions is not None for s in sets)
    return KernelSet(
        names=np.concatenate([s.names for s in sets]), time_s=np.concatenate([s.time_s for s in sets]),
        count=np.concatenate([s.count for s in sets]),
        flops=col(lambda s: s.flops, precisions), bytes=col(lambda s: s.bytes, levels),
        families=np.concatenate([s.families for s in sets]), variants=np.concatenate([s.variants for s in sets]),
        instructions=np.concatenate([s.instructions if s.instructions is not None else np.full(m, math.nan)
                                     for s, m in zip(sets, n)]) if has_inst else None,
        transactions=col(lambda s: s.transactions, tx),
        modelled=np.concatenate([s.modelled for s in sets]),
        operators=np.concatenate([s.operators for s in sets]),
        threads=np.concatenate([s.threads for s in sets]),
        sources=np.concatenate([s.sources for s in sets]),
        blocks=np.concatenate([s.blocks for s in sets]),
        unaligned=np.concatenate([s.unaligned for s in sets]),
        devices=np.concatenate([s.devices for s in sets]),
        collectives=np.concatenate([s.collectives for s in sets]), whys=np.concatenate([s.whys for s in sets]),
        dtypes=np.concatenate([s.dtypes for s in sets]), assumed=np.concatenate([s.assumed for s in sets]),
        launches=np.concatenate([s.launches for s in sets]))
