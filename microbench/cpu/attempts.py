"""Attempts at one ceiling: a noisy one taken again (:func:`steady`), an
all-core figure that does not scale taken again after a wait
(:func:`scaling`), and the roof from the best sample of every attempt
(:class:`Steady`). A busy machine only ever slows a sample, so a rate
reached once is a rate the machine has."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..timing import Samples
# Samples of one attempt further apart than this (max - min over median): taken again.
SPREAD_LIMIT = 0.10
# All cores reaching less than this times one core: another process held a core.
ALL_CORE_MIN_SCALING = 1.5


def scaling(take: Callable[[], "Steady"], one_core: float, threads: int, retries: int,
             settle: Callable[[], object] | None, what: str, repeated: dict) -> "Steady":
    """``take()`` again, after waiting for idle cores, while all cores reach
    less than :data:`ALL_CORE_MIN_SCALING` x one core: tight samples at one
    core's rate mean another process held the other cores for the whole
    attempt, which a spread test cannot see. The attempt with the best
    sample is kept; every attempt's best is recorded."""
    got = take()
    tries = [got.best]
    while (threads >= 2 and settle is not None and len(tries) <= retries
           and got.best < ALL_CORE_MIN_SCALING * one_core):
        settle()
        again = take()
        tries.append(again.best)
        got = again if again.best > got.best else got
    if len(tries) > 1:
        repeated[what] = {"attempts": len(tries), "bests": tries}
    return got


@dataclass(frozen=True)
class Steady(Samples):
    """The attempt kept (its rates give the median and spread) and the best
    sample of every attempt made (``peak``): a rate reached once is a rate
    the machine has, so the roof is never below it (:attr:`best`)."""

    peak: float = 0.0

    @property
    def best(self) -> float:
        return max(self.peak, max(self.rates))


def steady(take: Callable[[], Samples], retries: int, what: str, repeated: dict,
            settle: Callable[[], object] | None = None) -> Steady:
    """``take()`` again, up to ``retries`` times, while the attempt kept
    spreads more than the warning limit; ``repeated[what]`` records the
    attempts made and the spread of each.

    On the 2-vCPU VMs this was built on, an idle machine still lost a
    core for a few milliseconds now and then: one all-core L1 sample in
    five read 241-308 GB/s against 380-403 for the others, in three of
    three runs, and flagged the whole profile busy. A second attempt
    mostly comes out clean. The attempt kept is the least spread of those
    not slowed as a whole (:func:`quietest`): a process holding a core
    through a whole attempt gives tight samples at half the rate, which
    must not become the roof. A machine that stays busy stays noisy, and
    is flagged as before. The roof (``best``) is the best sample of all
    attempts: a busy machine only ever slows a sample."""
    attempts = [take()]
    while quietest(attempts).spread > SPREAD_LIMIT and len(attempts) <= retries:
        if settle is not None:
            settle()   # a retry right into the same load would only repeat it
        attempts.append(take())
    if len(attempts) > 1:
        repeated[what] = {"attempts": len(attempts), "spreads": [round(a.spread, 4) for a in attempts],
                          "bests": [a.best for a in attempts]}
    kept = quietest(attempts)
    return Steady(kept.rates, kept.reps, kept.times_s, peak=max(a.best for a in attempts))


def quietest(attempts: list[Samples]) -> Samples:
    """The least spread attempt among those whose median is within the
    warning limit of the highest median (the others ran slowed throughout)."""
    top = max(a.median for a in attempts)
    return min((a for a in attempts if a.median >= (1 - SPREAD_LIMIT) * top), key=lambda a: a.spread)


def roof_at_least(all_cores: float, one_core: float) -> tuple[float, bool]:
    """The all-core roof, never below what one core reached: all cores can
    always do what one of them did, so an all-core figure below it was
    measured while another process held a core (a busy Xeon saved 64
    GFLOP/s FP32 for two cores after one core had read 169). Returns the
    roof and whether the one-core figure set it."""
    if one_core > all_cores:
        return one_core, True
    return all_cores, False
