"""A projection (:mod:`roofline.analysis.projection`) as JSON, CSV and a
terminal table. The JSON field names are a contract with scripts:
``source_device``, ``target_device``, ``measured_time_s``,
``projected_time_s``, ``interval_s`` ([low, high], 80 %),
``at_roof_time_s``, ``families`` and ``rows``."""
from __future__ import annotations

import json
import math

import numpy as np

from ..analysis.projection import Projection, device_label
from ..analysis.projection_bases import KEYS, TEXT
from ..core.units import format_si
from .terminal import visible
from .tables import _csv_text

CSV_FIELDS = ("name", "family", "measured_time_s", "projected_time_s", "interval_low_s", "interval_high_s",
              "at_roof_time_s", "in_total", "basis", "basis_text")


def _num(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _sum_dict(s) -> dict:
    return {"measured_time_s": _num(s.measured_s), "projected_time_s": _num(s.projected_s),
            "interval_s": [_num(s.low_s), _num(s.high_s)], "at_roof_time_s": _num(s.at_roof_s)}


def projection_dict(p: Projection) -> dict:
    """The projection as plain data (the module doc names the fields)."""
    total = p.totals.total
    rows = [{"name": str(p.names[i]), "family": str(p.families[i]),
             "measured_time_s": _num(p.measured_s[i]), "projected_time_s": _num(p.projected_s[i]),
             "interval_s": [_num(p.low_s[i]), _num(p.high_s[i])], "at_roof_time_s": _num(p.at_roof_s[i]),
             "in_total": bool(p.counted[i]), "basis": KEYS[int(p.basis[i])], "basis_text": TEXT[int(p.basis[i])]}
            for i in range(len(p))]
    return {"source_device": device_label(p.source), "target_device": device_label(p.target),
            **_sum_dict(total), "interval_level": 0.8, "at_roof_share": p.share,
            "families": {f: _sum_dict(s) for f, s in p.totals.families.items()},
            "notes": list(p.notes), "rows": rows}


def projection_json(p: Projection) -> str:
    return json.dumps(projection_dict(p), indent=1, allow_nan=False) + "\n"


def projection_csv_bytes(p: Projection) -> bytes:
    """One line per row, longest measured first; text cells defused for
    spreadsheets as in ``classify --format csv``."""
    lines = [",".join(CSV_FIELDS)]
    for i in _longest_first(p):
        cells = [_csv_text(str(p.names[i])), _csv_text(str(p.families[i]))]
        cells += [_cell(v[i]) for v in (p.measured_s, p.projected_s, p.low_s, p.high_s, p.at_roof_s)]
        cells += [str(bool(p.counted[i])), KEYS[int(p.basis[i])], _csv_text(TEXT[int(p.basis[i])])]
        lines.append(",".join(cells))
    return ("\n".join(lines) + "\n").encode("utf-8")


def _cell(x) -> str:
    x = float(x)
    return repr(x) if math.isfinite(x) else ""


def _longest_first(p: Projection) -> np.ndarray:
    return np.argsort(-np.nan_to_num(p.measured_s, nan=-1.0), kind="stable")


def _t(x) -> str:
    return format_si(x, "s") if x is not None and math.isfinite(x) else "-"


def _change(new: float, old: float) -> str:
    return f"x{new / old:.2f}" if old > 0 and math.isfinite(new) else "-"


def projection_table(p: Projection, limit: int = 15, name_width: int = 44) -> str:
    """The totals, the families and the rows that move most, as text."""
    t = p.totals.total
    out = [f"{device_label(p.source)} -> {device_label(p.target)}",
           f"  measured on the source   {_t(t.measured_s)}",
           f"  projected on the target  {_t(t.projected_s)}  ({_change(t.projected_s, t.measured_s)}; "
           f"80 % interval {_t(t.low_s)} .. {_t(t.high_s)})",
           f"  at {p.share:.0%} of each roof      {_t(t.at_roof_s)}  (what tuning could reach there)", "",
           f"  {'family':<16}{'measured':>11}{'projected':>11}{'80 % interval':>25}{'at roof':>11}"]
    for family, s in p.totals.families.items():
        out.append(f"  {visible(family)[:15]:<16}{_t(s.measured_s):>11}{_t(s.projected_s):>11}"
                   f"{_t(s.low_s) + ' .. ' + _t(s.high_s):>25}{_t(s.at_roof_s):>11}")
    moved = np.argsort(-np.abs(np.nan_to_num(p.projected_s - p.measured_s)), kind="stable")[:limit]
    out += ["", f"  rows that move most (of {len(p)}):",
            f"  {'kernel':<{name_width}}{'measured':>11}{'projected':>11}  basis"]
    for i in moved:
        name = visible(str(p.names[i]))     # escaped before padding: a newline cannot forge a line
        name = name if len(name) <= name_width - 1 else name[:name_width - 2] + "~"
        out.append(f"  {name:<{name_width}}{_t(p.measured_s[i]):>11}{_t(p.projected_s[i]):>11}  "
                   f"{KEYS[int(p.basis[i])]}")
    out += ["", "  bases:"] + [f"    {k}: {TEXT[j]}" for j, k in enumerate(KEYS) if np.any(p.basis == j)]
    out += ["", "  evidence:"] + [f"    {visible(n)}" for n in p.notes]
    return "\n".join(out) + "\n"
