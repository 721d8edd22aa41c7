"""Labels that say what was measured: no-time kernels are unknown with the
roofline's prediction beside; placeholder names replaced; diff says 'bound
changed' only when both sides have one; long names shortened in warnings."""
from __future__ import annotations

import io
import math
from contextlib import redirect_stderr

from roofline.render import tables
from roofline.cli.common import warn
from roofline.analysis.diff import KernelChange
from roofline.core.errors import Advice
from roofline.importers import kineto
from roofline.core.model import KernelSet
from roofline.core.placement import place
from roofline.devices.profile import find_device


def test_kernels_without_time_are_unknown_with_a_predicted_bound():
    ks = KernelSet(names=["timed", "untimed", "zero"], time_s=[1e-3, math.nan, 0.0],
                   flops={"fp32": [1e9, 1e12, 1e12]}, bytes={"DRAM": [1e3, 1e3, 1e3]})
    p = place(ks, find_device("v100-sxm2"))
    assert p.bound[0] != "unknown"                     # timed: measured against its roof
    assert list(p.bound[1:]) == ["unknown", "unknown"]
    assert list(p.predicted_bound) == ["compute", "compute", "compute"]
    rec = p.records()
    assert rec[1]["bound"] == "unknown" and rec[1]["predicted_bound"] == "compute"
    assert "roof predicts compute" in tables.placements_table(p)
    assert "predicted_bound" in tables.placements_csv(p).splitlines()[0].split(",")


def test_kineto_placeholder_name_is_replaced():
    trace = {"traceEvents": [{"ph": "X", "cat": "kernel", "name": "__missing__", "pid": 0, "tid": 7,
                              "ts": 0, "dur": 5, "args": {"correlation": 1, "device": 0}}]}
    (k,) = kineto.parse(trace).kernels
    assert k.name == "(kernel name missing in the trace)"


def test_diff_status_needs_a_bound_on_both_sides():
    def change(a, b):
        return KernelChange("k", 1.0, 1.0, 1, 1, 0.5, None, a, b).status
    assert change("compute", "bandwidth (DRAM)") == "bound changed"
    assert change("compute", "unknown") == "no counters in B"
    assert change("unknown", "compute") == "no counters in A"
    assert change("compute", "compute") == ""


def test_warnings_shorten_long_kernel_names():
    name = "void at::native::kernel<" + "float, " * 300 + "int>(int, float*)"
    err = io.StringIO()
    with redirect_stderr(err):
        warn("classify", Advice("runs at 2x its roof", "check", name))
    line = err.getvalue()
    assert line.count("\n") == 1 and len(line) < 200 and "runs at 2x its roof" in line


def test_dollar_signs_in_kernel_names_are_text_not_mathtext(tmp_path):
    from roofline.render.chart import roofline_chart
    from roofline.render.plot import save_figure
    ks = KernelSet(names=["$\\frac{1$", "a$x^2$b"], time_s=[1e-3, 2e-3], flops={"fp32": [1e9, 2e9]},
                   bytes={"DRAM": [1e6, 1e6]})
    p = place(ks, find_device("t4"))
    fig = roofline_chart(p, p, "t4")
    save_figure(fig, tmp_path / "d.png")          # raised ParseSyntaxException before
    texts = [t for ax in fig.axes for t in ax.texts if "$" in t.get_text()]
    assert texts and all(not t._parse_math for t in texts)


def test_launches_with_every_metric_nan_get_their_own_warning(tmp_path):
    import csv
    from pathlib import Path
    from roofline.importers import read_profile
    src = Path(__file__).parent / "data" / "ncu_details.csv"
    lines = src.read_text().splitlines(keepends=True)
    out = []
    for line in lines:
        if line.startswith('"1",'):
            cells = next(csv.reader([line]))
            if cells[14].strip():                       # Metric Value of launch 1
                cells[14] = "n/a"
            line = ",".join(f'"{c}"' for c in cells) + "\n"
        out.append(line)
    bad = tmp_path / "nan.csv"
    bad.write_text("".join(out))
    r = read_profile(bad)
    (w,) = [w for w in r.warnings if "every metric NaN" in w.message]
    assert "1 of 2 launches" in w.message and "launch ID 1" in w.message
    assert not [w for w in read_profile(src).warnings if "every metric NaN" in w.message]


def test_markdown_names_cannot_break_out_of_code(tmp_path):
    from roofline.report import build_report
    from roofline.render.markdown import _md_block, _md_code
    evil = "k``x\n```\n# injected heading"
    cell = _md_code(evil)
    assert cell.startswith("```` ") and cell.endswith(" ````") and "\n" not in cell   # longer than any run inside
    block = _md_block("line\n```\nafter")
    assert block[0] == block[-1] == "````"
    ks = KernelSet(names=[evil, "ok"], time_s=[1e-3, 2e-3], flops={"fp32": [1e9, 1e9]},
                   bytes={"DRAM": [1e6, 1e6]})
    out = tmp_path / "r.md"
    build_report([ks], find_device("t4")).save(out)
    assert "\n# injected heading" not in out.read_text()
