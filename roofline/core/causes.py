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
  (and the kernel zeroing the page) per 4 KiB. In-place rows that beat
  DRAM (their data was in a cache) are no yardstick.
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

A trace recorded on a busy machine fools these comparisons as it fools
any efficiency: a row slowed by another process looks slow beside peers
that were not (the slow kernel's peer is named so that it can be checked).

Columns in, columns out; shape labels are read by
:mod:`.shape_labels` for all rows at once.
"""
from __future__ import annotations

import math

import numpy as np

from .comm import is_comm_key
from .evidence import _codes
from .shape_labels import largest_operands

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

def base_name(operator: str) -> str:
    """``aten::bernoulli_`` -> ``bernoulli``."""
    return operator.rsplit("::", 1)[-1].rstrip("_")


def _per_operator(operators: np.ndarray, test) -> np.ndarray:
    """``test`` of each row's operator (or family), asked once per distinct one."""
    if not len(operators):
        return np.zeros(0, dtype=bool)
    codes = _codes(operators)
    # codes number operators by first appearance: a code first appears
    # where their running maximum rises
    first = np.flatnonzero(np.diff(np.maximum.accumulate(codes), prepend=-1) > 0)
    return np.array([bool(test(str(op))) for op in operators[first].tolist()], dtype=bool)[codes]


def rng_rows(operators: np.ndarray, families: np.ndarray) -> np.ndarray:
    """Rows whose operator draws random numbers: by ATen name, or by a
    family an operator model gives random fills."""
    return _per_operator(operators, _is_rng) | _per_operator(families, lambda f: f in RNG_FAMILIES)


def _is_rng(operator: str) -> bool:
    base = base_name(operator)
    return bool(base) and (base in RNG_OPERATORS or base.startswith(RNG_PREFIXES))


def in_place(operators: np.ndarray) -> np.ndarray:
    """ATen's convention: an in-place operator's name ends in ``_``
    (``aten::add_``); ``_foreach_add`` is not in place, ``_foreach_add_`` is."""
    return _per_operator(operators, lambda op: op.endswith("_"))


def output_shapes(names: np.ndarray, operators: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row from its label (``aten::div(1024x4096, scalar)``): the shape
    of its largest tensor operand, which an element-wise operator's output
    has (""), and the output's share of the call's bytes (0 where unknown;
    :func:`roofline.core.shape_labels.largest_operands`)."""
    return largest_operands(names, operators)


def page_fault_rows(names, operators, families, time_per_call, bytes_per_call, candidates,
                    rng: np.ndarray | None = None, from_cache: np.ndarray | None = None) -> np.ndarray:
    """Out-of-place ``candidates`` (CPU rows with modelled bytes) whose
    output is at least :data:`MMAP_THRESHOLD_BYTES` and whose time per byte
    is at least :data:`PAGE_FAULT_FACTOR` x the median of the in-place
    rows of the same family and output shape (see the module doc). Never
    peers: the random-number rows (``rng``, :func:`rng_rows`), and rows
    whose data came from a cache (``from_cache``: faster than DRAM, a
    yardstick no fresh output could meet)."""
    n = len(names)
    out = np.zeros(n, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_byte = np.where(bytes_per_call > 0, time_per_call / bytes_per_call, math.nan)
    usable = candidates & np.isfinite(per_byte) & (per_byte > 0)
    rng = rng_rows(operators, families) if rng is None else rng
    inplace = usable & in_place(operators) & ~rng
    if from_cache is not None:
        inplace &= ~from_cache
    # an out-of-place row needs bytes for a big output, and in-place rows of its family to compare with
    fam = families.astype(str)
    big = usable & ~inplace & (bytes_per_call >= MMAP_THRESHOLD_BYTES) & np.isin(fam, np.unique(fam[inplace]))
    rows = np.flatnonzero(inplace | big)
    if not big.any():
        return out
    shapes, share = largest_operands(names[rows], operators[rows])
    known = shapes != ""
    rows, shapes, share = rows[known], shapes[known], share[known]
    keys = _codes(np.char.add(np.char.add(fam[rows].astype(str), "\x1f"), shapes.astype(str)))
    peer = inplace[rows]
    median = _group_medians(keys[peer], per_byte[rows][peer], int(keys.max()) + 1 if len(keys) else 0)
    ref = median[keys]
    slow = (~peer & np.isfinite(ref) & (share * bytes_per_call[rows] >= MMAP_THRESHOLD_BYTES)
            & (per_byte[rows] >= PAGE_FAULT_FACTOR * ref))
    out[rows[slow]] = True
    return out


def _group_medians(codes: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """The median of ``values`` per group (NaN for groups without one)."""
    out = np.full(n, math.nan)
    if not len(codes):
        return out
    order = np.lexsort((values, codes))
    codes, values = codes[order], values[order]
    count = np.bincount(codes, minlength=n)
    start = np.concatenate(([0], np.cumsum(count)[:-1]))
    has = count > 0
    lo = start[has] + (count[has] - 1) // 2
    hi = start[has] + count[has] // 2
    out[has] = 0.5 * (values[lo] + values[hi])
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
    if not (losing.any() and trusted.any()):
        return slow, peer
    idx = np.flatnonzero(ok)
    codes = _codes(operators[idx])
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    for members in np.split(idx[order], bounds):       # one operator's rows: a loop per operator
        best = members[trusted[members]]
        rows = members[losing[members]]
        if len(members) < 2 or not len(best) or not len(rows):
            continue
        best = best[np.argsort(-eff[best], kind="stable")]     # most efficient first
        calls = np.cumsum(count[best])
        lead = _running_argmax(time_s[best])          # the peer with the most time among the first k
        k = np.searchsorted(-eff[best], -SLOW_FACTOR * eff[rows], side="right")   # peers at >= 4x
        hit = (k > 0) & (calls[np.maximum(k - 1, 0)] >= MIN_PEER_CALLS)
        slow[rows[hit]] = True
        peer[rows[hit]] = best[lead[k[hit] - 1]]
    return slow, peer


def _running_argmax(x: np.ndarray) -> np.ndarray:
    """For each k, the index of the largest of ``x[:k + 1]`` (first on ties)."""
    top = np.maximum.accumulate(x)
    new = np.concatenate(([True], x[1:] > top[:-1]))       # a strictly larger value than all before
    return np.maximum.accumulate(np.where(new, np.arange(len(x)), 0))


def cause_evidence(kernels, cpu: bool, efficiency: np.ndarray, t_roof: np.ndarray, min_lost_s: float,
                   fair_roof: np.ndarray, from_cache: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The three causes' evidence for a placement's rows (a
    :class:`~roofline.core.model.KernelSet`, its efficiency and roofline
    times; ``fair_roof``: compute-bound rows and bandwidth-bound ones whose
    working set exceeds the last-level cache; ``from_cache``: rows that
    beat DRAM, no page-fault yardstick): random-number rows,
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
                                 nbytes / count, modelled, rng, from_cache)
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
