"""Totals and families of a projection, with their 80 % intervals.

Rows of one basis share their error (a library's efficiency, a floor, a
bandwidth ratio is wrong for all of them together), so their interval
bounds add; bases are taken as independent, so their deviations add in
quadrature:

    low  = P - sqrt(sum_b (P_b - L_b)^2)      high = P + sqrt(sum_b (H_b - P_b)^2)

with P_b, L_b, H_b the sums of projected, low and high times of basis b.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Sum:
    measured_s: float
    projected_s: float
    low_s: float
    high_s: float
    at_roof_s: float


@dataclass(frozen=True)
class Totals:
    total: Sum
    families: dict      # family -> Sum, longest measured first


def totals(families, measured, projected, low, high, at_roof, basis, counted) -> Totals:
    rows = counted & np.isfinite(projected)
    fams = {}
    for family in np.unique(np.asarray(families[rows], dtype=str)):
        mask = rows & (families == family)
        fams[str(family)] = _sum(mask, measured, projected, low, high, at_roof, basis)
    ordered = dict(sorted(fams.items(), key=lambda kv: -kv[1].measured_s))
    return Totals(_sum(rows, measured, projected, low, high, at_roof, basis), ordered)


def _sum(mask, measured, projected, low, high, at_roof, basis) -> Sum:
    if not mask.any():          # nothing was summed: no figure, not 0
        return Sum(math.nan, math.nan, math.nan, math.nan, math.nan)
    p = float(np.sum(projected[mask]))
    down = up = 0.0
    for code in np.unique(basis[mask]):
        part = mask & (basis == code)
        pb = float(np.sum(projected[part]))
        down += (pb - float(np.sum(low[part]))) ** 2
        up += (float(np.sum(high[part])) - pb) ** 2
    return Sum(float(np.nansum(measured[mask])), p, max(p - math.sqrt(down), 0.0), p + math.sqrt(up),
               float(np.sum(at_roof[mask])))
