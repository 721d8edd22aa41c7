"""Serving step: per phase of an inference engine's steps (prefill,
decode, both batched), the share of its kernel time that is compute-,
bandwidth-, communication- and overhead-bound, and unknown (rows from
:func:`roofline.render.step_rows.serving_phases`)."""
from __future__ import annotations

from ..document import Code, Table, note, share, text, time
from ..step_rows import serving_phases

KEY, TITLE = "serving", "Serving step"
_BOUNDS = (("compute", "compute_s"), ("bandwidth", "bandwidth_s"), ("communication", "communication_s"),
           ("overhead", "overhead_s"), ("unknown", "unknown_s"))


def build(r, ctx):
    phases = serving_phases(r)
    if not phases:
        return None
    return [note("Kernel time of the serving engine's steps by phase, from the step ranges the trace marks (vLLM's ",
                 Code("execute_..._context_N(...)_generation_M(...)"), ", SGLang's ", Code("step[EXTEND ...]"), "/",
                 Code("step[DECODE ...]"), "): prefill when a step holds only context requests, decode when only "
                 "generation ones, prefill+decode when both. Each bound is a share of the phase's time: compute and "
                 "bandwidth where the roofline places the kernel, communication every collective kernel, unknown "
                 "what has no work (see Warnings for why)."),
            Table(("phase", "time", "share") + tuple(b for b, _ in _BOUNDS),
                  tuple((text(p.phase), time(p.time_s), share(p.share))
                        + tuple(share(getattr(p, f) / p.time_s) if getattr(p, f) > 0 else text("")
                                for _, f in _BOUNDS) for p in phases), compact=True)]
