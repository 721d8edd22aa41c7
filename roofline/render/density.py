"""Where a chart would draw more points than anyone can tell apart, a
density of every row instead: a 2-D histogram on log-spaced bins, as a grey
scale of how many rows (or how much time) fall in each cell, under the
markers of the condensed rows (:func:`roofline.core.aggregate.condense`)."""
from __future__ import annotations

import math

import numpy as np


DENSITY_BINS = 90


def draw_density(ax, x, y, bins: int = DENSITY_BINS, weights=None, label: str = "kernel rows per cell",
                 colorbar: bool = False, cmap: str = "Greys"):
    """2-D histogram of (x, y) on log-spaced bins inside the axes' current
    limits, drawn under everything else (zorder 1), with a legend entry
    (or, with ``colorbar``, a colour bar: slower to render). Returns the
    mesh, or None when nothing falls inside. Points outside the limits are
    counted in ``mesh.outside``."""
    from matplotlib.colors import LogNorm
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    lx, ly = np.log10(x[ok]), np.log10(y[ok])
    xe = np.linspace(math.log10(x0), math.log10(x1), bins + 1)
    ye = np.linspace(math.log10(y0), math.log10(y1), int(bins * 0.65) + 1)
    w = None if weights is None else np.asarray(weights, dtype=float)[ok]
    hist, _, _ = np.histogram2d(lx, ly, bins=(xe, ye), weights=w)
    inside = int(((lx >= xe[0]) & (lx <= xe[-1]) & (ly >= ye[0]) & (ly <= ye[-1])).sum())
    if not hist.any():
        return None
    masked = np.ma.masked_less_equal(hist.T, 0)
    mesh = ax.pcolormesh(10 ** xe, 10 ** ye, masked, cmap=cmap,
                         norm=LogNorm(vmin=max(masked.min(), 1e-300), vmax=masked.max()),
                         alpha=0.75, zorder=1, rasterized=True, linewidth=0)
    mesh.outside = int(ok.sum()) - inside
    if colorbar:
        cb = ax.figure.colorbar(mesh, ax=ax, shrink=0.55, pad=0.01, aspect=30)
        cb.set_label(label, fontsize=8)
        cb.ax.tick_params(labelsize=7)
    else:
        # rows outside the limits are said in the entry, not in a note of
        # their own: a note in a corner fell under the legend
        outside = f"; {mesh.outside:,} rows outside the chart" if mesh.outside else ""
        _legend_entry(ax, f"{label}: darker = more (at most {masked.max():,.0f} a cell{outside})")
    return mesh


def _legend_entry(ax, label: str) -> None:
    """Add a grey swatch to the axes' legend, keeping its place."""
    from matplotlib.patches import Patch
    legend = ax.get_legend()
    handles = list(legend.legend_handles) if legend is not None else []
    labels = [t.get_text() for t in legend.get_texts()] if legend is not None else []
    loc = legend._loc if legend is not None else "best"
    swatch = Patch(facecolor="#9a9a9a", edgecolor="#666666", label=label)
    ax.legend(handles=handles + [swatch], labels=labels + [label], loc=loc, fontsize=8, framealpha=0.9)
