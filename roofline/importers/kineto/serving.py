"""Top-k and expert size of a fused MoE that the trace does not record.

``vllm::moe_forward(hidden_states, router_logits, layer_name)`` looks its
weights up by the layer's name, so its call records T tokens of width H
and E router logits per token, but neither top-k nor the experts'
intermediate size I. The operator allocates its buffers, though, and the
allocations (``aten::empty`` with their sizes in Concrete Inputs) are
recorded inside it:

- the routing ids: a [T, k] integer tensor with 0 < k < E;
- the activations between the two GEMMs: a [rows, I] tensor with
  rows >= T k (the routed tokens, padded per expert) and I != H, or
  Triton's [T, k, N] caches; the narrowest such width is I (the gate/up
  output is 2I wide, the down output H). Leading dimensions of one are
  dropped first: ``triton_kernels``' matmul_ogs (gpt-oss MXFP4) allocates
  [1, T k, I].

Some paths also take views of the layer's expert weights inside the
operator (matmul_ogs: w1 [E, H/2, 2I] and w2 [E, I/2, H], packed 4-bit in
bytes): tensors of E experts, each at least H x I / 4 elements. Their
recorded bytes replace the 4-bit assumption (position 5).

When both are found, the call is modelled with k and I written into its
Concrete Inputs at positions 3 and 4 (:mod:`roofline.ops.moe`) and the row
says they were read from allocations; else the model says the work is
unknown and why. Only shapes and dtype codes are read; no string of the
file reaches a note.
"""
from __future__ import annotations

import math

import numpy as np

from ...ops.call import dtype_bytes, known_dtype, literal
from ...ops.moe import ROUTING_NOTE
from .geometry import Settled, call_with

NEEDS_ROUTING = frozenset({"vllm::moe_forward", "vllm::moe_forward_shared"})
ALLOCATORS = frozenset({"aten::empty", "aten::empty_strided", "aten::new_empty", "aten::zeros"})
# operators that take a view of a parameter (the experts' weights) without moving it
VIEWERS = frozenset({"aten::view", "aten::reshape", "aten::as_strided", "aten::transpose", "aten::permute"})
# c10::ScalarType codes of integer dtypes (routing ids are int32 or int64)
_INTEGER_CODES = frozenset({0, 1, 2, 3, 4})
# levels below the MoE operator searched for its allocations
_DEPTH = 6


def moe_settled(ops, nesting) -> dict:
    """Per MoE operator that records no top-k: its call with k and I, when
    its allocations give them (``nesting``: the operators', :mod:`.nesting`)."""
    if NEEDS_ROUTING.isdisjoint(nesting.names):   # the distinct names: most traces hold no MoE operator
        return {}
    parent = nesting.parent
    targets = [o for o, name in enumerate(ops.names) if name in NEEDS_ROUTING and ops.call[o] >= 0]
    if not targets:
        return {}
    wanted = set(targets)
    sizes: dict[int, list] = {o: [] for o in targets}
    viewed: dict[int, list] = {o: [] for o in targets}
    for i, name in enumerate(ops.names):
        if (name not in ALLOCATORS and name not in VIEWERS) or ops.call[i] < 0:
            continue
        owner = _owner(i, parent, wanted)
        if owner is None:
            continue
        decoded = ops.decoded(ops.call[i])
        if name in VIEWERS:
            viewed[owner].append(_viewed(decoded))
            continue
        shape, code = _allocation(decoded)
        if shape is not None:
            sizes[owner].append((shape, code))
    out = {}
    for o in targets:
        decoded = ops.decoded(ops.call[o])
        dims, concrete = decoded[0], decoded[3]
        found = _routing(dims, sizes[o])
        if found is None:
            continue
        k, intermediate = found
        values = list(concrete) if isinstance(concrete, list) else []
        values += [""] * (6 - len(values))
        values[3], values[4] = str(k), str(intermediate)
        weights = expert_weight_bytes(dims, intermediate, viewed[o])
        values[5] = str(weights) if weights else ""
        out[o] = Settled(call_with(ops.names[o], decoded, values), ROUTING_NOTE)
    return out


def _owner(i: int, parent: np.ndarray, wanted: set) -> int | None:
    p = int(parent[i])
    for _ in range(_DEPTH):
        if p < 0:
            return None
        if p in wanted:
            return p
        p = int(parent[p])
    return None


def _allocation(decoded) -> tuple:
    """(shape, dtype code) of an ``empty(size, dtype, ...)`` call."""
    concrete = decoded[3]
    if not isinstance(concrete, list) or not concrete:
        return None, None
    shape = literal(concrete[0])
    code = literal(concrete[1]) if len(concrete) > 1 else None
    if not isinstance(shape, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                              for v in shape):
        return None, None
    return tuple(shape), code if isinstance(code, int) and not isinstance(code, bool) else None


def _viewed(decoded) -> tuple:
    """(shape, bytes per element) of a view's input, or ((), 0)."""
    dims, types = decoded[0], decoded[1]
    if not (isinstance(dims, list) and dims and isinstance(dims[0], list) and isinstance(types, list)
            and types and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in dims[0])):
        return (), 0
    return tuple(dims[0]), dtype_bytes(types[0]) if known_dtype(types[0]) else 0


def expert_weight_bytes(dims, intermediate: int, viewed: list) -> int:
    """Bytes of the experts' weights the operator takes views of: distinct
    [E, a, b] tensors of at least H x I / 4 elements (a packed 4-bit
    matrix of H x I is H x I / 2 bytes); 0 when there are none."""
    hidden, logits = dims[0], dims[1]
    experts, h = logits[-1], hidden[-1]
    distinct = {(shape, size) for shape, size in viewed
                if size and len(shape) == 3 and shape[0] == experts and 4 * shape[1] * shape[2] >= h * intermediate}
    return sum(math.prod(shape) * size for shape, size in distinct)


def _squeezed(shape: tuple) -> tuple:
    """The shape without its leading dimensions of one."""
    i = 0
    while i < len(shape) - 1 and shape[i] == 1:
        i += 1
    return shape[i:]


def _routing(dims, allocations: list) -> tuple | None:
    """(k, I) from the operator's [T, H] hidden states, [T, E] logits and
    its allocations, or None."""
    if not isinstance(dims, list) or len(dims) < 2:
        return None
    hidden, logits = dims[0], dims[1]
    if not (isinstance(hidden, list) and len(hidden) == 2 and isinstance(logits, list) and logits):
        return None
    t, h, experts = hidden[0], hidden[1], logits[-1]
    allocations = [(_squeezed(s), code) for s, code in allocations]
    ks = [s[1] for s, code in allocations
          if len(s) == 2 and s[0] == t and 0 < s[1] < experts and code in _INTEGER_CODES]
    if not ks:
        return None
    k = ks[0]
    widths = [s[-1] for s, _ in allocations
              if ((len(s) == 2 and s[0] >= t * k) or (len(s) == 3 and s[:2] == (t, k)))
              and 0 < s[-1] != h]
    if not widths:
        return None
    return k, min(widths)
