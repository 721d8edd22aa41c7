"""Near-zero times and work: no numpy warnings, and ratios a person can read
(a time of 5e-324 s made 'runs at infx its roof', 1e-300 s a 298-digit
efficiency, and both an 'overflow encountered in divide' on stderr)."""
from __future__ import annotations

import warnings

from roofline.importers.kernels_csv import parse
from roofline.core.placement import place
from roofline.devices.profile import find_device
from roofline.render.tables import placements_table

NEAR_ZERO = ("name,time_s,count,flops_fp32,bytes_dram\n"
             "ok,1e-3,1,1e9,1e6\n"
             "tiny,1e-300,1,1e9,5e6\n"           # work / time overflows
             "denormal,5e-324,1,1e9,5e6\n"       # roofline time / time is inf
             "no_flops,1e-3,1,0,5e6\n"
             "tiny_work,1e-3,1,1e-300,1e-310\n"  # intensity overflows
             "no_time,0,1,1e6,1e3\n")


def test_near_zero_values_raise_no_numpy_warning_and_read_well():
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # a RuntimeWarning fails the test
        p = place(parse(NEAR_ZERO), find_device("v100-sxm2"))
        p.records()
        table = placements_table(p)
    above = {a.subject: a.message for a in p.warnings if "its roof" in a.message}
    assert above == {"tiny": "runs at 6.4e+295x its roof", "denormal": "runs at more than 1e308x its roof"}
    rows = {line.split()[0]: line for line in table.splitlines()[2:]}
    # the figures stay short (the row's reason, 'above its roof', follows them)
    assert rows["tiny"].endswith("above its roof")
    figures = rows["tiny"].removesuffix("above its roof").rstrip()
    assert "6.4e+297%" in figures and len(figures) < 120
    assert " n/a " in rows["denormal"]            # an infinite efficiency is no number
    assert "infx" not in " ".join(a.message for a in p.warnings)


def test_ordinary_ratios_keep_two_decimals():
    p = place(parse("name,time_s,flops_fp32\nfast,1e-6,1e8\n"), find_device("v100-sxm2"))
    assert [a.message for a in p.warnings] == ["runs at 6.38x its roof"]


def test_diff_table_ratios_stay_short():
    from roofline.analysis.diff import diff_placements
    from roofline.render.diff import diff_table
    device = find_device("v100-sxm2")
    a = place(parse("name,time_s,flops_fp32\nk,1e-3,1e9\n"), device)
    b = place(parse("name,time_s,flops_fp32\nk,1e-300,1e9\n"), device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row = next(line for line in diff_table(diff_placements(a, b)).splitlines() if line.startswith("k "))
    assert "1e+297x" in row and "6.4e+297%" in row and len(row) < 150


HUGE = "name,time_s,count,flops_fp32,bytes_dram\nbig,1e-3,1,1e300,1e6\nsmall,1e-3,1,1e9,1e6\n"


def test_a_kernel_far_off_the_roofs_is_listed_beside_the_charts_not_drawn(tmp_path):
    """1e300 FLOP in a millisecond stretched the log axes until matplotlib's
    tick code raised OverflowError (plot and report both died)."""
    from roofline.render.plot import roofline_figure
    from roofline.report import build_report
    p = place(parse(HUGE), find_device("v100-sxm2"))
    fig = roofline_figure(p)
    fig.savefig(tmp_path / "r.png")
    ax = fig.axes[0]
    assert ax.get_xlim()[1] < 1e12 and ax.get_ylim()[1] < 1e20       # the axes stay near the roofs
    # listed in the panel under the chart (the figure's second axes)
    note = next(t.get_text() for a in fig.axes[1:] for t in a.texts if t.get_text().startswith("not on this chart"))
    assert "big: 50% of time" in note and "e+" in note and len(note) < 200
    # report: the time view too, from the columns a kernels.csv import gives
    rows = parse(HUGE)
    report = build_report([rows], find_device("v100-sxm2"))
    for name, figure in report.figures().items():
        figure.savefig(tmp_path / f"{name}.png")
