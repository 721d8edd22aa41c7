"""Pure helpers of the GPU runner: calibration, grid sizing, fits.

Nothing here touches a GPU: the clock or the timed call is always a
parameter, so tests drive these with fakes.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

MIN_TIMED_S = 0.010  # every timed call lasts at least this long


def calibrate(time_call: Callable[[int], float], target_s: float = MIN_TIMED_S, *,
              start: int = 1, limit: int = 2**31 - 1, max_calls: int = 40) -> tuple[int, float]:
    """Smallest count, grown geometrically, whose timed call lasts ``target_s``.

    ``time_call(n)`` runs ``n`` units of work (loop iterations, launches,
    copies) and returns the seconds it took. From each too-short call the
    count is scaled by the missing factor (with 20 % margin, at least x2 and
    at most x100), so a linear cost converges in two or three calls.
    Returns ``(count, seconds of the last call)``; stops at ``limit``.
    """
    n = max(1, int(start))
    t = 0.0
    for _ in range(max_calls):
        t = float(time_call(n))
        if t >= target_s or n >= limit:
            return n, t
        grow = 100.0 if t <= 0 else min(100.0, max(2.0, 1.2 * target_s / t))
        n = min(limit, max(n + 1, int(math.ceil(n * grow))))
    return n, t


def rates(work: float, times_s: Sequence[float]) -> tuple[float, ...]:
    """Work per second of each timed call."""
    return tuple(work / t for t in times_s if t > 0)


def full_wave_grid(sm_count: int, blocks_per_sm: int) -> int:
    """Blocks of a grid that fills every SM with ``blocks_per_sm`` resident
    blocks: whole waves only, so no SM idles at the tail."""
    if sm_count < 1 or blocks_per_sm < 1:
        raise ValueError("sm_count and blocks_per_sm must be positive")
    return sm_count * blocks_per_sm


def occupancy_sweep(max_resident: int, quick: bool = False) -> list[int]:
    """Resident blocks per SM to try: powers of two up to the maximum the
    occupancy calculator allows, plus that maximum; the quick mode keeps the
    two largest (latency hiding usually wants the most warps)."""
    max_resident = max(1, int(max_resident))
    points = sorted({1 << k for k in range(max_resident.bit_length()) if 1 << k <= max_resident}
                    | {max_resident})
    return points[-2:] if quick else points


def pow2_floor(x: float) -> int:
    """Largest power of two not above ``x`` (at least 1)."""
    return 1 << max(0, int(math.floor(math.log2(max(1.0, x)))))


def stream_iterations(target_bytes: float, threads: int, bytes_per_iteration: float) -> int:
    """Loop iterations per thread so a grid-stride pass covers ``target_bytes``."""
    return max(1, int(math.ceil(target_bytes / (threads * bytes_per_iteration))))


def dram_buffer_bytes(l2_bytes: float, free_bytes: float, *, factor: int = 8,
                      floor: float = 256e6, share: float = 0.25) -> float:
    """Size of each DRAM test buffer: ``factor`` times the L2 and at least
    ``floor``, but not more than ``share`` of the free device memory."""
    want = max(factor * l2_bytes, floor)
    return float(min(want, share * free_bytes))


def fit_latency_bandwidth(sizes: Sequence[float], times_s: Sequence[float]) -> tuple[float, float]:
    """Least-squares fit of time = latency + size / bandwidth.

    Returns ``(latency_s, bandwidth_bytes_s)``; the latency is clipped at 0.
    """
    x = np.asarray(sizes, dtype=float)
    y = np.asarray(times_s, dtype=float)
    if x.size < 2 or np.ptp(x) == 0:
        raise ValueError("need at least two different sizes to fit")
    slope, intercept = np.polyfit(x, y, 1)
    if slope <= 0:
        raise ValueError("time does not grow with size: cannot fit a bandwidth")
    return max(0.0, float(intercept)), float(1.0 / slope)


def host_sizes(quick: bool = False) -> list[int]:
    """Host-link transfer sizes: 4 KiB .. 256 MiB by x4 (quick: by x16 to 64 MiB)."""
    if quick:
        return [4096 * 16**k for k in range(5)]
    return [4096 * 4**k for k in range(9)]
