"""`roofline devices` compares like with like: one column per precision
class, the 16-bit tensor rate at FP32 accumulate, INT8 in OP/s, capacities
in binary units."""
from __future__ import annotations

from roofline import find_device
from roofline.cli.devices import device_row
from roofline.cli.main import main


def test_rows_compare_like_with_like():
    h100 = device_row(find_device("h100-sxm"), "h100-sxm", "built-in", "")
    a10 = device_row(find_device("a10"), "a10", "built-in", "")
    for row in (h100, a10):     # the same classes on both, whatever each profile's peak precision is
        assert row["fp32_flop_s"] and row["fp64_flop_s"] and row["tensor16_flop_s"] and row["int8_op_s"]
    assert h100["tensor16_flop_s"] > 10 * h100["fp32_flop_s"]
    rtx = find_device("rtx-4090")
    row = device_row(rtx, "rtx-4090", "built-in", "")
    # the datasheet's FP16 tensor rate is FP16-accumulate (its own roof); PyTorch's GEMMs get the FP32-accumulate one
    assert rtx.compute["tensor_fp16_acc16"].value == 2 * rtx.compute["tensor_fp16"].value
    assert row["tensor16_flop_s"] == rtx.compute["tensor_fp16"].value == rtx.compute["tensor_bf16"].value
    assert row["matrix_precision"] == "tensor_fp8_acc16"


def test_table_units(capsys):
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("h100-sxm "))
    assert "80 GiB" in line and "POP/s" in line and "85.9 GB" not in line
    assert out.splitlines()[0].split()[3:6] == ["FP64", "FP32", "tensor"]
