"""A replay trace joined to the trace of its graphs' capture
(roofline.importers.kineto.capture), on real SGLang and vLLM decode steps
recorded on an MI300X (tests/fixtures/serving/PROVENANCE.md), and on small
written traces for what the real ones do not show (ids that collide,
ambiguous captures)."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from roofline.core import reasons as R
from roofline.importers import read_profile
from roofline.importers.kineto.capture import captured_launches, join_captures, read_with_captures

HERE = Path(__file__).parent / "fixtures" / "serving"
SGLANG = HERE / "sglang_qwen3_8b_decode_replay.json.gz", HERE / "sglang_qwen3_8b_decode_capture_bs32.json.gz"
VLLM = HERE / "vllm_decode_full_replay.json.gz", HERE / "vllm_decode_full_capture.json.gz"


def _replayed_share(result) -> float:
    ks = result.kernels
    return float(ks.time_s[ks.whys == R.GRAPH_REPLAY].sum() / ks.time_s.sum())


def _per_call_flops(result, operator: str) -> dict[int, float]:
    return {round(sum(k.flops.values()) / k.count): k.count
            for k in result.kernels if k.operator == operator and k.flops}


def test_sglang_decode_alone_says_which_file_gives_the_work():
    alone = join_captures([read_profile(SGLANG[0])])[0]
    assert _replayed_share(alone) > 0.98
    (note,) = [w for w in alone.warnings if w.subject == "graph capture"]
    assert "capture" in note.message and "capture_traces/" in note.advice and "SGLang" in note.advice


def test_sglang_decode_joined_to_its_capture_gets_each_gemm_from_the_captured_shapes():
    assert captured_launches(SGLANG[1]) == 544 and captured_launches(SGLANG[0]) == 0
    joined = read_with_captures(*SGLANG[:1], [SGLANG[1]])
    assert _replayed_share(joined) == 0
    # Qwen3-8B, 32 decode tokens, 36 layers: hidden 4096, q+k+v 4096+2*1024, MLP 12288 (gate+up 24576),
    # vocabulary 151936; 2*M*N*K per captured aten::mm, once per layer per replay
    m = 32
    hand = {2 * m * 4096 * 6144: 36, 2 * m * 4096 * 4096: 36, 2 * m * 4096 * 24576: 36,
            2 * m * 12288 * 4096: 36, 2 * m * 4096 * 151936: 1}
    assert _per_call_flops(joined, "aten::mm") == hand
    # the replay's own time and calls are kept: the join adds work, not kernels
    alone = read_profile(SGLANG[0])
    assert joined.kernels.time_s.sum() == pytest.approx(alone.kernels.time_s.sum(), rel=1e-12)
    assert int(joined.kernels.count.sum()) == int(alone.kernels.count.sum())


def test_vllm_decode_joined_to_its_capture():
    results = join_captures([read_profile(VLLM[0]), read_profile(VLLM[1])])
    assert len(results) == 1            # the capture's own (warm-up) kernels are not counted
    joined = results[0]
    assert _replayed_share(joined) == 0
    (note,) = [w for w in joined.warnings if w.subject == "graph capture"]
    assert VLLM[1].name in note.message
    # gpt-oss, 32 tokens, 24 layers, hidden 2880: qkv 64x64 + 2x8x64 = 5120 wide, o-proj 4096 -> 2880,
    # router 32 experts (aten::addmm), lm_head 201088 (aten::mm)
    m = 32
    assert _per_call_flops(joined, "aten::addmm") == {2 * m * 2880 * 5120: 24, 2 * m * 4096 * 2880: 24,
                                                      2 * m * 2880 * 32: 24}
    assert _per_call_flops(joined, "aten::mm") == {2 * m * 2880 * 201088: 1}


def test_vllm_gpt_oss_moe_gets_its_work_from_the_buffers_and_weight_views_it_records():
    """vllm::moe_forward on triton_kernels' matmul_ogs (gpt-oss MXFP4): top-k from the [32, 4]
    routing ids, I from the [1, 128, 2944] activation buffer, the weights from the packed
    views w1 [32, 1536, 5888] and w2 [32, 1472, 3072] (bytes, two FP4 values each)."""
    joined = join_captures([read_profile(VLLM[0]), read_profile(VLLM[1])])[0]
    moe = [k for k in joined.kernels if k.operator == "vllm::moe_forward"]
    gemms = [k for k in moe if k.family == "gemm"]
    assert {k.name.split("_16x")[0] for k in gemms} == {"_matmul_ogs_NNT_bf16xbf16xmxfp4"}
    assert all(k.count == 24 for k in moe)        # one launch per layer
    # T = 32 tokens of the padded width H = 3072, k = 4, I = 2944: 6 T k H I per layer
    t, k, h, i, layers = 32, 4, 3072, 2944, 24
    assert sum(sum(kk.flops.values()) for kk in gemms) == pytest.approx(layers * 6 * t * k * h * i)
    assert {p for kk in gemms for p in kk.flops} == {"tensor_bf16"}     # weights dequantised to the MMA
    # all 32 experts reachable by 128 routed rows: the whole of w1 and w2 is read once per layer
    weights = 32 * 1536 * 5888 + 32 * 1472 * 3072
    per_layer = t * h * 2 + weights + 2 * t * k * i * 2 + t * k * h * 2
    assert sum(kk.bytes["DRAM"] for kk in gemms) == pytest.approx(layers * per_layer)
    assert all("views the operator takes" in kk.assumed for kk in gemms)
    # the finalize scatter takes the data movement aside, not the GEMM's FLOPs
    (final,) = [kk for kk in moe if kk.name.startswith("_finalize_matmul")]
    assert final.family == "elementwise" and sum(final.flops.values()) == 0
    aside = t * 32 * 2 + t * k * 8 + t * k * h * 2 + t * h * 2     # logits, ids+weights, outputs, sum
    assert final.bytes["DRAM"] == pytest.approx(layers * aside)


# ---- written traces ---------------------------------------------------------------------------

MM = [[256, 3072], [3072, 9216]]


def _write(path: Path, events: list) -> Path:
    with gzip.open(path, "wt") as fh:
        json.dump({"traceEvents": events}, fh)
    return path


def _capture(corr0: int, ext: int, dims=MM, kernel="Cijk_gemm") -> list:
    return [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 20,
             "args": {"External id": ext, "Input Dims": dims, "Input type": ["float", "float"]}},
            {"ph": "X", "cat": "cuda_runtime", "name": "hipExtModuleLaunchKernel", "pid": 1, "tid": 1, "ts": 5,
             "dur": 3, "args": {"External id": ext, "correlation": corr0, "kernel": kernel}}]


def _replay(corr: int, ext: int, kernel="Cijk_gemm") -> list:
    # the replay reuses the capture's ids and thread on purpose: they must not link across files
    return [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 0, "dur": 50,
             "args": {"External id": ext + 100, "Input Dims": [[4], [4]], "Input type": ["float", "float"]}},
            {"ph": "X", "cat": "cuda_runtime", "name": "hipGraphLaunch", "pid": 1, "tid": 1, "ts": 200, "dur": 9,
             "args": {"correlation": corr + 1}},
            {"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": 210, "dur": 10.0,
             "args": {"External id": ext, "correlation": corr + 1, "device": 0, "stream": 7}}]


def test_ids_and_threads_of_the_capture_never_link_the_replays_kernels(tmp_path):
    cap = _write(tmp_path / "cap.json.gz", _capture(corr0=5, ext=1))
    rep = _write(tmp_path / "rep.json.gz", _replay(corr=4, ext=1))
    (k,) = read_with_captures(rep, [cap]).kernels
    assert k.operator == "aten::mm" and sum(k.flops.values()) == 2 * 256 * 3072 * 9216 and not k.why


def test_two_captures_with_the_same_kernels_are_not_guessed_between(tmp_path):
    small = _write(tmp_path / "bs8.json.gz", _capture(5, 1, dims=[[8, 3072], [3072, 9216]]))
    big = _write(tmp_path / "bs256.json.gz", _capture(5, 1))
    rep = _write(tmp_path / "rep.json.gz", _replay(corr=40, ext=60))
    joined = read_with_captures(rep, [small, big])
    (k,) = joined.kernels
    assert k.why == R.GRAPH_REPLAY and not k.flops
    (note,) = [w for w in joined.warnings if w.subject == "graph capture"]
    assert "no single capture" in note.message and "batch size" in note.advice
    (k,) = read_with_captures(rep, [big]).kernels          # the right capture alone joins
    assert sum(k.flops.values()) == 2 * 256 * 3072 * 9216


# ---- the serving step's phases ----------------------------------------------------------------

def _phase_ms(result) -> dict:
    from roofline.core.phases import PHASES
    t = result.phases
    return {PHASES[p]: float(t.time_s[t.phase == p].sum()) * 1e3 for p in set(t.phase.tolist())}


def test_serving_steps_mark_prefill_and_decode():
    extend = read_profile(HERE / "sglang_qwen3_8b_extend.json.gz")         # step[EXTEND bs=15 toks=15360]
    decode = read_profile(SGLANG[0])                                      # step[DECODE bs=32]
    vllm = read_profile(VLLM[0])                    # execute_32_context_0(...)_generation_32(...)
    for result, phase in ((extend, "prefill"), (decode, "decode"), (vllm, "decode")):
        ms = _phase_ms(result)
        kernel_ms = float(result.kernels.time_s.sum()) * 1e3
        # every launch inside the step range is in its phase; only the sampling/copies after it are not
        assert set(ms) <= {phase, "other"} and ms[phase] > 0.99 * kernel_ms
        assert any("serving engine" in b for b in result.phases.basis)


def test_report_says_per_phase_what_bounds_the_serving_step():
    from roofline.report import build_report
    from roofline.render.step_rows import serving_phases
    results = join_captures([read_profile(SGLANG[0]), read_profile(SGLANG[1])])
    report = build_report(results, "mi300x")
    (p,) = serving_phases(report)
    assert p.phase == "decode" and p.share == 1.0
    parts = p.compute_s + p.bandwidth_s + p.communication_s + p.overhead_s + p.unknown_s
    assert parts == pytest.approx(p.time_s, rel=1e-9)
    # the joined GEMMs (bandwidth-bound at 32 tokens) make most of the decode step placed
    assert p.bandwidth_s > 0.5 * p.time_s and p.communication_s == 0
    md, _ = report.to_markdown()
    assert "## Serving step" in md and "| decode |" in md and "## Step split" not in md
