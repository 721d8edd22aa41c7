"""The instruction roofline (:mod:`roofline.analysis.instruction`) written
out and drawn: its ceilings and kernels as a text table or JSON, and as a
chart of warp instructions per second against warp instructions per
transaction, with the walls of global and shared access patterns
(matplotlib, imported when called)."""
from __future__ import annotations

import json

from ..analysis.instruction import (GLOBAL_WALLS, LEVELS, SHARED_WALLS, InstructionCeilings, InstructionRoofline,
                                    describe_access)
from ..core.units import format_si
from .style import plain_text


def ceilings_text(c: InstructionCeilings) -> str:
    lines = [f"instruction roofline ceilings of {c.device_name}",
             f"  peak        {c.warp_inst_s / 1e9:8.1f} warp GIPS   ({c.sources.get('instructions', '')})"]
    for lv, rate in c.transactions_s.items():
        lines.append(f"  {lv:<10}  {rate / 1e9:8.1f} GTXN/s      ({c.sources.get(lv, '')}; "
                     f"ridge {c.ridge(lv):.3g} inst/txn)")
    return "\n".join(lines) + "\n"


def instruction_table(roof: InstructionRoofline, limit: int | None = None, name_width: int = 40) -> str:
    """Ceilings, then kernels by descending time: warp GIPS, % of the
    instruction peak, intensity per level, limiter, % of roof, predication."""
    levels = [lv for lv in LEVELS if any(lv in p.intensity for p in roof.points)]
    header = ("kernel", "time", "warp GIPS", "% peak", *[f"inst/txn {lv}" for lv in levels],
              "limiter", "% roof", "pred.")
    rows = [header]
    points = sorted(roof.points, key=lambda p: -p.time_s)
    for p in points[:limit]:
        name = p.name + (f" [{p.variant}]" if p.variant else "")
        rows.append((name if len(name) <= name_width else name[: name_width - 1] + "…",
                     format_si(p.time_s, "s"), f"{p.warp_inst_s / 1e9:.1f}",
                     f"{100 * p.warp_inst_s / roof.ceilings.warp_inst_s:.1f}%",
                     *[f"{p.intensity[lv]:.3g}" if lv in p.intensity else "-" for lv in levels],
                     p.limiter, f"{100 * p.efficiency:.0f}%",
                     "-" if p.predication is None else f"{p.predication:.2f}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    text = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows]
    text.insert(1, "  ".join("-" * w for w in widths))
    for p in points[:limit]:
        for kind, x in p.access.items():
            text.append(f"  {p.name[:name_width]}: {kind} access {x:.3g} inst/txn: {describe_access(kind, x)}")
    if limit is not None and len(points) > limit:
        text.append(f"... {len(points) - limit} more kernels")
    return ceilings_text(roof.ceilings) + "\n" + "\n".join(text) + "\n"


def instruction_json(roof: InstructionRoofline) -> str:
    c = roof.ceilings
    return json.dumps({"device": c.device_name, "warp_inst_s": c.warp_inst_s,
                       "transactions_s": dict(c.transactions_s), "kernels": roof.records(),
                       "warnings": [str(w) for w in roof.warnings]}, indent=1)


@plain_text
def instruction_roofline_figure(roof: InstructionRoofline, title: str | None = None,
                                walls: bool = True, label_top: int = 6, size=(10, 6.5)):
    """Matplotlib Figure (no pyplot): warp GIPS against warp instructions per
    transaction, one marker per level per kernel, the access walls dashed."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    from .labels import Occupied
    from .plot import LEVEL_COLOR, LEVEL_MARKER, _label_diagonal, short_name
    colors = {**LEVEL_COLOR, "shared": "#E69F00"}
    markers = {**LEVEL_MARKER, "shared": "P"}
    c = roof.ceilings
    xs = [x for p in roof.points for x in p.intensity.values()] + [c.ridge(lv) for lv in c.transactions_s]
    xlim = (min([1 / 100] + [x / 4 for x in xs]), max([100.0] + [x * 4 for x in xs]))
    ys = [p.warp_inst_s for p in roof.points]
    ylim = (min([c.warp_inst_s / 1e4] + [y / 4 for y in ys]), c.warp_inst_s * 3)
    fig = Figure(figsize=size, layout="constrained")
    ax = fig.add_subplot()
    ax.set(xscale="log", yscale="log", xlim=xlim, ylim=ylim)
    ax.set_xlabel("instruction intensity [warp instructions per transaction]")
    ax.set_ylabel("performance [warp instructions/s]")
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title(title or f"Instruction roofline on {c.device_name}")
    fig.draw_without_rendering()      # the layout first: roof labels are placed in display units
    _draw_roofs(ax, c, xlim, colors, _label_diagonal, Occupied(ax))
    if walls:
        _draw_walls(ax)
    handles = _draw_points(ax, roof, colors, markers, label_top, short_name)
    if walls:
        handles.append(Line2D([], [], color="#555555", ls=":", label="access-pattern walls"))
    ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.9)
    return fig


def _draw_roofs(ax, c: InstructionCeilings, xlim, colors, label_diagonal, occupied) -> None:
    peak = c.warp_inst_s
    ax.axhline(peak, color="#333333", lw=1.6, zorder=2)
    ax.text(xlim[1] / 1.15, peak * 1.08, f"peak {peak / 1e9:.1f} warp GIPS", ha="right", fontsize=9)
    for i, (lv, rate) in enumerate(c.transactions_s.items()):
        ridge, color = c.ridge(lv), colors.get(lv, "#555555")
        x = [xlim[0], min(ridge, xlim[1])]
        ax.plot(x, [v * rate for v in x], color=color, lw=1.4, zorder=2)
        # labels start further right level by level so close roofs stay legible
        start = x[0] * (x[1] / x[0]) ** (0.18 * i)
        label_diagonal(ax, [start, x[1]], rate, f"{lv} {rate / 1e9:.3g} GTXN/s", color, 0.12, occupied)


def _draw_walls(ax) -> None:
    labels: dict[float, list[str]] = {}
    for prefix, walls in (("global", GLOBAL_WALLS), ("shared", SHARED_WALLS)):
        for name, x in walls:
            labels.setdefault(x, []).append(name if x == 1.0 else f"{prefix}: {name}")
    bottom = ax.get_ylim()[0]
    for x, names in labels.items():
        ax.axvline(x, color="#555555", ls=":", lw=1.0, zorder=1)
        ax.text(x * 1.06, bottom * 1.5, " / ".join(names), rotation=90, va="bottom",
                fontsize=7.5, color="#555555")


def _draw_points(ax, roof, colors, markers, label_top, short_name) -> list:
    from matplotlib.lines import Line2D
    seen = []
    for lv in LEVELS:
        pts = [p for p in roof.points if lv in p.intensity]
        if not pts:
            continue
        color, marker = colors.get(lv, "#555555"), markers.get(lv, "o")
        ax.scatter([p.intensity[lv] for p in pts], [p.warp_inst_s for p in pts], s=45, marker=marker,
                   color=color, edgecolors="white", linewidths=0.6, zorder=4)
        seen.append(Line2D([], [], ls="", marker=marker, color=color, label=f"intensity at {lv}"))
    for kind, level, label in (("global", "L1", "global LD/ST per L1 sector"),
                               ("shared", "shared", "shared LD/ST per wavefront")):
        pts = [p for p in roof.points if kind in p.access]
        if pts:  # hollow: memory instructions only, to read against the walls
            color, marker = colors.get(level, "#555555"), markers.get(level, "o")
            ax.scatter([p.access[kind] for p in pts], [p.warp_inst_s for p in pts], s=45, marker=marker,
                       facecolors="none", edgecolors=color, linewidths=1.2, zorder=4)
            seen.append(Line2D([], [], ls="", marker=marker, markerfacecolor="none", color=color, label=label))
    for p in sorted(roof.points, key=lambda p: -p.time_s)[:label_top]:
        if p.intensity:
            ax.annotate(short_name(p.name), (max(p.intensity.values()), p.warp_inst_s),
                        textcoords="offset points", xytext=(6, 6), fontsize=8, zorder=5)
    return seen
