"""`roofline report`: an optimisation report as one HTML page (or Markdown)."""
from __future__ import annotations

import argparse

from .ranks import RANKS_HELP
from .common import add_device_argument, add_inputs_argument, read_options, warn

HELP = "write an HTML or Markdown report: bounds, families, variants, rooflines, overhead"
EPILOG = """\
The report has: a summary (total time, time by bound class, top kernels), a
table per kernel family, before/after tables and arrows for the variants of
a kernel, the cache-aware and hierarchical rooflines, the instruction
roofline when the profile has warp instruction counts, the overhead
breakdown (overhead-bound kernels and fixed costs, host API share, GPU idle
time, time per call against work) and every warning.

HTML is one self-contained file that opens with no network: an interactive
roofline (hover, zoom; a legend click hides a bound or isolates a family; a
slider keeps the kernels making up the top X % of the time; choose
precisions' roofs, a point per memory level, families, bounds or operators;
click to find a kernel's row), sortable and searchable tables, the other
charts embedded; Markdown
writes its charts as PNG files beside it (REPORT_roofline-cache-aware.png ...).
Traces of more than 2000 kernel rows are summed by name before plotting and
drawn as a density.

variants:
  rows with the same kernel name and different values in the `variant` column
  of kernels.csv are versions of one kernel; arrows join them in the order the
  variants first appear, or in the order --variants gives.

examples:
  roofline report examples/ece408_kernels.csv --device v100-sxm2 -o report.html
  roofline report traces/ --device h100-sxm --workers 2 -o job.html   # one trace per rank
  roofline report run.ncu-rep --device a100-40gb-sxm \\
      --variants baseline,constmem,tiled,double-buffer -o report.md
"""


def add_parser(sub) -> None:
    p = sub.add_parser("report", help=HELP, description=HELP, epilog=EPILOG + "\n" + RANKS_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_inputs_argument(p)
    add_device_argument(p)
    from .common import add_network_argument
    add_network_argument(p)
    from .ranks import add_rank_arguments
    add_rank_arguments(p)
    p.add_argument("-o", "--output", default="report.html", metavar="PATH",
                   help="report to write: .html (self-contained) or .md (PNGs beside it); default report.html")
    p.add_argument("--variants", metavar="A,B,...",
                   help="order of the variants to link with arrows (default: as they first appear)")
    p.add_argument("--title", help="report title (default: 'Roofline report')")
    p.add_argument("--top", type=int, default=15, metavar="N", help="list the N longest kernels (default 15)")
    p.set_defaults(func=run)


def run(args) -> int:
    import time
    from pathlib import Path

    from ..core.errors import InputError, RooflineError
    suffix = Path(args.output).suffix.lower()
    if suffix not in (".html", ".htm", ".md", ".markdown"):
        raise InputError(args.output, None, "expected an output file ending in .html or .md")
    check_output(Path(args.output))
    if args.top < 1:
        raise RooflineError(f"--top must be at least 1, not {args.top}")
    t0 = time.perf_counter()
    from ..report import build_report
    from .common import choose_device, fitting_results, load_inputs
    from .ranks import is_rank_job, load_ranks
    ranks = None
    if is_rank_job(args.files):
        if args.device:             # a wrong name fails before the ranks are read
            from ..devices.choice import device_for
            device_for([], requested=args.device)
        results, ranks, notes = load_ranks(args)
        for note in notes:
            warn("report", note)
    else:
        _, results = load_inputs(args.files, merge=args.merge, options=read_options(args))
    device = choose_device(args.device, results, "report", getattr(args, "network", None))
    results = fitting_results(results, device, "report")
    report = build_report(results, device, variants=args.variants, title=args.title, top=args.top,
                          row_ranks=ranks)
    for advice in report.warnings():
        warn("report", advice)
    written = report.save(args.output)
    extra = f" and {len(written) - 1} image(s)" if len(written) > 1 else ""
    from ..render.terminal import visible
    print(visible(f"wrote {args.output}{extra} ({len(report.placements):,} kernel rows on {device.name}, "
                  f"{time.perf_counter() - t0:.1f} s)"))
    return 0


def check_output(path) -> None:
    """Refuse, before anything is read or written, an output the report
    could not be saved to: a directory (for Markdown, its PNGs' names too:
    ``<stem>_<chart>.png`` beside it), or a parent that is no directory.
    What only the write can tell (a full disk) is still said by the write."""
    from ..core.errors import InputError
    if path.is_dir():
        raise InputError(path, None, "is a directory: give the report's file name, e.g. "
                         f"{path / ('report' + (path.suffix or '.html'))}")
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise InputError(path, None, f"{parent} is not a directory: the report cannot be written there")
    if path.suffix.lower() in (".md", ".markdown") and parent.is_dir():
        import glob
        taken = sorted(p for p in parent.glob(glob.escape(path.stem) + "_*.png") if p.is_dir())
        if taken:
            raise InputError(taken[0], None, "is a directory where the Markdown report writes a chart: "
                             "move it, or give another report name")
