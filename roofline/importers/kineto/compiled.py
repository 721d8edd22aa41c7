"""torch.compile in a Kineto trace: Inductor's own counts on Triton
launches, and compiled graphs.

A Triton launcher (``cpu_op`` named like its kernel) is modelled by
:mod:`roofline.ops.triton` from its shapes and its name's fused ops. Where
Inductor wrote ``kernel_flop``/``kernel_num_gb`` on it (torch >= 2.9 with
``TORCHINDUCTOR_BENCHMARK_KERNEL=1``), those counts replace the model
(:func:`apply_inductor_counts`). ``CompiledFunction``,
``CompiledFunctionBackward`` and ``Torch-Compiled Region: N/M`` are the
compiled graphs: the kernels inside them without an operator of their own
are named by them and say so (:mod:`.why`). On a CPU trace Inductor's C++
kernels (``cpp_fused_*``) run inside the compiled region's own time.
"""
from __future__ import annotations

from ...core.errors import Advice
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
        tree.delegated[o] = False
        changed += 1
    return changed


def compiled_cpu_note(ops, warnings: list) -> None:
    """On a CPU trace: the compiled regions' self time holds Inductor's C++ kernels."""
    names = {n for n in set(ops.names) if n.startswith(COMPILED_GRAPHS)}
    if names:
        warnings.append(Advice(
            f"{len(names)} compiled graph(s) ({', '.join(sorted(names)[:3])}): Inductor's C++ kernels run "
            "inside the compiled region's own time, which no operator model sizes",
            "profile the eager model, or read Inductor's generated code (TORCH_COMPILE_DEBUG=1) for "
            "what each region does", subject="compiled"))
