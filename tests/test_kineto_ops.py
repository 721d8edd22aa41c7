"""PyTorch operators in Kineto traces: nesting, attribution to kernels, CPU
traces, torch's own FLOP counts, and the real traces that carry shapes.

Synthetic traces are built event by event here, so every expected number
is the hand count next to it: a GEMM of M x K by K x N is 2 M N K FLOP and
reads/writes (M K + K N + M N) x 4 bytes in fp32.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from conftest import REALDATA
from corrupt import needs_folder
from roofline.importers import kineto, read_profile

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pytorch_cpu_trace.json.gz"
KINETO = REALDATA / "kineto_trace"
MI250 = KINETO / "facebookresearch__HolisticTraceAnalysis__mi250_minitoy_train_ROCm6_2_kineto.json.gz"
RANK0 = KINETO / "facebookresearch__HolisticTraceAnalysis__negative_queue_rank0.json.gz"


def op(name, ts, dur, dims=None, types=None, ext=None, tid=1, concrete=None, **args):
    a = {"External id": ext} if ext is not None else {}
    if dims is not None:
        a["Input Dims"] = dims
        a["Input type"] = types or ["float"] * len(dims)
        a["Concrete Inputs"] = concrete or [""] * len(dims)
    a.update(args)
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": a}


def launch(ts, corr, ext=None, tid=1):
    a = {"correlation": corr}
    if ext is not None:
        a["External id"] = ext
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": tid,
            "ts": ts, "dur": 1, "args": a}


def kernel(name, ts, dur, corr, ext=None):
    a = {"correlation": corr, "device": 0, "stream": 7}
    if ext is not None:
        a["External id"] = ext
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur, "args": a}


def rows(result):
    return {k.name: k for k in result.kernels}


def gemm_bytes(m, k, n, bias=0):
    return 4.0 * (m * k + k * n + m * n + bias)


LINEAR = [  # aten::linear -> t (a view) + addmm -> copy_ (the bias into the output)
    op("aten::linear", 0, 100, [[64, 128], [256, 128], [256]], ext=1),
    op("aten::t", 2, 3, [[256, 128]], ext=2),
    op("aten::transpose", 3, 1, [[256, 128], [], []], types=["float", "Scalar", "Scalar"], ext=3),
    op("aten::addmm", 10, 80, [[256], [64, 128], [128, 256], [], []],
       types=["float", "float", "float", "Scalar", "Scalar"], ext=4),
    op("aten::copy_", 12, 8, [[64, 256], [64, 256], []], types=["float", "float", "Scalar"], ext=5),
]


def test_cpu_trace_work_goes_once_to_the_innermost_operator():
    r = kineto.parse({"traceEvents": LINEAR})
    assert r.device.name is None and r.program is None
    k = rows(r)
    addmm = k["aten::addmm(256, 64x128, 128x256)"]
    assert addmm.modelled and addmm.operator == "aten::addmm" and addmm.family == "gemm"
    assert sum(addmm.flops.values()) == 2 * 64 * 128 * 256
    assert addmm.bytes["DRAM"] == gemm_bytes(64, 128, 256, bias=256)
    assert addmm.time_s == pytest.approx((80 - 8) * 1e-6)   # self time: minus the copy_ child
    # linear gave its GEMM to addmm: no work of its own, its self time is dispatch overhead
    linear = k["aten::linear"]
    assert linear.family == "overhead" and sum(linear.flops.values()) == 0 and linear.bytes["DRAM"] == 0
    assert linear.time_s == pytest.approx((100 - 3 - 80) * 1e-6)  # minus t (3 us) and addmm
    # the bias copy is a helper of addmm and keeps its own (small) work
    copy = next(v for n, v in k.items() if n.startswith("aten::copy_"))
    assert copy.bytes["DRAM"] > 0 and copy.modelled
    # views do no work
    assert k["aten::t"].family == "overhead" and k["aten::t"].bytes["DRAM"] == 0
    total_flops = sum(sum(v.flops.values()) for v in r.kernels)
    assert total_flops == 2 * 64 * 128 * 256  # nothing counted twice


CONV = [  # conv2d -> convolution -> _convolution -> mkldnn_convolution, stride 2, pad 1, groups 2
    op("aten::conv2d", 0, 100, [[8, 16, 32, 32], [32, 8, 3, 3], [32], [], [], [], []],
       types=["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
       concrete=["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "2"], ext=1),
    op("aten::convolution", 1, 98, [[8, 16, 32, 32], [32, 8, 3, 3], [32], [], [], [], [], [], []],
       types=["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"],
       concrete=["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "2"], ext=2),
    op("aten::_convolution", 2, 96, [[8, 16, 32, 32], [32, 8, 3, 3], [32], [], [], [], [], [], [], [], [], [], []],
       types=["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList",
              "Scalar", "Scalar", "Scalar", "Scalar", "Scalar"],
       concrete=["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "2", "False", "False", "True",
                 "True"], ext=3),
    op("aten::mkldnn_convolution", 3, 90, [[8, 16, 32, 32], [32, 8, 3, 3], [32], [], [], [], []],
       types=["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
       concrete=["", "", "", "[1, 1]", "[2, 2]", "[1, 1]", "2"], ext=4),
]
# output 8 x 32 x 16 x 16; each output sums 8 channels x 3 x 3 taps (groups 2)
CONV_FLOPS = 2 * 8 * 32 * 16 * 16 * 8 * 3 * 3


def test_convolution_counted_once_with_groups_and_stride():
    r = kineto.parse({"traceEvents": CONV})
    working = [k for k in r.kernels if sum(k.flops.values()) > 0]
    assert [k.operator for k in working] == ["aten::mkldnn_convolution"]
    assert sum(working[0].flops.values()) == CONV_FLOPS
    assert working[0].family == "convolution"


def test_torch_flops_arg_is_checked_against_the_models():
    agree = json.loads(json.dumps(CONV))
    agree[0]["args"]["flops"] = CONV_FLOPS      # torch counts the convolution at aten::conv2d
    r = kineto.parse({"traceEvents": agree})
    assert not [w for w in r.warnings if "flops check" in w.subject]
    agree[0]["args"]["flops"] = 2 * CONV_FLOPS
    r = kineto.parse({"traceEvents": agree})
    (w,) = [w for w in r.warnings if "flops check" in w.subject]
    assert "aten::conv2d" in w.subject and "-50.0%" in w.message


def test_gpu_operator_work_split_over_its_kernels_by_time():
    events = [op("aten::mm", 0, 50, [[512, 256], [256, 1024]], ext=7),
              launch(5, 100, ext=7), launch(20, 101, ext=7),
              kernel("gemm_main_kernel", 60, 30, 100, ext=7), kernel("splitKreduce_kernel", 95, 10, 101, ext=7)]
    r = kineto.parse({"traceEvents": events, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}]})
    k = rows(r)
    flops = 2 * 512 * 256 * 1024
    main, reduce = k["gemm_main_kernel"], k["splitKreduce_kernel"]
    assert main.time_s == pytest.approx(30e-6) and reduce.time_s == pytest.approx(10e-6)  # measured times stay
    assert main.flops == {"fp32": pytest.approx(0.75 * flops)}    # fp32 matmul: vector units, TF32 unknown
    assert reduce.flops == {"fp32": pytest.approx(0.25 * flops)}
    assert main.bytes["DRAM"] + reduce.bytes["DRAM"] == pytest.approx(gemm_bytes(512, 256, 1024))
    assert main.operator == "aten::mm" and main.modelled
    assert any(w.subject == "precision" and "TF32" in w.message for w in r.warnings)


def test_gpu_matrix_work_goes_to_the_matrix_kernel_not_its_helpers():
    events = [op("aten::addmm", 0, 50, [[1024], [512, 256], [256, 1024], [], []],
                 types=["float", "float", "float", "Scalar", "Scalar"], ext=7),
              launch(5, 100, ext=7), launch(20, 101, ext=7),
              kernel("void at::native::elementwise_kernel<copy>", 60, 10, 100, ext=7),
              kernel("ampere_sgemm_128x64_nn", 75, 30, 101, ext=7)]
    k = rows(kineto.parse({"traceEvents": events}))
    assert sum(k["ampere_sgemm_128x64_nn"].flops.values()) == 2 * 512 * 256 * 1024
    copy = k["void at::native::elementwise_kernel<copy>"]
    assert not copy.flops and not copy.modelled and copy.operator == "aten::addmm"


def test_gpu_half_precision_matmul_goes_on_tensor_cores():
    events = [op("aten::mm", 0, 50, [[512, 256], [256, 1024]], types=["c10::Half", "c10::Half"], ext=7),
              launch(5, 100, ext=7), kernel("ampere_fp16_s16816gemm", 60, 30, 100, ext=7)]
    (k,) = kineto.parse({"traceEvents": events}).kernels
    assert k.flops == {"tensor_fp16": 2 * 512 * 256 * 1024}
    assert k.bytes["DRAM"] == 2.0 * (512 * 256 + 256 * 1024 + 512 * 1024)


def test_gpu_link_by_launch_time_when_external_ids_name_correlations():
    # Some 2023 traces give kernels and launches External id == correlation,
    # matching no operator: the launch inside the operator's interval decides.
    events = [op("aten::mm", 0, 50, [[64, 64], [64, 64]], ext=3),
              launch(10, 9001, ext=9001), kernel("k_gemm", 60, 5, 9001, ext=9001)]
    (k,) = kineto.parse({"traceEvents": events}).kernels
    assert k.operator == "aten::mm" and sum(k.flops.values()) == 2 * 64 ** 3


def test_counters_win_over_the_model_and_are_checked():
    events = [op("aten::mm", 0, 50, [[512, 256], [256, 1024]], ext=7),
              launch(5, 100, ext=7), kernel("k_gemm", 60, 30, 100, ext=7),
              {"ph": "X", "cat": "cuda_profiler_range", "name": "k_gemm", "ts": 0, "dur": 1,
               "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 512 * 256 * 1024 // 4}}]
    r = kineto.parse({"traceEvents": events})
    (k,) = r.kernels
    assert k.flops == {"fp32": 2 * 512 * 256 * 1024 / 4}  # counted, not modelled
    assert not k.modelled
    assert any("25%" in w.message and "operator model" in w.message for w in r.warnings)


def test_trace_without_shapes_says_how_to_record_them():
    events = [op("aten::mm", 0, 50, ext=1), op("aten::add", 60, 10, ext=2)]
    r = kineto.parse({"traceEvents": events})
    shapes = [w for w in r.warnings if "record_shapes=True" in w.advice]
    assert len(shapes) == 1 and "2 PyTorch operators" in shapes[0].message
    assert all(not k.flops for k in r.kernels)


def test_unmodelled_operators_listed_by_share_of_time():
    events = LINEAR + [op("aten::my_custom_op", 200, 300, [[64, 256]], ext=9)]
    r = kineto.parse({"traceEvents": events})
    (w,) = [w for w in r.warnings if w.subject == "models"]
    assert w.message.startswith("75.0% of operator time has no operator model: aten::my_custom_op 75.0%")
    k = rows(r)["aten::my_custom_op"]
    assert not k.flops and not k.bytes and k.operator == "aten::my_custom_op"


def test_wrapper_that_spends_its_time_in_children_is_overhead():
    events = [op("AddmmBackward0", 0, 100, ext=1),
              op("aten::mm", 5, 90, [[64, 128], [128, 256]], ext=2)]
    k = rows(kineto.parse({"traceEvents": events}))
    assert k["AddmmBackward0"].family == "overhead" and k["AddmmBackward0"].time_s == pytest.approx(10e-6)


def test_siblings_that_touch_do_not_nest():
    events = [op("aten::mm", 0, 10, [[8, 8], [8, 8]], ext=1), op("aten::mm", 10, 10, [[8, 8], [8, 8]], ext=2)]
    (k,) = kineto.parse({"traceEvents": events}).kernels
    assert k.count == 2 and k.time_s == pytest.approx(20e-6)


# ---------------------------------------------------------------- real traces

def test_example_cpu_trace_places_most_self_time_and_agrees_with_torch():
    """The trace examples/pytorch_cpu.py wrote (a CNN and a transformer
    encoder, one training step each, torch 2.13 on a CPU)."""
    r = read_profile(EXAMPLE)
    assert r.format == "kineto" and r.device.name is None
    total = sum(k.time_s for k in r.kernels)
    placed = sum(k.time_s for k in r.kernels if k.modelled)
    assert placed / total >= 0.90
    raw = json.loads(gzip.decompress(EXAMPLE.read_bytes()))
    ops = [e for e in raw["traceEvents"] if e.get("cat") == "cpu_op"]
    assert sum(1 for e in ops if "flops" in e["args"]) > 50
    # Torch's counter and the models agree on every matrix operator and convolution.
    checks = [w for w in r.warnings if w.subject.startswith("flops check")]
    for name in ("aten::mm", "aten::addmm", "aten::bmm", "aten::conv2d", "aten::convolution_backward"):
        assert not [w for w in checks if w.subject == f"flops check {name}"], checks
    # the self times add up to the operators' total minus nesting: every op counted once
    top = [e for e in ops]
    assert total <= sum(e["dur"] for e in top) * 1e-6


@needs_folder(KINETO)
def test_mi250_trace_gemm_kernels_get_the_operator_flops():
    r = read_profile(MI250)
    gemms = {k.operator: k for k in r.kernels if k.name.startswith("Cijk_")}
    # aten::addmm [128] + [5,128] x [128,128] and aten::mm [128,5] x [5,128] (backward): 2 M N K each
    assert sum(gemms["aten::addmm"].flops.values()) == 2 * 5 * 128 * 128
    assert sum(gemms["aten::mm"].flops.values()) == 2 * 128 * 5 * 128
    assert gemms["aten::addmm"].family == "gemm"


@needs_folder(KINETO)
def test_mi250_operator_keeps_the_work_its_child_does_not_do():
    r = read_profile(MI250)
    k = {x.operator: x for x in r.kernels if x.operator in ("aten::mse_loss", "aten::mean")}
    # mse_loss([5,128], [5,128]): its own kernel squares the differences (2 FLOP and one
    # 640-float write per element), its child aten::mean's kernel sums them
    assert k["aten::mse_loss"].flops == {"fp32": 2 * 640} and k["aten::mse_loss"].bytes["DRAM"] == 4 * 640
    assert k["aten::mean"].flops == {"fp32": 640}
    (helper,) = [w for w in r.warnings if "launched beside the main kernel" in w.message]
    assert "aten::addmm" in helper.message       # the bias broadcast kernel beside the GEMM
    assert not [w for w in r.warnings if "has no operator model" in w.message]


@needs_folder(KINETO)
def test_rank0_trace_links_kernels_to_operators_by_launch_time():
    r = read_profile(RANK0)
    linked = [k for k in r.kernels if k.operator]
    # NCCL kernels are launched inside record_param_comms; compiled graphs hide their aten ops
    assert any(k.operator == "record_param_comms" and k.family == "communication" for k in linked)
    assert any(k.operator == "aten::mul" and k.modelled for k in linked)
    assert sum(k.count for k in r.kernels if k.family not in ("memcpy", "memset")) == 6080
