"""roofline diff: two runs by name and family, two devices, and the CLI module."""
import argparse
import json

import pytest

from conftest import DATA
from roofline.analysis.diff import diff_devices, diff_placements
from roofline.render.diff import diff_json, diff_table
from roofline.core.errors import RooflineError
from roofline.core.model import Kernel, KernelSet
from roofline.core.placement import place

TOY = str(DATA / "toy_gpu.yaml")

RUN_A = """name,time_us,count,flops_fp32,bytes_dram,family,variant
forward_kernel,2000,1,1.57e10,1.0e8,conv_custom,baseline
axpy,300,2,2.0e7,2.4e8,elementwise,
[CUDA memcpy HtoD],500,1,,,memcpy,
"""
RUN_B = """name,time_us,count,flops_fp32,bytes_dram,family,variant
forward_kernel,1000,1,7.85e9,0.5e8,conv_custom,tiled
forward_kernel,500,1,7.85e9,0.5e8,conv_custom,tiled
axpy,300,2,2.0e7,2.4e8,elementwise,
relu,100,1,1.0e6,8.0e6,elementwise,
"""


def placed(toy_gpu, rows):
    return place(KernelSet.from_kernels(rows), toy_gpu)


def test_diff_by_name(toy_gpu):
    # toy GPU: fp32 15.7 TFLOP/s, DRAM 900 GB/s
    a = placed(toy_gpu, [Kernel("conv", time_s=4e-3, flops={"fp32": 15.7e9}, bytes={"DRAM": 2.7e9}),
                         Kernel("copy", time_s=1e-3, bytes={"DRAM": 9e8}, family="memcpy")])
    b = placed(toy_gpu, [Kernel("conv", time_s=1e-3, flops={"fp32": 15.7e9}, bytes={"DRAM": 9e6}),
                         Kernel("new", time_s=2e-3, flops={"fp32": 1e6})])
    d = diff_placements(a, b)
    rows = {r.key: r for r in d.rows}
    conv = rows["conv"]
    # A moves 2.7 GB: 3 ms at 900 GB/s, 75 % of its DRAM roof; B's compute
    # roof 15.7e9 / 15.7e12 = 1 ms: 100 %, 4x faster
    assert conv.speedup == pytest.approx(4.0) and conv.delta_s == pytest.approx(-3e-3)
    assert conv.efficiency_a == pytest.approx(0.75) and conv.efficiency_b == pytest.approx(1.0)
    assert conv.bound_a == "bandwidth (DRAM)" and conv.bound_b == "compute"
    assert conv.status == "bound changed"
    assert rows["copy"].status == "only in A" and rows["new"].status == "only in B"
    assert d.total_a_s == pytest.approx(5e-3) and d.total_b_s == pytest.approx(3e-3)
    assert [r.key for r in d.rows][0] == "conv"  # largest change first


def test_diff_by_family_sums_members(toy_gpu):
    a = placed(toy_gpu, [Kernel("k1", time_s=2e-3, flops={"fp32": 15.7e9}, family="gemm"),
                         Kernel("k2", time_s=2e-3, flops={"fp32": 15.7e9}, family="gemm")])
    b = placed(toy_gpu, [Kernel("k3", time_s=1e-3, flops={"fp32": 15.7e9}, family="gemm")])
    row, = diff_placements(a, b, by="family").rows
    assert row.key == "gemm" and row.count_a == 2 and row.count_b == 1
    # A: 2 ms of roofline time over 4 ms measured
    assert row.efficiency_a == pytest.approx(0.5) and row.speedup == pytest.approx(4.0)


def test_formatters(toy_gpu):
    a = placed(toy_gpu, [Kernel("conv", time_s=4e-3, flops={"fp32": 15.7e9})])
    b = placed(toy_gpu, [Kernel("conv", time_s=1e-3, flops={"fp32": 15.7e9})])
    d = diff_placements(a, b)
    table = diff_table(d)
    assert "conv" in table and "4.00x" in table and "25%" in table and "total" in table
    data = json.loads(diff_json(d))
    assert data["rows"][0]["speedup"] == pytest.approx(4.0) and data["by"] == "name"


def test_diff_devices():
    from roofline.devices.profile import find_device
    d = diff_devices(find_device("v100-sxm2"), find_device("a100-40gb-sxm"))
    rows = {(r.kind, r.key): r for r in d.rows}
    dram = rows[("memory", "DRAM")]
    assert dram.ratio == pytest.approx(dram.value_b / 897.024e9)
    assert rows[("compute", "fp64")].ratio > 1
    assert rows[("issue", "warp instructions")].unit == "inst/s"
    text = diff_table(d)
    assert "DRAM" in text and "B / A" in text
    assert json.loads(diff_json(d))["a"] == "NVIDIA Tesla V100 SXM2"


def cli(argv):
    from roofline.cli import diff as command
    parser = argparse.ArgumentParser()
    command.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["diff", *map(str, argv)])
    return args.func(args)


def test_cli_runs(tmp_path, capsys):
    (tmp_path / "a.csv").write_text(RUN_A)
    (tmp_path / "b.csv").write_text(RUN_B)
    assert cli([tmp_path / "a.csv", tmp_path / "b.csv", "--device", TOY]) == 0
    out = capsys.readouterr().out
    assert "forward_kernel" in out and "1.33x" in out  # 2 ms -> 1.5 ms (two rows summed)
    assert cli([tmp_path / "a.csv", tmp_path / "b.csv", "-d", TOY, "--by", "family", "-f", "json"]) == 0
    keys = {r["key"] for r in json.loads(capsys.readouterr().out)["rows"]}
    assert keys == {"conv_custom", "elementwise", "memcpy"}


def test_cli_devices_and_errors(tmp_path, capsys):
    assert cli(["v100-sxm2", TOY]) == 0
    assert "toy GPU" in capsys.readouterr().out
    (tmp_path / "a.csv").write_text(RUN_A)
    with pytest.raises(RooflineError, match="not one of each"):
        cli([tmp_path / "a.csv", "v100-sxm2"])
    with pytest.raises(RooflineError, match="--device"):
        cli([tmp_path / "a.csv", tmp_path / "a.csv"])
