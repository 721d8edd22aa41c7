"""FlashAttention-3 (Hopper/Blackwell builds of vLLM and Dao-AILab) and
the MLA decode kernels of vLLM and SGLang: attention over a KV cache that
may be paged, appended to, or (MLA) one latent vector per token.

FLOPs as :mod:`.paged_attention` counts them: 2 x pairs x (D + Dqv) for
the scores and 2 x pairs x Dv for P V, per query head, with the pairs of
FlashAttention's mask (:func:`.paged_attention.window_pairs`: bottom-right
causal, sliding windows as recorded).

FA3 ``fwd`` (``_vllm_fa3_C::fwd``, ``flash_attn_3::fwd`` and its Python
custom op ``flash_attn_3::_flash_attn_forward``) takes q, k, v dense
([B, L, H, D]), packed with cu_seqlens ([total, H, D]) or paged
([pages, page_size, Hkv, D] with a page table), and optionally new keys
to append (k_new, v_new) and a second query part q_v (MLA through FA3).
Its schema grew over time (q_v in February 2025, seqlens_rotary in March
2025): the argument count tells the layout (:data:`FA3_LAYOUTS`). What
the trace does not record is assumed and said: sequences of equal length
in a packed batch, max_seqlen_k keys per sequence when the keys are paged
(else the page table's capacity, an upper bound), a dense cache's full
length when only ``seqused_k`` says how much is used.

MLA decode (``_C::sm100_cutlass_mla_decode``, ``sgl_kernel::cutlass_mla_decode``):
q_nope [B, H, Dl], q_pe [B, H, Dr], one cache row of Dl + Dr per token
([pages, page_size, Dl + Dr]) shared by every head: scores 2 (Dl + Dr),
P V 2 Dl per head and key; the keys per sequence are the page table's
capacity (pages x page_size, what the kernel sizes its problem by;
seq_lens are not recorded): an upper bound, said in the row. Bytes: the
queries, the output [B, H, Dl] and each sequence's cache rows once.

May import ``.call`` and ``.paged_attention`` (and the standard library).
"""
from __future__ import annotations

from .call import Args, OpWork, Tensor, dtype_precision, work
from .paged_attention import EQUAL_NOTE, PAGED_KEYS_NOTE, keys_read, positive_int, recorded_int, window_pairs

PAGE_TABLE_NOTE = ("sequence lengths not recorded: every sequence taken as long as its page table holds "
                   "(pages x page size, an upper bound)")
SEQUSED_NOTE = "seqused_k not recorded by value: every sequence taken as the cache's full length (an upper bound)"

# argument positions of FA3 fwd by schema length: 33 and more (q_v,
# seqlens_rotary; vLLM adds s_aux and context parallelism, Dao-AILab
# attention_chunk, after position 26), 32 (q_v, no seqlens_rotary),
# 31 (neither)
FA3_LAYOUTS = {
    33: dict(k_new=3, qv=5, out=6, cu_q=7, cu_k=8, seqused_k=11, max_k=13, page=14, causal=24,
             left=25, right=26),
    32: dict(k_new=3, qv=5, out=6, cu_q=7, cu_k=8, seqused_k=11, max_k=13, page=14, causal=23,
             left=24, right=25),
    31: dict(k_new=3, qv=None, out=5, cu_q=6, cu_k=7, seqused_k=10, max_k=12, page=13, causal=22,
             left=23, right=24),
}


def _fa3_layout(args: Args) -> dict:
    n = len(args)
    if n < 31:
        raise LookupError("not an FA3 fwd schema")
    return FA3_LAYOUTS[min(n, 33)]


def _out_bytes(args: Args, at: int | None, elements: int, q: Tensor) -> float:
    out = args.tensor(at) if at is not None else None
    if out is not None:
        return out.nbytes
    # returned: FP8 attention writes 16-bit output
    return elements * max(q.itemsize, 2)


def _queries(args: Args, q: Tensor, cu_q_at: int, notes: list) -> tuple:
    """(batch, queries per sequence) of dense or packed queries."""
    cu_q = args.tensor(cu_q_at)
    if cu_q is not None:
        batch = cu_q.numel - 1
        if batch <= 0:
            raise LookupError("empty cu_seqlens_q")
        notes.append(EQUAL_NOTE)
        return batch, -(-q.shape[0] // batch)
    if len(q.shape) != 4:
        raise LookupError("q is neither packed nor [batch, seq, heads, dim]")
    return q.shape[0], q.shape[1]


def _keys(args: Args, lay: dict, k: Tensor, v: Tensor, batch: int, lq: int, left: int, notes: list) -> tuple:
    """(keys per sequence, bytes of the keys and values read)."""
    page = args.tensor(lay["page"])
    if page is not None:
        lk = positive_int(args, lay["max_k"])
        if lk is None:
            lk = page.shape[-1] * k.shape[1]
            notes.append(PAGE_TABLE_NOTE)
        else:
            notes.append(PAGED_KEYS_NOTE)
        return lk, batch * keys_read(lq, lk, left) * k.shape[-2] * (k.shape[-1] + v.shape[-1]) * k.itemsize
    if args.tensor(lay["cu_k"]) is not None:
        return -(-k.shape[0] // batch), k.nbytes + v.nbytes
    if len(k.shape) != 4:
        raise LookupError("k is neither paged, packed nor [batch, seq, heads, dim]")
    if args.tensor(lay["seqused_k"]) is not None:
        notes.append(SEQUSED_NOTE)
    return k.shape[1], k.nbytes + v.nbytes


def fa3_forward(args: Args) -> OpWork:
    lay = _fa3_layout(args)
    q, k, v = args.need(0), args.need(1), args.need(2)
    notes: list = []
    batch, lq = _queries(args, q, lay["cu_q"], notes)
    left, right = recorded_int(args, lay["left"], -1), recorded_int(args, lay["right"], -1)
    lk, kv_bytes = _keys(args, lay, k, v, batch, lq, left, notes)
    k_new, v_new = args.tensor(lay["k_new"]), args.tensor(lay["k_new"] + 1)
    if k_new is not None:
        # appended keys: read, written into the cache, attended to
        lk += k_new.shape[1] if len(k_new.shape) == 4 else -(-k_new.shape[0] // batch)
        kv_bytes += 2 * (k_new.nbytes + (v_new.nbytes if v_new is not None else 0))
    qv = args.tensor(lay["qv"]) if lay["qv"] is not None else None
    heads, e, ev = q.shape[-2], q.shape[-1], v.shape[-1]
    pairs = batch * window_pairs(lq, lk, bool(args.value(lay["causal"], False)), left, right)
    score_width = e + (qv.shape[-1] if qv is not None else 0)
    flop = heads * (2 * pairs * score_width + 2 * pairs * ev)
    out_elements = q.numel // e * ev
    nbytes = (q.nbytes + (qv.nbytes if qv is not None else 0) + kv_bytes
              + _out_bytes(args, lay["out"], out_elements, q))
    return work({dtype_precision(q.dtype): flop}, nbytes, "attention", matrix=True, args=args,
                assumptions=tuple(notes))


def mla_decode(out_at: int, q_nope_at: int, cache_at: int, page_table_at: int):
    """MLA decode over a paged latent cache (q_pe follows q_nope)."""
    def model(args: Args) -> OpWork:
        q_nope, q_pe = args.need(q_nope_at), args.need(q_nope_at + 1)
        cache, table = args.need(cache_at), args.need(page_table_at)
        if len(q_nope.shape) != 3 or len(cache.shape) < 3 or len(table.shape) != 2:
            raise LookupError("MLA decode shapes not [B, H, D], [pages, page, D], [B, pages]")
        batch, heads, latent = q_nope.shape
        rope = q_pe.shape[-1]
        keys = table.shape[1] * cache.shape[1]
        pairs = batch * heads * keys
        flop = 2 * pairs * (latent + rope) + 2 * pairs * latent
        out = args.tensor(out_at)
        out_bytes = out.nbytes if out is not None else batch * heads * latent * 2
        nbytes = q_nope.nbytes + q_pe.nbytes + out_bytes + batch * keys * cache.shape[-1] * cache.itemsize
        return work({dtype_precision(q_nope.dtype): flop}, nbytes, "attention", matrix=True, args=args,
                    assumptions=(PAGE_TABLE_NOTE,))
    return model


MODELS = {
    # vllm-project/flash-attention hopper/flash_api_torch_lib.cpp: fwd(q, k, v, k_new?, v_new?, q_v?,
    #   out?, cu_seqlens_q?, cu_seqlens_k?, cu_seqlens_k_new?, seqused_q?, seqused_k?, max_seqlen_q?,
    #   max_seqlen_k?, page_table?, kv_batch_idx?, leftpad_k?, rotary_cos?, rotary_sin?,
    #   seqlens_rotary?, q_descale?, k_descale?, v_descale?, softmax_scale, is_causal,
    #   window_size_left, window_size_right, ...)
    "_vllm_fa3_C::fwd": fa3_forward,
    # Dao-AILab/flash-attention hopper/flash_api.cpp TORCH_LIBRARY(flash_attn_3): the same first 27
    "flash_attn_3::fwd": fa3_forward,
    # hopper/flash_attn_interface.py custom op: the same order (qv, out_ at 5 and 6)
    "flash_attn_3::_flash_attn_forward": fa3_forward,
    # vllm csrc/libtorch_stable/torch_bindings.cpp: sm100_cutlass_mla_decode(out!, lse!, q_nope, q_pe,
    #   kv_c_and_k_pe_cache, seq_lens, page_table, workspace, scale, num_kv_splits)
    "_C::sm100_cutlass_mla_decode": mla_decode(0, 2, 4, 6),
    # sglang sgl-kernel/csrc/common_extension.cc: cutlass_mla_decode(out!, q_nope, q_pe,
    #   kv_c_and_k_pe_cache, seq_lens, page_table, workspace!, sm_scale, num_kv_splits)
    "sgl_kernel::cutlass_mla_decode": mla_decode(0, 1, 3, 5),
}
