"""Nsight Systems reader: real exports from ../shared/realdata/nsys, hand-written
fixtures in tests/data/nsys_*, and corrupted files that must fail cleanly.

Expected numbers in the realdata tests were checked independently of the
reader: with ``sqlite3 file.sqlite 'SELECT ...'`` on the raw tables (the
queries are in the comments) and, for the CSV, by summing its columns.
"""
from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, REALDATA
from corrupt import corrupt, fuzz_dir, needs_folder
from roofline.core.errors import InputError, RooflineError
from roofline.importers import read_profile
from roofline.importers.nvidia import nsys
from roofline.importers.base import detect

NSYS = REALDATA / "nsys"
CON_KERNEL = NSYS / "extra-p__extrap__con_kernel.sqlite"
EX_GPU = NSYS / "extra-p__extrap__ex-gpu.s10.sqlite"
KERN_SUM = NSYS / "CodeGandee__llm-perf-opt__sam_summary_cuda_gpu_kern_sum.csv"
NVTX = NSYS / "hpcgroup__pipit__nbody-nvtx_trace.csv"
NSYS_REP = NSYS / "armleth__cuda-mlp-inference__nsys_report.nsys-rep"

needs_realdata = needs_folder(NSYS)


def by_name(result):
    return {k.name: k for k in result.kernels}


def build_sqlite(sql_file: str, tmp_path: Path) -> Path:
    db = tmp_path / (Path(sql_file).stem + ".sqlite")
    conn = sqlite3.connect(db)
    conn.executescript((DATA / sql_file).read_text())
    conn.commit()
    conn.close()
    return db


# ---------------------------------------------------------------- realdata

@needs_realdata
def test_con_kernel_sqlite_2022_schema_with_latin1_metadata():
    # Nsight Systems 2022.1, schema 2.9.1; EXPORT_META_DATA holds Latin-1 bytes
    # (EXPORT_USER 'Alexander Gei\xe1') that make plain sqlite3 raise.
    r = read_profile(CON_KERNEL)
    assert r.format == "nsys-sqlite"
    assert r.device.name == "GeForce GTX 1060 with Max-Q Design"   # TARGET_INFO_GPU id 0
    k = by_name(r)
    kernels = [x for x in r.kernels if x.family not in ("memcpy", "memset")]
    # SELECT count(*), count(DISTINCT demangledName) FROM CUPTI_ACTIVITY_KIND_KERNEL -> 9, 5
    assert sum(x.count for x in kernels) == 9
    assert len(kernels) == 5
    t0 = k["test0(double *, unsigned long long, unsigned long long)"]
    # three test0 rows: (529933537-529596644) + (530274302-529941409) + (530274302-529981409)
    #                 = 336893 + 332893 + 292893 = 962679 ns
    assert t0.count == 3
    assert t0.time_s == pytest.approx(962679e-9, rel=1e-12)
    assert dict(t0.launch) == {"grid": (1, 1, 1), "block": (1024, 1, 1), "registers_per_thread": 17}
    t1 = k["test1(double *, unsigned long long, unsigned long long)"]
    assert "grid" not in t1.launch          # gridX 1 and 32 for the two rows
    assert k["test2(double *, unsigned long long, unsigned long long)"].time_s == pytest.approx(250891246e-9)
    # SELECT copyKind, count(*), sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY copyKind
    #   -> 1|5|40160000 (4 x 40000 + 40000000), 2|6|40200000 (5 x 40000 + 40000000)
    htod, dtoh = k["[CUDA memcpy HtoD]"], k["[CUDA memcpy DtoH]"]
    assert (htod.count, dict(htod.bytes)) == (5, {"PCIe": 40_160_000.0})
    assert (dtoh.count, dict(dtoh.bytes)) == (6, {"PCIe": 40_200_000.0})
    assert htod.family == "memcpy"
    # one memset row: 40000 bytes, 542635549 - 542632989 = 2560 ns
    ms = k["[CUDA memset]"]
    assert (ms.count, dict(ms.bytes), ms.family) == (1, {"DRAM": 40_000.0}, "memset")
    assert ms.time_s == pytest.approx(2560e-9)
    p = r.program
    # cudaEventSynchronize_v3020 rows: 11412874 + 11999 + 247284853 + 24834 + 8556 ns
    assert p.api_s["cudaEventSynchronize"] == pytest.approx(258743116e-9)
    assert not any(name.endswith("_v3020") for name in p.api_s)
    # union of kernel/memcpy/memset intervals, merged by hand from the sorted rows:
    # [529537284,529554276] [529555428,529559748] [529561700,533232775] [533235239,533240455]
    # [533241319,784132565] [784134902,788287253] [788291477,788296149] -> 258745872 ns
    assert p.gpu_busy_s == pytest.approx(258745872e-9, rel=1e-12)
    # first runtime call starts at 313584964, the last (cuCtxSynchronize) ends at 853414556
    assert p.span_s == pytest.approx((853414556 - 313584964) * 1e-9, rel=1e-12)


@needs_realdata
def test_ex_gpu_sqlite_older_schema_without_mangled_name_and_metadata():
    # about 2021: no mangledName, no EXPORT_META_DATA, runtime calls recorded twice
    # (cudaMalloc around cudaMalloc_v3020), 4 A100s in TARGET_INFO_CUDA_GPU, no memcpy table.
    with sqlite3.connect(f"file:{EX_GPU}?mode=ro", uri=True) as conn:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "mangledName" not in cols and "EXPORT_META_DATA" not in tables
    r = read_profile(EX_GPU)
    assert r.device.name == "A100-PCIE-40GB"
    k = by_name(r)
    assert len(r.kernels) == 5 and sum(x.count for x in r.kernels) == 6
    ia = k["init_array(double*, unsigned long)"]
    # (352110490 - 352103962) + (352142426 - 352137146) = 6528 + 5280 ns
    assert (ia.count, ia.time_s) == (2, pytest.approx(11808e-9))
    # families from the names (reviewed by hand: tests/fixtures/realdata_families/reviewed.json)
    assert {x.name.split("(")[0]: x.family for x in r.kernels} == {
        "init_array": "elementwise", "vector_add": "elementwise", "vector_add1": "elementwise",
        "vector_mul": "elementwise", "vector_dot": "reduction"}
    # outer cudaMalloc records only: 210201271 + 5726 + 6291 + 2933 ns (the first three
    # equal the EXTRAP_RESOLVED_CALLPATHS durations of the same calls)
    assert r.program.api_s["cudaMalloc"] == pytest.approx(210216221e-9)
    assert set(r.program.api_s) == {"cudaMalloc", "cudaDeviceSynchronize", "cudaLaunchKernel", "cudaMemcpy"}
    # the six kernels do not overlap: busy = sum of durations = 34113 ns
    assert r.program.gpu_busy_s == pytest.approx(34113e-9)


@needs_realdata
def test_short_names_option():
    r = nsys.read_sqlite(EX_GPU, names="short")
    assert sorted(k.name for k in r.kernels) == ["init_array", "vector_add", "vector_add1",
                                                 "vector_dot", "vector_mul"]


@needs_realdata
def test_kern_sum_csv_rtx5090():
    # nsys stats -r cuda_gpu_kern_sum (2024/25): 36 rows; summing the columns with the
    # csv module gives 652 instances and 21895142 ns in total.
    r = read_profile(KERN_SUM)
    assert r.format == "nsys-stats-csv"
    assert len(r.kernels) == 36
    assert sum(k.count for k in r.kernels) == 652
    assert sum(k.time_s for k in r.kernels) == pytest.approx(21895142e-9)
    first = r.kernels[0]
    assert first.name.startswith("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128")
    assert (first.count, first.time_s) == (32, pytest.approx(5554208e-9))
    def family(prefix):
        (k,) = [k for k in r.kernels if k.name.startswith(prefix)]
        return k.family
    assert family("fmha_cutlassF_bf16_aligned_64x64_rf_sm80") == "attention"
    assert family("sm80_xmma_fprop_implicit_gemm_bf16bf16") == "implicit_gemm"
    assert family("void at::native::<unnamed>::vectorized_layer_norm_kernel") == "normalization"
    assert r.program is None


@needs_realdata
def test_nvtx_trace_is_refused_with_advice():
    with pytest.raises(InputError, match="NVTX range report"):
        read_profile(NVTX)


@needs_realdata
def test_nsys_rep_is_refused_with_export_command():
    assert detect(NSYS_REP).name == "nsys-rep"
    with pytest.raises(InputError, match="nsys export --type sqlite"):
        read_profile(NSYS_REP)


# ---------------------------------------------------------------- fixtures

def test_tiny_2022_export(tmp_path):
    r = read_profile(build_sqlite("nsys_tiny_2022.sql", tmp_path))
    k = by_name(r)
    assert r.device.name == "NVIDIA GeForce GTX 970"
    conv = k["void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, false, true>(int, int, "
             "int, float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, "
             "float, int, float const*, float const*, bool, int, int)"]
    assert (conv.count, conv.family) == (2, "implicit_gemm")
    assert conv.time_s == pytest.approx(4500e-9)                   # 2000 + 2500 ns
    assert dict(conv.launch) == {"grid": (13, 1, 1), "block": (1024, 1, 1), "registers_per_thread": 32}
    wino = k["maxwell_scudnn_winograd_128x128_ldg1_ldg4_mobile_relu_tile148t_nt_v0"]
    assert (wino.count, wino.time_s, wino.family) == (2, pytest.approx(2500e-9), "winograd")
    assert dict(wino.launch) == {"block": (256, 1, 1), "registers_per_thread": 64}   # grid 26 then 52
    assert k["my_kern\ufffdl"].count == 1            # Latin-1 byte in a name: replaced, not fatal
    assert dict(k["[CUDA memcpy HtoD]"].bytes) == {"PCIe": 1_500_000.0}
    assert k["[CUDA memcpy HtoD]"].time_s == pytest.approx(1200e-9)
    assert dict(k["[CUDA memcpy DtoH]"].bytes) == {"PCIe": 64.0}
    assert dict(k["[CUDA memcpy DtoD]"].bytes) == {"DRAM": 4096.0}     # 2048 read + 2048 written
    assert dict(k["[CUDA memcpy PtoP]"].bytes) == {"PCIe": 4096.0}
    assert dict(k["[CUDA memset]"].bytes) == {"DRAM": 4096.0}
    p = r.program
    assert p.api_s == pytest.approx({"cudaMemcpyAsync": 550e-9, "cudaLaunchKernel": 250e-9,
                                     "cudaMemsetAsync": 50e-9})
    # union: [1000,1800] [2000,4500] [4600,4700] [5000,5400] [10000,12500] [13000,14000]
    #        [14100,14200] [15000,15200] [16000,16100] = 800+2500+100+400+2500+1000+100+200+100
    assert p.gpu_busy_s == pytest.approx(7700e-9)
    assert p.span_s == pytest.approx((16100 - 500) * 1e-9)       # first API call .. last copy
    assert p.idle_s == pytest.approx((15600 - 7700) * 1e-9)


def test_tiny_2021_export_two_devices_and_nested_runtime_records(tmp_path):
    r = read_profile(build_sqlite("nsys_tiny_2021.sql", tmp_path))
    assert r.device.name == "A100-SXM4-80GB"             # device 1 has 300 of the 500 ns
    assert any(w.subject == "devices" for w in r.warnings)
    (k,) = r.kernels
    assert (k.count, k.time_s) == (3, pytest.approx(500e-9))
    assert r.program.api_s == pytest.approx({"cudaMalloc": 50e-9, "cudaLaunchKernel": 10e-9})
    assert r.program.gpu_busy_s == pytest.approx(350e-9)      # [100, 450]
    assert r.program.span_s == pytest.approx(450e-9)


def test_gpukernsum_2021_header():
    r = read_profile(DATA / "nsys_gpukernsum_2021.csv")
    assert [(k.count, k.time_s, k.family) for k in r.kernels] == [
        (4, pytest.approx(1e-3), "implicit_gemm"), (2, pytest.approx(4e-4), "gemm"),
        (8, pytest.approx(2e-4), "fft")]


def test_nsys_stats_stdout_with_several_tables():
    r = read_profile(DATA / "nsys_stats_stdout.txt")
    k = by_name(r)
    fwd = k["mxnet::op::forward_kernel(float *, const float *, const float *, int, int, int, int, int, int)"]
    assert (fwd.count, fwd.time_s, fwd.family) == (7, pytest.approx(7e-3), "conv_custom")
    # the by-time and by-size copy tables are merged: 0.9 ms and 12 MB for 3 copies
    h = k["[CUDA memcpy HtoD]"]
    assert (h.count, h.time_s, dict(h.bytes)) == (3, pytest.approx(9e-4), {"PCIe": 12e6})
    m = k["[CUDA memset]"]
    assert (m.count, m.time_s, dict(m.bytes)) == (2, pytest.approx(1e-4), {"DRAM": 2000.0})
    # the OS runtime table (poll, ioctl) is not CUDA API time; the NVTX table is skipped
    assert r.program.api_s == pytest.approx({"cudaMalloc": 8e-3, "cudaLaunchKernel": 1.5e-3,
                                             "cudaMemcpyAsync": 5e-4})
    assert len(r.kernels) == 4


def test_gpu_trace_csv():
    r = read_profile(DATA / "nsys_gpu_trace.csv")
    k = by_name(r)
    conv = [x for x in r.kernels if x.name.startswith("void implicit_convolve_sgemm")][0]
    assert (conv.count, conv.time_s) == (2, pytest.approx(3000e-9))
    assert dict(k["[CUDA memcpy HtoD]"].bytes) == {"PCIe": 4e6}
    assert dict(k["[CUDA memcpy DtoH]"].bytes) == {"PCIe": 16000.0}
    assert dict(k["[CUDA memset]"].bytes) == {"DRAM": 16000.0}
    # [1000,1500] [2000,3500] [5000,7000] [8000,8150]
    assert r.program.gpu_busy_s == pytest.approx(4150e-9)
    assert r.program.span_s == pytest.approx(7150e-9)


def test_unquoted_name_with_commas_is_kept_whole():
    text = ("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
            "100.0,10,2,5.0,5.0,4,6,1.4,void k<float, 4>(float *, int)\n")
    (k,) = nsys.parse_csv(text).kernels
    assert k.name == "void k<float, 4>(float *, int)" and k.count == 2


@pytest.mark.parametrize("text, message", [
    ("Time (%),Total Time (ns),Instances,Name\n10.0,abc,1,k\n", "Total Time|totaltime"),
    ("Time (%),Total Time (ns),Instances,Name\n10.0,100,0,k\n", "whole number"),
    ("Time (%),Total Time (ns),Instances,Name\n10.0,-5,1,k\n", "non-negative"),
    ("Time (%),Total Time (fortnights),Instances,Name\n10.0,5,1,k\n", "unknown unit"),
    ("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range\n"
     "100.0,5,1,5,5,5,5,0,PushPop,:step\n", "NVTX"),
    ("a,b,c\n1,2,3\n", "no nsys stats table"),
])
def test_bad_csv_names_line_and_problem(text, message):
    with pytest.raises(InputError, match=message) as info:
        nsys.parse_csv(text, "report.csv")
    assert "report.csv" in str(info.value)


def test_not_nsys_sqlite(tmp_path):
    db = tmp_path / "other.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x)")
    head = db.read_bytes()[:65536]
    assert not nsys.sniff_sqlite(db, head)
    with pytest.raises(InputError):
        nsys.read_sqlite(db)


def test_sqlite_without_gpu_activity(tmp_path):
    db = tmp_path / "cpu_only.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)")
        conn.execute("CREATE TABLE TARGET_INFO_SYSTEM_ENV (name TEXT)")
    with pytest.raises(InputError, match="--trace=cuda"):
        read_profile(db)


def test_negative_duration_is_an_error(tmp_path):
    db = build_sqlite("nsys_tiny_2021.sql", tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET \"end\" = 50 WHERE start = 100")
    with pytest.raises(InputError, match="ends before it starts"):
        read_profile(db)


def test_busy_time_union():
    assert nsys.busy_time([], []) == 0.0
    assert nsys.busy_time([0, 5, 1, 20], [10, 6, 3, 25]) == 15.0
    assert nsys.busy_time([0, 0], [4, 4]) == 4.0


def test_api_totals_drop_nested_versioned_records():
    rows = [("cudaMalloc", 5.0), ("cudaMalloc_v3020", 4.0), ("cudaFree_v3020", 1.0), ("cudaFree_v3020", 2.0)]
    assert nsys.api_totals(rows) == {"cudaMalloc": 5.0, "cudaFree": 3.0}


# ---------------------------------------------------------------- corrupted files

FUZZ_DIR = fuzz_dir("nsys")


def _sources() -> list[Path]:
    found = [p for p in (CON_KERNEL, EX_GPU, KERN_SUM, NVTX) if p.is_file()]
    tiny = build_sqlite("nsys_tiny_2022.sql", FUZZ_DIR)
    return found + [tiny, DATA / "nsys_stats_stdout.txt", DATA / "nsys_gpu_trace.csv"]


SOURCES = _sources()


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(source=st.sampled_from(SOURCES), how=st.sampled_from(["truncate", "drop", "flip", "duplicate"]),
       a=st.floats(0, 1), b=st.floats(0, 1), bits=st.integers(1, 64))
def test_corrupted_files_raise_only_roofline_errors(source, how, a, b, bits):
    raw = source.read_bytes()
    bad = FUZZ_DIR / f"bad{source.suffix}"
    bad.write_bytes(corrupt(raw, how, a, b, bits))
    head = bad.read_bytes()[:65536]
    for sniff, read in ((nsys.sniff_sqlite, nsys.read_sqlite), (nsys.sniff_csv, nsys.read_csv)):
        claimed = sniff(bad, head)              # never raises
        assert isinstance(claimed, bool)
        if claimed or source.suffix == ".sqlite" and read is nsys.read_sqlite:
            try:
                result = read(bad)
            except RooflineError:
                continue
            for k in result.kernels:            # what comes back is whole
                assert k.name and k.count >= 1
                assert math.isnan(k.time_s) or k.time_s >= 0
                assert all(v >= 0 for v in k.bytes.values())
