"""Short kernel names that stay told apart (issue 24, item 2): names from
HTA's nccl_data trace, whose top-kernels table showed three
`cutlass::Kernel`, three `at::native::vectorized_elementwise_kernel` and three
`cudnn::bn_bw_1C11_kernel_new` rows."""
from __future__ import annotations

from roofline.render.names import distinct_names, template_arguments

CUTLASS = ["void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nt_align4>"
           "(cutlass_80_tensorop_s1688gemm_256x64_16x4_nt_align4::Params)",
           "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4>"
           "(cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4::Params)"]
ELEMENTWISE = ["void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
               "at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, x)",
               "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
               "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>)"]
BATCH_NORM = ["void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>(float, float)",
              "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>(float, float)"]


def test_template_arguments_at_the_top_level():
    assert template_arguments(ELEMENTWISE[1]) == ["4", "at::native::CUDAFunctor_add<float>",
                                                  "at::detail::Array<char*, 3>"]
    assert template_arguments("forward_kernel(float*)") == []


def test_colliding_names_get_the_argument_that_differs():
    assert distinct_names(CUTLASS, 60) == ["cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nt_align4>",
                                           "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4>"]
    # the first argument (4) is the same: the functor tells them apart, without its own arguments
    assert distinct_names(ELEMENTWISE, 60) == ["at::native::vectorized_elementwise_kernel<…, AUnaryFunctor>",
                                               "at::native::vectorized_elementwise_kernel<…, CUDAFunctor_add>"]
    assert distinct_names(BATCH_NORM, 60) == ["cudnn::bn_bw_1C11_kernel_new<…, 32>",
                                              "cudnn::bn_bw_1C11_kernel_new<…, 128>"]


def test_names_that_collide_only_after_stripping_keep_their_arguments():
    add = ELEMENTWISE[0].replace("MulFunctor", "AddFunctor")
    shown = distinct_names([ELEMENTWISE[0], add], 60)
    assert len(set(shown)) == 2 and "Mul" in shown[0] and "Add" in shown[1]


def test_no_argument_differs_then_a_number_and_distinct_names_stay_short():
    a, b = "void k<1, 2>(int)", "void k<1, 2>(float)"      # overloads: the arguments are equal
    assert distinct_names([a, b, a]) == ["k #1", "k #2", "k #1"]
    assert distinct_names(["aten::mm(512x768, 768x50257)", "void k<1>(int)"]) == [
        "aten::mm(512x768, 768x50257)", "k"]


def test_the_report_tables_tell_the_kernels_apart(tmp_path):
    from roofline import find_device
    from roofline.core.model import Kernel
    from roofline.report import build_report
    kernels = [Kernel(name=n, time_s=1e-3 * (i + 1), count=1) for i, n in enumerate(CUTLASS + BATCH_NORM)]
    html = build_report(kernels, find_device("a100-80gb-sxm")).to_html()
    for label in ("cutlass_80_tensorop_s1688gemm_256x64_16x4_nt_align4&gt;", "bn_bw_1C11_kernel_new&lt;…, 128&gt;"):
        assert label in html
