"""Arguments and loading shared by several commands."""
from __future__ import annotations

import sys
from dataclasses import replace

DEVICE_HELP = ("device profile: a built-in name (see `roofline devices`; case, punctuation and a "
               "unique prefix or GPU model are enough, e.g. h100-sxm, 4090), a profile saved by "
               "`roofline measure` (e.g. my-cpu), or a path to a .yaml profile. Default: the GPU the "
               "file names (Nsight Compute, Nsight Systems, nvprof, Kineto), else its compute "
               "capability (Nsight Compute CSV), or my-cpu for a PyTorch CPU trace; stderr says which")


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


NETWORK_HELP = ("the scale-out network per GPU (one direction), the roof of collectives across nodes: "
                "ndr (InfiniBand 400 Gb/s), hdr (200), edr (100), xdr (800), or a rate such as 400Gb/s "
                "or 50GB/s. Default: the profile's scale_out_network, else the network of NVIDIA's "
                "reference system for the GPU, with a warning that it is assumed")


def add_network_argument(parser) -> None:
    parser.add_argument("--network", metavar="RATE", help=NETWORK_HELP)


def add_inputs_argument(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="kernels.csv, Nsight Compute CSV/.ncu-rep, nvprof, nsys (CSV/SQLite), "
                             "PyTorch/Kineto trace, rocprofv3 JSON/CSV, rocprof results.csv, a "
                             "rocprof-compute workload folder, TensorFlow/JAX .xplane.pb or "
                             ".trace.json.gz; the format is recognised from the content")
    add_input_format_argument(parser)
    parser.add_argument("--merge", action="store_true",
                        help="the files are passes of ONE run (e.g. ncu bytes pass + FLOP pass, or "
                             "nvprof --metrics + trace): merge their counters per kernel instead of "
                             "listing the kernels of every file")


# The readers' names, for --help (tests/test_cli_help.py holds it to the registry).
INPUT_FORMATS = ("kernels-csv, nsys-sqlite, nsys-stats-csv, nsys-rep, rocpd, rocprof-json, xplane, tf-trace-json, "
                 "kineto, ert, rocprofv3-json, rocprof-csv, rocprofv3-counter-csv, rocprofv3-stats-csv, "
                 "rocprof-description, rocprof-compute, ncu-rep, ncu-csv, nvprof, neutrino")


def add_input_format_argument(parser) -> None:
    parser.add_argument("--input-format", metavar="NAME",
                        help="read every input with this reader instead of recognising the format from "
                             f"the content (when the guess is wrong): {INPUT_FORMATS}")


def read_options(args):
    """The ReadOptions the command line asks for (and, on a terminal, a
    progress bar for a big file read in chunks)."""
    from ..importers.options import ReadOptions
    return ReadOptions(format=getattr(args, "input_format", None), quick_numba_load=True,
                       progress=ByteBar() if sys.stderr.isatty() else None)


class ByteBar:
    """A progress bar of bytes read on stderr, made when a file of at least
    :data:`BAR_ABOVE_BYTES` is being read (one bar per file)."""

    BAR_ABOVE_BYTES = 256 << 20

    def __init__(self):
        self.bar, self.done, self.total = None, 0, None

    def __call__(self, done: int, total: int | None) -> None:
        if self.bar is not None and (done < self.done or total != self.total):   # another file, or read again
            self.close()
        self.done, self.total = done, total
        if self.bar is None and (total or done) >= self.BAR_ABOVE_BYTES:
            from tqdm import tqdm
            self.bar = tqdm(total=total, unit="B", unit_scale=True, desc="reading", file=sys.stderr, leave=False)
        if self.bar is not None:
            self.bar.update(done - self.bar.n)
            if total is not None and done >= total:
                self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def load_inputs(paths, merge: bool = False, options=None):
    """(KernelSet, [ImportResult]) from profile files of any supported format;
    a folder of profiles (:mod:`roofline.importers.ranks.rank_rule`, rule 5) gives
    each of its files, read as if given by name."""
    from ..importers import read_profile
    from ..importers.options import DEFAULT
    from ..importers.results import merge_results
    options = options or DEFAULT
    results = []
    for p in paths:
        results += read_folder(p, options) if _is_files_folder(p) else [read_profile(p, options)]
    from ..importers.kineto.capture import join_captures
    results = join_captures(results, options)     # graph replays with their capture's work
    if merge:
        results = [merge_results(results)]
    if not any(len(r.kernels) for r in results):
        from ..core.errors import InputError
        raise InputError(", ".join(str(p) for p in paths), None, "no kernels in the file(s)")
    from ..core.import_result import all_kernels
    return all_kernels(results), results


def _is_files_folder(path) -> bool:
    from pathlib import Path

    from ..importers.ranks.rank_rule import FILES, folder_kind
    return Path(path).is_dir() and folder_kind(path) == FILES


def read_folder(folder, options=None) -> list:
    """The results of the files of a folder of profiles, each read as if
    given by name (its own warnings); a file no reader takes, and what the
    folder holds besides files, named in warnings of the folder (a result
    of its own with no kernels). A
    folder where no file can be read is one error naming each file and why."""
    from pathlib import Path

    from ..core.errors import Advice, InputError
    from ..importers import ImportResult, read_profile
    from ..importers.ranks.rank_rule import folder_files, folder_note, listed
    folder = Path(folder)
    files, others = folder_files(folder)
    results, refused = [], []
    for f in files:
        try:
            results.append(read_profile(f) if options is None else read_profile(f, options))
        except InputError as exc:        # not a profile, or a damaged one: said, the others still read
            refused.append((f, exc.detail))
    notes = [Advice(f"not read: {f} ({why})", "", subject="input") for f, why in refused]
    if others:
        notes.append(Advice(folder_note(folder, others), "", subject="input"))
    if not results:
        what = "; ".join(f"{f.name} ({why})" for f, why in refused) if refused else "no file at its top"
        more = f"; not read: {listed(others)}" if others else ""
        raise InputError(folder, None, f"no trace files and no profile a reader takes: {what}{more}")
    # the folder's own notes on a result of its own with no kernels: said of the folder, not of a file in it
    return ([ImportResult(str(folder), "folder", (), warnings=tuple(notes))] if notes else []) + results


def warn(command: str, advice) -> None:
    """Advice goes to stderr, one line each, so stdout stays machine-readable.
    A long kernel name as the subject is shortened (JSON/CSV keep it whole);
    characters that would act on the terminal are shown as escapes."""
    from ..render.terminal import visible
    subject = getattr(advice, "subject", "")
    if len(subject) > SUBJECT_WIDTH:
        from dataclasses import replace

        from ..core.families import strip_parameters
        short = strip_parameters(subject.removeprefix("void ").strip())
        if len(short) > SUBJECT_WIDTH:
            short = short[: SUBJECT_WIDTH - 1] + "…"
        advice = replace(advice, subject=short)
    print(visible(f"roofline {command}: warning: {advice}"), file=sys.stderr)


SUBJECT_WIDTH = 100


def warn_all(command: str, advices, limit: int = 6) -> None:
    """The first ``limit`` warnings, then how many more there were."""
    advices = list(dict.fromkeys(advices))
    for advice in advices[:limit]:
        warn(command, advice)
    if len(advices) > limit:
        print(f"roofline {command}: {len(advices) - limit} more warning(s) not shown "
              "(the JSON/CSV output is unaffected)", file=sys.stderr)


def find_any_device(name_or_path, command: str = "show"):
    """A device profile by name (as people type it) or path; an ERT
    ``roofline.json`` works too. A stand-in's note goes to stderr."""
    return choose_device(str(name_or_path), [], command)


def choose_device(requested, results, command: str, network: str | None = None):
    """The device profile: ``--device`` when given (warning once when the
    file names another GPU), else the GPU the file names, its compute
    capability, or my-cpu for a PyTorch CPU trace; with its collective link
    roofs (``network``: the ``--network`` rate). What was chosen and why
    goes to stderr, so stdout stays machine-readable."""
    from ..devices.choice import device_for
    from ..devices.links import parse_network, with_links
    from ..render.terminal import visible
    if network:
        parse_network(network)      # a bad rate fails before anything is read further
    choice = device_for(results, requested=requested)
    _host_times_on_a_gpu(results, choice.device)
    if choice.reason:
        print(visible(f"roofline {command}: using device profile {choice.profile} ({choice.reason})"),
              file=sys.stderr)
    for text in choice.warnings:
        warn(command, text)
    if choice.doubts:   # a stand-in, or figures of the file against the profile: in the report's banner too
        from ..devices.trust import with_choice_doubts
        choice = replace(choice, device=with_choice_doubts(choice.device, choice.doubts))
    banner = profile_banner(choice.device, results)
    if banner:   # once, before any per-kernel warning
        kind = "warning" if banner.startswith("These roofs may not hold") else "note"
        print(visible(f"roofline {command}: {kind}: device profile: {banner}"), file=sys.stderr)
    device = with_links(choice.device, network) if network or choice.device.links is None else choice.device
    if device.links is None and _has_sized_collectives(results):
        from ..devices.links import missing_links
        missing = missing_links(device)
        if missing:     # the rows say "no link roof"; this says what the profile lacks
            what = missing.split(": ", 1)[0] + (")" if "(" in missing.split(": ", 1)[0] else "")
            warn(command, f"links: collectives get no link roof on {device.name}: {what}; a profile "
                 "with the link's rate (architecture.scale_up_link) places them")
    return device


def _host_times_on_a_gpu(results, device) -> None:
    """Refuse a GPU profile for traces whose rows are CPU operators' host
    times: no GPU roof bounds them (one matmul of a trace that lost its
    kernel events sat at 6,529 % of an H100's roof); and a CPU profile for
    files of GPU kernels, whose times no CPU roof bounds either. Files of
    both kinds (a folder) are sorted by :func:`fitting_results`."""
    kinds = {r.device.kind for r in results if len(r.kernels)}
    wrong = _WRONG_KIND.get(device.kind)
    if results and wrong is not None and kinds == {wrong}:
        from ..core.errors import InputError
        first = next(r for r in results if len(r.kernels))
        raise InputError(str(first.path), None, _not_bounded(device, wrong))


# the kind of file whose rows a device's roofs do not bound
_WRONG_KIND = {"gpu": "cpu", "cpu": "gpu"}


def _not_bounded(device, kind: str) -> str:
    """Why ``device``'s roofs do not bound the rows of a file of ``kind``."""
    if kind == "cpu":
        return (f"a trace of CPU operators (host times, no GPU kernel events): {device.name}'s roofs "
                "do not bound them; place it on a CPU profile (my-cpu, or a profile YAML), or ask "
                "`roofline project FILE --to DEVICE` what it would take there")
    return (f"GPU kernels (the file's rows ran on a GPU): {device.name}'s CPU roofs do not bound "
            "them; place it on the GPU it ran on (leave --device out to have it chosen from the "
            "file, or name one: roofline devices), or ask `roofline project FILE --to DEVICE` "
            "what it would take on a CPU")


def fitting_results(results: list, device, command: str) -> list:
    """The results whose rows ``device``'s roofs can bound. Among files of
    both kinds (a folder holding a PyTorch CPU trace and GPU kernel files),
    each file of the other kind is refused by name with the reason one
    such file given alone gets (:func:`_host_times_on_a_gpu`), and the rest
    are read."""
    from ..core.errors import Advice
    wrong = _WRONG_KIND.get(device.kind)
    kept = []
    for r in results:
        if wrong is not None and r.device.kind == wrong and len(r.kernels):
            warn(command, Advice(f"not read: {r.path} ({_not_bounded(device, wrong)})", "", subject="input"))
        else:
            kept.append(r)
    return kept


def fitting(kernels, results: list, device, command: str):
    """(kernels, results) of :func:`fitting_results`: ``kernels`` as they
    were when no file was refused."""
    kept = fitting_results(results, device, command)
    if len(kept) == len(results):
        return kernels, results
    from ..core.import_result import all_kernels
    return all_kernels(kept), kept


def _has_sized_collectives(results) -> bool:
    """Whether any result holds a collective with a size (its ``comm:bus:`` bytes)."""
    return any(str(k).startswith("comm:bus:") for r in results for k in r.kernels.bytes)


def profile_banner(device, results) -> str:
    """Why ``device``'s roofs may not hold for ``results`` ("" when nothing
    says so): one statement (:mod:`roofline.devices.trust`)."""
    from ..devices.trust import doubts_for
    from ..render.report import banner_text
    return banner_text(doubts_for(device, results))
