"""Kernels replayed from a CUDA or HIP graph (``cudaGraphLaunch``,
``hipGraphLaunch``): the runtime call that launched them names no kernel
and no shapes, since the graph's launches happened when it was captured.

Where the trace also holds the capture, each captured launch is a runtime
call that ran no kernel in the trace (a capture only records), inside the
operator that made it, with its shapes: ROCm names the kernel on the call
(``args.kernel``); elsewhere Inductor's Triton launchers are operators
named like their kernel (``triton_poi_fused_*`` with ``Input Dims``). A
replayed kernel takes the work of the captured launch of its name: the
k-th replay of a name the k-th capture of it, round again for every replay
of the graph, and each replay does that launch's whole work. Without the capture in the trace
the kernel says so (``replayed from a CUDA graph``).
"""
from __future__ import annotations

import numpy as np

GRAPH_LAUNCHES = ("cudaGraphLaunch", "hipGraphLaunch", "cuGraphLaunch")


def graph_launch_rows(names: list, first_row: int) -> list[int]:
    """Rows (numbered from ``first_row``) of the runtime calls among
    ``names`` that launch a graph."""
    graph = {n for n in set(names) if n.startswith(GRAPH_LAUNCHES)}
    return [first_row + i for i, n in enumerate(names) if n in graph] if graph else []


def replayed(call: np.ndarray, graph_rows: set) -> np.ndarray:
    """Whether each kernel's runtime call (row in ``call``, -1: none)
    launched a graph."""
    if not graph_rows:
        return np.zeros(len(call), dtype=bool)
    return np.isin(call, np.fromiter(graph_rows, dtype=np.int64, count=len(graph_rows)))


def capture_operators(gpu, ops, op_of: np.ndarray, replays: np.ndarray, locate) -> dict[str, list[int]]:
    """Kernel name -> the operators of its captured launches, in time order:
    the operator around each runtime call that names a kernel (ROCm's
    ``args.kernel``) but ran none in the trace; else, for names no such
    call gives, operators with shapes named like the kernel (Inductor's
    Triton launchers) that launched no kernel of their own. ``locate(threads,
    times)``: the innermost operator around each call (-1: none)."""
    wanted = {gpu.kernel_names[j] for j in np.flatnonzero(replays).tolist()}
    found: dict[str, list[tuple]] = {}
    ran = set(gpu.kernel_corr)
    rows = [r for r, k in gpu.api_kernel.items() if k in wanted and gpu.api_corr[r] not in ran]
    if rows:
        around = locate([gpu.api_tid[r] for r in rows], np.array([gpu.api_ts[r] for r in rows], dtype=float))
        for r, o in zip(rows, around.tolist()):
            if o >= 0:
                found.setdefault(gpu.api_kernel[r], []).append((gpu.api_ts[r], o))
    own = set(np.unique(op_of[op_of >= 0]).tolist())
    named = wanted - set(found)
    for o, name in enumerate(ops.names):
        if name in named and ops.call[o] >= 0 and o not in own:
            found.setdefault(name, []).append((ops.ts[o], o))
    return {name: [o for _, o in sorted(launches)] for name, launches in found.items()}


def captured_launches(kernel_names: list, kernel_ts: list, captures: dict[str, list[int]],
                      replays: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(replayed kernels, the captured launch's operator each takes its
    work from): the k-th replay of a name in time order the k-th capture,
    round again for every replay of the graph."""
    idx = np.flatnonzero(replays)
    seen: dict[str, int] = {}
    kernels, launchers = [], []
    for j in sorted(idx.tolist(), key=kernel_ts.__getitem__):
        launches = captures.get(kernel_names[j])
        if launches:
            k = seen.get(kernel_names[j], 0)
            seen[kernel_names[j]] = k + 1
            kernels.append(j)
            launchers.append(launches[k % len(launches)])
    return np.array(kernels, dtype=np.int64), np.array(launchers, dtype=np.int64)
