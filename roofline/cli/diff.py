"""`roofline diff A B`: two runs of a program, or two device profiles."""
from __future__ import annotations

import argparse
from pathlib import Path

from .common import DEVICE_HELP, positive_int, warn

HELP = "compare two runs (time, share of roof, bound per kernel or family) or two device profiles"
EPILOG = """\
A and B are either two profiles of the same program (kernels.csv, ncu, nvprof,
nsys, Kineto; each is placed on the GPU its file names unless --device or
--device-b says otherwise) or two device profiles (built-in names, saved
names or .yaml paths): the kind is recognised from the arguments.

columns (runs):
  speed-up   time A / time B (above 1: B is faster)
  roof A/B   % of the roofline time: roofline time / measured time
  bound A/B  the class with the most time: compute, bandwidth (level),
             overhead or unknown (docs/concepts.md, "A group's bound")

examples:
  roofline diff baseline.csv tiled.csv --device v100-sxm2
  roofline diff v100_run.ncu-rep a100_run.ncu-rep --device v100-sxm2 --device-b a100-40gb-sxm
  roofline diff trace_a.json trace_b.json --device a100-80gb-sxm --by family
  roofline diff v100-sxm2 a100-40gb-sxm          ceilings side by side
"""


def add_parser(sub) -> None:
    p = sub.add_parser("diff", help=HELP, description=HELP, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="first profile, or first device profile")
    p.add_argument("b", metavar="B", help="second profile, or second device profile")
    p.add_argument("--device", "-d", metavar="NAME_OR_PATH", help=DEVICE_HELP + " (for A, and B by default)")
    p.add_argument("--device-b", metavar="NAME_OR_PATH", help="device of B when it ran elsewhere")
    p.add_argument("--by", choices=("name", "family"), default="name",
                   help="match kernels by name (default) or by family")
    p.add_argument("--format", "-f", choices=("table", "json"), default="table",
                   help="table (default): the largest changes; json: every matched kernel or family")
    p.add_argument("--top", type=positive_int, default=30, metavar="N",
                   help="table only: the N largest changes (default 30)")
    p.set_defaults(func=run)


def looks_like_device(arg: str) -> bool:
    """A .yaml path, or a name that is not a file and has no file suffix."""
    path = Path(arg)
    return path.suffix.lower() in (".yaml", ".yml") or (not path.exists() and not path.suffix)


def run(args) -> int:
    from ..analysis.diff import diff_devices, diff_placements
    from ..render.diff import diff_json, diff_table
    from ..core.errors import RooflineError
    from .common import find_any_device as find_device
    kinds = (looks_like_device(args.a), looks_like_device(args.b))
    if all(kinds):
        result = diff_devices(find_device(args.a, "diff"), find_device(args.b, "diff"))
    elif any(kinds):
        raise RooflineError(f"compare two profiles or two device profiles, not one of each "
                            f"({args.a!r} vs {args.b!r})")
    else:
        result = diff_placements(_place(args.a, args.device),
                                 _place(args.b, args.device_b or args.device), by=args.by)
    if args.format == "json":
        print(diff_json(result), end="")
    else:                   # names from the files, shown and not sent to the terminal
        from ..render.terminal import visible_lines
        print(visible_lines(diff_table(result, limit=args.top)), end="")
    return 0


def _place(path: str, requested: str | None):
    from ..core.placement import place
    from .common import choose_device, load_inputs
    kernels, results = load_inputs([path])
    device = choose_device(requested, results, "diff")
    placements = place(kernels, device)
    name = Path(path).name
    for advice in dict.fromkeys([w for r in results for w in r.warnings] + placements.warnings):
        text = str(advice)
        warn("diff", text if (str(path) in text or name in text) else f"{name}: {text}")
    return placements
