"""Overhead: fixed costs, host API and idle time, time per call against work."""
from __future__ import annotations

import math

from ..cells import _pct, _t
from ..document import Cell, Figure, Heading, Table, code, count, note, share, text, time

KEY, TITLE = "overhead", "Overhead"


def _host_note(ctx) -> str:
    """Why there are no program-level times, in words that fit the input."""
    if ctx.is_kineto():
        return ("The trace has no host API calls or timeline of its own beside the operators, so host time and "
                f"{'CPU' if ctx.cpu else 'GPU'} idle time cannot be told apart here.")
    return ("The inputs have no program-level times (host API calls, a timeline): a table of kernels has none. "
            "nvprof summaries, Nsight Systems and PyTorch profiler traces carry them.")


def build(r, ctx):
    a = r.overhead
    K = a.kernels
    unit = ctx.unit
    out = [note(f"Overhead is time that does not scale with the work. A{'n' if unit[0] in 'aeiou' else ''} {unit} "
                "is overhead-bound only on evidence: a fixed cost per call fitted across the sizes of the same "
                f"operator or kernel (or the profile's typical one) that is at least "
                f"{100 * ctx.rules.fixed_share:.0f} % of each call, a launch too small to fill the "
                f"{'cores' if ctx.cpu else 'GPU'}, or a framework operator with no work of its own; never when its "
                f"roofline time per call is {_t(ctx.rules.substantial_s)} or more.")]
    rows = [(text(f"overhead-bound {unit}s"), time(K.overhead_time_s),
             Cell(f"{_pct(K.overhead_share)} · {K.overhead_calls:,} calls", K.overhead_share, "share"))]
    rows += [(text(f"  {kind}"), time(t), share(t / K.total_time_s if K.total_time_s else None))
             for kind, t in K.by_kind.items()]
    if K.fitted_groups:
        rows.append((text(f"all fixed costs (fitted for {K.fitted_groups} operators/kernels, typical "
                          f"{_t(K.typical_fixed_s)} per call)"), time(K.fixed_cost_s), share(K.fixed_cost_share)))
    if K.launch_cost_s is not None:
        rows.append((text("host launch cost (calls × launch overhead; shows as gaps between kernels)"),
                     time(K.launch_cost_s), text("")))
    out += [Heading(f"{unit.capitalize()}s"), Table(("", "time", f"share of {unit} time"), tuple(rows), compact=True)]
    if K.top:
        from ..names import distinct_names
        out.append(Table((f"overhead-bound {unit}", "calls", "time", "per call"),
                         tuple((code(k.name, label), count(k.calls), time(k.time_s), time(k.per_call_s))
                               for k, label in zip(K.top, distinct_names([k.name for k in K.top], width=60)))))
    P = a.program
    out.append(Heading("Host API and idle time" if ctx.cpu else "Host API and GPU idle time"))
    if P is None:
        out.append(note(_host_note(ctx)))
    else:
        busy = "CPU busy" if ctx.cpu else "GPU busy"
        est = " (estimated: kernel and copy times)" if P.busy_estimated else ""
        api = time(P.api_total_s) if P.api_s else text("– (no API calls in the input)")
        prog = [(text("host API time"), api, text(f"{_pct(P.api_share)} of API + {busy}" if P.api_s else "")),
                (text(busy + est), time(P.gpu_busy_s), text(""))]
        if P.span_s is not None:
            prog += [(text("timeline span"), time(P.span_s), text("")),
                     (text(f"{busy.split()[0]} idle (span − busy)"), time(P.idle_s),
                      text(f"{_pct(P.idle_share)} of the span"))]
        out.append(Table(("", "time", "share"), tuple(prog), compact=True))
        if P.api_s:
            out.append(Table(("host API call", "time", "share of API time"),
                             tuple((code(n), time(t), share(t / P.api_total_s if P.api_total_s else None))
                                   for n, t in P.top_api(8))))
    fixed = getattr(a.view, "fixed_cost_s", None)
    line = ("; the orange line is the profile's typical fixed cost per call, fitted across sizes, and calls near "
            "it are dominated by that cost" if fixed and math.isfinite(fixed) else
            "; no fixed cost could be fitted across sizes, so no fixed-cost line is drawn")
    out.append(Figure("overhead", f"Time per call against FLOP per call. A call takes at least W / peak (black)"
                      f"{line}. {unit.capitalize()}s without a FLOP count sit in the grey strip."))
    return out
