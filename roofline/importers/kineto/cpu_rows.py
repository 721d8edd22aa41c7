"""The rows of a CPU trace: every operator is a kernel, its self time its
time. Rows are one per (operator, input shapes, dtypes) for operators that
do work, one per operator name otherwise (their dtypes joined). The
innermost compiled graphs' self time is Inductor's C++ kernels: work of
their own that no model sizes (:mod:`.compiled`), never dispatch. bf16/int8
matrix work is keyed for the CPU's matrix units (:mod:`roofline.core.cpu_units`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core import reasons as R
from ...core.errors import Advice
from ...core.model import Kernel
from .attribution import add_work, check_torch_flops, op_family, warn_no_shapes
from .compiled import compiled_cpu_note, innermost_graphs
from .dtypes import call_dtypes, joined
from .notes import add_notes, joined_notes
from .nesting import Nesting
from .op_columns import OpEvents
from .operators import build, shape_label
from .why import WhyOf, warn_unknown


@dataclass(frozen=True, slots=True, eq=False)
class CpuRows:
    """What a CPU trace's attribution hands on (.result, .phases): the rows
    and each operator's row."""

    rows: tuple[Kernel, ...]
    op_row: np.ndarray          # int64 per operator: its index in ``rows``


def cpu_kernels(ops: OpEvents, nesting: Nesting, warnings: list[Advice], threads: int | None = None) -> CpuRows:
    """One row per (operator, input shapes, dtypes) for operators that do
    work, per operator name otherwise, and each operator's row for the step
    split (.phases). The innermost compiled graphs' self time is work of
    their own, unsized (:mod:`.compiled`), never dispatch."""
    warn_no_shapes(ops, warnings)
    tree = build(ops, nesting)
    self_time_us = nesting.self_time_us
    labels = {c: shape_label(*ops.decoded(c)[:2]) for c in range(len(ops.calls))}
    dtypes = call_dtypes(ops, nesting.call_keys)
    graphs = innermost_graphs(ops, nesting.parent)
    groups: dict[tuple, dict] = {}
    why = WhyOf(None, ops, tree, nesting.parent, np.zeros(0, dtype=np.int64), None)
    op_row = np.zeros(len(ops), dtype=np.int64)
    for i in range(len(ops)):
        name = ops.names[i]
        w = tree.counted[i] if tree.does_work[i] else tree.work[i]
        dtype = dtypes.get((name, ops.call[i]), "")
        if graphs[i]:
            key = (name, "", "", "unknown")
        elif tree.does_work[i]:
            key = (name, labels.get(ops.call[i], ""), dtype, "work")
        elif tree.delegated[i] or w is not None:
            key = (name, "", "", "none")
        else:
            key = (name, "", "", "unknown")
        g = groups.get(key)
        if g is None:
            g = groups[key] = {"t": 0.0, "n": 0, "flops": {}, "bytes": 0.0, "family": w.family if w else "",
                               "row": len(groups), "first": i, "dtypes": [], "assumed": {},
                               "serial": key[3] == "work" and _serial(ops.decoded(ops.call[i])[0])}
        op_row[i] = g["row"]
        g["t"] += self_time_us[i]
        g["n"] += 1
        g["dtypes"].append(dtype)
        if key[3] == "work":
            add_work(g, w, 1.0, gpu=False)
            add_notes(g["assumed"], w.assumptions)
        elif key[3] == "unknown" and w is None and not graphs[i]:
            # a model that knows the operator but not this call says why (tensor lists recorded [])
            add_notes(g["assumed"], filter(None, [why.unknown_text(i)]))
    out = [_row(key, g, threads, _unknown_reason(why, ops, graphs, g["first"]) if key[3] == "unknown" else "")
           for key, g in groups.items()]
    warn_unknown(out, warnings, what="operator")
    compiled_cpu_note(ops, self_time_us, graphs, warnings)
    check_torch_flops(ops, tree, warnings)
    return CpuRows(tuple(out), op_row)


def _unknown_reason(why: WhyOf, ops: OpEvents, graphs: np.ndarray, o: int) -> str:
    """Why an unknown CPU row has no work: the innermost compiled graph's
    own time is Inductor's C++ kernels (unsized work); else the reader's."""
    if graphs[o]:
        return R.INDUCTOR
    return why.operator_reason(o)


# at::internal::GRAIN_SIZE: PyTorch's element-wise loops (TensorIterator)
# over fewer elements run on the calling thread alone, whatever the
# intra-op thread count
GRAIN_SIZE = 32768


def _serial(dims) -> bool:
    """Whether every input of a call holds fewer than GRAIN_SIZE elements
    (its element-wise loop then runs on one thread)."""
    sizes = [int(np.prod(d)) for d in (dims or []) if isinstance(d, list) and d
             and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in d)]
    return bool(sizes) and max(sizes) < GRAIN_SIZE


def _row(key: tuple, g: dict, threads: int | None, why: str = "") -> Kernel:
    name, shapes, _, state = key
    if g.get("serial") and (threads is None or threads > 1) and op_family(name, g["family"]) == "elementwise":
        threads = 1         # its one-core roofs, as measured for one thread (docs/pytorch.md)
    label = f"{name}({shapes})" if shapes else name
    dtype = joined(g["dtypes"])
    if state == "unknown":
        return Kernel(name=label, time_s=g["t"] * 1e-6, count=g["n"], family=op_family(name, g["family"]),
                      operator=name, threads=threads, why=why, dtype=dtype, assumed=joined_notes(g["assumed"]))
    flops = g["flops"] or {"fp32": 0.0}
    return Kernel(name=label, time_s=g["t"] * 1e-6, count=g["n"], flops=flops, bytes={"DRAM": g["bytes"]},
                  family=op_family(name, g["family"]) if state == "work" else "overhead",
                  modelled=True, operator=name, threads=threads, dtype=dtype, assumed=joined_notes(g["assumed"]))
