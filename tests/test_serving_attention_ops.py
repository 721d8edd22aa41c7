"""Attention operators of serving libraries beyond vLLM's own: FlashAttention
masks with sliding windows, FlashAttention-3 (vLLM's and Dao-AILab's
builds), MLA decode (vLLM, SGLang) and FlashInfer's JIT-module operators.
Each call is written here from the library's schema, with its count by
hand beside it.
"""
from __future__ import annotations

import itertools

from roofline.ops import OpCall, has_model, op_work
from roofline.ops.paged_attention import window_pairs

BF16, FP8, F32, I32, I64, U8 = ("c10::BFloat16", "c10::Float8_e4m3fn", "float", "int", "long int",
                                "unsigned char")


def call(name, args):
    """``args``: (shape or None, type, literal) per schema position."""
    dims = tuple(tuple(a[0]) if a[0] is not None else () for a in args)
    return OpCall(name, dims, tuple(a[1] for a in args), concrete=tuple(a[2] for a in args))


T = lambda shape, dtype: (shape, dtype, "")          # noqa: E731  a tensor argument
S = lambda text: (None, "Scalar", str(text))         # noqa: E731  a scalar argument
NONE = (None, "", "")


def _brute_pairs(lq, lk, causal, left, right):
    right = 0 if causal else right
    return sum(1 for i in range(lq) for j in range(lk)
               if (left < 0 or j >= i + lk - lq - left) and (right < 0 or j <= i + lk - lq + right))


def test_window_pairs_are_the_pairs_flash_attention_keeps():
    # 4 queries, 4 keys, causal, one key to the left: 1 + 2 + 2 + 2
    assert window_pairs(4, 4, True, 1) == 7
    # 2 new queries after 98 cached keys: 99 + 100
    assert window_pairs(2, 100, True) == 199
    for lq, lk, causal, left, right in itertools.product(range(1, 7), range(1, 7), (True, False),
                                                         (-1, 0, 2, 9), (-1, 0, 3)):
        assert window_pairs(lq, lk, causal, left, right) == _brute_pairs(lq, lk, causal, left, right)


def test_vllm_fa2_varlen_decode_with_a_sliding_window():
    # 4 decode tokens, 32 query heads and 8 KV heads of 128, paged keys (max 1000 per
    # sequence), window (255, 0): each query sees its last 256 keys
    args = [T([4, 32, 128], BF16), T([9000, 16, 8, 128], BF16), T([9000, 16, 8, 128], BF16),
            T([4, 32, 128], BF16), T([5], I32), T([5], I32), T([4], I32), NONE, T([4, 64], I32), NONE,
            S(1), S(1000), S(0.0), S(0.088), S(False), S(True), S(255), S(0), S(0.0), S(False), S(0), NONE]
    w = op_work(call("_vllm_fa2_C::varlen_fwd", args))
    pairs = 4 * 256
    assert w.flops == {"bf16": 32 * (2 * pairs * 128 + 2 * pairs * 128)}
    # keys read: 256 per sequence of the paged cache, not max_seqlen_k
    assert w.bytes == 4 * 32 * 128 * 2 + 4 * 256 * 8 * 256 * 2 + 4 * 32 * 128 * 2


def test_flash_attn_forward_aligns_its_causal_mask_bottom_right():
    # q [2, 16, 8, 64] after 32 cached keys (k [2, 48, 2, 64]): query i sees 33 + i keys
    args = [T([2, 16, 8, 64], BF16), T([2, 48, 2, 64], BF16), T([2, 48, 2, 64], BF16), S(0.0), S(0.125),
            S(True), S(-1), S(-1), S(0.0), NONE, S(False)]
    w = op_work(call("flash_attn::_flash_attn_forward", args))
    pairs = 2 * sum(33 + i for i in range(16))
    assert pairs == 1296
    assert w.flops == {"bf16": 8 * (2 * pairs * 64 + 2 * pairs * 64)}
    assert w.bytes == 2 * 16 * 8 * 64 * 2 * 2 + 2 * 2 * 48 * 2 * 64 * 2


def _fa3_args(n, q, k, page_table=None, cu_q=None, max_k=None, causal=True, out=None):
    """FA3 fwd arguments of the 37-argument schema (vLLM, 2026), or the
    31-argument one (January 2025: no q_v, no seqlens_rotary)."""
    new = n >= 33
    args = [q, k, k, NONE, NONE] + ([NONE] if new else []) + [out or NONE, cu_q or NONE, NONE, NONE, NONE,
                                                              NONE, NONE, S(max_k) if max_k else NONE,
                                                              page_table or NONE, NONE, NONE, NONE, NONE]
    args += [NONE] if new else []
    args += [NONE, NONE, NONE, S(0.088), S(causal), S(-1), S(-1)]
    args += [NONE] * (n - len(args))
    assert len(args) == n
    return args


def test_vllm_fa3_paged_prefill_chunk():
    # 3 sequences of 2 new queries (packed [6, 16, 128]) over 100 paged keys each, 2 KV heads
    args = _fa3_args(37, T([6, 16, 128], BF16), T([100, 16, 2, 128], BF16), page_table=T([3, 8], I32),
                     cu_q=T([4], I32), max_k=100, out=T([6, 16, 128], BF16))
    w = op_work(call("_vllm_fa3_C::fwd", args))
    pairs = 3 * (99 + 100)
    assert w.flops == {"bf16": 16 * (2 * pairs * 128 + 2 * pairs * 128)}
    assert w.bytes == 6 * 16 * 128 * 2 + 3 * 100 * 2 * 256 * 2 + 6 * 16 * 128 * 2
    assert any("equal length" in n for n in w.assumptions) and any("max_seqlen_k" in n for n in w.assumptions)
    assert has_model("flash_attn_3::fwd") and has_model("flash_attn_3::_flash_attn_forward")


def test_fa3_of_january_2025_reads_is_causal_at_its_own_position():
    q = T([1, 8, 4, 64], FP8)
    causal = op_work(call("_vllm_fa3_C::fwd", _fa3_args(31, q, q, causal=True)))
    full = op_work(call("_vllm_fa3_C::fwd", _fa3_args(31, q, q, causal=False)))
    assert causal.flops == {"fp8": 4 * 2 * 36 * 128}          # 1 + 2 + ... + 8 pairs
    assert full.flops == {"fp8": 4 * 2 * 64 * 128}
    # FP8 attention writes 16-bit output when out is not passed
    assert full.bytes == 3 * 8 * 4 * 64 + 8 * 4 * 64 * 2


def test_mla_decode_of_vllm_and_sglang():
    # 4 sequences, 128 heads, latent 512 + rope 64, page table of 16 pages of 64 tokens
    out, q_nope, q_pe = T([4, 128, 512], BF16), T([4, 128, 512], BF16), T([4, 128, 64], BF16)
    cache, lens, table = T([1000, 64, 576], BF16), T([4], I32), T([4, 16], I32)
    vllm = op_work(call("_C::sm100_cutlass_mla_decode", [out, T([4, 128], F32), q_nope, q_pe, cache, lens,
                                                        table, T([1 << 20], U8), S(0.07), S(1)]))
    sgl = op_work(call("sgl_kernel::cutlass_mla_decode", [out, q_nope, q_pe, cache, lens, table,
                                                         T([1 << 20], U8), S(0.07), S(1)]))
    pairs = 4 * 128 * 16 * 64
    assert vllm.flops == sgl.flops == {"bf16": 2 * pairs * 576 + 2 * pairs * 512}
    assert vllm.bytes == sgl.bytes == 3 * 4 * 128 * 512 * 2 - 4 * 128 * 448 * 2 + 4 * 1024 * 576 * 2
    assert any("page table" in n for n in vllm.assumptions)


PREFILL = "batch_prefill_with_kv_cache_dtype_q_bf16_dtype_kv_bf16_dtype_o_bf16_dtype_idx_i32_head_dim_qk_128"


def test_flashinfer_paged_prefill_by_its_module_name():
    # 3 sequences of 100 queries, 60 pages of 16 tokens (320 keys each), causal, NHD
    ws = [T([128 << 20], U8), T([8 << 20], U8), T([64], I64)]
    args = ws + [T([300, 32, 128], BF16), T([500, 16, 8, 128], BF16), T([500, 16, 8, 128], BF16),
                 T([4], I32), T([4], I32), T([60], I32), T([3], I32), T([300, 32, 128], BF16), NONE,
                 S(1), S(0), S(-1), S(False)]
    name = PREFILL + "_head_dim_vo_128_posenc_0_use_swa_False_use_logits_cap_False_f16qk_False::paged_run"
    assert has_model(name) and has_model(name.replace("False::", "False_sm90::"))
    w = op_work(call(name, args))
    pairs = 3 * sum(221 + i for i in range(100))
    assert w.flops == {"bf16": 32 * (2 * pairs * 128 + 2 * pairs * 128)}
    assert w.bytes == 2 * 300 * 32 * 128 * 2 + 960 * 8 * 256 * 2
    assert not has_model("batch_prefill_with_kv_cache_x::plan") and not has_model("norm::other")


def test_flashinfer_decode_with_hnd_cache_and_a_window():
    # 8 sequences, 64 pages of 16 (128 keys each), HND [pages, Hkv, page, D], window_left 63
    ws = [T([128 << 20], U8), T([8 << 20], U8), T([64], I64)]
    args = ws + [T([8, 32, 128], BF16), T([500, 8, 16, 128], BF16), T([500, 8, 16, 128], BF16),
                 T([9], I32), T([64], I32), T([8], I32), T([8, 32, 128], BF16), NONE, S(1), S(63), S(False)]
    w = op_work(call("batch_decode_with_kv_cache_dtype_q_bf16_dtype_kv_bf16::run", args))
    pairs = 8 * 64
    assert w.flops == {"bf16": 32 * (2 * pairs * 128 + 2 * pairs * 128)}
    assert w.bytes == 2 * 8 * 32 * 128 * 2 + 8 * 64 * 8 * 256 * 2
    assert any("pages" in n for n in w.assumptions)


def test_flashinfer_norm_activation_and_rope():
    x = T([8, 4096], BF16)
    norm = op_work(call("norm::fused_add_rmsnorm", [x, x, T([4096], BF16), S(1e-6), S(False)]))
    assert norm.flops == {"fp32": 5 * 8 * 4096}
    assert norm.bytes == 4 * 8 * 4096 * 2 + 4096 * 2
    act = op_work(call("silu_and_mul::silu_and_mul", [T([8, 2048], BF16), x, S(False)]))
    assert act.flops == {"fp32": 6 * 8 * 2048}
    # q [10, 8, 128], k [10, 2, 128], rotary width 64 (the cache's), cache in fp32
    q, k = T([10, 8, 128], BF16), T([10, 2, 128], BF16)
    rope = op_work(call("rope::apply_rope_pos_ids_cos_sin_cache",
                        [q, k, q, k, T([4096, 64], F32), T([10], I32), S(False)]))
    rotated = 10 * 8 * 64 + 10 * 2 * 64
    assert rope.flops == {"fp32": 3 * rotated}
    assert rope.bytes == 2 * (10 * 8 * 128 * 2 + 10 * 2 * 128 * 2) + 10 * 4 + 10 * 64 * 4


def _event(name, ts, dur, args, cat="cpu_op", pid=1, tid=1):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def test_fa3_and_flashinfer_kernels_get_their_operators_work():
    """A synthetic trace: an FA3 call and a FlashInfer paged prefill, each
    launching one kernel; the kernels carry the models' FLOPs."""
    from roofline.importers import kineto
    fa3 = _fa3_args(37, T([6, 16, 128], BF16), T([100, 16, 2, 128], BF16), page_table=T([3, 8], I32),
                    cu_q=T([4], I32), max_k=100, out=T([6, 16, 128], BF16))
    ws = [T([128 << 20], U8), T([8 << 20], U8), T([64], I64)]
    fi = ws + [T([300, 32, 128], BF16), T([500, 16, 8, 128], BF16), T([500, 16, 8, 128], BF16),
               T([4], I32), T([4], I32), T([60], I32), T([3], I32), T([300, 32, 128], BF16), NONE,
               S(1), S(0), S(-1), S(False)]
    prefill = PREFILL + "_head_dim_vo_128_posenc_0_use_swa_False_use_logits_cap_False_f16qk_False::paged_run"
    events = []
    kernels = ("void flash::FlashAttnFwdSm90<cutlass::bfloat16_t>(int)",
               "void flashinfer::BatchPrefillWithPagedKVCacheKernel<128u, 4u>(int)")
    for n, (name, args) in enumerate((("_vllm_fa3_C::fwd", fa3), (prefill, fi))):
        c = call(name, args)
        events.append(_event(name, 100 * n, 50, {"Input Dims": [list(d) for d in c.dims],
                                                 "Input type": list(c.types),
                                                 "Concrete Inputs": list(c.concrete)}))
        events.append(_event("cudaLaunchKernel", 100 * n + 10, 1, {"correlation": n + 1}, cat="cuda_runtime"))
        events.append(_event(kernels[n], 100 * n + 20, 30, {"correlation": n + 1, "device": 0, "stream": 7},
                             cat="kernel", pid=0, tid=7))
    rows = {r.name: r for r in kineto.parse({"traceEvents": events}).kernels}
    fa3_flop = 16 * 4 * 128 * 3 * (99 + 100)
    fi_flop = 32 * 4 * 128 * 3 * sum(221 + i for i in range(100))
    assert sum(rows[kernels[0]].flops.values()) == fa3_flop
    assert sum(rows[kernels[1]].flops.values()) == fi_flop
    assert all(set(r.flops) == {"tensor_bf16"} and r.modelled for r in rows.values())
