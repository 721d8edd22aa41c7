"""Sizes of HLO shapes (``xla.ShapeProto``), checked: a shape from a file
is untrusted, and a damaged one (negative sizes, thousands of dimensions,
more elements than any memory holds) raises ValueError naming it, which
the cost model turns into a row's reason instead of a count."""
from __future__ import annotations

import math

from .xla_hlo_schema import OPAQUE, PRIMITIVE_TYPES, TOKEN, TUPLE

# More elements than this (4.4e12: 8.8 TB of bf16) is no tensor one device
# or host holds: the shape is damaged.
MAX_ELEMENTS = 1 << 42
MAX_RANK = 64                   # XLA's own layouts stop far below this
MAX_LEAVES = 1 << 16            # elements of one tuple shape


def element_bits(shape) -> int:
    return PRIMITIVE_TYPES.get(shape.element_type, (0, "", ""))[0]


def type_name(shape) -> str:
    return PRIMITIVE_TYPES.get(shape.element_type, (0, "", f"type {shape.element_type}"))[2]


def precision(shape) -> str:
    """The precision key of an array's element type ('int32' for integers)."""
    found = PRIMITIVE_TYPES.get(shape.element_type)
    return (found[1] or "int32") if found else "fp32"


def elements(shape) -> int:
    """Elements of an array shape (1 for a scalar); the sum over a tuple's
    leaves; ValueError for a shape that is no real tensor."""
    if shape.element_type == TUPLE:
        if len(shape.tuple_shapes) > MAX_LEAVES:
            raise ValueError(f"a tuple of {len(shape.tuple_shapes):,} shapes")
        return sum(elements(s) for s in shape.tuple_shapes)
    if shape.element_type in (TOKEN, OPAQUE):
        return 0
    dims = shape.dimensions
    if len(dims) > MAX_RANK:
        raise ValueError(f"an array of {len(dims):,} dimensions")
    if any(d < 0 or d > MAX_ELEMENTS for d in dims) or math.prod(dims) > MAX_ELEMENTS:
        raise ValueError(f"an array of {type_name(shape)}[{','.join(map(str, dims[:8]))}"
                         f"{',...' if len(dims) > 8 else ''}]")
    return math.prod(dims)


def size_bytes(shape) -> float:
    """Bytes of a shape (a tuple's leaves summed; sub-byte types packed)."""
    if shape.element_type == TUPLE:
        if len(shape.tuple_shapes) > MAX_LEAVES:
            raise ValueError(f"a tuple of {len(shape.tuple_shapes):,} shapes")
        return sum(size_bytes(s) for s in shape.tuple_shapes)
    return float(math.ceil(elements(shape) * element_bits(shape) / 8))


def first_array(shape):
    """A custom call's result: its tuple's first element (the rest is workspace)."""
    while shape.element_type == TUPLE and len(shape.tuple_shapes):
        shape = shape.tuple_shapes[0]
    return shape
