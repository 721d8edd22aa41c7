"""Kineto (PyTorch profiler) reader: real traces from ../shared/realdata/kineto_trace,
hand-written fixtures in tests/data/kineto_*, and corrupted traces.

Expected numbers in the realdata tests were checked independently of the
reader: ``json.load(gzip.open(f))["traceEvents"]`` filtered by ``cat`` and
summed with one-line comprehensions (quoted in the comments).
"""
from __future__ import annotations

import gzip
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, REALDATA
from corrupt import corrupt, fuzz_dir, needs_folder
from roofline.core.errors import InputError, RooflineError
from roofline.importers import kineto, read_profile

KINETO = REALDATA / "kineto_trace"
SIMPLE_ADD = KINETO / "facebookresearch__HolisticTraceAnalysis__benchmark_result_493459_1694039959_trace.json.gz"
RANGES = KINETO / "facebookresearch__HolisticTraceAnalysis__benchmark_result_924719_1679055439_trace.json.gz"
MI250 = KINETO / "facebookresearch__HolisticTraceAnalysis__mi250_minitoy_train_ROCm6_2_kineto.json.gz"
TRITON = KINETO / "facebookresearch__HolisticTraceAnalysis__triton_example.json.gz"

needs_realdata = needs_folder(KINETO)


def by_name(result):
    return {k.name: k for k in result.kernels}


# ---------------------------------------------------------------- realdata

@needs_realdata
def test_simple_add_a100_2023():
    r = read_profile(SIMPLE_ADD)
    assert r.format == "kineto"
    assert r.device.name == "NVIDIA A100-PG509-200"
    kernels = [k for k in r.kernels if k.family not in ("memcpy", "memset")]
    # [e for e in ev if e["cat"] == "kernel"]: 79 events, 16 distinct names, sum(dur) = 10728 us
    assert sum(k.count for k in kernels) == 79
    assert len(kernels) == 16
    assert sum(k.time_s for k in kernels) == pytest.approx(10728e-6)
    k = by_name(r)
    sgemm = k["ampere_sgemm_32x32_sliced1x4_tn"]
    # six launches, durations summing to 2673 us, grids (32, 4, 6) and (128, 4, 1)
    assert (sgemm.count, sgemm.family) == (6, "gemm")
    assert sgemm.time_s == pytest.approx(2673e-6)
    assert "grid" not in sgemm.launch and sgemm.launch["block"] == (128, 1, 1)
    # gpu_memcpy: 16 events, all "Memcpy HtoD (Pageable -> Device)", sum(args.bytes) = 244403360,
    # sum(dur) = 39080 us; gpu_memset: 3 events with bytes 20736, 512, 512 and 8 us in all
    h = k["Memcpy HtoD (Pageable -> Device)"]
    assert (h.count, dict(h.bytes), h.family) == (16, {"PCIe": 244_403_360.0}, "memcpy")
    assert h.time_s == pytest.approx(39080e-6)
    m = k["Memset (Device)"]
    assert (m.count, dict(m.bytes), m.family) == (3, {"DRAM": 21_760.0}, "memset")
    # cuda_runtime cudaLaunchKernel: 79 calls, sum(dur) = 4220610 us (one 4.2 s call: lazy init)
    assert r.program.api_s["cudaLaunchKernel"] == pytest.approx(4.22061)
    fams = {x.family for x in kernels}
    assert {"implicit_gemm", "fft", "gemm", "pooling", "elementwise"} <= fams
    assert k["cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1"].family == "implicit_gemm"
    assert k["ampere_gcgemm_64x64_nt"].family == "fft"
    assert 0 < r.program.gpu_busy_s <= 10728e-6 + 39080e-6 + 8e-6


@needs_realdata
def test_cupti_range_profiler_flops():
    r = read_profile(RANGES)
    # 77 cuda_profiler_range events under 16 names and no kernel events
    assert len(r.kernels) == 16
    assert sum(k.count for k in r.kernels) == 77
    assert all(math.isnan(k.time_s) for k in r.kernels)
    assert any("cuda_profiler_range" in w.message for w in r.warnings)
    sgemm = by_name(r)["ampere_sgemm_32x32_sliced1x4_tn"]
    # its six ranges have (ffma, fadd, fmul) = (4831838208, 1572864, 2097152),
    # (2147483648, 1572864, 2097152), (554303488, 2359296, 3145728), twice each:
    # 2 x (2 x 4831838208 + ... ) = 2 x 15080095744 = 30160191488 FLOP
    assert sgemm.count == 6
    assert sgemm.flops["fp32"] == 30_160_191_488.0
    assert sgemm.flops["fp64"] == 0.0
    # over all 77 ranges: sum(2 ffma + fadd + fmul) = 79679454712, sum(2 hfma + hadd + hmul) = 551583744
    assert sum(k.flops["fp32"] for k in r.kernels) == 79_679_454_712.0
    assert sum(k.flops["fp16"] for k in r.kernels) == 551_583_744.0
    # cuda_runtime durations: 8194022 us in all, 1556 cudaFuncSetAttribute calls
    assert r.program.api_total_s == pytest.approx(8.194022)
    assert r.program.gpu_busy_s is None          # no GPU activity events in this trace


@needs_realdata
def test_rocm_mi250_trace():
    r = read_profile(MI250)
    assert r.device.name == "AMD Radeon Graphics"
    kernels = [k for k in r.kernels if k.family != "memcpy"]
    # 14 kernel events, 12 names, sum(dur) = 110.881 us
    assert (sum(k.count for k in kernels), len(kernels)) == (14, 12)
    assert sum(k.time_s for k in kernels) == pytest.approx(110.881e-6)
    tensile = [k for k in kernels if k.name.startswith("Cijk_")]
    assert [k.family for k in tensile] == ["gemm", "gemm"]
    # the two gpu_memcpy events carry no bytes; their hipMemcpyWithStream calls (same
    # correlation ids 117 and 123) have args.size "2560" each
    (h,) = [k for k in r.kernels if k.family == "memcpy"]
    assert (h.name, h.count, dict(h.bytes)) == ("Memcpy HtoD (Host -> Device)", 2, {"PCIe": 5120.0})
    assert "hipMemcpyWithStream" in r.program.api_s


@needs_realdata
def test_triton_single_kernel_2024():
    r = read_profile(TRITON)
    (k,) = r.kernels
    assert (k.name, k.count, k.family) == ("triton_poi_fused_add_cos_sin_0", 1, "elementwise")
    assert k.time_s == pytest.approx(1.76e-6)
    assert r.program.gpu_busy_s == pytest.approx(1.76e-6, rel=1e-6)
    assert dict(k.launch)["grid"] == (1, 1, 1)
    assert r.program.api_s == pytest.approx({"cuLaunchKernel": 47.768e-6, "cudaDeviceSynchronize": 16.846e-6})


# ---------------------------------------------------------------- fixtures

def test_2021_schema_capitalised_categories():
    r = read_profile(DATA / "kineto_2021.json")
    k = by_name(r)
    conv = [x for x in r.kernels if x.name.startswith("void implicit_convolve_sgemm")][0]
    assert (conv.count, conv.time_s, conv.family) == (2, pytest.approx(100e-6), "implicit_gemm")
    assert dict(conv.launch) == {"grid": (13, 1, 1), "block": (1024, 1, 1), "registers_per_thread": 32,
                                 "shared_memory_bytes": 8192}
    assert k["volta_sgemm_128x64_nn"].time_s == pytest.approx(100e-6)
    h = k["Memcpy HtoD (Pageable -> Device)"]
    assert (h.count, dict(h.bytes)) == (1, {})        # no bytes anywhere: left unknown, with a warning
    assert h.why in ("no byte count recorded", "launched before the CPU window")
    assert any("without a byte count" in w.message for w in r.warnings)
    assert dict(k["Memset (Device)"].bytes) == {"DRAM": 4096.0}
    assert r.program.api_s == pytest.approx({"cudaLaunchKernel": 25e-6, "cudaMemcpyAsync": 20e-6,
                                             "cudaMemsetAsync": 5e-6})
    # union of [130,170] [150,250] [215,275] [305,315] [336,338] = 145 + 10 + 2 us
    assert r.program.gpu_busy_s == pytest.approx(157e-6)
    assert r.program.span_s == pytest.approx(228e-6)      # first runtime call 110 .. memset end 338


def test_profiler_ranges_attached_to_kernels(tmp_path):
    gz = tmp_path / "ranges.json.gz"
    gz.write_bytes(gzip.compress((DATA / "kineto_ranges.json").read_bytes()))
    r = read_profile(gz)
    k = by_name(r)
    sgemm = k["ampere_sgemm_64x32_sliced1x4_tn"]
    # ranges: fp32 2*1000+10+20 = 2030 (the sm__ copy of ffma is not added again) and
    # 2*2000 = 4000; fp64 0 and 2*5 = 10. Mean per call x 3 launches:
    assert sgemm.flops == pytest.approx({"fp32": 3015.0 * 3, "fp64": 5.0 * 3, "fp16": 0.0})
    assert (sgemm.count, sgemm.time_s) == (3, pytest.approx(60e-6))
    assert "grid" not in sgemm.launch and sgemm.launch["registers_per_thread"] == 90
    red = k["triton_red_fused_sum_0"]                 # a range without a kernel event
    assert math.isnan(red.time_s) and red.flops == {"fp32": 100.0} and red.family == "reduction"
    assert dict(k["Memcpy DtoD (Device -> Device)"].bytes) == {"DRAM": 2000.0}
    assert r.device.name == "NVIDIA A100-SXM4-40GB"
    subjects = {w.subject for w in r.warnings}
    assert {"kineto", "devices"} <= subjects


def test_bare_event_list():
    r = read_profile(DATA / "kineto_list.json")
    (k,) = r.kernels
    assert (k.count, k.time_s, k.family) == (2, pytest.approx(2000e-6), "conv_custom")
    assert r.program.gpu_busy_s == pytest.approx(2000e-6)


@pytest.mark.parametrize("doc, message", [
    ({"traceEvents": {}}, "traceEvents"),
    ({"traceEvents": [1]}, r"traceEvents\[0\]: Expected `object`, got `int`"),
    ({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "soon", "dur": 1}]}, r"traceEvents\[0\]\.ts: Expected `float \| null`, got `str`"),
    ({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": -1}]}, "bad time: ts 1.0, duration -1.0"),
    ({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1, "dur": 1}]}, "has no name"),
    ({"traceEvents": [{"ph": "X", "cat": "python_function", "name": "f", "ts": 1, "dur": 1}]}, "torch.profiler"),
    ({"traceEvents": [{"ph": "X", "cat": "cuda_profiler_range", "name": "k", "ts": 1, "dur": 1,
                       "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "many"}}]}, "counter"),
    ({"traceEvents": [{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "ts": 1, "dur": 1,
                       "args": {"bytes": -4}}]}, "bytes"),
])
def test_malformed_traces_name_the_problem(tmp_path, doc, message):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=message) as info:
        kineto.read(path)
    assert str(path) in str(info.value)


def test_invalid_json_names_the_line(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"traceEvents": [\n{"ph": "X",\n oops}]}')
    with pytest.raises(InputError) as info:
        kineto.read(path)
    assert info.value.line == 3


def test_flops_from_counters():
    args = {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum": 3,
            "sm__sass_thread_inst_executed_op_hfma_pred_on.sum": 3,
            "sm__sass_thread_inst_executed_op_dadd_pred_on.sum": 7, "other": "x"}
    assert kineto.flops_from_counters(args) == {"fp16": 6.0, "fp64": 7.0}


# ---------------------------------------------------------------- corrupted traces

FUZZ_DIR = fuzz_dir("kineto")
SOURCES = [p for p in (SIMPLE_ADD, RANGES, MI250, TRITON) if p.is_file()] + [
    DATA / "kineto_2021.json", DATA / "kineto_ranges.json", DATA / "kineto_list.json"]


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(source=st.sampled_from(SOURCES), how=st.sampled_from(["truncate", "drop", "flip", "duplicate"]),
       inside=st.booleans(), a=st.floats(0, 1), b=st.floats(0, 1), bits=st.integers(1, 32))
def test_corrupted_traces_raise_only_roofline_errors(source, how, inside, a, b, bits):
    raw = source.read_bytes()
    if inside and raw[:2] == b"\x1f\x8b":        # corrupt the JSON inside the gzip stream
        data = gzip.compress(corrupt(gzip.decompress(raw), how, a, b, bits))
    else:
        data = corrupt(raw, how, a, b, bits)
    bad = FUZZ_DIR / ("bad.json.gz" if data[:2] == b"\x1f\x8b" else "bad.json")
    bad.write_bytes(data)
    assert isinstance(kineto.sniff(bad, data[:65536]), bool)
    try:
        result = kineto.read(bad)
    except RooflineError:
        return
    for k in result.kernels:
        assert k.name and k.count >= 1
        assert math.isnan(k.time_s) or k.time_s >= 0
        assert all(v >= 0 for v in k.bytes.values())


JUNK = [None, "x", -1, 1e308, float("nan"), float("inf"), [], {}, [1, 2], {"a": 1}, True, 0, "", 2**70]
DECODED = [gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes() for p in SOURCES]


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(source=st.integers(0, len(DECODED) - 1),
       edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 100), st.sampled_from(JUNK)),
                      min_size=1, max_size=6))
def test_wrong_types_in_events_raise_only_roofline_errors(source, edits):
    doc = json.loads(DECODED[source])
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    for event_index, key_index, junk in edits:
        e = events[event_index % len(events)]
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        keys = [("", k) for k in e] + [("args", k) for k in args]
        where, key = keys[key_index % len(keys)]
        (e["args"] if where else e)[key] = junk
    bad = FUZZ_DIR / "typed.json"
    bad.write_text(json.dumps(doc))
    try:
        result = kineto.read(bad)
    except RooflineError:
        return
    for k in result.kernels:
        assert math.isnan(k.time_s) or (math.isfinite(k.time_s) and k.time_s >= 0)
        assert all(math.isfinite(v) and v >= 0 for v in k.bytes.values())
        assert all(math.isfinite(v) and v >= 0 for v in k.flops.values())
