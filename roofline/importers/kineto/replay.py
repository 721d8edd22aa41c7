"""Kernels replayed from a CUDA or HIP graph (``cudaGraphLaunch``,
``hipGraphLaunch``): the runtime call that launched them names no kernel
and no shapes, since the graph's launches happened when it was captured.

Where the trace also holds the capture (or :mod:`.capture` read it from
its own file beside the replay), each captured launch is a runtime call
that ran no kernel in the trace (a capture only records), inside the
operator that made it, with its shapes. ROCm names the kernel on the call
(``args.kernel``): each graph launch then takes the run of captured
launches whose kernel names are its kernels' names in order
(:func:`joined_launches`). Elsewhere Inductor's Triton launchers are
operators named like their kernel (``triton_poi_fused_*`` with ``Input
Dims``): the k-th replay of a name takes the k-th capture of it, round
again for every replay of the graph. Each replay of a graph does its
captured launches' whole work (:func:`replay_shares`). Without the
capture the kernel says so (``replayed from a CUDA graph``).
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


def joined_launches(gpu, ops, op_of: np.ndarray, replays: np.ndarray, call: np.ndarray,
                    locate) -> tuple[np.ndarray, np.ndarray]:
    """(replayed kernels, the captured launch's operator each takes its
    work from).

    Where the captured launches name their kernels (ROCm), each graph
    launch is matched to the run of captured launches whose kernel names
    are its replayed kernels' names in the same order, in the capture of one
    thread (one graph's capture runs on one thread; a capture read from
    another file keeps threads of its own): the i-th replayed kernel takes
    the i-th launch of that run. Runs are searched from where the previous
    replay of that capture ended, so the pieces of a piecewise graph and
    repeated replays follow the capture's order. A replay whose names match
    runs in the captures of two threads (two batch sizes with the same
    kernels) is ambiguous and left unjoined. Names no captured launch gives
    (Inductor's Triton launchers on CUDA) fall back to
    :func:`capture_operators` and :func:`captured_launches`."""
    ran = set(gpu.kernel_corr)
    rows = sorted((r for r in gpu.api_kernel if gpu.api_corr[r] not in ran),
                  key=lambda r: (str(gpu.api_tid[r]), gpu.api_ts[r]))
    names = sorted({gpu.kernel_names[j] for j in np.flatnonzero(replays).tolist()}
                   | {gpu.api_kernel[r] for r in rows})
    code = {n: i for i, n in enumerate(names)}
    sources = _capture_runs(gpu, rows, code)
    kernels, captured = [], []
    for members in _graph_replays(gpu, replays, call) if sources else ():
        seq = np.array([code[gpu.kernel_names[j]] for j in members], dtype=np.int64)
        found = [(key, at) for key, src in sources.items() if (at := _run_at(src, seq)) is not None]
        if len(found) != 1:          # no capture of this sequence, or two (ambiguous): left unjoined
            continue
        key, at = found[0]
        src = sources[key]
        src["cursor"] = at + len(seq)
        kernels += members
        captured += src["rows"][at:at + len(seq)]
    kernels_a = np.array(kernels, dtype=np.int64)
    launchers = np.zeros(0, dtype=np.int64)
    if captured:
        launchers = locate([gpu.api_tid[r] for r in captured],
                           np.array([gpu.api_ts[r] for r in captured], dtype=float))
    keep = launchers >= 0
    kernels_a, launchers = kernels_a[keep], launchers[keep]
    given = {gpu.api_kernel[r] for r in rows}
    rest = replays.copy()
    rest[kernels_a] = False
    rest &= np.fromiter((n not in given for n in gpu.kernel_names), dtype=bool, count=len(rest))
    if rest.any():
        more, by = captured_launches(gpu.kernel_names, gpu.kernel_ts,
                                     capture_operators(gpu, ops, op_of, rest, locate), rest)
        kernels_a, launchers = np.concatenate([kernels_a, more]), np.concatenate([launchers, by])
    return kernels_a, launchers


def _capture_runs(gpu, rows: list, code: dict) -> dict:
    """Per capturing thread: its captured launches (rows, in time order)
    and their kernel names as codes, with a search cursor."""
    out: dict = {}
    for r in rows:
        src = out.setdefault(str(gpu.api_tid[r]), {"rows": [], "codes": [], "cursor": 0})
        src["rows"].append(r)
        src["codes"].append(code[gpu.api_kernel[r]])
    for src in out.values():
        src["codes"] = np.array(src["codes"], dtype=np.int64)
    return out


def _graph_replays(gpu, replays: np.ndarray, call: np.ndarray) -> list[list[int]]:
    """The replayed kernels of each graph launch (its runtime call), in
    time order, the launches in the order of their calls."""
    idx = np.flatnonzero(replays)
    by_call: dict[int, list[int]] = {}
    for j in idx.tolist():
        by_call.setdefault(int(call[j]), []).append(j)
    order = sorted(by_call, key=lambda c: gpu.api_ts[c])
    return [sorted(by_call[c], key=gpu.kernel_ts.__getitem__) for c in order]


def _run_at(src: dict, seq: np.ndarray) -> int | None:
    """Where ``seq`` occurs as a run of the capture ``src``'s kernel codes,
    searching from its cursor and then from its start; None: nowhere."""
    codes_, n = src["codes"], len(seq)
    if n == 0 or n > len(codes_):
        return None
    starts = np.flatnonzero(codes_[: len(codes_) - n + 1] == seq[0])
    starts = np.concatenate([starts[starts >= src["cursor"]], starts[starts < src["cursor"]]])
    for s in starts.tolist():
        if np.array_equal(codes_[s:s + n], seq):
            return s
    return None


def replay_shares(op_of: np.ndarray, kernels: np.ndarray, call: np.ndarray, durations,
                  takes: np.ndarray, aside: np.ndarray) -> np.ndarray:
    """The share of its captured operator's work each joined replayed
    kernel takes: every replay of a graph does the captured work once, so
    within one graph launch the kernels of one operator that take its work
    (or, apart, its ``aside`` work: .attribution) split it by their
    durations (equally when all are 0 long)."""
    dur = np.asarray(durations, dtype=float)[kernels]
    mine = (takes | aside)[kernels]
    key = (2 * op_of[kernels] + aside[kernels]) * (int(call.max(initial=0)) + 2) + (call[kernels] + 1)
    uniq, inv = np.unique(key[mine], return_inverse=True)
    total = np.bincount(inv, weights=dur[mine], minlength=len(uniq))
    calls = np.bincount(inv, minlength=len(uniq))
    out = np.zeros(len(kernels))
    with np.errstate(divide="ignore", invalid="ignore"):
        out[mine] = np.where(total[inv] > 0, dur[mine] / total[inv], 1.0 / calls[inv])
    return out
