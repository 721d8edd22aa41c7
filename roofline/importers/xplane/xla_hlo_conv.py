"""FLOPs of an HLO convolution, counted as XLA's ``HloCostAnalysis``
(``GetConvolutionFlops``) counts them, with the shapes checked first.

2 FLOP for every multiply-add: (input features / ``feature_group_count``)
x output features x (input batch / ``batch_group_count``) x, per spatial
dimension, the (output position, kernel tap) pairs whose input position
is a real element (not padding, not a hole of base dilation). The kernel
taps are the kernel's spatial sizes, as XLA takes them; window reversal
changes no count. Shapes that do not agree with each other (the output
size the window gives, the kernel's feature sizes, the groups) are refused
with the reason, as XLA's shape inference would refuse them: a damaged
or hostile module must not give an astronomical count.
"""
from __future__ import annotations

from .xla_hlo_shapes import MAX_ELEMENTS, elements, precision

MAX_TAPS = 1 << 16          # kernel taps of one spatial dimension counted one by one


def conv_flops(inst, x, w, y, matrix_key):
    """(FLOP per precision, 0, True) of a convolution of input ``x``, kernel
    ``w`` and output ``y``, or (None, why, False)."""
    if x is None:
        return None, "convolution: an operand is missing", False
    for shape in (x, w, y):
        elements(shape)                         # ValueError for a shape that is no real tensor
    dn = inst.convolution_dimension_numbers
    window = list(inst.window.dimensions)
    spatial, out_spatial, k_spatial = (list(dn.input_spatial_dimensions), list(dn.output_spatial_dimensions),
                                       list(dn.kernel_spatial_dimensions))
    if not len(window) == len(spatial) == len(out_spatial) == len(k_spatial):
        return None, "convolution: window and dimension numbers disagree", False
    try:
        in_features, batch = x.dimensions[dn.input_feature_dimension], x.dimensions[dn.input_batch_dimension]
        out_features, out_batch = y.dimensions[dn.output_feature_dimension], y.dimensions[dn.output_batch_dimension]
        k_in, k_out = w.dimensions[dn.kernel_input_feature_dimension], w.dimensions[dn.kernel_output_feature_dimension]
        sizes = [(x.dimensions[spatial[d]], w.dimensions[k_spatial[d]], y.dimensions[out_spatial[d]])
                 for d in range(len(window))]
    except IndexError:
        return None, "convolution: a dimension number outside its shape", False
    groups, batch_groups = max(1, inst.feature_group_count or 1), max(1, inst.batch_group_count or 1)
    why = _disagreement(in_features, groups, k_in, k_out, out_features, batch, batch_groups, out_batch)
    if why:
        return None, f"convolution: {why}", False
    pairs = 1
    for (size_in, taps, size_out), win in zip(sizes, window):
        expected = _output_size(size_in, taps, win)
        if expected != size_out:
            return None, (f"convolution: an output of {size_out} where its window gives {expected} "
                          "(shapes that disagree)"), False
        pairs *= valid_pairs(size_in, size_out, taps, win)
    macs = (in_features // groups) * out_features * (batch // batch_groups) * pairs
    if macs > MAX_ELEMENTS ** 2:
        raise ValueError(f"{macs:.3g} multiply-adds")
    return {matrix_key(precision(x)): 2.0 * macs}, 0.0, True


def _disagreement(in_features, groups, k_in, k_out, out_features, batch, batch_groups, out_batch) -> str:
    """Why the feature and batch sizes are no convolution's ('' when they are one)."""
    if in_features % groups or in_features // groups != k_in:
        return (f"{in_features} input features in {groups} groups against a kernel of {k_in} input features")
    if k_out != out_features:
        return f"a kernel of {k_out} output features against an output of {out_features}"
    if batch % batch_groups or batch // batch_groups != out_batch:
        return f"a batch of {batch} in {batch_groups} batch groups against an output batch of {out_batch}"
    return ""


def _output_size(size_in: int, taps: int, win) -> int:
    """The output size XLA's shape inference gives one spatial dimension
    (0 when the window does not fit, as XLA makes it)."""
    stride, w_dil, b_dil = _factors(win)
    dilated_in = (size_in - 1) * b_dil + 1 if size_in > 0 else 0
    dilated_window = (taps - 1) * w_dil + 1 if taps > 0 else 0
    span = dilated_in + win.padding_low + win.padding_high - dilated_window
    return span // stride + 1 if span >= 0 else 0


def _factors(win) -> tuple[int, int, int]:
    stride, w_dil, b_dil = max(win.stride, 1), max(win.window_dilation, 1), max(win.base_dilation, 1)
    if max(stride, w_dil, b_dil, abs(win.padding_low), abs(win.padding_high)) > MAX_ELEMENTS:
        raise ValueError("a window stride, dilation or padding larger than any tensor")
    return stride, w_dil, b_dil


def valid_pairs(size_in: int, size_out: int, taps: int, win) -> int:
    """(output position, kernel tap) pairs of one spatial dimension whose
    input position is a real element (not padding, not a base-dilation hole),
    counted per tap in closed form."""
    if taps > MAX_TAPS:
        raise ValueError(f"a kernel of {taps:,} taps in one dimension")
    stride, w_dil, b_dil = _factors(win)
    last_in = (size_in - 1) * b_dil               # the dilated input's last real position
    count = 0
    for k in range(taps):       # outputs o with 0 <= o*stride + k*w_dil - pad <= last_in, on a multiple of b_dil
        shift = k * w_dil - win.padding_low
        first = max(0, _ceil_div(-shift, stride))
        last = min(size_out - 1, (last_in - shift) // stride)
        if last < first or size_in <= 0:
            continue
        count += _on_multiples(first, last, stride, shift, b_dil)
    return count


def _on_multiples(first: int, last: int, stride: int, shift: int, b_dil: int) -> int:
    """How many o in [first, last] put o*stride + shift on a multiple of b_dil."""
    if b_dil == 1:
        return last - first + 1
    from math import gcd  # noqa: PLC0415
    g = gcd(stride, b_dil)
    if shift % g:
        return 0
    period = b_dil // g
    # o*stride = -shift (mod b_dil)  <=>  o = r (mod period)
    r = (-shift // g) * pow(stride // g, -1, period) % period if period > 1 else 0
    start = first + (r - first) % period
    return 0 if start > last else (last - start) // period + 1


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)
