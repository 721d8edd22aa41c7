"""The step split: where a trace's kernel time goes in a training step.

Each kernel launch (GPU trace) or operator (CPU trace) gets a phase and a
step, from what the trace marks:

* **step**: the ``ProfilerStep#N`` range (``torch.profiler`` with a
  schedule) holding the launch's CPU time, on any thread (autograd runs the
  backward pass on threads of its own); -1 outside every step.
* **communication**: a kernel whose name is a collective's
  (:func:`roofline.core.families.family_of`), whatever launched it.
* **optimizer**: launched inside an ``Optimizer.step#...`` or
  ``Optimizer.zero_grad#...`` range on the same thread.
* **backward**: launched by an operator autograd ran: its args name the
  forward thread (``Fwd thread id``), or it or an enclosing operator is one
  of autograd's (``autograd::engine::evaluate_function: ...``,
  ``MmBackward0``), or a ``## backward ##`` range holds it.
* **data loading**: inside an ``enumerate(DataLoader)#...`` range.
* **forward**: any other launch by an operator.
* **other**: no operator launched it (copies, kernels before the
  profiler's CPU window).

On a CPU trace an operator's self time is its row's time; the time of a
range outside every operator (Python between operators, the optimizer's own
loop) is kept too, as rows -1 with the range's phase: no time disappears,
and none counts twice: a range inside an operator (``## Call
CompiledFxGraph`` inside ``CompiledFunction``) adds nothing, its time being
the operator's self time, in the operator's phase (``CompiledFunctionBackward``
runs in the backward).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ...core.families import family_of
from ...core.phases import PHASES
from .columns import LaunchColumns, codes, distinct_values, launch_columns, sorted_distinct
from .nesting import Nesting, coded_parents
from .op_columns import OpEvents

FORWARD, BACKWARD, OPTIMIZER, COMMUNICATION, DATA, PREFILL, DECODE, MIXED, OTHER = (
    PHASES.index(p) for p in ("forward", "backward", "optimizer", "communication", "data loading",
                              "prefill", "decode", "prefill+decode", "other"))
OUTSIDE_OPERATORS = -1       # row of host time in a range but in no operator

_STEP = re.compile(r"^ProfilerStep#(\d+)$")
_OPTIMIZER = re.compile(r"^Optimizer\.(step|zero_grad)#")
_DATA = re.compile(r"^enumerate\(DataLoader\)#")
_BACKWARD_RANGE = re.compile(r"^##\s*backward\s*##$", re.IGNORECASE)
_AUTOGRAD_OP = re.compile(r"^autograd::engine::evaluate_function|Backward\d*$")
# A serving engine's step: vLLM's worker range (execute_context_R(T)_generation_G(T), with the
# token count first and per-phase sums in detailed mode: execute_B_context_R(sq..sk..)_generation_G(..))
# and SGLang's step[MODE bs=N ...]; the requests of each kind say the step's phase
_VLLM_STEP = re.compile(r"^execute_(?:\d+_)?context_(\d+)\([^)]*\)_generation_(\d+)\([^)]*\)$")
_SGLANG_STEP = re.compile(r"^step\[(EXTEND|PREFILL|DECODE|MIXED)\b")
_SGLANG_PHASE = {"EXTEND": PREFILL, "PREFILL": PREFILL, "DECODE": DECODE, "MIXED": MIXED}


@dataclass(frozen=True, eq=False)
class PhaseTable:
    """Time per (kernel row, step, phase): columns, rows summed."""

    row: np.ndarray      # index into the result's kernels; -1: host time outside operators
    step: np.ndarray     # N of ProfilerStep#N; -1: outside every step
    phase: np.ndarray    # index into PHASES
    time_s: np.ndarray
    basis: tuple[str, ...]   # what the split rests on, e.g. ("ProfilerStep ranges", "Fwd thread id")

    def __len__(self) -> int:
        return len(self.row)

    def __eq__(self, other) -> bool:    # column by column (ImportResults compare equal by value)
        return (isinstance(other, PhaseTable) and self.basis == other.basis
                and all(np.array_equal(getattr(self, c), getattr(other, c))
                        for c in ("row", "step", "phase", "time_s")))

    __hash__ = None


class _Ranges:
    """Which of some ranges holds a time (on a thread, or on any)."""

    def __init__(self, starts, ends, threads=None):
        starts, ends = np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)
        self.by_thread: dict = {}
        for key, idx in _groups(threads, len(starts)):
            order = idx[np.argsort(starts[idx], kind="stable")]
            # the latest-starting range that began before t holds t if any
            # range up to it still runs: the running maximum of the ends
            self.by_thread[key] = (order, starts[order], np.maximum.accumulate(ends[order]))

    def holding(self, times, threads=None) -> np.ndarray:
        """Index of the latest-starting range holding each time (-1: none)."""
        return self._holding(np.asarray(times, dtype=float), _groups(threads, len(times)))

    def holding_coded(self, times: np.ndarray, code: np.ndarray, threads: list) -> np.ndarray:
        """:meth:`holding` of times on threads given as codes (``threads[code]``
        each one's thread): the operators' threads, coded once (.nesting)."""
        return self._holding(np.asarray(times, dtype=float), _coded_groups(code, threads))

    def _holding(self, times: np.ndarray, groups) -> np.ndarray:
        out = np.full(len(times), -1, dtype=np.int64)
        for key, members in groups:
            found = self.by_thread.get(key)
            if found is None:
                continue
            order, starts, reach = found
            k = np.searchsorted(starts, times[members], side="right") - 1
            ok = (k >= 0) & (times[members] < reach[np.maximum(k, 0)])
            out[members[ok]] = order[k[ok]]
        return out


def _groups(threads, n: int):
    """(thread, indices) per distinct thread; one group (None) without threads."""
    if threads is None:
        yield None, np.arange(n)
        return
    threads = list(threads)
    code = codes(threads)
    for _, idx in _coded_groups(code, None):
        yield threads[int(idx[0])], idx


def _coded_groups(code: np.ndarray, threads: list | None):
    """(thread, indices) per distinct code: ``threads[code]`` (None: the
    code itself)."""
    order = np.argsort(code, kind="stable")
    bounds = np.flatnonzero(np.diff(code[order])) + 1
    for idx in np.split(order, bounds):
        if len(idx):
            c = int(code[idx[0]])
            yield (c if threads is None else threads[c]), idx


def _annotation_ranges(ops: OpEvents, pattern: re.Pattern) -> tuple[list[int], _Ranges | None]:
    a = ops.annotations
    chosen = [i for i, name in enumerate(a.names) if pattern.search(str(name))]
    if not chosen:
        return chosen, None
    ts = np.array([a.ts[i] for i in chosen], dtype=float)
    ends = ts + np.array([a.dur[i] for i in chosen], dtype=float)
    return chosen, _Ranges(ts, ends, [a.thread[i] for i in chosen])


def _steps(ops: OpEvents):
    """(step number per ProfilerStep range, ranges on any thread) or None."""
    a = ops.annotations
    chosen = [(i, int(m.group(1))) for i, name in enumerate(a.names) if (m := _STEP.match(str(name)))]
    if not chosen:
        return None
    ts = np.array([a.ts[i] for i, _ in chosen], dtype=float)
    ends = ts + np.array([a.dur[i] for i, _ in chosen], dtype=float)
    return np.array([n for _, n in chosen], dtype=np.int64), _Ranges(ts, ends)


def _step_of(steps, times) -> np.ndarray:
    if steps is None:
        return np.full(len(times), -1, dtype=np.int64)
    numbers, ranges = steps
    k = ranges.holding(times)
    return np.where(k >= 0, numbers[np.maximum(k, 0)], -1)


def operator_phases(ops: OpEvents, nesting: Nesting) -> np.ndarray:
    """The phase of every operator (FORWARD, BACKWARD, OPTIMIZER or DATA)."""
    n = len(ops)
    parent = nesting.parent
    backward = nesting.per_name(lambda name: bool(_AUTOGRAD_OP.search(str(name))))
    backward |= np.asarray(ops.backward, dtype=bool) if len(ops.backward) == n else False
    for level in nesting.levels:          # what autograd runs, it runs all the way down
        backward[level] |= backward[parent[level]]
    phase = np.where(backward, BACKWARD, FORWARD).astype(np.int8)
    for code, pattern in ((BACKWARD, _BACKWARD_RANGE), (DATA, _DATA), (OPTIMIZER, _OPTIMIZER)):
        _, ranges = _annotation_ranges(ops, pattern)
        if ranges is not None:
            phase[ranges.holding_coded(nesting.ts, nesting.thread_code, nesting.threads) >= 0] = code
    return phase


def _serving_steps(ops: OpEvents):
    """(phase code per serving step range, the ranges on any thread) or None."""
    a = ops.annotations
    chosen = []
    for i, name in enumerate(a.names):
        name = str(name)
        if m := _VLLM_STEP.match(name):
            context, generation = int(m.group(1)), int(m.group(2))
            if context or generation:
                chosen.append((i, MIXED if context and generation else PREFILL if context else DECODE))
        elif m := _SGLANG_STEP.match(name):
            chosen.append((i, _SGLANG_PHASE[m.group(1)]))
    if not chosen:
        return None
    ts = np.array([a.ts[i] for i, _ in chosen], dtype=float)
    ends = ts + np.array([a.dur[i] for i, _ in chosen], dtype=float)
    return np.array([c for _, c in chosen], dtype=np.int8), _Ranges(ts, ends)


def _basis(ops: OpEvents, steps) -> tuple[str, ...]:
    out = ["ProfilerStep ranges" if steps is not None else "no ProfilerStep ranges (one step)"]
    if _serving_steps(ops) is not None:
        out.append("the serving engine's step ranges (vLLM execute_*, SGLang step[...])")
    if any(ops.backward):
        out.append("autograd's Fwd thread id")
    if any(_OPTIMIZER.search(str(n)) for n in ops.annotations.names):
        out.append("Optimizer.* ranges")
    return tuple(out)


def gpu_phases(gpu, ops: OpEvents, nesting: Nesting, launch_row: np.ndarray, op_of: np.ndarray,
               call: np.ndarray, extra_rows: list[tuple[int, float]],
               launches: LaunchColumns | None = None) -> PhaseTable | None:
    """Time per (row, step, phase) of a GPU trace's kernel launches, each
    with its row, operator and runtime call (.attribution's);
    ``extra_rows``: (row, seconds) of the rows with no launches of their own
    (copies, range-profiler rows), put under "other"; ``launches``: the
    launch columns where already found (.columns)."""
    n = len(gpu.kernel_names)
    if n == 0 and not extra_rows:
        return None
    launches = launch_columns(gpu) if launches is None else launches
    steps = _steps(ops)
    api_ts = launches.api_ts
    op_ts = nesting.ts
    when = np.where(call >= 0, api_ts[np.maximum(call, 0)] if len(api_ts) else np.nan,
                    np.where(op_of >= 0, op_ts[np.maximum(op_of, 0)] if len(op_ts) else np.nan, np.nan))
    phase = np.full(n, OTHER, dtype=np.int8)
    if len(ops):
        by_op = operator_phases(ops, nesting)
        phase[op_of >= 0] = by_op[op_of[op_of >= 0]]
    phase[launches.per_name(lambda name: family_of(name) == "communication")] = COMMUNICATION
    serving = _serving_steps(ops)
    if serving is not None:              # a serving step's phase, collectives in it included
        codes_, ranges = serving
        k = ranges.holding(np.nan_to_num(when, nan=-np.inf))
        phase[k >= 0] = codes_[k[k >= 0]]
    step = _step_of(steps, np.nan_to_num(when, nan=-np.inf))
    time = np.nan_to_num(launches.dur) * 1e-6
    rows = [np.asarray(launch_row, dtype=np.int64)] + [np.array([r]) for r, _ in extra_rows]
    return _summed(np.concatenate(rows),
                   np.concatenate([step, np.full(len(extra_rows), -1)]),
                   np.concatenate([phase, np.full(len(extra_rows), OTHER)]),
                   np.concatenate([time, [t for _, t in extra_rows]]), _basis(ops, steps))


def cpu_phases(ops: OpEvents, nesting: Nesting, op_row: np.ndarray) -> PhaseTable | None:
    """Time per (row, step, phase) of a CPU trace's operators, and the
    ranges' own time outside every operator (row -1)."""
    if not len(ops):
        return None
    steps = _steps(ops)
    ts = np.asarray(ops.ts, dtype=float)
    phase = operator_phases(ops, nesting)
    host_row, host_step, host_phase, host_time = _outside_operators(ops, nesting, steps)
    return _summed(np.concatenate([np.asarray(op_row, dtype=np.int64), host_row]),
                   np.concatenate([_step_of(steps, ts), host_step]),
                   np.concatenate([phase, host_phase]),
                   np.concatenate([nesting.self_time_us * 1e-6, host_time]),
                   _basis(ops, steps))


def _outside_operators(ops: OpEvents, nesting: Nesting, steps):
    """Each range's time in no operator and no range inside it: rows -1."""
    a = ops.annotations
    if not len(a):
        return (np.zeros(0, dtype=np.int64),) * 2 + (np.zeros(0, dtype=np.int8), np.zeros(0))
    # operators and ranges nest together: a range's own time is what no
    # operator or range inside it covers (the operators' columns as the
    # nesting holds them, the ranges' threads numbered beside theirs)
    a_ts, a_dur = np.asarray(a.ts, dtype=float).reshape(-1), np.asarray(a.dur, dtype=float).reshape(-1)
    parent, self_time = coded_parents(np.concatenate([nesting.ts, a_ts]), np.concatenate([nesting.dur, a_dur]),
                                      np.concatenate([nesting.thread_code, _thread_codes(nesting, a.thread)]))
    own = self_time[len(ops):]
    # a range inside an operator (a compiled graph's "## Call CompiledFxGraph"
    # inside CompiledFunction) adds no time: the operator's self time has it
    own = np.where(_inside_operator(parent, len(ops))[len(ops):], 0.0, own)
    names = [str(x) for x in a.names]
    phase = np.array([OPTIMIZER if _OPTIMIZER.search(x) else DATA if _DATA.search(x)
                      else BACKWARD if _BACKWARD_RANGE.search(x) else OTHER if _STEP.match(x) else FORWARD
                      for x in names], dtype=np.int8)
    step = _step_of(steps, np.asarray(a.ts, dtype=float) + 1e-3)    # a step's own range is in itself
    keep = own > 0
    return (np.full(int(keep.sum()), OUTSIDE_OPERATORS, dtype=np.int64), step[keep], phase[keep],
            own[keep] * 1e-6)


def _thread_codes(nesting: Nesting, threads: list) -> np.ndarray:
    """Each of ``threads``' code among the operators' (``nesting.threads``),
    a new one past them for a thread no operator ran on."""
    first, code = distinct_values(threads)
    known = {t: c for c, t in enumerate(nesting.threads)}
    table = np.array([known.setdefault(threads[i], len(known)) for i in first.tolist()], dtype=np.int64)
    return table[code] if len(code) else np.zeros(0, dtype=np.int64)


def _inside_operator(parent: np.ndarray, n_ops: int) -> np.ndarray:
    """Per interval of the common nesting (operators first, then ranges):
    whether an operator encloses it, at any depth."""
    inside = np.zeros(len(parent), dtype=bool)
    above = parent.copy()
    active = np.flatnonzero(above >= 0)
    while len(active):               # pointer jumping, one pass per level
        inside[active] |= above[active] < n_ops
        above[active] = parent[above[active]]
        active = active[(above[active] >= 0) & ~inside[active]]
    return inside


def _summed(row, step, phase, time_s, basis) -> PhaseTable:
    """Rows with equal (row, step, phase) added up."""
    # one int64 key per (row, step, phase), in that order of significance:
    # np.unique over columns (axis=1) sorts byte strings, 30x slower
    row, step = np.asarray(row, dtype=np.int64), np.asarray(step, dtype=np.int64)
    steps, step_code = np.unique(step, return_inverse=True)
    n_phases = len(PHASES)
    n_steps = max(len(steps), 1)
    key = ((row + 1) * n_steps + step_code.ravel()) * n_phases + phase.astype(np.int64)
    unique, inverse = sorted_distinct(key)
    total = np.bincount(inverse, weights=time_s, minlength=len(unique))
    return PhaseTable(unique // n_phases // n_steps - 1, steps[unique // n_phases % n_steps],
                      (unique % n_phases).astype(np.int8), total, basis)
