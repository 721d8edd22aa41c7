"""Compulsory bytes the operator models must not exceed (a model that counts
more than a kernel can move puts real kernels above 100 % of their roof):
an expanded (stride-0) input counts its storage, a gather reads at most its
source, a convolution whose stride skips input pixels does not read them,
and an in-place Inductor kernel writes back the buffer it reads. The shapes
are those of real public traces (AMD-AGI/TraceLens tests/traces: SGLang
Qwen3-8B prefill/decode, MI300X DDP ResNet-18, xDiT SD 3.5), built here."""
from __future__ import annotations

import math

import pytest

from roofline.ops import OpCall, op_work
from roofline.ops.call import distinct_elements
from roofline.ops.conv import touched

BF16, LONG = "c10::BFloat16", "long int"


# -- the storage of a tensor argument ------------------------------------------------------

@pytest.mark.parametrize("shape, strides, want", [
    ((15360, 4096), (4096, 1), 15360 * 4096),        # contiguous: its element count
    ((4096, 15360), (1, 4096), 15360 * 4096),        # transposed: the same elements
    ((2, 38, 4429, 64), (10771328, 283456, 64, 1), 2 * 38 * 4429 * 64),
    ((64, 128), (256, 1), 64 * 128),                 # a slice of wider rows: what it holds
    ((15360, 4096), (1, 0), 15360),                  # expanded index: one column
    ((512, 512, 7, 7), (512, 1, 0, 0), 512 * 512),   # expand of a [512, 512, 1, 1] mean
    ((8,), (0,), 1),
    ((10, 4), (1, 1), 13),                           # overlapping windows (unfold): the span
    ((), (), 1),
    ((3, 0), (0, 1), 0),
    ((15360, 4096), None, 15360 * 4096),             # strides not recorded
    ((15360, 4096), (), 15360 * 4096),
    ((15360, 4096), (1,), 15360 * 4096),             # of another rank: ignored
])
def test_distinct_elements(shape, strides, want):
    assert distinct_elements(shape, strides) == want


# -- gather (finding 4: SGLang Qwen3-8B, vectorized_gather_kernel at 214 % of the MI300X roof) ----

def _gather(index_strides, source=(151936, 4096), index=(15360, 4096)):
    return OpCall("aten::gather", dims=(source, (), index, (), index),
                  types=(BF16, "Scalar", LONG, "Scalar", BF16),
                  strides=((source[1], 1), (), index_strides, (), (index[1], 1)),
                  concrete=("", "0", "", "False", ""))


def test_gather_reads_an_expanded_index_by_its_storage():
    w = op_work(_gather((1, 0)))
    gathered = 15360 * 4096
    # the 15360 int64 indices once, the gathered rows read, the result written
    assert w.bytes == 15360 * 8 + gathered * 2 + gathered * 2 == 251_781_120
    assert w.family == "embedding" and not w.flops


def test_gather_with_a_contiguous_index_is_unchanged():
    gathered = 15360 * 4096
    assert op_work(_gather((4096, 1))).bytes == gathered * (8 + 2 + 2) == 754_974_720
    no_strides = _gather((4096, 1))
    no_strides = OpCall(no_strides.name, no_strides.dims, no_strides.types, (), no_strides.concrete)
    assert op_work(no_strides).bytes == 754_974_720


def test_gather_reads_at_most_its_source():
    # xDiT SD 3.5: a [32, 64] table gathered by an expanded [65536, 64] index
    w = op_work(_gather((1, 0), source=(32, 64), index=(65536, 64)))
    assert w.bytes == 65536 * 8 + 32 * 64 * 2 + 65536 * 64 * 2


def test_embedding_reads_at_most_its_table():
    # 4096 position ids over a 512-row table: at most the table is read
    w = op_work(OpCall("aten::embedding", dims=((512, 768), (8, 512), (), (), ()),
                       types=(BF16, LONG, "Scalar", "Scalar", "Scalar"), concrete=("", "", "-1", "False", "False")))
    assert w.bytes == 8 * 512 * 8 + 512 * 768 * 2 + 8 * 512 * 768 * 2
    # fewer indices than rows: one row read per index, as before
    w = op_work(OpCall("aten::embedding", dims=((151936, 4096), (2, 64), (), (), ()),
                       types=(BF16, LONG, "Scalar", "Scalar", "Scalar"), concrete=("", "", "-1", "False", "False")))
    assert w.bytes == 128 * 8 + 2 * 128 * 4096 * 2


# -- element-wise inputs expanded with stride 0 ----------------------------------------------

def test_elementwise_reads_an_expanded_input_by_its_storage():
    # MI300X ResNet-18: the backward of the global mean, div of an expanded [512, 512, 1, 1]
    dims, out = (512, 512, 7, 7), 512 * 512 * 49
    w = op_work(OpCall("aten::div", dims=(dims, ()), types=(BF16, "Scalar"),
                       strides=((512, 1, 0, 0), ()), concrete=("", "49")))
    assert w.bytes == 512 * 512 * 2 + out * 2
    contiguous = op_work(OpCall("aten::div", dims=(dims, ()), types=(BF16, "Scalar"),
                                strides=((25088, 49, 7, 1), ()), concrete=("", "49")))
    assert contiguous.bytes == 2 * out * 2                 # read and written, as before


def test_elementwise_broadcast_and_copy_are_unchanged_when_contiguous():
    add = op_work(OpCall("aten::add", dims=((16, 64, 256), (256,), ()), types=("float", "float", "Scalar"),
                         strides=((16384, 256, 1), (1,), ()), concrete=("", "", "1")))
    assert add.bytes == 4 * (2 * 16 * 64 * 256 + 256)
    copy = op_work(OpCall("aten::copy_", dims=((4096, 64), (4096, 64), ()), types=(BF16, BF16, "Scalar"),
                          strides=((64, 1), (0, 1), ()), concrete=("", "", "False")))
    assert copy.bytes == 64 * 2 + 4096 * 64 * 2           # an expanded source read once, all written


# -- convolution whose stride skips input pixels (finding 5: 114 % of the MI300X roof) -------

def _miopen(x, wt, padding, stride, dilation=(1, 1)):
    return OpCall("aten::miopen_convolution", dims=(x, wt, (), (), (), (), (), (), ()),
                  types=(BF16, BF16, "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar"),
                  concrete=("", "", "", str(list(padding)), str(list(stride)), str(list(dilation)), "1",
                            "False", "False"))


def test_strided_1x1_convolution_reads_a_quarter_of_its_input():
    w = op_work(_miopen((512, 64, 56, 56), (128, 64, 1, 1), (0, 0), (2, 2)))
    read = 512 * 64 * 28 * 28 * 2                          # every other row and column
    assert w.bytes == read + 128 * 64 * 2 + 512 * 128 * 28 * 28 * 2 == 154_157_056
    assert w.flops == {"bf16": 2 * 512 * 128 * 28 * 28 * 64}


@pytest.mark.parametrize("wt, padding, stride", [
    ((128, 64, 3, 3), (1, 1), (2, 2)),                     # 3x3 stride 2: windows overlap
    ((64, 64, 3, 3), (1, 1), (1, 1)),
    ((128, 64, 1, 1), (0, 0), (1, 1)),                     # 1x1 stride 1
])
def test_convolution_that_reads_every_pixel_counts_its_input_whole(wt, padding, stride):
    x = (512, 64, 56, 56)
    w = op_work(_miopen(x, wt, padding, stride))
    out = [(56 + 2 * p - (r - 1) - 1) // s + 1 for p, r, s in zip(padding, wt[2:], stride)]
    assert w.bytes == (math.prod(x) + math.prod(wt) + 512 * wt[0] * math.prod(out)) * 2


def test_strided_1x1_convolution_backward_reads_the_touched_input_for_grad_weight():
    gy, x, wt = (512, 128, 28, 28), (512, 64, 56, 56), (128, 64, 1, 1)
    w = op_work(OpCall("aten::convolution_backward",
                       dims=(gy, x, wt, (), (), (), (), (), (), (), ()),
                       types=(BF16, BF16, BF16, "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar",
                              "ScalarList", "Scalar", "ScalarList"),
                       concrete=("", "", "", "[0]", "[2, 2]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1",
                                 "[True, True, False]")))
    nx, nw, ngy = math.prod(x), math.prod(wt), math.prod(gy)
    # grad output read; weight read and grad input written whole; a quarter of input read, grad weight written
    assert w.bytes == 2 * (ngy + nw + nx + nx // 4 + nw)


def test_touched_positions_match_a_brute_force_count():
    for size in range(1, 23):
        for stride in range(1, 5):
            for pad in range(4):
                for dil in range(1, 4):
                    for taps in range(1, 5):
                        out = (size + 2 * pad - dil * (taps - 1) - 1) // stride + 1
                        if out <= 0:
                            continue
                        want = {o * stride - pad + k * dil for o in range(out) for k in range(taps)}
                        assert touched(size, out, stride, pad, dil, taps) == len(want & set(range(size)))


def test_transposed_convolution_reads_its_whole_input():
    w = op_work(OpCall("aten::convolution", dims=((2, 4, 5, 6), (4, 3, 1, 1), (), (), (), (), (), (), ()),
                       types=("float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar",
                              "ScalarList", "Scalar"),
                       concrete=("", "", "", "[2, 2]", "[0, 0]", "[1, 1]", "True", "[0, 0]", "2")))
    oh, ow = (5 - 1) * 2 + 1, (6 - 1) * 2 + 1
    assert w.bytes == 4 * (2 * 4 * 5 * 6 + 4 * 3 + 2 * 6 * oh * ow)


# -- in-place Inductor kernels (finding 12: xDiT SD 3.5) ---------------------------------------

def _triton(name, dims, strides, concrete, types=None):
    types = types or tuple(BF16 if d else "Scalar" for d in dims)
    return op_work(OpCall(name, dims=dims, types=types, strides=strides, concrete=concrete))


def test_in_place_pointwise_kernel_reads_and_writes_its_buffer():
    # triton_poi_fused_addmm_gelu_view_15(in_out_ptr0, in_ptr0, xnumel): the last
    # pointer [9728] holds fewer than xnumel elements, so it is no output
    n = 2 * 4096 * 9728
    w = _triton("triton_poi_fused_addmm_gelu_view_15", ((2, 4096, 9728), (9728,), ()),
                ((39845888, 9728, 1), (1,), ()), ("", "", str(n)))
    assert w.bytes == 2 * n * 2 + 9728 * 2 == 318_786_560
    assert any("in_out_ptr0" in a for a in w.assumptions)
    silu = _triton("triton_poi_fused_addmm_silu_2", ((2, 2432), (2432,), ()), ((2432, 1), (1,), ()),
                   ("", "", "4864"))
    assert silu.bytes == 2 * 4864 * 2 + 2432 * 2


def test_a_table_read_through_an_index_is_not_counted_whole():
    """vLLM gpt-oss decode on MI300X (tests/fixtures/serving, the capture): Inductor's
    triton_poi_fused_0 looks up 32 token ids in the 201088 x 2880 embedding table and
    casts the 131072 x 64 rotary cache; no xnumel recorded. Counting the whole table
    (1.16 GB) put the 10.6 us kernel at 21x the HBM roof."""
    dims = ((32,), (201088, 2880), (131072, 64), (32, 2880), (131072, 64))
    types = ("int", BF16, "float", BF16, BF16)
    w = _triton("triton_poi_fused_0", dims, ((1,), (2880, 1), (64, 1), (2880, 1), (64, 1)), ("",) * 5, types)
    assert w.bytes == 32 * 4 + 131072 * 64 * 4 + 32 * 2880 * 2 + 131072 * 64 * 2
    assert any("read through that index" in a for a in w.assumptions)
    # without an integer argument no tensor can be gathered: all of them count
    plain = _triton("triton_poi_fused_0", dims[1:], ((2880, 1), (64, 1), (2880, 1), (64, 1)), ("",) * 4,
                    types[1:])
    assert plain.bytes == 201088 * 2880 * 2 + 131072 * 64 * 4 + 32 * 2880 * 2 + 131072 * 64 * 2


@pytest.mark.parametrize("name, dims, strides, concrete, types, want", [
    # the output is the last pointer, as large as the iteration space: counted once
    ("triton_poi_fused_arange_cat_cos_div_exp_mul_sin_unsqueeze_0", ((2,), (2, 256), ()), ((0,), (256, 1), ()),
     ("", "", "512"), ("float", "float", "Scalar"), 4 + 512 * 4),
    ("triton_poi_fused__unsafe_view_clone_slice_transpose_11", ((2, 38, 4429, 64), (2, 4096, 2432), ()),
     ((10771328, 283456, 64, 1), (9961472, 2432, 1), ()), ("", "", "19922944"), None,
     (2 * 38 * 4429 * 64 + 2 * 4096 * 2432) * 2),
    # two buffers of xnumel elements: (in_out_ptr0, in_ptr0) and (in_ptr0, out_ptr0)
    # look alike, so each is counted once
    ("triton_poi_fused__unsafe_view_mul_silu_2", ((8, 4096, 8192), (32768, 8192), ()),
     ((33554432, 8192, 1), (8192, 1), ()), ("", "", "268435456"), None, 2 * 268435456 * 2),
    # a 2-D tiled kernel (ynumel, xnumel) and a size variable: the iteration space is unsure
    ("triton_poi_fused_addmm_clone_permute_view_25", ((8192, 64), (64,), (2, 16, 64, 2, 64, 2), (), ()),
     ((64, 1), (1,), (262144, 16384, 256, 128, 2, 1), (), ()), ("", "", "", "32", "16384"), None,
     (8192 * 64 + 64 + 524288) * 2),
    ("triton_poi_fused_add_0", ((64, 4096), (4096,), (), ()), ((4096, 1), (1,), (), ()), ("", "", "64", "4096"),
     ("float", "float", "Scalar", "Scalar"), (64 * 4096 + 4096) * 4),
    # an indexed store writes a buffer smaller than the iteration space
    ("triton_poi_fused_index_put_0", ((4096,), (4096,), (64,), ()), ((1,), (1,), (1,), ()), ("", "", "", "4096"),
     (LONG, "float", "float", "Scalar"), 4096 * 8 + 4096 * 4 + 64 * 4),
    # a reduction's outputs are smaller than its iteration space by design
    ("triton_red_fused_add_mean_mul_pow_rsqrt_0", ((8, 4096, 2048), (2048,), (8, 4096, 2048), (), ()),
     ((8388608, 2048, 1), (1,), (8388608, 2048, 1), (), ()), ("", "", "", "32768", "2048"), None, 268_439_552),
])
def test_kernels_without_evidence_of_in_place_are_counted_once(name, dims, strides, concrete, types, want):
    w = _triton(name, dims, strides, concrete, types)
    assert w.bytes == want
    assert not any("in_out_ptr0" in a for a in w.assumptions)


def test_layer_models_read_only_the_input_pixels_a_strided_layer_uses():
    """The layer-level models (nvprof, nsys and XPlane convolutions) count
    the input as the operator model does: a 1x1 stride-2 layer reads a
    quarter of it; a 3x3 stride-1 layer all of it."""
    from roofline.ops.layers import Conv2d, direct, explicit_gemm
    down = Conv2d(512, 64, 56, 56, 128, 1, 1, stride=2, dtype_bytes=2)
    assert down.read_input_elements * 4 == down.input_elements
    assert direct(down).bytes_dram == (512 * 64 * 28 * 28 + 128 * 64 + 512 * 128 * 28 * 28) * 2
    lowered = explicit_gemm(down).stages[0]
    assert lowered.bytes_dram == (512 * 64 * 28 * 28) * 2 + (64 * 512 * 28 * 28) * 2
    same = Conv2d(8, 64, 56, 56, 64, 3, 3, stride=1, padding=1)
    assert same.read_input_elements == same.input_elements
    assert direct(same).bytes_dram == (same.input_elements + same.filter_elements + same.output_elements) * 4


def test_comparison_reads_a_broadcast_input_by_its_own_shape_without_strides():
    # issue 30: a comparison whose mask broadcasts (1s, fewer dims) and no Input Strides recorded:
    # the mask is read as its own shape holds it, not as the output's 32 x 12 x 128 x 128
    out = 32 * 12 * 128 * 128
    ones = op_work(OpCall("aten::eq", dims=((32, 1, 1, 128), (32, 12, 128, 128)),
                          types=("long int", "long int")))
    assert ones.bytes == 8 * 32 * 128 + 8 * out + out      # mask, other, bool output
    fewer = op_work(OpCall("aten::lt", dims=((128,), (32, 12, 128, 128)), types=("float", "float")))
    assert fewer.bytes == 4 * 128 + 4 * out + out
