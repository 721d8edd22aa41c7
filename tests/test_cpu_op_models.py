"""Operator models the CPU traces needed (issue 29): oneDNN's recurrent
layers, resampling, tensor lists torch 2.14 records as ``[]``, random-number
generation, ``addcmul_(grad, grad)`` and causal attention's convention.
Formulas are checked by hand on shapes built here, and against real calls
and torch's own counts recorded once by tests/fixtures/cpu_ops/make.py
(torch is not needed here)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from roofline.ops import RNG_NOTE, OpCall, generates_random, op_work, unknown_reason
from roofline.ops.attention import CAUSAL_NOTE
from roofline.ops.elementwise import ALIAS_NOTE
from roofline.ops.optimizer import SIBLING_NOTE
from roofline.ops.rnn import GATE_NOTE

from test_ops import call, total

FIXTURE = Path(__file__).parent / "fixtures" / "cpu_ops" / "calls.json"


def _frozen(x):
    return tuple(_frozen(v) for v in x) if isinstance(x, list) else x


def _case(name):
    (case,) = [c for c in json.loads(FIXTURE.read_text())["cases"] if c["case"] == name]
    return case


def _recorded(c):
    return OpCall(c["name"], _frozen(c["dims"]), _frozen(c["types"]), _frozen(c["strides"]),
                  _frozen(c["concrete"]))


# -- recurrent layers -----------------------------------------------------------------------

def _rnn_layer(t, b, i, h, gates=4, train=True, batch_first=False):
    """mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse,
    batch_sizes, mode, hidden_size, num_layers, has_biases, bidirectional, batch_first, train)"""
    g = gates * h
    x = (b, t, i) if batch_first else (t, b, i)
    return call("aten::mkldnn_rnn_layer", x, (g, i), (g, h), (g,), (g,), (b, h), (b, h), False, [],
                {4: 2, 3: 3, 1: 1}[gates], h, 1, True, False, batch_first, train)


def test_lstm_layer_forward_is_the_gates_products():
    t, b, i, h = 35, 20, 650, 650                    # the PyTorch word-language-model LSTM
    w = op_work(_rnn_layer(t, b, i, h))
    # per step: [B, I] x [I, 4H] and [B, H] x [H, 4H]
    assert w.flops == {"fp32": 2 * t * b * 4 * h * (i + h)} and w.matrix and w.family == "gemm"
    reads = t * b * i + 4 * h * i + 4 * h * h + 2 * 4 * h + 2 * b * h
    writes = t * b * h + 2 * b * h                   # output, hy, cy
    assert w.bytes == 4 * (reads + writes)
    assert GATE_NOTE in w.assumptions and any("workspace" in a for a in w.assumptions)
    # inference keeps no workspace, and says nothing of it
    assert not any("workspace" in a for a in op_work(_rnn_layer(t, b, i, h, train=False)).assumptions)


def test_gru_layer_has_three_gates_and_batch_first_the_same_steps():
    t, b, i, h = 12, 3, 40, 24
    assert total(op_work(_rnn_layer(t, b, i, h, gates=3))) == 2 * t * b * 3 * h * (i + h)
    assert total(op_work(_rnn_layer(t, b, i, h, batch_first=True))) == 2 * t * b * 4 * h * (i + h)


def test_lstm_layer_backward_is_twice_the_forward():
    t, b, i, h = 35, 20, 650, 650
    g = 4 * h
    ws = ("unsigned char", (123456,))
    back = call("aten::mkldnn_rnn_layer_backward", (t, b, i), (g, i), (g, h), (g,), (g,), (b, h), (b, h),
                (t, b, h), (b, h), (b, h), (t, b, h), None, None, False, 2, h, 1, True, True, False, [],
                False, ws)
    w = op_work(back)
    assert total(w) == 2 * (2 * t * b * g * (i + h)) and w.matrix
    reads = (t * b * i + g * i + g * h + 2 * g + 2 * b * h      # input, weights, hx, cx
             + t * b * h + 2 * b * h + t * b * h)               # output, hy, cy, grad output
    writes = t * b * i + g * i + g * h + 2 * g + 2 * b * h      # their grads
    assert w.bytes == 4 * (reads + writes) + 123456             # and the workspace read


def test_recorded_lstm_layers_match_torch_counter_on_the_same_cell_written_with_mm():
    case = _case("lstm")
    torch_counts = case["torch_mm_flops_by_layer_input"]
    for c in case["calls"]:
        w = op_work(_recorded(c))
        inputs = c["dims"][0][2]                                  # layer 1: 16, layer 2: 32
        kind = "backward" if c["name"].endswith("backward") else "forward"
        assert total(w) == torch_counts[str(inputs)][kind]
    h, t, b = case["hidden"], case["steps"], case["batch"]
    assert torch_counts["16"]["forward"] == 2 * t * b * 4 * h * (16 + h)


def test_recurrent_layer_with_disagreeing_shapes_is_not_modelled():
    bad = call("aten::mkldnn_rnn_layer", (7, 4, 16), (128, 17), (128, 32), (128,), (128,), (4, 32),
               (4, 32), False, [], 2, 32, 1, True, False, False, True)
    assert op_work(bad) is None


# -- resampling -----------------------------------------------------------------------------

X = (2, 3, 8, 8)
NX = math.prod(X)


@pytest.mark.parametrize("name, extra, per_output", [
    ("aten::upsample_nearest2d", (), 0),
    ("aten::_upsample_nearest_exact2d", (), 0),
    # Interpolate<2> with 2 taps: 2 x (2 products + 1 sum) inner, then 2 products + 1 sum
    ("aten::upsample_bilinear2d", (False,), 2 * 3 + 3),
    # 4 taps: inner 4 x (4 products + 3 sums), outer 4 products + 3 sums
    ("aten::upsample_bicubic2d", (True,), 4 * 7 + 7),
])
def test_upsample_2d_flops_per_output_and_compulsory_bytes(name, extra, per_output):
    w = op_work(call(name, X, [13, 17], *extra, None, None))
    out = 2 * 3 * 13 * 17
    assert total(w) == per_output * out and w.family == "pooling"
    assert w.bytes == 4 * (NX + out)                     # input read once, output written once


def test_upsample_1d_and_3d():
    lin = op_work(call("aten::upsample_linear1d", (2, 3, 9), [20], False, None))
    assert total(lin) == 3 * 2 * 3 * 20 and lin.bytes == 4 * (54 + 120)
    tri = op_work(call("aten::upsample_trilinear3d", (1, 2, 4, 5, 6), [7, 7, 7], False, None, None, None))
    assert total(tri) == (2 * (2 * 3 + 3) + 3) * 2 * 343          # 21 per output
    near = op_work(call("aten::upsample_nearest3d", (1, 2, 4, 5, 6), [8, 10, 12], None, None, None))
    assert not near.flops and near.bytes == 4 * (240 + 1920)


def test_upsample_vec_overload_sizes_the_output_from_scale_factors():
    # upsample_nearest2d.vec(input, output_size=None, scale_factors="[2., 2.]"), as recorded
    vec = OpCall("aten::upsample_nearest2d", (X, (), ()), ("float", "", "ScalarList"), (),
                 ("", "", "[2., 2.]"))
    assert op_work(vec).bytes == 4 * (NX + 2 * 3 * 16 * 16)
    bf16 = op_work(call("aten::upsample_bilinear2d", ("c10::BFloat16", X), None, False, [1.5, 1.5]))
    assert bf16.flops == {"fp32": 9 * 2 * 3 * 12 * 12}           # opmath: fp32 units
    assert bf16.bytes == 2 * (NX + 2 * 3 * 12 * 12)
    assert op_work(call("aten::upsample_bilinear2d", X, None, False, None)) is None


def test_antialiased_downsampling_counts_each_outputs_window():
    # width 8 -> 4 (scale 2, support 2), height unchanged: one pass. Windows
    # [xmin, xmax) = [0, 3), [1, 5), [3, 7), [5, 8): 3 + 4 + 4 + 3 = 14 taps
    w = op_work(call("aten::_upsample_bilinear2d_aa", X, [8, 4], False, None, None))
    assert total(w) == 2 * 3 * 8 * (2 * 14 - 4)                   # 2 taps - 1 per output
    assert w.bytes == 4 * (NX + 2 * 3 * 8 * 4)
    back = op_work(call("aten::_upsample_bilinear2d_aa_backward", (2, 3, 8, 4), [8, 4], list(X), False,
                        None, None))
    # per output: every (row tap, column tap) pair, 3 FLOP. The backward keeps the rows'
    # windows though their size is unchanged: scale 1, support 1, center i + 0.5 ->
    # [i, min(i + 2, 8)): 2 taps for rows 0-6, 1 for row 7 (the second weighs 0)
    rows = 7 * 2 + 1
    assert total(back) == 2 * 3 * 3 * rows * 14
    assert back.bytes == 4 * (2 * 3 * 8 * 4 + NX)


def test_antialiased_taps_agree_with_torchs_weights():
    from roofline.ops.upsample import aa_taps
    rows = _case("aa_weights")["rows"]
    for r in rows:
        taps, bounded = aa_taps(r["in"], r["out"], r["in"] / r["out"], {"bilinear": 2, "bicubic": 4}[r["mode"]])
        assert not bounded
        if r["out"] <= r["in"]:
            assert taps == r["nonzero"], r                       # downsampling: every tap weighs
        else:
            assert r["nonzero"] <= taps <= r["nonzero"] + r["out"], r  # an edge tap may weigh 0


def test_upsample_backward():
    near = op_work(call("aten::upsample_nearest2d_backward", (2, 3, 16, 16), [16, 16], list(X), None, None))
    assert total(near) == 2 * 3 * 256                               # one addition per grad output
    assert near.bytes == 4 * (2 * 3 * 256 + NX)
    bil = op_work(call("aten::upsample_bilinear2d_backward", (2, 3, 13, 17), [13, 17], list(X), False,
                       None, None))
    assert total(bil) == 2 * 3 * 13 * 17 * 4 * 3                  # 4 taps x (2 products + 1 sum)


def test_every_recorded_upsample_call_is_modelled_with_torchs_output_size():
    case = _case("upsample")
    forwards = [c for c in case["calls"] if not c["name"].endswith("_backward")]
    # each forward is recorded twice (the .vec overload and the call it makes)
    for c, shape in zip(forwards[::2], case["output_shapes"]):
        for rec in (c, forwards[forwards.index(c) + 1]):
            w = op_work(_recorded(rec))
            assert w is not None, rec
            assert w.bytes == 4 * (math.prod(rec["dims"][0]) + math.prod(shape)), rec
    for c in case["calls"]:
        if c["name"].endswith("_backward"):
            w = op_work(_recorded(c))
            assert w is not None and total(w) > 0, c


# -- tensor lists recorded as [] (torch 2.14) ------------------------------------------------

def _blank_lists(c):
    """The call as torch 2.14 records it: every TensorList's dims []."""
    dims = [[] if t == "TensorList" else d for d, t in zip(c["dims"], c["types"])]
    return OpCall(c["name"], _frozen(dims), _frozen(c["types"]), (), _frozen(c["concrete"]))


def test_fused_adamw_with_recorded_lists_and_with_empty_ones():
    (c,) = _case("fused_adamw")["calls"]
    n = _case("fused_adamw")["parameters"]
    w = op_work(_recorded(c))
    assert total(w) == (12 + 2) * n and w.bytes == 7 * 4 * n     # weight decay 0.01: +2
    blank = _blank_lists(c)
    assert op_work(blank) is None                                  # unknown, not zero
    assert "unknown" in unknown_reason(blank) and "[]" in unknown_reason(blank)


def test_foreach_lists_recorded_empty_are_unknown_or_sized_by_a_sibling():
    params = [(128, 128), (128,)]
    n = 128 * 128 + 128
    empty = call("aten::_foreach_mul_", params, 0.9)
    empty = OpCall(empty.name, ((), ()), empty.types, (), empty.concrete)
    assert op_work(empty) is None and "unknown" in unknown_reason(empty)
    # _foreach_lerp_(exp_avgs, grads, weight) with exp_avgs recorded [] and grads sized
    lerp = call("aten::_foreach_lerp_", params, params, 0.1)
    lerp = OpCall(lerp.name, ((),) + lerp.dims[1:], lerp.types, (), lerp.concrete)
    w = op_work(lerp)
    assert total(w) == 3 * n and w.bytes == 4 * 3 * n and SIBLING_NOTE in w.assumptions
    assert unknown_reason(call("aten::_foreach_mul_", params, 0.9)) is None      # sized: no reason
    assert unknown_reason(call("aten::no_such_op", (4,))) is None


# -- random numbers -------------------------------------------------------------------------

@pytest.mark.parametrize("c", [
    call("aten::bernoulli_", (64, 128), 0.9, None),
    call("aten::bernoulli_", (4, 4), (4, 4), None),
    call("aten::bernoulli", (4, 4), None),
    call("aten::normal_", (64, 128), 0.0, 1.0, None),
    call("aten::uniform_", (64, 128), 0.0, 1.0, None),
    call("aten::native_dropout", (64, 128), 0.1, True),
    call("aten::multinomial", (8, 1000), 5, False, None),
], ids=lambda c: c.name)
def test_random_number_operators_carry_the_marker(c):
    w = op_work(c)
    assert RNG_NOTE in w.assumptions and generates_random(c.name)
    if c.name != "aten::native_dropout":
        assert not w.flops                                          # the numbers are not FLOPs
    else:
        assert total(w) == 2 * 64 * 128                             # mask and scale products


def test_random_fills_write_their_buffer_once_and_plain_fills_are_not_random():
    b = op_work(call("aten::bernoulli_", (64, 128), 0.9, None))
    assert b.bytes == 4 * 64 * 128                                  # written, not read
    fill = op_work(call("aten::fill_", (64, 128), 0.0))
    assert fill.bytes == b.bytes and RNG_NOTE not in fill.assumptions
    assert not generates_random("aten::fill_") and not generates_random("aten::randn")
    for c in _case("random")["calls"]:
        assert (RNG_NOTE in op_work(_recorded(c)).assumptions) == (c["name"] != "aten::fill_")


# -- addcmul_(grad, grad) ---------------------------------------------------------------------

def test_a_trace_records_one_tensor_twice_as_it_records_two_alike_tensors():
    same, distinct = _case("addcmul_same_then_distinct")["calls"]
    assert same == distinct                                         # nothing tells them apart


def test_addcmul_reads_alike_factors_once_and_says_so():
    g = (1024, 1024)
    w = op_work(call("aten::addcmul_", g, g, g, 0.001))
    n = 1024 * 1024
    assert w.bytes == 4 * 3 * n and ALIAS_NOTE in w.assumptions  # self r/w, grad once
    assert total(w) == 3 * n
    other = op_work(call("aten::addcmul_", g, g, (1024, 1), 0.001))
    assert other.bytes == 4 * (3 * n + 1024) and ALIAS_NOTE not in other.assumptions
    # addcdiv_(exp_avg, denom) divides two different tensors: both read
    div = op_work(call("aten::addcdiv_", g, g, g, -0.01))
    assert div.bytes == 4 * 4 * n and ALIAS_NOTE not in div.assumptions
    params = [(128, 128), (128,)]
    fe = op_work(call("aten::_foreach_addcmul_", params, params, params, 0.001))
    assert fe.bytes == 4 * 3 * (128 * 128 + 128) and ALIAS_NOTE in fe.assumptions


# -- causal attention -----------------------------------------------------------------------

def test_causal_attention_says_its_convention():
    q = (2, 4, 128, 64)
    causal = op_work(call("aten::_scaled_dot_product_flash_attention_for_cpu", q, q, q, 0.0, True, None, None))
    full = op_work(call("aten::_scaled_dot_product_flash_attention_for_cpu", q, q, q, 0.0, False, None, None))
    assert CAUSAL_NOTE in causal.assumptions and CAUSAL_NOTE not in full.assumptions
    assert total(causal) / total(full) == 129 / 256                  # (L + 1) / 2L


def test_causal_attention_against_torchs_counter():
    case = _case("sdpa_causal")
    (c,) = case["calls"]
    w = op_work(_recorded(c))
    counts = case["torch_flops"]
    # torch counts the math path's full products, causal or not; this model the kept pairs
    assert counts["math_causal_True"] == counts["math_causal_False"]
    assert total(w) / counts["math_causal_True"] == 129 / 256
    # and has no formula for the CPU kernel: 0
    assert counts["flash_cpu_causal"] == 0
    assert "aten._scaled_dot_product_flash_attention_for_cpu" not in case["flop_counter_attention_ops"]
