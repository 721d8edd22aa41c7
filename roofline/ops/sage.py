"""SageAttention as aiter runs it (``aiter/ops/triton/attention/fav3_sage.py``):
a quantize launch, then attention with INT8 Q K^T and FP8 P V.

Both are user Triton kernels: the profiler records each launch as an
operator named like its kernel with a numeric suffix (``sage_quant_kernel_0``,
``sage_fwd_1``), whose arguments are the kernel's
(``aiter/ops/triton/_triton_kernels/attention/fav3_sage_attention.py``):

``sage_fwd(Q, K, V, bias, Q_Descale, K_Descale, V_Descale, 8 scale strides,
LSE, Out, ...)``: Q and K INT8, V FP8, [B, H, L, D] or [B, L, H, D] (the
``tensor_layout``); the descale tensors are [B, H, blocks], so their second
dimension gives the heads and the sequence length is what is left. Per
query-key pair, 2 D multiply-adds on the INT8 tensor units (Q K^T) and
2 Dv on the FP8 ones (P V). ``IS_CAUSAL`` is a compile-time constant the
launch does not record: full attention is counted, which is what diffusion
transformers run; a causal launch does half, and the row says so.

``sage_quant_kernel(q, q_int8, q_scale, k, k_int8, k_scale, v, v_fp8,
v_scale, ...)``: per block, the absolute maximum and the scale multiply
(2 FLOPs per element of q, k and v, on the vector units); bytes: every
tensor argument once.

May import ``.call`` (and the standard library).
"""
from __future__ import annotations

import re

from .call import Args, OpWork, Tensor, dtype_precision, work

NOT_CAUSAL_NOTE = ("IS_CAUSAL is not recorded (a compile-time constant): full attention counted, "
                   "as diffusion transformers run it; a causal launch does half the FLOPs")
QUANT_FLOP = 2       # absolute maximum, scale multiply
_FWD = re.compile(r"^sage_fwd(_\d+)?$")
_QUANT = re.compile(r"^sage_quant_kernel(_\d+)?$")


def _sequence(t: Tensor, batch: int, heads: int) -> int:
    """The sequence length of a [B, H, L, D] or [B, L, H, D] tensor."""
    if len(t.shape) != 4 or t.shape[0] != batch or heads not in t.shape[1:3]:
        raise LookupError("not a [B, H, L, D] / [B, L, H, D] tensor of the descale's heads")
    return t.numel // (batch * heads * t.shape[-1])


def forward(args: Args) -> OpWork:
    q, k, v = args.need(0), args.need(1), args.need(2)
    q_scale, k_scale = args.need(4), args.need(5)
    batch, heads_q, heads_k = q.shape[0], q_scale.shape[1], k_scale.shape[1]
    lq, lk = _sequence(q, batch, heads_q), _sequence(k, batch, heads_k)
    pairs = batch * heads_q * lq * lk
    flops: dict[str, float] = {}
    for dtype, width in ((q.dtype, q.shape[-1]), (v.dtype, v.shape[-1])):     # Q K^T, then P V
        flops[dtype_precision(dtype)] = flops.get(dtype_precision(dtype), 0) + 2 * pairs * width
    nbytes = sum(t.nbytes for t in args.tensors())
    return work(flops, nbytes, "attention", matrix=True, args=args, assumptions=(NOT_CAUSAL_NOTE,))


def quantize(args: Args) -> OpWork:
    sources = [args.need(i) for i in (0, 3, 6)]
    return work({"fp32": QUANT_FLOP * sum(t.numel for t in sources)}, sum(t.nbytes for t in args.tensors()),
                "elementwise", args=args)


def pattern_model(name: str):
    """The model of a SageAttention launch named like its kernel, or None."""
    if _FWD.match(name):
        return forward
    if _QUANT.match(name):
        return quantize
    return None
