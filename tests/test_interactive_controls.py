"""The interactive roofline's controls on the Bokeh document: the slider,
the precision and level selectors and the two legends exist and are wired
to the filter; the per-level points and their labels; the names placed
cover no other name and no point and their leader lines do not cross; rows
not drawn are listed under the chart as text."""
from __future__ import annotations

import numpy as np
import pytest

from roofline.core.model import Kernel, KernelSet
from roofline.report import build_report

pytest.importorskip("bokeh")


def hierarchical_kernels() -> KernelSet:
    """Three families, FP32 and FP16 GEMMs with bytes at L1, L2 and DRAM,
    and one copy with no FLOPs (not on the chart)."""
    ks = []
    for n in (256, 512, 1024, 2048):
        ks.append(Kernel(f"sgemm_{n}", time_s=2 * n ** 3 / 8e12, count=3, flops={"fp32": 2 * n ** 3},
                         bytes={"L1": 40 * n * n, "L2": 16 * n * n, "DRAM": 12 * n * n}, family="gemm"))
        ks.append(Kernel(f"hgemm_{n}", time_s=2 * n ** 3 / 9e13, count=2, flops={"fp16": 2 * n ** 3},
                         bytes={"L1": 20 * n * n, "L2": 8 * n * n, "DRAM": 6 * n * n}, family="gemm_fp16"))
    for n in (64, 256, 1024, 4096):
        ks.append(Kernel(f"add_{n}", time_s=4e-6 + 12 * n * n / 1.2e12, count=5, flops={"fp32": n * n},
                         bytes={"L1": 12 * n * n, "L2": 12 * n * n, "DRAM": 12 * n * n}, family="elementwise"))
    ks.append(Kernel("copy &amp; &lt;i&gt;", time_s=1e-3, count=1, bytes={"PCIe": 1e6}, family="memcpy"))
    return KernelSet.from_kernels(ks)


@pytest.fixture(scope="module")
def layout():
    from roofline.render.interactive import roofline_layout
    from roofline.render.plot import chart_points
    r = build_report(hierarchical_kernels(), "a100-40gb-sxm")
    p = r.placements
    x = chart_points(p, "cache-aware")[""]
    root, fig = roofline_layout(p, x, [f"row{i}" for i in range(len(p))], "t")
    return r, p, x, root, fig


def _models(root, kind):
    return [m for m in root.references() if isinstance(m, kind)]


def _named(root, name):
    return [m for m in root.references() if getattr(m, "name", None) == name]


def test_every_control_is_wired_to_the_filter(layout):
    from bokeh.models import CheckboxButtonGroup, CustomJS, Slider
    from roofline.render.interactive_controls import FILTER_JS, ISOLATE_JS
    _, _, _, root, fig = layout
    (slider,) = _models(root, Slider)
    pickers = {w.name: w for w in _models(root, CheckboxButtonGroup)}
    assert pickers["precision-picker"].tags == ["fp16", "fp32"]            # the two compute roofs drawn
    assert pickers["level-picker"].labels == ["nearest level", "at L1", "at L2", "at DRAM"]
    for model, prop in ((slider, "value"), (pickers["precision-picker"], "active"),
                        (pickers["level-picker"], "active")):
        (cb,) = model.js_property_callbacks[f"change:{prop}"]
        assert isinstance(cb, CustomJS) and cb.code == FILTER_JS
        assert cb.args["shown"] is _named(root, "points")[0].view.filter.operands[1]
    groups = _named(root, "group")
    assert sorted(g.tags[0] for g in groups) == ["elementwise", "gemm", "gemm_fp16"]
    for g in groups:                     # a legend click isolates a family, then filters
        (cb,) = g.js_property_callbacks["change:visible"]
        assert cb.code == ISOLATE_JS + FILTER_JS and {m.id for m in cb.args["groups"]} == {m.id for m in groups}
    assert len(_named(root, "roof-compute")) == 2 and all(r.tags for r in _named(root, "roof-compute"))
    legends = {lg.name: lg for lg in fig.right}
    assert legends["group-legend"].click_policy == "hide" and len(legends["group-legend"].items) == 3


def test_cumulative_time_column_orders_rows_by_time(layout):
    _, p, _, root, _ = layout
    data = _named(root, "points")[0].data_source.data
    time = np.nan_to_num(p.kernels.time_s)
    cum = np.asarray(data["cum"])
    top = int(np.argmax(time))
    assert cum[top] == 0.0
    # the rows kept at 50 % are those whose predecessors take less than half the time
    kept = {i for i in range(len(p)) if cum[i] < 0.5}
    assert kept and sum(time[i] for i in kept) >= 0.5 * time.sum() > sum(time[i] for i in kept) - time[
        max(kept, key=lambda i: cum[i])]
    assert {data["precision"][i] for i in range(len(p)) if p.kernels.names[i].startswith("hgemm")} == {"fp16"}


def test_a_point_per_level_for_rows_with_bytes_at_several(layout):
    _, p, _, root, _ = layout
    level_points = _named(root, "level-points")
    assert sorted(r.tags[0] for r in level_points) == ["DRAM", "L1", "L2"]
    assert not any(r.visible for r in level_points)                            # until chosen
    src = level_points[0].data_source.data
    gemm = [i for i, n in enumerate(p.kernels.names.tolist()) if n == "sgemm_1024"][0]
    at = {lv: x for x, lv, pt in zip(src["x"], src["level"], src["point"]) if pt == gemm}
    assert at["L1"] < at["L2"] < at["DRAM"]                                  # more bytes nearer the core
    assert at["DRAM"] == pytest.approx(2 * 1024 ** 3 / (12 * 1024 * 1024))


def test_names_cover_nothing_and_leaders_do_not_cross(layout):
    from roofline.render.geometry import segments_cross
    from roofline.render.interactive_labels import CHAR_PX, GAP_PX, LINE_PX, _screen
    _, p, x, root, fig = layout
    (labels,) = _named(root, "point-label")
    d = labels.source.data
    boxes, leads = [], []
    for px_, py_, t, dx, dy, align, i in zip(d["x"], d["y"], d["text"], d["dx"], d["dy"], d["align"], d["point"]):
        sx, sy = _screen(fig, px_, py_)
        w = CHAR_PX * len(t) + GAP_PX
        left = sx + dx if align == "left" else sx + dx - w
        boxes.append((left, sy + dy - LINE_PX / 2, left + w, sy + dy + LINE_PX / 2))
        leads.append((sx, sy, sx + dx, sy + dy))
        assert 0 <= left and left + w <= fig.frame_width
    for a, b in [(a, b) for k, a in enumerate(boxes) for b in boxes[k + 1:]]:
        assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    y = p.achieved_flop_s
    for k in np.flatnonzero(np.isfinite(x)):
        sx, sy = _screen(fig, x[k], y[k])
        for b in boxes:
            assert not (b[0] < sx < b[2] and b[1] < sy < b[3]), (p.kernels.names[k], b)
    for a, b in [(a, b) for k, a in enumerate(leads) for b in leads[k + 1:]]:
        assert not segments_cross(a, b)
    from roofline.render.interactive_roofs import roof_label_boxes as _roof_label_boxes
    for r in _roof_label_boxes(fig, p, (fig.x_range.start, fig.x_range.end)):     # roof and ridge labels
        for b in boxes:
            assert b[2] <= r[0] or r[2] <= b[0] or b[3] <= r[1] or r[3] <= b[1], (b, r)


def test_rows_not_drawn_are_listed_as_text(layout):
    from bokeh.models import Div
    _, _, _, root, _ = layout
    (note,) = [m for m in _models(root, Div) if m.name == "not-on-chart"]
    assert "copy &amp;amp; &amp;lt;i&amp;gt;" in note.text and "1 kernel:" in note.text


def test_segments_cross():
    from roofline.render.geometry import segments_cross
    assert segments_cross((0, 0, 2, 2), (0, 2, 2, 0))
    assert not segments_cross((0, 0, 1, 1), (2, 0, 3, 1))
    assert not segments_cross((0, 0, 1, 1), (1, 1, 2, 0))                    # a shared end is no crossing


def test_one_core_roofs_are_drawn_and_labelled_for_mixed_threads():
    from bokeh.models import GlyphRenderer
    from test_cores_and_compulsory import cpu
    from roofline import place
    from roofline.render.interactive import roofline_layout
    ks = KernelSet.from_kernels([Kernel("add1", 1.0, flops={"fp64": 1e9}, bytes={"DRAM": 15e9}, threads=1),
                                 Kernel("add", 1.0, flops={"fp64": 1e9}, bytes={"DRAM": 15e9})])
    p = place(ks, cpu())
    root, fig = roofline_layout(p, p.cache_aware_intensity, ["", ""], "t", unit="operator")
    texts = [t for r in fig.renderers if isinstance(r, GlyphRenderer) and r.name == "roof-label"
             for t in r.data_source.data["text"]]
    assert "1 core: DRAM 15 GB/s" in texts and "1 core: FP64 50 GFLOP/s" in texts
    assert len([r for r in fig.renderers if r.name == "one-core"]) == 2


def test_roof_labels_over_a_density_image_sit_on_a_light_box(layout):
    from bokeh.models import Label
    from roofline.render.interactive import roofline_layout
    _, p, x, _, _ = layout
    plain = _named(layout[3], "roof-label")
    assert plain and not any(isinstance(m, Label) for m in plain)          # no box where nothing lies under
    image = np.ones((4, 4))
    root, _ = roofline_layout(p, x, [f"row{i}" for i in range(len(p))], "t", density=(image, 0.1, 100, 1e9, 1e14))
    boxed = _named(root, "roof-label")
    assert len(boxed) == len(plain) and all(isinstance(m, Label) for m in boxed)
    assert all(m.background_fill_color == "white" and m.background_fill_alpha >= 0.5 for m in boxed)
