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
Lines starting with ``#`` are comments (a quoted cell starting with ``#``
is data); lines end at CR, LF or CRLF only; cells are trimmed of spaces and
tabs only; a cell holds at most 131072 characters; times are at most a year
and ``count`` a whole number from 1 to 2**53 (the rules both readers share
are :mod:`.kernels_csv_checks`). A file with a header and no rows is
an InputError ("no kernels"). Text cells are written defused for spreadsheets
and read back restored (:mod:`roofline.core.csv_cells`): an apostrophe before a
leading ``=``, ``+``, ``-``, ``@``, tab or CR is the spreadsheet's and is dropped.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np

from .options import DEFAULT, ReadOptions
from ..core.csv_cells import defused, restored
from ..core.errors import InputError
from ..core.families import families_of
from ..core.gcpause import paused
from ..core.model import LEVELS, PRECISIONS, KernelSet
from ..core.text_files import GZIP_MAGIC, MAX_TEXT_BYTES, UTF8_BOM, UTF16_BOMS, read_text, regular_file
from . import kernels_csv_checks as checks
from ..core.import_result import ImportResult
from .base import Reader, register
from .kernels_csv_checks import (
    BLANKS, FLAG_COLUMNS, FLOP_COLUMNS, KNOWN, LEVEL_COLUMNS, NUMERIC, TEXT_COLUMNS, TIME_COLUMNS,
    TRUE, FALSE, TX_COLUMNS, beyond_a_year, check_cell_lengths, check_cell_runs, data_lines, flags,
    has_comment, header_columns, header_problem, is_comment, long_run_at, names, needs_digits, not_whole,
    numbers, records, seconds, text_cells, times, whole)

HEAD_CHARS = 65536


def sniff(path: Path, head: bytes) -> bool:
    """A header of known columns, ``name`` first, on the first line that is
    not blank or a comment; the head may end inside a character or a column."""
    text = _head_text(head)
    for _, line, complete in data_lines(text or ""):
        columns = header_columns(line)
        if not complete and columns:   # the head ends inside this line: its last column may be cut
            cut = columns.pop()
            if not any(k.startswith(cut) for k in KNOWN):
                return False
        return bool(columns) and columns[0] == "name" and all(c in KNOWN for c in columns)
    return False


def _head_text(head: bytes) -> str | None:
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data":      # the 64 KiB head cut a character in two
            return head[:exc.start].decode("utf-8")
        return None


def read(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    if options.csv_engine == "auto":       # a plain UTF-8 file goes to Arrow as its bytes
        raw = _plain_bytes(path, options.max_text_bytes)
        if raw is not None and long_run_at(raw) is None:
            with paused():
                fast = _arrow_set(raw)
            if fast is not None:
                return ImportResult(str(path), "kernels-csv", fast)
    text = read_text(path, options.max_text_bytes)
    return ImportResult(str(path), "kernels-csv", parse(text, path, options.csv_engine))


def _plain_bytes(path, limit: int | None) -> bytes | None:
    """The file's bytes where they are its text as they are: not gzip, no
    byte-order mark, no NUL near the start (UTF-16 without a mark), within
    the size limit; None otherwise, and where it cannot be read (read_text
    then reads it, or says why not). Arrow checks that every text cell is
    UTF-8 and that every number parses, so a file that is not UTF-8 fails
    there and read_text names the byte."""
    try:
        size = regular_file(path).st_size
        if size > (MAX_TEXT_BYTES if limit is None else limit):
            return None
        raw = Path(path).read_bytes()
    except (InputError, OSError):
        return None
    head = raw[:1024]
    if raw.startswith((GZIP_MAGIC, UTF8_BOM) + UTF16_BOMS) or b"\0" in head:
        return None
    return raw


def parse(text: str, path: str | Path = "<kernels.csv>", engine: str = "auto") -> KernelSet:
    """The kernels of a kernels.csv text, as columns, by Arrow's reader
    (``engine`` "auto") or the careful one ("python"; see
    :class:`~.options.ReadOptions`)."""
    check_cell_runs(text, path)
    with paused():
        fast = _arrow_set(text) if engine == "auto" else None
        return fast if fast is not None else _careful_set(text, path)


def parse_columns(text: str, path: str | Path = "<kernels.csv>") -> KernelSet:
    """kernels.csv text -> KernelSet by the careful reader, which names the
    line of any problem: ``csv.reader`` splits every record (quoted commas
    and newlines included), each column is converted by numpy at once and
    checked as an array; only a bad cell is looked at alone."""
    return parse(text, path, engine="python")


def _careful_set(text: str, path) -> KernelSet:
    rows, lines = records(text, path)
    if not rows:
        raise InputError(path, None, "empty file: expected a header such as "
                         "'name,time_us,count,flops_fp32,bytes_dram'")
    columns = [c.strip(BLANKS).lower() for c in rows[0]]
    problem = header_problem(columns)
    if problem:
        raise InputError(path, lines[0], problem)
    body, body_lines = rows[1:], lines[1:]
    if not body:
        raise InputError(path, None, "no kernels: the file has a header but no rows")
    widths = np.fromiter(map(len, body), dtype=np.int64, count=len(body))
    bad = np.flatnonzero(widths != len(columns))
    if bad.size:
        i = int(bad[0])
        raise InputError(path, body_lines[i], f"expected {len(columns)} fields "
                         f"({', '.join(columns)}), found {int(widths[i])}")
    cells = dict(zip(columns, zip(*body)))
    check_cell_lengths(cells, body_lines, path)
    return _kernel_set(cells, body_lines, path)


def _arrow_set(text: str | bytes) -> KernelSet | None:
    """The file (its text, or its UTF-8 bytes) read by Arrow's C++ CSV
    reader, for files of millions of rows; None whenever anything is
    unusual (comments, a bad cell, a long cell, no pyarrow, bytes that are
    not UTF-8): the careful reader then reads the file and names the line
    of any problem. Every rule is the careful reader's
    (:mod:`.kernels_csv_checks`), applied to whole columns."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    head = text[:HEAD_CHARS] if isinstance(text, str) else _head_text(text[:HEAD_CHARS])
    first = next(data_lines(head), None) if head is not None else None
    # Arrow skips one row as the header: it must be the whole of line 1
    # (known column names hold no quote, so an odd count leaves one open)
    if first is None or first[0] != 1 or not first[2] or first[1].count('"') % 2 or has_comment(text):
        return None
    columns = header_columns(first[1])
    if header_problem(columns):
        return None
    types = {c: (pa.float64() if c in NUMERIC else pa.string()) for c in columns}
    try:
        table = pcsv.read_csv(
            pa.BufferReader(text.encode("utf-8") if isinstance(text, str) else text),
            read_options=pcsv.ReadOptions(column_names=columns, skip_rows=1),
            # a line end inside a cell needs quotes: without any, Arrow's
            # reader may split the file at every line end (faster)
            parse_options=pcsv.ParseOptions(newlines_in_values=('"' if isinstance(text, str) else b'"') in text),
            convert_options=pcsv.ConvertOptions(column_types=types, null_values=[""],
                                                strings_can_be_null=False,
                                                quoted_strings_can_be_null=False))
    except (pa.ArrowException, ValueError):
        return None
    if table.num_rows == 0:
        return None
    try:
        return _arrow_kernel_set(table, columns)
    except ValueError:
        return None


def _arrow_kernel_set(table, columns) -> KernelSet:
    """The KernelSet of an Arrow table; ValueError where the careful reader
    would refuse a cell (it then names the line)."""
    import pyarrow.compute as pac
    n = table.num_rows

    def values(c):
        col = table.column(c)
        out = col.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
        written_nan = np.isnan(out) & ~np.asarray(col.is_null().to_numpy(zero_copy_only=False))
        if written_nan.any() or (out < 0).any() or np.isinf(out).any():
            raise ValueError(c)
        return out

    def distinct_texts(c):
        """(the trimmed texts of the distinct cells of column ``c``, each
        row's index into them): a million cells, a few thousand distinct,
        so the length check and the trimming are done on the distinct ones
        (two cells may trim to the same text)."""
        encoded = table.column(c).combine_chunks().dictionary_encode()
        distinct = encoded.dictionary
        if len(distinct) and pac.max(pac.utf8_length(distinct)).as_py() > checks.MAX_FIELD_CHARS:
            raise ValueError(c)
        return (pac.utf8_trim(distinct, characters=BLANKS).to_pylist(),
                encoded.indices.to_numpy(zero_copy_only=False))

    def coded_texts(c):
        """(the restored texts of column ``c``'s distinct cells, an object
        array; each row's index into them)."""
        distinct, index = distinct_texts(c)
        return np.asarray([restored(v) for v in distinct], dtype=object), index

    def texts(c):
        if c not in columns:
            return _empty_texts(n)
        distinct, index = coded_texts(c)
        return distinct[index]

    def modelled():
        """The ``modelled`` flags, each distinct text checked once."""
        distinct, index = distinct_texts("modelled")
        lowered = [restored(v).lower() for v in distinct]
        if not set(lowered) <= (TRUE | FALSE):
            raise ValueError("modelled")
        return np.array([f in TRUE for f in lowered], dtype=bool)[index]

    def whole_or_nan(c):
        out = values(c)
        if ((not_whole(out) | needs_digits(out)) & ~np.isnan(out)).any():
            raise ValueError(c)
        return out

    distinct_names, name_index = coded_texts("name")
    if (distinct_names == "").any():
        raise ValueError("name")
    names_ = distinct_names[name_index]
    time_s = np.full(n, math.nan)
    for c in TIME_COLUMNS:
        if c in columns:
            time_s = seconds(values(c), c)
            if beyond_a_year(time_s).any():
                raise ValueError(c)
    count = np.nan_to_num(whole_or_nan("count"), nan=1.0) if "count" in columns else np.ones(n)
    threads = whole_or_nan("threads") if "threads" in columns else np.full(n, math.nan)
    return KernelSet(
        names=names_, time_s=time_s, count=count,
        flops={p: values(c) for c, p in FLOP_COLUMNS.items() if c in columns},
        bytes={lv: values(c) for c, lv in LEVEL_COLUMNS.items() if c in columns},
        instructions=values("instructions") if "instructions" in columns else None,
        transactions={lv: values(c) for c, lv in TX_COLUMNS.items() if c in columns},
        families=_families(texts("family") if "family" in columns else None, families_of(distinct_names),
                           name_index),
        variants=texts("variant"), operators=texts("operator"),
        sources=texts("source"), threads=threads,
        modelled=modelled() if "modelled" in columns else None)


def _families(given, by_name: np.ndarray, name_index: np.ndarray) -> np.ndarray:
    """The file's families (None: no such column), each empty one named
    from its kernel's name, classified once per distinct name
    (``by_name``), as the KernelSet would fill them
    (:func:`roofline.core.families.filled`) name by name."""
    if given is None:
        return by_name[name_index]
    empty = given == ""
    out = given.copy()
    out[empty] = by_name[name_index[empty]]
    return out


def _empty_texts(n: int) -> np.ndarray:
    """``n`` empty strings as an object column (np.full's object fill is
    several times slower than filling an empty array)."""
    out = np.empty(n, dtype=object)
    out.fill("")
    return out


def _kernel_set(cells: dict, lines, path) -> KernelSet:
    n = len(cells["name"])
    kernel_names = names(cells["name"], lines, path)
    time_s = np.full(n, math.nan)
    for column in TIME_COLUMNS:
        if column in cells:
            time_s = times(cells, column, lines, path)
    count = whole(numbers(cells, "count", lines, path), "count", cells, lines, path) \
        if "count" in cells else np.ones(n)
    threads = whole(numbers(cells, "threads", lines, path), "threads", cells, lines, path) \
        if "threads" in cells else np.full(n, math.nan)

    def optional(column):
        return numbers(cells, column, lines, path) if column in cells else None

    def text(column):
        return text_cells(cells[column]) if column in cells else np.full(n, "", dtype=object)
    return KernelSet(
        names=kernel_names, time_s=time_s, count=np.where(np.isnan(count), 1.0, count),
        flops={p: optional(c) for c, p in FLOP_COLUMNS.items() if c in cells},
        bytes={lv: optional(c) for c, lv in LEVEL_COLUMNS.items() if c in cells},
        instructions=optional("instructions"),
        transactions={lv: optional(c) for c, lv in TX_COLUMNS.items() if c in cells},
        families=text("family"), variants=text("variant"),
        operators=text("operator"), sources=text("source"),
        modelled=flags(cells["modelled"], lines, path) if "modelled" in cells else np.zeros(n, dtype=bool),
        threads=threads)


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
        (quoted if carriage or is_comment(k.name) else writer).writerow(row)
    return out.getvalue()


def _text(value) -> str:
    return ("1" if value else "0") if isinstance(value, bool) else defused(value)


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(float(value))


register(Reader("kernels-csv", sniff, read))
