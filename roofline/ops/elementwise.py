"""Element-wise operators, activations, copies, fills and random fills.

FLOPs: one per arithmetic operation or elementary function in the
operator's formula per output element (``exp``, ``erf``, ``tanh``,
``sqrt`` count 1 each; the formulas are in :data:`COST`); copies, fills and
selections count 0. Half-precision data is computed in fp32 (PyTorch's
``opmath`` type), so its FLOPs go on the fp32 units; integer and bool
arithmetic is not counted (the operator is placed by its bytes). Bytes: every tensor
input read once (broadcast inputs once, not once per use; an input expanded
to its shape, with stride-0 dimensions in the recorded strides, by the
storage it occupies: :func:`.call.distinct_elements`) and the output
written once; an in-place operator writes its first argument and reads it
only when the formula does (``add_`` does, ``fill_`` does not);
``addcmul``'s two factors, recorded alike, are read once (:data:`ALIAS_NOTE`).
Random numbers count 0 FLOP and carry :data:`RNG_NOTE` (:data:`RANDOM`).
"""
from __future__ import annotations

import math

from .call import Args, OpWork, Tensor, broadcast, dtype_bytes, vector_precision, work

# FLOP per output element.
COST = {
    # data movement and selection
    "copy": 0, "_to_copy": 0, "clone": 0, "fill": 0, "zero": 0, "masked_fill": 0, "where": 0,
    "_masked_scale": 1, "index_fill": 0, "constant_pad_nd": 0, "repeat": 0, "flip": 0, "roll": 0,
    "cat": 0, "stack": 0, "tril": 0, "triu": 0, "_unsafe_index": 0,
    # random numbers: the generator's integer work, not FLOPs (RNG_NOTE)
    "normal": 0, "uniform": 0, "bernoulli": 0, "random": 0, "exponential": 0, "log_normal": 0,
    "cauchy": 0, "geometric": 0, "poisson": 0, "_standard_gamma": 0,
    # one operation
    "add": 1, "sub": 1, "rsub": 1, "mul": 1, "div": 1, "neg": 1, "abs": 1, "relu": 1,
    "clamp_min": 1, "clamp_max": 1, "threshold": 1, "threshold_backward": 1, "maximum": 1,
    "minimum": 1, "fmax": 1, "fmin": 1, "sqrt": 1, "rsqrt": 1, "reciprocal": 1, "exp": 1,
    "exp2": 1, "expm1": 1, "log": 1, "log2": 1, "log10": 1, "log1p": 1, "sin": 1, "cos": 1,
    "tan": 1, "tanh": 1, "erf": 1, "erfc": 1, "erfinv": 1, "pow": 1, "square": 1, "sign": 1,
    "sgn": 1, "floor": 1, "ceil": 1, "round": 1, "trunc": 1, "frac": 1, "fmod": 1,
    "remainder": 1, "eq": 1, "ne": 1, "lt": 1, "gt": 1, "le": 1, "ge": 1, "isnan": 1,
    "isinf": 1, "isneginf": 1, "isposinf": 1, "logical_and": 1, "logical_or": 1,
    "logical_not": 1, "logical_xor": 1, "bitwise_and": 1, "bitwise_or": 1, "bitwise_xor": 1,
    "bitwise_not": 1, "relu6": 2, "hardtanh": 2, "clamp": 2, "leaky_relu": 2,
    "hardtanh_backward": 2, "leaky_relu_backward": 2, "native_dropout": 2,
    "native_dropout_backward": 2, "addcmul": 3, "addcdiv": 3, "lerp": 3, "hardsigmoid": 3,
    "sigmoid_backward": 3, "tanh_backward": 3, "softplus": 3, "sigmoid": 4, "elu": 4,
    "hardswish": 4, "hardswish_backward": 4, "hardsigmoid_backward": 2, "softplus_backward": 5,
    "elu_backward": 4, "silu": 5, "silu_backward": 9, "mish": 7, "mish_backward": 14,
    "log_sigmoid_forward": 5, "gelu": 5, "gelu_backward": 11,
}
# The tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
GELU_TANH, GELU_TANH_BACKWARD = 9, 16
COMPARISON = frozenset({"eq", "ne", "lt", "gt", "le", "ge", "isnan", "isinf", "isneginf",
                        "isposinf", "logical_and", "logical_or", "logical_not", "logical_xor"})
# In-place operators that overwrite their first argument without reading it.
WRITE_ONLY = frozenset({"fill", "zero", "copy", "normal", "uniform", "bernoulli", "random",
                        "exponential", "log_normal", "cauchy", "geometric"})
# Operators that generate random numbers. Their time goes to the generator
# (CPU: mt19937 or MKL's VSL streams; GPU: Philox, 10 rounds of 32-bit
# multiplies per 4 numbers), integer work no FLOP or byte roof bounds: a
# bernoulli_ of a T5 dropout mask took 5.36 ms where a fill_ of the same
# buffer took 0.03 ms. They count 0 FLOP for the numbers (native_dropout
# its mask-and-scale products) and every row they make carries RNG_NOTE.
RANDOM = frozenset({"normal", "uniform", "bernoulli", "random", "exponential", "log_normal",
                    "cauchy", "geometric", "poisson", "_standard_gamma", "native_dropout"})
RNG_NOTE = ("random-number generation: the generator's integer work is not counted as FLOPs "
            "and no bandwidth roof bounds it")
RANDOM_NOTE = RNG_NOTE
# addcmul(self, t1, t2) with t1 and t2 alike: Adam's exp_avg_sq.addcmul_(grad, grad) passes
# one tensor twice, and a Kineto trace records nothing (no address, no id) that tells one
# tensor from two alike ones: the read is counted once, a lower bound either way.
ALIAS_NOTE = ("tensor1 and tensor2 recorded alike (shape, dtype, strides): read once, as for "
              "addcmul_(grad, grad); the trace cannot tell one tensor from two (a lower bound)")


def _base(name: str) -> tuple[str, bool]:
    """``add_`` -> (``add``, in place)."""
    return (name[:-1], True) if name.endswith("_") and not name.endswith("__") else (name, False)


def _out_dtype(base: str, tensors: list[Tensor]) -> str:
    if base in COMPARISON:
        return "bool"
    for t in tensors:
        if t.dtype != "bool":
            return t.dtype
    return tensors[0].dtype


def pointwise(name: str):
    base, inplace = _base(name)
    per_element = COST[base]

    def model(args: Args) -> OpWork:
        at = args.tensor_positions()
        tensors = [args.need(i) for i in at]
        if not tensors:
            raise LookupError(f"{name} without tensor arguments")
        if inplace:
            out_shape, out_dtype = tensors[0].shape, tensors[0].dtype
        else:
            out_shape, out_dtype = broadcast(*(t.shape for t in tensors)), _out_dtype(base, tensors)
        out = math.prod(out_shape)
        reads = at[1:] if inplace and base in WRITE_ONLY else at
        notes = (RNG_NOTE,) if base in RANDOM else ()
        if base == "addcmul" and len(at) >= 3 and alike(args, at[1], at[2]):
            reads, notes = [i for i in reads if i != at[2]], (ALIAS_NOTE,)
        nbytes = sum(args.stored_bytes(i) for i in reads) + out * dtype_bytes(out_dtype)
        cost = _cost(base, args)
        if base == "native_dropout":
            nbytes += out                     # the bool mask it also returns
        flop_dtype = out_dtype if base not in COMPARISON else tensors[0].dtype
        return work({vector_precision(flop_dtype): cost * out}, nbytes,
                    "copy" if per_element == 0 and base not in RANDOM else "elementwise",
                    args=args, assumptions=notes)
    return model


def alike(args: Args, i: int, j: int) -> bool:
    """Arguments ``i`` and ``j`` recorded with the same shape, dtype and
    strides (the most a trace says about two tensors being one)."""
    c = args.call
    same = c.dims[i] == c.dims[j] and c.types[i] == c.types[j]
    return same and args.strides(i) == args.strides(j)


def multinomial(args: Args) -> OpWork:
    """``multinomial(self, num_samples, replacement)``: the probabilities
    read, int64 samples written; a search per sample, not counted."""
    p, samples = args.need(0), args.value(1)
    if not isinstance(samples, int) or isinstance(samples, bool) or samples < 0 or not p.shape:
        raise LookupError("multinomial: num_samples not recorded")
    rows = math.prod(p.shape[:-1])
    return work({}, args.stored_bytes(0) + rows * samples * 8, "elementwise", args=args,
                assumptions=(RNG_NOTE,))


def _cost(base: str, args: Args) -> int:
    if base == "gelu" and args.value(1) == "tanh":
        return GELU_TANH
    if base == "gelu_backward" and args.value(2) == "tanh":
        return GELU_TANH_BACKWARD
    return COST[base]


def to_copy(args: Args) -> OpWork:
    """``_to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format)``."""
    x = args.need(0)
    out = args.dtype_code(1) or x.dtype
    return work({}, args.stored_bytes(0) + x.numel * dtype_bytes(out), "copy", args=args)


def cat(args: Args) -> OpWork:
    """``cat(tensors, dim)``: every input read, the result written."""
    parts = args.tensor_list(0)
    if parts is None:
        raise LookupError("cat without a tensor list")
    total = sum(t.nbytes for t in parts)
    return work({}, 2 * total, "copy", args=args)


NAMES = [n for n in COST if n not in ("_to_copy", "cat", "stack")]
INPLACE = [n + "_" for n in NAMES if n not in ("clone", "_masked_scale", "constant_pad_nd",
                                                "repeat", "flip", "roll", "native_dropout",
                                                "native_dropout_backward", "cat", "_unsafe_index",
                                                "where", "_to_copy", "poisson", "_standard_gamma")
          and not n.endswith("backward")]
MODELS = {n: pointwise(n) for n in NAMES + INPLACE}
MODELS.update({"_to_copy": to_copy, "cat": cat, "stack": cat, "_cat": cat,
               "multinomial": multinomial})
# Operator names (without aten::) whose rows generate random numbers.
RANDOM_OPERATORS = frozenset(n for n in MODELS if _base(n)[0] in RANDOM) | {"multinomial"}
