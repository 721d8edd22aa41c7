"""Block scheduling inside kernels, from block clocks (:mod:`..block_sched`)."""
from __future__ import annotations

from .. import block_sched as B
from ..document import Cell, Figure, Table, code, note, text

KEY, TITLE = "block-sched", "Block scheduling"


def build(r, ctx):
    body = B.rows(r)
    if not body:
        return None
    out = [note(f"{B.NOTE} Clock: {B.clock_line(r)}.")]
    rows = tuple((code(row[0], B._short(row[0])), text(row[1]),
                  *(text(c) if i == 10 else Cell(c, c, "count") for i, c in enumerate(row[2:], 2)))
                 for row in body)
    out.append(Table(tuple(B.HEADER), rows))
    more = len(B.report_schedules(r)) - len(body)
    if more > 0:
        out.append(note(f"{more:,} more launches with a smaller share."))
    out += [Figure(key, "Per-SM timeline: one row per SM (its block slots stacked inside it), blocks as blue bars, "
                   "scheduling gaps in orange.") for key in B.figure_keys(r)]
    return out
