"""rocprofv3's rocpd SQLite output, built here with sqlite3 in the two
layouts rocprofiler-sdk has written (timestamps in the dispatch table, or
in rocpd_timestamp with the agent on rocpd_track): kernels, launch
configuration, counters and the GPU read from it; damaged databases
refused in one line naming the table, row and column."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from roofline.core.errors import InputError
from roofline.importers import read_profile
from roofline.importers.base import detect

UUID = "_0f3c9a2e_51d2_4bb0_9c61_2a7d3e5f8b10"
MI300X_EXT = {"cu_count": 304, "wave_front_size": 64, "num_xcc": 8, "gfx_target_version": 90402,
              "max_engine_clk_fcompute": 2100, "mem_banks": [{"heap_type": 1, "size_in_bytes": 206158430208}]}
GEMM = "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1"
COPY = "void copy_kernel<float>(float*, float const*, unsigned long)"
# (dispatch id, kernel id, start, end, grid, workgroup, lds)
DISPATCHES = [(1, 11, 1_000, 51_000, (8192, 64, 1), (256, 1, 1), 16384),
              (2, 12, 60_000, 62_500, (1048576, 1, 1), (256, 1, 1), 0),
              (3, 11, 70_000, 119_000, (8192, 64, 1), (256, 1, 1), 16384),
              (4, 12, 120_000, 122_400, (1048576, 1, 1), (256, 1, 1), 0)]
# counters of dispatches 1 and 3, each as two instances
PMC = {"SQ_INSTS_VALU_MFMA_MOPS_F16": (40_000, 9_000), "SQ_INSTS_VALU_FMA_F32": (100, 20)}


def schema(db, u: str, timestamps_apart: bool) -> None:
    """The tables the reader queries, with rocprofiler-sdk's column names."""
    db.executescript(f"""
        CREATE TABLE "rocpd_info_agent{u}" (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,
            type TEXT, name TEXT, product_name TEXT, extdata JSONB);
        CREATE TABLE "rocpd_info_kernel_symbol{u}" (id INTEGER PRIMARY KEY, guid TEXT, code_object_id INTEGER,
            kernel_name TEXT, display_name TEXT, sgpr_count INTEGER, arch_vgpr_count INTEGER,
            accum_vgpr_count INTEGER, extdata JSONB);
        CREATE TABLE "rocpd_info_pmc{u}" (id INTEGER PRIMARY KEY, guid TEXT, agent_id INTEGER, name TEXT,
            symbol TEXT);
        CREATE TABLE "rocpd_pmc_event{u}" (id INTEGER PRIMARY KEY, guid TEXT, event_id INTEGER, pmc_id INTEGER,
            value REAL);
        CREATE VIEW rocpd_kernel_dispatch AS SELECT * FROM "rocpd_kernel_dispatch{u}";
    """)
    times = ('track_id INTEGER, start_id INTEGER, end_id INTEGER' if timestamps_apart
             else 'agent_id INTEGER, "start" BIGINT, "end" BIGINT')
    db.execute(f"""CREATE TABLE "rocpd_kernel_dispatch{u}" (id INTEGER PRIMARY KEY, guid TEXT, pid INTEGER,
        {times}, kernel_id INTEGER, dispatch_id INTEGER, private_segment_size INTEGER,
        group_segment_size INTEGER, workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER,
        grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER, event_id INTEGER)""")
    if timestamps_apart:
        db.executescript(f"""
            CREATE TABLE "rocpd_timestamp{u}" (id INTEGER PRIMARY KEY, guid TEXT, value BIGINT, phase INTEGER);
            CREATE TABLE "rocpd_track{u}" (id INTEGER PRIMARY KEY, guid TEXT, agent_id INTEGER);""")


def make_db(path: Path, *, timestamps_apart=False, u=UUID, dispatches=DISPATCHES, ext=MI300X_EXT, pmc=PMC,
            agent=4) -> Path:
    db = sqlite3.connect(path)
    schema(db, u, timestamps_apart)
    g = "guid-1"
    db.execute(f'INSERT INTO "rocpd_info_agent{u}" VALUES (0, ?, 1, 1, "CPU", "AMD EPYC 9654", "AMD EPYC 9654", ?)',
               (g, json.dumps({"cu_count": 96})))
    db.execute(f'INSERT INTO "rocpd_info_agent{u}" VALUES (?, ?, 1, 1, "GPU", "gfx942", "AMD Instinct MI300X", ?)',
               (agent, g, json.dumps(ext)))
    db.executemany(f'INSERT INTO "rocpd_info_kernel_symbol{u}" VALUES (?, ?, 1, ?, ?, ?, ?, ?, "{{}}")',
                   [(11, g, "_Z4gemmv.kd", GEMM + ".kd", 96, 128, 64), (12, g, "_Z4copyPfPKfm.kd", COPY, 16, 8, 0)])
    db.executemany(f'INSERT INTO "rocpd_info_pmc{u}" VALUES (?, ?, ?, ?, ?)',
                   [(100 + j, g, agent, name, name) for j, name in enumerate(pmc)])
    if timestamps_apart:
        db.execute(f'INSERT INTO "rocpd_track{u}" VALUES (1, ?, ?)', (g, agent))
    for i, (did, kid, t0, t1, grid, wg, lds) in enumerate(dispatches):
        if timestamps_apart:
            db.executemany(f'INSERT INTO "rocpd_timestamp{u}" VALUES (?, ?, ?, ?)',
                           [(2 * i + 1, g, t0, 1), (2 * i + 2, g, t1, 2)])
            when = (1, 2 * i + 1, 2 * i + 2)
        else:
            when = (agent, t0, t1)
        db.execute(f'INSERT INTO "rocpd_kernel_dispatch{u}" VALUES (?, ?, 77, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, '
                   '?, ?)', (did, g, *when, kid, did, lds, *wg, *grid, 500 + did))
    rows, n = [], 0
    for did in (1, 3):
        for j, (name, values) in enumerate(pmc.items()):
            for v in values:
                n += 1
                rows.append((n, g, 500 + did, 100 + j, v))
    db.executemany(f'INSERT INTO "rocpd_pmc_event{u}" VALUES (?, ?, ?, ?, ?)', rows)
    db.commit()
    db.close()
    return path


@pytest.mark.parametrize("timestamps_apart", [False, True])
def test_kernels_launches_counters_and_device(tmp_path, timestamps_apart):
    path = make_db(tmp_path / "run_results.db", timestamps_apart=timestamps_apart)
    assert detect(path).name == "rocpd"
    r = read_profile(path)
    assert r.format == "rocpd" and r.device.name == "AMD Instinct MI300X"
    assert r.device.properties == {"sms": 304, "warp_size": 64, "capability": "9.4", "memory_bytes": 206158430208.0,
                                   "gfx_target": "gfx942"}
    by_name = {k.name: k for k in r.kernels}
    assert set(by_name) == {GEMM, COPY}
    gemm, copy = by_name[GEMM], by_name[COPY]
    assert (gemm.count, copy.count) == (2, 2)
    assert gemm.time_s == pytest.approx((50_000 + 49_000) * 1e-9)
    assert copy.time_s == pytest.approx((2_500 + 2_400) * 1e-9)
    assert gemm.launch["grid"] == (32, 64, 1) and gemm.launch["block"] == (256, 1, 1)
    assert gemm.launch["lds_bytes"] == 16384 and gemm.launch["arch_vgpr"] == 128 and gemm.launch["sgpr"] == 96
    assert gemm.launch["wave_size"] == 64 and gemm.launch["agent"] == 4
    mops = sum(PMC["SQ_INSTS_VALU_MFMA_MOPS_F16"])           # both instances, each of the two dispatches
    fma = sum(PMC["SQ_INSTS_VALU_FMA_F32"])
    assert gemm.flops["tensor_fp16"] == pytest.approx(2 * 512 * mops)
    assert gemm.flops["fp32"] == pytest.approx(2 * 64 * 2 * fma)
    assert not copy.flops                                     # no counters collected for it
    assert r.program.span_s == pytest.approx((122_400 - 1_000) * 1e-9)


def test_two_runs_in_one_file_are_both_read(tmp_path):
    path = make_db(tmp_path / "merged.db")
    other = make_db(tmp_path / "b.db", u="_7a1e", dispatches=DISPATCHES[:1])
    db = sqlite3.connect(path)
    db.execute(f"ATTACH DATABASE '{other}' AS b")
    for name in ("rocpd_info_agent", "rocpd_info_kernel_symbol", "rocpd_info_pmc", "rocpd_pmc_event",
                 "rocpd_kernel_dispatch"):
        db.execute(f'CREATE TABLE "{name}_7a1e" AS SELECT * FROM b."{name}_7a1e"')
    db.commit()
    db.close()
    r = read_profile(path)
    assert {k.name: k.count for k in r.kernels} == {GEMM: 3, COPY: 2}


def test_a_file_that_is_no_sqlite_is_one_line(tmp_path):
    path = tmp_path / "results.db"
    path.write_bytes(b"rocpd? no: " + bytes(range(256)) * 8)
    with pytest.raises(InputError, match="not an SQLite database"):
        read_profile(path)
    done = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert str(path) in done.stderr and "not an SQLite database" in done.stderr


def test_an_sqlite_file_without_rocpd_tables_is_refused(tmp_path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t (x INTEGER)")
    db.commit()
    db.close()
    with pytest.raises(InputError, match="without rocpd tables"):
        read_profile(path)


def edit(path: Path, sql: str, *args) -> Path:
    db = sqlite3.connect(path)
    db.execute(sql.replace("{u}", UUID), args)
    db.commit()
    db.close()
    return path


@pytest.mark.parametrize("sql, args, message", [
    ('UPDATE "rocpd_kernel_dispatch{u}" SET grid_size_y = ? WHERE id = 3', ("64 rows",),
     "row id 3: grid_size_y is not an integer"),
    ('UPDATE "rocpd_kernel_dispatch{u}" SET "end" = ? WHERE id = 2', (61_000.5,), "row id 2: end is not an integer"),
    ('UPDATE "rocpd_kernel_dispatch{u}" SET "end" = ? WHERE id = 4', (119_999,),
     "row id 4: end 119999 is before start 120000"),
    ('UPDATE "rocpd_kernel_dispatch{u}" SET "start" = ? WHERE id = 1', (-2 ** 63,), "row id 1: start"),
    ('UPDATE "rocpd_kernel_dispatch{u}" SET kernel_id = ? WHERE id = 2', (99,),
     "row id 2: kernel_id 99 is not in rocpd_info_kernel_symbol"),
    ('UPDATE "rocpd_kernel_dispatch{u}" SET workgroup_size_x = ? WHERE id = 1', (-256,),
     "row id 1: workgroup_size_x -256 is negative"),
    ('UPDATE "rocpd_pmc_event{u}" SET value = ? WHERE id = 2', (-5.0,), "rocpd_pmc_event"),
    ('UPDATE "rocpd_pmc_event{u}" SET value = ? WHERE id = 3', ("lots",), "row id 3: value is no finite"),
])
def test_damaged_rows_are_named(tmp_path, sql, args, message):
    path = edit(make_db(tmp_path / "r.db"), sql, *args)
    with pytest.raises(InputError) as err:
        read_profile(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_a_missing_timestamp_row_is_named(tmp_path):
    path = edit(make_db(tmp_path / "r.db", timestamps_apart=True), 'DELETE FROM "rocpd_timestamp{u}" WHERE id = 4')
    with pytest.raises(InputError, match=r"row id 2: end is missing \(no rocpd_timestamp row\)"):
        read_profile(path)


def test_an_agent_clock_no_gpu_has_is_ignored_with_a_warning(tmp_path):
    path = make_db(tmp_path / "r.db", ext=dict(MI300X_EXT, max_engine_clk_fcompute=10 ** 30))
    r = read_profile(path)
    assert r.device.name == "AMD Instinct MI300X"
    said = [str(w) for w in r.warnings if "max_engine_clk_fcompute" in str(w)]
    assert len(said) == 1 and "rocpd_info_agent id 4" in said[0] and "ignored" in said[0]


def test_only_a_view_left_is_read_through_the_deadline(tmp_path):
    """A file whose dispatch rows sit behind a view alone (no uuid table)
    is read through it; the view cannot run past the deadline."""
    path = make_db(tmp_path / "r.db")
    db = sqlite3.connect(path)
    db.execute(f'ALTER TABLE "rocpd_kernel_dispatch{UUID}" RENAME TO hidden')
    db.execute("DROP VIEW rocpd_kernel_dispatch")
    db.execute("CREATE VIEW rocpd_kernel_dispatch AS SELECT * FROM hidden")
    for name in ("rocpd_info_agent", "rocpd_info_kernel_symbol", "rocpd_info_pmc", "rocpd_pmc_event"):
        db.execute(f'CREATE VIEW {name} AS SELECT * FROM "{name}{UUID}"')
    db.commit()
    db.close()
    assert {k.name: k.count for k in read_profile(path).kernels} == {GEMM: 2, COPY: 2}
