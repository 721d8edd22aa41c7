"""The step split (issue 24): every kernel's time lands in one phase of one
step, nothing disappears, and the report shows it. Synthetic traces are
written here with times chosen so every number is a hand sum; the real
DDP trace is checked against sums of its raw events."""
from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from conftest import REALDATA
from corrupt import needs_folder
from roofline.core.phases import PHASES
from roofline.importers import read_profile
from roofline.report import build_report

NCCL = REALDATA / "kineto_trace" / "facebookresearch__HolisticTraceAnalysis__nccl_data.json.gz"


def _x(cat, name, ts, dur, tid=1, **args):
    return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur, "pid": 1, "tid": tid, "args": args}


def _launch(op_ts, corr, kernel, k_ts, k_dur, tid=1):
    """A runtime call inside an operator, and its kernel on the GPU."""
    return [_x("cuda_runtime", "cudaLaunchKernel", op_ts + 1, 2, tid, correlation=corr),
            {**_x("kernel", kernel, k_ts, k_dur, 7, correlation=corr), "pid": 0}]


def _gpu_trace() -> dict:
    ev = [_x("user_annotation", "ProfilerStep#1", 0, 1000), _x("user_annotation", "ProfilerStep#2", 1000, 1000)]
    # step 1: forward mm (100 us kernel), an all-reduce launched by a forward op (40 us),
    # backward on autograd's thread 2 (MmBackward0 > aten::mm, 200 us), optimizer (30 us)
    ev += [_x("cpu_op", "aten::mm", 10, 20)] + _launch(10, 1, "ampere_sgemm_64x64_nn", 100, 100)
    ev += [_x("cpu_op", "c10d::allreduce_", 40, 20)] + _launch(40, 2, "ncclKernel_AllReduce_RING_LL_Sum_float", 210, 40)
    ev += [_x("cpu_op", "MmBackward0", 300, 50, 2, **{"Fwd thread id": 1}),
           _x("cpu_op", "aten::mm", 310, 20, 2)] + _launch(310, 3, "ampere_sgemm_64x64_tn", 400, 200, tid=2)
    ev += [_x("user_annotation", "Optimizer.step#SGD.step", 700, 100),
           _x("cpu_op", "aten::add_", 710, 20)] + _launch(710, 4, "vectorized_elementwise_kernel", 720, 30)
    # step 2: forward mm again (100 us); a kernel no operator launched (5 us, "other")
    ev += [_x("cpu_op", "aten::mm", 1010, 20)] + _launch(1010, 5, "ampere_sgemm_64x64_nn", 1100, 100)
    ev += _launch(1500, 6, "orphan_kernel", 1600, 5)
    return {"traceEvents": ev}


def _write(tmp_path, trace, name="t.json"):
    path = tmp_path / name
    path.write_text(json.dumps(trace))
    return path


def _by_phase(table, step=None):
    keep = np.ones(len(table), dtype=bool) if step is None else table.step == step
    return {PHASES[p]: round(float(table.time_s[keep & (table.phase == p)].sum()) * 1e6, 6)
            for p in range(len(PHASES)) if (keep & (table.phase == p)).any()}


def test_each_launch_lands_in_its_phase_and_step(tmp_path):
    r = read_profile(_write(tmp_path, _gpu_trace()))
    t = r.phases
    assert _by_phase(t, 1) == {"forward": 100, "communication": 40, "backward": 200, "optimizer": 30}
    assert _by_phase(t, 2) == {"forward": 100, "other": 5}
    # no time disappears: the table sums to the kernel rows' time
    assert t.time_s.sum() == pytest.approx(sum(k.time_s for k in r.kernels))
    assert {"ProfilerStep ranges", "autograd's Fwd thread id", "Optimizer.* ranges"} <= set(t.basis)
    # a row is split by phase: the sgemm row of aten::mm has forward launches only,
    # the backward's mm kernel is its own row (another kernel name)
    names = [k.name for k in r.kernels]
    fwd = names.index("ampere_sgemm_64x64_nn")
    assert _by_phase(type(t)(t.row[t.row == fwd], t.step[t.row == fwd], t.phase[t.row == fwd],
                             t.time_s[t.row == fwd], t.basis)) == {"forward": 200}


def test_the_report_shows_the_split_with_bounds(tmp_path, toy_gpu):
    r = build_report([_write(tmp_path, _gpu_trace())], toy_gpu)
    split = r.step_split()
    assert [(p.phase, round(p.time_s * 1e6, 6)) for p in split.overall] == [
        ("forward", 200), ("backward", 200), ("optimizer", 30), ("communication", 40), ("other", 5)]
    assert sum(p.share for p in split.overall) == pytest.approx(1.0)
    assert split.steps[1]["backward"] == pytest.approx(200e-6) and split.steps[2]["other"] == pytest.approx(5e-6)
    # the kernels have no work (no shapes): their time is "unknown" in every phase
    assert all(set(p.by_bound) == {"unknown"} for p in split.overall)
    page = r.to_html()
    assert 'href="#rr-steps"' in page and 'id="rr-steps"' in page and "ProfilerStep#2" in page
    text, _ = r.to_markdown()
    assert "## Step split" in text


def test_cpu_trace_keeps_the_time_outside_operators(tmp_path):
    # a CPU step: forward add (self 50 us), backward mul under MulBackward0 (40 us + 10 us of
    # its own), the optimizer's range of 100 us holding one add_ of 30 us: 70 us of Python
    ev = [_x("cpu_op", "aten::add", 0, 50),
          _x("cpu_op", "MulBackward0", 100, 50, **{"Fwd thread id": 1}), _x("cpu_op", "aten::mul", 105, 40),
          _x("user_annotation", "Optimizer.step#Adam.step", 200, 100), _x("cpu_op", "aten::add_", 220, 30)]
    r = read_profile(_write(tmp_path, {"traceEvents": ev}))
    t = r.phases
    assert _by_phase(t) == {"forward": 50, "backward": 50, "optimizer": 100}
    outside = t.row == -1
    assert float(t.time_s[outside].sum()) == pytest.approx(70e-6)
    assert t.time_s[~outside].sum() == pytest.approx(sum(k.time_s for k in r.kernels))


def test_a_compiled_graph_counts_once_and_its_backward_in_the_backward(tmp_path):
    # a CPU training step of a compiled graph: CompiledFunction (300 us, 20 us of it an extern
    # mm) holds its "## Call CompiledFxGraph" range (290 us); CompiledFunctionBackward (200 us,
    # under autograd's evaluate_function) holds its own range (190 us); 1000 us step
    ev = [_x("user_annotation", "ProfilerStep#1", 0, 1000),
          _x("cpu_op", "Torch-Compiled Region: 0/0", 10, 310),
          _x("cpu_op", "CompiledFunction", 15, 300, **{"Fwd thread id": 0}),
          _x("user_annotation", "## Call CompiledFxGraph abc ##", 20, 290),
          _x("cpu_op", "aten::mm", 100, 20),
          _x("cpu_op", "autograd::engine::evaluate_function: CompiledFunctionBackward", 400, 210),
          _x("cpu_op", "CompiledFunctionBackward", 405, 200, **{"Fwd thread id": 1}),
          _x("user_annotation", "## Call CompiledFxGraph def ##", 410, 190)]
    r = read_profile(_write(tmp_path, {"traceEvents": ev}))
    t = r.phases
    # the step's time once: its ranges' own time inside operators is the operators' self time
    assert sum(_by_phase(t, 1).values()) == pytest.approx(1000)
    assert _by_phase(t, 1) == {"forward": 310, "backward": 210, "other": 480}
    names = [k.name for k in r.kernels]
    for name, phase, us in (("CompiledFunction", "forward", 280), ("CompiledFunctionBackward", "backward", 200)):
        row = t.row == names.index(name)
        assert {PHASES[p]: round(float(x) * 1e6, 6) for p, x in zip(t.phase[row], t.time_s[row])} == {phase: us}
    # outside every operator: only the step's own 480 us, none of the graphs' ranges
    assert float(t.time_s[t.row == -1].sum()) == pytest.approx(480e-6)


def test_a_trace_without_phases_has_no_section(tmp_path, toy_gpu):
    from conftest import REPO
    r = build_report([REPO / "examples" / "ece408_kernels.csv"], toy_gpu)
    assert r.step_split() is None and "rr-steps" not in r.to_html()


@needs_folder(NCCL.parent)
def test_real_ddp_steps_sum_to_their_kernels():
    r = read_profile(NCCL)
    t = r.phases
    raw = json.load(gzip.open(NCCL, "rt"))["traceEvents"]
    kernels = [e for e in raw if e.get("cat") == "kernel"]
    steps = [(int(e["name"].split("#")[1]), e["ts"], e["ts"] + e["dur"]) for e in raw
             if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")]
    # the whole table is the kernels' time (the trace's copies are rows too)
    assert t.time_s.sum() == pytest.approx(sum(k.time_s for k in r.kernels))
    # communication: every nccl kernel, launched in any step
    nccl = sum(e["dur"] for e in kernels if "nccl" in e["name"].lower()) * 1e-6
    assert float(t.time_s[t.phase == PHASES.index("communication")].sum()) == pytest.approx(nccl)
    assert sorted(set(t.step[t.step >= 0].tolist())) == sorted(n for n, _, _ in steps) == [4, 5, 6]


def test_time_summed_per_row_step_and_phase_as_numpy_sums_columns():
    # the reference: np.unique over the (row, step, phase) columns
    import numpy as np
    from roofline.importers.kineto.phases import _summed
    rng = np.random.default_rng(1)
    for n in (0, 1, 5000):
        row, step = rng.integers(-1, 300, n), rng.choice([-1, 3, 7, 12, 100_000], n)
        phase, t = rng.integers(0, 6, n).astype(np.int8), rng.random(n)
        got = _summed(row, step, phase, t, ())
        keys, inverse = np.unique(np.stack([row, step, phase.astype(np.int64)]), axis=1, return_inverse=True)
        assert np.array_equal(np.stack([got.row, got.step, got.phase]), keys)
        assert np.allclose(got.time_s, np.bincount(inverse.ravel(), weights=t, minlength=keys.shape[1]))
