"""Kernels summed by name, as importers need it: the columnar sum of
:func:`roofline.core.aggregate.aggregate_set`, with a counter's total kept
only where every launch of the name has the counter.

A report may sum what some launches measured (a group has a value when
some member has one). An importer may not: a total over the launches that
happened to be measured is not the name's total, and merging it with
another file (:func:`roofline.importers.results.merge_results`) or calling
it the bytes a copy kind moved (``nsys stats`` GPU traces, where some
copies have no size) would understate it. So here a time, FLOP, byte,
transaction or instruction total is NaN (unknown) unless every launch of
the name has it. A row keeps the variant and source of its first launch,
and the time source of its launches when they all share one.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.aggregate import aggregate_set, factorize
from ..core.model import KernelSet


def sum_by_name(ks: KernelSet) -> KernelSet:
    """One row per kernel name, in order of first appearance: calls summed,
    and each total where every launch of the name has it (else NaN)."""
    codes, names = factorize(ks.names)
    n = len(names)
    first = np.full(n, len(ks), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(ks)))
    out = aggregate_set(ks, by="name", groups=(codes, n))

    def every(values, summed):
        gaps = np.bincount(codes, weights=np.isnan(values).astype(float), minlength=n) > 0
        return np.where(gaps, math.nan, summed)

    return out.with_columns(
        time_s=every(ks.time_s, out.time_s),
        flops={p: every(ks.flops[p], v) for p, v in out.flops.items()},
        bytes={lv: every(ks.bytes[lv], v) for lv, v in out.bytes.items()},
        transactions={lv: every(ks.transactions[lv], v) for lv, v in out.transactions.items()},
        instructions=None if ks.instructions is None else every(ks.instructions, out.instructions),
        variants=ks.variants[first], sources=ks.sources[first],
        launches=_time_sources(ks.launches, codes, n))


def _time_sources(launches, codes, n: int) -> list[dict]:
    """Per name: ``{"time_source": s}`` when all its launches name the same
    one, else ``{}``."""
    shared: list = [None] * n
    for g, launch in zip(codes.tolist(), launches.tolist()):
        source = launch.get("time_source", "")
        shared[g] = source if shared[g] in (None, source) else ""
    return [{"time_source": s} if s else {} for s in shared]
