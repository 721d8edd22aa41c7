"""A CPU pair recorded here: one model's trace on one thread and on every
core of this machine, each projected onto the other's roofs (the one-core
and the all-core ceilings of the measured profile), against what the other
trace measured.

    roofline measure --quick                     # a my-cpu profile with one-core figures
    python benchmarks/projection_threads.py [--workload small] [--profile my-cpu]

Needs torch (examples/pytorch_cpu.py records the two traces). Measured is
the operators' self time; families with >= 5 % of it are listed. The
machine should be quiet: a busy core shows up as a slower trace.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def record(workload: str, threads: int, out: Path) -> Path:
    subprocess.run([sys.executable, str(ROOT / "examples" / "pytorch_cpu.py"), "--workload", workload,
                    "--threads", str(threads), "-o", str(out)], check=True, capture_output=True)
    return out


def families(ks) -> dict:
    out: dict = defaultdict(float)
    for f, t in zip(ks.families.tolist(), ks.time_s.tolist()):
        if np.isfinite(t):
            out[f] += t
    return out


def _on_cores(ks, cores: int):
    """A one-thread trace's rows as they run on ``cores`` threads: every
    row, except the element-wise loops PyTorch keeps on one thread (fewer
    than 32,768 elements; the importer's rule, applied here by name)."""
    from roofline.importers.kineto.cpu_rows import _serial
    threads = np.full(len(ks), float(cores))
    for i, (name, family) in enumerate(zip(ks.names.tolist(), ks.families.tolist())):
        shapes = name[name.find("(") + 1:-1] if name.endswith(")") else ""   # "aten::mul(16x64, 16x64)"
        dims = [[int(x) for x in part.split("x")] for part in shapes.split(", ")
                if part and all(x.isdigit() for x in part.split("x"))]
        if family == "elementwise" and _serial(dims):
            threads[i] = 1.0
    return ks.with_columns(threads=threads)


def main(argv=None) -> int:
    from roofline.analysis.projection import project
    from roofline.cli.common import load_inputs
    from roofline.core.cores import one_core_device
    from roofline.core.placement import place
    from roofline.devices.profile import find_device
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workload", default="small", choices=("small", "resnet18", "bert", "gpt2"))
    parser.add_argument("--profile", default="my-cpu", help="a measured CPU profile with one-core figures")
    args = parser.parse_args(argv)
    device = find_device(args.profile)
    one = one_core_device(device)
    if one is None:
        raise SystemExit(f"{args.profile} has no one-core figures: run `roofline measure` first")
    cores = os.cpu_count() or 1
    folder = Path(tempfile.mkdtemp(prefix="projection-threads-"))
    traces = {1: record(args.workload, 1, folder / "t1.json.gz"), cores: record(args.workload, cores, folder / "tn.json.gz")}
    sets = {n: load_inputs([str(p)])[0] for n, p in traces.items()}
    print(f"# {args.workload} on {device.architecture.get('cpu_model', device.name)}: 1 thread <-> {cores} threads\n")
    print("| direction | source ms | measured ms | projected ms | 80 % interval ms | error | inside |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for src, dst in ((cores, 1), (1, cores)):
        if dst == 1:    # the all-core rows placed on the profile, projected onto one core's roofs
            p = project(place(sets[src], device), one)
        else:           # one thread's rows on one core's roofs, run on every core of the profile
            p = project(place(_on_cores(sets[src], cores), one), device)
        measured = float(np.nansum(sets[dst].time_s))
        t = p.totals.total
        inside = t.low_s <= measured <= t.high_s
        print(f"| {src} -> {dst} threads | {t.measured_s * 1e3:.1f} | {measured * 1e3:.1f} | {t.projected_s * 1e3:.1f} | "
              f"{t.low_s * 1e3:.1f} .. {t.high_s * 1e3:.1f} | {t.projected_s / measured - 1:+.1%} | "
              f"{'yes' if inside else 'NO'} |")
        rows.append((src, dst, p, families(sets[dst]), measured))
    print("\n| direction | family | measured ms | projected ms | error |\n|---|---|---|---|---|")
    for src, dst, p, fam, measured in rows:
        for f, m in sorted(fam.items(), key=lambda kv: -kv[1]):
            got = p.totals.families.get(f)
            if m >= 0.05 * measured and got is not None:
                print(f"| {src} -> {dst} | {f} | {m * 1e3:.1f} | {got.projected_s * 1e3:.1f} | "
                      f"{got.projected_s / m - 1:+.1%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
