"""Stride, padding and pooling windows that a trace does not record.

PyTorch before about 1.10 writes ``Input Dims`` and ``Input type`` but no
``Concrete Inputs``: a convolution's stride and padding, a pooling's window
and an adaptive pooling's output size are not in the trace, and neither is
any output shape. The output is the next operator's input, though: a
convolution's output feeds the ``batch_norm``, ``relu_`` or ``add`` after
it on the same thread. So, for each such operator (the outermost of a
chain ``conv2d -> convolution -> _convolution -> cudnn_convolution`` that
share input and weight), the first operator that starts after it on its
thread and reads a tensor of the output's rank is taken as the consumer:
when that tensor has the output's batch and channels, its spatial sizes
are the output's, and a stride and padding that fit the kernel are solved
(:func:`roofline.ops.conv.solve_stride_padding`; a pooling window by
:func:`roofline.ops.pooling.solve_window`). The operators of the chain are
then modelled with those values written into their Concrete Inputs, and
their rows say so. When the first such reader does not match (another
tensor, another thread, nothing within :data:`SCAN_LIMIT` operators), no
guess is made: the model's own default stands and says it is assumed.

Only shapes from the file are compared; no string of it reaches a note.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ...ops import conv, pooling
from ...ops.call import Args, OpCall

NAMESPACE = "aten::"
# operators looked at after the convolution for the first reader of a
# tensor of its output's rank (allocations and scalar updates come between:
# BatchNorm's num_batches_tracked += 1)
SCAN_LIMIT = 64
# Kineto rounds timestamps to 1 us in old traces: a consumer may start
# on the microsecond its producer ends
_SLACK_US = 2e-3
CONV_NOTE = ("stride and padding inferred from the output size the next operator reads: the trace "
             "records no Concrete Inputs (dilation 1 assumed)")
WINDOW_NOTE = ("pooling window assumed as wide as its stride, which is inferred from the output size the "
               "next operator reads: the trace records no Concrete Inputs (the bytes follow from the "
               "output; the comparisons per output are a guess)")
ADAPTIVE_NOTE = ("output size taken from the next operator's input: the trace records no Concrete "
                 "Inputs")
_RANK = re.compile(r"pool([123])d")


@dataclass(frozen=True)
class Settled:
    """A call to model instead of the recorded one, and the note that says how."""

    call: OpCall
    note: str


def call_with(name: str, decoded: tuple, concrete: list) -> OpCall:
    """The call of operator ``name`` from its decoded (dims, types, strides,
    ...) with ``concrete`` as its Concrete Inputs: what a settling stage
    models instead of the recorded call (a field not recorded is empty)."""
    dims, types, strides = decoded[:3]
    return OpCall(name, _frozen_or_empty(dims), _frozen_or_empty(types), _frozen_or_empty(strides),
                  _frozen_or_empty(concrete))


def _frozen_or_empty(x):
    return () if x is None else _frozen(x)


def settled_calls(ops, nesting) -> dict[int, Settled]:
    """Per operator index: its call with the inferred stride/padding or
    window written in, for the convolutions and poolings whose trace
    records none and whose output the next operator's input settles
    (``nesting``: the operators', :mod:`.nesting`)."""
    unknown = _unrecorded(ops, nesting)
    if not unknown:
        return {}
    chains = _chains(ops, nesting.parent, unknown)
    order = _thread_order(ops)
    out: dict[int, Settled] = {}
    for root, members in chains.items():
        call, kind = unknown[root]
        shape = _consumer_shape(ops, root, order, _lead(call, kind), len(call.dims[0]))
        if shape is None:
            continue
        for o in members:
            settled = _settle(unknown[o][0], unknown[o][1], shape)
            if settled is not None:
                out[o] = settled
    return out


def _unrecorded(ops, nesting) -> dict[int, tuple[OpCall, str]]:
    """Operators whose model needs a geometry the trace does not record:
    index -> (its call, "conv" / "window" / "adaptive")."""
    kinds = [_kind(name) for name in nesting.names]
    if not any(kinds):
        return {}
    # only the operators of a convolution or pooling name visited (no Python code per other operator)
    of_kind = np.array(kinds, dtype=object)[nesting.name_code]
    found: dict[int, tuple[OpCall, str]] = {}
    cache: dict[tuple, tuple | None] = {}
    for o in np.flatnonzero(of_kind != None).tolist():   # noqa: E711  (elementwise on an object array)
        name, kind = ops.names[o], of_kind[o]
        if ops.call[o] < 0:
            continue
        key = (name, ops.call[o])
        if key not in cache:
            cache[key] = _needs(name, kind, ops.decoded(ops.call[o]))
        if cache[key] is not None:
            found[o] = cache[key]
    return found


def _kind(name: str) -> str | None:
    short = name[len(NAMESPACE):] if name.startswith(NAMESPACE) else None
    if short is None:
        return None
    layout = conv.layout_of(short)
    if layout is not None:
        return "conv" if layout.transposed is not True else None
    if short in pooling.WINDOWED:
        return "window"
    return "adaptive" if short in pooling.ADAPTIVE else None


def _needs(name: str, kind: str, decoded: tuple) -> tuple[OpCall, str] | None:
    dims, types, strides, concrete = decoded
    if not isinstance(dims, list) or not isinstance(types, list) or not dims:
        return None
    call = OpCall(name, dims=_frozen(dims), types=_frozen(types),
                  strides=_frozen(strides) if isinstance(strides, list) else (),
                  concrete=_frozen(concrete) if isinstance(concrete, list) else ())
    args = Args(call)
    x = args.tensor(0)
    if x is None:
        return None
    if kind == "conv":
        layout = conv.layout_of(name[len(NAMESPACE):])
        w = args.tensor(1)
        transposed = (not isinstance(layout.transposed, bool)
                      and args.value(layout.transposed) is True)
        if (w is None or len(w.shape) < 3 or len(x.shape) not in (len(w.shape), len(w.shape) - 1)
                or args.recorded(layout.stride) or args.recorded(layout.padding) or transposed):
            return None
    elif args.recorded(1) or len(x.shape) < _pool_rank(name) + 1:
        return None
    return call, kind


def _pool_rank(name: str) -> int:
    m = _RANK.search(name)
    return int(m.group(1)) if m else 2


def _lead(call: OpCall, kind: str) -> tuple:
    """The output's leading sizes (batch, channels) that its reader's tensor must have."""
    x = call.dims[0]
    if kind == "conv":
        w = call.dims[1]
        rank = len(w) - 2
        return (x[0], w[0]) if len(x) == rank + 2 else (w[0],)
    return x[:-_pool_rank(call.name)]


def _chains(ops, parent: np.ndarray, unknown: dict) -> dict[int, list[int]]:
    """The operators of ``unknown`` grouped under the outermost one of
    their nesting chain with the same input (and weight) shapes."""
    chains: dict[int, list[int]] = {}
    for o in unknown:
        root = o
        p = int(parent[root])
        while p >= 0 and p in unknown and unknown[p][0].dims[:2] == unknown[root][0].dims[:2]:
            root = p
            p = int(parent[root])
        chains.setdefault(root, []).append(o)
    return chains


def _thread_order(ops) -> dict:
    """Per thread: its operators' indices in start order and their starts."""
    ts = np.asarray(ops.ts, dtype=float)
    dur = np.asarray(ops.dur, dtype=float)
    order = np.lexsort((-dur, ts))
    threads: dict = {}
    for i in order.tolist():
        threads.setdefault(ops.thread[i], []).append(i)
    return {t: (np.array(idx, dtype=np.int64), ts[idx]) for t, idx in threads.items()}


def _consumer_shape(ops, o: int, order: dict, lead: tuple, rank: int) -> tuple | None:
    """The shape of the first tensor of ``rank`` dimensions that an operator
    starting after ``o`` ends, on its thread, reads, when it begins with
    ``lead``; None when that first reader reads no such tensor."""
    idx, starts = order[ops.thread[o]]
    end = ops.ts[o] + ops.dur[o]
    first = int(np.searchsorted(starts, end - _SLACK_US, side="left"))
    for j in idx[first:first + SCAN_LIMIT].tolist():
        shapes = _tensor_shapes(ops, j, rank)
        if not shapes:
            continue
        return next((s for s in shapes if s[:len(lead)] == lead), None)
    return None


def _tensor_shapes(ops, j: int, rank: int) -> list[tuple]:
    """Shapes of operator ``j``'s tensor arguments with ``rank`` dimensions."""
    if ops.call[j] < 0:
        return []
    dims, types, _, _ = ops.decoded(ops.call[j])
    if not isinstance(dims, list) or not isinstance(types, list):
        return []
    args = Args(OpCall(ops.names[j], dims=_frozen(dims), types=_frozen(types)))
    found = []
    for i in range(len(args)):
        t = args.tensor(i)
        if t is not None and len(t.shape) == rank:
            found.append(t.shape)
    return found


def _settle(call: OpCall, kind: str, out: tuple) -> Settled | None:
    """``call`` with what fits output shape ``out``, or None when nothing does."""
    x = call.dims[0]
    if kind == "conv":
        w = call.dims[1]
        rank = len(w) - 2
        at = conv.layout_of(call.name[len(NAMESPACE):]).dilation
        try:
            dilation = Args(call).ints(at, rank, 1) if at is not None else (1,) * rank
        except LookupError:            # a dilation literal that is not an int list: data, maybe odd
            return None
        fits = [conv.solve_stride_padding(i, o, r, d)
                for i, o, r, d in zip(x[-rank:], out[-rank:], w[2:], dilation)]
        if not all(fits):
            return None
        settled = conv.with_geometry(call, tuple(f[0] for f in fits), tuple(f[1] for f in fits))
        return Settled(settled, CONV_NOTE) if settled is not None else None
    rank = _pool_rank(call.name)
    if kind == "adaptive":
        return Settled(pooling.with_output_size(call, out[-rank:]), ADAPTIVE_NOTE)
    fits = [pooling.solve_window(i, o) for i, o in zip(x[-rank:], out[-rank:])]
    if not all(fits):
        return None
    kernel, stride, padding = (tuple(f[k] for f in fits) for k in range(3))
    return Settled(pooling.with_window(call, kernel, stride, padding), WINDOW_NOTE)


def _frozen(x):
    if isinstance(x, list):
        return tuple(_frozen(v) for v in x)
    return x
