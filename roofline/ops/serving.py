"""The custom operators of LLM serving libraries that are not GEMMs or
attention: fused RMSNorm (with the residual add, with FP8 output), rotary
embedding, gated activations (SiLU-and-mul), KV-cache writes, FP8/FP4
quantization with its scale factors, MoE routing helpers, and the FP8/FP4
scaled GEMMs of vLLM and SGLang.

Names are the registered schema names as the profiler writes them
(``_C::rms_norm``, ``_C_cache_ops::reshape_and_cache_flash``,
``sgl_kernel::fused_add_rmsnorm``); argument positions follow each
library's schema (vLLM ``csrc/torch_bindings.cpp`` and ``csrc/ops.h``,
SGLang ``sgl-kernel/csrc/common_extension.cc``), cited per entry and in
docs/pytorch.md. Most of these operators write into an ``out`` argument
the caller allocated, so every tensor argument is read or written exactly
once: the compulsory bytes are the sum of the tensor arguments; an
in-place argument (``fused_add_rms_norm``'s input and residual, a rotary
embedding's query and key) counts twice. Scale-factor tensors are tensor
arguments and so count with their own dtype and shape.

FLOPs per element, counted from the kernels' formulas (vector units, the
fp32 ``opmath`` of 16-bit data): RMSNorm 4 (square, add, scale, weight),
+1 for the residual add, +1 for the quantizing scale multiply; SiLU 5 and
GELU 5 as :mod:`.elementwise` counts them, +1 for the gate multiply; a
rotary pair x' = x cos - y sin, y' = y cos + x sin is 6 (3 per rotated
element); a static quantization multiplies by its scale (1), a dynamic one
first finds the absolute maximum (1 more).

May import ``.call`` (and the standard library).
"""
from __future__ import annotations

from .call import Args, OpWork, Tensor, dtype_precision, vector_precision, work

RMS, ADD, SCALE = 4, 1, 1
SILU, GELU, GATE = 5, 5, 1
ROTARY_PER_ELEMENT = 3
PACKED_FP4_NOTE = "FP4 operands packed two per byte: K is twice the stored width"


def _all_bytes(args: Args, twice: tuple = ()) -> float:
    """Every tensor argument once, those at ``twice`` (read and written in
    place) twice."""
    total = 0.0
    for i in args.tensor_positions():
        total += args.need(i).nbytes * (2 if i in twice else 1)
    return total


def _vector(args: Args, x: Tensor, per_element: float, family: str, twice: tuple = (),
            notes: tuple = ()) -> OpWork:
    return work({vector_precision(x.dtype): per_element * x.numel}, _all_bytes(args, twice), family,
                args=args, assumptions=notes)


def rms_norm(x_at: int, *, add: bool = False, quant: bool = False, gemma: bool = False,
             in_place: tuple = ()):
    """RMSNorm of argument ``x_at``; ``add``: the residual is added first;
    ``quant``: the result is scaled into a narrow type; ``gemma``: the
    weight is used as 1 + w (one add more)."""
    per_element = RMS + (ADD if add else 0) + (SCALE if quant else 0) + (1 if gemma else 0)

    def model(args: Args) -> OpWork:
        return _vector(args, args.need(x_at), per_element, "normalization", in_place)
    return model


def gated(activation: int, x_at: int = 1):
    """``act(x[..., :d]) * x[..., d:]`` into an output of half the width."""
    def model(args: Args) -> OpWork:
        x = args.need(x_at)
        return work({vector_precision(x.dtype): (activation + GATE) * x.numel // 2}, _all_bytes(args),
                    "elementwise", args=args)
    return model


def unary(per_element: int, x_at: int = 1):
    def model(args: Args) -> OpWork:
        return _vector(args, args.need(x_at), per_element, "elementwise")
    return model


def rotary(positions_at: int, query_at: int, key_at: int, head_size_at: int, cache_at: int):
    """Rotary embedding in place on query and key (key may be None): the
    first ``rot_dim`` (the cos/sin cache's width) of each head rotate.
    Reads the position of each token and one cache row per token."""
    def model(args: Args) -> OpWork:
        q, k, cache = args.need(query_at), args.tensor(key_at), args.need(cache_at)
        head = args.value(head_size_at)
        if not isinstance(head, int) or isinstance(head, bool) or head <= 0:
            raise LookupError("head_size not recorded")
        rot = min(cache.shape[-1], head)
        rotated = sum(t.numel // head * rot for t in (q, k) if t is not None)
        tokens = args.need(positions_at).numel
        nbytes = (2 * rotated * q.itemsize + args.need(positions_at).nbytes
                  + min(tokens, cache.shape[0]) * cache.shape[-1] * cache.itemsize)
        return work({vector_precision(q.dtype): ROTARY_PER_ELEMENT * rotated}, nbytes, "elementwise",
                    args=args)
    return model


def rotary_cached(query_at: int, key_at: int, outs: tuple, cache_at: int, positions_at: int):
    """Rotary embedding from query and key into separate outputs (FlashInfer
    ``apply_rope_pos_ids_cos_sin_cache``): the rotary width is the cos/sin
    cache's; every element of query and key is read and its output written
    (the unrotated part is copied), one cache row read per token."""
    def model(args: Args) -> OpWork:
        q, k, cache = args.need(query_at), args.need(key_at), args.need(cache_at)
        head = q.shape[-1]
        rot = min(cache.shape[-1], head)
        rotated = sum(t.numel // head * rot for t in (q, k))
        tokens = args.need(positions_at).numel
        outs_bytes = sum(args.need(i).nbytes for i in outs)
        nbytes = (q.nbytes + k.nbytes + outs_bytes + args.need(positions_at).nbytes
                  + min(tokens, cache.shape[0]) * cache.shape[-1] * cache.itemsize)
        return work({vector_precision(q.dtype): ROTARY_PER_ELEMENT * rotated}, nbytes, "elementwise",
                    args=args)
    return model


def cache_write(parts: tuple, caches: tuple, slots_at: int):
    """Scatter the new tokens' keys/values (``parts``) into the paged cache
    by slot: each element read once and written once in the cache's dtype
    (1 byte for an FP8 cache stored as uint8); an FP8 cache multiplies by
    its scale (1 FLOP per element). The rest of the cache is not touched."""
    def model(args: Args) -> OpWork:
        new = [args.need(i) for i in parts]
        cache = args.need(caches[0])
        elements = sum(t.numel for t in new)
        nbytes = (sum(t.nbytes for t in new) + elements * cache.itemsize + args.need(slots_at).nbytes)
        quantizes = cache.itemsize < new[0].itemsize
        return work({"fp32": elements if quantizes else 0}, nbytes, "elementwise", args=args)
    return model


def quantize(x_at: int, per_element: int):
    """Quantization into a narrow type: reads the input, writes the output
    and its scale factors (whatever shapes and dtypes the trace records)."""
    def model(args: Args) -> OpWork:
        x = args.need(x_at)
        return work({"fp32": per_element * x.numel}, _all_bytes(args), "elementwise", args=args)
    return model


def per_tensor_quant(args: Args) -> OpWork:
    """``sgl_per_tensor_quant_fp8(input, output_q!, output_s!, is_static)``:
    a static scale is one multiply per element, a dynamic one finds the
    absolute maximum first (2)."""
    per_element = 1 if args.value(3) is True else 2
    x = args.need(0)
    return work({"fp32": per_element * x.numel}, _all_bytes(args), "elementwise", args=args)


NVFP4_BLOCK = 16           # values per FP8 scale factor of NVFP4


def scaled_fp4_quant(args: Args) -> OpWork:
    """NVFP4 quantization, four schemas of vLLM: ``(output!, input,
    output_scale!, input_scale)`` (SGLang's too) and the same with
    ``is_sf_swizzled_layout`` last (5 arguments), ``(input, input_scale,
    is_sf_swizzled_layout) -> (output, scale)`` (3: the outputs are
    returned, not recorded: a packed [.., n/2] byte tensor and one FP8 scale
    per 16 values are counted) and its ``.out`` overload ``(input,
    input_scale, is_sf_swizzled_layout, output!, output_scale!)`` (5). The
    input is argument 1 where argument 2 is a tensor (output_scale), else
    argument 0. 2 FLOP per value (block absolute maximum, scale)."""
    n = len(args)
    x = args.need(1 if args.tensor(2) is not None else 0)
    if n not in (3, 4, 5) or not x.dtype.startswith("c10::") or x.itemsize < 2:
        raise LookupError("not a scaled_fp4_quant schema")
    returned = x.numel // 2 + -(-x.numel // NVFP4_BLOCK) if n == 3 else 0
    return work({"fp32": 2 * x.numel}, _all_bytes(args) + returned, "elementwise", args=args)


def _router_logits(args: Args) -> Tensor:
    """The [T, E] router logits: the largest tensor argument (the top-k
    outputs are [T, k] with k < E, a bias [E]). vLLM's schema has a
    token_expert_indices output before them, SGLang's current one does not:
    the position is not relied on, so either schema (and a version of
    either that adds or drops an output) is read the same way."""
    tensors = args.tensors()
    if not tensors:
        raise LookupError("no tensor arguments")
    return max(tensors, key=lambda t: t.numel)


def router_topk(per_logit: int):
    """Router scores over the experts and top-k selection: softmax 5 FLOP
    per logit (max, subtract, exp, sum, divide), sigmoid 4; the selection
    compares and is not counted."""
    def model(args: Args) -> OpWork:
        g = _router_logits(args)
        return work({"fp32": per_logit * g.numel}, _all_bytes(args), "softmax", args=args)
    return model


SOFTMAX, SIGMOID = 5, 4
# swigluoai_and_mul: clamp gate (1) and up (2), alpha x (1), sigmoid (4),
# x sigma (1), up + 1 (1), product (1) per output
SWIGLU_OAI = 11
FATRELU = 1                # threshold compare, then the gate multiply


def rms_norm_dynamic_quant(args: Args) -> OpWork:
    """``rms_norm_dynamic_per_token_quant(result!, input, weight, scale!,
    epsilon, scale_ub?, residual!?)`` and ``rms_norm_per_block_quant`` (the
    same first seven): RMSNorm (4), the residual add when a residual is
    passed (1, read and written in place), the absolute maximum and the
    scale (2) per element."""
    x = args.need(1)
    residual = args.tensor(6)
    per_element = RMS + 2 + (ADD if residual is not None else 0)
    return _vector(args, x, per_element, "normalization", twice=(6,) if residual is not None else ())


def data_movement(args: Args) -> OpWork:
    """Index bookkeeping (``moe_align_block_size``): its tensors once, no FLOPs."""
    return work({}, _all_bytes(args), "elementwise", args=args)


def unpermute(args: Args) -> OpWork:
    """``moe_unpermute(permuted_hidden_states [T k, H], topk_weights [T, k],
    inv_permuted_idx, expert_first_token_offset?, topk, hidden_states! [T, H])``:
    the weighted sum of each token's k expert outputs, 2 FLOP per routed
    element."""
    x = args.need(0)
    return work({vector_precision(x.dtype): 2 * x.numel}, _all_bytes(args), "reduction", args=args)


def moe_sum(args: Args) -> OpWork:
    """Sum of the top-k expert outputs per token: [T, k, H] -> [T, H]."""
    x, out = args.need(0), args.need(1)
    return work({vector_precision(x.dtype): max(x.numel - out.numel, 0)}, _all_bytes(args), "reduction",
                args=args)


def _gemm_work(args: Args, m: int, n: int, k: int, precision: str, extra_bytes: float = 0.0,
               notes: tuple = ()) -> OpWork:
    return work({precision: 2 * m * n * k}, _all_bytes(args) + extra_bytes, "gemm", matrix=True, args=args,
                assumptions=notes)


def scaled_mm(out_at: int | None, a_at: int, b_at: int, out_dtype_at: int | None = None):
    """``out = (a x scale_a) @ (b x scale_b)``: a [M, K], b [K, N] (vLLM's
    cutlass_scaled_mm takes b column-major, the shape is still [K, N]);
    the scale tensors are arguments and their bytes count."""
    def model(args: Args) -> OpWork:
        a, b = args.need(a_at), args.need(b_at)
        (m, k), n = a.shape, b.shape[-1]
        extra = 0.0
        if out_at is None:           # returned, not passed: written once in out_dtype
            out = args.dtype_code(out_dtype_at) if out_dtype_at is not None else None
            extra = m * n * Tensor((), out or "c10::BFloat16").itemsize
        return _gemm_work(args, m, n, k, dtype_precision(a.dtype), extra)
    return model


def scaled_fp4_mm(args: Args) -> OpWork:
    """``cutlass_scaled_fp4_mm(D, A, B, A_sf, B_sf, alpha)``: NVFP4 A [M, K/2]
    and B [N, K/2] packed two values per byte, FP8 block scales (one per 16
    values) in A_sf and B_sf: 2 M N K on the FP4 tensor roof."""
    d, a, b = args.need(0), args.need(1), args.need(2)
    m, n, k = a.shape[0], b.shape[0], 2 * a.shape[1]
    if d.shape[-1] != n:
        raise LookupError("D and B disagree on N")
    return _gemm_work(args, m, n, k, "fp4", notes=(PACKED_FP4_NOTE,))


def nt_gemm(a_at: int, b_at: int, out_dtype_at: int | None, default_out: str, packed_fp4: bool = False):
    """A returned ``a @ b^T`` with b stored [N, K] (TensorRT-LLM's FP8 and
    FP4 GEMMs), a [M, K] or batched [B, M, K]: 2 B M N K; packed FP4
    operands hold two values per byte (K twice the stored width, on the
    FP4 roof). The output is written in ``out_dtype`` (its default when
    not recorded)."""
    def model(args: Args) -> OpWork:
        a, b = args.need(a_at), args.need(b_at)
        if len(a.shape) not in (2, 3) or len(b.shape) != len(a.shape) or a.shape[-1] != b.shape[-1]:
            raise LookupError("a and b are not [(B,) M, K] and [(B,) N, K]")
        batch = a.shape[0] if len(a.shape) == 3 else 1
        m, n, k = a.shape[-2], b.shape[-2], a.shape[-1] * (2 if packed_fp4 else 1)
        out = (args.dtype_code(out_dtype_at) if out_dtype_at is not None else None) or default_out
        precision = "fp4" if packed_fp4 else dtype_precision(a.dtype)
        notes = (PACKED_FP4_NOTE,) if packed_fp4 else ()
        return _gemm_work(args, batch * m, n, k, precision, batch * m * n * Tensor((), out).itemsize, notes)
    return model


MODELS = {
    # vLLM csrc/ops.h: rms_norm(out, input, weight, epsilon)
    "_C::rms_norm": rms_norm(1),
    # fused_add_rms_norm(input!, residual!, weight, epsilon): input and residual in place
    "_C::fused_add_rms_norm": rms_norm(0, add=True, in_place=(0, 1)),
    # rms_norm_static_fp8_quant(result!, input, weight, scale, epsilon)
    "_C::rms_norm_static_fp8_quant": rms_norm(1, quant=True),
    # fused_add_rms_norm_static_fp8_quant(result!, input, residual!, weight, scale, epsilon)
    "_C::fused_add_rms_norm_static_fp8_quant": rms_norm(1, add=True, quant=True, in_place=(2,)),
    # silu_and_mul / mul_and_silu / gelu_and_mul / gelu_tanh_and_mul(out!, input)
    "_C::silu_and_mul": gated(SILU), "_C::mul_and_silu": gated(SILU),
    "_C::gelu_and_mul": gated(GELU), "_C::gelu_tanh_and_mul": gated(GELU),
    # swigluoai_and_mul(out!, input, alpha, limit) (gpt-oss); fatrelu_and_mul(out!, input, threshold);
    # silu_and_mul_with_clamp(result!, input, limit): the clamp of gate and up, 2 more
    "_C::swigluoai_and_mul": gated(SWIGLU_OAI - GATE), "_C::fatrelu_and_mul": gated(FATRELU),
    "_C::silu_and_mul_with_clamp": gated(SILU + 2),
    # silu_and_mul_quant(result!, input, scale): FP8 output, the scale multiply 1 more
    "_C::silu_and_mul_quant": gated(SILU + SCALE),
    # rms_norm_dynamic_per_token_quant(result!, input, weight, scale!, epsilon, scale_ub?, residual!?);
    # rms_norm_per_block_quant(... the same seven, group_size, is_scale_transposed)
    "_C::rms_norm_dynamic_per_token_quant": rms_norm_dynamic_quant,
    "_C::rms_norm_per_block_quant": rms_norm_dynamic_quant,
    # gelu_new / gelu_fast / gelu_quick(out!, input)
    "_C::gelu_new": unary(GELU), "_C::gelu_fast": unary(GELU), "_C::gelu_quick": unary(GELU),
    # rotary_embedding(positions, query!, key!?, head_size, cos_sin_cache, is_neox)
    "_C::rotary_embedding": rotary(0, 1, 2, 3, 4),
    # csrc/cache.h: reshape_and_cache[_flash](key, value, key_cache!, value_cache!, slot_mapping,
    #   kv_cache_dtype, k_scale, v_scale)
    "_C_cache_ops::reshape_and_cache": cache_write((0, 1), (2, 3), 4),
    "_C_cache_ops::reshape_and_cache_flash": cache_write((0, 1), (2, 3), 4),
    # concat_and_cache_mla(kv_c, k_pe, kv_cache!, slot_mapping, kv_cache_dtype, scale)
    "_C_cache_ops::concat_and_cache_mla": cache_write((0, 1), (2,), 3),
    # static_scaled_fp8_quant(result!, input, scale[, group_shape])
    "_C::static_scaled_fp8_quant": quantize(1, 1),
    # dynamic_scaled_fp8_quant(result!, input, scale!) and
    # dynamic_per_token_scaled_fp8_quant(result!, input, scale!, scale_ub?)
    "_C::dynamic_scaled_fp8_quant": quantize(1, 2),
    "_C::dynamic_per_token_scaled_fp8_quant": quantize(1, 2),
    # static/dynamic_scaled_int8_quant(result!, input, scale[, azp])
    "_C::static_scaled_int8_quant": quantize(1, 1),
    "_C::dynamic_scaled_int8_quant": quantize(1, 2),
    # csrc/libtorch_stable/torch_bindings.cpp: per_token_group_fp8_quant(input, output_q!,
    #   output_s!, group_size, ...), per_token_group_quant_int8 the same
    "_C::per_token_group_fp8_quant": quantize(0, 2),
    "_C::per_token_group_quant_int8": quantize(0, 2),
    # scaled_fp4_quant: three schemas (see scaled_fp4_quant)
    "_C::scaled_fp4_quant": scaled_fp4_quant,
    # cutlass_scaled_mm(out!, a, b, a_scales, b_scales, bias?);
    # cutlass_scaled_mm_azp(out!, a, b, a_scales, b_scales, azp_adj, azp?, bias?)
    "_C::cutlass_scaled_mm": scaled_mm(0, 1, 2),
    "_C::cutlass_scaled_mm_azp": scaled_mm(0, 1, 2),
    # cutlass_scaled_fp4_mm(D!, A, B, A_sf, B_sf, alpha)
    "_C::cutlass_scaled_fp4_mm": scaled_fp4_mm,
    # csrc/moe/torch_bindings.cpp: topk_softmax(topk_weights!, topk_indices!,
    #   token_expert_indices!, gating_output[, renormalize, bias?]); topk_sigmoid the same
    "_moe_C::topk_softmax": router_topk(SOFTMAX),
    "_moe_C::topk_sigmoid": router_topk(SIGMOID),
    # moe_permute(input, topk_ids, token_expert_indices, expert_map?, n_expert, n_local_expert,
    #   topk, permuted_input!, ...), shuffle_rows(input, dst2src_map, output!): copies
    "_moe_C::moe_permute": data_movement, "_moe_C::shuffle_rows": data_movement,
    "_moe_C::moe_unpermute": unpermute,
    # moe_align_block_size(topk_ids, num_experts, block_size, sorted_token_ids!, experts_ids!,
    #   num_tokens_post_pad!)
    "_moe_C::moe_align_block_size": data_movement,
    # moe_sum(input [T, k, H], output! [T, H])
    "_moe_C::moe_sum": moe_sum,
    # SGLang sgl-kernel common_extension.cc: rmsnorm(output!, input, weight, eps, enable_pdl)
    "sgl_kernel::rmsnorm": rms_norm(1),
    "sgl_kernel::gemma_rmsnorm": rms_norm(1, gemma=True),
    # fused_add_rmsnorm(input!, residual!, weight, eps, enable_pdl)
    "sgl_kernel::fused_add_rmsnorm": rms_norm(0, add=True, in_place=(0, 1)),
    "sgl_kernel::gemma_fused_add_rmsnorm": rms_norm(0, add=True, gemma=True, in_place=(0, 1)),
    # silu_and_mul / gelu_and_mul / gelu_tanh_and_mul(out!, input, ...)
    "sgl_kernel::silu_and_mul": gated(SILU), "sgl_kernel::gelu_and_mul": gated(GELU),
    "sgl_kernel::gelu_tanh_and_mul": gated(GELU),
    # rotary_embedding(positions, query!, key!?, head_size, cos_sin_cache, is_neox)
    "sgl_kernel::rotary_embedding": rotary(0, 1, 2, 3, 4),
    # topk_softmax(topk_weights!, topk_indices!, gating_output, renormalize)
    "sgl_kernel::topk_softmax": router_topk(SOFTMAX),
    "sgl_kernel::moe_align_block_size": data_movement,
    # sgl-project/sglang python/sglang/jit_kernel/kvcache.py: store_cache(k, v, k_cache!, v_cache!,
    #   indices, row_bytes, num_split[, size_limit]): the T new rows go into the caches at indices;
    # store_cache_quant(k, v, k_cache!, v_cache!, indices, k_scale?, v_scale?, ...): into an FP8 cache
    "sglang::store_cache": cache_write((0, 1), (2, 3), 4),
    "sglang::store_cache_quant": cache_write((0, 1), (2, 3), 4),
    # fp8_scaled_mm(mat_a, mat_b, scales_a, scales_b, out_dtype, bias?) -> out
    "sgl_kernel::fp8_scaled_mm": scaled_mm(None, 0, 1, 4),
    # int8_scaled_mm(mat_a, mat_b, scales_a, scales_b, out_dtype, bias?) -> out
    "sgl_kernel::int8_scaled_mm": scaled_mm(None, 0, 1, 4),
    # cutlass_scaled_fp4_mm(D!, A, B, A_sf, B_sf, alpha)
    "sgl_kernel::cutlass_scaled_fp4_mm": scaled_fp4_mm,
    # scaled_fp4_quant(output!, input!, output_scale!, input_scale!)
    "sgl_kernel::scaled_fp4_quant": scaled_fp4_quant,
    # sgl_per_token_group_quant_fp8/int8(input, output_q, output_s, group_size, ...),
    # sgl_per_token_quant_fp8(input, output_q, output_s), sgl_per_tensor_quant_fp8(input, output_q,
    # output_s, is_static): a static scale is one multiply, a dynamic one finds the maximum first
    "sgl_kernel::sgl_per_token_group_quant_fp8": quantize(0, 2),
    "sgl_kernel::sgl_per_token_group_quant_int8": quantize(0, 2),
    "sgl_kernel::sgl_per_token_quant_fp8": quantize(0, 2),
    "sgl_kernel::sgl_per_tensor_quant_fp8": per_tensor_quant,
    # TensorRT-LLM cpp/tensorrt_llm/thop/fp8BlockScalingGemm.cpp: fp8_block_scaling_gemm(mat1 [M, K],
    #   mat2 [N, K], mat1Scale?, mat2Scale?) -> bf16 [M, N]
    "trtllm::fp8_block_scaling_gemm": nt_gemm(0, 1, None, "c10::BFloat16"),
    # thop/fp4Gemm.cpp: fp4_gemm / fp4_bmm(mat1 [(B,) M, K/2], mat2 [(B,) N, K/2], mat1Scale,
    #   mat2Scale, globalScale, sfUseUE8M0 (later fp4GemmType), out_dtype? = fp16)
    "trtllm::fp4_gemm": nt_gemm(0, 1, 6, "c10::Half", packed_fp4=True),
    "trtllm::fp4_bmm": nt_gemm(0, 1, 6, "c10::Half", packed_fp4=True),
    # thop/cublasScaledMM.cpp: cublas_scaled_mm(mat_a [M, K], mat_b [K, N], scale_a, scale_b, bias?,
    #   out_dtype?, ...) -> [M, N]; cublas_mm(mat_a, mat_b, bias?, out_dtype?, ...)
    "trtllm::cublas_scaled_mm": scaled_mm(None, 0, 1, 5),
    "trtllm::cublas_mm": scaled_mm(None, 0, 1, 3),
}

