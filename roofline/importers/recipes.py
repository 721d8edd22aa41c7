"""What to collect when a file lacks counters: one recipe per tool, read by
one function.

A file whose kernels (copies and sets aside) have no floating-point work, no
bytes or no duration cannot place them on a roofline. The advice names the
exact counters to add and the command line that collects them, in the
words of the tool that wrote the file: :data:`RECIPES` holds, per tool, the
counters of each kind and how to ask for them; :func:`missing_counter_advice`
is the one reader of it (NVIDIA's ``ncu``/``nvprof`` readers, their merge,
and every AMD reader).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..core.errors import Advice
from ..core.families import COPIES
from .amd.amd_counters import BYTE_COUNTERS_MI200, BYTE_COUNTERS_MI300, FLOP_COUNTERS
from .nvidia.counters import (NCU_BYTE_METRICS, NCU_FLOP_METRICS, NCU_TIME_METRICS, NVPROF_BYTE_METRICS,
                              NVPROF_FLOP_METRICS)

MISSING = "kernels have"   # prefix of the missing-counter advice (merge recomputes it)


@dataclass(frozen=True)
class Recipe:
    """How one tool collects what a roofline needs. ``command`` takes the
    counters joined by ``joiner``; a GPU in ``byte_counters_on`` has other
    byte counters, one in ``no_flop_counters_on`` none to collect."""
    command: str
    joiner: str
    flop_counters: tuple[str, ...]
    flop_source: str                       # "the file has no ..." when FLOPs are missing
    byte_counters: tuple[str, ...]
    byte_source: str
    tensor_hint: str = ""                  # said after the FLOP command
    says_what_it_has: bool = False         # "bytes but no floating-point work", tensor-core kernels counted
    no_duration: tuple[str, str] | None = None   # (why, fix) when no kernel has a time
    byte_counters_on: dict[str, tuple[str, ...]] = field(default_factory=dict)
    no_flop_counters_on: tuple[str, ...] = ()

    def collect(self, counters) -> str:
        return "collect them with: " + self.command.format(self.joiner.join(counters))


_ROCPROFV3 = "rocprofv3 --kernel-trace --pmc {} -- <app> (counters that do not fit one pass go " \
             "in an input file, one 'pmc:' line per pass: rocprofv3 -i input.txt)"
_ROCPROF = "rocprof --timestamp on -i input.txt <app>, input.txt holding 'pmc: {}' " \
           "(one 'pmc:' line per pass when they do not fit one)"
_ROCPROF_COMPUTE = "rocprof-compute profile --roof-only -n <name> -- <app>, which collects {}"
_MI200 = {"gfx90a": BYTE_COUNTERS_MI200, "gfx908": BYTE_COUNTERS_MI200}
# GPUs without per-precision VALU counters (rocprof-compute's roofline starts at MI200)
_NO_VALU_COUNTERS = ("gfx906", "gfx908")


def _amd(command: str) -> Recipe:
    return Recipe(command, " ", FLOP_COUNTERS, "VALU/MFMA instruction counters", BYTE_COUNTERS_MI300,
                  "cache or HBM request counters", byte_counters_on=_MI200, no_flop_counters_on=_NO_VALU_COUNTERS)


RECIPES = {
    "ncu": Recipe("ncu --metrics {} ...", ",", NCU_FLOP_METRICS, "floating-point instruction counters",
                  NCU_BYTE_METRICS, "byte counters", says_what_it_has=True,
                  tensor_hint=" (tensor-core kernels: add sm__ops_path_tensor_src_<type>_dst_<type>.sum)",
                  no_duration=("", f"collect it with: ncu --metrics {','.join(NCU_TIME_METRICS)} ...")),
    "nvprof": Recipe("nvprof --metrics {} ...", ",", NVPROF_FLOP_METRICS, "floating-point instruction counters",
                     NVPROF_BYTE_METRICS, "byte counters", says_what_it_has=True,
                     no_duration=(": nvprof --metrics/--events replays kernels and reports no time",
                                  "merge with the summary or --print-gpu-trace output of the same run: "
                                  "merge_results([...])")),
    "rocprofv3": _amd(_ROCPROFV3),
    "rocprof": _amd(_ROCPROF),
    "rocprof-compute": _amd(_ROCPROF_COMPUTE),
}


def missing_counter_advice(kernels, *, tool: str, subject: str, gfx: str | None = None) -> list[Advice]:
    """Advice naming the counters to collect (with ``tool``'s recipe; on
    AMD GPU ``gfx``) when no kernel has vector FLOPs, bytes or a duration.
    Copies and sets count for none of them; a file of only copies needs
    no counters."""
    recipe = RECIPES.get(tool, RECIPES["rocprofv3"])
    kernels = [k for k in kernels if k.family not in COPIES]
    if not kernels:
        return []
    out: list[Advice] = []
    if not any(any(not p.startswith("tensor") for p in k.flops) for k in kernels):
        out.append(Advice(f"{MISSING} {_no_flops(kernels, recipe)}: the file has no {recipe.flop_source}",
                          _flop_fix(recipe, gfx), subject))
    if not any(k.bytes for k in kernels):
        out.append(Advice(f"{MISSING} no memory traffic: the file has no {recipe.byte_source}",
                          recipe.collect(recipe.byte_counters_on.get(gfx or "", recipe.byte_counters)), subject))
    if recipe.no_duration and not any(math.isfinite(k.time_s) for k in kernels):
        why, fix = recipe.no_duration
        out.append(Advice(f"{MISSING} no duration{why}", fix, subject))
    return out


def _no_flops(kernels, recipe: Recipe) -> str:
    """What kernels without vector FLOPs have: bytes, tensor-core work."""
    if not recipe.says_what_it_has:
        return "no floating-point work"
    what = "bytes but no floating-point work" if any(k.bytes for k in kernels) else "no floating-point work"
    tensor = sum(1 for k in kernels if k.flops)
    return what + (f" (except tensor-core work in {tensor} kernel{'s' if tensor > 1 else ''})" if tensor else "")


def _flop_fix(recipe: Recipe, gfx: str | None) -> str:
    if gfx in recipe.no_flop_counters_on:
        return (f"{gfx} has no per-precision VALU counters (SQ_INSTS_VALU_ADD_F32 and the like start with "
                "MI200, gfx90a): profile on a newer GPU")
    return recipe.collect(recipe.flop_counters) + recipe.tensor_hint
