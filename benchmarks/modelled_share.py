"""Share of a trace's kernel time that gets work (FLOPs or bytes, from
counters or a model), and why the rest gets none, per file; with
``--compare DIR`` the same counting by another roofline checkout (``git
worktree add DIR <commit>``) beside it::

    python benchmarks/modelled_share.py ../shared/realdata/kineto_trace/*.json.gz --compare /tmp/base

For each file: kernel time, the share with work, the share of
communication kernels and how much of that has a message size (``comm:``
bytes), and the kernel time without work summed by its ``why`` (the
reason column of ``classify``; empty in checkouts that predate it).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def shares(paths: list[str]) -> dict:
    """The shares of each file, by the roofline package on ``sys.path``."""
    from roofline.importers import read_profile
    out = {}
    for f in paths:
        total = worked = comm = comm_sized = 0.0
        left: dict[str, float] = defaultdict(float)
        for k in read_profile(f).kernels:
            t = 0.0 if math.isnan(k.time_s) else k.time_s
            total += t
            if any(v > 0 for v in k.flops.values()) or any(v > 0 for v in k.bytes.values()):
                worked += t
            else:
                why = getattr(k, "why", "") or ("dispatch (modelled: no work of its own)"
                                                if getattr(k, "modelled", False) else "(no reason given)")
                left[why] += t
            if k.family == "communication":
                comm += t
                comm_sized += t if any(lv.startswith("comm:") and v > 0 for lv, v in k.bytes.items()) else 0.0
        out[Path(f).name] = {"kernel_s": total, "with_work": worked / total if total else None,
                             "communication": comm / total if total else None,
                             "communication_sized": comm_sized / comm if comm else None,
                             "left": {w: t / total for w, t in sorted(left.items(), key=lambda x: -x[1])}
                             if total else {}}
    return out


def _pct(x) -> str:
    return "   -  " if x is None else f"{100 * x:5.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    parser.add_argument("--compare", metavar="DIR", help="another roofline checkout, counted the same way")
    parser.add_argument("--json", action="store_true", help="print the shares as JSON (internal)")
    args = parser.parse_args()
    if args.json:                     # the roofline on PYTHONPATH (the --compare checkout)
        print(json.dumps(shares(args.files)))
        return
    sys.path.insert(0, str(REPO))
    after = shares(args.files)
    before = None
    if args.compare:
        other = str(Path(args.compare).resolve())
        run = subprocess.run([sys.executable, __file__, "--json", *map(str, map(Path.resolve, map(Path, args.files)))],
                             capture_output=True, text=True, check=True, cwd=other,
                             env={**os.environ, "PYTHONPATH": other})
        before = json.loads(run.stdout)
    for name, a in after.items():
        was = f"{_pct(before[name]['with_work'])} -> " if before else ""
        print(f"{name[:70]:70s} kernel {a['kernel_s'] * 1e3:9.2f} ms  with work {was}{_pct(a['with_work'])}  "
              f"communication {_pct(a['communication'])} (sized {_pct(a['communication_sized'])})")
        for why, share in list(a["left"].items())[:6]:
            print(f"      no work {_pct(share)}  {why}")


if __name__ == "__main__":
    main()
