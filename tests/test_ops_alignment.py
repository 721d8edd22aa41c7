"""Whether a matrix product's rows are 16-byte aligned (what TMA-based GEMM
kernels of sm_90 and later need), from recorded shapes and strides; and, on
a real H100 trace, that the rule names the rows that ran older-GPU kernels."""
from __future__ import annotations

import numpy as np
import pytest

from roofline.core.kernel_arch import older_than_device
from roofline.ops import OpCall, op_work
from roofline.ops.call import row_stride


def bf16(name, *shapes, strides=()):
    return OpCall(name, tuple(shapes), tuple("c10::BFloat16" for _ in shapes), tuple(strides),
                  tuple("" for _ in shapes))


def test_row_stride_is_the_non_unit_stride_or_the_last_dimension():
    assert row_stride((4, 3601, 64), None) == 64
    assert row_stride((4, 64, 3601), (230464, 1, 64)) == 64        # a transposed view of K
    assert row_stride((4, 64, 3601), (230464, 3601, 1)) == 3601
    assert row_stride((3601,), None) is None and row_stride((1, 64), None) is None


@pytest.mark.parametrize("call, unaligned", [
    # OWLv2's attention scores: 3601 tokens, 64 per head; the result's rows are 7202 bytes
    (bf16("aten::bmm", (192, 3601, 64), (192, 64, 3601)), True),
    (bf16("aten::bmm", (192, 3601, 3601), (192, 3601, 64)), True),
    (bf16("aten::bmm", (192, 3600, 64), (192, 64, 3600)), False),
    # a 37-token prompt through a 1024 -> 3072 projection: M is no stride
    (bf16("aten::mm", (37, 1024), (1024, 3072)), False),
    (bf16("aten::addmm", (3072,), (37, 1024), (1024, 3072)), False),
    (bf16("aten::linear", (2, 37, 1023), (3072, 1023)), True),
    (bf16("aten::mm", (64, 1032), (1032, 64)), False),   # 2064 bytes: a multiple of 16
    (bf16("aten::mm", (64, 1028), (1028, 64)), True),    # 2056 bytes: not
])
def test_matrix_products_say_whether_their_rows_are_aligned(call, unaligned):
    assert op_work(call).unaligned is unaligned


def test_fp32_rows_are_aligned_at_four_elements():
    call = OpCall("aten::mm", ((64, 1028), (1028, 68)), ("float", "float"), (), ("", ""))
    assert op_work(call).unaligned is False       # 4112 and 272 bytes


def test_other_operators_say_nothing():
    call = OpCall("aten::add", ((64, 1027), (64, 1027)), ("c10::BFloat16",) * 2, (), ("", ""))
    assert op_work(call).unaligned is None


def test_on_a_real_h100_trace_unaligned_rows_are_the_older_kernels(realdata):
    """The real outcome: on an H100 (sm_90) cuBLAS ran kernels built for
    older GPUs (cutlass_75_*_align1) for exactly the bf16 matrix rows whose
    shapes the rule calls unaligned, and its own sm90 kernels for the rest."""
    from roofline.cli.common import choose_device, load_inputs
    path = realdata / "pairs" / "AMD-AGI__TraceLens__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz"
    kernels, results = load_inputs([str(path)])
    device = choose_device(None, results, "test")
    bf16_matrix = np.isin(kernels.families, ["gemm"]) & (kernels.dtypes == "bf16") & np.isfinite(kernels.unaligned)
    older = older_than_device(kernels.names, device.architecture)
    unaligned = kernels.unaligned > 0.5
    assert unaligned[bf16_matrix].sum() >= 4
    # every unaligned row ran an older kernel, and no aligned row ran an align1/align2 one
    assert older[bf16_matrix & unaligned].all()
    narrow = np.array(["_align1" in n or "_align2" in n for n in kernels.names.tolist()])
    assert not (bf16_matrix & ~unaligned & narrow).any()
    time = np.nan_to_num(kernels.time_s)
    assert time[bf16_matrix & unaligned].sum() > 0.8 * time[bf16_matrix & older].sum()
