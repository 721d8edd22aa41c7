"""Time the user's path on a BERT-size Kineto trace against json.loads of
the same file, in the same run, each in a fresh process:

    python benchmarks/kineto_speed.py --kernels 900000   # writes /tmp/bert_trace.json once

Prints seconds and peak RSS of: ``json.loads`` of the file, ``roofline
classify FILE --format csv``, ``roofline report FILE -o r.html``, and the
ratios the big-trace issue asks for (classify <= 0.25x json.loads,
report <= 1.5x classify, peak RSS < 1.5 GB).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bert_trace  # noqa: E402

JSON_LOADS = "import json, sys; json.loads(open(sys.argv[1], 'rb').read())"


def run(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (bytes) of ``cmd`` in a fresh process."""
    with tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed:\n{err.read()[-2000:]}")
    return wall, usage.ru_maxrss * 1024.0   # Linux reports KiB


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", type=int, default=900_000)
    ap.add_argument("--trace", default=None, help="trace path (default /tmp/bert_trace_<N>.json)")
    ap.add_argument("--device", default="a100-80gb-sxm")
    args = ap.parse_args()
    path = Path(args.trace or f"/tmp/bert_trace_{args.kernels}.json")
    if not path.exists():
        print(f"writing {path} ({args.kernels:,} kernels) ...", file=sys.stderr)
        bert_trace.write(str(path), args.kernels)
    size = path.stat().st_size
    py = sys.executable
    roofline = [py, "-m", "roofline.cli.main"]
    with tempfile.TemporaryDirectory() as tmp:
        rows = [("json.loads", [py, "-c", JSON_LOADS, str(path)]),
                ("roofline classify --format csv", roofline + ["classify", str(path), "--device",
                                                               args.device, "--format", "csv"]),
                ("roofline report -o r.html", roofline + ["report", str(path), "--device", args.device,
                                                          "-o", os.path.join(tmp, "r.html")])]
        results = {}
        for label, cmd in rows:
            wall, rss = run(cmd)
            results[label] = wall
            print(f"{label:32s} {wall:7.2f} s   peak RSS {rss / 1e9:5.2f} GB")
    loads, classify, report = (results[k] for k, _ in rows)
    print(f"file: {size / 1e6:.0f} MB, {args.kernels:,} kernels")
    print(f"classify / json.loads = {classify / loads:.2f}  (target <= 0.25)")
    print(f"report / classify     = {report / classify:.2f}  (target <= 1.5)")


if __name__ == "__main__":
    main()
