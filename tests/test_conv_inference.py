"""Convolutions and poolings of traces that record no Concrete Inputs
(PyTorch before about 1.10): stride, padding and window solved from the
output size the next operator reads (or a backward's grad output), else
assumed and said; the above-roof warning names the model's assumption;
a GPU trace that lost its kernels is refused, not read as a CPU trace.

Traces are generated here, in the 2021 schema (category ``Operator``,
``Input Dims`` and ``Input type``, no ``Concrete Inputs``); every expected
figure is the hand count beside it.
"""
from __future__ import annotations

import pytest

from roofline.core.errors import InputError
from roofline.core.model import Ceiling, Device, Kernel, KernelSet, MemoryLevel
from roofline.core.placement_warnings import above_roof_advice
from roofline.importers import kineto
from roofline.importers.kineto import geometry
from roofline.ops import OpCall, op_work
from roofline.ops import conv, pooling

N = 4  # batch


def op(name, ts, dur, dims, types, tid=1):
    """An operator event as PyTorch 1.9 wrote it: shapes and types, no Concrete Inputs."""
    return {"ph": "X", "cat": "Operator", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur,
            "args": {"Input Dims": dims, "Input type": types}}


def conv_chain(ts, x, w):
    """conv2d -> convolution -> _convolution -> cudnn_convolution over 100 us, as torch 1.9 records them."""
    gl = "GenericList"
    return [
        op("aten::conv2d", ts, 100, [x, w, [], [], [], [], []], ["float", "float", "", gl, gl, gl, "Int"]),
        op("aten::convolution", ts + 1, 98, [x, w] + [[]] * 7,
           ["float", "float", "", gl, gl, gl, "Bool", gl, "Int"]),
        op("aten::_convolution", ts + 2, 96, [x, w] + [[]] * 11,
           ["float", "float", "", gl, gl, gl, "Bool", gl, "Int", "Bool", "Bool", "Bool", "Bool"]),
        op("aten::cudnn_convolution", ts + 3, 90, [x, w] + [[]] * 7,
           ["float", "float", gl, gl, gl, "Int", "Bool", "Bool", "Bool"]),
        op("aten::empty", ts + 4, 2, [[]] * 6, [gl, "Int", "Int", "", "", ""]),   # no tensor read
    ]


def batch_norm(ts, x, tid=1):
    c = [x[1]]
    return [op("aten::add", ts, 2, [[], [], []], ["long int", "long int", "Int"], tid=tid),  # num_batches_tracked
            op("aten::batch_norm", ts + 5, 20, [x, c, c, c, c, [], [], [], []],
               ["float"] * 5 + ["Bool", "Double", "Double", "Bool"], tid=tid)]


def flops_of(result, operator):
    return sum(sum(k.flops.values()) for k in result.kernels if k.operator == operator)


def notes_of(result, operator):
    return {k.assumed for k in result.kernels if k.operator == operator and k.flops}


def conv_flops(n, k, out_h, out_w, c, r, s):
    return 2 * n * k * out_h * out_w * c * r * s


# -- the solvers ---------------------------------------------------------------------------------

@pytest.mark.parametrize("size, out, taps, expect", [
    (224, 112, 7, (2, 3)),     # ResNet's stem: 7x7, stride 2, padding 3
    (56, 28, 1, (2, 0)),       # a 1x1 down-sampling convolution
    (56, 28, 3, (2, 1)),       # a 3x3 stride-2 convolution
    (56, 56, 3, (1, 1)),       # 'same' padding
    (56, 54, 3, (1, 0)),       # no padding
    (7, 1, 7, (1, 0)),         # one output: the smallest stride
    (5, 9, 3, None),           # more outputs than any padding up to the filter's extent gives
])
def test_stride_and_padding_solved_from_the_output(size, out, taps, expect):
    assert conv.solve_stride_padding(size, out, taps) == expect
    if expect:
        s, p = expect
        assert (size + 2 * p - (taps - 1) - 1) // s + 1 == out


def test_huge_filter_does_not_make_the_solver_loop():
    assert conv.solve_stride_padding(10, 10, 10 ** 9) is None


@pytest.mark.parametrize("size, out, expect", [(112, 56, (2, 2, 0)), (56, 56, (1, 1, 0)), (7, 1, (7, 7, 0)),
                                               (13, 6, (2, 2, 0)), (8, 16, None)])
def test_pooling_window_solved_from_the_output(size, out, expect):
    assert pooling.solve_window(size, out) == expect


# -- the models say what they assume --------------------------------------------------------------

def test_convolution_without_concrete_inputs_assumes_stride_one_and_says_so():
    w = op_work(OpCall("aten::convolution", dims=((N, 3, 32, 32), (8, 3, 3, 3)) + ((),) * 7,
                       types=("float", "float", "", "GenericList", "GenericList", "GenericList", "Bool",
                              "GenericList", "Int")))
    assert w.flops["fp32"] == conv_flops(N, 8, 30, 30, 3, 3, 3)       # stride 1, no padding: 30 x 30
    assert conv.ASSUMED_NOTE in w.assumptions
    recorded = op_work(OpCall("aten::convolution", dims=((N, 3, 32, 32), (8, 3, 3, 3)) + ((),) * 7,
                              types=("float", "float", "", "ScalarList", "ScalarList", "ScalarList",
                                     "Scalar", "ScalarList", "Scalar"),
                              concrete=("", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1")))
    assert recorded.flops["fp32"] == conv_flops(N, 8, 16, 16, 3, 3, 3) and not recorded.assumptions


def test_depthwise_groups_follow_from_the_weight_without_concrete_inputs():
    # 32 channels, weight 32 x 1 x 3 x 3: groups 32, each output sums 1 channel x 9 taps
    w = op_work(OpCall("aten::cudnn_convolution", dims=((N, 32, 10, 10), (32, 1, 3, 3)) + ((),) * 7,
                       types=("float", "float") + ("GenericList",) * 3 + ("Int", "Bool", "Bool", "Bool")))
    assert w.flops["fp32"] == conv_flops(N, 32, 8, 8, 1, 3, 3)


def test_backward_solves_the_stride_from_its_grad_output():
    # convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
    # transposed, output_padding, groups, output_mask), none of them recorded
    gl = "GenericList"
    w = op_work(OpCall("aten::convolution_backward",
                       dims=((N, 8, 16, 16), (N, 3, 32, 32), (8, 3, 3, 3)) + ((),) * 8,
                       types=("float", "float", "float", gl, gl, gl, gl, "Bool", gl, "Int", gl)))
    assert w.flops["fp32"] == 2 * conv_flops(N, 8, 16, 16, 3, 3, 3)  # grad input + grad weight
    assert any("inferred from the grad output" in a for a in w.assumptions)
    assert conv.ASSUMED_NOTE not in w.assumptions


def test_pooling_without_concrete_inputs_says_its_window_is_assumed():
    w = op_work(OpCall("aten::max_pool2d_with_indices", dims=((N, 8, 16, 16),) + ((),) * 5,
                       types=("float",) + ("GenericList",) * 4 + ("Bool",)))
    assert pooling.ASSUMED_NOTE in w.assumptions


# -- the reader infers from the next operator -----------------------------------------------------

def resnet_stem():
    x, w = [N, 3, 224, 224], [64, 3, 7, 7]
    return conv_chain(0, x, w) + batch_norm(110, [N, 64, 112, 112])


def test_stem_convolution_stride_from_the_batch_norm_that_reads_its_output():
    r = kineto.parse({"traceEvents": resnet_stem()})
    # 7x7 stride 2 padding 3 -> 112 x 112 (stride 1 would be 218 x 218: 3.8x the work)
    assert flops_of(r, "aten::cudnn_convolution") == conv_flops(N, 64, 112, 112, 3, 7, 7)
    assert sum(sum(k.flops.values()) for k in r.kernels if "conv" in k.operator) == \
        conv_flops(N, 64, 112, 112, 3, 7, 7)                           # counted once along the chain
    assert notes_of(r, "aten::cudnn_convolution") == {geometry.CONV_NOTE}


def test_same_shapes_with_different_strides_each_get_their_own():
    x, w = [N, 16, 32, 32], [16, 16, 3, 3]
    events = (conv_chain(0, x, w) + batch_norm(110, [N, 16, 32, 32])       # stride 1, padding 1
              + conv_chain(200, x, w) + batch_norm(310, [N, 16, 16, 16]))  # stride 2, padding 1
    r = kineto.parse({"traceEvents": events})
    assert flops_of(r, "aten::cudnn_convolution") == (conv_flops(N, 16, 32, 32, 16, 3, 3)
                                                      + conv_flops(N, 16, 16, 16, 16, 3, 3))


def test_a_reader_of_other_channels_settles_nothing_and_the_row_says_stride_one_is_assumed():
    x, w = [N, 3, 224, 224], [64, 3, 7, 7]
    events = conv_chain(0, x, w) + batch_norm(110, [N, 32, 112, 112])   # 32 channels: not this output
    r = kineto.parse({"traceEvents": events})
    assert flops_of(r, "aten::cudnn_convolution") == conv_flops(N, 64, 218, 218, 3, 7, 7)
    assert notes_of(r, "aten::cudnn_convolution") == {conv.ASSUMED_NOTE}


def test_a_reader_on_another_thread_is_not_the_consumer():
    x, w = [N, 3, 224, 224], [64, 3, 7, 7]
    events = conv_chain(0, x, w) + batch_norm(110, [N, 64, 112, 112], tid=2)
    r = kineto.parse({"traceEvents": events})
    assert notes_of(r, "aten::cudnn_convolution") == {conv.ASSUMED_NOTE}


def test_recorded_concrete_inputs_are_not_replaced():
    x, w = [N, 3, 224, 224], [64, 3, 7, 7]
    events = conv_chain(0, x, w) + batch_norm(110, [N, 64, 112, 112])
    for e in events[:4]:       # stride 4, padding 3 recorded (the reader must not pick 2)
        a = e["args"]
        stride_at, pad_at = {"aten::conv2d": (3, 4), "aten::convolution": (3, 4),
                             "aten::_convolution": (3, 4), "aten::cudnn_convolution": (3, 2)}[e["name"]]
        a["Concrete Inputs"] = [""] * len(a["Input Dims"])
        a["Concrete Inputs"][stride_at], a["Concrete Inputs"][pad_at] = "[4, 4]", "[3, 3]"
    r = kineto.parse({"traceEvents": events})
    assert flops_of(r, "aten::cudnn_convolution") == conv_flops(N, 64, 56, 56, 3, 7, 7)
    assert notes_of(r, "aten::cudnn_convolution") == {""}


def test_max_pool_window_and_adaptive_output_from_their_readers():
    gl = "GenericList"
    x = [N, 64, 112, 112]
    events = [
        op("aten::max_pool2d", 0, 50, [x, [], [], [], [], []], ["float", gl, gl, gl, gl, "Bool"]),
        op("aten::max_pool2d_with_indices", 1, 48, [x, [], [], [], [], []], ["float", gl, gl, gl, gl, "Bool"]),
        *conv_chain(60, [N, 64, 56, 56], [64, 64, 1, 1]),
        op("aten::adaptive_avg_pool2d", 200, 20, [[N, 64, 56, 56], []], ["float", gl]),
        op("aten::flatten", 230, 5, [[N, 64, 1, 1], [], []], ["float", "Int", "Int"]),
    ]
    r = kineto.parse({"traceEvents": events})
    pool = [k for k in r.kernels if k.operator == "aten::max_pool2d_with_indices"]
    out = N * 64 * 56 * 56
    # input read, output written, int64 indices written: the bytes follow from the output
    assert sum(k.bytes["DRAM"] for k in pool) == N * 64 * 112 * 112 * 4 + out * 4 + out * 8
    assert sum(sum(k.flops.values()) for k in pool) == out * 4           # a 2x2 window assumed
    assert {k.assumed for k in pool} == {geometry.WINDOW_NOTE}
    adaptive = [k for k in r.kernels if k.operator == "aten::adaptive_avg_pool2d"]
    assert sum(sum(k.flops.values()) for k in adaptive) == N * 64 * 56 * 56 + N * 64
    assert {k.assumed for k in adaptive} == {geometry.ADAPTIVE_NOTE}


# -- the above-roof warning names the model's assumption ------------------------------------------

def gpu() -> Device:
    return Device("toy-gpu", "gpu", {"fp32": Ceiling(10e12)},
                  {"DRAM": MemoryLevel("DRAM", Ceiling(1e12))}, provenance={"method": "measured"})


def test_above_roof_advice_says_the_model_assumption_not_the_counters():
    ks = KernelSet.from_kernels([
        Kernel("assumed", modelled=True, assumed=conv.ASSUMED_NOTE, operator="aten::conv2d"),
        Kernel("modelled", modelled=True, operator="aten::mm"),
        Kernel("counted")])
    first = above_roof_advice(ks, 0, gpu())
    assert conv.ASSUMED_NOTE in first and "counters" not in first.replace("no counter is involved", "")
    assert "operator model" in above_roof_advice(ks, 1, gpu())
    assert "check the counters" in above_roof_advice(ks, 2, gpu())


# -- a GPU trace that lost its kernels ------------------------------------------------------------

def test_gpu_launches_without_kernel_events_are_refused_in_one_line():
    launch = {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5,
              "dur": 3, "args": {"correlation": 9}}
    events = [op("aten::mm", 0, 50, [[64, 64], [64, 64]], ["float", "float"]), launch]
    with pytest.raises(InputError, match="GPU trace without kernel events") as info:
        kineto.parse({"traceEvents": events})
    assert "cudaLaunchKernel" in str(info.value) and "\n" not in str(info.value)


def test_nccl_job_without_kernel_events_is_refused():
    events = [op("aten::mm", 0, 50, [[64, 64], [64, 64]], ["float", "float"])]
    with pytest.raises(InputError, match="nccl"):
        kineto.parse({"traceEvents": events, "distributedInfo": {"backend": "nccl", "rank": 0}})


def test_listed_gpus_alone_keep_a_cpu_trace_with_its_warning():
    events = [op("aten::mm", 0, 50, [[64, 64], [64, 64]], ["float", "float"])]
    r = kineto.parse({"traceEvents": events, "deviceProperties": [{"id": 0, "name": "NVIDIA A100"}],
                      "distributedInfo": {"backend": "gloo"}})
    assert r.device.kind == "cpu"
    assert any("holds no GPU activity" in w.message for w in r.warnings)
