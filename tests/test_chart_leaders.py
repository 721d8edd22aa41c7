"""Static charts read back for what an engineer checks before putting one
in a paper: leader lines that do not cross (ECE408 with its variant chains),
chain labels and kernel names off the legend, the one-core diagonal of a
CPU chart labelled, and the time-per-call legend off the W / peak line and
the points."""
from __future__ import annotations

import numpy as np

from conftest import REPO
from svg_chart import overlapping_labels
from test_cores_and_compulsory import cpu
from roofline import place, read_kernels
from roofline.core.model import Kernel, KernelSet
from roofline.devices.profile import load_device
from roofline.render.geometry import segments_cross

EXAMPLE = REPO / "examples" / "ece408_kernels.csv"
VARIANTS = ["baseline", "constmem", "tiled", "double-buffer"]


def _leaders(ax) -> list[tuple[str, tuple]]:
    """Each labelled annotation's leader in display pixels: its point to the
    middle of its text (where matplotlib aims the line)."""
    from matplotlib.text import Text
    renderer = ax.figure._get_renderer()
    out = []
    for t in ax.texts:
        if getattr(t, "arrow_patch", None) is None or not t.get_text() or not t.arrow_patch.get_visible():
            continue
        px, py = ax.transData.transform(t.xy)
        box = Text.get_window_extent(t, renderer)        # an Annotation's own box includes its arrow
        out.append((t.get_text(), (px, py, (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)))
    return out


def _crossings(ax):
    lead = _leaders(ax)
    return [(a, b) for k, (a, s) in enumerate(lead) for b, q in lead[k + 1:] if segments_cross(s, q)]


def test_ece408_leader_lines_do_not_cross():
    from roofline.render.chart import roofline_chart
    p = place(read_kernels(EXAMPLE), load_device(REPO / "devices" / "v100-sxm2.yaml"))
    for view in ("cache-aware", "hierarchical"):
        fig = roofline_chart(p, p, "V100", variants=VARIANTS, view=view)
        fig.draw_without_rendering()
        ax = fig.axes[0]
        assert len(_leaders(ax)) >= 4, view
        assert _crossings(ax) == [], view
        assert overlapping_labels(fig) == [], view                # the legend counts as a label


def test_one_core_diagonal_is_labelled():
    from roofline.render.plot import roofline_figure
    ks = KernelSet.from_kernels([Kernel("add1", 1.0, flops={"fp64": 1e9}, bytes={"DRAM": 15e9}, threads=1),
                                 Kernel("add", 1.0, flops={"fp64": 1e9}, bytes={"DRAM": 15e9})])
    p = place(ks, cpu())
    fig = roofline_figure(p)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "1 core: DRAM 15 GB/s" in texts and "1 core: FP64 50 GFLOP/s" in texts
    assert overlapping_labels(fig) == []


def test_time_view_legend_covers_neither_the_compute_line_nor_a_point():
    from roofline.report import build_report
    for src in (EXAMPLE, REPO / "examples" / "pytorch_cpu_trace.json.gz"):
        fig = build_report([src], "v100-sxm2").figures()["overhead"]
        fig.draw_without_rendering()
        ax = fig.axes[0]
        box = ax.get_legend().get_window_extent()
        line = [ln for ln in ax.lines if ln.get_color() == "#333333"][0]
        xy = ax.transData.transform(np.column_stack(line.get_data()))
        for coll in ax.collections:
            if len(coll.get_offsets()):
                xy = np.vstack([xy, coll.get_offset_transform().transform(coll.get_offsets())])
        inside = (xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)
        assert not inside.any(), src.name


def test_a_compute_roof_label_moves_off_the_kernels_at_the_roof():
    from test_interactive_controls import hierarchical_kernels
    from roofline import find_device
    from roofline.render.plot import ROOF_LABEL_GID, roofline_figure
    p = place(hierarchical_kernels(), find_device("a100-40gb-sxm"))     # hgemm points sit on the FP16 roof
    fig = roofline_figure(p, view="hierarchical")
    fig.draw_without_rendering()
    ax = fig.axes[0]
    (label,) = [t for t in ax.texts if t.get_gid() == ROOF_LABEL_GID and t.get_text().startswith("FP16")]
    box = label.get_window_extent()
    for coll in ax.collections:
        if not hasattr(coll, "get_sizes") or not len(coll.get_offsets()):
            continue
        xy = coll.get_offset_transform().transform(coll.get_offsets())
        r = np.sqrt(np.resize(coll.get_sizes(), len(xy))) / 2 * fig.dpi / 72
        hit = (xy[:, 0] + r > box.x0) & (xy[:, 0] - r < box.x1) & (xy[:, 1] + r > box.y0) & (xy[:, 1] - r < box.y1)
        assert not hit.any()
