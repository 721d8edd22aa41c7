"""Evidence of a named cause for a row below its roof, beyond "more traffic
than compulsory": random-number generation, page faults on fresh outputs,
a slow library kernel (the reasons of :mod:`.reasons`).

Each is read from the rows of one trace, comparing a row with its peers
(the same trace, so the same machine, threads and allocator):

- **random-number generation**: the operator draws random numbers
  (:func:`rng_rows`). Its roof is the generator's rate (Philox or
  mt19937 integer work per number), not memory: a dropout mask that
  moves a few bytes per element still costs a generator call each.
- **page faults on fresh outputs** (:func:`page_fault_rows`): an
  out-of-place operator (its ATen name has no trailing underscore) whose
  output is at least :data:`MMAP_THRESHOLD_BYTES`, and which takes at
  least :data:`PAGE_FAULT_FACTOR` x the time per modelled byte of the
  in-place operators of the same family and output shape in the trace.
  The in-place ones write memory that is already mapped; a fresh output
  the allocator got from the OS is mapped on first touch, a page fault
  (and the kernel zeroing the page) per 4 KiB.
- **slow library kernel** (:func:`slow_kernel_rows`): the same operator
  at other shapes or layouts in the trace reaches at least
  :data:`SLOW_FACTOR` x this row's share of its roof, in at least
  :data:`MIN_PEER_CALLS` calls, without going above its roof, and on a
  roof its data cannot beat (compute, or memory with a working set larger
  than the last-level cache: a small operand in L1 looks near any roof
  placed on the LLC or DRAM); and the time this row loses per call is more
  than any fixed cost (the placement's ``Rules.substantial_s``). The library picked a slower
  implementation for this shape (oneDNN's ``x64:gemm:jit`` for a
  depthwise convolution's weight gradient, say).

Columns in, columns out: numpy only; shape labels are parsed once per
distinct row name.
"""
from __future__ import annotations

import math
import re

import numpy as np

from .comm import is_comm_key

# glibc's default M_MMAP_THRESHOLD: blocks from this size on are mmapped and
# given back to the OS when freed (glibc raises the threshold up to 32 MiB
# on 64-bit as it sees such blocks freed, and trims the heap top above
# M_TRIM_THRESHOLD). 128 KiB is the least size at which a fresh output can
# come back unmapped, so it is a necessary condition, not proof: the proof
# is the per-byte time against in-place peers.
MMAP_THRESHOLD_BYTES = 128 * 1024
# An out-of-place element-wise operator may take up to ~1.5x an in-place
# one's time per modelled byte without any fault (the write-allocate read
# of a destination that is not in cache) and costly arithmetic (a divide,
# a square root) up to ~2x more: a factor 4 asks for more than both.
PAGE_FAULT_FACTOR = 4.0
# A peer of the same operator this many times nearer its roof, in this
# many calls at least, shows the library has a faster path.
SLOW_FACTOR = 4.0
MIN_PEER_CALLS = 3
# A peer above its roof by more than this is a model error, not a fast path
# (the same tolerance as placement_warnings.ABOVE_ROOF_TOLERANCE).
PEER_ROOF_TOLERANCE = 1.05

# ATen operators that draw random numbers (base names: a trailing "_" and
# the "aten::" namespace stripped), and families an operator model may give
# them.
RNG_OPERATORS = frozenset({"bernoulli", "native_dropout", "uniform", "normal", "random", "multinomial",
                           "exponential", "geometric", "cauchy", "log_normal", "randperm"})
RNG_PREFIXES = ("rand",)          # rand, rand_like, randn, randn_like, randint, randint_like
RNG_FAMILIES = frozenset({"rng", "random"})

_SHAPE = re.compile(r"^\d+(?:x\d+)*$")


def base_name(operator: str) -> str:
    """``aten::bernoulli_`` -> ``bernoulli``."""
    return operator.rsplit("::", 1)[-1].rstrip("_")


def rng_rows(operators: np.ndarray, families: np.ndarray) -> np.ndarray:
    """Rows whose operator draws random numbers: by ATen name, or by a
    family an operator model gives random fills."""
    names = {op: _is_rng(str(op)) for op in set(operators.tolist())}
    by_name = np.fromiter((names[op] for op in operators.tolist()), dtype=bool, count=len(operators))
    return by_name | np.isin(families.astype(str), list(RNG_FAMILIES))


def _is_rng(operator: str) -> bool:
    base = base_name(operator)
    return bool(base) and (base in RNG_OPERATORS or base.startswith(RNG_PREFIXES))


def in_place(operators: np.ndarray) -> np.ndarray:
    """ATen's convention: an in-place operator's name ends in ``_``
    (``aten::add_``); ``_foreach_add`` is not in place, ``_foreach_add_`` is."""
    return np.array([str(op).endswith("_") for op in operators.tolist()], dtype=bool)


def output_shapes(names: np.ndarray, operators: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row from its label (``aten::div(1024x4096, scalar)``): the shape
    of its largest tensor operand, which an element-wise operator's output
    has ("" where the name has no shapes), and that operand's share of all
    the elements the call touches, its output counted once more (0 where
    unknown): the output's share of the call's bytes, one dtype assumed."""
    seen: dict[tuple[str, str], tuple[str, float]] = {}
    shapes = np.full(len(names), "", dtype=object)
    share = np.zeros(len(names))
    for i, (name, op) in enumerate(zip(names.tolist(), operators.tolist())):
        key = (str(name), str(op))
        if key not in seen:
            seen[key] = _output_of(*key)
        shapes[i], share[i] = seen[key]
    return shapes, share


def _output_of(name: str, operator: str) -> tuple[str, float]:
    if not operator or not name.startswith(operator + "(") or not name.endswith(")"):
        return "", 0.0
    dims = [p.strip() for p in name[len(operator) + 1:-1].split(",")]
    tensors = [(d, math.prod(int(v) for v in d.split("x"))) for d in dims if _SHAPE.match(d)]
    if not tensors:
        return "", 0.0
    shape, out = max(tensors, key=lambda t: t[1])
    total = sum(e for _, e in tensors) + out
    return shape, (out / total if total else 0.0)


def page_fault_rows(names, operators, families, time_per_call, bytes_per_call, candidates) -> np.ndarray:
    """Out-of-place ``candidates`` (CPU rows with modelled bytes) whose
    output is at least :data:`MMAP_THRESHOLD_BYTES` and whose time per byte
    is at least :data:`PAGE_FAULT_FACTOR` x the median of the in-place
    rows of the same family and output shape (see the module doc)."""
    n = len(names)
    out = np.zeros(n, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_byte = np.where(bytes_per_call > 0, time_per_call / bytes_per_call, math.nan)
    usable = candidates & np.isfinite(per_byte) & (per_byte > 0)
    if not usable.any():
        return out
    rows = np.flatnonzero(usable)
    shapes, share = output_shapes(names[rows], operators[rows])
    inplace = in_place(operators[rows]) & ~rng_rows(operators[rows], families[rows])
    peers: dict[tuple, list[float]] = {}
    for j in np.flatnonzero(inplace & (shapes != "")):
        peers.setdefault((families[rows[j]], shapes[j]), []).append(per_byte[rows[j]])
    typical = {key: float(np.median(v)) for key, v in peers.items()}
    for j in np.flatnonzero(~inplace & (shapes != "")):
        i = rows[j]
        ref = typical.get((families[i], shapes[j]))
        big = share[j] * bytes_per_call[i] >= MMAP_THRESHOLD_BYTES
        out[i] = ref is not None and big and per_byte[i] >= PAGE_FAULT_FACTOR * ref
    return out


def slow_kernel_rows(operators, efficiency, count, time_s, lost_per_call, min_lost_s,
                     candidates, fair_roof) -> tuple[np.ndarray, np.ndarray]:
    """``candidates`` (modelled rows with a measured efficiency) with a peer
    of the same operator at least :data:`SLOW_FACTOR` x nearer its roof
    (see the module doc; ``fair_roof``: rows whose share of their roof can
    be trusted), and for each such row the index of the peer with the most
    time among those (-1 for the others)."""
    n = len(operators)
    slow = np.zeros(n, dtype=bool)
    peer = np.full(n, -1, dtype=np.int64)
    eff = np.asarray(efficiency, dtype=float)
    ok = candidates & (operators != "") & np.isfinite(eff) & (eff > 0)
    trusted = ok & fair_roof & (eff <= PEER_ROOF_TOLERANCE)
    losing = ok & (lost_per_call > min_lost_s)
    groups: dict[str, list[int]] = {}
    for i in np.flatnonzero(ok).tolist():
        groups.setdefault(operators[i], []).append(i)
    for members in groups.values():
        if len(members) < 2:
            continue
        m = np.asarray(members)
        best = m[trusted[m]]
        best = best[np.argsort(-eff[best], kind="stable")]     # most efficient first
        if not len(best):
            continue
        calls = np.cumsum(count[best])
        # the peer with the most time among the first k: a running argmax
        lead = _running_argmax(time_s[best])
        for i in m[losing[m]].tolist():
            k = int(np.searchsorted(-eff[best], -SLOW_FACTOR * eff[i], side="right"))   # eff >= 4x
            if k and calls[k - 1] >= MIN_PEER_CALLS:
                slow[i], peer[i] = True, int(best[lead[k - 1]])
    return slow, peer


def _running_argmax(x: np.ndarray) -> np.ndarray:
    """For each k, the index of the largest of ``x[:k + 1]`` (first on ties)."""
    out = np.zeros(len(x), dtype=np.int64)
    for k in range(1, len(x)):
        out[k] = k if x[k] > x[out[k - 1]] else out[k - 1]
    return out


def cause_evidence(kernels, cpu: bool, efficiency: np.ndarray, t_roof: np.ndarray, min_lost_s: float,
                   fair_roof: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The three causes' evidence for a placement's rows (a
    :class:`~roofline.core.model.KernelSet`, its efficiency and roofline
    times; ``fair_roof``: compute-bound rows and bandwidth-bound ones whose
    working set exceeds the last-level cache): random-number rows,
    page-fault rows (CPU only: a GPU's caching allocator keeps its memory),
    slow-kernel rows, and per row the text naming a slow kernel's peer (""
    elsewhere)."""
    n = len(kernels)
    count = np.maximum(kernels.count, 1)
    time_per_call = kernels.time_s / count
    modelled = kernels.modelled & np.isfinite(time_per_call) & (time_per_call > 0)
    rng = rng_rows(kernels.operators, kernels.families)
    faults = np.zeros(n, dtype=bool)
    if cpu and modelled.any():
        levels = [v for k, v in kernels.bytes.items() if not is_comm_key(k)]
        # a modelled row's bytes sit on one level (DRAM, or the cache it beat DRAM from)
        nbytes = np.fmax.reduce(np.vstack(levels), axis=0) if levels else np.full(n, math.nan)
        faults = page_fault_rows(kernels.names, kernels.operators, kernels.families, time_per_call,
                                 nbytes / count, modelled)
    with np.errstate(invalid="ignore"):
        lost = (kernels.time_s - t_roof) / count
    slow, peer = slow_kernel_rows(kernels.operators, efficiency, count, kernels.time_s, lost, min_lost_s,
                                  modelled, fair_roof)
    detail = np.full(n, "", dtype=object)
    for i in np.flatnonzero(slow).tolist():
        j = int(peer[i])
        detail[i] = (f"{kernels.names[j]} reaches {efficiency[j]:.0%} of its roof in {int(count[j])} call(s), "
                     f"this row {efficiency[i]:.1%}")
    return rng, faults, slow, detail
