"""How much a CPU cache level holds for an operator, by the threads it ran on.

A profile's ``capacity_bytes`` of a level is one instance of it, as the OS
lists it (one core's L2). A level private to each core (``shared_cpus``
1 in ``architecture.os_caches``, written by ``roofline measure``) holds, for
an operator that ran on T threads, T instances together: an in-place
``add_`` of 3 MiB on two threads keeps its halves in two 2 MiB L2s. The
all-core roofs of such a level were measured that way (every thread on
its own share of the working set). A shared level (L3 of a socket or a
CCX) holds one instance per ``shared_cpus`` CPUs.

So the working set a level holds is judged against
``instance bytes x instances the threads span`` (never more instances than
the profile's threads span): one instance for a one-thread row, all of
them for a row that ran on every intra-op thread (``threads`` NaN: all
cores). Where the profile does not say how a level is shared, its
capacity stays one instance (the old, conservative reading). numpy at most.
"""
from __future__ import annotations

import math

import numpy as np


def instances(device, level: str, threads: np.ndarray) -> np.ndarray:
    """Per row: instances of ``level`` that ``threads`` threads span (1
    where the profile does not say how the level is shared)."""
    threads = np.asarray(threads, dtype=float)
    arch = device.architecture or {}
    cores = arch.get("threads")
    caches = arch.get("os_caches")
    entry = caches.get(level) if isinstance(caches, dict) else None
    shared = entry.get("shared_cpus") if isinstance(entry, dict) else None
    if not _count(cores) or not _count(shared) or device.kind != "cpu":
        return np.ones(len(threads))
    used = np.where(np.isfinite(threads) & (threads >= 1), np.minimum(threads, cores), cores)
    return np.maximum(np.ceil(used / shared), 1.0)


def held_bytes(device, threads: np.ndarray) -> dict[str, np.ndarray]:
    """Per cache level with a known capacity: the bytes it holds for each
    row, by the threads the row ran on (see the module doc)."""
    out = {}
    for name, level in device.memory.items():
        if level.capacity_bytes:
            out[name] = level.capacity_bytes * instances(device, name, threads)
    return out


def _count(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 < x < math.inf
