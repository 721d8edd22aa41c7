"""What the reader keeps of a trace for collectives and compiled kernels,
beside the columns of :mod:`.events`: the communication arguments of
operators and kernels, Inductor's counts on Triton launches, and the
``nccl:*`` annotations that hold a collective's size in older traces.

Only the few events that carry such arguments are kept (by their index
among the trace's operators or kernels), so a trace without them costs one
pass over its arguments.
"""
from __future__ import annotations

from dataclasses import dataclass, field


from .decode import has_comm_fields
from .op_columns import json_or_none


@dataclass(frozen=True)
class CommArgs:
    """The communication arguments PyTorch writes (torch/csrc/profiler/util.h)."""

    collective: object = None      # "Collective name"
    in_elems: object = None        # "In msg nelems"
    out_elems: object = None       # "Out msg nelems"
    group_size: object = None      # "Group size"
    dtype: object = None
    group_name: object = None      # "Process Group Name"
    group_ranks: object = None     # "Process Group Ranks"


def comm_args(a) -> CommArgs | None:
    if a is None or a.coll_name is None:
        return None
    return CommArgs(a.coll_name, a.in_nelems, a.out_nelems, a.group_size, a.dtype, a.pg_name, a.pg_ranks)


# annotations that are collectives (the cpu-side record_function of a c10d
# collective: nccl:all_reduce, rccl:..., gloo:...)
COMM_ANNOTATION = ("nccl:", "rccl:", "xccl:", "ucc:")


@dataclass
class Extras:
    op_comm: dict = field(default_factory=dict)        # operator index -> CommArgs
    op_counts: dict = field(default_factory=dict)      # operator index -> (kernel_flop, kernel_num_gb)
    kernel_comm: dict = field(default_factory=dict)    # launch index -> CommArgs
    # nccl:* annotations: name, start, duration (us), thread, (Input Dims, Input type) raw JSON
    ann_names: list = field(default_factory=list)
    ann_ts: list = field(default_factory=list)
    ann_dur: list = field(default_factory=list)
    ann_tid: list = field(default_factory=list)
    ann_shapes: list = field(default_factory=list)
    job: object = None      # the job the trace names (.comms.Job), set before attribution

    def take_ops(self, base: int, args: list) -> None:
        """Communication arguments and Inductor counts of operators
        ``base``, ``base + 1``, ... (their args in order)."""
        if not _comm_fields(args):
            return
        for j, a in enumerate(args):
            self.take_op(base + j, a)

    def take_op(self, index: int, a) -> None:
        """Operator ``index``'s, from its args decoded with the collective fields."""
        if a is None or (a.coll_name is None and a.kernel_flop is None and a.kernel_num_gb is None):
            return
        c = comm_args(a)
        if c is not None:
            self.op_comm[index] = c
        if a.kernel_flop is not None or a.kernel_num_gb is not None:
            self.op_counts[index] = (a.kernel_flop, a.kernel_num_gb)

    def take_kernels(self, base: int, args: list) -> None:
        if not _comm_fields(args):
            return
        for j, a in enumerate(args):
            self.take_kernel(base + j, a)

    def take_kernel(self, index: int, a) -> None:
        if a is not None and a.coll_name is not None:
            self.kernel_comm[index] = comm_args(a)

    def take_annotations(self, names: list, ts: list, dur: list, events: list) -> None:
        for name, t, d, e in zip(names, ts, dur, events):
            if name.startswith(COMM_ANNOTATION):
                a = e.args
                dims = None if a is None else (a.input_dims if a.input_dims is not None else a.input_dims_2021)
                self.take_annotation(name, t, d, e.tid, dims, None if a is None else a.input_type)

    def take_annotation(self, name: str, t: float, d: float, tid, dims, types) -> None:
        """An ``nccl:*`` annotation, its Input Dims and Input type as raw JSON (or None)."""
        self.ann_names.append(name)
        self.ann_ts.append(t)
        self.ann_dur.append(d)
        self.ann_tid.append(tid)
        self.ann_shapes.append((json_or_none(dims), json_or_none(types)))


def _comm_fields(args: list) -> bool:
    """Whether a batch's args (one chunk, one struct type) have the fields."""
    first = next((a for a in args if a is not None), None)
    return first is not None and has_comm_fields(first)
