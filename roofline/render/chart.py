"""One roofline chart from placements, without a report: what `roofline
plot` draws and what a report embeds. A huge set of rows is drawn as a
density of every row under one marker per kernel name (the ``max_points``
names with most time and one per family for the rest)."""
from __future__ import annotations

import numpy as np

from .style import plain_text

from ..core.placement import Placements, Rules, place


def plotted(placements: Placements, device, max_points: int | None = None, grouped=None,
            rules: Rules = Rules()) -> Placements:
    """The rows a chart draws as markers: all of them, or condensed ones."""
    from ..core.aggregate import MAX_MARKERS, MAX_POINTS, condense
    max_points = MAX_POINTS if max_points is None else max_points
    if len(placements) <= max_points:
        return placements
    return place(condense(placements.kernels, min(max_points, MAX_MARKERS), grouped=grouped), device, rules)


def drawable(p: Placements) -> int:
    """How many rows a FLOP roofline can show (FLOPs, bytes and time)."""
    y, x = p.achieved_flop_s, p.cache_aware_intensity
    return int(np.sum(np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)))


def views(p: Placements) -> list[str]:
    """``cache-aware``, plus ``hierarchical`` when some row has bytes at two
    or more levels; none when no row can be drawn (:mod:`.views`, the
    registry ``roofline plot --view`` shares)."""
    from .views import roofline_views
    return roofline_views(p)


@plain_text
def roofline_chart(placements: Placements, shown: Placements, device_name: str, view: str = "cache-aware",
                   variants=None, arrows: bool = True, size=(10, 6.5), banner: str = ""):
    """The roofline Figure: markers sized by time and coloured by bound,
    arrows between variants; when ``shown`` condenses ``placements``, a
    density of every row underneath."""
    from .plot import roofline_figure
    from .variants import variant_chains, variant_decoration
    chains = variant_chains(shown.kernels, variants) if arrows else []
    dense = shown is not placements
    title = None
    if dense:
        title = (f"{view.capitalize()} roofline on {device_name}: {len(placements):,} kernel rows\n"
                 f"markers: {len(shown):,} kernel names (summed), grey: density of every row")
    # the members of a chain get one label per chain (draw_variant_arrows), not one each; the
    # chain labels are placed before the kernel names, which then keep off them and their leaders
    fig = roofline_figure(shown, view=view, title=title, label_top=8, size=size, banner=banner,
                          unlabelled={i for c in chains for i in c.rows},
                          decorate=variant_decoration(shown, variants) if chains else None)
    if dense:
        from .density import draw_density
        # the legend entry says how many rows fall outside the chart
        draw_density(fig.axes[0], placements.cache_aware_intensity, placements.achieved_flop_s,
                     label="density of all rows (nearest level)")
    return fig
