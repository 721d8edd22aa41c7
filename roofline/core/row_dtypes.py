"""The ``dtype`` field of ``classify``'s rows (JSON, CSV, records, table):
a collective's dtype where the row is one (:mod:`.comm_columns`, spelt as
the trace spells it: ``BFloat16``), else the dtype(s) of the operator
behind the row as its importer read them (``Kernel.dtype``: ``bf16``,
``bf16,fp32``, ``fp32->bf16`` for a cast, ``a|b`` for a row over calls of
several); ``""`` where nothing says. numpy at most."""
from __future__ import annotations

import numpy as np


def row_dtypes(kernels) -> np.ndarray:
    """Per row of ``kernels`` (a KernelSet): its dtype text (see the module doc)."""
    out = np.array(kernels.dtypes, dtype=object, copy=True)
    coll = kernels.collectives
    for i in np.flatnonzero(np.not_equal(coll, None)).tolist():
        said = getattr(coll[i], "dtype", "") or ""
        if said:
            out[i] = said
    return out
