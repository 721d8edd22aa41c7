"""Write the built-in GPU profiles (``devices/<stem>.yaml``) from the
datasheet, or check that the files still match it, and the Markdown table
of their headline ceilings (docs/devices.md)::

    python -m roofline.devices.regenerate            # rewrite every file
    python -m roofline.devices.regenerate --check    # report drift, write nothing
"""
from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

import yaml

from ..core.model import Device
from .datasheet import SPECS, build_device, devices
from .profile import dump_device, save_device

# ---------------------------------------------------------------- docs

_TABLE_COLUMNS = (("FP64", "compute", "fp64", 1e12), ("FP32", "compute", "fp32", 1e12),
                  ("FP16", "compute", "fp16", 1e12), ("Tensor FP16", "compute", "tensor_fp16", 1e12),
                  ("Tensor FP8", "compute", "tensor_fp8", 1e12),
                  ("DRAM", "memory", "DRAM", 1e9), ("L3", "memory", "L3", 1e9), ("L2", "memory", "L2", 1e9),
                  ("L1", "memory", "L1", 1e12), ("PCIe", "memory", "PCIe", 1e9))


def _cell(dev: Device, group: str, key: str, scale: float) -> str:
    table = dev.compute if group == "compute" else dev.memory
    if key not in table:
        return "-"
    value = (table[key].value if group == "compute" else table[key].bytes_s) / scale
    return f"{value:.0f}" if value >= 1e4 else f"{value:.4g}"   # 10138, not 1.014e+04


def markdown_table() -> str:
    """The headline ceilings of every profile as a Markdown table (docs/devices.md)."""
    head = ("| profile | chip | SMs/CUs | boost MHz | FP64 TFLOP/s | FP32 TFLOP/s | FP16 TFLOP/s | "
            "Tensor FP16 TFLOP/s (FP32 acc.) | Tensor FP8 TFLOP/s (FP32 acc.) | DRAM GB/s | L3 GB/s | L2 GB/s | L1 TB/s | PCIe GB/s | "
            "warp GIPS | FP32 ridge FLOP/B |")
    rows = [head, "|" + "---|" * 16]
    for spec in SPECS:
        dev = build_device(spec)
        cells = [_cell(dev, *col[1:]) for col in _TABLE_COLUMNS]
        rows.append(f"| `{spec.stem}` | {spec.chip} | {spec.sms} | {spec.boost_clock_hz / 1e6:.6g} | "
                    + " | ".join(cells)
                    + f" | {dev.instruction_rate.value / 1e9:.4g}"
                    + f" | {dev.ridge_point('DRAM', 'fp32'):.3g} |")
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------- files

def default_folder() -> Path:
    """The package's devices/ folder (the source tree in an editable install)."""
    return Path(str(resources.files("roofline.devices")))


def write_profiles(folder: str | Path | None = None) -> list[Path]:
    """(Re)write ``<stem>.yaml`` for every spec; returns the paths written."""
    folder = Path(folder) if folder is not None else default_folder()
    return [save_device(dev, folder / f"{stem}.yaml") for stem, dev in devices().items()]


def _plain(device: Device) -> dict:
    """The device as it reads back from YAML (tuples become lists, etc.)."""
    return yaml.safe_load(dump_device(device))


def _diff(a, b, prefix: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in list(a) + [k for k in b if k not in a]:
            where = f"{prefix}.{key}" if prefix else str(key)
            if key not in a or key not in b:
                out.append(f"{where}: only in {'file' if key in a else 'code'}")
            else:
                out.extend(_diff(a[key], b[key], where))
        return out
    return [] if a == b else [f"{prefix}: file {a!r} != code {b!r}"]


def compare_with_files(folder: str | Path | None = None) -> dict[str, list[str]]:
    """Drift between the code and the YAML files: stem -> differences.

    A stem is listed when its file is missing or differs in any value; the
    list is empty for every stem whose file matches the code exactly.
    """
    folder = Path(folder) if folder is not None else default_folder()
    report: dict[str, list[str]] = {}
    for stem, device in devices().items():
        path = folder / f"{stem}.yaml"
        if not path.exists():
            report[stem] = [f"{path}: missing"]
            continue
        on_disk = yaml.safe_load(path.read_text(encoding="utf-8"))
        report[stem] = _diff(on_disk, _plain(device))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m roofline.devices.regenerate",
                                     description="Write or check the built-in GPU profiles.")
    parser.add_argument("--out", type=Path, default=None, help="folder (default: roofline.devices)")
    parser.add_argument("--check", action="store_true",
                        help="report drift between code and files; write nothing")
    args = parser.parse_args(argv)
    if args.check:
        drift = {k: v for k, v in compare_with_files(args.out).items() if v}
        for stem, problems in drift.items():
            sys.stdout.write(f"{stem}: " + "; ".join(problems[:5]) + "\n")
        sys.stdout.write(f"{len(SPECS) - len(drift)}/{len(SPECS)} profiles match the code\n")
        return 1 if drift else 0
    for path in write_profiles(args.out):
        sys.stdout.write(f"wrote {path}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
