"""Summary: headline numbers, time by bound class, time lost by reason,
the top kernels (or operators, on a CPU)."""
from __future__ import annotations

import numpy as np

from ..cells import _bound_text, _pct, _reason_text, _t
from ..document import Bar, Cards, Code, Heading, Table, bound, code, count, note, rate, share, text, time
from ..names import distinct_names

KEY, TITLE = "summary", "Summary"


def build(r, ctx):
    bounds = r.bound_shares()
    over = sum(b.share for b in bounds if b.label.startswith("overhead"))
    unit = ctx.unit
    cards = [("device", r.device.name, f"{r.device.kind}, {r.device.provenance.get('method', '?')}"),
             (f"{unit} time", _t(r.total_time_s), f"{r.total_calls:,} calls"),
             (f"{unit} names", f"{len(set(r.grouped.kernels.names)):,}", f"{len(r.placements):,} rows"),
             ("overhead-bound", _pct(over), f"of {unit} time")]
    prog = r.overhead.program
    if prog is not None and prog.span_s:
        cards.append(("timeline span", _t(prog.span_s), f"{'CPU' if ctx.cpu else 'GPU'} idle {_pct(prog.idle_share)}"))
    out = [Cards(tuple(cards)), Heading("Time by bound class"),
           Bar(tuple((b.label, b.color, b.share) for b in bounds if b.share > 0)),
           Table(("bound", "time", "share", f"{unit} rows"),
                 tuple((bound(b.label, b.color), time(b.time_s), share(b.share), count(b.rows)) for b in bounds),
                 compact=True)]
    lost = r.lost_by_reason()
    if lost:
        out += [Heading("Time lost against the roofs, by reason"),
                note(f"Time minus roofline time, summed by why each {unit} is below its roof: what to fix first. "
                     f"{unit.capitalize()}s within {ctx.near_roof} of their roof need no reason."),
                Table(("reason", "time lost", f"share of {unit} time", f"{unit} rows", "what to do"),
                      tuple((text(x.reason), time(x.lost_s), share(x.share), count(x.rows),
                             text(x.fix or ("collect stall, occupancy and cache counters (the note below says which)"
                                          if x.reason == "no evidence" else "")))
                            for x in lost), compact=True)]
        unexplained = sum(x.share for x in lost if x.reason == "no evidence")
        if unexplained > 0:
            out.append(note(no_evidence_note(r, ctx, unexplained)))
    out += [Heading(f"Top {unit}s"), top_table(r, ctx)]
    more = len(r.grouped) - min(len(r.grouped), r.top)
    if more > 0:
        out.append(note(f"{more:,} more {unit}{'s' if more > 1 else ''}; the families table sums all of them."))
    if not np.any(r.placements.kernels.operators != ""):
        out.append(note("No framework operators in this profile: a PyTorch trace recorded with ",
                        Code("record_shapes=True"), " adds an Operators section (time and work per operator, "
                        "FLOPs modelled from the shapes)."))
    return out


def top_table(r, ctx) -> Table:
    top = r.top_kernels()
    rows = []
    for k, label in zip(top, distinct_names([k["name"] for k in top], width=60)):
        calls = k["count"]
        per_call = k["time_s"] / calls if k["time_s"] is not None and calls else None
        rows.append((code(k["name"], label), text(k["variant"] or ""), text(k["family"] or ""), count(calls),
                     time(k["time_s"]), share(k["share"]), time(per_call), rate(k["achieved_flop_s"]),
                     share(k["efficiency"], 0), bound(_bound_text(k)), text(_reason_text(k))))
    return Table((ctx.unit, "variant", "family", "calls", "time", "share", "per call", "FLOP/s", "% of roof",
                  "bound", "why below the roof"), tuple(rows))


def what_to_collect(ctx) -> str:
    """The counters that would tell stalls, occupancy and cache traffic
    apart, for this kind of device."""
    if ctx.cpu:
        return ("collect hardware counters: perf stat -e cycles,instructions,cache-misses,LLC-load-misses "
                "(or VTune's memory-access analysis) to tell stalls from cache traffic")
    return ("collect counters: ncu --section SpeedOfLight --section Occupancy --section WarpStateStats "
            "--section MemoryWorkloadAnalysis tells stalls, occupancy and cache traffic apart")


def no_evidence_note(r, ctx, unexplained: float) -> str:
    """What "no evidence" means for this input and what would say more."""
    modelled = bool(np.any(r.placements.kernels.modelled))
    bytes_kind = ("Where the bytes are compulsory (modelled from shapes, or computed from layer sizes), "
                  "each intensity is an upper bound: real traffic is higher, so a point may belong further "
                  "left, under a lower memory roof. " if modelled or not ctx.is_trace() else "")
    return (f"{_pct(unexplained)} of the {ctx.unit} time is below its roof with no evidence of why: the input "
            "has time, FLOPs and bytes but no counters of stalls, occupancy or cache traffic, so the roofline "
            f"can say how far each {ctx.unit} is from its roof but not what holds it back. " + bytes_kind
            + what_to_collect(ctx)[0].upper() + what_to_collect(ctx)[1:] + ".")
