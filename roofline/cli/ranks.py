"""The multi-rank path of `classify` and `report`: a directory of traces
(one per rank of one job) read rank by rank, on Dask workers when asked."""
from __future__ import annotations

import json
from pathlib import Path

RANKS_HELP = """\
many ranks:
  give a directory of traces (one per rank of one job; the rank comes from the
  trace's distributedInfo, else from the file name, e.g. rank3.json.gz). Each
  rank is summarised by kernel name where it is read; --workers N reads ranks
  on N local processes and --scheduler ADDRESS on a running dask.distributed
  cluster (both need `pip install 'roofline[dask]'`). The output is per kernel
  family and rank, with the slowest rank and the spread across ranks.
"""


def add_rank_arguments(parser) -> None:
    from .common import positive_int
    parser.add_argument("--workers", type=positive_int, metavar="N",
                        help="ranks of a directory: read them on N local processes (needs roofline[dask])")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="ranks of a directory: read them on this dask.distributed scheduler")


def is_rank_job(paths) -> bool:
    return any(Path(p).is_dir() for p in paths)


def load_ranks(args):
    """(ImportResults, each row's rank, advice) of a directory of rank traces."""
    import numpy as np

    from ..importers import ImportResult
    from ..core.model import KernelRows
    from ..importers.rank_files import rank_files, read_ranks
    files = rank_files(args.files)
    bar = _bar(len(files))
    try:
        parts, notes = read_ranks(args.files, workers=args.workers, scheduler=args.scheduler,
                                  progress=bar.update if bar else None)
    finally:
        if bar:
            bar.close()
    results = [ImportResult(p.path, "rank", KernelRows(p.summary), device_name=p.device_name,
                            device_properties=p.device_properties, rank=p.rank) for p in parts]
    ranks = np.concatenate([np.full(len(p.summary), p.rank, dtype=np.int64) for p in parts])
    warnings = list(notes) + [f"rank {p.rank}: {w}" for p in parts for w in p.warnings[:3]]
    return results, ranks, warnings


def _bar(total: int):
    import sys
    if total < 4 or not sys.stderr.isatty():
        return None
    from tqdm import tqdm
    return tqdm(total=total, unit="rank", desc="reading ranks", file=sys.stderr, leave=False)


def classify_ranks(args, requested: str | None) -> str:
    """The per-family, per-rank table (or its CSV/JSON) of a rank directory."""
    from ..core.model import KernelSet
    from ..core.placement import place
    from ..core.aggregate import concat
    from ..analysis.ranks import family_rank_table, rank_spread
    from .common import warn_all
    results, ranks, warnings = load_ranks(args)
    from .common import choose_device
    device = choose_device(requested, results, "classify")
    sets = [r.kernels.columns for r in results]
    kernels = sets[0] if len(sets) == 1 else concat(sets)
    placements = place(kernels if isinstance(kernels, KernelSet) else kernels, device)
    warn_all("classify", warnings + list(placements.warnings))
    rows = family_rank_table(placements, ranks)
    spread = rank_spread(placements, ranks)
    records = [{"family": c.family, "rank": c.rank, "calls": c.calls, "time_s": c.time_s,
                "roofline_time_s": c.roofline_time_s, "fraction_of_roof": _num(c.fraction_of_roof),
                "bound": c.bound} for c in rows]
    if args.format == "json":
        return json.dumps({"ranks": [int(r) for r in spread.ranks], "slowest_rank": spread.slowest,
                           "spread": _num(spread.spread),
                           "kernel_time_s": [float(t) for t in spread.time_s],
                           "collectives_s": [float(t) for t in spread.collectives_s],
                           "families": records}, indent=1) + "\n"
    if args.format == "csv":
        import csv
        import io
        out = io.StringIO()
        w = csv.DictWriter(out, fieldnames=list(records[0]) if records else ["family"], lineterminator="\n")
        w.writeheader()
        w.writerows({k: ("" if v is None else v) for k, v in r.items()} for r in records)
        return out.getvalue()
    return _rank_text(rows, spread, args.top)


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
