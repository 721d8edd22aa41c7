"""The project's own ``kernels.csv``: one kernel (or group) per row, units in
the column names.

    name,time_us,count,flops_fp64,flops_fp32,flops_fp16,bytes_dram,bytes_l2,bytes_l1

Time is one of ``time_s``/``time_ms``/``time_us``/``time_ns`` and is the
total over ``count`` calls. ``flops_<precision>`` for any precision key of
:data:`roofline.model.PRECISIONS`; ``bytes_<level>`` for l1, l2, l3, dram,
pcie. Optional text columns: ``family``, ``variant``, ``source``,
``operator`` (the framework operator behind the kernel); ``threads`` (CPU
threads the kernel ran on: 1 puts it on the one-core roofs of a measured
CPU profile; empty means all cores); ``modelled`` (1
when FLOPs and bytes come from a cost or operator model, not counters); optional
``instructions`` (warp instructions) and ``transactions_<level>`` for l1,
shared, l2, dram (32-byte sectors or shared wavefronts; the instruction
roofline). Empty cells mean "not measured".
Lines starting with ``#`` are comments. A file with a header and no rows is
an InputError ("no kernels").
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from ..errors import InputError
from ..model import LEVELS, PRECISIONS, Kernel
from .base import ImportResult, Reader, read_text, register

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
    """(line number, line) of the non-comment, non-blank lines."""
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
    return ImportResult(str(path), "kernels-csv", tuple(parse(read_text(path), path)))


def parse(text: str, path: str | Path = "<kernels.csv>") -> list[Kernel]:
    lines = list(_data_lines(text))
    if not lines:
        raise InputError(path, None, "empty file: expected a header such as "
                         "'name,time_us,count,flops_fp32,bytes_dram'")
    header_line, header = lines[0]
    columns = [c.strip().lower() for c in next(csv.reader([header]))]
    _check_header(columns, path, header_line)
    kernels = []
    for number, line in lines[1:]:
        cells = next(csv.reader(io.StringIO(line)))
        if len(cells) != len(columns):
            raise InputError(path, number, f"expected {len(columns)} fields "
                             f"({', '.join(columns)}), found {len(cells)}")
        kernels.append(_kernel(dict(zip(columns, cells)), path, number))
    if not kernels:
        raise InputError(path, None, "no kernels: the file has a header but no rows")
    return kernels


def _check_header(columns, path, line):
    if "name" not in columns:
        raise InputError(path, line, "header has no 'name' column")
    unknown = [c for c in columns if c not in KNOWN]
    if unknown:
        raise InputError(path, line, f"unknown column(s) {', '.join(unknown)}; expected name, "
                         "time_s|time_ms|time_us|time_ns, count, flops_<precision>, bytes_<level>, "
                         "family, variant, source, instructions")
    times = [c for c in columns if c in TIME_COLUMNS]
    if len(times) > 1:
        raise InputError(path, line, f"more than one time column: {', '.join(times)}")
    dupes = {c for c in columns if columns.count(c) > 1}
    if dupes:
        raise InputError(path, line, f"duplicate column(s): {', '.join(sorted(dupes))}")


def _kernel(row: dict[str, str], path, line) -> Kernel:
    def number(column: str) -> float:
        cell = row[column].strip()
        if not cell:
            return math.nan
        try:
            value = float(cell)
        except ValueError:
            raise InputError(path, line, f"column {column}: expected a number, found {cell!r}") from None
        if not math.isfinite(value) or value < 0:
            raise InputError(path, line, f"column {column}: expected a non-negative number, found {cell!r}")
        return value

    name = row["name"].strip()
    if not name:
        raise InputError(path, line, "empty kernel name")
    time_s = math.nan
    for column, scale in TIME_COLUMNS.items():
        if column in row:
            time_s = number(column) * scale
    count = number("count") if "count" in row else math.nan
    if math.isnan(count):
        count = 1.0
    if count != int(count) or count < 1:
        raise InputError(path, line, f"column count: expected a whole number >= 1, found {row['count']!r}")
    inst = number("instructions") if "instructions" in row else math.nan
    threads = number("threads") if "threads" in row else math.nan
    if not math.isnan(threads) and (threads != int(threads) or threads < 1):
        raise InputError(path, line, f"column threads: expected a whole number >= 1, found {row['threads']!r}")
    flag = row.get("modelled", "").strip().lower()
    if flag not in _TRUE | _FALSE:
        raise InputError(path, line, f"column modelled: expected 1 or 0, found {row['modelled']!r}")
    return Kernel(
        name=name, time_s=time_s, count=int(count),
        flops={p: v for c, p in FLOP_COLUMNS.items() if c in row and not math.isnan(v := number(c))},
        bytes={lv: v for c, lv in LEVEL_COLUMNS.items() if c in row and not math.isnan(v := number(c))},
        instructions=None if math.isnan(inst) else inst,
        transactions={lv: v for c, lv in TX_COLUMNS.items() if c in row and not math.isnan(v := number(c))},
        family=row.get("family", "").strip(), variant=row.get("variant", "").strip(),
        source=row.get("source", "").strip(), operator=row.get("operator", "").strip(),
        modelled=flag in _TRUE, threads=None if math.isnan(threads) else int(threads),
    )


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
    writer.writerow(header)
    for k in ks:
        writer.writerow(
            [k.name, _cell(k.time_s), k.count]
            + [_cell(k.flops.get(p)) for p in precisions]
            + [_cell(k.bytes.get(lv)) for lv in levels]
            + ([_cell(k.instructions)] if has_inst else [])
            + [_cell(k.transactions.get(lv)) for lv in tx]
            + ([k.threads if k.threads is not None else ""] if has_threads else [])
            + [_text(getattr(k, c)) for c in text_cols])
    return out.getvalue()


def _text(value) -> str:
    return ("1" if value else "0") if isinstance(value, bool) else value


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(float(value))


register(Reader("kernels-csv", sniff, read))
