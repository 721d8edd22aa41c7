"""Where the compulsory bytes of modelled kernels are served from.

An operator model gives the bytes a kernel must move at least (every input
read once, every output written once), not where they come from. Put on
DRAM, a small operator whose tensors were just written by the previous one
seems to beat the DRAM roof, because its data was still in a cache. So a
modelled kernel's compulsory bytes go to the nearest memory level whose
capacity holds the working set of one call (bytes / calls): the fastest
level its data can be in, which keeps the roof an upper bound on what the
kernel can attain. Levels without a known capacity are skipped; a working
set larger than every cache stays on DRAM.
"""
from __future__ import annotations

import numpy as np

from .model import HOST_LINK, Device, KernelSet

COMPULSORY_LEVEL = "DRAM"


def place_compulsory(kernels: KernelSet, device: Device) -> KernelSet:
    """``kernels`` with each modelled row's DRAM bytes moved to the nearest
    level of ``device`` that holds its per-call working set (a new set; the
    input is not changed). Rows with bytes at other levels keep them all."""
    if not kernels.modelled.any() or COMPULSORY_LEVEL not in kernels.bytes:
        return kernels
    dram = kernels.bytes[COMPULSORY_LEVEL]
    others = [v for lv, v in kernels.bytes.items() if lv != COMPULSORY_LEVEL]
    only_dram = ~np.isnan(dram)
    for v in others:
        only_dram &= np.isnan(v)
    movable = kernels.modelled & only_dram & (dram > 0)
    if not movable.any():
        return kernels
    per_call = dram / np.maximum(kernels.count, 1)
    target = np.full(len(kernels), COMPULSORY_LEVEL, dtype=object)
    undecided = movable.copy()
    for name, level in device.memory.items():
        if name in (COMPULSORY_LEVEL, HOST_LINK) or level.capacity_bytes is None:
            continue
        fits = undecided & (per_call <= level.capacity_bytes)
        target[fits] = name
        undecided &= ~fits
    moved = movable & (target != COMPULSORY_LEVEL)
    if not moved.any():
        return kernels
    new_bytes = {lv: v.copy() for lv, v in kernels.bytes.items()}
    for name in set(target[moved]):
        rows = moved & (target == name)
        col = new_bytes.setdefault(name, np.full(len(kernels), np.nan))
        col[rows] = dram[rows]
        new_bytes[COMPULSORY_LEVEL][rows] = np.nan
    return KernelSet(kernels.names, kernels.time_s, kernels.count, kernels.flops, new_bytes,
                     kernels.families, kernels.variants, kernels.instructions, kernels.transactions,
                     kernels.modelled, kernels.operators, kernels.threads)
