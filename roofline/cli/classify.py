"""`roofline classify`: the bound class of every kernel, as a table, CSV or JSON."""
from __future__ import annotations

import sys

from .ranks import RANKS_HELP
from .common import add_device_argument, add_inputs_argument, load_inputs, read_options, positive_int, warn_all

HELP = "classify kernels as compute-, bandwidth- or overhead-bound"
EPILOG = """\
bound classes (docs/concepts.md has the rules):
  compute     the compute roof limits the kernel at its intensity
  bandwidth   a memory level's roof limits it (column 'level': L1, L2, L3, DRAM, PCIe)
  overhead    its time does not scale with its work, on evidence (column
              'overhead_kind'): a fixed cost per call fitted across the sizes of
              the same operator or kernel, a call at the device's kernel floor or
              whose work at the roof would end before it, or an operator with no
              work of its own; never when its roofline time per call is 100 us or
              more (a grid of fewer blocks than SMs is no overhead: its compute
              roof is the SMs it fills, reason 'under-fills the device')
  unknown     neither counters nor an operator model give the kernel any work

efficiency is roofline time / time (% of roof); every kernel below 80 % of its
roof gets a 'reason' (fixed cost, under-fills the device, random-number
generation, page faults on fresh outputs, slow library kernel (its faster peer
in 'reason_detail'), fewer threads than the roof, data from cache, precision
assumed, traffic above compulsory, ..., or no evidence), and one more than 5 %
above its roof says 'above its roof' (the roof or the work is wrong for it).
'dtype' is each row's data type(s): bf16, fp32->bf16 for a cast.

examples:
  roofline classify examples/ece408_kernels.csv --device v100-sxm2
  roofline classify traces/ --device h100-sxm --workers 2      # one trace per rank
  roofline classify run.ncu-rep --device a100-40gb-sxm --format json > kernels.json
"""


def add_parser(sub) -> None:
    import argparse
    p = sub.add_parser("classify", help=HELP, description=HELP, epilog=EPILOG + "\n" + RANKS_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_inputs_argument(p)
    add_device_argument(p)
    from .common import add_network_argument
    add_network_argument(p)
    from .ranks import add_rank_arguments
    add_rank_arguments(p)
    p.add_argument("--format", "-f", choices=("table", "csv", "json"), default="table",
                   help="output format (default: table; csv and json list every kernel)")
    p.add_argument("--top", type=positive_int, default=30, metavar="N",
                   help="table only: show the N longest kernels (default 30)")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..core.placement import place
    from ..devices.choice import device_for
    from ..render.json_rows import placements_json_chunks
    from ..render.tables import placements_csv_chunks, placements_table
    from ..render.terminal import visible_lines
    from .common import choose_device, fitting
    from .ranks import classify_ranks, is_rank_job
    arrow_without_pandas()
    if is_rank_job(args.files):
        if args.device:             # a wrong name fails before the ranks are read
            device_for([], requested=args.device)
        out = classify_ranks(args, args.device)
        print(visible_lines(out) if args.format == "table" else out, end="")
        return 0
    kernels, results = load_inputs(args.files, merge=args.merge, options=read_options(args))
    device = choose_device(args.device, results, "classify", getattr(args, "network", None))
    kernels, results = fitting(kernels, results, device, "classify")
    placements = place(kernels, device)
    warn_all("classify", [w for r in results for w in r.warnings] + placements.warnings)
    if args.format == "csv":
        for chunk in placements_csv_chunks(placements):
            write_stdout(chunk)
        return 0
    if args.format == "json":
        for chunk in placements_json_chunks(placements):
            write_stdout(chunk)
        return 0
    print(placements_table(placements, limit=args.top), end="")
    return 0


class _NoPandas:
    """A finder that refuses pandas, for :func:`arrow_without_pandas`."""
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "pandas":
            raise ModuleNotFoundError("pandas held back from pyarrow's first look", name="pandas")
        return None


def arrow_without_pandas() -> None:
    """pyarrow imports pandas (0.2 s of CPU, a quarter of a csv.reader pass
    over a million rows) at its first array, only to ask whether an input is
    a pandas object; classify never hands it one. The import is refused at
    that first look, so pyarrow takes pandas as absent for such questions;
    anything that needs pandas (``Table.to_pandas``) imports it then. Nothing
    is done where pandas is imported already or pyarrow is not installed."""
    if "pandas" in sys.modules:
        return
    try:
        import pyarrow as pa
    except ImportError:
        return
    sys.meta_path.insert(0, _NoPandas)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(_NoPandas)


def write_stdout(data) -> None:
    """Bytes (any bytes-like object) to standard output as they are (no
    decode and re-encode of a 100 MB CSV); text through print where stdout
    has no byte buffer."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        print(bytes(data).decode("utf-8"), end="")
        return
    sys.stdout.flush()
    buffer.write(data)
    buffer.flush()
