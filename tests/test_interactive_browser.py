"""The interactive roofline's controls run in headless Chromium: the
cumulative-time slider keeps the rows that make up the top share of the
time, a click on a family's legend entry isolates it and a second one
brings all back, the precision selector hides a compute roof and its
kernels, the level selector shows a point per memory level, and the
names of hidden points go with them. Skipped without Chromium or playwright
(as tests/test_report_browser.py)."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from roofline.report import build_report
from test_interactive_controls import hierarchical_kernels

BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser") if shutil.which(b)), None)
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install '.[test]')")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium on this machine (apt-get install chromium)")

# Drive the controls as a user's click does (a legend click toggles its
# renderer's visible; a widget sets its value) and count what is shown.
PROBE = """async () => {
  const tick = () => new Promise((r) => setTimeout(r, 100));     // CustomJS callbacks run asynchronously
  const doc = Object.values(Bokeh.index)[0].model.document;
  const all = [...doc._all_models.values()];
  const nm = (m) => { try { return m.name; } catch (e) { return null; } };
  const by = (n) => all.filter((m) => nm(m) === n);
  const pts = by("points"), src = pts[0].data_source, shown = pts[0].view.filter.operands[1];
  const count = () => { const lit = new Set(pts.filter((r) => r.visible).map((r) => r.tags[0]));
    return shown.indices.filter((i) => lit.has(src.data.group[i])).length; };
  const names = () => by("point-label")[0].source.data.text.length;
  const out = {all: count(), labels: names()};
  const slider = by("time-slider")[0];
  slider.value = 50; await tick(); out.top50 = count(); out.top50_rows = [...shown.indices];
  slider.value = 100; await tick();
  out.back = count();
  const groups = by("group"), gemm = groups.find((g) => g.tags[0] === "gemm");
  gemm.visible = false; await tick();
  out.isolated = groups.filter((g) => g.visible).map((g) => g.tags[0]); out.isolated_count = count();
  out.isolated_labels = names();
  gemm.visible = false; await tick(); out.restored = groups.filter((g) => g.visible).length;
  const prec = by("precision-picker")[0];
  const ends = () => by("roof-bandwidth").filter((r) => r.visible).map((r) => Math.max(...r.data_source.data.y));
  const roofAt = (k) => by("roof-compute").find((r) => r.tags[0] === k).data_source.data.y[0];
  out.bw_ends_all = ends(); out.top_roof = roofAt(prec.tags[0]);
  prec.active = [prec.tags.indexOf("fp32")]; await tick(); out.fp32 = count();
  out.roofs = by("roof-compute").filter((r) => r.visible).map((r) => r.tags[0]);
  out.bw_ends_fp32 = ends(); out.fp32_roof = roofAt("fp32");
  out.ridges_fp32 = by("ridge").filter((r) => r.visible).map((r) => r.data_source.data.y[0]);
  prec.active = [0, 1]; await tick();
  const lv = by("level-picker")[0];
  lv.active = [1, 2, 3]; await tick(); out.nearest_off = count();
  out.level_renderers = by("level-points").filter((r) => r.visible).length;
  out.level_points = by("level-points")[0].view.filter.operands[1].indices.length;
  out.joins = by("level-join")[0].data_source.data.x0.length;
  lv.active = [0]; await tick();
  out.joins_after = by("level-join")[0].data_source.data.x0.length;
  return JSON.stringify(out);
}"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    report = build_report(hierarchical_kernels(), "a100-40gb-sxm", title="controls")
    report.save(path)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=BROWSER, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_context(viewport={"width": 1400, "height": 1000}, offline=True).new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_function("() => Object.keys(Bokeh.index).length > 0", timeout=20000)
        out = json.loads(page.evaluate(PROBE))
        browser.close()
    return report, out, errors


def test_controls_run_without_error(probe):
    _, out, errors = probe
    assert errors == [] and out["all"] == 12 and out["back"] == 12            # the copy is not drawn


def test_slider_keeps_the_top_share_of_time(probe):
    report, out, _ = probe
    time = np.nan_to_num(report.placements.kernels.time_s)
    kept = time[out["top50_rows"]].sum()
    assert kept >= 0.5 * time.sum() and out["top50"] < out["all"]
    assert kept - time[out["top50_rows"]].min() < 0.5 * time.sum()            # no row more than needed


def test_legend_click_isolates_a_family_and_a_second_brings_all_back(probe):
    _, out, _ = probe
    assert out["isolated"] == ["gemm"] and out["isolated_count"] == 4 and out["restored"] == 3
    assert out["isolated_labels"] < out["labels"]                               # names of hidden points go


def test_precision_and_level_selectors(probe):
    _, out, _ = probe
    assert out["roofs"] == ["fp32"] and out["fp32"] == 8                 # no hgemm
    # every bandwidth line ends at the highest roof shown: the FP16 tensor roof,
    # then the FP32 roof alone (not on past it to the hidden one), ridges with it
    assert len(out["bw_ends_all"]) == len(out["bw_ends_fp32"]) >= 2
    assert out["bw_ends_all"] == pytest.approx([out["top_roof"]] * len(out["bw_ends_all"]), rel=1e-9)
    assert out["bw_ends_fp32"] == pytest.approx([out["fp32_roof"]] * len(out["bw_ends_fp32"]), rel=1e-9)
    assert out["fp32_roof"] < out["top_roof"] and out["ridges_fp32"] == [out["fp32_roof"]]
    assert out["nearest_off"] == 0 and out["level_renderers"] == 3 and out["level_points"] == 36
    assert out["joins"] == 12 and out["joins_after"] == 0
