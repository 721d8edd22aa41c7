"""Convolutions (1-D, 2-D, 3-D; stride, padding, dilation, groups,
transposed) and their backward, as the direct algorithm counts them:
2 FLOP per multiply-add, bias additions not counted (torch's convention).
A Winograd or FFT kernel does fewer FLOPs; :mod:`.layers` models those.

Forward, input N x C x I..., weight K x C/g x R..., output N x K x O...:
MACs = N K O... (C/g) R...; transposed (weight C x K/g x R...): every input
point scatters into K/g x R... outputs, MACs = N C I... (K/g) R....
Backward (``output_mask``): grad input and grad weight cost the forward's
MACs each; grad bias is read and written but its additions are not
counted, as the forward's bias is not (torch's convention).

Bytes: weight, bias and output once each; the input by the **distinct
elements the convolution touches**. Along each spatial dimension output
``o`` reads the positions ``o stride - pad + k dilation`` (``k`` < taps)
that fall inside the input; the touched pixels are the product of the
per-dimension counts (:func:`touched`). Every pixel is touched by most
convolutions, whose input then counts whole as before; a stride larger
than the filter's extent (a 1x1, stride-2 down-sampling conv reads every
other row and column: a quarter of the input), or a stride and dilation
with a common factor, skips pixels, and those are not compulsory traffic.
This is a lower bound: in NCHW a skipped pixel of a row may share a cache
line with a read one, so the DRAM traffic is nearer the whole rows (only
skipped rows are saved); in NHWC a pixel is C contiguous elements (64
bf16 channels = 128 B, a cache line) and the count is close to what
moves. A transposed convolution reads every input point. The grad-weight
part of the backward reads the input likewise (only touched pixels); the
grad input is written whole (its untouched pixels are zeros the kernel
writes).

Stride, padding and dilation come from the call's Concrete Inputs. Traces
of PyTorch before about 1.10 record none: a convolution then needs its
output size from elsewhere. The backward has it (the grad output's
shape, :func:`solve_stride_padding`); the Kineto reader finds the forward's
in the next operator's input (:mod:`roofline.importers.kineto.geometry`,
through :func:`with_geometry`); where nothing settles it the model takes
stride 1 and no padding and says so (:data:`ASSUMED_NOTE`). The groups of a
forward convolution without Concrete Inputs follow from the weight
(``C / weight.shape[1]``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .call import Args, OpWork, dtype_precision, fill_concrete, work


@dataclass(frozen=True)
class Layout:
    """Argument positions of one convolution operator (None: absent)."""

    bias: int | None
    stride: int
    padding: int
    dilation: int | None
    transposed: int | bool = False   # position of a bool argument, or a constant
    output_padding: int | None = None
    groups: int | str | None = None  # position, "depthwise" or None (1)


_FORWARD = {
    "convolution": Layout(2, 3, 4, 5, 6, 7, 8),
    "_convolution": Layout(2, 3, 4, 5, 6, 7, 8),
    "convolution_overrideable": Layout(2, 3, 4, 5, 6, 7, 8),
    "conv1d": Layout(2, 3, 4, 5, False, None, 6),
    "conv2d": Layout(2, 3, 4, 5, False, None, 6),
    "conv3d": Layout(2, 3, 4, 5, False, None, 6),
    "_convolution_mode": Layout(2, 3, 4, 5, False, None, 6),
    "conv_transpose1d": Layout(2, 3, 4, 7, True, 5, 6),
    "conv_transpose2d": Layout(2, 3, 4, 7, True, 5, 6),
    "conv_transpose3d": Layout(2, 3, 4, 7, True, 5, 6),
    "cudnn_convolution": Layout(None, 3, 2, 4, False, None, 5),
    "cudnn_convolution_transpose": Layout(None, 4, 2, 5, True, 3, 6),
    "cudnn_convolution_relu": Layout(2, 3, 4, 5, False, None, 6),
    "mkldnn_convolution": Layout(2, 4, 3, 5, False, None, 6),
    "miopen_convolution": Layout(2, 4, 3, 5, False, None, 6),
    "miopen_depthwise_convolution": Layout(2, 4, 3, 5, False, None, 6),
    "miopen_convolution_transpose": Layout(2, 5, 3, 6, True, 4, 7),
    "_nnpack_spatial_convolution": Layout(2, 4, 3, None),
    "_slow_conv2d_forward": Layout(3, 4, 5, None),
    "thnn_conv2d": Layout(3, 4, 5, None),
    "slow_conv3d": Layout(3, 4, 5, None),
    "slow_conv3d_forward": Layout(3, 4, 5, None),
    "slow_conv_dilated2d": Layout(3, 4, 5, 6),
    "slow_conv_dilated3d": Layout(3, 4, 5, 6),
    "slow_conv_transpose2d": Layout(3, 4, 5, 7, True, 6),
    "slow_conv_transpose3d": Layout(3, 4, 5, 7, True, 6),
    "_conv_depthwise2d": Layout(3, 4, 5, 6, False, None, "depthwise"),
    "conv_depthwise3d": Layout(3, 4, 5, 6, False, None, "depthwise"),
}
# convolution_backward(grad_output, input, weight, bias_sizes, stride,
# padding, dilation, transposed, output_padding, groups, output_mask)
_BACKWARD = Layout(None, 4, 5, 6, 7, 8, 9)

ASSUMED_NOTE = "stride 1, no padding assumed: the trace records no Concrete Inputs"
_MAX_PAD_TRIED = 64


def layout_of(short_name: str) -> Layout | None:
    """The argument layout of a forward convolution (``conv2d``), or None."""
    return _FORWARD.get(short_name)


def solve_stride_padding(size: int, out: int, taps: int, dilation: int = 1) -> tuple[int, int] | None:
    """The (stride, padding) of one spatial dimension that turn ``size``
    input positions into ``out`` outputs with ``taps`` taps:
    ``out = (size + 2 pad - dilation (taps - 1) - 1) // stride + 1``. Several
    may fit; the smallest stride wins, then 'same'-style padding
    (``dilation (taps - 1) // 2``), then none, then the others up to the
    filter's extent. None when nothing fits. The FLOPs do not depend on the
    choice (they follow from ``out``); the input pixels read may."""
    extent = dilation * (taps - 1)
    if min(size, out, taps, dilation) <= 0:
        return None
    # unusual pads are tried up to a bound: a crafted weight of 10^9 taps costs nothing
    pads = [extent // 2, 0] + [p for p in range(min(extent, _MAX_PAD_TRIED) + 1) if p not in (0, extent // 2)]
    best = None
    for rank, pad in enumerate(pads):
        span = size + 2 * pad - extent - 1
        if span < 0:
            continue
        low = span // out + 1                     # the smallest stride with span // stride <= out - 1
        if out > 1 and low > span // (out - 1):   # ... and span // stride >= out - 1
            continue
        if best is None or (low, rank) < best[0]:
            best = ((low, rank), (low, pad))
    return best[1] if best else None


def with_geometry(call, stride: tuple, padding: tuple):
    """``call`` with ``stride`` and ``padding`` written into its Concrete
    Inputs (as a newer profiler records them), or None when its operator
    has no convolution layout. For traces that record none (the reader's
    inference)."""
    name = call.name.split("::", 1)[-1]
    layout = _FORWARD.get(name)
    if layout is None:
        return None
    return fill_concrete(call, {layout.stride: list(stride), layout.padding: list(padding)})


@dataclass(frozen=True)
class Geometry:
    macs: int
    out_shape: tuple
    out_channels: int
    pixels: int = 1          # input pixels per image and channel
    read_pixels: int = 1     # of them, the ones some output reads


def touched(size: int, out: int, stride: int, pad: int, dilation: int, taps: int) -> int:
    """Distinct input positions along one dimension that the outputs
    ``0..out-1`` read: ``o stride - pad + k dilation`` for ``k`` < ``taps``,
    inside ``[0, size)`` (``size`` when every position is read)."""
    if size <= 0 or out <= 0 or taps <= 0 or stride <= 0:
        return size
    mark = bytearray(size)
    for k in range(taps):
        start = k * dilation - pad                  # the position output 0 reads at tap k
        lo = 0 if start >= 0 else (-start + stride - 1) // stride
        hi = min(out - 1, (size - 1 - start) // stride) if start <= size - 1 else -1
        if hi >= lo:
            mark[start + lo * stride:start + hi * stride + 1:stride] = b"\x01" * (hi - lo + 1)
    return size - mark.count(0)


def geometry(args: Args, layout: Layout, x_at: int = 0, w_at: int = 1, y_at: int | None = None) -> Geometry:
    """Sizes of a convolution call; ``y_at``: a recorded tensor of the
    output's shape (a backward's grad output) that settles stride and
    padding when the trace records neither."""
    x, w = args.need(x_at), args.need(w_at)
    rank = len(w.shape) - 2
    if rank < 1:
        raise LookupError("weight has no spatial dimensions")
    batched = len(x.shape) == rank + 2
    n = x.shape[0] if batched else 1
    c, spatial = x.shape[-rank - 1], x.shape[-rank:]
    taps = w.shape[2:]
    transposed = (layout.transposed if isinstance(layout.transposed, bool)
                  else bool(args.value(layout.transposed, False)))
    stride = args.ints(layout.stride, rank, 1)
    dilation = args.ints(layout.dilation, rank, 1) if layout.dilation is not None else (1,) * rank
    padding = _padding(args, layout.padding, rank)
    if not transposed and not (args.recorded(layout.stride) or args.recorded(layout.padding)):
        stride, padding = _unrecorded(args, y_at, spatial, taps, dilation)
    groups = _groups(args, layout, c, None if transposed else w.shape[1])
    pixels = read_pixels = math.prod(spatial)
    if transposed:
        extra = (args.ints(layout.output_padding, rank, 0) if layout.output_padding is not None
                 else (0,) * rank)
        out = tuple((i - 1) * s - 2 * p + d * (r - 1) + e + 1
                    for i, s, p, d, r, e in zip(spatial, stride, padding, dilation, taps, extra))
        k = w.shape[1] * groups
        macs = n * c * math.prod(spatial) * (k // groups) * math.prod(taps)
    else:
        if padding == "same":
            out = tuple(-(-i // s) for i, s in zip(spatial, stride))
        else:
            out = tuple((i + 2 * p - d * (r - 1) - 1) // s + 1
                        for i, s, p, d, r in zip(spatial, stride, padding, dilation, taps))
        k = w.shape[0]
        macs = n * k * math.prod(out) * (c // groups) * math.prod(taps)
        if padding != "same" and min(out) > 0:
            read_pixels = math.prod(touched(i, o, s, p, d, r)
                                    for i, o, s, p, d, r in zip(spatial, out, stride, padding, dilation, taps))
    if min(out) <= 0:
        raise LookupError(f"convolution output {out} is empty")
    return Geometry(macs, ((n,) if batched else ()) + (k,) + out, k, pixels, read_pixels)


def _unrecorded(args: Args, y_at, spatial, taps, dilation) -> tuple:
    """Stride and padding of a call whose trace records neither: solved
    from the output's recorded shape (``y_at``) where there is one, else
    stride 1 and no padding, said in the row (:data:`ASSUMED_NOTE`)."""
    y = args.tensor(y_at) if y_at is not None else None
    if y is not None and len(y.shape) >= len(spatial):
        fits = [solve_stride_padding(i, o, r, d)
                for i, o, r, d in zip(spatial, y.shape[-len(spatial):], taps, dilation)]
        if all(fits):
            stride, padding = tuple(f[0] for f in fits), tuple(f[1] for f in fits)
            note = (f"stride {_dims(stride)}, padding {_dims(padding)} inferred from the grad output's "
                    "shape: the trace records no Concrete Inputs")
            if note not in args.notes:
                args.notes.append(note)
            return stride, padding
    if ASSUMED_NOTE not in args.notes:
        args.notes.append(ASSUMED_NOTE)
    return (1,) * len(spatial), (0,) * len(spatial)


def _dims(values: tuple) -> str:
    """``2`` for (2, 2), ``2x1`` for (2, 1)."""
    return str(values[0]) if len(set(values)) == 1 else "x".join(map(str, values))


def _read_bytes(x, g: Geometry) -> int:
    """Bytes of the input the convolution touches: all of it but for the
    pixels no output reads (the touched pixels of every image and channel)."""
    if g.read_pixels >= g.pixels or g.pixels <= 0:
        return x.nbytes
    return x.numel // g.pixels * g.read_pixels * x.itemsize


def _groups(args: Args, layout: Layout, channels: int, per_group: int | None) -> int:
    """The groups argument; unrecorded (no Concrete Inputs), what the
    weight says: ``channels / weight.shape[1]`` (``per_group``) for a
    forward convolution, else 1."""
    if layout.groups == "depthwise":
        return channels
    if layout.groups is None:
        return 1
    g = args.value(layout.groups)
    if g is None and per_group and channels % per_group == 0:
        return channels // per_group
    return g if isinstance(g, int) and not isinstance(g, bool) and g > 0 else 1


def _padding(args: Args, at: int, rank: int):
    """Padding per dimension, or "same" (output size = ceil(input / stride))."""
    v = args.value(at, 0)
    if v == "valid":
        return (0,) * rank
    if v == "same":
        return "same"
    return args.ints(at, rank, 0)


def forward(layout: Layout):
    def model(args: Args) -> OpWork:
        x, w = args.need(0), args.need(1)
        bias = args.tensor(layout.bias) if layout.bias is not None else None
        g = geometry(args, layout)
        out_bytes = math.prod(g.out_shape) * x.itemsize
        nbytes = _read_bytes(x, g) + w.nbytes + (bias.nbytes if bias else 0) + out_bytes
        return work({dtype_precision(x.dtype): 2 * g.macs}, nbytes, "convolution", matrix=True,
                    args=args)
    return model


def backward(args: Args) -> OpWork:
    """Grad input (mask[0]) and grad weight (mask[1]) cost the forward's
    MACs each; grad bias (mask[2]) only its bytes."""
    gy, x, w = args.need(0), args.need(1), args.need(2)
    mask = args.value(10, [True, True, True])
    if not (isinstance(mask, list) and len(mask) == 3):
        raise LookupError(f"output_mask {mask!r}")
    g = geometry(args, _BACKWARD, x_at=1, w_at=2, y_at=0)
    macs = g.macs * (int(bool(mask[0])) + int(bool(mask[1])))
    nbytes = gy.nbytes
    if mask[0]:
        nbytes += w.nbytes + x.nbytes          # read weight, write grad input
    if mask[1]:
        nbytes += _read_bytes(x, g) + w.nbytes  # read input (the touched pixels), write grad weight
    if mask[2]:
        nbytes += g.out_channels * x.itemsize
    return work({dtype_precision(x.dtype): 2 * macs}, nbytes, "convolution", matrix=True,
                args=args)


MODELS = {name: forward(layout) for name, layout in _FORWARD.items()}
MODELS["convolution_backward"] = backward
MODELS["convolution_backward_overrideable"] = backward
