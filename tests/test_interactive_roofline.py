"""The interactive roofline: arrows between variants, names on the largest
points and the chains without overlapping each other or a point, axes
fitted to the roofs and points drawn."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from roofline.report import build_report

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _figure(report):
    """The Bokeh figure the report embeds."""
    from roofline.render.interactive import roofline_layout
    from roofline.render.plot import chart_points
    shown = report.placements
    x = chart_points(shown, "cache-aware")[""]
    return roofline_layout(shown, x, [""] * len(shown), "t", chains=report.chains())[1]


def test_ece408_variants_have_arrows_and_labels_do_not_overlap():
    from bokeh.models import Arrow, LabelSet
    from roofline.render.interactive import CHAR_PX, LINE_PX, _screen
    from roofline.render.interactive_labels import GAP_PX
    r = build_report([EXAMPLES / "ece408_kernels.csv"], "v100-sxm2")
    fig = _figure(r)
    (arrow,) = [a for a in fig.center if isinstance(a, Arrow)]
    n_pairs = sum(len(c.rows) - 1 for c in r.chains())
    assert n_pairs >= 6 and len(arrow.source.data["x0"]) == n_pairs            # conv1 and conv2: 3 steps each
    (labels,) = [a for a in fig.center if isinstance(a, LabelSet) and a.name == "point-label"]
    d = labels.source.data
    assert sum("variants" in t for t in d["text"]) == 2
    boxes = []
    for x, y, t, dx, dy, align in zip(d["x"], d["y"], d["text"], d["dx"], d["dy"], d["align"]):
        px, py = _screen(fig, x, y)
        w = CHAR_PX * len(t) + GAP_PX
        left = px + dx if align == "left" else px + dx - w
        boxes.append((left, py + dy - LINE_PX / 2, left + w, py + dy + LINE_PX / 2))
        assert 0 <= left and left + w <= fig.frame_width                           # inside the frame
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


def test_axes_fit_the_roofs_drawn_not_the_fastest_precision():
    r = build_report([EXAMPLES / "ece408_kernels.csv"], "v100-sxm2")
    fig = _figure(r)
    fp32 = r.device.compute["fp32"].value
    assert max(c.value for c in r.device.compute.values()) > 5 * fp32           # tensor FP16 is far above
    assert fp32 < fig.y_range.end < 3 * fp32                                     # the FP32 roof is the top
    y = r.placements.achieved_flop_s
    assert fig.y_range.start < np.nanmin(y[y > 0])
    assert fig.x_range.end < 1000                                                 # no empty decades
