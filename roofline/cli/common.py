"""Arguments and loading shared by several commands."""
from __future__ import annotations

import sys

DEVICE_HELP = ("device profile: a built-in name (see `roofline devices`; case, punctuation and a "
               "unique prefix or GPU model are enough, e.g. h100-sxm, 4090), a profile saved by "
               "`roofline measure` (e.g. my-cpu), or a path to a .yaml profile. Default: the GPU the "
               "file names (Nsight Compute, Nsight Systems, nvprof, Kineto), or my-cpu for a PyTorch "
               "CPU trace")


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


def add_device_argument(parser, required: bool = False) -> None:
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
    """Advice goes to stderr, one line each, so stdout stays machine-readable.
    A long kernel name as the subject is shortened (JSON/CSV keep it whole)."""
    subject = getattr(advice, "subject", "")
    if len(subject) > SUBJECT_WIDTH:
        from dataclasses import replace

        from ..families import strip_parameters
        short = strip_parameters(subject.removeprefix("void ").strip())
        if len(short) > SUBJECT_WIDTH:
            short = short[: SUBJECT_WIDTH - 1] + "…"
        advice = replace(advice, subject=short)
    print(f"roofline {command}: warning: {advice}", file=sys.stderr)


SUBJECT_WIDTH = 100


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


def choose_device(requested, results, command: str):
    """The device profile: ``--device`` when given (warning once when the
    file names another GPU), else the GPU the file names, else my-cpu for a
    PyTorch CPU trace; what was chosen and why goes to stderr."""
    from ..errors import UnknownDeviceError
    reported = list(dict.fromkeys(r.device_name for r in results if r.device_name))
    if requested:
        device = find_any_device(requested)
        if reported and device.kind == "gpu":
            _warn_mismatch(command, reported[0], device, results)
        return device
    if reported:
        device, note = _device_named(reported[0])
        if device is None:
            raise UnknownDeviceError(
                f"{_first_path(results, reported[0])} names the GPU {reported[0]!r}, which has no "
                "built-in or saved profile: pass --device with the closest one (`roofline devices`) "
                "or a measured profile")
        print(f"roofline {command}: using device profile {_stem_or_name(device)} ({note})", file=sys.stderr)
        if len(reported) > 1:
            warn(command, f"the files name {len(reported)} GPUs ({', '.join(reported)}); "
                          f"{_stem_or_name(device)} is used for all (pass --device to choose)")
        return device
    if results and all(r.format == "kineto" for r in results):
        from ..profile import saved_profiles
        if "my-cpu" in saved_profiles():
            print(f"roofline {command}: using device profile my-cpu (a PyTorch trace without a GPU: "
                  "operators ran on this CPU's cores, as measured by `roofline measure`)", file=sys.stderr)
            return find_any_device("my-cpu")
        raise UnknownDeviceError("a PyTorch CPU trace: run `roofline measure` first to calibrate this CPU "
                                 "(it saves my-cpu), or pass --device")
    raise UnknownDeviceError("the file does not name its device: pass --device (see `roofline devices`)")


def _device_named(reported: str):
    from ..device_names import resolve_reported
    from ..profile import builtin_profiles, find_device, profile_names, saved_profiles
    saved = saved_profiles()
    names = profile_names({**builtin_profiles(), **saved})
    match = resolve_reported(reported, names)
    if match is None:
        return None, ""
    return find_device(match.stem), match.note


def _warn_mismatch(command: str, reported: str, device, results) -> None:
    from ..device_names import key, model_of
    chosen, _ = _device_named(reported)
    if chosen is not None and key(chosen.name) == key(device.name):
        return
    if chosen is None and model_of(reported) == model_of(device.name):
        return
    warn(command, f"{_first_path(results, reported)} names the GPU {reported!r} but --device gives "
                  f"{device.name!r}: the roofs are {device.name}'s")


def _first_path(results, reported: str) -> str:
    return next((r.path for r in results if r.device_name == reported), "the file")


def _stem_or_name(device) -> str:
    from ..profile import builtin_profiles, profile_names, saved_profiles
    from ..device_names import key
    for stem, shown in profile_names({**builtin_profiles(), **saved_profiles()}).items():
        if key(shown) == key(device.name):
            return stem
    return device.name