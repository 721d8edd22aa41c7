"""Whether a folder given on the command line is one profiler's output (one
profile), a folder of rank traces (one trace per rank of one job) or a
folder of profiles read one by one, by a rule the user can read in
``--help`` and docs/formats.md:

1. ``pmc_perf.csv`` at the folder's top: a rocprof-compute workload (one
   GPU's folder, ``workloads/NAME/<GPU>/``).
2. ``probe.toml`` and a ``result/`` folder at its top: a Neutrino run.
3. Two or more trace files (``*.json``, ``*.json.gz``) at its top, not
   counting traces of graph captures (``capture`` in the name): a rank
   folder. Its other entries, subfolders and captures included, are not
   read, and a warning names them (a subfolder that is a profile is said
   to be one, with how to read it).
4. No trace file at its top and subfolders holding ``pmc_perf.csv``:
   rocprof-compute's ``workloads/NAME/`` (read when it holds one GPU's folder).
5. Any other folder (one trace or none, e.g. ``examples/``): a folder of
   profiles. Each file at its top is read as if given by name, with the
   same warnings; a file no reader takes is named in a warning with why;
   subfolders are not read, and a warning names them, except the trace
   files of a ``capture_traces/`` subfolder: where vLLM
   (``--profiler-config.capture_torch_profiler``) and SGLang
   (``--enable-profile-cuda-graph``) write the capture of the graphs the
   traces beside it replay, read as such. A folder of ranks holds ranks:
   one trace (with its captures) is no multi-rank job.

A folder that is both 1 or 2 and 3 is refused with one line saying how to
read either: which one was meant cannot be told from the files, and reading
one would drop the other without a word.

Only names and ``stat`` are looked at: nothing here opens a file.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from ...core.errors import InputError

TRACE_SUFFIXES = (".json", ".json.gz", ".pt.trace.json", ".pt.trace.json.gz")
PMC = "pmc_perf.csv"            # rocprof-compute's table of every dispatch (rocprof_compute.PMC)
ROCPROF_COMPUTE, NEUTRINO, RANKS = "rocprof-compute workload", "Neutrino run", "rank folder"
FILES = "folder of profiles"     # rule 5: each file read on its own
CAPTURE, CAPTURE_DIR = "capture", "capture_traces"     # graph captures: not ranks (rules 3 and 5)
# what vLLM and SGLang write beside their captures: each file's batch size and mode, no trace
CAPTURE_DETAILS = "execution_details.json"
SHOWN = 3                       # names listed in a message before "and N more"


def folder_kind(folder) -> str:
    """:data:`ROCPROF_COMPUTE`, :data:`NEUTRINO`, :data:`RANKS` or
    :data:`FILES` by the module's rule; an InputError for a folder that is a
    profile and holds traces at once."""
    folder = Path(folder)
    top = profile_at_top(folder)
    traces = trace_names(folder)
    if top and traces:
        marker = folder / (PMC if top == ROCPROF_COMPUTE else "probe.toml")
        raise InputError(folder, None, f"holds both {_count(len(traces), 'trace file')} ({listed(traces)}) "
                         f"and a {top} ({_markers(top)}) at its top: give {marker} to read the {top}, or "
                         "move the traces into a folder of their own to read them as ranks")
    if top:
        return top
    if not traces and gpu_folders(folder):
        return ROCPROF_COMPUTE
    return RANKS if len(traces) >= 2 else FILES


def folder_files(folder: Path) -> tuple[list[Path], list[str]]:
    """A folder of profiles (rule 5): its regular files at the top, sorted by
    name, after the traces of its ``capture_traces/`` subfolder; and the names of what is not read (subfolders, as ``name/`` or
    ``name/ (a <profile>)``; FIFOs and other special files)."""
    files, others = capture_files(folder)
    for e in sorted(_entries(folder), key=lambda e: e.name):
        path = Path(e.path)
        if _is(path, stat.S_ISREG):
            files.append(path)
        elif e.name == CAPTURE_DIR and _is(path, stat.S_ISDIR):
            continue                    # its traces are among the files
        elif _is(path, stat.S_ISDIR):
            kind = profile_at_top(path)
            others.append(f"{e.name}/ (a {kind})" if kind else f"{e.name}/")
        else:
            others.append(e.name)
    return files, others


def folder_note(folder: Path, others: list[str]) -> str:
    """One line naming what a folder of profiles did not read."""
    profiles = [n for n in others if n.endswith(")")]
    how = (f"; give {folder / profiles[0].split('/')[0]} on its own to read that profile" if profiles else "")
    return (f"{folder}: {_count(len(others), 'entry', 'entries')} not read ({listed(others)}): a folder of "
            f"profiles is read from the files at its top and the traces of {CAPTURE_DIR}/{how}")


def is_profile_folder(path) -> bool:
    """A folder not read as ranks: one profile (rule 1, 2 or 4) or a folder
    of profiles read file by file (rule 5)."""
    return Path(path).is_dir() and folder_kind(path) != RANKS


def profile_at_top(folder: Path) -> str | None:
    """The profile whose marker files are at the folder's own top, if any."""
    if _is(folder / PMC, stat.S_ISREG):
        return ROCPROF_COMPUTE
    if _is(folder / "probe.toml", stat.S_ISREG) and _is(folder / "result", stat.S_ISDIR):
        return NEUTRINO
    return None


def gpu_folders(folder: Path) -> list[str]:
    """Names of the subfolders holding pmc_perf.csv (rule 4)."""
    return [e.name for e in _entries(folder) if e.is_dir() and profile_at_top(Path(e.path)) == ROCPROF_COMPUTE]


def trace_names(folder: Path) -> list[str]:
    """Names at the folder's top that a rank folder reads, sorted: traces,
    not graph captures."""
    return sorted(e.name for e in _entries(folder) if _is_rank_trace(e.name))


def _is_rank_trace(name: str) -> bool:
    return name.endswith(TRACE_SUFFIXES) and not is_capture_name(name)


def is_capture_name(name: str) -> bool:
    """A trace of CUDA/HIP graph captures by its name (vLLM's
    ``graph_capture_rank_<R>.*``, a user's ``*capture*``): it replays
    nothing and is no rank."""
    return CAPTURE in name.lower()


def capture_files(folder: Path) -> tuple[list[Path], list[str]]:
    """The trace files of the folder's ``capture_traces/`` subfolder
    (sorted) and the names of its other entries, as ``capture_traces/x``."""
    sub = folder / CAPTURE_DIR
    if not _is(sub, stat.S_ISDIR):
        return [], []
    files, others = [], []
    for e in sorted(_entries(sub), key=lambda e: e.name):
        path = Path(e.path)
        if e.name.endswith(TRACE_SUFFIXES) and e.name != CAPTURE_DETAILS and _is(path, stat.S_ISREG):
            files.append(path)
        else:
            others.append(f"{CAPTURE_DIR}/{e.name}")
    return files, others


def skipped(folder: Path) -> list[str]:
    """Each entry of a rank folder that is not read, as its name with what
    it is when that matters: a subfolder that is a profile says so (the
    user may have meant it), other subfolders end in '/'."""
    out = []
    for e in sorted(_entries(folder), key=lambda e: e.name):
        if _is_rank_trace(e.name):
            continue
        try:
            is_dir = e.is_dir()
        except OSError:
            is_dir = False
        kind = profile_at_top(Path(e.path)) if is_dir else None
        out.append(f"{e.name}/ (a {kind})" if kind else f"{e.name}/" if is_dir else e.name)
    return out


def skipped_note(folder: Path, names: list[str]) -> str:
    """One line naming what a rank folder did not read."""
    profiles = [n for n in names if n.endswith(")")]
    how = (f"; give {folder / profiles[0].split('/')[0]} on its own to read that profile" if profiles else "")
    if any(is_capture_name(n) for n in names):
        how += ("; a graph capture (a name with 'capture') is no rank: give one rank's trace and its "
                "capture as two files to join them")
    return (f"{folder}: {_count(len(names), 'entry', 'entries')} not read ({listed(names)}): a rank folder "
            f"is read from its *.json and *.json.gz traces only{how}")


def listed(names: list[str]) -> str:
    more = len(names) - SHOWN
    return ", ".join(names[:SHOWN]) + (f" and {more} more" if more > 0 else "")


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _markers(kind: str) -> str:
    return PMC if kind == ROCPROF_COMPUTE else "probe.toml, result/"


def _entries(folder: Path) -> list:
    try:
        with os.scandir(folder) as it:
            return list(it)
    except OSError as exc:
        raise InputError(folder, None, f"cannot list this directory: {exc.strerror}") from None


def _is(path: Path, test) -> bool:
    """``test`` of the file's mode after links; False when it cannot be stat'ed."""
    try:
        return test(os.stat(path).st_mode)
    except OSError:
        return False
