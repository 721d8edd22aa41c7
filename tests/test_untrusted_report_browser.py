"""Names from untrusted inputs stay text in the HTML report (issue 30).

Headless Chromium opens reports built from inputs whose names are markup
that runs script (an ``<img onerror>``, a ``<script>``, an ``<svg onload>``,
an ``<iframe srcdoc>`` after an attribute breakout, ``javascript:`` URLs,
quotes that break out of an attribute, a ``</script>`` that would end
Bokeh's data block) coming from each kind of input: a Kineto trace's Triton
launchers (operator and kernel names), a kernels.csv's ``name``,
``operator`` and ``family`` cells and a TensorFlow trace's ``tf_op``. Every
payload sets ``window.__pwned`` (or the page title) if it runs; the test
opens the operator and family filters (their options and a chosen item
render then), hovers every point (the tooltip renders), searches the
kernels table, and asserts nothing ran, no request left the page and the
names are shown as text. The notebook fragment (``_repr_html_``) is put in
a page the way JupyterLab does (innerHTML, then each script re-run).

Launching as tests/test_report_browser.py does: Debian's Chromium driven by
playwright, offline; skipped without them.
"""
from __future__ import annotations

import csv
import gzip
import json
import shutil

import pytest

from roofline.report import build_report

BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser") if shutil.which(b)), None)
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install '.[test]')")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium on this machine (apt-get install chromium)")

# Each one sets window.__pwned (or document.title) if the browser runs it.
PAYLOADS = {
    "img": '<img src=x onerror="window.__pwned=\'img\'">',
    "script": "<script>window.__pwned='script'</script>",
    "svg": "<svg onload=window.__pwned='svg'>",
    "iframe": '"><iframe srcdoc="<script>parent.__pwned=\'iframe\'</script>">',
    "javascript-url": '<a id=pwn href="javascript:window.__pwned=\'href\'">javascript:window.__pwned=1</a>'
                      '<iframe src="javascript:parent.__pwned=\'jsurl\'">',
    "double-quote": '" autofocus onfocus="window.__pwned=\'dq\'" x="',
    "single-quote": "' onmouseover='window.__pwned=\"sq\"' autofocus onfocus='window.__pwned=\"sq\"' x='",
    "details": "<details open ontoggle=\"document.title='PWNED'\">",
    "end-script": "</script><script>window.__pwned='end-script'</script>",
    "bidi": "exe\u202egnp.js<b>",
}
TITLE = "untrusted names"

# What the test does to make every part of the page render: open each
# filter (its options), pick the first option (a chosen item), hover every
# drawn point (the tooltip), type in the table's search box.
OPEN_FILTERS = """async () => {
  const widgets = [];
  const walk = (root) => { for (const el of root.querySelectorAll("*")) {
      if (el.classList.contains("choices")) widgets.push(el);
      if (el.shadowRoot) walk(el.shadowRoot); } };
  walk(document);
  return widgets.length;
}"""
CHOICE_TEXTS = """() => {
  const out = [];
  const walk = (root) => { for (const el of root.querySelectorAll("*")) {
      if (el.classList.contains("choices__item")) out.push(el.textContent);
      if (el.shadowRoot) walk(el.shadowRoot); } };
  walk(document);
  return out;
}"""
POINTS = """() => {
  const find = (v) => { if (v.frame && v.frame.x_scale) return v;
    for (const c of (v.child_views || [])) { const r = find(c); if (r) return r; } return null; };
  const pv = find(Object.values(Bokeh.index)[0]);
  const d = pv.model.renderers.find((r) => r.data_source && r.data_source.data.name).data_source.data;
  const box = (pv.canvas_view ? pv.canvas_view.el : pv.canvas.el).getBoundingClientRect();
  const out = [];
  for (let i = 0; i < d.x.length; i++) {
    if (!(d.x[i] > 0 && d.y[i] > 0)) continue;
    out.push({x: box.left + pv.frame.x_scale.compute(d.x[i]), y: box.top + pv.frame.y_scale.compute(d.y[i])});
  }
  return out;
}"""
TOOLTIP = """() => Array.from(document.querySelectorAll('.bk-Tooltip'))
  .map((e) => e.shadowRoot ? e.shadowRoot.textContent : e.textContent).join(' ')"""
# JupyterLab puts an HTML output in with innerHTML, then re-creates each
# script so that it runs.
JUPYTER_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head><body>
<div id="out"></div>
<script type="application/json" id="fragment">{fragment}</script>
<script>
const out = document.getElementById("out");
out.innerHTML = JSON.parse(document.getElementById("fragment").textContent);
for (const old of Array.from(out.querySelectorAll("script"))) {{
  const s = document.createElement("script");
  for (const a of old.attributes) s.setAttribute(a.name, a.value);
  s.textContent = old.textContent;
  old.replaceWith(s);
}}
</script></body></html>"""


# ---------------------------------------------------------------- the inputs

def kineto_trace(folder):
    """A GPU trace of Triton launchers (a cpu_op named like its kernel, with
    Inductor's counts, so every kernel is drawn) named by the payloads."""
    events = []
    for i, payload in enumerate(PAYLOADS.values()):
        name, t = f"triton_poi_fused_add_{i}{payload}", 100.0 * i
        events += [
            {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": t, "dur": 20.0,
             "args": {"External id": i + 1, "Input Dims": [[1024], [1024], []],
                      "Input type": ["float", "float", "Scalar"], "Concrete Inputs": ["", "", "1024"],
                      "kernel_flop": 5000 * (i + 1), "kernel_num_gb": 2e-5 * (i + 1)}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": t + 5.0,
             "dur": 3.0, "args": {"correlation": 100 + i, "External id": i + 1}},
            {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t + 30.0, "dur": 10.0 + i,
             "args": {"correlation": 100 + i, "External id": i + 1, "device": 0, "grid": [64, 1, 1],
                      "block": [128, 1, 1]}}]
    path = folder / "payload.pt.trace.json"
    path.write_text(json.dumps({"traceEvents": events, "deviceProperties": [{"id": 0, "name": "toy"}]}))
    return path


def kernels_csv(folder):
    """Payloads in the name, operator and family cells."""
    path = folder / "payload_kernels.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        out.writerow(["name", "operator", "family", "time_us", "flops_fp32", "bytes_dram"])
        for i, payload in enumerate(PAYLOADS.values()):
            out.writerow([f"k{i}{payload}", f"op{i}{payload}", f"fam{i}{payload}", 10 + i, 1e7 * (i + 1), 1e6])
    return path


def tf_trace(folder):
    """A TensorFlow Trace Viewer JSON: kernels whose ``tf_op`` is a payload,
    costed by an XLA Ops event of that op (so they are drawn)."""
    events = [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}},
              {"ph": "M", "pid": 1, "tid": 13, "name": "thread_name", "args": {"name": "Stream #13(Kernel)"}},
              {"ph": "M", "pid": 1, "tid": 99, "name": "thread_name", "args": {"name": "XLA Ops"}},
              {"ph": "M", "pid": 2, "name": "process_name", "args": {"name": "/host:CPU"}}]
    for i, payload in enumerate(PAYLOADS.values()):
        op = f"model/{payload}:Conv2D{i}"
        events += [{"ph": "X", "pid": 1, "tid": 99, "ts": 100 * i, "dur": 40, "name": op,
                    "args": {"flops": str(10 ** 9 * (i + 1)), "bytes_accessed": str(10 ** 6)}},
                   {"ph": "X", "pid": 1, "tid": 13, "ts": 100 * i, "dur": 40 + i, "name": f"kernel_{i}",
                    "args": {"tf_op": op}}]
    path = folder / "payload.trace.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"traceEvents": events}).encode()))
    return path


INPUTS = {"kineto": kineto_trace, "kernels-csv": kernels_csv, "tf-trace": tf_trace}


# ---------------------------------------------------------------- the browser

@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=BROWSER, args=["--no-sandbox", "--disable-gpu",
                                                             "--disable-background-networking"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def device():
    from conftest import DATA
    from roofline.devices.profile import load_device
    return load_device(DATA / "toy_gpu.yaml")


def _open(browser, path):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, offline=True)
    # every assignment to window.__pwned is kept (several payloads may run)
    context.add_init_script("""Object.defineProperty(window, "__pwned", {configurable: false,
      set(v) { (window.__ran = window.__ran || []).push(String(v)); }, get() { return window.__ran; }});""")
    page = context.new_page()
    page.requests = []
    page.on("request", lambda r: page.requests.append(r.url))
    page.goto(path.as_uri())
    page.wait_for_selector(".bk-Column", timeout=20000)
    page.wait_for_function("() => Object.keys(Bokeh.index).length > 0", timeout=20000)
    return page


def _exercise(page) -> None:
    """Make every part of the page that shows a name render."""
    filters = page.locator(".bk-MultiChoice")
    for k in range(filters.count()):
        filters.nth(k).click()
        page.wait_for_function(f"() => ({CHOICE_TEXTS})().length > 0", timeout=5000)
        page.keyboard.press("Enter")            # choose the first option: it renders as an item
        page.wait_for_timeout(100)
        page.keyboard.press("Backspace")        # and remove it again (all points shown)
    page.locator("#rr-rooflines").scroll_into_view_if_needed()
    for point in page.evaluate(POINTS):
        page.mouse.move(point["x"], point["y"])
        page.wait_for_timeout(30)
    page.fill("input.rr-search", "<")
    page.fill("input.rr-search", "")
    page.wait_for_timeout(300)


def _nothing_ran(page, uri: str) -> None:
    assert page.evaluate("() => window.__pwned") is None
    assert page.title() != "PWNED"
    assert [u for u in page.requests if u != uri] == []      # not even the <img src=x> was fetched


@pytest.mark.parametrize("kind", list(INPUTS))
def test_no_script_runs_from_names_in_the_report(kind, browser, device, tmp_path):
    source = INPUTS[kind](tmp_path)
    report = build_report(source, device, title=TITLE)
    path = tmp_path / "report.html"
    report.save(path)
    page = _open(browser, path)
    try:
        assert page.evaluate(OPEN_FILTERS) >= 1          # the operator (or family) filter is there
        _exercise(page)
        _nothing_ran(page, path.as_uri())
        assert page.title().startswith(TITLE)
        shown = " ".join(page.evaluate(CHOICE_TEXTS)) + page.inner_text("body")
        # the names are there as text, their bidi controls as escapes
        assert "<img src=x onerror=" in shown and "<script>window.__pwned='script'</script>" in shown
        assert "exe\\u202egnp.js<b>" in shown and "\u202e" not in shown
    finally:
        page.context.close()


def test_the_filters_offer_the_payload_names_as_text(browser, device, tmp_path):
    """Every option of the operator and family filters reads as its name
    (the kernels.csv input has payloads in both)."""
    page = _open(browser, _saved(build_report(kernels_csv(tmp_path), device, title=TITLE), tmp_path))
    try:
        filters = page.locator(".bk-MultiChoice")
        texts = []
        for k in range(filters.count()):
            filters.nth(k).click()
            page.wait_for_function(f"() => ({CHOICE_TEXTS})().length > 0", timeout=5000)
            texts += page.evaluate(CHOICE_TEXTS)
            page.keyboard.press("Escape")
        for i, payload in enumerate(PAYLOADS.values()):
            expected = payload.replace("\u202e", "\\u202e")
            assert f"op{i}{expected}" in texts and f"fam{i}{expected}" in texts
        _nothing_ran(page, page.url)
    finally:
        page.context.close()


def test_picking_a_payload_operator_still_filters(browser, device, tmp_path):
    """The options' values are the names the points carry: choosing one keeps its point."""
    page = _open(browser, _saved(build_report(kernels_csv(tmp_path), device, title=TITLE), tmp_path))
    try:
        page.locator(".bk-MultiChoice").last.click()
        option = page.locator(".choices__item--choice", has_text="op3").first
        option.wait_for(state="visible", timeout=5000)
        option.click()
        page.wait_for_function("""() => {
          const find = (v) => { if (v.frame && v.frame.x_scale) return v;
            for (const c of (v.child_views || [])) { const r = find(c); if (r) return r; } return null; };
          const pv = find(Object.values(Bokeh.index)[0]);
          const src = pv.model.renderers.find((r) => r.data_source && r.data_source.data.name).data_source;
          return pv.model.renderers.filter((r) => r.data_source === src)[0].view.filter.operands[1].indices.length === 1;
        }""", timeout=5000)
        _nothing_ran(page, page.url)
    finally:
        page.context.close()


@pytest.mark.parametrize("kind", list(INPUTS))
def test_no_script_runs_from_the_notebook_fragment(kind, browser, device, tmp_path):
    report = build_report(INPUTS[kind](tmp_path), device, title=TITLE)
    fragment = report._repr_html_()
    page_path = tmp_path / "notebook.html"
    page_path.write_text(JUPYTER_PAGE.format(title=TITLE, fragment=json.dumps(fragment).replace("</", "<\\/")),
                         encoding="utf-8")
    page = _open(browser, page_path)
    try:
        _exercise(page)
        _nothing_ran(page, page_path.as_uri())
        assert page.title() == TITLE
    finally:
        page.context.close()


def _saved(report, folder):
    path = folder / "report.html"
    report.save(path)
    return path
