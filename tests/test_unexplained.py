"""Nothing unexplained (issue 21, item 5): every kernel without work says why
(launched before the CPU window, no launching operator, no shapes recorded,
compiled graph without shapes, custom extension kernel, no model for its
operator, a collective without a size), on synthetic traces and on the real
ones; and the communication libraries' kernels are named as such."""
from __future__ import annotations

import gzip
import json

import pytest

from conftest import REALDATA
from corrupt import needs_folder, real_file

from roofline import find_device
from roofline.core import reasons as R
from roofline.core.families import family_of
from roofline.core.model import Kernel, KernelSet
from roofline.core.placement import place
from roofline.importers import read_profile
from roofline.importers.kineto import parse

KINETO = REALDATA / "kineto_trace"
NCCL_DATA = KINETO / "facebookresearch__HolisticTraceAnalysis__nccl_data.json.gz"
NEG_QUEUE = KINETO / "facebookresearch__HolisticTraceAnalysis__negative_queue_rank0.json.gz"
B200 = KINETO / "AMD-AGI__TraceLens__b200_eager_trace.json.gz"
needs_kineto = needs_folder(KINETO)


def _op(name, ts, dur, **args):
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": args}


def _api(ts, corr):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts,
            "dur": 1.0, "args": {"correlation": corr}}


def _kernel(name, ts, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": 10.0,
            "args": {"correlation": corr, "device": 0}}


SHAPES = {"Input Dims": [[64, 64], [64, 64]], "Input type": ["float", "float"]}


def _whys(events) -> dict[str, str]:
    r = parse({"traceEvents": events, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}]})
    return {k.name: k.why for k in r.kernels}


def test_each_reason_from_its_launch():
    events = [
        _kernel("early_kernel", 10.0, 5),                                 # correlation below the first runtime call
        _api(100.0, 50), _kernel("orphan_kernel", 200.0, 50),             # runtime call, no operator around it
        _op("aten::frobnicate", 300.0, 20.0, **SHAPES), _api(305.0, 60), _kernel("frob_kernel", 400.0, 60),
        _op("mylib::fused_thing", 500.0, 20.0, **SHAPES), _api(505.0, 70), _kernel("ext_kernel", 600.0, 70),
        _op("CompiledFunctionBackward", 700.0, 50.0), _api(705.0, 80), _kernel("graph_kernel", 800.0, 80),
        _op("aten::addmm", 900.0, 20.0, **{"Input Dims": [[64], [64, 64], [64, 64], [], []],
                                           "Input type": ["float"] * 3 + ["Scalar"] * 2}),
        _api(902.0, 90), _kernel("ampere_sgemm_64x64_nn", 950.0, 90),
        _api(905.0, 91), _kernel("void at::native::bias_copy_kernel<float>", 960.0, 91),
    ]
    whys = _whys(events)
    assert whys["early_kernel"] == R.BEFORE_WINDOW
    assert whys["orphan_kernel"] == R.NO_OPERATOR
    assert whys["frob_kernel"] == R.NO_MODEL
    assert whys["ext_kernel"] == R.EXTENSION
    assert whys["graph_kernel"] == R.COMPILED
    assert whys["ampere_sgemm_64x64_nn"] == ""                         # the GEMM got the work
    assert whys["void at::native::bias_copy_kernel<float>"] == R.HELPER


def test_no_shapes_recorded():
    events = [_op("aten::mul", 0.0, 20.0), _api(5.0, 9), _kernel("mul_kernel", 30.0, 9)]
    assert _whys(events)["mul_kernel"] == R.NO_SHAPES


def test_placement_says_why_and_every_reason_has_a_fix():
    ks = KernelSet.from_kernels([Kernel("a", 1e-3, why=R.COMPILED), Kernel("b", 1e-3), Kernel("c", float("nan"))])
    p = place(ks, find_device("a100-80gb-sxm"))
    assert p.reason.tolist() == [R.COMPILED, R.NO_COUNTERS, R.NO_TIME]
    assert set(R.WITHOUT_WORK) == set(R.FIXES) and all(R.FIXES.values())


@pytest.mark.parametrize("name", [
    "void dpsk::ep::intranode::dispatch<8, 768>(int4*, float*)",
    "void deep_ep::internode::combine<true>(int4*)",
    "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long)",
    "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)",
    "void vllm::cross_device_reduce_1stage<c10::BFloat16, 8>(vllm::RankData*, vllm::RankSignals)",
    "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 8>(float**, float*)",
])
def test_communication_libraries_are_communication(name):
    assert family_of(name) == "communication"


@needs_kineto
def test_negative_queue_every_kernel_without_work_says_why():
    r = read_profile(real_file(NEG_QUEUE))
    p = place(KernelSet.from_kernels(r.kernels), find_device("a100-80gb-sxm"))
    unknown = [i for i in range(len(p)) if p.bound[i] == "unknown"]
    assert unknown and all(p.reason[i] in R.WITHOUT_WORK for i in unknown)
    assert not [i for i in unknown if p.reason[i] in (R.NO_COUNTERS, R.NO_TIME)]
    compiled = [i for i in unknown if r.kernels[i].operator in ("CompiledFunction", "CompiledFunctionBackward")]
    # replayed by cudaGraphLaunch (read by hand: the runtime call with the kernel's correlation), or
    # launched inside the compiled graph's own calls, which carry no shapes
    doc = json.load(gzip.open(NEG_QUEUE))
    runtime = {e["args"]["correlation"]: e["name"] for e in doc["traceEvents"]
               if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    replayed = {e["name"] for e in doc["traceEvents"]
                if e.get("cat") == "kernel" and runtime.get(e["args"]["correlation"]) == "cudaGraphLaunch"}
    assert compiled and replayed
    assert all(p.reason[i] == (R.GRAPH_REPLAY if r.kernels[i].name in replayed else R.COMPILED) for i in compiled)
    # launched before the window: correlation ids below the first runtime event's (read by hand)
    first = min(e["args"]["correlation"] for e in doc["traceEvents"]
                if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {}))
    early = {e["name"] for e in doc["traceEvents"] if e.get("cat") == "kernel" and e["args"]["correlation"] < first}
    before = {r.kernels[i].name for i in unknown if p.reason[i] == R.BEFORE_WINDOW}
    assert before and before <= early


@needs_kineto
def test_nccl_data_without_shapes_says_so():
    r = read_profile(real_file(NCCL_DATA))
    p = place(KernelSet.from_kernels(r.kernels), find_device("a100-40gb-sxm"))
    reasons = {p.reason[i] for i in range(len(p)) if p.bound[i] == "unknown"}
    assert reasons and reasons <= {R.NO_SHAPES, R.BEFORE_WINDOW, R.NO_OPERATOR}
    assert R.NO_SHAPES in reasons


@needs_kineto
def test_b200_custom_kernels_are_modelled():
    """vLLM's custom operators have models of their own (roofline.ops.serving,
    .moe, .paged_attention): their kernels are no longer 'custom extension'."""
    r = read_profile(real_file(B200))
    ext = {k.operator for k in r.kernels if k.why == R.EXTENSION}
    worked = {k.operator for k in r.kernels if k.flops and k.modelled}
    assert {"vllm::moe_forward", "_C::fused_add_rms_norm"} <= worked
    assert not ext & worked
    assert all(k.why in R.WITHOUT_WORK for k in r.kernels if not k.flops and not k.bytes
               and k.family not in ("memcpy", "memset"))


def test_cpu_trace_rows_without_work_say_why():
    """On a CPU trace an operator's own time is the row: without a model,
    of a custom namespace or without shapes it says so, as a kernel would."""
    from roofline.importers.kineto import parse

    def op(name, ts, dims=None):
        args = {"External id": ts}
        if dims is not None:
            args.update({"Input Dims": dims, "Input type": ["float"] * len(dims)})
        return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": 5, "args": args}

    got = {k.operator: k for k in parse({"traceEvents": [
        op("aten::frobnicate", 0, [[8, 8]]), op("myext::fused_thing", 10, [[8, 8]]),
        op("aten::mm", 20, [[8, 8], [8, 8]])]}).kernels}
    assert got["aten::frobnicate"].why == R.NO_MODEL
    assert got["myext::fused_thing"].why == R.EXTENSION
    assert not got["aten::mm"].why and got["aten::mm"].flops
