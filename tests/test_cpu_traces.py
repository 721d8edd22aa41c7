"""PyTorch CPU traces read right (issue 29): compiled CPU graphs are work,
not dispatch; the step split counts them once, the backward in the
backward; every row says its dtype(s), a cast its two; bf16 matrix work of
a CPU goes on its matrix units' roof (AMX) where the profile has one, else
on the vector bf16 roof, else fp32, and says what it assumed; a private
cache level holds, for an operator run on several threads, one instance per
thread.

The traces in tests/fixtures/cpu_traces were recorded by the record.py
beside them (torch 2.13, a 2-vCPU Zen 4 VM, one intra-op thread); torch is
not needed here. Devices are made here: no figure of this machine is used.
"""
from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pytest

from conftest import REPO
from roofline.core import reasons as R
from roofline.core.cache_capacity import held_bytes, instances
from roofline.core.cpu_units import flops_key, matrix_unit_assumed, matrix_unit_note
from roofline.core.model import Ceiling, Device, KernelSet, MemoryLevel
from roofline.core.phases import PHASES
from roofline.core.placement import place
from roofline.core.row_dtypes import row_dtypes
from roofline.importers import read_profile
from roofline.importers.kineto.dtypes import call_dtype, joined
from roofline.render import tables

TRACES = REPO / "tests" / "fixtures" / "cpu_traces"
BERT = TRACES / "compiled_bert_train.json.gz"
RESNET = TRACES / "compiled_resnet_infer.json.gz"
UNET = TRACES / "bf16_unet_infer.json.gz"


def cpu(compute: dict, name="test-cpu", os_caches=None, threads=2) -> Device:
    arch = {"threads": threads}
    if os_caches is not None:
        arch["os_caches"] = os_caches
    return Device(name=name, kind="cpu", compute={k: Ceiling(v) for k, v in compute.items()},
                  memory={"L2": MemoryLevel("L2", Ceiling(4e11), capacity_bytes=2 * 2**20),
                          "L3": MemoryLevel("L3", Ceiling(1e11), capacity_bytes=32 * 2**20),
                          "DRAM": MemoryLevel("DRAM", Ceiling(3e10))},
                  architecture=arch)


VECTOR = cpu({"fp32": 2e11})
VECTOR_BF16 = cpu({"fp32": 2e11, "bf16": 4e11})
AMX = cpu({"fp32": 2e11, "bf16": 4e11, "tensor_bf16": 3e12, "int8": 8e11, "tensor_int8": 6e12})


def raw_events(path):
    return [e for e in json.load(gzip.open(path, "rt"))["traceEvents"] if e.get("ph") == "X"]


def rows(result, operator):
    return [k for k in result.kernels if k.operator == operator]


def region(result):
    """The one Torch-Compiled Region row (``: 0/0``, ``: 1/0``: Dynamo's frame and recompile counts)."""
    (k,) = [k for k in result.kernels if k.operator.startswith("Torch-Compiled Region: ")]
    return k


# ---------------------------------------------------------------- compiled graphs on a CPU

def test_fixtures_are_small_and_made_by_the_script_beside_them():
    assert (TRACES / "record.py").exists()
    for path in (BERT, RESNET, UNET):
        assert path.stat().st_size < 500_000, path.name


def test_compiled_graphs_self_time_is_work_not_dispatch():
    r = read_profile(BERT)
    placed = place(KernelSet.from_kernels(r.kernels), AMX)
    rec = {x["name"]: x for x in placed.records()}
    for name in ("CompiledFunction", "CompiledFunctionBackward"):
        (k,) = rows(r, name)
        # unsized work of its own (its call records its inputs: no model sizes the C++ kernels)
        assert k.family != "overhead" and not k.flops and not k.bytes and k.why == R.INDUCTOR
        assert rec[name]["bound"] == "unknown" and rec[name]["reason"] == R.INDUCTOR
        assert rec[name]["reason"] != "dispatch"
    # the outer region only wraps CompiledFunction (Dynamo's guards, the AOT wrapper): overhead
    outer = region(r)
    assert outer.family == "overhead"
    # the warning says what runs inside and how much of the trace it is
    (note,) = [w for w in r.warnings if w.subject == "compiled"]
    ops = [e for e in raw_events(BERT) if e.get("cat") == "cpu_op"]
    graph_self = sum(k.time_s for k in r.kernels if k.operator.startswith("CompiledFunction"))
    share = graph_self / sum(k.time_s for k in r.kernels)
    assert "Inductor's C++ kernels" in note.message and "not dispatch" in note.message
    assert f"{share:.1%} of operator time" in note.message
    assert "CompiledFunction " in note.message and "inputs recorded" in note.message
    assert len(ops) > 1000    # the step's eager optimizer ops are rows of their own


def test_a_compiled_region_without_shapes_says_so_and_is_not_overhead():
    r = read_profile(RESNET)
    k = region(r)
    assert k.family != "overhead" and k.why == R.INDUCTOR
    # its self time is the fused batch norm and ReLU kernels' (the convolutions are rows of their own)
    raw = [e for e in raw_events(RESNET) if e["name"].startswith("Torch-Compiled Region")]
    assert 0 < k.time_s < sum(e["dur"] for e in raw) * 1e-6 and k.count == len(raw) == 2
    rec = {x["name"]: x for x in place(KernelSet.from_kernels(r.kernels), AMX).records()}
    assert rec[k.name]["bound"] == "unknown" and rec[k.name]["reason"] == R.INDUCTOR
    (note,) = [w for w in r.warnings if w.subject == "compiled"]
    assert f"{k.name} {k.time_s / sum(x.time_s for x in r.kernels):.1%} (no shapes)" in note.message


# ---------------------------------------------------------------- the step split

def test_compiled_steps_sum_to_their_profiler_steps_and_backward_is_backward():
    r = read_profile(BERT)
    t = r.phases
    steps = {int(e["name"].split("#")[1]): e["dur"] * 1e-6 for e in raw_events(BERT)
             if e["name"].startswith("ProfilerStep#")}
    assert sorted(steps) == [1, 2]
    for n, dur in steps.items():
        # every microsecond of the step once: operators' self time and ranges' own time
        assert float(t.time_s[t.step == n].sum()) == pytest.approx(dur, rel=1e-9)
    names = [k.name for k in r.kernels]
    backward = t.row == names.index("CompiledFunctionBackward")
    forward = t.row == names.index("CompiledFunction")
    assert set(t.phase[backward].tolist()) == {PHASES.index("backward")}
    assert set(t.phase[forward].tolist()) == {PHASES.index("forward")}
    (bwd,) = rows(r, "CompiledFunctionBackward")
    assert float(t.time_s[backward].sum()) == pytest.approx(bwd.time_s)
    # the "## Call CompiledFxGraph" ranges (4: a forward and a backward graph per step) add no
    # time of their own: outside operators only the optimizer's loop and the steps' own time
    calls = [e for e in raw_events(BERT) if e["name"].startswith("## Call CompiledFxGraph")]
    assert len(calls) == 4 and {e["cat"] for e in calls} == {"user_annotation"}
    assert set(t.phase[t.row == -1].tolist()) <= {PHASES.index("optimizer"), PHASES.index("other")}


# ---------------------------------------------------------------- dtypes

@pytest.mark.parametrize("name, dims, types, concrete, want", [
    ("aten::to", [[32], [], [], [], []], ["float", "Scalar", "Scalar", "Scalar", ""],
     ["", "15", "False", "False", ""], "fp32->bf16"),
    ("aten::_to_copy", [[2, 3], [], [], [], [], [], []], ["c10::BFloat16", "Scalar", "", "", "", "Scalar", ""],
     ["", "6", "", "", "", "False", ""], "bf16->fp32"),
    ("aten::to", [[2, 3], [], [], [], []], ["c10::BFloat16", "Scalar", "Scalar", "Scalar", ""],
     ["", "15", "False", "False", ""], "bf16"),                     # already bf16: no cast
    ("aten::copy_", [[32], [32], []], ["c10::BFloat16", "float", "Scalar"], ["", "", "False"], "fp32->bf16"),
    ("aten::copy_", [[4], [4], []], ["float", "float", "Scalar"], ["", "", "False"], "fp32"),
    ("aten::native_group_norm", [[2, 64, 16, 16], [64], [64], [], []],
     ["c10::BFloat16", "float", "float", "Scalar", "Scalar"], ["", "", "", "2", "64"], "bf16,fp32"),
    ("aten::embedding", [[1000, 64], [4, 32]], ["float", "long int"], ["", ""], "fp32,int64"),
    ("aten::cat", [[[2, 3], [2, 3]], []], ["TensorList", "Scalar"], ["", "1"], ""),   # lists carry no dtype
    ("aten::add", None, None, None, ""),
    # untrusted: types that are not text, dims that are not lists
    ("aten::copy_", [[4], [4]], [{"a": 1}, ["float"]], None, ""),
    ("aten::to", [[4], []], ["float", "Scalar"], ["", {"x": 15}], "fp32"),
    ("aten::add", "4x4", ["float"], None, ""),
    ("aten::add", [[4], [4]], ["c10::Float8_e8m0fnu", "=HYPERLINK(1)"], None, "c10::Float8_e8m0fnu"),
])
def test_a_call_says_its_dtypes_and_a_cast_its_two(name, dims, types, concrete, want):
    assert call_dtype(name, dims, types, concrete) == want


def test_rows_of_a_bf16_autocast_trace_carry_their_dtypes():
    r = read_profile(UNET)
    convs = rows(r, "aten::mkldnn_convolution")
    assert convs and all(k.dtype == "bf16" for k in convs)
    casts = [k for k in rows(r, "aten::copy_") if "->" in k.dtype]
    assert {k.dtype for k in casts} == {"fp32->bf16", "bf16->fp32"}
    # the recorded events agree: every copy_ from float into BFloat16 is in a fp32->bf16 row
    raw = sum(1 for e in raw_events(UNET) if e["name"] == "aten::copy_"
              and e["args"].get("Input type", [])[:2] == ["c10::BFloat16", "float"])
    assert sum(k.count for k in casts if k.dtype == "fp32->bf16") == raw > 0
    (norm,) = rows(r, "aten::native_group_norm")
    assert norm.dtype == "bf16,fp32"
    # rows over several calls join their labels
    assert "fp32->bf16" in rows(r, "aten::_to_copy")[0].dtype.split("|")


def test_the_dtype_reaches_the_columns_the_csv_and_the_table():
    r = read_profile(UNET)
    ks = KernelSet.from_kernels(r.kernels)
    assert list(ks.dtypes) == [k.dtype for k in r.kernels]
    assert [k.dtype for k in ks.kernels()] == [k.dtype for k in r.kernels]
    assert list(ks.with_columns(time_s=ks.time_s).dtypes) == list(ks.dtypes)
    p = place(ks, VECTOR_BF16)
    import csv
    import io
    got = list(csv.DictReader(io.StringIO(tables.placements_csv(p))))
    assert [g["dtype"] for g in got] == [k.dtype for k in r.kernels]
    text = tables.placements_table(p, limit=5)
    header = text.splitlines()[0].split()
    assert header[:2] == ["kernel", "dtype"] and "fp32->bf16" in tables.placements_table(p)


def test_a_collective_keeps_its_own_dtype_and_other_rows_their_operators():
    class Coll:
        dtype = "BFloat16"
    ks = KernelSet(names=["nccl", "mm", "copy"], time_s=[1.0, 1.0, 1.0], collectives=[Coll(), None, None],
                   dtypes=["bf16", "fp32", ""])
    assert row_dtypes(ks).tolist() == ["BFloat16", "fp32", ""]
    assert joined(["bf16", "", "fp32", "bf16"]) == "bf16|fp32"


# ---------------------------------------------------------------- CPU units

def test_bf16_matrix_work_is_keyed_for_the_matrix_units():
    assert flops_key("bf16", True) == "tensor_bf16" and flops_key("int8", True) == "tensor_int8"
    assert flops_key("bf16", False) == "bf16" and flops_key("fp32", True) == "fp32"
    assert flops_key("fp64", True) == "fp64" and flops_key("fp16", True) == "tensor_fp16"
    r = read_profile(UNET)
    for k in rows(r, "aten::mkldnn_convolution"):
        assert set(k.flops) == {"tensor_bf16"} and k.flops["tensor_bf16"] > 0
    # element-wise bf16 work stays on the vector units (computed in fp32 by PyTorch)
    assert all("tensor_bf16" not in k.flops for k in rows(r, "aten::silu"))


@pytest.mark.parametrize("device, key, assumed", [(AMX, "tensor_bf16", True), (VECTOR_BF16, "bf16", False),
                                                   (VECTOR, "fp32", False)])
def test_a_cpu_times_bf16_convolutions_on_the_best_unit_it_has(device, key, assumed):
    r = read_profile(UNET)
    ks = KernelSet.from_kernels(r.kernels)
    p = place(ks, device)
    conv = np.array([k.operator == "aten::mkldnn_convolution" for k in r.kernels])
    assert device.compute_key("tensor_bf16") == key
    flop = ks.flops["tensor_bf16"][conv]
    assert np.allclose(p.time_compute_s[conv], flop / device.compute[key].value)
    got = matrix_unit_assumed(ks, device)
    assert bool(got[conv].all()) is assumed and not got[~conv].any()
    note = matrix_unit_note(ks, device)
    assert note is not None and f"on its {key} roof" in note.message
    assert ("assumed oneDNN ran them on the AMX tiles" in note.message) is assumed


def test_matrix_units_are_a_cpu_question():
    ks = KernelSet(names=["k"], time_s=[1.0], flops={"tensor_bf16": [1e9]}, modelled=[True])
    from roofline.devices.profile import load_device
    from conftest import DATA
    gpu = load_device(DATA / "toy_gpu.yaml")
    assert not matrix_unit_assumed(ks, gpu).any() and matrix_unit_note(ks, gpu) is None
    # counters (not modelled) assume nothing
    counted = KernelSet(names=["k"], time_s=[1.0], flops={"tensor_bf16": [1e9]})
    assert not matrix_unit_assumed(counted, AMX).any()


# ---------------------------------------------------------------- private caches

def test_a_private_level_holds_one_instance_per_thread():
    caches = {"L2": {"bytes": 2 * 2**20, "shared_cpus": 1}, "L3": {"bytes": 32 * 2**20, "shared_cpus": 2}}
    dev = cpu({"fp32": 1e11}, os_caches=caches, threads=2)
    threads = np.array([math.nan, 1.0, 2.0, 8.0])
    held = held_bytes(dev, threads)
    # all cores (NaN), one thread, both threads, more threads than the profile's cores
    assert held["L2"].tolist() == [4 * 2**20, 2 * 2**20, 4 * 2**20, 4 * 2**20]
    assert held["L3"].tolist() == [32 * 2**20] * 4              # one L3 shared by both
    assert "DRAM" not in held
    # a 3 MiB in-place working set on both threads fits both L2s together, not one
    assert held["L2"][0] >= 3 * 2**20 > held["L2"][1]
    # a profile that does not say how a level is shared: one instance (the old reading)
    assert instances(cpu({"fp32": 1e11}), "L2", threads).tolist() == [1.0] * 4
    odd = cpu({"fp32": 1e11}, os_caches={"L2": {"bytes": 1, "shared_cpus": True}})
    assert instances(odd, "L2", threads).tolist() == [1.0] * 4


def test_small_elementwise_loops_run_on_one_thread_whatever_the_intra_op_threads():
    """PyTorch runs an element-wise loop over fewer than GRAIN_SIZE (32,768)
    elements on the calling thread: such rows go on one core's roofs."""
    from roofline.importers.kineto.cpu_rows import GRAIN_SIZE, _row, _serial
    assert _serial([[64, 64], [64, 64]]) and not _serial([[256, 256], [1]])
    assert not _serial([]) and not _serial(None) and not _serial([[GRAIN_SIZE]])
    g = {"t": 10.0, "n": 1, "flops": {"fp32": 1e3}, "bytes": 1e4, "family": "elementwise", "dtypes": ["fp32"],
         "assumed": {}, "serial": True}
    assert _row(("aten::relu", "64x64", "fp32", "work"), g, 2).threads == 1
    assert _row(("aten::relu", "64x64", "fp32", "work"), dict(g, serial=False), 2).threads == 2
    # a GEMM of few elements still runs on the threads it was given
    assert _row(("aten::mm", "8x8, 8x8", "fp32", "work"), dict(g, family="gemm"), 2).threads == 2
