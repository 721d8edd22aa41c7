"""``nsys stats`` CSV reports (``nsys stats --report ... --format csv``).

One file or the several tables ``nsys stats`` prints to stdout (titles and
``Processing [...]`` lines between them are skipped):

* ``cuda_gpu_kern_sum`` (``gpukernsum`` before 2023): ``Time (%),Total Time
  (ns),Instances,Avg (ns),...,Name``, and the older ``Time(%),Total Time
  (ns),Instances,Average,Minimum,Maximum,Name``.
* ``cuda_api_sum`` (``cudaapisum``): ``...,Num Calls,...,Name`` -> api_s.
* ``cuda_gpu_mem_time_sum`` / ``cuda_gpu_mem_size_sum`` (``gpumemtimesum``,
  ``gpumemsizesum``): copies with time or with bytes.
* ``cuda_gpu_trace`` (``gputrace``): one row per activity, with bytes of
  copies; kernels are grouped and busy time computed as for SQLite.

An NVTX range report is recognised and refused with a message saying what
to export instead. Tables with a header and no rows (no kernel, copy or
API call at all) are an InputError ("no kernels").
"""
from __future__ import annotations

import csv
import math
import re
from pathlib import Path

from ..options import DEFAULT, ReadOptions
from ...core.errors import InputError
from ...core.model import Kernel, KernelSet
from ...core.text_files import read_text
from ...core.import_result import ImportResult, ProgramTime
from ..copies import copy_bytes, copy_name, direction_in, set_bytes
from ..cupti import api_totals
from ..sums import sum_by_name
from ..timeline import busy_time

_HEADER_CELL = re.compile(r"^\s*(.*?)\s*(?:\(([^()]*)\))?\s*$")
_NUMBER = re.compile(r"^\s*[-+]?(\d[\d,]*\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")
_TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0}
_SIZE_UNITS = {"b": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 2**10, "mib": 2**20, "gib": 2**30}


def _header(cells: list[str]) -> dict[str, tuple[int, str]]:
    """normalised column name -> (index, unit)."""
    out = {}
    for i, cell in enumerate(cells):
        m = _HEADER_CELL.match(cell)
        base, unit = (m.group(1), m.group(2) or "") if m else (cell, "")
        out.setdefault(re.sub(r"[\s_]+", "", base.lower()), (i, unit.strip()))
    return out


_REPORT = {"kern-sum": "cuda_gpu_kern_sum", "api-sum": "cuda_api_sum",
           "mem-time-sum": "cuda_gpu_mem_time_sum", "mem-size-sum": "cuda_gpu_mem_size_sum",
           "gpu-trace": "cuda_gpu_trace"}


def _table_kind(cols: dict) -> str | None:
    if "range" in cols and "instances" in cols:
        return "nvtx-sum"
    if {"start", "end", "durchild"} <= cols.keys() or "rangestack" in cols:
        return "nvtx-trace"
    if "name" in cols and "instances" in cols and "totaltime" in cols:
        return "kern-sum"
    if "name" in cols and "numcalls" in cols and "totaltime" in cols:
        return "api-sum"
    if "operation" in cols and "count" in cols and "totaltime" in cols:
        return "mem-time-sum"
    if "operation" in cols and "count" in cols and "total" in cols:
        return "mem-size-sum"
    if "name" in cols and "start" in cols and "duration" in cols and ("corrid" in cols or "strm" in cols):
        return "gpu-trace"
    return None


def _csv_tables(text: str, path=None):
    """Yield (kind, title, header line number, header cells, [(line number, cells)])
    for each recognised table in ``nsys stats`` CSV output.

    Every table of ``nsys stats`` starts with a numeric column, so a line
    of three or more cells starting with a number outside a table is a data
    row without its header (moved above it, or cut off by a blank line): an
    InputError, never a row dropped without a word. Rows under the header
    of a report this reader does not use are skipped."""
    lines = text.splitlines()
    title = ""
    other_table = False     # inside a table whose header is not one of ours
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("**") or stripped.lower().startswith(("processing", "skipped")):
            title = stripped
            other_table = False
            i += 1
            continue
        if not stripped or "," not in line:
            other_table = other_table and bool(stripped)
            i += 1
            continue
        cells = next(csv.reader([line]))
        cols = _header(cells)
        kind = _table_kind(cols)
        if kind is None:
            if len(cells) >= 3 and _NUMBER.match(cells[0]) and not other_table:
                raise InputError(path, i + 1, "a data row outside any table (above its header, or "
                                 "after a blank line inside a table): the file was edited or cut")
            other_table = other_table or len(cells) >= 3
            i += 1
            continue
        other_table = False
        header_no = i + 1
        rows = []
        i += 1
        while i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith("**"):
            rows.append((i + 1, lines[i]))
            i += 1
        parsed = list(csv.reader([r for _, r in rows])) if rows else []
        yield kind, title, header_no, cols, [(n, c) for (n, _), c in zip(rows, parsed)]
        title = ""


def sniff_csv(path: Path, head: bytes) -> bool:
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        try:
            text = head[:-4].decode("utf-8")  # a multi-byte character cut at the end
        except UnicodeDecodeError:
            return False
    for number, line in enumerate(text.splitlines()[:60]):
        if "," not in line:
            continue
        try:
            cells = next(csv.reader([line]))
        except csv.Error:
            return False
        if _table_kind(_header(cells)) is not None:
            return True
    return False


def read_csv(path: str | Path, options: ReadOptions = DEFAULT) -> ImportResult:
    path = Path(path)
    text = read_text(path, options.max_text_bytes)
    try:
        return parse_csv(text, path)
    except csv.Error as exc:
        raise InputError(path, None, f"malformed CSV: {exc}") from None


def parse_csv(text: str, path: str | Path = "<nsys stats csv>") -> ImportResult:
    kernels: list[Kernel] = []
    mem_time: list[Kernel] = []
    mem_size: list[Kernel] = []
    api: dict[str, float] = {}
    busy = span = None
    found = []
    for kind, title, header_no, cols, rows in _csv_tables(text, path):
        if kind in ("nvtx-sum", "nvtx-trace"):
            found.append(kind)
            continue
        if kind == "api-sum" and ("os runtime" in title.lower() or "osrt" in title.lower()
                                  or "osrt" in Path(str(path)).name.lower()):
            continue
        found.append(kind)
        if kind == "kern-sum":
            kernels += _kern_sum(rows, cols, path)
        elif kind == "api-sum":
            for name, seconds in _api_sum(rows, cols, path).items():
                api[name] = api.get(name, 0.0) + seconds
        elif kind == "mem-time-sum":
            mem_time += _mem_sum(rows, cols, path, with_time=True)
        elif kind == "mem-size-sum":
            mem_size += _mem_sum(rows, cols, path, with_time=False)
        elif kind == "gpu-trace":
            ks, busy, span = _gpu_trace(rows, cols, path)
            kernels += ks
    kernels += _merge_time_and_size(mem_time, mem_size)
    data = [k for k in found if not k.startswith("nvtx")]
    if not data:
        if found:
            raise InputError(path, None, "this is an nsys NVTX range report: it has no kernels; export "
                             "nsys stats --report cuda_gpu_kern_sum --format csv, or the SQLite "
                             "(nsys export --type sqlite)")
        raise InputError(path, None, "no nsys stats table found: expected cuda_gpu_kern_sum, cuda_api_sum, "
                         "cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum or cuda_gpu_trace CSV")
    if not kernels and not api:
        reports = ", ".join(dict.fromkeys(_REPORT[k] for k in data))
        raise InputError(path, None, f"no kernels: the {reports} table(s) have a header but no rows")
    program = ProgramTime(api_s=api, gpu_busy_s=busy, span_s=span) if (api or busy is not None) else None
    return ImportResult(str(path), "nsys-stats-csv", tuple(kernels), program=program)


def _unit(factor_table, unit: str, path, line, column) -> float:
    u = unit.strip().lower()
    if u in ("", "%"):
        return factor_table.get("ns" if factor_table is _TIME_UNITS else "b", 1.0)
    if u not in factor_table:
        raise InputError(path, line, f"column {column}: unknown unit {unit!r}")
    return factor_table[u]


def _cell(cells, cols, key, path, line, what="a number") -> float:
    idx = cols[key][0]
    if idx >= len(cells):
        raise InputError(path, line, f"expected at least {idx + 1} fields, found {len(cells)}")
    text = cells[idx].strip().replace(",", "")
    try:
        value = float(text)
    except ValueError:
        raise InputError(path, line, f"column {key}: expected {what}, found {cells[idx]!r}") from None
    if not math.isfinite(value) or value < 0:
        raise InputError(path, line, f"column {key}: expected a non-negative number, found {cells[idx]!r}")
    return value


def _name(cells, cols, key, path, line) -> str:
    idx = cols[key][0]
    if idx >= len(cells):
        raise InputError(path, line, f"expected at least {idx + 1} fields, found {len(cells)}")
    # a name with commas that was not quoted spills over into extra cells
    name = ",".join(cells[idx:]) if idx == max(i for i, _ in cols.values()) else cells[idx]
    name = name.strip()
    if not name:
        raise InputError(path, line, "empty name")
    return name


def _kern_sum(rows, cols, path) -> list[Kernel]:
    scale = _unit(_TIME_UNITS, cols["totaltime"][1], path, None, "Total Time")
    out = []
    for line, cells in rows:
        total = _cell(cells, cols, "totaltime", path, line)
        count = _cell(cells, cols, "instances", path, line, "a whole number")
        if count != int(count) or count < 1:
            raise InputError(path, line, f"column Instances: expected a whole number >= 1, found {count!r}")
        name = _name(cells, cols, "name", path, line)
        out.append(Kernel(name=name, time_s=total * scale, count=int(count)))
    return out


def _api_sum(rows, cols, path) -> dict[str, float]:
    scale = _unit(_TIME_UNITS, cols["totaltime"][1], path, None, "Total Time")
    return api_totals((_name(cells, cols, "name", path, line),
                       _cell(cells, cols, "totaltime", path, line) * scale) for line, cells in rows)


def _copy_kind(operation: str) -> str | None:
    """Copy direction of an nsys operation name (``[CUDA memcpy HtoD]``,
    ``[CUDA memcpy Host-to-Device]``, ``[CUDA Unified Memory memcpy DtoH]``),
    ``unknown`` when it names none; None when it is not a copy (kernels are
    never bracketed)."""
    text = operation.strip()
    if not text.startswith("[") or "memcpy" not in text.lower():
        return None
    return direction_in(text) or "unknown"


def _mem_sum(rows, cols, path, with_time: bool) -> list[Kernel]:
    if with_time:
        scale = _unit(_TIME_UNITS, cols["totaltime"][1], path, None, "Total Time")
    else:
        unit = cols["total"][1]
        if unit.lower() not in _SIZE_UNITS:
            raise InputError(path, None, f"column Total: unknown size unit {unit!r}")
        scale = _SIZE_UNITS[unit.lower()]
    out = []
    for line, cells in rows:
        op = _name(cells, cols, "operation", path, line)
        count = _cell(cells, cols, "count", path, line, "a whole number")
        if count != int(count) or count < 1:
            raise InputError(path, line, f"column Count: expected a whole number >= 1, found {count!r}")
        kind = _copy_kind(op)
        if with_time:
            time_s, nbytes = _cell(cells, cols, "totaltime", path, line) * scale, {}
        else:
            total = _cell(cells, cols, "total", path, line) * scale
            time_s = math.nan
            nbytes = copy_bytes(kind, total) if kind is not None else set_bytes(total)
        if kind is not None:
            out.append(Kernel(name=copy_name(kind), time_s=time_s, count=int(count), bytes=nbytes,
                              family="memcpy"))
        else:
            out.append(Kernel(name="[CUDA memset]", time_s=time_s, count=int(count), bytes=nbytes,
                              family="memset" if "memset" in op.lower() else ""))
    return out


def _merge_time_and_size(timed: list[Kernel], sized: list[Kernel]) -> list[Kernel]:
    """The by-time and by-size copy summaries of one run -> one row per
    operation with both time and bytes (when the counts agree)."""
    by_name = {k.name: k for k in sized}
    out = []
    for k in timed:
        s = by_name.get(k.name)
        if s is not None and s.count == k.count:
            del by_name[k.name]
            k = Kernel(name=k.name, time_s=k.time_s, count=k.count, bytes=s.bytes, family=k.family)
        out.append(k)
    return out + list(by_name.values())


def _gpu_trace(rows, cols, path):
    t_scale = _unit(_TIME_UNITS, cols["start"][1], path, None, "Start")
    d_scale = _unit(_TIME_UNITS, cols["duration"][1], path, None, "Duration")
    b_key = "bytes" if "bytes" in cols else None
    b_scale = _SIZE_UNITS.get(cols["bytes"][1].lower(), None) if b_key else None
    if b_key and b_scale is None:
        raise InputError(path, None, f"column Bytes: unknown size unit {cols['bytes'][1]!r}")
    names, times, moved, families = [], [], [], []
    starts, ends = [], []
    for line, cells in rows:
        name = _name(cells, cols, "name", path, line)
        start = _cell(cells, cols, "start", path, line) * t_scale
        dur = _cell(cells, cols, "duration", path, line) * d_scale
        starts.append(start)
        ends.append(start + dur)
        nb = math.nan
        if b_key and cols[b_key][0] < len(cells) and cells[cols[b_key][0]].strip():
            nb = _cell(cells, cols, b_key, path, line) * b_scale
        name, nbytes, family = _activity(name, nb)
        names.append(name)
        times.append(dur)
        moved.append(nbytes)
        families.append(family)
    levels = sorted({lv for m in moved for lv in m})
    # copies of one kind named differently (pageable/pinned) are one row;
    # a kind's bytes are known only when every copy of it has a size
    ks = sum_by_name(KernelSet(names, times, families=families,
                               bytes={lv: [m.get(lv, math.nan) for m in moved] for lv in levels}))
    busy = busy_time(starts, ends) if starts else 0.0
    span = (max(ends) - min(starts)) if starts else None
    return ks.kernels(), busy, span


def _activity(name: str, nbytes: float) -> tuple[str, dict[str, float], str]:
    """(row name, bytes per level, family) of one GPU trace activity: a
    copy under its kind's name, a memset, or a kernel (no bytes)."""
    kind = _copy_kind(name)
    if kind is not None:
        return copy_name(kind), copy_bytes(kind, nbytes), "memcpy"
    if "memset" in name.lower() and name.strip().startswith("["):
        return "[CUDA memset]", set_bytes(nbytes), "memset"
    return name, {}, ""
