"""Families: kernels grouped by what they do."""
from __future__ import annotations

from ..cells import _pct
from ..document import Table, bound, count, para, rate, share, text, time

KEY, TITLE = "families", "Families"


def build(r, ctx):
    rows = tuple((text(f.family), count(f.names), count(f.calls), time(f.time_s), share(f.share), rate(f.flop_s),
                  share(f.efficiency, 0), bound(f.bound, aside=_pct(f.bound_share, 0)))
                 for f in r.family_rows())
    return [para(f"{ctx.unit.capitalize()}s grouped by what they do (the profile's family, else read from the "
                 "name). % of roof is the roofline time over the measured time of the members that have a roof; "
                 "bound is the class with the most time."),
            Table(("family", "names", "calls", "time", "share", "FLOP/s", "% of roof", "main bound"), rows)]
