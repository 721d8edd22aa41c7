"""Placement and classification: hand-checked cases and properties."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.core.model import Ceiling, Device, Kernel, KernelSet, MemoryLevel
from roofline.core.placement import Rules, place


def one(device, kernel):
    return place(KernelSet.from_kernels([kernel]), device).records()[0]


def test_dram_stream_is_bandwidth_bound_at_dram(toy_gpu):
    # 1 GB through 900 GB/s takes 1.11 ms; measured 1.2 ms -> 93 % of the DRAM roof
    r = one(toy_gpu, Kernel("stream", time_s=1.2e-3, flops={"fp32": 0.25e9}, bytes={"DRAM": 1e9}))
    assert (r["bound"], r["level"]) == ("bandwidth", "DRAM")
    assert r["efficiency"] == pytest.approx((1e9 / 900e9) / 1.2e-3)


def test_large_gemm_is_compute_bound(toy_gpu):
    # 8192^3 SGEMM: 2*8192^3 FLOP = 1.1e12; at 15.7 TFLOP/s that is 70 ms
    flops = 2 * 8192**3
    r = one(toy_gpu, Kernel("sgemm", time_s=80e-3, flops={"fp32": flops}, bytes={"DRAM": 3 * 4 * 8192**2}))
    assert r["bound"] == "compute" and r["level"] is None
    assert r["attainable_flop_s"] == pytest.approx(15.7e12)
    assert r["achieved_flop_s"] == pytest.approx(flops / 80e-3)


def test_a_lone_short_kernel_is_not_overhead_without_evidence(toy_gpu):
    # 5 us for almost no work: far below the roof, but one size of one kernel
    # says nothing about what does not scale, so it keeps its roofline bound
    r = one(toy_gpu, Kernel("tiny", time_s=5e-6, flops={"fp32": 1e3}, bytes={"DRAM": 4e3}))
    assert (r["bound"], r["level"], r["reason"]) == ("bandwidth", "DRAM", "no evidence")
    assert r["overhead_kind"] is None and r["fixed_s"] is None


def test_a_kernel_at_several_sizes_shows_its_fixed_cost(toy_gpu):
    # one elementwise kernel at 6 sizes: t = 4 us + bytes / (0.9 x 900 GB/s)
    sizes = [1e3, 1e4, 1e5, 1e6, 1e7, 1e8]
    ks = [Kernel("add", time_s=4e-6 + b / 810e9, flops={"fp32": b / 8}, bytes={"DRAM": b}) for b in sizes]
    rows = place(KernelSet.from_kernels(ks), toy_gpu).records()
    assert [r["fixed_s"] for r in rows] == pytest.approx([4e-6] * 6, rel=1e-3)
    # the fixed cost is at least half of the small calls (1e6 B: 4 of 5.2 us): overhead
    assert [r["bound"] for r in rows] == ["overhead"] * 4 + ["bandwidth"] * 2
    assert {r["overhead_kind"] for r in rows[:4]} == {"fixed cost"}
    # 1e7 B: 12.3 us of scaling time and the 4 us fixed cost: 68 % of the roof,
    # and the fixed cost is most of the time lost
    assert rows[4]["efficiency"] == pytest.approx((1e7 / 900e9) / (4e-6 + 1e7 / 810e9))
    assert rows[4]["reason"] == "fixed cost"
    assert rows[5]["reason"] is None                 # 87 % of its roof: nothing to explain


def test_slow_kernel_with_a_large_roof_time_is_never_overhead(toy_gpu):
    # 334 us of L2 time per call, measured 0.5 s: far below its roof, but no
    # fixed cost comes near 334 us, so it is bandwidth-bound at low efficiency
    r = one(toy_gpu, Kernel("slow", time_s=0.5, flops={"fp32": 1e9}, bytes={"DRAM": 1e8, "L2": 1e9}))
    assert (r["bound"], r["level"], r["reason"]) == ("bandwidth", "L2", "no evidence")
    assert r["efficiency"] < 0.01


def test_zero_work_from_counters_is_overhead(toy_gpu):
    r = one(toy_gpu, Kernel("empty", time_s=3e-6, flops={"fp32": 0.0}))
    assert (r["bound"], r["overhead_kind"]) == ("overhead", "no work counted")


def test_host_copy_sits_on_the_pcie_roof(toy_gpu):
    r = one(toy_gpu, Kernel("[CUDA memcpy HtoD]", time_s=1e-3, bytes={"PCIe": 15e6}, family="memcpy"))
    assert (r["bound"], r["level"]) == ("bandwidth", "PCIe")


def test_kernel_without_counters_is_unknown_with_a_warning(toy_gpu):
    p = place(KernelSet.from_kernels([Kernel("x", time_s=1e-3)]), toy_gpu)
    assert p.records()[0]["bound"] == "unknown"
    assert any("neither FLOP nor byte" in w.message for w in p.warnings)


def test_bytes_without_flops_warn_with_ncu_metrics(toy_gpu):
    p = place(KernelSet.from_kernels([Kernel("x", time_s=1e-3, bytes={"DRAM": 1e6})]), toy_gpu)
    assert any("ncu --metrics" in w.advice for w in p.warnings)


def test_point_above_roof_is_reported(toy_gpu):
    p = place(KernelSet.from_kernels([Kernel("fast", time_s=1e-3, bytes={"DRAM": 2e9})]), toy_gpu)
    assert any("above" in w.message or "its roof" in w.message for w in p.warnings)


def test_mixed_precision_time_adds_per_unit(toy_gpu):
    r = one(toy_gpu, Kernel("mix", time_s=1.0, flops={"fp64": 7.8e12, "fp32": 15.7e12}))
    assert r["roofline_time_s"] == pytest.approx(2.0)


def test_missing_precision_falls_back_to_a_slower_unit(toy_gpu):
    assert toy_gpu.compute_rate("bf16") == toy_gpu.compute_rate("fp32")
    assert toy_gpu.compute_rate("tensor_fp16") == 125e12


def test_hierarchical_intensity_per_level(toy_gpu):
    p = place(KernelSet.from_kernels([Kernel("k", time_s=1e-3, flops={"fp32": 1e9},
                                             bytes={"L1": 1e9, "L2": 1e8, "DRAM": 1e7})]), toy_gpu)
    assert {lv: v[0] for lv, v in p.intensity.items()} == pytest.approx({"L1": 1, "L2": 10, "DRAM": 100})
    assert p.cache_aware_intensity[0] == pytest.approx(1.0)


def test_rules_are_parameters(toy_gpu):
    # 50 % of its roof: below the default 80 % it needs a reason, below 40 % not
    k = Kernel("k", time_s=2e-3, bytes={"DRAM": 0.9e9}, flops={"fp32": 1.0})
    assert one(toy_gpu, k)["reason"] == "no evidence"
    loose = place(KernelSet.from_kernels([k]), toy_gpu, Rules(near_roof=0.4)).records()[0]
    assert loose["reason"] is None and loose["bound"] == "bandwidth"
    # the same fixed-cost rows with a 1 ms "substantial" roof time: all overhead
    sizes = [1e3, 1e5, 1e7, 1e8]
    ks = KernelSet.from_kernels([Kernel("add", time_s=4e-6 + b / 720e9, bytes={"DRAM": b}, flops={"fp32": 1.0})
                                 for b in sizes])
    assert [r["bound"] for r in place(ks, toy_gpu).records()] == ["overhead"] * 2 + ["bandwidth"] * 2
    # roofline time per call 1.1 ns, 111 ns, ...: from 100 ns on never overhead
    strict = place(ks, toy_gpu, Rules(substantial_s=1e-7)).records()
    assert [r["bound"] for r in strict] == ["overhead", "bandwidth", "bandwidth", "bandwidth"]


# ------------------------------------------------------------- properties

def simple_device(peak, bw):
    return Device("d", "gpu", {"fp32": Ceiling(peak)}, {"DRAM": MemoryLevel("DRAM", Ceiling(bw))},
                  launch_overhead_s=5e-6)


rates = st.floats(1e6, 1e15, allow_nan=False, allow_infinity=False)
amounts = st.floats(1.0, 1e14, allow_nan=False, allow_infinity=False)


@given(rates, rates, st.lists(st.floats(1e-4, 1e5), min_size=2, max_size=20))
def test_roof_never_decreases_with_intensity(peak, bw, xs):
    d = simple_device(peak, bw)
    xs = np.sort(np.asarray(xs))
    roof = d.attainable(xs, "DRAM")
    assert np.all(np.diff(roof) >= -1e-9 * roof[:-1])
    assert np.all(roof <= peak * (1 + 1e-12))


@given(rates, rates, st.floats(0.01, 100))
def test_bound_flips_at_the_ridge(peak, bw, factor):
    d = simple_device(peak, bw)
    ridge = d.ridge_point("DRAM")
    nbytes = 1e9
    work = ridge * factor * nbytes
    roof_time = max(work / peak, nbytes / bw)
    r = one(d, Kernel("k", time_s=roof_time, flops={"fp32": work}, bytes={"DRAM": nbytes}))
    if factor > 1.0001:
        assert r["bound"] == "compute"
    elif factor < 0.9999:
        assert r["bound"] == "bandwidth"


@settings(max_examples=50)
@given(amounts, amounts, st.floats(1e-6, 10), st.floats(1e-3, 1e3))
def test_scaling_work_bytes_and_time_together_changes_nothing(flops, nbytes, t, scale):
    d = simple_device(15.7e12, 900e9)
    a = one(d, Kernel("k", time_s=t, flops={"fp32": flops}, bytes={"DRAM": nbytes}))
    b = one(d, Kernel("k", time_s=t * scale, flops={"fp32": flops * scale}, bytes={"DRAM": nbytes * scale}))
    assert a["bound"] == b["bound"] or a["overhead_kind"] != b["overhead_kind"]
    assert b["efficiency"] == pytest.approx(a["efficiency"], rel=1e-9)
    assert b["intensity"]["DRAM"] == pytest.approx(a["intensity"]["DRAM"], rel=1e-9)


@settings(max_examples=30)
@given(st.lists(st.tuples(amounts, amounts, st.floats(1e-6, 1.0)), min_size=1, max_size=30))
def test_vectorised_equals_one_at_a_time(rows):
    d = simple_device(15.7e12, 900e9)
    ks = [Kernel(f"k{i}", time_s=t, flops={"fp32": f}, bytes={"DRAM": b}) for i, (f, b, t) in enumerate(rows)]
    together = place(KernelSet.from_kernels(ks), d).records()
    for k, r in zip(ks, together):
        alone = one(d, k)
        # the roofline is per row; overhead evidence is not (a floor, a fit
        # across sizes come from the other rows of the profile)
        assert alone["limiter"] == r["limiter"]
        assert alone["efficiency"] == pytest.approx(r["efficiency"])
        if "overhead" not in (alone["bound"], r["bound"]):
            assert (alone["bound"], alone["level"]) == (r["bound"], r["level"])


def test_kernelset_round_trips_kernels():
    ks = [Kernel("a", time_s=1.0, count=3, flops={"fp64": 2.0}, bytes={"L2": 5.0}, family="gemm"),
          Kernel("b", time_s=math.nan, bytes={"DRAM": 1.0})]
    assert KernelSet.from_kernels(ks).kernels()[0] == ks[0]
    assert KernelSet.from_kernels(ks).kernels()[1].bytes == {"DRAM": 1.0}


def test_kernelset_keeps_instructions_and_transactions():
    k = Kernel("a", time_s=1.0, instructions=10.0, transactions={"L2": 4.0, "DRAM": 2.0})
    back = KernelSet.from_kernels([k, Kernel("b")]).kernels()
    assert back[0].instructions == 10.0 and back[0].transactions == {"L2": 4.0, "DRAM": 2.0}
    assert back[1].transactions == {} and back[1].instructions is None


def test_missing_precision_never_raises_the_roof_and_is_reported():
    d = Device("fp32 only", "gpu", {"fp32": Ceiling(10e12), "fp16": Ceiling(20e12)},
               {"DRAM": MemoryLevel("DRAM", Ceiling(1e12))})
    assert d.compute_key("fp64") == "fp32"  # the slowest vector unit, not fp16
    p = place(KernelSet.from_kernels([Kernel("dgemm", time_s=1.0, flops={"fp64": 1e12})]), d)
    assert any("no fp64 ceiling" in w.message for w in p.warnings)


def test_zero_time_is_reported(toy_gpu):
    p = place(KernelSet.from_kernels([Kernel("k", time_s=0.0, bytes={"DRAM": 1e6}, flops={"fp32": 1})]), toy_gpu)
    assert p.records()[0]["efficiency"] is None
    assert any("time of 0" in w.message for w in p.warnings)
