"""Write N synthetic Kineto traces of one data-parallel job, one per rank,
and time reading them with --workers 1 and --workers 2:

    python benchmarks/rank_traces.py --ranks 16 --kernels 100000

100,000 kernels make a 60 MB trace per rank (a real step's rank trace is
tens of MB to GBs). With 20,000 (12 MB, read in about 0.14 s) the fixed
cost of starting the CLI (about 0.6 s) is a third of the run, and the
speed-up measures that instead of the reading.

Every rank runs the same GEMM/element-wise/NCCL step; rank ``slow`` has
kernels 30 % longer (a straggler). Each trace carries ``distributedInfo``.
Prints the wall time of ``roofline classify DIR --format json`` with 1 and
2 workers, the speed-up, whether the outputs are identical, and the peak
RSS of the main process and of the largest worker.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KERNELS = [  # (operator, dims, types, kernel name, us)
    ("aten::mm", [[2048, 1024], [1024, 1024]], ["float", "float"], "ampere_sgemm_128x64_nn", 120.0),
    ("aten::add", [[2048, 1024], [2048, 1024], []], ["float", "float", "Scalar"],
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >", 30.0),
    ("nccl:all_reduce", None, None, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", 200.0),
]


def trace(rank: int, world: int, kernels: int, slow: int) -> dict:
    events, ts, corr = [], 0.0, 1
    scale = 1.3 if rank == slow else 1.0
    for i in range(kernels):
        op, dims, types, name, us = KERNELS[i % len(KERNELS)]
        args = {"External id": corr}
        if dims is not None:
            args.update({"Input Dims": dims, "Input type": types, "Concrete Inputs": [""] * len(dims)})
        events.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": ts, "dur": 8,
                       "args": args})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": ts + 2, "dur": 4, "args": {"correlation": corr, "External id": corr}})
        events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts + 10,
                       "dur": us * scale, "args": {"correlation": corr, "External id": corr,
                                                   "device": 0, "stream": 7}})
        ts += 10 + us * scale
        corr += 1
    return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world},
            "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}], "traceEvents": events}


def write_ranks(folder: Path, ranks: int, kernels: int, slow: int = 2) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for r in range(ranks):
        (folder / f"job_rank{r}.json").write_text(json.dumps(trace(r, ranks, kernels, slow)))


def run(folder: Path, workers: int) -> tuple[float, str, int]:
    cmd = [sys.executable, "-m", "roofline.cli.main", "classify", str(folder), "--device",
           "a100-80gb-sxm", "--format", "json", "--workers", str(workers)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out, _ = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed")
    return wall, out.decode(), 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=16)
    ap.add_argument("--kernels", type=int, default=100000, help="kernels per rank")
    args = ap.parse_args()
    import resource
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "ranks"
        write_ranks(folder, args.ranks, args.kernels)
        size = sum(f.stat().st_size for f in folder.iterdir())
        one, out1, _ = run(folder, 1)
        two, out2, _ = run(folder, 2)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{args.ranks} ranks x {args.kernels:,} kernels, {size / 1e6:.0f} MB of traces")
    print(f"--workers 1: {one:6.2f} s")
    print(f"--workers 2: {two:6.2f} s   speed-up {one / two:.2f}x (target >= 1.6)")
    print(f"identical output: {out1 == out2}")
    print(f"largest child process peak RSS: {peak:.0f} MB (main or a worker; one rank's trace is "
          f"{size / args.ranks / 1e6:.0f} MB)")


if __name__ == "__main__":
    main()
