"""Check the verdict rules of docs/concepts.md on profile files you have, and
print what each file's time comes out as:

    python tools/verdict_checks.py ../shared/realdata/kineto_trace/*.json.gz
    python tools/verdict_checks.py --device my-cpu trace.json.gz

Rules checked on every kernel row (a violation is printed with its name):

1. a kernel with a roofline time of 100 us or more per call is never overhead;
2. a modelled kernel that moves its compulsory bytes at 60 % or more of the
   DRAM bandwidth of its roof is bandwidth-bound;
3. a GEMM-like kernel whose name states a tensor-core precision
   (docs/kernel-names.md) and has modelled work has its FLOPs on that roof;
4. every kernel below 80 % of its roof, and every overhead-bound one, has a
   reason.

Exit status 1 when a rule is broken, so it can run in a loop over traces.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict

import numpy as np


def check(path: str, device_name: str | None) -> tuple[dict, list[str]]:
    from roofline.core.kernel_precision import precision_from_name
    from roofline.core.placement import Rules, place
    from roofline.devices.choice import device_for
    from roofline.importers import read_profile
    from roofline.cli.common import kernel_columns
    result = read_profile(path)
    device = device_for([result], requested=device_name).device
    p = place(kernel_columns([result]), device)
    ks, rules = p.kernels, Rules()
    count = np.maximum(ks.count, 1)
    problems = []
    with np.errstate(invalid="ignore", divide="ignore"):
        big = (p.roofline_time_s / count >= rules.substantial_s) & (p.bound == "overhead")
        dram = ks.bytes.get("DRAM", np.full(len(ks), np.nan))
        fast = ks.modelled & (dram / ks.time_s >= 0.6 * device.bandwidth("DRAM")) & (p.bound != "bandwidth")
        below = ((p.efficiency < rules.near_roof) | (p.bound == "overhead")) & (p.reason == "")
    for i in np.flatnonzero(big):
        problems.append(f"overhead with {1e6 * p.roofline_time_s[i] / count[i]:.0f} us of roof per call: {ks.names[i]}")
    for i in np.flatnonzero(fast):
        problems.append(f"{p.bound[i]} at >= 60 % of DRAM: {ks.names[i]}")
    for i in np.flatnonzero(below):
        problems.append(f"below its roof without a reason: {ks.names[i]}")
    for i in np.flatnonzero(ks.modelled & (p.work > 0)):
        named = precision_from_name(str(ks.names[i]))
        if named and named.precision.startswith("tensor_"):
            on = [k for k, v in ks.flops.items() if np.nan_to_num(v[i]) > 0]
            if on != [named.precision]:
                problems.append(f"name says {named.precision}, FLOPs on {on}: {ks.names[i]}")
    shares = defaultdict(float)
    time = np.nan_to_num(ks.time_s)
    for bound, level, t in zip(p.bound, p.level, time):
        shares[bound + (f" ({level})" if level else "")] += t
    total = time.sum()
    return {k: v / total for k, v in sorted(shares.items(), key=lambda kv: -kv[1])} if total else {}, problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    parser.add_argument("--device", help="device profile (default: the one the file names)")
    args = parser.parse_args(argv)
    from roofline.core.errors import RooflineError
    broken = 0
    for path in args.files:
        try:
            shares, problems = check(path, args.device)
        except RooflineError as exc:
            print(f"{path}: skipped: {str(exc)[:160]}")
            continue
        print(f"{path}: " + ", ".join(f"{k} {100 * v:.1f}%" for k, v in shares.items()))
        for line in problems[:20]:
            print(f"  BROKEN {line[:200]}")
        broken += len(problems)
    print(f"{broken} rule violation(s)")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
