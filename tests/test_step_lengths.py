"""Attention of serving steps sized from the step's sequence-length sums
(roofline.importers.kineto.step_lengths, roofline.ops.paged_attention), on
real SGLang and vLLM traces recorded on an MI300X
(tests/fixtures/serving/PROVENANCE.md). Every expected number is worked
out by hand below from the recorded shapes and the annotation's sums."""
from __future__ import annotations

from pathlib import Path

import pytest

from roofline import find_device
from roofline.core.placement import place
from roofline.importers import read_profile
from roofline.importers.kineto.capture import read_with_captures
from roofline.importers.kineto.step_lengths import step_sums
from roofline.ops import OpCall, has_model, op_work, unknown_reason
from roofline.ops.paged_attention import ONE_SEQUENCE_NOTE, STEP_AT, STEP_NOTE, WINDOW_NOTE

HERE = Path(__file__).parent / "fixtures" / "serving"
SGLANG_DECODE = HERE / "sglang_qwen3_8b_decode_replay.json.gz", HERE / "sglang_qwen3_8b_decode_capture_bs32.json.gz"
SGLANG_EXTEND = HERE / "sglang_qwen3_8b_extend.json.gz"
VLLM_DECODE = HERE / "vllm_decode_full_replay.json.gz", HERE / "vllm_decode_full_capture.json.gz"
VLLM_PIECEWISE = HERE / "vllm_prefilldecode_piecewise_replay.json.gz"
RAGGED = "sglang_profiler::attention_paged_attention_ragged_100"


def _rows(result, operator: str) -> list:
    return [k for k in result.kernels if k.operator == operator]


def _totals(rows) -> tuple[float, float]:
    return (sum(sum(k.flops.values()) for k in rows),
            sum(sum(v for level, v in k.bytes.items() if not level.startswith("comm")) for k in rows))


def test_step_sums_of_the_real_annotations():
    assert step_sums("execute_15360_context_15(sq15360sk15360sqsq15728640sqsk15728640)"
                     "_generation_0(sq0sk0sqsq0sqsk0)") == ((15360, 15360, 15728640, 15728640), (0, 0, 0, 0))
    assert step_sums("execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)"
                     "_generation_37(sq37sk34489sqsq37sqsk34489)") == ((8155, 8430, 7475785, 7671310),
                                                                       (37, 34489, 37, 34489))
    # SGLang's own step range, when it carries the sums (TraceLens annotation_utils' example)
    assert step_sums("step[MIXED bs=2 c=1 g=1 c_sq=5 c_sk=8 c_sqsq=25 c_sqsk=40 g_sq=1 g_sk=12 g_sqsq=1 "
                     "g_sqsk=12]") == ((5, 8, 25, 40), (1, 12, 1, 12))
    # the phase alone, or the older vLLM range of the B200 realdata trace, carry no key lengths
    assert step_sums("step[DECODE bs=32]") is None
    assert step_sums("execute_context_1(888_788544)_generation_0(0)") is None


def test_sglang_extend_batch_prefill_from_its_step():
    rows = _rows(read_profile(SGLANG_EXTEND), "aiter::mha_batch_prefill")
    assert rows and all(STEP_NOTE in k.assumed for k in rows)
    # step[EXTEND bs=15 toks=15360]: 15 sequences of 1024 new tokens, no cached prefix (sk = sq);
    # causal pairs = sqsk - (sqsq - sq)/2 = 15728640 - (15728640 - 15360)/2 = 7872000 = 15*1024*1025/2
    pairs = 15728640 - (15728640 - 15360) // 2
    assert pairs == 15 * 1024 * 1025 // 2
    # Qwen3-8B: 32 query heads, 8 KV heads, head size 128, bf16; one call per layer, 36 layers
    per_call_flops = 2 * pairs * (32 * 128 + 32 * 128)
    per_call_bytes = (15360 * 32 * 128 * 2          # q
                      + 15360 * 32 * 128 * 2        # output
                      + 15360 * 8 * (128 + 128) * 2)  # sum of key lengths x K and V rows
    flops, nbytes = _totals(rows)
    assert flops == pytest.approx(36 * per_call_flops, rel=1e-9)
    assert nbytes == pytest.approx(36 * per_call_bytes, rel=1e-9)


def test_sglang_decode_ragged_attention_from_the_replays_step():
    joined = read_with_captures(SGLANG_DECODE[0], [SGLANG_DECODE[1]])
    rows = _rows(joined, RAGGED)
    assert rows and all(k.flops and STEP_NOTE in k.assumed for k in rows)
    # execute_32_context_0(...)_generation_32(sq32sk32785sqsq32sqsk32785): 32 one-token queries,
    # 32785 keys in all: pairs = 32785 - (32 - 32)/2
    per_call_flops = 2 * 32785 * (32 * 128 + 32 * 128)
    per_call_bytes = 32 * 32 * 128 * 2 * 2 + 32785 * 8 * 256 * 2
    flops, nbytes = _totals(rows)
    assert flops == pytest.approx(36 * per_call_flops, rel=1e-9)
    assert nbytes == pytest.approx(36 * per_call_bytes, rel=1e-9)


def test_vllm_piecewise_unified_attention_from_its_step_is_under_its_roof():
    result = read_profile(VLLM_PIECEWISE)
    rows = _rows(result, "vllm::unified_attention_with_output")
    assert rows and all(STEP_NOTE in k.assumed and WINDOW_NOTE in k.assumed
                        and ONE_SEQUENCE_NOTE not in k.assumed for k in rows)
    # context 9 sequences: pairs 7671310 - (7475785 - 8155)/2 = 3937495; generation 37: 34489
    pairs = 7671310 - (7475785 - 8155) // 2 + 34489
    # recorded: q [8192, 64, 64], k and v [8192, 8, 64] bf16, 24 calls (layers); sk = 8430 + 34489
    per_call_flops = 2 * pairs * (64 * 64 + 64 * 64)
    per_call_bytes = 8192 * 64 * 64 * 2 * 2 + (8430 + 34489) * 8 * 128 * 2
    flops, nbytes = _totals(rows)
    assert flops == pytest.approx(24 * per_call_flops, rel=1e-9)
    assert nbytes == pytest.approx(24 * per_call_bytes, rel=1e-9)
    ks = result.kernels
    placed = place(ks, find_device("mi300x"))
    attention = [i for i, k in enumerate(ks) if k.operator == "vllm::unified_attention_with_output" and k.flops]
    # the one-sequence model put kernel_unified_attention_2d at 1.96x its roof
    assert attention and all(0 < placed.efficiency[i] <= 1.0 for i in attention)


def test_vllm_full_decode_unified_attention_from_its_step():
    joined = read_with_captures(VLLM_DECODE[0], [VLLM_DECODE[1]])
    rows = [k for k in _rows(joined, "vllm::unified_attention_with_output") if k.flops]
    assert rows and all(STEP_NOTE in k.assumed for k in rows)
    # generation_32(sq32sk55086sqsq32sqsk55086): pairs 55086; q and output [32, 64, 64], K and V
    # rows of 8 heads x 64, bf16; 24 layers, each one captured call
    per_call_flops = 2 * 55086 * (64 * 64 + 64 * 64)
    per_call_bytes = 32 * 64 * 64 * 2 * 2 + 55086 * 8 * 128 * 2
    flops, nbytes = _totals(rows)
    assert flops == pytest.approx(24 * per_call_flops, rel=1e-9)
    assert nbytes == pytest.approx(24 * per_call_bytes, rel=1e-9)


def _ragged_call(values=()):
    dims = ([32, 32, 128], [10905190400], [32, 32, 128], [835874, 1, 8, 128], [835874, 1, 8, 128], [33],
            [20971520], [4096], [], [1], [1], [])
    types = ("c10::BFloat16", "unsigned char", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "int",
             "int", "int", "", "float", "float", "")
    concrete = tuple([""] * 12 + [""] * (STEP_AT - 12) + list(values)) if values else ("",) * 12
    return OpCall(RAGGED, tuple(tuple(d) for d in dims), types, (), concrete)


def test_ragged_decode_without_its_step_is_unknown_and_says_why():
    assert has_model(RAGGED) and has_model("sglang_profiler::attention_paged_attention_ragged_7")
    assert op_work(_ragged_call()) is None
    assert "sequence lengths not recorded" in unknown_reason(_ragged_call())
    # sums whose sq is not the call's 32 query tokens belong to another batch
    assert op_work(_ragged_call(("16", "100", "16", "100"))) is None
    w = op_work(_ragged_call(("32", "1000", "32", "1000")))
    assert w.flops == {"bf16": 2 * 1000 * 8192} and STEP_NOTE in w.assumptions


def test_batch_prefill_without_its_step_keeps_varlens_assumptions():
    dims = ((15360, 32, 128), (835874, 8, 128), (835874, 8, 128), (16,), (16,), (15616,))
    types = ("c10::BFloat16",) * 3 + ("int",) * 3
    concrete = ("",) * 6 + ("1024", "1024", "0.", "0.088", "0.", "False", "True", "-1", "-1", "0")
    w = op_work(OpCall("aiter::mha_batch_prefill", dims, types, (), concrete))
    # 15 sequences (cu_seqlens_q has 16 entries) of 1024 queries, max_seqlen_k 1024 keys each, causal
    assert w.flops == {"bf16": 15 * (1024 * 1025 // 2) * 2 * 32 * (128 + 128)}
    assert STEP_NOTE not in w.assumptions
    # a sliding window is not in the sums: the step is not used
    windowed = concrete[:13] + ("128", "0") + concrete[15:] + ("",) * (STEP_AT - 16) + (
        "15360", "15360", "15728640", "15728640")
    w = op_work(OpCall("aiter::mha_batch_prefill", dims, types, (), windowed))
    assert STEP_NOTE not in w.assumptions



class _Ops:
    """The columns step_settled reads, for operators written here."""

    def __init__(self, annotations, ops):
        from roofline.importers.kineto.op_columns import Annotations
        self.annotations = Annotations([a[0] for a in annotations], [a[1] for a in annotations],
                                       [a[2] for a in annotations], [1] * len(annotations))
        self.names = [o[0] for o in ops]
        self.ts = [o[1] for o in ops]
        self.thread = [o[2] for o in ops]
        self._calls = [o[3] for o in ops]
        self.call = list(range(len(ops)))

    def decoded(self, call):
        return self._calls[call]


def _unified(tokens, at, thread="1"):
    dims = [[tokens, 8, 64], [tokens, 2, 64], [tokens, 2, 64], [tokens, 8, 64], [], [], [], []]
    return ("vllm::unified_attention_with_output", at, thread,
            (dims, ["c10::BFloat16"] * 4 + [""] * 4, None, [""] * 8))


def test_only_the_operators_inside_a_step_with_its_token_count_take_its_sums():
    from roofline.importers.kineto.step_lengths import step_settled
    step = "execute_4_context_1(sq3sk3sqsq9sqsk9)_generation_1(sq1sk7sqsq1sqsk7)"
    ops = _Ops([(step, 100.0, 100.0), ("step[MIXED bs=2]", 100.0, 100.0)],
               [_unified(4, 150.0), _unified(4, 300.0), _unified(5, 160.0), _unified(4, 10.0, "capture 0: 7")])
    settled = step_settled(ops, None)
    # outside the step, another token count: not sized; the captured one: the only step's
    assert sorted(settled) == [0, 3]
    # both phases: sq 3 + 1, sk 3 + 7, sqsq 9 + 1, sqsk 9 + 7
    assert settled[0].call.concrete[STEP_AT:] == ("4", "10", "10", "16") and settled[0].note == STEP_NOTE
    w = op_work(settled[0].call)
    # pairs 16 - (10 - 4)/2 = 13 (3 x 4 / 2 = 6 of the 3-token prefill, 7 of the decode over 7 keys)
    assert w.flops == {"bf16": 2 * 13 * (8 * 64 + 8 * 64)}
    # bytes: q and output 4 x 512 x 2 each, 10 keys x 2 heads x 128 x 2
    assert w.bytes == 2 * 4 * 512 * 2 + 10 * 2 * 128 * 2
    # two steps with different sums: a captured operator belongs to neither
    two = _Ops([(step, 100.0, 100.0), (step.replace("sk7sqsq1sqsk7", "sk9sqsq1sqsk9"), 500.0, 100.0)],
               [_unified(4, 10.0, "capture 0: 7")])
    assert step_settled(two, None) == {}
