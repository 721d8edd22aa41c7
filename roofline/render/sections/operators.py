"""Operators: time by kind of work, and per framework operator."""
from __future__ import annotations

import numpy as np

from ..document import Code, Heading, Table, bound, code, count, note, para, rate, share, text, time

KEY, TITLE = "operators", "Operators"


def build(r, ctx):
    if not np.any(r.placements.kernels.operators != ""):
        return None
    out = [Heading("Time by kind of work"),
           Table(("kind", f"{ctx.unit} rows", "calls", "time", "share"),
                 tuple((text(c.category), count(c.rows), count(c.calls), time(c.time_s), share(c.share))
                       for c in r.work_split()), compact=True)]
    ops = r.operator_rows()
    if not ops:
        out.append(note("The profile names no framework operators (a PyTorch trace recorded with ",
                        Code("record_shapes=True"), " does)."))
        return out
    shown = ops[: 2 * r.top]
    out += [Heading("Per operator"),
            para("Work from the operator models where modelled is above 0: FLOPs of the direct algorithm and the "
                 "compulsory bytes (every input read once, every output written once), a lower bound on traffic, "
                 "so each point is an upper bound on intensity. Operators with no model stay unknown: their time "
                 "is shown, not their work."),
            Table(("operator", "calls", "time", "share", "FLOP/s", "% of roof", "main bound", "modelled"),
                  tuple((code(o.operator), count(o.calls), time(o.time_s), share(o.share), rate(o.flop_s),
                         share(o.efficiency, 0), bound(o.bound), share(o.modelled, 0)) for o in shown))]
    if len(ops) > len(shown):
        out.append(note(f"{len(ops) - len(shown):,} more operators with less time."))
    return out
