"""Block scheduling inside a kernel (roofline.analysis.block_sched) on
hand-computed examples, its chart and report section
(roofline.render.block_sched).

No real Neutrino trace is public; the traces of the report test are built
from the writer's source (see tests/test_import_neutrino.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.analysis.block_sched import (
    block_schedule,
    schedule_of,
    schedules,
    sm_clock,
)
from roofline.core.model import Ceiling, Device, Kernel
from roofline.importers.neutrino.neutrino_bin import BlockTimeline


def gpu(**clocks):
    return Device(name="test GPU", kind="gpu", compute={"fp32": Ceiling(1e13)}, memory={},
                  clocks_hz=clocks, architecture={"sms": 4})


def test_two_sms_four_blocks():
    """SM0 runs [0,100] then [110,200]; SM1 [0,50] then [70,100]: gaps 10
    and 20, spans 200 and 100."""
    s = block_schedule(sm=[0, 1, 0, 1], start_cycles=[0, 0, 110, 70], end_cycles=[100, 50, 200, 100])
    assert s.blocks == 4 and s.sms_used == 2
    assert s.sms.concurrent.tolist() == [1, 1]
    assert s.sms.gap_cycles.tolist() == [10, 20]
    assert s.sms.span_cycles.tolist() == [200, 100]
    assert s.sms.block_cycles.tolist() == [190, 80]
    assert s.sms.share.tolist() == [10 / 200, 20 / 100]
    assert s.cost_cycles == 30 and s.share == pytest.approx(30 / 300)
    assert s.waves == 2.0 and s.sms.waves.tolist() == [2.0, 2.0]
    assert s.tail_cycles == 50.0                 # finishes 200 and 100, median 150
    assert s.span_cycles == 200.0
    assert np.isnan(s.gap_cycles[:2]).all() and s.gap_cycles[2:].tolist() == [10, 20]
    assert s.previous.tolist() == [-1, -1, 0, 1]
    assert s.seconds(s.cost_cycles) is None      # no clock: cycles only
    assert s.warnings and "SM cycles" in s.warnings[0].message


def test_two_blocks_at_once():
    """k = 2 on one SM: the third block to start takes the slot the first to
    end freed (5 cycles later), the fourth the second's (10 cycles)."""
    s = block_schedule(sm=[3, 3, 3, 3], start_cycles=[0, 0, 105, 130], end_cycles=[100, 120, 200, 220])
    assert s.sms.concurrent.tolist() == [2]
    assert s.cost_cycles == 15 and s.share == pytest.approx(15 / (2 * 220))
    assert s.waves == 2.0
    assert s.previous.tolist() == [-1, -1, 0, 1] and s.lane.tolist() == [0, 1, 0, 1]


def test_touching_blocks_are_not_concurrent():
    s = block_schedule(sm=[0, 0, 0], start_cycles=[0, 100, 150], end_cycles=[100, 150, 160])
    assert s.sms.concurrent.tolist() == [1] and s.cost_cycles == 0.0 and s.share == 0.0


def test_late_second_slot():
    """A [0,10], B [20,30], C [25,100]: two resident at once (B and C), so C
    counts as taking A's slot: 15 cycles."""
    s = block_schedule(sm=[0, 0, 0], start_cycles=[0, 20, 25], end_cycles=[10, 30, 100])
    assert s.sms.concurrent.tolist() == [2] and s.cost_cycles == 15


def test_clock_choice_and_seconds():
    hz, why = sm_clock(gpu(sm=1.5e9, boost=1.9e9))
    assert hz == 1.5e9 and why.startswith("measured SM clock")
    hz, why = sm_clock(gpu(boost=1.41e9))
    assert hz == 1.41e9 and "datasheet boost clock" in why
    assert sm_clock(None)[0] is None and sm_clock(gpu())[0] is None
    timeline = BlockTimeline([0, 1, 2, 3], [0, 1, 0, 1], [0, 0, 110, 70], [100, 50, 200, 100])
    k = Kernel(name="k", count=0, launch={"block_sched": timeline, "probed_time_s": 1e-6, "grid": (4, 1, 1)})
    s = schedule_of(k, gpu(sm=1.5e9))
    assert s.seconds(s.cost_cycles) == pytest.approx(20e-9) and s.sm_count == 4 and not s.warnings
    assert s.implied_clock_hz == pytest.approx(200 / 1e-6)
    assert schedule_of(Kernel(name="other")) is None
    assert len(schedules([k, Kernel(name="other")])) == 1


def test_refuses_inconsistent_input():
    with pytest.raises(ValueError):
        block_schedule([0], [10], [5])
    with pytest.raises(ValueError):
        block_schedule([], [], [])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 6), st.integers(0, 2 ** 31))
def test_generated_slots(sms, k, m, seed):
    """k slots per SM, each running m blocks of 1000-1100 cycles back to back
    after gaps of 0-50: the first blocks start before any second one and
    the last ones end after every other, so the cost is exactly the
    generated gaps, the concurrency k, the waves m and every gap >= 0."""
    rng = np.random.default_rng(seed)
    sm, start, end, total = [], [], [], 0
    for s in range(sms):
        for _ in range(k):
            t = int(rng.integers(0, 50))
            for j in range(m):
                d = int(rng.integers(1000, 1100))
                sm.append(s), start.append(t), end.append(t + d)
                g = int(rng.integers(0, 51))
                if j < m - 1:
                    total += g
                t += d + g
    order = rng.permutation(len(sm))
    r = block_schedule(np.array(sm)[order], np.array(start)[order], np.array(end)[order])
    assert r.cost_cycles == total
    assert r.sms.concurrent.tolist() == [k] * sms
    assert r.waves == pytest.approx(m)
    gaps = r.gap_cycles[np.isfinite(r.gap_cycles)]
    assert (gaps >= 0).all() and len(gaps) == sms * k * (m - 1)
    # lanes: blocks sharing a lane on an SM never overlap
    for s in range(sms):
        for lane in range(k):
            sel = (r.sm == s) & (r.lane == lane)
            o = np.argsort(r.start_cycles[sel])
            assert (r.start_cycles[sel][o][1:] >= r.end_cycles[sel][o][:-1]).all()


def test_timeline_figure_draws_gaps():
    from roofline.render.block_sched import timeline_figure
    s = block_schedule([0, 1, 0, 1], [0, 0, 110, 70], [100, 50, 200, 100], name="k", clock_hz=1e9)
    fig = timeline_figure(s)
    ax = fig.axes[0]
    bars, gaps = ax.collections
    assert len(bars.get_paths()) == 4 and len(gaps.get_segments()) == 2
    seg = sorted(tuple(np.round(x[:, 0], 6)) for x in gaps.get_segments())
    assert seg == [(0.05, 0.07), (0.1, 0.11)]          # µs at 1 GHz
    assert "µs" in ax.get_xlabel()


def test_report_section_beside_the_verdict(tmp_path):
    import test_import_neutrino as T

    from roofline.importers.neutrino.reader import read_run
    from roofline.render import block_sched as R
    from roofline.report import build_report
    run = read_run(T.run_folder(tmp_path))
    profiled = Kernel(name=T.NAME_A, time_s=2e-3, count=2, flops={"fp32": 2e9}, bytes={"DRAM": 1e8})
    rep = build_report([run, profiled], gpu(sm=1e9))
    rows = R.rows(rep)
    assert len(rows) == 3
    a = next(r for r in rows if r[0] == T.NAME_A)
    b = next(r for r in rows if r[0] == T.NAME_B)
    assert a[7] == "10.0%" and "of roof" in a[10] and a[11] == "100 µs"   # 10 % of 1 ms per call
    assert b[10].startswith("no roofline verdict") and b[11] == "20 ns"     # 10 % of the 200-cycle span
    grouped = {r["name"]: r for r in rep.grouped.records()}
    assert grouped[T.NAME_A]["count"] == 2                                    # the trace adds no calls
    figs = R.figures(rep)
    assert sorted(figs) == ["block-sched-1", "block-sched-2", "block-sched-3"]
    assert R.figure_keys(rep) == sorted(figs)
    from roofline.render.html import render_html
    from roofline.render.markdown import render_markdown
    doc = rep.document()
    html = render_html(doc, {k: "data:," for k in figs})
    section = html[html.index('<section id="rr-block-sched">'):]
    assert section[:section.index("</section>")].count("<figure>") == 3
    md = render_markdown(doc, {k: f"{k}.png" for k in figs})
    part = md[md.index("## Block scheduling"):]
    assert "measured SM clock" in part and part.count("](block-sched-") == 3
    assert "block-sched" not in build_report([profiled], gpu(sm=1e9)).document().keys()
    assert math.isclose(R.report_schedules(rep)[0].share, 0.1)
