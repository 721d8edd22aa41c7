"""Softmax and log-softmax along one dimension, and their backward.

Forward, per element: max, subtract, exp, sum, divide (log-softmax:
subtract the log of the sum instead of dividing) = 5 FLOP. Backward, per
element: softmax: multiply, sum, subtract, multiply = 4; log-softmax:
exp, multiply, sum, subtract = 4. Bytes: input read and output written
once (backward: grad and output read, grad input written); a
``half_to_float`` or ``dtype`` argument widens the output.
"""
from __future__ import annotations

from .call import Args, OpWork, dtype_bytes, vector_precision, work

FORWARD, BACKWARD = 5, 4


def forward(dtype_at: int | None, half_to_float_at: int | None = None):
    def model(args: Args) -> OpWork:
        x = args.need(0)
        out = x.dtype
        if dtype_at is not None and args.dtype_code(dtype_at):
            out = args.dtype_code(dtype_at)
        if half_to_float_at is not None and args.value(half_to_float_at) is True:
            out = "float"
        return work({vector_precision(x.dtype): FORWARD * x.numel},
                    x.nbytes + x.numel * dtype_bytes(out), "softmax", args=args)
    return model


def backward(args: Args) -> OpWork:
    """``(grad_output, output, dim, input_dtype)``: grad input in input_dtype."""
    gy, y = args.need(0), args.need(1)
    out = args.dtype_code(3) or gy.dtype
    return work({vector_precision(gy.dtype): BACKWARD * gy.numel},
                gy.nbytes + y.nbytes + gy.numel * dtype_bytes(out), "softmax", args=args)


MODELS = {
    "softmax": forward(2), "_softmax": forward(None, 2), "_safe_softmax": forward(2),
    "log_softmax": forward(2), "_log_softmax": forward(None, 2),
    "_softmax_backward_data": backward, "_log_softmax_backward_data": backward,
}
