"""Nsight Systems: SQLite exports and ``nsys stats`` CSV reports.

SQLite (``nsys export --type sqlite``, or the ``.sqlite`` that ``nsys stats``
leaves beside the report). Both schema generations are read:

* ``CUPTI_ACTIVITY_KIND_KERNEL`` with ``demangledName``/``shortName`` (and
  ``mangledName`` from 2022 on) as ids into ``StringIds``; older exports
  have no ``mangledName`` and no ``EXPORT_META_DATA``.
* Text comes back as bytes (``text_factory=bytes``) and is decoded as UTF-8
  with replacement: some exports carry Latin-1 metadata that makes Python's
  sqlite3 raise otherwise.

Kernels are grouped by demangled name in SQL (count, total of
``end - start``), so a million launches cost one ``GROUP BY``. The launch
configuration (grid, block, registers per thread) is kept when it is the
same for every launch of the group.

Copies and sets (``CUPTI_ACTIVITY_KIND_MEMCPY``/``MEMSET``) become kernels of
family ``memcpy``/``memset`` named as nvprof names them (``[CUDA memcpy
HtoD]``, ``[CUDA memset]``), one per copy kind (CUPTI ``copyKind`` enum).
Their bytes go on the level they cross: host-device and peer copies on the
host link (``PCIe``, where NVLink also goes), device-to-device copies on
``DRAM`` twice (read and write), sets on ``DRAM`` once, host-to-host copies
nowhere.

Program time: ``api_s`` sums ``CUPTI_ACTIVITY_KIND_RUNTIME`` by function
(the ``_v3020``-style version suffix is dropped; exports from about 2021
record each call twice, with and without it, and are counted once).
``gpu_busy_s`` is the length of the union of all kernel, copy and set
intervals (over all devices); ``span_s`` runs from the first CUDA API call
or GPU activity to the last one, so idle = span - busy is GPU idle time
while the program was using CUDA.

CSV (``nsys stats --report ... --format csv``), one file or the several
tables ``nsys stats`` prints to stdout (titles and ``Processing [...]``
lines between them are skipped):

* ``cuda_gpu_kern_sum`` (``gpukernsum`` before 2023): ``Time (%),Total Time
  (ns),Instances,Avg (ns),...,Name``, and the older ``Time(%),Total Time
  (ns),Instances,Average,Minimum,Maximum,Name``.
* ``cuda_api_sum`` (``cudaapisum``): ``...,Num Calls,...,Name`` -> api_s.
* ``cuda_gpu_mem_time_sum`` / ``cuda_gpu_mem_size_sum`` (``gpumemtimesum``,
  ``gpumemsizesum``): copies with time or with bytes.
* ``cuda_gpu_trace`` (``gputrace``): one row per activity, with bytes of
  copies; kernels are grouped and busy time computed as for SQLite.

An NVTX range report or a binary ``.nsys-rep`` is recognised and refused
with a message saying what to export instead.
"""
from __future__ import annotations

import csv
import itertools
import math
import re
import sqlite3
from pathlib import Path
from urllib.parse import quote

import numpy as np

from ..errors import Advice, InputError
from ..families import family_of
from ..model import Kernel
from .base import ImportResult, ProgramTime, Reader, register

SQLITE_MAGIC = b"SQLite format 3\x00"
NSYS_REP_MAGIC = b"NVIDIA Tegra Profiler Report"

# CUpti_ActivityMemcpyKind -> (short name, level the bytes cross, bytes factor)
COPY_KINDS = {
    0: ("unknown", None, 1.0),
    1: ("HtoD", "PCIe", 1.0), 2: ("DtoH", "PCIe", 1.0),
    3: ("HtoA", "PCIe", 1.0), 4: ("AtoH", "PCIe", 1.0),
    5: ("AtoA", "DRAM", 2.0), 6: ("AtoD", "DRAM", 2.0), 7: ("DtoA", "DRAM", 2.0),
    8: ("DtoD", "DRAM", 2.0), 9: ("HtoH", None, 1.0), 10: ("PtoP", "PCIe", 1.0),
}
_KIND_BY_NAME = {v[0].lower(): k for k, v in COPY_KINDS.items()}
_KIND_BY_NAME.update({"host-to-device": 1, "device-to-host": 2, "device-to-device": 8,
                      "host-to-host": 9, "peer-to-peer": 10})

NAME_COLUMNS = {"demangled": "demangledName", "short": "shortName", "mangled": "mangledName"}
_VERSION_SUFFIX = re.compile(r"_v\d+$")


def copy_name(kind: int) -> str:
    return f"[CUDA memcpy {COPY_KINDS.get(kind, COPY_KINDS[0])[0]}]"


def copy_bytes(kind: int, nbytes: float) -> dict[str, float]:
    """Bytes per level of ``nbytes`` copied with CUPTI copy kind ``kind``."""
    _, level, factor = COPY_KINDS.get(kind, COPY_KINDS[0])
    return {} if level is None or math.isnan(nbytes) else {level: nbytes * factor}


def busy_time(starts, ends) -> float:
    """Length of the union of intervals [start, end) (any unit), vectorised:
    sort by start; each interval adds what reaches past the furthest end
    seen before it."""
    s = np.asarray(starts, dtype=np.float64)
    e = np.asarray(ends, dtype=np.float64)
    if s.size == 0:
        return 0.0
    order = np.argsort(s, kind="stable")
    s, e = s[order], e[order]
    reach = np.maximum.accumulate(e)
    prev = np.empty_like(reach)
    prev[0] = -np.inf
    prev[1:] = reach[:-1]
    return float(np.sum(np.maximum(e - np.maximum(s, prev), 0.0)))


def api_totals(rows) -> dict[str, float]:
    """(raw name, seconds) pairs -> seconds per API name, version suffix
    dropped; when both ``cudaMalloc`` and ``cudaMalloc_v3020`` appear the
    suffixed records are nested duplicates and are not counted."""
    raw: dict[str, float] = {}
    for name, seconds in rows:
        raw[name] = raw.get(name, 0.0) + seconds
    out: dict[str, float] = {}
    for name, seconds in raw.items():
        base = _VERSION_SUFFIX.sub("", name)
        if base != name and base in raw:
            continue
        out[base] = out.get(base, 0.0) + seconds
    return out


# ---------------------------------------------------------------- SQLite

def _text(value) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return "" if value is None else str(value)


def _connect(path: Path) -> sqlite3.Connection:
    uri = f"file:{quote(str(Path(path).resolve()))}?mode=ro&immutable=1"
    conn = sqlite3.connect(uri, uri=True)
    conn.text_factory = bytes
    return conn


def _tables(conn) -> set[str]:
    return {_text(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _columns(conn, table: str) -> list[str]:
    return [_text(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")')]


def sniff_sqlite(path: Path, head: bytes) -> bool:
    if not head.startswith(SQLITE_MAGIC):
        return False
    try:
        conn = _connect(path)
        try:
            tables = _tables(conn)
        finally:
            conn.close()
    except (sqlite3.Error, UnicodeError):  # a corrupt schema can carry undecodable error text
        return False
    return "StringIds" in tables and any(t.startswith(("CUPTI_ACTIVITY_KIND_", "TARGET_INFO_")) for t in tables)


def read_sqlite(path: str | Path, names: str = "demangled") -> ImportResult:
    """Kernels, copies and program time from an nsys SQLite export.

    ``names`` picks the kernel name column: ``demangled`` (default, full
    signature, what ``nsys stats`` shows), ``short`` or ``mangled``.
    """
    path = Path(path)
    if names not in NAME_COLUMNS:
        raise ValueError(f"names must be one of {', '.join(NAME_COLUMNS)}, not {names!r}")
    try:
        conn = _connect(path)
    except (sqlite3.Error, UnicodeError) as exc:
        raise InputError(path, None, f"cannot open as SQLite: {exc}") from None
    try:
        return _read_sqlite(conn, path, names)
    except InputError:
        raise
    except (sqlite3.Error, ValueError, TypeError, OverflowError, KeyError, IndexError, MemoryError) as exc:
        # ValueError covers UnicodeDecodeError: sqlite3 decodes its error messages, and a
        # corrupt schema puts undecodable bytes into them
        raise InputError(path, None, f"malformed Nsight Systems export ({type(exc).__name__}: {exc})") from None
    finally:
        conn.close()


def _read_sqlite(conn, path: Path, names: str) -> ImportResult:
    tables = _tables(conn)
    kernel_t, memcpy_t, memset_t = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                    "CUPTI_ACTIVITY_KIND_MEMSET")
    present = [t for t in (kernel_t, memcpy_t, memset_t) if t in tables]
    if not present:
        raise InputError(path, None, "no CUDA GPU activity tables (CUPTI_ACTIVITY_KIND_KERNEL/MEMCPY/"
                         "MEMSET): was the program profiled with nsys profile --trace=cuda?")
    warnings: list[Advice] = []
    kernels: list[Kernel] = []
    device_name = None
    if kernel_t in tables:
        found, device_time = _sqlite_kernels(conn, path, kernel_t, names)
        kernels += found
        device_name = _sqlite_device(conn, tables, device_time)
        if len(device_time) > 1:
            warnings.append(Advice(
                f"kernels ran on {len(device_time)} devices; each name is one row over all of them",
                "device_name is the device with the most kernel time", subject="devices"))
    if memcpy_t in tables:
        kernels += _sqlite_memcpy(conn, path, memcpy_t)
    if memset_t in tables:
        kernels += _sqlite_memset(conn, path, memset_t)
    program = _sqlite_program(conn, tables, present)
    return ImportResult(str(path), "nsys-sqlite", tuple(kernels), device_name=device_name,
                        program=program, warnings=tuple(warnings))


def _check_durations(path, table, count, min_dur):
    if count and min_dur is not None and min_dur < 0:
        raise InputError(path, None, f"{table}: an activity ends before it starts (end - start = {min_dur})")


def _sqlite_kernels(conn, path, table, names) -> tuple[list[Kernel], dict]:
    """Kernels grouped by name, and kernel time per device id, in one scan."""
    cols = set(_columns(conn, table))
    want = NAME_COLUMNS[names]
    order = [want] + [c for c in ("demangledName", "shortName", "mangledName", "name") if c != want]
    name_col = next((c for c in order if c in cols), None)
    if name_col is None:
        raise InputError(path, None, f"{table} has no kernel name column (demangledName, shortName)")
    launch_cols = [c for c in ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
                               "registersPerThread") if c in cols]
    device_col = '"deviceId"' if "deviceId" in cols else "0"
    agg = "".join(f', min("{c}"), max("{c}")' for c in launch_cols)
    sql = (f'SELECT s.value, g.* FROM (SELECT "{name_col}" AS nid, {device_col} AS dev, count(*) AS n, '
           f'total("end" - "start") AS t, min("end" - "start") AS m{agg} '
           f'FROM "{table}" GROUP BY "{name_col}", {device_col}) AS g '
           f'LEFT JOIN StringIds AS s ON s.id = g.nid')
    groups: dict[object, list] = {}
    device_time: dict[object, float] = {}
    for row in conn.execute(sql):
        value, nid, dev, n, total, min_dur = row[:6]
        _check_durations(path, table, n, min_dur)
        if value is None:
            if isinstance(nid, (bytes, str)) and nid:
                value = nid
            else:
                raise InputError(path, None, f"{table}: kernel name id {nid!r} is not in StringIds")
        try:
            device_time[dev] = device_time.get(dev, 0.0) + float(total)
        except TypeError:
            raise InputError(path, None, f"{table}: bad deviceId {dev!r}") from None
        bounds = list(row[6:])
        g = groups.get(value)
        if g is None:
            groups[value] = [int(n), float(total), bounds]
        else:
            g[0] += int(n)
            g[1] += float(total)
            g[2] = [min(a, b) if i % 2 == 0 else max(a, b) for i, (a, b) in enumerate(zip(g[2], bounds))]
    kernels = []
    for value, (n, total, bounds) in groups.items():
        name = _text(value)
        kernels.append(Kernel(name=name, time_s=total * 1e-9, count=n, family=family_of(name),
                              launch=_uniform_launch(launch_cols, bounds)))
    return kernels, device_time


def _uniform_launch(cols, values) -> dict:
    got = {}
    for i, c in enumerate(cols):
        lo, hi = values[2 * i], values[2 * i + 1]
        if lo is not None and lo == hi and isinstance(lo, int):
            got[c] = lo
    launch = {}
    if all(c in got for c in ("gridX", "gridY", "gridZ")):
        launch["grid"] = (got["gridX"], got["gridY"], got["gridZ"])
    if all(c in got for c in ("blockX", "blockY", "blockZ")):
        launch["block"] = (got["blockX"], got["blockY"], got["blockZ"])
    if "registersPerThread" in got:
        launch["registers_per_thread"] = got["registersPerThread"]
    return launch


def _sqlite_memcpy(conn, path, table) -> list[Kernel]:
    out = []
    sql = (f'SELECT copyKind, count(*), total("end" - "start"), min("end" - "start"), total(bytes), '
           f'min(bytes) FROM "{table}" GROUP BY copyKind ORDER BY copyKind')
    for kind, n, total, min_dur, nbytes, min_bytes in conn.execute(sql):
        _check_durations(path, table, n, min_dur)
        if min_bytes is not None and min_bytes < 0:
            raise InputError(path, None, f"{table}: negative byte count")
        kind = int(kind) if isinstance(kind, int) else 0
        out.append(Kernel(name=copy_name(kind), time_s=float(total) * 1e-9, count=int(n),
                          bytes=copy_bytes(kind, float(nbytes)), family="memcpy"))
    return out


def _sqlite_memset(conn, path, table) -> list[Kernel]:
    n, total, min_dur, nbytes, min_bytes = conn.execute(
        f'SELECT count(*), total("end" - "start"), min("end" - "start"), total(bytes), min(bytes) '
        f'FROM "{table}"').fetchone()
    if not n:
        return []
    _check_durations(path, table, n, min_dur)
    if min_bytes is not None and min_bytes < 0:
        raise InputError(path, None, f"{table}: negative byte count")
    return [Kernel(name="[CUDA memset]", time_s=float(total) * 1e-9, count=int(n),
                   bytes={"DRAM": float(nbytes)}, family="memset")]


def _sqlite_device(conn, tables, device_time: dict) -> str | None:
    """Name of the device with the most kernel time, from the target info."""
    if not device_time:
        return None
    device = max(device_time, key=device_time.get)
    for table, id_cols in (("TARGET_INFO_CUDA_GPU", ("deviceId",)),
                           ("TARGET_INFO_GPU", ("deviceId", "id", "cuDevice"))):
        if table not in tables:
            continue
        cols = _columns(conn, table)
        if "name" not in cols:
            continue
        for id_col in id_cols:
            if id_col in cols:
                row = conn.execute(f'SELECT name FROM "{table}" WHERE "{id_col}" = ? LIMIT 1',
                                   (device,)).fetchone()
                if row and row[0]:
                    return _text(row[0])
    return None


def _sqlite_program(conn, tables, activity_tables) -> ProgramTime:
    union = " UNION ALL ".join(f'SELECT "start", "end" FROM "{t}"' for t in activity_tables)
    flat = np.fromiter(itertools.chain.from_iterable(conn.execute(union)), dtype=np.float64)
    arr = flat.reshape(-1, 2)
    busy = busy_time(arr[:, 0], arr[:, 1]) * 1e-9
    lo = float(arr[:, 0].min()) if len(arr) else math.inf
    hi = float(arr[:, 1].max()) if len(arr) else -math.inf
    api: dict[str, float] = {}
    runtime = "CUPTI_ACTIVITY_KIND_RUNTIME"
    if runtime in tables and "nameId" in _columns(conn, runtime):
        rows = conn.execute(
            f'SELECT s.value, g.nid, g.t FROM (SELECT nameId AS nid, total("end" - "start") AS t '
            f'FROM "{runtime}" GROUP BY nameId) AS g LEFT JOIN StringIds AS s ON s.id = g.nid').fetchall()
        api = api_totals((_text(v) if v is not None else f"<api {nid}>", float(t) * 1e-9)
                         for v, nid, t in rows)
        ext = conn.execute(f'SELECT min("start"), max("end") FROM "{runtime}"').fetchone()
        if ext[0] is not None:
            lo, hi = min(lo, float(ext[0])), max(hi, float(ext[1]))
    span = (hi - lo) * 1e-9 if hi >= lo else None
    return ProgramTime(api_s=api, gpu_busy_s=busy, span_s=span)


# ---------------------------------------------------------------- CSV

_HEADER_CELL = re.compile(r"^\s*(.*?)\s*(?:\(([^()]*)\))?\s*$")
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


def _csv_tables(text: str):
    """Yield (kind, title, header line number, header cells, [(line number, cells)])
    for each recognised table in ``nsys stats`` CSV output."""
    lines = text.splitlines()
    title = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("**") or stripped.lower().startswith(("processing", "skipped")):
            title = stripped
            i += 1
            continue
        if not stripped or "," not in line:
            i += 1
            continue
        cells = next(csv.reader([line]))
        cols = _header(cells)
        kind = _table_kind(cols)
        if kind is None:
            i += 1
            continue
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


def read_csv(path: str | Path) -> ImportResult:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not UTF-8 text (byte {exc.start})") from None
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
    for kind, title, header_no, cols, rows in _csv_tables(text):
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
        out.append(Kernel(name=name, time_s=total * scale, count=int(count), family=family_of(name)))
    return out


def _api_sum(rows, cols, path) -> dict[str, float]:
    scale = _unit(_TIME_UNITS, cols["totaltime"][1], path, None, "Total Time")
    return api_totals((_name(cells, cols, "name", path, line),
                       _cell(cells, cols, "totaltime", path, line) * scale) for line, cells in rows)


_DIRECTION = re.compile(r"\b(HtoD|DtoH|DtoD|HtoH|PtoP|HtoA|AtoH|AtoA|AtoD|DtoA|Host-to-Device|"
                        r"Device-to-Host|Device-to-Device|Host-to-Host|Peer-to-Peer)\b", re.IGNORECASE)


def _copy_kind(operation: str) -> int | None:
    """CUPTI copy kind of an nsys operation name (``[CUDA memcpy HtoD]``,
    ``[CUDA memcpy Host-to-Device]``, ``[CUDA Unified Memory memcpy DtoH]``);
    None when it is not a copy (kernels are never bracketed)."""
    text = operation.strip()
    if not text.startswith("[") or "memcpy" not in text.lower():
        return None
    m = _DIRECTION.search(text)
    return _KIND_BY_NAME.get(m.group(1).lower(), 0) if m else 0


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
            nbytes = copy_bytes(kind, total) if kind is not None else {"DRAM": total}
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
    groups: dict[str, list] = {}
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
        g = groups.setdefault(name, [0, 0.0, 0.0, True])
        g[0] += 1
        g[1] += dur
        if math.isnan(nb):
            g[3] = False
        else:
            g[2] += nb
    kernels = []
    for name, (n, t, nb, all_bytes) in groups.items():
        kind = _copy_kind(name)
        if kind is not None:
            kernels.append(Kernel(name=copy_name(kind), time_s=t, count=n,
                                  bytes=copy_bytes(kind, nb) if all_bytes else {}, family="memcpy"))
        elif "memset" in name.lower() and name.strip().startswith("["):
            kernels.append(Kernel(name="[CUDA memset]", time_s=t, count=n,
                                  bytes={"DRAM": nb} if all_bytes else {}, family="memset"))
        else:
            kernels.append(Kernel(name=name, time_s=t, count=n, family=family_of(name)))
    busy = busy_time(starts, ends) if starts else 0.0
    span = (max(ends) - min(starts)) if starts else None
    return _merge_by_name(kernels), busy, span


def _merge_by_name(kernels: list[Kernel]) -> list[Kernel]:
    """Copies of one kind named differently (pageable/pinned) become one row."""
    out: dict[str, Kernel] = {}
    for k in kernels:
        if k.name in out:
            o = out[k.name]
            merged = dict(o.bytes)
            for lv, v in k.bytes.items():
                merged[lv] = merged.get(lv, 0.0) + v
            out[k.name] = Kernel(name=k.name, time_s=o.time_s + k.time_s, count=o.count + k.count,
                                 bytes=merged if (o.bytes and k.bytes) else {}, family=k.family)
        else:
            out[k.name] = k
    return list(out.values())


# ---------------------------------------------------------------- .nsys-rep

def sniff_rep(path: Path, head: bytes) -> bool:
    return head.startswith(NSYS_REP_MAGIC)


def read_rep(path: Path) -> ImportResult:
    raise InputError(path, None, "this is a binary Nsight Systems report: export it first with "
                     "'nsys export --type sqlite -o report.sqlite report.nsys-rep' (or "
                     "'nsys stats --report cuda_gpu_kern_sum --format csv report.nsys-rep') "
                     "and read that file")


register(Reader("nsys-sqlite", sniff_sqlite, read_sqlite))
register(Reader("nsys-stats-csv", sniff_csv, read_csv))
register(Reader("nsys-rep", sniff_rep, read_rep))
