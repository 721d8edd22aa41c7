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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("traces", nargs="+", type=Path)
    parser.add_argument("-o", "--output", type=Path, default=PATH)
    args = parser.parse_args(argv)
    floors, samples, names, vendors = defaultdict(list), defaultdict(LibrarySample), defaultdict(list), {}
    fallbacks, fallback_traces = defaultdict(LibrarySample), defaultdict(list)
    attentions, attention_traces = defaultdict(LibrarySample), defaultdict(list)
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
        samples[device.name] += library_sample(placed, floor)
        attention = attention_sample(placed, floor)
        if attention.rows:
            attentions[device.name] += attention
            attention_traces[device.name].append(path.name)
        fallback = fallback_sample(placed, floor)
        if fallback.rows:
            fallbacks[device.name] += fallback
            fallback_traces[device.name].append(path.name)
        names[device.name].append(path.name)
        vendors[device.name] = str(device.architecture.get("vendor", ""))
    out = {"schema_version": 1, "written_by": "tools/observe_devices.py", "devices": {}, "vendors": {}}
    for device, values in sorted(floors.items()):
        traces = ", ".join(names[device])
        entry = {"kernel_floor_s": float(f"{statistics.median(values):.3g}"),
                 "kernel_floor_source": f"1st percentile of kernel durations, median over {len(values)} real "
                                        f"trace(s): {traces}"}
        sample = samples[device]
        if sample.rows >= 3:    # fewer rows say more about one kernel than a library
            entry.update({"matrix_efficiency": round(sample.efficiency, 3),
                          "matrix_efficiency_spread": round(sample.spread, 3),
                          "matrix_efficiency_source": f"time-weighted geometric mean over {sample.rows} matrix-unit "
                                                      f"rows of {traces} (roofline.analysis.library_efficiency)"})
        fallback = fallbacks[device]
        if fallback.rows >= 2:
            entry.update({"fallback_efficiency": round(fallback.efficiency, 3),
                          "fallback_efficiency_spread": round(fallback.spread, 3),
                          "fallback_efficiency_source": f"time-weighted geometric mean over {fallback.rows} matrix "
                                                        "rows of kernels built for an older GPU in "
                                                        f"{', '.join(fallback_traces[device])} "
                                                        "(roofline.analysis.library_efficiency.fallback_sample)"})
        attention = attentions[device]
        if attention.rows:
            entry.update({"attention_efficiency": round(attention.efficiency, 3),
                          "attention_efficiency_spread": round(attention.spread, 3),
                          "attention_efficiency_source": f"time-weighted geometric mean over {attention.rows} fused "
                                                         "attention row(s) of "
                                                         f"{', '.join(attention_traces[device])} "
                                                         "(roofline.analysis.library_efficiency.attention_sample)"})
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
