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

import math

import numpy as np

from .comm import is_comm_key
from .comm_columns import comm_arrays
from .units import format_si, whole_counts


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


def listed_columns(p, indices=None) -> dict:
    """Every field as a list (None for a missing value), for all rows or
    those at ``indices``; a ``levels`` field as a dict of level -> list."""
    idx = slice(None) if indices is None else np.asarray(indices, dtype=np.int64)
    return {f.name: _listed(f.kind, column, idx) for f, column in zip(FIELDS, row_columns(p).values())}


def data_frame(p):
    """The rows as a pandas DataFrame with the CSV's columns and kinds."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("Placements.to_pandas() needs pandas: pip install pandas") from None
    columns = {}
    for name, kind, values in flat_columns(p):
        if kind == "count":
            values = whole_counts(values)
        elif kind == "nint":
            values = pd.array([int(v) if math.isfinite(v) else None for v in np.asarray(values, float).tolist()],
                              dtype="Int64")
        elif kind in ("name", "text"):
            values = np.asarray(values, dtype=object)
        columns[name] = values
    return pd.DataFrame(columns)


def placements_summary(p) -> str:
    """One line: rows, device, total time and its share by bound class."""
    time = np.nan_to_num(np.asarray(p.kernels.time_s, dtype=float))
    total = float(time.sum())
    bound = np.asarray(p.bound, dtype=object)
    shares = []
    for cls in dict.fromkeys(bound.tolist()):
        t = float(time[bound == cls].sum())
        if total > 0 and t > 0:
            shares.append((t, f"{cls} {100 * t / total:.0f} %"))
    split = ", ".join(text for _, text in sorted(shares, reverse=True))
    return (f"{len(p):,} rows on {p.device.name}, {format_si(total, 's')}"
            + (f": {split}" if split else ""))


def _listed(kind: str, column, idx):
    """A column of :mod:`.row_schema` at ``idx`` as the list records() holds."""
    if kind == "levels":
        return {lv: _numbers(v[idx]) for lv, v in column.items()}
    column = np.asarray(column)[idx]
    if kind == "name":
        return _strings(column)
    if kind == "text":
        return _texts(column)
    if kind == "bool":
        return column.tolist()
    if kind == "count":
        return whole_counts(column).tolist()
    if kind == "nint":
        return [int(v) if math.isfinite(v) else None for v in np.asarray(column, dtype=float).tolist()]
    return _numbers(column)


def _numbers(values: np.ndarray) -> list:
    """Floats, with None where not finite (C loops, no Python per value)."""
    out = np.asarray(values, dtype=float).astype(object)
    out[~np.isfinite(np.asarray(values, dtype=float))] = None
    return out.tolist()


def _strings(values: np.ndarray) -> list:
    return [str(v) for v in values.tolist()]


def _texts(values: np.ndarray) -> list:
    """Strings, with None for empty ones."""
    return [str(v) if v else None for v in values.tolist()]


