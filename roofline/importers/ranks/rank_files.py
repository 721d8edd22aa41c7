"""Reading the per-rank profiles of one job, a batch of ranks per task.

Each task reads its files and reduces each to one row per kernel name
(:func:`summarise`), so a worker holds one rank at a time and only the
summaries come back. ``workers`` reads them on local processes
(:mod:`.rank_pool`); ``scheduler`` on a running ``dask.distributed``
cluster (:mod:`.rank_cluster`, needs ``pip install 'roofline[dask]'``);
otherwise they are read one after another here.
"""
from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from ...core.errors import Advice, InputError, RooflineError
from .rank_rule import RANKS, TRACE_SUFFIXES, folder_kind, skipped, skipped_note, trace_names  # noqa: F401

_RANK_IN_NAME = re.compile(r"(?:rank|node|worker)[_\-.]?(\d+)", re.IGNORECASE)
# ranks are numbered like torch.distributed's (a C int); a bigger number is
# not a rank, and would not fit the int64 columns the ranks go into
MAX_RANK = 2**31 - 1
SCHEDULER_TIMEOUT_S = 5.0
# a task reads about this share of the job's bytes: small enough that the
# workers finish together, big enough that tiny ranks do not each pay for a
# dispatch (10,000 one-kernel ranks took twice as long on 2 workers as on 1
# with one rank per task)
_BATCHES_PER_WORKER = 8


@dataclass(frozen=True)
class RankPart:
    """What one task sends back."""

    rank: int
    path: str
    summary: object            # KernelSet, one row per kernel name
    device_name: str | None
    warnings: tuple[str, ...]
    device_properties: object = None   # what the trace says of its GPU besides the name
    communication: object = None       # its collective launches (roofline.core.comm.CommLaunches)


@dataclass(frozen=True)
class Refused:
    """A task's InputError, sent back as data: the error class itself does not
    survive pickling (its constructor takes three arguments, its args one)."""

    path: str | None
    line: int | None
    detail: str

    def raise_it(self):
        raise InputError(self.path, self.line, self.detail)


def rank_files(paths) -> list[Path]:
    """The trace files of the given files and directories (a directory
    gives every ``*.json``/``*.json.gz`` in it, sorted). Each must be a
    regular file (after links): a FIFO would block the reader forever. A
    directory that is one profiler's output (:mod:`.rank_rule`) is refused:
    it is no rank of this job."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out += _listed(p)
        else:
            out.append(p)
    for f in out:
        _check_regular(f)
    return out


def skipped_notes(paths) -> list[Advice]:
    """One warning per rank folder among ``paths`` naming the entries it
    does not read (a subfolder that is a profile said to be one)."""
    notes = []
    for p in map(Path, paths):
        names = skipped(p) if p.is_dir() else []
        if names:
            notes.append(Advice(skipped_note(p, names), "", subject="ranks"))
    return notes


def _listed(folder: Path) -> list[Path]:
    kind = folder_kind(folder)
    if kind != RANKS:
        raise InputError(folder, None, f"a {kind}, not a folder of rank traces: read it in a command of its own")
    found = [folder / name for name in trace_names(folder)]
    if not found:
        names = skipped(folder)
        what = f" (it holds {', '.join(names[:3])}{' ...' if len(names) > 3 else ''})" if names else ""
        raise InputError(folder, None, f"no trace files (*.json, *.json.gz) in this directory{what}")
    return found


def _check_regular(path: Path) -> None:
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        what = ("a symbolic link loop" if exc.errno == errno.ELOOP else
                "a link to nothing" if path.is_symlink() else exc.strerror)
        raise InputError(path, None, f"{what}: expected a trace file") from None
    if not stat.S_ISREG(mode):
        raise InputError(path, None, f"{_kind(mode)}, not a regular file: expected a trace file")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a file"


def rank_from_name(path: Path) -> int | None:
    """The rank a file name gives; a number too big for a rank is part of
    some other name (a hash, a date) and gives none."""
    m = _RANK_IN_NAME.search(path.name)
    if not m or len(m.group(1)) > len(str(MAX_RANK)):   # int() of a huge digit run is slow
        return None
    rank = int(m.group(1))
    return rank if rank <= MAX_RANK else None


def summarise(ks):
    """One row per kernel name and operator (times, calls, FLOPs and bytes
    summed): what a rank's worker sends back. The operator keeps a kernel's
    calls with modelled work apart from its calls without (launched before
    the profiler's CPU window), as the rows of one trace are: summed
    together, their work would be set against all their time."""
    import numpy as np

    from ...core.aggregate import aggregate_set, factorize
    from ...core.model import carry_labels
    names, _ = factorize(ks.names)
    operators, known = factorize(ks.operators)
    _, first, inverse = np.unique(names * max(len(known), 1) + operators, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")      # groups in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    groups = (rank[inverse.ravel()], len(order))
    return carry_labels(ks, aggregate_set(ks, by="name", groups=groups), groups[0])


def read_rank(path: str) -> RankPart:
    """Read one rank's file and summarise it (runs in a worker). Whatever
    fails in it is an InputError naming the file (:func:`.read.reader_failure`)."""
    from ..read import reader_failure
    try:
        return _read_rank(path)
    except RooflineError:
        raise
    except Exception as exc:   # noqa: BLE001 - one line naming the file, in a worker too
        raise reader_failure(path, exc) from exc


def _read_rank(path: str) -> RankPart:
    from ..read import read_profile
    r = read_profile(path)
    rank = r.rank
    if rank is not None and not 0 <= rank <= MAX_RANK:
        raise InputError(path, None, f"distributedInfo rank {rank} is not a rank: "
                         f"expected a whole number from 0 to {MAX_RANK}")
    if rank is None:
        rank = rank_from_name(Path(path))
    return RankPart(-1 if rank is None else int(rank), str(path), summarise(r.kernels), r.device.name,
                    tuple(str(w) for w in r.warnings), r.device.properties, r.communication)


def read_batch(paths: list[str]) -> list[RankPart] | Refused:
    """One task: the ranks of these files, or why the first bad one was refused."""
    out = []
    for path in paths:
        try:
            out.append(read_rank(path))
        except InputError as exc:
            return Refused(exc.path, exc.line, exc.detail)
        except RooflineError as exc:   # not about one line of the file, but found reading it
            return Refused(path, None, str(exc))
    return out


def batches(files: list[str], workers: int) -> list[list[str]]:
    """The files in order, cut into runs of about equal bytes (a file bigger
    than a run is a run of its own)."""
    sizes = [_size(f) for f in files]
    limit = max(sum(sizes) / (_BATCHES_PER_WORKER * max(workers, 1)), 1)
    out, run, run_bytes = [], [], 0
    for f, size in zip(files, sizes):
        if run and run_bytes + size > limit:
            out.append(run)
            run, run_bytes = [], 0
        run.append(f)
        run_bytes += size
    return out + [run] if run else out


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:   # gone since it was listed: its reader will say so
        return 0


def read_ranks(paths, workers: int | None = None, scheduler: str | None = None,
               progress=None, timeout: float = SCHEDULER_TIMEOUT_S) -> tuple[list[RankPart], list[Advice]]:
    """Every rank's summary, in rank order, and advice on how they were read.
    ``timeout``: seconds to wait for the scheduler to answer and to have a worker."""
    files = [str(p) for p in rank_files(paths)]
    cluster: list[Advice] = []
    address = _cluster_address(scheduler, cluster)
    notes = skipped_notes(paths) + cluster
    if address:
        from .rank_cluster import on_cluster
        done = on_cluster(lambda threads: batches(files, threads), read_batch, address, timeout, progress)
    elif (workers or 1) > 1 and len(files) > 1:
        from .rank_pool import on_processes
        done = on_processes(batches(files, workers), read_batch, workers, progress)
    else:
        done = [_one_after_another(files, progress)]
        if len(files) > 1 and workers is None and not cluster:
            notes.append(Advice(f"{len(files)} ranks read one after another",
                                "--workers N reads them on N processes", subject="ranks"))
    # (a batch a worker refused was raised as it came back)
    return _numbered([p for batch in done for p in batch]), notes


def _cluster_address(scheduler: str | None, notes: list) -> str | None:
    """The scheduler's address, checked; None (and a note) without dask.distributed."""
    if scheduler is None:
        return None
    from .rank_cluster import check_address
    address = check_address(scheduler)
    try:
        import distributed  # noqa: F401
    except ImportError:
        notes.append(Advice("dask.distributed is not installed: the ranks were read one after another",
                            "pip install 'roofline[dask]' to read them on a cluster (--scheduler)",
                            subject="ranks"))
        return None
    return address


def _one_after_another(files: list[str], progress) -> list[RankPart]:
    parts = []
    for f in files:
        parts.append(read_rank(f))
        if progress:
            progress(1)
    return parts


def _numbered(parts: list[RankPart]) -> list[RankPart]:
    """Ranks from the traces or file names; files without one numbered in
    file order after the known ones. Two files of one rank is an error."""
    seen: dict[int, str] = {}
    for p in parts:
        if p.rank >= 0 and p.rank in seen:
            raise InputError(p.path, None, f"rank {p.rank} also comes from {seen[p.rank]}: "
                             "give the traces of one step of one job")
        if p.rank >= 0:
            seen[p.rank] = p.path
    nxt = max(seen, default=-1) + 1
    out = []
    for p in parts:
        if p.rank < 0:
            p = replace(p, rank=nxt)
            nxt += 1
        out.append(p)
    return sorted(out, key=lambda p: p.rank)
