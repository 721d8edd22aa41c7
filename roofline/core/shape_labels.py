"""The operand shapes in a row's name, as CPU trace rows spell them
(``aten::div(1024x4096, scalar)``: the operator, then its tensor inputs'
shapes; roofline.importers.kineto.operators.shape_label), read for all rows
at once (pyarrow's string kernels, imported when called, as
:func:`roofline.core.evidence._codes` does: a million names in about a
second, no Python per row)."""
from __future__ import annotations

import numpy as np

_SHAPE = r"^\d+(x\d+)*$"


def _strings(values: np.ndarray):
    import pyarrow as pa
    try:
        return pa.array(values.tolist(), type=pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array(values.astype(str).tolist(), type=pa.string())


def largest_operands(names: np.ndarray, operators: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the shape of its largest tensor operand ("" where its name is
    not ``operator(shapes)``, or has no shape), which an element-wise
    operator's output has, and that operand's share of all the elements the
    call touches with the output counted once more (0 where unknown): the
    output's share of the call's bytes when one dtype runs through it."""
    import pyarrow.compute as pc
    n = len(names)
    shapes = np.full(n, "", dtype=object)
    share = np.zeros(n)
    if n == 0:
        return shapes, share
    text = _strings(names)
    head = pc.replace_substring_regex(text, pattern=r"\(.*$", replacement="")
    labelled = (pc.fill_null(pc.equal(head, _strings(operators)), False).to_numpy(zero_copy_only=False)
                & pc.fill_null(pc.ends_with(text, ")"), False).to_numpy(zero_copy_only=False)
                & (operators != ""))
    rows = np.flatnonzero(labelled)
    if not len(rows):
        return shapes, share
    inner = pc.replace_substring_regex(pc.replace_substring_regex(text.take(rows), pattern=r"^[^(]*\(",
                                                                  replacement=""), pattern=r"\)$", replacement="")
    operands = pc.split_pattern(inner, pattern=",")
    parent = pc.list_parent_indices(operands).to_numpy()
    flat = pc.utf8_trim_whitespace(pc.list_flatten(operands))
    is_shape = pc.fill_null(pc.match_substring_regex(flat, _SHAPE), False).to_numpy(zero_copy_only=False)
    flat, parent = flat.filter(is_shape), parent[is_shape]
    if not len(parent):
        return shapes, share
    dims = pc.split_pattern(flat, pattern="x")
    values = pc.cast(pc.list_flatten(dims), "float64").to_numpy()
    starts = np.asarray(dims.offsets)[:-1]
    elements = np.multiply.reduceat(values, starts)        # every shape has one dimension at least
    # the largest operand of each row: the first of its row after sorting by size (largest first)
    order = np.lexsort((np.arange(len(parent)), -elements, parent))
    first = order[np.flatnonzero(np.diff(parent[order], prepend=-1) != 0)]
    owner = rows[parent[first]]
    total = np.bincount(parent, weights=elements, minlength=len(rows))[parent[first]] + elements[first]
    shapes[owner] = np.asarray(flat.take(first).to_pylist(), dtype=object)
    with np.errstate(invalid="ignore", divide="ignore"):
        share[owner] = np.where(total > 0, elements[first] / total, 0.0)
    return shapes, share
