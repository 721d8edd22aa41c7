"""Place and classify 1,000,000 kernels; target: under 1 s on a 2-core VM.

Prints the time of `place` and, as the reference measured in the same run,
the time numpy takes for one pass of the same arithmetic (a division per
level), so the ratio says how close the classifier is to plain numpy.

    python benchmarks/place_1m.py
"""
from __future__ import annotations

import time

import numpy as np

from roofline.core.model import Ceiling, Device, KernelSet, MemoryLevel
from roofline.core.placement import place

N = 1_000_000
TARGET_S = 1.0


def device() -> Device:
    level = lambda name, bw: MemoryLevel(name, Ceiling(bw))
    return Device("benchmark GPU", "gpu", {"fp32": Ceiling(15.7e12), "fp64": Ceiling(7.8e12)},
                  {"L1": level("L1", 14e12), "L2": level("L2", 3e12), "DRAM": level("DRAM", 900e9)},
                  launch_overhead_s=5e-6)


def kernels(rng) -> KernelSet:
    return KernelSet(
        names=np.array([f"k{i % 1000}" for i in range(N)], dtype=object),
        time_s=rng.uniform(1e-6, 1e-2, N), count=np.ones(N),
        flops={"fp32": rng.uniform(1e3, 1e10, N), "fp64": rng.uniform(0, 1e8, N)},
        bytes={lv: rng.uniform(1e3, 1e9, N) for lv in ("L1", "L2", "DRAM")})


def best_of(fn, repeat=5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(1)
    ks, dev = kernels(rng), device()
    t_place = best_of(lambda: place(ks, dev))
    t_numpy = best_of(lambda: [b / 1e12 for b in ks.bytes.values()] + [ks.flops["fp32"] / 1e12])
    counts = {b: int(n) for b, n in zip(*np.unique(place(ks, dev).bound.astype(str), return_counts=True))}
    print(f"place+classify {N:,} kernels: {t_place:.3f} s (target {TARGET_S:.1f} s, "
          f"{t_place / TARGET_S:.0%} of budget)")
    print(f"reference, numpy divisions over the same columns: {t_numpy:.3f} s "
          f"(place is {t_place / t_numpy:.1f}x that)")
    print(f"bound classes: {counts}")


if __name__ == "__main__":
    main()
