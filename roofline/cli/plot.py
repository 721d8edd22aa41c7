"""`roofline plot`: kernels on the device's rooflines, written to PNG/SVG/PDF."""
from __future__ import annotations

import argparse

from .common import add_device_argument, add_inputs_argument, load_inputs, read_options, warn_all

HELP = "draw kernels on a device's rooflines (PNG, SVG or PDF)"
EPILOG = """\
views:
{views}

Markers are sized by share of total time and coloured by bound class.
Kernels without FLOPs (copies, memsets) are listed in a corner box.
Variants of a kernel are joined by arrows (green: faster, red: slower).
Above 2000 kernels, markers are summed per name over a density of every row.

examples:
  roofline plot examples/ece408_kernels.csv --device v100-sxm2 -o ece408.png
  roofline plot ncu.csv --device my-cpu --view cache-aware -o roof.svg
"""


def _epilog() -> str:
    from ..render.views import help_lines
    return EPILOG.replace("{views}", help_lines())


def add_parser(sub) -> None:
    from ..render.views import choices
    p = sub.add_parser("plot", help=HELP, description=HELP, epilog=_epilog(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_inputs_argument(p)
    add_device_argument(p)
    from .common import add_network_argument
    add_network_argument(p)
    p.add_argument("-o", "--output", default="roofline.png", metavar="PATH",
                   help="image to write; format from the extension: .png .svg .pdf (default roofline.png)")
    p.add_argument("--view", choices=choices(), default="auto",
                   help="which roofline to draw (the views below; the report draws the same ones); auto "
                        "(default): hierarchical when some kernel has bytes at two or more levels, else "
                        "cache-aware")
    p.add_argument("--title", help="chart title (default: view and device)")
    p.add_argument("--variants", metavar="A,B,...",
                   help="order of the optimisation variants (the kernels.csv 'variant' column) to join "
                        "with before/after arrows; default: the order they first appear")
    p.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from ..render.terminal import visible

    from ..core.errors import InputError
    suffix = Path(args.output).suffix.lower()
    if suffix not in (".png", ".svg", ".pdf"):
        raise InputError(args.output, None, "expected an output file ending in .png, .svg or .pdf")
    kernels, results = load_inputs(args.files, merge=args.merge, options=read_options(args))
    from .common import choose_device
    device = choose_device(args.device, results, "plot", getattr(args, "network", None))
    from .common import fitting
    kernels, results = fitting(kernels, results, device, "plot")
    if args.view == "instruction":
        return _instruction(args, device, kernels, results)
    from ..render.chart import plotted, roofline_chart
    from ..render.views import choose
    from ..core.placement import place
    from ..render.plot import save_figure
    placements = place(kernels, device)
    shown = plotted(placements, device)
    order = None
    if args.variants:
        from ..render.variants import variant_order
        order = variant_order(kernels, args.variants)
    warn_all("plot", [w for r in results for w in r.warnings] + placements.warnings)
    view = choose(args.view, shown)
    from .common import profile_banner
    fig = roofline_chart(placements, shown, device.name, view=view, variants=order,
                         banner=profile_banner(device, results))
    if args.title:
        fig.axes[0].set_title(args.title)
    save_figure(fig, args.output)
    print(visible(f"wrote {args.output} ({len(kernels)} kernels on {device.name})"))
    return 0


def _instruction(args, device, kernels, results) -> int:
    from ..core.errors import MissingMetricError
    from ..render.terminal import visible
    from ..analysis.instruction import NCU_METRICS, instruction_roofline
    from ..render.instruction import instruction_roofline_figure
    from ..render.plot import save_figure
    if device.instruction_rate is None:
        raise MissingMetricError(f"device profile {device.name!r} has no instruction ceiling "
                                 "(instruction_rate); use a GPU profile such as v100-sxm2")
    roof = instruction_roofline(kernels.kernels(), device)
    if not roof.points:
        raise MissingMetricError("no kernel has both a warp instruction count and a time", NCU_METRICS)
    if not any(p.intensity for p in roof.points):
        raise MissingMetricError("the kernels have warp instruction counts but no transaction counts "
                                 "per memory level", NCU_METRICS)
    warn_all("plot", [w for r in results for w in r.warnings] + list(roof.warnings))
    save_figure(instruction_roofline_figure(roof, title=args.title), args.output)
    print(visible(f"wrote {args.output} ({len(roof.points)} kernels on the instruction roofline of "
                  f"{device.name})"))
    return 0
