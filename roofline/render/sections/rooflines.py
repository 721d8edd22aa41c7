"""Rooflines: the cache-aware chart (interactive in HTML) and the
hierarchical one where some row has bytes at two or more levels."""
from __future__ import annotations

from ..document import Figure, note
from ..views import VIEWS

KEY, TITLE = "rooflines", "Rooflines"

CACHE_AWARE = VIEWS["cache-aware"].caption


def build(r, ctx):
    out = []
    if r.dense:
        out.append(note(f"{len(r.placements):,} {ctx.unit} rows: the markers are the {len(r.plotted):,} "
                        f"{ctx.unit} names with the most time (rows summed; the rest in one marker per family), "
                        "the grey density shows every row."))
    views = r.views()
    if not views:
        out.append(note(f"No {ctx.unit} has FLOPs, bytes and a time together, so none can be placed on a FLOP "
                        "roofline; the time view under Overhead shows every one. "
                        + ("Record the trace with record_shapes=True so the operator models can give the work."
                           if ctx.cpu else
                           "Collect FLOP and byte counters with Nsight Compute (ncu --section "
                           "SpeedOfLight_RooflineChart), or supply the work from a cost model "
                           "(docs/costmodels.md).")))
        return out
    arrows = "; arrows join consecutive variants of a kernel, before to after" if r.chains() else ""
    out.append(Figure(VIEWS["cache-aware"].figure, CACHE_AWARE + arrows + ".", interactive=True,
                      interactive_caption=CACHE_AWARE + arrows + ". Hover a point for its numbers, scroll to zoom, "
                      "drag to pan; click a bound in the legend to hide it, a family to isolate it (again: all "
                      f"back); the slider keeps the {ctx.unit}s that make up the top share of the time; choose "
                      "families, bounds or operators above, the precisions' roofs where several apply, and a point "
                      "per memory level where rows have bytes at several; click a point to find its row in the "
                      f"{ctx.unit}s table."))
    if "hierarchical" in views:
        view = VIEWS["hierarchical"]
        out.append(Figure(view.figure, view.caption.format(unit=ctx.unit)))
    else:
        out.append(note(f"No hierarchical roofline: no {ctx.unit} has bytes at two or more memory levels"
                        + (" (a trace gives compulsory bytes only)." if ctx.cpu or ctx.is_kineto() else
                           " (collect L1, L2 and DRAM bytes with Nsight Compute to see one).")))
    return out
