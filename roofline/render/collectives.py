"""The collective roofline drawn (matplotlib, imported when called), and
what the report's communication section (:mod:`.sections.communication`)
needs to know of a report: its inputs' launches and whether it has any.

The chart: x = message bytes per rank (``S``, nccl-tests' size), y = bus
bandwidth; each link's roof ``busbw(S) = F S / (alpha + F S / B)`` as a
line (flat at the link's bus bandwidth ``B``, bending down where the
latency floor ``alpha`` dominates), each kernel row of collectives a point
sized by its time: filled when bandwidth-bound, hollow when latency-bound.
"""
from __future__ import annotations

import math

import numpy as np

from ..analysis.collectives import collective_points, roof_curves
from ..core.units import format_si
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


def rank_launches(report) -> dict:
    """``{rank: CommLaunches}`` of the report's inputs that carry them."""
    out = {}
    for i, r in enumerate(report.results):
        c = r.communication
        if c is not None:
            out[r.rank if r.rank is not None else i] = c
    return out


def has_communication(report) -> bool:
    return report.placements.link is not None or bool(rank_launches(report))


def communication_figure(report):
    """The collective roofline of the report's collectives, or None."""
    points = collective_points(report.placements)
    if not points:
        return None
    return collective_figure(points, roof_curves(points), report.device.name)
