"""Variants: each version of a kernel against the previous one and the first."""
from __future__ import annotations

from ..cells import _short
from ..document import Heading, Table, bound, para, rate, ratio, share, text, time

KEY, TITLE = "variants", "Variants: before and after"


def build(r, ctx):
    tables = r.variant_rows()
    if not tables:
        return None
    out = [para("Each version of a kernel against the previous one and the first; speed-up = time before / "
                "time after. On the rooflines, arrows join consecutive variants.")]
    for rows in tables:
        out.append(Heading(_short(rows[0].kernel, 90), code=True))
        out.append(Table(("variant", "time", "vs previous", "vs first", "FLOP/s", "% of roof", "bound"),
                         tuple((text(v.variant), time(v.time_s),
                                ratio(v.vs_previous, None if v.vs_previous is None else
                                      ("faster" if v.vs_previous >= 1 else "slower")),
                                ratio(v.vs_first), rate(v.flop_s), share(v.efficiency, 0), bound(v.bound))
                               for v in rows)))
    return out

