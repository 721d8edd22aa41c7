"""Arguments and loading shared by several commands."""
from __future__ import annotations

import sys

DEVICE_HELP = ("device profile: a built-in name (see `roofline devices`), a profile saved "
               "by `roofline measure` (e.g. my-cpu), or a path to a .yaml profile")


def positive_int(text: str) -> int:
    """argparse type: a whole number >= 1."""
    import argparse
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, not {text!r}")
    return value


def add_device_argument(parser, required: bool = True) -> None:
    parser.add_argument("--device", "-d", required=required, metavar="NAME_OR_PATH", help=DEVICE_HELP)


def add_inputs_argument(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="kernels.csv, Nsight Compute CSV/.ncu-rep, nvprof, nsys (CSV/SQLite) "
                             "or PyTorch/Kineto trace; the format is recognised from the content")
    parser.add_argument("--merge", action="store_true",
                        help="the files are passes of ONE run (e.g. ncu bytes pass + FLOP pass, or "
                             "nvprof --metrics + trace): merge their counters per kernel instead of "
                             "listing the kernels of every file")


def load_inputs(paths, merge: bool = False):
    """(KernelSet, [ImportResult]) from profile files of any supported format."""
    from ..importers import read_profile
    from ..importers.results import merge_results
    from ..model import KernelSet
    results = [read_profile(p) for p in paths]
    if merge:
        results = [merge_results(results)]
    if not any(len(r.kernels) for r in results):
        from ..errors import InputError
        raise InputError(", ".join(str(p) for p in paths), None, "no kernels in the file(s)")
    return kernel_columns(results), results


def kernel_columns(results):
    """One KernelSet of the kernels of several import results, taking the
    columns of readers that produce them instead of building objects."""
    from ..model import KernelRows, KernelSet
    from ..plot_density import concat
    sets = [r.kernels.columns if isinstance(r.kernels, KernelRows) else KernelSet.from_kernels(r.kernels)
            for r in results if len(r.kernels)]
    return sets[0] if len(sets) == 1 else concat(sets)


def warn(command: str, advice) -> None:
    """Advice goes to stderr, one line each, so stdout stays machine-readable."""
    print(f"roofline {command}: warning: {advice}", file=sys.stderr)


def warn_all(command: str, advices, limit: int = 6) -> None:
    """The first ``limit`` warnings, then how many more there were."""
    advices = list(dict.fromkeys(advices))
    for advice in advices[:limit]:
        warn(command, advice)
    if len(advices) > limit:
        print(f"roofline {command}: {len(advices) - limit} more warning(s) not shown "
              "(the JSON/CSV output is unaffected)", file=sys.stderr)


def find_any_device(name_or_path):
    """A device profile by name or path; an ERT ``roofline.json`` works too."""
    from pathlib import Path

    from ..profile import find_device
    if Path(str(name_or_path)).suffix.lower() == ".json":
        from ..importers.ert import read_ert_device
        return read_ert_device(name_or_path)
    return find_device(name_or_path)
