"""Pooling (max, average, adaptive average) in 1-3 spatial dimensions, and
backward.

FLOP: max pooling one comparison per window element per output; average
pooling one addition per window element plus one division per output;
adaptive average one addition per input element plus one division per
output. Backward: one addition per window element of each grad-output
element (max: one per grad-output element, routed by the indices).
Bytes: input read and output written once; max pooling also writes (or
backward reads) int64 indices; average backward reads only grad output.

The window (kernel size, stride, padding) comes from the call's Concrete
Inputs. Traces of PyTorch before about 1.10 record none; the Kineto
reader then finds the output size in the next operator's input and
writes a window that fits it into the call (:func:`with_window`,
:func:`solve_window`, :mod:`roofline.importers.kineto.geometry`); where
nothing settles it the model takes a 1-wide window of stride 1 (the output
as large as the input) and says so (:data:`ASSUMED_NOTE`). An adaptive
pooling without its output size is sized the same way
(:func:`with_output_size`) or not at all.
"""
from __future__ import annotations

import math

from .call import Args, OpWork, fill_concrete, vector_precision, work

INDEX_BYTES = 8
ASSUMED_NOTE = ("pooling window 1, stride 1, no padding assumed (the output as large as the input): "
                "the trace records no Concrete Inputs")
# Forward pooling operators with a window (kernel_size, stride, padding at 1, 2, 3) and the
# adaptive ones (output_size at 1), by rank.
WINDOWED = frozenset(f"{kind}{r}d" for r in (1, 2, 3)
                     for kind in ("max_pool", "mkldnn_max_pool", "avg_pool")) | frozenset(
    f"max_pool{r}d_with_indices" for r in (1, 2, 3))
ADAPTIVE = frozenset(f"{kind}{r}d" for r in (1, 2, 3)
                     for kind in ("adaptive_avg_pool", "_adaptive_avg_pool", "adaptive_max_pool"))


def solve_window(size: int, out: int) -> tuple[int, int, int] | None:
    """A (kernel size, stride, padding) that turns ``size`` positions into
    ``out`` (floor mode, dilation 1): the smallest stride, with a window as
    wide as the stride (non-overlapping, PyTorch's default stride), else
    one wider with half its width padded (ResNet's 3/2/1). The bytes do not
    depend on the choice (input read, output written); the comparisons per
    output do, and the caller says the window is assumed."""
    if size <= 0 or out <= 0 or out > size:
        return None
    if out == 1:
        return size, size, 0            # one window over all of it (global pooling)
    guess = size // out
    for stride in range(max(1, guess - 1), guess + 2):
        for kernel, pad in ((stride, 0), (stride + 1, (stride + 1) // 2), (stride + 1, 0)):
            if pad * 2 <= kernel and (size + 2 * pad - kernel) // stride + 1 == out:
                return kernel, stride, pad
    return None


def with_window(call, kernel: tuple, stride: tuple, padding: tuple):
    """``call`` (a windowed pooling) with its window in its Concrete Inputs."""
    return fill_concrete(call, {1: list(kernel), 2: list(stride), 3: list(padding)})


def with_output_size(call, size: tuple):
    """``call`` (an adaptive pooling) with its output size in its Concrete Inputs."""
    return fill_concrete(call, {1: list(size)})


def _window(args: Args, rank: int, dilation_at: int | None, ceil_at: int):
    """Output spatial sizes of ``(self, kernel_size, stride, padding[, dilation], ceil_mode)``."""
    x = args.need(0)
    spatial = x.shape[-rank:]
    if not args.recorded(1) and ASSUMED_NOTE not in args.notes:
        args.notes.append(ASSUMED_NOTE)
    taps = args.ints(1, rank, 1)
    stride = args.ints(2, rank, 0)
    stride = taps if not any(stride) else stride
    pad = args.ints(3, rank, 0)
    dil = args.ints(dilation_at, rank, 1) if dilation_at is not None else (1,) * rank
    ceil = bool(args.value(ceil_at, False))
    out = []
    for i, k, s, p, d in zip(spatial, taps, stride, pad, dil):
        span = i + 2 * p - d * (k - 1) - 1
        o = (-(-span // s) if ceil else span // s) + 1
        if ceil and (o - 1) * s >= i + p:
            o -= 1
        out.append(o)
    if min(out) <= 0:
        raise LookupError(f"pooling output {out} is empty")
    lead = math.prod(x.shape[:-rank])
    return x, lead * math.prod(out), math.prod(taps)


def max_pool(rank: int, with_indices: bool):
    def model(args: Args) -> OpWork:
        x, out, taps = _window(args, rank, 4, 5)
        nbytes = x.nbytes + out * x.itemsize + (INDEX_BYTES * out if with_indices else 0)
        return work({vector_precision(x.dtype): out * taps}, nbytes, "pooling", args=args)
    return model


def avg_pool(rank: int):
    def model(args: Args) -> OpWork:
        x, out, taps = _window(args, rank, None, 4)
        return work({vector_precision(x.dtype): out * (taps + 1)}, x.nbytes + out * x.itemsize,
                    "pooling", args=args)
    return model


def adaptive_avg_pool(args: Args) -> OpWork:
    """``(self, output_size)``."""
    x = args.need(0)
    size = args.value(1)
    size = [size] if isinstance(size, int) else size
    if not isinstance(size, list) or not size:
        raise LookupError("adaptive pooling without an output size")
    out = math.prod(x.shape[:-len(size)]) * math.prod(size)
    return work({vector_precision(x.dtype): x.numel + out}, x.nbytes + out * x.itemsize,
                "pooling", args=args)


def adaptive_max_pool(args: Args) -> OpWork:
    x = args.need(0)
    size = args.value(1)
    size = [size] if isinstance(size, int) else size
    if not isinstance(size, list) or not size:
        raise LookupError("adaptive pooling without an output size")
    out = math.prod(x.shape[:-len(size)]) * math.prod(size)
    return work({vector_precision(x.dtype): x.numel}, x.nbytes + out * (x.itemsize + INDEX_BYTES),
                "pooling", args=args)


def max_pool_backward(args: Args) -> OpWork:
    """``(grad_output, self, ..., indices)``: grad input written in full."""
    gy, x = args.need(0), args.need(1)
    return work({vector_precision(x.dtype): gy.numel},
                gy.nbytes + INDEX_BYTES * gy.numel + x.nbytes, "pooling", args=args)


def avg_pool_backward(rank: int):
    def model(args: Args) -> OpWork:
        gy, x = args.need(0), args.need(1)
        if not args.recorded(2) and ASSUMED_NOTE not in args.notes:
            args.notes.append(ASSUMED_NOTE)
        taps = math.prod(args.ints(2, rank, 1))
        return work({vector_precision(x.dtype): gy.numel * taps}, gy.nbytes + x.nbytes,
                    "pooling", args=args)
    return model


def adaptive_avg_pool_backward(args: Args) -> OpWork:
    gy, x = args.need(0), args.need(1)
    return work({vector_precision(x.dtype): x.numel}, gy.nbytes + x.nbytes, "pooling", args=args)


MODELS = {}
for _r in (1, 2, 3):
    MODELS[f"max_pool{_r}d"] = max_pool(_r, False)
    MODELS[f"max_pool{_r}d_with_indices"] = max_pool(_r, True)
    MODELS[f"mkldnn_max_pool{_r}d"] = max_pool(_r, False)
    MODELS[f"avg_pool{_r}d"] = avg_pool(_r)
    MODELS[f"adaptive_avg_pool{_r}d"] = adaptive_avg_pool
    MODELS[f"_adaptive_avg_pool{_r}d"] = adaptive_avg_pool
    MODELS[f"adaptive_max_pool{_r}d"] = adaptive_max_pool
    MODELS[f"max_pool{_r}d_with_indices_backward"] = max_pool_backward
    MODELS[f"adaptive_max_pool{_r}d_backward"] = max_pool_backward
    MODELS[f"avg_pool{_r}d_backward"] = avg_pool_backward(_r)
    MODELS[f"_adaptive_avg_pool{_r}d_backward"] = adaptive_avg_pool_backward
