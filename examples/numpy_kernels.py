"""Time a few NumPy operations on this machine and write them as kernels.csv,
so they can be placed on the CPU's measured rooflines:

    python examples/numpy_kernels.py -o numpy_kernels.csv
    roofline plot numpy_kernels.csv --device my-cpu -o cpu.png

FLOPs and bytes are the textbook counts of each operation (compulsory
traffic, 8-byte doubles, no write-allocate); the times are measured here
(best of 5 runs). The single-threaded ones carry ``threads = 1`` and are
placed on the one-core roofs of the measured profile; ``add`` into a fresh
result runs below its roof by the cost of its page faults.
"""
from __future__ import annotations

import argparse
import csv
import time

import numpy as np


def best_time(fn, repeat: int = 5) -> float:
    fn()  # warm-up: page faults and BLAS thread start-up stay out of the timing
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def cases(rng):
    """(name, function, FLOP, DRAM bytes, threads) per operation. NumPy's
    element-wise operations and reductions run on one thread; its matrix
    product calls a BLAS that uses every core (threads left empty)."""
    n_big, n_small, n_mat = 20_000_000, 4_000, 1_500
    x, y = rng.random(n_big), rng.random(n_big)
    xs, ys = rng.random(n_small), rng.random(n_small)
    a, b = rng.random((n_mat, n_mat)), rng.random((n_mat, n_mat))
    out = np.empty(n_big)
    return [
        ("add 20M into out", lambda: np.add(x, y, out=out), n_big, 3 * 8 * n_big, 1),
        # A fresh 160 MB result each call: the same traffic plus the page
        # faults of memory the allocator takes from the OS and gives back.
        ("add 20M, new result", lambda: x + y, n_big, 3 * 8 * n_big, 1),
        ("sum 20M", lambda: x.sum(), n_big, 8 * n_big, 1),
        ("dot 4k (in L1)", lambda: [xs @ ys for _ in range(1000)], 2 * n_small * 1000, None, 1),
        ("dgemm 1500", lambda: a @ b, 2 * n_mat**3, 3 * 8 * n_mat**2, ""),
        ("copy 20M", lambda: np.copyto(out, x), 0, 2 * 8 * n_big, 1),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", default="numpy_kernels.csv")
    args = parser.parse_args()
    rows = []
    for name, fn, flops, nbytes, threads in cases(np.random.default_rng(0)):
        rows.append({"name": name, "time_s": best_time(fn), "count": 1, "flops_fp64": flops,
                     "bytes_dram": "" if nbytes is None else nbytes, "bytes_l1": "",
                     "threads": threads, "family": "numpy"})
    # the in-cache dot product: its bytes are L1 traffic (two 32 kB vectors per call)
    rows[3]["bytes_l1"] = 2 * 8 * 4_000 * 1000
    with open(args.output, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    for r in rows:
        print(f"{r['name']:<24} {r['time_s'] * 1e3:8.2f} ms")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
