"""Communication: the collective roofline, the collectives on their roofs,
exposed communication per rank, transfer and waiting."""
from __future__ import annotations

from ...analysis.collectives import collective_points, exposed_rows, rank_waits, wait_by_rank
from ...core.units import format_si
from ..cells import _short
from ..collectives import has_communication, rank_launches
from ..document import Cell, Figure, Heading, Table, count, note, para, share, text, time

KEY, TITLE = "communication", "Communication"


def _bytes(v, unit="B") -> Cell:
    return Cell(format_si(v, unit), v, "rate")


def build(r, ctx):
    if not has_communication(r):
        return None
    out = []
    points = collective_points(r.placements)
    links = r.device.links
    if points:
        out.append(Figure("communication", "Collective roofline: bus bandwidth against message bytes per rank; "
                          "lines are the links' roofs with their latency floor, points the collectives (filled: "
                          "bandwidth-bound, hollow: latency-bound)."))
        if links is not None:
            out.append(note(f"Links: {links.up_name} {format_si(links.up_bytes_s, 'B/s')} per GPU each way within "
                            f"a node; {links.net_name} {format_si(links.net_bytes_s, 'B/s')} per GPU across nodes; "
                            "latency floor from NCCL's model. busbw = algbw x 2(n-1)/n (all-reduce), (n-1)/n "
                            "(all-gather, reduce-scatter, all-to-all), 1 (broadcast, reduce, send/recv), as "
                            "nccl-tests. An all-reduce that reduces in the switch (NVLS, multimem) or the network "
                            "(SHARP) can exceed the wire."))
        rows = sorted(points, key=lambda p: -p.time_s)[: 2 * r.top]
        out.append(Table(("collective", "dtype", "ranks", "link", "size per rank", "calls", "time", "algbw",
                          "busbw", "roof", "% of roof", "bound"),
                         tuple((text(p.collective or _short(p.kernel, 40)), text(p.dtype), text(p.group_size or ""),
                                text(p.link), _bytes(p.message_bytes), count(p.calls), time(p.time_s),
                                _bytes(p.algbw_bytes_s, "B/s"), _bytes(p.busbw_bytes_s, "B/s"),
                                _bytes(p.roof_bytes_s, "B/s"), share(p.fraction_of_roof, 0), text(p.bound))
                               for p in rows)))
    launches = rank_launches(r)
    exposed = exposed_rows(launches)
    if exposed:
        out += [Heading("Exposed communication"),
                para("Communication kernel time that no compute kernel (any other kernel, on any stream) "
                     "overlaps: what communication adds to the step."),
                Table(("rank", "collective launches", "communication", "exposed", "exposed share", "overlapped"),
                      tuple((text(x.rank), count(x.launches), time(x.comm_s), time(x.exposed_s),
                             share(x.exposed_share), time(x.overlapped_s)) for x in exposed), compact=True)]
    waits = rank_waits(launches) if len(launches) > 1 else []
    if waits:
        ranks = sorted({k for w in waits for k in w.wait_s})
        by_rank = wait_by_rank(waits)
        out += [Heading("Transfer and waiting per collective"),
                para("The fastest rank's duration is the transfer; each rank's excess is waiting for the others "
                     "(the straggler arrives last and waits least)."),
                Table(("rank", "waiting in collectives"), tuple((text(k), time(by_rank[k])) for k in ranks),
                      compact=True),
                Table(("group", "collective", "size", "calls", "transfer", *(f"wait r{k}" for k in ranks)),
                      tuple((text(w.group), text(w.collective),
                             _bytes(w.message_bytes) if w.message_bytes >= 0 else Cell("?", None, "rate"),
                             count(w.calls), time(w.transfer_s), *(time(w.wait_s.get(k, 0.0)) for k in ranks))
                            for w in waits[: 2 * r.top]))]
    return out or None
