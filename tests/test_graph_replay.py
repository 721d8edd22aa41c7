"""Kernels replayed from a CUDA/HIP graph take the work of the launch
recorded when the graph was captured (roofline.importers.kineto.replay):
by the kernel name a ROCm runtime call carries, or by an Inductor
launcher named like its kernel; without the capture they say why."""
from __future__ import annotations

from roofline.core import reasons as R
from roofline.importers.kineto import parse
from roofline.ops import OpCall, op_work

MM_DIMS = [[256, 3072], [3072, 9216]]


def op(name, ts, dur, ext, dims=None, types=None):
    args = {"External id": ext}
    if dims is not None:
        args.update({"Input Dims": dims, "Input type": types})
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": args}


def runtime(name, ts, corr, ext, kernel=None):
    args = {"External id": ext, "correlation": corr}
    if kernel is not None:
        args["kernel"] = kernel
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": 2,
            "args": args}


def kernel(name, ts, corr, ext, dur=10.0):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"External id": ext, "correlation": corr, "device": 0, "stream": 7}}


def rows(events):
    return {(k.name, k.operator): k for k in parse({"traceEvents": events}).kernels}


def test_rocm_capture_names_the_kernel_its_replays_take_the_operators_work():
    # the capture: aten::mm launches Cijk_gemm (hipExtModuleLaunchKernel names it), no kernel runs;
    # then the graph is replayed twice, each replay running the GEMM once
    events = [op("aten::mm", 0, 20, 1, MM_DIMS, ["c10::BFloat16"] * 2),
              runtime("hipExtModuleLaunchKernel", 5, 10, 1, kernel="Cijk_gemm_MT128"),
              runtime("hipGraphLaunch", 100, 20, 50), kernel("Cijk_gemm_MT128", 110, 20, 50),
              runtime("hipGraphLaunch", 200, 21, 51), kernel("Cijk_gemm_MT128", 210, 21, 51)]
    (k,) = rows(events).values()
    w = op_work(OpCall("aten::mm", dims=tuple(map(tuple, MM_DIMS)), types=("c10::BFloat16",) * 2))
    assert k.operator == "aten::mm" and k.count == 2
    assert sum(k.flops.values()) == 2 * sum(w.flops.values())      # each replay does the whole GEMM
    assert k.bytes["DRAM"] == 2 * w.bytes and not k.why


def test_captured_triton_launcher_is_matched_by_name_in_time_order():
    name = "triton_poi_fused_add_0"
    events = [op(name, 0, 5, 1, [[1024], [1024], [1024], []], ["float"] * 3 + ["Scalar"]),
              op(name, 10, 5, 2, [[4096], [4096], [4096], []], ["float"] * 3 + ["Scalar"]),
              runtime("cudaGraphLaunch", 100, 30, 60),
              kernel(name, 110, 30, 60), kernel(name, 130, 30, 60)]
    (k,) = rows(events).values()
    assert k.operator == name and k.count == 2
    assert k.flops == {"fp32": 1024.0 + 4096.0}                       # the first capture, then the second


def test_replay_without_its_capture_says_so():
    events = [op("aten::linear", 0, 5, 1, MM_DIMS, ["float"] * 2),
              runtime("cudaLaunchKernel", 1, 5, 1), kernel("sgemm_eager", 10, 5, 1),
              runtime("cudaGraphLaunch", 100, 40, 70), kernel("Cijk_replayed", 110, 40, 70)]
    got = rows(events)
    assert got[("Cijk_replayed", "")].why == R.GRAPH_REPLAY
    assert R.GRAPH_REPLAY in R.FIXES and "capture" in R.FIXES[R.GRAPH_REPLAY]


def test_a_kernel_that_ran_at_its_launch_is_not_a_capture():
    # hipLaunchKernel names a kernel that did run (its correlation has a kernel event): not a capture,
    # so the replayed kernel of the same name does not take that operator's work twice
    events = [op("aten::mm", 0, 20, 1, MM_DIMS, ["float"] * 2),
              runtime("hipLaunchKernel", 5, 10, 1, kernel="Cijk_gemm"), kernel("Cijk_gemm", 8, 10, 1),
              runtime("hipGraphLaunch", 100, 20, 50), kernel("Cijk_gemm", 110, 20, 50)]
    got = rows(events)
    assert got[("Cijk_gemm", "aten::mm")].count == 1
    assert got[("Cijk_gemm", "")].why == R.GRAPH_REPLAY


def memcpy(ts, corr, nbytes=None):
    args = {"correlation": corr, "device": 0, "stream": 7}
    if nbytes is not None:
        args["bytes"] = nbytes
    return {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 7,
            "ts": ts, "dur": 4.0, "args": args}


def test_copies_keep_the_bytes_they_have_and_the_rest_say_why():
    """A copy group with bytes on some events only (TraceLens resnet_act_checkpoint: 366 of 550): the
    sized events keep their bytes; the others, launched before the CPU window, are a row of their own."""
    events = [memcpy(0, 3),                                            # before the first runtime call
              runtime("cudaMemcpyAsync", 10, 20, 1), memcpy(12, 20, 1000),
              runtime("cudaMemcpyAsync", 30, 21, 2), memcpy(32, 21, 3000)]
    got = {k.name: k for k in parse({"traceEvents": events}).kernels}
    sized = got["Memcpy DtoD (Device -> Device)"]
    assert (sized.count, sized.bytes) == (2, {"DRAM": 2 * 4000.0}) and not sized.why
    rest = got["Memcpy DtoD (Device -> Device) (events without bytes)"]
    assert (rest.count, rest.bytes, rest.why) == (1, {}, R.BEFORE_WINDOW)
    assert rest.time_s == sized.time_s / 2
