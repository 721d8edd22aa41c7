"""TorchInductor's Triton kernels modelled from their launcher (issue 21,
item 4): the fused ops read from the name, compulsory bytes from the
launcher's shapes, FLOPs from the per-op cost table, templates from their
shapes, Inductor's own kernel_flop/kernel_num_gb where present, and the
family rule that reads the fused ops instead of substrings."""
from __future__ import annotations

import pytest

from conftest import REALDATA
from corrupt import needs_folder, real_file

from roofline import find_device
from roofline.core.families import family_of
from roofline.core.model import KernelSet
from roofline.core.placement import place
from roofline.importers import read_profile
from roofline.importers.kineto import parse
from roofline.ops import OpCall, has_model, op_work
from roofline.ops.triton import COST, parse as parse_name

KINETO = REALDATA / "kineto_trace"
TRITON_EXAMPLE = KINETO / "facebookresearch__HolisticTraceAnalysis__triton_example.json.gz"
COMPILE = KINETO / "AMD-AGI__TraceLens__torch_compile_triton_trace.json.gz"
needs_kineto = needs_folder(KINETO)


@pytest.mark.parametrize("name, kind, ops", [
    ("triton_poi_fused__unsafe_view_mul_silu_2", "poi", ("_unsafe_view", "mul", "silu")),
    ("triton_red_fused_add_mean_mul_pow_rsqrt_0", "red", ("add", "mean", "mul", "pow", "rsqrt")),
    ("triton_per_fused__log_softmax_backward_data_nll_loss_backward_3", "per",
     ("_log_softmax_backward_data", "nll_loss_backward")),
    ("triton_poi_fused_native_layer_norm_backward_12", "poi", ("native_layer_norm_backward",)),
    ("triton_tem_fused_addmm_relu_0", "tem", ("addmm", "relu")),
    ("triton_poi_fused_0", "poi", ()),
])
def test_fused_ops_are_read_from_the_name(name, kind, ops):
    got = parse_name(name)
    assert got[0] == kind and got[1] == ops and not got[2]


def test_unknown_op_is_named_and_costs_nothing():
    kind, ops, unknown = parse_name("triton_poi_fused_frobnicate_mul_1")
    assert ops == ("mul",) and unknown == ("frobnicate",)
    w = op_work(OpCall("triton_poi_fused_frobnicate_mul_1", dims=((100,), (100,), ()),
                       types=("float", "float", "Scalar"), concrete=("", "", "100")))
    assert w.flops == {"fp32": 100.0} and any("frobnicate" in a for a in w.assumptions)


def test_cost_table_comes_from_the_aten_models():
    assert COST["silu"] == 5 and COST["mul"] == 1 and COST["mean"] == 1 and COST["_softmax"] == 5
    assert COST["native_layer_norm"] == 8 and COST["_unsafe_view"] == 0


@pytest.mark.parametrize("name, family", [
    ("triton_poi_fused_addmm_gelu_0", "elementwise"),          # a GEMM's epilogue, not a GEMM
    ("triton_poi_fused__unsafe_view_addmm_relu_4", "elementwise"),
    ("triton_red_fused_add_mean_mul_pow_rsqrt_0", "reduction"),
    ("triton_per_fused__softmax_1", "softmax"),
    ("triton_poi_fused_native_layer_norm_3", "normalization"),
    ("triton_tem_fused_addmm_relu_2", "gemm"),
    ("triton_tem_fused_convolution_0", "implicit_gemm"),
    ("triton__0d1d2d", "other"),                               # pre-2023 names say nothing
])
def test_family_reads_the_fused_ops(name, family):
    assert family_of(name) == family


def test_rms_norm_reduction_by_hand():
    """TraceLens's worked example: xnumel 32768, rnumel 2048; bytes: two
    [8, 4096, 2048] bf16 tensors and a [2048] weight = 268,439,552; FLOPs:
    add, mean, mul, pow, rsqrt = 5 per element of 32768 x 2048."""
    w = op_work(OpCall("triton_red_fused_add_mean_mul_pow_rsqrt_0",
                       dims=((8, 4096, 2048), (2048,), (8, 4096, 2048), (), ()),
                       types=("c10::BFloat16",) * 3 + ("Scalar", "Scalar"),
                       strides=((8388608, 2048, 1), (1,), (8388608, 2048, 1), (), ()),
                       concrete=("", "", "", "32768", "2048")))
    assert w.bytes == 268_439_552
    assert w.flops == {"fp32": 5.0 * 32768 * 2048}          # bf16 arithmetic in fp32 (opmath)
    assert w.family == "reduction"


def test_expanded_tensor_counts_once():
    w = op_work(OpCall("triton_poi_fused_add_0", dims=((64, 128), (64, 128), (64, 128)),
                       types=("float",) * 3, strides=((128, 1), (0, 1), (128, 1)), concrete=("", "", "")))
    assert w.bytes == (64 * 128 + 128 + 64 * 128) * 4


def test_matmul_template_from_shapes():
    w = op_work(OpCall("triton_tem_fused_addmm_relu_0", dims=((512, 256), (256, 1024), (1024,), (512, 1024)),
                       types=("c10::BFloat16",) * 4))
    assert w.flops == {"bf16": 2.0 * 512 * 1024 * 256} and w.matrix
    assert has_model("triton_tem_fused_addmm_relu_0")


def _launch(name, op_args, dur=50.0):
    return {"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": 0.0, "dur": 20.0,
         "args": {"External id": 1, **op_args}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": 5.0, "dur": 3.0,
         "args": {"correlation": 7, "External id": 1}},
        {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": 30.0, "dur": dur,
         "args": {"correlation": 7, "External id": 1, "device": 0, "grid": [1024, 1, 1], "block": [128, 1, 1]}}],
        "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}]}


def test_inductor_counts_win_over_the_model():
    shapes = {"Input Dims": [[1024], [1024], []], "Input type": ["float", "float", "Scalar"],
              "Concrete Inputs": ["", "", "1024"]}
    r = parse(_launch("triton_poi_fused_add_0", {**shapes, "kernel_flop": 5000, "kernel_num_gb": 2e-5}))
    k = r.kernels[0]
    assert k.flops == {"fp32": 5000.0} and k.bytes == {"DRAM": pytest.approx(2e4)} and k.modelled
    r = parse(_launch("triton_poi_fused_add_0", shapes))
    assert r.kernels[0].flops == {"fp32": 1024.0} and r.kernels[0].bytes == {"DRAM": 8192.0}


@needs_kineto
def test_triton_example_by_hand():
    """One launch of add(cos, sin) on three 10x10 fp32 tensors, xnumel 100:
    3 ops x 100 = 300 FLOP, 3 x 100 x 4 = 1200 compulsory bytes."""
    r = read_profile(real_file(TRITON_EXAMPLE))
    (k,) = [k for k in r.kernels if k.name.startswith("triton")]
    assert k.flops == {"fp32": 300.0} and k.bytes == {"DRAM": 1200.0} and k.modelled
    assert k.operator == "triton_poi_fused_add_cos_sin_0" and k.family == "elementwise"


@needs_kineto
def test_every_triton_kernel_of_the_compile_trace_is_modelled():
    r = read_profile(real_file(COMPILE))
    triton = [k for k in r.kernels if k.name.startswith("triton_")]
    assert len(triton) == 4 and all(k.modelled and k.bytes.get("DRAM", 0) > 0 for k in triton)
    silu = [k for k in triton if "silu" in k.name][0]
    # in_out_ptr0 [8, 4096, 8192] and in_ptr0 [32768, 8192], bf16; xnumel 268435456; mul 1 + silu 5
    assert silu.bytes["DRAM"] == 2 * 268435456 * 2
    assert silu.flops == {"fp32": 6.0 * 268435456}
    p = place(KernelSet.from_kernels(r.kernels), find_device("mi300x"))
    assert all(p.bound[i] != "unknown" for i, k in enumerate(r.kernels))


def _padded(doc: dict, min_bytes: int) -> dict:
    """``doc`` with enough unrelated CPU events after its own that its file
    is read in chunks (importers.kineto.STREAM_ABOVE_BYTES)."""
    pad = {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 2, "ts": 1e6, "dur": 1.0,
           "args": {"External id": 0}}
    n = min_bytes // 100 + 1
    return {**doc, "traceEvents": doc["traceEvents"] + [dict(pad, ts=1e6 + i) for i in range(n)]}


@pytest.mark.parametrize("streamed", [False, True])
def test_inductor_counts_are_read_from_a_file_of_any_size(tmp_path, streamed):
    # a file above STREAM_ABOVE_BYTES is decoded chunk by chunk: the search
    # for Inductor's keys must look at each chunk's bytes there too
    import json
    from roofline.importers.kineto import STREAM_ABOVE_BYTES, read
    shapes = {"Input Dims": [[1024], [1024], []], "Input type": ["float", "float", "Scalar"],
              "Concrete Inputs": ["", "", "1024"], "kernel_flop": 5000, "kernel_num_gb": 2e-5}
    doc = _launch("triton_poi_fused_add_0", shapes)
    if streamed:
        doc = _padded(doc, 2 * STREAM_ABOVE_BYTES)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    assert (path.stat().st_size > STREAM_ABOVE_BYTES) == streamed
    k = [k for k in read(path).kernels if k.name.startswith("triton")][0]
    assert k.flops == {"fp32": 5000.0}


def test_inductor_counts_of_a_template_are_matrix_work_on_its_dtype():
    # a bf16 matmul template with Inductor's counts: tensor-core bf16 FLOPs,
    # family gemm (not fp32 vector work, 10x above its roof on an H100)
    shapes = {"Input Dims": [[512, 256], [256, 1024], [512, 1024]], "Input type": ["c10::BFloat16"] * 3,
              "Concrete Inputs": ["", "", ""], "kernel_flop": 2 * 512 * 1024 * 256, "kernel_num_gb": 1.8e-3}
    k = parse(_launch("triton_tem_fused_mm_0", shapes)).kernels[0]
    assert k.flops == {"tensor_bf16": 2.0 * 512 * 1024 * 256} and k.family == "gemm"
    p = place(KernelSet.from_kernels([k]), find_device("h100-sxm"))
    assert p.efficiency[0] < 1.0


def test_a_2d_pointwise_kernel_iterates_over_ynumel_times_xnumel():
    # triton_poi_..(in_ptr0, out_ptr0, ynumel, xnumel): a transpose-like
    # kernel over 512 x 1024 elements, with one op per element
    call = OpCall("triton_poi_fused_add_0", dims=((1024, 512), (512, 1024), (), ()),
                  types=("float", "float", "Scalar", "Scalar"), concrete=("", "", "512", "1024"))
    assert op_work(call).flops == {"fp32": 512.0 * 1024}


def test_scalars_before_the_numels_do_not_count():
    # dynamic shapes put ks0 before xnumel: the iteration space is xnumel alone
    call = OpCall("triton_poi_fused_add_0", dims=((4096,), (4096,), (), ()),
                  types=("float", "float", "Scalar", "Scalar"), concrete=("", "", "64", "4096"))
    assert op_work(call).flops == {"fp32": 4096.0}
