"""The fields of ``classify``'s rows, written once: their order, their kind,
and their columns. JSON (``render/json_rows``), CSV (``render/tables``)
and ``Placements.records()`` all read this table, so a new field is one
line here and appears in every output.

Kinds, and how each output writes them:

=========  ==========================  ===============  ==================
kind       what it holds               JSON / records   CSV
=========  ==========================  ===============  ==================
``name``   text, always present        string           the text
``text``   text, empty when unknown    string or null   the text, or empty
``bool``   a flag                      true/false       True/False
``count``  whole calls                 integer          integer
``float``  a number, NaN unknown       number or null   number, or empty
``nint``   whole number, NaN unknown   integer or null  integer, or empty
``levels`` one number per memory level object          ``<field>_<level>``
=========  ==========================  ===============  ==================
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .comm import is_comm_key
from .comm_columns import comm_arrays


@dataclass(frozen=True)
class Field:
    name: str
    kind: str
    doc: str


FIELDS = (
    Field("name", "name", "the kernel (or operator) name"),
    Field("family", "text", "its family (gemm, elementwise ...)"),
    Field("variant", "text", "the variant a kernels.csv names (before/after an optimization)"),
    Field("operator", "text", "the framework operator that launched it"),
    Field("device", "text", "the device it ran on, where the file holds several (\"/device:GPU:3\")"),
    Field("modelled", "bool", "its work comes from an operator model, not counters"),
    Field("count", "count", "calls"),
    Field("time_s", "float", "time over all calls, s"),
    Field("flops", "float", "FLOP over all calls, all precisions"),
    Field("bytes", "levels", "bytes moved at each memory level"),
    Field("bound", "name", "compute, bandwidth, overhead or unknown"),
    Field("level", "text", "the memory level that bounds it"),
    Field("predicted_bound", "text", "what its intensity alone predicts"),
    Field("overhead_kind", "text", "what kind of fixed cost bounds it"),
    Field("limiter", "text", "the ceiling that bounds it"),
    Field("reason", "text", "why it is where it is"),
    Field("reason_detail", "text", "the evidence for the reason"),
    Field("fixed_s", "float", "its fixed cost (launch, dispatch), s"),
    Field("intensity", "levels", "FLOP per byte at each memory level"),
    Field("achieved_flop_s", "float", "FLOP/s reached"),
    Field("attainable_flop_s", "float", "FLOP/s its roof allows"),
    Field("roofline_time_s", "float", "the time at its roof, s"),
    Field("efficiency", "float", "roofline time / time"),
    Field("collective", "text", "the collective it runs"),
    Field("dtype", "text", "its operator's (or collective's) dtype"),
    Field("group_size", "nint", "ranks in the collective's group"),
    Field("comm_bytes", "float", "bytes per call of the collective (S)"),
    Field("algbw_bytes_s", "float", "algorithm bandwidth, S / t (nccl-tests)"),
    Field("busbw_bytes_s", "float", "bus bandwidth (nccl-tests)"),
    Field("comm_assumed", "text", "what the collective's figures assumed"),
    Field("assumed", "text", "what its work model assumed"),
)
NAMES = tuple(f.name for f in FIELDS)


def row_columns(p) -> dict:
    """Every field of ``p`` (a Placements) as a column, in :data:`FIELDS`
    order; a ``levels`` field as a dict of level -> column."""
    ks = p.kernels
    comm = comm_arrays(p)
    own = {
        "name": ks.names, "family": ks.families, "variant": ks.variants, "operator": ks.operators,
        "device": ks.devices,
        "modelled": np.asarray(ks.modelled, dtype=bool), "count": ks.count, "time_s": ks.time_s,
        "flops": p.work, "bytes": {lv: v for lv, v in ks.bytes.items() if not is_comm_key(lv)},
        "bound": p.bound, "level": p.level, "predicted_bound": p.predicted_bound,
        "overhead_kind": p.overhead_kind, "limiter": p.limiter, "reason": p.reason,
        "reason_detail": p.reason_detail, "fixed_s": p.fixed_s, "intensity": p.intensity,
        "achieved_flop_s": p.achieved_flop_s, "attainable_flop_s": p.attainable_flop_s,
        "roofline_time_s": p.roofline_time_s, "efficiency": p.efficiency, "assumed": ks.assumed, **comm}
    return {name: own[name] for name in NAMES}


def flat_columns(p) -> list[tuple[str, str, object]]:
    """(name, kind, column) of :func:`row_columns`, each ``levels`` field
    spread into one ``float`` column per level (``bytes_DRAM``,
    ``intensity_L2``): the CSV's columns."""
    out = []
    for f, column in zip(FIELDS, row_columns(p).values()):
        if f.kind == "levels":
            out += [(f"{f.name}_{level}", "float", values) for level, values in column.items()]
        else:
            out.append((f.name, f.kind, column))
    return out
