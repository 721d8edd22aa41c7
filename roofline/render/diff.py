"""Two runs, or two device profiles, compared (:mod:`roofline.analysis.diff`)
and written out: a text table (speed-up = time A / time B, roof = % of
roofline on each side) or JSON with every row."""
from __future__ import annotations

import json
import math

from ..analysis.diff import DeviceDiff, PlacementDiff
from ..core.units import format_si


def diff_json(d: PlacementDiff | DeviceDiff) -> str:
    head = {"a": d.device_a, "b": d.device_b}
    if isinstance(d, PlacementDiff):
        head.update(by=d.by, total_a_s=d.total_a_s, total_b_s=d.total_b_s, speedup=d.speedup)
    return json.dumps({**head, "rows": d.records()}, indent=1)


def diff_table(d: PlacementDiff | DeviceDiff, limit: int | None = None, name_width: int = 44) -> str:
    if isinstance(d, DeviceDiff):
        return _device_table(d)
    rows = [("kernel" if d.by == "name" else "family", "time A", "time B", "delta", "speed-up",
             "roof A", "roof B", "bound A", "bound B", "change")]
    for r in d.rows[:limit]:
        rows.append((_short(r.key, name_width), _time(r.time_a_s), _time(r.time_b_s),
                     _signed_time(r.delta_s), _ratio(r.speedup), _pct(r.efficiency_a),
                     _pct(r.efficiency_b), r.bound_a or "-", r.bound_b or "-", r.status))
    rows.append(("total", _time(d.total_a_s), _time(d.total_b_s),
                 _signed_time(d.total_b_s - d.total_a_s), _ratio(d.speedup), "", "", "", "", ""))
    text = _align(rows, left={0, 7, 8, 9})
    if limit is not None and len(d.rows) > limit:
        text.insert(-1, f"... {len(d.rows) - limit} more rows (use --format json for all)")
    title = f"A: {d.device_a}   B: {d.device_b}   (speed-up = time A / time B; roof = % of roofline)"
    return title + "\n" + "\n".join(text) + "\n"


def _device_table(d: DeviceDiff) -> str:
    rows = [("ceiling", "", "A", "B", "B / A")]
    for r in d.rows:
        a, b = ("-" if v is None else format_si(v, r.unit) for v in (r.value_a, r.value_b))
        rows.append((r.kind, r.key, a, b, _ratio(r.ratio)))
    return f"A: {d.device_a}\nB: {d.device_b}\n" + "\n".join(_align(rows, left={0, 1})) + "\n"


def _align(rows, left) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _time(v) -> str:
    return "-" if v is None else format_si(v, "s")


def _signed_time(v) -> str:
    if v is None or not math.isfinite(v):
        return "-"
    return ("+" if v > 0 else "") + format_si(v, "s")


def _ratio(v) -> str:
    # a time of 1e-300 s makes ratios of 300 digits: short form past 10,000
    return "-" if v is None else f"{v:.2f}x" if abs(v) < 1e4 else f"{v:.2g}x"


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.0f}%" if abs(v) < 100 else f"{100 * v:.2g}%"
