"""FLOPs and bytes of one HLO instruction, counted as XLA's own cost
analysis (``HloCostAnalysis``) counts them, from the module a profile
embeds (:mod:`.xla_hlo_schema`).

- **dot**: 2 x output elements x the product of the contracting
  dimensions (batch dimensions are in the output).
- **convolution** (and the cuDNN/MIOpen custom calls ``__cudnn$conv*``,
  which carry the same window and dimension numbers): 2 multiply-adds'
  FLOPs for every (output, kernel tap) pair that lands on an input element:
  per spatial dimension the pairs are counted with the window's stride,
  padding, window dilation and base dilation (padding taps are not work),
  times batch x output features x input features / ``feature_group_count``.
  The backward passes are counted from the forward convolution they are
  the gradient of (same multiply-adds).
- **GEMM custom calls** (``__cublas$gemm``, ``__cublas$lt$matmul*``,
  hipBLASLt/rocBLAS ``__cublas$...`` on ROCm): as a dot, with the dimension
  numbers of the ``gemm_backend_config`` in the backend config (JSON).
- **element-wise**: 1 FLOP per output element; transcendental ops (exp,
  log, tanh, sqrt, rsqrt, power, sine ...) are counted apart, as XLA does,
  and not as FLOPs.
- **reduce**: (input - output elements) x the FLOPs of the reducer per
  input; **reduce-window**: output elements x (window - 1) x the reducer's;
  **map**, **scatter** (updates), **select-and-scatter**: likewise.
- **fusion**: the FLOPs of its fused body; bytes are its operands read
  once (a parameter only sliced inside is read at the slices' size) and its
  result written once.
- data movement (copy, transpose, broadcast, concatenate, pad, slice,
  gather, dynamic-(update-)slice, reverse, iota, sort): no FLOPs, operands
  and result as bytes.

Bytes are compulsory bytes (each operand read once, the result written
once, the workspace of a library call left out): a lower bound on DRAM
traffic. FLOPs carry the precision of the element type: dot and
convolution on the matrix units of their operands' type
(``tensor_bf16``...), the rest on the vector units of their result's.
What is not modelled says why (:attr:`HloCost.unmodelled`).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace

from ..ops.call import tensor_core_key
from .xla_hlo_schema import OPAQUE, PRIMITIVE_TYPES, TOKEN, TUPLE

ELEMENTWISE = frozenset({
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder", "and", "or", "xor", "not",
    "negate", "abs", "sign", "compare", "select", "clamp", "convert", "floor", "ceil", "round-nearest-afz",
    "round-nearest-even", "is-finite", "shift-left", "shift-right-arithmetic", "shift-right-logical",
    "popcnt", "count-leading-zeros", "real", "imag", "complex", "stochastic-convert", "reduce-precision"})
TRANSCENDENTAL = frozenset({"exponential", "exponential-minus-one", "log", "log-plus-one", "tanh", "logistic",
                            "sqrt", "rsqrt", "cbrt", "sine", "cosine", "tan", "power", "atan2", "erf"})
MOVEMENT = frozenset({"copy", "transpose", "broadcast", "concatenate", "pad", "slice", "dynamic-slice",
                      "dynamic-update-slice", "gather", "reverse", "iota", "sort", "copy-start", "rng",
                      "rng-bit-generator", "bitcast-convert"})
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
MAX_WINDOW_PAIRS = 1 << 20      # (output, tap) pairs counted one by one per spatial dimension
MAX_TAPS = 1 << 16              # kernel taps of one spatial dimension counted one by one
MAX_ELEMENTS = 1 << 62          # an array of more elements is a damaged shape


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


def element_bits(shape) -> int:
    return PRIMITIVE_TYPES.get(shape.element_type, (0, "", ""))[0]


def type_name(shape) -> str:
    return PRIMITIVE_TYPES.get(shape.element_type, (0, "", f"type {shape.element_type}"))[2]


def precision(shape) -> str:
    """The precision key of an array's element type ('int32' for integers)."""
    found = PRIMITIVE_TYPES.get(shape.element_type)
    return (found[1] or "int32") if found else "fp32"


def elements(shape) -> int:
    """Elements of an array shape (1 for a scalar); the sum over a tuple's leaves."""
    if shape.element_type == TUPLE:
        return sum(elements(s) for s in shape.tuple_shapes)
    if shape.element_type in (TOKEN, OPAQUE):
        return 0
    n = math.prod(shape.dimensions)
    if n > MAX_ELEMENTS or any(d < 0 for d in shape.dimensions):
        raise ValueError(f"an array of {type_name(shape)}[{','.join(map(str, shape.dimensions[:8]))}]")
    return n


def size_bytes(shape) -> float:
    """Bytes of a shape (a tuple's leaves summed; sub-byte types packed)."""
    if shape.element_type == TUPLE:
        return sum(size_bytes(s) for s in shape.tuple_shapes)
    return float(math.ceil(elements(shape) * element_bits(shape) / 8))


def first_array(shape):
    """A custom call's result: its tuple's first element (the rest is workspace)."""
    while shape.element_type == TUPLE and len(shape.tuple_shapes):
        shape = shape.tuple_shapes[0]
    return shape


class ModuleCosts:
    """The instructions of one HLO module, and their costs on demand."""

    def __init__(self, module):
        self.module = module
        self.computations = {c.id: c for c in module.computations}
        self.by_id: dict[int, object] = {}
        self.by_name: dict[str, object] = {}
        self.users: dict[int, list] = {}
        for comp in module.computations:
            for inst in comp.instructions:
                self.by_id[inst.id] = inst
                self.by_name.setdefault(inst.name, inst)
                for op in inst.operand_ids:
                    self.users.setdefault(op, []).append(inst)
        self._body_flops: dict[int, tuple] = {}

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
        except (ValueError, OverflowError, IndexError, RecursionError) as exc:
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
        moved = sum(size_bytes(o.shape) for o in operands)
        if op == "fusion":
            return self._fusion(inst, operands)
        if op == "custom-call":
            return self._custom_call(inst, operands)
        flops, trans, matrix = self.flops_of(inst, 0)
        if flops is None:
            return HloCost(unmodelled=trans)
        return HloCost(flops, moved + size_bytes(inst.shape), trans, matrix)

    def flops_of(self, inst, depth: int):
        """(FLOP per precision, transcendentals, matrix) of one execution,
        or (None, why, False) when the opcode has no model."""
        op = inst.opcode
        if depth > MAX_DEPTH:
            return None, "called computations nested too deep", False
        out = inst.shape
        if op in ELEMENTWISE:
            return {precision(out): float(elements(out))}, 0.0, False
        if op in TRANSCENDENTAL:
            return {}, float(elements(out)), False
        if op in MOVEMENT or op in FREE:
            return {}, 0.0, False
        if op == "dot":
            return self._dot(inst)
        if op == "convolution":
            return _conv_flops(inst, *self._conv_shapes(inst, "__forward"))
        if op == "fusion":
            return self._called_flops(inst, depth, lambda f: f)
        operands = self.operands(inst)
        if op in ("reduce", "all-reduce", "reduce-scatter") and operands:
            inputs = operands[:max(1, len(operands) // 2)] if op == "reduce" else operands
            count = sum(elements(i.shape) for i in inputs) - elements(out)
            return self._called_flops(inst, depth, lambda f: f * max(count, 0))
        if op == "reduce-window" and operands:
            window = math.prod(d.size for d in inst.window.dimensions) if inst.window.dimensions else 1
            return self._called_flops(inst, depth, lambda f: f * elements(out) * max(window - 1, 0))
        if op == "map":
            return self._called_flops(inst, depth, lambda f: f * elements(out))
        if op == "scatter" and len(operands) >= 3:
            return self._called_flops(inst, depth, lambda f: f * elements(operands[-1].shape))
        if op == "select-and-scatter" and len(operands) >= 2:
            window = math.prod(d.size for d in inst.window.dimensions) if inst.window.dimensions else 1
            return {precision(out): float(elements(operands[1].shape) * window)}, 0.0, False
        if op == "custom-call":
            cost = self._custom_call(inst, operands)
            return (cost.flops, cost.transcendentals, cost.matrix) if not cost.unmodelled else (None, cost.unmodelled,
                                                                                                 False)
        return None, f"{op}: no cost model for this opcode", False

    def _called_flops(self, inst, depth: int, scale):
        """The FLOPs of the computations ``inst`` calls, each scaled by ``scale``."""
        total: dict[str, float] = {}
        trans, matrix = 0.0, False
        for cid in inst.called_computation_ids:
            flops, t, m = self._body(cid, depth + 1)
            if flops is None:
                return None, t, False
            for k, v in flops.items():
                total[k] = total.get(k, 0.0) + scale(v)
            trans += scale(t)
            matrix |= m
        return total, trans, matrix

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
                found = (None, f"its body's {t}", False)
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
            return HloCost(unmodelled=f"fusion {trans}")
        read = sum(self._read_bytes(inst, i, o) for i, o in enumerate(operands))
        return HloCost(flops, read + size_bytes(inst.shape), trans, matrix)

    def _read_bytes(self, fusion, index: int, operand) -> float:
        """Bytes a fusion reads of its operand ``index``: all of it, or only the
        slices taken of it when its parameter is only sliced in the body."""
        full = size_bytes(operand.shape)
        for cid in fusion.called_computation_ids[:1]:
            comp = self.computations.get(cid)
            param = next((i for i in comp.instructions if i.opcode == "parameter" and i.parameter_number == index),
                         None) if comp is not None else None
            users = self.users.get(param.id, []) if param is not None else []
            if users and all(u.opcode in _SLICING and u.operand_ids[0] == param.id for u in users):
                return min(full, sum(size_bytes(u.shape) for u in users))
        return full

    def _dot(self, inst):
        operands = self.operands(inst)
        if len(operands) < 2:
            return None, "dot: an operand is missing", False
        lhs = operands[0].shape
        dims = list(inst.dot_dimension_numbers.lhs_contracting_dimensions)
        if any(not 0 <= d < len(lhs.dimensions) for d in dims):
            return None, "dot: a contracting dimension outside its operand", False
        k = math.prod(lhs.dimensions[d] for d in dims)
        out = first_array(inst.shape)
        key = tensor_core_key(precision(lhs), True)
        return {key: 2.0 * elements(out) * k}, 0.0, True

    def _custom_call(self, inst, operands) -> HloCost:
        target = inst.custom_call_target
        out = first_array(inst.shape)
        if target.startswith(CONV_TARGETS):
            shapes = self._conv_shapes(inst, target)
            flops, trans, matrix = _conv_flops(inst, *shapes)
            if flops is None:
                return HloCost(unmodelled=f"{target}: {trans}")
            moved = sum(size_bytes(o.shape) for o in operands) + size_bytes(out)
            return HloCost(flops, moved, trans, matrix)
        if target.startswith(GEMM_TARGETS):
            return self._gemm(inst, operands, out, target)
        if "triton" in target.lower():
            return HloCost(unmodelled=f"{target}: a Triton kernel compiled from source the HLO does not hold")
        return HloCost(unmodelled=f"custom call {target[:80]}: no cost model for this target")

    def _gemm(self, inst, operands, out, target) -> HloCost:
        dims = _gemm_dims(inst.backend_config)
        if len(operands) < 2:
            return HloCost(unmodelled=f"{target}: fewer than two operands")
        lhs = operands[0].shape
        if dims is None:
            if len(lhs.dimensions) != 2:
                return HloCost(unmodelled=f"{target}: its backend config gives no dot dimension numbers")
            dims = [1]                      # a plain 2-D GEMM: A[M,K] x B[K,N]
        if any(not 0 <= d < len(lhs.dimensions) for d in dims):
            return HloCost(unmodelled=f"{target}: a contracting dimension outside its operand")
        k = math.prod(lhs.dimensions[d] for d in dims)
        # the operands past A and B are a bias/scale (read once); the result's workspace is not traffic
        moved = sum(size_bytes(o.shape) for o in operands) + size_bytes(out)
        return HloCost({tensor_core_key(precision(lhs), True): 2.0 * elements(out) * k}, moved, 0.0, True)

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


def _gemm_dims(config: bytes) -> list[int] | None:
    """The lhs contracting dimensions of a GEMM custom call's backend config."""
    if not config or len(config) > 1 << 20:
        return None
    try:
        data = json.loads(config.decode("utf-8", "replace"))
        numbers = (data.get("gemm_backend_config", data)).get("dot_dimension_numbers", {})
        dims = [int(d) for d in numbers.get("lhs_contracting_dimensions", [])]
    except (ValueError, AttributeError, TypeError):
        return None
    return dims or None


def _conv_flops(inst, x, w, y):
    """(FLOP per precision, 0, True) of a convolution of input ``x``, kernel
    ``w`` and output ``y``, or (None, why, False)."""
    if x is None:
        return None, "convolution: an operand is missing", False
    dn = inst.convolution_dimension_numbers
    window = list(inst.window.dimensions)
    spatial = list(dn.input_spatial_dimensions)
    out_spatial = list(dn.output_spatial_dimensions)
    if len(window) != len(spatial) or len(out_spatial) != len(spatial) or len(dn.kernel_spatial_dimensions) != len(
            spatial):
        return None, "convolution: window and dimension numbers disagree", False
    try:
        in_features = x.dimensions[dn.input_feature_dimension]
        batch = y.dimensions[dn.output_batch_dimension]
        out_features = y.dimensions[dn.output_feature_dimension]
        pairs = 1
        for d, win in enumerate(window):
            pairs *= _valid_pairs(x.dimensions[spatial[d]], y.dimensions[out_spatial[d]], win)
    except IndexError:
        return None, "convolution: a dimension number outside its shape", False
    groups = max(1, inst.feature_group_count or 1)
    macs = batch * out_features * (in_features // groups) * pairs
    return {tensor_core_key(precision(x), True): 2.0 * macs}, 0.0, True


def _valid_pairs(size_in: int, size_out: int, win) -> int:
    """(output position, kernel tap) pairs of one spatial dimension whose
    input position is a real element (not padding, not a base-dilation hole)."""
    taps = max(win.size, 1)
    stride, w_dil, b_dil = max(win.stride, 1), max(win.window_dilation, 1), max(win.base_dilation, 1)
    dilated = (size_in - 1) * b_dil + 1 if size_in > 0 else 0
    if b_dil == 1 and taps <= MAX_TAPS:
        count = 0
        for k in range(taps):       # outputs o with 0 <= o*stride + k*w_dil - pad < size_in
            shift = k * w_dil - win.padding_low
            first = max(0, _ceil_div(-shift, stride))
            last = min(size_out - 1, (size_in - 1 - shift) // stride)
            count += max(0, last - first + 1)
        return count
    if size_out * taps > MAX_WINDOW_PAIRS:      # too many to count: all taps (an upper bound)
        return size_out * taps
    count = 0
    for o in range(size_out):
        start = o * stride - win.padding_low
        for k in range(taps):
            i = start + k * w_dil
            if 0 <= i < dilated and i % b_dil == 0:
                count += 1
    return count


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)
