"""The collective roofline drawn (matplotlib, imported when called), and
the communication section of a report (HTML, given the report's table and
escape functions so it looks like the other sections).

The chart: x = message bytes per rank (``S``, nccl-tests' size), y = bus
bandwidth; each link's roof ``busbw(S) = F S / (alpha + F S / B)`` as a
line (flat at the link's bus bandwidth ``B``, bending down where the
latency floor ``alpha`` dominates), each kernel row of collectives a point
sized by its time: filled when bandwidth-bound, hollow when latency-bound.
"""
from __future__ import annotations

import base64
import io
import math

import numpy as np

from ..analysis.collectives import (collective_points, exposed_rows, rank_waits, roof_curves,
                                    wait_by_rank)
from ..core.units import format_si
from .cells import _pct, _short, _t
from .style import plain_text

COLLECTIVE_COLOR = {"all_reduce": "#0072B2", "all_gather": "#009E73", "reduce_scatter": "#D55E00",
                    "all_to_all": "#CC79A7", "broadcast": "#E69F00", "reduce": "#56B4E9",
                    "send_recv": "#000000", "gather": "#7F7F7F", "scatter": "#7F7F7F"}


@plain_text
def collective_figure(points, curves, device_name: str, size=(9, 5.6)):
    """The collective roofline as a matplotlib Figure."""
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=size)
    xs = [p.message_bytes for p in points] or [1.0]
    lo, hi = max(min(xs) / 10, 1.0), max(xs) * 10
    grid = np.logspace(math.log10(lo), math.log10(hi), 200)
    styles = ("-", "--", ":", "-.")
    for i, c in enumerate(curves):
        ax.plot(grid, c.busbw(grid), styles[i % len(styles)], color="#555555", lw=1.4,
                label=f"{c.link} {c.collective.replace('_', '-')}: {format_si(c.link_bytes_s, 'B/s')}, "
                      f"latency {format_si(c.latency_s, 's')}")
    total = sum(p.time_s for p in points) or 1.0
    for coll in dict.fromkeys(p.collective for p in points):
        mine = [p for p in points if p.collective == coll]
        color = COLLECTIVE_COLOR.get(coll, "#999999")
        for bound, face in (("bandwidth", color), ("latency", "none")):
            sel = [p for p in mine if p.bound == bound]
            if not sel:
                continue
            ax.scatter([p.message_bytes for p in sel], [p.busbw_bytes_s for p in sel],
                       s=[30 + 400 * p.time_s / total for p in sel], facecolors=face, edgecolors=color,
                       linewidths=1.3, zorder=3,
                       label=f"{(coll or 'unknown').replace('_', '-')} ({bound}-bound)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("message bytes per rank (nccl-tests' size)")
    ax.set_ylabel("bus bandwidth (bytes/s)")
    ax.set_title(f"Collective roofline on {device_name}")
    ax.grid(True, which="major", alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def _png_uri(fig) -> str:
    import matplotlib.pyplot as plt
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def rank_launches(report) -> dict:
    """``{rank: CommLaunches}`` of the report's inputs that carry them."""
    out = {}
    for i, r in enumerate(report.results):
        c = getattr(r, "communication", None)
        if c is not None:
            out[r.rank if r.rank is not None else i] = c
    return out


def has_communication(report) -> bool:
    return report.placements.link is not None or bool(rank_launches(report))


def communication_html(report, table, e) -> str:
    """The Communication section: the collective roofline, the collectives
    on their roofs, exposed communication per rank, transfer and waiting."""
    out = ['<section id="rr-communication"><h2>Communication</h2>']
    points = collective_points(report.placements)
    links = report.device.links
    if points:
        curves = roof_curves(points)
        fig = collective_figure(points, curves, report.device.name)
        out.append(f'<figure><img alt="collective roofline" src="{_png_uri(fig)}"><figcaption>Collective '
                   "roofline: bus bandwidth against message bytes per rank; lines are the links' roofs with "
                   "their latency floor, points the collectives (filled: bandwidth-bound, hollow: latency-bound)."
                   "</figcaption></figure>")
        if links is not None:
            out.append(f'<p class="note">Links: {e(links.up_name)} {e(format_si(links.up_bytes_s, "B/s"))} '
                       f"per GPU each way within a node; {e(links.net_name)} "
                       f"{e(format_si(links.net_bytes_s, 'B/s'))} per GPU across nodes; latency floor from "
                       "NCCL's model. busbw = algbw x 2(n-1)/n (all-reduce), (n-1)/n (all-gather, "
                       "reduce-scatter, all-to-all), 1 (broadcast, reduce, send/recv), as nccl-tests. An "
                       "all-reduce that reduces in the switch (NVLS, multimem) or the network (SHARP) can "
                       "exceed the wire.</p>")
        rows = sorted(points, key=lambda p: -p.time_s)[: 2 * report.top]
        out.append(table(["collective", "dtype", "ranks", "link", "size per rank", "calls", "time", "algbw",
                          "busbw", "roof", "% of roof", "bound"],
                         [[e(p.collective or _short(p.kernel, 40)), e(p.dtype), e(p.group_size or ""), e(p.link),
                           e(format_si(p.message_bytes, "B")), f"{p.calls:,}", e(_t(p.time_s)),
                           e(format_si(p.algbw_bytes_s, "B/s")), e(format_si(p.busbw_bytes_s, "B/s")),
                           e(format_si(p.roof_bytes_s, "B/s")), e(_pct(p.fraction_of_roof, 0)), e(p.bound)]
                          for p in rows], left={0, 1, 3, 11}))
    launches = rank_launches(report)
    exposed = exposed_rows(launches)
    if exposed:
        out.append("<h3>Exposed communication</h3><p>Communication kernel time that no compute kernel (any "
                   "other kernel, on any stream) overlaps: what communication adds to the step.</p>")
        out.append(table(["rank", "collective launches", "communication", "exposed", "exposed share",
                          "overlapped"],
                         [[str(x.rank), f"{x.launches:,}", e(_t(x.comm_s)), e(_t(x.exposed_s)),
                           e(_pct(x.exposed_share)), e(_t(x.overlapped_s))] for x in exposed], compact=True))
    waits = rank_waits(launches) if len(launches) > 1 else []
    if waits:
        ranks = sorted({r for w in waits for r in w.wait_s})
        by_rank = wait_by_rank(waits)
        out.append("<h3>Transfer and waiting per collective</h3><p>The fastest rank's duration is the "
                   "transfer; each rank's excess is waiting for the others (the straggler arrives last and "
                   "waits least).</p>")
        out.append(table(["rank", "waiting in collectives"], [[str(r), e(_t(by_rank[r]))] for r in ranks],
                         compact=True))
        out.append(table(["group", "collective", "size", "calls", "transfer"] + [f"wait r{r}" for r in ranks],
                         [[e(w.group), e(w.collective), e(format_si(w.message_bytes, "B")
                                                         if w.message_bytes >= 0 else "?"),
                           f"{w.calls:,}", e(_t(w.transfer_s))] + [e(_t(w.wait_s.get(r, 0.0))) for r in ranks]
                          for w in waits[: 2 * report.top]], left={0, 1}))
    if len(out) == 1:
        return ""
    out.append("</section>")
    return "\n".join(out)
