"""Overhead analysis: launch-bound kernels, host API share, GPU idle time,
the time view; known answers on a toy device (launch overhead 5 us)."""
import math

import numpy as np
import pytest

from roofline.importers.base import ImportResult, ProgramTime
from roofline.core.model import Kernel, KernelSet
from roofline.analysis.overhead import analyze_overhead, launch_overhead, program_overhead, time_view
from roofline.render.overhead import overhead_text
from roofline.core.placement import Rules, place


def kernels():
    return KernelSet.from_kernels([
        # 1000 calls of 8 us with almost no work: launch-bound (<= 4 x 5 us per call)
        Kernel("tiny_add", time_s=8e-3, count=1000, flops={"fp32": 1e6}, bytes={"DRAM": 1e7}),
        # 10 ms for little work, one call: latency-bound
        Kernel("slow", time_s=10e-3, flops={"fp32": 1e9}, bytes={"DRAM": 1e8}),
        # at the compute roof: 1.57e11 FLOP at 15.7 TFLOP/s = 10 ms
        Kernel("sgemm", time_s=10e-3, flops={"fp32": 1.57e11}, bytes={"DRAM": 1e8}),
        # no counters (a timeline): short calls, but no class
        Kernel("timeline_only", time_s=2e-3, count=200),
    ])


def test_launch_bound_known_answers(toy_gpu):
    L = launch_overhead(place(kernels(), toy_gpu))
    assert L.launch_overhead_s == 5e-6 and L.threshold_s == pytest.approx(20e-6)
    assert (L.launch_bound_rows, L.launch_bound_calls) == (1, 1000)
    assert L.launch_bound_time_s == pytest.approx(8e-3)
    assert L.total_time_s == pytest.approx(30e-3) and L.total_calls == 1202
    assert L.launch_bound_share == pytest.approx(8 / 30)
    assert L.latency_bound_time_s == pytest.approx(10e-3)
    # short calls count the kernel without counters too (10 us per call)
    assert L.short_calls == 1200 and L.short_time_s == pytest.approx(10e-3)
    assert L.launch_cost_s == pytest.approx(1202 * 5e-6)
    assert [k.name for k in L.top] == ["tiny_add", "timeline_only"]
    assert L.top[0].per_call_s == pytest.approx(8e-6)


def test_launch_multiple_is_a_rule(toy_gpu):
    L = launch_overhead(place(kernels(), toy_gpu, Rules(launch_multiple=1.0)), Rules(launch_multiple=1.0))
    assert L.launch_bound_rows == 0 and L.short_calls == 0  # 8 us > 1 x 5 us


def test_no_launch_overhead_in_profile(toy_gpu):
    from dataclasses import replace
    device = replace(toy_gpu, launch_overhead_s=None)
    a = analyze_overhead(place(kernels(), device))
    assert a.launch.threshold_s is None and a.launch.launch_cost_s is None
    assert "no launch overhead" in overhead_text(a)


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


def test_advice_for_launch_api_and_idle(toy_gpu):
    prog = ProgramTime(api_s={"cudaStreamCreateWithFlags": 3.0}, gpu_busy_s=1.0, span_s=5.0)
    a = analyze_overhead(place(kernels(), toy_gpu), [prog])
    subjects = {w.subject for w in a.advice}
    assert subjects == {"launch overhead", "host API", "GPU idle"}
    text = overhead_text(a)
    for needle in ("launch-bound: 1 kernel(s), 1,000 calls", "API share 75.0%", "GPU idle 4 s (80.0%)",
                   "cudaStreamCreateWithFlags", "advice:"):
        assert needle in text


def test_time_view_floors(toy_gpu):
    v = time_view(place(kernels(), toy_gpu))
    assert v.launch_overhead_s == 5e-6 and v.threshold_s == pytest.approx(20e-6)
    assert v.peak_flop_s == 15.7e12
    assert v.work_per_call[0] == pytest.approx(1e3) and v.time_per_call_s[0] == pytest.approx(8e-6)
    assert math.isnan(v.work_per_call[3])  # no FLOP count
    np.testing.assert_allclose(v.floor_s([1e3, 1.57e11]), [5e-6, 1.57e11 / 15.7e12])


def test_time_view_figure_draws_the_floor(toy_gpu):
    from roofline.render.overhead import time_view_figure
    fig = time_view_figure(time_view(place(kernels(), toy_gpu)))
    ax = fig.axes[0]
    horizontal = {round(float(line.get_ydata()[0]), 9) for line in ax.lines
                  if len(set(np.ravel(line.get_ydata()))) == 1}
    assert {5e-6, 20e-6} <= horizontal
    assert any("tiny_add" in t.get_text() for t in ax.texts)


def test_real_nvprof_summary_api_time(realdata):
    from roofline.importers import read_profile
    r = read_profile(realdata / "nvprof" / "pssrawat__IEEE2017__jacobi-unroll.time")
    P = program_overhead([r])
    assert P is not None and P.api_total_s > 0
    assert P.busy_estimated and 0 < P.api_share < 1


def test_top_short_kernels_lists_only_kernels_that_are_short():
    import numpy as np
    from roofline.analysis.overhead import _top_by_name
    names = np.array(["a", "b", "c"], dtype=object)
    listed = np.array([True, False, False])
    groups = (np.array([0, 1, 2]), ["a", "b", "c"])
    top = _top_by_name(names, listed, np.array([1.0, 1.0, 1.0]), np.array([1e-6, 1.0, 2.0]), 8, groups)
    assert [k.name for k in top] == ["a"]


def test_short_compute_bound_kernels_get_no_launch_advice(toy_gpu):
    # 100 calls of 15 us at the compute roof: short, but the roofline explains them
    k = Kernel("sgemm_small", time_s=1.5e-3, count=100, flops={"fp32": 0.94 * 15.7e12 * 1.5e-3},
               bytes={"DRAM": 1e6})
    advice = analyze_overhead(place(KernelSet.from_kernels([k]), toy_gpu)).advice
    assert not any("launch" in a.subject for a in advice)
