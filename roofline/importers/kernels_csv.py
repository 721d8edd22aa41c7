"""The project's own ``kernels.csv``: one kernel (or group) per row, units in
the column names.

    name,time_us,count,flops_fp64,flops_fp32,flops_fp16,bytes_dram,bytes_l2,bytes_l1

Time is one of ``time_s``/``time_ms``/``time_us``/``time_ns`` and is the
total over ``count`` calls. ``flops_<precision>`` for any precision key of
:data:`roofline.core.model.PRECISIONS`; ``bytes_<level>`` for l1, l2, l3, dram,
pcie. Optional text columns: ``family``, ``variant``, ``source``,
``operator`` (the framework operator behind the kernel); ``threads`` (CPU
threads the kernel ran on: 1 puts it on the one-core roofs of a measured
CPU profile; empty means all cores); ``modelled`` (1
when FLOPs and bytes come from a cost or operator model, not counters); optional
``instructions`` (warp instructions) and ``transactions_<level>`` for l1,
shared, l2, dram (32-byte sectors or shared wavefronts; the instruction
roofline). Empty cells mean "not measured".
Lines starting with ``#`` are comments. A file with a header and no rows is
an InputError ("no kernels"). Text cells are written defused for spreadsheets
and read back restored (:mod:`roofline.core.csv_cells`): an apostrophe before a
leading ``=``, ``+``, ``-``, ``@``, tab or CR is the spreadsheet's and is dropped.
"""
from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

import numpy as np

from ..core.csv_cells import defused, restored
from ..core.errors import InputError
from ..core.model import LEVELS, PRECISIONS, KernelRows, KernelSet
from ..core.gcpause import paused
from ..core.text_files import read_text
from .base import ImportResult, Reader, register

TIME_COLUMNS = {"time_s": 1.0, "time_ms": 1e-3, "time_us": 1e-6, "time_ns": 1e-9}
LEVEL_COLUMNS = {f"bytes_{lv.lower()}": lv for lv in LEVELS}
FLOP_COLUMNS = {f"flops_{p}": p for p in PRECISIONS}
# 32-byte transactions (sectors; shared-memory wavefronts) for the instruction roofline
TX_COLUMNS = {f"transactions_{lv.lower()}": lv for lv in ("L1", "shared", "L2", "DRAM")}
TEXT_COLUMNS = ("family", "variant", "source", "operator")
OTHER_NUMERIC = ("count", "instructions", "threads")
FLAG_COLUMNS = ("modelled",)
_TRUE, _FALSE = frozenset({"1", "true", "yes"}), frozenset({"", "0", "false", "no"})
KNOWN = (set(TIME_COLUMNS) | set(LEVEL_COLUMNS) | set(FLOP_COLUMNS) | set(TX_COLUMNS)
         | set(TEXT_COLUMNS) | set(OTHER_NUMERIC) | set(FLAG_COLUMNS) | {"name"})


def _data_lines(text: str):
    """(line number, line) of the non-comment, non-blank lines (for sniffing)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


def sniff(path: Path, head: bytes) -> bool:
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    for _, line in _data_lines(text):
        cols = [c.strip().lower() for c in line.split(",")]
        return cols[0] == "name" and all(c in KNOWN for c in cols)
    return False


def read(path: Path) -> ImportResult:
    return ImportResult(str(path), "kernels-csv", parse(read_text(path), path))


def parse(text: str, path: str | Path = "<kernels.csv>") -> KernelRows:
    """The kernels of a kernels.csv text, as columns (a Sequence of Kernel
    built on demand; ``.columns`` is the KernelSet)."""
    with paused():
        fast = _arrow_set(text)
        return KernelRows(fast if fast is not None else parse_columns(text, path))


def parse_columns(text: str, path: str | Path = "<kernels.csv>") -> KernelSet:
    """kernels.csv text -> KernelSet, without a Python object per row: the
    C csv reader splits every record (quoted commas and newlines included),
    each column is converted by numpy at once and checked as an array; only
    a bad cell is looked at alone, to name its line."""
    try:
        rows, lines = _fast_records(text)
    except csv.Error as exc:      # e.g. a field over the csv module's size limit
        raise InputError(path, None, f"not a readable CSV: {exc}") from None
    if not rows:
        raise InputError(path, None, "empty file: expected a header such as "
                         "'name,time_us,count,flops_fp32,bytes_dram'")
    columns = [c.strip().lower() for c in rows[0]]
    _check_header(columns, path, lines)
    body, body_lines = rows[1:], _Shifted(lines)
    if not body:
        raise InputError(path, None, "no kernels: the file has a header but no rows")
    widths = np.fromiter(map(len, body), dtype=np.int64, count=len(body))
    if isinstance(lines, _LineOf) and (widths != len(columns)).any():
        rows, lines = _records(text)
        body, body_lines = rows[1:], lines[1:]
        widths = np.fromiter(map(len, body), dtype=np.int64, count=len(body))
    bad = np.flatnonzero(widths != len(columns))
    if bad.size:
        i = int(bad[0])
        raise InputError(path, int(body_lines[i]), f"expected {len(columns)} fields "
                         f"({', '.join(columns)}), found {int(widths[i])}")
    cells = dict(zip(columns, zip(*body)))
    return _kernel_set(cells, body_lines, path)


NUMERIC = ({"count", "instructions", "threads"} | set(TIME_COLUMNS) | set(FLOP_COLUMNS)
           | set(LEVEL_COLUMNS) | set(TX_COLUMNS))


def _arrow_set(text: str) -> KernelSet | None:
    """The file read by Arrow's C++ CSV reader, for files of millions of
    rows; None whenever anything is unusual (comments, a bad cell, odd
    whitespace, no pyarrow): the careful reader then reads the file and
    names the line of any problem."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pac
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    first = next(_data_lines(text[:65536]), None)
    if first is None or _has_comment(text):
        return None
    columns = [c.strip().lower() for c in next(csv.reader([first[1]]))]
    if _header_problem(columns) or first[0] != 1:
        return None
    types = {c: (pa.float64() if c in NUMERIC else pa.string()) for c in columns}
    try:
        table = pcsv.read_csv(
            pa.BufferReader(text.encode("utf-8")),
            read_options=pcsv.ReadOptions(column_names=columns, skip_rows=1),
            parse_options=pcsv.ParseOptions(newlines_in_values=True),
            convert_options=pcsv.ConvertOptions(column_types=types, null_values=[""],
                                                strings_can_be_null=False,
                                                quoted_strings_can_be_null=False))
    except (pa.ArrowException, ValueError):
        return None
    if table.num_rows == 0:
        return None
    n = table.num_rows

    def numbers(c):
        col = table.column(c)
        values = col.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
        written_nan = np.isnan(values) & ~np.asarray(col.is_null().to_numpy(zero_copy_only=False))
        if written_nan.any() or (values < 0).any() or np.isinf(values).any():
            raise ValueError(c)
        return values

    def texts(c, strict=False):
        if c not in columns:
            return np.full(n, "", dtype=object)
        col = table.column(c).combine_chunks()
        trimmed = pac.utf8_trim_whitespace(col)
        if strict and not pac.all(pac.equal(trimmed, col)).as_py():
            raise ValueError(c)         # surrounding whitespace: let the careful reader decide
        encoded = trimmed.dictionary_encode()
        distinct = np.asarray([restored(v) for v in encoded.dictionary.to_pylist()], dtype=object)
        return distinct[encoded.indices.to_numpy(zero_copy_only=False)]

    try:
        names = texts("name")
        if (names == "").any():
            return None
        time_s = np.full(n, math.nan)
        for c, scale in TIME_COLUMNS.items():
            if c in columns:
                time_s = numbers(c) * scale
        count = np.nan_to_num(numbers("count"), nan=1.0) if "count" in columns else np.ones(n)
        threads = numbers("threads") if "threads" in columns else np.full(n, math.nan)
        flags = texts("modelled")
        if not set(f.lower() for f in set(flags.tolist())) <= (_TRUE | _FALSE):
            return None
        for whole in (count, threads[~np.isnan(threads)]):
            if ((whole != np.floor(whole)) | (whole < 1)).any():
                return None
        return KernelSet(
            names=names, time_s=time_s, count=count,
            flops={p: numbers(c) for c, p in FLOP_COLUMNS.items() if c in columns},
            bytes={lv: numbers(c) for c, lv in LEVEL_COLUMNS.items() if c in columns},
            instructions=numbers("instructions") if "instructions" in columns else None,
            transactions={lv: numbers(c) for c, lv in TX_COLUMNS.items() if c in columns},
            families=texts("family"), variants=texts("variant"), operators=texts("operator"),
            sources=texts("source"), threads=threads,
            modelled=np.array([f.lower() in _TRUE for f in flags.tolist()], dtype=bool)
            if "modelled" in columns else None)
    except ValueError:
        return None


_COMMENT = re.compile(r"^[ \t]*#", re.MULTILINE)


class _LineOf:
    """Line numbers of records, found only when an error needs one."""

    def __init__(self, text: str):
        self.text, self.lines = text, None

    def __getitem__(self, i):
        if self.lines is None:
            self.lines = _records(self.text)[1]
        return self.lines[i]


def _has_comment(text: str) -> bool:
    # a scan for '#' is 100x faster than the line regex, and most files have none
    return "#" in text and _COMMENT.search(text) is not None


def _fast_records(text: str):
    """Without comment lines (the usual file) the C reader does all the work
    and line numbers are found later, only for an error message."""
    if _has_comment(text):
        return _records(text)
    rows = list(filter(None, csv.reader(io.StringIO(text))))
    if any(len(r) == 1 and not r[0].strip() for r in rows[:1]) or _ragged(rows):
        return _records(text)   # whitespace-only lines: the careful path skips them
    return rows, _LineOf(text)


def _ragged(rows: list) -> bool:
    if not rows:
        return False
    width = len(rows[0])
    return any(len(r) != width for r in rows)


def _records(text: str) -> tuple[list, np.ndarray]:
    """CSV records that are not blank or comments, and the line each starts on.
    A comment is a line starting with ``#`` outside quotes (a quoted name
    such as ``"#pragma kernel"`` is data)."""
    physical = text.splitlines()
    reader = csv.reader(io.StringIO(text))
    rows, starts = [], []
    previous = 0
    for row in reader:
        start, previous = previous + 1, reader.line_num
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if row[0].lstrip().startswith("#") and physical[start - 1].lstrip().startswith("#"):
            continue
        rows.append(row)
        starts.append(start)
    return rows, np.asarray(starts, dtype=np.int64)


class _Shifted:
    """The line numbers of the records after the header."""

    def __init__(self, lines):
        self.lines = lines

    def __getitem__(self, i):
        return self.lines[i + 1]


def _kernel_set(cells: dict, lines, path) -> KernelSet:
    n = len(cells["name"])
    names = _names(cells["name"], lines, path)
    time_s = np.full(n, math.nan)
    for column, scale in TIME_COLUMNS.items():
        if column in cells:
            time_s = _numbers(cells, column, lines, path) * scale
    count = _numbers(cells, "count", lines, path) if "count" in cells else np.ones(n)
    count = np.where(np.isnan(count), 1.0, count)
    _whole(count, "count", cells, lines, path)
    threads = _numbers(cells, "threads", lines, path) if "threads" in cells else np.full(n, math.nan)
    _whole(np.where(np.isnan(threads), 1.0, threads), "threads", cells, lines, path)
    inst = _numbers(cells, "instructions", lines, path) if "instructions" in cells else None
    return KernelSet(
        names=names, time_s=time_s, count=count,
        flops={p: _numbers(cells, c, lines, path) for c, p in FLOP_COLUMNS.items() if c in cells},
        bytes={lv: _numbers(cells, c, lines, path) for c, lv in LEVEL_COLUMNS.items() if c in cells},
        instructions=inst,
        transactions={lv: _numbers(cells, c, lines, path) for c, lv in TX_COLUMNS.items() if c in cells},
        families=_text_column(cells, "family", n), variants=_text_column(cells, "variant", n),
        operators=_text_column(cells, "operator", n), sources=_text_column(cells, "source", n),
        modelled=_flags(cells, lines, path), threads=threads)


def _names(column: tuple, lines, path) -> np.ndarray:
    interned: dict[str, str] = {}
    names = [interned.setdefault(s, s) for s in (restored(c.strip()) for c in column)]
    if "" in interned:
        i = names.index("")
        raise InputError(path, int(lines[i]), "empty kernel name")
    return np.asarray(names, dtype=object)


def _numbers(cells: dict, column: str, lines, path) -> np.ndarray:
    """One numeric column as float64 (NaN for empty cells), checked finite and >= 0."""
    raw = cells[column]
    filled = [c if c.strip() else "nan" for c in raw] if "" in raw else raw
    try:
        values = np.array(filled, dtype=np.float64)
    except ValueError:          # a cell numpy cannot read: find it, or read the column cell by cell
        values = np.array([_cell_value(c, column, lines, i, path) for i, c in enumerate(raw)])
    nan = np.flatnonzero(np.isnan(values))
    written = [i for i in nan if raw[i].strip()]          # "nan" typed in a cell
    wrong = np.flatnonzero(~np.isnan(values) & ~(np.isfinite(values) & (values >= 0)))
    if written or wrong.size:
        i = min(written[:1] + [int(j) for j in wrong[:1]])
        raise InputError(path, int(lines[i]), f"column {column}: expected a non-negative number, "
                         f"found {raw[i]!r}")
    return values


def _cell_value(cell: str, column: str, lines, i: int, path) -> float:
    if not cell.strip():
        return math.nan
    try:
        return float(cell)
    except ValueError:
        raise InputError(path, int(lines[i]), f"column {column}: expected a number, found {cell!r}") from None


def _whole(values: np.ndarray, column: str, cells: dict, lines, path) -> None:
    bad = (values != np.floor(values)) | (values < 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(path, int(lines[i]), f"column {column}: expected a whole number >= 1, "
                         f"found {cells[column][i]!r}")


def _text_column(cells: dict, column: str, n: int) -> np.ndarray:
    if column not in cells:
        return np.full(n, "", dtype=object)
    interned: dict[str, str] = {}
    return np.asarray([interned.setdefault(s, s) for s in (restored(c.strip()) for c in cells[column])],
                      dtype=object)


def _flags(cells: dict, lines, path) -> np.ndarray:
    if "modelled" not in cells:
        return np.zeros(len(cells["name"]), dtype=bool)
    flags = [c.strip().lower() for c in cells["modelled"]]
    for i, f in enumerate(flags):
        if f not in _TRUE and f not in _FALSE:
            raise InputError(path, int(lines[i]), f"column modelled: expected 1 or 0, "
                             f"found {cells['modelled'][i]!r}")
    return np.fromiter((f in _TRUE for f in flags), dtype=bool, count=len(flags))


def _check_header(columns, path, lines):
    problem = _header_problem(columns)
    if problem:
        raise InputError(path, int(lines[0]), problem)


def _header_problem(columns) -> str | None:
    if "name" not in columns:
        return "header has no 'name' column"
    unknown = [c for c in columns if c not in KNOWN]
    if unknown:
        return (f"unknown column(s) {', '.join(unknown)}; expected name, "
                "time_s|time_ms|time_us|time_ns, count, flops_<precision>, bytes_<level>, "
                "family, variant, source, operator, threads, modelled, instructions, transactions_<level>")
    times = [c for c in columns if c in TIME_COLUMNS]
    if len(times) > 1:
        return f"more than one time column: {', '.join(times)}"
    dupes = {c for c in columns if columns.count(c) > 1}
    if dupes:
        return f"duplicate column(s): {', '.join(sorted(dupes))}"
    return None


def format_kernels(kernels) -> str:
    """kernels -> kernels.csv text (time in seconds), the inverse of :func:`parse`."""
    ks = list(kernels)
    precisions = [p for p in PRECISIONS if any(p in k.flops for k in ks)]
    levels = [lv for lv in LEVELS if any(lv in k.bytes for k in ks)]
    text_cols = [c for c in TEXT_COLUMNS + FLAG_COLUMNS if any(getattr(k, c) for k in ks)]
    has_inst = any(k.instructions is not None for k in ks)
    has_threads = any(k.threads is not None for k in ks)
    tx = [lv for lv in TX_COLUMNS.values() if any(lv in k.transactions for k in ks)]
    header = (["name", "time_s", "count"] + [f"flops_{p}" for p in precisions]
              + [f"bytes_{lv.lower()}" for lv in levels] + (["instructions"] if has_inst else [])
              + [f"transactions_{lv.lower()}" for lv in tx] + (["threads"] if has_threads else []) + text_cols)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    # a name starting with '#' would read back as a comment, and csv.writer
    # leaves a CR unquoted (only '\n' ends our lines): quote such rows whole
    quoted = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow(header)
    for k in ks:
        row = ([defused(k.name), _cell(k.time_s), k.count]
               + [_cell(k.flops.get(p)) for p in precisions]
               + [_cell(k.bytes.get(lv)) for lv in levels]
               + ([_cell(k.instructions)] if has_inst else [])
               + [_cell(k.transactions.get(lv)) for lv in tx]
               + ([k.threads if k.threads is not None else ""] if has_threads else [])
               + [_text(getattr(k, c)) for c in text_cols])
        carriage = any("\r" in c for c in row if isinstance(c, str))
        (quoted if carriage or k.name.lstrip().startswith("#") else writer).writerow(row)
    return out.getvalue()


def _text(value) -> str:
    return ("1" if value else "0") if isinstance(value, bool) else defused(value)


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(float(value))


register(Reader("kernels-csv", sniff, read))
