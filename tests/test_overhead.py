"""Overhead analysis: overhead-bound kernels by kind and fixed costs, host
API share, GPU idle time, the time view; known answers on a toy device."""
import math

import numpy as np
import pytest

from roofline.core.import_result import ImportResult, ProgramTime
from roofline.core.model import Kernel, KernelSet
from roofline.analysis.overhead import analyze_overhead, kernel_overhead, program_overhead, time_view
from roofline.render.overhead import overhead_text
from roofline.core.placement import place

SIZES = (1e3, 1e4, 1e5, 1e6, 1e7)


def adds() -> list[Kernel]:
    # one elementwise kernel at five sizes: t = 3 us + bytes / 900 GB/s per call
    return [Kernel("add", time_s=100 * (3e-6 + b / 900e9), count=100, flops={"fp32": 100 * b / 8},
                   bytes={"DRAM": 100 * b}) for b in SIZES]


def kernels():
    return KernelSet.from_kernels(adds() + [
        # 10 ms for little work, one call: far below its roof, no evidence of a fixed cost
        Kernel("slow", time_s=10e-3, flops={"fp32": 1e9}, bytes={"DRAM": 1e8}),
        # at the compute roof: 1.57e11 FLOP at 15.7 TFLOP/s = 10 ms
        Kernel("sgemm", time_s=10e-3, flops={"fp32": 1.57e11}, bytes={"DRAM": 1e8}),
        # no counters (a timeline): no class
        Kernel("timeline_only", time_s=2e-3, count=200),
    ])


def _add_time(b):
    return 100 * (3e-6 + b / 900e9)


def test_fixed_cost_overhead_known_answers(toy_gpu):
    K = kernel_overhead(place(kernels(), toy_gpu))
    # the fixed cost is at least half of the calls of 1e3, 1e4, 1e5 and 1e6 bytes (3 of 4.1 us)
    overhead = sum(_add_time(b) for b in SIZES[:4])
    assert K.overhead_rows == 4 and K.overhead_calls == 400
    assert K.overhead_time_s == pytest.approx(overhead)
    assert K.by_kind == {"fixed cost": pytest.approx(overhead)}
    assert K.fitted_groups == 1 and K.typical_fixed_s == pytest.approx(3e-6, rel=1e-3)
    # every call of "add" pays 3 us, whatever its class
    assert K.fixed_cost_s == pytest.approx(500 * 3e-6, rel=1e-3)
    total = sum(_add_time(b) for b in SIZES) + 22e-3
    assert K.total_time_s == pytest.approx(total) and K.total_calls == 500 + 202
    assert K.overhead_share == pytest.approx(overhead / total)
    assert K.launch_cost_s == pytest.approx(702 * 5e-6)
    assert [k.name for k in K.top] == ["add"]
    assert K.top[0].calls == 400


def test_a_slow_kernel_is_not_overhead_for_being_slow(toy_gpu):
    p = place(kernels(), toy_gpu)
    slow = p.records()[5]
    assert slow["name"] == "slow" and slow["bound"] == "bandwidth" and slow["reason"] == "no evidence"


def test_no_fit_without_sizes(toy_gpu):
    ks = KernelSet.from_kernels([Kernel("tiny", time_s=8e-3, count=1000, flops={"fp32": 1e6}, bytes={"DRAM": 1e7})])
    a = analyze_overhead(place(ks, toy_gpu))
    assert a.kernels.overhead_rows == 0 and a.kernels.fitted_groups == 0
    assert a.kernels.typical_fixed_s is None
    assert "no operator or kernel appears at enough sizes" in overhead_text(a)


def test_program_shares():
    prog = ProgramTime(api_s={"cudaMalloc": 0.3, "cudaFree": 0.1}, gpu_busy_s=0.6, span_s=2.0)
    P = program_overhead([prog])
    assert P.api_total_s == pytest.approx(0.4)
    assert P.api_share == pytest.approx(0.4 / (0.4 + 0.6))
    assert P.idle_s == pytest.approx(1.4) and P.idle_share == pytest.approx(0.7)
    assert P.top_api(1) == [("cudaMalloc", 0.3)]
    assert not P.busy_estimated


def test_program_sums_and_estimates_busy_from_a_summary():
    summary = ImportResult("a.log", "nvprof-summary", (Kernel("k", time_s=0.2), Kernel("copy", time_s=0.05)),
                           program=ProgramTime(api_s={"cudaMalloc": 0.5}))
    trace = ImportResult("b.csv", "nvprof-trace", (), program=ProgramTime(
        api_s={"cudaMalloc": 0.1, "cudaLaunchKernel": 0.2}, gpu_busy_s=0.3, span_s=1.0))
    P = program_overhead([summary, trace])
    assert P.api_s == {"cudaMalloc": pytest.approx(0.6), "cudaLaunchKernel": pytest.approx(0.2)}
    assert P.gpu_busy_s == pytest.approx(0.25 + 0.3) and P.busy_estimated
    assert P.span_s == pytest.approx(1.0) and P.idle_s == pytest.approx(0.7)
    assert P.sources == ("a.log", "b.csv")


def test_no_program_information():
    assert program_overhead([]) is None
    assert program_overhead([ImportResult("k.csv", "kernels-csv", (Kernel("k", 1e-3),))]) is None


def test_advice_for_overhead_api_and_idle(toy_gpu):
    prog = ProgramTime(api_s={"cudaStreamCreateWithFlags": 3.0}, gpu_busy_s=1.0, span_s=5.0)
    # the adds alone: the fixed cost is 47 % of their time (advice from 10 %)
    a = analyze_overhead(place(KernelSet.from_kernels(adds()), toy_gpu), [prog])
    assert a.kernels.overhead_share == pytest.approx(sum(_add_time(b) for b in SIZES[:4])
                                                     / sum(_add_time(b) for b in SIZES))
    subjects = {w.subject for w in a.advice}
    assert subjects == {"overhead", "host API", "GPU idle"}
    assert "CUDA graph" in next(w.advice for w in a.advice if w.subject == "overhead")
    text = overhead_text(a)
    for needle in ("overhead-bound: 4 kernel(s), 400 calls", "fixed cost:", "typical 3 µs per call",
                   "API share 75.0%", "GPU idle 4 s (80.0%)", "cudaStreamCreateWithFlags", "advice:"):
        assert needle in text


def test_time_view_floors(toy_gpu):
    v = time_view(place(kernels(), toy_gpu))
    assert v.fixed_cost_s == pytest.approx(3e-6, rel=1e-3)
    assert v.peak_flop_s == 15.7e12
    assert v.work_per_call[0] == pytest.approx(125) and v.time_per_call_s[0] == pytest.approx(3e-6 + 1e3 / 900e9)
    assert math.isnan(v.work_per_call[7])  # no FLOP count
    np.testing.assert_allclose(v.floor_s([1e3, 1.57e11]), [3e-6, 1.57e11 / 15.7e12], rtol=1e-3)


def test_time_view_figure_draws_the_floor(toy_gpu):
    from roofline.render.overhead import time_view_figure
    fig = time_view_figure(time_view(place(kernels(), toy_gpu)))
    ax = fig.axes[0]
    horizontal = [float(line.get_ydata()[0]) for line in ax.lines if len(set(np.ravel(line.get_ydata()))) == 1]
    assert horizontal == [pytest.approx(3e-6, rel=1e-3)]
    assert any("add" in t.get_text() for t in ax.texts)


def test_real_nvprof_summary_api_time(realdata):
    from roofline.importers import read_profile
    r = read_profile(realdata / "nvprof" / "pssrawat__IEEE2017__jacobi-unroll.time")
    P = program_overhead([r])
    assert P is not None and P.api_total_s > 0
    assert P.busy_estimated and 0 < P.api_share < 1


def test_top_kernels_lists_only_the_listed_ones():
    import numpy as np
    from roofline.analysis.overhead import _top_by_name
    names = np.array(["a", "b", "c"], dtype=object)
    listed = np.array([True, False, False])
    groups = (np.array([0, 1, 2]), ["a", "b", "c"])
    top = _top_by_name(names, listed, np.array([1.0, 1.0, 1.0]), np.array([1e-6, 1.0, 2.0]), 8, groups)
    assert [k.name for k in top] == ["a"]


def test_short_compute_bound_kernels_get_no_overhead_advice(toy_gpu):
    # 100 calls of 15 us at the compute roof: short, but the roofline explains them
    k = Kernel("sgemm_small", time_s=1.5e-3, count=100, flops={"fp32": 0.94 * 15.7e12 * 1.5e-3},
               bytes={"DRAM": 1e6})
    advice = analyze_overhead(place(KernelSet.from_kernels([k]), toy_gpu)).advice
    assert not any(a.subject == "overhead" for a in advice)
