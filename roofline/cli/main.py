"""`roofline` entry point: builds the parser from the command modules and
turns the package's one error family into a one-line message and exit 2."""
from __future__ import annotations

import argparse
import sys

from ..core.errors import RooflineError

DESCRIPTION = """\
Roofline performance modeling: calibrate a device, read profiler outputs,
and see whether each kernel is compute-, bandwidth- or overhead-bound.

typical use:
  roofline measure --quick                   calibrate this machine (CPU if no GPU)
  roofline plot kernels.csv --device v100-sxm2 -o roofline.png
  roofline classify profile.ncu-rep --device a100-40gb-sxm --format json
  roofline report trace.json.gz --device a100-40gb-sxm -o report.html
  roofline devices                           built-in and saved device profiles
"""


def _command_modules():
    from . import classify, devices, diff, import_, plot, report
    modules = [plot, classify, report, import_, diff, devices]
    try:
        from . import measure
        modules.insert(0, measure)
    except ImportError:  # measure ships with the CPU backend
        pass
    return modules


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="roofline", description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    from .._version import __version__
    parser.add_argument("--version", action="version", version=f"roofline {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except RooflineError as exc:   # messages quote names and cells of the input: shown, not sent
        from ..render.terminal import visible_lines
        print(visible_lines(f"roofline {args.command}: error: {exc}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"roofline {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `roofline classify ... | head`
        return 0
    except OSError as exc:   # standard output that cannot take the result (> /dev/full, a full disk)
        if exc.filename is None:
            print(f"roofline {args.command}: error: cannot write the output: {exc.strerror}", file=sys.stderr)
            return 1
        raise


if __name__ == "__main__":
    sys.exit(main())
