"""FlashInfer's operators as a PyTorch trace records them.

FlashInfer registered its kernels as PyTorch operators from v0.2.1
(February 2025, ``TORCH_LIBRARY_FRAGMENT(TORCH_EXTENSION_NAME, m)`` in
``csrc/*_pybind.cu`` and ``csrc/flashinfer_*_ops.cu``) until its move to
TVM-FFI bindings (September 2025, flashinfer-ai/flashinfer #1641); its
Python-level ``flashinfer::`` custom ops were switched off in December
2024 (#709). A trace of a serving engine built on those versions records
them under their JIT module's name as namespace: ``norm::rmsnorm``,
``silu_and_mul::silu_and_mul``, ``rope::apply_rope_pos_ids_cos_sin_cache``
and, for attention, a module name that spells the dtypes and head sizes,
``batch_prefill_with_kv_cache_dtype_q_bf16_..._head_dim_qk_128_...::paged_run``
(``_sm90`` at its end for the FA3 backend) or
``batch_decode_with_kv_cache_...::run``: those are matched by prefix and
operator name (:func:`pattern_model`). Later FlashInfer versions record no
operator of their own (their launches belong to the caller's operator).

Argument positions (stable from v0.2.1 to v0.3.1; a trailing ``cuda_stream``
or ``enable_pdl`` came and went after the positions used here):

- ``paged_run(float_ws, int_ws, plan_info, q, paged_k_cache, paged_v_cache,
  qo_indptr, paged_kv_indptr, paged_kv_indices, paged_kv_last_page_len, o,
  maybe_lse, mask_mode_code, layout, window_left, ...)``;
- ``ragged_run(float_ws, int_ws, plan_info, q, k, v, qo_indptr, kv_indptr,
  o, maybe_lse, mask_mode_code, layout, window_left, ...)``;
- decode ``run(float_ws, int_ws, plan_info, q, paged_k_cache,
  paged_v_cache, paged_kv_indptr, paged_kv_indices, paged_kv_last_page_len,
  o, maybe_lse, kv_layout_code, window_left, ...)``.

The sequence lengths live in the indptr arrays, whose values a trace does
not record; their shapes give the batch (B + 1 entries) and the page
count (``paged_kv_indices`` holds every page of the batch). Sequences of
equal length are assumed (total / B queries each) and each sequence's keys
are its share of the pages, every last page taken as full (an upper bound
by less than a page per sequence; a CUDA-graph buffer sized for the
largest batch makes it larger): said in the row. Mask mode 1 is causal
(bottom-right aligned, as FlashAttention), 0 none; ``window_left`` >= 0 a
sliding window. The cache is NHD [pages, page_size, Hkv, D] (layout 0) or
HND [pages, Hkv, page_size, D] (layout 1).

May import ``.call``, ``.paged_attention`` and ``.serving`` (and the
standard library).
"""
from __future__ import annotations

from .call import Args, OpWork, dtype_precision, work
from .paged_attention import EQUAL_NOTE, keys_read, recorded_int, window_pairs
from .serving import GELU, SILU, gated, rms_norm, rotary_cached

PAGES_NOTE = ("sequence lengths not recorded: each sequence's keys taken as its share of the batch's "
              "pages, every last page full (an upper bound)")
CAUSAL_MODE = 1
HND = 1


def _mask(args: Args, mask_at: int | None, window_at: int) -> tuple:
    causal = mask_at is None or recorded_int(args, mask_at, 0) == CAUSAL_MODE
    return causal, recorded_int(args, window_at, -1)


def _attention(args: Args, batch: int, lq: int, lk: int, causal: bool, left: int, kv_bytes: float,
               out_at: int, notes: tuple) -> OpWork:
    q = args.need(3)
    heads, e = q.shape[-2], q.shape[-1]
    o = args.tensor(out_at)
    ev = o.shape[-1] if o is not None else e
    pairs = batch * window_pairs(lq, lk, causal, left)
    flop = heads * (2 * pairs * e + 2 * pairs * ev)
    out_bytes = o.nbytes if o is not None else q.numel // e * ev * max(q.itemsize, 2)
    return work({dtype_precision(q.dtype): flop}, q.nbytes + kv_bytes + out_bytes, "attention", matrix=True,
                args=args, assumptions=notes)


def _paged(args: Args, batch: int, lq: int, left: int, indices_at: int, layout_at: int) -> tuple:
    """(keys per sequence, bytes of the keys and values read) of a paged
    cache: the batch's pages shared equally, a window's keys only."""
    k, v = args.need(4), args.need(5)
    if len(k.shape) != 4:
        raise LookupError("paged cache is not [pages, page, heads, dim]")
    hnd = recorded_int(args, layout_at, 0) == HND
    page_size, kv_heads = (k.shape[2], k.shape[1]) if hnd else (k.shape[1], k.shape[2])
    lk = -(-args.need(indices_at).numel * page_size // batch)
    return lk, batch * keys_read(lq, lk, left) * kv_heads * (k.shape[-1] + v.shape[-1]) * k.itemsize


def _batch(args: Args, indptr_at: int) -> int:
    batch = args.need(indptr_at).numel - 1
    if batch <= 0:
        raise LookupError("empty indptr")
    return batch


def prefill_paged(args: Args) -> OpWork:
    batch = _batch(args, 6)
    lq = -(-args.need(3).shape[0] // batch)
    causal, left = _mask(args, 12, 14)
    lk, kv_bytes = _paged(args, batch, lq, left, 8, 13)
    return _attention(args, batch, lq, lk, causal, left, kv_bytes, 10, (EQUAL_NOTE, PAGES_NOTE))


def prefill_ragged(args: Args) -> OpWork:
    batch = _batch(args, 6)
    q, k, v = args.need(3), args.need(4), args.need(5)
    rows = k.shape[1] if recorded_int(args, 11, 0) == HND else k.shape[0]
    causal, left = _mask(args, 10, 12)
    return _attention(args, batch, -(-q.shape[0] // batch), -(-rows // batch), causal, left,
                      k.nbytes + v.nbytes, 8, (EQUAL_NOTE,))


def decode(args: Args) -> OpWork:
    batch = _batch(args, 6)
    causal, left = _mask(args, None, 12)
    lk, kv_bytes = _paged(args, batch, 1, left, 7, 11)
    return _attention(args, batch, 1, lk, causal, left, kv_bytes, 9, (PAGES_NOTE,))


# (namespace prefix, operator, model): the namespace is the JIT module's
# name (flashinfer/jit/attention/pytorch.py get_batch_prefill_uri,
# get_batch_decode_uri)
PATTERNS = (
    ("batch_prefill_with_kv_cache_", "::paged_run", prefill_paged),
    ("batch_prefill_with_kv_cache_", "::ragged_run", prefill_ragged),
    ("batch_decode_with_kv_cache_", "::run", decode),
)


def pattern_model(name: str):
    """The model of a FlashInfer attention operator named by its JIT
    module, or None."""
    for prefix, op, model in PATTERNS:
        if name.startswith(prefix) and name.endswith(op) and name.count("::") == 1:
            return model
    return None


MODELS = {
    # csrc/flashinfer_norm_ops.cu: rmsnorm(out, input, weight, eps, enable_pdl),
    #   fused_add_rmsnorm(input!, residual!, weight, eps, enable_pdl); gemma_ the same
    "norm::rmsnorm": rms_norm(1),
    "norm::fused_add_rmsnorm": rms_norm(0, add=True, in_place=(0, 1)),
    "norm::gemma_rmsnorm": rms_norm(1, gemma=True),
    "norm::gemma_fused_add_rmsnorm": rms_norm(0, add=True, gemma=True, in_place=(0, 1)),
    # flashinfer/jit/activation.py: {act}_and_mul(out, input, enable_pdl) in module {act}_and_mul
    "silu_and_mul::silu_and_mul": gated(SILU),
    "gelu_and_mul::gelu_and_mul": gated(GELU),
    "gelu_tanh_and_mul::gelu_tanh_and_mul": gated(GELU),
    # csrc/flashinfer_rope_ops.cu: apply_rope_pos_ids_cos_sin_cache(q, k, q_rope!, k_rope!,
    #   cos_sin_cache, pos_ids, interleave)
    "rope::apply_rope_pos_ids_cos_sin_cache": rotary_cached(0, 1, (2, 3), 4, 5),
}
