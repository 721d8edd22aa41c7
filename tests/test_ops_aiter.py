"""aiter's RMSNorm operators, SGLang's KV-cache write and triton_kernels'
MoE routing (TopK, SortTokens): each model's FLOPs and bytes counted by
hand from the shapes the real MI300X serving traces record
(tests/fixtures/serving/PROVENANCE.md), then those traces' rows: placed,
not unknown, and the share of kernel time with modelled work."""
from __future__ import annotations

from pathlib import Path

import pytest

from roofline import find_device, place
from roofline.core.model import KernelSet
from roofline.importers import read_profile
from roofline.importers.kineto.capture import join_captures
from roofline.ops import OpCall, has_model, op_work

BF16, I64, I16 = "c10::BFloat16", "long int", "short int"
EPS = "9.9999999999999995e-07"
HERE = Path(__file__).parent / "fixtures" / "serving"


def call(name, dims, types, concrete=None):
    return OpCall(name, tuple(tuple(d) if isinstance(d, list) else d for d in dims), tuple(types),
                  concrete=tuple(concrete or [""] * len(dims)))


# ---- aiter RMSNorm: SGLang Qwen3-8B decode (32 tokens, hidden 4096, q/k heads of 128) -------------

def test_aiter_rmsnorm_of_the_final_norm():
    # rmsnorm(out [32, 4096], input [32, 4096], weight [4096], eps)
    w = op_work(call("aiter::rmsnorm", [[32, 4096], [32, 4096], [4096], []], [BF16, BF16, BF16, "Scalar"],
                     ["", "", "", EPS]))
    x = 32 * 4096
    assert w.flops == {"fp32": 4 * x}                   # square, sum, scale, weight in fp32
    assert w.bytes == x * 2 + x * 2 + 4096 * 2          # input read, out written, weight
    assert w.family == "normalization" and not w.matrix


def test_aiter_rmsnorm_of_the_query_heads():
    # Qwen3's q-norm: 32 tokens x 32 heads as rows of 128
    w = op_work(call("aiter::rmsnorm", [[1024, 128], [1024, 128], [128], []], [BF16, BF16, BF16, "Scalar"]))
    assert w.flops == {"fp32": 4 * 1024 * 128}
    assert w.bytes == 2 * 1024 * 128 * 2 + 128 * 2


def test_aiter_add_rmsnorm_reads_input_and_residual_writes_out_and_residual_out():
    # add_rmsnorm(out, input, residual_in, residual_out, weight, eps)
    w = op_work(call("aiter::add_rmsnorm", [[32, 4096]] * 4 + [[4096], []], [BF16] * 5 + ["Scalar"],
                     ["", "", "", "", "", EPS]))
    x = 32 * 4096
    assert w.flops == {"fp32": 5 * x}                   # the residual add first
    assert w.bytes == 4 * x * 2 + 4096 * 2


def test_gemma_flag_adds_the_one_plus_weight():
    dims, types = [[32, 4096]] * 4 + [[4096], [], []], [BF16] * 5 + ["Scalar", "Scalar"]
    plain = op_work(call("aiter::add_rmsnorm", dims, types, ["", "", "", "", "", EPS, "False"]))
    gemma = op_work(call("aiter::add_rmsnorm", dims, types, ["", "", "", "", "", EPS, "True"]))
    assert gemma.flops["fp32"] - plain.flops["fp32"] == 32 * 4096
    assert gemma.bytes == plain.bytes


# ---- aiter RMSNorm: vLLM gpt-oss decode (32 tokens, hidden 2880) ------------------------------------

def test_aiter_rms_norm_counts_its_returned_output():
    # rms_norm(input [32, 2880], weight [2880], eps, use_model_sensitive_rmsnorm) -> out
    w = op_work(call("aiter::rms_norm", [[32, 2880], [2880], [], []], [BF16, BF16, "Scalar", "Scalar"],
                     ["", "", "1.0000000000000001e-05", "0"]))
    x = 32 * 2880
    assert w.flops == {"fp32": 4 * x}
    assert w.bytes == x * 2 + 2880 * 2 + x * 2          # input, weight, the returned output


def test_aiter_rmsnorm2d_fwd_with_add_ck_with_a_strided_input():
    # (out, input, residual_in, residual_out, weight, eps, use_model_sensitive_rmsnorm); the input is a
    # [32, 2880] view of the padded [32, 3072] hidden states (row stride 3072): 2880 read per row
    dims = [[32, 2880]] * 4 + [[2880], [], []]
    w = op_work(OpCall("aiter::rmsnorm2d_fwd_with_add_ck", tuple(tuple(d) for d in dims),
                       tuple([BF16] * 5 + ["Scalar", "Scalar"]),
                       strides=((2880, 1), (3072, 1), (2880, 1), (2880, 1), (1,), (), ()),
                       concrete=("", "", "", "", "", "1.0000000000000001e-05", "0")))
    x = 32 * 2880
    assert w.flops == {"fp32": 5 * x}
    assert w.bytes == 4 * x * 2 + 2880 * 2


def test_fused_add_rms_norm_cu_is_in_place():
    # fused_add_rms_norm_cu(input!, residual_in!, weight, eps): both read and written
    w = op_work(call("aiter::fused_add_rms_norm_cu", [[32, 2880], [32, 2880], [2880], []],
                     [BF16, BF16, BF16, "Scalar"]))
    assert w.bytes == 2 * 2 * 32 * 2880 * 2 + 2880 * 2
    assert w.flops == {"fp32": 5 * 32 * 2880}


def test_a_weight_of_another_width_is_not_sized():
    assert op_work(call("aiter::rmsnorm", [[32, 4096], [32, 4096], [128], []], [BF16, BF16, BF16, "Scalar"])) is None


# ---- SGLang store_cache -----------------------------------------------------------------------------

def test_store_cache_writes_the_new_rows_not_the_cache():
    # store_cache(k [32, 1024], v [32, 1024], k_cache [835874, 1024], v_cache, indices [32], row_bytes 2048,
    #   num_split 0): 8 KV heads of 128 per token
    w = op_work(call("sglang::store_cache", [[32, 1024], [32, 1024], [835874, 1024], [835874, 1024], [32], [], []],
                     [BF16, BF16, BF16, BF16, I64, "Scalar", "Scalar"], ["", "", "", "", "", "2048", "0"]))
    new = 2 * 32 * 1024
    assert w.flops == {}                                # a bf16 cache: a copy
    assert w.bytes == new * 2 + new * 2 + 32 * 8        # k, v read; as many cache rows written; indices
    # the extend step: 15360 tokens
    big = op_work(call("sglang::store_cache",
                       [[15360, 1024], [15360, 1024], [835874, 1024], [835874, 1024], [15360], [], []],
                       [BF16, BF16, BF16, BF16, I64, "Scalar", "Scalar"]))
    assert big.bytes == 4 * 15360 * 1024 * 2 + 15360 * 8


# ---- triton_kernels routing (vLLM gpt-oss: 32 tokens, 32 experts, top-4) ----------------------------

TOPK_DIMS = [[32, 32], [], [], [], [], [], []]
TOPK_TYPES = [BF16, "Scalar", "Scalar", "Scalar", "Scalar", "", ""]


def test_topk_reads_the_logits_writes_values_ids_and_bitmatrix():
    # TopK(x [32, 32], k=4, apply_softmax=True, dim=1, return_bitmatrix=True, y_indx=None, n_rows=None)
    w = op_work(call("TopK", TOPK_DIMS, TOPK_TYPES, ["", "4", "True", "1", "True", "", ""]))
    assert w.flops == {"fp32": 5 * 32 * 4}             # softmax of the 4 selected values per token
    logits, values, ids = 32 * 32 * 2, 32 * 4 * 2, 32 * 4 * 2   # bf16 values, int16 ids
    bitmatrix = 32 * 1 * 4                              # one 32-bit word per token for 32 experts
    scratchpad = 128 * 4                                # the 7-argument form zeroes 128 int32
    assert w.bytes == logits + values + ids + bitmatrix + scratchpad
    assert w.family == "softmax"
    no_softmax = op_work(call("TopK", TOPK_DIMS, TOPK_TYPES, ["", "4", "False", "1", "True", "", ""]))
    assert no_softmax.flops == {} and no_softmax.bytes == w.bytes


def test_topk_that_is_not_the_triton_kernels_one_is_not_sized():
    assert op_work(call("TopK", TOPK_DIMS, TOPK_TYPES, ["", "64", "True", "1", "True", "", ""])) is None  # k > E
    assert op_work(call("TopK", [[32, 32], []], [BF16, "Scalar"], ["", "4"])) is None


def test_sort_tokens_moves_the_routing_indices():
    # SortTokens(expt_scal [32, 4] bf16, expt_indx [32, 4] int16, n_expts_tot=32, bitmatrix (not recorded))
    w = op_work(call("SortTokens", [[32, 4], [32, 4], []], [BF16, I16, "Scalar"], ["", "", "32"]))
    gates = 32 * 4
    read = gates * 2 + gates * 2 + 32 * 4               # weights, ids, the [32, 1 word] bitmatrix
    written = 32 * 4 + 2 * gates * 4 + gates * 2 + 33 * 4   # histogram, gather+scatter, sorted weights, offsets
    assert w.flops == {} and w.bytes == read + written
    # ids that are not integers, or no expert count: not this operator
    assert op_work(call("SortTokens", [[32, 4], [32, 4], []], [BF16, BF16, "Scalar"], ["", "", "32"])) is None
    assert op_work(call("SortTokens", [[32, 4], [32, 4], []], [BF16, I16, "Scalar"])) is None


def test_names_are_modelled():
    for name in ("aiter::rmsnorm", "aiter::add_rmsnorm", "aiter::rms_norm", "aiter::rmsnorm2d_fwd_with_add_ck",
                 "sglang::store_cache", "TopK", "SortTokens"):
        assert has_model(name)


# ---- the real traces -----------------------------------------------------------------------------

STEPS = {
    "sglang decode": (["sglang_qwen3_8b_decode_replay.json.gz", "sglang_qwen3_8b_decode_capture_bs32.json.gz"],
                      {"aiter::rmsnorm", "aiter::add_rmsnorm", "sglang::store_cache"}),
    "vllm decode": (["vllm_decode_full_replay.json.gz", "vllm_decode_full_capture.json.gz"],
                    {"aiter::rms_norm", "aiter::rmsnorm2d_fwd_with_add_ck", "TopK", "SortTokens"}),
    "sglang extend": (["sglang_qwen3_8b_extend.json.gz"], {"aiter::rmsnorm", "aiter::add_rmsnorm",
                                                            "sglang::store_cache"}),
}


def _placed(files):
    (result,) = join_captures([read_profile(HERE / f) for f in files])
    kernels = list(result.kernels)
    return kernels, place(KernelSet.from_kernels(kernels), find_device("mi300x")).bound


@pytest.mark.parametrize("step", list(STEPS))
def test_serving_steps_place_these_operators(step):
    files, operators = STEPS[step]
    kernels, bound = _placed(files)
    mine = [(k, b) for k, b in zip(kernels, bound) if k.operator in operators]
    assert {k.operator for k, _ in mine} == operators
    assert all(k.modelled and k.bytes.get("DRAM", 0) > 0 for k, _ in mine)
    # none is compute-bound: decode's 32 tokens are a few microseconds of fixed cost per call, extend's
    # 15,360 tokens stream from HBM
    assert all(b in (("bandwidth",) if step == "sglang extend" else ("overhead", "bandwidth")) for _, b in mine)
    # 8-9 % (decode) and 5.6 % (extend) of kernel time was unknown before these models
    total = sum(k.time_s for k in kernels)
    modelled = sum(k.time_s for k, b in zip(kernels, bound) if b != "unknown")
    assert modelled / total > 0.99
