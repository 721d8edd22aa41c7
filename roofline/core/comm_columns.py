"""The collective fields of ``classify``'s rows (JSON, CSV, records: their
order is :mod:`.row_schema`'s), as columns: what each collective is, moves and achieves, by nccl-tests'
definitions, and what it assumed (:mod:`.comm` computes them)."""
from __future__ import annotations

import math

import numpy as np

from .row_dtypes import row_dtypes
from .comm import CALLS, MESSAGE, bus_bytes, column_of

COMM_FIELDS = ("collective", "dtype", "group_size", "comm_bytes", "algbw_bytes_s", "busbw_bytes_s",
               "comm_assumed")
COMM_TEXT = ("collective", "dtype", "comm_assumed")        # the rest: group_size (an integer) and rates
COMM_NUMBERS = ("comm_bytes", "algbw_bytes_s", "busbw_bytes_s")


def comm_arrays(p) -> dict:
    """The collective fields of ``classify``'s JSON/CSV as columns: the
    collective, its dtype and group size (``""``/NaN where a row has none;
    rows summed from several keep only the numbers), ``comm_bytes`` (``S``
    per call), ``algbw_bytes_s`` and ``busbw_bytes_s`` (nccl-tests'
    definitions: ``S / t`` and the bus bytes over the time), and
    ``comm_assumed``: what the row's collective assumed (its group size from
    the job's world size, the ranks per node ...), ``"; "``-joined."""
    ks = p.kernels
    coll = ks.collectives
    n = len(ks)
    names, dtypes, group = np.full(n, "", dtype=object), row_dtypes(ks), np.full(n, math.nan)
    assumed = np.full(n, "", dtype=object)
    for i in np.flatnonzero(np.not_equal(coll, None)).tolist():
        c = coll[i]
        names[i] = c.name
        group[i] = c.group_size if c.group_size else math.nan
        assumed[i] = "; ".join(getattr(c, "assumptions", ()) or ())
    message, calls = column_of(ks, MESSAGE), column_of(ks, CALLS)
    time = ks.time_s
    with np.errstate(divide="ignore", invalid="ignore"):
        per_call = message / calls
        algbw = np.where(time > 0, message / time, math.nan)
        busbw = np.where(time > 0, bus_bytes(ks) / time, math.nan)
    return {"collective": names, "dtype": dtypes, "group_size": group, "comm_bytes": per_call,
            "algbw_bytes_s": algbw, "busbw_bytes_s": busbw, "comm_assumed": assumed}
