"""How close a device's matrix libraries came to its matrix roof in a real
trace: the figure a projection carries matrix rows by
(``devices/observations/gpus.yaml``, written by ``tools/observe_devices.py``).

The rows counted are compute-bound matrix rows on tensor cores (GEMMs and
convolutions: :func:`~.projection.library_rows`) whose kernels were built for the device (not an
older GPU's kernel) and whose calls last at least three kernel floors, so
the floor does not decide their efficiency. Each row's efficiency is its
roofline time over its time less its floors; rows are weighted by time.

:func:`fallback_sample` counts the other matrix rows: those whose kernels
were built for an older GPU (``cutlass_75_*`` on an sm_90 H100, what cuBLAS
falls back to when a GEMM's operands are not 16-byte aligned for the
newer kernels' TMA), compute- or bandwidth-bound, the share of their roof
they reached; :func:`attention_sample` the fused attention rows, whose
kernels come from attention libraries rather than the GEMM ones.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.kernel_arch import older_than_device
from ..core.placement import Placements
from .projection import _efficiency, _tensor_matrix, library_rows


@dataclass(frozen=True)
class LibrarySample:
    """What one trace says: sum of time x ln(efficiency), of time x
    ln(efficiency)^2, of time, and the rows counted. Samples add."""

    weighted_log: float = 0.0
    weighted_square: float = 0.0
    weight_s: float = 0.0
    rows: int = 0

    def __add__(self, other: "LibrarySample") -> "LibrarySample":
        return LibrarySample(self.weighted_log + other.weighted_log, self.weighted_square + other.weighted_square,
                             self.weight_s + other.weight_s, self.rows + other.rows)

    @property
    def efficiency(self) -> float:
        """Time-weighted geometric mean (NaN without rows)."""
        return math.exp(self.weighted_log / self.weight_s) if self.weight_s > 0 else math.nan

    @property
    def spread(self) -> float:
        """Time-weighted standard deviation of ln(efficiency)."""
        if self.weight_s <= 0:
            return math.nan
        mean = self.weighted_log / self.weight_s
        return math.sqrt(max(self.weighted_square / self.weight_s - mean * mean, 0.0))


def library_sample(placements: Placements, floor_s: float) -> LibrarySample:
    """The matrix-unit rows of one placed trace (see the module doc)."""
    older = older_than_device(placements.kernels.names, placements.device.architecture)
    return _sample(placements, floor_s, library_rows(placements) & ~older)


def fallback_sample(placements: Placements, floor_s: float) -> LibrarySample:
    """Tensor-core matrix rows whose kernels were built for an older GPU
    than the device (see the module doc), whatever bounds them; not those
    whose operands are known to be aligned (an older kernel chosen for
    another reason, a fused epilogue, is no fallback)."""
    older = older_than_device(placements.kernels.names, placements.device.architecture)
    aligned = placements.kernels.unaligned <= 0.5
    return _sample(placements, floor_s, _tensor_matrix(placements) & older & ~aligned)


def attention_sample(placements: Placements, floor_s: float) -> LibrarySample:
    """Fused attention rows on tensor cores (kernels built for the device)."""
    kernels = placements.kernels
    older = older_than_device(kernels.names, placements.device.architecture)
    return _sample(placements, floor_s, _tensor_matrix(placements) & ~older & (kernels.families == "attention"))


def _sample(placements: Placements, floor_s: float, rows: np.ndarray) -> LibrarySample:
    kernels = placements.kernels
    n = np.maximum(np.nan_to_num(kernels.count, nan=1.0), 1.0)
    time_s = kernels.time_s
    rows = rows & np.isfinite(time_s) & (time_s >= 3 * floor_s * n)
    efficiency = _efficiency(time_s, n * floor_s, placements.roofline_time_s)
    rows &= np.isfinite(efficiency) & (efficiency > 0)
    log = np.log(efficiency[rows])
    w = time_s[rows]
    return LibrarySample(float(np.sum(w * log)), float(np.sum(w * log * log)), float(np.sum(w)), int(rows.sum()))
