"""Fused mixture-of-experts layers of serving libraries (vLLM, SGLang):
a grouped GEMM over the routed tokens, with routing, permute and finalize
around it.

Each of the T tokens is routed to k of the E experts. Every routed token
goes through the expert's gated MLP: gate and up projection H -> 2I (a
GEMM of 2 x H x 2I FLOP per routed token), the activation, and the down
projection I -> H (2 x I x H). So the grouped GEMMs do

    FLOP = 2 T k H (2 I) + 2 T k I H = 6 T k H I

multiply-add FLOPs, on the tensor roof of the MMA's precision (the kernel
name's, docs/kernel-names.md, where it says one; else the hidden states'
dtype). The activation between the two GEMMs (5 + 1 FLOP per element of
I, under 1 % of the GEMMs) is left to the kernel that does it when that is
an operator of its own (``_C::silu_and_mul``) and not counted otherwise.

Compulsory bytes of the GEMMs: the hidden states read, the weights of the
experts the tokens reach (at most min(E, T k) experts, each 3 H I
elements), the activations between the GEMMs written and read (T k I each
way), the down projection's output (T k H) written. The routing, permute
and finalize launches (``aside``: the non-matrix kernels of the operator)
move data: the router logits read (T E), the top-k ids and weights
written (T k x 8 bytes), the expert outputs read (T k H) and the weighted
sum written (T H); their few FLOPs (the router softmax, 5 per logit, and
the weighted sum, 2 per routed element) are not counted: shared out by
time they would land on routing kernels that do none of them.

``vllm::moe_forward(hidden_states, router_logits, layer_name)`` records
neither the weights (the layer finds them by name) nor top-k: the Kineto
reader reads k and I from the allocations the operator makes (a [T, k]
integer tensor of routing ids, a [rows >= T k, I] activation buffer;
:mod:`roofline.importers.kineto.serving`) and passes them as arguments 3
and 4; without them the work is unknown and the row says why. The weights'
dtype is not recorded there either: they are counted at 4 bits per
element (the narrowest format serving libraries store experts in, FP4 or
INT4), which keeps the bytes a lower bound, and the row says so.

Where the operator takes views of the experts' weights (``triton_kernels``'
matmul_ogs path: packed MXFP4 w1 and w2 in bytes), the reader passes
their bytes as argument 5, and they replace the 4-bit count.

``vllm::inplace_fused_experts`` / ``outplace_fused_experts(hidden_states,
w1, w2, topk_weights, topk_ids, ...)`` record everything: w1 [E, 2I, H],
w2 [E, H, I] (packed 4-bit weights halve the last dimension; their bytes
are their recorded bytes), k = topk_ids.shape[-1].

Grouped GEMMs called one at a time (vLLM's CUTLASS MoE path: two calls
per layer around the activation): ``cutlass_moe_mm(out!, a, b, a_scales,
b_scales, expert_offsets, problem_sizes, ...)`` multiplies the permuted
rows a [M, K] by their experts' weights b (E experts) into out [M, N]:
2 M N K, on the tensor roof of a's dtype; ``cutlass_fp4_group_mm`` and
``cutlass_mxfp4_group_mm`` take packed FP4 a [M, K/2] (K twice the stored
width) on the FP4 roof. Each row's expert is in expert_offsets, whose
values are not recorded: every row of a is counted (a batched layout's
padding rows too, said) and the weights of min(E, M) experts are read.

May import ``.call`` and ``.serving`` (and the standard library).
"""
from __future__ import annotations

from .call import Args, OpWork, Tensor, UnknownWork, dtype_precision, work
from .serving import PACKED_FP4_NOTE

GATED_GEMM_FLOP = 6          # per routed token x H x I: 2 x H x 2I + 2 x I x H
ID_AND_WEIGHT_BYTES = 8      # int32 expert id + fp32 weight per routed token
WEIGHT_BITS_ASSUMED = 4
ROUTING_NOTE = ("top-k and the experts' intermediate size read from the operator's allocations "
                "(the trace records neither)")
WEIGHTS_NOTE = ("expert weights not recorded: counted at 4 bits per element (FP4/INT4, the narrowest "
                "format served), so the bytes stay a lower bound")
WEIGHTS_SEEN_NOTE = ("expert weights' bytes from the views the operator takes of them (tensors of E experts); "
                     "block scales, where the format has them, are not among them")
TOUCHED_NOTE = "weights of min(E, T x k) experts counted: every expert a token reaches is read once"
GATED_NOTE = "gated activation (SwiGLU-style: the first GEMM is H -> 2I) assumed"
NOT_RECORDED = ("vllm::moe_forward records only hidden_states and router_logits: top-k and the experts' "
                "intermediate size were not found in the operator's allocations")


def moe_work(hidden: Tensor, experts: int, k: int, intermediate: int, weight_bytes: float,
             args: Args, notes: tuple) -> OpWork:
    """The grouped GEMMs as the main work, routing/permute/finalize aside."""
    t, h = (hidden.numel // hidden.shape[-1]), hidden.shape[-1]
    routed = t * k
    s = hidden.itemsize
    main_bytes = hidden.nbytes + weight_bytes + 2 * routed * intermediate * s + routed * h * s
    aside_bytes = (t * experts * s + routed * ID_AND_WEIGHT_BYTES + routed * h * s + t * h * s)
    # data movement only: the router softmax and the weighted sum are a few
    # FLOPs per byte moved, and shared out by time they would land on the
    # routing kernels of a few blocks, which do none of them
    aside = work({}, aside_bytes, "elementwise", assumptions=tuple(n for n in notes if n == ROUTING_NOTE))
    return work({dtype_precision(hidden.dtype): GATED_GEMM_FLOP * routed * h * intermediate}, main_bytes,
                "gemm", matrix=True, args=args, assumptions=notes, aside=aside)


def _positive(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def moe_forward(args: Args) -> OpWork:
    """``moe_forward(hidden_states, router_logits, layer_name)`` with top-k
    and I at positions 3 and 4 and the viewed weights' bytes at 5 (filled
    in by the reader)."""
    hidden, logits = args.need(0), args.need(1)
    k, intermediate = _positive(args.value(3)), _positive(args.value(4))
    if k is None or intermediate is None:
        raise UnknownWork(NOT_RECORDED)
    experts = logits.shape[-1]
    touched = min(experts, (hidden.numel // hidden.shape[-1]) * k)
    seen = _positive(args.value(5))
    if seen is not None:
        weights, weights_note = seen * touched / experts, WEIGHTS_SEEN_NOTE
    else:
        weights = touched * 3 * hidden.shape[-1] * intermediate * WEIGHT_BITS_ASSUMED / 8
        weights_note = WEIGHTS_NOTE
    return moe_work(hidden, experts, k, intermediate, weights, args,
                    (ROUTING_NOTE, weights_note, TOUCHED_NOTE, GATED_NOTE))


def fused_experts(args: Args) -> OpWork:
    """``fused_experts(hidden_states, w1, w2, topk_weights, topk_ids, ...)``."""
    hidden, w1, w2, ids = args.need(0), args.need(1), args.need(2), args.need(4)
    experts, k = w1.shape[0], ids.shape[-1]
    intermediate = w1.shape[1] // 2
    if intermediate <= 0 or w2.shape[0] != experts:
        raise LookupError("w1 and w2 disagree")
    touched = min(experts, (hidden.numel // hidden.shape[-1]) * k)
    weights = (w1.nbytes + w2.nbytes) * touched / experts
    return moe_work(hidden, experts, k, intermediate, weights, args, (TOUCHED_NOTE, GATED_NOTE))


ROWS_NOTE = "every row of the grouped GEMM's input counted (expert offsets not recorded; padding rows too)"


def grouped_mm(packed_fp4: bool = False):
    """out [M, N] = a [M, K] x (each row's expert of b [E, ...])."""
    def model(args: Args) -> OpWork:
        out, a, b = args.need(0), args.need(1), args.need(2)
        if len(out.shape) != 2 or len(a.shape) != 2 or len(b.shape) != 3 or out.shape[0] != a.shape[0]:
            raise LookupError("grouped GEMM shapes not out [M, N], a [M, K], b [E, ., .]")
        m, n = out.shape
        k = a.shape[1] * (2 if packed_fp4 else 1)
        experts = b.shape[0]
        touched = min(experts, m)
        nbytes = sum(t.nbytes for t in args.tensors()) - b.nbytes * (1 - touched / experts)
        precision = "fp4" if packed_fp4 else dtype_precision(a.dtype)
        notes = (ROWS_NOTE, TOUCHED_NOTE) + ((PACKED_FP4_NOTE,) if packed_fp4 else ())
        return work({precision: 2 * m * n * k}, nbytes, "gemm", matrix=True, args=args, assumptions=notes)
    return model


MODELS = {
    # vllm/model_executor/layers/fused_moe/layer.py: moe_forward(hidden_states, router_logits,
    #   layer_name) -> Tensor; moe_forward_shared the same with the shared experts' output
    "vllm::moe_forward": moe_forward,
    "vllm::moe_forward_shared": moe_forward,
    # fused_moe.py: inplace/outplace_fused_experts(hidden_states, w1, w2, topk_weights, topk_ids,
    #   activation, ...)
    "vllm::inplace_fused_experts": fused_experts,
    "vllm::outplace_fused_experts": fused_experts,
    "sglang::inplace_fused_experts": fused_experts,
    "sglang::outplace_fused_experts": fused_experts,
    # vllm csrc/libtorch_stable/torch_bindings.cpp: cutlass_moe_mm(out_tensors!, a_tensors,
    #   b_tensors, a_scales, b_scales, expert_offsets, problem_sizes, a_strides, b_strides,
    #   c_strides, per_act_token, per_out_ch)
    "_C::cutlass_moe_mm": grouped_mm(),
    # cutlass_fp4_group_mm(out!, a, b, a_blockscale, b_blockscales, alphas, problem_sizes,
    #   expert_offsets, sf_offsets); cutlass_mxfp4_group_mm(out!, a, b, a_blockscale,
    #   b_blockscales, problem_sizes, expert_offsets, sf_offsets)
    "_C::cutlass_fp4_group_mm": grouped_mm(packed_fp4=True),
    "_C::cutlass_mxfp4_group_mm": grouped_mm(packed_fp4=True),
    # sglang sgl-kernel common_extension.cc: cutlass_fp4_group_mm(output!, a, b, a_blockscale,
    #   b_blockscale, alphas, ab_strides, c_strides, problem_sizes, expert_offsets, sf_offsets)
    "sgl_kernel::cutlass_fp4_group_mm": grouped_mm(packed_fp4=True),
}
