"""The library for reports of your own: the roofline drawn into your axes
(``roofline_figure(..., ax=)``), the roofs alone (``draw_roofs``), and a
whole optimisation report in about 30 lines with them."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from svg_chart import overlapping_labels  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

REPORT = '''
from matplotlib.figure import Figure
import numpy as np
from roofline import find_device, place, read_kernels
from roofline.render.plot import draw_roofs, roofline_figure

device = find_device("v100-sxm2")
placed = place(read_kernels(EXAMPLE), device)
fig = Figure(figsize=(13, 5.5), layout="constrained")
mine, theirs = fig.subplots(1, 2)
# left: my own points against the roofs
roofs = draw_roofs(mine, device, precisions=["fp32"], levels=["L2", "DRAM"])
conv = [i for i, n in enumerate(placed.kernels.names) if "forward_kernel" in n]
x = placed.cache_aware_intensity[conv]
y = placed.achieved_flop_s[conv]
mine.scatter(x, y, s=40, color="#D55E00", zorder=4, label="my kernels")
for a, b, c, d in zip(x[:-1], y[:-1], x[1:], y[1:]):
    mine.annotate("", (c, d), (a, b), arrowprops=dict(arrowstyle="->", color="#444444"))
mine.legend(loc="lower right")
mine.set_title("forward_kernel, step by step")
# right: the library's chart in my second axes
roofline_figure(placed, ax=theirs, title="every kernel")
fig.savefig(OUT)
'''


def test_a_30_line_report_with_draw_roofs_runs(tmp_path):
    assert len(REPORT.strip().splitlines()) <= 30
    out = tmp_path / "report.svg"
    scope = {"EXAMPLE": EXAMPLES / "ece408_kernels.csv", "OUT": out}
    exec(compile(REPORT, "report.py", "exec"), scope)
    svg = out.read_text()
    assert "roof-compute-fp32" in svg and "roof-bandwidth-DRAM" in svg and "roof-bandwidth-L2" in svg
    fig = scope["fig"]
    left, right = fig.axes
    assert [t.get_text() for t in left.texts if "FLOP/s" in t.get_text()] == ["FP32 15.7 TFLOP/s"]
    assert right.get_title() == "every kernel" and len(fig.axes) == 2       # nothing added to my figure
    assert overlapping_labels(fig) == []


def test_draw_roofs_fits_the_axes_to_the_roofs():
    from matplotlib.figure import Figure

    from roofline import find_device
    from roofline.render.plot import draw_roofs
    device = find_device("v100-sxm2")
    ax = Figure().add_subplot()
    roofs = draw_roofs(ax, device, precisions=["fp32"])
    fp32 = device.compute["fp32"].value
    assert roofs.top == fp32 and fp32 < ax.get_ylim()[1] < 3 * fp32
    ridge = max(roofs.ridges().values())
    assert ridge < ax.get_xlim()[1] < 10 * ridge
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert np.isclose(roofs.ridges()["DRAM"], fp32 / device.memory["DRAM"].bytes_s)
