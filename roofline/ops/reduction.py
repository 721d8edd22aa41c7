"""Reductions (sum, mean, max, norms, variance...) and the losses built on
them.

FLOP per input element: sum/mean/max/min/prod/all/any/argmax 1, vector
norm 2 (square, add), variance/std 3 (subtract, square, add, after a mean
pass), logsumexp 4, cumsum 1. Bytes: input read once, result written once
(with int64 indices for ``max.dim``/``min.dim``).
"""
from __future__ import annotations

import math

from .call import Args, OpWork, vector_precision, work
from .elementwise import pointwise

COST = {"sum": 1, "mean": 1, "nansum": 1, "nanmean": 1, "amax": 1, "amin": 1, "max": 1,
        "min": 1, "prod": 1, "all": 1, "any": 1, "argmax": 1, "argmin": 1, "norm": 2,
        "linalg_vector_norm": 2, "var": 3, "std": 3, "var_mean": 4, "std_mean": 4,
        "logsumexp": 4, "cumsum": 1, "cumprod": 1}
SCANS = frozenset({"cumsum", "cumprod"})
WITH_INDICES = frozenset({"max", "min"})
BOOL_RESULT = frozenset({"all", "any"})
INDEX_RESULT = frozenset({"argmax", "argmin"})


def _reduced(shape: tuple, dims) -> int:
    """Elements of the result when ``dims`` (int, list or None: all) are reduced."""
    if dims is None or dims == [] or not shape:
        return 1
    dims = [dims] if isinstance(dims, int) else dims
    if not all(isinstance(d, int) for d in dims):
        raise LookupError(f"reduction dims {dims!r}")
    gone = {d % len(shape) for d in dims}
    return math.prod(s for j, s in enumerate(shape) if j not in gone)


def reduction(name: str, dims_at: int = 1):
    def model(args: Args) -> OpWork:
        x = args.need(0)
        if name in WITH_INDICES and args.tensor(1) is not None:   # max(self, other)
            return pointwise("maximum")(args)
        dims = args.value(dims_at)
        if isinstance(dims, str):           # an ord/p or dtype recorded where dims go
            dims = None
        if name in ("norm", "linalg_vector_norm"):
            dims = args.value(2)
        if name in SCANS:
            out, with_indices = x.numel, False
        else:
            out = _reduced(x.shape, dims if not isinstance(dims, (bool, float)) else None)
            with_indices = name in WITH_INDICES and isinstance(dims, int) and not isinstance(dims, bool)
        itemsize = 1 if name in BOOL_RESULT else 8 if name in INDEX_RESULT else x.itemsize
        nbytes = x.nbytes + out * itemsize + (8 * out if with_indices else 0)
        return work({vector_precision(x.dtype): COST[name] * x.numel}, nbytes, "reduction",
                    args=args)
    return model


def mse_loss(args: Args) -> OpWork:
    """``(self, target, reduction)``: subtract, square, (add) = 3 per element;
    reduction 0 writes every element, 1/2 (mean/sum) one value."""
    x, y = args.need(0), args.need(1)
    out = x.numel if args.value(2, 1) == 0 else 1
    return work({vector_precision(x.dtype): 3 * x.numel}, x.nbytes + y.nbytes + out * x.itemsize,
                "reduction", args=args)


def mse_loss_backward(args: Args) -> OpWork:
    """``(grad_output, self, target, reduction)``: 2 (x - y) g [/ n] = 3 per element."""
    g, x, y = args.need(0), args.need(1), args.need(2)
    return work({vector_precision(x.dtype): 3 * x.numel}, g.nbytes + x.nbytes + y.nbytes + x.nbytes,
                "elementwise", args=args)


def nll_loss(args: Args) -> OpWork:
    """``(self, target, weight, reduction, ignore_index)``: one element read
    per target (a gather), summed: 1 FLOP per target."""
    x, target = args.need(0), args.need(1)
    n = target.numel
    weight = args.tensor(2)
    out = n if args.value(3, 1) == 0 else 1
    nbytes = target.nbytes + n * x.itemsize + out * x.itemsize + (weight.nbytes if weight else 0)
    return work({vector_precision(x.dtype): n}, nbytes, "reduction", args=args)


def nll_loss_backward(args: Args) -> OpWork:
    """``(grad_output, self, target, ...)``: grad input written in full
    (zeros, then one value per target)."""
    g, x, target = args.need(0), args.need(1), args.need(2)
    return work({vector_precision(x.dtype): target.numel},
                g.nbytes + target.nbytes + x.nbytes, "elementwise", args=args)


MODELS = {name: reduction(name) for name in COST}
MODELS.update({"mse_loss": mse_loss, "mse_loss_backward": mse_loss_backward,
               "nll_loss_forward": nll_loss, "nll_loss2d_forward": nll_loss,
               "nll_loss_backward": nll_loss_backward, "nll_loss2d_backward": nll_loss_backward})
