"""How well `roofline project` predicts a trace on another device, checked
against a real trace of the same model recorded there.

    python benchmarks/projection.py ../shared/realdata/pairs [FOLDER ...]

A folder holds traces of one model on two devices (two files), or several
models' (files whose names differ in one ``__``-separated part, the
device: ``X__h100__model.json.gz`` and ``X__mi300__model.json.gz``). For
every pair, both directions, the command users run
(``roofline project SOURCE --to TARGET --format json``) is checked against
the target trace's measured time (GPU kernel time: memcpy and memset left
out; on CPU traces the operators' self time), with the whole-trace rules
people use computed in the same run: the trace x the HBM ratio, x the BF16
matrix peak ratio, and per class (GEMM-like families x the BF16 ratio, the
rest x the HBM ratio).

By default each pair is projected with kernel floors and library
efficiencies observed on the OTHER pairs' traces only
(tools/observe_devices.py into a temporary file): leave one model out, so
no pair is checked against figures taken from itself. ``--shipped`` uses
devices/observations/gpus.yaml instead (in-sample for the traces it was
written from).
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from itertools import combinations
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
GEMM_LIKE = {"gemm", "implicit_gemm", "explicit_gemm", "winograd", "fft", "conv_custom", "convolution",
             "attention"}
COPIES = {"memcpy", "memset"}


def pairs_in(folder: Path) -> list[tuple[Path, Path]]:
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    if len(files) == 2:
        return [(files[0], files[1])]
    out = []
    for a, b in combinations(files, 2):
        pa, pb = a.name.split("__"), b.name.split("__")
        if len(pa) == len(pb) and sum(x != y for x, y in zip(pa, pb)) == 1:
            out.append((a, b))
    return out


def trace_facts(path: Path) -> dict:
    """The trace's device, measured time and family times, as classify reads it."""
    from roofline.cli.common import choose_device, load_inputs
    kernels, results = load_inputs([str(path)])
    device = choose_device(None, results, "benchmark")
    counted = ~np.isin(kernels.families, list(COPIES))
    families: dict[str, float] = {}
    for family, t in zip(kernels.families[counted].tolist(), kernels.time_s[counted].tolist()):
        if math.isfinite(t):
            families[family] = families.get(family, 0.0) + t
    return {"device": device, "measured": float(np.nansum(kernels.time_s[counted])), "families": families}


def project_cli(source: Path, target_name: str, observed: Path | None) -> dict:
    command = [sys.executable, "-c", "import sys; from roofline.cli.main import main; sys.exit(main())",
               "project", str(source), "--to", target_name, "--format", "json"]
    if observed is not None:
        command += ["--observed", str(observed)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"roofline project failed on {source}:\n{done.stderr}")
    return json.loads(done.stdout)


def observe(traces: list[Path], out: Path) -> Path:
    subprocess.run([sys.executable, str(ROOT / "tools" / "observe_devices.py"), *map(str, traces),
                    "-o", str(out)], check=True, capture_output=True, cwd=ROOT)
    return out


def baselines(src: dict, dst: dict) -> dict:
    """The whole-trace rules, projected totals."""
    a, b = src["device"], dst["device"]
    hbm = a.bandwidth("DRAM") / b.bandwidth("DRAM")
    bf16 = a.compute_rate("tensor_bf16") / b.compute_rate("tensor_bf16")
    gemm = sum(t for f, t in src["families"].items() if f in GEMM_LIKE)
    rest = src["measured"] - gemm
    return {"x HBM ratio": src["measured"] * hbm, "x BF16 peak ratio": src["measured"] * bf16,
            "per class, datasheet": gemm * bf16 + rest * hbm}


def err(projected: float, measured: float) -> float:
    return projected / measured - 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--shipped", action="store_true",
                        help="use the shipped observations instead of leaving each pair's model out")
    parser.add_argument("--evidence", nargs="*", type=Path, default=[],
                        help="real traces of other models (not in any pair) observed beside the other pairs' "
                             "in every leave-one-model-out run, e.g. ../shared/realdata/kineto_trace/*.json.gz")
    args = parser.parse_args(argv)
    pairs = [p for folder in args.folders for p in pairs_in(folder)]
    if not pairs:
        raise SystemExit("no pairs found")
    facts = {path: trace_facts(path) for pair in pairs for path in pair}
    rows, tmp = [], Path(tempfile.mkdtemp(prefix="projection-bench-"))
    for k, pair in enumerate(pairs):
        others = [p for q in pairs if q is not pair for p in q] + list(args.evidence)
        observed = None if args.shipped or not others else observe(others, tmp / f"observed-{k}.yaml")
        for source, target in (pair, pair[::-1]):
            src, dst = facts[source], facts[target]
            out = project_cli(source, dst["device"].name, observed)
            low, high = out["interval_s"]
            rows.append({"source": source.name, "from": src["device"].name, "to": dst["device"].name,
                         "measured": dst["measured"], "projected": out["projected_time_s"], "low": low,
                         "high": high, "baselines": baselines(src, dst), "families": out["families"],
                         "dst_families": dst["families"], "src_measured": src["measured"]})
    report(rows, "shipped observations (in-sample for their traces)" if args.shipped
           else "leave one model out: floors and library efficiencies observed on the other pairs only")
    return 0


def report(rows: list[dict], mode: str) -> None:
    print(f"# roofline project against measured traces ({mode})\n")
    names = list(rows[0]["baselines"])
    print("| pair | direction | source ms | measured ms | projected ms | 80 % interval ms | error | inside | "
          + " | ".join(names) + " |")
    print("|---|---|---|---|---|---|---|---|" + "---|" * len(names))
    errors, inside, base_errors = [], 0, {n: [] for n in names}
    for r in rows:
        e = err(r["projected"], r["measured"])
        ok = r["low"] <= r["measured"] <= r["high"]
        errors.append(abs(e))
        inside += ok
        cells = []
        for n in names:
            be = err(r["baselines"][n], r["measured"])
            base_errors[n].append(abs(be))
            cells.append(f"{be:+.1%}")
        print(f"| {r['source'][:48]} | {r['from']} -> {r['to']} | {r['src_measured'] * 1e3:.2f} | "
              f"{r['measured'] * 1e3:.2f} | {r['projected'] * 1e3:.2f} | {r['low'] * 1e3:.2f} .. "
              f"{r['high'] * 1e3:.2f} | {e:+.1%} | {'yes' if ok else 'NO'} | " + " | ".join(cells) + " |")
    print(f"\nprojection: mean |error| {np.mean(errors):.1%}, worst {np.max(errors):.1%}, "
          f"80 % interval held {inside} of {len(rows)}")
    for n in names:
        print(f"baseline {n}: mean |error| {np.mean(base_errors[n]):.1%}, worst {np.max(base_errors[n]):.1%}")
    print("\nfamilies with >= 5 % of the target's measured time:\n")
    print("| pair | direction | family | measured ms | projected ms | 80 % interval ms | error | inside |")
    print("|---|---|---|---|---|---|---|---|")
    held = total = 0
    for r in rows:
        for family, measured in sorted(r["dst_families"].items(), key=lambda kv: -kv[1]):
            if measured < 0.05 * r["measured"]:
                continue
            got = r["families"].get(family)
            if got is None:
                print(f"| {r['source'][:48]} | {r['from']} -> {r['to']} | {family} | {measured * 1e3:.2f} | "
                      "- | - | no such family in the source | - |")
                continue
            lo, hi = got["interval_s"]
            ok = lo <= measured <= hi
            held, total = held + ok, total + 1
            print(f"| {r['source'][:48]} | {r['from']} -> {r['to']} | {family} | {measured * 1e3:.2f} | "
                  f"{got['projected_time_s'] * 1e3:.2f} | {lo * 1e3:.2f} .. {hi * 1e3:.2f} | "
                  f"{err(got['projected_time_s'], measured):+.1%} | {'yes' if ok else 'NO'} |")
    print(f"\nfamily intervals held {held} of {total}")
    calibration(rows)


def z_score(measured: float, projected: float, low: float, high: float) -> float:
    """ln(measured / projected) in units of the interval's sigma on that
    side (the interval is projected x exp(+-1.28 sigma) for one row)."""
    edge = high if measured >= projected else low
    sigma = abs(math.log(edge / projected)) / 1.2815515655446004
    return math.log(measured / projected) / sigma if sigma > 0 else math.inf


def calibration(rows: list[dict]) -> None:
    """How wide the intervals are against the errors: for a calibrated 80 %
    interval, |z| <= 1.28 for about 80 % of cases and RMS z is about 1."""
    for label, cases in (("totals", [(r["measured"], r["projected"], r["low"], r["high"]) for r in rows]),
                         ("families (all sizes, both in source and target)",
                          [(m, r["families"][f]["projected_time_s"], *r["families"][f]["interval_s"])
                           for r in rows for f, m in r["dst_families"].items()
                           if f in r["families"] and m > 0 and r["families"][f]["projected_time_s"]])):
        z = np.array([z_score(*c) for c in cases])
        print(f"\ncalibration, {label}: {len(z)} cases, RMS z {math.sqrt(np.mean(z ** 2)):.2f}, "
              f"|z| <= 1.28 in {np.mean(np.abs(z) <= 1.2816):.0%}; z: " + " ".join(f"{v:+.2f}" for v in z))


if __name__ == "__main__":
    sys.exit(main())
