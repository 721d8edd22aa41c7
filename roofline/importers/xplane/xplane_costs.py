"""Work of TensorFlow ops from the input shapes their host events record,
with :mod:`roofline.ops.layers`' direct-convolution and GEMM models.

TensorFlow records an op's input shapes only at host tracer level 3
(``tf.profiler.experimental.ProfilerOptions(host_tracer_level=3)``): the op's
host event ``name:type`` then carries a ``shape`` stat such as
``(float[64,8,8,12];float[3,3,12,64])`` (``OpKernel::TraceString``: the
input dtypes and shapes, empty for resource inputs). Level 2, the default,
records none; what an op allocated for its outputs (``MemoryAllocation``
events with ``tf_op``, ``region_type`` ``output`` and ``shape``) is
recorded at any level and fills in what the inputs leave open.

Modelled ops (2 FLOP per multiply-add, bias not counted; bytes are the
compulsory bytes: inputs read and outputs written once):

- ``Conv2D``, ``_FusedConv2D`` (input NHWC or NCHW, filter HWIO),
  ``Conv2DBackpropInput`` (filter, gradient of the output) and
  ``Conv2DBackpropFilter`` (input, gradient of the output; the filter's
  size from its output allocation): MACs = N K C P Q R S, as
  :func:`roofline.ops.layers.direct` counts a direct convolution. Strides
  and padding are not recorded: the output size comes from the op's output
  allocation, else stride 1 and 'SAME' padding are assumed (and said).
- ``MatMul``, ``_FusedMatMul``, ``BatchMatMul[V2|V3]``: 2 M N K per batch
  entry (:func:`roofline.ops.layers.gemm`); transposes are not recorded, so
  the contracted dimension is the one the two operands share (a's last and
  b's first when that fits, as TensorFlow's default).

fp16/bf16 matrix work goes on the tensor-core ceiling, fp32 on the FMA
units (as for PyTorch traces: a trace does not say whether TF32 was on).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ...ops.call import tensor_core_key
from ...ops.layers import Conv2d, Gemm, direct, gemm

CONV_OPS = frozenset({"Conv2D", "_FusedConv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"})
MATMUL_OPS = frozenset({"MatMul", "_FusedMatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"})
MODELLED_OPS = CONV_OPS | MATMUL_OPS
# TensorFlow DataTypeString -> (bytes per element, precision key)
DTYPES = {"float": (4, "fp32"), "double": (8, "fp64"), "half": (2, "fp16"), "bfloat16": (2, "bf16")}
_TENSOR = re.compile(r"^\s*([A-Za-z0-9_]+)\s*\[([-0-9,\s]*)\]\s*$")
SAME_STRIDE_1 = "strides and padding are not recorded: stride 1 and 'SAME' padding assumed"


@dataclass(frozen=True)
class OpCost:
    """One call's work: FLOP per precision key, compulsory DRAM bytes, and
    what the model assumed ('' when nothing)."""

    flops: dict
    bytes: float
    assumption: str = ""


def parse_shapes(text: str) -> list[tuple[str, tuple[int, ...]] | None]:
    """``(float[64,8,8,12];;int32[4])`` -> [("float", (64, 8, 8, 12)), None,
    ("int32", (4,))]; an entry that is not ``dtype[dims]`` is None."""
    body = str(text).strip()
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    out: list[tuple[str, tuple[int, ...]] | None] = []
    for part in body.split(";") if body else []:
        m = _TENSOR.match(part)
        if m is None:
            out.append(None)
            continue
        try:
            dims = tuple(int(d) for d in m.group(2).split(",") if d.strip())
        except ValueError:
            out.append(None)
            continue
        out.append((m.group(1), dims) if all(d >= 0 for d in dims) else None)
    return out


def op_cost(op_type: str, shapes: str, outputs=()) -> OpCost | None:
    """The work of one call of ``op_type`` with input ``shapes`` (the
    ``shape`` stat) and the shapes it allocated for its outputs; None when
    the op has no model or the shapes do not fit it."""
    inputs = parse_shapes(shapes)
    outputs = [tuple(int(d) for d in o) for o in outputs if o and all(int(d) > 0 for d in o)]
    try:
        if op_type in CONV_OPS:
            return _conv(op_type, inputs, outputs)
        if op_type in MATMUL_OPS:
            return _matmul(inputs)
    except (ValueError, TypeError, ZeroDivisionError, IndexError):
        return None
    return None


def _typed(entry):
    if entry is None or entry[0] not in DTYPES:
        return None
    return entry


def _matmul(inputs) -> OpCost | None:
    a, b = (_typed(inputs[0]), _typed(inputs[1])) if len(inputs) >= 2 else (None, None)
    if a is None or b is None or len(a[1]) < 2 or len(b[1]) < 2 or min(a[1] + b[1]) < 1:
        return None
    (am, ak), (bk, bn) = a[1][-2:], b[1][-2:]
    # (a, b) as stored, then transposed a, transposed b, both: the first whose inner sizes agree
    for m, k1, k2, n in ((am, ak, bk, bn), (ak, am, bk, bn), (am, ak, bn, bk), (ak, am, bn, bk)):
        if k1 == k2:
            break
    else:
        return None
    batch = _broadcast(a[1][:-2], b[1][:-2])
    if batch is None:
        return None
    size, precision = DTYPES[a[0]]
    cost = gemm(Gemm(m, n, k1, batch=batch, dtype_bytes=size, precision=precision))
    return OpCost({tensor_core_key(precision, True): cost.flops}, cost.bytes_dram)


def _broadcast(x: tuple, y: tuple) -> int | None:
    dims = []
    for i in range(1, max(len(x), len(y)) + 1):
        p = x[-i] if i <= len(x) else 1
        q = y[-i] if i <= len(y) else 1
        if p != q and 1 not in (p, q):
            return None
        dims.append(max(p, q))
    return math.prod(dims)


def _conv(op_type: str, inputs, outputs) -> OpCost | None:
    if op_type in ("Conv2D", "_FusedConv2D"):
        x, f = (_typed(inputs[0]), _typed(inputs[1])) if len(inputs) >= 2 else (None, None)
        if x is None or f is None or len(x[1]) != 4 or len(f[1]) != 4:
            return None
        r, s, c, k = f[1]
        n, h, w = _nhw(x[1], c)
        p, q, assumed = _spatial(outputs, n, k, (h, w))
        dtype = x[0]
    elif op_type == "Conv2DBackpropInput":
        f, dy = (_typed(inputs[1]), _typed(inputs[2])) if len(inputs) >= 3 else (None, None)
        if f is None or dy is None or len(f[1]) != 4 or len(dy[1]) != 4:
            return None
        r, s, c, k = f[1]
        n, p, q = _nhw(dy[1], k)
        h, w, assumed = _spatial(outputs, n, c, (p, q))
        dtype = dy[0]
    else:   # Conv2DBackpropFilter: the filter's size only from its output allocation
        x, dy = (_typed(inputs[0]), _typed(inputs[2])) if len(inputs) >= 3 else (None, None)
        if x is None or dy is None or len(x[1]) != 4 or len(dy[1]) != 4:
            return None
        found = next((o for o in outputs if len(o) == 4 and o[2] in (x[1][1], x[1][3])
                      and o[3] in (dy[1][1], dy[1][3])), None)
        if found is None:
            return None
        r, s, c, k = found
        n, h, w = _nhw(x[1], c)
        _, p, q = _nhw(dy[1], k)
        assumed = ""
        dtype = x[0]
    layer = _layer(n, c, h, w, k, r, s, p, q, dtype)
    if layer is None:
        return None
    cost = direct(layer)
    return OpCost({tensor_core_key(DTYPES[dtype][1], True): cost.flops}, cost.bytes_dram, assumed)


def _nhw(shape: tuple, channels: int) -> tuple[int, int, int]:
    """(N, H, W) of an NHWC or NCHW tensor with ``channels`` channels: NHWC
    (TensorFlow's default) unless only dimension 1 matches."""
    if shape[3] == channels:
        return shape[0], shape[1], shape[2]
    if shape[1] == channels:
        return shape[0], shape[2], shape[3]
    raise ValueError(f"no dimension of {shape} has {channels} channels")


def _spatial(outputs, n: int, channels: int, same: tuple[int, int]) -> tuple[int, int, str]:
    """(H, W) of the op's 4-D output with batch ``n`` and ``channels``
    channels (NHWC or NCHW), else ``same`` with the stride-1 assumption."""
    for o in outputs:
        if len(o) == 4 and o[0] == n:
            try:
                _, h, w = _nhw(o, channels)
            except ValueError:
                continue
            return h, w, ""
    return same[0], same[1], SAME_STRIDE_1


def _layer(n, c, h, w, k, r, s, p, q, dtype) -> Conv2d | None:
    """A Conv2d whose output is p x q: the smallest stride and symmetric
    padding that give it (None when none does)."""
    size, precision = DTYPES[dtype]
    picks = []
    for size_in, taps, size_out in ((h, r, p), (w, s, q)):
        pick = None
        for stride in range(1, max(1, size_in) + 1):
            for pad in range(0, taps + 1):
                if (size_in + 2 * pad - (taps - 1) - 1) // stride + 1 == size_out:
                    pick = (stride, pad)
                    break
            if pick:
                break
        if pick is None:
            return None
        picks.append(pick)
    (sh, ph), (sw, pw) = picks
    try:
        return Conv2d(n, c, h, w, k, r, s, stride=(sh, sw), padding=(ph, pw), dtype_bytes=size,
                      precision=precision)
    except ValueError:
        return None
