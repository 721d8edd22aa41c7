"""Scaled dot-product attention, forward and backward.

Forward: S = Q K^T (2 L S E per head) and O = P V (2 L S Ev per head);
the softmax's few operations per score are left out (under 5 % for head
dimensions of 64 and more). A causal mask keeps only the scores on or below
the diagonal: the pairs are counted exactly (about half for L = S).
Backward of the fused kernels (flash, memory-efficient, cuDNN): the scores
are recomputed (1) and dV, dP, dQ, dK cost one product each (4): 2.5x the
forward. Bytes: Q, K, V, O (and mask, grads) once; the L x S scores stay on
chip in the fused kernels, which is what makes them fused.

A causal call carries :data:`CAUSAL_NOTE`: torch's FlopCounterMode counts
all L x S pairs whatever ``is_causal`` says (``sdpa_flop``: "We aren't
accounting for causal attention here"), so for L = S this model's count is
(L + 1) / 2L of torch's formula, about half; the flash kernels (CUDA and
CPU) skip the key blocks above the diagonal, computing whole blocks on it
(slightly more than the pairs counted). In torch 2.13 the counter has no
formula for the CPU kernel (``_scaled_dot_product_flash_attention_for_cpu``)
and reports 0 for it.
"""
from __future__ import annotations

import math

from .call import Args, OpWork, Tensor, dtype_precision, work

RECOMPUTE = "backward recomputes the scores (fused kernels): 5 products, 2.5x the forward"
CAUSAL_NOTE = ("causal: only the query-key pairs on or below the diagonal are counted "
               "(about half of torch FlopCounterMode's count, which ignores is_causal)")


def causal_pairs(lq: int, lk: int, bottom_right: bool = False) -> int:
    """Query-key pairs a causal mask keeps. Top-left aligned (torch's
    ``is_causal``): query i sees keys 0..i; bottom-right aligned: keys
    0..i + lk - lq."""
    shift = lk - lq if bottom_right else 0
    # query i keeps clamp(i + 1 + shift, 0, lk) keys: an arithmetic series
    # where 0 < i + 1 + shift < lk, then lk per query
    first, last = max(0, -shift), min(lq - 1, lk - 2 - shift)
    partial = 0
    if last >= first:
        partial = (last - first + 1) * (first + last + 2 + 2 * shift) // 2
    full_from = max(0, lk - 1 - shift)
    return partial + max(0, lq - full_from) * lk


def _heads_last(t: Tensor) -> tuple:
    """[..., L, E] layout (torch.nn.functional.scaled_dot_product_attention)."""
    return math.prod(t.shape[:-2]), t.shape[-2], t.shape[-1]


def _seq_second(t: Tensor) -> tuple:
    """[B, L, H, E] layout (_flash_attention_forward, _efficient_attention_forward)."""
    b, seq, h, e = t.shape
    return b * h, seq, e


def _pairs(batch: int, lq: int, lk: int, causal: bool, bottom_right: bool = False) -> int:
    return batch * (causal_pairs(lq, lk, bottom_right) if causal else lq * lk)


def attention(q_at: int, causal_at, layout=_heads_last, *, backward: bool = False,
              extra_tensors: tuple = (), mask_type_at: int | None = None):
    """A model for one attention operator: ``causal_at`` is the position of
    ``is_causal`` (None: not causal); ``mask_type_at`` the position of
    ``custom_mask_type`` (0 none, 1 top-left causal, 2 bottom-right)."""
    def model(args: Args) -> OpWork:
        q, k, v = (args.need(q_at + j) for j in range(3))
        batch, lq, e = layout(q)
        _, lk, _ = layout(k)
        ev = v.shape[-1]
        causal = bool(args.value(causal_at, False)) if causal_at is not None else False
        bottom_right = False
        if mask_type_at is not None:
            kind = args.value(mask_type_at, 0)
            causal, bottom_right = kind in (1, 2), kind == 2
        pairs = _pairs(batch, lq, lk, causal, bottom_right)
        notes = (CAUSAL_NOTE,) if causal else ()
        forward_flop = 2 * pairs * e + 2 * pairs * ev
        out_bytes = batch * lq * ev * q.itemsize
        others = sum(t.nbytes for t in (args.tensor(i) for i in extra_tensors) if t is not None)
        if backward:
            # read dO, Q, K, V, O (+ logsumexp); write dQ, dK, dV
            nbytes = 2 * (q.nbytes + k.nbytes + v.nbytes) + 2 * out_bytes + others
            return work({dtype_precision(q.dtype): 2.5 * forward_flop}, nbytes, "attention",
                        matrix=True, args=args, assumptions=(RECOMPUTE,) + notes)
        nbytes = q.nbytes + k.nbytes + v.nbytes + out_bytes + others
        return work({dtype_precision(q.dtype): forward_flop}, nbytes, "attention", matrix=True,
                    args=args, assumptions=notes)
    return model


MODELS = {
    # (query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    "scaled_dot_product_attention": attention(0, 5, extra_tensors=(3,)),
    # (query, key, value, attn_mask, dropout_p, is_causal, dropout_mask, scale, enable_gqa)
    "_scaled_dot_product_attention_math": attention(0, 5, extra_tensors=(3,)),
    # (query, key, value, dropout_p, is_causal, return_debug_mask, scale)
    "_scaled_dot_product_flash_attention": attention(0, 4),
    # (query, key, value, dropout_p, is_causal, attn_mask, scale)
    "_scaled_dot_product_flash_attention_for_cpu": attention(0, 4, extra_tensors=(5,)),
    # (query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal, scale)
    "_scaled_dot_product_efficient_attention": attention(0, 6, extra_tensors=(3,)),
    # (query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal, return_debug_mask, scale)
    "_scaled_dot_product_cudnn_attention": attention(0, 6, extra_tensors=(3,)),
    # (query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, ...)
    "_flash_attention_forward": attention(0, 8, _seq_second),
    # (query, key, value, bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
    #  dropout_p, custom_mask_type, ...)
    "_efficient_attention_forward": attention(0, None, _seq_second, extra_tensors=(3,),
                                              mask_type_at=9),
    # (grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k,
    #  dropout_p, is_causal, ...)
    "_scaled_dot_product_flash_attention_backward": attention(1, 11, backward=True,
                                                              extra_tensors=(5,)),
    # (grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, attn_mask, scale)
    "_scaled_dot_product_flash_attention_for_cpu_backward": attention(1, 7, backward=True,
                                                                      extra_tensors=(5, 8)),
    # (grad_out, query, key, value, attn_bias, out, logsumexp, philox_seed, philox_offset,
    #  dropout_p, grad_input_mask, is_causal, scale)
    "_scaled_dot_product_efficient_attention_backward": attention(1, 11, backward=True,
                                                                  extra_tensors=(4, 6)),
    # (grad_out, query, key, value, out, logsumexp, philox_seed, philox_offset, attn_bias,
    #  cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, scale)
    "_scaled_dot_product_cudnn_attention_backward": attention(1, 14, backward=True,
                                                              extra_tensors=(5, 8)),
    # (grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k,
    #  dropout_p, is_causal, ...)
    "_flash_attention_backward": attention(1, 11, _seq_second, backward=True, extra_tensors=(5,)),
    # (grad_out_, query, key, value, bias, out, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
    #  max_seqlen_k, logsumexp, dropout_p, philox_seed, philox_offset, custom_mask_type, ...)
    "_efficient_attention_backward": attention(1, None, _seq_second, backward=True,
                                               extra_tensors=(4, 10), mask_type_at=14),
}
