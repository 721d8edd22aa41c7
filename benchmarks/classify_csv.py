"""The user's path on a big kernels.csv, against a bare csv.reader pass over
the same file in the same run, each a fresh process:

    python benchmarks/classify_csv.py --rows 1000000 --repeat 3
    python benchmarks/classify_csv.py --compare /tmp/base --repeat 3   # another checkout, same rounds
    python benchmarks/classify_csv.py --stages      # and where the time goes, stage by stage

Writes /tmp/kernels_<N>.csv once (names drawn from 5,000 distinct kernels
with cuDNN/cuBLAS/PyTorch-like names, FLOPs for two precisions, bytes at
three levels), then times a ``csv.reader`` pass over it and
``roofline classify FILE --device v100-sxm2 --format csv`` (output to
/dev/null) and ``--format json``: wall and CPU seconds, peak RSS, and each
ratio to the csv.reader pass of the same round. Target (big-trace issue): the
CSV classify at most 5x the csv.reader pass at 1,000,000 rows; JSON, built
from columns like the CSV since 8cf8caf, is held to the same.
"""
from __future__ import annotations

import argparse
import csv
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from fresh_process import compile_checkout, run, user_env  # noqa: E402

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


CSV_READER = "import csv, sys; sum(1 for _ in csv.reader(open(sys.argv[1], newline='')))"

# One classify in a fresh process, stage by stage as the CLI runs them
# (wall and CPU seconds, CPU counting every thread): where the time goes.
STAGES = """
import os, sys, time
marks = [(time.perf_counter(), time.process_time(), "start")]
def mark(label):
    marks.append((time.perf_counter(), time.process_time(), label))
from roofline.cli.common import choose_device, load_inputs
from roofline.core.placement import place
from roofline.render.json_rows import placements_json_chunks
from roofline.render.tables import placements_csv_chunks
try:                                # as the CLI does (a checkout before it: pyarrow imports pandas)
    from roofline.cli.classify import arrow_without_pandas
    arrow_without_pandas()
except ImportError:
    pass
mark("import")
kernels, results = load_inputs([sys.argv[1]])
mark("read")
device = choose_device("v100-sxm2", results, "classify")
mark("device")
placements = place(kernels, device)
mark("place")
with open(os.devnull, "wb") as out:
    for chunk in (placements_csv_chunks if sys.argv[2] == "csv" else placements_json_chunks)(placements):
        out.write(chunk)
mark("write " + sys.argv[2])
for (w0, c0, _), (w1, c1, label) in zip(marks, marks[1:]):
    print(f"    {label:12s} {w1 - w0:6.2f} s (cpu {c1 - c0:5.2f} s)")
"""


def classify(path: Path, fmt: str) -> list[str]:
    return [sys.executable, "-m", "roofline.cli.main", "classify", str(path), "--device", "v100-sxm2",
            "--format", fmt]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=1, help="rounds (default 1)")
    ap.add_argument("--compare", metavar="DIR", help="another roofline checkout to time in the same rounds")
    ap.add_argument("--stages", action="store_true",
                    help="also time each stage (import, read, device, place, write) of one classify per format")
    args = ap.parse_args()
    path = Path(f"/tmp/kernels_{args.rows}.csv")
    if not path.exists():
        print(f"writing {path} ...", file=sys.stderr)
        write(path, args.rows)
    here = str(Path(__file__).resolve().parents[1])
    checkouts = [("this checkout", here)] + ([(args.compare, str(Path(args.compare).resolve()))]
                                             if args.compare else [])
    for _, root in checkouts:
        compile_checkout(root)
    print(f"{args.rows:,} rows, {os.path.getsize(path) / 1e6:.0f} MB; every command a fresh process, "
          "bytecode compiled beforehand (as installed)")
    ratios: dict[str, list[float]] = {}
    for i in range(args.repeat):
        wall0, cpu0, rss0 = run([sys.executable, "-c", CSV_READER, str(path)])
        print(f"round {i + 1}: csv.reader pass {wall0:7.2f} s (cpu {cpu0:.2f} s, peak RSS {rss0 / 1e6:.0f} MB)")
        order = checkouts if i % 2 == 0 else checkouts[::-1]      # alternate who goes first
        for label, root in order:
            for fmt in ("csv", "json"):
                wall, cpu, rss = run(classify(path, fmt), cwd=root)
                key = f"{label}: classify --format {fmt}"
                ratios.setdefault(key, []).append(wall / wall0)
                ratios.setdefault(key + " (cpu)", []).append(cpu / cpu0)
                print(f"  {key:48s} {wall:7.2f} s {wall / wall0:5.2f}x (cpu {cpu:.2f} s {cpu / cpu0:5.2f}x) "
                      f"peak RSS {rss / 1e6:5.0f} MB", flush=True)
    if args.stages:
        for label, root in checkouts:
            for fmt in ("csv", "json"):
                print(f"stages, {label}, --format {fmt}:", flush=True)
                subprocess.run([sys.executable, "-c", STAGES, str(path), fmt], cwd=root, env=user_env(), check=True,
                               stderr=subprocess.DEVNULL)
    for key, r in ratios.items():
        print(f"{key:56s} / csv.reader: min {min(r):5.2f} median {statistics.median(r):5.2f} "
              f"max {max(r):5.2f}  (target <= 5)")


if __name__ == "__main__":
    main()
