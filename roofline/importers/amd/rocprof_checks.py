"""Checks on the numbers and records of rocprofv3 files before they become
columns: 64-bit figures that do not fit a signed int64 (unsigned
timestamps, grid sizes or agent handles past 2**63) refused naming the
record and field instead of an OverflowError, kernel_ids defined twice
and counting records repeated, said (the repeat is not summed again; in
the CSV tables a dispatch's row, or a counter row, written twice);
an agent's figures (CUs, wavefront size, XCDs, engine clock) that no GPU
has ignored with a warning naming the field.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ...core.errors import InputError
from .rocprof_common import row_groups

_LOW, _HIGH = -(2 ** 63), 2 ** 63 - 1


def int64_column(values: list, field: str, label: str, path: Path) -> np.ndarray:
    """``values`` (Python ints from the JSON) as int64; InputError naming
    the first record whose ``field`` does not fit."""
    for i, v in enumerate(values):
        if not (_LOW <= v <= _HIGH):
            raise InputError(path, None, f"record {label}[{i}]: {field} {str(v)[:30]} does not fit a signed "
                             "64-bit integer (a damaged or unsigned value)")
    return np.array(values, dtype=np.int64).reshape(len(values))


def int64_table(rows: list[tuple], fields: tuple[str, ...], label: str, path: Path) -> np.ndarray:
    """Rows of figures as an int64 table; InputError naming the record and field that does not fit."""
    for i, row in enumerate(rows):
        for field, v in zip(fields, row):
            if not (_LOW <= v <= _HIGH):
                raise InputError(path, None, f"record {label}[{i}]: {field} {str(v)[:30]} does not fit a "
                                 "signed 64-bit integer (a damaged or unsigned value)")
    return np.array(rows, dtype=np.int64).reshape(len(rows), len(fields))


def symbols_by_id(symbols, name_of, label: str) -> tuple[dict, list[str]]:
    """kernel_id -> symbol, the first definition kept; a note for each id
    defined again under another name (which name the dispatches get)."""
    out: dict = {}
    notes = []
    for s in symbols:
        first = out.setdefault(s.kernel_id, s)
        if first is not s and name_of(first) != name_of(s):
            notes.append(f"{label}: kernel_id {s.kernel_id} is defined twice ({name_of(first)[:60]!r} and "
                         f"{name_of(s)[:60]!r}): its dispatches are named by the first")
    return out, notes


def repeated_records(records) -> tuple[list, list[str]]:
    """The counting records without exact repeats (the same dispatch, the
    same counters and values written twice would be summed twice), and a
    note saying how many were dropped."""
    seen, kept, dropped = set(), [], 0
    for rec in records:
        key = (rec.dispatch_data.dispatch_info.dispatch_id,
               tuple((v.counter_id.handle, v.value) for v in rec.records))
        if key in seen:
            dropped += 1
            continue
        seen.add(key)
        kept.append(rec)
    notes = ([f"{dropped} counting record(s) repeat another exactly (the same dispatch id, counters and values): "
              "read once, not summed twice"] if dropped else [])
    return kept, notes


# CUs, wavefront size, XCDs, engine clock in MHz: no GPU comes near the top,
# and none has 0 of any (a clock of 1e30 or 0 is a damaged field).
AGENT_FIGURES = ("cu_count", "wave_front_size", "num_xcc", "max_engine_clk_fcompute")
MAX_AGENT_FIGURE = 10 ** 7


def agent_figures(values: dict, source: str, zero_is_absent: bool = False) -> tuple[dict, list[str]]:
    """The figures of ``values`` (ints, text cells, or None when absent)
    that a GPU can have, the others None with a note naming ``source`` and
    the field. ``zero_is_absent``: the format writes 0 for a figure it lacks (JSON)."""
    out, notes = {}, []
    for key in AGENT_FIGURES:
        raw = values.get(key)
        v = _whole(raw)
        if raw is None or (isinstance(raw, str) and not raw.strip()) or (v == 0 and zero_is_absent):
            out[key] = None
        elif v is not None and 1 <= v <= MAX_AGENT_FIGURE:
            out[key] = v
        else:
            out[key] = None
            text = str(raw).strip()
            shown = text if len(text) <= 20 else f"{text[:12]}... ({len(text)} characters)"
            unit = " MHz" if key == "max_engine_clk_fcompute" and v is not None else ""
            notes.append(f"{source}: {key} {shown}{unit} is no GPU's figure (expected a whole number from 1 to "
                         f"{MAX_AGENT_FIGURE:,}): ignored")
    return out, notes


def _whole(raw) -> int | None:
    if isinstance(raw, int):
        return raw
    text = str(raw).strip()
    if len(text) > 30:          # int() of thousands of digits is slow, and no figure needs them
        return None
    try:
        return int(text)
    except ValueError:
        return None


def first_rows(keys: list[np.ndarray], what: str, label: str) -> tuple[np.ndarray, list[str]]:
    """The rows of a CSV table to read: the first of each distinct ``keys``
    (in file order), and a note saying how many repeats were left out."""
    _, first = row_groups(keys)
    n = len(keys[0]) if keys else 0
    repeats = n - len(first)
    if not repeats:
        return np.arange(n), []
    return np.sort(first), [f"{label}: {repeats} row(s) repeat {what} of an earlier row: read once, not "
                            "counted twice"]
