"""Instruction roofline (Ding and Williams 2019), or what to collect for one."""
from __future__ import annotations

from ..document import Code, Figure, Table, code, note, para, share, text, time, Cell
from ..names import distinct_names
from ..views import VIEWS

KEY, TITLE = "instruction", "Instruction roofline"


def _applies(r) -> bool:
    return r.instruction is not None or any(str(getattr(x, "format", "")).startswith(("ncu", "nvprof"))
                                            for x in r.results)


def _num(v, fmt: str) -> Cell:
    return Cell(format(v, fmt), v, "rate")


def build(r, ctx):
    if not _applies(r):
        return None
    roof = r.instruction
    if roof is None:
        msg = r.instruction_note()
        if "ncu --metrics " in msg:          # the metric list as code that wraps
            head, metrics = msg.split("ncu --metrics ", 1)
            return [note(head, Code("ncu --metrics " + metrics))]
        return [note(msg)]
    c = roof.ceilings
    out = [para(f"Warp instructions per second against warp instructions per transaction (Ding and Williams "
                f"2019). Peak {c.warp_inst_s / 1e9:.1f} warp GIPS; "
                + ", ".join(f"{lv} {rate_ / 1e9:.3g} GTXN/s" for lv, rate_ in c.transactions_s.items()) + "."),
           Figure(VIEWS["instruction"].figure, VIEWS["instruction"].caption)]
    levels = [lv for lv in ("L1", "shared", "L2", "DRAM") if any(lv in p.intensity for p in roof.points)]
    points = sorted(roof.points, key=lambda p: -p.time_s)[: r.top]
    rows = tuple((code(p.name, label), text(p.variant), time(p.time_s), _num(p.warp_inst_s / 1e9, ".1f"),
                  *(_num(p.intensity[lv], ".3g") if lv in p.intensity else Cell("–", None, "rate") for lv in levels),
                  text(p.limiter), share(p.efficiency, 0),
                  Cell("–", None, "rate") if p.predication is None else _num(p.predication, ".2f"))
                 for p, label in zip(points, distinct_names([p.name for p in points], width=60)))
    out.append(Table(("kernel", "variant", "time", "warp GIPS", *(f"inst/txn {lv}" for lv in levels), "limiter",
                      "% of roof", "predication"), rows))
    return out
