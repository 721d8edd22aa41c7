"""Kernels: every kernel (or operator) name, rows summed by name and
variant, most time first; sortable and searchable in HTML, the top rows
shown and the rest behind "show all"."""
from __future__ import annotations

import numpy as np

from ..cells import _bound_text, _reason_text
from ..document import Table, bound, code, count, note, para, rate, share, text, time
from ..names import distinct_names

KEY, TITLE = "kernels", "Kernels"
MAX_ROWS = 2000      # rows in the page at all
SHOWN = 25           # rows shown before "show all"


def row_id(group: int) -> str:
    """The id of a kernel's row in the kernels table (chart points jump there)."""
    return f"rr-g-{group}"


def build(r, ctx):
    g = r.grouped
    records = r.grouped_records()
    t = np.nan_to_num(g.kernels.time_s)
    order = np.argsort(-t, kind="stable")[:MAX_ROWS]
    total = float(t.sum())
    names = distinct_names([records[i]["name"] for i in order], width=70)
    rows, ids, search = [], [], []
    for label, i in zip(names, order.tolist()):
        k = records[i]
        calls = k["count"] or 0
        per_call = k["time_s"] / calls if k["time_s"] is not None and calls else None
        frac = k["time_s"] / total if k["time_s"] is not None and total else None
        rows.append((code(k["name"], label), text(k["variant"] or ""), text(k["family"] or ""), count(calls),
                     time(k["time_s"]), share(frac), time(per_call), rate(k["achieved_flop_s"]),
                     share(k["efficiency"], 0), bound(_bound_text(k)), text(_reason_text(k))))
        ids.append(row_id(i))
        search.append(" ".join(str(x) for x in (k["name"], k["family"], k["operator"], _bound_text(k),
                                                 k["reason"] or "") if x))
    out = [para(f"Every {ctx.unit} name (rows summed by name and variant), most time first. Click a column to "
                "sort, type to search; a click on a point of the interactive roofline brings its row here."),
           Table((ctx.unit, "variant", "family", "calls", "time", "share", "per call", "FLOP/s", "% of roof",
                  "bound", "why below the roof"), tuple(rows), table_id="rr-kernel-table", search=True,
                 collapse=SHOWN, row_ids=tuple(ids), row_search=tuple(search))]
    more = len(g) - len(rows)
    if more > 0:
        out.append(note(f"{more:,} {ctx.unit} names with less time are not listed; the families table sums "
                        "all of them."))
    return out
