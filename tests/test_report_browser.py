"""The HTML report in a real browser: headless Chromium opens a generated
report with no network, shows no console error, answers a hover on the
interactive roofline with the kernel's numbers, keeps only the chosen
family when one is picked, jumps to a point's table row on a click, and
sorts and searches the kernels table.

Needs Chromium (Debian: ``apt-get install chromium``; ``.ci/run`` installs
it) and the ``playwright`` package of ``[test]`` (which drives the system's
Chromium; it downloads no browser). Skipped, with the reason, without them.
"""
from __future__ import annotations

import shutil

import pytest

from roofline.core.model import Kernel, KernelSet
from roofline.report import build_report

BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser") if shutil.which(b)), None)
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install '.[test]')")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium on this machine (apt-get install chromium)")

# The plot view of the page's first Bokeh root, a drawn kernel and where it
# is on the screen.
FIND_POINT = """(name) => {
  const find = (v) => { if (v.frame && v.frame.x_scale) return v;
    for (const c of (v.child_views || [])) { const r = find(c); if (r) return r; } return null; };
  const pv = find(Object.values(Bokeh.index)[0]);
  const d = pv.model.renderers.find((r) => r.data_source && r.data_source.data.name).data_source.data;
  const i = d.full_name.indexOf(name);
  const box = (pv.canvas_view ? pv.canvas_view.el : pv.canvas.el).getBoundingClientRect();
  return {x: box.left + pv.frame.x_scale.compute(d.x[i]), y: box.top + pv.frame.y_scale.compute(d.y[i]),
          row: d.row[i]};
}"""
VISIBLE_POINTS = """() => {
  const find = (v) => { if (v.frame && v.frame.x_scale) return v;
    for (const c of (v.child_views || [])) { const r = find(c); if (r) return r; } return null; };
  const pv = find(Object.values(Bokeh.index)[0]);
  const src = pv.model.renderers.find((r) => r.data_source && r.data_source.data.name).data_source;
  return pv.model.renderers.filter((r) => r.data_source === src)[0].view.filter.operands[1].indices.length;
}"""
TOOLTIP = """() => Array.from(document.querySelectorAll('.bk-Tooltip'))
  .map((e) => Array.from(e.shadowRoot.querySelectorAll('div')).map((c) => c.innerText).join(' ')).join(' ')"""


def kernels() -> KernelSet:
    ks = [Kernel(f"aten::mm({n}x{n}, {n}x{n})", time_s=2 * n ** 3 / 5e10, count=3, flops={"fp32": 2 * n ** 3},
                 bytes={"DRAM": 12 * n * n}, family="gemm", operator="aten::mm", modelled=True)
          for n in (128, 256, 512, 1024)]
    ks += [Kernel(f"aten::add_({n}x{n}, {n}x{n})", time_s=3e-6 + 12 * n * n / 2e10, count=5, flops={"fp32": n * n},
                  bytes={"DRAM": 12 * n * n}, family="elementwise", operator="aten::add_", modelled=True)
           for n in (16, 64, 256, 1024, 2048)]
    return KernelSet.from_kernels(ks)


@pytest.fixture(scope="module")
def page(tmp_path_factory, toy_gpu_module):
    path = tmp_path_factory.mktemp("report") / "report.html"
    build_report(kernels(), toy_gpu_module, title="browser test").save(path)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=BROWSER, args=["--no-sandbox", "--disable-gpu",
                                                                   "--disable-background-networking"])
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, offline=True)
        page = context.new_page()
        page.errors = []
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_selector(".bk-Column", timeout=20000)
        page.wait_for_function("() => Object.keys(Bokeh.index).length > 0", timeout=20000)
        yield page
        browser.close()


@pytest.fixture(scope="module")
def toy_gpu_module():
    from conftest import DATA
    from roofline.devices.profile import load_device
    return load_device(DATA / "toy_gpu.yaml")


def test_it_opens_offline_with_no_console_error(page):
    assert page.errors == []
    assert page.inner_text("h1") == "browser test"


def test_hover_shows_the_kernels_numbers(page):
    page.locator("#rr-rooflines").scroll_into_view_if_needed()
    point = page.evaluate(FIND_POINT, "aten::mm(1024x1024, 1024x1024)")
    page.mouse.move(point["x"], point["y"])
    page.wait_for_function(f"() => ({TOOLTIP})().includes('1024x1024')", timeout=5000)
    tip = page.evaluate(TOOLTIP)
    assert "aten::mm(1024x1024, 1024x1024)" in tip and "3 calls" in tip and "compute" in tip


def test_picking_a_family_keeps_only_its_points(page):
    everything = page.evaluate(VISIBLE_POINTS)
    page.locator(".bk-MultiChoice").first.click()
    page.keyboard.type("elementwise")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => ({VISIBLE_POINTS})() < {everything}", timeout=5000)
    assert page.evaluate(VISIBLE_POINTS) == 5 and everything == 9
    page.keyboard.press("Backspace")          # remove the choice again
    page.wait_for_function(f"() => ({VISIBLE_POINTS})() === {everything}", timeout=5000)


def test_a_click_on_a_point_finds_its_table_row(page):
    page.locator("#rr-rooflines").scroll_into_view_if_needed()
    point = page.evaluate(FIND_POINT, "aten::mm(512x512, 512x512)")
    page.mouse.click(point["x"], point["y"])
    row = page.locator(f"#{point['row']}")
    row.wait_for(state="visible")
    page.wait_for_function(f"() => document.getElementById('{point['row']}').classList.contains('rr-hit')",
                           timeout=5000)
    assert "aten::mm(512x512, 512x512)" in row.inner_text()


def test_the_kernels_table_sorts_and_searches(page):
    table = page.locator("#rr-kernel-table")
    table.locator("thead th", has_text="calls").click()
    calls = [int(c) for c in table.locator("tbody tr td:nth-child(4)").all_inner_texts()]
    assert calls == sorted(calls, reverse=True) or calls == sorted(calls)
    page.fill("input.rr-search", "add_(2048")
    shown = [r for r in table.locator("tbody tr").all() if r.is_visible()]
    assert len(shown) == 1 and "aten::add_(2048x2048" in shown[0].inner_text()
    assert page.inner_text("#rr-kernel-table-count") == "1 of 9 rows"
