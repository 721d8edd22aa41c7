"""The static charts of the README and docs, and every `roofline plot` view,
saved as SVG and checked from the file alone (tests/svg_geometry.py): no
two texts overprint each other, no text reaches into the legend, every
chart label and kernel point lies inside its axes. A figure made to fail
shows the check can fail."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")
sys.path.insert(0, str(Path(__file__).parent))

from svg_geometry import (intersection_area, leaders_over_texts, outside_axes, overlaps,  # noqa: E402
                          parse_transform, path_points, read_drawing)

REPO = Path(__file__).resolve().parents[1]
ECE408 = REPO / "examples" / "ece408_kernels.csv"
CPU_TRACE = REPO / "examples" / "pytorch_cpu_trace.json.gz"
ZEN3 = REPO / "tests" / "data" / "zen3_cpu.yaml"


def _plot(tmp_path, *args) -> Path:
    from roofline.cli.main import main
    out = tmp_path / "chart.svg"
    assert main(["plot", *map(str, args), "-o", str(out)]) == 0
    return out


def _check(svg: Path, leaders: bool = True):
    drawing = read_drawing(svg)
    assert drawing.texts and drawing.legends and drawing.points, "nothing read: the reader lost the chart"
    assert overlaps(drawing) == []
    assert outside_axes(drawing) == []
    if leaders:
        assert leaders_over_texts(drawing) == []
    return drawing


@pytest.mark.parametrize("view", ["auto", "cache-aware", "hierarchical"])
def test_ece408_views(tmp_path, view):
    # README: roofline plot examples/ece408_kernels.csv --device v100-sxm2 -o ece408.png
    drawing = _check(_plot(tmp_path, ECE408, "--device", "v100-sxm2", "--view", view))
    ids = [t.gid for t, _ in drawing.labels]
    # FP32 roof, L1, L2 and DRAM lines (haloed, so drawn as paths), their ridges
    assert ids.count("roof-label") == 4 and ids.count("ridge-label") == 3
    names = " ".join(t.text for t, _ in drawing.labels)
    assert "baseline → constmem" in names        # the variant chains are labelled


# the README's numpy chart (examples/numpy_kernels.py as written by CI on a Zen 4 VM, 2026-11-29)
NUMPY_KERNELS = """name,time_s,count,flops_fp64,bytes_dram,bytes_l1,threads,family
add 20M into out,0.015465430995391216,1,20000000,480000000,,1,numpy
"add 20M, new result",0.027426851003838237,1,20000000,480000000,,1,numpy
sum 20M,0.0070555349957430735,1,20000000,160000000,,1,numpy
dot 4k (in L1),0.00196010999934515,1,8000000,,64000000,1,numpy
dgemm 1500,0.06377619200065965,1,6750000000,54000000,,,numpy
copy 20M,0.012595200001669582,1,0,320000000,,1,numpy
"""


def test_numpy_chart_leaders_keep_off_the_one_core_label(tmp_path):
    """Single-threaded kernels bring the dotted one-core roofs and their slanted
    labels; a kernel name's leader ran through '1 core: DRAM ...' (on this profile
    and on the README's CI run) because slanted labels were taken as space, not words."""
    csv = tmp_path / "numpy_kernels.csv"
    csv.write_text(NUMPY_KERNELS)
    drawing = _check(_plot(tmp_path, csv, "--device", ZEN3))
    assert sum(len(t.leaders) for t in drawing.texts if t.gid == "kernel-label") >= 4


def test_cpu_trace_chart(tmp_path):
    # docs/pytorch.md's chart (there on a measured profile; here the repository's Zen 3 one)
    drawing = _check(_plot(tmp_path, CPU_TRACE, "--device", ZEN3))
    assert len(drawing.points) > 100
    assert any(t.gid == "roof-label" and len(t.leaders) == 0 for t, _ in drawing.labels)
    assert sum(len(t.leaders) for t in drawing.texts) >= 3        # kernel names with their leaders


def test_dense_chart(tmp_path):
    """Above the marker limit: grey density under one marker per name."""
    rng = np.random.default_rng(3)
    n = 3000
    names = [f"kernel_{i % 40}" for i in range(n)]
    flops = 10 ** rng.uniform(6, 10, n)
    rows = ["name,time_ms,flops_fp32,bytes_dram"] + [
        f"{name},{10 ** rng.uniform(-3, 0):.5f},{f:.0f},{f / 10 ** rng.uniform(-1, 2):.0f}"
        for name, f in zip(names, flops)]
    csv = tmp_path / "many.csv"
    csv.write_text("\n".join(rows) + "\n")
    _check(_plot(tmp_path, csv, "--device", "v100-sxm2"))


def test_instruction_chart(tmp_path):
    from roofline.analysis.instruction import instruction_roofline
    from roofline.render.instruction import instruction_roofline_figure
    from roofline.render.plot import save_figure
    from test_instruction import kernel, paper_v100
    roof = instruction_roofline([kernel(variant="tiled")], paper_v100())
    out = tmp_path / "inst.svg"
    save_figure(instruction_roofline_figure(roof), out)
    drawing = read_drawing(out)
    assert drawing.texts
    assert overlaps(drawing) == []
    assert outside_axes(drawing) == []
    assert leaders_over_texts(drawing) == []


# ------------------------------------------------------------ the check can fail

def test_the_svg_check_sees_overlaps_legend_and_escapes(tmp_path):
    from matplotlib.figure import Figure
    from roofline.render.plot import ROOF_LABEL_GID, save_figure
    fig = Figure(figsize=(6, 4))
    ax = fig.add_subplot()
    ax.plot([1, 2], [1, 2], label="a line")
    ax.scatter([1.5], [1.5], gid="kernels-test")
    ax.legend(loc="lower right")
    ax.text(1.2, 1.8, "first label", gid=ROOF_LABEL_GID)
    ax.text(1.25, 1.8, "second label", gid=ROOF_LABEL_GID)          # on top of the first
    ax.text(1.98, 1.02, "in the legend", ha="right", gid=ROOF_LABEL_GID)
    ax.text(2.3, 1.5, "past the right edge", gid=ROOF_LABEL_GID, rotation=30)
    ax.text(1.5, 1.3, "crossed by a leader", ha="center", gid=ROOF_LABEL_GID)
    ax.annotate("pointing", (1.5, 1.1), xytext=(1.5, 1.5), gid="kernel-label",
                arrowprops=dict(arrowstyle="-"))
    ax.set_xlim(1, 2)
    ax.set_ylim(1, 2)
    out = tmp_path / "bad.svg"
    save_figure(fig, out)
    drawing = read_drawing(out)
    found = overlaps(drawing)
    assert ("first label", "second label") in [(a, b) for a, b, _ in found]
    assert ("in the legend", "legend") in [(a, b) for a, b, _ in found]
    assert outside_axes(drawing) == ["past the right edge"]
    assert leaders_over_texts(drawing) == [("pointing", "crossed by a leader")]


def test_rotated_text_keeps_a_rotated_outline(tmp_path):
    """A label at 45 degrees and one beside it in the corner its axis-aligned
    box would cover: no overlap (the outline is the turned rectangle)."""
    from matplotlib.figure import Figure
    from roofline.render.plot import save_figure
    fig = Figure(figsize=(4, 4))
    ax = fig.add_subplot()
    ax.text(0.1, 0.1, "a long rotated label here", rotation=45, rotation_mode="anchor", transform=ax.transAxes)
    ax.text(0.55, 0.15, "corner", transform=ax.transAxes)
    out = tmp_path / "turned.svg"
    save_figure(fig, out)
    drawing = read_drawing(out)
    turned = next(t for t in drawing.texts if t.text == "a long rotated label here").lines[0]
    sides = np.diff(np.vstack([turned, turned[:1]]), axis=0)
    angles = np.degrees(np.arctan2(-sides[:, 1], sides[:, 0])) % 180
    assert min(abs(angles - 45).min(), abs(angles - 135).min()) < 1.0
    assert overlaps(drawing) == []


def test_reader_pieces():
    m = parse_transform("translate(10 20) rotate(-90) scale(2 -2)")
    assert np.allclose(m[:2, :2] @ [1, 0] + m[:2, 2], [10, 18])
    assert np.allclose(parse_transform("matrix(1 0 0 1 5 6)")[:2, 2], [5, 6])
    assert path_points("M 0 0 L 1 2 Q 3 4 5 6 C 1 1 2 2 3 3 z").shape == (7, 2)
    with pytest.raises(ValueError):
        path_points("M 0 0 a 1 1 0 0 1 2 2")
    with pytest.raises(ValueError):
        parse_transform("skewX(30)")
    square = np.array([[0, 0], [2, 0], [2, 2], [0, 2]], dtype=float)
    assert intersection_area(square, square + 1) == pytest.approx(1.0)
    assert intersection_area(square, square[::-1] + [1, 0]) == pytest.approx(2.0)   # either winding
    assert intersection_area(square, square + 3) == 0.0
