"""Time the user's path on Kineto traces of four shapes against json.loads
of the same file, in the same round, each command in a fresh process:

    python benchmarks/kineto_speed.py --kernels 900000            # every shape, files in /tmp
    python benchmarks/kineto_speed.py --kernels 300000 --shape five long --repeat 3
    python benchmarks/kineto_speed.py --kernels 300000 --compare /tmp/base --repeat 3
    ROOFLINE_REALDATA=../shared/realdata python benchmarks/kineto_speed.py --shape replay --replay-kernels 100000

Shapes (``bert_trace.py``): ``bert`` (a BERT layer, compact JSON), ``five``
(five operators, 400-character kernel names, spaces after separators) and
``long`` (operators with long shape lists: a few KB of arguments per
kernel; at 900,000 kernels the file is about 3.8 GB), and ``replay``, generated
differently: a real trace's events repeated (python_function events, 30
events a kernel, one key a line; ``--replay-kernels``, default 100,000
kernels: 1.1 GB). Each trace is written once to /tmp/<shape>_trace_<N>.json.
The three synthetic shapes run by default; replay needs ``ROOFLINE_REALDATA``.

Prints, per round and shape: json.loads's seconds, CPU seconds and peak
RSS; ``roofline classify FILE --format csv``'s, with its ratio to
json.loads (target <= 0.1) and its peak RSS against the file's size
(target < 1). ``--compare DIR`` times a second checkout of roofline
(``git worktree add DIR <commit>``) in the same rounds, alternating which
goes first: on a loaded machine the spread of ``--repeat`` rounds says how
far one ratio can be trusted. ``--workers 1 2`` also times the reader alone
in one and in two processes (classify takes two only where the load
average leaves a core free). Where json.loads of the whole file would not
fit in the memory the machine has free (about 10x the file), it is timed on
the events array in parts that fit (``JSON_LOADS_PARTS``: a reference that
can only be faster than the whole). ``--report`` also times ``roofline
report`` once. Bytecode is compiled before anything is timed (``fresh_process``).
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bert_trace  # noqa: E402
from fresh_process import compile_checkout, run  # noqa: E402

JSON_LOADS = "import json, sys; json.loads(open(sys.argv[1], 'rb').read())"
# the reader alone in one or two processes (ReadOptions.workers), whatever the load average says
READ = ("import sys; from roofline.importers import kineto; from roofline.importers.options import ReadOptions; "
        "kineto.read(sys.argv[1], ReadOptions(workers=int(sys.argv[2])))")
# json.loads of a Kineto trace holds about 10x the file in dicts (12 GB for the 1.26 GB long shape at
# 300k kernels): past what the machine has free (the 3.8 GB long shape at 900k) the traceEvents array is
# given to json.loads in parts that fit, each cut after an event (a cut json.loads refuses moves back to an
# earlier one), and the parts' times are added: the same bytes parsed into the same objects, with less for
# the garbage collector to walk than in one call, so the reference can only be faster than the whole.
LOADS_MEMORY_PER_BYTE = 10
JSON_LOADS_PARTS = """
import json, re, sys, time
path, part = sys.argv[1], int(sys.argv[2])
boundary = re.compile(rb"\\}[ \\t\\r\\n]*,[ \\t\\r\\n]*\\{")
spent, parts = 0.0, 0
with open(path, "rb") as f:
    head = f.read(1 << 20)
    start = head.index(b"[", head.index(b'"traceEvents"')) + 1
    f.seek(start)
    rest = b""
    while True:
        data = rest + f.read(part)
        last = not data or len(data) < part
        cuts = [m.start() + 1 for m in boundary.finditer(data)] if not last else [data.rindex(b"]")]
        for cut in reversed(cuts[-50:]):
            t0 = time.perf_counter()
            try:
                events = json.loads(b"[" + data[:cut] + b"]")
            except ValueError:
                continue
            spent += time.perf_counter() - t0
            parts += 1
            del events
            rest = data[cut:].lstrip().lstrip(b",")
            break
        else:
            raise SystemExit("no cut of a part after an event decodes")
        if last:
            break
print(spent, parts)
"""


def available_memory() -> int:
    """MemAvailable (Linux), in bytes; a very large number elsewhere."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 1 << 62


def trace_path(shape: str, kernels: int) -> Path:
    """The trace of ``shape`` at ``kernels`` kernels, written once."""
    path = Path(f"/tmp/{shape}_trace_{kernels}.json")
    if not path.exists():
        print(f"writing {path} ({kernels:,} kernels, shape {shape}) ...", file=sys.stderr, flush=True)
        bert_trace.write(str(path), kernels, shape=shape)
    return path


def classify(path: Path, device: str) -> list[str]:
    return [sys.executable, "-m", "roofline.cli.main", "classify", str(path), "--device", device, "--format", "csv"]


def kernels_of(args, shape: str) -> int:
    return args.replay_kernels if shape == "replay" else args.kernels


def rounds(args, checkouts: list[tuple[str, str]]) -> dict:
    """Each round, for each shape: json.loads, then classify in every
    checkout (alternating who goes first); the ratios per (shape, checkout)."""
    ratios: dict = {}
    for i in range(args.repeat):
        for shape in args.shape:
            kernels = kernels_of(args, shape)
            path = trace_path(shape, kernels)
            size = path.stat().st_size
            if size * LOADS_MEMORY_PER_BYTE < available_memory():
                loads, loads_cpu, loads_rss = run([sys.executable, "-c", JSON_LOADS, str(path)])
                print(f"round {i + 1}, {shape} ({size / 1e6:.0f} MB, {kernels:,} kernels): json.loads "
                      f"{loads:6.2f} s (cpu {loads_cpu:.2f} s, peak RSS {loads_rss / 1e9:.2f} GB)", flush=True)
            else:
                part = int(available_memory() / (2 * LOADS_MEMORY_PER_BYTE))
                loads, parts = loads_in_parts(path, part)
                loads_cpu = loads
                print(f"round {i + 1}, {shape} ({size / 1e6:.0f} MB, {kernels:,} kernels): json.loads "
                      f"{loads:6.2f} s in {parts} parts of at most {part / 1e6:.0f} MB (whole, it would need about "
                      f"{size * LOADS_MEMORY_PER_BYTE / 1e9:.0f} GB; {available_memory() / 1e9:.0f} GB free)",
                      flush=True)
            order = checkouts if i % 2 == 0 else checkouts[::-1]
            for label, root in order:
                wall, cpu, rss = run(classify(path, args.device), cwd=root)
                ratios.setdefault((shape, label), []).append((wall / loads, cpu / loads_cpu, rss / size, wall))
                print(f"  {label}: classify {wall:6.2f} s = {wall / loads:.3f}x json.loads (cpu {cpu:.2f} s = "
                      f"{cpu / loads_cpu:.3f}x); peak RSS {rss / 1e9:.2f} GB = {rss / size:.2f}x the file",
                      flush=True)
            for workers in args.workers:
                wall, cpu, rss = run([sys.executable, "-c", READ, str(path), str(workers)], cwd=here())
                ratios.setdefault((shape, f"read, {workers} process(es)"), []).append(
                    (wall / loads, cpu / loads_cpu, rss / size, wall))
                print(f"  this checkout, kineto.read in {workers} process(es): {wall:6.2f} s = {wall / loads:.3f}x "
                      f"json.loads (cpu {cpu:.2f} s); peak RSS {rss / 1e9:.2f} GB (the largest process)", flush=True)
    return ratios


def loads_in_parts(path: Path, part: int) -> tuple[float, int]:
    """(seconds json.loads took over the traceEvents array in parts of at
    most ``part`` bytes, parts), in a fresh process."""
    out = subprocess.run([sys.executable, "-c", JSON_LOADS_PARTS, str(path), str(part)], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), int(out[1])


def here() -> str:
    return str(Path(__file__).resolve().parents[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", type=int, default=900_000)
    ap.add_argument("--device", default="a100-80gb-sxm")
    ap.add_argument("--shape", nargs="+", choices=sorted(bert_trace.SHAPES), default=["bert", "five", "long"])
    ap.add_argument("--replay-kernels", type=int, default=100_000,
                    help="kernels of the replay shape (default 100,000: 1.1 GB, as 900,000 of bert)")
    ap.add_argument("--compare", metavar="DIR", help="another roofline checkout to time in the same rounds")
    ap.add_argument("--repeat", type=int, default=1, help="rounds (default 1)")
    ap.add_argument("--report", action="store_true", help="also time roofline report on the first shape")
    ap.add_argument("--workers", type=int, nargs="*", default=[], choices=[1, 2],
                    help="also time this checkout's reader alone (kineto.read) in 1 and/or 2 processes, "
                         "whatever the load average says (classify reads in two only where a core is free)")
    args = ap.parse_args()
    checkouts = [("this checkout", here())]
    if args.compare:
        checkouts.append((args.compare, str(Path(args.compare).resolve())))
    for _, root in checkouts:
        compile_checkout(root)
    ratios = rounds(args, checkouts)
    print("classify / json.loads of the same file, same round (target <= 0.1); peak RSS / file size (target < 1):")
    for (shape, label), r in ratios.items():
        wall, cpu, rss, seconds = zip(*r)
        print(f"  {shape:5s} {label:24s} wall: min {min(wall):.3f} median {statistics.median(wall):.3f} "
              f"max {max(wall):.3f} ({statistics.median(seconds):.2f} s); cpu: median {statistics.median(cpu):.3f}; "
              f"RSS/file: max {max(rss):.2f}")
    if args.report:
        path = trace_path(args.shape[0], kernels_of(args, args.shape[0]))
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, "-m", "roofline.cli.main", "report", str(path), "--device", args.device,
                   "-o", os.path.join(tmp, "r.html")]
            wall, _, rss = run(cmd)
            print(f"roofline report -o r.html ({args.shape[0]}): {wall:.2f} s, peak RSS {rss / 1e9:.2f} GB")


if __name__ == "__main__":
    main()
