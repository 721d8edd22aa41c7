"""The MoE routing of OpenAI's ``triton_kernels`` (the gpt-oss MoE path of
vLLM): ``TopK`` and ``SortTokens``. They are ``torch.autograd.Function``
subclasses, not registered operators: the profiler records each
``Function.apply`` as an operator named by the class, with the tensor and
scalar arguments of its ``forward`` (a non-tensor object such as the
``Bitmatrix`` is not recorded at all).

Sources (triton-lang/triton ``python/triton_kernels/triton_kernels/``):
``topk.py`` ``TopK.forward(ctx, x, k, apply_softmax, dim, return_bitmatrix,
y_indx, n_rows)`` (7 arguments; the current form drops ``return_bitmatrix``
and adds ``all_gather, symm_mem_pool``: 8) and ``topk_details/_topk_forward.py``;
``routing.py`` ``SortTokens.forward(ctx, expt_scal, expt_indx, n_expts_tot,
bitmatrix)`` and ``routing_details/_routing_compute.py``.

Both are data movement. ``TopK`` reads the logits x [T, E] (only the T k
selected ones when ``y_indx`` is given) and writes the k largest values
[T, k] (x's dtype), their expert ids [T, k] (int16, unless given) and a
bitmatrix of T rows of ceil(E / 32) 32-bit words; the 7-argument form
also zeroes a histogram scratchpad of E rounded up to 128 int32. With
``apply_softmax`` the k selected values go through a softmax: 5 FLOP each
(max, subtract, exp, sum, divide, as :mod:`.serving` counts it). The
selection itself compares integer keys (value bits and index packed
together) and is not counted as FLOPs, as for every top-k here.

``SortTokens`` reads the routing weights and ids [T, k] and the bitmatrix,
and writes the expert histogram (E int32), the gather and scatter index
arrays (2 T k int32), the weights in expert order (T k, the weights'
dtype) and the first row of each expert (E + 1 int32). Its arithmetic is
integer (histograms, prefix sums, a sort): no FLOPs. Not counted, so the
bytes stay a lower bound: the partial histograms one of its kernels writes
and the next reads, and the per-tile-size offsets and tile maps for the
grouped GEMM (their size depends on the version and the target: four tile
sizes on CUDA, five on HIP).

May import ``.call`` and ``.serving`` (and the standard library).
"""
from __future__ import annotations

from .call import Args, OpWork, vector_precision, work
from .serving import SOFTMAX

BITS_PER_WORD, WORD_BYTES, INDEX_BYTES, ID_BYTES = 32, 4, 4, 2
SCRATCH_BLOCK = 128        # the 7-argument TopK's histogram scratchpad, in int32


def _count(value, at: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise LookupError(f"{at} not recorded as a positive int: {value!r}")
    return value


def _words(columns: int) -> int:
    return -(-columns // BITS_PER_WORD)


def topk(args: Args) -> OpWork:
    """``TopK(x [T, E], k, apply_softmax, dim, [return_bitmatrix,] y_indx,
    n_rows, ...)``: the argument count tells the two forms apart."""
    if len(args) not in (7, 8):
        raise LookupError("not a triton_kernels TopK")
    x = args.need(0)
    if len(x.shape) != 2:
        raise LookupError("x is not [tokens, experts]")
    tokens, experts = x.shape
    k = _count(args.value(1), "k")
    if k > experts:
        raise LookupError(f"k = {k} above the {experts} experts")
    y_indx_at, n_rows_at = (5, 6) if len(args) == 7 else (4, 5)
    n_rows = args.value(n_rows_at)
    rows = n_rows if isinstance(n_rows, int) and not isinstance(n_rows, bool) and 0 < n_rows <= tokens else tokens
    given = args.tensor(y_indx_at)
    selected = rows * k
    read = selected * x.itemsize + given.nbytes if given is not None else rows * experts * x.itemsize
    written = selected * x.itemsize + (0 if given is not None else selected * ID_BYTES)
    written += rows * _words(experts) * WORD_BYTES
    if len(args) == 7:
        written += -(-experts // SCRATCH_BLOCK) * SCRATCH_BLOCK * INDEX_BYTES
    softmax = args.value(2) is True
    return work({vector_precision(x.dtype): SOFTMAX * selected if softmax else 0}, read + written, "softmax",
                args=args)


def sort_tokens(args: Args) -> OpWork:
    """``SortTokens(expt_scal [T, k], expt_indx [T, k], n_expts_tot, bitmatrix)``."""
    scal, indx = args.need(0), args.need(1)
    if len(scal.shape) != 2 or indx.shape != scal.shape or vector_precision(indx.dtype) is not None:
        raise LookupError("expt_scal and expt_indx are not [tokens, k] weights and integer ids")
    experts = _count(args.value(2), "n_expts_tot")
    tokens, k = scal.shape
    gates = tokens * k
    read = scal.nbytes + indx.nbytes + tokens * _words(experts) * WORD_BYTES
    written = experts * INDEX_BYTES + 2 * gates * INDEX_BYTES + gates * scal.itemsize + (experts + 1) * INDEX_BYTES
    return work({}, read + written, "elementwise", args=args)


MODELS = {
    "TopK": topk,
    "SortTokens": sort_tokens,
}
