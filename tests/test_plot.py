"""Plots are written through the CLI, in the bound colours, with plain tick
labels (their content is read back in test_plot_content.py)."""
import subprocess
import sys

import numpy as np
import pytest

from conftest import DATA, REPO

EXAMPLE = REPO / "examples" / "ece408_kernels.csv"


@pytest.mark.parametrize("view", ["cache-aware", "hierarchical"])
def test_png_is_drawn(tmp_path, view):
    out = tmp_path / "roof.png"
    run = subprocess.run([sys.executable, "-m", "roofline.cli.main", "plot", str(EXAMPLE), "--device",
                          str(DATA / "toy_gpu.yaml"), "-o", str(out), "--view", view],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    import matplotlib.image as mpimg
    img = mpimg.imread(out)
    assert img.shape[0] >= 900 and img.shape[1] >= 1400
    rgb = img[..., :3]
    assert rgb.std() > 0.05  # not blank
    # kernels are drawn in the bound-class colours (compute: #D55E00; the
    # forward_kernel[conv2] variants are compute-bound on this device)
    orange = np.all(np.abs(rgb - np.array([0xD5, 0x5E, 0x00]) / 255) < 0.05, axis=-1)
    assert orange.sum() > 100


def test_log_axes_are_labelled_as_numbers_not_mathtext(tmp_path):
    # matplotlib's log ticks are mathtext ($\mathdefault{10^{14}}$); with math
    # text off (names from profiles must not be parsed) they showed as raw
    # text: every chart's ticks must be plain
    out = tmp_path / "roof.svg"
    run = subprocess.run([sys.executable, "-m", "roofline.cli.main", "plot", str(EXAMPLE), "--device",
                          str(DATA / "toy_gpu.yaml"), "-o", str(out), "--variants",
                          "baseline,constmem,tiled,double-buffer"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    svg = out.read_text()
    assert "mathdefault" not in svg and "10^{" not in svg
    assert "10\u00b9\u00b3" in svg or "10&#185;&#179;" in svg.replace("&#xb9;", "&#185;")


def test_pdf_has_the_figures_page(tmp_path, toy_gpu):
    # the SVG's content is read back in test_plot_content.py; the PDF is one
    # page of the figure's size (10 x 6.5 in = 720 x 468 pt)
    from roofline import place, read_kernels
    from roofline.render.plot import roofline_figure, save_figure
    out = tmp_path / "roof.pdf"
    save_figure(roofline_figure(place(read_kernels(EXAMPLE), toy_gpu)), out)
    pdf = out.read_bytes()
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page\n") + pdf.count(b"/Type /Page ") == 1
    assert b"/MediaBox [ 0 0 720 468 ]" in pdf


def test_short_names():
    from roofline.render.plot import short_name
    assert short_name("void cudnn::detail::implicit_convolve_sgemm<float, float, 1024>(int, int)") == \
        "cudnn::detail::implicit_convolve_…"
    assert short_name("volta_sgemm_128x128_tn") == "volta_sgemm_128x128_tn"


def test_cli_plot_of_a_huge_file_sums_by_name_over_a_density(tmp_path):
    rng = np.random.default_rng(2)
    lines = ["name,time_us,flops_fp32,bytes_dram"]
    for i in range(3000):
        lines.append(f"k{i % 50},{rng.uniform(5, 500):.3f},{rng.uniform(1e6, 1e9):.0f},{rng.uniform(1e5, 1e8):.0f}")
    src = tmp_path / "many.csv"
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "many.png"
    run = subprocess.run([sys.executable, "-m", "roofline.cli.main", "plot", str(src), "--device",
                          str(DATA / "toy_gpu.yaml"), "-o", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "3000 kernels" in run.stdout and out.stat().st_size > 10_000



def test_instruction_view_needs_instruction_and_transaction_counters(tmp_path):
    src = tmp_path / "k.csv"
    src.write_text("name,time_us,flops_fp32,bytes_dram\nk,10,1e6,1e6\n")
    run = subprocess.run([sys.executable, "-m", "roofline.cli.main", "plot", str(src), "--device", "v100-sxm2",
                          "--view", "instruction", "-o", str(tmp_path / "i.png")], capture_output=True, text=True)
    assert run.returncode == 2 and "ncu --metrics smsp__inst_executed.sum" in run.stderr
    assert not (tmp_path / "i.png").exists()


def test_instruction_view_from_kernels_csv(tmp_path):
    # V100-like: 1e9 warp instructions in 10 ms = 100 warp GIPS, 1e9/2e8 = 5 instructions per DRAM sector
    src = tmp_path / "k.csv"
    src.write_text("name,time_ms,instructions,transactions_l1,transactions_dram\nk,10,1e9,1e9,2e8\n")
    out = tmp_path / "i.png"
    run = subprocess.run([sys.executable, "-m", "roofline.cli.main", "plot", str(src), "--device", "v100-sxm2",
                          "--view", "instruction", "-o", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "1 kernels on the instruction roofline" in run.stdout and out.stat().st_size > 10_000
