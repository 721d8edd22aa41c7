"""The report's operator table and its split of time by kind of work."""
import pytest

from roofline.core.model import Kernel
from roofline.report import build_report


def kernels():
    return [
        Kernel("gemm_kernel", 4e-3, count=2, flops={"fp32": 8e9}, bytes={"DRAM": 1e7}, family="gemm",
               modelled=True, operator="aten::mm"),
        Kernel("copy_kernel", 1e-3, flops={}, family="elementwise", operator="aten::mm"),
        Kernel("implicit_convolve_sgemm", 3e-3, flops={"fp32": 6e9}, bytes={"DRAM": 1e7},
               family="implicit_gemm", modelled=True, operator="aten::cudnn_convolution"),
        Kernel("layer_norm_kernel", 1e-3, flops={"fp32": 1e6}, bytes={"DRAM": 1e8}, family="normalization",
               modelled=True, operator="aten::native_layer_norm"),
        Kernel("ncclKernel_AllReduce", 1e-3, family="communication"),
    ]


def test_work_split_by_kind(toy_gpu):
    r = build_report(kernels(), toy_gpu)
    split = {s.category: s for s in r.work_split()}
    assert list(split) == ["GEMM", "convolution", "normalisation", "element-wise", "other"]
    assert split["GEMM"].time_s == pytest.approx(4e-3) and split["GEMM"].share == pytest.approx(0.4)
    assert split["convolution"].time_s == pytest.approx(3e-3)
    assert split["other"].rows == 1  # the NCCL kernel
    assert sum(s.share for s in split.values()) == pytest.approx(1.0)


def test_operator_rows_sum_their_kernels(toy_gpu):
    r = build_report(kernels(), toy_gpu)
    ops = {o.operator: o for o in r.operator_rows()}
    assert list(ops)[0] == "aten::mm"                       # most time first
    mm = ops["aten::mm"]
    assert (mm.rows, mm.calls) == (2, 3) and mm.time_s == pytest.approx(5e-3)
    assert mm.modelled == pytest.approx(0.8)                 # the copy kernel has no model
    assert mm.flop_s == pytest.approx(8e9 / 4e-3)            # over the members that do FLOPs
    assert mm.share == pytest.approx(0.5)
    assert "ncclKernel_AllReduce" not in ops


def test_report_pages_show_the_operator_section(toy_gpu, tmp_path):
    r = build_report(kernels(), toy_gpu)
    page = r.to_html()
    assert 'id="rr-operators"' in page and "aten::cudnn_convolution" in page and "normalisation" in page
    text, _ = r.to_markdown()
    assert "## Operators" in text and "`aten::native_layer_norm`" in text


def test_report_without_operators_says_how_to_get_them(toy_gpu):
    r = build_report([Kernel("k", 1e-3, flops={"fp32": 1e9}, bytes={"DRAM": 1e6})], toy_gpu)
    assert r.operator_rows() == []
    assert "record_shapes=True" in r.to_html()
