"""PyTorch operators of a Kineto trace: the work each one does according
to the operator models (:mod:`roofline.ops`), on the nesting :mod:`.nesting`
worked out (parent, self time, depth).

A trace recorded with ``record_shapes=True`` gives every ``cpu_op`` its
ATen name, input shapes, dtypes, strides and concrete scalar arguments.
Operators nest (``aten::linear`` calls ``aten::t`` and ``aten::addmm``;
``aten::conv2d`` goes down to ``aten::mkldnn_convolution``), so the same
work appears at several depths. It is counted once, at the innermost
operator that does it:

* an operator of a matrix family (GEMM, convolution, attention) gives its
  work to its descendants when their modelled matrix FLOPs are at least
  half its own (``aten::conv2d`` -> ``aten::mkldnn_convolution``; the math
  path of ``scaled_dot_product_attention`` -> ``bmm``); helpers it calls
  (``copy_`` of the bias into the output of ``addmm``) keep their own work;
* any other operator gives its work to its descendants when their
  modelled bytes are at least half its own (``dropout`` -> ``bernoulli_`` +
  ``mul``; ``_to_copy`` -> ``copy_``), and keeps it when they are small
  helpers (``mul`` copying a scalar operand);
* except that an operator whose working descendants only convert the
  layout of its own tensors (``upsample_nearest2d`` -> ``contiguous`` /
  ``copy_`` to channels-last and back, on a CPU) keeps all its work, and
  the copies theirs (:mod:`.layout`).

An operator whose work went to its descendants, and an unmodelled one that
spends at least half its time in modelled descendants (autograd wrappers
such as ``AddmmBackward0``), does no work itself: its self time is dispatch
overhead. An unmodelled operator
with no modelled descendant is ``unknown`` and listed by name and time.

Self time is the operator's duration minus its direct children's. On a CPU
trace the operator is the kernel and its self time is its time; on a GPU
trace its work goes to the kernels it launched (see :mod:`.attribution`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from ...core.families import MATRIX
from ...ops import OpCall, OpWork, is_view, op_work, unknown_reason
from . import columns
from .geometry import settled_calls
from .layout import keeps_beside_layout_copies
from .nesting import Nesting
from .op_columns import OpEvents
from .serving import moe_settled
from .step_lengths import step_settled

GIVE_AWAY_SHARE = 0.5
# A non-matrix operator keeps what its descendants do not do when that is at
# least this share of its own work (mse_loss: (x - y)^2 itself, the mean in
# its child); below it the difference is the models' rounding.
MIN_RESIDUAL_SHARE = 0.1
WRAPPER_SELF_SHARE = 0.5


@dataclass(frozen=True, slots=True, eq=False)
class OpTree:
    """Work of every operator (arrays indexed like OpEvents; its nesting
    is the :class:`.nesting.Nesting` it was built on). Only
    :func:`.compiled.apply_inductor_counts` writes into it, before any
    other stage reads it."""

    work: list                # OpWork or None per operator (the model's answer)
    counted: list             # OpWork counted at the operator itself (None: none)
    does_work: np.ndarray     # bool: work is counted here (not all given to descendants)
    delegated: np.ndarray     # bool: modelled or wrapper, but its descendants do the work
    subtree_flops: np.ndarray  # modelled FLOP counted in the operator and all its descendants
    matrix: np.ndarray        # bool: its work (``work``) is a matrix product's
    counted_code: np.ndarray  # int64: equal codes, one ``counted`` object (-1: None)
    has_aside: np.ndarray     # bool: the work counted at it (``counted``) has ``aside`` work


def build(ops: OpEvents, nesting: Nesting) -> OpTree:
    parent, self_time, levels = nesting.parent, nesting.self_time_us, nesting.levels
    distinct, which = _works(ops, {**settled_calls(ops, nesting), **moe_settled(ops, nesting),
                                   **step_settled(ops, nesting)}, nesting.call_keys)
    work = list(map(distinct.__getitem__, which.tolist()))         # distinct[-1] is None
    n = len(ops)
    own_bytes = _per_work(distinct, lambda w: w.bytes)[which]
    own_flops = _per_work(distinct, lambda w: sum(w.flops.values()))[which]
    is_matrix = _per_work(distinct, lambda w: w.family in MATRIX, bool)[which]
    desc_bytes, desc_flops, desc_matrix_flops = _descendant_sums(
        parent, levels, np.vstack([own_bytes, own_flops, np.where(is_matrix, own_flops, 0.0)]))
    has_work = (own_bytes > 0) | (own_flops > 0)
    # A matrix operator whose descendants do at least half its matrix FLOPs
    # gives them all its work (conv2d -> mkldnn_convolution); smaller
    # descendants are helpers (the bias copy of addmm) and it keeps all.
    matrix_gives = desc_matrix_flops >= GIVE_AWAY_SHARE * own_flops
    # Any other operator keeps the part its descendants do not do
    # (_to_copy -> copy_: nothing; mse_loss -> mean: the squared differences).
    left_flops = np.maximum(own_flops - desc_flops, 0.0)
    left_bytes = np.maximum(own_bytes - desc_bytes, 0.0)
    keeps = ((left_flops >= MIN_RESIDUAL_SHARE * own_flops) & (left_flops > 0)) | (
        (left_bytes >= MIN_RESIDUAL_SHARE * own_bytes) & (left_bytes > 0))
    # An operator whose descendants only convert the memory layout of its
    # own tensors (upsample_nearest2d -> contiguous/copy_ to channels-last
    # and back, on a CPU) keeps all its work: the copies' bytes are theirs,
    # its input read and output written its own (.layout).
    is_copy = _per_work(distinct, lambda w: w.family == "copy", bool)[which]
    beside_copies = keeps_beside_layout_copies(
        ops, nesting, has_work, has_work & ~np.where(is_matrix, matrix_gives, ~keeps), own_bytes,
        has_work & ~is_matrix & ~is_copy, lambda values: _descendant_sums(parent, levels, values))
    gives_away = np.where(is_matrix, matrix_gives, ~keeps & ~beside_copies)
    does_work = has_work & ~gives_away
    whole = is_matrix | beside_copies
    share_flops = np.where(whole | (desc_flops == 0), 1.0,
                           np.divide(left_flops, own_flops, out=np.zeros(n), where=own_flops > 0))
    share_bytes = np.where(whole | (desc_bytes == 0), 1.0,
                           np.divide(left_bytes, own_bytes, out=np.zeros(n), where=own_bytes > 0))
    counted, counted_code = _counted(work, which, does_work, share_flops, share_bytes)
    desc_any = (desc_bytes > 0) | (desc_flops > 0)
    modelled = which >= 0
    # An unmodelled operator that spends most of its time inside modelled
    # children is a wrapper (autograd's AddmmBackward0); one that spends it
    # in itself does unknown work of its own.
    wrapper = ~modelled & desc_any & (self_time <= WRAPPER_SELF_SHARE * nesting.dur)
    # Autograd's own nodes (MulBackward0, AccumulateGrad, the engine's
    # evaluate_function) run no kernel of their own: their self time is the
    # engine's bookkeeping, which is overhead whatever they call.
    wrapper |= ~modelled & nesting.per_name(is_autograd)
    delegated = (modelled & has_work & gives_away) | wrapper
    own_counted = np.where(does_work, own_flops * share_flops, 0.0)
    subtree = own_counted + _descendant_sums(parent, levels, own_counted[None, :])[0]
    # per distinct work, not per operator: what attribution asks of every launch's operator
    has_aside = does_work & _per_work(distinct, lambda w: w.aside is not None, bool)[which]
    return OpTree(work, counted, does_work, delegated, subtree, _per_work(distinct, lambda w: w.matrix, bool)[which],
                  counted_code, has_aside)


def _per_work(distinct: list, value, dtype=float) -> np.ndarray:
    """``value(w)`` per distinct work, and 0 for the None at its end."""
    return np.array([value(w) for w in distinct[:-1]] + [0], dtype=dtype)


def _counted(work: list, which: np.ndarray, does_work: np.ndarray, share_flops: np.ndarray,
             share_bytes: np.ndarray) -> tuple[list, np.ndarray]:
    """The work counted at each operator: all of it, its part, or None;
    and a code per operator, equal for one object (its distinct work's
    index when whole, one past them per distinct part, -1 for None)."""
    whole = does_work & (share_flops >= 1.0) & (share_bytes >= 1.0)
    counted = np.fromiter(work, dtype=object, count=len(work))    # an object array: no Python loop per operator
    counted[~whole] = None
    code = np.where(whole, which, -1)
    parts = np.flatnonzero(does_work & ~whole)
    # one part per distinct (work, shares): operators of one call nested
    # alike share it (57,000 parts of a CPU trace were 1,500 distinct)
    firsts, rank = columns.distinct(zip(which[parts].tolist(), share_flops[parts].tolist(), share_bytes[parts].tolist()),
                                    len(parts))
    made = np.empty(len(firsts), dtype=object)
    for j, i in enumerate(parts[firsts].tolist()):
        made[j] = _part(work[i], float(share_flops[i]), float(share_bytes[i]))
    counted[parts] = made[rank]
    code[parts] = int(which.max(initial=-1)) + 1 + rank
    return counted.tolist(), code


def _descendant_sums(parent: np.ndarray, levels: tuple[np.ndarray, ...], own: np.ndarray) -> np.ndarray:
    """Per row of ``own`` (values x operators): the sum over each operator's
    descendants, deepest level first."""
    desc = np.zeros_like(own)
    for idx in reversed(levels):
        for row in range(own.shape[0]):
            np.add.at(desc[row], parent[idx], desc[row, idx] + own[row, idx])
    return desc


PART_NOTE = "part of the operator's work is counted at the operators it calls"


def _part(w: OpWork, flop_share: float, byte_share: float) -> OpWork:
    if flop_share >= 1.0 and byte_share >= 1.0:
        return w
    return replace(w, flops={k: v * flop_share for k, v in w.flops.items()}, bytes=w.bytes * byte_share,
                   assumptions=w.assumptions + (PART_NOTE,))


_AUTOGRAD = re.compile(r"^(autograd::|torch::autograd::|[A-Z]\w*Backward\d*$|detach_?$)")


def is_autograd(name: str) -> bool:
    """A node of the autograd engine rather than an operator."""
    return bool(_AUTOGRAD.match(name))


def _works(ops: OpEvents, settled: dict | None = None, keys: tuple | None = None) -> tuple[list, np.ndarray]:
    """The model's answers, computed once per distinct (name, call), with a
    None at the end, and the index of each operator's answer (-1: None).
    ``settled``: per operator, the call to model instead of the recorded one
    (a stride the trace does not record, inferred: :mod:`.geometry`);
    ``keys``: ``ops.call_keys()`` where already found (:class:`.nesting.Nesting`)."""
    firsts, pair = ops.call_keys() if keys is None else keys
    distinct: list = []
    per_pair = np.empty(len(firsts), dtype=np.int64)
    # one model per distinct (name, call), not one dict look-up per operator
    for j, o in enumerate(firsts.tolist()):
        name, call = ops.names[o], ops.call[o]
        w = _model(name, *ops.decoded(call)) if call >= 0 else (op_work(OpCall(name)) if is_view(name) else None)
        per_pair[j] = _added(distinct, w)
    which = per_pair[pair] if len(pair) else np.zeros(0, dtype=np.int64)
    index: dict = {}
    for o, instead in (settled or {}).items():     # the few operators whose call the reader completed
        key = (ops.names[o], ops.call[o], instead)
        if key not in index:
            index[key] = _added(distinct, _settled_model(instead))
        which[o] = index[key]
    return distinct + [None], which


def _added(distinct: list, w) -> int:
    """``w``'s index once appended to ``distinct`` (-1 for None, not appended)."""
    if w is None:
        return -1
    distinct.append(w)
    return len(distinct) - 1


def _frozen(x):
    """A decoded JSON value with its lists as tuples (hashable, as OpCall
    holds them); leaves are not called for (one call per list, not per
    value: a trace of distinct shapes freezes one call per operator)."""
    if type(x) is not list:
        return x
    return tuple([_frozen(v) if type(v) is list else v for v in x])


def _model(name, dims, types, strides, concrete) -> OpWork | None:
    if is_view(name):
        return op_work(OpCall(name))
    if dims is None:
        return None
    try:
        return op_work(_op_call(name, dims, types, strides, concrete))
    except Exception:  # a model must never break an import; the op stays unknown
        return None


def _settled_model(settled) -> OpWork | None:
    """The model's answer for a call the reader completed, with its note."""
    w = op_work(settled.call)
    if w is None:
        return None
    if settled.note in w.assumptions:
        return w
    return replace(w, assumptions=(settled.note,) + w.assumptions)


def _op_call(name, dims, types, strides, concrete) -> OpCall:
    return OpCall(name, dims=_frozen(dims) if isinstance(dims, list) else (),
                  types=_frozen(types) if isinstance(types, list) else (),
                  strides=_frozen(strides) if isinstance(strides, list) else (),
                  concrete=_frozen(concrete) if isinstance(concrete, list) else ())


def unknown_text(ops: OpEvents, o: int) -> str | None:
    """Why operator ``o``'s model cannot size it from what the trace
    recorded (:func:`roofline.ops.unknown_reason`: tensor lists recorded
    ``[]``), or None (no shapes, no model, or a model that answered)."""
    if ops.call[o] < 0:
        return None
    try:
        return unknown_reason(_op_call(ops.names[o], *ops.decoded(ops.call[o])))
    except Exception:  # as _model: never break an import
        return None


def shape_label(dims, types) -> str:
    """``16x128, 128x10`` for the tensor inputs of a call (scalars left out)."""
    if not isinstance(dims, list):
        return ""
    parts = []
    for j, d in enumerate(dims):
        t = types[j] if isinstance(types, list) and j < len(types) else ""
        if isinstance(t, str) and (t.startswith("Scalar") or t in ("", "GenericList")):
            continue
        if isinstance(d, list) and d and all(isinstance(v, int) and not isinstance(v, bool) for v in d):
            parts.append("x".join(str(v) for v in d))
        elif isinstance(d, list) and not d and isinstance(t, str) and t not in ("TensorList",):
            parts.append("scalar")
    return ", ".join(parts)
