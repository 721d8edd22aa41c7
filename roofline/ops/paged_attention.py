"""Attention of serving libraries: vLLM's unified attention (prefill and
decode over a paged KV cache), its paged-attention decode kernels, and
FlashAttention's variable-length (varlen) calls.

FLOPs as :mod:`.attention` counts them: 2 x pairs x E for S = Q K^T and
2 x pairs x Ev for O = P V, per query head, where pairs is the number of
query-key pairs the mask keeps; a causal varlen batch is aligned
bottom-right (each new query sees every earlier key of its sequence).

What a trace records is not always enough to count the pairs; what is
assumed is said in the row's notes:

- ``vllm::unified_attention[_with_output]`` records the new tokens' query,
  key and value ([T, heads, head_size] or flattened) but not the sequence
  lengths or block table (they live in the forward context). The T tokens
  are taken as one causal sequence with no earlier context: T (T + 1) / 2
  pairs. A batch of decode tokens with long contexts does more; a batch of
  several short prefills less; a sliding window less.
  When the call lies in a serving step whose range names its sums of
  sequence lengths (:mod:`..importers.kineto.step_lengths` writes them at
  :data:`STEP_AT`), the pairs are exact: sum of lq lk less, causally, sum
  of lq (lq - 1) / 2; the keys read are the sum of key lengths.
- aiter's ``mha_batch_prefill`` (SGLang's extend) and SGLang's
  ``paged_attention_ragged`` range (its decode) take the same sums; the
  prefill without them is sized like FlashAttention varlen, the ragged
  decode is unknown.
- ``paged_attention_v1/v2`` record ``max_seq_len`` but not each sequence's
  length: every sequence is taken as ``max_seq_len`` long (an upper bound).
- FlashAttention varlen records the batch (cu_seqlens has B + 1 entries),
  the packed totals and the maxima: sequences of equal length total / B
  are assumed (keys: max_seqlen_k per sequence when the keys are paged).

FlashAttention's masks, as its kernels apply them (``flash_api.cpp``
``mha_varlen_fwd``: ``is_causal`` sets the right window to 0): query i of
a sequence of lq queries and lk keys sits at key position
p = i + lk - lq (bottom-right aligned) and sees keys p - left .. p + right;
a window of -1 is unbounded. :func:`window_pairs` counts those pairs in
closed form, so a sliding window (Mistral, Gemma, gpt-oss) counts the
pairs it keeps, not the whole causal triangle.

Bytes: Q, the output, and the keys and values the pairs need once (the
paged cache at its own dtype, 1 byte for an FP8 cache; under a sliding
window only the keys some query sees, :func:`keys_read`); the scores stay
on chip.

May import ``.call`` and ``.attention`` (and the standard library).
"""
from __future__ import annotations

import re

from .attention import causal_pairs
from .call import Args, OpWork, Tensor, UnknownWork, dtype_precision, work

ONE_SEQUENCE_NOTE = ("sequence lengths not recorded: the T new tokens taken as one causal sequence with no "
                     "earlier context (T(T+1)/2 query-key pairs; decode with long contexts does more, "
                     "a sliding window less)")
MAX_LEN_NOTE = "sequence lengths not recorded: every sequence taken as max_seq_len long (an upper bound)"
EQUAL_NOTE = "varlen batch: sequences of equal length assumed (total / batch)"
PAGED_KEYS_NOTE = "paged keys: max_seqlen_k keys per sequence assumed"
STEP_NOTE = "sequence lengths from the serving step's annotation"
WINDOW_NOTE = ("the layer's sliding window is not recorded: full causal attention counted "
               "(an upper bound for a windowed layer)")
# Concrete Inputs positions (past every modelled operator's own arguments)
# where ..importers.kineto.step_lengths writes the step's sums over the
# sequences the call attends: sum of query lengths, of key lengths, of
# squared query lengths, of query x key lengths.
STEP_AT = 64


def step_sums(args: Args) -> tuple | None:
    """(sq, sk, sqsq, sqsk) written into the call from its serving step, or None."""
    v = tuple(args.value(STEP_AT + i) for i in range(4))
    if all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v) and v[0] > 0:
        return v
    return None


def step_pairs(sums: tuple, causal: bool) -> int:
    """Query-key pairs of the step's sequences: sum of lq lk, less under a
    bottom-right causal mask the pairs above the diagonal, sum of
    lq (lq - 1) / 2 = (sqsq - sq) / 2 (exact, not an approximation)."""
    sq, _, sqsq, sqsk = sums
    return sqsk - (sqsq - sq) // 2 if causal else sqsk


def step_work(args: Args, q: Tensor, q_width: int, out_width: int, kv_width: int, kv_itemsize: int,
              causal: bool, sums: tuple, notes: tuple = ()) -> OpWork:
    """One call's work from its step's sums: ``q_width`` (query heads x E)
    and ``out_width`` (query heads x Ev) elements per token, ``kv_width``
    (KV heads x (E + Ev)) elements per cached key. Every layer attends the
    same sequences, so each call (one per layer) does the step's per-layer
    work: FLOPs 2 pairs (Hq E + Hq Ev); bytes the recorded queries, the
    output of the sq tokens and sum-of-key-lengths keys and values once."""
    sq, sk = sums[0], sums[1]
    pairs = step_pairs(sums, causal)
    flop = 2 * pairs * (q_width + out_width)
    nbytes = q.nbytes + sq * out_width * q.itemsize + sk * kv_width * kv_itemsize
    return work({dtype_precision(q.dtype): flop}, nbytes, "attention", matrix=True, args=args,
                assumptions=(STEP_NOTE,) + notes)


def _clamped_sum(a: int, n: int, hi: int) -> int:
    """sum over i in [0, n) of clamp(a + i, 0, hi), in closed form."""
    first = min(max(0, 1 - a), n)          # first i with a + i >= 1
    full = min(max(0, hi - a), n)          # first i with a + i >= hi
    middle = (full - first) * (2 * a + first + full - 1) // 2 if full > first else 0
    return middle + (n - full) * hi


def window_pairs(lq: int, lk: int, causal: bool, left: int = -1, right: int = -1) -> int:
    """Query-key pairs of one sequence under FlashAttention's mask: query i
    (key position p = i + lk - lq) sees keys max(0, p - left) ..
    min(lk - 1, p + right); causal sets right to 0; -1 is unbounded."""
    if lq <= 0 or lk <= 0:
        return 0
    unbounded = lq + lk
    right = 0 if causal else (unbounded if right < 0 else right)
    left = unbounded if left < 0 else left
    # keys j <= x number clamp(x + 1, 0, lk): pairs are those up to p + right
    # minus those below p - left
    return _clamped_sum(lk - lq + right + 1, lq, lk) - _clamped_sum(lk - lq - left, lq, lk)


def keys_read(lq: int, lk: int, left: int) -> int:
    """Keys of one sequence that any query sees (its last lq + left under a
    left window, all lk without): what a paged cache must deliver."""
    return min(lk, lq + left) if left >= 0 else lk


def recorded_int(args: Args, at: int | None, default: int) -> int:
    """An int argument's literal, ``default`` when absent or not an int."""
    v = args.value(at) if at is not None else None
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def positive_int(args: Args, at: int | None) -> int | None:
    v = recorded_int(args, at, 0)
    return v if v > 0 else None


def _rows_width(t: Tensor, rows: int) -> int:
    """Elements per token (heads x head size), whatever the layout."""
    return t.numel // rows if rows else 0


def unified(output_at: int | None):
    """``unified_attention(query, key, value, layer_name)`` (returns the
    output) or ``unified_attention_with_output(query, key, value, output,
    layer_name, output_scale, output_block_scale)``."""
    def model(args: Args) -> OpWork:
        q, k, v = args.need(0), args.need(1), args.need(2)
        t = q.shape[0]
        if t <= 0 or k.shape[0] != t:
            raise LookupError("query and key disagree on the tokens")
        width_q = _rows_width(q, t)
        heads_q = q.shape[1] if len(q.shape) == 3 else None
        # per query head 2 pairs E + 2 pairs Ev: over the heads 2 pairs (Hq E + Hq Ev)
        ev_width = width_q if heads_q is None else heads_q * v.shape[-1]
        sums = step_sums(args)
        if sums is not None:
            # the new keys' own dtype stands for the cache's (an FP8 cache reads fewer bytes)
            return step_work(args, q, width_q, ev_width, _rows_width(k, t) + _rows_width(v, t), k.itemsize,
                             True, sums, (WINDOW_NOTE,))
        pairs = causal_pairs(t, t)
        flop = 2 * pairs * width_q + 2 * pairs * ev_width
        out = args.tensor(output_at) if output_at is not None else None
        nbytes = q.nbytes + k.nbytes + v.nbytes + (out.nbytes if out is not None else t * ev_width * 2)
        return work({dtype_precision(q.dtype): flop}, nbytes, "attention", matrix=True, args=args,
                    assumptions=(ONE_SEQUENCE_NOTE,))
    return model


def paged_decode(query_at: int, key_cache_at: int, kv_heads_at: int, max_len_at: int):
    """vLLM's ``paged_attention_v1``/``v2``: one query token per sequence."""
    def model(args: Args) -> OpWork:
        q, cache = args.need(query_at), args.need(key_cache_at)
        length, kv_heads = args.value(max_len_at), args.value(kv_heads_at)
        if not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in (length, kv_heads)):
            raise LookupError("max_seq_len or num_kv_heads not recorded")
        batch, heads, e = q.shape
        flop = 4 * batch * heads * length * e
        kv = 2 * batch * length * kv_heads * e * cache.itemsize
        return work({dtype_precision(q.dtype): flop}, 2 * q.nbytes + kv, "attention", matrix=True,
                    args=args, assumptions=(MAX_LEN_NOTE,))
    return model


def varlen(q_at: int, cu_q_at: int, max_k_at: int, causal_at: int, block_table_at: int | None,
           window_at: tuple = ()):
    """FlashAttention varlen forward: q [total_q, Hq, D], k and v
    [total_k, Hkv, D], or paged [blocks, page, Hkv, D] with a block table;
    ``window_at``: positions of window_size_left and _right."""
    def model(args: Args) -> OpWork:
        q, k, v = args.need(q_at), args.need(q_at + 1), args.need(q_at + 2)
        batch = args.need(cu_q_at).numel - 1
        if batch <= 0:
            raise LookupError("empty cu_seqlens")
        lq = -(-q.shape[0] // batch)
        notes = [EQUAL_NOTE]
        paged = block_table_at is not None and args.tensor(block_table_at) is not None
        if paged:
            lk = positive_int(args, max_k_at)
            if lk is None:
                raise LookupError("max_seqlen_k not recorded")
            notes.append(PAGED_KEYS_NOTE)
        else:
            lk = -(-k.shape[0] // batch)
        heads, e, ev = q.shape[-2], q.shape[-1], v.shape[-1]
        causal = bool(args.value(causal_at, False))
        left, right = (recorded_int(args, at, -1) for at in (window_at or (None, None)))
        pairs = batch * window_pairs(lq, lk, causal, left, right)
        flop = heads * (2 * pairs * e + 2 * pairs * ev)
        kv_heads = k.shape[-2]
        kv = (batch * keys_read(lq, lk, left) * kv_heads * (e + ev) * k.itemsize) if paged else k.nbytes + v.nbytes
        nbytes = q.nbytes + kv + q.shape[0] * heads * ev * q.itemsize
        return work({dtype_precision(q.dtype): flop}, nbytes, "attention", matrix=True, args=args,
                    assumptions=tuple(notes))
    return model


def dense_flash(causal_at: int, window_at: tuple):
    """``flash_attn::_flash_attn_forward``: q [B, Lq, Hq, D], k and v
    [B, Lk, Hkv, D], the mask bottom-right aligned as in varlen."""
    def model(args: Args) -> OpWork:
        q, k, v = args.need(0), args.need(1), args.need(2)
        if len(q.shape) != 4 or len(k.shape) != 4:
            raise LookupError("q and k are not [batch, seq, heads, dim]")
        batch, lq, heads, e = q.shape
        lk, ev = k.shape[1], v.shape[-1]
        left, right = (recorded_int(args, at, -1) for at in window_at)
        pairs = batch * window_pairs(lq, lk, bool(args.value(causal_at, False)), left, right)
        flop = heads * (2 * pairs * e + 2 * pairs * ev)
        nbytes = q.nbytes + k.nbytes + v.nbytes + batch * lq * heads * ev * q.itemsize
        return work({dtype_precision(q.dtype): flop}, nbytes, "attention", matrix=True, args=args)
    return model


# aiter/ops/mha.py mha_batch_prefill(q, k, v, cu_seqlens_q, kv_indptr, kv_page_indices,
#   max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale, logits_soft_cap, zero_tensors,
#   is_causal, window_size_left, window_size_right, sink_size, ...) (ROCm/aiter e4048607)
_PREFILL_VARLEN = varlen(0, 3, 7, 12, 5, (13, 14))


def batch_prefill(args: Args) -> OpWork:
    """aiter ``mha_batch_prefill``: q [Tq, Hq, E], the paged cache k and v
    [pages, (page,) Hkv, E]; with its step's sums exact (no window), else
    FlashAttention's varlen assumptions (equal lengths, max_seqlen_k keys)."""
    q, k, v = args.need(0), args.need(1), args.need(2)
    sums = step_sums(args)
    windowed = recorded_int(args, 13, -1) >= 0 or recorded_int(args, 14, -1) >= 0
    if sums is None or windowed or len(q.shape) != 3 or sums[0] != q.shape[0]:
        return _PREFILL_VARLEN(args)
    heads, e, ev = q.shape[1], q.shape[2], v.shape[-1]
    kv_width = k.shape[-2] * (k.shape[-1] + v.shape[-1])
    return step_work(args, q, heads * e, heads * ev, kv_width, k.itemsize, bool(args.value(12, False)), sums)


def ragged_decode(args: Args) -> OpWork:
    """SGLang's aiter backend's ``paged_attention_ragged`` range: one query
    token per sequence over a paged cache. The call records the batch
    (kv_indptr) but not the lengths; only its step's sums size it."""
    q, cache, value = args.need(2), args.need(3), args.need(4)
    sums = step_sums(args)
    if sums is None or len(q.shape) != 3 or sums[0] != q.shape[0]:
        raise UnknownWork("sequence lengths not recorded (no serving step annotation with sq/sk sums)")
    heads, e = q.shape[1], q.shape[2]
    ev = value.shape[-1]
    kv_width = cache.shape[-2] * (cache.shape[-1] + ev)
    return step_work(args, q, heads * e, heads * ev, kv_width, cache.itemsize, True, sums)


# SGLang's profiler range around aiter's paged_attention_ragged records its tensor (and None)
# arguments only: out, workspace_buffer, query, key_cache, value_cache, kv_indptr,
# kv_page_indices, kv_last_page_lens, alibi_slopes, k_scale, v_scale, fp8_out_scale
# (aiter/ops/attention.py paged_attention_ragged, ROCm/aiter e4048607; the range's name
# ends in a number). SGLang's aiter backend (python/sglang/srt/layers/attention/aiter_backend.py,
# sgl-project/sglang 003c5589) sizes the uint8 workspace by its largest batch and context and
# sends sliding-window pools to another kernel, so this path attends whole sequences.
_RAGGED = re.compile(r"^sglang_profiler::attention_paged_attention_ragged(?:_\d+)?$")


def pattern_model(name: str):
    """The model of an operator known by a pattern of its name, or None."""
    return ragged_decode if _RAGGED.match(name) else None


MODELS = {
    # vllm/attention/layer.py: unified_attention(query, key, value, layer_name) -> Tensor
    "vllm::unified_attention": unified(None),
    # unified_attention_with_output(query, key, value, output!, layer_name, output_scale?,
    #   output_block_scale?)
    "vllm::unified_attention_with_output": unified(3),
    # csrc/ops.h: paged_attention_v1(out, query, key_cache, value_cache, num_kv_heads, scale,
    #   block_tables, seq_lens, block_size, max_seq_len, alibi_slopes, kv_cache_dtype, ...)
    "_C::paged_attention_v1": paged_decode(1, 2, 4, 9),
    # paged_attention_v2(out, exp_sums, max_logits, tmp_out, query, key_cache, value_cache,
    #   num_kv_heads, scale, block_tables, seq_lens, block_size, max_seq_len, ...)
    "_C::paged_attention_v2": paged_decode(4, 5, 7, 12),
    # flash_attn (2.6+) flash_attn_interface.py custom ops:
    # _flash_attn_forward(q, k, v, dropout_p, softmax_scale, causal,
    # window_size_left, window_size_right, softcap, alibi_slopes, return_softmax)
    "flash_attn::_flash_attn_forward": dense_flash(5, (6, 7)),
    # _flash_attn_varlen_forward(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
    #   dropout_p, softmax_scale, causal, window_size_left, window_size_right, softcap,
    #   alibi_slopes, return_softmax, block_table, ...)
    "flash_attn::_flash_attn_varlen_forward": varlen(0, 3, 6, 9, 15, (10, 11)),
    # vllm-project/flash-attention csrc flash_api: varlen_fwd(q, k, v, out, cu_seqlens_q,
    #   cu_seqlens_k, seqused_k, leftpad_k, block_table, alibi_slopes, max_seqlen_q, max_seqlen_k,
    #   p_dropout, softmax_scale, zero_tensors, is_causal, window_size_left, window_size_right, ...)
    "_vllm_fa2_C::varlen_fwd": varlen(0, 4, 11, 15, 8, (16, 17)),
    "aiter::mha_batch_prefill": batch_prefill,
}
