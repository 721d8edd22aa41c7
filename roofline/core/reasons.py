"""Why a kernel runs below its roof, as far as the profile can tell.

Every kernel below ``Rules.near_roof`` of its roof, and every overhead-bound
one, gets one reason: the first of these that its evidence supports.

=============================== ===================================================
reason                          evidence
=============================== ===================================================
``dispatch``                    a framework operator with no work of its own: its
                                self time is the framework's (CPU traces)
``no work counted``             counters (or a kernels.csv) give the kernel neither
                                FLOPs nor bytes: nothing of its time scales
``fixed cost``                  a fixed cost per call, fitted across the sizes of
                                the same operator or kernel (or the profile's
                                typical one), is at least half of the time the
                                call loses against its roof
``under-fills the device``      fewer thread blocks than the GPU has SMs
``fewer threads than the roof`` a CPU operator ran on fewer threads than the
                                cores the roof assumes
``data from cache``             modelled bytes moved faster than DRAM allows: the
                                data came from the last-level cache, whose roof it
                                is placed on (given at any efficiency)
``precision assumed``           fp32 matrix work on a GPU whose kernel name does not
                                say whether it ran on the FFMA units or as TF32 on
                                tensor cores: the roof is the fp32 one, an assumption
``traffic above compulsory``    modelled bytes are only the compulsory ones (each
                                tensor read and written once); a bandwidth-bound
                                kernel far below that roof likely moves more
``no evidence``                 below its roof, and nothing in the profile says why
=============================== ===================================================
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

(NONE, DISPATCH, NO_WORK, FIXED, UNDER_FILLED, FEWER_THREADS, FROM_CACHE, PRECISION, TRAFFIC,
 NO_EVIDENCE) = range(10)
REASONS = ("", "dispatch", "no work counted", "fixed cost", "under-fills the device",
           "fewer threads than the roof", "data from cache", "precision assumed", "traffic above compulsory",
           "no evidence")

# A modelled bandwidth-bound kernel below this share of its roof likely moves
# more than its compulsory bytes.
TRAFFIC_SHARE = 0.5


@dataclass(frozen=True)
class Evidence:
    """What is known of each row, as boolean columns (see the module doc)."""

    dispatch: np.ndarray
    no_work: np.ndarray
    fixed: np.ndarray            # a fixed cost is at least half of the time lost
    under_filled: np.ndarray
    fewer_threads: np.ndarray
    from_cache: np.ndarray
    precision_assumed: np.ndarray
    modelled_bandwidth: np.ndarray   # modelled bytes limit it


def reasons(e: Evidence, below: np.ndarray, efficiency: np.ndarray, overhead: np.ndarray) -> np.ndarray:
    """Each row's reason code (an index into :data:`REASONS`): the first
    that applies, for rows below their roof or overhead-bound; rows placed
    on a cache by evidence say so whatever their efficiency."""
    n = len(below)
    out = np.full(n, NONE, dtype=np.int8)
    needs = below | overhead
    rules = (
        (DISPATCH, e.dispatch),
        (NO_WORK, e.no_work),
        (FIXED, e.fixed),
        (UNDER_FILLED, e.under_filled),
        (FEWER_THREADS, e.fewer_threads),
        (FROM_CACHE, e.from_cache),
        (PRECISION, e.precision_assumed),
        (TRAFFIC, e.modelled_bandwidth & (np.nan_to_num(efficiency) < TRAFFIC_SHARE)),
    )
    undecided = needs.copy()
    for code, mask in rules:
        hit = undecided & mask
        out[hit] = code
        undecided &= ~hit
    out[undecided] = NO_EVIDENCE
    out[~needs & e.from_cache] = FROM_CACHE
    return out
