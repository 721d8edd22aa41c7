"""FLOPs and bytes of one HLO instruction, counted as XLA's own cost
analysis (``HloCostAnalysis``) counts them, from the module a profile
embeds (:mod:`.xla_hlo_schema`).

- **dot**: 2 x output elements x the product of the contracting
  dimensions (batch dimensions are in the output).
- **convolution** (and the cuDNN/MIOpen custom calls ``__cudnn$conv*``,
  which carry the same window and dimension numbers): :mod:`.xla_hlo_conv`
  (feature and batch groups, padding, dilations; shapes that disagree are
  refused). The backward passes are counted from the forward convolution
  they are the gradient of (same multiply-adds).
- **GEMM custom calls** (``__cublas$gemm``, ``__cublas$lt$matmul*``,
  hipBLASLt/rocBLAS ``__cublas$...`` on ROCm): as a dot, with the dimension
  numbers of the ``gemm_backend_config`` in the backend config (JSON).
- **element-wise**: 1 FLOP per output element; transcendental ops (exp,
  log, tanh, sqrt, rsqrt, power, sine, erf ...) and random numbers (rng)
  are counted apart, as XLA does, and not as FLOPs.
- **reduce**: (elements of the first input - of the first output) x the
  FLOPs of one run of the reducer (a variadic reduce's reducer already does
  the work of all its inputs, as XLA says); **reduce-window**: first output's
  elements x (window - 1) x the reducer's (XLA's reduce-then-broadcast
  special case too); **map**, **scatter** (updates), **select-and-scatter**
  (source x (window - 1) selects + source scatters); **sort**:
  n x ceil(log2 n) comparisons of its first operand, as XLA counts.
- **fusion**: the FLOPs of its fused body; bytes are its operands read
  once (a parameter only sliced inside is read at the slices' size, one only
  updated in place by a dynamic-update-slice not at all) and its result
  written once (a dynamic-update-slice root: the update only).
- data movement (copy, transpose, broadcast, concatenate, pad, reverse,
  iota): no FLOPs, operands and result as bytes; slice, dynamic-slice and
  gather read what they write (2 x result, plus indices);
  dynamic-update-slice writes its update in place (2 x update, plus
  indices); scatter 3 x updates plus indices, as XLA counts them.

Bytes are compulsory bytes (each operand read once, the result written
once, the workspace of a library call left out): a lower bound on DRAM
traffic. Where XLA counts a parameter read by several broadcasts or
reshapes once for each, it is read once here (compulsory bytes); a gather
inside a fusion reads its result's size (XLA: the whole operand); large
constants inside fusions are not counted. FLOPs carry the precision of the element type: dot and
convolution on the matrix units of their operands' type
(``tensor_bf16``...), the rest on the vector units of their result's.
What is not modelled says why (:attr:`HloCost.unmodelled`), and so does a
shape that is no real tensor (:mod:`.xla_hlo_shapes`).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace

from ...ops.call import tensor_core_key
from .xla_hlo_conv import conv_flops
from .xla_hlo_shapes import MAX_ELEMENTS, elements, first_array, precision, size_bytes

ELEMENTWISE = frozenset({
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder", "and", "or", "xor", "not",
    "negate", "abs", "sign", "compare", "select", "clamp", "convert", "floor", "ceil", "round-nearest-afz",
    "round-nearest-even", "is-finite", "shift-left", "shift-right-arithmetic", "shift-right-logical",
    "popcnt", "count-leading-zeros", "real", "imag", "complex", "stochastic-convert", "reduce-precision"})
TRANSCENDENTAL = frozenset({"exponential", "exponential-minus-one", "log", "log-plus-one", "tanh", "logistic",
                            "sqrt", "rsqrt", "cbrt", "sine", "cosine", "tan", "power", "atan2", "erf",
                            "rng", "rng-bit-generator"})
MOVEMENT = frozenset({"copy", "transpose", "broadcast", "concatenate", "pad", "slice", "dynamic-slice",
                      "dynamic-update-slice", "gather", "reverse", "iota", "copy-start", "bitcast-convert"})
# no kernel of their own: no bytes (views, tuples, values known at compile time)
FREE = frozenset({"parameter", "constant", "bitcast", "reshape", "get-tuple-element", "tuple", "after-all",
                  "copy-done", "partition-id", "replica-id", "opt-barrier", "add-dependency", "domain"})
COLLECTIVES = frozenset({"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
                         "all-reduce-start", "all-gather-start", "collective-permute-start", "ragged-all-to-all",
                         "collective-broadcast", "send", "recv"})
CONV_TARGETS = ("__cudnn$conv", "__miopen$conv")
GEMM_TARGETS = ("__cublas$gemm", "__cublas$lt$matmul", "__rocblas$gemm", "__hipblaslt$matmul")
_SLICING = frozenset({"slice", "dynamic-slice", "gather"})
MAX_DEPTH = 64                  # called computations nested deeper than this are no real module
MAX_OPERANDS = 1 << 16          # operands of one instruction (real ones: a concatenate of thousands)


@dataclass(frozen=True)
class HloCost:
    """One execution of an instruction: FLOP per precision key, compulsory
    bytes, transcendental ops, whether its FLOPs are matrix work (dot,
    convolution), and why it is not modelled ('' when it is)."""

    flops: dict = field(default_factory=dict)
    bytes: float = 0.0
    transcendentals: float = 0.0
    matrix: bool = False
    unmodelled: str = ""
    family: str = ""            # what the instruction does: gemm, conv_custom, reduction, elementwise

    @property
    def total_flops(self) -> float:
        return sum(self.flops.values())


def _matrix_key(p: str) -> str:
    return tensor_core_key(p, True)


class ModuleCosts:
    """The instructions of one HLO module, and their costs on demand."""

    def __init__(self, module):
        self.module = module
        self.computations = {c.id: c for c in module.computations}
        self.by_id: dict[int, object] = {}
        self.by_name: dict[str, object] = {}
        for comp in module.computations:
            for inst in comp.instructions:
                self.by_id[inst.id] = inst
                self.by_name.setdefault(inst.name, inst)
        self._body_flops: dict[int, tuple] = {}
        self._params: dict[int, tuple] = {}       # computation -> (parameters by number, users by id)

    def cost(self, name: str) -> HloCost | None:
        """One execution of the instruction named ``name`` (None: no such one)."""
        inst = self.by_name.get(name)
        return None if inst is None else self.instruction(inst)

    def family(self, inst) -> str:
        """The kernel family of what ``inst`` computes (its fused body's opcodes)."""
        target = inst.custom_call_target
        if target.startswith(CONV_TARGETS):
            return "conv_custom"
        if target.startswith(GEMM_TARGETS):
            return "gemm"
        seen = self._opcodes(inst, set(), set())
        for opcode, family in (("convolution", "conv_custom"), ("dot", "gemm"), ("reduce", "reduction"),
                               ("reduce-window", "pooling"), ("sort", "other"), ("scatter", "other")):
            if opcode in seen:
                return family
        return "elementwise"

    def _opcodes(self, inst, visited: set, seen: set) -> set:
        """The opcodes of ``inst`` and of its fused bodies, each computation
        walked once (a module whose computations call each other ends)."""
        seen.add(inst.opcode)
        stack = [inst]
        while stack:
            current = stack.pop()
            seen.add(current.opcode)
            if current.opcode != "fusion":
                continue
            for cid in current.called_computation_ids:
                if cid not in visited and cid in self.computations:
                    visited.add(cid)
                    stack.extend(self.computations[cid].instructions)
        return seen

    def operands(self, inst) -> list:
        if len(inst.operand_ids) > MAX_OPERANDS:
            raise ValueError(f"{len(inst.operand_ids):,} operands")
        return [self.by_id[i] for i in inst.operand_ids if i in self.by_id]

    def instruction(self, inst) -> HloCost:
        """The cost of a kernel-level (not fused) instruction."""
        try:
            cost = self._instruction(inst)
            if cost.unmodelled:
                return cost
            # no FLOPs is what XLA counts for data movement: a known zero, not a missing count
            flops = cost.flops or {precision(first_array(inst.shape)): 0.0}
            return replace(cost, flops=flops, family=self.family(inst))
        except (ValueError, OverflowError, IndexError, RecursionError, ZeroDivisionError) as exc:
            return HloCost(unmodelled=f"{inst.opcode}: a shape that is no real tensor ({str(exc)[:120]})")

    def _instruction(self, inst) -> HloCost:
        op = inst.opcode
        if op in FREE:
            return HloCost(unmodelled=f"{op}: no kernel of its own")
        if op in COLLECTIVES or op.endswith("-done"):
            return HloCost(unmodelled=f"{op}: a collective (its bytes cross links; not modelled from the HLO)")
        if op in ("while", "conditional", "call", "async-start", "async-done", "infeed", "outfeed"):
            return HloCost(unmodelled=f"{op}: control flow (its kernels are its body's instructions)")
        operands = self.operands(inst)
        if len(operands) != len(inst.operand_ids):
            return HloCost(unmodelled=f"{op}: an operand is missing from the module")
        if op == "fusion":
            return self._fusion(inst, operands)
        if op == "custom-call":
            return self._custom_call(inst, operands)
        flops, trans, matrix = self.flops_of(inst, 0)
        if flops is None:
            return HloCost(unmodelled=trans)
        return HloCost(flops, _moved_bytes(inst, operands), trans, matrix)

    def flops_of(self, inst, depth: int):
        """(FLOP per precision, transcendentals, matrix) of one execution,
        or (None, why, False) when the opcode has no model."""
        op = inst.opcode
        if depth > MAX_DEPTH:
            return None, "called computations nested too deep", False
        out = inst.shape
        if op in ELEMENTWISE:
            operands = self.operands(inst) if op == "compare" else ()
            kind = precision(operands[0].shape) if operands else precision(out)      # pred out, float work
            return {kind: float(elements(out))}, 0.0, False
        if op in TRANSCENDENTAL:
            return {}, float(elements(out)), False
        if op in MOVEMENT or op in FREE:
            elements(out)                   # a damaged shape is said, even of a copy
            return {}, 0.0, False
        if op == "dot":
            return self._dot(inst)
        if op == "convolution":
            return conv_flops(inst, *self._conv_shapes(inst, "__forward"), _matrix_key)
        if op == "fusion":
            return self._called_flops(inst, depth, lambda f: f)
        operands = self.operands(inst)
        if op == "sort" and operands:
            n = elements(operands[0].shape)
            return {precision(operands[0].shape): float(n * max(n - 1, 0).bit_length())}, 0.0, False
        if op == "reduce" and operands:     # XLA: the first input and first output; the reducer does the rest
            count = elements(operands[0].shape) - elements(first_array(out))
            return self._called_flops(inst, depth, lambda f: f * max(count, 0))
        if op == "reduce-window" and operands:
            count = _reduce_window_count(inst, operands[0].shape, first_array(out))
            return self._called_flops(inst, depth, lambda f: f * count)
        if op == "map":
            return self._called_flops(inst, depth, lambda f: f * elements(out))
        if op == "scatter" and len(operands) >= 3:
            return self._called_flops(inst, depth, lambda f: f * elements(operands[-1].shape), first=1)
        if op == "select-and-scatter" and len(operands) >= 2:
            return self._select_and_scatter(inst, operands[1].shape, depth)
        if op == "custom-call":
            cost = self._custom_call(inst, self.operands(inst))
            return (cost.flops, cost.transcendentals, cost.matrix) if not cost.unmodelled else (None, cost.unmodelled,
                                                                                                 False)
        return None, f"{op}: no cost model for this opcode", False

    def _called_flops(self, inst, depth: int, scale, first: int | None = None):
        """The FLOPs of the computations ``inst`` calls (the first ``first``
        of them, else all), each scaled by ``scale``."""
        total: dict[str, float] = {}
        trans, matrix = 0.0, False
        called = list(inst.called_computation_ids[:MAX_OPERANDS])
        for cid in called[:first] if first else called:
            flops, t, m = self._body(cid, depth + 1)
            if flops is None:
                return None, t, False
            for k, v in flops.items():
                total[k] = total.get(k, 0.0) + scale(v)
            trans += scale(t)
            matrix |= m
        return total, trans, matrix

    def _select_and_scatter(self, inst, source, depth: int):
        """XLA's count: source x (window - 1) runs of the select computation
        and source runs of the scatter computation."""
        window = math.prod(d.size for d in inst.window.dimensions) if inst.window.dimensions else 1
        if window > MAX_ELEMENTS or len(inst.called_computation_ids) < 2:
            return None, "select-and-scatter: no select and scatter computations, or a window of no tensor", False
        n = elements(source)
        total: dict[str, float] = {}
        trans = 0.0
        for cid, times in zip(inst.called_computation_ids[:2], (n * max(window - 1, 0), n)):
            flops, t, _ = self._body(cid, depth + 1)
            if flops is None:
                return None, t, False
            for k, v in flops.items():
                total[k] = total.get(k, 0.0) + v * times
            trans += t * times
        return total, trans, False

    def _body(self, cid: int, depth: int):
        """FLOP per precision, transcendentals and matrix of one run of computation ``cid``."""
        if cid in self._body_flops:
            return self._body_flops[cid]
        comp = self.computations.get(cid)
        if comp is None:
            return None, f"called computation {cid} is missing from the module", False
        self._body_flops[cid] = (None, "a computation that calls itself", False)
        total: dict[str, float] = {}
        trans, matrix, found = 0.0, False, None
        for inst in comp.instructions:
            flops, t, m = self.flops_of(inst, depth)
            if flops is None:
                found = (None, t, False)      # said once, however deep it was found
                break
            for k, v in flops.items():
                total[k] = total.get(k, 0.0) + v
            trans += t
            matrix |= m
        self._body_flops[cid] = found or (total, trans, matrix)
        return self._body_flops[cid]

    def _fusion(self, inst, operands) -> HloCost:
        flops, trans, matrix = self._called_flops(inst, 0, lambda f: f)
        if flops is None:
            return HloCost(unmodelled=f"fusion: in its body, {trans}")
        read = sum(self._read_bytes(inst, i, o) for i, o in enumerate(operands))
        return HloCost(flops, read + self._written_bytes(inst), trans, matrix)

    def _body_of(self, fusion):
        cids = fusion.called_computation_ids
        return self.computations.get(cids[0]) if len(cids) else None

    def _parameters(self, comp) -> tuple[dict, dict]:
        """(parameter by number, users by instruction id) of one fused body, built once."""
        found = self._params.get(comp.id)
        if found is None:
            params, users = {}, {}
            for i in comp.instructions:
                if i.opcode == "parameter":
                    params.setdefault(i.parameter_number, i)
                for op in i.operand_ids[:MAX_OPERANDS]:
                    users.setdefault(op, []).append(i)
            found = self._params[comp.id] = (params, users)
        return found

    def _read_bytes(self, fusion, index: int, operand) -> float:
        """Bytes a fusion reads of its operand ``index``: all of it once, or
        the slices taken of it when its parameter is only sliced in the body,
        nothing when it is only the buffer a dynamic-update-slice writes
        into in place (XLA's FusionParameterReadBytes, each byte once)."""
        full = size_bytes(operand.shape)
        comp = self._body_of(fusion)
        if comp is None:
            return full
        params, users = self._parameters(comp)
        param = params.get(index)
        if param is None or not users.get(param.id):
            return full
        part = 0.0
        for u in users[param.id]:
            first = len(u.operand_ids) and u.operand_ids[0] == param.id
            if u.opcode == "dynamic-update-slice" and first and list(u.operand_ids).count(param.id) == 1:
                continue                    # the buffer updated in place: not read
            if u.opcode in _SLICING and first:
                part += size_bytes(u.shape)
            else:
                return full
        return min(full, part)

    def _written_bytes(self, fusion) -> float:
        """The fusion's result, or only the updates of the dynamic-update-slices
        that are its root (or its root tuple's elements): written in place."""
        comp = self._body_of(fusion)
        root = self.by_id.get(comp.root_id) if comp is not None else None
        if root is None:
            return size_bytes(fusion.shape)
        leaves = self.operands(root) if root.opcode == "tuple" else [root]
        if not any(leaf.opcode == "dynamic-update-slice" for leaf in leaves):
            return size_bytes(fusion.shape)
        total = 0.0
        for leaf in leaves:
            update = self.operands(leaf)[1:2] if leaf.opcode == "dynamic-update-slice" else []
            total += size_bytes(update[0].shape) if update else size_bytes(leaf.shape)
        return total

    def _dot(self, inst):
        operands = self.operands(inst)
        if len(operands) < 2:
            return None, "dot: an operand is missing", False
        dn = inst.dot_dimension_numbers
        k = _contracted(operands[0].shape, operands[1].shape, list(dn.lhs_contracting_dimensions),
                        list(dn.rhs_contracting_dimensions), list(dn.lhs_batch_dimensions), first_array(inst.shape))
        if isinstance(k, str):
            return None, f"dot: {k}", False
        key = _matrix_key(precision(operands[0].shape))
        return {key: 2.0 * elements(first_array(inst.shape)) * k}, 0.0, True

    def _custom_call(self, inst, operands) -> HloCost:
        target = inst.custom_call_target
        out = first_array(inst.shape)
        shown = ascii(target[:80])            # a target is text from the file: escaped, bounded
        if target.startswith(CONV_TARGETS):
            flops, trans, matrix = conv_flops(inst, *self._conv_shapes(inst, target), _matrix_key)
            if flops is None:
                return HloCost(unmodelled=f"{shown}: {trans}")
            moved = sum(size_bytes(o.shape) for o in operands) + size_bytes(out)
            return HloCost(flops, moved, trans, matrix)
        if target.startswith(GEMM_TARGETS):
            return self._gemm(inst, operands, out, shown)
        if "triton" in target.lower():
            return HloCost(unmodelled=f"{shown}: a Triton kernel compiled from source the HLO does not hold")
        return HloCost(unmodelled=f"custom call {shown}: no cost model for this target")

    def _gemm(self, inst, operands, out, shown) -> HloCost:
        if len(operands) < 2:
            return HloCost(unmodelled=f"{shown}: fewer than two operands")
        lhs, rhs = operands[0].shape, operands[1].shape
        dims = _gemm_dims(inst.backend_config)
        if dims is None:
            if len(lhs.dimensions) != 2 or len(rhs.dimensions) != 2:
                return HloCost(unmodelled=f"{shown}: its backend config gives no dot dimension numbers")
            dims = ([1], [0], [])                   # a plain 2-D GEMM: A[M,K] x B[K,N]
        k = _contracted(lhs, rhs, *dims, out)
        if isinstance(k, str):
            return HloCost(unmodelled=f"{shown}: {k}")
        # the operands past A and B are a bias/scale (read once); the result's workspace is not traffic
        moved = sum(size_bytes(o.shape) for o in operands) + size_bytes(out)
        return HloCost({_matrix_key(precision(lhs)): 2.0 * elements(out) * k}, moved, 0.0, True)

    def _conv_shapes(self, inst, target: str):
        """(input, kernel, output) shapes of the forward convolution ``inst``
        computes or is a gradient of."""
        operands = self.operands(inst)
        if len(operands) < 2:
            return None, None, None
        result = first_array(inst.shape)
        if "BackwardInput" in target:           # dy, w -> dx
            return result, operands[1].shape, operands[0].shape
        if "BackwardFilter" in target:          # x, dy -> dw
            return operands[0].shape, result, operands[1].shape
        return operands[0].shape, operands[1].shape, result


def _contracted(lhs, rhs, lhs_dims: list, rhs_dims: list, batch_dims: list, out) -> int | str:
    """The product of a dot's contracting dimensions (XLA: of the lhs), or
    why the shapes are no dot's: dimensions outside the operand or named
    twice, sizes the rhs does not share, a result that is not the product
    of the operands' free dimensions (a damaged module must not give a count)."""
    n_lhs, n_rhs = elements(lhs), elements(rhs)
    if len(lhs_dims) != len(rhs_dims) or len(set(lhs_dims)) != len(lhs_dims) or len(set(rhs_dims)) != len(rhs_dims):
        return "contracting dimensions named twice or unpaired"
    if any(not 0 <= d < len(lhs.dimensions) for d in lhs_dims + batch_dims) or any(
            not 0 <= d < len(rhs.dimensions) for d in rhs_dims):
        return "a contracting or batch dimension outside its operand"
    k = math.prod(lhs.dimensions[d] for d in lhs_dims)
    if [lhs.dimensions[d] for d in lhs_dims] != [rhs.dimensions[d] for d in rhs_dims]:
        return "contracting dimensions of different sizes"
    batch = math.prod(lhs.dimensions[d] for d in batch_dims)
    if k and batch and n_lhs // k * (n_rhs // k) // batch != elements(out):
        return "a result that is not the product of its operands' shapes"
    return k


def _moved_bytes(inst, operands) -> float:
    """Compulsory bytes of an instruction that is its own kernel: operands
    read and result written once; what XLA counts for slicing and in-place
    updates (they touch only the slice or update)."""
    op, out = inst.opcode, size_bytes(inst.shape)
    indices = sum(size_bytes(o.shape) for o in operands[1:])
    if op in ("slice", "dynamic-slice"):
        return 2 * out + (indices if op == "dynamic-slice" else 0.0)
    if op == "gather":
        return 2 * out + indices
    if op == "dynamic-update-slice" and len(operands) >= 2:
        return 2 * size_bytes(operands[1].shape) + sum(size_bytes(o.shape) for o in operands[2:])
    if op == "scatter" and len(operands) >= 3:
        n = (len(operands) - 1) // 2
        updates = sum(size_bytes(o.shape) for o in operands[n + 1:])
        return 3 * updates + size_bytes(operands[n].shape)
    return sum(size_bytes(o.shape) for o in operands) + out


def _reduce_window_count(inst, operand, out) -> int:
    """Runs of the reducer of a reduce-window: output x (window - 1), or,
    for XLA's reduce-then-broadcast pattern (one padded dimension of window
    2p + 1 with p = its size - 1), output / n + n - 1."""
    dims = list(inst.window.dimensions)
    if len(dims) != len(operand.dimensions):
        raise ValueError("a window of another rank than its operand")
    for d, size in zip(dims, operand.dimensions):
        if not 1 <= d.size <= max(size, 1) + abs(d.padding_low) + abs(d.padding_high):
            raise ValueError(f"a window of {d.size} over a dimension of {size}")
    window = math.prod(d.size for d in dims)
    n_out = elements(out)
    reduced = [i for i, d in enumerate(dims) if d.size != 1]
    padded = [d for d in dims if d.padding_low or d.padding_high]
    if len(reduced) == 1 and len(padded) == 1 and inst.shape.element_type == out.element_type:
        d = dims[reduced[0]]
        if (d.padding_low == d.padding_high and d.size == 2 * d.padding_low + 1
                and d.padding_low == out.dimensions[reduced[0]] - 1):
            n = out.dimensions[reduced[0]]
            return n_out // n + n - 1
    return n_out * max(window - 1, 0)


def _gemm_dims(config: bytes):
    """(lhs contracting, rhs contracting, lhs batch) dimensions of a GEMM
    custom call's backend config, or None."""
    if not config or len(config) > 1 << 20:
        return None
    try:
        data = json.loads(config.decode("utf-8", "replace"))
        numbers = (data.get("gemm_backend_config", data)).get("dot_dimension_numbers", {})
        dims = [[int(d) for d in numbers.get(k, [])] for k in
                ("lhs_contracting_dimensions", "rhs_contracting_dimensions", "lhs_batch_dimensions")]
    except (ValueError, AttributeError, TypeError, RecursionError):     # JSON nested past the stack too
        return None
    return dims if dims[0] else None
