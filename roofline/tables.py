"""Formatters that return strings: text table, CSV and JSON of placements."""
from __future__ import annotations

import csv
import io
import json

import numpy as np

from .placement import Placements
from .units import format_si

CSV_FIELDS = ("name", "family", "count", "time_s", "flops", "bound", "level", "overhead_kind",
              "achieved_flop_s", "attainable_flop_s", "roofline_time_s", "efficiency", "operator", "modelled")


def placements_json(p: Placements) -> str:
    return json.dumps(p.records(), indent=1)


def placements_csv(p: Placements) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in p.records():
        writer.writerow({k: ("" if row[k] is None else row[k]) for k in CSV_FIELDS})
    return out.getvalue()


def placements_table(p: Placements, limit: int | None = None, name_width: int = 48) -> str:
    """Kernels by descending time, with their bound and distance from the roof."""
    time = np.nan_to_num(p.kernels.time_s)
    order = np.argsort(-time, kind="stable")
    shown = p.records(order if limit is None else order[:limit])
    total = float(time.sum())
    header = ("kernel", "calls", "time", "share", "FLOP/s", "roof FLOP/s", "eff", "bound")
    lines = [header]
    for r in shown:
        bound = r["bound"] + (f" ({r['level']})" if r["level"] else "")
        bound += f" ({r['overhead_kind']})" if r["overhead_kind"] else ""
        bound += " *" if r["modelled"] else ""
        share = f"{100 * r['time_s'] / total:.1f}%" if r["time_s"] and total else "n/a"
        name = r["name"] + (f" [{r['variant']}]" if r.get("variant") else "")
        lines.append((
            _short(name, name_width), str(r["count"]), format_si(r["time_s"], "s"), share,
            _rate(r["achieved_flop_s"]), _rate(r["attainable_flop_s"]),
            "n/a" if r["efficiency"] is None else f"{100 * r['efficiency']:.0f}%", bound))
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    text = ["  ".join(c.ljust(w) if i in (0, 7) else c.rjust(w)
                      for i, (c, w) in enumerate(zip(row, widths))).rstrip() for row in lines]
    text.insert(1, "  ".join("-" * w for w in widths))
    if limit is not None and len(p) > limit:
        text.append(f"... {len(p) - limit} more kernels (use --format csv for all)")
    if any(r["modelled"] for r in shown):
        text.append("* work from a cost or operator model (compulsory bytes: an upper bound on intensity)")
    return "\n".join(text) + "\n"


def _rate(value) -> str:
    return "-" if not value else format_si(value, "")


def _short(name: str, width: int) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def device_table(device) -> str:
    lines = [f"{device.name}  ({device.kind}, {device.provenance.get('method', 'unknown')})"]
    for key, c in device.compute.items():
        lines.append(f"  compute  {key:<12} {format_si(c.value, 'FLOP/s'):>14}" + _extra(c))
    if device.instruction_rate is not None:
        unit = "warp inst/s" if device.kind == "gpu" else "inst/s"
        rate = format_si(device.instruction_rate.value, "")
        lines.append(f"  issue    {'instructions':<12} {rate:>12} {unit}")
    for key, m in device.memory.items():
        cap = f"  capacity {format_si(m.capacity_bytes, 'B')}" if m.capacity_bytes else ""
        lines.append(f"  memory   {key:<12} {format_si(m.bytes_s, 'B/s'):>14}" + _extra(m.bandwidth) + cap)
    if device.launch_overhead_s is not None:
        lines.append(f"  launch overhead       {format_si(device.launch_overhead_s, 's'):>14}")
    for key, hz in device.clocks_hz.items():
        lines.append(f"  clock    {key:<12} {format_si(hz, 'Hz'):>14}")
    for w in device.warnings:
        lines.append(f"  warning: {w}")
    return "\n".join(lines) + "\n"


def _extra(c) -> str:
    parts = []
    if c.samples:
        parts.append(f"median {format_si(c.median)}, spread {100 * c.spread:.1f}%, n={len(c.samples)}")
    if c.samples and c.fraction_of_theoretical:  # datasheet ceilings are their own theory
        parts.append(f"{100 * c.fraction_of_theoretical:.0f}% of theoretical")
    return f"  ({'; '.join(parts)})" if parts else ""


def device_json(device) -> str:
    """Summary JSON (`roofline show --format json`) with the full profile inside."""
    from .profile import device_to_dict
    return json.dumps({
        "name": device.name,
        "kind": device.kind,
        "compute": {k: c.value for k, c in device.compute.items()},
        "memory": {k: m.bytes_s for k, m in device.memory.items()},
        "instruction_rate": None if device.instruction_rate is None else device.instruction_rate.value,
        "launch_overhead_s": device.launch_overhead_s,
        "profile": device_to_dict(device),
    }, indent=1)
