"""`roofline measure`: calibrate this machine and save a device profile.

Heavy imports (numba, cupy) happen inside :func:`run` only, so
`roofline --help` stays instant.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ..core.errors import MeasurementError, ProfileError


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "measure", help="calibrate this machine (CPU, or GPU when present) and save its profile",
        description="Run microbenchmarks and save a device profile: FP64/FP32 peaks (all cores "
                    "and one core), bandwidth of every cache level and DRAM found from the "
                    "bandwidth-vs-working-set curve, launch overhead and clock. Without a usable "
                    "GPU, --device auto measures the CPU.")
    p.add_argument("--device", default="auto", metavar="auto|cpu|gpu|gpu:N",
                   help="what to measure (default: auto = the first GPU if one works, else the CPU)")
    p.add_argument("--all", action="store_true",
                   help="measure the CPU and every GPU found, one profile each")
    p.add_argument("--quick", action="store_true",
                   help="coarser sweep and fewer samples (under 10 s on the CPU)")
    p.add_argument("-o", "--output", metavar="PATH",
                   help="where to write the profile (default: the user profile folder, "
                        "as my-cpu.yaml / my-gpu.yaml so `--device my-cpu` finds it)")
    p.add_argument("--name", help="device name stored in the profile (default: my-cpu / my-gpu<N>)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing profile even when this run was measured on a busy machine")
    p.set_defaults(func=run)


def _parse_device(text: str) -> tuple[str, int | None]:
    t = (text or "auto").strip().lower()
    if t in ("auto", "cpu"):
        return t, None
    if t == "gpu":
        return "gpu", 0
    if t.startswith("gpu:"):
        try:
            return "gpu", int(t[4:])
        except ValueError:
            pass
    raise MeasurementError(f"--device {text!r}: expected auto, cpu, gpu or gpu:N")


def _gpu_runner():
    """The GPU backend module, or None while it is not installed."""
    try:
        from ..microbench.gpu import runner
    except ImportError:
        return None
    return runner


def _probe_gpu(index: int) -> str | None:
    """None when GPU ``index`` is usable, else a one-line reason."""
    runner = _gpu_runner()
    if runner is None:
        return "the GPU backend (roofline.microbench.gpu) is not available"
    try:
        runner.probe_gpu(index)
    except MeasurementError as exc:
        return str(exc)
    except ImportError as exc:
        return f"GPU libraries are missing ({exc})"
    return None


def _gpu_count() -> int:
    """How many GPUs probe as usable (stops at the first that does not)."""
    n = 0
    while n < 64 and _probe_gpu(n) is None:
        n += 1
    return n


def _measure_cpu(quick: bool, name: str):
    from ..microbench.cpu.run import measure_cpu_isolated
    return measure_cpu_isolated(quick=quick, progress=sys.stderr.isatty(), name=name)


def _measure_gpu(index: int, quick: bool, name: str):
    runner = _gpu_runner()
    if runner is None:
        raise MeasurementError("the GPU backend (roofline.microbench.gpu) is not available")
    device = runner.measure_gpu(index=index, quick=quick, progress=sys.stderr.isatty())
    if name and device.name != name:
        from dataclasses import replace
        # the GPU's own name stays in the profile: a file naming that GPU finds it (devices.choice)
        device = replace(device, name=name, architecture={**device.architecture, "gpu_name": device.name})
    return device


def _default_path(stem: str) -> Path:
    from ..devices.profile import user_profile_dir
    return user_profile_dir() / f"{stem}.yaml"


def _output_path(args, stem: str, several: bool) -> Path:
    if not args.output:
        return _default_path(stem)
    out = Path(args.output)
    if several:  # one file per device: my.yaml -> my-cpu.yaml, my-gpu0.yaml
        return out.with_name(f"{out.stem}-{stem}{out.suffix or '.yaml'}")
    return out


def _writable_target(path: Path) -> Path:
    """The file a profile will be written to, resolved (through a symlink,
    so that the link and its target are locked as one profile), or a
    ProfileError before anything is measured: a directory, or a folder that
    cannot be made (a regular file in the way) or written in. A FIFO or
    device is kept as given (it is written into, see core.atomic)."""
    if os.path.exists(path) and not os.path.isdir(path) and not os.path.isfile(path):
        return path
    _not_a_directory(path)
    target = Path(os.path.realpath(path))
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise ProfileError(path, None, f"cannot make its folder: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ProfileError(path, None, f"cannot write in {folder}: permission denied")
    return target


def _not_a_directory(path) -> None:
    if os.path.isdir(path) or str(path).endswith(os.sep):
        raise ProfileError(path, None, "names a directory: give the profile's file name "
                           f"(e.g. {Path(path) / 'my-cpu.yaml'})")


def run(args) -> int:
    from ..devices.profile import profile_lock, save_device

    kind, index = _parse_device(args.device)
    if args.output:
        _not_a_directory(args.output)
    jobs: list[tuple[str, int | None]] = []
    if args.all:
        jobs.append(("cpu", None))
        jobs += [("gpu", i) for i in range(_gpu_count())]
        if len(jobs) == 1:
            print(f"roofline measure: no GPU found ({_probe_gpu(0)}); measuring the CPU only")
    elif kind == "gpu":
        reason = _probe_gpu(index)
        if reason:
            raise MeasurementError(f"GPU {index}: {reason}")
        jobs.append(("gpu", index))
    elif kind == "auto":
        reason = _probe_gpu(0)
        if reason is None:
            jobs.append(("gpu", 0))
        else:
            print(f"roofline measure: no GPU found ({reason}); measuring the CPU")
            jobs.append(("cpu", None))
    else:
        jobs.append(("cpu", None))

    several = len(jobs) > 1
    stems = ["my-cpu" if what == "cpu" else ("my-gpu" if idx == 0 and not several else f"my-gpu{idx}")
             for what, idx in jobs]
    # every target checked before the first measurement, not minutes later
    targets = [_writable_target(_output_path(args, stem, several)) for stem in stems]
    for (what, idx), stem, requested in zip(jobs, stems, targets):
        name = args.name if (args.name and not several) else (
            f"{args.name}-{stem}" if args.name else stem)
        # held for the whole run: a second measure of the same profile stops
        # before measuring, not minutes later when it would replace this one
        with profile_lock(requested):
            if what == "cpu":
                device = _measure_cpu(args.quick, name)
            else:
                device = _measure_gpu(idx, args.quick, name)
            path = save_device(device, _refuse_busy_over_quiet(device, requested, args.force))
        _report(device, path)
    return 0


def _refuse_busy_over_quiet(device, target: Path, force: bool) -> Path:
    """Where to write the profile: a run measured on a busy machine never
    silently replaces a quieter profile; it goes beside it (NAME.busy.yaml)
    with a warning saying why and how to replace it (--force)."""
    load = (device.provenance or {}).get("machine_load") or {}
    if force or not load.get("busy") or not target.exists():
        return target
    from ..microbench.cpu.busy import worst_spread
    from ..devices.profile import load_device
    try:
        old = load_device(target)
    except Exception:   # an unreadable old profile is no reason to keep it
        return target
    if ((old.provenance or {}).get("machine_load") or {}).get("busy") or \
            worst_spread(old) > worst_spread(device):
        return target
    aside = target.with_name(target.stem + ".busy.yaml")
    print(f"roofline measure: warning: the machine was busy ({'; '.join(load.get('reasons', []))}): "
          f"{target} (measured quieter, worst spread {100 * worst_spread(old):.0f} %) is kept and this "
          f"run is written to {aside}; measure again when the machine is idle, or pass --force to "
          "replace it", file=sys.stderr)
    return aside


def _report(device, path: Path) -> None:
    from ..render.terminal import visible
    from ..core.units import format_si
    prov = device.provenance
    print(f"profile written to {visible(str(path))}")
    extra = []
    if "compile_time_s" in prov:
        extra.append(f"compile/cache load {prov['compile_time_s']:.1f} s "
                     f"(numba cache {prov.get('numba_cache', '?')})")
    if "wall_time_s" in prov:
        extra.append(f"measured in {prov['wall_time_s']:.1f} s")
    load = prov.get("machine_load") or {}
    if load.get("load_average_before") is not None:
        steal = load.get("steal_share")
        extra.append(f"load average before {load['load_average_before']:.2f} on {load.get('cores', '?')} cores"
                     + (f", steal {100 * steal:.1f} %" if steal is not None else "")
                     + (" (BUSY)" if load.get("busy") else ""))
    if load.get("waited_for_quiet_s", 0) > 1.0:
        share = load.get("busy_share_before")
        extra.append(f"waited {load['waited_for_quiet_s']:.0f} s for other processes to quiet down"
                     + (f" (still {100 * share:.0f} % busy)" if share is not None and load.get("busy") else ""))
    from ..render.tables import measured_again_text, rate_unit
    again = measured_again_text(prov)
    if again:
        extra.append(again)
    if extra:
        print("  " + ", ".join(extra))
    rows = []
    single = (device.architecture.get("single_core") or {}) if device.architecture else {}
    for key, c in device.compute.items():
        one = (((single.get("compute") or {}).get(key) or {}).get("flop_s")
               or ((((device.architecture or {}).get("units") or {}).get(key) or {}).get("one_core") or {}).get("best"))
        unit = rate_unit(key)
        rows.append((key, format_si(c.value, unit), _pct(c), format_si(one, unit) if one else "",
                     f"{100 * c.spread:.0f} %"))
    for key, m in device.memory.items():
        c = m.bandwidth
        one = ((single.get("memory") or {}).get(key) or {}).get("bytes_s")
        sizes = _level_sizes(m, (single.get("memory") or {}).get(key) or {}) if key != "DRAM" else ""
        rows.append((key + sizes, format_si(c.value, "B/s"), _pct(c), format_si(one, "B/s") if one else "",
                     f"{100 * c.spread:.0f} %"))
    header = ("ceiling", "all cores" if device.kind == "cpu" else "device", "% theor.",
              "one core" if device.kind == "cpu" else "", "spread")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(5)]
    for r in [header] + rows:
        print("  " + "  ".join(str(v).ljust(widths[i]) if i == 0 else str(v).rjust(widths[i])
                               for i, v in enumerate(r)).rstrip())
    if device.launch_overhead_s:
        print(f"  launch overhead {format_si(device.launch_overhead_s, 's')}"
              + "".join(f", clock {k} {format_si(v, 'Hz')}" for k, v in device.clocks_hz.items()
                        if k in ("core", "fma_implied", "sm")))
    for w in device.warnings:
        print(f"roofline measure: warning: {visible(str(w))}", file=sys.stderr)


def _level_sizes(level, one_core: dict) -> str:
    """`` (32 KiB, knee 34 KiB)``: the size the OS reports and, beside it,
    where the measured curve leaves the plateau (when the step is clear)."""
    from ..core.units import format_iec
    os_bytes, knee = one_core.get("os_bytes"), one_core.get("measured_bytes")
    size = os_bytes or level.capacity_bytes
    if not size:
        return ""
    text = format_iec(size)
    if knee:
        text += f", knee {format_iec(knee)}"
    return f" ({text})"


def _pct(c) -> str:
    f = c.fraction_of_theoretical
    return f"{100 * f:.0f} %" if f else ""
