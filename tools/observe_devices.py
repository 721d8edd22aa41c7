"""Write devices/observations/gpus.yaml: each GPU's kernel floor and its matrix
libraries' efficiency, observed in real PyTorch (Kineto) traces.

    python tools/observe_devices.py ../shared/realdata/pairs/*.json.gz ../shared/realdata/kineto_trace/*.json.gz

Per trace with at least 500 GPU kernels: the floor is the 1st percentile
of its kernels' durations (events with cat "kernel"); per device, the
median over its traces. The library efficiency is
roofline.analysis.library_efficiency over every trace of the device, and
so are the fallback efficiency (matrix kernels built for an older GPU, on
at least 2 rows) and the attention efficiency (fused attention kernels). A
vendor's floor is the median of its devices' floors, for GPUs without a
trace of their own. Every figure names the traces it rests on.
"""
from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import yaml

from roofline.analysis.library_efficiency import LibrarySample, attention_sample, fallback_sample, library_sample
from roofline.cli.common import choose_device, load_inputs
from roofline.core.placement import place
from roofline.devices.observed import PATH

MIN_KERNELS = 500


def kernel_durations_s(path: Path) -> np.ndarray:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        data = json.load(f)
    events = data.get("traceEvents", []) if isinstance(data, dict) else data
    return np.array([e["dur"] for e in events if isinstance(e, dict) and e.get("cat") == "kernel"
                     and isinstance(e.get("dur"), (int, float))], dtype=float) * 1e-6


# (key, sample of a placed trace, least rows, what the rows are, where the rule is): fewer
# matrix rows than 3 say more about one kernel than a library
FIGURES = (
    ("matrix_efficiency", library_sample, 3, "matrix-unit rows of", "roofline.analysis.library_efficiency"),
    ("fallback_efficiency", fallback_sample, 2, "matrix rows of kernels built for an older GPU in",
     "roofline.analysis.library_efficiency.fallback_sample"),
    ("attention_efficiency", attention_sample, 1, "fused attention row(s) of",
     "roofline.analysis.library_efficiency.attention_sample"),
)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("traces", nargs="+", type=Path)
    parser.add_argument("-o", "--output", type=Path, default=PATH)
    args = parser.parse_args(argv)
    floors, names, vendors = defaultdict(list), defaultdict(list), {}
    # per figure: each device's sample, and the traces that gave it rows
    samples = {key: defaultdict(LibrarySample) for key, *_ in FIGURES}
    sources = {key: defaultdict(list) for key, *_ in FIGURES}
    for path in args.traces:
        durations = kernel_durations_s(path)
        if len(durations) < MIN_KERNELS:
            print(f"{path.name}: {len(durations)} kernels, fewer than {MIN_KERNELS}: skipped", file=sys.stderr)
            continue
        kernels, results = load_inputs([str(path)])
        device = choose_device(None, results, "observe")
        if device.kind != "gpu":
            continue
        floor = float(np.percentile(durations, 1))
        floors[device.name].append(floor)
        placed = place(kernels, device)
        for key, sample_of, *_ in FIGURES:
            sample = sample_of(placed, floor)
            if sample.rows:
                samples[key][device.name] += sample
                sources[key][device.name].append(path.name)
        names[device.name].append(path.name)
        vendors[device.name] = str(device.architecture.get("vendor", ""))
    out = {"schema_version": 1, "written_by": "tools/observe_devices.py", "devices": {}, "vendors": {}}
    for device, values in sorted(floors.items()):
        traces = ", ".join(names[device])
        entry = {"kernel_floor_s": float(f"{statistics.median(values):.3g}"),
                 "kernel_floor_source": f"1st percentile of kernel durations, median over {len(values)} real "
                                        f"trace(s): {traces}"}
        for key, _, least, rows, where in FIGURES:
            sample = samples[key][device]
            if sample.rows >= least:
                entry.update({key: round(sample.efficiency, 3), f"{key}_spread": round(sample.spread, 3),
                              f"{key}_source": f"time-weighted geometric mean over {sample.rows} {rows} "
                                               f"{', '.join(sources[key][device])} ({where})"})
        out["devices"][device] = entry
    by_vendor = defaultdict(list)
    for device, entry in out["devices"].items():
        by_vendor[vendors[device]].append((device, entry["kernel_floor_s"]))
    for vendor, items in sorted(by_vendor.items()):
        out["vendors"][vendor] = {
            "kernel_floor_s": float(f"{statistics.median(v for _, v in items):.3g}"),
            "kernel_floor_source": "median of the observed floors of " + ", ".join(d for d, _ in items)}
    header = "# written by tools/observe_devices.py from the real traces named; rerun it, do not edit by hand\n"
    args.output.write_text(header + yaml.safe_dump(out, sort_keys=False, width=100), encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
