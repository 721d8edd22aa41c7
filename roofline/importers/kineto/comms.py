"""Collectives of a Kineto trace: what each communication kernel moves.

For every communication kernel (family ``communication``) the collective,
dtype, group size and message size come from, first to last:

1. the kernel's own arguments (``Collective name``, ``In/Out msg nelems``,
   ``Group size``, ``dtype``, ``Process Group Ranks``: PyTorch writes them
   on NCCL kernels since 2024);
2. the ``record_param_comms`` operator around its launch, with the same
   arguments;
3. older schemas: the ``nccl:*`` annotation around the launch (its ``Input
   Dims``/``Input type`` are the input tensor) and the ``c10d::`` /
   ``symm_mem::`` / ``vllm::`` operators around it, whose output and input
   shapes give all-gather's and reduce-scatter's group size;
4. the kernel's name, for the collective and NCCL's algorithm only.

A group size no source states is, first to last: the size of the process
group the source names (``distributedInfo`` ``pg_config``); an all-gather's
output over its input (a reduce-scatter's input over its output) when that
is a whole number; the trace's only process-group size; the job's world
size, as an assumption the collective carries. The group's ranks (or,
without them, ``ceil(n / ranks per node)``) say how many nodes it spans;
ranks per node are the GPUs ``deviceProperties`` lists when it lists more
than one. One listed GPU says nothing of the node (a rank that sees only
its own GPU, as under SLURM or ``CUDA_VISIBLE_DEVICES``): 8 are assumed, as
without the list, and the collective says so. The collective keeps the
process group (its name, else its ranks) of the source that sized it, so
ranks' traces match it to the right group.
``wait`` pseudo-collectives and collectives of 0 elements move nothing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...core.comm_checks import collective_field_error
from ...core import reasons as R
from ...core.comm import Collective, group_from_sides, message_elements
from ...core.families import family_of
from ...ops.collectives import (WAIT, canonical, element_bytes, from_kernel_name, in_switch,
                                is_comm_operator, operator_message, parse_ranks)

DEFAULT_RANKS_PER_NODE = 8


@dataclass(frozen=True)
class Job:
    """What the trace says of its job (``distributedInfo``, ``deviceProperties``)."""

    world_size: int | None = None
    groups: tuple = ()                  # (name, size, ranks) of each process group
    ranks_per_node: int | None = None   # GPUs listed in deviceProperties, when more than one
    gpus_listed: int = 0                # GPUs listed in deviceProperties

    @classmethod
    def of(cls, trace) -> "Job":
        info = getattr(trace, "distributedInfo", None)
        info = info if isinstance(info, dict) else {}
        world = info.get("world_size")
        groups = []
        for g in info.get("pg_config") or ():
            if isinstance(g, dict) and "nccl" in str(g.get("backend_config", "nccl")):
                groups.append((str(g.get("pg_name")), _int(g.get("pg_size")), parse_ranks(g.get("ranks"))))
        props = getattr(trace, "deviceProperties", None)
        listed = len(props) if isinstance(props, list) else 0
        # one listed GPU is what a rank with one visible GPU sees: no node size
        return cls(_int(world), tuple(groups), listed if listed > 1 else None, listed)


class CollectiveFieldError(ValueError):
    """A collective's recorded size that no job has (the reader names the file)."""


def _as_number(x):
    """A recorded count as a number where its text is one ("8", "1.5e6"), else as recorded."""
    if isinstance(x, str):
        try:
            v = float(x)
        except ValueError:
            return x
        return int(v) if v.is_integer() else v
    return x


def _int(x) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) and x > 0 else None


def _num(x) -> float | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)) and math.isfinite(x) and x >= 0:
        return float(x)
    if isinstance(x, str):
        try:
            v = float(x)
        except ValueError:
            return None
        return v if math.isfinite(v) and v >= 0 else None
    return None


@dataclass
class LaunchComms:
    """Per launch: the index of its collective in ``collectives`` (-1: none)
    and why a communication kernel has no size (``""``: it has one)."""

    code: np.ndarray
    collectives: list = field(default_factory=list)
    why: dict = field(default_factory=dict)      # launch -> reason


def launch_comms(gpu, ops, op_of: np.ndarray, parent: np.ndarray, job: Job) -> LaunchComms:
    n = len(gpu.kernel_names)
    out = LaunchComms(np.full(n, -1, dtype=np.int64))
    comm_names = {k for k in set(gpu.kernel_names) if family_of(k) == "communication"}
    launches = [j for j, k in enumerate(gpu.kernel_names) if k in comm_names] if comm_names else []
    launches = sorted(set(launches) | set(gpu.extras.kernel_comm))
    if not launches:
        return out
    ctx = _Context(gpu, ops, parent, job)
    index: dict = {}
    for j in launches:
        coll, why = ctx.collective(j, int(op_of[j]))
        if coll is None:
            out.why[j] = why
            continue
        code = index.get(coll)
        if code is None:
            code = index[coll] = len(out.collectives)
            out.collectives.append(coll)
        out.code[j] = code
    return out


class _Context:
    def __init__(self, gpu, ops, parent, job: Job):
        self.gpu, self.ops, self.job = gpu, ops, job
        self.parent = parent              # the operators' nesting (.nesting)
        self._api = None
        self._ann = None
        self._shapes: dict = {}

    def launch_call(self, j: int):
        """(thread, start) of the runtime call that launched kernel ``j``."""
        if self._api is None:
            self._api = {c: i for i, c in enumerate(self.gpu.api_corr) if c is not None}
        i = self._api.get(self.gpu.kernel_corr[j])
        return None if i is None else (self.gpu.api_tid[i], self.gpu.api_ts[i])

    def annotation(self, j: int) -> int:
        """The innermost ``nccl:*`` annotation around kernel ``j``'s launch
        (-1: none): on the launching thread, the latest to start before the
        launch that has not ended by then."""
        ext = self.gpu.extras
        if not ext.ann_names:
            return -1
        call = self.launch_call(j)
        if call is None:
            return -1
        if self._ann is None:            # per thread: (indices, starts, ends) by start
            by_tid: dict = {}
            for i, tid in enumerate(ext.ann_tid):
                by_tid.setdefault(tid, []).append(i)
            self._ann = {}
            for tid, idx in by_tid.items():
                idx = sorted(idx, key=lambda i: ext.ann_ts[i])
                self._ann[tid] = (idx, np.array([ext.ann_ts[i] for i in idx]),
                                  np.array([ext.ann_ts[i] + ext.ann_dur[i] for i in idx]))
        tid, t = call
        found = self._ann.get(tid)
        if found is None:
            return -1
        idx, lo, hi = found
        k = int(np.searchsorted(lo, t, side="right")) - 1
        for back in range(k, max(k - 16, -1), -1):     # collectives' annotations nest shallowly
            if hi[back] >= t:
                return idx[back]
        return -1

    def chain(self, op: int):
        while op >= 0:
            yield op
            op = int(self.parent[op])

    def collective(self, j: int, op: int) -> tuple[Collective | None, str]:
        name = self.gpu.kernel_names[j]
        kernel_coll, algorithm = from_kernel_name(name)
        args = self.gpu.extras.kernel_comm.get(j)
        source = "kernel arguments"
        shapes, shape_source = None, ""
        for o in self.chain(op) if op >= 0 else ():
            if args is None and o in self.gpu.extras.op_comm:
                args, source = self.gpu.extras.op_comm[o], self.ops.names[o]
            if shapes is None and is_comm_operator(self.ops.names[o]) and self.ops.call[o] >= 0:
                shapes = self._operator_shapes(o)
                shape_source = f"{self.ops.names[o]} shapes"
        a = self.annotation(j) if args is None else -1
        ann = None
        if a >= 0:
            ext = self.gpu.extras
            ann = operator_message(ext.ann_names[a], *ext.ann_shapes[a])
            if ann is None:
                ann = {"collective": canonical(ext.ann_names[a])}
            ann_source = f"{ext.ann_names[a]} Input Dims"
        if args is not None:
            return self._from_args(args, source, kernel_coll, algorithm, shapes)
        coll = (ann or {}).get("collective") or (shapes or {}).get("collective") or kernel_coll
        if coll in (None, WAIT):
            return None, R.NO_SIZE if coll is None else R.NO_TRAFFIC
        # the operator's shapes size it when they give both sides and no less
        # than the annotation's input (a Tensor[][] is recorded as a
        # GenericList: a side of 0); else the annotation's Input Dims do
        whole = (shapes is not None and shapes.get("collective") == coll and shapes["in"] > 0
                 and shapes["out"] > 0)
        if ann is not None and "in" in ann and not (whole and shapes["in"] >= ann["in"]):
            sized, src = ann, ann_source
        elif shapes is not None:
            sized, src = shapes, shape_source
        else:
            return None, R.NO_SIZE
        group = sized.get("group") or (shapes.get("group") if whole else None)
        return self._build(coll, sized["in"], sized["out"], sized.get("dtype"), group, None, None, src, algorithm)

    def _operator_shapes(self, o: int):
        key = (self.ops.names[o], self.ops.call[o])
        if key not in self._shapes:
            dims, types = self.ops.decoded(self.ops.call[o])[:2]
            self._shapes[key] = operator_message(self.ops.names[o], dims, types)
        return self._shapes[key]

    def _from_args(self, args, source, kernel_coll, algorithm, shapes) -> tuple[Collective | None, str]:
        coll = canonical(args.collective) if isinstance(args.collective, str) else None
        if coll == WAIT:
            return None, R.NO_TRAFFIC
        coll = coll or kernel_coll
        bad = collective_field_error(_as_number(args.group_size), _as_number(args.in_elems),
                                     _as_number(args.out_elems), world_size=self.job.world_size)
        if bad:      # an impossible size is a damaged record, not an absent one
            raise CollectiveFieldError(f"{source}: {bad}")
        in_e, out_e = _num(args.in_elems), _num(args.out_elems)
        if coll is None or in_e is None and out_e is None:
            return None, R.NO_SIZE
        return self._build(coll, in_e or 0.0, out_e or 0.0, args.dtype, _int(args.group_size),
                           str(args.group_name) if args.group_name is not None else None,
                           parse_ranks(args.group_ranks), source, algorithm, (shapes or {}).get("group"))

    def _build(self, coll, in_e, out_e, dtype, group, group_name, ranks, source, algorithm, hint=None):
        notes = []
        elt = element_bytes(dtype)
        if elt is None:
            return None, R.NO_SIZE
        named = next((g for g in self.job.groups if group_name is not None and g[0] == group_name), None)
        if ranks is None and named is not None:
            ranks = named[2]
        n = group
        if n is None and ranks:
            n = len(ranks)
        if n is None and named is not None and named[1]:
            n = named[1]
        if n is None:
            n = group_from_sides(coll, in_e, out_e)
            if n is not None:
                notes.append("group size from the ratio of the recorded output and input")
        if n is None and hint:
            n = hint
            notes.append("group size from the ratio of the operator's output and input shapes")
        if n is None:
            n, ranks, group_name, note = self._group()
            if note:
                notes.append(note)
        if n is None:
            return None, R.NO_SIZE
        s = message_elements(coll, n, in_e, out_e) * elt
        if s <= 0 or n <= 1:
            return None, R.NO_TRAFFIC
        per_node = self.job.ranks_per_node or DEFAULT_RANKS_PER_NODE
        if self.job.ranks_per_node is None:
            listed = self.job.gpus_listed
            notes.append(f"{DEFAULT_RANKS_PER_NODE} ranks per node assumed (the trace lists "
                         + ("no GPUs)" if not listed else
                            "one GPU, as a rank that sees only its own does: it says nothing of the node)"))
        nodes = len({r // per_node for r in ranks}) if ranks else max(1, -(-n // per_node))
        if not ranks and n > 1:
            notes.append("the group's ranks are not recorded: consecutive ranks assumed")
        label = group_name if group_name is not None else (str(list(ranks)) if ranks else "")
        return Collective(coll, _dtype_name(dtype), n, float(s), nodes, algorithm, source, tuple(notes),
                          label), ""

    def _group(self):
        """(size, ranks, name, assumption) of a group no source sized or named."""
        groups = self.job.groups
        sizes = {g[1] for g in groups if g[1]}
        if len(sizes) == 1:
            g = groups[0]
            one = len(groups) == 1
            return (g[1], g[2] if one else None, g[0] if one else None,
                    "group size from the trace's only process-group size")
        if self.job.world_size:
            return self.job.world_size, None, None, "group size assumed: the job's world size"
        return None, None, None, ""


def _dtype_name(dtype) -> str:
    if not isinstance(dtype, str):
        return ""
    return dtype.replace("c10::", "")


def algorithm_in_switch(coll: Collective) -> bool:
    return in_switch(coll.algorithm)
