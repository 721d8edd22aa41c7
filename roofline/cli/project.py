"""`roofline project`: what a trace would take on another device, row by
row, with 80 % intervals and the basis of each figure."""
from __future__ import annotations

import argparse

from .common import add_inputs_argument, warn_all

HELP = "project a trace onto another device: time per kernel, family and in total, with intervals"
EPILOG = """\
Each row of the trace is placed on the rooflines of both devices and moved
by what its evidence supports (docs/concepts.md, "Projection"):

  matrix rows      their work on the target's matching matrix unit, at the
                   efficiency each GPU's libraries were observed to reach
                   (devices/observations/gpus.yaml); carried as is where one GPU has
                   no observation (wider interval)
  unaligned GEMMs  operands whose row strides are no multiple of 16 bytes run
                   older-GPU kernels on sm_90+ NVIDIA targets: at the share of
                   the roof such kernels were observed to reach there
  bandwidth rows   their bytes on the target's same level, at the source's
                   share of the roof
  short kernels    the source's kernel floor is taken off and the target's
                   put on (the least a kernel takes on each GPU); a launch
                   of fewer blocks than SMs/CUs gets the roof of the SMs it fills
  rows w/o work    the ratio of a twin (same kernel and launch, with work),
                   else of their family, else of the trace

Every row has an 80 % interval from what is uncertain about it; the totals
combine them. "at roof" is the time if every kernel reached --share of its
roof on the target: what tuning could buy there. memcpy and memset rows are
projected but left out of the totals (a trace's GPU kernel time).

examples:
  roofline project trace.json.gz --to mi300x
  roofline project trace.json.gz --from h100-sxm --to b200 --format json > b200.json
  roofline project cpu_trace.json --to ../shared/cpu-sweeps/zen3.yaml --format csv
  roofline project traces/ --to b200 --workers 2      # a folder of rank traces: summed over ranks
  roofline project trace.json.gz --to mi300x -o mi300x.html   # a report: charts, tables, evidence
"""


def add_parser(sub) -> None:
    p = sub.add_parser("project", help=HELP, description=HELP, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_inputs_argument(p)
    p.add_argument("--to", "-t", required=True, metavar="NAME_OR_PATH",
                   help="the device to project onto: a built-in profile name (roofline devices), a "
                        "saved profile (my-cpu) or a profile YAML")
    p.add_argument("--from", "-d", "--device", dest="device", metavar="NAME_OR_PATH",
                   help="the device the trace was recorded on (default: chosen as classify chooses it, "
                        "from the names and figures in the file)")
    p.add_argument("--share", type=float, default=0.8, metavar="S",
                   help="the share of its roof each kernel reaches in the 'at roof' answer (default 0.8)")
    p.add_argument("--observed", metavar="YAML",
                   help="kernel floors and library efficiencies observed on real traces (default: the "
                        "shipped devices/observations/gpus.yaml; write your own from your traces with "
                        "tools/observe_devices.py)")
    p.add_argument("--format", "-f", choices=("table", "csv", "json"), default="table",
                   help="output format (default: table; csv and json list every row)")
    p.add_argument("--top", type=int, default=15, metavar="N",
                   help="table and report: the N rows that move most (default 15)")
    p.add_argument("-o", "--output", metavar="PATH",
                   help="write a report instead of printing: .html (self-contained, no network) or .md "
                        "(its charts as PNGs beside it, PATH-stem_projection-*.png)")
    from .ranks import add_rank_arguments
    add_rank_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..analysis.projection import project
    from ..core.errors import RooflineError
    from ..core.placement import place
    from ..render.projection import projection_csv_bytes, projection_json, projection_table
    from ..render.terminal import visible_lines
    from .classify import write_stdout
    from .common import choose_device
    if not 0 < args.share <= 1:
        raise RooflineError(f"--share must be above 0 and at most 1, not {args.share}")
    if args.top < 1:
        raise RooflineError(f"--top must be at least 1, not {args.top}")
    if args.output is not None:     # a path no report can be written to fails before the trace is read
        from ..render.projection_report import check_output_path
        check_output_path(args.output)
    target = choose_device(args.to, [], "project")     # a wrong name fails before the trace is read
    kernels, results = _inputs(args)
    source = choose_device(args.device, results, "project")
    placements = place(kernels, source)
    warn_all("project", [w for r in results for w in r.warnings] + placements.warnings)
    projection = project(placements, target, share=args.share, figures=_figures(args.observed))
    if args.output is not None:
        return _write_report(projection, args, [r.path for r in results])
    if args.format == "json":
        write_stdout(projection_json(projection).encode("utf-8"))
    elif args.format == "csv":
        write_stdout(projection_csv_bytes(projection))
    else:
        print(visible_lines(projection_table(projection, limit=args.top)), end="")
    return 0


def _write_report(projection, args, sources) -> int:
    from ..render.projection_report import save_projection_report
    from ..render.terminal import visible
    written = save_projection_report(projection, args.output, sources=sources, top=args.top)
    extra = f" and {len(written) - 1} image(s)" if len(written) > 1 else ""
    print(visible(f"wrote {args.output}{extra} ({len(projection):,} rows, {projection.source.name} -> "
                  f"{projection.target.name})"))
    return 0


def _inputs(args):
    """(KernelSet, results) of the files, or of every rank of a rank folder
    (the rows of all ranks together: the totals are summed over ranks)."""
    from ..core.import_result import all_kernels
    from .common import load_inputs, read_options, warn
    from .ranks import is_rank_job, load_ranks
    if not is_rank_job(args.files):
        return load_inputs(args.files, merge=args.merge, options=read_options(args))
    results, _, notes = load_ranks(args)
    for note in notes:
        warn("project", note)
    return all_kernels(results), results


def _figures(path):
    """The observed figures a projection uses: the shipped ones, or ``path``'s."""
    from dataclasses import fields
    from functools import partial

    from ..analysis.projection import Figures
    from ..core.errors import InputError
    from ..devices.observed import read_table
    if path is None:
        return Figures()
    try:
        read_table(str(path))
    except (OSError, ValueError) as e:
        raise InputError(path, None, f"expected observed figures written by tools/observe_devices.py ({e})")
    # every figure from the file given, none from the shipped one
    return Figures(**{f.name: partial(f.default, path=str(path)) for f in fields(Figures)})
