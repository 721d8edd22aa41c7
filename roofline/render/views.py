"""One registry of the roofline views, shared by ``roofline plot --view``
(its choices, its help and what ``auto`` picks) and the report (which
roofline charts it draws, their names, which are also the file names of a
Markdown report's PNGs, and their captions): a view added here is offered
by both.

A view has something to draw for placements when :meth:`View.applies`:
cache-aware when some row has FLOPs, bytes and a time; hierarchical when,
besides, some row has bytes at two or more memory levels; instruction when
rows have warp instruction counts and the device an instruction ceiling.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

AUTO = "auto"


def _drawable(p) -> bool:
    y, x = p.achieved_flop_s, p.cache_aware_intensity
    return bool(np.any(np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)))


def _multi_level(p) -> bool:
    if not _drawable(p) or not p.intensity:
        return False
    multi = sum(np.isfinite(v).astype(int) for v in p.intensity.values())
    return bool(np.any(np.asarray(multi) > 1))


def _instructions(p) -> bool:
    inst = getattr(p.kernels, "instructions", None)
    return (getattr(p.device, "instruction_rate", None) is not None and inst is not None
            and bool(np.any(np.nan_to_num(np.asarray(inst, dtype=float)) > 0)))


@dataclass(frozen=True)
class View:
    """``key``: the name ``--view`` takes; ``summary``: its line in the
    help; ``caption``: the report's caption of its chart (``{unit}``: kernel
    or operator); ``figure``: the report's name of its chart."""

    key: str
    summary: str
    caption: str
    figure: str
    test: Callable = _drawable
    flop_roofline: bool = True       # placed on FLOP roofs (the instruction roofline is not)

    def applies(self, placements) -> bool:
        """Whether the view has something to draw for ``placements``."""
        return bool(self.test(placements))


VIEWS = {v.key: v for v in (
    View("hierarchical", "one marker per memory level a kernel has bytes for (L1 o, L2 s, L3 ^, DRAM D)",
         "Hierarchical roofline (Yang et al.): one marker per memory level at the same achieved FLOP/s; the "
         "level closest to its own roof limits the {unit}.", "roofline-hierarchical", _multi_level),
    View("cache-aware", "one marker per kernel at its intensity over the nearest level (Ilic et al. 2014)",
         "Cache-aware roofline (Ilic et al.): intensity over the bytes at the nearest level with a counter; "
         "marker size = share of time, colour = bound class", "roofline-cache-aware", _drawable),
    View("instruction", "warp GIPS against warp instructions per transaction (Ding and Williams 2019);\n"
         "needs instruction and transaction counters (ncu or nvprof)",
         "Instruction roofline; dotted lines are access-pattern walls.", "instruction", _instructions,
         flop_roofline=False),
)}


def choices() -> tuple[str, ...]:
    """What ``--view`` takes: ``auto`` and every registered view."""
    return (AUTO, *VIEWS)


def roofline_views(placements) -> list[str]:
    """The FLOP-roofline views with something to draw, cache-aware first
    (the report's order); none when no row can be drawn."""
    order = ["cache-aware"] + [k for k, v in VIEWS.items() if v.flop_roofline and k != "cache-aware"]
    return [k for k in order if VIEWS[k].applies(placements)]


def choose(requested: str, placements) -> str:
    """The view to draw: ``requested``, or for ``auto`` hierarchical when
    some row has bytes at two or more levels, else cache-aware."""
    if requested != AUTO:
        return requested
    return "hierarchical" if VIEWS["hierarchical"].applies(placements) else "cache-aware"


def help_lines() -> str:
    """The views as ``--help`` lists them (from the registry)."""
    lines = []
    for v in VIEWS.values():
        first, *rest = v.summary.split("\n")
        lines.append(f"  {v.key:<13} {first}")
        lines += [f"  {'':<13} {r}" for r in rest]
    lines.append(f"  {AUTO:<13} hierarchical when some kernel has bytes at two or more levels (default)")
    return "\n".join(lines)
