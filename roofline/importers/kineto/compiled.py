"""torch.compile in a Kineto trace: Inductor's own counts on Triton
launches, and compiled graphs.

A Triton launcher (``cpu_op`` named like its kernel) is modelled by
:mod:`roofline.ops.triton` from its shapes and its name's fused ops. Where
Inductor wrote ``kernel_flop``/``kernel_num_gb`` on it (torch >= 2.9 with
``TORCHINDUCTOR_BENCHMARK_KERNEL=1``), those counts replace the model
(:func:`apply_inductor_counts`). ``CompiledFunction``,
``CompiledFunctionBackward`` and ``Torch-Compiled Region: N/M`` are the
compiled graphs: the kernels inside them without an operator of their own
are named by them and say so (:mod:`.why`).

On a CPU trace Inductor's C++ kernels (``cpp_fused_*``) run inside the
innermost compiled graph's own time (:func:`innermost_graphs`): element-wise,
normalization and softmax work, never dispatch. The trace records no kernel
inside and no output of the graph, and its recorded inputs bound neither
what it reads nor what it writes, so its row is work of its own that no
model sizes (reason ``no model for the operator``, or ``compiled graph
without shapes`` where the call has none), and a warning gives its share.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import Advice
from ...core.units import format_si
from ...ops.call import Args, OpCall
from ...ops.triton import counted_work
from .why import COMPILED_GRAPHS


def apply_inductor_counts(tree, ops, extras) -> int:
    """Replace the modelled work of Triton launches that carry Inductor's
    counts; returns how many operators it changed."""
    changed = 0
    for o, (flop, num_gb) in extras.op_counts.items():
        if o >= len(tree.work):
            continue
        dtype = None
        if ops.call[o] >= 0:
            types = ops.decoded(ops.call[o])[1]
            dtype = next((t for t in types or () if isinstance(t, str) and t not in ("Scalar", "")), None)
        w = counted_work(flop, num_gb, dtype, ops.names[o] if o < len(ops.names) else "")
        if w is None:
            continue
        tree.work[o] = tree.counted[o] = w
        tree.does_work[o] = True
        tree.matrix[o] = bool(w.matrix)
        tree.counted_code[o] = -2 - o           # a code of its own (.operators.OpTree)
        tree.has_aside[o] = w.aside is not None
        tree.delegated[o] = False
        changed += 1
    return changed


def innermost_graphs(ops, parent: np.ndarray, graph: np.ndarray | None = None) -> np.ndarray:
    """Per operator: a compiled graph with no compiled graph inside it. On
    a CPU trace Inductor's C++ kernels run in its self time (an outer
    ``Torch-Compiled Region`` around a ``CompiledFunction`` only wraps it:
    Dynamo's guards and AOTAutograd's wrapper, overhead). ``graph``: whether
    each operator is a compiled graph, where already found (once per name)."""
    n = len(ops)
    if graph is None:
        graph = np.fromiter((str(name).startswith(COMPILED_GRAPHS) for name in ops.names), dtype=bool, count=n)
    outer = np.zeros(n, dtype=bool)
    for o in np.flatnonzero(graph).tolist():
        p = int(parent[o])
        while p >= 0 and not outer[p]:
            outer[p] = graph[p]
            p = int(parent[p])
    return graph & ~outer


def recorded_input_bytes(ops, o: int) -> float | None:
    """Bytes of the tensors a compiled graph's call records as its inputs
    (None: no shapes recorded). Not a lower bound on what its C++ kernels
    move (an embedding table is gathered, not read whole; weights go to the
    extern GEMMs inside, whose rows count them), so it sizes no row."""
    call = ops.call[o]
    if call < 0:
        return None
    dims, types, strides, _ = ops.decoded(call)
    if not isinstance(dims, list) or not isinstance(types, list):
        return None
    args = Args(OpCall(ops.names[o], dims=_frozen(dims), types=_frozen(types),
                       strides=_frozen(strides) if isinstance(strides, list) else ()))
    return float(sum(args.stored_bytes(i) for i in args.tensor_positions()))


def _frozen(x):
    return tuple(_frozen(v) for v in x) if isinstance(x, list) else x


def compiled_cpu_note(ops, self_time_us: np.ndarray, graphs: np.ndarray, warnings: list) -> None:
    """On a CPU trace: the compiled graphs' self time is Inductor's C++
    kernels, work no operator model sizes; its share and what each graph's
    call records of its inputs."""
    idx = np.flatnonzero(graphs)
    total = float(np.sum(self_time_us))
    if not len(idx) or total <= 0:
        return
    by_name: dict[str, list] = {}
    for o in idx.tolist():
        t = by_name.setdefault(str(ops.names[o]), [0.0, None])
        t[0] += float(self_time_us[o])
        nbytes = recorded_input_bytes(ops, o)
        if nbytes is not None:
            t[1] = max(t[1] or 0.0, nbytes)
    share = sum(t for t, _ in by_name.values()) / total
    listed = sorted(by_name.items(), key=lambda kv: -kv[1][0])
    parts = [f"{name} {t / total:.1%}" + (f" (inputs recorded: {format_si(b, 'B')})" if b else " (no shapes)")
             for name, (t, b) in listed[:4]]
    warnings.append(Advice(
        f"{share:.1%} of operator time is the own time of compiled graphs, where Inductor's C++ kernels "
        f"(cpp_fused_*) run: {', '.join(parts)}{' ...' if len(listed) > 4 else ''}. It is work, not dispatch; "
        "no operator model sizes it (the trace records no kernel inside, and a graph's recorded inputs "
        "bound neither its reads nor its writes)",
        "TORCH_COMPILE_DEBUG=1 writes the generated C++ (output_code.py) naming each fused kernel; "
        "profile the eager model for per-operator work", subject="compiled"))
