"""The one group summary (roofline.analysis.groups) and its bound label:
the columns on built kernels, the tie rule, a group with no time, and the
report, diff, rank table and step split giving one group the same answer."""
from __future__ import annotations

import math

import numpy as np
import pytest

from roofline.analysis.diff import diff_placements
from roofline.analysis.groups import bound_labels, one_group, summarize
from roofline.analysis.ranks import family_rank_table
from roofline.analysis.steps import OUTSIDE, step_split
from roofline.core.model import Kernel, KernelSet
from roofline.core.placement import place

# toy GPU: fp32 15.7 TFLOP/s, DRAM 900 GB/s (tests/data/toy_gpu.yaml)
P = 15.7e12
B = 900e9


def _kernels():
    """Family ``mix``: one bandwidth-bound kernel with the most time (4 ms)
    and two compute-bound ones with more time together (3 + 3 ms); family
    ``blind``: a kernel without counters (unknown) and one without time."""
    return [
        Kernel("copyish", time_s=4e-3, bytes={"DRAM": 0.9 * B * 4e-3}, family="mix"),   # 90 % of DRAM roof
        Kernel("mm1", time_s=3e-3, count=2, flops={"fp32": 0.5 * P * 3e-3}, family="mix"),
        Kernel("mm2", time_s=3e-3, count=3, flops={"fp32": 0.5 * P * 3e-3}, family="mix"),
        Kernel("opaque", time_s=1e-3, family="blind"),
        Kernel("untimed", time_s=None, flops={"fp32": 1e9}, family="blind"),
    ]


@pytest.fixture
def placed(toy_gpu):
    return place(KernelSet.from_kernels(_kernels()), toy_gpu)


def _by_family(p):
    codes = np.array([0, 0, 0, 1, 1])
    return summarize(p, codes, 2)


def test_columns_of_a_family(placed):
    s = _by_family(placed)
    assert list(s.rows) == [3, 2] and list(s.calls) == [6, 2]
    assert s.time_s[0] == pytest.approx(10e-3) and s.time_s[1] == pytest.approx(1e-3)
    assert s.share[0] == pytest.approx(10 / 11) and s.share[1] == pytest.approx(1 / 11)
    assert list(s.timed) == [True, True]
    # FLOP/s over the members that do FLOPs (6 ms of the 10), not all the time
    assert s.flop_s[0] == pytest.approx(0.5 * P)
    assert s.bytes_s["DRAM"][0] == pytest.approx(0.9 * B)
    assert math.isnan(s.flop_s[1])              # the opaque kernel has no work; the other no time
    # % of roof: (3.6 + 1.5 + 1.5) ms of roofline time over 10 ms
    assert s.efficiency[0] == pytest.approx((0.9 * 4 + 0.5 * 3 + 0.5 * 3) / 10)
    assert math.isnan(s.efficiency[1])
    compute = list(s.labels).index("compute")
    assert s.label_time_s[0, compute] == pytest.approx(6e-3)
    assert s.label_time_s[0, list(s.labels).index("bandwidth (DRAM)")] == pytest.approx(4e-3)
    assert s.class_time_s[0].sum() == pytest.approx(10e-3) and s.class_rows[1].sum() == 2


def test_bound_is_the_class_with_the_most_time_not_the_largest_member(placed):
    s = _by_family(placed)
    assert s.bound[0] == "compute" and s.bound_share[0] == pytest.approx(0.6)
    assert s.bound[1] == "unknown" and s.bound_share[1] == pytest.approx(1.0)


def test_a_tie_goes_to_the_first_label_and_no_time_is_unknown(toy_gpu):
    p = place(KernelSet.from_kernels([
        Kernel("bw", time_s=2e-3, bytes={"DRAM": 0.5 * B * 2e-3}),
        Kernel("mm", time_s=2e-3, flops={"fp32": 0.5 * P * 2e-3}),
        Kernel("late", time_s=None, flops={"fp32": 1e9}),
        Kernel("zero", time_s=0.0, flops={"fp32": 1e9})]), toy_gpu)
    codes, labels = bound_labels(p)
    assert labels == ("compute", "bandwidth", *(f"bandwidth ({lv})" for lv in p.limiter_names[1:]),
                      "overhead", "unknown")
    assert labels[codes[0]] == "bandwidth (DRAM)" and labels[codes[1]] == "compute"
    s = summarize(p, np.array([0, 0, 1, 1]), 3)
    assert s.bound[0] == "compute"                        # 2 ms each: compute comes first
    assert s.bound[1] == "unknown" and s.bound_share[1] == 0.0 and s.timed[1]   # a time of 0 is a time
    assert s.bound[2] == "unknown" and s.rows[2] == 0     # a group with no rows at all


def test_one_group_is_the_whole_profile(placed):
    s = one_group(placed)
    assert len(s) == 1 and s.rows[0] == 5 and s.share[0] == pytest.approx(1.0)
    assert s.label_time_s[0].sum() == pytest.approx(11e-3)


def test_rows_may_repeat_and_carry_their_own_time(placed):
    """The step split's use: a kernel row split between two phases."""
    s = summarize(placed, np.array([0, 1]), 2, rows=np.array([1, 1]), time_s=np.array([1e-3, 2e-3]))
    assert list(s.rows) == [1, 1] and s.time_s == pytest.approx([1e-3, 2e-3])
    assert list(s.bound) == ["compute", "compute"]


def _agree(p):
    """{family: (report, diff, ranks)} bound labels of one placement."""
    from roofline.render.report_rows import family_rows

    class _R:    # what family_rows reads of a report
        placements = p
        grouped = p
        row_group = np.arange(len(p))

    report = {f.family: f.bound for f in family_rows(_R)}
    diff = {c.key: c.bound_a for c in diff_placements(p, p, by="family").rows}
    ranks = {c.family: c.bound for c in family_rank_table(p, np.zeros(len(p), dtype=np.int64))}
    return {f: (report[f], diff[f], ranks[f]) for f in report}


def test_report_diff_and_ranks_agree_on_built_kernels(placed):
    got = _agree(placed)
    assert got == {"mix": ("compute",) * 3, "blind": ("unknown",) * 3}


def test_report_diff_and_ranks_agree_on_a_real_trace(realdata):
    """The HTA range-profiler trace: FLOP counters without times. Its families
    were compute (report), unknown (diff) and "" (ranks) before one summary."""
    from roofline.cli.common import load_inputs
    from roofline.devices.profile import find_device
    path = realdata / "kineto_trace" / "facebookresearch__HolisticTraceAnalysis__benchmark_result_924719_1679055439_trace.json.gz"
    if not path.exists():
        pytest.skip(f"{path.name} is not present")
    kernels, _ = load_inputs([str(path)])
    p = place(kernels, find_device("a100-40gb-sxm"))
    got = _agree(p)
    assert {"elementwise", "pooling", "fft"} <= set(got)
    assert all(labels == ("unknown",) * 3 for labels in got.values()), got


def test_step_split_counts_time_per_class_from_the_summary(placed):
    class _Table:
        row = np.array([0, 1, 2, -1])
        step = np.array([1, 1, 1, 1])
        phase = np.array([0, 0, 1, 1])      # forward, backward
        time_s = np.array([4e-3, 3e-3, 3e-3, 1e-3])
        basis = ("built",)

    split = step_split(placed, [(0, _Table)])
    forward, backward = split.overall
    assert forward.phase == "forward" and forward.by_bound == pytest.approx({"bandwidth": 4e-3, "compute": 3e-3})
    assert backward.by_bound == pytest.approx({"compute": 3e-3, OUTSIDE: 1e-3})
    assert split.outside_s == pytest.approx(1e-3) and forward.share == pytest.approx(7 / 11)


def test_distinct_values_per_group():
    from roofline.analysis.groups import distinct
    assert list(distinct(np.array([0, 0, 1, 0, 2]), np.array([5, 5, 5, 7, 1]), 4)) == [2, 1, 1, 0]
    assert list(distinct(np.array([], dtype=np.int64), np.array([], dtype=np.int64), 2)) == [0, 0]


def test_time_lost_by_reason(placed):
    from roofline.analysis.groups import lost_by_reason
    from roofline.core.reasons import REASONS
    lost, rows = lost_by_reason(placed)
    assert len(lost) == len(REASONS) == len(rows)
    # copyish loses 10 % of 4 ms, mm1 and mm2 half of 3 ms each; the rest have no roof or no time
    assert lost.sum() == pytest.approx(0.4e-3 + 1.5e-3 + 1.5e-3) and rows.sum() == 3
    assert lost[placed.reason_code[1]] >= 3e-3 - 1e-12
