"""Figures observed in real traces of a GPU, beside its datasheet profile:
the shortest time a kernel takes on it (its floor), the efficiency its
matrix libraries reach on matrix work and that of the older-GPU kernels
they fall back to (``observations/gpus.yaml``, written by
``tools/observe_devices.py`` from the real traces it names; never by hand).

A datasheet says what a GPU's units can do; these say what its software
stack made of them in real runs, each with the traces it rests on. A GPU
without traces of its own gets its vendor's floor (the median over that
vendor's observed GPUs, said as such) and no library efficiency (callers
then carry the source's and widen their interval).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import yaml

from ..core.model import Device

PATH = Path(__file__).with_name("observations") / "gpus.yaml"


@dataclass(frozen=True)
class Figure:
    """One observed figure: its value, the spread of what it summarises
    (standard deviation of the natural log, 0 when not known), and where it
    comes from."""

    value: float
    source: str
    spread: float = 0.0


@lru_cache(maxsize=4)
def _table(path: str = str(PATH)) -> dict:
    return read_table(path)


def read_table(path: str) -> dict:
    """The observations file at ``path`` (ValueError: not one)."""
    with open(path, encoding="utf-8") as f:
        if f.seek(0, 2) > 1 << 22:
            raise ValueError("larger than 4 MiB")
        f.seek(0)
        try:
            data = yaml.safe_load(f) or {}
        except yaml.YAMLError as e:
            raise ValueError(f"not YAML: {str(e).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ValueError("expected a mapping with 'devices'")
    for part in ("devices", "vendors"):
        entries = data.get(part) or {}
        if not isinstance(entries, dict) or not all(isinstance(v, dict) for v in entries.values()):
            raise ValueError(f"'{part}' must map names to mappings of figures")
        for name, entry in entries.items():
            for key in ("matrix_efficiency", "fallback_efficiency", "attention_efficiency"):
                share = entry.get(key)
                if share is not None and not (isinstance(share, (int, float)) and not isinstance(share, bool)
                                              and 0 < share <= 1):
                    raise ValueError(f"{part}.{name}.{key}: {share!r} is no share of a roof (0 < x <= 1)")
    return data


def _entry(device: Device, path: str) -> dict:
    entry = (_table(path).get("devices") or {}).get(device.name)
    return entry if isinstance(entry, dict) else {}


def _figure(entry: dict, key: str) -> Figure | None:
    """``key``'s value with its ``<name>_spread`` and ``<name>_source``
    (``kernel_floor_s`` -> ``kernel_floor_source``)."""
    value = entry.get(key)
    name = key[:-2] if key.endswith("_s") else key
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        return None
    spread = entry.get(f"{name}_spread", 0.0)
    spread = float(spread) if isinstance(spread, (int, float)) and math.isfinite(spread) and spread >= 0 else 0.0
    return Figure(float(value), str(entry.get(f"{name}_source", "")), spread)


def kernel_floor(device: Device, path: str = str(PATH)) -> Figure | None:
    """The least time a kernel takes on ``device``: observed on it, else its
    vendor's observed floor (GPUs), else its measured launch overhead (a
    CPU profile's dispatch figure), else None."""
    own = _figure(_entry(device, path), "kernel_floor_s")
    if own is not None:
        return own
    vendor = str((device.architecture or {}).get("vendor", ""))
    if device.kind == "gpu":
        shared = _figure((_table(path).get("vendors") or {}).get(vendor) or {}, "kernel_floor_s")
        if shared is not None:
            return Figure(shared.value, f"no trace of this GPU: {vendor}'s GPUs observed ({shared.source})",
                          shared.spread)
    launch = device.launch_overhead_s
    if device.provenance.get("method") == "measured" and launch and math.isfinite(launch) and launch > 0:
        return Figure(float(launch), "the profile's measured launch overhead")
    return None


def matrix_efficiency(device: Device, path: str = str(PATH)) -> Figure | None:
    """The share of its matrix roof that ``device``'s libraries reached on
    compute-bound matrix kernels built for it, in the traces named; None
    where no trace of it was observed."""
    return _figure(_entry(device, path), "matrix_efficiency")


def fallback_efficiency(device: Device, path: str = str(PATH)) -> Figure | None:
    """The share of their roof that matrix kernels built for an older GPU
    (a library's fallback for operands its own kernels cannot take) reached
    on ``device``, in the traces named; None where none was observed."""
    return _figure(_entry(device, path), "fallback_efficiency")


def attention_efficiency(device: Device, path: str = str(PATH)) -> Figure | None:
    """The share of the matrix roof that fused attention kernels (FlashAttention,
    aotriton, CK) reached on ``device``, in the traces named; None where none
    was observed."""
    return _figure(_entry(device, path), "attention_efficiency")


def with_kernel_floor(device: Device) -> Device:
    """``device`` with ``architecture.kernel_floor_s`` and its source, for a
    GPU whose profile does not say it (the classification's evidence that a
    lone short kernel is at the device's floor)."""
    arch = device.architecture or {}
    if device.kind != "gpu" or "kernel_floor_s" in arch:
        return device
    try:
        figure = kernel_floor(device)
    except (OSError, ValueError):      # no observations shipped: the profile stands as it is
        return device
    if figure is None:
        return device
    return replace(device, architecture={**arch, "kernel_floor_s": figure.value,
                                         "kernel_floor_source": figure.source})
