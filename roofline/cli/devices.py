"""`roofline devices` and `roofline show`: the device profiles we know."""
from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("devices", help="list built-in and saved device profiles",
                       description="List the built-in datasheet profiles and those saved by "
                                   "`roofline measure`.")
    p.add_argument("--format", "-f", choices=("table", "json"), default="table",
                   help="table (default): one row per profile, one column per precision class; json: "
                        "every field, for scripts")
    p.set_defaults(func=run_devices)
    s = sub.add_parser("show", help="show one device profile's ceilings",
                       description="Show a device profile: compute and memory ceilings, "
                                   "launch overhead, clocks, provenance.")
    s.add_argument("device", metavar="NAME_OR_PATH",
                   help="the profile to show: a built-in name (`roofline devices` lists them; case, punctuation "
                        "and a vendor prefix do not matter), a saved one (my-cpu), or a .yaml path")
    s.add_argument("--format", "-f", choices=("table", "json"), default="table",
                   help="table (default) or json (the profile's fields, for scripts)")
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
    if args.format == "json":
        print(device_json(device), end="")
    else:
        print(device_table(device) + units_table(device), end="")
    return 0


def units_table(device) -> str:
    """The compute units a CPU profile lists (``architecture.units``, written
    by `roofline measure`): per unit the instruction, the measured and the
    theoretical peak (all cores, then one core) and %, or why it was
    skipped. Empty for a profile without units (a GPU, an older profile).
    Every string comes from a file: shown escaped."""
    from ..render.terminal import visible
    units = device.architecture.get("units") if hasattr(device.architecture, "get") else None
    if not isinstance(units, dict) or not units:
        return ""
    lines = ["  units (measured, theoretical at the measured clock, %; all cores | one core):"]
    for key, entry in units.items():
        if not isinstance(entry, dict):
            continue
        if entry.get("skipped"):
            lines.append(f"    {str(key):<12} skipped: {entry['skipped']}")
            continue
        per = "FLOP/s" if "FLOP" in str(entry.get("op", "FLOP")) else "ops/s"
        ceiling = device.compute.get(key)
        measured = ceiling.value if ceiling is not None else _figure(entry.get("all_cores"))
        all_theo = _number(entry.get("theoretical_all_cores"))
        one = _figure(entry.get("one_core"))
        one_theo = _number(entry.get("theoretical_one_core"))
        text = (f"    {str(key):<12} {str(entry.get('instruction', '?')):<24} "
                f"{_vs(measured, all_theo, per)} | {_vs(one, one_theo, per)}")
        count = entry.get("asm_count_in_loop")
        if count == 0:
            text += "  (instruction NOT in the compiled loop)"
        lines.append(text)
        if entry.get("method"):
            lines.append(f"    {'':<12} {entry['method']}; one op = {entry.get('op', '?')}")
    return "\n".join(map(visible, lines)) + "\n"


def _number(x) -> float | None:
    import math
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) and v > 0 else None


def _figure(d) -> float | None:
    return _number(d.get("best")) if isinstance(d, dict) else None


def _vs(measured, theoretical, unit) -> str:
    from ..core.units import format_percent, format_si
    text = format_si(measured, unit) if measured else "not measured"
    if theoretical:
        text += f" of {format_si(theoretical, unit)}"
        if measured:
            text += f" ({format_percent(measured / theoretical)})"
    else:
        text += " (no theoretical figure)"
    return text
