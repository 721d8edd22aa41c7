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
            rows.append(device_row(d, stem, origin, str(path)))
    if args.format == "json":
        print(json.dumps(rows, indent=1))
        return 0
    head = (f"{'name':<18} {'kind':<4} {'origin':<9} {'FP64':>12} {'FP32':>12} {'tensor 16-bit':>13} "
            f"{'fastest tensor/matrix':>23} {'INT8':>10} {'DRAM':>10} {'memory':>9}  device")
    print(head)
    for r in rows:
        short = str(r["matrix_precision"] or "").replace("tensor_", "").replace("_acc16", " acc16").upper()
        matrix = f"{_rate(r['matrix_flop_s'])} {short}" if r["matrix_flop_s"] else "–"
        print(visible(f"{r['name']:<18} {r['kind']:<4} {r['origin']:<9} {_rate(r['fp64_flop_s']):>12} "
                      f"{_rate(r['fp32_flop_s']):>12} {_rate(r['tensor16_flop_s']):>13} {matrix:>23} "
                      f"{_rate(r['int8_op_s'], 'OP/s'):>10} {_rate(r['dram_bytes_s'], 'B/s'):>10} "
                      f"{_capacity(r['dram_capacity_bytes']):>9}  {r['device']}"))
    print("\nPeaks from each profile (datasheet or measured), dense. tensor 16-bit: FP16/BF16 matrix units "
          "accumulating in FP32, as PyTorch's GEMMs do; fastest: the fastest floating-point matrix rate and its "
          "precision (ACC16: accumulating in FP16, which GeForce parts run at twice the FP32-accumulate rate); "
          "INT8 in operations per second; memory in binary units.")
    print(visible_lines(_naming_note({r["name"]: r["device"] for r in rows})), end="")
    return 0


def device_row(d, stem: str, origin: str, path: str) -> dict:
    """One profile's row: like with like, one column per precision class
    (FP64, FP32, the best floating-point tensor/matrix rate and its
    precision, INT8 operations), DRAM bandwidth and capacity."""
    def rate(*keys):
        found = [d.compute[k].value for k in keys if k in d.compute]
        return max(found) if found else None
    matrix = [(c.value, k) for k, c in d.compute.items() if k.startswith(("tensor_", "matrix_", "amx_"))
              and "int" not in k]
    best = max(matrix) if matrix else (None, None)
    # tensor_fp16 is FP32 accumulate in every profile (GeForce's faster FP16
    # accumulate is tensor_fp16_acc16), as PyTorch's GEMMs run
    tensor16 = rate("tensor_fp16") or rate("tensor_bf16")
    dram = d.memory.get("DRAM")
    return {"name": stem, "device": d.name, "kind": d.kind, "origin": origin, "path": path,
            "peak_flop_s": d.compute[d.peak_precision].value, "peak_precision": d.peak_precision,
            "fp64_flop_s": rate("fp64"), "fp32_flop_s": rate("fp32"),
            "tensor16_flop_s": tensor16, "matrix_flop_s": best[0], "matrix_precision": best[1],
            "int8_op_s": rate("tensor_int8", "int8"),
            "dram_bytes_s": dram.bytes_s if dram is not None else None,
            "dram_capacity_bytes": (dram.capacity_bytes if dram is not None and dram.capacity_bytes else
                                    (d.architecture or {}).get("dram_bytes"))}


def _rate(v, unit: str = "FLOP/s") -> str:
    from ..core.units import format_si
    return format_si(v, unit) if v else "–"


def _capacity(v) -> str:
    from ..core.units import format_iec
    try:
        return format_iec(float(v)) if v else "–"
    except (TypeError, ValueError):
        return "–"


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
