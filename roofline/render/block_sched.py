"""Block scheduling inside kernels (:mod:`roofline.analysis.block_sched`)
written out and drawn: the rows of the report's section
(:mod:`.sections.block_sched`) beside each kernel's roofline verdict, the
per-SM timeline (:func:`timeline_figure`, matplotlib imported
when called) and plain text (:func:`block_sched_text`).

The report hands in itself (its ``results``, ``device`` and ``grouped``
placements); nothing here imports the report, the HTML or Markdown writers.
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from ..analysis.block_sched import BlockSchedule, schedules
from ..core.units import format_si
from .cells import _bound_text, _pct, _short, _t
from .style import plain_text

MAX_CHARTS = 3            # timelines drawn: the launches with the largest scheduling share
MAX_ROWS = 40             # launches listed
MAX_BARS = 200_000        # blocks drawn in one timeline (the SMs with the lowest ids first)
BAR, GAP = "#0072B2", "#D55E00"


def report_schedules(report) -> list[BlockSchedule]:
    """Every launch with block clocks among the report's inputs, converted
    with the report's device (computed once per report)."""
    hit = _CACHE.get(id(report))
    if hit is not None and hit[0]() is report:
        return hit[1]
    out = []
    for kernels in _kernel_lists(report):
        out += schedules(kernels, report.device)
    key = id(report)
    try:
        _CACHE[key] = (weakref.ref(report, lambda _: _CACHE.pop(key, None)), out)
    except TypeError:        # an object without weak references: computed each time
        pass
    return out


def has_block_clocks(report) -> bool:
    """Whether any input launch carries block clocks (cheap: no analysis)."""
    return any(_clocked(result.kernels) for result in getattr(report, "results", ()))


def _kernel_lists(report):
    """The Kernel objects of the rows whose launch carries block clocks, per
    input (no object is made for the other rows of a huge trace)."""
    for result in getattr(report, "results", ()):
        rows = _clocked(result.kernels)
        if rows:
            yield [result.kernels[i] for i in rows]


def _clocked(kernels) -> list[int]:
    return [i for i, launch in enumerate(kernels.launches.tolist()) if launch.get("block_sched") is not None]


_CACHE: dict[int, tuple] = {}


def verdicts(report) -> dict[str, dict]:
    """The report's grouped record of each kernel name that has a time (a
    profile with work counters or times beside the trace)."""
    out = {}
    for rec in report.grouped_records():
        t = rec.get("time_s")
        if t is not None and math.isfinite(t) and rec.get("count"):
            prev = out.get(rec["name"])
            if prev is None or t > prev["time_s"]:
                out[rec["name"]] = rec
    return out


def overhead_inside(s: BlockSchedule, verdict: dict | None) -> tuple[float | None, str]:
    """Seconds per call the scheduling gaps cost, and what they were taken
    from: share x the profiled time per call, else share x the traced span at
    the SM clock."""
    if verdict is not None:
        return s.share * verdict["time_s"] / verdict["count"], "share x profiled time per call"
    span = s.seconds(s.span_cycles)
    if span is not None:
        return s.share * span, "share x traced span at the SM clock"
    return None, ""


def rows(report) -> list[list[str]]:
    """One row of plain cell texts per launch (see :data:`HEADER`), most
    scheduling share first; [] when no input has block clocks."""
    found = report_schedules(report)
    if not found:
        return []
    known = verdicts(report)
    out = []
    for s in sorted(found, key=lambda s: -s.share)[:MAX_ROWS]:
        v = known.get(s.name)
        inside, _ = overhead_inside(s, v)
        verdict = "no roofline verdict (no profile with a time for this kernel)" if v is None else \
            f"{_bound_text(v)}, {_pct(v.get('efficiency'), 0)} of roof"
        used = f"{s.sms_used}" + (f" of {s.sm_count}" if s.sm_count else "")
        out.append([s.name, s.source, f"{s.blocks:,}", used, _range(s.sms.concurrent), f"{s.waves:.2f}",
                    _cycles(s.cost_cycles), _pct(s.share), _cycles(s.tail_cycles), _t(s.seconds(s.cost_cycles)),
                    verdict, _t(inside)])
    return out


HEADER = ["kernel", "trace", "blocks", "SMs used", "blocks/SM at once", "waves", "scheduling cost",
          "share of SM time", "tail", "cost in time", "roofline verdict", "overhead inside the kernel / call"]

NOTE = ("Block-scheduling cost: on each SM, the cycles between a block's end and the start of the block that "
        "takes its slot (with k blocks resident at once, the j-th block to start follows the (j-k)-th to end), "
        "summed over SMs; its share is that over k x the SM's busy span. It is overhead inside the kernel's GPU "
        "time, which the roofline does not see. Waves = blocks / the block slots observed on all SMs. Tail = the "
        "last SM's finish minus the median SM's finish (this one compares different SMs' clocks). Overhead "
        "inside the kernel = share x the kernel's time per call from the profile beside the trace, else x the "
        "traced span at the SM clock.")


def clock_line(report) -> str:
    found = report_schedules(report)
    return found[0].clock_source if found else ""


def figure_keys(report, limit: int = MAX_CHARTS) -> list[str]:
    """The names :func:`figures` gives its timelines, without drawing them."""
    return [f"block-sched-{i}" for i in range(1, min(limit, len(report_schedules(report))) + 1)]


def figures(report, limit: int = MAX_CHARTS) -> dict[str, object]:
    """``block-sched-1`` ... : the timelines of the launches with the
    largest scheduling share."""
    found = sorted(report_schedules(report), key=lambda s: -s.share)[:limit]
    return {f"block-sched-{i}": timeline_figure(s) for i, s in enumerate(found, 1)}


@plain_text
def timeline_figure(s: BlockSchedule, size=(10, None)):
    """One row per SM, its k block slots stacked inside the row, every block
    a bar from its start to its end, every scheduling gap an orange segment
    from the end of the block it followed to its start. Times from the
    kernel's first start, in µs at the SM clock or in cycles without one."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection

    ids, k = s.sms.sm, s.sms.concurrent
    keep_sms = len(ids)
    if s.blocks > MAX_BARS:
        keep_sms = max(1, int(np.searchsorted(np.cumsum(s.sms.blocks), MAX_BARS, side="right")))
    shown = np.isin(s.sm, ids[:keep_sms])
    row = np.searchsorted(ids, s.sm)
    height = 0.8 / k[row]
    y0 = row - 0.4 + s.lane * height
    scale, unit = (1e6 / s.clock_hz, "µs") if s.clock_hz else (1.0, "cycles")
    origin = s.start_cycles.min()
    x0, x1 = (s.start_cycles - origin) * scale, (s.end_cycles - origin) * scale
    idx = np.flatnonzero(shown)
    verts = np.stack([np.column_stack([x0[idx], y0[idx]]), np.column_stack([x1[idx], y0[idx]]),
                      np.column_stack([x1[idx], y0[idx] + 0.92 * height[idx]]),
                      np.column_stack([x0[idx], y0[idx] + 0.92 * height[idx]])], axis=1)
    w, h = size
    fig, ax = plt.subplots(figsize=(w, h or min(14.0, 2.0 + 0.12 * keep_sms)))
    ax.add_collection(PolyCollection(verts, facecolors=BAR, edgecolors="none", alpha=0.85))
    later = idx[s.previous[idx] >= 0]
    if later.size:
        prev = s.previous[later]
        yy = y0[later] + 0.46 * height[later]
        segs = np.stack([np.column_stack([x1[prev], yy]), np.column_stack([x0[later], yy])], axis=1)
        ax.add_collection(LineCollection(segs, colors=GAP, linewidths=2.0))
    ax.set_xlim(0, float(x1[idx].max()) * 1.01 or 1.0)
    ax.set_ylim(keep_sms - 0.5, -0.5)
    step = max(1, keep_sms // 24)
    ax.set_yticks(range(0, keep_sms, step))
    ax.set_yticklabels([str(int(v)) for v in ids[:keep_sms:step]])
    ax.set_ylabel("SM (%smid)")
    clock = f"at {format_si(s.clock_hz, 'Hz')}" if s.clock_hz else "SM clock unknown: give a device profile"
    ax.set_xlabel(f"time since the kernel's first block start ({unit}; {clock})")
    more = f"; first {keep_sms} of {len(ids)} SMs drawn" if keep_sms < len(ids) else ""
    ax.set_title(f"{_short(s.name, 70)}\nscheduling gaps {_pct(s.share)} of SM time, "
                 f"{s.blocks:,} blocks, {s.waves:.2f} waves{more}", fontsize=10, loc="left")
    ax.plot([], [], color=BAR, linewidth=6, label="block")
    ax.plot([], [], color=GAP, linewidth=2, label="scheduling gap")
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=2, fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def block_sched_text(found: list[BlockSchedule]) -> str:
    """Plain text: one line per launch, then the clock used."""
    if not found:
        return "no launch with block clocks\n"
    lines = ["block scheduling (gaps between a block's end and the next start on the same SM)"]
    for s in found:
        cost = f"{_cycles(s.cost_cycles)} cycles" + (f" ({_t(s.seconds(s.cost_cycles))})" if s.clock_hz else "")
        lines.append(f"  {_short(s.name, 50):<50} {s.blocks:>9,} blocks on {s.sms_used:>4} SMs, "
                     f"{s.waves:6.2f} waves, gaps {cost}, {_pct(s.share)} of SM time, tail "
                     f"{_cycles(s.tail_cycles)} cycles")
    lines.append(f"  clock: {found[0].clock_source}")
    return "\n".join(lines) + "\n"


def _range(k: np.ndarray) -> str:
    lo, hi = int(k.min()), int(k.max())
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _cycles(v) -> str:
    if v is None or not math.isfinite(v):
        return "–"
    return f"{v:,.0f}" if abs(v) < 1e6 else format_si(v, "").strip()
