"""Nsight Compute readers: CSV (details, raw, chart sections) and .ncu-rep.

Expected numbers on real files were checked by hand against the files
themselves (grep/awk on the CSV, a direct ``ncu_report`` dump for the
reports); each test says how. Real files are read from ../shared/realdata and
those tests skip when it is absent.
"""
from __future__ import annotations

import math
import struct
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, REALDATA
from corrupt import check_random_corruption, needs_realdata, real_file
from roofline.core.errors import InputError, RooflineError
from roofline.importers import ImportResult, read_profile
from roofline.importers.nvidia import ncu_csv
from roofline.importers.nvidia.tensor_flops import tensor_flop_per_instruction
from roofline.importers.nvidia.ncu_csv import merge_files, merge_results

NCU_CSV = REALDATA / "ncu_csv"
NCU_REP = REALDATA / "ncu_rep"

try:
    import ncu_report  # noqa: F401
    HAVE_NCU_REPORT = True
except ImportError:
    HAVE_NCU_REPORT = False

needs_ncu_report = pytest.mark.skipif(not HAVE_NCU_REPORT,
                                      reason="ncu-report is not installed (pip install 'roofline[ncu]')")

WD_DRAM = "wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-dram_ncuroof-time-1"
WD_FLOPS = "wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-flops_ncuroof-time-1"


def advice_text(result: ImportResult) -> str:
    return "\n".join(str(w) for w in result.warnings)


# --------------------------------------------------------------------------
# hand-written fixtures
# --------------------------------------------------------------------------

def test_raw_page_with_units_row_and_preamble():
    r = read_profile(DATA / "ncu_raw.csv")
    assert r.format == "ncu-csv-raw"
    assert r.device.name == "NVIDIA A100-SXM4-40GB"
    saxpy, gemm, dscale = r.kernels
    # saxpy: 12.29 usecond; 8.39 Mbyte read + 4,194.30 Kbyte written
    assert saxpy.time_s == pytest.approx(12.29e-6)
    assert saxpy.bytes["DRAM"] == pytest.approx(8.39e6 + 4194.30e3)
    # lts__t_sectors 393,216 x 32 B; l1tex__t_bytes given in bytes
    assert saxpy.bytes["L2"] == 393216 * 32
    assert saxpy.bytes["L1"] == 12582912
    assert saxpy.flops["fp32"] == 2 * 1048576          # FFMA counts twice
    assert saxpy.instructions == 65536
    assert saxpy.launch["grid"] == (4096, 1, 1) and saxpy.launch["id"] == 0
    # gemm: tensor ops taken as FLOP; FADD + FMUL once each; n/a L1 -> absent
    assert gemm.flops["tensor_fp16"] == 34359738368
    assert gemm.flops["fp32"] == 4096 + 12288
    assert "L1" not in gemm.bytes
    assert dscale.flops["fp64"] == 128
    assert dscale.launch["time_source"] == "gpu__time_duration.sum"
    assert r.kernels[0].count == 1


def test_details_page_rules_short_rows_and_rates():
    r = ncu_csv.read(DATA / "ncu_details.csv")
    assert r.format == "ncu-csv"
    stencil, halo = r.kernels
    assert stencil.time_s == pytest.approx(1.25e-3)          # 1.25 msecond
    assert stencil.bytes["DRAM"] == pytest.approx(134.22e6)  # Mbyte
    assert stencil.flops == {"fp32": 2 * 20971520}           # hfma n/a: no fp16 key
    # no gpu__time_duration (n/a): the section's Duration; no dram__bytes:
    # Memory Workload Analysis' Memory Throughput (Gbyte/s, not the %) x time
    assert halo.time_s == pytest.approx(4.10e-6)
    assert halo.launch["time_source"] == "Duration"
    assert halo.bytes["DRAM"] == pytest.approx(50e9 * 4.10e-6)
    text = advice_text(r)
    assert "FFMA" in text and "lower bound" in text
    assert "rates x duration" in text


def test_chart_section_is_normalised_then_merged_with_details():
    chart = ncu_csv.read(DATA / "ncu_chart.csv")
    assert chart.format == "ncu-csv-chart"
    (k,) = chart.kernels
    # (20 FFMA ops/cycle + 1 FADD + 0 FMUL) x 1.60 GHz, per second of kernel time.
    # The file has no duration: time stays unknown (it used to be a made-up
    # 1 s, with no warning) and a warning says to merge with the details CSV
    assert math.isnan(k.time_s) and k.launch["time_source"].startswith("normalised")
    assert k.flops["fp32"] == pytest.approx(21 * 1.6e9)
    assert k.bytes["DRAM"] == pytest.approx(107.38e9)
    text = advice_text(chart)
    assert "per-second rates" in text and "merge it with the details CSV" in text
    details = ncu_csv.read(DATA / "ncu_details.csv")
    merged = merge_results([details, chart])
    stencil = merged.kernels[0]
    assert stencil.time_s == pytest.approx(1.25e-3)
    assert stencil.flops["fp32"] == 2 * 20971520           # the details counter wins
    assert stencil.bytes["DRAM"] == pytest.approx(134.22e6)


def test_chart_rates_scale_by_the_details_duration_in_either_order():
    chart = ncu_csv.read(DATA / "ncu_chart.csv")
    details = ncu_csv.read(DATA / "ncu_details.csv")
    (first,) = [k for k in merge_results([chart, details]).kernels if k.launch.get("id") == 0]
    # the chart first: its rates win, x the details' 1.25 ms (not x NaN, nor x a made-up 1 s)
    assert first.time_s == pytest.approx(1.25e-3)
    assert first.flops["fp32"] == pytest.approx(21 * 1.6e9 * 1.25e-3)
    assert first.bytes["DRAM"] == pytest.approx(107.38e9 * 1.25e-3)
    # a chart launch with no counterpart keeps its unknown time
    (k,) = merge_results([chart, ncu_csv.read(DATA / "ncu_pass_bytes.csv")]).kernels[:1]
    assert math.isnan(k.time_s)


def test_two_pass_merge_fixture():
    merged = merge_results([ncu_csv.read(DATA / "ncu_pass_bytes.csv"),
                            ncu_csv.read(DATA / "ncu_pass_flops.csv")])
    assert len(merged.kernels) == 2
    axpby, dot = merged.kernels
    # time from the bytes pass (600,000 cycles / 1.2 GHz), not the 150x slower
    # instrumented FLOP pass
    assert axpby.time_s == pytest.approx(5e-4)
    assert axpby.flops == {"fp64": 2 * 16777216 + 16777216}
    assert axpby.bytes == {"DRAM": 402653184}
    assert dot.flops["fp64"] == 2 * 16777216
    text = advice_text(merged)
    assert "durations differ" in text
    assert "no floating-point" not in text and "no byte counters" not in text


def test_merge_files_and_unmatched_kernels():
    merged = merge_files([DATA / "ncu_pass_bytes.csv", DATA / "ncu_pass_flops.csv"])
    assert [k.flops["fp64"] for k in merged.kernels] == [50331648, 33554432]
    odd = merge_files([DATA / "ncu_pass_bytes.csv", DATA / "ncu_raw.csv"])
    assert len(odd.kernels) == 5
    assert "5 of 5 kernels match no kernel" in advice_text(odd)
    with pytest.raises(InputError):
        merge_results([])


def test_tensor_flop_per_instruction_rules():
    assert tensor_flop_per_instruction("volta_h884gemm_64x64_nn", "7.0")[:2] == (512.0, "tensor_fp16")
    assert tensor_flop_per_instruction("anything", "7.0")[0] == 512.0
    assert tensor_flop_per_instruction("ampere_s16816gemm_fp16_256x128_nn", "8.0")[:2] == (4096.0, "tensor_fp16")
    assert tensor_flop_per_instruction("ampere_bf16_s16816gemm_bf16_128x64", "8.0")[:2] == (4096.0, "tensor_bf16")
    # the accumulator letter h: FP16 accumulate, a roof of its own on GeForce parts
    assert tensor_flop_per_instruction("turing_h1688gemm_128x128_nt", "7.5")[:2] == (2048.0, "tensor_fp16_acc16")
    assert tensor_flop_per_instruction("my_gemm_kernel", "8.0")[0] is None      # no shape: unknown
    assert tensor_flop_per_instruction("my_gemm_kernel", "9.0")[0] is None      # never a fixed 512


def _details(cc: str, metrics: dict[str, tuple[str, str]], kernel: str = "my_kernel") -> str:
    """A one-launch details CSV: metric -> (unit, value)."""
    head = ('"ID","Process ID","Process Name","Host Name","Kernel Name","CC",'
            '"Section Name","Metric Name","Metric Unit","Metric Value"\n')
    rows = "".join(f'"0","1","p","h","{kernel}","{cc}","s","{m}","{u}","{v}"\n'
                   for m, (u, v) in {"gpu__time_duration.sum": ("usecond", "10"), **metrics}.items())
    return head + rows


def _tensor(cc: str, kernel: str = "my_kernel", **counts) -> tuple[dict, str]:
    metrics = {f"sm__inst_executed_pipe_tensor{'_op_' + k if k != 'total' else ''}.sum": ("inst", str(v))
               for k, v in counts.items()}
    r = ncu_csv.parse(_details(cc, metrics, kernel), "t.csv")
    return dict(r.kernels[0].flops), advice_text(r)


def test_dmma_is_not_counted_twice_with_the_unsplit_tensor_counter():
    # 1000 DMMA on an A100: the unsplit pipe_tensor count (1000) is all DMMA,
    # so nothing is left for the HMMA/IMMA rule (it used to add 1000 HMMA-less
    # instructions to "tensor-core work unknown" or to a name-stated shape)
    flops, text = _tensor("8.0", "ampere_h16816gemm_fp16_128x128", dmma=1000, total=1000)
    assert flops == {"tensor_fp64": 512.0 * 1000}
    # 1000 DMMA + 10 HMMA in the total: only the 10 get the name's m16n8k16 (4096)
    flops, _ = _tensor("8.0", "ampere_h16816gemm_fp16_128x128", dmma=1000, total=1010)
    assert flops == {"tensor_fp64": 512.0 * 1000, "tensor_fp16_acc16": 4096.0 * 10}


def test_dmma_512_flop_only_on_compute_capability_8():
    flops, text = _tensor("9.0", dmma=1000, total=1000)
    assert "tensor_fp64" not in flops
    assert "fp64 tensor-core work unknown" in text and "8.x" in text
    flops, text = _tensor("", dmma=1000)
    assert flops == {} and "without the compute capability" in text
    assert _tensor("8.6", dmma=3)[0] == {"tensor_fp64": 1536.0}


def test_imma_is_kept_next_to_hmma():
    # HMMA and IMMA both collected: each gets its own rule (IMMA used to be dropped)
    flops, text = _tensor("7.5", "turing_i8816gemm_int8_128x128_nt", hmma=10, imma=20)
    assert flops == {"tensor_int8": 2048.0 * 20}
    assert "10 HMMA warp instructions" in text           # no float shape in the name: unknown
    flops, _ = _tensor("7.5", "turing_h1688gemm_128x128_nt", hmma=10, imma=20)
    assert flops == {"tensor_fp16_acc16": 2048.0 * 10}
    assert "20 IMMA warp instructions" in _tensor("7.5", "turing_h1688gemm_128x128_nt", hmma=10, imma=20)[1]


def test_compute_capability_7_2_volta_rule_is_for_hmma_only():
    # Xavier (7.2) has Volta's HMMA (512 FLOP) and also IMMA, which 512 does not describe
    assert _tensor("7.2", hmma=10, imma=20)[0] == {"tensor_fp16": 5120.0}
    assert tensor_flop_per_instruction("k", "7.2", "IMMA")[0] is None
    assert tensor_flop_per_instruction("xavier_i8816gemm_int8", "7.2", "IMMA")[:2] == (2048.0, "tensor_int8")
    # unsplit count: a shape in the name first, else assumed HMMA and said so
    per, precision, why = tensor_flop_per_instruction("k", "7.2")
    assert (per, precision) == (512.0, "tensor_fp16") and "assumed HMMA" in why
    assert tensor_flop_per_instruction("xavier_i8816gemm_int8", "7.2")[:2] == (2048.0, "tensor_int8")
    assert tensor_flop_per_instruction("k", "7.0", "HMMA")[0] == 512.0


@pytest.mark.parametrize("unit, value, expected", [
    ("sector/s", "4,000", 4000 * 32 * 10e-6), ("sector/second", "4000", 4000 * 32 * 10e-6),
    ("sector/nsecond", "4", 4e9 * 32 * 10e-6), ("Ksector/usecond", "4", 4e9 * 32 * 10e-6),
])
def test_rate_units_on_counters_do_not_fail_the_import(unit, value, expected):
    # a rate metric (X.sum.per_second) in any count/time unit: the whole import
    # used to fail with "unknown unit"; now it is a count per second x duration
    r = ncu_csv.parse(_details("8.0", {"lts__t_sectors.sum.per_second": (unit, value)}), "r.csv")
    assert r.kernels[0].bytes["L2"] == pytest.approx(expected)


def test_rate_units_inst_and_bytes_per_time():
    r = ncu_csv.parse(_details("8.0", {
        "sm__inst_executed.sum.per_second": ("inst/second", "2e9"),
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_second": ("inst/s", "1e9"),
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": ("inst", "0"),
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": ("inst", "0"),
        "dram__bytes.sum.per_second": ("byte/nsecond", "100"),
        "Memory Throughput": ("byte/nsecond", "100")}), "r.csv")
    (k,) = r.kernels
    assert k.instructions == pytest.approx(2e9 * 10e-6)
    assert k.flops["fp32"] == pytest.approx(2 * 1e9 * 10e-6)
    assert k.bytes["DRAM"] == pytest.approx(100e9 * 10e-6)
    # "byte/nsecond" is a bandwidth, not a time: Memory Throughput alone gives DRAM bytes
    r = ncu_csv.parse(_details("8.0", {"Memory Throughput": ("byte/nsecond", "100")}), "r.csv")
    assert r.kernels[0].bytes["DRAM"] == pytest.approx(100e9 * 10e-6)


@pytest.mark.parametrize("text, line", [
    ('"ID","Process ID","Process Name","Host Name","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
     '"x","1","p","h","k","gpu__time_duration.sum","nsecond","5"\n', 2),
    ('"ID","Process ID","Process Name","Host Name","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
     '"0","1","p","h","k","gpu__time_duration.sum","nsecond","5 apples"\n', 2),
    ('"ID","Process ID","Process Name","Host Name","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
     '"0","1","p","h","k","gpu__time_duration.sum","nsecond","5"\n"1","1","p","h","k2","gpu__time_duration.sum","nse', 3),
])
def test_malformed_details_name_the_line(text, line):
    with pytest.raises(InputError) as err:
        ncu_csv.parse(text, "bad.csv")
    assert err.value.line == line and err.value.path == "bad.csv"


def test_no_header_is_an_input_error():
    with pytest.raises(InputError, match="no Nsight Compute CSV header"):
        ncu_csv.parse("==PROF== Disconnected from process 1\n", "x.csv")


def test_truncated_last_launch_is_detected():
    text = (DATA / "ncu_pass_bytes.csv").read_text().rstrip("\n").rsplit("\n", 1)[0] + "\n"
    with pytest.raises(InputError, match="truncated"):
        ncu_csv.parse(text, "cut.csv")


# --------------------------------------------------------------------------
# real Nsight Compute CSV exports
# --------------------------------------------------------------------------

@needs_realdata
def test_real_wdmapp_time_dram_pass():
    r = read_profile(real_file(NCU_CSV / (WD_DRAM + ".csv")))
    assert len(r.kernels) == 8           # IDs 0..7: 2 GENE kernels x 4
    k0 = r.kernels[0]
    assert k0.name.startswith("ij_deriv_kernel(int, int, int, thrust::complex<double> const*")
    # grep: launch 0 dram__bytes.sum "690,960,320"; awk sum over 8 launches = 6,330,979,616
    assert k0.bytes == {"DRAM": 690960320}
    assert sum(k.bytes["DRAM"] for k in r.kernels) == 6330979616
    # 1,209,252.43 cycles / 1,309,394,950.84 cycle/second = 0.92352 ms
    assert k0.time_s == pytest.approx(1209252.43 / 1309394950.84)
    assert "sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second" in k0.launch["time_source"]
    text = advice_text(r)
    assert "ncu --metrics smsp__sass_thread_inst_executed_op_dadd_pred_on.sum" in text


@needs_realdata
def test_real_wdmapp_two_pass_merge():
    dram = read_profile(real_file(NCU_CSV / (WD_DRAM + ".csv")))
    flops = read_profile(real_file(NCU_CSV / (WD_FLOPS + ".csv")))
    assert len(flops.kernels) == 8
    # launch 0: dadd 0 + dmul 55,050,240 + 2 x dfma 137,625,600 = 330,301,440
    assert flops.kernels[0].flops == {"fp64": 330301440}
    # launch 1: dadd = dmul = dfma = 27,525,120 -> 4 x 27,525,120
    assert flops.kernels[1].flops == {"fp64": 4 * 27525120}
    merged = merge_results([dram, flops])
    assert len(merged.kernels) == 8
    k0 = merged.kernels[0]
    assert k0.flops == {"fp64": 330301440} and k0.bytes == {"DRAM": 690960320}
    # the FLOP pass is instrumented: 184,880,856.57 cycles there vs 1,209,252.43 here
    assert k0.time_s == pytest.approx(1209252.43 / 1309394950.84)
    assert "durations differ" in advice_text(merged)


@needs_realdata
def test_real_wangzy_a100_bytes_without_flop_counters():
    r = read_profile(real_file(NCU_CSV / "wangzy0327__cuda-roofline__output_A100.csv"))
    assert len(r.kernels) == 11          # IDs 0..10 after 10 lines of program output
    # no CUDA-core FP counters anywhere; InitializeMatrix kernels have no flops
    assert all(not any(not p.startswith("tensor") for p in k.flops) for k in r.kernels)
    assert r.kernels[0].flops == {}
    # grep ID 4: dram__bytes.sum "147,469,918,080", lts__t_bytes "425,291,700,800"
    assert r.kernels[4].bytes["DRAM"] == 147469918080
    assert r.kernels[4].bytes["L2"] == 425291700800
    # tensor FLOPs only where the name states the MMA shape: the CUTLASS kernel's
    # arch::Mma<GemmShape<16, 8, 8>> (2048 FLOP/inst) and ampere_s16816gemm (4096).
    # 8,388,608,000 x 2048 = 4,194,304,000 x 4096 = 2 x 20480^3, the GEMM the
    # program's own output describes (94622.9 GFLOPS x 181.561 ms = 1.718e13)
    assert r.kernels[4].flops == {"tensor_fp16": 8388608000 * 2048}
    assert r.kernels[10].flops == {"tensor_fp16": 4194304000 * 4096}
    assert r.kernels[4].flops["tensor_fp16"] == 2 * 20480 ** 3
    text = advice_text(r)
    assert "no floating-point instruction counters" in text
    assert "ncu --metrics smsp__sass_thread_inst_executed_op_dadd_pred_on.sum" in text


@needs_realdata
def test_real_gardenia_smsp_variant_with_dot00():
    r = read_profile(real_file(NCU_CSV / "Gardenia-Tian__LearningNote4Dev__sgemm.csv"))
    assert len(r.kernels) == 3
    gemm = r.kernels[2]
    # "34,359,738,368,000.00" FFMA and "2,149,161,369,600.00" HFMA, x2 each
    assert gemm.flops["fp32"] == 2 * 34359738368000
    assert gemm.flops["fp16"] == 2 * 2149161369600
    assert r.kernels[0].bytes["L1"] == 16840298332000
    # smsp__cycles_elapsed.avg 5,145,083,088.72 / 764,999,991.90 per second
    assert r.kernels[0].time_s == pytest.approx(5145083088.72 / 764999991.90)
    # 67,161,292,800 tensor instructions but no shape in "gemm_v1<float>": unknown
    assert "tensor_fp16" not in gemm.flops
    assert "tensor-core work unknown" in advice_text(r)


@needs_realdata
def test_real_xplacer_old_section_only_log():
    r = read_profile(real_file(NCU_CSV / "peihunglin__XPlacer-ML-DataPlacement__nsight_bfs_graph4096.log"))
    assert len(r.kernels) == 13          # 16 lines of program output before the header
    # awk: the 13 "Duration" rows (nsecond) sum to 71,968 ns
    assert sum(k.time_s for k in r.kernels) == pytest.approx(71968e-9)
    assert r.kernels[0].time_s == pytest.approx(3200e-9)
    assert all(k.flops == {} and k.bytes == {} for k in r.kernels)
    text = advice_text(r)
    assert "no byte counters" in text and "dram__bytes.sum" in text


@needs_realdata
def test_real_codegandee_details_rtx5090():
    r = read_profile(real_file(NCU_CSV / "CodeGandee__llm-perf-opt__kernel_0001_ncu.details.csv"))
    (k,) = r.kernels
    assert k.launch["cc"] == "12.0" and k.launch["grid"] == (224, 1, 1)
    assert k.time_s == pytest.approx(6.75e-6)              # "us","6.75"
    assert k.bytes["DRAM"] == pytest.approx(2.33e6)        # 2.33 Mbyte read + 0 byte written
    assert "no floating-point instruction counters" in advice_text(r)


@needs_realdata
def test_real_codegandee_roofline_chart_and_merge():
    chart = read_profile(real_file(NCU_CSV / "CodeGandee__llm-perf-opt__kernel_0001_ncu.section_SpeedOfLight_RooflineChart.csv"))
    (k,) = chart.kernels
    # Single Precision Achieved Value: (158.12 FFMA ops + 1.97 FADD + 0 FMUL)/cycle x 2.15 GHz
    assert k.flops["fp32"] == pytest.approx((158.12 + 1.97) * 2.15e9)
    assert k.bytes["DRAM"] == pytest.approx(345.14e9)      # DRAM Bandwidth, Gbyte/s
    details = read_profile(real_file(NCU_CSV / "CodeGandee__llm-perf-opt__kernel_0001_ncu.details.csv"))
    (m,) = merge_results([details, chart]).kernels
    assert m.time_s == pytest.approx(6.75e-6)
    assert m.flops["fp32"] == pytest.approx((158.12 + 1.97) * 2.15e9 * 6.75e-6)  # 2.323e6 FLOP
    assert m.bytes["DRAM"] == pytest.approx(2.33e6)


# --------------------------------------------------------------------------
# .ncu-rep through ncu-report
# --------------------------------------------------------------------------

def test_missing_ncu_report_says_how_to_install(monkeypatch, tmp_path):
    path = tmp_path / "x.ncu-rep"
    path.write_bytes(b"NVR\x00" + struct.pack("<I", 2) + b"\x08\x07")
    monkeypatch.setitem(sys.modules, "ncu_report", None)
    with pytest.raises(RooflineError, match=r"pip install 'roofline\[ncu\]'"):
        read_profile(path)


@needs_ncu_report
def test_garbage_report_with_zero_ranges_is_an_input_error(tmp_path):
    path = tmp_path / "garbage.ncu-rep"
    path.write_bytes(b"NVR\x00" + struct.pack("<I", 4) + b"abcd")
    with pytest.raises(InputError, match="no ranges"):
        read_profile(path)
    path.write_bytes(b"NVR\x00" + b"not a report at all")
    with pytest.raises(InputError, match="truncated or corrupted"):
        read_profile(path)


@needs_realdata
@needs_ncu_report
def test_real_wdmapp_reports_match_their_csv_exports():
    for stem in (WD_DRAM, WD_FLOPS):
        rep = read_profile(real_file(NCU_REP / (stem + ".ncu-rep")))
        csv_ = read_profile(real_file(NCU_CSV / (stem + ".csv")))
        assert rep.device.name == "Tesla V100-SXM2-16GB"
        assert len(rep.kernels) == len(csv_.kernels) == 8
        for a, b in zip(rep.kernels, csv_.kernels):
            assert a.name == b.name and a.launch["id"] == b.launch["id"]
            assert a.bytes == b.bytes and a.flops == b.flops
            assert a.time_s == pytest.approx(b.time_s, rel=1e-8)   # CSV rounds cycles to 0.01
    rep = read_profile(real_file(NCU_REP / (WD_DRAM + ".ncu-rep")))
    assert rep.kernels[0].bytes["DRAM"] == 690960320          # MANIFEST: same in both
    assert rep.kernels[0].launch["grid"] == 24576 and rep.kernels[0].launch["cc"] == "7.0"


@needs_realdata
@needs_ncu_report
def test_real_rashwanth_hierarchical_double_roofline_rates():
    r = read_profile(real_file(NCU_REP / "rashwanth__RooflineAnalysis_On_NVIDIA_GPU__output0.ncu-rep"))
    assert r.device.name == "NVIDIA GeForce RTX 4060 Laptop GPU"
    assert len(r.kernels) == 2
    k = r.kernels[0]
    t = 49949994624e-9                          # gpu__time_duration.sum, ns
    assert k.time_s == pytest.approx(t)
    # per-cycle rates from a direct ncu_report dump: dfma 19.056189648731067,
    # dadd 3.4712492124822525, dmul 10.685276538457485 inst/cycle (sum over
    # SMSPs) x smsp__cycles_elapsed.avg.per_second 1,619,977,986.87 x t
    hz = 1619977986.8735733
    expect = (2 * 19.056189648731067 + 3.4712492124822525 + 10.685276538457485) * hz * t
    assert k.flops["fp64"] == pytest.approx(expect)            # 4.229e12 FLOP
    assert k.bytes["DRAM"] == pytest.approx(10514360190.854862 * t)
    assert set(k.bytes) == {"L1", "L2", "DRAM"}
    assert "rates x duration" in advice_text(r)


@needs_realdata
@needs_ncu_report
def test_real_extrap_a100_time_and_instructions():
    r = read_profile(real_file(NCU_REP / "extra-p__extrap__ex-gpu.s10.ncu-rep"))
    assert r.device.name == "A100-PCIE-40GB"
    assert [k.name.split("(")[0] for k in r.kernels] == [
        "init_array", "init_array", "vector_add", "vector_add1", "vector_mul", "vector_dot"]
    # gpu__time_duration.sum: 4064 + 4224 + 4288 + 4512 + 4288 + 4512 ns
    assert sum(k.time_s for k in r.kernels) == pytest.approx(25888e-9)
    assert r.kernels[5].instructions == 53                     # sm__inst_executed.sum
    assert "no byte counters" in advice_text(r)


@needs_realdata
@needs_ncu_report
def test_real_coalda_reports():
    r = read_profile(real_file(NCU_REP / "Alaric617R__COALDA__origin.ncu-rep"))
    (k,) = r.kernels
    assert k.time_s == pytest.approx(13600e-9)
    assert k.bytes["DRAM"] == 786560                           # dram__bytes_read.sum + write 0
    assert k.bytes["L2"] == 96712 * 32                          # lts__t_sectors.sum x 32 B
    r = read_profile(real_file(NCU_REP / "Alaric617R__COALDA__rgb_original.ncu-rep"))
    (k,) = r.kernels
    assert r.device.name == "NVIDIA GeForce MX450" and k.launch["cc"] == "7.5"
    assert k.time_s == pytest.approx(23104e-9) and k.flops == {} and k.bytes == {}
    assert "no floating-point" in advice_text(r) and "no byte counters" in advice_text(r)


# --------------------------------------------------------------------------
# corrupted real files: nothing but RooflineError escapes
# --------------------------------------------------------------------------

def _ncu_files() -> list[Path]:
    files = sorted(DATA.glob("ncu_*.csv"))
    if NCU_CSV.is_dir():
        files += sorted(NCU_CSV.iterdir())
    if NCU_REP.is_dir() and HAVE_NCU_REPORT:
        files += sorted(NCU_REP.iterdir())
    return files


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corrupted_ncu_files_raise_only_roofline_errors(data):
    check_random_corruption(data, _ncu_files())


def test_instruction_roofline_counters_from_ncu():
    header = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
              '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')
    row = '"0","1","app","127.0.0.1","k","1","7","(256, 1, 1)","(80, 1, 1)","0","7.0","Command line profiler metrics",'
    text = header + "".join(f'{row}"{m}","{u}","{v}"\n' for m, u, v in [
        ("gpu__time_duration.sum", "usecond", "10"),
        ("smsp__inst_executed.sum", "inst", "1,000"),
        ("smsp__thread_inst_executed.sum", "inst", "24,000"),
        ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "", "500"),
        ("dram__bytes.sum", "byte", "3,200")])
    k = ncu_csv.parse(text, "inst.csv").kernels[0]
    assert k.instructions == 1000 and k.launch["thread_instructions"] == 24000
    assert k.transactions["shared"] == 500 and k.transactions["DRAM"] == 100


def test_fp16_accumulate_ops_counter_goes_to_its_own_roof():
    # sm__ops_path_tensor_src_<in>_dst_<accumulator>: f16 in, f16 accumulate is the
    # GeForce parts' faster roof (tensor_fp16_acc16); f32 accumulate stays tensor_fp16
    metrics = {"sm__ops_path_tensor_src_fp16_dst_fp16.sum": ("", "1000"),
               "sm__ops_path_tensor_src_fp16_dst_fp32.sum": ("", "3000")}
    r = ncu_csv.parse(_details("8.9", metrics), "t.csv")
    assert dict(r.kernels[0].flops) == {"tensor_fp16_acc16": 1000.0, "tensor_fp16": 3000.0}
