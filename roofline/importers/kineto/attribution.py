"""Kernels of a Kineto trace with the work of the operators behind them.

GPU trace: every kernel launch is linked to the operator that launched it
(the innermost operator around the runtime call with the kernel's
``correlation``, else the operator with the kernel's ``External id``). An
operator that does work (see :mod:`.operators`) gives it to its launches
in proportion to their durations; the work of a GEMM, convolution or
attention operator goes only to its matrix kernels (by kernel name) when
it launched any, so a bias copy or a layout transform launched beside a
cuDNN or cuBLAS kernel keeps no FLOPs (it stays without a model). Rows are one per (kernel name, operator); kernel time stays the
measured time. Range-profiler counters, where a kernel has them, replace the
model's FLOPs, and the two are compared.

CPU trace: every operator is a kernel (:mod:`.cpu_rows`). Every row
carries the dtype(s) of the operators behind it (:mod:`.dtypes`: ``bf16``,
``fp32->bf16`` for a cast), and a row with modelled work what the models
assumed (``Kernel.assumed``, :mod:`.notes`).

Work of matrix operators on a GPU goes on the tensor-core ceiling of its
dtype (fp16/bf16/int8); fp32 matrix work stays on the fp32 units, since a
trace does not record whether TF32 was allowed (PyTorch's default for
matmul is off). On a CPU, bf16/int8 matrix work is keyed for the matrix
units (``tensor_bf16``/``tensor_int8``: AMX, where the device profile has
them; else the vector bf16/int8 roof, :mod:`roofline.core.cpu_units`).
Element-wise work goes on the vector units. Bytes are the
compulsory bytes of the model, on the DRAM level: a lower bound on traffic.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ...core.comm import comm_bytes
from ...core.cpu_units import flops_key as cpu_flops_key
from ...core.errors import Advice
from ...core.families import MATRIX, family_of, kernel_family
from ...core.kernel_precision import precision_from_name
from ...core.model import Kernel
from ...ops import tensor_core_key
from . import comms as C
from .columns import ODD, Ids, LaunchColumns, distinct, distinct_ints, launch_columns, row_of, sorted_distinct
from .compiled import apply_inductor_counts
from .dtypes import op_dtype_codes, row_dtypes
from .events import decoded_launch
from .notes import add_notes, joined_notes
from .nesting import Enclosing, Nesting
from .op_columns import OpEvents
from .operators import OpTree, build
from .replay import joined_launches, replay_shares, replayed
from .why import WhyOf, warn_unknown

# Agreement with torch's own FLOP count (with_flops=True) within this.
FLOP_CHECK_TOLERANCE = 0.01
# Counters this far below the model mean another algorithm or a counter problem.
COUNTER_CHECK_TOLERANCE = 0.10


def _kernel_groups(gpu, ops: OpEvents, nesting: Nesting, launches: LaunchColumns, tree, op_of: np.ndarray,
                   working: np.ndarray, share: np.ndarray, comm=None,
                   aside: np.ndarray | None = None) -> tuple[dict[tuple, dict], np.ndarray]:
    """Rows keyed by (kernel name, operator name, whether it got work, its
    collective's index in ``comm.collectives`` or -1): time and calls
    summed, and the operators' work times each kernel's share summed per
    precision (bincounts over row codes, no loop per kernel). ``aside``:
    launches that take their operator's ``aside`` work (a fused MoE's
    routing and finalize kernels), not its main work. Also each launch's
    row (its index in the dict's order)."""
    codes, keys = _rowcodes(gpu.kernel_names, ops.names, launches.name_code, nesting, op_of, working,
                             None if comm is None else comm.code)
    m = len(keys)
    t = np.bincount(codes, weights=launches.dur, minlength=m)
    calls = np.bincount(codes, minlength=m)
    flops: dict[str, np.ndarray] = {}
    nbytes = np.zeros(m)
    fp32_matrix = np.zeros(m, dtype=bool)
    unaligned = np.full(m, np.nan)
    families = [""] * m
    assumed = [{} for _ in range(m)]
    if working.any():
        w_idx = np.flatnonzero(working)
        w_codes = codes[w_idx]
        w_share = share[w_idx]
        # each distinct work once (operators of one call share their model's
        # answer), then gathered per operator and per kernel
        n_ops = len(tree.counted)
        keyed = op_of[w_idx] + (n_ops * aside[w_idx] if aside is not None else 0)
        op_list, op_gather = sorted_distinct(keyed)
        works, work_of_op = _distinct_works(tree, op_list, n_ops)
        gather = work_of_op[op_gather.ravel()]
        nbytes = np.bincount(w_codes, weights=np.array([w.bytes for w in works])[gather] * w_share,
                             minlength=m)
        by_key: dict[str, np.ndarray] = {}
        for j, w in enumerate(works):
            for p, v in w.flops.items():
                key = tensor_core_key(p, w.matrix)
                if key not in by_key:
                    by_key[key] = np.zeros(len(works))
                by_key[key][j] += v
        for key, per in by_key.items():
            flops[key] = np.bincount(w_codes, weights=per[gather] * w_share, minlength=m)
        fp32_of_op = np.array([w.matrix and "fp32" in w.flops for w in works], dtype=bool)
        fp32_matrix = np.bincount(w_codes, weights=fp32_of_op[gather].astype(float), minlength=m) > 0
        unaligned = _unaligned_share(works, gather, w_codes, launches.dur[w_idx], m)
        # a row's family: that of the first working launch whose operator has one
        op_family = np.array([w.family for w in works], dtype=object)
        named = np.flatnonzero(op_family[gather] != "")
        rows, first = np.unique(w_codes[named], return_index=True)
        for r, f in zip(rows.tolist(), op_family[gather[named[first]]].tolist()):
            families[r] = f
        _row_notes(assumed, works, w_codes, gather)
    groups = {}
    first = np.full(m, len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes)))
    for c, key in enumerate(keys):
        groups[key] = {"t": float(t[c]), "n": int(calls[c]), "bytes": float(nbytes[c]),
                       "flops": {p: float(v[c]) for p, v in flops.items() if v[c] > 0},
                       "family": families[c], "matrix_fp32": bool(fp32_matrix[c]), "first": int(first[c]),
                       "unaligned": float(unaligned[c]),
                       "assumed": joined_notes(assumed[c])}
    for g, dtype in zip(groups.values(), row_dtypes(codes, op_of, *op_dtype_codes(ops, nesting.call_keys), m)):
        g["dtype"] = dtype
    return groups, codes


def _distinct_works(tree: OpTree, keyed: np.ndarray, n_ops: int) -> tuple[list, np.ndarray]:
    """The distinct works (by identity, in order of first key) of operator
    keys (``k < n_ops``: operator ``k``'s counted work; else operator
    ``k - n_ops``'s ``aside`` work), and each key's among them. Operators
    of one ``tree.counted_code`` share one work object: Python code per
    distinct code, not per operator."""
    op, is_aside = keyed % n_ops, keyed >= n_ops
    first, inverse = distinct_ints(tree.counted_code[op] * 2 + is_aside)
    objects = [tree.counted[o].aside if a else tree.counted[o]
               for o, a in zip(op[first].tolist(), is_aside[first].tolist())]
    same = distinct(map(id, objects), len(objects))[1]       # two codes may still share an object
    firsts, rank = distinct_ints(same[inverse.ravel()])
    inverse = inverse.ravel()
    return [objects[inverse[k]] for k in firsts.tolist()], rank


def _unaligned_share(works: list, gather: np.ndarray, codes: np.ndarray, durations: np.ndarray,
                     m: int) -> np.ndarray:
    """Per row: the share of its working launches' time whose operator is a
    matrix product with rows not 16-byte aligned (NaN: no such operator
    says either way)."""
    said = np.array([w.unaligned is not None for w in works], dtype=bool)[gather]
    bad = np.array([w.unaligned is True for w in works], dtype=bool)[gather]
    known = np.bincount(codes, weights=durations * said, minlength=m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(known > 0, np.bincount(codes, weights=durations * bad, minlength=m) / known, np.nan)


def _row_notes(assumed: list, works: list, codes: np.ndarray, gather: np.ndarray) -> None:
    """Add to each row's notes (``assumed[row]``) those of the distinct
    works its launches took: one pass per (row, work) pair, not per launch."""
    noted = np.array([bool(w.assumptions) for w in works], dtype=bool)
    sel = noted[gather]
    if not sel.any():
        return
    # one integer per (row, work), ascending as the pairs (row first); a
    # bincount where the pairs are few beside the launches (a sort otherwise)
    key = codes[sel].astype(np.int64) * len(works) + gather[sel]
    span = (int(codes.max()) + 1) * len(works)
    pairs = np.flatnonzero(np.bincount(key, minlength=span)) if span <= 4 * len(key) else np.unique(key)
    for row, k in zip((pairs // len(works)).tolist(), (pairs % len(works)).tolist()):
        add_notes(assumed[row], works[k].assumptions)


def _rowcodes(kernel_names: list, op_names: list, kernel_code: np.ndarray, nesting: Nesting, op_of: np.ndarray,
              working: np.ndarray, comm: np.ndarray | None = None) -> tuple[np.ndarray, list[tuple]]:
    """A row code per launch for (kernel name, operator name, working,
    collective), rows numbered by first launch, and the keys of the rows
    (``kernel_code``: each launch's kernel name's, ``nesting.name_code``
    each operator's name's)."""
    op_code = np.append(nesting.name_code, -1)[op_of]     # op_of -1 -> "" (no operator)
    combined = (kernel_code * (len(nesting.names) + 2) + (op_code + 1)) * 2 + working
    if comm is not None and (comm >= 0).any():           # one row per message of a collective
        combined = combined * (int(comm.max()) + 2) + (comm + 1)
    first, rank = distinct_ints(combined)          # rows in order of first appearance
    keys = []
    for j in first.tolist():
        o = int(op_of[j])
        keys.append((kernel_names[j], op_names[o] if o >= 0 else "", bool(working[j]),
                     -1 if comm is None else int(comm[j])))
    return rank, keys


def op_family(name: str, op_family: str) -> str:
    if op_family and op_family != "view":
        return op_family
    fam = family_of(name)
    return "overhead" if op_family == "view" else fam


def _named_precision(name: str, flops: dict) -> dict | None:
    """A matrix kernel's modelled FLOPs on the unit and precision its name
    states (``cutlass_80_tensorop_s1688gemm``: TF32 tensor cores, whatever
    the operator's dtype suggests; docs/kernel-names.md), or None when the
    name says nothing."""
    named = precision_from_name(name)
    total = sum(flops.values())
    if named is None or not total > 0:
        return None
    return {named.precision: total}


def add_work(g: dict, w, share: float, gpu: bool) -> None:
    for precision, flop in w.flops.items():
        # a CPU's bf16/int8 matrix work is keyed for its matrix units (AMX);
        # the device decides at placement whether it has them (core.cpu_units)
        key = tensor_core_key(precision, w.matrix) if gpu else cpu_flops_key(precision, w.matrix)
        g["matrix_fp32"] = g.get("matrix_fp32", False) or (w.matrix and key == "fp32")
        g["flops"][key] = g["flops"].get(key, 0.0) + float(flop) * float(share)
    g["bytes"] += float(w.bytes) * float(share)


@dataclass(frozen=True, slots=True, eq=False)
class Attribution:
    """What attribution hands on (.result, .phases): the rows, and per
    kernel launch (file order) its row, operator and runtime call."""

    rows: tuple[Kernel, ...]   # one per (kernel name, operator, got work, collective)
    launch_row: np.ndarray     # int64: the launch's index in ``rows``
    op_of: np.ndarray          # int64: the operator that launched it (-1: none)
    call: np.ndarray           # int64: its runtime call's index in the API columns (-1: none)
    comm: C.LaunchComms | None  # its collectives (None: no launch)
    launches: LaunchColumns | None = None   # the launch columns as arrays (None: no launch)


_NONE = np.zeros(0, dtype=np.int64)


def gpu_kernels(gpu, ops: OpEvents, nesting: Nesting, warnings: list[Advice]) -> Attribution:
    """One row per (kernel name, operator that launched it), with each
    launch's row, operator and runtime call for the step split (.phases)."""
    n = len(gpu.kernel_names)
    if n == 0:
        return Attribution((), _NONE, _NONE, _NONE, None)
    tree = build(ops, nesting) if len(ops) and (ops.has_shapes or gpu.extras.op_counts) else None
    if tree is not None and gpu.extras.op_counts:      # Inductor's own counts win (.compiled)
        apply_inductor_counts(tree, ops, gpu.extras)
    launches = launch_columns(gpu)
    call = runtime_calls(gpu)
    enclosing = Enclosing(nesting) if len(ops) else None
    op_of = launch_operators(gpu, ops, launches, enclosing, call)
    replays = replayed(call, gpu.api_graph)
    kernels = captures = np.zeros(0, dtype=np.int64)
    if replays.any() and enclosing is not None:
        kernels, captures = joined_launches(gpu, ops, op_of, replays, call, enclosing.at_many)
        op_of[kernels] = captures
    if len(ops):
        warn_no_shapes(ops, warnings)
    takes, aside = _takes_work(launches, op_of, tree)
    share = _time_shares(op_of + len(ops) * aside, launches.dur, 2 * len(ops), takes | aside)
    share[kernels] = replay_shares(op_of, kernels, call, launches.dur, takes, aside)   # each replay: whole work
    working = (np.zeros(n, dtype=bool) if tree is None else
               (op_of >= 0) & tree.does_work[np.maximum(op_of, 0)] & (share > 0))
    comm = C.launch_comms(gpu, ops, op_of, nesting.parent, getattr(gpu.extras, "job", None) or C.Job())
    why = WhyOf(gpu, ops, tree, nesting.parent, op_of, comm, replays=replays)
    groups, launch_row = _kernel_groups(gpu, ops, nesting, launches, tree, op_of, working, share, comm, aside)
    out = []
    counted = _counter_rows(gpu, groups)
    assumed_fp32 = False
    for key, g in groups.items():
        name, operator, working, coll = key
        fam = family_of(name)
        if fam == "other" and g["family"]:
            fam = kernel_family(g["family"])
        flops = counted.get(key)
        if flops is not None:
            _check_counters(name, flops, g["flops"], warnings)
        elif working:
            flops = _named_precision(name, g["flops"]) or g["flops"] or {"fp32": 0.0}
            assumed_fp32 |= g.get("matrix_fp32", False) and flops is g["flops"]
        nbytes = {"DRAM": g["bytes"]} if working else {}
        collective = comm.collectives[coll] if coll >= 0 else None
        if collective is not None:
            nbytes = comm_bytes(collective, g["n"], C.algorithm_in_switch(collective))
        out.append(Kernel(name=name, time_s=g["t"] * 1e-6, count=g["n"], flops=flops or {},
                          bytes=nbytes, launch=decoded_launch(gpu.launch.get(name, {})),
                          family=fam, modelled=working and flops is not None and key not in counted,
                          operator=operator, collective=collective, dtype=g["dtype"],
                          # what its operator's model assumed, where the model's numbers are the row's
                          assumed=g["assumed"] if working and key not in counted else "",
                          unaligned=g["unaligned"] if working and key not in counted else math.nan,
                          why="" if working or collective is not None or key in counted else why(g["first"])))
    if assumed_fp32:
        warnings.append(Advice("fp32 matrix work of kernels whose names do not say their unit is placed on "
                               "the fp32 units: the trace does not say whether TF32 was allowed (PyTorch's "
                               "default for matmul is off)",
                               "with torch.backends.cuda.matmul.allow_tf32 = True on an NVIDIA GPU "
                               "from Ampere on, the roof is the tensor_tf32 one (GPUs without TF32 "
                               "stay on fp32)", subject="precision"))
    if tree is not None:
        warn_unknown(out, warnings, what="kernel")
        check_torch_flops(ops, tree, warnings)
    return Attribution(tuple(out), launch_row, op_of, call, comm, launches)


def runtime_calls(gpu) -> np.ndarray:
    """Row of the runtime call with each kernel's correlation id (-1: none;
    the last call of an id when several share it)."""
    api, kernel = _coded(gpu.api_corr), _coded(gpu.kernel_corr)
    if api is not None and kernel is not None:
        if len(api) and len(kernel) and (ODD not in api) and (ODD not in kernel):
            low, high = min(int(api.min()), int(kernel.min())), max(int(api.max()), int(kernel.max()))
            if high - low <= 4 * (len(api) + len(kernel)) + 1024:
                # a table indexed by id: repeated ids, the last assignment (the last call) wins
                row_at = np.full(high - low + 1, -1, dtype=np.int64)
                row_at[api - low] = np.arange(len(api))
                return row_at[kernel - low]
        return row_of(api, kernel, last=True)
    row = dict(zip(gpu.api_corr, range(len(gpu.api_corr))))
    row.pop(None, None)
    return np.fromiter(map(row.get, gpu.kernel_corr, itertools.repeat(-1)), dtype=np.int64,
                       count=len(gpu.kernel_corr))


def _coded(ids) -> np.ndarray | None:
    """An id column as int64, ODD where absent (.columns.Ids.coded; a list's
    too, where every value is an integer or None), else None."""
    return (ids if isinstance(ids, Ids) else Ids(ids)).coded()


def launch_operators(gpu, ops, launches: LaunchColumns, enclosing: "Enclosing | None",
                     call: np.ndarray) -> np.ndarray:
    """Index of the operator behind each kernel launch (-1: none): the
    innermost operator on the launching thread whose interval holds the
    runtime call with the kernel's correlation id; else the operator with
    the kernel's ``External id`` (traces differ on what that id names:
    the operator in most, the correlation itself in some 2023 ones)."""
    n = len(gpu.kernel_names)
    op_of = np.full(n, -1, dtype=np.int64)
    if enclosing is None:                  # no operators
        return op_of
    linked = np.flatnonzero(call >= 0)
    if len(linked):
        rows = call[linked]
        op_of[linked] = enclosing.at_codes(enclosing.codes_of(gpu.api_tid)[rows], launches.api_ts[rows])
    unlinked = np.flatnonzero(op_of < 0)
    if len(unlinked):
        op_of[unlinked] = _by_external_id(gpu, ops, unlinked)
    return op_of


def _by_external_id(gpu, ops, unlinked: np.ndarray) -> np.ndarray:
    """The first operator with each of the ``unlinked`` kernels' External
    id (its runtime call's where the kernel has none; -1: none)."""
    columns = [_coded(c) for c in (ops.external_id, gpu.kernel_ext, gpu.kernel_corr, gpu.api_corr,
                                   gpu.api_ext_col)]
    if any(c is None for c in columns):       # an id that is no integer: one Python dict of them
        return _by_external_id_dict(gpu, ops, unlinked.tolist())
    op_ext, kernel_ext, kernel_corr, api_corr, api_ext = columns
    ext = kernel_ext[unlinked]
    none = np.flatnonzero(ext == ODD)
    if len(none):
        calls = np.flatnonzero(api_ext != ODD)            # the last call of a correlation id with an External id
        at = row_of(api_corr[calls], kernel_corr[unlinked[none]], last=True)
        ext[none] = np.append(api_ext[calls], ODD)[at]    # (-1: no call, the ODD after them)
    return row_of(op_ext, ext)


def _by_external_id_dict(gpu, ops, unlinked: list) -> list:
    """:func:`_by_external_id` for ids of any JSON value, one at a time."""
    by_ext = _first_operator_by_id(ops.external_id)
    api_ext = {c: x for c, x in zip(gpu.api_corr, gpu.api_ext_col) if c is not None and x is not None}
    out = []
    for j in unlinked:
        ext = gpu.kernel_ext[j]
        if ext is None:
            ext = api_ext.get(gpu.kernel_corr[j])
        out.append(by_ext.get(ext, -1) if ext is not None else -1)
    return out


def _first_operator_by_id(external_ids: list) -> dict:
    """External id -> the first operator carrying it (unhashable ids skipped)."""
    by_ext: dict = {}
    for i, ext in enumerate(external_ids):
        if ext is not None:
            try:
                by_ext.setdefault(ext, i)
            except TypeError:
                continue
    return by_ext


def _takes_work(launches: LaunchColumns, op_of: np.ndarray, tree: OpTree | None) -> tuple[np.ndarray, np.ndarray]:
    """Which launches take a share of their operator's work: all of them,
    except that the matrix work of a GEMM, convolution or attention
    operator goes only to its matrix kernels (by kernel name) when it
    launched any: a bias copy or layout transform beside a GEMM kernel
    does not do the multiply-adds. The second array: the launches left out
    that take the operator's ``aside`` work instead, where its model has
    one (a fused MoE's routing, quantize and finalize kernels)."""
    takes = op_of >= 0
    aside = np.zeros(len(op_of), dtype=bool)
    if tree is None or not takes.any():
        return takes, aside
    matrix_kernel = launches.per_name(lambda name: family_of(name) in MATRIX)
    matrix_op = tree.matrix
    linked = np.flatnonzero(takes)
    ops_with_matrix_kernel = np.zeros(len(tree.work), dtype=bool)
    ops_with_matrix_kernel[op_of[linked[matrix_kernel[linked]]]] = True
    only_matrix = matrix_op[op_of[linked]] & ops_with_matrix_kernel[op_of[linked]]
    left_out = linked[only_matrix & ~matrix_kernel[linked]]
    takes[left_out] = False
    has_aside = tree.has_aside
    aside[left_out[has_aside[op_of[left_out]]]] = True
    return takes, aside


def _time_shares(op_of: np.ndarray, durations, n_ops: int, takes: np.ndarray) -> np.ndarray:
    """Each launch's share of its operator's work: its duration over the
    total duration of that operator's launches that take work (equal shares
    when all those are 0 long)."""
    dur = np.asarray(durations, dtype=float)
    idx = op_of[takes]
    total = np.bincount(idx, weights=dur[takes], minlength=n_ops)
    calls = np.bincount(idx, minlength=n_ops)
    share = np.zeros(len(dur))
    with np.errstate(divide="ignore", invalid="ignore"):
        share[takes] = np.where(total[idx] > 0, dur[takes] / total[idx], 1.0 / calls[idx])
    return share


def _counter_rows(gpu, groups: dict) -> dict:
    """FLOPs from range-profiler counters per row (mean per call over the
    kernel name's ranges, times the row's calls); the ranges used are taken
    out of ``gpu.ranges``."""
    counted = {}
    names = {key[0] for key in groups}
    for name in names & set(gpu.ranges):
        ranges = gpu.ranges.pop(name)
        mean: dict[str, float] = {}
        for f in ranges:
            for p, v in f.items():
                mean[p] = mean.get(p, 0.0) + v / len(ranges)
        for key, g in groups.items():
            if key[0] == name:
                counted[key] = {p: v * g["n"] for p, v in mean.items()}
    return counted


def _check_counters(name: str, counted: dict, model: dict, warnings: list[Advice]) -> None:
    c, m = sum(counted.values()), sum(model.values())
    if m > 0 and c < (1 - COUNTER_CHECK_TOLERANCE) * m:
        warnings.append(Advice(
            f"counted FLOPs are {c / m:.0%} of the operator model's (direct algorithm)",
            "a fast algorithm (Winograd, FFT) does fewer multiplications; otherwise check the counters",
            subject=name))


def warn_no_shapes(ops: OpEvents, warnings: list[Advice]) -> None:
    if len(ops) and not ops.has_shapes:
        warnings.append(Advice(
            f"the trace's {len(ops)} PyTorch operators have no input shapes, so their work cannot be modelled",
            "record with torch.profiler.profile(record_shapes=True)", subject="kineto"))


def check_torch_flops(ops: OpEvents, tree: OpTree, warnings: list[Advice]) -> None:
    """Compare torch's own FLOP count (``flops`` arg, with_flops=True) with
    the models' FLOPs of the same operator and everything below it."""
    torch_flops = np.asarray(ops.torch_flops, dtype=float)
    has = np.isfinite(torch_flops) & (torch_flops > 0)
    if not has.any():
        return
    per_name: dict[str, list[float]] = {}
    for i in np.flatnonzero(has):
        t = per_name.setdefault(ops.names[i], [0.0, 0.0, 0])
        t[0] += torch_flops[i]
        t[1] += tree.subtree_flops[i]
        t[2] += 1
    for name, (theirs, ours, calls) in sorted(per_name.items()):
        if abs(ours - theirs) > FLOP_CHECK_TOLERANCE * theirs:
            warnings.append(Advice(
                f"torch counts {theirs:.4g} FLOP in {calls} call(s), the operator models {ours:.4g} "
                f"({ours / theirs - 1:+.1%})",
                "the models count 2 FLOP per multiply-add of the direct algorithm; see docs/pytorch.md",
                subject=f"flops check {name}"))
