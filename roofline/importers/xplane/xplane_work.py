"""The work (FLOP and bytes) of TensorFlow/JAX kernels, as columns.

- XLA's cost analysis where the file has it: stats ``flops`` and
  ``bytes_accessed`` on a kernel event, or on the ``XLA Ops`` event of its
  HLO op, spread over that op's kernels by duration;
- else the HLO instruction the kernel ran (stats ``hlo_module``,
  ``hlo_op``, ``program_id``), costed from the HLO module the profile
  embeds (:mod:`.xla_hlo`): one execution's work times the executions
  (the fewest launches of any kernel name of that instruction on that
  device), spread by duration over its matrix kernels (dot, convolution)
  or over all its kernels;
- else the TF op models of :mod:`.xplane_costs` from the input shapes the
  host recorded, spread over the op's matrix kernels by duration.

All are models (``modelled``). FLOPs of XLA's counts go on the precision
the kernel's name states, else fp32 (they carry no dtype); the HLO model's
on the precision of the element types; bytes on DRAM.
"""
from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from ...core.errors import Advice
from ...core.families import COPIES, MATRIX, family_of
from .xla_hlo import HloModules, hlo_ref
from .xla_hlo_cost import HloCost
from .xplane_capture import Capture
from .xplane_costs import MODELLED_OPS, op_cost
from .xplane_stats import precision_key, split_op, xla_cost


def work_columns(cap: Capture, rows: dict, ops: np.ndarray, families: np.ndarray, names: np.ndarray,
                 warnings: list[Advice]):
    """(FLOP columns by precision, byte columns by level, modelled, rows per
    source) of the rows of ``cap``: NaN where a row has no such work."""
    n = len(ops)
    flops: dict[str, np.ndarray] = {}
    nbytes: dict[str, np.ndarray] = {}
    modelled = np.zeros(n, dtype=bool)
    whys = np.full(n, "", dtype=object)
    sources = {"xla": 0, "tf": 0, "hlo": 0}

    def put(columns: dict, key: str, where, values) -> None:
        if key not in columns:
            columns[key] = np.full(n, math.nan)
        columns[key][where] = values

    # XLA cost analysis on the kernel event itself: once per distinct profile
    own = [xla_cost(s) for s in cap.profiles]
    has_own = np.array([c is not None for c in own] or [False], dtype=bool)[rows["profile"]]
    for i in np.flatnonzero(has_own).tolist():
        cost = own[int(rows["profile"][i])]
        if cost[0]:
            put(flops, precision_key(names[rows["name_id"][i]]), i, cost[0])
        if cost[1]:
            put(nbytes, "DRAM", i, cost[1])
    modelled |= has_own
    sources["xla"] += int(has_own.sum())
    # per HLO op (XLA Ops line) and per TF op (host shapes): spread over the op's kernels
    computing = ~has_own & ~np.isin(families, list(COPIES))
    assumptions: set[str] = set()
    duration = rows["duration_ns"]
    modules = HloModules(cap.hlo_protos)
    refs = _row_refs(cap, rows, ops, names, modules, computing)
    keys = np.array([("\0".join(map(str, r)) if r else "") for r in refs], dtype=object)
    keys = np.where(keys == "", ops, keys)
    eligible = (keys != "") & computing
    for (device, key), members in _groups(rows["device_id"], keys, eligible):
        op = str(ops[members[0]])
        ref = refs[int(members[0])]
        total = _op_total(cap, cap.device_names.values[device], op, assumptions)
        if total is None and ref is not None:
            total = _hlo_total(modules.cost(ref), members, rows, families, whys)
        if total is None:
            continue
        if len(total) > 4:
            _name_family(total[4], members, rows, names, families)
        matrix = members[np.isin(families[members], list(MATRIX))] if total[2] else members[:0]
        chosen = matrix if len(matrix) else members
        if total[3] == "hlo":
            total = _executions(total, chosen, rows)
            beyond = _beyond_any_gpu(total, duration[chosen])
            if beyond:
                whys[members] = "HLO: " + beyond
                continue
        if len(chosen) < len(members):
            whys[np.setdiff1d(members, chosen)] = (f"a helper kernel of {op}: the op's FLOPs and bytes went to "
                                                   "its matrix kernels")
        time = sum(duration[chosen].tolist())       # added in order, as the kernels ran
        share = duration[chosen] / time if time > 0 else np.full(len(chosen), 1.0 / len(chosen))
        if total[3] == "xla":
            value = total[0][""] * share
            for i, v in zip(chosen.tolist(), value.tolist()):
                if v:
                    put(flops, precision_key(names[rows["name_id"][i]]), i, v)
        else:
            for p, v in total[0].items():
                put(flops, p, chosen, v * share)
        if total[1]:
            put(nbytes, "DRAM", chosen, total[1] * share)
        modelled[chosen] = True
        sources[total[3]] += len(chosen)
    for text in sorted(assumptions):
        warnings.append(Advice(f"TF op models: {text}", "the FLOPs of those ops may be off by the stride "
                               "squared", subject="tensorflow"))
    return flops, nbytes, modelled, sources, whys, modules


def _row_refs(cap: Capture, rows: dict, ops: np.ndarray, names: np.ndarray, modules: HloModules,
              computing: np.ndarray) -> np.ndarray:
    """Each row's HLO instruction (module, program id, name) or None: from
    its stats, else, for a launch with no op at all, from its kernel's name
    (:meth:`HloModules.kernel_ref`); such rows take the instruction as their op."""
    by_profile = np.array([None] + [hlo_ref(s) for s in cap.profiles], dtype=object)
    refs = by_profile[rows["profile"] + 1]
    bare = np.flatnonzero(computing & (ops == "") & (refs == None))      # noqa: E711  (elementwise)
    if len(bare) and len(modules):
        for name_id in np.unique(rows["name_id"][bare]).tolist():
            ref = modules.kernel_ref(str(names[name_id]))
            if ref is not None:
                members = bare[rows["name_id"][bare] == name_id]
                refs[members] = [ref] * len(members)
                ops[members] = f"{ref[0]}/{ref[2]}"
    return refs


def _hlo_total(cost, members, rows, families, whys):
    """(FLOP per precision, bytes, matrix, "hlo") of ONE execution of an HLO
    instruction (scaled by :func:`_executions`), or None with each row's why."""
    if isinstance(cost, str) or cost.unmodelled:
        whys[members] = "HLO: " + (cost if isinstance(cost, str) else cost.unmodelled)
        return None
    if not cost.flops and not cost.bytes:
        whys[members] = "HLO: no FLOPs and no bytes"
        return None
    return (dict(cost.flops), cost.bytes, cost.matrix, "hlo", cost.family)


def _name_family(family: str, members, rows, names, families) -> None:
    """The HLO's family for kernels whose name says none (``fusion_12``; an
    ``input_*`` fusion is a reduction only when its body reduces), unless
    the instruction is matrix work some kernel of its own names."""
    if not family or (family in MATRIX and np.isin(families[members], list(MATRIX)).any()):
        return              # a library's matrix kernel did the work: the others are its helpers (im2col)
    for name_id in np.unique(rows["name_id"][members]).tolist():
        if family_of(str(names[name_id])) == "other":
            families[members[rows["name_id"][members] == name_id]] = family


def _executions(total, chosen, rows):
    """An HLO instruction's work times its executions: the fewest launches
    of any kernel name it launched (a convolution that runs an im2col and a
    GEMM kernel per execution ran as often as each)."""
    _, calls = np.unique(rows["name_id"][chosen], return_counts=True)
    times = float(calls.min()) if len(calls) else 0.0
    return ({p: v * times for p, v in total[0].items()}, total[1] * times) + tuple(total[2:])


# Rates no GPU reaches: 100 PFLOP/s (10x the dense FP4 peak of the fastest
# GPUs of 2025) and 1 PB/s (100x HBM3e). A modelled kernel above them has
# work from a damaged module (or one that is not this kernel's), not a speed.
MAX_FLOP_RATE, MAX_BYTE_RATE = 1e17, 1e15


def _beyond_any_gpu(total, duration_ns: np.ndarray) -> str:
    """Why an HLO instruction's work cannot be what its kernels did in the
    time they took ('' when it can)."""
    time_s = sum(duration_ns.tolist()) * 1e-9
    flops, nbytes = sum(total[0].values()), total[1]
    if not (math.isfinite(flops) and math.isfinite(nbytes)):
        return "work that is no finite number"
    if time_s <= 0:
        return ""
    for value, limit, unit in ((flops, MAX_FLOP_RATE, "FLOP"), (nbytes, MAX_BYTE_RATE, "B")):
        if value / time_s > limit:
            return (f"{value:.3g} {unit} in {time_s:.3g} s is {value / time_s:.3g} {unit}/s, more than any GPU "
                    f"does ({limit:.0e}): the module's shapes are damaged or not this kernel's")
    return ""


def _groups(device_id: np.ndarray, ops: np.ndarray, eligible: np.ndarray):
    """((device index, op), row indices) of the eligible rows, by device and op."""
    rows = np.flatnonzero(eligible)
    if not len(rows):
        return
    op_ids, op_inverse = np.unique(ops[rows], return_inverse=True)
    key = device_id[rows] * len(op_ids) + op_inverse.reshape(-1)
    order = np.argsort(key, kind="stable")
    key, rows = key[order], rows[order]
    cuts = np.flatnonzero(np.diff(key)) + 1
    for members in np.split(rows, cuts):
        first = int(members[0])
        yield (int(device_id[first]), str(ops[first])), members


def _op_total(cap: Capture, device: str, op: str, assumptions: set[str]):
    """(flops, bytes, matrix, source) of all calls of ``op`` on ``device``
    (TF ops: all calls of that name)."""
    # the XLA Ops line may name no module
    known = cap.hlo_costs.get((device, op)) or cap.hlo_costs.get((device, op.rpartition("/")[2]))
    if known:
        stats, occurrences = known
        cost = xla_cost(stats)
        if cost is not None:
            return ({"": cost[0] * occurrences}, (cost[1] or 0.0) * occurrences, False, "xla")
    name, kind = split_op(op)
    if kind not in MODELLED_OPS or name not in cap.op_shapes:
        return None
    flops: dict[str, float] = defaultdict(float)
    nbytes = 0.0
    for shapes, calls in cap.op_shapes[name].items():
        cost = op_cost(kind, shapes, cap.op_outputs.get(name, ()))
        if cost is None:
            return None
        for p, v in cost.flops.items():
            flops[p] += v * calls
        nbytes += cost.bytes * calls
        if cost.assumption:
            assumptions.add(cost.assumption)
    return (dict(flops), nbytes, True, "tf") if flops else None
