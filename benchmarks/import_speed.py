"""Import speed of the Kineto and Nsight Systems readers on large synthetic files.

Generates, in a temporary directory:

* a Kineto Chrome trace of about 26 MB with about 10k kernel events (plus
  the runtime calls, CPU ops, flows and copies a real trace has);
* an nsys SQLite export with 1M kernel rows (and 1M runtime rows, 10k copies).

and times ``read_profile`` on each, best of a few runs. Targets (issue #4):
Kineto 26 MB < 2 s, nsys 1M rows < 10 s. Each time is also printed as a
ratio to a reference run in the same process: ``json.loads`` of the same
trace, and one SQLite scan summing the kernel durations.

    python benchmarks/import_speed.py [--kernels 10000] [--rows 1000000]
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from roofline.importers import read_profile

KINETO_TARGET_S = 2.0
NSYS_TARGET_S = 10.0

KERNEL_NAMES = [
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
    "ampere_sgemm_128x64_tn",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
    "float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps"
    "<float, float, float, float>, unsigned int, float, 4>)",
    "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_"
    "warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4>(cutlass_80_tensorop_"
    "s1688gemm_128x128_16x3_nn_align4::Params)",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, "
    "float const*, float const*, float const*, float*, float*, float*)",
    "fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, "
    "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
]


def make_kineto(path: Path, kernels: int, target_mb: float = 26.0, seed: int = 1) -> dict:
    """Write a Kineto-like trace; returns counts. CPU-side events are padded
    until the file reaches about ``target_mb``."""
    rng = random.Random(seed)
    events = []
    ts = 1_700_000_000_000.0
    for i in range(kernels):
        corr = 1000 + i
        name = KERNEL_NAMES[i % len(KERNEL_NAMES)]
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 4242, "tid": 4242,
                       "ts": ts, "dur": 25.5, "args": {"External id": corr, "Record function id": 0,
                                                        "Sequence number": i, "Fwd thread id": 0,
                                                        "Ev Idx": i}})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242,
                       "tid": 4242, "ts": ts + 3.0, "dur": 4.25,
                       "args": {"External id": corr, "cbid": 211, "correlation": corr}})
        dur = round(rng.uniform(2.0, 400.0), 3)
        events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts + 10.0,
                       "dur": dur, "args": {"External id": corr, "queued": 0, "device": 0, "context": 1,
                                            "stream": 7, "correlation": corr, "registers per thread": 64,
                                            "shared memory": 16384, "blocks per SM": 2.5,
                                            "warps per SM": 20.0, "grid": [270, 1, 1], "block": [256, 1, 1],
                                            "est. achieved occupancy %": 31}})
        events.append({"ph": "s", "id": corr, "pid": 4242, "tid": 4242, "ts": ts + 3.0, "cat": "ac2g",
                       "name": "ac2g"})
        events.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": ts + 10.0, "cat": "ac2g",
                       "name": "ac2g", "bp": "e"})
        if i % 100 == 0:
            events.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)",
                           "pid": 0, "tid": 7, "ts": ts + 5.0, "dur": 4.0,
                           "args": {"device": 0, "context": 1, "stream": 7, "correlation": corr + 10**6,
                                    "bytes": 1 << 20, "memory bandwidth (GB/s)": 262.1}})
        ts += dur + 15.0
    pad = {"ph": "X", "cat": "python_function", "name": "torch/nn/modules/module.py(1501): _call_impl",
           "pid": 4242, "tid": 4242, "ts": 0.0, "dur": 1.0,
           "args": {"Python parent id": 1, "Python id": 2, "Ev Idx": 0}}
    head = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB",
                                                       "totalGlobalMem": 42505273344}],
            "traceEvents": events, "traceName": str(path)}
    size = len(json.dumps(head))
    pad_size = len(json.dumps(pad)) + 2
    n_pad = max(0, int((target_mb * 1e6 - size) / pad_size))
    for j in range(n_pad):
        p = dict(pad)
        p["ts"] = 1_700_000_000_000.0 + j
        events.append(p)
    path.write_text(json.dumps(head))
    return {"kernels": kernels, "events": len(events)}


NSYS_SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
    deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
    correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
    shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER,
    registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
    gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
    staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
    localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
    sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
    eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
    returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
    deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
    correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
    deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER,
    srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
    graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT);
"""


def make_nsys(path: Path, rows: int, names: int = 300, seed: int = 2) -> dict:
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    conn.executescript(NSYS_SCHEMA)
    strings = [(0, "cudaLaunchKernel_v7000"), (1, "cudaMemcpyAsync_v3020")]
    for j in range(names):
        base = KERNEL_NAMES[j % len(KERNEL_NAMES)]
        strings.append((10 + 3 * j, f"{base} [variant {j}]"))
        strings.append((11 + 3 * j, f"kernel_{j}"))
        strings.append((12 + 3 * j, f"_Z8kernel_{j}v"))
    conn.executemany("INSERT INTO StringIds VALUES (?, ?)", strings)
    conn.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA A100-SXM4-40GB')")

    def kernels():
        t = 1_000_000_000
        for i in range(rows):
            j = rng.randrange(names)
            dur = rng.randrange(1500, 400_000)
            yield (t, t + dur, 0, 1, 7 + (i % 4), i, 1, 10 + 3 * j, 11 + 3 * j, 12 + 3 * j, 0, 0, 64,
                   108 * (1 + j % 8), 1, 1, 256, 1, 1, 0, 16384, 0, 0, i, 0, None, 0)
            t += dur + rng.randrange(0, 3000)

    conn.executemany(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({','.join('?' * 27)})", kernels())

    def runtime():
        t = 999_000_000
        for i in range(rows):
            yield (t, t + 4000, 0, 7, i, 0, 0, None)
            t += 4500

    conn.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", runtime())
    conn.executemany(
        f"INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES ({','.join('?' * 19)})",
        ((2_000_000_000 + 50_000 * i, 2_000_000_000 + 50_000 * i + 40_000, 0, 1, 7, rows + i, 1, 1 << 22,
          1 + i % 2, None, 1, 2, None, None, None, None, None, None, None) for i in range(rows // 100)))
    conn.commit()
    conn.close()
    return {"rows": rows, "names": names}


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", type=int, default=10_000, help="kernel events in the Kineto trace")
    ap.add_argument("--mb", type=float, default=26.0, help="size of the Kineto trace (MB)")
    ap.add_argument("--rows", type=int, default=1_000_000, help="kernel rows in the nsys export")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        trace = tmp / "trace.json"
        info = make_kineto(trace, args.kernels, args.mb)
        size_mb = trace.stat().st_size / 1e6
        result = read_profile(trace)
        n_kernel_events = sum(k.count for k in result.kernels if k.family != "memcpy")
        assert n_kernel_events == args.kernels, n_kernel_events
        ref = best_of(lambda: json.loads(trace.read_bytes()), args.repeat)
        t = best_of(lambda: read_profile(trace), args.repeat)
        print(f"kineto  {size_mb:6.1f} MB, {info['events']} events, {args.kernels} kernels: "
              f"{t:6.3f} s  = {t / KINETO_TARGET_S:.2f} x target ({KINETO_TARGET_S:g} s), "
              f"{t / ref:.2f} x json.loads alone ({ref:.3f} s)")

        gz = tmp / "trace.json.gz"
        gz.write_bytes(gzip.compress(trace.read_bytes(), compresslevel=6))
        tgz = best_of(lambda: read_profile(gz), args.repeat)
        print(f"kineto  {gz.stat().st_size / 1e6:6.1f} MB .json.gz (same trace):          "
              f"{tgz:6.3f} s  = {tgz / KINETO_TARGET_S:.2f} x target")

        db = tmp / "report.sqlite"
        t0 = time.perf_counter()
        make_nsys(db, args.rows)
        build = time.perf_counter() - t0
        result = read_profile(db)
        assert sum(k.count for k in result.kernels if k.family != "memcpy") == args.rows
        conn = sqlite3.connect(db)
        ref = best_of(lambda: conn.execute(
            'SELECT total("end" - "start") FROM CUPTI_ACTIVITY_KIND_KERNEL').fetchone(), args.repeat)
        conn.close()
        t = best_of(lambda: read_profile(db), args.repeat)
        print(f"nsys    {db.stat().st_size / 1e6:6.1f} MB SQLite, {args.rows} kernel rows "
              f"(built in {build:.1f} s): {t:6.3f} s  = {t / NSYS_TARGET_S:.2f} x target "
              f"({NSYS_TARGET_S:g} s), {t / ref:.2f} x one SQL scan ({ref:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
