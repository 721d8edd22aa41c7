"""aiter's SageAttention launches (roofline.ops.sage) against a hand count,
on the shapes recorded in AMD-AGI/TraceLens
tests/traces/inference/xdit_flux.1_aiter_sage (Flux.1 on an MI300X, commit
171dd74721ca1ec45709e5805b68ae1f65e27811; the 7 MB trace is not vendored:
the shapes are written here as the trace records them)."""
from __future__ import annotations

from roofline.ops import OpCall, has_model, op_work

I8, F8, BF16, F32, I32 = "signed char", "c10::Float8_e4m3fnuz", "c10::BFloat16", "float", "int"
QKV = (1, 24, 768, 128)


def _call(name, dims, types):
    return OpCall(name, tuple(tuple(d) for d in dims), tuple(types), concrete=("",) * len(dims))


def _fwd(q=QKV, k=QKV, q_scale=(1, 24, 3), k_scale=(1, 24, 6)):
    # sage_fwd(Q, K, V, bias, Q_Descale, K_Descale, V_Descale, 8 strides, LSE, Out, ...):
    # the launch as recorded, with None pointers and strides as scalars
    dims = [q, k, QKV, (), q_scale, k_scale, (1, 24, 128)] + [()] * 9 + [QKV] + [()] * 35 + [(1,)] * 3
    types = [I8, I8, F8, "Scalar", F32, F32, F32] + ["Scalar"] * 9 + [BF16] + ["Scalar"] * 35 + [I32] * 3
    return _call("sage_fwd_1", dims, types)


def test_sage_forward_counts_int8_qk_and_fp8_pv_per_query_key_pair():
    w = op_work(_fwd())
    pairs = 1 * 24 * 768 * 768
    assert w.flops == {"int8": 2 * pairs * 128, "fp8": 2 * pairs * 128}
    elements = 768 * 24 * 128
    scales = 4 * 24 * (3 + 6 + 128)
    assert w.bytes == elements * (1 + 1 + 1 + 2) + scales + 3 * 4
    assert w.matrix and w.family == "attention"
    assert any("IS_CAUSAL" in a for a in w.assumptions)


def test_sage_forward_reads_heads_from_the_descale_whatever_the_layout():
    # NHD layout [B, L, H, D] with 8 KV heads of 2048 keys: heads from the descales' second dimension
    w = op_work(_fwd(q=(1, 768, 24, 128), k=(1, 2048, 8, 128), k_scale=(1, 8, 16)))
    assert w.flops["int8"] == 2 * (24 * 768 * 2048) * 128


def test_sage_quantize_two_flops_per_element_and_every_tensor_once():
    dims = [QKV, QKV, (1, 24, 3), QKV, QKV, (1, 24, 6), QKV, QKV, (1, 24, 128)] + [()] * 25
    types = [BF16, I8, F32, BF16, I8, F32, BF16, F8, F32] + ["Scalar"] * 25
    w = op_work(_call("sage_quant_kernel_0", dims, types))
    n = 768 * 24 * 128
    assert w.flops == {"fp32": 2 * 3 * n}
    assert w.bytes == 3 * n * 2 + 3 * n + 4 * 24 * (3 + 6 + 128)


def test_only_the_sage_launch_names_are_taken():
    assert has_model("sage_fwd_1") and has_model("sage_fwd") and has_model("sage_quant_kernel_0")
    assert not has_model("sage_fwd_mxfp4") and not has_model("my_sage_fwd_1")
