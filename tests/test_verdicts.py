"""The verdict of a placement: overhead only on evidence, a reason for every
kernel below its roof, and the profile's trustworthiness said once. Known
answers on made-up devices (never this machine's figures)."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.core.evidence import FIT, FLOOR, FLOOR_ROWS, _fit, carried, fixed_costs, group_keys
from roofline.core.model import Ceiling, Device, Kernel, KernelSet, MemoryLevel
from roofline.core.placement import Rules, place


def gpu(sms: int | None = 80) -> Device:
    return Device("toy-gpu", "gpu", {"fp32": Ceiling(10e12), "tensor_tf32": Ceiling(80e12)},
                  {"L2": MemoryLevel("L2", Ceiling(4e12), 32, 6e6), "DRAM": MemoryLevel("DRAM", Ceiling(1e12))},
                  launch_overhead_s=5e-6, architecture={"sms": sms} if sms else {})


def cpu(threads: int = 4, **provenance) -> Device:
    memory = {"L1": MemoryLevel("L1", Ceiling(800e9), 64, 48e3), "L2": MemoryLevel("L2", Ceiling(400e9), 64, 1e6),
              "L3": MemoryLevel("L3", Ceiling(200e9), 64, 32e6), "DRAM": MemoryLevel("DRAM", Ceiling(40e9))}
    return Device("toy-cpu", "cpu", {"fp32": Ceiling(400e9)}, memory, launch_overhead_s=60e-9,
                  architecture={"threads": threads, "cpu_model": "Made-up CPU 9000"},
                  provenance={"method": "measured", **provenance})


def records(device, kernels, rules=Rules()):
    return place(KernelSet.from_kernels(kernels), device, rules).records()


# ------------------------------------------------------------- the fixed-cost fit

def test_fit_recovers_the_fixed_cost_and_refuses_what_cannot_tell_it():
    r = np.array([1e-8, 1e-7, 1e-6, 1e-5, 1e-4])
    assert _fit(r, 5e-6 + r / 0.5) == pytest.approx(5e-6)
    assert _fit(r[:2], 5e-6 + r[:2]) is None                    # two sizes
    assert _fit(np.array([1e-6, 2e-6, 4e-6]), np.array([1e-5, 2e-5, 4e-5])) is None  # span 4x < 10x
    rng = np.random.default_rng(1)
    assert _fit(r, (5e-6 + r) * np.exp(rng.normal(0, 1.5, len(r)))) is None        # no shape, only noise
    assert _fit(r, r / 0.3) == pytest.approx(0.0, abs=1e-12)    # no fixed cost: it all scales


def test_fixed_costs_group_by_operator_on_cpu_rows_and_by_name_otherwise():
    names = np.array(["aten::add_(8x8)", "aten::add_(64x64)", "k", "k"], dtype=object)
    ops = np.array(["aten::add_", "aten::add_", "aten::foo", ""], dtype=object)
    assert group_keys(names, ops).tolist() == ["aten::add_", "aten::add_", "k", "k"]


def test_the_floor_is_the_typical_fit_or_the_shortest_of_enough_calls():
    r = np.array([1e-9, 1e-8, 1e-7, 1e-6])
    keys = np.array(["a"] * 4 + ["b"], dtype=object)
    t = np.append(3e-6 + r, 5e-6)
    fc = fixed_costs(keys, t, np.append(r, 1e-9))
    assert fc.groups_fitted == 1 and fc.floor_s == pytest.approx(3e-6)
    # "b" has no fit of its own: within 2x of the floor with almost no work, it pays the floor
    assert fc.basis.tolist() == [FIT] * 4 + [FLOOR] and fc.fixed_s[4] == pytest.approx(3e-6)
    # no fit: the shortest call, from FLOOR_ROWS timed rows on, and under the cap only
    one_each = np.array([f"k{i}" for i in range(FLOOR_ROWS)], dtype=object)
    times = np.linspace(2e-6, 20e-6, FLOOR_ROWS)
    assert fixed_costs(one_each, times, times / 100).floor_s == pytest.approx(2e-6)
    assert math.isnan(fixed_costs(one_each[:-1], times[:-1], times[:-1] / 100).floor_s)
    assert math.isnan(fixed_costs(one_each, times, times / 100, floor_cap_s=1e-6).floor_s)


def test_groups_carry_the_fixed_costs_of_their_rows():
    fc = carried(np.array([2e-6, 4e-6, np.nan]), np.array([1.0, 3.0, 5.0]), np.array([0, 0, 1]), 2)
    assert fc.fixed_s[0] == pytest.approx((2e-6 + 3 * 4e-6) / 4) and math.isnan(fc.fixed_s[1])


# ------------------------------------------------------------- overhead and reasons

@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(1e3, 1e12), st.floats(1e-7, 10.0), st.integers(1, 1000)),
                min_size=1, max_size=25))
def test_a_kernel_with_100_us_of_roof_time_per_call_is_never_overhead(rows):
    ks = [Kernel("k", time_s=t, count=n, flops={"fp32": 1.0}, bytes={"DRAM": b}) for b, t, n in rows]
    for r in records(gpu(), ks):
        if r["roofline_time_s"] / r["count"] >= 100e-6:
            assert r["bound"] != "overhead"


def test_a_launch_with_fewer_blocks_than_sms_has_the_roof_of_the_sms_it_fills():
    k = Kernel("gemm_small", time_s=50e-6, flops={"fp32": 1e8}, bytes={"DRAM": 2e6}, launch={"grid": (40, 1, 1)})
    r = records(gpu(sms=80), [k])[0]
    # its time scales with its work: not overhead, but half the device's compute roof, and said why
    assert (r["bound"], r["reason"]) == ("compute", "under-fills the device")
    # a full grid, or a device whose SM count is not known: the device's roof, no such evidence
    full = records(gpu(sms=80), [replace(k, launch={"grid": (160, 1, 1)})])[0]
    unknown = records(gpu(sms=None), [k])[0]
    assert full["bound"] == unknown["bound"] == "compute" and full["reason"] == "no evidence"
    assert r["roofline_time_s"] == pytest.approx(2 * full["roofline_time_s"])
    assert r["efficiency"] == pytest.approx(2 * full["efficiency"])


def test_a_few_blocks_keep_the_memory_roof():
    """A few SMs pull more than their share of DRAM: an under-filled
    memory-bound launch keeps the device's memory roof (and says why it is
    below it)."""
    k = Kernel("copy_small", time_s=20e-6, flops={"fp32": 1e3}, bytes={"DRAM": 2e6}, launch={"grid": (8, 1, 1)})
    r = records(gpu(sms=80), [k])[0]
    full = records(gpu(sms=80), [replace(k, launch={"grid": (160, 1, 1)})])[0]
    assert r["roofline_time_s"] == pytest.approx(full["roofline_time_s"]) == pytest.approx(2e-6)
    assert (r["bound"], r["reason"]) == ("bandwidth", "under-fills the device")


def test_a_lone_short_kernel_at_the_device_floor_is_overhead():
    """A 5 us kernel moving 4 KB, alone in its profile (no floor of its own):
    the device's kernel floor observed on real traces is the evidence."""
    k = Kernel("tiny_kernel", time_s=5e-6, flops={"fp32": 1e3}, bytes={"DRAM": 4096.0})
    plain = gpu()
    floored = replace(plain, architecture={**plain.architecture, "kernel_floor_s": 2.5e-6})
    assert records(plain, [k])[0]["bound"] == "bandwidth"
    assert records(floored, [k])[0]["bound"] == "overhead"


def test_a_cpu_operator_on_fewer_threads_than_the_roof_says_so():
    k = Kernel("aten::mm(64x64, 64x64)", time_s=1e-3, flops={"fp32": 1e8}, bytes={"DRAM": 5e4}, threads=2,
               modelled=True, operator="aten::mm", family="gemm")
    assert records(cpu(threads=4), [k])[0]["reason"] == "fewer threads than the roof"
    assert records(cpu(threads=2), [k])[0]["reason"] == "no evidence"


def test_fp32_matrix_work_without_a_unit_in_the_name_is_an_assumption():
    def gemm(name):
        return Kernel(name, time_s=1e-3, flops={"fp32": 1e9}, bytes={"DRAM": 1e6}, modelled=True,
                      family="gemm", operator="aten::mm")
    plain, named = records(gpu(), [gemm("gemm_kernel"), gemm("ampere_sgemm_128x64_nn")])
    assert plain["reason"] == "precision assumed"       # FFMA or TF32? the name does not say
    assert named["reason"] == "no evidence"             # sgemm: the FFMA units, as placed
    # a GPU without TF32 tensor cores (a V100) runs fp32 matrix work on FFMA: nothing assumed
    volta = replace(gpu(), compute={"fp32": Ceiling(10e12), "tensor_fp16": Ceiling(80e12)})
    assert records(volta, [gemm("gemm_kernel")])[0]["reason"] == "no evidence"


def test_modelled_kernels_far_below_their_bandwidth_roof_likely_move_more():
    k = Kernel("aten::add_(1x1e8)", time_s=10e-3, flops={"fp32": 1e8}, bytes={"DRAM": 1.2e9}, modelled=True,
               operator="aten::add_", family="elementwise")
    r = records(gpu(), [k])[0]
    assert (r["bound"], r["reason"]) == ("bandwidth", "traffic above compulsory")


def test_framework_operators_without_work_of_their_own_are_dispatch():
    k = Kernel("aten::linear", time_s=3e-6, flops={"fp32": 0.0}, modelled=True, operator="aten::linear",
               family="overhead")
    assert records(cpu(), [k])[0]["overhead_kind"] == "dispatch"


def test_every_kernel_below_its_roof_has_a_reason():
    rng = np.random.default_rng(3)
    ks = [Kernel(f"k{i % 7}", time_s=float(t), count=int(n), flops={"fp32": float(f)}, bytes={"DRAM": float(b)},
                 modelled=bool(i % 2), operator=f"op{i % 5}" if i % 2 else "")
          for i, (t, n, f, b) in enumerate(zip(10 ** rng.uniform(-6, -1, 200), rng.integers(1, 100, 200),
                                               10 ** rng.uniform(3, 12, 200), 10 ** rng.uniform(3, 10, 200)))]
    p = place(KernelSet.from_kernels(ks), gpu())
    below = (p.efficiency < Rules().near_roof) | (p.bound == "overhead")
    assert below.any() and np.all(p.reason[below] != "")


# ------------------------------------------------------------- trusting the profile

def test_a_clean_measured_profile_and_datasheet_profiles_raise_no_doubt():
    from roofline.devices.trust import doubts
    assert doubts(cpu()) == [] and doubts(gpu()) == []


def test_doubts_about_a_measured_cpu_profile():
    from roofline.devices.trust import doubts
    busy = cpu(machine_load={"busy": True, "reasons": ["load average 1.9 on 2 cores before the run"]})
    assert [d.kind for d in doubts(busy)] == ["busy"] and "load average 1.9" in str(doubts(busy)[0])
    disordered = replace(cpu(), memory={**cpu().memory, "L3": MemoryLevel("L3", Ceiling(500e9), 64, 32e6)})
    assert [d.kind for d in doubts(disordered)] == ["levels out of order"]   # L3 above L2
    one_core = replace(cpu(), architecture={**cpu().architecture,
                                            "single_core": {"memory": {"DRAM": {"bytes_s": 60e9}}}})
    assert [d.kind for d in doubts(one_core)] == ["one core above all"]
    other = doubts(cpu(), ["Another CPU 42"])
    assert [d.kind for d in other] == ["other CPU"] and not other[0].note
    assert doubts(cpu(), ["made-up  CPU 9000"]) == []                        # spelled apart, same CPU
    unnamed = doubts(cpu(), [None])
    assert unnamed[0].note and "cannot be checked" in str(unnamed[0])


def test_the_report_and_the_cli_say_it_once(tmp_path, capsys):
    from roofline.cli.main import main
    from roofline.devices.profile import save_device
    from roofline.report import build_report
    busy = cpu(machine_load={"busy": True, "reasons": ["steal 30 %"]})
    path = save_device(busy, tmp_path / "busy.yaml")
    ks = [Kernel("a", time_s=1e-3, flops={"fp32": 1e8}, bytes={"DRAM": 1e7}),
          Kernel("b", time_s=3e-3, flops={"fp32": 1e9}, bytes={"DRAM": 1e7})]
    report = build_report(KernelSet.from_kernels(ks), busy)
    assert report.banner().startswith("These roofs may not hold: the profile was measured on a busy machine")
    assert 'class="banner"' in report.to_html() and "> **Device profile:**" in report.to_markdown()[0]
    csv = tmp_path / "k.csv"
    csv.write_text("name,time_s,flops_fp32,bytes_dram\na,1e-3,1e8,1e7\n")
    assert main(["classify", str(csv), "--device", str(path)]) == 0
    err = capsys.readouterr().err
    assert err.count("These roofs may not hold") == 1


def test_a_cpu_trace_names_its_cpu_when_the_example_recorded_it():
    from roofline.importers.kineto import parse
    trace = {"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::relu", "ts": 0, "dur": 5,
                              "pid": 1, "tid": 1, "args": {"Input Dims": [[4]], "Input type": ["float"]}}],
             "roofline": {"intra_op_threads": 2, "cpu_model": "Made-up CPU 9000"}}
    assert parse(trace).device.properties == {"cpu_model": "Made-up CPU 9000"}
    del trace["roofline"]["cpu_model"]
    assert parse(trace).device.properties is None


# ------------------------------------------------------------- charts

def test_no_chart_writes_mathtext_ticks(tmp_path):
    from roofline.report import build_report
    ks = [Kernel("k", time_s=t, count=10, flops={"fp32": 10 * f}, bytes={"DRAM": 10 * f / 4})
          for t, f in ((1e-4, 1e6), (1e-3, 1e8), (1e-2, 1e10))]
    report = build_report(KernelSet.from_kernels(ks), gpu())
    for name, fig in report.figures().items():
        out = tmp_path / f"{name}.svg"
        fig.savefig(out)
        text = out.read_text()
        assert "mathdefault" not in text and "10^{" not in text, name
