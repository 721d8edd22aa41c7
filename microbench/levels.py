"""Memory levels from a bandwidth-vs-working-set curve and the cache sizes
the OS reports.

With the OS sizes (the usual case, :func:`levels_from_priors`): the sizes
are priors, the curve is evidence. Every reported cache is a level labelled
with its OS size; its figure is read in the middle of its range, its knee
(the measured capacity) near where the curve falls to the next level.
Adjacent levels with equal bandwidth (L1 and L2 of AMD Zen 1) are both
kept, with a note, never merged under one name.

Without them (:func:`detect_levels` falls back to a blind fit): the best
rate per size is made non-increasing (isotonic regression), points in the
middle of a step (log-log slope above ``max_slope`` on both sides) are set
aside, and the rest is split into at most ``max_levels`` constant pieces in
log-rate space by dynamic programming. A cut is kept only when the pieces
on both sides differ by at least ``min_ratio`` and each piece holds at
least ``min_points`` sizes. Pieces are named nearest the core first:
``L1``, the middle ones ``L2``/``L3``, and the last ``DRAM``; a level's
capacity is where the curve crosses the geometric mean of its plateau and
the next one (interpolated in log-log).

On virtual machines the measured end of a shared last-level cache is often
well below the size sysfs reports, which is the host's, not the guest's
share.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from ..core.errors import Advice

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
    """Data/unified caches of cpu0 from sysfs, by level; [] when unavailable.

    sysfs gives one instance's size (L1d 32 KiB per core), with the CPUs
    sharing it in ``shared_cpu_list``; lscpu's "64 KiB (2 instances)" is the
    total over cores and is not what a level holds."""
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
    best: float           # the level's one-core figure (its roof)
    median: float         # median rate over the sizes it was read from
    core: tuple[int, ...] = ()  # indices that read the level's rate (the all-core roof is measured there)
    capacity_bytes: float | None = None  # the level's size: the OS's when it reports one
    os_bytes: int | None = None          # what the OS reports for this level
    measured_bytes: float | None = None  # where the curve leaves the plateau, when clear


@dataclass(frozen=True)
class LevelFit:
    plateaus: tuple[Plateau, ...]
    # the curve the levels were read from: median of three neighbours (OS
    # priors) or the non-increasing fit (blind)
    curve: tuple[float, ...] = field(default=())
    notes: tuple[Advice, ...] = ()  # what the user should know about the levels

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
                  os_caches: Sequence[OsCache] = (), **blind) -> LevelFit:
    """The memory levels of a bandwidth curve (best rate per working-set
    size): from the OS cache sizes as priors when the OS reports an L1
    (:func:`levels_from_priors`), else from the curve alone
    (:func:`blind_levels`, which takes ``blind``'s tuning arguments)."""
    sizes = np.asarray(sizes, dtype=float)
    rates = np.asarray(rates, dtype=float)
    if sizes.shape != rates.shape or len(sizes) < 2:
        raise ValueError("need matching sizes and rates, at least two points")
    fit = levels_from_priors(sizes, rates, os_caches)
    return fit if fit is not None else blind_levels(sizes, rates, os_caches=os_caches, **blind)


def blind_levels(sizes: Sequence[float], rates: Sequence[float], *,
                 os_caches: Sequence[OsCache] = (), max_levels: int | None = None,
                 min_ratio: float = 1.25, min_points: int = 2,
                 flat_tolerance: float = 0.15, max_slope: float = 0.75) -> LevelFit:
    """Plateaus of a bandwidth curve found without priors (module docstring)."""
    sizes = np.asarray(sizes, dtype=float)
    rates = np.asarray(rates, dtype=float)
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
                           capacity_bytes=os_c.size_bytes if os_c else cap,
                           os_bytes=os_c.size_bytes if os_c else None, measured_bytes=cap))
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


# ------------------------------------------------------------------ OS sizes as priors

# Adjacent levels whose figures are within this ratio load "at the same rate
# on this CPU": one size's best rate moves about 5 % from run to run on a
# quiet machine, and likwid-bench reads Zen 1's L1 and L2 only 1.09x apart.
EQUAL_RATIO = 1.10
# Only a step at least this tall has a knee worth locating.
KNEE_RATIO = 1.25
# The figure of L2 and beyond: this quantile of the best rate per size in the
# middle of the level (one lucky or one disturbed size does not move it).
LEVEL_QUANTILE = 0.75
# DRAM is read at working sets of at least this many times the last cache.
DRAM_FROM_LLC = 4.0


def data_caches(os_caches: Sequence[OsCache]) -> list[OsCache]:
    """Data and unified caches, one per level, nearest the core first."""
    by_level = {c.level: c for c in os_caches if c.type.lower() != "instruction"}
    return [by_level[k] for k in sorted(by_level)]


def median3(y: Sequence[float]) -> np.ndarray:
    """Each point replaced by the median of itself and its two neighbours
    (ends kept): removes a single disturbed size, keeps every step."""
    y = np.asarray(y, dtype=float)
    if len(y) < 3:
        return y.copy()
    out = y.copy()
    out[1:-1] = np.median(np.stack([y[:-2], y[1:-1], y[2:]]), axis=0)
    return out


def middle_window(sizes: np.ndarray, below: float, size: float) -> np.ndarray:
    """Indices of the sizes in the middle of a level that spans (below, size]:
    within a factor 2 of the geometric middle sqrt(below x size), and at least
    1.2x clear of both ends; the size nearest the middle when none is."""
    mid = math.sqrt(below * size)
    lo, hi = max(mid / 2, 1.2 * below), min(mid * 2, size / 1.2)
    idx = np.flatnonzero((sizes >= lo * 0.999) & (sizes <= hi * 1.001))
    if len(idx) == 0:
        inside = np.flatnonzero((sizes > below) & (sizes <= size))
        if len(inside):
            idx = inside[[int(np.argmin(np.abs(np.log(sizes[inside] / mid))))]]
    return idx


def _dram_window(sizes: np.ndarray, rates: np.ndarray, llc: OsCache, llc_top: float,
                 llc_figure: float | None) -> np.ndarray:
    """Sizes that read DRAM: from 4x the last cache (2x when the sweep stops
    earlier); a shorter sweep (--quick stops at 512 MiB, below 4x a VM's
    480 MiB host L3) uses its last octave when the curve has clearly fallen
    there below the last cache's figure."""
    for factor in (DRAM_FROM_LLC, 2.0):
        idx = np.flatnonzero(sizes >= factor * llc.size_bytes * 0.999)
        if len(idx):
            return idx
    idx = np.flatnonzero((sizes >= sizes[-1] / 2) & (sizes > llc_top))
    if len(idx) and llc_figure and llc_figure >= KNEE_RATIO * np.quantile(rates[idx], LEVEL_QUANTILE):
        return idx
    return np.array([], dtype=int)


def _figure(rates: np.ndarray, idx: np.ndarray, level: int | None) -> float:
    """L1: the best rate of the whole level. Nothing on the curve is faster
    than L1, and everything that disturbs small working sets (the loop exit
    of a short inner loop, timer granularity, another process) slows them:
    the recorded Zen sweeps dip to 60 % at 8-16 KiB, and only the best reads
    what likwid-bench reads. Beyond L1 a size can also read fast by still
    half-fitting the level below, hence a quantile over the middle."""
    window = rates[idx]
    if level == 1:
        return float(window.max())
    return float(np.quantile(window, LEVEL_QUANTILE))


def find_knee(sizes: np.ndarray, curve: np.ndarray, start: int, stop: int,
              threshold: float) -> float | None:
    """Where ``curve`` last falls below ``threshold`` between indices
    ``start`` and ``stop`` (log-log interpolation), searched downwards from
    ``stop`` so that a dip inside the level is not taken for its end. None
    when the curve is still above the threshold at ``stop`` or below it
    everywhere."""
    if stop <= start or curve[stop] >= threshold:
        return None
    for i in range(stop - 1, start - 1, -1):
        if curve[i] >= threshold:
            y0, y1 = math.log(curve[i]), math.log(curve[i + 1])
            x0, x1 = math.log(sizes[i]), math.log(sizes[i + 1])
            t = (y0 - math.log(threshold)) / (y0 - y1)
            return float(math.exp(x0 + t * (x1 - x0)))
    return None


def _pair_note(a: str, b: str, fa: float, fb: float) -> Advice | None:
    """What the user should know about two adjacent levels' figures."""
    if fb > EQUAL_RATIO * fa:
        return Advice(f"{b} reads faster than {a} ({fb / 1e9:.1f} vs {fa / 1e9:.1f} GB/s), "
                      "which no cache hierarchy does",
                      "another process or a clock change disturbed the sweep: measure again on an "
                      "idle machine", f"{a}/{b}")
    if fa < EQUAL_RATIO * fb:
        return Advice(f"{a} and {b} load at the same rate on this CPU ({fa / 1e9:.1f} and "
                      f"{fb / 1e9:.1f} GB/s, within {100 * (EQUAL_RATIO - 1):.0f} %)",
                      f"both levels are kept with the sizes the OS reports; a working set that "
                      f"fits {b} runs as fast as one that fits {a}", f"{a}/{b}")
    return None


def levels_from_priors(sizes: Sequence[float], rates: Sequence[float],
                       os_caches: Sequence[OsCache]) -> LevelFit | None:
    """Levels named and sized by the OS, figures and knees from the curve.

    Every cache the OS reports is a level, labelled with the OS size (per
    core for private caches: sysfs reports one instance), and read in the
    middle of its range: L1 from its best rate at sizes up to its OS size,
    a deeper level from a quantile around the geometric middle between the
    level below and its own size. DRAM is read from 4x the last cache on.
    Adjacent levels within ``EQUAL_RATIO`` are both kept, with a note that
    they are equal on this CPU. Where the step to the next level is clear
    (>= ``KNEE_RATIO``), the knee (``measured_bytes``) is where the curve,
    median-of-3 smoothed, falls below the geometric mean of the two figures,
    searched up to the next level's middle from half the OS size (private
    caches) or from the level's middle (shared ones); a deeper level is then
    read only below its knee (a VM's share of a host cache ends early). Levels
    whose range holds no swept size are left out (the caller says so).
    None when the OS reports no L1 (no priors: use :func:`detect_levels`)."""
    caches = data_caches(os_caches)
    if not caches or caches[0].level != 1:
        return None
    sizes = np.asarray(sizes, dtype=float)
    rates = np.asarray(rates, dtype=float)
    order = np.argsort(sizes)
    sizes, rates = sizes[order], rates[order]
    curve = median3(rates)

    windows: list[tuple[str, OsCache | None, np.ndarray]] = []
    below = None
    for c in caches:
        idx = (np.flatnonzero(sizes <= c.size_bytes * 1.001) if below is None
               else middle_window(sizes, below, c.size_bytes))
        windows.append((c.name, c, idx))
        below = c.size_bytes
    present = [w for w in windows if len(w[2])]
    llc_idx = present[-1][2] if present else np.array([], dtype=int)
    llc_figure = _figure(rates, llc_idx, present[-1][1].level) if present else None
    llc_top = sizes[llc_idx[-1]] if len(llc_idx) else 0.0
    present.append(("DRAM", None, _dram_window(sizes, rates, caches[-1], llc_top, llc_figure)))
    present = [w for w in present if len(w[2])]

    figures = [_figure(rates, idx, c.level if c else None) for _n, c, idx in present]
    knees: list[float | None] = [None] * len(present)
    for j in range(len(present) - 1):
        (a, ca, ia), (_b, _cb, ib) = present[j], present[j + 1]
        fa, fb = figures[j], figures[j + 1]
        if fa < KNEE_RATIO * fb:
            continue
        # A private cache is the core's own, its OS size exact even in a VM:
        # its knee is looked for from half that size on, or the sag of short
        # loops inside L1 (Zen 4: 216 GB/s at 8 KiB, 128 at 12 KiB, 155 at
        # 32 KiB) passes for its end. A shared cache may be a VM's share of
        # the host's: its knee is looked for from the middle of the level.
        start = (int(np.searchsorted(sizes, ca.size_bytes / 2)) if ca.shared_cpus <= 1
                 else int(ia[len(ia) // 2]))
        knees[j] = find_knee(sizes, curve, start, int(ib[len(ib) // 2]), math.sqrt(fa * fb))
        if knees[j] is not None and ca.level > 1:
            # read the level only where it still holds the working set
            inside = ia[sizes[ia] <= knees[j] / 1.2]
            if len(inside) and len(inside) < len(ia):
                present[j] = (a, ca, inside)
                figures[j] = _figure(rates, inside, ca.level)
    notes = [n for j in range(len(present) - 1)
             if (n := _pair_note(present[j][0], present[j + 1][0], figures[j], figures[j + 1]))]

    plateaus = []
    for (name, c, idx), fig, knee in zip(present, figures, knees):
        core = idx
        if c is not None and c.level == 1:
            # the sizes that read L1's rate: where the all-core L1 roof is
            # measured (the middle of a sagging L1 reads 60 % of it)
            core = idx[rates[idx] >= fig / EQUAL_RATIO]
        plateaus.append(Plateau(
            name=name, first=int(idx[0]), last=int(idx[-1]), best=fig,
            median=float(np.median(rates[idx])), core=tuple(int(i) for i in core),
            capacity_bytes=c.size_bytes if c else None, os_bytes=c.size_bytes if c else None,
            measured_bytes=knee))
    return LevelFit(tuple(plateaus), tuple(float(v) for v in curve), tuple(notes))
