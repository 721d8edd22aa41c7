"""Operators whose descendants only change the memory layout of their own
tensors.

On a CPU, ``upsample_nearest2d`` on an NCHW tensor calls ``contiguous``
(-> ``clone`` -> ``copy_``) to make its input channels-last, interpolates,
and copies its output back to NCHW with ``copy_``
(tests/fixtures/cpu_traces/upsample_infer.json.gz). Those copies move more
bytes than the interpolation's compulsory traffic (input read, output
written), so the rule of :mod:`.operators` ("an operator gives its work to
descendants that do at least as much of it") would hand the interpolation
to the copies and leave its time as dispatch. But a layout conversion is
traffic of its own, not the parent's work done elsewhere: the parent still
reads its input and writes its output. So an operator keeps all its work
when every descendant doing work is a layout conversion of one of its own
tensors, and each conversion keeps its own. Nothing is counted twice: the
parent's bytes are its input read and output written, each copy's its own
read and write.

A layout conversion here is a ``copy_``, ``clone``, ``contiguous``,
``_to_copy`` or ``to`` whose tensors share one shape, that of one of the
parent's inputs or of its output (an input's rank, as many bytes as the
parent's model writes), and that changes the memory format: a ``copy_``
whose recorded destination and source strides differ, or another of them
asked for ``channels_last``/``channels_last_3d``. A copy that keeps the
layout (``pow(x, 1.)`` copies ``x`` into its output: that copy *is* the
work) or only changes the dtype (``sum`` over an int tensor converts it to
long on a GPU, whose reduction kernel then reads the long copy) stays
under the rule before this one.

Not for operators whose work *is* a copy (family ``copy``: ``_to_copy`` ->
``copy_``, ``repeat``, ``constant_pad_nd``), nor for matrix operators,
whose own rule keeps helpers apart already.
"""
from __future__ import annotations

import numpy as np

from ...ops import Args, OpCall
from ...ops.call import literal

LAYOUT_OPS = frozenset({"aten::copy_", "aten::clone", "aten::contiguous", "aten::_to_copy", "aten::to"})
# c10::MemoryFormat codes as Concrete Inputs write them: ChannelsLast, ChannelsLast3d
_CHANNELS_LAST = (2, 3)


def keeps_beside_layout_copies(ops, nesting, has_work: np.ndarray, does_work: np.ndarray,
                               own_bytes: np.ndarray, candidate: np.ndarray, desc_sums) -> np.ndarray:
    """Per operator: a ``candidate`` (modelled with work, not a copy or
    matrix operator) whose descendants doing work (``does_work``, by the
    rule before this one) are all layout conversions of its own tensors,
    at least one. ``desc_sums(values)`` sums a row of values over each
    operator's descendants; ``nesting``: the operators' (.nesting)."""
    parent = nesting.parent
    n = len(parent)
    layout = nesting.per_name(LAYOUT_OPS.__contains__)
    copies = np.flatnonzero(layout & does_work)
    if not len(copies) or not candidate.any():
        return np.zeros(n, dtype=bool)
    others = desc_sums((does_work & ~layout).astype(float)[None, :])[0]
    # each conversion belongs to its nearest modelled ancestor that is not a copy itself
    owner = _owners(parent, copies, skip=layout | ~has_work)
    owned = owner >= 0
    copies, owner = copies[owned], owner[owned]
    keep = np.zeros(n, dtype=bool)
    keep[owner] = True
    keep &= candidate & (others == 0)
    checked: dict = {}
    for j, p in zip(copies.tolist(), owner.tolist()):
        if not keep[p]:
            continue
        key = (ops.names[j], ops.call[j], ops.names[p], ops.call[p])
        ok = checked.get(key)
        if ok is None:
            ok = checked[key] = converts_own_tensor(ops, j, p, float(own_bytes[p]))
        keep[p] = ok
    return keep


def _owners(parent: np.ndarray, idx: np.ndarray, skip: np.ndarray) -> np.ndarray:
    """For each operator in ``idx``: its nearest ancestor not ``skip``
    (-1: none), climbing one level per pass for all at once."""
    cur = parent[idx].copy()
    climbing = np.flatnonzero(cur >= 0)
    climbing = climbing[skip[cur[climbing]]]
    while len(climbing):
        cur[climbing] = parent[cur[climbing]]
        climbing = climbing[cur[climbing] >= 0]
        climbing = climbing[skip[cur[climbing]]]
    return cur


def converts_own_tensor(ops, j: int, p: int, parent_bytes: float) -> bool:
    """Whether operator ``j`` (a copy) changes the memory layout of one of
    operator ``p``'s tensors: an input's shape, or the output's (an
    input's rank and as many bytes as ``p`` writes: its model's bytes less
    its inputs')."""
    mine, theirs = _tensors(ops, j), _tensors(ops, p)
    if not mine or not theirs or len({shape for shape, _, _ in mine}) != 1 or not _changes_layout(ops, j, mine):
        return False
    shape = mine[0][0]
    if any(shape == s for s, _, _ in theirs):
        return True
    written = parent_bytes - sum(b for _, b, _ in theirs)
    return (written > 0 and any(len(shape) == len(s) for s, _, _ in theirs)
            and any(abs(b - written) < 0.5 for _, b, _ in mine))


def _changes_layout(ops, j: int, tensors: list) -> bool:
    """``copy_``: destination and source strides recorded and different;
    the others: asked for a channels-last memory format (last argument)."""
    if ops.names[j] == "aten::copy_":
        strides = [st for _, _, st in tensors[:2]]
        return len(strides) == 2 and None not in strides and strides[0] != strides[1]
    concrete = ops.decoded(ops.call[j])[3]
    last = literal(concrete[-1]) if isinstance(concrete, list) and concrete else None
    return isinstance(last, int) and not isinstance(last, bool) and last in _CHANNELS_LAST


def _tensors(ops, o: int) -> list:
    """(shape, bytes in memory, strides or None) of operator ``o``'s tensor arguments."""
    c = ops.call[o]
    if c < 0:
        return []
    dims, types, strides, _ = ops.decoded(c)
    if not isinstance(dims, list) or not isinstance(types, list):
        return []
    args = Args(OpCall(ops.names[o], dims=_tuples(dims), types=_tuples(types),
                       strides=_tuples(strides) if isinstance(strides, list) else ()))
    try:
        return [(args.need(i).shape, args.stored_bytes(i), args.strides(i)) for i in args.tensor_positions()]
    except (LookupError, TypeError, ValueError, OverflowError):   # arguments from a file: data, maybe odd
        return []


def _tuples(x):
    if isinstance(x, list):
        return tuple(_tuples(v) for v in x)
    return x
