"""Cost models: hand-computed FLOPs and bytes, Winograd and FFT counts, properties."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.ops.layers import (WINOGRAD, Conv2d, Cost, Gemm, apply_model, conv_cost, direct,
                                 explicit_gemm, fft, fft_size, gemm, im2col_workspace_bytes,
                                 implicit_gemm, multiply_reduction, predicted_time, winograd,
                                 winograd_tile_flops)
from roofline.core.errors import RooflineError
from roofline.core.model import Kernel

# ECE408 conv1: N=10000 images, C=1 -> K=6 channels, 48x48 input, 5x5 filter, no padding
CONV1 = Conv2d(n=10000, c=1, h=48, w=48, k=6, r=5, s=5)
# ECE408 conv2: C=6 -> K=16, 22x22 input, 5x5 filter (18x18 output); cuDNN ran it as FFT
CONV2 = Conv2d(n=10000, c=6, h=22, w=22, k=16, r=5, s=5)
# ResNet-50 conv2_x 3x3 layer: 64 -> 64 channels, 56x56, stride 1, pad 1, batch 1
RESNET = Conv2d(n=1, c=64, h=56, w=56, k=64, r=3, s=3, padding=1)


def test_ece408_conv1_flops_and_bytes():
    # P = Q = 48 - 5 + 1 = 44
    # FLOP = 2 N K C P Q R S = 2 * 10000 * 6 * 1 * 44 * 44 * 25
    #      = 120000 * 1936 * 25 = 232,320,000 * 25 = 5,808,000,000
    assert (CONV1.p, CONV1.q) == (44, 44)
    assert direct(CONV1).flops == 5_808_000_000
    assert implicit_gemm(CONV1).flops == 5_808_000_000
    # bytes (fp32): input 10000*48*48*4 = 92,160,000; filters 6*25*4 = 600;
    # output 10000*6*44*44*4 = 464,640,000; total 556,800,600
    assert direct(CONV1).bytes_dram == 556_800_600


def test_resnet50_layer_flops():
    # P = Q = (56 + 2*1 - 3) / 1 + 1 = 56
    # FLOP = 2 * 64 * 64 * 9 * 56 * 56 = 8192 * 9 * 3136 = 73,728 * 3136 = 231,211,008
    assert (RESNET.p, RESNET.q) == (56, 56)
    assert direct(RESNET).flops == 231_211_008
    assert explicit_gemm(RESNET).flops == 231_211_008


def test_output_size_with_stride_and_padding():
    # ResNet-50 stem: 224x224, 7x7, stride 2, pad 3 -> (224 + 6 - 7) // 2 + 1 = 112
    stem = Conv2d(n=1, c=3, h=224, w=224, k=64, r=7, s=7, stride=2, padding=3)
    assert (stem.p, stem.q) == (112, 112)
    # 2 * 64 * 3 * 112 * 112 * 49 = 236,027,904
    assert direct(stem).flops == 236_027_904
    with pytest.raises(ValueError):
        Conv2d(n=1, c=1, h=2, w=2, k=1, r=5, s=5)


def test_im2col_workspace_and_traffic():
    # lowered matrix: (C R S) x (N P Q) = 576 x 3136 = 1,806,336 floats = 7,225,344 B
    assert im2col_workspace_bytes(RESNET) == 7_225_344
    cost = explicit_gemm(RESNET)
    assert cost.workspace_bytes == 7_225_344
    # input 64*56*56*4 = 802,816; output 802,816; filters 64*64*9*4 = 147,456;
    # workspace written once and read back once: 2 * 7,225,344 = 14,450,688
    assert cost.bytes_dram == 802_816 + 802_816 + 147_456 + 14_450_688
    assert cost.stage("im2col").flops == 0
    assert cost.stage("im2col").bytes_dram == 802_816 + 7_225_344


@pytest.mark.parametrize("m", [2, 4])
def test_winograd_matrices_compute_the_correlation(m):
    bt, g, at = WINOGRAD[m]
    rng = np.random.default_rng(m)
    d, w = rng.standard_normal((m + 2, m + 2)), rng.standard_normal((3, 3))
    y = at @ ((g @ w @ g.T) * (bt @ d @ bt.T)) @ at.T
    ref = [[np.sum(d[i:i + 3, j:j + 3] * w) for j in range(m)] for i in range(m)]
    np.testing.assert_allclose(y, ref, atol=1e-12)


def test_winograd_multiply_reduction():
    # F(2x2,3x3): 2*2 outputs x 9 taps = 36 multiplies direct, 4*4 = 16 Winograd: 2.25x
    # F(4x4,3x3): 4*4 x 9 = 144 direct, 6*6 = 36: 4x (56 is divisible by 2 and 4)
    assert multiply_reduction(RESNET, 2) == pytest.approx(2.25)
    assert multiply_reduction(RESNET, 4) == pytest.approx(4.0)
    # tiles: (56/2)^2 = 784 per image and channel; products 16 * 64 * 64 * 784
    assert winograd(RESNET, 2).multiplies == 16 * 64 * 64 * 784
    # overhanging tiles lose some of the gain: P = 7, ceil(7/4) = 2 tiles of 4
    odd = Conv2d(n=1, c=8, h=7, w=7, k=8, r=3, s=3, padding=1)
    assert multiply_reduction(odd, 4) < 4.0


def test_winograd_transform_counts():
    # F(2x2,3x3): data 32 and inverse 24 additions (Lavin & Gray 2016, section 4.1)
    assert winograd_tile_flops(2) == {"input": 32, "filter": 70, "output": 24}
    assert winograd_tile_flops(4) == {"input": 336, "filter": 189, "output": 200}
    cost = winograd(RESNET, 2)
    # input transform: N C T tiles = 64 * 784 tiles x 32 FLOP
    assert cost.stage("input_transform").flops == 64 * 784 * 32
    assert cost.flops == sum(s.flops for s in cost.stages)


def test_winograd_fused_and_nonfused_bytes():
    fused, nonfused = winograd(RESNET, 4), winograd(RESNET, 4, fused=False)
    assert fused.bytes_dram == direct(RESNET).bytes_dram
    # U = 36*64*64, V = 36*64*196, M = 36*64*196 floats, each written and read once
    u, v = 36 * 64 * 64 * 4, 36 * 64 * 196 * 4
    assert nonfused.workspace_bytes == u + 2 * v
    assert nonfused.bytes_dram == fused.bytes_dram + 2 * (u + 2 * v)
    with pytest.raises(RooflineError):
        winograd(Conv2d(n=1, c=3, h=224, w=224, k=64, r=7, s=7, stride=2, padding=3))


def test_fft_matches_the_ece408_example():
    # 22x22 input -> 32x32 transforms (n = 1024), 32 x 17 = 544 complex bins
    assert fft_size(CONV2) == (32, 32)
    cost = fft(CONV2)
    # r2c: N C = 60,000 transforms x 2.5 * 1024 * 10 = 25,600 FLOP = 1.536e9
    assert cost.stage("input_transform").flops == 1_536_000_000
    # cgemm: 8 FLOP x 544 bins x 16 x 6 x 10000 = 4,177,920,000
    assert cost.stage("pointwise").flops == 4_177_920_000
    # c2r: N K = 160,000 transforms x 25,600 = 4.096e9
    assert cost.stage("inverse_transform").flops == 4_096_000_000
    # bytes: input 116.16e6 + spectra 60000*544*8 = 261.12e6 -> 377.28e6
    assert cost.stage("input_transform").bytes_dram == 377_280_000
    # read 261.12e6 + 96*544*8 = 417,792, write 160000*544*8 = 696.32e6
    assert cost.stage("pointwise").bytes_dram == 957_857_792
    assert cost.stage("inverse_transform").bytes_dram == 903_680_000


def test_gemm():
    cost = gemm(Gemm(m=1024, n=512, k=256, dtype_bytes=2))
    assert cost.flops == 2 * 1024 * 512 * 256
    assert cost.bytes_dram == (1024 * 256 + 256 * 512 + 1024 * 512) * 2
    assert cost.precision == "fp16"


def test_predicted_time_on_v100():
    from roofline.devices.profile import find_device
    v100 = find_device("v100-sxm2")
    # compute 5.808e9 / 15.6672e12 = 0.371 ms; DRAM 556.8e6 / 897.024e9 = 0.621 ms
    assert predicted_time(implicit_gemm(CONV1), v100) == pytest.approx(556_800_600 / 897.024e9)
    # several kernels: the sum of each stage's roofline time
    cost = fft(CONV2)
    stages = sum(max(s.flops / 15.6672e12, s.bytes_dram / 897.024e9) for s in cost.stages)
    assert predicted_time(cost, v100) == pytest.approx(stages)
    assert predicted_time(cost, v100) > max(cost.flops / 15.6672e12, cost.bytes_dram / 897.024e9)


def test_apply_model_fills_duration_only_kernels():
    k1 = Kernel("implicit_convolve_sgemm", time_s=8.45e-3, family="implicit_gemm")
    k2 = Kernel("volta_cgemm_64x32_tn", time_s=4.96e-3, count=2, family="fft")
    k3 = Kernel("other", time_s=1e-3)
    out = apply_model([k1, k2, k3], {k1.name: CONV1, k2.name: fft(CONV2).stage("pointwise")})
    assert out[0].flops == {"fp32": 5_808_000_000} and out[0].bytes["DRAM"] == 556_800_600
    assert out[0].modelled and out[1].modelled and not out[2].modelled
    assert out[1].flops["fp32"] == 2 * 4_177_920_000  # per call x count
    assert out[2] is k3
    with pytest.raises(RooflineError, match="stage"):
        apply_model([k2], {k2.name: CONV2})
    with pytest.raises(RooflineError, match="no kernel named"):
        apply_model([k3], {"typo": CONV1})


def test_apply_model_keeps_measured_counters():
    measured = Kernel("k", time_s=1e-3, flops={"fp32": 1.0}, bytes={"L2": 5.0})
    out, = apply_model([measured], {"k": RESNET}, per_call=False)
    assert out.flops == {"fp32": 1.0}
    assert out.bytes == {"L2": 5.0, "DRAM": direct(RESNET).bytes_dram}
    out, = apply_model([measured], {"k": RESNET}, overwrite=True)
    assert out.flops == {"fp32": direct(RESNET).flops}
    assert isinstance(conv_cost(RESNET, "winograd_4x4"), Cost)
    with pytest.raises(RooflineError):
        conv_cost(RESNET, "magic")


layers = st.builds(Conv2d, n=st.integers(1, 64), c=st.integers(1, 64), h=st.integers(8, 40),
                   w=st.integers(8, 40), k=st.integers(1, 64), r=st.integers(1, 5), s=st.integers(1, 5),
                   stride=st.integers(1, 3), padding=st.integers(0, 2))


@settings(max_examples=60, deadline=None)
@given(layer=layers, factor=st.integers(2, 8))
def test_flops_scale_linearly_with_batch(layer, factor):
    from dataclasses import replace
    bigger = replace(layer, n=layer.n * factor)
    for model in (direct, implicit_gemm, explicit_gemm):
        assert model(bigger).flops == factor * model(layer).flops
    if layer.stride == 1:
        assert fft(bigger).stage("pointwise").flops == factor * fft(layer).stage("pointwise").flops


@settings(max_examples=60, deadline=None)
@given(layer=layers)
def test_direct_equals_implicit_gemm(layer):
    a, b = direct(layer), implicit_gemm(layer)
    assert (a.flops, a.bytes_dram) == (b.flops, b.bytes_dram)
    assert explicit_gemm(layer).flops == a.flops
    assert explicit_gemm(layer).bytes_dram > a.bytes_dram
    assert math.isclose(a.flops, 2 * layer.macs)


def test_docs_examples_run(capsys):
    import re
    from conftest import REPO
    doc = REPO / "docs" / "costmodels.md"
    if not doc.exists():
        pytest.skip("docs/ not present")
    for code in re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S):
        exec(compile(code, str(doc), "exec"), {})
    out = capsys.readouterr().out
    assert "5808000000.0" in out and "volta_cgemm_64x32_tn bandwidth DRAM 22% of roof" in out
