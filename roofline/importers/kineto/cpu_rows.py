"""The rows of a CPU trace: every operator is a kernel, its self time its
time. Rows are one per (operator, input shapes, dtypes) for operators that
do work, one per operator name otherwise (their dtypes joined). The
innermost compiled graphs' self time is Inductor's C++ kernels: work of
their own that no model sizes (:mod:`.compiled`), never dispatch. bf16/int8
matrix work is keyed for the CPU's matrix units (:mod:`roofline.core.cpu_units`).
"""
from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass

import numpy as np

from ...core import reasons as R
from ...core.errors import Advice
from ...core.cpu_units import flops_key as cpu_flops_key
from ...core.model import Kernel
from .attribution import check_torch_flops, op_family, warn_no_shapes
from .columns import distinct_ints
from .compiled import compiled_cpu_note, innermost_graphs
from .dtypes import joined, op_dtype_codes, row_dtypes
from .notes import add_notes, joined_notes
from .nesting import Nesting
from .op_columns import OpEvents
from .operators import build, shape_label
from .why import COMPILED_GRAPHS, WhyOf, warn_unknown


@dataclass(frozen=True, slots=True, eq=False)
class CpuRows:
    """What a CPU trace's attribution hands on (.result, .phases): the rows
    and each operator's row."""

    rows: tuple[Kernel, ...]
    op_row: np.ndarray          # int64 per operator: its index in ``rows``


# a row's state: the operator's work counted at it, none (its descendants
# do it, or a model that found none), or unknown
WORK, NONE, UNKNOWN = 0, 1, 2


def cpu_kernels(ops: OpEvents, nesting: Nesting, warnings: list[Advice], threads: int | None = None) -> CpuRows:
    """One row per (operator, input shapes, dtypes) for operators that do
    work, per operator name otherwise, and each operator's row for the step
    split (.phases). The innermost compiled graphs' self time is work of
    their own, unsized (:mod:`.compiled`), never dispatch. Rows are found
    as integer keys per operator and summed by bincount (which adds in
    operator order: the floats a loop per operator gives), the Python work
    done once per distinct (name, call) and per distinct work of a row."""
    warn_no_shapes(ops, warnings)
    tree = build(ops, nesting)
    n = len(ops)
    graphs = innermost_graphs(ops, nesting.parent,
                              nesting.per_name(lambda name: str(name).startswith(COMPILED_GRAPHS)))
    no_model = np.fromiter(map(operator.is_, tree.work, itertools.repeat(None)), dtype=bool, count=n)
    state = np.where(graphs, UNKNOWN, np.where(tree.does_work, WORK,
                                               np.where(tree.delegated | ~no_model, NONE, UNKNOWN)))
    labels, op_label = op_dtype_codes(ops, nesting.call_keys)
    op_row, first = _rows(ops, nesting, state, [labels[c] for c in op_label[nesting.call_keys[0]].tolist()])
    m = len(first)
    t = np.bincount(op_row, weights=nesting.self_time_us, minlength=m)
    count = np.bincount(op_row, minlength=m)
    dtypes = row_dtypes(op_row, np.arange(n), labels, op_label, m)
    why = WhyOf(None, ops, tree, nesting.parent, np.zeros(0, dtype=np.int64), None)
    flops, nbytes, assumed = _work_sums(ops, tree, nesting, state, graphs, op_row, m, why)
    out = []
    for r, (o, s) in enumerate(zip(first.tolist(), state[first].tolist())):
        w = tree.counted[o] if tree.does_work[o] else tree.work[o]
        name = ops.names[o]
        g = {"t": t[r], "n": int(count[r]), "family": w.family if w else "", "flops": flops[r],
             "bytes": float(nbytes[r]), "dtypes": [dtypes[r]], "assumed": assumed[r],
             "serial": s == WORK and _serial(ops.decoded(ops.call[o])[0])}
        if s == WORK:
            key = (name, shape_label(*ops.decoded(ops.call[o])[:2]), "", "work")
        else:
            key = (name, "", "", "none" if s == NONE else "unknown")
        out.append(_row(key, g, threads, _unknown_reason(why, ops, graphs, o) if s == UNKNOWN else ""))
    warn_unknown(out, warnings, what="operator")
    compiled_cpu_note(ops, nesting.self_time_us, graphs, warnings)
    check_torch_flops(ops, tree, warnings)
    return CpuRows(tuple(out), op_row)


def _rows(ops: OpEvents, nesting: Nesting, state: np.ndarray, dtype_of: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each operator's row and each row's first operator (ascending): a row
    per (name, shape label, dtype) of the working operators, per (name,
    state) of the others. ``dtype_of``: the dtype label of each distinct
    (name, call) (:func:`.dtypes.op_dtype_codes`)."""
    firsts, pair = nesting.call_keys
    work_key: dict = {}
    per_pair = np.zeros(len(firsts), dtype=np.int64)
    working = np.zeros(len(firsts), dtype=bool)
    working[pair[state == WORK]] = True
    for p in np.flatnonzero(working).tolist():       # one key per distinct (name, call) that works
        o = int(firsts[p])
        name, call = ops.names[o], ops.call[o]
        label = shape_label(*ops.decoded(call)[:2]) if call >= 0 else ""
        per_pair[p] = work_key.setdefault((name, label, dtype_of[p]), len(work_key))
    names = len(nesting.names)
    key = np.where(state == WORK, per_pair[pair] if len(pair) else 0,
                   len(work_key) + (state == UNKNOWN) * names + nesting.name_code)
    first, row = distinct_ints(key)
    return row, first


def _work_sums(ops: OpEvents, tree, nesting: Nesting, state: np.ndarray, graphs: np.ndarray,
               op_row: np.ndarray, m: int, why: WhyOf) -> tuple[list[dict], np.ndarray, list[dict]]:
    """Per row: FLOPs per key and bytes of its working operators' counted
    work, added in operator order as :func:`.attribution.add_work` adds
    them (keys in the order they first come); and the notes of its models
    (or, unknown, why it has none), first seen first."""
    flops: list[dict] = [{} for _ in range(m)]
    assumed: list[dict] = [{} for _ in range(m)]
    nbytes = np.zeros(m)
    at = np.flatnonzero(state == WORK)
    if len(at):
        works, gather = distinct_ints(tree.counted_code[at])   # each distinct counted work once
        objects = [tree.counted[o] for o in at[works].tolist()]
        rows = op_row[at]
        nbytes = np.bincount(rows, weights=np.array([float(w.bytes) for w in objects])[gather], minlength=m)
        items = [[(cpu_flops_key(p, w.matrix), float(f)) for p, f in w.flops.items()] for w in objects]
        sums = {k: _added_in_order(rows, gather, [[v for kk, v in its if kk == k] for its in items], m)
                for k in dict.fromkeys(k for its in items for k, _ in its)}
        for f in _first_pairs(rows, gather).tolist():
            r, j = int(rows[f]), int(gather[f])
            for k, _ in items[j]:
                if k not in flops[r]:
                    flops[r][k] = float(sums[k][r])
            add_notes(assumed[r], objects[j].assumptions)
    unknown = np.flatnonzero((state == UNKNOWN) & ~graphs)
    if len(unknown):
        # a model that knows the operator but not this call says why (tensor lists recorded [])
        for f in _first_pairs(op_row[unknown], nesting.call_keys[1][unknown]).tolist():
            add_notes(assumed[int(op_row[unknown[f]])], filter(None, [why.unknown_text(int(unknown[f]))]))
    return flops, nbytes, assumed


def _first_pairs(rows: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The position of the first of each distinct (row, code) pair (codes
    >= 0), ascending."""
    return distinct_ints(rows * (int(codes.max()) + 1) + codes)[0]


def _added_in_order(rows: np.ndarray, gather: np.ndarray, values: list[list[float]], m: int) -> np.ndarray:
    """Per row, the sum of ``values[gather[i]]`` (each distinct work's
    values of one key, usually one) over its operators ``i``, added one by
    one in operator order and value order, from 0.0."""
    counts = np.array([len(v) for v in values], dtype=np.int64)
    flat = np.array([x for v in values for x in v], dtype=float)
    rep = counts[gather]
    if (rep == 1).all():
        return np.bincount(rows, weights=flat[np.cumsum(counts)[gather] - 1], minlength=m)
    total = int(rep.sum())
    start = np.cumsum(counts) - counts
    index = np.repeat(start[gather], rep) + np.arange(total) - np.repeat(np.cumsum(rep) - rep, rep)
    return np.bincount(np.repeat(rows, rep), weights=flat[index], minlength=m)


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
