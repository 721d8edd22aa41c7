"""The roofline's geometry, decided once for the static (:mod:`.plot`)
and the interactive (:mod:`.interactive`) chart: which compute roofs are
drawn (the precisions the kernels use, else the device's peak), which
memory levels (the host link only when a row has bytes on it), where the
ridges are, and the axes fitted to those roofs and the points drawn (not to
a tensor peak no roof is drawn for)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.model import HOST_LINK, Device


@dataclass(frozen=True)
class Roofs:
    """``compute``: (precision, FLOP/s), highest first; ``levels``: the
    memory levels drawn, with their bandwidths; ``top``: the roof the
    bandwidth lines meet."""

    compute: tuple[tuple[str, float], ...]
    levels: tuple[tuple[str, float], ...]

    @property
    def top(self) -> float:
        return self.compute[0][1]

    def ridges(self) -> dict[str, float]:
        """Level -> intensity where its bandwidth line meets the top roof."""
        return {lv: self.top / bw for lv, bw in self.levels}


def roofs_of(device: Device, precisions=None, levels=None) -> Roofs:
    """The roofs of ``device`` for ``precisions`` (names or keys; default its
    peak precision) and ``levels`` (default every level but the host link)."""
    keys = {device.compute_key(k) for k in precisions} if precisions else {device.peak_precision}
    compute = tuple(sorted(((k, device.compute[k].value) for k in keys if k in device.compute),
                           key=lambda kv: -kv[1]))
    if not compute:
        compute = ((device.peak_precision, device.compute[device.peak_precision].value),)
    names = list(levels) if levels is not None else [lv for lv in device.memory if lv != HOST_LINK]
    return Roofs(compute, tuple((lv, device.memory[lv].bytes_s) for lv in names if lv in device.memory))


def placement_roofs(p) -> Roofs:
    """The roofs a chart of placements ``p`` draws: the precisions with
    FLOPs, the levels but the host link unless a row has bytes on it."""
    device = p.roof_device
    used = [k for k, v in p.kernels.flops.items() if np.nansum(v) > 0]
    levels = [lv for lv in device.memory if lv != HOST_LINK or np.any(p.intensity.get(lv, np.array([0.0])) > 0)]
    return roofs_of(device, used or None, levels)


def fitted_limits(roofs: Roofs, xs: np.ndarray, ys: np.ndarray, margin: float = 2.5):
    """(x limits, y limits) holding the points and the ridges with a margin,
    and the top roof with room for its label; no empty decades beyond."""
    xs = np.asarray(xs, dtype=float)
    ys = np.asarray(ys, dtype=float)
    xs = xs[np.isfinite(xs) & (xs > 0)]
    ys = ys[np.isfinite(ys) & (ys > 0)]
    ridges = list(roofs.ridges().values()) or [1.0]
    lo_x = min(list(xs / margin) + [min(ridges) / 20])
    hi_x = max(list(xs * margin) + [max(ridges) * 4])
    lo_y = min(list(ys / margin) + [roofs.top / 1e3])
    hi_y = max([roofs.top * 2.2] + list(ys * 2.2))
    return (lo_x, hi_x), (lo_y, hi_y)


def segments_cross(a, b) -> bool:
    """Whether segments ``a`` and ``b`` ((x0, y0, x1, y1) each, screen
    units) cross at a point inside both (touching ends do not count)."""
    (x1, y1, x2, y2), (x3, y3, x4, y4) = a, b

    def side(ax, ay, bx, by, cx, cy):
        return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    d1, d2 = side(x3, y3, x4, y4, x1, y1), side(x3, y3, x4, y4, x2, y2)
    d3, d4 = side(x1, y1, x2, y2, x3, y3), side(x1, y1, x2, y2, x4, y4)
    return d1 * d2 < 0 and d3 * d4 < 0
