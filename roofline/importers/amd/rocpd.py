"""rocprofv3's rocpd SQLite database (``rocprofv3 --output-format rocpd``,
the default from ROCm 7: a ``.db`` file).

Layout (ROCm/rocprofiler-sdk ``source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql``;
each table is named with the run's uuid appended, ``rocpd_kernel_dispatch_<uuid>``,
and ``rocpd_*`` views without it select from them)::

    rocpd_kernel_dispatch  id, guid, pid, agent_id, kernel_id, dispatch_id,
                           start, end (ns; a later schema keeps them in
                           rocpd_timestamp and refers to them by start_id,
                           end_id, and the agent by track_id -> rocpd_track),
                           private_segment_size, group_segment_size,
                           workgroup_size_x/y/z, grid_size_x/y/z, event_id
    rocpd_info_kernel_symbol  id (= kernel_id), display_name (formatted),
                           kernel_name (mangled), sgpr_count, arch_vgpr_count,
                           accum_vgpr_count
    rocpd_info_agent       id, type ('GPU'/'CPU'), name (gfx942), product_name,
                           extdata (the agent as rocprofv3's JSON writes it:
                           cu_count, wave_front_size, num_xcc, gfx_target_version,
                           max_engine_clk_fcompute, mem_banks)
    rocpd_pmc_event        event_id (a dispatch's event_id), pmc_id, value
    rocpd_info_pmc         id (= pmc_id), name

The uuid-suffixed tables are read, not the views (a view is a query the
file chooses; a crafted one can be made to cost anything); a file with
several runs' tables (several uuids) has each read. Dispatches become
:class:`~.rocprof_common.Dispatches` as the other rocprofv3 readers make
them, so kernels, counters (per dispatch, instances summed) and warnings
are theirs. Copies and API calls are not read.

Every figure is checked where it enters: a value SQLite holds as text or a
float in an integer column, a negative size, an end before its start or a
negative or non-finite counter is one InputError naming the table, the row
id and the column. What SQLite may spend is bounded as for Nsight Systems
exports: no value past :data:`MAX_VALUE_BYTES`, queries stopped after
:func:`deadline_s`.
"""
from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path
from urllib.parse import quote

import numpy as np

from ..options import DEFAULT, ReadOptions
from ...core.errors import InputError
from ...core.text_files import regular_file
from ..recipes import missing_counter_advice
from ...core.import_result import DeviceClues, ImportResult
from ..base import Reader, register
from .rocprof_checks import AGENT_FIGURES, agent_figures
from .rocprof_common import CONFIG, AmdDevice, Dispatches, advice, gfx_of_version, identity, kernel_name, \
    kernels_of, program_time
from .rocprof_table import Columns

SQLITE_MAGIC = b"SQLite format 3\x00"
DISPATCH = "rocpd_kernel_dispatch"
MAX_VALUE_BYTES = 32 << 20          # kernel names are kilobytes, an agent's extdata a few
PROGRESS_STEPS = 10_000
CHUNK = 65_536                      # rows fetched at a time: columns, never a tuple per dispatch kept
_SUFFIX = re.compile(r"^rocpd_kernel_dispatch(_[0-9A-Za-z_]*)?$")
_FRAME_BUFFER = (1, 2)              # HSA heap types of the device's own memory
# launch figures of a dispatch row: (query column, CONFIG key or None, may be NULL)
_FIGURES = (("grid_size_x", "grid_x", False), ("grid_size_y", "grid_y", False), ("grid_size_z", "grid_z", False),
            ("workgroup_size_x", "wg_x", False), ("workgroup_size_y", "wg_y", False),
            ("workgroup_size_z", "wg_z", False), ("group_segment_size", "lds", True),
            ("private_segment_size", "scratch", True))


def deadline_s(path: Path) -> float:
    """How long the queries may take: a minute, and a second more per 5 MB."""
    return 60.0 + path.stat().st_size / 5e6


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{quote(str(Path(path).resolve()))}?mode=ro&immutable=1", uri=True)
    conn.text_factory = bytes        # names are decoded here, with replacement, not by sqlite3
    return conn


def _text(value) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else "" if value is None else str(value)


def _objects(conn) -> dict[str, str]:
    return {_text(n): _text(t) for n, t in conn.execute("SELECT name, type FROM sqlite_master")}


def sniff(path: Path, head: bytes) -> bool:
    if not head.startswith(SQLITE_MAGIC):
        return False
    try:
        conn = _connect(path)
        try:
            return any(_SUFFIX.match(name) for name in _objects(conn))
        finally:
            conn.close()
    except (sqlite3.Error, UnicodeError, ValueError):
        return False


def sniff_db(path: Path, head: bytes) -> bool:
    """A ``.db`` no reader took: said to be no rocpd database, in one line."""
    return Path(path).name.lower().endswith(".db")


def read(path, options: ReadOptions = DEFAULT) -> ImportResult:
    path = Path(path)
    regular_file(path)              # a FIFO would block the open
    with open(path, "rb") as fh:
        if fh.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise InputError(path, None, "not an SQLite database (rocprofv3 --output-format rocpd writes one; "
                             "this file does not start as SQLite does)")
    try:
        conn = _connect(path)
    except (sqlite3.Error, ValueError) as exc:
        raise InputError(path, None, f"cannot open as SQLite: {exc}") from None
    try:
        if hasattr(conn, "setlimit"):       # Python 3.11+
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        end = time.monotonic() + deadline_s(path)
        conn.set_progress_handler(lambda: time.monotonic() > end, PROGRESS_STEPS)
        return _read(conn, path)
    except InputError:
        raise
    except (sqlite3.Error, ValueError, TypeError, OverflowError, KeyError, IndexError, MemoryError) as exc:
        text = str(exc)
        why = (f"reading took longer than {deadline_s(path):.0f} s and was stopped" if text == "interrupted" else
               f"a value larger than {MAX_VALUE_BYTES >> 20} MiB was asked for" if "too big" in text else
               f"{type(exc).__name__}: {text[:200]}")
        raise InputError(path, None, f"malformed rocpd database ({why})") from None
    finally:
        conn.close()


def _read(conn, path: Path) -> ImportResult:
    objects = _objects(conn)
    suffixes = sorted({m.group(1) or "" for n, t in objects.items() if t == "table" and (m := _SUFFIX.match(n))})
    if not suffixes:
        if objects.get(DISPATCH) != "view":
            raise InputError(path, None, "an SQLite database without rocpd tables (rocpd_kernel_dispatch): "
                             "not rocprofv3 --output-format rocpd output")
        suffixes = [""]
    runs = [_run(conn, path, objects, s) for s in suffixes]
    d = _joined(path, runs)
    if not len(d):
        raise InputError(path, None, "no kernel dispatches: was rocprofv3 run with --kernel-trace (or --pmc)?")
    kernels, notes = kernels_of(d)
    device, more = _device([a for r in runs for a in r["agents"]], d)
    warnings = advice(notes + more, path.name)
    warnings += missing_counter_advice(kernels, tool="rocprofv3", subject=path.name, gfx=device.gfx)
    starts = np.concatenate([r["start"] for r in runs])
    ends = np.concatenate([r["end"] for r in runs])
    return ImportResult(str(path), "rocpd", tuple(kernels), program=program_time(starts, ends),
                        warnings=tuple(warnings),
                        device=DeviceClues(name=device.name, kind="gpu", properties=device.properties))


# --------------------------------------------------------------------------
# one run's tables
# --------------------------------------------------------------------------

def _columns(conn, table: str) -> set[str]:
    return {_text(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")')}


def _run(conn, path: Path, objects: dict, suffix: str) -> dict:
    table = DISPATCH + suffix
    cols = _columns(conn, table)
    source, names = _dispatch_query(objects, cols, suffix, table, path)
    _check_integers(conn, path, table, source, names)
    values = _fetch(conn, source, names)
    v = {n.strip('"'): values[:, j] for j, n in enumerate(names)}
    _check_ranges(path, table, v)
    symbols = _symbols(conn, path, objects, suffix, v)
    agents = _agents(conn, objects, suffix)
    waves = {a["id"]: a["wave"] for a in agents if a["wave"]}
    config = {key: v[col] for col, key, _ in _FIGURES}
    config.update({k: symbols[k] for k in ("arch_vgpr", "accum_vgpr", "sgpr")})
    config["wave"] = np.array([waves.get(int(a), -1) for a in v["agent_id"].tolist()], dtype=np.int64)
    config["agent"] = v["agent_id"]
    counters, notes = _counters(conn, path, objects, suffix, v["event_id"])
    return {"names": symbols["names"], "code": symbols["code"], "time_ns": (v["end"] - v["start"]).astype(float),
            "config": config, "counters": counters, "ids": v["id"], "label": table, "notes": notes,
            "agents": agents, "start": v["start"], "end": v["end"]}


def _dispatch_query(objects: dict, cols: set[str], suffix: str, table: str, path: Path) -> tuple[str, list[str]]:
    """A query giving one row per dispatch with plain column names (ns
    timestamps and the agent joined in when the schema keeps them apart)."""
    need = {"id", "kernel_id"} | {c for c, _, _ in _FIGURES if not c.endswith("segment_size")}
    missing = sorted(need - cols)
    if missing:
        raise InputError(path, None, f"{table} has no {', '.join(missing)} column: not a rocpd database rocprofv3 "
                         "wrote")
    guid = " AND {0}.guid = K.guid" if "guid" in cols else ""
    select = ["K.id AS id", "K.kernel_id AS kernel_id"]
    select += [f"K.{c} AS {c}" if c in cols else f"NULL AS {c}" for c, _, _ in _FIGURES]
    select.append("K.event_id AS event_id" if "event_id" in cols else "NULL AS event_id")
    joins = ""
    if {"start", "end"} <= cols:
        select += ['K."start" AS "start"', 'K."end" AS "end"']
    elif {"start_id", "end_id"} <= cols and "rocpd_timestamp" + suffix in objects:
        ts = f'"rocpd_timestamp{suffix}"'
        joins += (f" LEFT JOIN {ts} TS ON TS.id = K.start_id{guid.format('TS')}"
                  f" LEFT JOIN {ts} TE ON TE.id = K.end_id{guid.format('TE')}")
        select += ['TS.value AS "start"', 'TE.value AS "end"']
    else:
        raise InputError(path, None, f"{table} has no start/end timestamps (nor start_id/end_id with a "
                         "rocpd_timestamp table)")
    if "agent_id" in cols:
        select.append("K.agent_id AS agent_id")
    elif "track_id" in cols and "rocpd_track" + suffix in objects:
        joins += f' LEFT JOIN "rocpd_track{suffix}" TR ON TR.id = K.track_id{guid.format("TR")}'
        select.append("TR.agent_id AS agent_id")
    else:
        select.append("NULL AS agent_id")
    names = ["id", "kernel_id"] + [c for c, _, _ in _FIGURES] + ["event_id", '"start"', '"end"', "agent_id"]
    return f'SELECT {", ".join(select)} FROM "{table}" K{joins}', names


_OPTIONAL = {"group_segment_size", "private_segment_size", "event_id", "agent_id"}


def _check_integers(conn, path: Path, table: str, source: str, names: list[str]) -> None:
    """The first row holding a value that is no integer (text, a float, a
    missing required figure), named with its column."""
    tests = []
    for quoted in names:
        name = quoted.strip('"')
        allowed = "('integer', 'null')" if name in _OPTIONAL else "('integer')"
        tests.append((name, f"typeof({quoted}) NOT IN {allowed}"))
    case = " ".join(f"WHEN {test} THEN '{name}'" for name, test in tests)
    where = " OR ".join(test for _, test in tests)
    row = conn.execute(f"SELECT id, CASE {case} END FROM ({source}) WHERE {where} LIMIT 1").fetchone()
    if row is not None:
        column = _text(row[1])
        kind = _text(conn.execute(f'SELECT typeof("{column}") FROM ({source}) WHERE id IS ?', (row[0],)).fetchone()[0])
        what = (f"not an integer (SQLite holds {kind})" if kind != "null" else
                "missing (no rocpd_timestamp row)" if column in ("start", "end") else "missing")
        raise InputError(path, None, f"{table} row id {_text(row[0])[:30]}: {column} is {what}")


def _fetch(conn, source: str, names: list[str]) -> np.ndarray:
    """The integer columns as an int64 table, a chunk at a time (NULL -> -1)."""
    cur = conn.execute(f"SELECT {', '.join(f'coalesce({n}, -1)' for n in names)} FROM ({source}) ORDER BY id")
    parts = []
    while chunk := cur.fetchmany(CHUNK):
        parts.append(np.array(chunk, dtype=np.int64).reshape(len(chunk), len(names)))
    return np.concatenate(parts) if parts else np.zeros((0, len(names)), dtype=np.int64)


def _check_ranges(path: Path, table: str, v: dict) -> None:
    for col, _, _ in _FIGURES[:6]:
        bad = np.flatnonzero(v[col] < 0)
        if bad.size:
            raise InputError(path, None, f"{table} row id {v['id'][bad[0]]}: {col} {v[col][bad[0]]} is negative")
    back = np.flatnonzero((v["end"] < v["start"]) | (v["start"] < 0))
    if back.size:
        i = back[0]
        raise InputError(path, None, f"{table} row id {v['id'][i]}: end {v['end'][i]} is before start "
                         f"{v['start'][i]}" if v["start"][i] >= 0 else f"{table} row id {v['id'][i]}: start "
                         f"{v['start'][i]} is negative")


def _symbols(conn, path: Path, objects: dict, suffix: str, v: dict) -> dict:
    """Each dispatch's kernel name code and register counts, from its symbol."""
    table = "rocpd_info_kernel_symbol" + suffix
    if table not in objects:
        raise InputError(path, None, f"no {table} table: the dispatches' kernels have no names")
    cols = _columns(conn, table)
    pick = [c if c in cols else "NULL" for c in ("display_name", "kernel_name", "arch_vgpr_count",
                                                "accum_vgpr_count", "sgpr_count")]
    found = {}
    for row in conn.execute(f'SELECT id, {", ".join(pick)} FROM "{table}"'):
        if isinstance(row[0], int):
            found[row[0]] = row[1:]
    names: dict[str, int] = {}
    ids, inverse = np.unique(v["kernel_id"], return_inverse=True)
    code, regs = np.zeros(len(ids), dtype=np.int64), np.full((len(ids), 3), -1, dtype=np.int64)
    for j, kid in enumerate(ids.tolist()):
        sym = found.get(kid)
        if sym is None:
            row = int(v["id"][np.flatnonzero(v["kernel_id"] == kid)[0]])
            raise InputError(path, None, f"{DISPATCH}{suffix} row id {row}: kernel_id {kid} is not in {table}")
        label = next((_text(s).strip() for s in sym[:2] if _text(s).strip()), f"kernel_{kid}")
        code[j] = names.setdefault(kernel_name(label), len(names))
        regs[j] = [r if isinstance(r, int) and 0 <= r < 2 ** 31 else -1 for r in sym[2:]]
    inverse = inverse.reshape(-1)
    return {"names": list(names), "code": code[inverse], "arch_vgpr": regs[inverse, 0],
            "accum_vgpr": regs[inverse, 1], "sgpr": regs[inverse, 2]}


def _agents(conn, objects: dict, suffix: str) -> list[dict]:
    """GPU agents: id, names, and the figures of their extdata (JSON)."""
    table = "rocpd_info_agent" + suffix
    if table not in objects:
        return []
    cols = _columns(conn, table)
    pick = [c if c in cols else "NULL" for c in ("type", "name", "product_name", "extdata")]
    out = []
    for aid, kind, name, product, extdata in conn.execute(f'SELECT id, {", ".join(pick)} FROM "{table}"'):
        if _text(kind).upper() != "GPU" or not isinstance(aid, int):
            continue
        try:
            ext = json.loads(_text(extdata)) if extdata is not None else {}
        except (ValueError, RecursionError):
            ext = {}
        ext = ext if isinstance(ext, dict) else {}
        out.append({"id": aid, "name": _text(name).strip(), "product": _text(product).strip(), "ext": ext,
                    "wave": ext.get("wave_front_size") if isinstance(ext.get("wave_front_size"), int) else None})
    return out


def _counters(conn, path: Path, objects: dict, suffix: str, event_ids: np.ndarray):
    """Counter columns per dispatch (its event's values, instances summed),
    grouped in SQL and fetched as arrays a chunk at a time."""
    events, info = "rocpd_pmc_event" + suffix, "rocpd_info_pmc" + suffix
    if events not in objects or info not in objects or not len(event_ids):
        return {}, []
    bad = conn.execute(f'SELECT id FROM "{events}" WHERE typeof(value) NOT IN (\'integer\', \'real\') '
                       "OR NOT (value BETWEEN 0 AND 1e300) OR typeof(event_id) <> 'integer' "
                       "OR typeof(pmc_id) <> 'integer' LIMIT 1").fetchone()
    if bad is not None:
        raise InputError(path, None, f"{events} row id {_text(bad[0])[:30]}: value is no finite non-negative "
                         "count (or its event_id or pmc_id is no integer)")
    names = {pid: _text(name).strip() for pid, name in conn.execute(f'SELECT id, name FROM "{info}"')
             if isinstance(pid, int)}
    cur = conn.execute(f'SELECT event_id, pmc_id, total(value) FROM "{events}" GROUP BY event_id, pmc_id')
    parts = []
    while chunk := cur.fetchmany(CHUNK):
        parts.append(np.array(chunk, dtype=np.float64).reshape(len(chunk), 3))
    if not parts:
        return {}, []
    rows = np.concatenate(parts)
    order = np.argsort(event_ids, kind="stable")
    at = np.searchsorted(event_ids[order], rows[:, 0])
    hit = at < len(order)
    hit[hit] = event_ids[order][at[hit]] == rows[hit, 0]
    out: dict[str, np.ndarray] = {}
    for pmc in np.unique(rows[hit, 1]).tolist():
        name = names.get(int(pmc))
        if name is None:
            continue
        mask = hit & (rows[:, 1] == pmc)
        column = out.setdefault(name, np.full(len(event_ids), np.nan))
        column[order[at[mask]]] = np.nan_to_num(column[order[at[mask]]]) + rows[mask, 2]
    unmatched = int((~hit).sum())
    notes = [f"{events}: {unmatched} counter value(s) belong to no kernel dispatch's event: not read"] \
        if unmatched else []
    return out, notes


# --------------------------------------------------------------------------
# the file
# --------------------------------------------------------------------------

def _joined(path: Path, runs: list[dict]) -> Dispatches:
    names: dict[str, int] = {}
    codes, labels, offsets = [], [], [0]
    for r in runs:
        remap = np.array([names.setdefault(n, len(names)) for n in r["names"]] or [0], dtype=np.int64)
        codes.append(remap[r["code"]])
        offsets.append(offsets[-1] + len(r["code"]))
    ids = np.concatenate([r["ids"] for r in runs])

    def where(i: int) -> tuple[None, str]:
        k = int(np.searchsorted(offsets, i, side="right")) - 1
        return None, f"{runs[k]['label']} row id {int(ids[i])}: "
    counters = {c: np.concatenate([r["counters"].get(c, np.full(len(r["code"]), np.nan)) for r in runs])
                for c in sorted({c for r in runs for c in r["counters"]})}
    config = {k: np.concatenate([r["config"][k] for r in runs]).astype(np.int64) for k in CONFIG}
    return Dispatches(path, list(names), np.concatenate(codes), np.concatenate([r["time_ns"] for r in runs]),
                      config, where, Columns(counters) if counters else None,
                      notes=[n for r in runs for n in r["notes"]])


def _device(agents: list[dict], d: Dispatches) -> tuple[AmdDevice, list[str]]:
    """The GPU agent with the most kernel time, and notes."""
    by_id = {a["id"]: a for a in agents}
    handles, inverse = np.unique(d.config["agent"], return_inverse=True)
    busy = np.bincount(inverse.reshape(-1), weights=np.nan_to_num(d.time_ns), minlength=len(handles))
    used = [int(h) for h in handles[np.argsort(-busy, kind="stable")] if int(h) in by_id]
    notes = ["device_name is the GPU with the most kernel time"] if len(used) > 1 else []
    a = by_id.get(used[0]) if used else (agents[0] if len(agents) == 1 else None)
    if a is None:
        return AmdDevice(), notes
    ext = a["ext"]
    version = ext.get("gfx_target_version")
    gfx = gfx_of_version(version if isinstance(version, int) else 0) or (a["name"] if a["name"].startswith("gfx")
                                                                         else None)
    f, doubts = agent_figures({k: ext.get(k) if isinstance(ext.get(k), int) else None for k in AGENT_FIGURES},
                              f"rocpd_info_agent id {a['id']}", zero_is_absent=True)
    banks = ext.get("mem_banks") if isinstance(ext.get("mem_banks"), list) else []
    memory = sum(b.get("size_in_bytes", 0) for b in banks if isinstance(b, dict)
                 and b.get("heap_type") in _FRAME_BUFFER and isinstance(b.get("size_in_bytes"), int)
                 and 0 <= b["size_in_bytes"] < 2 ** 62)
    props = identity(sms=f["cu_count"], warp_size=f["wave_front_size"], gfx=gfx, memory_bytes=memory)
    return (AmdDevice(name=a["product"] or a["name"] or None, properties=props, gfx=gfx, xcds=f["num_xcc"],
                      sclk_hz=(f["max_engine_clk_fcompute"] or 0) * 1e6 or None, doubts=tuple(doubts)),
            notes + doubts)


register(Reader("rocpd", sniff, read, sniff_further=sniff_db))
