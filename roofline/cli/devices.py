"""`roofline devices` and `roofline show`: the device profiles we know."""
from __future__ import annotations

from .common import DEVICE_HELP


def add_parser(sub) -> None:
    p = sub.add_parser("devices", help="list built-in and saved device profiles",
                       description="List the built-in datasheet profiles and those saved by "
                                   "`roofline measure`.")
    p.add_argument("--format", "-f", choices=("table", "json"), default="table")
    p.set_defaults(func=run_devices)
    s = sub.add_parser("show", help="show one device profile's ceilings",
                       description="Show a device profile: compute and memory ceilings, "
                                   "launch overhead, clocks, provenance.")
    s.add_argument("device", metavar="NAME_OR_PATH", help=DEVICE_HELP)
    s.add_argument("--format", "-f", choices=("table", "json"), default="table")
    s.set_defaults(func=run_show)


def run_devices(args) -> int:
    import json
    from ..devices.profile import builtin_profiles, load_device, saved_profiles
    from ..core.units import format_si
    from ..core.errors import ProfileError
    from ..render.terminal import visible, visible_lines
    from .common import warn
    rows = []
    for origin, profiles in (("built-in", builtin_profiles()), ("saved", saved_profiles())):
        for stem, path in profiles.items():
            try:
                d = load_device(path)
            except ProfileError as exc:
                warn("devices", f"skipped an invalid profile: {exc}")
                continue
            top = d.compute[d.peak_precision].value
            dram = d.memory["DRAM"].bytes_s if "DRAM" in d.memory else None
            rows.append({"name": stem, "device": d.name, "kind": d.kind, "origin": origin,
                         "path": str(path), "peak_flop_s": top, "peak_precision": d.peak_precision,
                         "dram_bytes_s": dram})
    if args.format == "json":
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        peak = f"{format_si(r['peak_flop_s'], 'FLOP/s')} {r['peak_precision']}"
        dram = format_si(r["dram_bytes_s"], "B/s")
        print(visible(f"{r['name']:<18} {r['kind']:<4} {r['origin']:<9} {peak:>22}  DRAM {dram:>11}  "
                      f"{r['device']}"))
    print(visible_lines(_naming_note({r["name"]: r["device"] for r in rows})), end="")
    return 0


def _naming_note(names: dict[str, str]) -> str:
    """How --device names are matched, and the GPUs another profile stands in for."""
    from ..devices.names import stand_ins_in_effect
    lines = ["", "--device takes any name above: case and punctuation are ignored, a unique prefix or the",
             "GPU model is enough (4090, h100 sxm). Without --device, the GPU the file names is used."]
    for gpu, stems, _ in stand_ins_in_effect(names):
        lines.append(f"  {gpu} has no profile of its own: {' or '.join(stems)} stands in")
    return "\n".join(lines) + "\n"


def run_show(args) -> int:
    from .common import find_any_device as find_device
    from ..render.tables import device_json, device_table
    device = find_device(args.device)
    print(device_json(device) if args.format == "json" else device_table(device), end="")
    return 0
