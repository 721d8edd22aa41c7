"""Where the compulsory bytes of modelled kernels are served from.

An operator model gives the bytes a kernel must move at least (every input
read once, every output written once), not where they come from. Data that
crosses from one kernel to the next comes from DRAM unless the profile shows
otherwise: a per-core or per-SM L1 never holds it from one kernel to the
next, and a working set that fits in the last-level cache may or may not
still be there. So:

- compulsory bytes are placed on ``DRAM``;
- a kernel that moved them faster than DRAM allows (bytes / time above the
  DRAM bandwidth of the roof it is placed on) evidently found its data in a
  cache: its bytes go on the slowest cache level that holds its working set
  per call (bytes / calls) and whose bandwidth explains the rate (the
  fastest one holding it when none does), and the placement says why
  (reason ``data from cache``);
- a working set that fits in the last-level cache but was not moved faster
  than DRAM stays on DRAM; the cache's roof is the other end of its
  attainable range (:attr:`Compulsory.fits_cache`).

The last-level cache is the cache level of the profile with the largest
known capacity (L3 on most CPUs, L2 on GPUs). L1 (and GPU shared memory)
never holds data from one kernel to the next, so it is never chosen.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cache_capacity import held_bytes
from .model import HOST_LINK, Device, KernelSet

COMPULSORY_LEVEL = "DRAM"
NOT_ACROSS_KERNELS = ("L1", "shared")


@dataclass(frozen=True)
class Compulsory:
    """The kernels with their modelled bytes on the level the evidence
    gives, and per row whether that was the last-level cache
    (``from_cache``) and whether the working set fits in it."""

    kernels: KernelSet
    cache_level: str | None
    from_cache: np.ndarray
    fits_cache: np.ndarray


def cache_levels(device: Device) -> list[str]:
    """The levels that can hold data across kernels, slowest first: caches
    with a known capacity, never L1."""
    names = [name for name, lv in device.memory.items()
             if name not in (COMPULSORY_LEVEL, HOST_LINK) + NOT_ACROSS_KERNELS and lv.capacity_bytes]
    return sorted(names, key=lambda name: device.memory[name].bytes_s)


def last_level_cache(device: Device) -> str | None:
    """The cache level with the largest known capacity (never L1)."""
    names = cache_levels(device)
    return max(names, key=lambda name: device.memory[name].capacity_bytes) if names else None


def place_compulsory(kernels: KernelSet, device: Device, bytes_s: dict[str, np.ndarray]) -> Compulsory:
    """Move the DRAM bytes of modelled rows that beat their DRAM roof onto
    the cache the evidence gives (see the module doc; a new set, the input is
    not changed). ``bytes_s``: each level's bandwidth on each row's roofs
    (one-core rows have their own). Rows with bytes at other levels
    (counters) keep them all."""
    n = len(kernels)
    none = np.zeros(n, dtype=bool)
    caches = cache_levels(device)
    llc = last_level_cache(device)
    if llc is None or not kernels.modelled.any() or COMPULSORY_LEVEL not in kernels.bytes:
        return Compulsory(kernels, llc, none, none)
    dram = kernels.bytes[COMPULSORY_LEVEL]
    only_dram = kernels.modelled & ~np.isnan(dram) & (dram > 0)
    for lv, v in kernels.bytes.items():
        if lv != COMPULSORY_LEVEL:
            only_dram &= np.isnan(v)
    per_call = dram / np.maximum(kernels.count, 1)
    held = held_bytes(device, kernels.threads)     # a private level: one instance per thread
    fits_llc = only_dram & (per_call <= held[llc])
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(kernels.time_s > 0, dram / kernels.time_s, 0.0)
    undecided = only_dram & (rate > bytes_s[COMPULSORY_LEVEL])
    target = np.full(n, "", dtype=object)
    for name in caches:                  # slowest first: the first that explains the rate
        holds = undecided & (per_call <= held[name])
        explains = holds & (rate <= bytes_s[name])
        target[explains] = name
        target[holds & ~explains] = name  # kept unless a faster level explains it
        undecided &= ~explains
    moved = target != ""
    if not moved.any():
        return Compulsory(kernels, llc, none, fits_llc)
    new_bytes = {lv: v.copy() for lv, v in kernels.bytes.items()}
    for name in set(target[moved]):
        rows = target == name
        new_bytes.setdefault(name, np.full(n, np.nan))[rows] = dram[rows]
    new_bytes[COMPULSORY_LEVEL][moved] = np.nan
    return Compulsory(kernels.with_columns(bytes=new_bytes), llc, moved, fits_llc)
