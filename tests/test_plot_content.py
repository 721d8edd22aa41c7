"""Charts tested by what they show, read back from their SVG: numeric log
axes, every roof at the device's rate, every drawable kernel at its
placement in its class colour, a legend naming exactly the classes drawn,
and no label covering another (tests/svg_chart.py reads the pictures)."""
from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from conftest import DATA, REPO
from svg_chart import overlap_share, overlapping_labels, read_chart
from roofline import place, read_kernels
from roofline.core.model import KernelSet
from roofline.devices.profile import load_device
from roofline.render.plot import roofline_figure, save_figure
from roofline.render.style import CLASS_STYLE

EXAMPLE = REPO / "examples" / "ece408_kernels.csv"
ZEN3 = DATA / "zen3_cpu.yaml"
GPUS = [DATA / "toy_gpu.yaml", REPO / "devices" / "v100-sxm2.yaml", REPO / "devices" / "t4.yaml",
        REPO / "devices" / "h100-sxm.yaml"]


def _svg(fig, path):
    with matplotlib.rc_context({"svg.fonttype": "none"}):   # texts as <text>, not glyph paths
        save_figure(fig, path)
    return read_chart(path)


def _cpu_kernels(n=40, seed=3) -> KernelSet:
    """Kernels with bytes at every level of a CPU, intensities 0.05-50."""
    rng = np.random.default_rng(seed)
    flops = 10 ** rng.uniform(7, 10, n)
    dram = flops / 10 ** rng.uniform(-1.3, 1.7, n)
    return KernelSet([f"op{i}" for i in range(n)], flops / 10 ** rng.uniform(9.5, 11, n),
                     flops={"fp32": flops},
                     bytes={"L1": dram * 8, "L2": dram * 4, "L3": dram * 2, "DRAM": dram})


def _cases():
    for dev in GPUS:
        yield pytest.param(dev, EXAMPLE, id=dev.stem)
    yield pytest.param(ZEN3, None, id="zen3-cpu")


def _placements(dev, src):
    return place(read_kernels(src) if src else _cpu_kernels(), load_device(dev))


@pytest.mark.parametrize("view", ["cache-aware", "hierarchical"])
@pytest.mark.parametrize("dev,src", list(_cases()))
def test_the_chart_shows_the_placements(tmp_path, dev, src, view):
    p = _placements(dev, src)
    chart = _svg(roofline_figure(p, view=view), tmp_path / "roof.svg")

    # numeric log axes: labelled powers of ten, evenly spaced
    for axis in (chart.x, chart.y):
        assert len(axis.values) >= 3
        assert np.allclose(np.log10(axis.values), np.round(np.log10(axis.values)))
        assert axis.residual_px < 0.5
    assert chart.x.slope > 0 > chart.y.slope          # SVG y grows downwards

    # roofs at the device's rates
    device = p.roof_device
    used = {device.compute_key(k) for k, v in p.kernels.flops.items() if np.nansum(v) > 0}
    assert set(chart.compute_roofs) == used
    for key, rate in chart.compute_roofs.items():
        assert rate == pytest.approx(device.compute[key].value, rel=0.01), key
    drawn_levels = {lv for lv in device.memory if lv != "PCIe"}
    assert set(chart.bandwidth_roofs) == drawn_levels
    for lv, (x, y) in chart.bandwidth_roofs.items():
        assert y / x == pytest.approx(np.full(len(x), device.bandwidth(lv)), rel=0.02), lv
        assert np.max(y) == pytest.approx(max(chart.compute_roofs.values()), rel=0.02)  # meets the top roof

    # every drawable kernel, where it was placed, in its class colour
    from roofline.render.plot import chart_points
    expected = chart_points(p, view)
    assert set(chart.points) == {lv or "nearest" for lv, x in expected.items() if np.isfinite(x).any()}
    colour = {c: CLASS_STYLE[c][0].lower() for c in CLASS_STYLE}
    drawn_classes = set()
    for lv, x in expected.items():
        if not np.isfinite(x).any():
            continue
        keep = np.isfinite(x)
        want = np.column_stack([np.log10(x[keep]), np.log10(p.achieved_flop_s[keep])])
        got_x, got_y, got_c = chart.points[lv or "nearest"]
        got = np.column_stack([np.log10(got_x), np.log10(got_y)])
        assert len(got) == len(want)
        # pair each kernel with a drawn point, one to one, nearest overall
        cost = np.linalg.norm(want[:, None, :] - got[None, :, :], axis=2)
        rows, cols = linear_sum_assignment(cost)
        assert cost[rows, cols].max() < 0.01                 # within 2.3 % in value on both axes
        assert [got_c[j] for j in cols] == [colour[c] for c in p.bound[keep][rows]]
        drawn_classes |= set(p.bound[keep])

    # the legend names the classes drawn, in their colours, and no other
    legend_classes = {text: c for text, c in chart.legend if text in {v[1] for v in CLASS_STYLE.values()}}
    assert legend_classes == {CLASS_STYLE[c][1]: colour[c] for c in drawn_classes}


def test_a_class_with_no_point_is_not_in_the_legend(tmp_path):
    # the volta_sgemm row has no counters: "unknown", listed under the chart, not drawn
    p = _placements(REPO / "devices" / "v100-sxm2.yaml", EXAMPLE)
    assert "unknown" in set(p.bound)
    chart = _svg(roofline_figure(p), tmp_path / "roof.svg")
    assert not any(text.startswith("unknown") for text, _ in chart.legend)


@pytest.mark.parametrize("dev,src", list(_cases()))
@pytest.mark.parametrize("view", ["cache-aware", "hierarchical"])
def test_no_label_covers_another(dev, src, view):
    assert overlapping_labels(roofline_figure(_placements(dev, src), view=view)) == []


def test_variant_chart_labels_do_not_overlap():
    from roofline.render.chart import roofline_chart
    p = _placements(REPO / "devices" / "v100-sxm2.yaml", EXAMPLE)
    fig = roofline_chart(p, p, "V100", variants=["baseline", "constmem", "tiled", "double-buffer"])
    assert overlapping_labels(fig) == []
    # a chain's members are named once, by the chain's label, not point by point
    named = [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "kernel-label"]
    # 16 rows: 8 in the two chains, 3 not drawable (listed under the chart), 5 named
    assert len(named) == 5 and not any("forward_kernel" in n for n in named)
    chains = [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "variant-label"]
    assert sorted(c.split("\n")[0] for c in chains) == ["mxnet::op::forward_kernel[conv1]",
                                                        "mxnet::op::forward_kernel[conv2]"]


def test_the_overlap_check_sees_overlaps():
    from matplotlib.figure import Figure
    fig = Figure()
    ax = fig.add_subplot()
    ax.text(0.5, 0.5, "a label", transform=ax.transAxes)
    ax.text(0.52, 0.5, "another", transform=ax.transAxes)
    ax.text(0.1, 0.1, "slanted one", rotation=45, rotation_mode="anchor", transform=ax.transAxes)
    ax.text(0.16, 0.1, "slanted two", rotation=45, rotation_mode="anchor", transform=ax.transAxes)
    found = overlapping_labels(fig)
    assert [(a, b) for a, b, _ in found] == [("a label", "another")]
    # the two parallel slanted labels share much of their bounding boxes, not their outlines
    square = np.array([[0, 0], [2, 0], [2, 2], [0, 2]], dtype=float)
    assert overlap_share(square, square + [1, 1]) == pytest.approx(0.25)
    assert overlap_share(square, square + [3, 0]) == 0.0


def test_a_crowded_chart_draws_every_point(tmp_path, toy_gpu):
    rng = np.random.default_rng(0)
    n = 5000
    ks = KernelSet([f"k{i}" for i in range(n)], rng.uniform(1e-5, 1e-2, n),
                   flops={"fp32": rng.uniform(1e6, 1e11, n)}, bytes={"DRAM": rng.uniform(1e6, 1e9, n)})
    p = place(ks, toy_gpu)
    chart = _svg(roofline_figure(p, view="cache-aware"), tmp_path / "many.svg")
    x, _, _ = chart.points["nearest"]
    from roofline.render.plot import chart_points
    assert len(x) == np.isfinite(chart_points(p, "cache-aware")[""]).sum() > 4900
