"""The roofs of one core of a CPU, for kernels that ran on one thread.

A measured CPU profile keeps its one-core figures beside the all-core
ceilings (``architecture["single_core"]``, written by ``roofline measure``).
A single-threaded NumPy operation, or a PyTorch trace recorded with one
intra-op thread, is compared with those: the all-core DRAM roof of a
two-core machine is about twice what one core can pull.
"""
from __future__ import annotations

from dataclasses import replace

from .model import Ceiling, Device, MemoryLevel


def one_core_device(device: Device) -> Device | None:
    """``device`` with its one-core ceilings, or None when the profile has
    none (a GPU, a datasheet profile, a CPU measured on one core only)."""
    if device.kind != "cpu":
        return None
    single = device.architecture.get("single_core") if device.architecture else None
    if not isinstance(single, dict):
        return None
    compute = {}
    for key, c in (single.get("compute") or {}).items():
        rate = c.get("flop_s") if isinstance(c, dict) else None
        if key in device.compute and _positive(rate):
            compute[key] = Ceiling(rate, tuple(c.get("samples") or ()), c.get("theoretical_flop_s"),
                                   device.compute[key].clock_hz, "one core")
    if not compute:
        return None
    memory = {}
    for name, level in device.memory.items():
        m = (single.get("memory") or {}).get(name)
        rate = m.get("bytes_s") if isinstance(m, dict) else None
        if _positive(rate):
            level = MemoryLevel(name, Ceiling(rate, tuple(m.get("samples") or ()), None,
                                              level.bandwidth.clock_hz, "one core"),
                                level.transaction_bytes, level.capacity_bytes)
        memory[name] = level
    return replace(device, name=f"{device.name} (1 core)", compute=compute, memory=memory, warnings=())


def _positive(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0
