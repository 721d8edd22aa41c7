"""Names from the files read are text in the HTML report, checked without
a browser (tests/test_untrusted_report_browser.py runs the pages): the
page's elements and attributes are only the report's own, whatever markup
the names hold, and bidi controls show as escapes (issue 30)."""
from __future__ import annotations

from html.parser import HTMLParser

import pytest

from roofline.core.model import Kernel, KernelSet
from roofline.render.interactive import choices
from roofline.render.names import html_text
from roofline.report import build_report

MARKUP = ['<img src=x onerror="alert(1)">', "<script>alert(2)</script>", "<svg onload=alert(3)>",
          '"><iframe srcdoc="<script>alert(4)</script>">', "' onmouseover='alert(5)' x='",
          '<a href="javascript:alert(6)">x</a>', "</script><script>alert(7)</script>", "<details open ontoggle=alert(8)>"]
BIDI = ["exe\u202egnp.js", "a\u2066b\u2069", "l\u200er\u200fm\u061c", "x\u202ay\u202bz\u202c\u202d"]
# the elements the report writes itself
OWN_TAGS = {"html", "head", "meta", "title", "style", "body", "div", "h1", "h2", "h3", "p", "nav", "a", "section",
            "span", "b", "i", "table", "thead", "tbody", "tr", "th", "td", "figure", "figcaption", "img", "ul", "li",
            "code", "wbr", "footer", "input", "script"}


class _Page(HTMLParser):
    """Every element with its attributes, and the text outside scripts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if not self._in_script:
            self.text.append(data)


def kernels(names) -> KernelSet:
    ks = [Kernel(f"k{i}{n}", time_s=1e-5 * (i + 1), flops={"fp32": 1e7 * (i + 1)}, bytes={"DRAM": 1e6},
                 family=f"fam{i}{n}", operator=f"op{i}{n}", variant=f"v{i}{n}", modelled=True)
          for i, n in enumerate(names)]
    return KernelSet.from_kernels(ks)


@pytest.fixture(scope="module")
def page(toy_gpu_module):
    report = build_report(kernels(MARKUP + BIDI), toy_gpu_module, title="t")
    parsed = _Page()
    parsed.feed(report.to_html())
    return parsed, report


@pytest.fixture(scope="module")
def toy_gpu_module():
    from conftest import DATA
    from roofline.devices.profile import load_device
    return load_device(DATA / "toy_gpu.yaml")


def test_no_element_or_attribute_comes_from_a_name(page):
    parsed, _ = page
    tags = {tag for tag, _ in parsed.elements}
    assert tags <= OWN_TAGS, tags - OWN_TAGS
    for tag, attrs in parsed.elements:
        assert not [a for a in attrs if a.startswith("on") or a in ("srcdoc", "autofocus", "x", "open")], (tag, attrs)
        if tag == "img":
            assert attrs["src"].startswith("data:image/png;base64,")
        if tag == "a":
            assert attrs["href"].startswith("#rr-")
        if tag == "script":
            assert set(attrs) <= {"type", "id"}


def test_names_are_shown_as_their_text(page):
    parsed, _ = page
    text = "".join(parsed.text)
    for i, payload in enumerate(MARKUP):
        assert f"op{i}{payload}" in text and f"fam{i}{payload}" in text
    # the full kernel names are in the title of their cells
    titles = {attrs.get("title") for _, attrs in parsed.elements}
    assert f"k0{MARKUP[0]}" in titles and f"k3{MARKUP[3]}" in titles


def test_bidi_controls_show_as_escapes(page):
    parsed, _ = page
    text = "".join(parsed.text) + "".join(v or "" for _, a in parsed.elements for v in a.values())
    for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2069\u200e\u200f\u061c":
        assert ch not in text
    assert "exe\\u202egnp.js" in text and "a\\u2066b\\u2069" in text and "l\\u200er\\u200fm\\u061c" in text


def test_the_notebook_fragment_is_the_same_text(page):
    _, report = page
    parsed = _Page()
    parsed.feed(report._repr_html_())
    assert {tag for tag, _ in parsed.elements} <= OWN_TAGS
    assert not [a for _, attrs in parsed.elements for a in attrs if a.startswith("on")]
    assert "\u202e" not in "".join(parsed.text)


def test_selector_labels_are_html_text_and_values_the_names():
    name = '<img src=x onerror="alert(1)">'
    assert choices([name]) == [(name, "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;")]


@pytest.mark.parametrize("text, shown", [
    ("<b>&</b>", "&lt;b&gt;&amp;&lt;/b&gt;"),
    ("exe\u202egnp.js", "exe\\u202egnp.js"),
    ("tab\there\x1b[31m", "tab\\x09here\\x1b[31m"),
    ("two\nlines", "two\nlines"),
    ("lone \ud800", "lone \\ud800"),
    ("'\"", "&#x27;&quot;"),
])
def test_html_text(text, shown):
    assert html_text(text) == shown


def test_bidi_controls_are_escapes_in_markdown_and_in_every_table_cell():
    from roofline.render.document import Table, code, text
    from roofline.render.html_tables import table_html
    from roofline.render.markdown import _md_code, _md_text, _table_lines
    name = "exe\u202egnp.py"
    table = Table(("kernel", "trace"), ((code(name), text(name)),))
    for render in (_md_code, _md_text, table_html, lambda _: "\n".join(_table_lines(table))):
        out = render(table if render is table_html else name)
        assert "\u202e" not in out and "\\u202e" in out, render
