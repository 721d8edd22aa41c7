"""Exposed communication of a Kineto trace: for each communication kernel,
the part of its time no compute kernel overlaps (``docs/pytorch.md``,
"Collectives"). Compute is every other kernel, on any stream (copies are
not compute); a collective that runs while a GEMM runs on another stream
is hidden for that long, and only the rest delays the step."""
from __future__ import annotations

import numpy as np

from ...core.comm import CommLaunches, exposed
from ...core.families import family_of


def comm_launches(gpu, comm) -> CommLaunches | None:
    """The communication launches of the trace, with their exposed time
    (None when the trace has none)."""
    names = gpu.kernel_names
    if not names:
        return None
    is_comm = {k: family_of(k) == "communication" for k in set(names)}
    if not any(is_comm.values()):
        return None
    mask = np.fromiter(map(is_comm.__getitem__, names), dtype=bool, count=len(names))
    ts = np.asarray(gpu.kernel_ts, dtype=float)
    dur = np.asarray(gpu.kernel_dur, dtype=float)
    idx = np.flatnonzero(mask)
    idx = idx[np.argsort(ts[idx], kind="stable")]
    comp = ~mask
    exposed_us = exposed(ts[idx], ts[idx] + dur[idx], ts[comp], ts[comp] + dur[comp])
    coll, group, size = [], [], np.full(len(idx), np.nan)
    for i, j in enumerate(idx.tolist()):
        c = int(comm.code[j])
        info = comm.collectives[c] if c >= 0 else None
        coll.append(info.name if info is not None else "")
        group.append(_group(gpu.extras.kernel_comm.get(j), info))
        if info is not None:
            size[i] = info.bytes
    return CommLaunches(tuple(names[j] for j in idx.tolist()), tuple(coll), tuple(group), size,
                        ts[idx] * 1e-6, dur[idx] * 1e-6, exposed_us * 1e-6)


def _group(args, info) -> str:
    """The process group to match a launch on across ranks: the one the
    source that sized its collective names (kernel arguments,
    ``record_param_comms``, the trace's only process group), else the
    kernel's own arguments, else its group size (groups of one size are
    then not told apart)."""
    if info is not None and info.group:
        return info.group
    if args is not None and args.group_name is not None:
        return str(args.group_name)
    if args is not None and args.group_ranks is not None:
        return str(args.group_ranks)
    return f"{info.group_size} ranks" if info is not None and info.group_size else ""
