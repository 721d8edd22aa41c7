"""The custom operators of LLM serving (vLLM, SGLang, FlashAttention):
each model's FLOPs and bytes against a hand count from the shapes a trace
records. The vLLM shapes are those of the B200 gpt-oss trace
(AMD-AGI/TraceLens b200_eager_trace: 888 tokens, hidden 2880 padded to
3072, 128 experts, 8 query heads and 1 KV head of 64 per rank); the others
are written here, each with its count beside it.
"""
from __future__ import annotations

import pytest

from conftest import REALDATA
from corrupt import needs_folder
from roofline import find_device, place
from roofline.core.model import KernelSet
from roofline.importers import kineto, read_profile
from roofline.importers.kineto.serving import _routing, expert_weight_bytes
from roofline.ops import OpCall, has_model, op_work, tensor_core_key, unknown_reason

BF16, FP8, F32, I64, I32, U8 = ("c10::BFloat16", "c10::Float8_e4m3fn", "float", "long int", "int",
                                "unsigned char")
B200 = REALDATA / "kineto_trace" / "AMD-AGI__TraceLens__b200_eager_trace.json.gz"
needs_kineto = needs_folder(REALDATA / "kineto_trace")


def call(name, dims, types, concrete=None):
    return OpCall(name, tuple(tuple(d) if isinstance(d, list) else d for d in dims), tuple(types),
                  concrete=tuple(concrete or [""] * len(dims)))


def test_fused_add_rms_norm_of_the_b200_trace():
    w = op_work(call("_C::fused_add_rms_norm", [[888, 2880], [888, 2880], [2880], []],
                     [BF16, BF16, BF16, "Scalar"], ["", "", "", "1e-05"]))
    x = 888 * 2880
    assert w.flops == {"fp32": 5 * x}                      # add, square, sum, scale, weight
    assert w.bytes == 2 * 2 * x * 2 + 2880 * 2              # input and residual read and written
    assert w.family == "normalization" and not w.matrix


def test_rms_norm_of_the_b200_trace():
    w = op_work(call("_C::rms_norm", [[888, 2880], [888, 2880], [2880], []], [BF16, BF16, BF16, "Scalar"]))
    assert w.flops == {"fp32": 4 * 888 * 2880}
    assert w.bytes == 2 * 888 * 2880 * 2 + 2880 * 2


def test_rotary_embedding_of_the_b200_trace():
    # positions [888], query [888, 8 x 64], key [888, 1 x 64], head 64, cache [131072, 64]
    w = op_work(call("_C::rotary_embedding", [[888], [888, 512], [888, 64], [], [131072, 64], []],
                     [I64, BF16, BF16, "Scalar", BF16, "Scalar"], ["", "", "", "64", "", "True"]))
    rotated = 888 * 512 + 888 * 64
    assert w.flops == {"fp32": 3 * rotated}                  # 6 per rotated pair
    assert w.bytes == 2 * rotated * 2 + 888 * 8 + 888 * 64 * 2   # q, k in place; positions; cache rows


def test_reshape_and_cache_flash_into_an_fp8_cache():
    w = op_work(call("_C_cache_ops::reshape_and_cache_flash",
                     [[888, 1, 64], [888, 1, 64], [4213816, 16, 1, 64], [4213816, 16, 1, 64], [888], [], [], []],
                     [BF16, BF16, U8, U8, I64, "", F32, F32]))
    new = 2 * 888 * 64
    assert w.flops == {"fp32": new}                          # one scale multiply per element into FP8
    assert w.bytes == new * 2 + new * 1 + 888 * 8            # read bf16, write 1-byte cache, slots


def test_static_scaled_fp8_quant():
    w = op_work(call("_C::static_scaled_fp8_quant", [[888, 512], [888, 512], []], [FP8, BF16, F32]))
    assert w.flops == {"fp32": 888 * 512}
    assert w.bytes == 888 * 512 * (1 + 2) + 4


def test_unified_attention_takes_the_tokens_as_one_causal_sequence():
    w = op_work(call("vllm::unified_attention_with_output",
                     [[888, 8, 64], [888, 1, 64], [888, 1, 64], [888, 8, 64], [], [], []],
                     [FP8, BF16, BF16, BF16, "", "", ""]))
    pairs = 888 * 889 // 2
    assert w.flops == {"fp8": 2 * pairs * 8 * 64 + 2 * pairs * 8 * 64}
    assert tensor_core_key("fp8", w.matrix) == "tensor_fp8"
    assert w.bytes == 888 * 512 * 1 + 2 * 888 * 64 * 2 + 888 * 512 * 2
    assert any("one causal sequence" in n for n in w.assumptions)


def test_moe_forward_with_top_k_and_width_from_its_allocations():
    dims = [[888, 3072], [888, 128], []]
    assert "top-k" in unknown_reason(call("vllm::moe_forward", dims, [BF16, BF16, ""]))
    w = op_work(call("vllm::moe_forward", dims, [BF16, BF16, "", "", ""], ["", "", "", "4", "512"]))
    routed = 888 * 4
    assert w.flops == {"bf16": 6 * routed * 3072 * 512}       # 2 T k H 2I + 2 T k I H
    weights = 128 * 3 * 3072 * 512 // 2                      # every expert reached, 4 bits each
    assert w.bytes == 888 * 3072 * 2 + weights + 2 * routed * 512 * 2 + routed * 3072 * 2
    assert w.matrix and w.aside is not None and not w.aside.matrix
    assert w.aside.flops == {}                               # data movement only
    assert w.aside.bytes == 888 * 128 * 2 + routed * 8 + routed * 3072 * 2 + 888 * 3072 * 2


def test_moe_routing_read_from_the_b200_allocations():
    # the allocations vllm::moe_forward makes in the B200 trace (shape, ScalarType code)
    allocations = [((888, 3072), 24), ((85248,), 0), ((888, 4), 3), ((888, 4), 15), ((888, 3072), 15),
                   ((128,), 3), ((3552,), 3), ((5472,), 3), ((5472, 512), 0), ((88064,), 0),
                   ((5472, 3072), 15)]
    assert _routing([[888, 3072], [888, 128], []], allocations) == (4, 512)
    # Triton's caches [T, k, 2I] and [T k, I]: the narrower is I
    assert _routing([[16, 4096], [16, 8]], [((16, 2), 3), ((16, 2, 28672), 15), ((32, 14336), 15)]) == (2, 14336)
    assert _routing([[16, 4096], [16, 8]], [((16, 2, 28672), 15)]) is None      # no routing ids
    # triton_kernels' matmul_ogs (vLLM gpt-oss decode on MI300X): int16 ids, [1, T k, I] buffers
    gpt_oss = [((32, 4), 15), ((32, 4), 2), ((1, 32), 28), ((128,), 3), ((6, 512), 3),
               ((1, 128, 2944), 15), ((1, 1, 128, 3072), 15)]
    assert _routing([[32, 3072], [32, 32], [], []], gpt_oss) == (4, 2944)


def test_moe_expert_weights_from_the_views_of_e_experts_only():
    dims = [[32, 3072], [32, 32]]
    views = [((32, 1536, 5888), 1), ((32, 1472, 3072), 1), ((32, 1536, 5888), 1),   # w1 viewed twice
             ((1, 128, 2944), 2), ((32, 4, 8), 4), ((5, 33, 7), 4), ((), 0)]
    assert expert_weight_bytes(dims, 2944, views) == 32 * 1536 * 5888 + 32 * 1472 * 3072
    assert expert_weight_bytes(dims, 2944, []) == 0
    w = op_work(call("vllm::moe_forward", [[32, 3072], [32, 32], [], [], [], []], [BF16, BF16, "", "", "", ""],
                     ["", "", "", "4", "2944", str(1000 * 32)]))
    assert w.bytes == 32 * 3072 * 2 + 1000 * 32 + 2 * 128 * 2944 * 2 + 128 * 3072 * 2


def test_fused_experts_with_recorded_weights():
    w = op_work(call("vllm::outplace_fused_experts",
                     [[64, 4096], [8, 28672, 4096], [8, 4096, 14336], [64, 2], [64, 2], []],
                     [BF16, BF16, BF16, F32, I32, ""]))
    assert w.flops == {"bf16": 6 * 128 * 4096 * 14336}
    weights = 8 * 28672 * 4096 * 2 + 8 * 4096 * 14336 * 2   # w1 [E, 2I, H] + w2 [E, H, I]
    assert w.bytes == 64 * 4096 * 2 + weights + 2 * 128 * 14336 * 2 + 128 * 4096 * 2


def test_silu_and_mul():
    w = op_work(call("_C::silu_and_mul", [[4, 11008], [4, 22016]], [BF16, BF16]))
    assert w.flops == {"fp32": 6 * 4 * 11008}
    assert w.bytes == 4 * 11008 * 2 + 4 * 22016 * 2
    sgl = op_work(call("sgl_kernel::silu_and_mul", [[4, 11008], [4, 22016], []], [BF16, BF16, "Scalar"]))
    assert sgl.flops == w.flops


def test_nvfp4_gemm_on_the_fp4_roof_with_its_scale_factors():
    # D [16, 4096] bf16 = A [16, 4096/2 packed] x B [4096, 2048 packed], FP8 block scales per 16
    sf_a, sf_b = [128, 256], [4096, 256]
    w = op_work(call("_C::cutlass_scaled_fp4_mm", [[16, 4096], [16, 2048], [4096, 2048], sf_a, sf_b, []],
                     [BF16, U8, U8, FP8, FP8, F32]))
    assert w.flops == {"fp4": 2 * 16 * 4096 * 4096}
    assert tensor_core_key("fp4", True) == "tensor_fp4"
    assert w.bytes == 16 * 4096 * 2 + 16 * 2048 + 4096 * 2048 + 128 * 256 + 4096 * 256 + 4


def test_fp8_scaled_mm_of_sglang_writes_its_returned_output():
    w = op_work(call("sgl_kernel::fp8_scaled_mm", [[32, 7168], [7168, 4096], [32, 1], [1, 4096], [], []],
                     [FP8, FP8, F32, F32, "ScalarType", ""], ["", "", "", "", "15", ""]))
    assert w.flops == {"fp8": 2 * 32 * 7168 * 4096}
    assert w.bytes == 32 * 7168 + 7168 * 4096 + 32 * 4 + 4096 * 4 + 32 * 4096 * 2


def test_flash_attention_varlen():
    # 3 sequences of 100 tokens packed into 300, 32 query heads, 8 KV heads of 128, causal
    w = op_work(call("flash_attn::_flash_attn_varlen_forward",
                     [[300, 32, 128], [300, 8, 128], [300, 8, 128], [4], [4], [], [], [], [], [], [], [], [],
                      [], [], [], [], []],
                     [BF16, BF16, BF16, I32, I32] + ["Scalar"] * 13,
                     ["", "", "", "", "", "100", "100", "0.0", "0.088", "True"] + [""] * 8))
    pairs = 3 * (100 * 101 // 2)
    assert w.flops == {"bf16": 32 * (2 * pairs * 128 + 2 * pairs * 128)}
    assert w.bytes == 300 * 32 * 128 * 2 * 2 + 2 * 300 * 8 * 128 * 2


def test_paged_attention_decode_takes_max_seq_len():
    w = op_work(call("_C::paged_attention_v1",
                     [[8, 32, 128], [8, 32, 128], [1000, 8, 16, 16, 8], [1000, 8, 128, 16], [], [], [8, 64], [8],
                      [], []],
                     [BF16, BF16, BF16, BF16, "Scalar", "Scalar", I32, I32, "Scalar", "Scalar"],
                     ["", "", "", "", "8", "0.088", "", "", "16", "1024"]))
    assert w.flops == {"bf16": 4 * 8 * 32 * 1024 * 128}
    assert w.bytes == 2 * 8 * 32 * 128 * 2 + 2 * 8 * 1024 * 8 * 128 * 2
    assert any("max_seq_len" in n for n in w.assumptions)


def test_custom_operators_are_known_by_their_full_name():
    assert has_model("_C::rms_norm") and has_model("vllm::moe_forward")
    assert not has_model("aten::_C::rms_norm") and not has_model("rms_norm_kernel")


def _op(name, ts, dur, dims=None, types=None, concrete=None, ext=None):
    a = {"External id": ext} if ext is not None else {}
    if dims is not None:
        a.update({"Input Dims": dims, "Input type": types, "Concrete Inputs": concrete or [""] * len(dims)})
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": a}


def _launch(ts, corr):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts,
            "dur": 1, "args": {"correlation": corr}}


def _kernel(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"correlation": corr, "device": 0, "stream": 7}}


def _empty(ts, size, code):
    return _op("aten::empty", ts, 1, [[], [], [], [], [], []], ["ScalarList", "Scalar", "", "", "", ""],
               [str(size), str(code), "", "", "", ""])


def test_moe_kernels_share_the_grouped_gemm_and_the_routing_apart():
    """A synthetic moe_forward: its two GEMM kernels share 6 T k H I by
    time, its routing and finalize kernels share the data movement."""
    t, h, e, k, i = 64, 1024, 16, 2, 256
    gemm1 = "bmm_E4m3_E4m3E4m3_Fp32_t128x8x128_s3_et128x8_m128x8x32_cga1x1x1_16dp256b_TN_swiGlu_sm100f"
    gemm2 = "bmm_Bfloat16_E4m3E4m3_Fp32_t128x8x128_s3_et128x8_m128x8x32_cga1x1x1_16dp256b_TN_sm100f"
    events = [
        _op("vllm::moe_forward", 0, 100, [[t, h], [t, e], []], [BF16, BF16, ""]),
        _empty(2, [t, k], 3), _empty(3, [t * k + 96, i], 24), _empty(4, [t * k + 96, h], 15),
        _launch(10, 1), _launch(20, 2), _launch(30, 3), _launch(40, 4),
        _kernel("void moe::dev::routing::routingIndicesHistogramKernel<float>(int)", 100, 10, 1),
        _kernel(gemm1, 120, 60, 2), _kernel(gemm2, 190, 30, 3),
        _kernel("void moe::dev::finalize::finalizeKernel<cutlass::bfloat16_t>(int)", 230, 30, 4),
    ]
    rows = {r.name: r for r in kineto.parse({"traceEvents": events}).kernels}
    total = 6 * t * k * h * i
    assert rows[gemm1].flops == {"tensor_fp8": pytest.approx(total * 60 / 90)}   # by time, on the FP8 roof
    assert rows[gemm2].flops == {"tensor_fp8": pytest.approx(total * 30 / 90)}
    aside_bytes = t * e * 2 + t * k * 8 + t * k * h * 2 + t * h * 2
    routing = rows["void moe::dev::routing::routingIndicesHistogramKernel<float>(int)"]
    finalize = rows["void moe::dev::finalize::finalizeKernel<cutlass::bfloat16_t>(int)"]
    assert routing.bytes["DRAM"] == pytest.approx(aside_bytes * 10 / 40)
    assert finalize.bytes["DRAM"] == pytest.approx(aside_bytes * 30 / 40)
    assert routing.family == "reduction" and finalize.family == "elementwise"
    assert all(r.modelled for r in rows.values())


@needs_kineto
def test_b200_vllm_trace_has_modelled_work_for_nine_tenths_of_its_time():
    r = read_profile(B200)
    p = place(KernelSet.from_kernels(r.kernels), find_device("b200"))
    times = [kk.time_s for kk in r.kernels]
    placed = sum(tm for tm, b in zip(times, p.bound) if b != "unknown")
    assert placed >= 0.9 * sum(times)
    moe = [kk for kk in r.kernels if kk.operator == "vllm::moe_forward" and kk.family == "gemm"]
    assert {kk.name[:8] for kk in moe} == {"bmm_MxE4", "bmm_Bflo"}
    # MXFP4 weights x MXFP8 activations: the f8f6f4 MMA kind, at the FP8 rate
    assert all(set(kk.flops) == {"tensor_fp8"} for kk in moe)
    # 36 calls of 888 tokens, top-4, H 3072, I 512: 6 T k H I each
    assert sum(sum(kk.flops.values()) for kk in moe) == pytest.approx(36 * 6 * 888 * 4 * 3072 * 512)
    attn = [kk for kk in r.kernels if kk.operator == "vllm::unified_attention_with_output"]
    assert attn and all(set(kk.flops) == {"tensor_fp8"} for kk in attn)


def test_moe_forward_without_allocations_says_what_was_not_recorded():
    from roofline.core import reasons as R
    gemm = "bmm_E4m3_E4m3E4m3_Fp32_t128x8x128_s3_et128x8_m128x8x32_cga1x1x1_16dp256b_TN_swiGlu_sm100f"
    events = [_op("vllm::moe_forward", 0, 100, [[64, 1024], [64, 16], []], [BF16, BF16, ""]),
              _launch(10, 1), _kernel(gemm, 100, 10, 1),
              _op("myext::fused_thing", 200, 10, [[8, 8]], [BF16]), _launch(202, 2),
              _kernel("myext_kernel", 210, 5, 2)]
    rows = {r.name: r for r in kineto.parse({"traceEvents": events}).kernels}
    assert not rows[gemm].flops and rows[gemm].why == R.ARGS_NOT_RECORDED
    assert rows["myext_kernel"].why == R.EXTENSION


def test_scaled_fp4_quant_in_each_of_its_schemas():
    # input [16, 4096] bf16, global scale [1]; NVFP4: packed [16, 2048] bytes, one FP8 scale per 16
    x, gs = [16, 4096], [1]
    new = op_work(call("_C::scaled_fp4_quant", [x, gs, []], [BF16, F32, "Scalar"], ["", "", "True"]))
    assert new.flops == {"fp32": 2 * 16 * 4096}
    assert new.bytes == 16 * 4096 * 2 + 4 + 16 * 2048 + 16 * 4096 // 16      # outputs returned
    # the swizzled scale buffer as allocated: [128, 64] int32 (rows padded to 128)
    old = op_work(call("_C::scaled_fp4_quant", [[16, 2048], x, [128, 64], gs], [U8, BF16, I32, F32]))
    out = op_work(call("_C::scaled_fp4_quant", [x, gs, [], [16, 2048], [128, 64]],
                       [BF16, F32, "Scalar", U8, I32], ["", "", "True", "", ""]))
    # the output-first schema with is_sf_swizzled_layout last (5 arguments, as many as .out)
    swz = op_work(call("_C::scaled_fp4_quant", [[16, 2048], x, [128, 64], gs, []], [U8, BF16, I32, F32, "Scalar"],
                       ["", "", "", "", "True"]))
    assert old.flops == out.flops == swz.flops == new.flops
    assert old.bytes == out.bytes == swz.bytes == 16 * 2048 + 16 * 4096 * 2 + 128 * 64 * 4 + 4
    sgl = op_work(call("sgl_kernel::scaled_fp4_quant", [[16, 2048], x, [128, 64], gs], [U8, BF16, I32, F32]))
    assert sgl.bytes == old.bytes


def test_topk_softmax_finds_the_router_logits_in_either_schema():
    # SGLang: (weights [T, k], ids [T, k], gating [T, E], renormalize); the same with
    # vLLM's token_expert_indices before the gating output
    now = op_work(call("sgl_kernel::topk_softmax", [[64, 8], [64, 8], [64, 256], []], [F32, I32, BF16, "Scalar"]))
    then = op_work(call("sgl_kernel::topk_softmax", [[64, 8], [64, 8], [64, 8], [64, 256]], [F32, I32, I32, BF16]))
    vllm = op_work(call("_moe_C::topk_softmax", [[64, 8], [64, 8], [64, 8], [64, 256], [], [256]],
                        [F32, I32, I32, BF16, "Scalar", F32]))
    assert now.flops == then.flops == vllm.flops == {"fp32": 5 * 64 * 256}
    sigmoid = op_work(call("_moe_C::topk_sigmoid", [[64, 8], [64, 8], [64, 8], [64, 256], [], [256]],
                           [F32, I32, I32, BF16, "Scalar", F32]))
    assert sigmoid.flops == {"fp32": 4 * 64 * 256}


def test_cutlass_moe_mm_reads_the_weights_of_the_experts_its_rows_reach():
    # 16 routed rows of K 2048 (FP8) into N 2816, 64 experts: at most 16 reached
    dims = [[16, 2816], [16, 2048], [64, 2816, 2048], [16, 1], [64, 1], [64], [64, 3], [64], [64], [64], [], []]
    types = [BF16, FP8, FP8, F32, F32, I32, I32, I64, I64, I64, "Scalar", "Scalar"]
    w = op_work(call("_C::cutlass_moe_mm", dims, types))
    assert w.flops == {"fp8": 2 * 16 * 2816 * 2048} and w.matrix
    weights = 64 * 2816 * 2048 * 16 // 64
    assert w.bytes == 16 * 2816 * 2 + 16 * 2048 + weights + 16 * 4 + 64 * 4 + 64 * 4 + 64 * 3 * 4 + 3 * 64 * 8
    assert any("every row" in n for n in w.assumptions)


def test_nvfp4_grouped_gemm_on_the_fp4_roof():
    # a [32, 1024 packed] = K 2048, 8 experts b [8, 4096, 1024 packed], out [32, 4096]
    dims = [[32, 4096], [32, 1024], [8, 4096, 1024], [128, 128], [8, 4096, 128], [8], [8, 3], [8], [8]]
    types = [BF16, U8, U8, FP8, FP8, F32, I32, I32, I32]
    w = op_work(call("_C::cutlass_fp4_group_mm", dims, types))
    assert w.flops == {"fp4": 2 * 32 * 4096 * 2048}
    assert w.bytes == (32 * 4096 * 2 + 32 * 1024 + 8 * 4096 * 1024 + 128 * 128 + 8 * 4096 * 128 + 8 * 4
                       + 3 * 8 * 4 + 8 * 4 + 8 * 4)


def test_gpt_oss_swiglu_and_fused_norm_quant():
    act = op_work(call("_C::swigluoai_and_mul", [[4, 1440], [4, 2880], [], []], [BF16, BF16, "Scalar", "Scalar"],
                       ["", "", "1.702", "7.0"]))
    assert act.flops == {"fp32": 11 * 4 * 1440}
    assert act.bytes == 4 * 1440 * 2 + 4 * 2880 * 2
    # result fp8, input, weight, per-token scale, eps, no scale_ub, residual added in place
    norm = op_work(call("_C::rms_norm_dynamic_per_token_quant",
                        [[8, 4096], [8, 4096], [4096], [8, 1], [], [], [8, 4096]],
                        [FP8, BF16, BF16, F32, "Scalar", "", BF16]))
    assert norm.flops == {"fp32": (4 + 1 + 2) * 8 * 4096}
    assert norm.bytes == 8 * 4096 + 8 * 4096 * 2 + 4096 * 2 + 8 * 4 + 2 * 8 * 4096 * 2


def test_moe_unpermute_sums_the_weighted_expert_outputs():
    w = op_work(call("_moe_C::moe_unpermute", [[32, 1024], [16, 2], [32], [9], [], [16, 1024]],
                     [BF16, F32, I32, I64, "Scalar", BF16]))
    assert w.flops == {"fp32": 2 * 32 * 1024}
    assert w.bytes == 32 * 1024 * 2 + 16 * 2 * 4 + 32 * 4 + 9 * 8 + 16 * 1024 * 2


def test_tensorrt_llm_gemms():
    # FP8 block-scaled: mat1 [32, 7168], mat2 [4096, 7168] (N, K), scales per 128, bf16 output returned
    fp8 = op_work(call("trtllm::fp8_block_scaling_gemm", [[32, 7168], [4096, 7168], [56, 32], [32, 56]],
                       [FP8, FP8, F32, F32]))
    assert fp8.flops == {"fp8": 2 * 32 * 4096 * 7168} and fp8.matrix
    assert fp8.bytes == 32 * 7168 + 4096 * 7168 + 56 * 32 * 4 + 32 * 56 * 4 + 32 * 4096 * 2
    # NVFP4: mat1 [16, 2048 packed] (K 4096), mat2 [8192, 2048 packed], out_dtype 15 (bf16)
    fp4 = op_work(call("trtllm::fp4_gemm", [[16, 2048], [8192, 2048], [128 * 256], [8192 * 256], [1], [], []],
                       [U8, U8, U8, U8, F32, "Scalar", "ScalarType"], ["", "", "", "", "", "False", "15"]))
    assert fp4.flops == {"fp4": 2 * 16 * 8192 * 4096}
    assert fp4.bytes == 16 * 2048 + 8192 * 2048 + 128 * 256 + 8192 * 256 + 4 + 16 * 8192 * 2
    # cuBLAS scaled: mat_a [64, 4096], mat_b [4096, 1024] (K, N)
    cub = op_work(call("trtllm::cublas_scaled_mm", [[64, 4096], [4096, 1024], [1], [1], [], []],
                       [FP8, FP8, F32, F32, "", "ScalarType"], ["", "", "", "", "", "15"]))
    assert cub.flops == {"fp8": 2 * 64 * 1024 * 4096}
    assert cub.bytes == 64 * 4096 + 4096 * 1024 + 8 + 64 * 1024 * 2
