"""The figures a trace records for one collective, checked before they
size it: a group size that is no count of ranks (0, -4, ``true``, more
ranks than the job has) or an element count no memory holds (1e30) is an
error naming the field, not a value quietly treated as absent or used.
The Kineto reader calls :func:`collective_field_error` on each record's
arguments and refuses the file with the message it returns.
"""
from __future__ import annotations

import math

MAX_RANKS = 2 ** 24          # 16.7M ranks: beyond any job; above it (world size unknown) a damaged field
MAX_ELEMENTS = 2 ** 50       # 1.1e15 elements (2 PiB of bf16): more than a job's memory holds


def collective_field_error(group_size=None, in_elems=None, out_elems=None, world_size=None,
                           names=("Group size", "In msg nelems", "Out msg nelems")) -> str | None:
    """A one-line message naming the first impossible field, or None. A
    field absent from the record is None and is not checked; ``world_size``
    (the job's ranks, when the trace gives it) bounds the group size."""
    group_name, in_name, out_name = names
    if group_size is not None:
        bad = _count_error(group_size, world_size)
        if bad:
            return f"{group_name} {_shown(group_size)}: {bad}"
    for name, value in ((in_name, in_elems), (out_name, out_elems)):
        if value is not None:
            bad = _elements_error(value)
            if bad:
                return f"{name} {_shown(value)}: {bad}"
    return None


def _count_error(value, world_size) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return "expected a whole number of ranks"
    if value < 1:
        return "a group has at least one rank"
    if isinstance(world_size, int) and not isinstance(world_size, bool) and world_size > 0 and value > world_size:
        return f"more ranks than the job's {world_size}"
    if value > MAX_RANKS:
        return f"more than {MAX_RANKS:,} ranks: a damaged field"
    return None


def _elements_error(value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "expected a number of elements"
    if isinstance(value, float) and not math.isfinite(value):
        return "not a finite count"
    if value < 0:
        return "a count is not negative"
    if value > MAX_ELEMENTS:
        return f"more than {MAX_ELEMENTS:.2g} elements: more than a job's memory holds"
    return None


def _shown(value) -> str:
    text = repr(value) if not isinstance(value, str) else repr(value[:30])
    return text if len(text) <= 40 else text[:40] + "..."
