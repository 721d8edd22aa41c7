"""Why a kernel of a Kineto trace got no work (``Kernel.why``), from its
launch (docs/pytorch.md, "Kernels without work"):

* no runtime call of the trace has its correlation id, and the id is
  below the first one the trace holds: it was **launched before the
  profiler's CPU window** (the GPU buffer was flushed, the CPU side was not
  recorded yet);
* otherwise, no operator encloses its launch: **no launching operator**;
  where that launch replayed a CUDA/HIP graph whose capture the trace
  does not hold (:mod:`.replay`): **replayed from a CUDA graph**;
* a communication kernel without a size (or of 0 elements, or one rank):
  its collective's reason (:mod:`.comms`);
* its operator, or one around it, is a **compiled graph**
  (``CompiledFunction``, ``CompiledFunctionBackward``, ``Torch-Compiled
  Region``) and has no shapes: nothing in the trace sizes the kernel;
* the trace recorded no shapes at all, or not for this operator: **no
  shapes recorded**;
* an ATen operator with a model but no dtypes in the trace (PyTorch
  before 1.10 wrote ``Input dims`` and an empty ``Input type``): **no dtypes
  recorded**;
* an ATen operator with a model whose work went to another kernel it
  launched: a **helper** (bias copy, layout transform); one whose model
  says the trace lacks shapes it needs (tensor lists recorded ``[]``:
  ``roofline.ops.unknown_reason``, whose text the CPU row carries in
  ``assumed``): **no shapes recorded**; one without a model (or whose
  arguments its model cannot read): **no model for the operator**;
* an operator of another namespace (``_C::rms_norm``, ``vllm::``,
  ``fbgemm::``, ``trtllm::``): a **custom extension kernel**.
"""
from __future__ import annotations

import math

import numpy as np

from ...core import reasons as R
from ...core.errors import Advice
from ...core.families import COPIES
from ...ops import has_model
from .operators import is_autograd, unknown_text

COMPILED_GRAPHS = ("CompiledFunction", "CompiledFunctionBackward", "Torch-Compiled Region",
                   "## Call CompiledFxGraph")
_FRAMEWORK = ("aten::", "autograd::", "torch::autograd", "c10d::", "record_param_comms", "nccl:", "cudnn::")


class WhyOf:
    """``why(j)``: the reason launch ``j`` got no work (computed once per
    operator)."""

    def __init__(self, gpu, ops, tree, parent: np.ndarray, op_of: np.ndarray, comms, replays=None):
        self.gpu, self.ops, self.tree, self.op_of, self.comms = gpu, ops, tree, op_of, comms
        self.parent = parent              # the operators' nesting (.nesting)
        self.replays = replays            # bool per launch: replayed from a CUDA/HIP graph (.replay)
        self._by_op: dict[int, str] = {}
        self._unknown: dict[tuple, str | None] = {}
        self._first_corr = None

    def __call__(self, j: int) -> str:
        o = int(self.op_of[j]) if len(self.op_of) else -1
        if o < 0 and self._before_window(j):
            return R.BEFORE_WINDOW
        if j in self.comms.why:
            return self.comms.why[j]
        why = R.NO_OPERATOR if o < 0 else self._by_op.get(o)
        if why is None:
            why = self._by_op[o] = self.operator_reason(o)
        if why in (R.NO_OPERATOR, R.COMPILED) and self.replays is not None and self.replays[j]:
            return R.GRAPH_REPLAY        # its launch is in the graph's capture, not beside it
        return why

    def _before_window(self, j: int) -> bool:
        if self._first_corr is None:
            self._first_corr = first_runtime_correlation(self.gpu)
        return before_window(self.gpu.kernel_corr[j], self._first_corr)

    def operator_reason(self, o: int) -> str:
        """Why operator ``o``'s kernels (or, on a CPU trace, its own time) got no work."""
        ops = self.ops
        name = ops.names[o]
        shapes = ops.call[o] >= 0
        if not shapes and self._in_compiled_graph(o):
            return R.COMPILED
        if name.startswith(COMPILED_GRAPHS):
            return R.COMPILED
        if not ops.has_shapes:
            return R.NO_SHAPES
        custom = "::" in name and not name.startswith(("aten::", "triton_")) and has_model(name)
        if custom:                       # a serving library's operator with a model (roofline.ops.serving)
            if not shapes:
                return R.NO_SHAPES
            work = self.tree.work[o] if self.tree is not None else None
            if work is None and self.unknown_text(o):
                return R.ARGS_NOT_RECORDED
            return R.HELPER if work is not None else R.NO_MODEL
        if name.startswith("aten::") or name.startswith("triton_"):
            if not shapes:
                return R.NO_SHAPES
            work = self.tree.work[o] if self.tree is not None else None
            if work is None and has_model(name) and not _types(ops.decoded(ops.call[o])[1]):
                return R.NO_DTYPES       # 2021 traces: Input dims without Input type
            if work is None and has_model(name) and self.unknown_text(o):
                return R.LIST_SHAPES     # shapes the model needs are not recorded (tensor lists as [])
            return R.HELPER if work is not None and has_model(name) else R.NO_MODEL
        if "::" in name and not name.startswith(_FRAMEWORK) and not is_autograd(name):
            return R.EXTENSION
        return R.NO_MODEL

    def unknown_text(self, o: int) -> str | None:
        """The model's own words on why it cannot size operator ``o``
        (``roofline.ops.unknown_reason``), once per distinct call; None
        when it has none."""
        key = (self.ops.names[o], self.ops.call[o])
        if key not in self._unknown:
            self._unknown[key] = unknown_text(self.ops, o)
        return self._unknown[key]

    def _in_compiled_graph(self, o: int) -> bool:
        parent = self.parent
        while o >= 0:
            if self.ops.names[o].startswith(COMPILED_GRAPHS):
                return True
            o = int(parent[o])
        return False


def _types(types) -> bool:
    """Whether a call's ``Input type`` names a dtype of any argument."""
    return isinstance(types, list) and any(isinstance(t, str) and t.strip() for t in types)


def first_runtime_correlation(gpu) -> float:
    """The lowest correlation id of the trace's runtime calls (inf without any)."""
    ids = [c for c in map(_number, gpu.api_corr) if c is not None]
    return min(ids) if ids else math.inf


def before_window(corr, first: float) -> bool:
    """Whether a GPU event of correlation ``corr`` was launched before the
    profiler's CPU window: its id is below the first runtime call's."""
    number = _number(corr)
    return number is not None and number < first


def _number(x) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x)


def warn_unknown(kernels: list, warnings: list[Advice], what: str, listed: int = 5) -> None:
    """Unmodelled work by operator name and share of time: the next model to write."""
    total = sum(k.time_s for k in kernels if math.isfinite(k.time_s))
    if total <= 0:
        return
    unmodelled: dict[str, float] = {}
    helpers: dict[str, float] = {}
    for k in kernels:
        if not k.flops and not k.bytes and k.family not in COPIES:
            # as the row says why (.why): a helper launched beside the main
            # kernel of a modelled operator (bias copy, layout transform), or
            # an operator without a model; other reasons are no model's fault
            why = getattr(k, "why", "")
            if why == R.HELPER or (not why and k.operator and has_model(k.operator)):
                bucket = helpers
            elif why in ("", R.NO_MODEL, R.EXTENSION):
                bucket = unmodelled
            else:
                continue
            key = k.operator or "(no operator)"
            bucket[key] = bucket.get(key, 0.0) + (k.time_s if math.isfinite(k.time_s) else 0.0)
    if unmodelled:
        warnings.append(Advice(
            f"{sum(unmodelled.values()) / total:.1%} of {what} time has no operator model: "
            f"{_top(unmodelled, total, listed)}",
            "these stay unknown; docs/pytorch.md lists the operators modelled", subject="models"))
    if helpers:
        warnings.append(Advice(
            f"{sum(helpers.values()) / total:.1%} of {what} time is in kernels launched beside the "
            f"main kernel of a modelled operator, which takes its work: {_top(helpers, total, listed)}",
            "these stay unknown (bias copies, layout transforms: their work is not modelled)",
            subject="models"))


def _top(times: dict[str, float], total: float, listed: int) -> str:
    top = sorted(times.items(), key=lambda kv: -kv[1])
    shown = ", ".join(f"{name} {t / total:.1%}" for name, t in top[:listed])
    return shown + (f" and {len(top) - listed} more" if len(top) > listed else "")
