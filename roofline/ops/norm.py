"""Normalisations (layer, batch, group, RMS) and their backward.

FLOP per element of the input, counted from the formulas:
statistics 4 (sum for the mean; subtract, square, add for the variance),
normalise 2 (subtract mean, multiply by 1/std), affine 1 per weight and 1
per bias; RMS norm: square, add, scale, weight = 4. Backward: grad input 8,
grad weight 2, grad bias 1 per element, each when its output_mask entry is
set. Batch norm in eval mode uses the running statistics: no statistics.
Bytes: every tensor argument read once (input, weight, bias, statistics)
and each output written once (output or grad input; per-channel results
are small and counted when present as inputs).
"""
from __future__ import annotations

from .call import Args, OpWork, vector_precision, work

STATS, NORMALISE = 4, 2
GRAD_INPUT, GRAD_WEIGHT, GRAD_BIAS = 8, 2, 1


def _reads(args: Args) -> float:
    return float(sum(t.nbytes for t in args.tensors()))


def forward(x_at: int, weight_at: int | None, bias_at: int | None, training_at=True,
            rms: bool = False):
    """``training_at``: position of the ``training`` flag, or a constant."""
    def model(args: Args) -> OpWork:
        x = args.need(x_at)
        training = (training_at if isinstance(training_at, bool)
                    else bool(args.value(training_at, True)))
        affine = sum(1 for at in (weight_at, bias_at)
                     if at is not None and args.tensor(at) is not None)
        per_element = 4 if rms else (STATS if training else 0) + NORMALISE + affine
        return work({vector_precision(x.dtype): per_element * x.numel}, _reads(args) + x.nbytes,
                    "normalization", args=args)
    return model


def backward(x_at: int, mask_at: int | None, rms: bool = False):
    def model(args: Args) -> OpWork:
        x = args.need(x_at)
        mask = args.value(mask_at, [True, True, True]) if mask_at is not None else [True] * 3
        if not isinstance(mask, list) or not mask:
            raise LookupError(f"output_mask {mask!r}")
        mask = (list(mask) + [False] * 3)[:3]
        per_element = (GRAD_INPUT * bool(mask[0]) + GRAD_WEIGHT * bool(mask[1])
                       + (0 if rms else GRAD_BIAS * bool(mask[2])))
        written = x.nbytes if mask[0] else 0.0
        return work({vector_precision(x.dtype): per_element * x.numel}, _reads(args) + written,
                    "normalization", args=args)
    return model


MODELS = {
    # (input, normalized_shape, weight, bias, eps[, cudnn_enable])
    "layer_norm": forward(0, 2, 3),
    "native_layer_norm": forward(0, 2, 3),
    # (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
    "native_layer_norm_backward": backward(1, 7),
    # (input, weight, bias, running_mean, running_var, training, momentum, eps, ...)
    "batch_norm": forward(0, 1, 2, 5),
    "_batch_norm_impl_index": forward(0, 1, 2, 5),
    "native_batch_norm": forward(0, 1, 2, 5),
    "_native_batch_norm_legit": forward(0, 1, 2, 5),
    "cudnn_batch_norm": forward(0, 1, 2, 5),
    "miopen_batch_norm": forward(0, 1, 2, 5),
    "_batch_norm_with_update": forward(0, 1, 2, True),
    "_native_batch_norm_legit_no_training": forward(0, 1, 2, False),
    "_batch_norm_no_update": forward(0, 1, 2, False),
    # (grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
    #  eps, output_mask)
    "native_batch_norm_backward": backward(1, 9),
    "batch_norm_backward": backward(1, 9),
    # (input, grad_output, weight, running_mean, running_var, save_mean, save_var, eps, ...)
    "cudnn_batch_norm_backward": backward(0, None),
    "miopen_batch_norm_backward": backward(0, None),
    # (impl_index, input, grad_output, weight, ..., train, eps, output_mask, reservedSpace)
    "_batch_norm_impl_index_backward": backward(1, 10),
    # (input, weight, bias, N, C, HxW, group, eps) / (input, num_groups, weight, bias, ...)
    "native_group_norm": forward(0, 1, 2),
    "group_norm": forward(0, 2, 3),
    # (grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask)
    "native_group_norm_backward": backward(1, 9),
    # (input, normalized_shape, weight, eps)
    "rms_norm": forward(0, 2, None, rms=True),
    "_fused_rms_norm": forward(0, 2, None, rms=True),
    # (grad_out, input, normalized_shape, rstd, weight, output_mask)
    "_fused_rms_norm_backward": backward(1, 5, rms=True),
}
