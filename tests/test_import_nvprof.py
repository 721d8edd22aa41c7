"""nvprof reader: summary, GPU trace, --metrics/--events; CSV and plain text.

Expected numbers on real files were checked by hand against the files
(awk sums, or arithmetic on the values quoted in the comments). Real files
are read from ../shared/realdata and those tests skip when it is absent.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, REALDATA
from corrupt import check_random_corruption, needs_realdata, real_file
from roofline.core.errors import InputError
from roofline.importers.nvidia import nvprof
from roofline.importers import read_profile
from roofline.importers.nvidia.ncu_csv import merge_results

NVPROF = REALDATA / "nvprof"
SEEDS = REALDATA.parent / "seeds"


def advice_text(result) -> str:
    return "\n".join(str(w) for w in result.warnings)


def by_name(result):
    out = {}
    for k in result.kernels:
        out.setdefault(k.name, []).append(k)
    return out


# --------------------------------------------------------------------------
# hand-written fixtures
# --------------------------------------------------------------------------

def test_summary_csv_with_type_column_and_units_row():
    r = read_profile(DATA / "nvprof_summary.csv")
    assert r.format == "nvprof-summary"
    conv, htod, memset = r.kernels
    assert conv.time_s == pytest.approx(6e-3) and conv.count == 3
    assert htod.family == "memcpy" and htod.bytes == {}      # a summary has no sizes
    assert memset.family == "memset" and memset.count == 10
    assert r.program.api_s == pytest.approx({"cudaMalloc": 0.040, "cudaMemcpy": 0.010})
    assert r.program.gpu_busy_s is None


def test_summary_text_with_wrapped_names_and_unified_memory():
    r = read_profile(DATA / "nvprof_summary.txt")
    names = [k.name for k in r.kernels]
    assert names[0].startswith("void cudnn::detail::implicit_convolve_sgemm<float, float, int=1024")
    assert names[0].endswith("float, float, int, int)")
    assert names[2] == "volta_sgemm_128x128_tn"               # name on the next line
    assert r.kernels[0].time_s == pytest.approx(5e-3) and r.kernels[0].count == 10
    assert r.kernels[3].time_s == pytest.approx(500e-6)       # "500.00us"
    assert sum(k.time_s for k in r.kernels[:4]) == pytest.approx(10e-3)
    assert r.program.api_s["cudaFree"] == pytest.approx(0.27)
    assert r.program.api_total_s == pytest.approx(3.0)
    # unified memory: 2.000000MB (binary) in 16 migrations, 250 us
    um = r.kernels[4]
    assert um.name == "[Unified Memory Memcpy HtoD]" and um.count == 16
    assert um.bytes == {"PCIe": 2 * 2**20} and um.time_s == pytest.approx(250e-6)
    assert r.kernels[5].bytes == {"PCIe": 256 * 1024}
    assert r.device.name == "Tesla V100-SXM2-16GB"
    assert "insufficient device buffer space" in advice_text(r)


def test_gpu_trace_text_fixed_width():
    r = read_profile(DATA / "nvprof_trace.txt")
    assert r.format == "nvprof-trace" and r.device.name == "Tesla T4"
    htod, k1, dtod, memset, k2, dtoh = r.kernels
    assert htod.bytes == {"PCIe": 4 * 2**20}          # 4.0000MB at 3.8147GB/s: binary
    assert dtod.bytes == {"DRAM": 2 * 2**20}          # DtoD reads and writes 1 MiB
    assert memset.bytes == {"DRAM": 512 * 1024} and memset.family == "memset"
    assert dtoh.bytes == {"PCIe": 4 * 2**20}
    assert k1.name == "saxpy(int, float, float const *, float*)" and k1.launch["id"] == 118
    assert k1.launch["grid"] == (4096, 1, 1) and k1.launch["registers_per_thread"] == 16
    assert k1.time_s == pytest.approx(25.6e-6)
    # busy = 1.024 + 0.0256 + 0.008 + 0.00256 + 0.0248 + 1.0 ms; span 210.51 -> 213.00 ms
    assert r.program.gpu_busy_s == pytest.approx(2.08496e-3)
    assert r.program.span_s == pytest.approx(2.49e-3)


def test_gpu_trace_csv_binary_units_and_correlation_column():
    r = read_profile(DATA / "nvprof_trace.csv")
    htod, k1, k2, dtoh = r.kernels
    # 2048.000000 KB in 200 us at 9.765625 GB/s only adds up with KB = 1024 B
    assert htod.bytes == {"PCIe": 2048 * 1024}
    assert dtoh.bytes == {"PCIe": 1024 * 1024}
    assert [k1.launch["id"], k2.launch["id"]] == [110, 118]
    assert r.program.gpu_busy_s == pytest.approx(2.21e-3)
    assert r.program.span_s == pytest.approx(2.6e-3)


def test_metrics_text():
    r = read_profile(DATA / "nvprof_metrics.txt")
    assert r.device.name == "GeForce GTX 1080"
    jacobi, reduce_ = r.kernels
    assert jacobi.count == 50 and math.isnan(jacobi.time_s)
    assert jacobi.flops == {"fp32": 83886080 * 50}
    assert jacobi.bytes["DRAM"] == (2099000 + 524288) * 32 * 50       # Avg x invocations
    assert jacobi.instructions == 1310720 * 50
    assert reduce_.bytes["DRAM"] == (524288 + 72) * 32 * 50
    assert "no duration" in advice_text(r)


def test_events_and_metrics_csv_then_merge_with_trace():
    r = read_profile(DATA / "nvprof_events_metrics.csv")
    assert r.format == "nvprof-events+metrics"
    (k,) = r.kernels
    # flop_count_dp_add/mul/fma (no flop_count_dp): 0 + 1,048,576 + 2 x 4,194,304 per call
    assert k.flops == {"fp64": (1048576 + 2 * 4194304) * 2}
    # fb_subp{0,1}_{read,write}_sectors: (1,000,050 + 1,000,000 + 125,000 + 125,000) x 32 B x 2 calls
    assert k.bytes == {"DRAM": 2250050 * 32 * 2}
    assert k.instructions == 6000000
    merged = merge_results([r, read_profile(DATA / "nvprof_trace.csv")])
    spmv = by_name(merged)[k.name][0]
    assert spmv.count == 2 and spmv.time_s == pytest.approx(1.91e-3)
    assert spmv.flops == k.flops and spmv.bytes == k.bytes
    assert "no duration" not in advice_text(merged)


EVENTS_TEXT = """\
==77== Profiling application: ./scale
==77== Profiling result:
==77== Event result:
Invocations                                Event Name         Min         Max         Avg       Total
Device "Tesla K80 (0)"
    Kernel: scale(float*, int)
          2                             inst_executed       10240       10240       10240       20480
          2                     fb_subp0_read_sectors        1000        1000        1000        2000
          2                     fb_subp1_read_sectors        1000        1000        1000        2000
          2                    fb_subp0_write_sectors         500         500         500        1000
          2                    fb_subp1_write_sectors         500         500         500        1000
"""


def test_events_text():
    r = nvprof.parse(EVENTS_TEXT, "events.txt")
    (k,) = r.kernels
    assert r.format == "nvprof-events" and r.device.name == "Tesla K80"
    assert k.name == "scale(float*, int)" and k.count == 2
    assert k.bytes == {"DRAM": (1000 + 1000 + 500 + 500) * 32 * 2}
    assert k.instructions == 20480
    reads_only = EVENTS_TEXT.rsplit("\n", 3)[0] + "\n"     # the write-sector rows lost
    r = nvprof.parse(reads_only, "reads.txt")
    assert r.kernels[0].bytes == {"DRAM": 2000 * 32 * 2}
    assert "only reads" in advice_text(r) and "lower bound" in advice_text(r)


def test_api_rows_in_traces_go_to_program_time():
    mixed = ('==9== Profiling result:\n'
             '"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z",'
             '"Registers Per Thread","Static SMem","Dynamic SMem","Size","Throughput","Device",'
             '"Context","Stream","Name"\n'
             'ms,us,,,,,,,,B,B,KB,GB/s,,,,\n'
             '1.0,5.0,,,,,,,,,,,,,,,"cudaMalloc"\n'
             '2.0,10.0,1,1,1,32,1,1,8,0,0,,,"GeForce GTX 970 (0)","1","7","k(int) [5]"\n')
    r = nvprof.parse(mixed, "mixed.csv")
    assert [k.name for k in r.kernels] == ["k(int)"]
    assert r.program.api_s == pytest.approx({"cudaMalloc": 5e-6})
    api_only = ("==9== Profiling result:\n   Start  Duration  Name\n"
                "  1.00ms  5.0000us  cudaMalloc\n  2.00ms  1.0000us  cudaFree\n")
    r = nvprof.parse(api_only, "api.txt")
    assert r.kernels == () and r.program.api_total_s == pytest.approx(6e-6)


def test_merge_warning_does_not_count_copies_and_sets():
    # the metrics file has no copies (it never has): only kernels count
    merged = merge_results([read_profile(DATA / "nvprof_events_metrics.csv"),
                            read_profile(DATA / "nvprof_trace.csv")])
    assert "match no kernel" not in advice_text(merged)       # was "2 of 3" (the two copies)
    odd = merge_results([read_profile(DATA / "nvprof_metrics.txt"),
                         read_profile(DATA / "nvprof_trace.txt")])
    # jacobi_step, reduce_residual, saxpy; not HtoD, DtoD, memset, DtoH (was "7 of 7")
    assert "3 of 3 kernels match no kernel" in advice_text(odd)


KEPLER_METRICS = """\
==5== Profiling application: ./stencil
==5== Profiling result:
==5== Metric result:
"Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"
"{dev}","stencil(float const*, float*)",2,"gld_transactions","Global Load Transactions",100,100,100
"{dev}","stencil(float const*, float*)",2,"gst_transactions","Global Store Transactions",50,50,50
"{dev}","stencil(float const*, float*)",2,"tex_cache_transactions","{tex}",400,400,400
"{dev}","stencil(float const*, float*)",2,"l2_read_transactions","L2 Read Transactions",300,300,300
"{dev}","stencil(float const*, float*)",2,"l2_write_transactions","L2 Write Transactions",50,50,50
"""


@pytest.mark.parametrize("dev, tex, l1_txn", [
    ("Tesla K40c (0)", "Texture Cache Transactions", 100 + 50 + 400),   # __ldg loads on the texture path
    ("GeForce GTX 780 (0)", "Texture Cache Transactions", 100 + 50 + 400),
    ("Tesla K80 (0)", "", 100 + 50 + 400),                               # from the device name alone
    ("GeForce GTX 1080 Ti (0)", "Unified Cache Transactions", 100 + 50),  # Pascal: overlaps gld
    ("Tesla P100-PCIE-16GB (0)", "", 100 + 50),
])
def test_kepler_l1_bytes_include_texture_path_loads(dev, tex, l1_txn):
    r = nvprof.parse(KEPLER_METRICS.format(dev=dev, tex=tex), "k.csv")
    (k,) = r.kernels
    assert k.bytes["L1"] == l1_txn * 32 * 2 and k.transactions["L1"] == l1_txn * 2
    assert k.bytes["L2"] == 350 * 32 * 2
    text = advice_text(r)
    # L1 below L2 (150 < 350 transactions) is said, and only then
    assert ("L1 bytes are below L2 bytes" in text) == (l1_txn < 350)
    assert ("include tex_cache_transactions" in text) == (l1_txn > 150)


RUN = """\
==%(pid)d== NVPROF is profiling process %(pid)d, command: ./conv
==%(pid)d== Profiling application: ./conv
==%(pid)d== Profiling result:
            Type  Time(%%)      Time     Calls       Avg       Min       Max  Name
 GPU activities:  100.00%%  5.0000ms        10  500.00us  400.00us  600.00us  conv(int)
      API calls:  100.00%%  1.0000ms         1  1.0000ms  1.0000ms  1.0000ms  cudaMalloc
"""


def test_several_runs_of_one_program_are_merged_not_summed():
    # two nvprof commands appending to one log: "conv" must not come out as
    # one kernel of 20 calls, as if it were one run
    two = RUN % {"pid": 1} + "program output\n" + RUN % {"pid": 2}
    r = nvprof.parse(two, "two.log")
    (k,) = [k for k in r.kernels if k.name == "conv(int)"]
    assert k.count == 10 and k.time_s == pytest.approx(5e-3)
    (note,) = [w for w in r.warnings if w.subject == "nvprof runs"]
    assert "2 nvprof runs of one program merged: times from the run at line 2" in note.message
    assert "the times of the runs at lines 9 were not used" in note.message
    # repeated "Profiling result:" blocks without "Profiling application:" lines too
    bare = "".join(line + "\n" for line in (RUN % {"pid": 3}).splitlines()[2:])
    assert [k.count for k in nvprof.parse(bare + bare, "two.log").kernels if k.name == "conv(int)"] == [10]
    assert nvprof.parse(RUN % {"pid": 1}, "one.log").kernels[0].count == 10


def test_runs_of_different_programs_are_refused_with_the_line():
    other = (RUN % {"pid": 2}).replace("./conv", "./gemm")
    with pytest.raises(InputError, match="runs of different programs") as err:
        nvprof.parse(RUN % {"pid": 1} + other, "two.log")
    assert err.value.line == 8          # the second program's "Profiling application" line


def test_summary_then_metrics_replay_gives_times_and_counters():
    trace = REALDATA / "nvprof" / "leimingyu__magus__matrixMul_trace.csv"
    metrics = REALDATA / "nvprof" / "leimingyu__magus__matrixMul_metrics.csv"
    if not (trace.exists() and metrics.exists()):
        pytest.skip("realdata nvprof files are not present")
    log = trace.read_text() + metrics.read_text() * 6          # 7 runs, as a student's log
    r = nvprof.parse(log, "seven.log")
    (mm,) = [k for k in r.kernels if k.name.startswith("void matrixMulCUDA")]
    alone = [k for k in nvprof.parse(trace.read_text(), "t").kernels if k.name == mm.name]
    assert mm.time_s == pytest.approx(sum(k.time_s for k in alone)) and mm.flops
    assert any("7 nvprof runs of one program merged" in w.message for w in r.warnings)


HTML_SUMMARY = """\
==383== Profiling application: python m1.2.py
==383== Profiling result:
\tType\tTime(%)\tTime\tCalls\tAvg\tMin\tMax\tName
<b>GPU activities:</b>\t39.39%\t16.127ms\t20\t806.35us\t1.0880us\t15.480ms\t[CUDA memcpy HtoD]\t
\t12.11%\t4.9587ms\t1\t4.9587ms\t4.9587ms\t4.9587ms\t
volta_cgemm_64x32_tn\t\t\t\t\t\t
<b>API calls:</b>\t42.32%\t3.00705s\t22\t136.68ms\t12.851us\t1.56016s\tcudaStreamCreateWithFlags
0.00%\t4.1730us\t3\t1.3910us\t809ns\t2.2560us\tcuInit
0.00%\t3.8930us\t1\t3.8930us\t3.8930us\t3\t
.8930us cudaEventQuery\t\t\t\t\t\t
0.00%\t3.3850us\t1\t3.3850us\t3.3850us\t3.3850us\tcudaUnbindTexture
"""


def test_html_bold_labels_in_a_pasted_summary():
    # the sniff accepted "<b>GPU activities:</b>" but the parser failed on it
    r = read_profile_text(HTML_SUMMARY, "m1.txt")
    assert [k.name for k in r.kernels] == ["[CUDA memcpy HtoD]", "volta_cgemm_64x32_tn"]
    assert r.kernels[0].time_s == pytest.approx(16.127e-3) and r.kernels[0].count == 20
    assert set(r.program.api_s) == {"cudaStreamCreateWithFlags", "cuInit", "cudaUnbindTexture"}


def test_a_row_cut_inside_a_number_is_skipped_with_its_line():
    # "3" + ".8930us cudaEventQuery": the wrap fell inside Max, not before the name;
    # it used to give an API call named ".8930us cudaEventQuery"
    r = nvprof.parse(HTML_SUMMARY, "m1.txt")
    assert not any(name.startswith(".") for name in r.program.api_s)
    text = advice_text(r)
    assert "skipped the summary row at line 9" in text and "'.8930us'" in text
    # template arguments that look like tags are not tags
    assert nvprof.parse(HTML_SUMMARY.replace("volta_cgemm_64x32_tn", "k<b, i>(int)"),
                        "t.txt").kernels[1].name == "k<b, i>(int)"


def read_profile_text(text: str, name: str):
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(text)
        return read_profile(path)


@pytest.mark.parametrize("text, line", [
    ("==1== Profiling result:\n\"Start\",\"Duration\",\"Size\",\"Name\"\ns,ms,B,\n1.0,x,,\"k\"\n", 4),
    ("==1== Profiling result:\n\"Start\",\"Duration\",\"Size\",\"Name\"\ns,ms,B,\n1.0,2.0,\"k\"\n", 4),
    ("            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
     " GPU activities:   50.00%  5.0000ms        10  500.00us  400.00us  600.00us  kern(int)\n"
     "this line is not a row\n", 3),
])
def test_malformed_tables_name_the_line(text, line):
    with pytest.raises(InputError) as err:
        nvprof.parse(text, "bad.log")
    assert err.value.line == line


def test_no_table_is_an_input_error():
    with pytest.raises(InputError, match="no nvprof table"):
        nvprof.parse("==1== NVPROF is profiling process 1, command: ./a\n", "x.log")


# --------------------------------------------------------------------------
# real nvprof outputs
# --------------------------------------------------------------------------

@needs_realdata
def test_real_xplacer_text_summary():
    r = read_profile(real_file(NVPROF / "peihunglin__XPlacer-ML-DataPlacement__output_000000_graph4096.log"))
    assert len(r.kernels) == 4           # 2 kernels + HtoD + DtoH ("-u ms" units row)
    htod = r.kernels[0]
    assert htod.name == "[CUDA memcpy HtoD]" and htod.count == 14 and htod.family == "memcpy"
    # GPU time: 0.341204 + 0.037986 + 0.013280 + 0.011106 ms
    assert sum(k.time_s for k in r.kernels) == pytest.approx(0.403576e-3)
    assert r.kernels[1].time_s == pytest.approx(0.037986e-3) and r.kernels[1].count == 8
    # 13 API rows summing (by hand) to 292.547858 ms; cudaMalloc 270.1498 ms
    assert len(r.program.api_s) == 13
    assert r.program.api_total_s == pytest.approx(292.547858e-3)
    assert r.program.api_s["cudaMalloc"] == pytest.approx(270.1498e-3)
    assert r.device.name == "Tesla V100-SXM2-16GB"     # from the unified-memory block


@needs_realdata
def test_real_xplacer_text_gpu_trace():
    r = read_profile(real_file(NVPROF / "peihunglin__XPlacer-ML-DataPlacement__GPUTraceOutput_111100_graph4096.log"))
    names = by_name(r)
    # rows: 8 Kernel + 8 Kernel2 + 10 HtoD + 8 DtoH + 3 unified-memory copies;
    # the two page-fault rows are events, not GPU work
    assert len(r.kernels) == 37
    assert len(names["Kernel(Node*, int*, bool*, bool*, bool*, int*, int)"]) == 8
    assert len(names["[CUDA memcpy HtoD]"]) == 10
    first = names["[CUDA memcpy HtoD]"][0]
    # "96.000KB" at "7.4688GB/s" in "12.258us": 98,304 B / 12.258 us = 7.4688 GiB/s
    assert first.bytes == {"PCIe": 96 * 1024}
    assert first.time_s == pytest.approx(12.258e-6)
    um = names["[Unified Memory Memcpy HtoD]"]
    assert sum(k.bytes["PCIe"] for k in um) == (44 + 16 + 4) * 1024
    assert names["Kernel2(bool*, bool*, bool*, bool*, int)"][0].launch["id"] == 118
    assert r.device.name == "Tesla V100-SXM2"


@needs_realdata
def test_real_jacobi_trace_decimal_units_and_merge_with_metrics():
    trace = read_profile(real_file(NVPROF / "pssrawat__IEEE2017__jacobi-orig.trace"))
    assert len(trace.kernels) == 18      # 12 kernel launches + 6 copies
    copies = [k for k in trace.kernels if k.family == "memcpy"]
    # "269.485056" MB at 6.569354 GB/s over 41.021544 ms: decimal here (= 4 x 8208^2 B)
    assert all(k.bytes == {"PCIe": 269485056} for k in copies)
    assert trace.kernels[1].launch["id"] == 115
    # awk: last start + duration - first start = 1.032082471 s
    assert trace.program.span_s == pytest.approx(1.032082471)
    metrics = read_profile(real_file(NVPROF / "pssrawat__IEEE2017__jacobi-orig.profile"))
    assert len(metrics.kernels) == 4 and metrics.kernels[0].count == 3
    # flop_count_sp 673,384,360 per call x 3; (gld 19,998,022 + gst 4,209,678) x 32 B x 3
    assert metrics.kernels[0].flops == {"fp32": 673384360 * 3}
    assert metrics.kernels[0].bytes == {"L1": (19998022 + 4209678) * 32 * 3}
    merged = merge_results([metrics, trace])
    assert len(merged.kernels) == 6
    k0 = by_name(merged)["__kernel___forma_kernel__0__(float*, int, int, float*)"][0]
    # awk: the three launches take 7.922282 + 7.924363 + 7.924203 = 23.770848 ms
    assert k0.count == 3 and k0.time_s == pytest.approx(23.770848e-3)
    assert k0.flops == {"fp32": 673384360 * 3}


@needs_realdata
def test_real_jacobi_unroll_old_csv_summary():
    r = read_profile(real_file(NVPROF / "pssrawat__IEEE2017__jacobi-unroll.time"))
    assert len(r.kernels) == 7
    # awk: the 7 GPU rows sum to 102.770533 ms; 14 API rows to 199.039835 ms
    assert sum(k.time_s for k in r.kernels) == pytest.approx(102.770533e-3)
    assert len(r.program.api_s) == 14
    assert r.program.api_total_s == pytest.approx(199.039835e-3)
    assert r.program.api_s["cudaMemcpy"] == pytest.approx(102.857253e-3)
    assert "non-zero code 255" in advice_text(r)


@needs_realdata
def test_real_untiled_two_section_events_and_metrics():
    r = read_profile(real_file(NVPROF / "pssrawat__IEEE2017__untiled.csv"))
    assert r.device.name == "Tesla K40c"
    (k,) = r.kernels
    assert k.count == 4
    # flop_count_sp 5,173,389,000 = add 3,316,275,000 + mul 265,302,000 + 2 x fma 795,906,000
    assert k.flops["fp32"] == 5173389000 * 4
    # dram_read_transactions 72,979,167 (= events fb_subp0 + fb_subp1 read sectors
    # 36,490,820 + 36,488,347) + dram_write_transactions 21,076,680, x 32 B x 4
    assert k.bytes["DRAM"] == (72979167 + 21076680) * 32 * 4
    assert k.bytes["L2"] == (584898315 + 24142292) * 32 * 4
    assert k.instructions == 911390400 * 4


@needs_realdata
def test_real_magus_all_metrics_and_trace():
    metrics = read_profile(real_file(NVPROF / "leimingyu__magus__matrixMul_metrics.csv"))
    (k,) = metrics.kernels
    assert k.count == 301 and k.name == "void matrixMulCUDA<int=32>(float*, float*, float*, int, int)"
    assert k.flops["fp32"] == 131072000 * 301                     # 39,452,672,000
    assert k.bytes["DRAM"] == (11963 + 25956) * 32 * 301          # 365,235,808
    assert k.bytes["L2"] == (512276 + 25613) * 32 * 301
    trace = read_profile(real_file(NVPROF / "leimingyu__magus__matrixMul_trace.csv"))
    assert len(trace.kernels) == 304     # grep: 301 matrixMulCUDA rows + 2 HtoD + 1 DtoH
    htod = [x for x in trace.kernels if x.name == "[CUDA memcpy HtoD]"]
    # "400.000000" KB at 379.670001 MB/s over 1.028854 ms: binary, 409,600 B = 320 x 320 floats
    assert [x.bytes["PCIe"] for x in htod] == [409600, 819200]
    (mm,) = [x for x in merge_results([metrics, trace]).kernels if x.name == k.name]
    # awk: the 301 kernel durations sum to 23.031098 ms
    assert mm.count == 301 and mm.time_s == pytest.approx(23.031098e-3)
    assert mm.flops["fp32"] == 131072000 * 301


@needs_realdata
def test_real_thrust2d_throughput_only_metrics():
    r = read_profile(real_file(NVPROF / "sankarmanoj__thrust2D__native.profile"))
    assert [k.count for k in r.kernels] == [1, 1, 100]
    assert r.device.name == "GeForce GTX 1070"
    assert all(k.flops == {} and k.bytes == {} for k in r.kernels)
    text = advice_text(r)
    assert "nvprof --metrics flop_count_dp" in text and "dram_read_transactions" in text


def _ece408_block(start: str, end: str) -> str:
    """A block of the ECE408 report, cleaned the way a reader would clean a
    paste: markdown fences, <b> tags, tabs and blank lines removed."""
    text = real_file(SEEDS / "001_488295a771abb3d8.txt").read_text()
    block = text[text.index(start):text.index(end)]
    out = []
    for line in block.split("\n")[1:]:
        line = re.sub(r"</?b>", "", line).replace("\t", " ").rstrip()
        if not line.strip() or line.strip().startswith("```") or re.fullmatch(r"[-\s]+", line):
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def test_seed_ece408_pasted_report():
    r = nvprof.parse(_ece408_block("## Example NVPROF output", "## Milestone 2"), "ece408.txt")
    # 19 GPU rows: 16 kernels, HtoD, DtoH, memset (names wrapped over lines)
    assert len(r.kernels) == 19
    names = [k.name for k in r.kernels]
    assert "volta_cgemm_64x32_tn" in names
    assert any(n.startswith("void fft2d_r2c_32x32<float, bool=0, unsigned int=0") for n in names)
    gpu = sum(k.time_s for k in r.kernels)
    htod = r.kernels[0]
    assert htod.name == "[CUDA memcpy HtoD]" and htod.time_s / gpu == pytest.approx(0.3939, abs=0.002)
    api = r.program.api_s
    top3 = api["cudaStreamCreateWithFlags"] + api["cudaMemGetInfo"] + api["cudaFree"]
    # DESIGN: 97 % of API time in these three calls (42.32 + 33.58 + 21.37 %)
    assert top3 / r.program.api_total_s == pytest.approx(0.9727, abs=0.005)
    assert api["cudaStreamCreateWithFlags"] == pytest.approx(3.00705)


# --------------------------------------------------------------------------
# corrupted real files: nothing but RooflineError escapes
# --------------------------------------------------------------------------

def _nvprof_files() -> list[Path]:
    files = sorted(DATA.glob("nvprof_*"))
    if NVPROF.is_dir():
        files += sorted(NVPROF.iterdir())
    return files


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corrupted_nvprof_files_raise_only_roofline_errors(data):
    check_random_corruption(data, _nvprof_files())


def test_real_magus_instruction_roofline_counters():
    # (shared_store 128,000 + shared_load 3,072,000) x 301 calls = 963,200,000 wavefronts;
    # inst_executed 6,176,000 x 301 = 1,858,976,000 warp instructions (grep of the file)
    k = read_profile(real_file(NVPROF / "leimingyu__magus__matrixMul_metrics.csv")).kernels[0]
    assert k.transactions["shared"] == 963_200_000
    assert k.instructions == 1_858_976_000
