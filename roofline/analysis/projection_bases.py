"""What each projected row rests on: the bases of a projection, their
texts, and how uncertain each is (docs/concepts.md, "Projection").

A basis names the evidence a row's projected time comes from. Its
``sigma`` is the standard deviation of ln(measured / projected) expected
for rows of that basis; an 80 % interval is projected x exp(+-1.28 sigma).
The sigmas are calibrated on the real pairs of
``benchmarks/projection.py`` (both directions, each model projected with
library efficiencies observed on the other model only), rounded up; the
benchmark prints how often the intervals held.
"""
from __future__ import annotations

from dataclasses import dataclass

# the normal quantile of 0.9: exp(+-Z80 sigma) holds 80 % of a lognormal error
Z80 = 1.2815515655446004
# ln(1 / efficiency) x this widens a row far below its roof on the source:
# what holds it there (a library's choice, a shape) may not hold on the target
FAR_FROM_ROOF = 0.12
# added to every row's sigma when a CPU trace is projected onto a GPU or the
# reverse: no pair of that kind was checked
ACROSS_KINDS = 0.5


@dataclass(frozen=True)
class Basis:
    key: str
    text: str
    sigma: float


BASES = (
    Basis("matrix", "matrix units at each GPU's observed library efficiency", 0.20),
    Basis("matrix_carried", "matrix units, the source's efficiency carried (no library efficiency observed for one GPU)", 0.35),
    Basis("attention", "fused attention on matrix units at each GPU's observed attention-kernel efficiency", 0.25),
    Basis("older_kernel", "the source ran a kernel built for an older GPU: the library efficiency observed for the target (else for the source) instead of its own", 0.35),
    Basis("fallback", "operands not 16-byte aligned: the target's newer GEMM kernels (TMA) cannot take them; the share of their roof its fallback (older-GPU) kernels were observed to reach", 0.35),
    Basis("fallback_unobserved", "operands not 16-byte aligned: the target falls back to older-GPU kernels, whose efficiency there was never observed; the source's efficiency carried", 0.50),
    Basis("compute", "compute roof, the source's efficiency carried", 0.20),
    Basis("bandwidth", "bytes on the target's same level, the source's efficiency carried", 0.12),
    Basis("floor", "at the source's kernel floor: the target's floor", 0.30),
    Basis("collective", "on the target's link roofs, the source's efficiency carried", 0.30),
    Basis("no_work_own", "no work of its own: scaled by the two floors", 0.40),
    Basis("twin", "no work: the ratio of its twin (same kernel and launch, with work)", 0.25),
    Basis("family", "no work: its family's time-weighted ratio in this trace", 0.35),
    Basis("trace", "no work: the trace's time-weighted ratio", 0.45),
    Basis("kept", "no work and nothing to scale by: kept at its measured time", 0.70),
    Basis("unmeasured", "no measured time (none, or 0): nothing to project, left out of the totals", 0.0),
)
KEYS = tuple(b.key for b in BASES)
CODE = {b.key: i for i, b in enumerate(BASES)}
SIGMA = tuple(b.sigma for b in BASES)
TEXT = tuple(b.text for b in BASES)
