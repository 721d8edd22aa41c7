"""Matrix products: 2 M N K FLOP (one multiply-add = 2 FLOP), as torch's
own FLOP counter counts them; a bias or ``beta * C`` term is read (its bytes
count) but its additions are not counted as FLOPs."""
from __future__ import annotations

import math

from .call import Args, OpWork, Tensor, broadcast, dtype_precision, unaligned_rows, work

NO_BIAS_FLOPS = "bias/beta*C additions not counted as FLOPs (torch's convention)"


def _gemm(args: Args, flop: float, dtype: str, inputs: list, out_elems: float,
          operands: tuple = (), out_shape: tuple = ()) -> OpWork:
    """``operands``/``out_shape``: the matrix arguments and the result's shape,
    for whether a GEMM library's newest kernels can take their strides."""
    nbytes = sum(t.nbytes for t in inputs if t is not None) + out_elems * Tensor((), dtype).itemsize
    unaligned = unaligned_rows(args, list(operands), out_shape, dtype) if operands else None
    return work({dtype_precision(dtype): flop}, nbytes, "gemm", matrix=True, args=args, unaligned=unaligned)


def mm(args: Args) -> OpWork:
    a, b = args.need(0), args.need(1)
    (m, k), n = a.shape, b.shape[1]
    return _gemm(args, 2 * m * n * k, a.dtype, [a, b], m * n, (0, 1), (m, n))


def addmm(args: Args) -> OpWork:
    c, a, b = args.tensor(0), args.need(1), args.need(2)
    (m, k), n = a.shape, b.shape[1]
    return _gemm(args, 2 * m * n * k, a.dtype, [c, a, b], m * n, (1, 2), (m, n))


def bmm(args: Args) -> OpWork:
    a, b = args.need(0), args.need(1)
    (batch, m, k), n = a.shape, b.shape[2]
    return _gemm(args, 2 * batch * m * n * k, a.dtype, [a, b], batch * m * n, (0, 1), (batch, m, n))


def baddbmm(args: Args) -> OpWork:
    c, a, b = args.tensor(0), args.need(1), args.need(2)
    (batch, m, k), n = a.shape, b.shape[2]
    return _gemm(args, 2 * batch * m * n * k, a.dtype, [c, a, b], batch * m * n, (1, 2), (batch, m, n))


def addbmm(args: Args) -> OpWork:
    """Batched products summed over the batch into one M x N result."""
    c, a, b = args.tensor(0), args.need(1), args.need(2)
    (batch, m, k), n = a.shape, b.shape[2]
    return _gemm(args, 2 * batch * m * n * k, a.dtype, [c, a, b], m * n, (1, 2), (m, n))


def matmul(args: Args) -> OpWork:
    """torch.matmul semantics: 1-D operands get a unit dimension, leading
    dimensions broadcast."""
    a, b = args.need(0), args.need(1)
    if len(a.shape) == 1 and len(b.shape) == 1:
        return _gemm(args, 2 * a.shape[0], a.dtype, [a, b], 1)
    sa = (1,) + a.shape if len(a.shape) == 1 else a.shape
    sb = b.shape + (1,) if len(b.shape) == 1 else b.shape
    m, k, n = sa[-2], sa[-1], sb[-1]
    batch = math.prod(broadcast(sa[:-2], sb[:-2]))
    return _gemm(args, 2 * batch * m * n * k, a.dtype, [a, b], batch * m * n, (0, 1), (m, n))


def linear(args: Args) -> OpWork:
    x, w, bias = args.need(0), args.need(1), args.tensor(2)
    rows = math.prod(x.shape[:-1])
    out_features, in_features = (w.shape[0] if len(w.shape) == 2 else 1), w.shape[-1]
    return _gemm(args, 2 * rows * in_features * out_features, x.dtype, [x, w, bias],
                 rows * out_features, (0, 1), (rows, out_features))


def mv(args: Args) -> OpWork:
    a, v = args.need(0), args.need(1)
    m, k = a.shape
    return _gemm(args, 2 * m * k, a.dtype, [a, v], m)


def addmv(args: Args) -> OpWork:
    c, a, v = args.tensor(0), args.need(1), args.need(2)
    m, k = a.shape
    return _gemm(args, 2 * m * k, a.dtype, [c, a, v], m)


def dot(args: Args) -> OpWork:
    a, b = args.need(0), args.need(1)
    return _gemm(args, 2 * a.numel, a.dtype, [a, b], 1)


def outer(args: Args) -> OpWork:
    a, b = args.need(0), args.need(1)
    return work({dtype_precision(a.dtype): a.numel * b.numel},
                a.nbytes + b.nbytes + a.numel * b.numel * a.itemsize, "gemm", args=args)


def scaled_mm(args: Args) -> OpWork:
    """``_scaled_mm(self, mat2, scale_a, scale_b, bias, scale_result, out_dtype)``:
    fp8 inputs, output in ``out_dtype`` (bf16 assumed when not recorded)."""
    a, b = args.need(0), args.need(1)
    (m, k), n = a.shape, b.shape[1]
    out = args.dtype_code(6) or "c10::BFloat16"
    scales = [args.tensor(i) for i in (2, 3, 4, 5)]
    nbytes = a.nbytes + b.nbytes + sum(t.nbytes for t in scales if t) + m * n * Tensor((), out).itemsize
    return work({dtype_precision(a.dtype): 2 * m * n * k}, nbytes, "gemm", matrix=True, args=args)


def int_mm(args: Args) -> OpWork:
    a, b = args.need(0), args.need(1)
    (m, k), n = a.shape, b.shape[1]
    return work({"int8": 2 * m * n * k}, a.nbytes + b.nbytes + 4 * m * n, "gemm", matrix=True,
                args=args)


def einsum(args: Args) -> OpWork:
    """``einsum(equation, tensors)``: the equation from Concrete Inputs.

    Two operands: one multiply-add per point of the joint index space
    (2 FLOP, or 1 multiply when nothing is summed). More operands are
    contracted left to right (torch's order without opt_einsum)."""
    equation = args.value(0)
    tensors = args.tensor_list(1)
    if not isinstance(equation, str) or tensors is None or "..." in equation:
        raise LookupError("einsum without a recorded equation or with ellipsis")
    lhs, _, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(tensors):
        raise LookupError("einsum operand count differs from the equation")
    size = {}
    for term, t in zip(terms, tensors):
        size.update(zip(term, t.shape))
    out = rhs if "->" in equation else "".join(sorted(c for c in set(lhs) - {","}
                                                      if lhs.count(c) == 1))
    flop, current = 0, terms[0]
    for j in range(1, len(terms)):
        joint, later = set(current) | set(terms[j]), "".join(terms[j + 1:])
        keep = {c for c in joint if c in out or c in later}
        points = math.prod(size[c] for c in joint)
        flop += 2 * points if joint - keep else points
        current = "".join(sorted(keep))
    if len(terms) == 1:
        flop = math.prod(size[c] for c in set(current)) if set(current) - set(out) else 0
    out_elems = math.prod(size[c] for c in out)
    dtype = tensors[0].dtype
    nbytes = sum(t.nbytes for t in tensors) + out_elems * Tensor((), dtype).itemsize
    return work({dtype_precision(dtype): flop}, nbytes, "gemm", matrix=len(terms) > 1, args=args)


MODELS = {
    "mm": mm, "addmm": addmm, "_addmm_activation": addmm, "bmm": bmm, "baddbmm": baddbmm,
    "addbmm": addbmm, "matmul": matmul, "linear": linear, "mv": mv, "addmv": addmv,
    "dot": dot, "vdot": dot, "outer": outer, "ger": outer, "_scaled_mm": scaled_mm,
    "_int_mm": int_mm, "einsum": einsum,
}
