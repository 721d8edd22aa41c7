"""Resampling (``upsample_*``, ``_upsample_*_aa``, ``F.interpolate``) in
1-3 spatial dimensions, and backward.

FLOP per output element (per channel), as PyTorch's CPU kernel evaluates
it (``UpSampleKernel.cpp``: ``Interpolate<n>`` nests the dimensions, k taps
each: k products and k - 1 sums per level, so ``F(n) = k F(n-1) + 2k - 1``):

=================================  ===  ===========================
mode                               k    FLOP per output element
=================================  ===  ===========================
nearest, nearest-exact (1-3 d)     1    0 (a gather)
linear 1d / bilinear / trilinear   2    3 / 9 / 21
bicubic                            4    35
=================================  ===  ===========================

Anti-aliased modes (``_upsample_bilinear2d_aa``, ``_upsample_bicubic2d_aa``)
run one pass per resized dimension, the last (width) first, each output of
a pass a weighted sum of its taps (2 taps - 1 FLOP); the taps per output are
those torch computes (support ``k/2 x max(scale, 1)``, clipped at the
edges), counted here in double precision. The source indices and weights
are computed once per output row or column, not per element, and are not
counted. Backward: nearest one addition per grad-output element; the
others one product of the tap's weights per dimension, one by the gradient
and one addition per tap (``k^n (n + 1)``; anti-aliased ``3 taps_h taps_w``).
Bytes: the input read once and the output written once (backward: grad
output read, grad input written); the channels-last copies the CPU kernel
may make are operators of their own in the trace.
"""
from __future__ import annotations

import math

from .call import Args, OpWork, vector_precision, work

# name -> (spatial dimensions, taps per dimension, anti-aliased)
MODES = {
    "upsample_nearest1d": (1, 1, False), "upsample_nearest2d": (2, 1, False),
    "upsample_nearest3d": (3, 1, False), "_upsample_nearest_exact1d": (1, 1, False),
    "_upsample_nearest_exact2d": (2, 1, False), "_upsample_nearest_exact3d": (3, 1, False),
    "upsample_linear1d": (1, 2, False), "upsample_bilinear2d": (2, 2, False),
    "upsample_trilinear3d": (3, 2, False), "upsample_bicubic2d": (2, 4, False),
    "_upsample_bilinear2d_aa": (2, 2, True), "_upsample_bicubic2d_aa": (2, 4, True),
}
# Above this many outputs along one dimension the anti-aliased taps are
# bounded (every output at its widest window) instead of counted one by one.
MAX_COUNTED = 1 << 20
BOUND_NOTE = "anti-aliased taps bounded by the widest window (dimension too long to count)"


def nested_flops(dims: int, taps: int) -> int:
    """FLOP of one output of ``Interpolate<dims>`` with ``taps`` per
    dimension (one tap, nearest: a gather, no arithmetic)."""
    if taps == 1:
        return 0
    f = 0
    for _ in range(dims):
        f = taps * f + 2 * taps - 1
    return f


def _align_at(taps: int) -> int | None:
    """Position of ``align_corners`` (nearest modes have none)."""
    return None if taps == 1 else 2


def _scale_args(args: Args, at: int, dims: int) -> list:
    """The recorded scales: a ``scale_factors`` list (``.vec`` overloads) or
    one optional scalar per dimension; None where not recorded."""
    v = args.value(at)
    if isinstance(v, list):
        return [float(s) if isinstance(s, (int, float)) and not isinstance(s, bool) else None
                for s in v] if len(v) == dims else [None] * dims
    out = []
    for j in range(dims):
        s = args.value(at + j)
        out.append(float(s) if isinstance(s, (int, float)) and not isinstance(s, bool) else None)
    return out


def _output_size(args: Args, spatial: tuple, scales: list) -> tuple:
    size = args.value(1)
    if isinstance(size, list) and len(size) == len(spatial) and all(
            isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in size):
        return tuple(size)
    if all(s is not None and s > 0 for s in scales):
        # torch: static_cast<int64_t>(input_size * scale)
        return tuple(int(i * s) for i, s in zip(spatial, scales))
    raise LookupError("upsample: neither output size nor scale factors recorded")


def _area_scale(size_in: int, size_out: int, align_corners: bool, scale) -> float:
    """``area_pixel_compute_scale``: input pixels per output pixel."""
    if align_corners:
        return (size_in - 1) / (size_out - 1) if size_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else size_in / size_out


def aa_taps(size_in: int, size_out: int, scale: float, taps: int) -> tuple[int, bool]:
    """Sum over the outputs of one dimension of the input pixels each reads
    (torch's ``_compute_indices_min_size_weights_aa``), and whether it is a
    bound rather than a count."""
    support = taps / 2 * scale if scale >= 1.0 else taps / 2
    widest = math.ceil(support) * 2 + 1
    if size_out > MAX_COUNTED:
        return min(widest, size_in) * size_out, True
    total = 0
    for i in range(size_out):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        total += min(min(int(center + support + 0.5), size_in) - lo, widest)
    return total, False


def _aa_taps_per_dim(spatial, out, scales, align, taps) -> tuple[list, bool]:
    per_dim, bounded = [], False
    for i, o, s in zip(spatial, out, scales):
        t, b = aa_taps(i, o, _area_scale(i, o, align, s), taps)
        per_dim.append(t)
        bounded |= b
    return per_dim, bounded


def _aa_forward_flops(lead: int, spatial, out, taps_per_dim) -> int:
    """One pass per resized dimension, the last first (torch's separable
    kernel): each pass output a weighted sum of its taps."""
    cur, flops = list(spatial), 0
    for d in reversed(range(len(spatial))):
        if cur[d] == out[d]:
            continue
        others = lead * math.prod(cur[:d] + cur[d + 1:])
        flops += others * (2 * taps_per_dim[d] - out[d])
        cur[d] = out[d]
    return flops


def forward(name: str):
    dims, taps, aa = MODES[name]

    def model(args: Args) -> OpWork:
        x = args.need(0)
        if len(x.shape) != dims + 2:
            raise LookupError(f"{name}: input of rank {dims + 2} expected")
        spatial, lead = x.shape[2:], x.shape[0] * x.shape[1]
        align_at = _align_at(taps)
        align = bool(args.value(align_at, False)) if align_at is not None else False
        scales = _scale_args(args, 2 if align_at is None else 3, dims)
        out = _output_size(args, spatial, scales)
        n_out = lead * math.prod(out)
        notes = ()
        if aa:
            per_dim, bounded = _aa_taps_per_dim(spatial, out, scales, align, taps)
            flops = _aa_forward_flops(lead, spatial, out, per_dim)
            notes = (BOUND_NOTE,) if bounded else ()
        else:
            flops = n_out * nested_flops(dims, taps)
        nbytes = args.stored_bytes(0) + n_out * x.itemsize
        return work({vector_precision(x.dtype): flops}, nbytes, "pooling", args=args,
                    assumptions=notes)
    return model


def backward(name: str):
    dims, taps, aa = MODES[name]

    def model(args: Args) -> OpWork:
        g = args.need(0)
        size_in = args.value(2)
        if (len(g.shape) != dims + 2 or not isinstance(size_in, list) or len(size_in) != dims + 2
                or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in size_in)):
            raise LookupError(f"{name}: grad output of rank {dims + 2} and input_size expected")
        lead, out, spatial = g.shape[0] * g.shape[1], g.shape[2:], tuple(size_in[2:])
        notes = ()
        if taps == 1:
            flops = g.numel
        elif aa:
            align = bool(args.value(3, False))
            per_dim, bounded = _aa_taps_per_dim(spatial, out, _scale_args(args, 4, dims), align, taps)
            flops = lead * (dims + 1) * math.prod(per_dim)
            notes = (BOUND_NOTE,) if bounded else ()
        else:
            flops = g.numel * taps ** dims * (dims + 1)
        nbytes = args.stored_bytes(0) + math.prod(size_in) * g.itemsize
        return work({vector_precision(g.dtype): flops}, nbytes, "pooling", args=args, assumptions=notes)
    return model


MODELS = {n: forward(n) for n in MODES}
MODELS.update({n + "_backward": backward(n) for n in MODES})
