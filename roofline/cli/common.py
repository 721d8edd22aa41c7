"""Arguments and loading shared by several commands."""
from __future__ import annotations

import sys

DEVICE_HELP = ("device profile: a built-in name (see `roofline devices`), a profile saved "
               "by `roofline measure` (e.g. my-cpu), or a path to a .yaml profile")


def add_device_argument(parser, required: bool = True) -> None:
    parser.add_argument("--device", "-d", required=required, metavar="NAME_OR_PATH", help=DEVICE_HELP)


def add_inputs_argument(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="kernels.csv, Nsight Compute CSV/.ncu-rep, nvprof, nsys (CSV/SQLite) "
                             "or PyTorch/Kineto trace; the format is recognised from the content")


def load_inputs(paths):
    """(KernelSet, [ImportResult]) from profile files of any supported format."""
    from ..importers import read_profile
    from ..model import KernelSet
    results = [read_profile(p) for p in paths]
    kernels = [k for r in results for k in r.kernels]
    return KernelSet.from_kernels(kernels), results


def warn(command: str, advice) -> None:
    """Advice goes to stderr, one line each, so stdout stays machine-readable."""
    print(f"roofline {command}: warning: {advice}", file=sys.stderr)
