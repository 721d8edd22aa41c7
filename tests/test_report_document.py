"""One report document, two writers: the HTML and the Markdown show the
same sections in the same order, each built once; thresholds come from the
rules the report was built with; words fit the device."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from roofline.core.model import Ceiling, Device, MemoryLevel
from roofline.core.placement import Rules
from roofline.render.document import Figure, Table
from roofline.render.html import render_html
from roofline.render.markdown import render_markdown
from roofline.report import build_report

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _cpu() -> Device:
    """A two-core CPU profile (datasheet-like numbers, not this machine's)."""
    return Device(name="test-cpu", kind="cpu", compute={"fp32": Ceiling(2e11), "fp64": Ceiling(1e11)},
                  memory={"L1": MemoryLevel("L1", Ceiling(8e11)), "DRAM": MemoryLevel("DRAM", Ceiling(3e10))},
                  provenance={"method": "datasheet"})


def _html_sections(page: str) -> list[str]:
    return re.findall(r'<section id="rr-([a-z-]+)">', page)


def _md_sections(text: str, doc) -> list[str]:
    titles = {s.title: s.key for s in doc.sections}
    return [titles[t] for t in re.findall(r"^## (.+)$", text, flags=re.M)]


@pytest.mark.parametrize("src", ["ece408_kernels.csv", "pytorch_cpu_trace.json.gz"])
def test_both_writers_show_every_section_of_one_document(src):
    r = build_report([EXAMPLES / src], "v100-sxm2" if src.endswith(".csv") else _cpu())
    doc = r.document()
    images = {b.key: f"{b.key}.png" for s in doc.sections for b in s.blocks if isinstance(b, Figure)}
    page, text = render_html(doc, images), render_markdown(doc, images)
    assert _html_sections(page) == doc.keys() == _md_sections(text, doc)
    assert {"summary", "kernels", "families", "overhead", "warnings"} <= set(doc.keys())
    for key in images:                       # every figure in both
        assert f'src="{key}.png"' in page and f"]({key}.png)" in text


def test_variants_in_both_writers_and_operators_only_with_operators():
    keys = build_report([EXAMPLES / "ece408_kernels.csv"], "v100-sxm2").document().keys()
    assert "variants" in keys and "operators" not in keys
    cpu = build_report([EXAMPLES / "pytorch_cpu_trace.json.gz"], _cpu()).document().keys()
    assert "operators" in cpu and "variants" not in cpu


def test_threshold_quoted_from_the_rules_in_force():
    src = [EXAMPLES / "ece408_kernels.csv"]
    default = build_report(src, "v100-sxm2").to_markdown()[0]
    strict = build_report(src, "v100-sxm2", rules=Rules(near_roof=0.6, fixed_share=0.3)).to_markdown()[0]
    assert "within 80 % of their roof" in default and "at least 50 % of each call" in default
    assert "within 60 % of their roof" in strict and "at least 30 % of each call" in strict
    assert "80 %" not in strict.split("## Overhead")[0]


def test_words_fit_a_cpu_device():
    r = build_report([EXAMPLES / "pytorch_cpu_trace.json.gz"], _cpu())
    page = r.to_html()
    assert "operator (CPU) time" in page and "kernel (GPU) time" not in page
    assert "Top operators" in page and "PyTorch profiler traces have them" not in page


def test_long_tables_collapse_after_the_top_rows():
    r = build_report([EXAMPLES / "pytorch_cpu_trace.json.gz"], _cpu())
    doc = r.document()
    (table,) = [b for s in doc.sections if s.key == "kernels" for b in s.blocks if isinstance(b, Table)]
    assert len(table.rows) > table.collapse + 5
    page = render_html(doc, {})
    kernels = page[page.index('id="rr-kernel-table"'):]
    kernels = kernels[:kernels.index("</table>")]
    assert kernels.count('class="rr-more"') == len(table.rows) - table.collapse   # all rows there, rest hidden
    assert f"show all {len(table.rows):,} rows" in page
    text = render_markdown(doc, {})
    md = text[text.index("## Kernels"):text.index("## ", text.index("## Kernels") + 3)]
    assert md.count("\n| ") == table.collapse + 1 and f"of {len(table.rows):,} rows" in md


def test_no_evidence_says_what_to_collect():
    text = build_report([EXAMPLES / "ece408_kernels.csv"], "v100-sxm2").to_markdown()[0]
    summary = text[:text.index("### Top kernels")]
    assert "no evidence" in summary and "upper bound" in summary and "--section Occupancy" in summary
    cpu = build_report([EXAMPLES / "pytorch_cpu_trace.json.gz"], _cpu()).to_markdown()[0]
    if "| no evidence |" in cpu:
        assert "perf stat" in cpu and "ncu" not in cpu[:cpu.index("### Top operators")]
