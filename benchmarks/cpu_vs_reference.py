"""roofline's CPU measurement side by side with likwid-bench and STREAM, in one run.

    python benchmarks/cpu_vs_reference.py [--quick] [--repeat 2] [--json out.json]

Installs nothing. Needs likwid-bench on PATH (Debian: apt-get install likwid)
and gcc with OpenMP for benchmarks/stream.c; whatever is missing is reported
and its rows are skipped.

What is compared (one core unless said otherwise), ratio = roofline / reference:

* FP64, FP32 FMA peak vs likwid-bench peakflops / peakflops_sp in the widest
  variant this CPU runs (_avx512_fma, _avx_fma): target >= 95 %.
* Load bandwidth of L1, L2, L3, DRAM (roofline's one-core plateau peak) vs
  likwid-bench load in its widest variant (load_avx512, load_avx) at the working set
  in the middle of the plateau roofline found (DRAM: the largest size swept):
  target >= 90 % for L1, L2, DRAM (L3 shown).
* DRAM triad vs STREAM triad (benchmarks/stream.c, gcc -O3 -march=native
  -fopenmp), same total working set, one thread and all threads: >= 90 %.
* Every roofline figure against its theoretical bound at the measured clock
  (never above it beyond 2 % noise).

The load average (uptime) is printed before and after: figures from a busy
machine are not comparable (this VM has 2 vCPUs shared with other work).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def likwid_run(kernel: str, size: str, threads: int = 1) -> float | None:
    """MFlop/s or MByte/s of one likwid-bench run, in SI (FLOP/s or B/s)."""
    cmd = ["likwid-bench", "-t", kernel, "-W", f"S0:{size}:{threads}"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    metric = "MFlops/s" if kernel.startswith("peakflops") else "MByte/s"
    m = re.search(rf"^{re.escape(metric)}:\s+([0-9.eE+]+)", out, re.M)
    value = float(m.group(1)) * 1e6 if m else 0.0
    return value if value > 0 else None


def likwid_best(kernels: list[str], size: str, repeat: int) -> tuple[float | None, str]:
    best, which = None, ""
    for k in kernels:
        for _ in range(repeat):
            v = likwid_run(k, size)
            if v is not None and (best is None or v > best):
                best, which = v, k
    return best, which


def likwid_variants(base: str, flags: set[str]) -> list[str]:
    """The widest variant of a likwid-bench kernel this CPU runs (the fastest;
    the plain kernels are scalar: peakflops reads 8 GFLOP/s where
    peakflops_avx512_fma reads 101 on the AVX-512 VM of docs/measurement.md)."""
    flop = base.startswith("peakflops")
    if "avx512f" in flags:
        return [base + ("_avx512_fma" if flop else "_avx512")]
    if "avx" in flags:
        return [base + ("_avx_fma" if flop and "fma" in flags else "_avx")]
    return [base + "_sse"]


def likwid_size(nbytes: float) -> str:
    kb = max(4, int(nbytes // 1024))
    return f"{kb}kB" if kb < 1024 * 64 else f"{kb // 1024}MB"


def build_stream(tmp: Path) -> tuple[Path | None, str]:
    cc = shutil.which("gcc") or shutil.which("cc")
    if not cc:
        return None, "no C compiler"
    exe = tmp / "stream"
    r = subprocess.run([cc, "-O3", "-march=native", "-fopenmp", str(HERE / "stream.c"), "-o", str(exe)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr else "compile failed"
    return exe, ""


def stream_run(exe: Path, elements: int, threads: int, ntimes: int) -> float | None:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="close", OMP_PLACES="cores")
    r = subprocess.run([str(exe), str(elements), str(ntimes)], capture_output=True, text=True, env=env)
    m = re.search(r"triad_bytes_s ([0-9.eE+]+)", r.stdout)
    return float(m.group(1)) if m else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="roofline measure --quick instead of the full plan")
    ap.add_argument("--repeat", type=int, default=2, help="likwid-bench runs per variant (best kept)")
    ap.add_argument("--json", help="also write the rows as JSON here")
    args = ap.parse_args(argv)

    from roofline.microbench.cpu.cpuinfo import cpu_info
    from roofline.microbench.cpu.run import measure_cpu_isolated

    info = cpu_info()
    print(f"CPU: {info.model}, {info.threads} threads, {info.isa_vector_bits}-bit vectors; "
          f"load average before: {loadavg()}")
    t0 = time.perf_counter()
    dev = measure_cpu_isolated(quick=args.quick, progress=sys.stderr.isatty())
    roof_s = time.perf_counter() - t0
    prov, arch = dev.provenance, dev.architecture
    single = arch["single_core"]
    print(f"roofline measure{' --quick' if args.quick else ''}: {roof_s:.1f} s wall "
          f"(numba cache {prov.get('numba_cache')}, compile/cache load {prov.get('compile_time_s')} s); "
          f"load average after: {loadavg()}")

    rows = []  # (metric, roofline, reference, ref_name, target)

    def add(metric, ours, ref, ref_name, target, unit):
        rows.append({"metric": metric, "roofline": ours, "reference": ref, "reference_tool": ref_name,
                     "ratio": (ours / ref) if (ours and ref) else None, "target": target, "unit": unit})

    have_likwid = shutil.which("likwid-bench") is not None
    flags = set(info.flags)
    if not have_likwid:
        print("likwid-bench not found (Debian: apt-get install likwid): likwid rows skipped")
    else:
        probe = likwid_run(likwid_variants("peakflops", flags)[0], "32kB")
        if probe is None:
            have_likwid = False
            print("likwid-bench is installed but did not run here: likwid rows skipped")
    for prec, base in (("fp64", "peakflops"), ("fp32", "peakflops_sp")):
        ours = single["compute"][prec]["flop_s"]
        ref, which = likwid_best(likwid_variants(base, flags), "32kB", args.repeat) if have_likwid else (None, "")
        add(f"{prec} FMA peak, 1 core", ours, ref, which, 0.95, "FLOP/s")
    levels = prov.get("levels", {})
    load = prov["sweep"]["load"]
    for name in ("L1", "L2", "L3", "DRAM"):
        if name not in single["memory"]:
            add(f"{name} load, 1 core", None, None, "level not found", 0.90 if name != "L3" else None, "B/s")
            continue
        ours = single["memory"][name]["bytes_s"]
        lo, hi = levels[name]["from_bytes"], levels[name]["to_bytes"]
        size = load["sizes_bytes"][-1] if name == "DRAM" else (lo * hi) ** 0.5
        ref, which = (likwid_best(likwid_variants("load", flags), likwid_size(size), args.repeat)
                      if have_likwid else (None, ""))
        add(f"{name} load, 1 core @ {likwid_size(size)}", ours, ref, which,
            None if name == "L3" else 0.90, "B/s")

    with tempfile.TemporaryDirectory() as tmp:
        exe, why = build_stream(Path(tmp))
        if exe is None:
            print(f"STREAM not built ({why}): triad rows skipped")
        elements = int(load["sizes_bytes"][-1] // 24)
        tri = arch["triad_bytes_s"]
        ours1 = tri["single_core"].get("DRAM")
        ref1 = stream_run(exe, elements, 1, 10) if exe else None
        add("DRAM triad, 1 thread", ours1, ref1, "stream.c", 0.90, "B/s")
        oursn = tri["all_cores"]["DRAM"]
        refn = stream_run(exe, elements, info.threads, 10) if exe else None
        add(f"DRAM triad, {info.threads} threads", oursn, refn, "stream.c", 0.90, "B/s")

    # never above theoretical
    theo_rows = []
    for k, c in dev.compute.items():
        theo_rows.append((f"{k} all cores", c.value, c.theoretical))
        one = single["compute"][k]
        theo_rows.append((f"{k} one core", one["flop_s"], one["theoretical_flop_s"]))
    for k, m in dev.memory.items():
        if m.bandwidth.theoretical:
            theo_rows.append((f"{k} all cores", m.bandwidth.value, m.bandwidth.theoretical))

    print(f"\nload average at the end: {loadavg()}\n")
    print(f"{'metric':34} {'roofline':>12} {'reference':>12} {'ratio':>7} {'target':>7}  reference kernel")
    failed = 0
    for r in rows:
        scale, unit = (1e9, "G" + r["unit"])
        ours = f"{r['roofline'] / scale:.1f}" if r["roofline"] else "n/a"
        ref = f"{r['reference'] / scale:.1f}" if r["reference"] else "n/a"
        ratio = f"{100 * r['ratio']:.1f}%" if r["ratio"] else "n/a"
        target = f">={100 * r['target']:.0f}%" if r["target"] else "-"
        ok = ""
        if r["ratio"] and r["target"]:
            ok = "ok" if r["ratio"] >= r["target"] else "LOW"
            failed += ok == "LOW"
        print(f"{r['metric']:34} {ours:>12} {ref:>12} {ratio:>7} {target:>7}  {r['reference_tool']} "
              f"[{unit}] {ok}")
    print(f"\ntheoretical bounds at the measured clock {dev.clocks_hz['core'] / 1e9:.2f} GHz "
          f"(FMA-implied clock {dev.clocks_hz.get('fma_implied', 0) / 1e9:.2f} GHz):")
    for name, v, t in theo_rows:
        flag = "ok" if v <= 1.02 * t else "ABOVE THEORETICAL"
        failed += flag != "ok"
        print(f"  {name:24} {v / 1e9:9.1f} of {t / 1e9:9.1f} G/s = {100 * v / t:5.1f}%  {flag}")
    for w in dev.warnings:
        print(f"  warning: {w}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "theoretical": theo_rows,
                                               "loadavg_end": loadavg()}, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
