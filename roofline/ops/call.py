"""What an operator call is (name, shapes, dtypes, concrete arguments as a
profiler records them) and what a model answers (FLOP per precision and
compulsory bytes), with helpers to read the recorded arguments.

A Kineto ``cpu_op`` event with ``record_shapes=True`` carries, per argument
position: ``Input Dims`` (a tensor's shape, ``[]`` for a scalar or None, a
list of shapes for a TensorList), ``Input type`` (a C++ dtype name such as
``float`` or ``c10::BFloat16``, or ``Scalar``, ``ScalarList``,
``TensorList``, ``""`` for None) and ``Concrete Inputs`` (the literal of a
scalar argument as text: ``"[1, 1]"``, ``"False"``, ``"0.1"``).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from typing import Mapping
from ..core.families import OPERATOR_FAMILIES

# Operator families (what the report groups time by): core.families.TABLE's
FAMILIES = OPERATOR_FAMILIES

# C++ dtype names in Kineto traces: (bytes per element, precision key of
# the arithmetic on it). Integer arithmetic counts as int32 operations (the
# integer ALUs); 8-bit and bool data counts as int8.
_DTYPES = {
    "double": (8, "fp64"), "float": (4, "fp32"), "c10::Half": (2, "fp16"),
    "c10::BFloat16": (2, "bf16"), "c10::Float8_e4m3fn": (1, "fp8"), "c10::Float8_e5m2": (1, "fp8"),
    "c10::Float8_e4m3fnuz": (1, "fp8"), "c10::Float8_e5m2fnuz": (1, "fp8"),
    # block scales (MX: one E8M0 power of two per 32 elements) and packed FP4
    # (two E2M1 values per byte: one "element" of the x2 type is 2 values)
    "c10::Float8_e8m0fnu": (1, "fp8"), "c10::Float4_e2m1fn_x2": (1, "fp4"),
    "c10::complex<double>": (16, "fp64"), "c10::complex<float>": (8, "fp32"),
    "c10::complex<c10::Half>": (4, "fp16"),
    "long int": (8, "int32"), "long long int": (8, "int32"), "int": (4, "int32"),
    "unsigned int": (4, "int32"), "short int": (2, "int32"), "unsigned short": (2, "int32"),
    "signed char": (1, "int8"), "unsigned char": (1, "int8"), "bool": (1, "int8"),
    "c10::quint8": (1, "int8"), "c10::qint8": (1, "int8"), "c10::qint32": (4, "int32"),
}
# c10::ScalarType codes as they appear in Concrete Inputs (dtype arguments).
_SCALAR_TYPE = {0: "unsigned char", 1: "signed char", 2: "short int", 3: "int", 4: "long int",
                5: "c10::Half", 6: "float", 7: "double", 8: "c10::complex<c10::Half>",
                9: "c10::complex<float>", 10: "c10::complex<double>", 11: "bool",
                15: "c10::BFloat16", 23: "c10::Float8_e5m2", 24: "c10::Float8_e4m3fn",
                25: "c10::Float8_e5m2fnuz", 26: "c10::Float8_e4m3fnuz"}
# TensorList arguments carry shapes but no dtype.
LIST_DTYPE = "float"
LIST_DTYPE_NOTE = "tensor lists carry no dtype in the trace: fp32 assumed"

_NOT_TENSOR = {"Scalar", "ScalarList", "TensorList", "GenericList", "", "Device", "Layout",
               "ScalarType", "MemoryFormat"}


@dataclass(frozen=True)
class OpCall:
    """One recorded operator call (tuples, so calls can key caches)."""

    name: str
    dims: tuple = ()
    types: tuple = ()
    strides: tuple = ()
    concrete: tuple = ()


@dataclass(frozen=True)
class OpWork:
    """A model's answer for one call.

    ``flops``: FLOP per precision key (``fp32``, ``fp16``, ``int32``...);
    ``bytes``: compulsory DRAM traffic (every input read once, every output
    written once): a lower bound on traffic, so the point it gives is an
    upper bound on intensity. ``matrix``: the FLOPs are multiply-adds a
    matrix unit can run. ``assumptions``: what the model had to assume.
    """

    flops: Mapping[str, float]
    bytes: float
    family: str
    matrix: bool = False
    assumptions: tuple = ()
    # the work of the launches of a matrix operator that are not matrix
    # kernels (a fused MoE's routing, quantize and finalize kernels beside
    # its grouped GEMMs): data movement, shared by those launches by time
    aside: "OpWork | None" = None
    # a matrix product whose operands or result have a row stride that is no
    # multiple of 16 bytes (True), all aligned (False), not known (None)
    unaligned: bool | None = None


@dataclass(frozen=True)
class Tensor:
    shape: tuple
    dtype: str

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return dtype_bytes(self.dtype)

    @property
    def nbytes(self) -> int:
        return self.numel * self.itemsize

    @property
    def precision(self) -> str:
        return dtype_precision(self.dtype)


def distinct_elements(shape: tuple, strides) -> int:
    """The elements of memory a tensor argument of ``shape`` and ``strides``
    occupies (what reading all of it must fetch at least once): an expanded
    (stride-0) dimension holds one element, not its size, and the count is
    at most the storage span ``1 + sum((size - 1) x |stride|)`` (views whose
    strides overlap, as ``unfold`` makes). Without usable strides (absent,
    of another rank, not ints) the shape's element count. A contiguous or
    merely permuted/sliced tensor gives its element count, as before."""
    numel = math.prod(shape)
    if (not isinstance(strides, tuple) or len(strides) != len(shape) or numel == 0
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in strides)):
        return numel
    held = math.prod(d for d, s in zip(shape, strides) if s != 0)
    span = 1 + sum((d - 1) * abs(s) for d, s in zip(shape, strides))
    return min(held, span)


def dtype_bytes(dtype: str) -> int:
    return _DTYPES.get(dtype, (4, "fp32"))[0]


def dtype_precision(dtype: str) -> str:
    return _DTYPES.get(dtype, (4, "fp32"))[1]


def vector_precision(dtype: str) -> str | None:
    """The ceiling of element-wise arithmetic on ``dtype``: half types run
    in fp32 (PyTorch computes in its ``opmath`` type and rounds the
    result); integer and bool arithmetic (step counters, masks, indices) is
    not floating-point work and is not counted (None): such an operator is
    placed by its bytes."""
    p = dtype_precision(dtype)
    if p in ("int8", "int32"):
        return None
    return "fp32" if p in ("fp16", "bf16", "fp8", "fp6", "fp4") else p


def known_dtype(dtype) -> bool:
    return dtype in _DTYPES


_BARE_POINT = re.compile(r"(?<=\d)\.(?!\d)")


def literal(text):
    """A Concrete Inputs entry as a Python value (None when not recorded)."""
    if not isinstance(text, str) or text == "":
        return None
    t = text.strip()
    if t in ("True", "False"):
        return t == "True"
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        pass
    if t.startswith("["):
        # C++ writes float lists as "[2., 2.]": JSON wants a digit after the point
        text = _BARE_POINT.sub(".0", t.replace("True", "true").replace("False", "false"))
        try:
            return json.loads(text)
        except ValueError:
            return t
    return t


class UnknownWork(LookupError):
    """A model that knows the operator but cannot size this call from what
    the trace recorded (torch 2.14 writes tensor lists as ``[]``): the work
    is unknown, never zero. The message says why (``unknown_reason``)."""


def is_shape(dims) -> bool:
    """Whether recorded dims are a tensor's shape: non-negative integers
    (a bool is none). Which arguments are tensors follows from this and
    their types alone (:meth:`Args.tensor`)."""
    return all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in dims)


class Args:
    """Positional access to a call's recorded arguments."""

    def __init__(self, call: OpCall):
        self.call = call
        self.notes: list[str] = []

    def __len__(self):
        return len(self.call.dims)

    def tensor(self, i: int) -> Tensor | None:
        dims, types = self.call.dims, self.call.types
        if i >= len(dims) or i >= len(types):
            return None
        t, d = types[i], dims[i]
        if t in _NOT_TENSOR or not isinstance(d, tuple) or not is_shape(d):
            return None
        return Tensor(d, t)

    def need(self, i: int) -> Tensor:
        t = self.tensor(i)
        if t is None:
            raise LookupError(f"argument {i} of {self.call.name} is not a tensor")
        return t

    def tensors(self) -> list[Tensor]:
        return [t for t in (self.tensor(i) for i in range(len(self))) if t is not None]

    def strides(self, i: int):
        """The recorded strides of argument ``i`` (None when not recorded)."""
        st = self.call.strides
        return st[i] if i < len(st) and isinstance(st[i], tuple) else None

    def distinct(self, i: int) -> int:
        """Elements argument ``i`` (a tensor) occupies in memory:
        :func:`distinct_elements` of its shape and recorded strides."""
        return distinct_elements(self.need(i).shape, self.strides(i))

    def stored_bytes(self, i: int) -> int:
        """Bytes argument ``i`` (a tensor) occupies in memory: what reading
        all of it fetches at least (an expanded index counts its storage)."""
        return self.distinct(i) * self.need(i).itemsize

    def tensor_positions(self) -> list[int]:
        """Positions of the tensor arguments, in order (as :meth:`tensors`)."""
        return [i for i in range(len(self)) if self.tensor(i) is not None]

    def tensor_list(self, i: int) -> list[Tensor] | None:
        dims, types = self.call.dims, self.call.types
        if i >= len(dims) or i >= len(types) or types[i] != "TensorList":
            return None
        d = dims[i]
        if not isinstance(d, tuple) or not all(isinstance(s, tuple) for s in d):
            return None
        if LIST_DTYPE_NOTE not in self.notes:
            self.notes.append(LIST_DTYPE_NOTE)
        return [Tensor(s, LIST_DTYPE) for s in d]

    def value(self, i: int, default=None):
        c = self.call.concrete
        v = literal(c[i]) if i < len(c) else None
        return default if v is None else v

    def recorded(self, i: int | None) -> bool:
        """Whether argument ``i`` has a Concrete Inputs literal (traces of
        PyTorch before about 1.10 record none)."""
        return i is not None and self.value(i) is not None

    def ints(self, i: int, rank: int, default: int) -> tuple:
        """An int-list argument (``[1, 1]``) broadcast to ``rank`` entries."""
        v = self.value(i, default)
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, int):
            return (v,) * rank
        if isinstance(v, list) and v and all(isinstance(x, int) for x in v):
            return tuple(v) * rank if len(v) == 1 else tuple(v)
        if isinstance(v, list) and not v:
            return (default,) * rank
        raise LookupError(f"argument {i} of {self.call.name} is not an int list: {v!r}")

    def dtype_code(self, i: int) -> str | None:
        v = self.value(i)
        return _SCALAR_TYPE.get(v) if isinstance(v, int) and not isinstance(v, bool) else None


def fill_concrete(call: OpCall, values: dict) -> OpCall:
    """``call`` with the literals of ``values`` (position -> int list) in its
    Concrete Inputs, the other entries kept (``""`` where none): what a
    newer profiler would have recorded, for a reader that inferred them."""
    size = max(len(call.dims), max(values) + 1)
    concrete = list(call.concrete) + [""] * (size - len(call.concrete))
    for at, v in values.items():
        concrete[at] = "[" + ", ".join(str(int(x)) for x in v) + "]"
    return replace(call, concrete=tuple(concrete))


def broadcast(*shapes: tuple) -> tuple:
    """NumPy/PyTorch broadcasting of shapes."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for j in range(rank):
        sizes = {s[len(s) - rank + j] for s in shapes if len(s) - rank + j >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            raise LookupError(f"shapes {shapes} do not broadcast")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def work(flops: Mapping[str, float], nbytes: float, family: str, *, matrix: bool = False,
         args: Args | None = None, assumptions: tuple = (), aside: OpWork | None = None,
         unaligned: bool | None = None) -> OpWork:
    notes = tuple(assumptions) + (tuple(args.notes) if args is not None else ())
    return OpWork({k: float(v) for k, v in flops.items() if v and k is not None}, float(nbytes), family,
                  matrix, notes, aside, unaligned)


# bytes a row stride must be a multiple of for TMA loads (sm_90 GEMM kernels)
ROW_ALIGNMENT_BYTES = 16


def row_stride(shape: tuple, strides) -> int | None:
    """The elements between consecutive rows of a matrix operand's last two
    dimensions: the recorded stride that is not the unit one (a transposed
    view's), else the last dimension (contiguous); None below two dimensions
    or for a vector-like operand (a dimension of 1 has no row to step)."""
    if len(shape) < 2 or shape[-1] <= 1 or shape[-2] <= 1:
        return None
    if isinstance(strides, tuple) and len(strides) == len(shape) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in strides[-2:]):
        inner, outer = strides[-1], strides[-2]
        return outer if inner == 1 else inner
    return shape[-1]


def unaligned_rows(args: Args, operands: list, out_shape: tuple, dtype: str) -> bool | None:
    """Whether a matrix product's operands (argument indices) or its result
    (contiguous, ``out_shape``) step rows by a stride that is no multiple of
    16 bytes; None when no operand is a matrix."""
    strides = []
    for i in operands:
        t = args.tensor(i)
        if t is not None:
            strides.append((row_stride(t.shape, args.strides(i)), t.itemsize))
    strides.append((row_stride(out_shape, None), Tensor((), dtype).itemsize))
    known = [(s, size) for s, size in strides if s is not None and size]
    if not known:
        return None
    return any(s * size % ROW_ALIGNMENT_BYTES for s, size in known)


def tensor_core_key(precision: str, matrix: bool, *, tf32: bool = False) -> str:
    """The GPU ceiling a model's FLOPs run on: matrix work in fp16/bf16/fp8/
    int8/fp64 goes on the tensor cores (cuBLAS/cuDNN use them for these
    types); fp32 matrix work only when TF32 is on. FP6 and FP4 (block-scaled
    MX/NVFP4 GEMMs) have roofs of their own where the device has them
    (Blackwell, CDNA4; ``core.model.PRECISION_FALLBACK`` steps down else)."""
    if not matrix:
        return precision
    if precision == "fp32":
        return "tensor_tf32" if tf32 else "fp32"
    return {"fp16": "tensor_fp16", "bf16": "tensor_bf16", "fp8": "tensor_fp8",
            "int8": "tensor_int8", "fp64": "tensor_fp64", "fp6": "tensor_fp6",
            "fp4": "tensor_fp4"}.get(precision, precision)
