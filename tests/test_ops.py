"""Operator cost models (roofline.ops): hand-computed FLOPs and bytes, and
torch's own FLOP counts for the matrix operators (recorded once by
tests/fixtures/torch_ops/make.py; torch is not needed here)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from roofline.ops import MODELLED_OPERATORS, OpCall, has_model, is_view, op_work, tensor_core_key
from roofline.ops.attention import causal_pairs

FIXTURE = Path(__file__).parent / "fixtures" / "torch_ops" / "calls.json"


def call(name, *args, concrete=None):
    """args: a shape tuple for a tensor (dtype float), ("dtype", shape), or a
    Python literal for a scalar argument."""
    dims, types, conc = [], [], []
    for a in args:
        if isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], str):
            dims.append(a[1]), types.append(a[0]), conc.append("")
        elif isinstance(a, tuple):
            dims.append(a), types.append("float"), conc.append("")
        elif a is None:
            dims.append(()), types.append(""), conc.append("")
        elif isinstance(a, list) and a and isinstance(a[0], tuple):
            dims.append(tuple(a)), types.append("TensorList"), conc.append("")
        else:
            dims.append(()), types.append("ScalarList" if isinstance(a, list) else "Scalar")
            conc.append(json.dumps(a).replace("true", "True").replace("false", "False")
                        if not isinstance(a, str) else a)
    return OpCall(name, tuple(dims), tuple(types), (), tuple(conc))


def total(w):
    return sum(w.flops.values())


def _frozen(x):
    return tuple(_frozen(v) for v in x) if isinstance(x, list) else x


# -- torch's own counts ---------------------------------------------------------------------

def _fixture_cases():
    return json.loads(FIXTURE.read_text())["cases"]


# torch's counter sizes the grad-weight convolution of a grouped layer as if
# it were not grouped (it builds it from the transposed input and grad-output
# shapes, where the groups are lost): it counts groups x the real work.
GROUPED_BACKWARD = {"conv2d_strided_grouped_backward": 2, "conv_transpose2d_backward": 2}


def _per_name(case):
    per_name = {}
    for c in case["calls"]:
        w = op_work(OpCall(c["name"], _frozen(c["dims"]), _frozen(c["types"]), (), _frozen(c["concrete"])))
        assert w is not None, c
        assert w.matrix and w.family in ("gemm", "convolution"), c
        per_name[c["name"]] = per_name.get(c["name"], 0.0) + total(w)
    return per_name


@pytest.mark.parametrize("case", [c for c in _fixture_cases() if c["case"] not in GROUPED_BACKWARD],
                         ids=lambda c: c["case"])
def test_matrix_flops_equal_torch_flop_counter(case):
    assert _per_name(case) == pytest.approx(case["torch_flops"], rel=0, abs=0)


@pytest.mark.parametrize("case", [c for c in _fixture_cases() if c["case"] in GROUPED_BACKWARD],
                         ids=lambda c: c["case"])
def test_grouped_backward_differs_from_torch_by_its_groups_on_grad_weight(case):
    ours, groups = _per_name(case), GROUPED_BACKWARD[case["case"]]
    forward = case["torch_flops"]["aten::convolution"]
    assert ours["aten::convolution"] == forward
    # ours: grad input + grad weight = 2 x forward; torch: forward + groups x forward
    assert ours["aten::convolution_backward"] == 2 * forward
    assert case["torch_flops"]["aten::convolution_backward"] == (1 + groups) * forward


def test_bf16_matmul_counts_on_the_bf16_units():
    (case,) = [c for c in _fixture_cases() if c["case"] == "mm_bf16"]
    c = case["calls"][0]
    w = op_work(OpCall(c["name"], _frozen(c["dims"]), _frozen(c["types"]), (), _frozen(c["concrete"])))
    assert set(w.flops) == {"bf16"} and w.bytes == 2 * (32 * 64 + 64 * 16 + 32 * 16)
    assert tensor_core_key("bf16", w.matrix) == "tensor_bf16"


# -- matrix products ------------------------------------------------------------------------

def test_addmm_reads_bias_and_operands_and_writes_the_product_once():
    w = op_work(call("aten::addmm", (256,), (64, 128), (128, 256), 1, 1))
    assert w.flops == {"fp32": 2 * 64 * 128 * 256} and w.family == "gemm" and w.matrix
    assert w.bytes == 4 * (256 + 64 * 128 + 128 * 256 + 64 * 256)


def test_linear_and_matmul_broadcast_leading_dimensions():
    assert total(op_work(call("aten::linear", (8, 5, 32), (16, 32), (16,)))) == 2 * 40 * 32 * 16
    assert total(op_work(call("aten::matmul", (7, 1, 4, 5), (3, 5, 6)))) == 2 * 21 * 4 * 5 * 6
    assert total(op_work(call("aten::matmul", (5,), (5,)))) == 10


def test_einsum_takes_its_equation_from_the_trace():
    w = op_work(call("aten::einsum", "bhqd,bhkd->bhqk", [(2, 4, 8, 16), (2, 4, 10, 16)]))
    assert total(w) == 2 * 2 * 4 * 8 * 10 * 16
    assert w.assumptions  # tensor lists carry no dtype: says fp32 was assumed
    assert op_work(call("aten::einsum", "", [(2, 3), (3, 4)])) is None


def test_half_and_fp32_matrix_work_on_gpu_units():
    assert tensor_core_key("fp16", True) == "tensor_fp16"
    assert tensor_core_key("fp32", True) == "fp32"
    assert tensor_core_key("fp32", True, tf32=True) == "tensor_tf32"
    assert tensor_core_key("fp16", False) == "fp16"   # element-wise stays on the vector units


# -- convolutions ---------------------------------------------------------------------------

CONV = dict(n=2, c=8, h=17, w=15, k=12, r=3, s=3, stride=2, pad=1, dil=2, groups=2)


def _conv_out(size, taps, stride, pad, dil):
    return (size + 2 * pad - dil * (taps - 1) - 1) // stride + 1


def _conv_touched(p):
    """Input elements some output reads, by brute force: with stride 2 and
    dilation 2 only the odd rows and columns are ever read (8 of 17, 7 of 15)."""
    oh = _conv_out(p["h"], p["r"], p["stride"], p["pad"], p["dil"])
    ow = _conv_out(p["w"], p["s"], p["stride"], p["pad"], p["dil"])
    rows = {o * p["stride"] - p["pad"] + k * p["dil"] for o in range(oh) for k in range(p["r"])}
    cols = {o * p["stride"] - p["pad"] + k * p["dil"] for o in range(ow) for k in range(p["s"])}
    rows &= set(range(p["h"]))
    cols &= set(range(p["w"]))
    return p["n"] * p["c"] * len(rows) * len(cols)


def _conv_macs(p):
    oh = _conv_out(p["h"], p["r"], p["stride"], p["pad"], p["dil"])
    ow = _conv_out(p["w"], p["s"], p["stride"], p["pad"], p["dil"])
    return p["n"] * p["k"] * oh * ow * (p["c"] // p["groups"]) * p["r"] * p["s"], oh, ow


def _conv_call(name, p):
    x, wt = (p["n"], p["c"], p["h"], p["w"]), (p["k"], p["c"] // p["groups"], p["r"], p["s"])
    two = [p["stride"]] * 2, [p["pad"]] * 2, [p["dil"]] * 2
    if name == "aten::mkldnn_convolution":   # (self, weight, bias, padding, stride, dilation, groups)
        return call(name, x, wt, (p["k"],), two[1], two[0], two[2], p["groups"])
    return call(name, x, wt, (p["k"],), *two, False, [0, 0], p["groups"])


@pytest.mark.parametrize("name", ["aten::convolution", "aten::_convolution", "aten::mkldnn_convolution"])
def test_strided_dilated_grouped_convolution(name):
    macs, oh, ow = _conv_macs(CONV)
    w = op_work(_conv_call(name, CONV))
    assert w.flops == {"fp32": 2 * macs} and w.family == "convolution"
    p = CONV
    x = _conv_touched(p)                   # the input pixels some output reads
    assert x == p["n"] * p["c"] * 8 * 7
    wt = p["k"] * p["c"] // p["groups"] * p["r"] * p["s"]
    assert w.bytes == 4 * (x + wt + p["k"] + p["n"] * p["k"] * oh * ow)


@pytest.mark.parametrize("mask", [[True, True, True], [True, False, False], [False, True, False],
                                  [False, False, True]])
def test_convolution_backward_by_output_mask(mask):
    p = CONV
    macs, oh, ow = _conv_macs(p)
    x, wt = (p["n"], p["c"], p["h"], p["w"]), (p["k"], p["c"] // 2, 3, 3)
    gy = (p["n"], p["k"], oh, ow)
    w = op_work(call("aten::convolution_backward", gy, x, wt, [p["k"]], [2, 2], [1, 1], [2, 2],
                     False, [0, 0], 2, mask))
    grad_out = math.prod(gy)
    expected = 2 * macs * (mask[0] + mask[1])        # grad bias: bytes only, like the forward's bias
    assert total(w) == expected
    nx, nw = math.prod(x), math.prod(wt)
    # grad input written whole; grad weight reads only the input pixels some output reads
    reads_writes = grad_out + (nw + nx) * mask[0] + (_conv_touched(p) + nw) * mask[1] + p["k"] * mask[2]
    assert w.bytes == 4 * reads_writes


def test_transposed_convolution_output_and_work():
    # input 2x4x5x6, weight 4x3x3x3 (C x K/g x R x S), groups 2 -> K = 6
    w = op_work(call("aten::convolution", (2, 4, 5, 6), (4, 3, 3, 3), None, [2, 2], [1, 1], [1, 1],
                     True, [1, 1], 2))
    assert total(w) == 2 * 2 * 4 * 5 * 6 * 3 * 9            # N C I (K/g) R S
    oh, ow = (5 - 1) * 2 - 2 + 2 + 1 + 1, (6 - 1) * 2 - 2 + 2 + 1 + 1
    assert w.bytes == 4 * (2 * 4 * 5 * 6 + 4 * 3 * 9 + 2 * 6 * oh * ow)


def test_conv1d_and_3d_and_same_padding():
    assert total(op_work(call("aten::conv1d", (3, 4, 20), (5, 4, 3), None, [3], [0], [1], 1))) == \
        2 * 3 * 5 * 6 * 4 * 3
    assert total(op_work(call("aten::conv3d", (1, 2, 6, 7, 8), (4, 2, 3, 3, 3), None, [1], [1], [1], 1))) \
        == 2 * 4 * 6 * 7 * 8 * 2 * 27
    same = op_work(call("aten::conv2d", (1, 3, 10, 10), (4, 3, 3, 3), None, [1, 1], "same", [1, 1], 1))
    assert total(same) == 2 * 4 * 100 * 3 * 9


# -- attention ------------------------------------------------------------------------------

def test_causal_pairs_match_a_brute_force_count():
    for lq in range(0, 7):
        for lk in range(0, 7):
            for bottom in (False, True):
                shift = lk - lq if bottom else 0
                brute = sum(min(max(i + 1 + shift, 0), lk) for i in range(lq))
                assert causal_pairs(lq, lk, bottom) == brute


def test_causal_attention_does_about_half_the_work():
    q = (2, 4, 128, 64)
    full = op_work(call("aten::scaled_dot_product_attention", q, q, q, None, 0.0, False))
    causal = op_work(call("aten::scaled_dot_product_attention", q, q, q, None, 0.0, True))
    assert total(full) == 2 * 8 * 128 * 128 * 64 * 2            # QK^T and PV, 8 heads
    assert total(causal) == 2 * 8 * (128 * 129 // 2) * 64 * 2
    assert full.bytes == causal.bytes == 4 * 4 * math.prod(q)     # Q, K, V read, O written
    assert full.family == "attention" and full.matrix


def test_fused_attention_layouts_and_backward():
    # flash: [B, L, H, E]; scores recomputed in backward: 2.5x the forward
    q, k = ("c10::Half", (2, 256, 8, 64)), ("c10::Half", (2, 512, 8, 64))
    fwd = op_work(call("aten::_flash_attention_forward", q, k, k, None, None, 256, 512, 0.0, False))
    assert fwd.flops == {"fp16": 2 * 2 * 16 * 256 * 512 * 64}
    bwd = op_work(call("aten::_scaled_dot_product_flash_attention_backward",
                       ("c10::Half", (2, 8, 256, 64)), ("c10::Half", (2, 8, 256, 64)),
                       ("c10::Half", (2, 8, 512, 64)), ("c10::Half", (2, 8, 512, 64)),
                       ("c10::Half", (2, 8, 256, 64)), ("float", (2, 8, 256)), None, None, 256, 512,
                       0.0, False))
    assert total(bwd) == 2.5 * 4 * 16 * 256 * 512 * 64 and bwd.assumptions


# -- normalisation, softmax, element-wise, reductions ---------------------------------------

def test_layer_norm_flops_and_bytes():
    x = (16, 64, 256)
    w = op_work(call("aten::native_layer_norm", x, [256], (256,), (256,), 1e-5))
    n = math.prod(x)
    assert w.flops == {"fp32": (4 + 2 + 2) * n} and w.family == "normalization"
    assert w.bytes == 4 * (2 * n + 2 * 256)
    back = op_work(call("aten::native_layer_norm_backward", x, x, [256], (16, 64, 1), (16, 64, 1),
                        (256,), (256,), [True, False, False]))
    assert total(back) == 8 * n


def test_batch_norm_eval_skips_statistics():
    x, c = (8, 32, 10, 10), (32,)
    train = op_work(call("aten::native_batch_norm", x, c, c, c, c, True, 0.1, 1e-5))
    infer = op_work(call("aten::native_batch_norm", x, c, c, c, c, False, 0.1, 1e-5))
    assert total(train) - total(infer) == 4 * math.prod(x)


def test_softmax_half_to_float_widens_the_output():
    w = op_work(call("aten::_softmax", ("c10::Half", (4, 128)), -1, True))
    assert w.flops == {"fp32": 5 * 512} and w.bytes == 2 * 512 + 4 * 512


def test_elementwise_broadcast_inplace_and_write_only():
    add = op_work(call("aten::add", (16, 64, 256), (256,), 1))
    assert add.flops == {"fp32": 16 * 64 * 256} and add.bytes == 4 * (2 * 16 * 64 * 256 + 256)
    add_ = op_work(call("aten::add_", (1000,), (1000,), 1))
    assert add_.bytes == 4 * 3000                           # self read and written, other read
    fill = op_work(call("aten::fill_", (1000,), 0.0))
    assert fill.bytes == 4000 and not fill.flops and fill.family == "copy"
    gelu = op_work(call("aten::gelu", ("c10::BFloat16", (10,)), "tanh"))
    assert gelu.flops == {"fp32": 9 * 10}                  # opmath: fp32 units
    cast = op_work(call("aten::_to_copy", (100,), 5))      # ScalarType 5: half
    assert cast.bytes == 400 + 200
    cmp = op_work(call("aten::lt", (100,), 0.5))
    assert cmp.bytes == 400 + 100                          # bool result
    step = op_work(call("aten::add_", ("long int", ()), ("long int", ()), 1))
    assert not step.flops and step.bytes == 24             # integer counters: bytes only


def test_reductions_size_their_result_from_dims():
    s = op_work(call("aten::sum", (16, 128, 8, 8), [-1, -2], True, None))
    assert total(s) == 16 * 128 * 64 and s.bytes == 4 * (16 * 128 * 64 + 16 * 128)
    m = op_work(call("aten::max", (10, 20), 1, False))
    assert m.bytes == 4 * 200 + 4 * 10 + 8 * 10            # values and int64 indices
    assert op_work(call("aten::max", (10, 20), (10, 20))).family == "elementwise"


def test_pooling_ceil_mode_and_backward():
    w = op_work(call("aten::max_pool2d_with_indices", (1, 3, 7, 7), [2, 2], [2, 2], [0, 0], [1, 1], True))
    out = 3 * 4 * 4                                        # ceil((7 - 2) / 2) + 1 = 4
    assert total(w) == out * 4 and w.bytes == 4 * 147 + 4 * out + 8 * out
    avg = op_work(call("aten::avg_pool2d", (1, 3, 8, 8), [2, 2], [], [0, 0], False, True, None))
    assert total(avg) == 3 * 16 * 5                        # stride defaults to the kernel size


def test_embedding_and_optimizers():
    e = op_work(call("aten::embedding", (1000, 64), ("long int", (8, 32)), -1, False, False))
    assert not e.flops and e.bytes == 8 * 256 + 2 * 256 * 64 * 4
    params = [(128, 128), (128,)]
    n = 128 * 128 + 128
    fe = op_work(call("aten::_foreach_add_", params, params, -0.001))
    assert total(fe) == n and fe.bytes == 4 * 3 * n and fe.family == "optimizer"
    adam = op_work(call("aten::_fused_adam_", params, params, params, params, [], [(), ()],
                        1e-3, 0.9, 0.999, 0.0, 1e-8, False, False, None, None))
    assert total(adam) == 12 * n and adam.bytes == 7 * 4 * n


def test_views_and_allocations_have_no_work_and_unknown_ops_none():
    for name in ("aten::view", "aten::t", "aten::empty", "aten::to", "aten::expand"):
        assert is_view(name) and has_model(name)
        w = op_work(call(name, (4, 4)))
        assert w.bytes == 0 and not w.flops and w.family == "view"
    assert op_work(call("aten::my_custom_op", (4,))) is None and not has_model("aten::my_custom_op")
    assert op_work(call("AddmmBackward0", (4, 4))) is None     # autograd nodes are wrappers
    assert "aten::convolution_backward" in MODELLED_OPERATORS


@pytest.mark.parametrize("name", sorted(MODELLED_OPERATORS))
def test_no_model_raises_on_arguments_it_does_not_expect(name):
    for bad in (call(name), call(name, (0,), 3, "x"), call(name, ("float", (2, 3)), (5, 7, 9), [1, 2]),
                OpCall(name, ((2, 3), "junk"), ("float", "float"), (), ("", ""))):
        w = op_work(bad)
        assert w is None or (w.bytes >= 0 and all(v >= 0 for v in w.flops.values()))
