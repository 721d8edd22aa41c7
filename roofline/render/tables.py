"""Formatters that return strings: text table, CSV and JSON of placements."""
from __future__ import annotations

import json

import numpy as np

from ..core.csv_cells import RISKY_PATTERN, defused
from ..core.gcpause import paused
from ..core.row_schema import flat_columns
from ..core.placement import Placements
from .terminal import visible
from .row_text import Formatted, coded, joined, literal, made_ahead, rows_text, whole_digits
from ..core.object_codes import distinct_objects, repeated_numbers
from ..core.units import format_iec, format_percent, format_si, whole_counts



def rate_unit(key: str) -> str:
    """FLOP/s for floating-point ceilings, ops/s for integer ones (int8, int32)."""
    return "ops/s" if key.startswith(("int", "tensor_int")) else "FLOP/s"


def measured_again_text(provenance: dict) -> str:
    """The ceilings ``measure`` took again because their samples spread
    more than 10 %, with each attempt's spread ("" when none)."""
    again = provenance.get("measured_again") or {}
    parts = []
    for what, rec in again.items():
        if isinstance(rec, dict) and rec.get("spreads"):
            spreads = "/".join(f"{100 * x:.0f}" for x in rec["spreads"])
            parts.append(f"{what} ({rec.get('attempts')} attempts, spread {spreads} %)")
        elif isinstance(rec, dict):   # taken again because all cores did not scale: the bests
            bests = "/".join(f"{x:.3g}" for x in rec.get("bests", []))
            parts.append(f"{what} ({rec.get('attempts')} attempts, best {bests})")
        else:                       # a bare count
            parts.append(f"{what} ({rec} attempts)")
    return "noisy, measured again: " + ", ".join(parts) if parts else ""


def placements_json(p: Placements) -> str:
    """Every kernel as JSON text, one object per line (:mod:`roofline.render.json_rows`)."""
    from .json_rows import placements_json_bytes
    return placements_json_bytes(p).decode("utf-8")


def placements_csv(p: Placements) -> str:
    """Every kernel as CSV text (see :func:`placements_csv_bytes`)."""
    return placements_csv_bytes(p).decode("utf-8")


def placements_csv_bytes(p: Placements) -> bytes:
    """Every kernel as UTF-8 CSV, written column by column: numbers
    formatted by C loops, each distinct name quoted once, rows joined once
    (a csv.writer call per row costs 5x more at a million rows). Bytes, so
    a million rows go to a file or pipe without two more copies."""
    return b"".join(placements_csv_chunks(p))


def placements_csv_chunks(p: Placements):
    """:func:`placements_csv_bytes` in pieces of :data:`CSV_SLICE_ROWS` rows,
    to be written as they come: 3M rows are never held as one 400 MB
    string and its joined copy. The columns are :mod:`roofline.core.row_schema`'s,
    each per-level field spread into one column per level (``bytes_DRAM``).
    The pieces are bytes-like (views of Arrow's buffers, not copies)."""
    with paused():
        columns = [(name, kind, whole_counts(values) if kind == "count" else values)
                   for name, kind, values in flat_columns(p)]
        arrow = _arrow_csv(columns)
        if arrow is not None:
            yield from arrow
            return
        cells = [_csv_cells(np.asarray(values), kind) for _, kind, values in columns]
        body = "\n".join(map(",".join, zip(*cells)))
        yield (_header(columns) + body + ("\n" if body else "")).encode("utf-8")


def _header(columns) -> str:
    """The header line; a level's name comes from a profile, so it is quoted
    and defused as any cell."""
    return ",".join(_csv_text(name) for name, _, _ in columns) + "\n"


CSV_SLICE_ROWS = 50_000     # rows a piece of the CSV holds (about 18 MB; a slice's columns stay in cache)


def _arrow_csv(columns: list):
    """The CSV's rows as an iterator of pieces (header first), each row the
    text of its fields joined by Arrow's C++ kernels (:mod:`.row_text`): the
    text fields once per distinct combination, the numbers formatted by
    Arrow as its CSV writer formats them, text quoted as it quotes it
    (always; "" doubled), nothing where a value is missing. None without
    pyarrow."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return None
    pieces = [_csv_piece(kind, np.asarray(values)) for _, kind, values in columns]
    rows = len(np.asarray(columns[0][2])) if columns else 0
    return _csv_pieces(joined(pieces, ",", "\n"), rows, _header(columns))


def _csv_piece(kind: str, values: np.ndarray):
    """One field's piece of every row (:mod:`.row_text`)."""
    import pyarrow as pa
    import pyarrow.compute as pac
    if values.dtype.kind == "f" and not np.isfinite(values).any():
        return literal("")          # no value in any row (a trace without collectives)
    if kind == "nint":              # whole numbers, empty where unknown
        return Formatted(lambda a, b: _whole_numbers(values[a:b]))
    if values.dtype == bool:
        return coded(['"False"', '"True"'], values.astype(np.int32))
    if values.dtype.kind in "iuf":
        repeated = repeated_numbers(values)
        if repeated is not None:        # each distinct value formatted once
            distinct, codes = repeated
            return coded([t or "" for t in pac.cast(_masked(distinct), pa.string()).to_pylist()], codes)
        digits = whole_digits(values)
        if digits is not None:          # byte and FLOP counts: cast as integers
            return Formatted(digits)
        return Formatted(lambda a, b: pac.cast(_masked(values[a:b]), pa.string()))
    if kind == "count":             # counts past int64 (units.whole_counts): Python ints, as digits
        return Formatted(lambda a, b: pa.array([str(v) for v in values[a:b].tolist()], type=pa.string()))
    distinct = distinct_objects(values)
    if distinct is None:
        return Formatted(lambda a, b: _quoted(_defused_strings(values[a:b])))
    objects, codes = distinct
    return coded([_quoted_text(t) for t in _defused_strings(objects).to_pylist()], codes)


def _masked(values: np.ndarray):
    """An Arrow array of numbers, null where a float is not finite."""
    import pyarrow as pa
    if values.dtype.kind != "f":
        return pa.array(values)
    finite = np.isfinite(values)
    return pa.array(values, mask=None if finite.all() else ~finite)


def _whole_numbers(values: np.ndarray):
    import pyarrow as pa
    import pyarrow.compute as pac
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    return pac.cast(pa.array(np.nan_to_num(values).astype(np.int64), mask=~finite), pa.string())


def _quoted_text(text: str | None) -> str:
    """A text cell as Arrow's CSV writer quotes strings; nothing for a missing one."""
    return "" if text is None else '"' + text.replace('"', '""') + '"'


def _quoted(text):
    """:func:`_quoted_text` of each string of an Arrow array (null stays null)."""
    import pyarrow.compute as pac
    return pac.binary_join_element_wise('"', pac.replace_substring(text, '"', '""'), '"', "")


def _defused_strings(values):
    """Arrow strings of a text column, defused for spreadsheets; None (and
    NaN) null."""
    import pyarrow as pa
    import pyarrow.compute as pac
    text = pa.array(values, type=pa.string(), from_pandas=True)
    formula = pac.match_substring_regex(text, RISKY_PATTERN)
    if pac.any(formula).as_py():
        text = pac.if_else(formula, pac.binary_join_element_wise("'", text, ""), text)
    return text


def _csv_pieces(pieces: list, rows: int, header: str):
    """The header, then slices of the rows as CSV: formatting numbers is
    most of the time and Arrow's kernels release the GIL, so slices are
    made on every core, at most two per core ahead of the reader."""
    yield header.encode("utf-8")

    def write(i: int) -> bytes:
        return rows_text(pieces, i * CSV_SLICE_ROWS, min(rows, (i + 1) * CSV_SLICE_ROWS), "", ",")
    yield from made_ahead(write, -(-rows // CSV_SLICE_ROWS))


def _csv_cells(values: np.ndarray, kind: str = "") -> list[str]:
    if kind == "nint":
        return [str(int(v)) if np.isfinite(v) else "" for v in values.tolist()]
    if values.dtype == bool:
        return np.where(values, "True", "False").tolist()
    if values.dtype.kind in "iu":
        return list(map(str, values.tolist()))
    if values.dtype.kind == "f":
        cells = list(map(repr, values.tolist()))
        for i in np.flatnonzero(~np.isfinite(values)).tolist():
            cells[i] = ""
        return cells
    quoted: dict = {}
    return [quoted[v] if v in quoted else quoted.setdefault(v, _csv_text(v)) for v in values.tolist()]


def _csv_text(value) -> str:
    """One text cell as csv.writer would write it, defused for spreadsheets
    (:mod:`roofline.core.csv_cells`)."""
    text = defused("" if value is None else str(value))
    if any(c in text for c in ',"\n\r'):
        text = '"' + text.replace('"', '""') + '"'
    return text


def placements_table(p: Placements, limit: int | None = None, name_width: int = 48) -> str:
    """Kernels by descending time, with their bound and distance from the roof.
    Names are made visible for a terminal (:mod:`roofline.render.terminal`)."""
    time = np.nan_to_num(p.kernels.time_s)
    order = np.argsort(-time, kind="stable")
    picked = order if limit is None else order[:limit]
    shown = p.records(picked)
    dtypes = [r["dtype"] or "" for r in shown]     # every row's dtype(s), a collective's as it says
    total = float(time.sum())
    header = ("kernel", "calls", "time", "share", "FLOP/s", "roof FLOP/s", "eff", "bound", "why below the roof")
    lines = [header]
    for r in shown:
        bound = r["bound"] + (f" ({r['level']})" if r["level"] else "")
        if r["bound"] == "unknown" and r.get("predicted_bound"):
            bound += f" (no time; roof predicts {r['predicted_bound']})"
        bound += " *" if r["modelled"] else ""
        reason = r["reason"] or ""
        if r["fixed_s"] and reason == "fixed cost":
            reason += f" {format_si(r['fixed_s'], 's')}/call"
        if r.get("reason_detail"):
            reason += f" ({visible(r['reason_detail'])})"
        share = f"{100 * r['time_s'] / total:.1f}%" if r["time_s"] and total else "n/a"
        name = r["name"] + (f" [{r['variant']}]" if r.get("variant") else "")
        lines.append((
            _short(visible(name), name_width), str(r["count"]), format_si(r["time_s"], "s"), share,
            _rate(r["achieved_flop_s"]), _rate(r["attainable_flop_s"]),
            format_percent(r["efficiency"]), bound, reason))
    left = [0, 7, 8]
    for column, values in (("dtype", dtypes), ("device", [r["device"] or "" for r in shown])):
        # the dtype(s) (a cast: fp32->bf16) and the device after the name, where rows say them
        if any(values):
            lines = [row[:1] + (d,) + row[1:] for row, d in zip(lines, [column] + [visible(str(x)) for x in values])]
            left = [0, 1] + [i + 1 for i in left[1:]]
    left = tuple(left)
    widths = [max(len(row[i]) for row in lines) for i in range(len(lines[0]))]
    text = ["  ".join(c.ljust(w) if i in left else c.rjust(w)
                      for i, (c, w) in enumerate(zip(row, widths))).rstrip() for row in lines]
    text.insert(1, "  ".join("-" * w for w in widths))
    if limit is not None and len(p) > limit:
        text.append(f"... {len(p) - limit} more kernels (use --format csv for all)")
    if any(r["modelled"] for r in shown):
        text.append("* work from a cost or operator model (compulsory bytes: an upper bound on intensity)")
    return "\n".join(text) + "\n"


def _rate(value) -> str:
    return "-" if not value else format_si(value, "")


def _short(name: str, width: int) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def device_table(device) -> str:
    """The profile for a terminal: each line made visible (names, clock keys
    and warnings come from a YAML file)."""
    lines = [f"{device.name}  ({device.kind}, {device.provenance.get('method', 'unknown')})"]
    for key, c in device.compute.items():
        lines.append(f"  compute  {key:<12} {format_si(c.value, rate_unit(key)):>14}" + _extra(c))
    if device.instruction_rate is not None:
        unit = "warp inst/s" if device.kind == "gpu" else "inst/s"
        rate = format_si(device.instruction_rate.value, "")
        lines.append(f"  issue    {'instructions':<12} {rate:>12} {unit}")
    for key, m in device.memory.items():
        cap = f"  capacity {format_iec(m.capacity_bytes)}" if m.capacity_bytes else ""   # sold in GiB
        lines.append(f"  memory   {key:<12} {format_si(m.bytes_s, 'B/s'):>14}" + _extra(m.bandwidth) + cap)
    if device.launch_overhead_s is not None:
        lines.append(f"  launch overhead       {format_si(device.launch_overhead_s, 's'):>14}")
    for key, hz in device.clocks_hz.items():
        lines.append(f"  clock    {key:<12} {format_si(hz, 'Hz'):>14}")
    again = measured_again_text(device.provenance or {})
    if again:
        lines.append("  " + again)
    for w in device.warnings:
        lines.append(f"  warning: {w}")
    return "\n".join(map(visible, lines)) + "\n"


def _extra(c) -> str:
    parts = []
    if c.samples:
        parts.append(f"median {format_si(c.median)}, spread {100 * c.spread:.1f}%, n={len(c.samples)}")
    if c.samples and c.fraction_of_theoretical:  # datasheet ceilings are their own theory
        parts.append(f"{100 * c.fraction_of_theoretical:.0f}% of theoretical")
    return f"  ({'; '.join(parts)})" if parts else ""


def device_json(device) -> str:
    """Summary JSON (`roofline show --format json`) with the full profile inside."""
    from ..devices.profile import device_to_dict
    return json.dumps({
        "name": device.name,
        "kind": device.kind,
        "compute": {k: c.value for k, c in device.compute.items()},
        "memory": {k: m.bytes_s for k, m in device.memory.items()},
        "instruction_rate": None if device.instruction_rate is None else device.instruction_rate.value,
        "launch_overhead_s": device.launch_overhead_s,
        "profile": device_to_dict(device),
    }, indent=1)
