"""Analytic cost models: FLOPs and minimum DRAM bytes of a layer from its shape.

Profiles from nvprof or Nsight Systems give durations only. A cost model
supplies the work, so such kernels can still be placed on a roofline (they
are marked ``modelled=True``).

Notation (NCHW, cross-correlation as deep-learning libraries compute it)::

    input  N x C x H x W      filter K x C x R x S      output N x K x P x Q
    P = floor((H + 2 pad_h - dil (R - 1) - 1) / stride_h) + 1   (Q likewise)
    MACs = N K C P Q R S      one multiply-add = 2 FLOP; bias is not counted

Bytes are the *compulsory* DRAM traffic of the algorithm: every tensor it
must read or write once (``dtype_bytes`` each), plus, for algorithms that
stage data through a workspace in DRAM (explicit GEMM, non-fused Winograd,
FFT), the workspace written and read back once. A real kernel moves at least
this much; caches cannot remove it.

=================  ===============================  ===========================================
algorithm          FLOP                             DRAM bytes / dtype_bytes
=================  ===============================  ===========================================
direct             2 MACs                           NCHW + KCRS + NKPQ
implicit GEMM      2 MACs (M=K, N=NPQ, K=CRS)       NCHW + KCRS + NKPQ (lowering stays on chip)
explicit GEMM      2 MACs (+ im2col: 0 FLOP)        NCHW + 2 W + KCRS + NKPQ, W = N CRS PQ
Winograd F(mxm,3)  transforms + 2 a^2 K C N T       fused: as direct; non-fused: + 2 (U + V + M)
FFT                2.5 n log2 n per real transform  + 2 x complex spectra (see :func:`fft`)
                   + 8 per complex multiply-add
GEMM (M, N, K)     2 M N K                          M K + K N + M N
=================  ===============================  ===========================================

References: A. Lavin and S. Gray, "Fast Algorithms for Convolutional Neural
Networks", CVPR 2016 (arXiv:1509.09308) for Winograd; M. Mathieu, M. Henaff,
Y. LeCun, "Fast Training of Convolutional Networks through FFTs", ICLR 2014
and N. Vasilache et al. 2015 (fbfft) for FFT convolution.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterable, Mapping, Union

import numpy as np

from ..core.errors import RooflineError
from ..core.model import Device, Kernel
from .conv import touched

PRECISION_OF_DTYPE = {8: "fp64", 4: "fp32", 2: "fp16", 1: "int8"}


def _pair(value) -> tuple[int, int]:
    if isinstance(value, (tuple, list)):
        a, b = value
        return int(a), int(b)
    return int(value), int(value)


def _out_size(size: int, taps: int, stride: int, pad: int, dilation: int) -> int:
    return (size + 2 * pad - dilation * (taps - 1) - 1) // stride + 1


@dataclass(frozen=True)
class Conv2d:
    """A 2-D convolution layer (forward). ``stride``, ``padding`` and
    ``dilation`` take an int or an (h, w) pair. ``precision`` defaults to the
    one of ``dtype_bytes`` (4 -> fp32); pass ``tensor_fp16`` for tensor cores."""

    n: int
    c: int
    h: int
    w: int
    k: int
    r: int
    s: int
    stride: int | tuple[int, int] = 1
    padding: int | tuple[int, int] = 0
    dilation: int | tuple[int, int] = 1
    dtype_bytes: int = 4
    precision: str | None = None
    name: str = ""

    def __post_init__(self):
        dims = dict(n=self.n, c=self.c, h=self.h, w=self.w, k=self.k, r=self.r, s=self.s)
        bad = {k: v for k, v in dims.items() if int(v) != v or v < 1}
        if bad or min(_pair(self.stride) + _pair(self.dilation)) < 1 or min(_pair(self.padding)) < 0:
            raise ValueError(f"invalid convolution shape {dims} stride={self.stride} "
                             f"padding={self.padding} dilation={self.dilation}")
        if self.p < 1 or self.q < 1:
            raise ValueError(f"convolution {dims} has an empty output ({self.p} x {self.q})")

    @property
    def p(self) -> int:
        return _out_size(self.h, self.r, *(_pair(v)[0] for v in (self.stride, self.padding, self.dilation)))

    @property
    def q(self) -> int:
        return _out_size(self.w, self.s, *(_pair(v)[1] for v in (self.stride, self.padding, self.dilation)))

    @property
    def macs(self) -> int:
        return self.n * self.k * self.c * self.p * self.q * self.r * self.s

    @property
    def input_elements(self) -> int:
        return self.n * self.c * self.h * self.w

    @property
    def read_input_elements(self) -> int:
        """Input elements some output reads: all of them unless the stride
        skips pixels (a 1x1 stride-2 layer reads a quarter; :func:`.conv.touched`)."""
        st, pad, dil = (_pair(v) for v in (self.stride, self.padding, self.dilation))
        rows = touched(self.h, self.p, st[0], pad[0], dil[0], self.r)
        cols = touched(self.w, self.q, st[1], pad[1], dil[1], self.s)
        return self.n * self.c * rows * cols

    @property
    def filter_elements(self) -> int:
        return self.k * self.c * self.r * self.s

    @property
    def output_elements(self) -> int:
        return self.n * self.k * self.p * self.q

    @property
    def flop_precision(self) -> str:
        return self.precision or PRECISION_OF_DTYPE.get(self.dtype_bytes, "fp32")


@dataclass(frozen=True)
class Gemm:
    """C (M x N) = A (M x K) B (K x N), ``batch`` times; beta = 0."""

    m: int
    n: int
    k: int
    batch: int = 1
    dtype_bytes: int = 4
    precision: str | None = None
    name: str = ""

    def __post_init__(self):
        if min(self.m, self.n, self.k, self.batch) < 1:
            raise ValueError(f"invalid GEMM shape M={self.m} N={self.n} K={self.k} batch={self.batch}")

    @property
    def flop_precision(self) -> str:
        return self.precision or PRECISION_OF_DTYPE.get(self.dtype_bytes, "fp32")


@dataclass(frozen=True)
class Cost:
    """Work of one invocation of an algorithm: FLOP, compulsory DRAM bytes.

    ``multiplies`` counts the multiplications of the main (product) stage,
    the quantity fast algorithms reduce. ``stages`` splits the work when the
    algorithm runs as several kernels (``fused=False``) or has distinct
    phases; the stage totals add up to the whole.
    """

    name: str
    flops: float
    bytes_dram: float
    precision: str = "fp32"
    multiplies: float = 0.0
    workspace_bytes: float = 0.0
    stages: tuple["Cost", ...] = ()
    fused: bool = True

    @property
    def intensity(self) -> float:
        """FLOP per DRAM byte."""
        return self.flops / self.bytes_dram if self.bytes_dram else math.inf

    def stage(self, name: str) -> "Cost":
        for st in self.stages:
            if st.name == name:
                return st
        known = ", ".join(st.name for st in self.stages) or "none"
        raise RooflineError(f"{self.name} has no stage {name!r} (stages: {known})")

    def scaled(self, factor: float) -> "Cost":
        return replace(self, flops=self.flops * factor, bytes_dram=self.bytes_dram * factor,
                       multiplies=self.multiplies * factor,
                       stages=tuple(st.scaled(factor) for st in self.stages))


def _whole(name: str, layer, stages, fused: bool, workspace: float = 0.0) -> Cost:
    return Cost(name, sum(s.flops for s in stages), sum(s.bytes_dram for s in stages),
                layer.flop_precision, sum(s.multiplies for s in stages), workspace, tuple(stages), fused)


def direct(layer: Conv2d) -> Cost:
    """Direct convolution: 2 N K C P Q R S FLOP; reads the input pixels
    some output uses and the filters once, writes the output once."""
    nbytes = (layer.read_input_elements + layer.filter_elements + layer.output_elements) * layer.dtype_bytes
    return Cost("direct", 2.0 * layer.macs, float(nbytes), layer.flop_precision, float(layer.macs))


def implicit_gemm(layer: Conv2d) -> Cost:
    """Implicit GEMM: the GEMM M = K, N = N P Q, K = C R S, whose lowered
    operand is built tile by tile in shared memory, so FLOPs and compulsory
    bytes equal those of :func:`direct`."""
    return replace(direct(layer), name="implicit_gemm")


def im2col_workspace_bytes(layer: Conv2d) -> int:
    """Bytes of the lowered matrix: (C R S) x (N P Q) elements."""
    return layer.c * layer.r * layer.s * layer.n * layer.p * layer.q * layer.dtype_bytes


def explicit_gemm(layer: Conv2d) -> Cost:
    """im2col then GEMM, two kernels. im2col reads the input (the pixels some
    output uses: NCHW unless the stride skips some) and writes the workspace
    W = N C R S P Q elements (0 FLOP); the GEMM reads W back with the
    filters and writes the output: bytes = NCHW + 2 W + KCRS + NKPQ.
    Processing the batch in chunks shrinks the buffer, not the traffic."""
    dt, ws = layer.dtype_bytes, im2col_workspace_bytes(layer)
    lower = Cost("im2col", 0.0, float(layer.read_input_elements * dt + ws), layer.flop_precision)
    product = Cost("gemm", 2.0 * layer.macs,
                   float(ws + (layer.filter_elements + layer.output_elements) * dt),
                   layer.flop_precision, float(layer.macs))
    return _whole("explicit_gemm", layer, (lower, product), fused=False, workspace=ws)


# Winograd minimal filtering F(m, 3), the matrices of Lavin & Gray 2016
# (Y = A^T [(G g G^T) . (B^T d B)] A); a test checks them against direct
# correlation.
WINOGRAD = {
    2: (np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], float),
        np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]]),
        np.array([[1, 1, 1, 0], [0, 1, -1, -1]], float)),
    4: (np.array([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
                  [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]], float),
        np.array([[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
                  [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]]),
        np.array([[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0],
                  [0, 1, -1, 8, -8, 1]], float)),
}


def transform_flops(matrix: np.ndarray) -> int:
    """FLOP of one 1-D transform y = X x evaluated row by row: (nonzeros - 1)
    additions per row plus one multiplication per coefficient other than
    0 and +-1. No common subexpressions are shared, so optimised code may do
    fewer; for F(2,3) the data (B^T) and inverse (A^T) transforms cost 4
    additions each, as in Lavin & Gray."""
    nz = matrix != 0
    adds = np.maximum(nz.sum(axis=1) - 1, 0).sum()
    muls = (nz & (np.abs(matrix) != 1)).sum()
    return int(adds + muls)


def winograd_tile_flops(m: int) -> dict[str, int]:
    """FLOP per tile of the 2-D transforms of F(m x m, 3 x 3), nested from the
    1-D ones (a = m + 2): data B^T d B = 2a 1-D transforms; filter G g G^T =
    (3 + a); inverse A^T M A = (a + m). F(2x2,3x3): 32, 70, 24;
    F(4x4,3x3): 336, 189, 200."""
    bt, g, at = WINOGRAD[m]
    a = m + 2
    return {"input": 2 * a * transform_flops(bt), "filter": (3 + a) * transform_flops(g),
            "output": (a + m) * transform_flops(at)}


def winograd_tiles(layer: Conv2d, m: int) -> int:
    """Output tiles per image and channel: ceil(P/m) ceil(Q/m)."""
    return math.ceil(layer.p / m) * math.ceil(layer.q / m)


def winograd(layer: Conv2d, m: int = 2, fused: bool = True) -> Cost:
    """Winograd F(m x m, 3 x 3) (Lavin & Gray 2016), m = 2 or 4, a = m + 2.

    With T = ceil(P/m) ceil(Q/m) tiles per image, stages (per layer):

    - input transform V = B^T d B: N C T tiles x 2a 1-D transforms
    - filter transform U = G g G^T: K C tiles x (3 + a) 1-D transforms
    - elementwise products: a^2 GEMMs (K x C) by (C x N T): a^2 K C N T
      multiplies, 2 a^2 K C N T FLOP
    - output transform Y = A^T M A: N K T tiles x (a + m) 1-D transforms

    Direct convolution needs m^2 3^2 multiplies per output tile where the
    elementwise stage needs a^2, hence 36/16 = 2.25x fewer for F(2x2,3x3)
    and 144/36 = 4x for F(4x4,3x3) (exact when m divides P and Q; see
    :func:`multiply_reduction`). Transform FLOPs follow :func:`transform_flops`.

    ``fused=True`` (one kernel, e.g. cuDNN's fused Winograd): compulsory
    bytes as :func:`direct`. ``fused=False`` (``winograd_nonfused``): U, V
    and M = a^2 K N T go through DRAM, each written once and read once.
    Stride 1, dilation 1 and 3 x 3 filters only.
    """
    if m not in WINOGRAD:
        raise RooflineError(f"Winograd F({m}x{m},3x3) is not modelled; use m=2 or m=4")
    if (layer.r, layer.s) != (3, 3) or _pair(layer.stride) != (1, 1) or _pair(layer.dilation) != (1, 1):
        raise RooflineError(f"Winograd F({m}x{m},3x3) needs a 3x3 filter with stride 1 and "
                            f"dilation 1; {layer} is not one")
    a, t, dt = m + 2, winograd_tiles(layer, m), layer.dtype_bytes
    tile = winograd_tile_flops(m)
    n_tiles, k_tiles = layer.n * layer.c * t, layer.n * layer.k * t
    v, u, mm = a * a * n_tiles * dt, a * a * layer.k * layer.c * dt, a * a * k_tiles * dt
    via_dram = 0 if fused else 1  # non-fused: U, V, M written and read back
    products = a * a * layer.k * layer.c * layer.n * t
    stages = (
        Cost("input_transform", float(n_tiles * tile["input"]),
             float(layer.input_elements * dt + via_dram * v), layer.flop_precision),
        Cost("filter_transform", float(layer.k * layer.c * tile["filter"]),
             float(layer.filter_elements * dt + via_dram * u), layer.flop_precision),
        Cost("elementwise", 2.0 * products, float(via_dram * (u + v + mm)),
             layer.flop_precision, float(products)),
        Cost("output_transform", float(k_tiles * tile["output"]),
             float(layer.output_elements * dt + via_dram * mm), layer.flop_precision),
    )
    return _whole(f"winograd F({m}x{m},3x3)", layer, stages, fused, workspace=via_dram * (u + v + mm))


def multiply_reduction(layer: Conv2d, m: int) -> float:
    """Direct multiplies / Winograd elementwise multiplies (2.25 for m = 2,
    4 for m = 4 when m divides P and Q; less when tiles overhang)."""
    return layer.macs / winograd(layer, m).multiplies


def fft_size(layer: Conv2d) -> tuple[int, int]:
    """Smallest powers of two covering the padded input (a circular
    correlation of that size gives every valid output)."""
    (ph, pw) = _pair(layer.padding)
    return (1 << (layer.h + 2 * ph - 1).bit_length(), 1 << (layer.w + 2 * pw - 1).bit_length())


def fft(layer: Conv2d, size: tuple[int, int] | None = None) -> Cost:
    """FFT convolution with real-to-complex transforms of size fh x fw
    (default :func:`fft_size`), B = fh (fw/2 + 1) complex bins (Hermitian
    symmetry), n = fh fw points.

    Convention: a real 2-D transform costs 2.5 n log2 n FLOP (half the usual
    5 n log2 n of a complex radix-2 FFT); a complex multiply-add costs 8 FLOP
    (4 multiplies, 4 additions).

    - input transform: N C transforms; reads the input, writes N C B complex
    - filter transform: K C transforms; reads the filters, writes K C B complex
    - pointwise: N K C B complex multiply-adds (the complex GEMM, e.g.
      ``volta_cgemm``); reads both spectra, writes N K B complex
    - inverse transform: N K transforms; reads N K B complex, writes the output

    Spectra are complex: 2 ``dtype_bytes`` per bin. Stride 1, dilation 1.
    """
    if _pair(layer.stride) != (1, 1) or _pair(layer.dilation) != (1, 1):
        raise RooflineError(f"FFT convolution is modelled for stride 1, dilation 1 only; got {layer}")
    fh, fw = size or fft_size(layer)
    (ph, pw) = _pair(layer.padding)
    if fh < layer.h + 2 * ph or fw < layer.w + 2 * pw:
        raise RooflineError(f"FFT size {fh}x{fw} is smaller than the padded input")
    npts, bins, dt = fh * fw, fh * (fw // 2 + 1), layer.dtype_bytes
    per_transform = 2.5 * npts * math.log2(npts)
    spec_in, spec_f, spec_out = (x * bins * 2 * dt for x in (
        layer.n * layer.c, layer.k * layer.c, layer.n * layer.k))
    cmacs = layer.n * layer.k * layer.c * bins
    stages = (
        Cost("input_transform", layer.n * layer.c * per_transform,
             float(layer.input_elements * dt + spec_in), layer.flop_precision),
        Cost("filter_transform", layer.k * layer.c * per_transform,
             float(layer.filter_elements * dt + spec_f), layer.flop_precision),
        Cost("pointwise", 8.0 * cmacs, float(spec_in + spec_f + spec_out), layer.flop_precision, 4.0 * cmacs),
        Cost("inverse_transform", layer.n * layer.k * per_transform,
             float(spec_out + layer.output_elements * dt), layer.flop_precision),
    )
    return _whole(f"fft {fh}x{fw}", layer, stages, fused=False, workspace=spec_in + spec_f + spec_out)


def gemm(g: Gemm) -> Cost:
    """2 M N K FLOP per batch entry; reads A and B, writes C once each."""
    macs = g.batch * g.m * g.n * g.k
    nbytes = g.batch * (g.m * g.k + g.k * g.n + g.m * g.n) * g.dtype_bytes
    return Cost("gemm", 2.0 * macs, float(nbytes), g.flop_precision, float(macs))


ALGORITHMS = {
    "direct": direct,
    "implicit_gemm": implicit_gemm,
    "explicit_gemm": explicit_gemm,
    "winograd_2x2": lambda layer: winograd(layer, 2),
    "winograd_4x4": lambda layer: winograd(layer, 4),
    "winograd_2x2_nonfused": lambda layer: winograd(layer, 2, fused=False),
    "winograd_4x4_nonfused": lambda layer: winograd(layer, 4, fused=False),
    "fft": fft,
}


def conv_cost(layer: Conv2d, algorithm: str = "direct") -> Cost:
    """Cost of ``layer`` under one of :data:`ALGORITHMS`."""
    try:
        return ALGORITHMS[algorithm](layer)
    except KeyError:
        raise RooflineError(f"unknown convolution algorithm {algorithm!r}; "
                            f"known: {', '.join(ALGORITHMS)}") from None


def roofline_time_s(cost: Cost, device: Device) -> float:
    """max(FLOP / peak of the cost's precision, bytes / DRAM bandwidth)."""
    if "DRAM" not in device.memory:
        raise RooflineError(f"device {device.name!r} has no DRAM ceiling; cost models predict DRAM time")
    compute = cost.flops / device.compute_rate(cost.precision) if cost.flops else 0.0
    return max(compute, cost.bytes_dram / device.bandwidth("DRAM"))


def predicted_time(cost: Cost, device: Device) -> float:
    """Roofline time in seconds: for one kernel (``fused``), max of compute
    and DRAM time; for an algorithm that runs as several kernels, the sum of
    that maximum over its stages (launch overhead excluded)."""
    if cost.stages and not cost.fused:
        return sum(roofline_time_s(st, device) for st in cost.stages)
    return roofline_time_s(cost, device)


Model = Union[Cost, Conv2d, Gemm]


def apply_model(kernels: Iterable[Kernel], layer_by_kernel_name: Mapping[str, Model],
                per_call: bool = True, overwrite: bool = False, strict: bool = True) -> list[Kernel]:
    """Kernels with FLOPs and DRAM bytes supplied by cost models.

    ``layer_by_kernel_name`` maps an exact kernel name to a :class:`Cost`
    (e.g. ``fft(layer).stage("pointwise")``), a :class:`Conv2d` (algorithm
    from the kernel's family: its ``algorithm`` in
    :data:`roofline.core.families.TABLE`) or a :class:`Gemm`.
    With ``per_call`` the cost is per invocation and multiplied by the
    kernel's ``count``; otherwise it is the total. Counters the profile
    already has are kept unless ``overwrite``; kernels that receive any
    modelled value get ``modelled=True``. Others are returned unchanged.
    ``strict`` raises when a name in the mapping matches no kernel.
    """
    out, used = [], set()
    for k in kernels:
        model = layer_by_kernel_name.get(k.name)
        if model is None:
            out.append(k)
            continue
        used.add(k.name)
        cost = _cost_for(k, model)
        out.append(_with_cost(k, cost.scaled(k.count if per_call else 1), overwrite))
    missing = [name for name in layer_by_kernel_name if name not in used]
    if strict and missing:
        raise RooflineError(f"no kernel named {missing[0]!r} in the profile"
                            + (f" (and {len(missing) - 1} more names)" if len(missing) > 1 else ""))
    return out


def _cost_for(k: Kernel, model: Model) -> Cost:
    if isinstance(model, Cost):
        return model
    if isinstance(model, Gemm):
        return gemm(model)
    if isinstance(model, Conv2d):
        from ..core.families import TABLE, family_of
        family = k.family or family_of(k.name)          # a Kernel object may come without one
        # Winograd, FFT and explicit GEMM run as several kernels: each maps to a stage
        algorithm = TABLE[family].algorithm if family in TABLE else None
        if algorithm is None:
            raise RooflineError(
                f"{k.name}: a {family} kernel is one stage of a multi-kernel algorithm; map it to a "
                "stage, e.g. fft(layer).stage('pointwise') or winograd(layer, 4, fused=False)"
                ".stage('elementwise'), or to a whole Cost such as winograd(layer, 2)")
        return conv_cost(model, algorithm)
    raise TypeError(f"expected a Cost, Conv2d or Gemm for {k.name!r}, got {type(model).__name__}")


def _with_cost(k: Kernel, cost: Cost, overwrite: bool) -> Kernel:
    flops, nbytes, changed = dict(k.flops), dict(k.bytes), False
    if overwrite or not flops:
        flops, changed = {cost.precision: cost.flops}, True
    if overwrite or "DRAM" not in nbytes:
        nbytes["DRAM"], changed = cost.bytes_dram, True
    return replace(k, flops=flops, bytes=nbytes, modelled=k.modelled or changed)
