"""The user's path on a big kernels.csv, against a bare csv.reader pass over
the same file in the same run:

    python benchmarks/classify_csv.py --rows 1000000

Writes /tmp/kernels_<N>.csv once (names drawn from 5,000 distinct kernels
with cuDNN/cuBLAS/PyTorch-like names, FLOPs for two precisions, bytes at
three levels), then times ``csv.reader`` over it and
``roofline classify FILE --device v100-sxm2 --format csv`` (fresh process,
output to /dev/null) and ``--format json``. Target (big-trace issue): the
CSV classify at most 5x the csv.reader pass at 1,000,000 rows; JSON, built
from columns like the CSV since 8cf8caf, is held to the same.
"""
from __future__ import annotations

import argparse
import csv
import os
import random
import subprocess
import sys
import time
from pathlib import Path

FAMILIES = ["volta_sgemm_128x64_nn", "implicit_convolve_sgemm", "void fft2d_r2c_32x32<float>",
            "winograd_3x3_kernel", "void at::native::vectorized_elementwise_kernel<4, add>",
            "void at::native::reduce_kernel<512, 1>", "forward_kernel", "ncclKernel_AllReduce_RING"]


def write(path: Path, rows: int, distinct: int = 5000, seed: int = 1) -> None:
    rng = random.Random(seed)
    names = [f"{rng.choice(FAMILIES)}_v{i}" for i in range(distinct)]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["name", "time_us", "count", "flops_fp32", "flops_fp16", "bytes_dram", "bytes_l2",
                    "bytes_l1"])
        for _ in range(rows):
            t = rng.uniform(2, 2000)
            flop = t * rng.uniform(1e5, 1.0e7)   # below a V100's roofs
            w.writerow([rng.choice(names), f"{t:.3f}", rng.randint(1, 9), f"{flop:.6g}",
                        f"{flop * rng.random():.6g}" if rng.random() < 0.3 else "",
                        f"{t * rng.uniform(1e4, 7e5):.6g}", f"{t * rng.uniform(1e4, 1.5e6):.6g}",
                        f"{t * rng.uniform(1e4, 5e6):.6g}"])


def csv_reader_pass(path: Path) -> float:
    t0 = time.perf_counter()
    with open(path, newline="") as f:
        n = sum(1 for _ in csv.reader(f))
    assert n > 1
    return time.perf_counter() - t0


def cli(path: Path, fmt: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(path), "--device",
                    "v100-sxm2", "--format", fmt], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    args = ap.parse_args()
    path = Path(f"/tmp/kernels_{args.rows}.csv")
    if not path.exists():
        print(f"writing {path} ...", file=sys.stderr)
        write(path, args.rows)
    reader = min(csv_reader_pass(path) for _ in range(3))
    as_csv = cli(path, "csv")
    as_json = cli(path, "json")
    print(f"{args.rows:,} rows, {os.path.getsize(path) / 1e6:.0f} MB")
    print(f"csv.reader pass                        {reader:7.2f} s")
    print(f"roofline classify --format csv         {as_csv:7.2f} s   {as_csv / reader:5.1f}x  (target <= 5x)")
    print(f"roofline classify --format json        {as_json:7.2f} s   {as_json / reader:5.1f}x  (target <= 5x)")


if __name__ == "__main__":
    main()
