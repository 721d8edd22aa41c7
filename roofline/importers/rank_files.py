"""Reading the per-rank profiles of one job, one rank per task.

Each task reads one file and reduces it to one row per kernel name
(:func:`summarise`), so a worker holds one rank at a time
and only the summaries come back. With Dask installed
(``pip install 'roofline[dask]'``) the tasks run on local processes
(``workers``) or on a running ``dask.distributed`` scheduler
(``scheduler``); without it they run one after another here.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import Advice, InputError

_RANK_IN_NAME = re.compile(r"(?:rank|node|worker)[_\-.]?(\d+)", re.IGNORECASE)
TRACE_SUFFIXES = (".json", ".json.gz", ".pt.trace.json", ".pt.trace.json.gz")


@dataclass(frozen=True)
class RankPart:
    """What one task sends back."""

    rank: int
    path: str
    summary: object            # KernelSet, one row per kernel name
    device_name: str | None
    warnings: tuple[str, ...]
    device_properties: object = None   # what the trace says of its GPU besides the name


def rank_files(paths) -> list[Path]:
    """The trace files of the given files and directories (a directory
    gives every ``*.json``/``*.json.gz`` in it, sorted)."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.is_file() and f.name.endswith(TRACE_SUFFIXES))
            if not found:
                raise InputError(p, None, "no trace files (*.json, *.json.gz) in this directory")
            out += found
        else:
            out.append(p)
    return out


def rank_from_name(path: Path) -> int | None:
    m = _RANK_IN_NAME.search(path.name)
    return int(m.group(1)) if m else None


def summarise(ks):
    """One row per kernel name (times, calls, FLOPs and bytes summed): what
    a rank's worker sends back."""
    from ..core.aggregate import aggregate_set
    return aggregate_set(ks, by="name")


def read_rank(path: str) -> RankPart:
    """One task: read one rank's file and summarise it (runs in a worker)."""
    from .read import read_profile
    from ..core.model import KernelSet
    r = read_profile(path)
    rank = r.rank if getattr(r, "rank", None) is not None else rank_from_name(Path(path))
    ks = r.kernels.columns if hasattr(r.kernels, "columns") else KernelSet.from_kernels(r.kernels)
    return RankPart(-1 if rank is None else int(rank), str(path), summarise(ks), r.device_name,
                    tuple(str(w) for w in r.warnings), getattr(r, "device_properties", None))


def read_ranks(paths, workers: int | None = None, scheduler: str | None = None,
               progress=None) -> tuple[list[RankPart], list[Advice]]:
    """Every rank's summary, in rank order, and advice on how they were read."""
    files = [str(p) for p in rank_files(paths)]
    notes: list[Advice] = []
    if scheduler or (workers or 1) > 1:
        try:
            import dask  # noqa: F401
        except ImportError:
            notes.append(Advice("dask is not installed: the ranks were read one after another",
                                "pip install 'roofline[dask]' to read them in parallel (--workers N)",
                                subject="ranks"))
            scheduler, workers = None, 1
    if scheduler:
        parts = _on_cluster(files, scheduler)
    elif (workers or 1) > 1:
        parts = _on_processes(files, workers)
    else:
        parts = []
        for f in files:
            parts.append(read_rank(f))
            if progress:
                progress(1)
        if len(files) > 1 and workers is None:
            notes.append(Advice(f"{len(files)} ranks read one after another",
                                "--workers N reads them on N processes (needs roofline[dask])",
                                subject="ranks"))
    return _numbered(parts), notes


def _on_processes(files: list[str], workers: int) -> list[RankPart]:
    import dask
    import dask.bag as db
    bag = db.from_sequence(files, npartitions=len(files)).map(read_rank)
    # forked workers start with roofline already imported (spawned ones
    # would import it again, about a second each)
    context = "fork" if sys.platform.startswith("linux") else "spawn"
    with dask.config.set({"multiprocessing.context": context}):
        # chunksize=1: a task is a whole rank; Dask's default batches 6 tasks
        # per dispatch, which gave one of 2 workers 6 of 8 ranks (1.26x
        # instead of 1.98x with 2 workers on 2 cores)
        return bag.compute(scheduler="processes", num_workers=workers, chunksize=1)


def _on_cluster(files: list[str], address: str) -> list[RankPart]:
    from dask.distributed import Client
    with Client(address) as client:
        return client.gather(client.map(read_rank, files, pure=False))


def _numbered(parts: list[RankPart]) -> list[RankPart]:
    """Ranks from the traces or file names; files without one numbered in
    file order after the known ones. Two files of one rank is an error."""
    known = [p.rank for p in parts if p.rank >= 0]
    dupes = sorted({r for r in known if known.count(r) > 1})
    if dupes:
        same = [p.path for p in parts if p.rank == dupes[0]]
        raise InputError(same[1], None, f"rank {dupes[0]} also comes from {same[0]}: "
                         "give the traces of one step of one job")
    nxt = max(known, default=-1) + 1
    out = []
    for p in parts:
        if p.rank < 0:
            p = RankPart(nxt, p.path, p.summary, p.device_name, p.warnings, p.device_properties)
            nxt += 1
        out.append(p)
    return sorted(out, key=lambda p: p.rank)
