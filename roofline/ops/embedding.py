"""Embeddings and gathers: no arithmetic but memory traffic.

Forward: the indices read, one row read per index and the result written.
Rows repeated by the indices are read once per use, but never more than
the table holds: a gather reads at most the elements it gathers and at
most the whole source, so the source read is ``min(gathered, source)``
(an index that repeats rows beyond the table's size cannot make a kernel
fetch the table more than once in the compulsory count). Index tensors
count by the storage they occupy (:func:`.call.distinct_elements`): an
index expanded with a stride-0 dimension, as ``gather`` over rows gets
one, is read once, not once per broadcast column. Backward (dense): grad
output and indices read, the whole grad weight written once; one
addition per grad-output element. Embedding bags add the rows of each
bag: one addition per gathered element.
"""
from __future__ import annotations

from .call import Args, OpWork, vector_precision, work


def embedding(args: Args) -> OpWork:
    """``(weight, indices, padding_idx, scale_grad_by_freq, sparse)``."""
    w, idx = args.need(0), args.need(1)
    rows = idx.numel * (w.shape[-1] if len(w.shape) > 1 else 1)
    read = min(rows, args.distinct(0))
    return work({}, args.stored_bytes(1) + (read + rows) * w.itemsize, "embedding", args=args)


def embedding_backward(args: Args) -> OpWork:
    """``(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq[, sparse])``."""
    gy = args.need(0)
    args.need(1)                               # the indices must be a tensor
    num = args.value(2)
    if not isinstance(num, int) or isinstance(num, bool):
        raise LookupError("num_weights not recorded")
    width = gy.shape[-1] if gy.shape else 1
    return work({vector_precision(gy.dtype): gy.numel},
                args.stored_bytes(0) + args.stored_bytes(1) + num * width * gy.itemsize, "embedding",
                args=args)


def embedding_bag(args: Args) -> OpWork:
    """``(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
    per_sample_weights, include_last_offset, padding_idx)``."""
    w, idx, offsets = args.need(0), args.need(1), args.need(2)
    width = w.shape[-1]
    bags = max(offsets.numel - (1 if args.value(7) is True else 0), 1)
    gathered = idx.numel * width
    weights = args.tensor(6)
    flop = gathered * (2 if weights is not None else 1)
    nbytes = (args.stored_bytes(1) + args.stored_bytes(2) + min(gathered, args.distinct(0)) * w.itemsize
              + bags * width * w.itemsize + (args.stored_bytes(6) if weights is not None else 0))
    return work({vector_precision(w.dtype): flop}, nbytes, "embedding", args=args)


def index_select(args: Args) -> OpWork:
    """``(self, dim, index)``: the selected slices read (at most all of
    self) and written."""
    x, idx = args.need(0), args.need(2)
    dim = args.value(1, 0)
    if not isinstance(dim, int) or not x.shape:
        raise LookupError("index_select dim")
    out = x.numel // max(x.shape[dim], 1) * idx.numel
    return work({}, args.stored_bytes(2) + (min(out, args.distinct(0)) + out) * x.itemsize, "embedding",
                args=args)


def gather(args: Args) -> OpWork:
    """``(self, dim, index[, sparse_grad][, out])``: one element read per
    index (at most all of self) and the result, of the index's shape,
    written; the index read by its storage (an expanded index once)."""
    x, idx = args.need(0), args.need(2)
    read = min(idx.numel, args.distinct(0))
    return work({}, args.stored_bytes(2) + (read + idx.numel) * x.itemsize, "embedding", args=args)


def scatter_add(args: Args) -> OpWork:
    """``(self, dim, index, src)`` in place: one addition per source element;
    the touched elements of self (at most all of them) read and written."""
    x, src = args.need(0), args.need(3)
    args.need(2)                               # the index must be a tensor
    touched = min(src.numel, x.numel)
    return work({vector_precision(x.dtype): src.numel},
                args.stored_bytes(2) + args.stored_bytes(3) + 2 * touched * x.itemsize, "embedding",
                args=args)


MODELS = {
    "embedding": embedding, "embedding_dense_backward": embedding_backward,
    "embedding_backward": embedding_backward, "_embedding_bag": embedding_bag,
    "_embedding_bag_forward_only": embedding_bag, "embedding_bag": embedding_bag,
    "index_select": index_select, "gather": gather, "scatter_add_": scatter_add,
    "scatter_add": scatter_add, "index_add_": scatter_add, "index_add": scatter_add,
}
