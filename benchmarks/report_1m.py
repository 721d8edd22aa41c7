"""Report of a 1,000,000-kernel trace; target: rendered in under 5 s.

Builds a synthetic trace shaped like a training step profile (1000 distinct
kernel names in 10 families, each name called 1000 times with per-call
jitter, many tiny elementwise launches, host-to-device copies without FLOPs),
then times :func:`roofline.report.build_report` (placement of every row,
aggregation, tables) and ``Report.to_html`` (charts rendered to PNG and
embedded), and prints the total against the 5 s target. As a reference
measured in the same run, it times one plain ``roofline_figure`` of 1000
points (what the report draws instead of a million markers).

    python benchmarks/report_1m.py [--rows 1000000] [-o /tmp/report_1m.html]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from roofline.core.model import KernelSet
from roofline.devices.profile import find_device

TARGET_S = 5.0
FAMILIES = {  # family: (name stem, FLOP per call, DRAM bytes per call, us per call)
    "gemm": ("ampere_sgemm_128x64_tn", 4e9, 6e7, 400.0),
    "implicit_gemm": ("sm80_xmma_fprop_implicit_gemm", 2e9, 4e7, 250.0),
    "attention": ("flash_fwd_kernel", 1e9, 2e7, 150.0),
    "elementwise": ("vectorized_elementwise_kernel", 2e5, 1.6e6, 4.0),
    "reduction": ("reduce_kernel", 1e6, 4e6, 9.0),
    "normalization": ("vectorized_layer_norm_kernel", 5e6, 8e6, 15.0),
    "softmax": ("softmax_warp_forward", 3e6, 6e6, 10.0),
    "pooling": ("max_pool_forward_nchw", 2e6, 8e6, 12.0),
    "communication": ("ncclKernel_AllReduce_RING_LL_Sum_float", 1e6, 3e7, 300.0),
    "memcpy": ("Memcpy HtoD (Pageable -> Device)", 0.0, 0.0, 60.0),
}


def trace(rows: int, names: int = 1000, seed: int = 1) -> KernelSet:
    rng = np.random.default_rng(seed)
    fams = list(FAMILIES)
    name_fam = np.arange(names) % len(fams)
    # per name: a scale factor around its family's figures
    scale = rng.lognormal(0.0, 0.8, names)          # problem size of each name
    reuse = rng.lognormal(0.0, 0.7, names)          # its intensity around the family's
    name_list = np.array([f"{FAMILIES[fams[f]][0]}_{i:03d}" for i, f in enumerate(name_fam)], dtype=object)
    which = np.arange(rows) % names
    jitter = rng.lognormal(0.0, 0.15, rows)
    fam_of_row = name_fam[which]
    flops = np.array([FAMILIES[f][1] for f in fams])[fam_of_row] * scale[which]
    dram = (np.array([FAMILIES[f][2] for f in fams])[fam_of_row] * scale[which] / reuse[which]
            * rng.lognormal(0.0, 0.2, rows))
    us = np.array([FAMILIES[f][3] for f in fams])[fam_of_row] * scale[which] * jitter
    copy = fam_of_row == fams.index("memcpy")
    flops = np.where(copy, np.nan, flops * jitter ** 0.1)
    pcie = np.where(copy, 4e5 * scale[which], np.nan)
    dram = np.where(copy, np.nan, dram)
    return KernelSet(names=name_list[which], time_s=us * 1e-6, count=np.ones(rows),
                     flops={"fp32": flops}, bytes={"L2": np.where(copy, np.nan, dram * 2.5), "DRAM": dram,
                                                   "PCIe": pcie},
                     families=np.array(fams, dtype=object)[fam_of_row])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("-o", "--output", default="/tmp/report_1m.html")
    args = ap.parse_args(argv)
    from roofline.core.atomic import write_text_atomic
    from roofline.report import build_report
    device = find_device("a100-40gb-sxm")
    t0 = time.perf_counter()
    ks = trace(args.rows)
    t_input = time.perf_counter() - t0

    t0, c0 = time.perf_counter(), time.process_time()
    report = build_report(ks, device, title=f"Synthetic trace of {args.rows:,} kernels")
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    text = report.to_html()
    t_html = time.perf_counter() - t0
    cpu = time.process_time() - c0
    write_text_atomic(args.output, text)
    total = t_build + t_html

    # reference: one ordinary chart of 1000 kernels, rendered to PNG in memory
    from roofline.core.placement import place
    from roofline.render.plot import roofline_figure
    from roofline.core.aggregate import aggregate_set
    import io
    small = place(aggregate_set(ks, "name"), device)
    t0 = time.perf_counter()
    roofline_figure(small).savefig(io.BytesIO(), format="png", dpi=120)
    t_ref = time.perf_counter() - t0

    print(f"input: {args.rows:,} kernel rows, {len(set(ks.names)):,} names (built in {t_input:.2f} s)")
    print(f"build_report {t_build:.2f} s + to_html {t_html:.2f} s = {total:.2f} s "
          f"(target {TARGET_S:.1f} s, {total / TARGET_S:.0%} of budget)")
    busy = " (wall well above CPU: other processes share the machine)" if total > 1.25 * cpu else ""
    print(f"CPU time of this process over the same span: {cpu:.2f} s{busy}")
    print(f"reference, one roofline chart of {len(small):,} points: {t_ref:.2f} s "
          f"(the report is {total / t_ref:.1f}x that)")
    print(f"wrote {args.output} ({len(text) / 1e6:.1f} MB, {len(report.plotted):,} markers over a density)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
