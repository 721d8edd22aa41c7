"""Reports: HTML sections, escaping, embedded charts, variant arrows,
Markdown with PNGs beside it, huge traces, and the `roofline report` CLI."""
import base64
import re

import numpy as np
import pytest

from conftest import DATA, REPO

EXAMPLE = REPO / "examples" / "ece408_kernels.csv"
TOY = str(DATA / "toy_gpu.yaml")
PNG = b"\x89PNG\r\n\x1a\n"
EVIL = '<script>alert("x")</script> & co<T>'


@pytest.fixture(scope="module")
def report():
    from roofline.report import build_report
    return build_report([EXAMPLE], "v100-sxm2", title="ECE408 <layers>")


@pytest.fixture(scope="module")
def html(report):
    return report.to_html()


def test_html_has_every_section_that_applies(html):
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    for section in ("summary", "rooflines", "kernels", "families", "variants", "overhead", "warnings"):
        assert f'id="rr-{section}"' in html and f'href="#rr-{section}"' in html
    # a kernels.csv with no instruction counts and no operators: those sections do not apply
    for section in ("instruction", "operators", "ranks"):
        assert f'id="rr-{section}"' not in html and f'href="#rr-{section}"' not in html
    for heading in ("Time by bound class", "Top kernels", "Variants: before and after", "Host API and GPU idle"):
        assert heading in html
    assert "ECE408 &lt;layers&gt;" in html  # the title is escaped too
    assert "NVIDIA Tesla V100 SXM2" in html


def test_html_is_self_contained(html):
    # every script is inline (the interactive roofline's Bokeh, the tables'
    # sorting): nothing is fetched, so the page opens with no network
    assert not re.search(r"<script[^>]*\ssrc=", html, flags=re.I)
    markup = re.sub(r"<script[^>]*>.*?</script>", "", html, flags=re.S)     # the page, not the libraries' code
    assert not re.search(r'(src|href)="(https?:)?//', markup)
    assert "Bokeh" in html and 'class="sortable"' in html
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(images) >= 1  # the time view (the cache-aware roofline is the interactive chart)
    assert all(base64.b64decode(b).startswith(PNG) for b in images)


def test_summary_numbers(report, html):
    assert report.total_time_s == pytest.approx(167.7622e-3)  # the time_ms column summed
    shares = {b.label: b.share for b in report.bound_shares()}
    assert sum(shares.values()) == pytest.approx(1.0)
    # the four conv2 forward_kernel variants (15.55 GFLOP each, 323.5 MB: right of
    # the DRAM ridge) are compute-bound; milliseconds each, none is overhead
    conv2 = (21.991 + 21.061 + 39.903 + 19.820) * 1e-3
    assert shares["compute"] == pytest.approx(conv2 / 167.7622e-3)
    assert "bandwidth (DRAM)" in shares and "overhead" not in shares
    # the compute-bound conv2 rows: nothing says why; the bandwidth-bound ones with
    # compulsory (modelled) bytes far below their roof likely move more than counted
    assert [x.reason for x in report.lost_by_reason()] == ["no evidence", "traffic above compulsory"]
    fams = {f.family: f for f in report.family_rows()}
    assert fams["conv_custom"].names == 2 and fams["conv_custom"].calls == 8
    assert fams["memcpy"].calls == 20
    assert "conv_custom" in html and "168 ms" in html


def test_family_rows_agree_with_families_aggregate(report):
    from roofline import read_kernels
    from aggregate_oracle import aggregate
    totals = {k.name: k for k in aggregate(read_kernels(EXAMPLE).kernels(), by="family")}
    for row in report.family_rows():
        assert row.time_s == pytest.approx(totals[row.family].time_s)
        assert row.calls == totals[row.family].count


def test_names_are_escaped(toy_gpu):
    from roofline.core.model import Kernel
    from roofline.report import build_report
    r = build_report([Kernel(EVIL, time_s=1e-3, flops={"fp32": 1e9}, bytes={"DRAM": 1e8}),
                      Kernel("pipe|name", time_s=2e-3, flops={"fp32": 1e9}, bytes={"DRAM": 1e8})], toy_gpu)
    html = r.to_html()
    # no name reaches the page unescaped: not in the tables, not in the chart's data
    assert EVIL not in html and "<script>alert" not in html
    assert html.count("<script") == html.count("</script>")
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co&lt;T&gt;" in html  # full name on hover
    md, _ = r.to_markdown()
    assert "pipe\\|name" in md and "<script" not in md


def test_variant_arrows_on_the_roofline(report):
    fig = report.plot_roofline()
    ax = fig.axes[0]
    arrows = [t for t in ax.texts if t.get_gid() == "variant-arrow"]
    labels = [t for t in ax.texts if t.get_gid() == "variant-label"]
    assert len(arrows) == 6  # conv1 and conv2: baseline -> constmem -> tiled -> double-buffer
    assert all(a.arrow_patch is not None for a in arrows)
    assert len(labels) == 2 and "tiled 0.53x" in " ".join(t.get_text() for t in labels)
    # slower steps are drawn in the other colour
    colours = {tuple(np.round(a.arrow_patch.get_edgecolor(), 3)) for a in arrows}
    assert len(colours) == 2


def test_variants_option_orders_and_filters():
    from roofline import read_kernels
    from roofline.render.variants import variant_chains
    ks = read_kernels(EXAMPLE)
    chains = variant_chains(ks)
    assert [c.variants for c in chains] == [("baseline", "constmem", "tiled", "double-buffer")] * 2
    chains = variant_chains(ks, "double-buffer, baseline")
    assert {c.name for c in chains} == {"mxnet::op::forward_kernel[conv1]", "mxnet::op::forward_kernel[conv2]"}
    assert all(c.variants == ("double-buffer", "baseline") for c in chains)
    assert chains[1].speedups(ks.time_s) == [pytest.approx(19.820 / 21.991)]


def test_variant_tables(report, html):
    tables = report.variant_rows()
    assert len(tables) == 2
    conv2 = next(t for t in tables if t[0].kernel.endswith("[conv2]"))
    assert [v.variant for v in conv2] == ["baseline", "constmem", "tiled", "double-buffer"]
    assert conv2[2].vs_previous == pytest.approx(21.061 / 39.903)
    assert conv2[3].vs_first == pytest.approx(21.991 / 19.820)
    assert 'class="slower">0.53x' in html and 'class="faster">2.01x' in html


def test_markdown_writes_pngs_beside_it(report, tmp_path):
    out = tmp_path / "sub" / "ece.md"
    written = report.save(out)
    text = out.read_text()
    pngs = sorted(p.name for p in out.parent.glob("*.png"))
    assert pngs == ["ece_overhead.png", "ece_roofline-cache-aware.png"]
    assert set(written) == {out} | {out.parent / p for p in pngs}
    for name in pngs:
        assert f"]({name})" in text
        assert (out.parent / name).read_bytes().startswith(PNG)
    assert "## Families" in text and "| conv_custom |" in text
    assert "`cudnn::detail::implicit_convolve_sgemm`" in text
    assert not list(out.parent.glob(".*"))  # no temporary files left


def test_repr_html_is_a_scoped_fragment(report):
    frag = report._repr_html_()
    assert frag.startswith("<style>") and '<div class="rr">' in frag and "<html lang" not in frag
    assert ".rr table" in frag  # styles are scoped to the report


def test_instruction_roofline_when_counters_allow(toy_gpu):
    from roofline import find_device
    from roofline.core.model import Kernel
    from roofline.report import build_report
    k = Kernel("stencil", time_s=20e-3, flops={"fp32": 1e10}, bytes={"DRAM": 1e9}, instructions=1e9,
               transactions={"L1": 2e9, "L2": 1e9, "DRAM": 2e8})
    r = build_report([k], find_device("v100-sxm2"))
    assert r.instruction is not None and r.plot_instruction() is not None
    assert "instruction" in r.figures()
    # without instruction counts: a note that says what to collect
    r = build_report([Kernel("k", time_s=1e-3, flops={"fp32": 1e9})], toy_gpu)
    assert r.instruction is None and r.plot_instruction() is None
    assert "instruction_rate" in r.instruction_note() or "ncu --metrics" in r.instruction_note()


def test_huge_trace_is_aggregated_and_drawn_as_density(toy_gpu):
    from roofline.core.model import KernelSet
    from roofline.report import build_report
    rng = np.random.default_rng(0)
    n, names = 6000, 600
    which = np.arange(n) % names
    ks = KernelSet(names=np.array([f"k{i}" for i in which], dtype=object), time_s=rng.uniform(1e-6, 1e-3, n),
                   flops={"fp32": rng.uniform(1e6, 1e9, n)}, bytes={"DRAM": rng.uniform(1e6, 1e8, n)},
                   families=np.array(["gemm", "elementwise", "reduction"], dtype=object)[which % 3])
    r = build_report(ks, toy_gpu, max_points=2000)
    assert r.dense and len(r.grouped) == names
    assert len(r.plotted) <= 400 + 3  # top names, then one marker per family
    assert np.nansum(r.plotted.kernels.time_s) == pytest.approx(np.nansum(ks.time_s))
    fig = r.plot_roofline()
    from matplotlib.collections import QuadMesh
    assert any(isinstance(c, QuadMesh) for c in fig.axes[0].collections)
    assert sum(f.calls for f in r.family_rows()) == n


def test_aggregate_set_matches_families_aggregate():
    from roofline import read_kernels
    from aggregate_oracle import aggregate
    from roofline.core.aggregate import aggregate_set
    ks = read_kernels(EXAMPLE)
    for by in ("name", "family"):
        mine = aggregate_set(ks, by).kernels()
        theirs = aggregate(ks.kernels(), by=by)
        assert [k.name for k in mine] == [k.name for k in theirs]
        for a, b in zip(mine, theirs):
            assert a.time_s == pytest.approx(b.time_s) and a.count == b.count
            assert a.flops == pytest.approx(dict(b.flops)) and a.bytes == pytest.approx(dict(b.bytes))
            assert a.variant == b.variant


# ---------------------------------------------------------------- CLI

def _main():
    from roofline.cli import main as cli_main
    parser = cli_main.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert "report" in sub.choices      # a missing command must fail, never skip
    return cli_main.main


def test_cli_writes_html(tmp_path, capsys):
    main = _main()
    out = tmp_path / "report.html"
    code = main(["report", str(EXAMPLE), "--device", TOY, "-o", str(out),
                 "--variants", "baseline,constmem,tiled,double-buffer"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert f"wrote {out}" in captured.out
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary files left


def test_cli_bad_input_exits_2_and_writes_nothing(tmp_path, capsys):
    main = _main()
    bad = tmp_path / "bad.csv"
    bad.write_text("name,time_us,flops_fp32\nk,abc,1\n")
    out = tmp_path / "report.html"
    assert main(["report", str(bad), "--device", TOY, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bad.csv:2" in err
    assert main(["report", str(EXAMPLE), "--device", TOY, "-o", str(tmp_path / "report.pdf")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


def test_cli_failure_while_rendering_keeps_the_old_file(tmp_path, monkeypatch, capsys):
    main = _main()
    import roofline.render.report as rep
    from roofline.core.errors import RooflineError
    out = tmp_path / "report.html"
    out.write_text("old")

    def broken(fig):
        raise RooflineError("renderer broke")
    monkeypatch.setattr(rep, "_png", broken)
    assert main(["report", str(EXAMPLE), "--device", TOY, "-o", str(out)]) == 2
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["report.html"]
