"""roofline project -o: the projection as an HTML or Markdown report.

Names from the input (kernels, families) carry markup that would run as
script if it went in as markup; the report must show them as text. The
output path is checked before anything is read or written. The charts show
what the projection holds: bars at the families' times with their
intervals, points at work / projected time.
"""
from __future__ import annotations

import html
import math
import re
import shutil
from html.parser import HTMLParser

import numpy as np
import pytest

from test_projection import _cli, _trace_file as trace_file

from roofline import Ceiling, Device, KernelSet, MemoryLevel, place
from roofline.analysis.projection import Figures, project
from roofline.core.errors import InputError
from roofline.devices.observed import Figure
from roofline.render.projection_chart import (_label, families_figure, limiting_intensity, limiting_level,
                                              target_roofline_figure)
from roofline.render.projection_report import (chart_files, check_output_path, projection_html,
                                               projection_markdown, save_projection_report)

PAYLOADS = {"img": "<img src=x onerror=alert(1)>",
            "script": "</script><script>alert(1)</script>",
            "quote": '" onmouseover="alert(1)" x="',
            "bidi": "exe\u202egnp.js"}


def gpu(name, bf16, fp32, dram, l2, sms=100):
    return Device(name=name, kind="gpu", compute={"tensor_bf16": Ceiling(bf16), "fp32": Ceiling(fp32)},
                  memory={"L2": MemoryLevel("L2", Ceiling(l2)), "DRAM": MemoryLevel("DRAM", Ceiling(dram))},
                  architecture={"sms": sms, "compute_capability": "9.0", "vendor": "X"})


SRC = gpu("src", bf16=1e15, fp32=5e13, dram=2e12, l2=8e12)
DST = gpu("dst", bf16=2e15, fp32=1e14, dram=4e12, l2=1.6e13, sms=200)
FIGURES = Figures(lambda d: Figure({"src": 2e-6, "dst": 4e-6}[d.name], "test"),
                  lambda d: Figure({"src": 0.6, "dst": 0.4}[d.name], "test"))


def payload_projection():
    """A row per payload (in its kernel name and its family), a matrix row,
    a row without work and a memset: every kind of row the report shows."""
    names, fams, times, fp32, bf16, dram = [], [], [], [], [], []
    for i, payload in enumerate(PAYLOADS.values()):
        names.append(f"k{i}{payload}")
        fams.append(f"fam{i}{payload}")
        times.append(1e-3 * (i + 1))
        fp32.append(1e8 * (i + 1)), bf16.append(math.nan), dram.append(1e9 * (i + 1))
    rows = [("sm90_xmma_gemm_bf16", "gemm", 4e-3, math.nan, 1e12, 1e8),
            ("custom_kernel<img src=x onerror=alert(2)>", "gemm", 2e-3, math.nan, math.nan, math.nan),
            ("Memset (Device)", "memset", 5e-6, math.nan, math.nan, math.nan)]
    for name, fam, t, f32, b16, b in rows:
        names.append(name), fams.append(fam), times.append(t), fp32.append(f32), bf16.append(b16), dram.append(b)
    ks = KernelSet(names, times, flops={"fp32": fp32, "tensor_bf16": bf16}, bytes={"DRAM": dram}, families=fams)
    return project(place(ks, SRC), DST, figures=FIGURES)


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text."""

    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_the_html_report_shows_names_as_text_and_runs_no_script(tmp_path):
    p = payload_projection()
    path = tmp_path / "projection.html"
    assert save_projection_report(p, path, sources=["trace<script>.json"]) == [path]
    page = path.read_text(encoding="utf-8")
    parsed = _Tags()
    parsed.feed(page)
    tags = {t for t, _ in parsed.tags}
    assert "script" not in tags and "iframe" not in tags and "svg" not in tags
    assert not [(t, a) for t, a in parsed.tags for k in a if k.startswith("on")]     # no event handler
    images = [a["src"] for t, a in parsed.tags if t == "img"]
    assert len(images) == 2 and all(s.startswith("data:image/png;base64,") for s in images)   # nothing fetched
    # the payloads are in the page as text: escaped in it, whole in what it shows
    text = "".join(parsed.text)
    for i, key in enumerate(("img", "script", "quote")):
        assert f"fam{i}{PAYLOADS[key]}" in text
        assert html.escape(PAYLOADS[key], quote=True) in page
        assert PAYLOADS[key] not in page
    assert "\u202e" not in page and "exe\\u202egnp.js" in text         # bidi control shown as its escape
    assert "trace&lt;script&gt;.json" in page


def test_the_html_report_says_what_every_total_rests_on():
    p = payload_projection()
    page = projection_html(p, {})
    t = p.totals.total
    from roofline.render.cells import _t
    for figure in (_t(t.measured_s), _t(t.projected_s), f"{_t(t.low_s)} .. {_t(t.high_s)}", _t(t.at_roof_s)):
        assert html.escape(figure) in page
    for note in p.notes:
        assert html.escape(note) in page
    assert "memcpy/memset rows" in page          # the memset is projected, not in the totals
    assert "not in the totals" in page
    assert "matrix units at each GPU&#x27;s observed library efficiency" in page   # a basis' text


def _outside_code(md: str) -> str:
    """The Markdown with its code spans taken out (their text is literal)."""
    return re.sub(r"(`+) .*? \1|`[^`]*`", "", md)


def test_the_markdown_report_escapes_names_and_writes_its_charts(tmp_path):
    p = payload_projection()
    path = tmp_path / "out" / "proj.md"
    written = save_projection_report(p, path)
    pngs = [tmp_path / "out" / "proj_projection-families.png", tmp_path / "out" / "proj_projection-roofline.png"]
    assert written == pngs + [path]
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    md = path.read_text(encoding="utf-8")
    assert "(proj_projection-families.png)" in md and "(proj_projection-roofline.png)" in md
    # outside code spans nothing can be markup: the family payloads are HTML-escaped text
    assert "<" not in _outside_code(md)
    assert "fam0&lt;img src=x onerror=alert(1)&gt;" in md
    assert "\u202e" not in md and "exe\\u202egnp.js" in md


def test_a_markdown_image_link_survives_a_report_name_with_spaces_and_brackets(tmp_path):
    p = payload_projection()
    md = projection_markdown(p, {k: f.name for k, f in chart_files(tmp_path / "my (run) 1.md").items()})
    assert "(my%20%28run%29%201_projection-families.png)" in md


@pytest.mark.parametrize("name", ["r.txt", "r", "dir.html"])
def test_a_bad_output_path_fails_before_anything_is_written(tmp_path, name):
    (tmp_path / "dir.html").mkdir()
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(InputError):
        save_projection_report(payload_projection(), tmp_path / name)
    assert sorted(tmp_path.rglob("*")) == before


def test_a_markdown_report_whose_chart_path_is_a_directory_fails_before_writing(tmp_path):
    (tmp_path / "r_projection-roofline.png").mkdir()
    with pytest.raises(InputError, match="directory where the Markdown report writes a chart"):
        save_projection_report(payload_projection(), tmp_path / "r.md")
    assert not (tmp_path / "r.md").exists() and not (tmp_path / "r_projection-families.png").exists()
    file = tmp_path / "f"
    file.write_text("")
    with pytest.raises(InputError, match="is not a directory"):
        check_output_path(file / "r.html")


def test_the_family_chart_draws_each_family_at_its_times_and_interval():
    p = payload_projection()
    fig = families_figure(p)
    ax = fig.axes[0]
    families = list(p.totals.families.items())
    bars = ax.patches
    assert len(bars) == 2 * len(families)
    ends = sorted(b.get_x() + b.get_width() for b in bars)
    want = sorted([s.measured_s for _, s in families] + [s.projected_s for _, s in families])
    assert ends == pytest.approx(want, rel=1e-9)
    segments = ax.containers[-1].lines[2][0].get_segments()        # the error bars
    got = np.array(sorted((seg[0][0], seg[1][0]) for seg in segments))
    want = np.array(sorted((s.low_s, s.high_s) for _, s in families))
    assert got.shape == want.shape and np.allclose(got, want, rtol=1e-9, atol=0)
    # the longest measured on top, its name as text with the bidi control escaped
    labels = {float(y): t.get_text() for y, t in zip(ax.get_yticks(), ax.get_yticklabels())}
    assert [labels[y] for y in sorted(labels, reverse=True)] == [_label(f) for f, _ in families]
    labels = list(labels.values())
    assert "fam3exe\\u202egnp.js" in labels
    assert "80 % interval" in " ".join(t.get_text() for t in fig.legends[0].get_texts())


def test_the_roofline_puts_each_row_with_work_at_work_over_projected_time():
    p = payload_projection()
    fig = target_roofline_figure(p)
    ax = fig.axes[0]
    view = p.on_target
    work = np.nan_to_num(view.work)
    placed = work > 0
    from matplotlib.collections import PathCollection
    points = np.vstack([c.get_offsets() for c in ax.collections if isinstance(c, PathCollection)])
    assert len(points) == int(placed.sum())
    assert sorted(points[:, 1]) == pytest.approx(sorted(work[placed] / p.projected_s[placed]), rel=1e-9)
    # the rows without work are counted, with their time, under the chart
    no_work = ~placed
    note = " ".join(t.get_text() for t in fig.axes[1].texts)
    assert f"{int(no_work.sum())} of {len(p)} rows have no work" in note
    from roofline.core.units import format_si
    assert format_si(float(np.sum(p.projected_s[no_work])), "s") in note
    assert "FLOP/byte" in ax.get_xlabel() and "FLOP/s" in ax.get_ylabel()


def test_a_compute_bound_row_sits_at_the_intensity_of_the_level_that_takes_longest():
    ks = KernelSet(["gemm", "stream"], [1e-3, 1e-3], flops={"fp32": [1e11, 1e6]},
                   bytes={"L2": [1e8, 1e9], "DRAM": [1e7, 1e8]})
    on = place(ks, DST)
    assert list(on.limiter) == ["compute", "L2"]       # L2: 62.5 us, DRAM 25 us for the stream
    assert list(limiting_level(on)) == ["L2", "L2"]
    assert limiting_intensity(on) == pytest.approx([1e11 / 1e8, 1e6 / 1e9])


def _trace_file(tmp_path):
    return trace_file(tmp_path, PAYLOADS["img"])


def test_the_command_writes_html_and_markdown_reports(tmp_path):
    trace = _trace_file(tmp_path)
    done = _cli("project", str(trace), "--to", "mi300x", "-o", str(tmp_path / "p.html"))
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout and "p.html" in done.stdout
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert "<script" not in page and html.escape(PAYLOADS["img"]) in page
    done = _cli("project", str(trace), "--to", "mi300x", "--output", str(tmp_path / "p.md"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "p_projection-families.png").exists() and (tmp_path / "p_projection-roofline.png").exists()


def test_the_command_refuses_a_bad_output_before_reading_the_trace(tmp_path):
    missing = tmp_path / "no-such-trace.json"
    (tmp_path / "taken.md").mkdir()
    for out in ("r.pdf", "taken.md"):
        before = sorted(tmp_path.rglob("*"))
        done = _cli("project", str(missing), "--to", "mi300x", "-o", str(tmp_path / out))
        assert done.returncode != 0 and out in done.stderr
        assert "no-such-trace" not in done.stderr and "Traceback" not in done.stderr
        assert sorted(tmp_path.rglob("*")) == before


BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser") if shutil.which(b)), None)


@pytest.mark.skipif(BROWSER is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_chromium_runs_nothing_and_fetches_nothing_from_the_page(tmp_path):
    sync = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").sync_playwright
    path = tmp_path / "p.html"
    save_projection_report(payload_projection(), path)
    with sync() as pw:
        browser = pw.chromium.launch(executable_path=BROWSER, args=["--no-sandbox", "--disable-gpu",
                                                                     "--disable-background-networking"])
        try:
            context = browser.new_context(offline=True)
            page = context.new_page()
            dialogs, requests = [], []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(path.as_uri())
            page.locator("td.name").first.hover()
            page.wait_for_timeout(200)
            shown = page.inner_text("body")
            assert dialogs == []
            assert [u for u in requests if not u.startswith("data:")] == [path.as_uri()]
            assert PAYLOADS["img"] in shown and "exe\\u202egnp.js" in shown
            assert page.evaluate("() => document.querySelectorAll('script').length") == 0
        finally:
            browser.close()


def test_beyond_its_marker_limit_the_roofline_draws_the_longest_rows_over_a_density(monkeypatch):
    import roofline.render.projection_chart as chart
    from matplotlib.collections import PathCollection, QuadMesh
    monkeypatch.setattr(chart, "MAX_MARKERS", 2)
    p = payload_projection()
    ax = target_roofline_figure(p).axes[0]
    markers = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(markers) == 1 and len(markers[0].get_offsets()) == 2
    work = np.nan_to_num(p.on_target.work)
    longest = np.argsort(-np.where(work > 0, p.projected_s, -1.0))[:2]
    assert sorted(markers[0].get_offsets()[:, 1]) == pytest.approx(sorted(work[longest] / p.projected_s[longest]))
    assert any(isinstance(c, QuadMesh) for c in ax.collections)
    assert any("all 5 placed rows" in t.get_text() for t in ax.get_legend().get_texts())


def test_every_basis_has_a_colour():
    from roofline.analysis.projection_bases import KEYS
    from roofline.render.projection_chart import BASIS_COLOR
    assert set(BASIS_COLOR) == set(KEYS) and len(set(BASIS_COLOR.values())) == len(KEYS)
