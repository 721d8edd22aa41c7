"""Ranks: time per rank of a multi-rank job, per family and rank."""
from __future__ import annotations

from ..cells import _pct, _t
from ..document import Heading, Table, bound, count, para, ratio, share, text, time

KEY, TITLE = "ranks", "Ranks"


def build(r, ctx):
    spread = r.rank_spread()
    if spread is None:
        return None
    total = float(spread.time_s.sum())
    coll = float(spread.collectives_s.sum()) / total if total else 0.0
    slow = float(spread.time_s.max()) if len(spread.time_s) else None
    return [para(f"{len(spread.ranks)} ranks. Slowest: rank {spread.slowest} with {_t(slow)} of {ctx.unit} "
                 f"time against a median of {_t(spread.median_s)} (+{_pct(spread.spread)}). Collective and "
                 f"point-to-point kernels (NCCL/RCCL): {_pct(coll)} of {ctx.unit} time."),
            Table(("rank", f"{ctx.unit} time", "vs median", "collectives"),
                  tuple((text(int(k)), time(float(t)), ratio(float(t) / spread.median_s if spread.median_s else None),
                         time(float(c))) for k, t, c in zip(spread.ranks, spread.time_s, spread.collectives_s)),
                  compact=True),
            Heading("Per family and rank"),
            para("% of roof: roofline time over time; bound: the class with the most of the family's time on "
                 "that rank."),
            Table(("family", "rank", "calls", "time", "% of roof", "main bound"),
                  tuple((text(c.family), text(c.rank), count(c.calls), time(c.time_s), share(c.fraction_of_roof, 0),
                         bound(c.bound)) for c in r.rank_rows()))]
