"""Many ranks of one job: per-rank summaries, their placement, and the
spread across ranks (stragglers).

A rank's profile is reduced to one row per kernel name (times, calls,
FLOPs and bytes summed) where it is read, so only these small summaries
travel between processes. Placed on one device, they give per kernel
family and per rank the time, the share of it the roofline explains
(% of roof: roofline time / time) and the bound that takes most of the
family's time (:mod:`.groups`, as in the report and ``diff``); per rank
the total kernel time, from which the slowest rank and the spread across
ranks follow. Collective and point-to-point kernels
(family ``communication``: NCCL, RCCL) are their own class of time.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.model import KernelSet
from ..core.placement import Placements
from ..core.aggregate import concat, factorize
from .groups import summarize

COLLECTIVES = "communication"


@dataclass(frozen=True)
class RankSet:
    """Summaries of several ranks as one KernelSet, with each row's rank."""

    kernels: KernelSet
    rank: np.ndarray        # int per row

    @classmethod
    def of(cls, summaries: list[tuple[int, KernelSet]]) -> "RankSet":
        summaries = sorted(summaries, key=lambda rs: rs[0])
        ks = concat([s for _, s in summaries])
        rank = np.concatenate([np.full(len(s), r, dtype=np.int64) for r, s in summaries])
        return cls(ks, rank)

    @property
    def ranks(self) -> np.ndarray:
        return np.unique(self.rank)


@dataclass(frozen=True)
class FamilyRank:
    """One (family, rank) cell of the rank table."""

    family: str
    rank: int
    calls: int
    time_s: float
    roofline_time_s: float
    bound: str

    @property
    def fraction_of_roof(self) -> float:
        """Roofline time / time: 1 on the roof, 0.1 at a tenth of it."""
        return self.roofline_time_s / self.time_s if self.time_s > 0 else math.nan


@dataclass(frozen=True)
class RankSpread:
    """Total kernel time per rank and who is slowest."""

    ranks: np.ndarray
    time_s: np.ndarray
    collectives_s: np.ndarray

    @property
    def slowest(self) -> int:
        return int(self.ranks[int(np.argmax(self.time_s))])

    @property
    def median_s(self) -> float:
        return float(np.median(self.time_s))

    @property
    def spread(self) -> float:
        """(slowest - median) / median: how far the straggler lags."""
        m = self.median_s
        return (float(self.time_s.max()) - m) / m if m > 0 else math.nan


def family_rank_table(placements: Placements, rank: np.ndarray) -> list[FamilyRank]:
    """Per kernel family and rank: calls, time, roofline time and the bound
    taking most of the time (rows with no time or no roof count as time only)."""
    ks = placements.kernels
    fam_codes, families = factorize(ks.families)
    rank_codes, ranks = factorize(rank)
    n_ranks = len(ranks)
    cell = fam_codes * n_ranks + rank_codes
    st = summarize(placements, cell, len(families) * n_ranks)
    rows = []
    for c in np.flatnonzero(st.calls > 0):
        f, k = divmod(int(c), n_ranks)
        rows.append(FamilyRank(str(families[f]), int(ranks[k]), int(st.calls[c]), float(st.time_s[c]),
                               float(st.roofline_time_s[c]), str(st.bound[c])))
    # families by their time over all ranks, summed once (per row it was quadratic: 20 s at 10k ranks)
    totals: dict[str, float] = {}
    for row in rows:
        totals[row.family] = totals.get(row.family, 0.0) + row.time_s
    return sorted(rows, key=lambda row: (-totals[row.family], row.family, row.rank))


def rank_spread(placements: Placements, rank: np.ndarray) -> RankSpread:
    ks = placements.kernels
    rank_codes, ranks = factorize(rank)
    time = np.nan_to_num(ks.time_s)
    total = np.bincount(rank_codes, weights=time, minlength=len(ranks))
    coll = np.bincount(rank_codes, weights=np.where(ks.families == COLLECTIVES, time, 0.0),
                       minlength=len(ranks))
    return RankSpread(np.asarray(ranks, dtype=np.int64), total, coll)
