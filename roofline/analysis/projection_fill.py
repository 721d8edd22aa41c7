"""Projected times for rows without work (kernels launched before the
profiler's CPU window, kernels of no operator, custom kernels): the ratio
of a twin with work, else of their family, else of the whole trace, so
that every row is projected and the total covers the whole trace."""
from __future__ import annotations

import numpy as np

from ..core.model import KernelSet
from .projection_bases import CODE


def fill_without_work(kernels: KernelSet, time_s: np.ndarray, projected: np.ndarray, basis: np.ndarray,
                      sigma: np.ndarray, counted: np.ndarray):
    """``projected``, ``basis`` and ``sigma`` with every row that has a time
    but no projection filled in; a filled row's sigma is its donors'
    (time-weighted), to which the caller adds its own basis's."""
    projected, basis, sigma = projected.copy(), basis.copy(), sigma.copy()
    timed = np.isfinite(time_s) & (time_s > 0)
    # copies (out of the totals) and collectives (on links) say nothing of kernels' ratios
    donor = timed & np.isfinite(projected) & counted & (basis != CODE["collective"])
    missing = timed & ~np.isfinite(projected)
    if not missing.any():
        return projected, basis, sigma
    ratio = np.full(len(time_s), np.nan)
    spread = np.zeros(len(time_s))
    code = np.full(len(time_s), CODE["kept"], dtype=np.int8)
    keys = [("trace", np.zeros(len(time_s), dtype=np.int64)),
            ("family", _ids(kernels.families)),
            ("twin", _ids(_launch_keys(kernels)))]
    for name, ids in keys:      # the most specific donor found wins
        r, s = _group_ratio(ids, time_s, projected, sigma, donor)
        found = missing & np.isfinite(r)
        ratio[found], spread[found], code[found] = r[found], s[found], CODE[name]
    kept = missing & ~np.isfinite(ratio)
    ratio[kept], spread[kept] = 1.0, 0.0
    projected[missing] = time_s[missing] * ratio[missing]
    basis[missing] = code[missing]
    sigma[missing] = spread[missing]
    return projected, basis, sigma


def _launch_keys(kernels: KernelSet) -> np.ndarray:
    """Kernel name and launch size: a twin ran the same kernel on as many
    blocks (rows whose block count is unknown match on the name)."""
    blocks = np.where(np.isfinite(kernels.blocks), kernels.blocks, -1.0)
    return np.array([f"{n}\x00{b:.0f}" for n, b in zip(kernels.names.tolist(), blocks.tolist())], dtype=object)


def _ids(values: np.ndarray) -> np.ndarray:
    _, inverse = np.unique(np.asarray(values, dtype=str), return_inverse=True)
    return inverse.astype(np.int64)


def _group_ratio(ids: np.ndarray, time_s: np.ndarray, projected: np.ndarray, sigma: np.ndarray,
                 donor: np.ndarray):
    """Per row: its group's donors' projected / measured time and their
    time-weighted sigma (NaN where the group has no donor)."""
    size = int(ids.max()) + 1 if len(ids) else 0
    weight = np.where(donor, time_s, 0.0)
    measured = np.bincount(ids, weights=weight, minlength=size)
    moved = np.bincount(ids, weights=np.where(donor, projected, 0.0), minlength=size)
    spread = np.bincount(ids, weights=np.where(donor, sigma * time_s, 0.0), minlength=size)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(measured > 0, moved / measured, np.nan)
        mean_sigma = np.where(measured > 0, spread / measured, 0.0)
    return ratio[ids], mean_sigma[ids]
