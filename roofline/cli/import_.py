"""`roofline import`: any supported profile to kernels.csv or JSON."""
from __future__ import annotations

import argparse

from .common import add_input_format_argument, read_options, warn

HELP = "convert a profiler output to kernels.csv (or JSON)"


def add_parser(sub) -> None:
    p = sub.add_parser("import", help=HELP, description=HELP + ". The format is recognised "
                       "from the content.", formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="examples:\n  roofline import report.ncu-rep -o kernels.csv\n"
                              "  roofline import trace.json.gz --format json")
    p.add_argument("file", metavar="FILE",
                   help="a profile in any supported format (ncu, nvprof, nsys, rocprof, PyTorch/Kineto, XPlane, "
                        "kernels.csv ...); the format is read from the content, not the name")
    add_input_format_argument(p)
    p.add_argument("-o", "--output", metavar="PATH", help="write here (default: standard output)")
    p.add_argument("--format", "-f", choices=("csv", "json"), default=None,
                   help="default: from the output extension (.csv or .json), csv without -o or "
                        "an extension; any other extension needs --format")
    p.set_defaults(func=run)


def run(args) -> int:
    import json
    from ..core.atomic import write_text_atomic
    from ..importers import read_profile
    from ..importers.kernels_csv import format_kernels
    fmt = output_format(args.output, args.format)
    result = read_profile(args.file, read_options(args))
    for advice in result.warnings:
        warn("import", advice)
    if fmt == "json":
        text = json.dumps([_kernel_json(k) for k in result.kernels], indent=1) + "\n"
    else:
        text = format_kernels(result.kernels)
    if args.output:
        write_text_atomic(args.output, text)
        import sys
        n = len(result.kernels)
        print(f"wrote {args.output} ({n:,} kernel row{'s' if n != 1 else ''}, {fmt})", file=sys.stderr)
    else:
        print(text, end="")
    return 0


EXTENSIONS = {".csv": "csv", ".json": "json"}


def output_format(output: str | None, requested: str | None) -> str:
    """--format when given, else the output's extension; an extension no
    writer knows (x.xml) is an error rather than CSV under that name."""
    from pathlib import Path

    from ..core.errors import RooflineError
    suffix = Path(output or "").suffix.lower()
    if requested or not suffix:
        return requested or "csv"
    if suffix not in EXTENSIONS:
        raise RooflineError(f"{output}: cannot tell the format from {suffix!r}: name the file "
                            f"{' or '.join(EXTENSIONS)}, or pass --format csv or --format json")
    return EXTENSIONS[suffix]


def _kernel_json(k) -> dict:
    import math
    return {"name": k.name, "count": k.count,
            "time_s": None if math.isnan(k.time_s) else k.time_s,
            "flops": dict(k.flops), "bytes": dict(k.bytes), "family": k.family or None,
            "instructions": k.instructions, "transactions": dict(k.transactions),
            "variant": k.variant or None,
            "modelled": k.modelled, "operator": k.operator or None}
