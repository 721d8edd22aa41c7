"""Embeddings and gathers: no arithmetic but memory traffic.

Forward: the indices read, one row read per index and the result written
(rows repeated by the indices are read once per use: a lower bound without
knowing which repeat). Backward (dense): grad output and indices read, the
whole grad weight written once; one addition per grad-output element.
Embedding bags add the rows of each bag: one addition per gathered element.
"""
from __future__ import annotations

from .call import Args, OpWork, vector_precision, work


def embedding(args: Args) -> OpWork:
    """``(weight, indices, padding_idx, scale_grad_by_freq, sparse)``."""
    w, idx = args.need(0), args.need(1)
    rows = idx.numel * (w.shape[-1] if len(w.shape) > 1 else 1)
    return work({}, idx.nbytes + 2 * rows * w.itemsize, "embedding", args=args)


def embedding_backward(args: Args) -> OpWork:
    """``(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq[, sparse])``."""
    gy, idx = args.need(0), args.need(1)
    num = args.value(2)
    if not isinstance(num, int) or isinstance(num, bool):
        raise LookupError("num_weights not recorded")
    width = gy.shape[-1] if gy.shape else 1
    return work({vector_precision(gy.dtype): gy.numel},
                gy.nbytes + idx.nbytes + num * width * gy.itemsize, "embedding", args=args)


def embedding_bag(args: Args) -> OpWork:
    """``(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
    per_sample_weights, include_last_offset, padding_idx)``."""
    w, idx, offsets = args.need(0), args.need(1), args.need(2)
    width = w.shape[-1]
    bags = max(offsets.numel - (1 if args.value(7) is True else 0), 1)
    gathered = idx.numel * width
    weights = args.tensor(6)
    flop = gathered * (2 if weights is not None else 1)
    nbytes = (idx.nbytes + offsets.nbytes + gathered * w.itemsize + bags * width * w.itemsize
              + (weights.nbytes if weights is not None else 0))
    return work({vector_precision(w.dtype): flop}, nbytes, "embedding", args=args)


def index_select(args: Args) -> OpWork:
    """``(self, dim, index)``: the selected slices read and written."""
    x, idx = args.need(0), args.need(2)
    dim = args.value(1, 0)
    if not isinstance(dim, int) or not x.shape:
        raise LookupError("index_select dim")
    out = x.numel // max(x.shape[dim], 1) * idx.numel
    return work({}, idx.nbytes + 2 * out * x.itemsize, "embedding", args=args)


def gather(args: Args) -> OpWork:
    """``(self, dim, index)``: one element read per index, the result written."""
    x, idx = args.need(0), args.need(2)
    return work({}, idx.nbytes + 2 * idx.numel * x.itemsize, "embedding", args=args)


def scatter_add(args: Args) -> OpWork:
    """``(self, dim, index, src)`` in place: one addition per source element;
    the touched elements of self read and written."""
    x, idx, src = args.need(0), args.need(2), args.need(3)
    return work({vector_precision(x.dtype): src.numel},
                idx.nbytes + src.nbytes + 2 * src.numel * x.itemsize, "embedding", args=args)


MODELS = {
    "embedding": embedding, "embedding_dense_backward": embedding_backward,
    "embedding_backward": embedding_backward, "_embedding_bag": embedding_bag,
    "_embedding_bag_forward_only": embedding_bag, "embedding_bag": embedding_bag,
    "index_select": index_select, "gather": gather, "scatter_add_": scatter_add,
    "scatter_add": scatter_add, "index_add_": scatter_add, "index_add": scatter_add,
}
