"""Time the user's path on a BERT-size Kineto trace against json.loads of
the same file, in the same run, each in a fresh process:

    python benchmarks/kineto_speed.py --kernels 900000   # writes /tmp/bert_trace.json once

Prints seconds and peak RSS of: ``json.loads`` of the file, ``roofline
classify FILE --format csv``, ``roofline report FILE -o r.html``, and the
ratios the big-trace issue asks for (classify <= 0.25x json.loads,
report <= 1.5x classify, peak RSS < 1.5 GB).

``--shape five`` times a trace of another shape (five operators, 400-character
kernel names, spaces after separators; ``bert_trace.py``). ``--compare DIR``
times a second checkout of roofline (``git worktree add DIR <commit>``) in
the same run, each round running json.loads and both checkouts back to
back, ``--repeat`` rounds: on a loaded machine the spread of the rounds
says how far one ratio can be trusted::

    python benchmarks/kineto_speed.py --kernels 300000 --shape five --compare /tmp/base --repeat 3 --no-report
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bert_trace  # noqa: E402

JSON_LOADS = "import json, sys; json.loads(open(sys.argv[1], 'rb').read())"


def run(cmd: list[str], cwd: str | None = None, cpu: list | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS (bytes) of ``cmd`` in a fresh process
    (``cwd``: a checkout whose ``roofline`` package ``-m`` then imports);
    its CPU seconds (user + system) are appended to ``cpu`` when given (on
    a loaded machine they vary less than the wall time)."""
    with tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed:\n{err.read()[-2000:]}")
    if cpu is not None:
        cpu.append(usage.ru_utime + usage.ru_stime)
    return wall, usage.ru_maxrss * 1024.0   # Linux reports KiB


def compare(args, path: Path) -> None:
    """Rounds of json.loads and classify in this checkout and in ``--compare``."""
    py = sys.executable
    here = str(Path(__file__).resolve().parents[1])
    checkouts = [("this checkout", here), (f"{args.compare}", str(Path(args.compare).resolve()))]
    ratios: dict[str, list[float]] = {label: [] for label, _ in checkouts}
    cpu_ratios: dict[str, list[float]] = {label: [] for label, _ in checkouts}
    for i in range(args.repeat):
        cpu: list[float] = []
        loads, _ = run([py, "-c", JSON_LOADS, str(path)], cpu=cpu)
        line = [f"round {i + 1}: json.loads {loads:6.2f} s (cpu {cpu[0]:.2f})"]
        order = checkouts if i % 2 == 0 else checkouts[::-1]     # alternate who goes first
        for label, root in order:
            wall, rss = run([py, "-m", "roofline.cli.main", "classify", str(path), "--device", args.device,
                             "--format", "csv"], cwd=root, cpu=cpu)
            ratios[label].append(wall / loads)
            cpu_ratios[label].append(cpu[-1] / cpu[0])
            line.append(f"{label}: classify {wall:6.2f} s ({wall / loads:.3f}x; cpu {cpu[-1] / cpu[0]:.3f}x; "
                        f"RSS {rss / 1e9:.2f} GB)")
        print("; ".join(line), flush=True)
    for label, r in ratios.items():
        c = cpu_ratios[label]
        print(f"{label:32s} classify / json.loads wall: min {min(r):.3f} median {statistics.median(r):.3f} "
              f"max {max(r):.3f}; cpu: min {min(c):.3f} median {statistics.median(c):.3f} max {max(c):.3f} "
              "(target <= 0.25)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", type=int, default=900_000)
    ap.add_argument("--trace", default=None, help="trace path (default /tmp/<shape>_trace_<N>.json)")
    ap.add_argument("--device", default="a100-80gb-sxm")
    ap.add_argument("--shape", choices=sorted(bert_trace.SHAPES), default="bert")
    ap.add_argument("--compare", metavar="DIR", help="another roofline checkout to time in the same run")
    ap.add_argument("--repeat", type=int, default=1, help="rounds with --compare (default 1)")
    ap.add_argument("--no-report", action="store_true", help="time classify only")
    args = ap.parse_args()
    default = f"/tmp/bert_trace_{args.kernels}.json" if args.shape == "bert" else \
        f"/tmp/{args.shape}_trace_{args.kernels}.json"
    path = Path(args.trace or default)
    if not path.exists():
        print(f"writing {path} ({args.kernels:,} kernels, shape {args.shape}) ...", file=sys.stderr)
        bert_trace.write(str(path), args.kernels, shape=args.shape)
    if args.compare:
        compare(args, path)
        return
    size = path.stat().st_size
    py = sys.executable
    roofline = [py, "-m", "roofline.cli.main"]
    with tempfile.TemporaryDirectory() as tmp:
        rows = [("json.loads", [py, "-c", JSON_LOADS, str(path)]),
                ("roofline classify --format csv", roofline + ["classify", str(path), "--device",
                                                               args.device, "--format", "csv"]),
                ("roofline report -o r.html", roofline + ["report", str(path), "--device", args.device,
                                                          "-o", os.path.join(tmp, "r.html")])]
        if args.no_report:
            rows = rows[:2]
        results = {}
        for label, cmd in rows:
            wall, rss = run(cmd)
            results[label] = wall
            print(f"{label:32s} {wall:7.2f} s   peak RSS {rss / 1e9:5.2f} GB")
    loads, classify = results[rows[0][0]], results[rows[1][0]]
    print(f"file: {size / 1e6:.0f} MB, {args.kernels:,} kernels, shape {args.shape}")
    print(f"classify / json.loads = {classify / loads:.2f}  (target <= 0.25)")
    if not args.no_report:
        print(f"report / classify     = {results[rows[2][0]] / classify:.2f}  (target <= 1.5)")


if __name__ == "__main__":
    main()
