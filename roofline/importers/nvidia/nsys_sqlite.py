"""Nsight Systems SQLite exports (``nsys export --type sqlite``, or the
``.sqlite`` that ``nsys stats`` leaves beside the report).

Both schema generations are read:

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

Copies and sets (``CUPTI_ACTIVITY_KIND_MEMCPY``/``MEMSET``) become kernels
of family ``memcpy``/``memset``: one per copy kind
(:mod:`roofline.importers.cupti`), sets as ``[CUDA memset]`` with their
bytes on ``DRAM`` once.

Program time: ``api_s`` sums ``CUPTI_ACTIVITY_KIND_RUNTIME`` by function
(the ``_v3020``-style version suffix is dropped; exports from about 2021
record each call twice, with and without it, and are counted once).
``gpu_busy_s`` is the length of the union of all kernel, copy and set
intervals (over all devices); ``span_s`` runs from the first CUDA API call
or GPU activity to the last one, so idle = span - busy is GPU idle time
while the program was using CUDA.

An export whose activity tables are all empty is an InputError ("no
kernels").

What SQLite may spend on a file is bounded, since a 12 KB file can ask for
gigabytes: a column SQLite would compute on every read (``GENERATED ...
VIRTUAL``; Nsight Systems never writes one) is refused, no value may exceed
:data:`MAX_VALUE_BYTES` (``hex(zeroblob(4e8))`` asked for 2 GB), and the
queries stop after :func:`deadline_s` seconds. Each overrun is one InputError.
"""
from __future__ import annotations

import itertools
import math
import sqlite3
import time
from pathlib import Path
from urllib.parse import quote

import numpy as np

from ..options import DEFAULT, ReadOptions
from ...core.errors import Advice, InputError
from ...core.model import Kernel
from ...core.import_result import DeviceClues, ImportResult, ProgramTime
from ..copies import copy_bytes, copy_name, cupti_direction, set_bytes
from ..cupti import api_totals
from ..timeline import busy_time

SQLITE_MAGIC = b"SQLite format 3\x00"
NAME_COLUMNS = {"demangled": "demangledName", "short": "shortName", "mangled": "mangledName"}
# The tables the reader queries: none may hold a column computed on read.
READ_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
               "CUPTI_ACTIVITY_KIND_RUNTIME", "StringIds", "TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU")
# Kernel names are kilobytes; no value the reader needs comes near this.
MAX_VALUE_BYTES = 32 << 20
# the deadline is checked every so many SQLite virtual-machine steps
PROGRESS_STEPS = 10_000
_GENERATED_VIRTUAL = 2          # PRAGMA table_xinfo 'hidden' code of a VIRTUAL generated column


def deadline_s(path: Path) -> float:
    """How long the queries may take: a minute, and a second more for each
    5 MB (a 2 GB export groups its kernels in well under 400 s)."""
    return 60.0 + path.stat().st_size / 5e6


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


def read_sqlite(path: str | Path, options: ReadOptions = DEFAULT, names: str = "demangled") -> ImportResult:
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
        _bound(conn, path)
        return _read_sqlite(conn, path, names)
    except InputError:
        raise
    except (sqlite3.OperationalError, sqlite3.DataError) as exc:
        raise InputError(path, None, _overrun(exc, path)) from None
    except (sqlite3.Error, ValueError, TypeError, OverflowError, KeyError, IndexError, MemoryError) as exc:
        # ValueError covers UnicodeDecodeError: sqlite3 decodes its error messages, and a
        # corrupt schema puts undecodable bytes into them
        raise InputError(path, None, f"malformed Nsight Systems export ({type(exc).__name__}: {exc})") from None
    finally:
        conn.close()


def _bound(conn, path: Path) -> None:
    """Cap the size of any value SQLite makes and the time its queries take."""
    if hasattr(conn, "setlimit"):       # Python 3.11+
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    end = time.monotonic() + deadline_s(path)
    conn.set_progress_handler(lambda: time.monotonic() > end, PROGRESS_STEPS)


def _overrun(exc: sqlite3.Error, path: Path) -> str:
    text = str(exc)
    if text == "interrupted":
        return (f"reading took longer than {deadline_s(path):.0f} s and was stopped "
                "(not an Nsight Systems export, or a damaged one)")
    if "too big" in text:
        return (f"a value larger than {MAX_VALUE_BYTES >> 20} MiB was asked for and refused "
                "(not an Nsight Systems export, or a damaged one)")
    return f"malformed Nsight Systems export ({type(exc).__name__}: {text})"


def _refuse_computed_columns(conn, path: Path, tables: set[str]) -> None:
    """A VIRTUAL generated column is computed on every read, at any cost
    its expression asks for; Nsight Systems never writes one."""
    for table in READ_TABLES:
        if table not in tables:
            continue
        for row in conn.execute(f'PRAGMA table_xinfo("{table}")'):
            if row[6] == _GENERATED_VIRTUAL:
                raise InputError(path, None, f"{table}.{_text(row[1])} is a computed column (GENERATED "
                                 "... VIRTUAL), which Nsight Systems never writes: not read")


def _read_sqlite(conn, path: Path, names: str) -> ImportResult:
    tables = _tables(conn)
    _refuse_computed_columns(conn, path, tables)
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
    if not kernels:
        raise InputError(path, None, f"no kernels: {', '.join(present)} "
                         f"{'is' if len(present) == 1 else 'are'} empty (no kernel, copy or set "
                         "was recorded)")
    program = _sqlite_program(conn, tables, present)
    warnings += _backwards_api_rows(conn, tables)
    return ImportResult(str(path), "nsys-sqlite", tuple(kernels), program=program, warnings=tuple(warnings),
                        device=DeviceClues(name=device_name))


def _backwards_api_rows(conn, tables) -> list[Advice]:
    """Runtime calls recorded ending before they start count as 0 s (they
    made host API time negative) and are named in a warning."""
    runtime = "CUPTI_ACTIVITY_KIND_RUNTIME"
    if runtime not in tables:
        return []
    n = conn.execute(f'SELECT count(*) FROM "{runtime}" WHERE "end" < "start"').fetchone()[0]
    if not n:
        return []
    return [Advice(f"{n} CUDA API call(s) end before they start; they count as 0 s of host API time",
                   "a damaged or clock-skewed export: re-export the report", subject="api")]


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
        kernels.append(Kernel(name=name, time_s=total * 1e-9, count=n,
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
        direction = cupti_direction(int(kind) if isinstance(kind, int) else 0)
        out.append(Kernel(name=copy_name(direction), time_s=float(total) * 1e-9, count=int(n),
                          bytes=copy_bytes(direction, float(nbytes)), family="memcpy"))
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
                   bytes=set_bytes(float(nbytes)), family="memset")]


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
            f'SELECT s.value, g.nid, g.t FROM (SELECT nameId AS nid, total(max("end" - "start", 0)) AS t '
            f'FROM "{runtime}" GROUP BY nameId) AS g LEFT JOIN StringIds AS s ON s.id = g.nid').fetchall()
        api = api_totals((_text(v) if v is not None else f"<api {nid}>", float(t) * 1e-9)
                         for v, nid, t in rows)
        ext = conn.execute(f'SELECT min("start"), max("end") FROM "{runtime}"').fetchone()
        if ext[0] is not None:
            lo, hi = min(lo, float(ext[0])), max(hi, float(ext[1]))
    span = (hi - lo) * 1e-9 if hi >= lo else None
    return ProgramTime(api_s=api, gpu_busy_s=busy, span_s=span)
