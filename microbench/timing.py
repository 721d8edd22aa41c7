"""Backend-independent timing: calibrate, warm up, repeat, keep every sample.

Every function takes the clock as a parameter (a zero-argument callable
returning seconds, ``time.perf_counter`` by default) so the logic can be
tested deterministically with a fake clock.

The kernel under test is a callable ``fn(reps)`` that performs ``reps``
repetitions of a fixed piece of work (``work_per_rep`` FLOP or bytes).
Calibration grows ``reps`` until one timed call lasts at least
``min_time_s`` (5-20 ms keeps timer resolution and call overhead far below
1 %); the calibration calls double as warm-up. Then ``repeats`` timed calls
are made and every rate is kept: peaks come from the best sample (max rate),
the robust figure is the median, and the spread is (max - min) / median.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

Clock = Callable[[], float]

# calibration accepts reps only when doubling them takes >= 1.8x as long,
# i.e. fixed per-call costs are at most ~1/9 of a call
LINEARITY = 1.8 / 2.0


@dataclass(frozen=True)
class Samples:
    """Rates of repeated timed calls (work per second), all kept."""

    rates: tuple[float, ...]
    reps: int = 1
    times_s: tuple[float, ...] = ()

    @property
    def best(self) -> float:
        return max(self.rates)

    @property
    def median(self) -> float:
        return float(np.median(self.rates))

    @property
    def spread(self) -> float:
        if len(self.rates) < 2:
            return 0.0
        return (max(self.rates) - min(self.rates)) / self.median

    def scaled(self, factor: float) -> "Samples":
        return Samples(tuple(r * factor for r in self.rates), self.reps, self.times_s)


def time_call(fn: Callable[[int], object], reps: int, clock: Clock = time.perf_counter) -> float:
    """Seconds taken by one call ``fn(reps)``."""
    t0 = clock()
    fn(reps)
    return clock() - t0


def calibrate(fn: Callable[[int], object], min_time_s: float, *, clock: Clock = time.perf_counter,
              start: int = 1, max_reps: int = 1 << 40, max_calls: int = 40) -> tuple[int, float]:
    """Smallest-effort ``reps`` such that ``fn(reps)`` lasts >= ``min_time_s``.

    Grows ``reps`` by the ratio of target to observed time (with 20 %
    headroom, at least x1.5 and at most x10 per step, x10 when the call was
    too short to register). A call that reaches the target (but not ten
    times over) is checked by a call with twice the reps, which must take
    at least 1.8x as long (else per-call costs dominate and calibration
    continues). Returns ``(reps, seconds)`` of the accepted call.
    """
    if min_time_s <= 0:
        raise ValueError("min_time_s must be positive")
    reps = max(1, int(start))
    elapsed = 0.0
    for _ in range(max_calls):
        elapsed = time_call(fn, reps, clock)
        if reps >= max_reps or elapsed >= 10 * min_time_s:
            return reps, elapsed
        if elapsed >= min_time_s:
            # Check that the time is the work's: twice the reps must take
            # nearly twice as long. A call inflated by a one-off or per-call
            # cost (waking sleeping worker threads, a page fault, preemption)
            # fails this, and calibration goes on from the faster figure.
            double = min(max_reps, 2 * reps)
            t2 = time_call(fn, double, clock)
            if t2 >= LINEARITY * elapsed * double / (2 * reps) or double >= max_reps:
                return reps, elapsed
            reps, elapsed = double, t2
            if elapsed >= min_time_s:
                reps = min(max_reps, 2 * reps)
                continue
        if elapsed <= 0:
            factor = 10.0
        else:
            factor = min(10.0, max(1.5, 1.2 * min_time_s / elapsed))
        reps = min(max_reps, int(math.ceil(reps * factor)))
    return reps, elapsed


def measure(fn: Callable[[int], object], work_per_rep: float, *, min_time_s: float = 0.01,
            repeats: int = 5, warmup: int = 0, clock: Clock = time.perf_counter,
            start: int = 1, max_reps: int = 1 << 40,
            long_call_s: float | None = None, long_repeats: int | None = None) -> Samples:
    """Calibrate, warm up, then time ``repeats`` calls; rates = work / time.

    The calibration calls are the first warm-up (the last one already runs
    the final ``reps``); ``warmup`` adds more. When one calibrated call
    lasts longer than ``long_call_s`` (a DRAM-sized working set), that call
    is kept as a sample and ``long_repeats`` more are timed instead of
    ``repeats``.
    """
    reps, last = calibrate(fn, min_time_s, clock=clock, start=start, max_reps=max_reps)
    for _ in range(warmup):
        fn(reps)
    times = []
    if long_call_s is not None and long_repeats is not None and last > long_call_s:
        # a long call is not dominated by one-off costs: the calibration call
        # is a sample too, and fewer further calls are needed
        times.append(last)
        repeats = long_repeats
    for _ in range(max(1, repeats)):
        times.append(time_call(fn, reps, clock))
    rates = tuple(work_per_rep * reps / max(t, 1e-12) for t in times)
    return Samples(rates=rates, reps=reps, times_s=tuple(times))


def per_call_seconds(fn: Callable[[], object], *, min_time_s: float = 0.01, repeats: int = 5,
                     clock: Clock = time.perf_counter) -> Samples:
    """Time of one call of a no-argument callable (for launch overhead).

    Returned ``rates`` are seconds per call (not a rate), one per repeat.
    """
    def loop(reps):
        for _ in range(reps):
            fn()
    s = measure(loop, 1.0, min_time_s=min_time_s, repeats=repeats, clock=clock)
    return Samples(rates=tuple(1.0 / r for r in s.rates), reps=s.reps, times_s=s.times_s)


def geometric_sizes(min_bytes: int, max_bytes: int, steps_per_octave: int, *, multiple: int = 1) -> list[int]:
    """Working-set sizes in geometric steps, rounded to ``multiple``, unique, ascending.

    The last size is >= ``max_bytes``.
    """
    if min_bytes <= 0 or max_bytes < min_bytes:
        raise ValueError("need 0 < min_bytes <= max_bytes")
    ratio = 2.0 ** (1.0 / steps_per_octave)
    count = int(math.ceil(math.log(max_bytes / min_bytes, ratio) - 1e-9)) + 1
    out: list[int] = []
    for i in range(count):
        size = min_bytes * ratio ** i
        size = max(multiple, int(round(size / multiple)) * multiple)
        if not out or size > out[-1]:
            out.append(size)
    if out[-1] < max_bytes:
        out.append(int(math.ceil(max_bytes / multiple)) * multiple)
    return out
