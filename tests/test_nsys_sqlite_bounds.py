"""An nsys SQLite export cannot make the reader spend what it likes: a
column computed on read is refused, values have a size cap and the queries
a deadline, each overrun a one-line InputError."""
from __future__ import annotations

import sqlite3
import time

import pytest

from conftest import DATA
from roofline.core.errors import InputError
from roofline.importers.nvidia import nsys_sqlite
from roofline.importers.nvidia.nsys import read_sqlite

KERNEL_COLUMNS = ("start, endRaw, deviceId, contextId, streamId, correlationId, globalPid, demangledName, "
                  "shortName, mangledName, launchType, cacheConfig, registersPerThread, gridX, gridY, gridZ, "
                  "blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory")


def tiny_export(tmp_path, end_column: str | None = None):
    """The 2022 fixture; with ``end_column``, the kernel table's "end" is
    declared so (computed from a stored endRaw)."""
    sql = (DATA / "nsys_tiny_2022.sql").read_text()
    if end_column is not None:
        sql = _computed_end(sql, end_column)
    db = tmp_path / "export.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript(sql)
    conn.close()
    return db


def _computed_end(sql: str, end_column: str) -> str:
    head = "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
    assert head in sql
    sql = sql.replace(head, f'CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, '
                            f'endRaw INTEGER NOT NULL, "end" {end_column},')
    sql = sql.replace("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES",
                      f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL ({KERNEL_COLUMNS}) VALUES")
    return sql


def test_virtual_computed_column_is_refused_at_once(tmp_path):
    # 100 MB of zeros as a 200 MB hex string for every kernel row: the 12 KB
    # file made the reader take 5 s and 2 GB with 400 MB
    expensive = "GENERATED ALWAYS AS (endRaw + length(hex(zeroblob(100000000))) - 200000000) VIRTUAL"
    db = tiny_export(tmp_path, expensive)
    assert db.stat().st_size < 100_000
    t0 = time.perf_counter()
    with pytest.raises(InputError, match=r"CUPTI_ACTIVITY_KIND_KERNEL\.end is a computed column"):
        read_sqlite(db)
    assert time.perf_counter() - t0 < 2.0


def test_stored_computed_column_reads_as_plain(tmp_path):
    # a STORED column was computed when the row was written: reading it is free
    (tmp_path / "stored").mkdir()
    got = read_sqlite(tiny_export(tmp_path / "stored", "GENERATED ALWAYS AS (endRaw) STORED"))
    want = read_sqlite(tiny_export(tmp_path))
    assert [(k.name, k.count, k.time_s) for k in got.kernels] == [(k.name, k.count, k.time_s) for k in want.kernels]


@pytest.mark.skipif(not hasattr(sqlite3.Connection, "setlimit"), reason="Connection.setlimit is Python 3.11+")
def test_value_over_the_cap_is_an_input_error(tmp_path):
    db = tiny_export(tmp_path)
    with sqlite3.connect(db) as conn:    # a 40 MB kernel name
        conn.execute("UPDATE StringIds SET value = hex(zeroblob(20000000)) WHERE id = 3")
    conn.close()
    with pytest.raises(InputError, match="a value larger than 32 MiB was asked for and refused"):
        read_sqlite(db)


def test_queries_stop_at_the_deadline(tmp_path, monkeypatch):
    db = tiny_export(tmp_path)
    monkeypatch.setattr(nsys_sqlite, "deadline_s", lambda path: -1.0)
    monkeypatch.setattr(nsys_sqlite, "PROGRESS_STEPS", 1)
    with pytest.raises(InputError, match=r"reading took longer than -1 s and was stopped"):
        read_sqlite(db)


def test_deadline_grows_with_the_file(tmp_path):
    small, big = tmp_path / "a", tmp_path / "b"
    small.write_bytes(b"x")
    with open(big, "wb") as f:
        f.truncate(2_000_000_000)                       # sparse: no disk used
    assert nsys_sqlite.deadline_s(small) == pytest.approx(60.0, abs=0.01)
    assert nsys_sqlite.deadline_s(big) == pytest.approx(460.0)
