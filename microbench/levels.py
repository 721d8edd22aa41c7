"""Memory levels from a bandwidth-vs-working-set curve, and what the OS reports.

The curve is cut into plateaus: the best rate per size is made
non-increasing with size (isotonic regression, so small-size call overhead
and noisy bumps do not create levels), points in the middle of a step
(log-log slope above ``max_slope`` on both sides) are set aside, and the
rest is split into at most
``max_levels`` constant pieces in log-rate space by dynamic programming. A
cut is kept only when the pieces on both sides differ by at least
``min_ratio`` and each piece holds at least ``min_points`` sizes. Pieces are
named nearest the core first: ``L1``, the middle ones ``L2``/``L3`` (matched
to the OS cache sizes when known), and the last ``DRAM``.

A level's capacity is where the curve crosses the geometric mean of its
plateau and the next one (interpolated in log-log). On virtual machines this
is often smaller than the size sysfs reports for a shared last-level cache,
which is the host's, not the guest's share.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

SYSFS_CACHE = Path("/sys/devices/system/cpu/cpu0/cache")


@dataclass(frozen=True)
class OsCache:
    """A data or unified cache as the OS reports it."""

    level: int
    type: str
    size_bytes: int
    shared_cpus: int = 1

    @property
    def name(self) -> str:
        return f"L{self.level}"


def parse_size(text: str) -> int:
    """sysfs cache sizes: '48K', '2048K', '32M', '1G' (binary units) or bytes."""
    t = text.strip().upper().rstrip("B").replace("I", "")
    mult = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
    if t and t[-1] in mult:
        return int(float(t[:-1]) * mult[t[-1]])
    return int(t)


def _count_cpus(cpu_list: str) -> int:
    n = 0
    for part in cpu_list.strip().split(","):
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-")
            n += int(hi) - int(lo) + 1
        else:
            n += 1
    return max(1, n)


def read_os_caches(root: str | Path = SYSFS_CACHE) -> list[OsCache]:
    """Data/unified caches of cpu0 from sysfs, by level; [] when unavailable."""
    root = Path(root)
    out: dict[int, OsCache] = {}
    try:
        entries = sorted(root.glob("index*"))
    except OSError:
        return []
    for d in entries:
        try:
            ctype = (d / "type").read_text().strip()
            if ctype == "Instruction":
                continue
            level = int((d / "level").read_text())
            size = parse_size((d / "size").read_text())
            try:
                shared = _count_cpus((d / "shared_cpu_list").read_text())
            except OSError:
                shared = 1
        except (OSError, ValueError):
            continue
        out[level] = OsCache(level, ctype, size, shared)
    return [out[k] for k in sorted(out)]


@dataclass(frozen=True)
class Plateau:
    """One memory level found on the curve."""

    name: str
    first: int            # index of the first size in the piece
    last: int             # index of the last size in the piece (inclusive)
    best: float           # max rate over the flat core (the peak)
    median: float         # median rate over the flat core of the piece
    core: tuple[int, ...] = ()  # indices of the flat core
    capacity_bytes: float | None = None  # the level's size (the OS's when it reports one)
    os_bytes: int | None = None
    measured_bytes: float | None = None  # where the curve leaves the plateau, when clear


@dataclass(frozen=True)
class LevelFit:
    plateaus: tuple[Plateau, ...]
    fitted: tuple[float, ...] = field(default=())  # the non-increasing fit (rates)
    notes: tuple[str, ...] = ()                    # what the user should know about the levels

    def by_name(self) -> dict[str, Plateau]:
        return {p.name: p for p in self.plateaus}


def isotonic_decreasing(y: Sequence[float]) -> np.ndarray:
    """Least-squares non-increasing fit (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [sum, count]
    for v in y:
        blocks.append([float(v), 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] < blocks[-1][0] / blocks[-1][1]:
            s, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
    out: list[float] = []
    for s, c in blocks:
        out.extend([s / c] * int(c))
    return np.asarray(out)


def _segment(y: np.ndarray, k: int) -> tuple[float, list[int]]:
    """Best split of y into k constant pieces (SSE); returns (sse, start indices)."""
    n = len(y)
    c1 = np.concatenate([[0.0], np.cumsum(y)])
    c2 = np.concatenate([[0.0], np.cumsum(y * y)])

    def sse(i, j):  # y[i:j]
        m = j - i
        s = c1[j] - c1[i]
        return (c2[j] - c2[i]) - s * s / m

    inf = float("inf")
    cost = np.full((k + 1, n + 1), inf)
    back = np.zeros((k + 1, n + 1), dtype=int)
    cost[0, 0] = 0.0
    for seg in range(1, k + 1):
        for j in range(seg, n + 1):
            best, arg = inf, 0
            for i in range(seg - 1, j):
                c = cost[seg - 1, i] + sse(i, j)
                if c < best:
                    best, arg = c, i
            cost[seg, j], back[seg, j] = best, arg
    starts, j = [], n
    for seg in range(k, 0, -1):
        i = back[seg, j]
        starts.append(i)
        j = i
    return float(cost[k, n]), sorted(starts)


def detect_levels(sizes: Sequence[float], rates: Sequence[float], *,
                  os_caches: Sequence[OsCache] = (), max_levels: int | None = None,
                  min_ratio: float = 1.25, min_points: int = 2,
                  flat_tolerance: float = 0.15, max_slope: float = 0.75) -> LevelFit:
    """Find the plateaus of a bandwidth curve (best rate per working-set size)."""
    sizes = np.asarray(sizes, dtype=float)
    rates = np.asarray(rates, dtype=float)
    if sizes.shape != rates.shape or len(sizes) < 2:
        raise ValueError("need matching sizes and rates, at least two points")
    order = np.argsort(sizes)
    sizes, rates = sizes[order], rates[order]
    if max_levels is None:
        max_levels = len(os_caches) + 1 if os_caches else 4
    fitted = isotonic_decreasing(rates)
    # Points in the middle of a step (the curve falls steeply on both
    # sides) belong to no plateau: leave them out of the segmentation, or a
    # coarse sweep may spend a level on a transition.
    logf, logs = np.log(np.maximum(fitted, 1e-300)), np.log(sizes)
    slope = np.diff(logf) / np.maximum(np.diff(logs), 1e-12) * -1.0
    left = np.concatenate([[0.0], slope])
    right = np.concatenate([slope, [0.0]])
    kept = np.flatnonzero(np.minimum(left, right) <= max_slope)
    if len(kept) < 2:
        kept = np.arange(len(sizes))
    y = logf[kept]

    chosen = [0]
    prev_sse = None
    for k in range(1, min(max_levels, len(y) // max(1, min_points)) + 1):
        sse, starts = _segment(y, k)
        bounds = starts + [len(y)]
        pieces = [(bounds[i], bounds[i + 1]) for i in range(k)]
        if any(b - a < min_points for a, b in pieces):
            break
        means = [float(np.mean(y[a:b])) for a, b in pieces]
        if any(means[i] - means[i + 1] < math.log(min_ratio) for i in range(k - 1)):
            break
        if prev_sse is not None and prev_sse > 0 and sse > 0.6 * prev_sse:
            break
        chosen, prev_sse = starts, sse

    bounds = chosen + [len(y)]
    pieces = [(int(kept[bounds[i]]), int(kept[bounds[i + 1] - 1])) for i in range(len(chosen))]
    kept_set = set(int(i) for i in kept)
    plateaus = []
    levels = []
    for (a, b) in pieces:
        level = float(np.median([fitted[i] for i in range(a, b + 1) if i in kept_set]))
        core = tuple(i for i in range(a, b + 1)
                     if i in kept_set and abs(math.log(rates[i] / level)) <= math.log(1 + flat_tolerance))
        if not core:
            core = tuple(range(a, b + 1))
        best = float(np.max(rates[list(core)]))  # transition points never set a peak
        levels.append(float(np.median(rates[list(core)])))
        plateaus.append((a, b, best, core))

    caps = [_crossing(sizes, fitted, a, math.sqrt(levels[i] * levels[i + 1]))
            if i + 1 < len(plateaus) else None for i, (a, _b, _best, _core) in enumerate(plateaus)]
    names = _names(len(pieces), caps, os_caches)
    os_by_name = {c.name: c for c in os_caches}
    out = []
    for idx, ((a, b, best, core), name) in enumerate(zip(plateaus, names)):
        cap = caps[idx]
        os_c = os_by_name.get(name)
        out.append(Plateau(name=name, first=a, last=b, best=best, median=levels[idx], core=core,
                           capacity_bytes=cap, os_bytes=os_c.size_bytes if os_c else None))
    return LevelFit(tuple(out), tuple(float(v) for v in fitted))


def _crossing(sizes, fitted, start: int, threshold: float) -> float:
    """Size where the non-increasing fit first drops below ``threshold`` (log-log)."""
    for i in range(start + 1, len(sizes)):
        if fitted[i] < threshold:
            y0, y1 = math.log(fitted[i - 1]), math.log(fitted[i])
            x0, x1 = math.log(sizes[i - 1]), math.log(sizes[i])
            t = 0.5 if y0 == y1 else (y0 - math.log(threshold)) / (y0 - y1)
            return float(math.exp(x0 + t * (x1 - x0)))
    return float(sizes[-1])


def _names(k: int, caps, os_caches) -> list[str]:
    """L1 first, DRAM last; middle plateaus matched to OS levels by where they end."""
    if k == 1:
        return ["L1"]
    names = ["L1"] + [""] * (k - 2) + ["DRAM"]
    middle = list(range(1, k - 1))
    if not middle:
        return names
    candidates = [c for c in os_caches if c.level >= 2]
    if len(candidates) >= len(middle):
        # match each middle plateau to an OS level by size, keeping order
        prev = 1
        for pos, m in enumerate(middle):
            end = caps[m]
            remaining = [c for c in candidates if c.level > prev]
            need_after = len(middle) - pos - 1
            usable = remaining[:len(remaining) - need_after] if need_after else remaining
            pick = min(usable, key=lambda c: abs(math.log(c.size_bytes / end)))
            names[m] = pick.name
            prev = pick.level
    else:
        for pos, m in enumerate(middle):
            names[m] = f"L{pos + 2}"
    return names


# Adjacent levels closer than this are "equal on this CPU" (noise is ~5 %).
EQUAL_RATIO = 1.10
# Only a step at least this tall has a knee worth reporting as a capacity.
KNEE_RATIO = 1.25
# The roof of a level: this quantile of the best rate per size in the
# middle of the level (robust to one lucky sample and to a dip).
LEVEL_QUANTILE = 0.75


def levels_from_priors(sizes: Sequence[float], rates: Sequence[float],
                       os_caches: Sequence[OsCache]) -> LevelFit | None:
    """Levels named and sized by the OS, figures from the curve.

    Each OS cache level is measured in the middle of its range (from twice
    the level below to half its own size; L1 from the smallest size); DRAM
    from four times the last cache on. The knee (measured capacity) is
    where the curve crosses halfway (geometrically) to the next level,
    looked for within 4x of the OS size. Adjacent levels within 10 % are
    both kept, with a note that they are equal on this CPU. None when the
    sweep does not cover every level (the caller falls back to
    :func:`detect_levels`)."""
    sizes = np.asarray(sizes, dtype=float)
    rates = np.asarray(rates, dtype=float)
    order = np.argsort(sizes)
    sizes, rates = sizes[order], rates[order]
    caches = sorted((c for c in os_caches if c.type.lower() != "instruction"), key=lambda c: c.level)
    if not caches or caches[0].level != 1:
        return None
    bounds = [(sizes[0] if i == 0 else 2.0 * caches[i - 1].size_bytes, c.size_bytes / 2.0, c)
              for i, c in enumerate(caches)]
    # DRAM from 4x the last cache, or (a short sweep) the sizes beyond 2x it
    last = caches[-1].size_bytes
    dram_from = 4.0 * last if sizes[-1] >= 4.0 * last * 0.999 else max(2.0 * last, sizes[-1])
    bounds.append((dram_from, sizes[-1], None))
    pieces = []
    for lo, hi, cache in bounds:
        idx = np.flatnonzero((sizes >= lo * 0.999) & (sizes <= hi * 1.001))
        if len(idx) == 0:
            return None
        window = rates[idx]
        # L1: the highest rate (loop overhead and timer granularity only pull
        # small working sets down); other levels: a quantile, robust to a spike
        top = float(window.max()) if cache is not None and cache.level == 1 else \
            float(np.quantile(window, LEVEL_QUANTILE))
        pieces.append((idx, top, float(np.median(window)), cache))
    fitted = isotonic_decreasing(rates)
    plateaus, notes = [], []
    for j, (idx, best, median, cache) in enumerate(pieces):
        name = cache.name if cache is not None else "DRAM"
        cap = None
        if cache is not None:
            nxt = pieces[j + 1][1]
            # a clear step past L2 shows where the level ends; at L1 the
            # small-size dip of the curve would pass for the knee
            if best / nxt >= KNEE_RATIO and cache.level >= 2:
                cap = _knee(sizes, fitted, cache.size_bytes, math.sqrt(best * nxt))
            elif best / nxt < EQUAL_RATIO:
                nxt_name = pieces[j + 1][3].name if pieces[j + 1][3] is not None else "DRAM"
                notes.append(f"{name} and {nxt_name} load at the same rate on this CPU "
                             f"({best / 1e9:.1f} and {nxt / 1e9:.1f} GB/s): both are kept, sized by the OS")
        plateaus.append(Plateau(name=name, first=int(idx[0]), last=int(idx[-1]), best=best, median=median,
                                core=tuple(int(i) for i in idx),
                                capacity_bytes=cache.size_bytes if cache is not None else None,
                                os_bytes=cache.size_bytes if cache is not None else None,
                                measured_bytes=cap))
    return LevelFit(tuple(plateaus), tuple(float(v) for v in fitted), tuple(notes))


def _knee(sizes, fitted, os_bytes: float, threshold: float) -> float | None:
    """Where the fit falls below ``threshold`` within 4x of ``os_bytes``."""
    near = np.flatnonzero((sizes >= os_bytes / 4) & (sizes <= os_bytes * 4))
    if len(near) < 2:
        return None
    start = int(near[0])
    cross = _crossing(sizes[: int(near[-1]) + 1], fitted[: int(near[-1]) + 1], start, threshold)
    return cross
