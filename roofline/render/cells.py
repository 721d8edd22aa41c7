"""Cell text shared by the HTML and Markdown reports: times, shares,
rates, speed-ups, short kernel names and bound classes ("–" for no value)."""
from __future__ import annotations

import math

from ..core.units import format_si


def _t(v) -> str:
    return "–" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format_si(v, "s")


def _pct(v, digits: int = 1) -> str:
    return "–" if v is None or not math.isfinite(v) else f"{100 * v:.{digits}f}%"


def _rate(v, unit="FLOP/s") -> str:
    return "–" if not v or not math.isfinite(v) else format_si(v, unit)


def _x(v) -> str:
    return "–" if v is None or not math.isfinite(v) else f"{v:.2f}x"


def _short(name: str, width: int = 60) -> str:
    from .plot import short_name
    return short_name(name, width)


def _bound_text(record: dict) -> str:
    if record["bound"] == "bandwidth" and record["level"]:
        return f"bandwidth ({record['level']})"
    if record["bound"] == "overhead":
        return f"overhead ({record['overhead_kind']})"
    return "unknown" if record["bound"] == "unknown" else record["bound"]


def _reason_text(record: dict) -> str:
    """Why the kernel is below its roof, with the fixed cost where one was found."""
    reason = record.get("reason") or ""
    if reason == "fixed cost" and record.get("fixed_s"):
        return f"fixed cost {format_si(record['fixed_s'], 's')}/call"
    if record.get("reason_detail"):        # what the reason rests on (a slow kernel's peer)
        return f"{reason} ({record['reason_detail']})"
    return reason
