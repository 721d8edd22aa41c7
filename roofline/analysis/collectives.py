"""Collectives on their link roofs, exposed communication, and the waiting
in a collective across ranks.

* **Collective roofline** (:func:`collective_points`, :func:`roof_curves`):
  x = message bytes per rank (``S``, as nccl-tests counts it), y = bus
  bandwidth; the roof of a link is ``busbw(S) = F S / (alpha + F S / B)``
  (``F`` the collective's bus factor, ``B`` the link's bus-bandwidth roof,
  ``alpha`` the latency floor of NCCL's model): flat at ``B`` for large
  messages, bending down where the latency dominates. A collective is
  bandwidth-bound when ``F S / B`` is at least ``alpha``, else
  latency-bound; its % of roof is measured busbw over the roof at its size
  (= roofline time / time).
* **Exposed communication** (:func:`exposed_rows`): per rank, the time of
  communication kernels no compute kernel overlaps (the importer measures it
  per launch, :mod:`roofline.importers.kineto.overlap`).
* **Transfer and waiting** (:func:`rank_waits`): a collective ends together
  on every rank, so its fastest rank's duration is the transfer itself and
  each rank's excess is time spent waiting for the others (a straggler
  arrives last and waits least). The same collective is matched across
  ranks by its process group, collective and size and its order among
  those.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.comm import CALLS


@dataclass(frozen=True)
class CollectivePoint:
    """One kernel row of collectives on its link roof (values per call)."""

    row: int
    kernel: str
    collective: str
    dtype: str
    group_size: int | None
    link: str
    calls: int
    time_s: float
    message_bytes: float       # S per call
    algbw_bytes_s: float
    busbw_bytes_s: float
    roof_bytes_s: float        # the roof's busbw at this size (latency included)
    link_bytes_s: float        # the link's bus-bandwidth roof B (large messages)
    latency_s: float           # the latency floor alpha per call
    factor: float              # bus bytes / S

    @property
    def fraction_of_roof(self) -> float:
        return self.busbw_bytes_s / self.roof_bytes_s if self.roof_bytes_s > 0 else math.nan

    @property
    def bound(self) -> str:
        bw_time = self.factor * self.message_bytes / self.link_bytes_s if self.link_bytes_s > 0 else math.inf
        return "latency" if self.latency_s >= bw_time else "bandwidth"


def collective_points(placements) -> list[CollectivePoint]:
    """The rows of ``placements`` placed on a link roof."""
    link = placements.link
    if link is None:
        return []
    ks = placements.kernels
    out = []
    for i in np.flatnonzero(link.level != "").tolist():
        calls = float(ks.bytes[CALLS][i]) if CALLS in ks.bytes and math.isfinite(ks.bytes[CALLS][i]) else 0.0
        t = float(ks.time_s[i])
        if calls <= 0 or not t > 0:
            continue
        s = float(link.message[i]) / calls
        bus = float(link.bus[i]) / calls
        roof_t = float(link.time_s[i]) / calls
        alpha = float(link.latency_s[i]) / calls
        c = ks.collectives[i]
        out.append(CollectivePoint(
            row=i, kernel=str(ks.names[i]), collective=c.name if c is not None else "",
            dtype=c.dtype if c is not None else "", group_size=c.group_size if c is not None else None,
            link=str(link.level[i]), calls=int(calls), time_s=t, message_bytes=s,
            algbw_bytes_s=float(link.message[i]) / t, busbw_bytes_s=float(link.bus[i]) / t,
            roof_bytes_s=bus / roof_t if roof_t > 0 else math.nan,
            link_bytes_s=bus / (roof_t - alpha) if roof_t > alpha else math.inf,
            latency_s=alpha, factor=bus / s if s > 0 else math.nan))
    return out


@dataclass(frozen=True)
class RoofCurve:
    """``busbw(S) = factor S / (latency + factor S / link)`` on one link."""

    link: str
    link_bytes_s: float
    latency_s: float
    factor: float
    collective: str

    def busbw(self, s: np.ndarray) -> np.ndarray:
        s = np.asarray(s, dtype=float)
        return self.factor * s / (self.latency_s + self.factor * s / self.link_bytes_s)


def roof_curves(points: list[CollectivePoint], most: int = 6) -> list[RoofCurve]:
    """The distinct roofs the points sit under (the ones with most time first)."""
    time: dict[tuple, float] = {}
    for p in points:
        if not (math.isfinite(p.link_bytes_s) and p.factor > 0):
            continue
        key = (p.link, round(p.link_bytes_s, -6), round(p.latency_s, 9), round(p.factor, 4), p.collective)
        time[key] = time.get(key, 0.0) + p.time_s
    keys = sorted(time, key=lambda k: -time[k])[:most]
    return [RoofCurve(k[0], k[1], k[2], k[3], k[4]) for k in keys]


@dataclass(frozen=True)
class ExposedRow:
    """One rank's communication: its time, the part no compute overlaps."""

    rank: int
    comm_s: float
    exposed_s: float
    launches: int

    @property
    def overlapped_s(self) -> float:
        return self.comm_s - self.exposed_s

    @property
    def exposed_share(self) -> float:
        return self.exposed_s / self.comm_s if self.comm_s > 0 else math.nan


def exposed_rows(launches: dict) -> list[ExposedRow]:
    """Per rank (``{rank: CommLaunches}``), in rank order."""
    return [ExposedRow(int(r), c.total_s, c.exposed_total_s, len(c)) for r, c in sorted(launches.items())
            if c is not None and len(c)]


@dataclass(frozen=True)
class CollectiveWait:
    """One collective (group, kind, size) across ranks: matched calls, the
    transfer time (fastest rank's duration, summed) and each rank's wait."""

    group: str
    collective: str
    message_bytes: float
    calls: int
    transfer_s: float
    wait_s: dict            # rank -> seconds

    @property
    def most_waiting(self) -> int:
        return max(self.wait_s, key=self.wait_s.get)

    @property
    def least_waiting(self) -> int:
        """The straggler: it arrives last, so it waits least."""
        return min(self.wait_s, key=self.wait_s.get)


def rank_waits(launches: dict) -> list[CollectiveWait]:
    """Transfer and waiting per collective across ranks (``{rank:
    CommLaunches}``); collectives found on one rank only are left out.
    Most waiting first."""
    keyed: dict[tuple, dict[int, list[float]]] = {}
    for rank, c in launches.items():
        if c is None:
            continue
        seen: dict[tuple, int] = {}
        for k, coll, group, size, dur in zip(c.kernel, c.collective, c.group, c.bytes.tolist(), c.time_s.tolist()):
            base = (group, coll or k, size if math.isfinite(size) else -1.0)
            n = seen.get(base, 0)
            seen[base] = n + 1
            keyed.setdefault(base + (n,), {})[int(rank)] = dur
    totals: dict[tuple, list] = {}
    for key, per in keyed.items():
        if len(per) < 2:
            continue
        transfer = min(per.values())
        t = totals.setdefault(key[:3], [0, 0.0, {}])
        t[0] += 1
        t[1] += transfer
        for r, d in per.items():
            t[2][r] = t[2].get(r, 0.0) + d - transfer
    out = [CollectiveWait(g, c, s, n, tr, dict(sorted(w.items()))) for (g, c, s), (n, tr, w) in totals.items()]
    return sorted(out, key=lambda w: -sum(w.wait_s.values()))


def wait_by_rank(waits: list[CollectiveWait]) -> dict[int, float]:
    """Each rank's waiting, summed over collectives."""
    out: dict[int, float] = {}
    for w in waits:
        for r, s in w.wait_s.items():
            out[r] = out.get(r, 0.0) + s
    return dict(sorted(out.items()))
