"""Sequence lengths of a serving step, for the attention operators in it.

The serving engines name each step with sums over its sequences, split by
phase (context: prefill or extend; generation: decode):

- vLLM's detailed worker range, also written by SGLang in these traces:
  ``execute_<T>_context_<R>(sq..sk..sqsq..sqsk..)_generation_<G>(sq..sk..sqsq..sqsk..)``;
- SGLang's ``step[EXTEND|DECODE|MIXED ... c_sq=.. c_sk=.. c_sqsq=.. c_sqsk=.. g_sq=..]``.

Per phase, over its sequences i with lq_i new query tokens and lk_i keys
(earlier context included): sq = sum lq_i, sk = sum lk_i, sqsq = sum lq_i^2,
sqsk = sum lq_i lk_i. This is how TraceLens reads them (AMD-AGI/TraceLens
171dd747, TraceLens/TraceUtils/annotation_utils.py and
TraceLens/PerfModel/extensions/attention_perf_model_extensions.py), and the
real traces agree: SGLang's extend of 15 sequences of 1024 tokens records
sq 15360, sqsq 15 x 1024^2 = 15728640; a decode of 32 requests sq 32,
sqsq 32, sqsk = sk.

An attention operator whose start lies in a step (or, for a graph's
captured operator, in the trace's only step) gets the sums of the phases
it serves written into its Concrete Inputs at
:data:`..ops.paged_attention.STEP_AT`, when its query tokens are the
phases' sq (else it keeps its own model: a padded graph batch, or a step
it does not belong to). Only numbers are read from the range names; no
string of the file reaches a note.
"""
from __future__ import annotations

import re

import numpy as np

from ...ops import op_work
from ...ops.call import OpCall
from ...ops.paged_attention import STEP_AT, STEP_NOTE
from .geometry import Settled, call_with

_SUMS = r"\(sq(\d+)sk(\d+)sqsq(\d+)sqsk(\d+)\)"
_VLLM = re.compile(r"^execute_(?:\d+_)?context_\d+" + _SUMS + r"_generation_\d+" + _SUMS + "$")
_SGLANG = re.compile(r"^step\[(?:EXTEND|PREFILL|DECODE|MIXED)\b([^\]]*)\]$")
_KEY = re.compile(r"\b([cg])_(sq|sk|sqsq|sqsk)=(\d+)\b")
_ORDER = ("sq", "sk", "sqsq", "sqsk")
# SGLang's capture threads (.capture) are named so
_CAPTURED = "capture "

# operator (or a pattern of its name) -> (position of its query [T, ...], phases it serves)
_BOTH, _CONTEXT, _GENERATION = (0, 1), (0,), (1,)
_OPERATORS = {
    "vllm::unified_attention": (0, _BOTH),
    "vllm::unified_attention_with_output": (0, _BOTH),
    "aiter::mha_batch_prefill": (0, _CONTEXT),
}
_RAGGED = re.compile(r"^sglang_profiler::attention_paged_attention_ragged(?:_\d+)?$")


def step_sums(name: str) -> tuple | None:
    """((sq, sk, sqsq, sqsk) of the context phase, of the generation
    phase) named by a serving step range, or None."""
    if m := _VLLM.match(name):
        v = tuple(int(x) for x in m.groups())
        return v[:4], v[4:]
    m = _SGLANG.match(name)
    if not m:
        return None
    found = {(p, k): int(v) for p, k, v in _KEY.findall(m.group(1))}
    if not found:
        return None
    return tuple(tuple(found.get((p, k), 0) for k in _ORDER) for p in "cg")


def _served(name: str) -> tuple | None:
    if name in _OPERATORS:
        return _OPERATORS[name]
    return (2, _GENERATION) if _RAGGED.match(name) else None


def _steps(ops) -> tuple:
    """(starts, ends, sums) of the annotated steps, in file order."""
    a = ops.annotations
    chosen = [(a.ts[i], a.dur[i], s) for i, name in enumerate(a.names)
              if (s := step_sums(str(name))) is not None]
    starts = np.array([c[0] for c in chosen], dtype=float)
    ends = starts + np.array([c[1] for c in chosen], dtype=float)
    return starts, ends, [c[2] for c in chosen]


def _step_of(ts: float, thread, starts, ends, one_step: bool) -> int:
    """The first step holding ``ts``; a captured operator (run at capture
    time, replayed later) the trace's only step (``one_step``: every range
    names the same sums, as SGLang's step[...] and execute_... of one step
    do); else -1."""
    inside = np.flatnonzero((starts <= ts) & (ts <= ends))
    if len(inside):
        return int(inside[0])
    return 0 if one_step and str(thread).startswith(_CAPTURED) else -1


def step_settled(ops, nesting=None) -> dict:
    """Per attention operator in an annotated step: its call with the
    step's sums of the phases it serves (module docstring). ``nesting``
    (:mod:`.nesting`), where found, lists the distinct names."""
    # names first: a trace can hold a million operators and a few distinct names
    names = set(ops.names) if nesting is None else nesting.names
    served = {name for name in names if _served(name) is not None}
    if not served:
        return {}
    starts, ends, sums = _steps(ops)
    if not len(starts):
        return {}
    targets = [o for o, name in enumerate(ops.names) if name in served and ops.call[o] >= 0]
    one_step = len(set(sums)) == 1
    out, cache = {}, {}
    for o in targets:
        k = _step_of(float(ops.ts[o]), ops.thread[o], starts, ends, one_step)
        if k < 0:
            continue
        query_at, phases = _served(ops.names[o])
        total = tuple(sum(sums[k][p][j] for p in phases) for j in range(4))
        decoded = ops.decoded(ops.call[o])
        dims, concrete = decoded[0], decoded[3]
        if not _query_tokens_match(dims, query_at, total[0]):
            continue
        values = [str(v) for v in concrete] if isinstance(concrete, list) else []
        values = values[:STEP_AT] + [""] * (STEP_AT - len(values)) + [str(v) for v in total]
        call = call_with(ops.names[o], decoded, values)
        if _sized_by_step(call, cache):
            out[o] = Settled(call, STEP_NOTE)
    return out


def _sized_by_step(call: OpCall, cache: dict) -> bool:
    """Whether the model used the sums (not, e.g., under a sliding window):
    only then may the row say so."""
    if call not in cache:
        w = op_work(call)
        cache[call] = w is not None and STEP_NOTE in w.assumptions
    return cache[call]


def _query_tokens_match(dims, at: int, sq: int) -> bool:
    """The operator's query holds the phases' sq tokens (a graph padded to
    a larger batch, or an operator of another step, does not)."""
    if not isinstance(dims, list) or len(dims) <= at or not isinstance(dims[at], list) or not dims[at]:
        return False
    return sq > 0 and dims[at][0] == sq

