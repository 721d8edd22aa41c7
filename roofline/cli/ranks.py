"""The multi-rank path of `classify` and `report`: a directory of traces
(one per rank of one job) read rank by rank, on local processes or a
dask.distributed cluster when asked."""
from __future__ import annotations

import json
import sys
from pathlib import Path

RANKS_HELP = """\
many ranks:
  give a directory of traces (one per rank of one job; the rank comes from the
  trace's distributedInfo, else from the file name, e.g. rank3.json.gz). Each
  rank is summarised by kernel name where it is read; --workers N reads ranks
  on N local processes and --scheduler ADDRESS (tcp://HOST:PORT) on a running
  dask.distributed cluster (needs `pip install 'roofline[dask]'`). The output
  is per kernel family and rank, with the slowest rank and the spread across
  ranks. A reader's failure on any rank is one error naming its file.

  A folder is one profile, not ranks, only by the files at its top:
  pmc_perf.csv (a rocprof-compute workload), or probe.toml with result/ (a
  Neutrino run); a folder with no *.json/*.json.gz at its top whose
  subfolders hold pmc_perf.csv is rocprof-compute's workloads/NAME. A folder
  with two or more *.json/*.json.gz at its top, not counting graph captures
  (a name with "capture"), is a rank folder: those are the ranks, and a
  warning names every other entry it did not read (subfolders too, saying
  which are profiles). Any other folder (one trace or none, e.g. examples/)
  is a folder of profiles: each file at its top is read as if given by name,
  with its warnings, and a file no reader takes is named in a warning; the
  traces of its capture_traces/ subfolder (where vLLM and SGLang write the
  capture of the CUDA graphs a step replays) are read too, and replays take
  their captured launches' work. A folder with traces and a profile's files both at its
  top is refused: give DIR/pmc_perf.csv or DIR/probe.toml to read the
  profile, or move the traces to a folder of their own.
"""


def add_rank_arguments(parser) -> None:
    from .common import positive_int
    from ..importers.ranks.rank_files import SCHEDULER_TIMEOUT_S
    parser.add_argument("--workers", type=positive_int, metavar="N",
                        help="ranks of a directory: read them on N local processes")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="ranks of a directory: read them on this dask.distributed scheduler "
                             "(tcp://HOST:PORT)")
    parser.add_argument("--scheduler-timeout", type=_seconds, metavar="S", default=SCHEDULER_TIMEOUT_S,
                        help="seconds to wait for the scheduler to answer and to have a worker "
                             f"(default {SCHEDULER_TIMEOUT_S:g})")


def _seconds(text: str) -> float:
    """argparse type: a duration in seconds, more than 0 and at most a day."""
    import argparse
    import math
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 86400:
        raise argparse.ArgumentTypeError(f"expected seconds (more than 0, at most 86400), not {text!r}")
    return value


def is_rank_job(paths) -> bool:
    """A folder of rank traces among the inputs (a profiler's own output
    folder is one profile)."""
    from ..importers.read import is_profiler_folder
    return any(Path(p).is_dir() and not is_profiler_folder(p) for p in paths)


def load_ranks(args):
    """(ImportResults, each row's rank, advice) of a directory of rank traces."""
    import numpy as np

    from ..core.import_result import DeviceClues, ImportResult
    from ..importers.ranks.rank_files import SCHEDULER_TIMEOUT_S, rank_files, read_ranks, skipped_notes
    files = rank_files(args.files)
    skipped = skipped_notes(args.files)     # read_ranks is given the files: it cannot name them
    bar = _LazyBar(len(files))
    try:   # Ctrl-C and SIGTERM (cli.main makes it raise) stop the workers on the way out
        parts, notes = read_ranks(files, workers=args.workers, scheduler=args.scheduler,
                                  progress=bar.update,
                                  timeout=getattr(args, "scheduler_timeout", SCHEDULER_TIMEOUT_S))
    finally:
        bar.close()
    results = [ImportResult(p.path, "rank", p.summary, rank=p.rank, communication=p.communication,
                            device=DeviceClues(name=p.device_name, properties=p.device_properties))
               for p in parts]
    ranks = np.concatenate([np.full(len(p.summary), p.rank, dtype=np.int64) for p in parts])
    warnings = skipped + list(notes) + [f"rank {p.rank}: {w}" for p in parts for w in p.warnings[:3]]
    return results, ranks, warnings


class _LazyBar:
    """A progress bar on a terminal, made at the first update: tqdm starts a
    monitor thread, and the workers are forked before that."""

    def __init__(self, total: int):
        self.total, self.bar = total, None

    def update(self, n: int) -> None:
        if self.bar is None and self.total >= 4 and sys.stderr.isatty():
            from tqdm import tqdm
            self.bar = tqdm(total=self.total, unit="rank", desc="reading ranks", file=sys.stderr, leave=False)
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def classify_ranks(args, requested: str | None) -> str:
    """The per-family, per-rank table (or its CSV/JSON) of a rank directory."""
    from ..core.model import KernelSet
    from ..core.placement import place
    from ..core.aggregate import concat
    from ..analysis.ranks import family_rank_table, rank_spread
    from .common import warn_all
    results, ranks, warnings = load_ranks(args)
    from .common import choose_device
    device = choose_device(requested, results, "classify", getattr(args, "network", None))
    sets = [r.kernels for r in results]
    kernels = sets[0] if len(sets) == 1 else concat(sets)
    placements = place(kernels if isinstance(kernels, KernelSet) else kernels, device)
    warn_all("classify", warnings + list(placements.warnings))
    rows = family_rank_table(placements, ranks)
    spread = rank_spread(placements, ranks)
    records = [{"family": c.family, "rank": c.rank, "calls": c.calls, "time_s": c.time_s,
                "roofline_time_s": c.roofline_time_s, "fraction_of_roof": _num(c.fraction_of_roof),
                "bound": c.bound} for c in rows]
    comm = _communication(results)
    if args.format == "json":
        return json.dumps({"ranks": [int(r) for r in spread.ranks], "slowest_rank": spread.slowest,
                           "spread": _num(spread.spread),
                           "kernel_time_s": [float(t) for t in spread.time_s],
                           "collectives_s": [float(t) for t in spread.collectives_s],
                           "communication": comm, "families": records}, indent=1) + "\n"
    if args.format == "csv":
        import csv
        import io
        out = io.StringIO()
        w = csv.DictWriter(out, fieldnames=list(records[0]) if records else ["family"], lineterminator="\n")
        w.writeheader()
        w.writerows({k: ("" if v is None else v) for k, v in r.items()} for r in records)
        return out.getvalue()
    return _rank_text(rows, spread, args.top) + _communication_text(comm)


def _communication(results) -> list[dict]:
    """Per rank: its collective kernels' time, the part no compute kernel
    overlaps (exposed) and the time it waited in collectives for the other
    ranks (roofline.analysis.collectives)."""
    from ..analysis.collectives import exposed_rows, rank_waits, wait_by_rank
    launches = {r.rank: r.communication for r in results}
    launches = {k: v for k, v in launches.items() if v is not None}
    waited = wait_by_rank(rank_waits(launches)) if len(launches) > 1 else {}
    return [{"rank": x.rank, "communication_s": x.comm_s, "exposed_s": x.exposed_s,
             "waiting_s": waited.get(x.rank)} for x in exposed_rows(launches)]


def _communication_text(rows: list[dict]) -> str:
    if not rows:
        return ""
    from ..core.units import format_si
    lines = ["", "communication per rank (exposed: not overlapped by compute; waiting: in collectives, "
             "for the other ranks)", f"{'rank':>4}  {'collectives':>11}  {'exposed':>9}  {'waiting':>9}"]
    for r in rows:
        wait = "-" if r["waiting_s"] is None else format_si(r["waiting_s"], "s")
        lines.append(f"{r['rank']:>4}  {format_si(r['communication_s'], 's'):>11}  "
                     f"{format_si(r['exposed_s'], 's'):>9}  {wait:>9}")
    return "\n".join(lines) + "\n"


def _num(x):
    import math
    return float(x) if x is not None and math.isfinite(x) else None


def _rank_text(rows, spread, top: int) -> str:
    from ..core.units import format_si
    lines = [f"{len(spread.ranks)} ranks; slowest: rank {spread.slowest} "
             f"({format_si(float(spread.time_s.max()), 's')} of kernel time, "
             f"+{100 * spread.spread:.1f}% over the median {format_si(spread.median_s, 's')}); "
             f"collectives {100 * float(spread.collectives_s.sum()) / max(float(spread.time_s.sum()), 1e-300):.1f}%"
             " of kernel time", ""]
    table = [("family", "rank", "calls", "time", "% of roof", "main bound")]
    for c in rows[: top * max(1, len(spread.ranks))]:
        roof = "n/a" if c.fraction_of_roof != c.fraction_of_roof else f"{100 * c.fraction_of_roof:.0f}%"
        table.append((c.family, str(c.rank), f"{c.calls:,}", format_si(c.time_s, "s"), roof, c.bound))
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    for j, r in enumerate(table):
        lines.append("  ".join(v.ljust(w) if i in (0, 5) else v.rjust(w)
                               for i, (v, w) in enumerate(zip(r, widths))).rstrip())
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"
