"""SI conversion at the edges: parse profiler units in, add prefixes on display.

Everything inside the package is in SI base units (seconds, bytes, FLOP,
hertz); importers call :func:`unit_factor` / :func:`parse_quantity`, display code
calls :func:`format_si`.
"""
from __future__ import annotations

import math
import re

# Profilers write decimal prefixes for bytes (nvprof "KB" = 1000 B, ncu
# "Kbyte" = 1000 B); binary ones are spelled with an "i". Only multiplying
# prefixes apply to quantities (a "mB" or "mhz" is a typo, not a unit).
_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
           "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}

# unit spellings (lower case, prefix stripped) that take a prefix
_QUANTITY = frozenset({
    "b", "byte", "bytes",
    "b/s", "byte/s", "byte/second", "bytes/s",
    "hz", "cycle/second", "cycle/s", "cycles/second",
    "flop", "flops", "flop/s",
    "inst", "cycle", "cycles",
    # ncu counter units: a sector is a 32-byte count, kept as a count here
    "sector", "sectors", "inst/cycle", "byte/cycle",
})

# spellings read whole: times, and ncu's clocks in cycles per sub-second
_WHOLE = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0,
          "second": 1.0, "seconds": 1.0, "nsecond": 1e-9, "usecond": 1e-6,
          "msecond": 1e-3, "min": 60.0, "h": 3600.0, "%": 0.01,
          "cycle/nsecond": 1e9, "cycle/usecond": 1e6, "cycle/msecond": 1e3}


# time spellings that may follow a "/" in a rate (``sector/nsecond``), as
# time units per second (exact: 1e9, not 1 / 1e-9)
_PER_SECOND = {"ns": 1e9, "nsecond": 1e9, "us": 1e6, "µs": 1e6, "usecond": 1e6, "ms": 1e3,
               "msecond": 1e3, "s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0,
               "min": 1 / 60.0, "h": 1 / 3600.0}


def split_rate(unit: str) -> tuple[str, float] | None:
    """``'<quantity>/<time>'`` -> (quantity, time units per second), e.g.
    ``'sector/nsecond'`` -> ``('sector', 1e9)``; None when ``unit`` is not
    a per-time rate."""
    num, sep, den = unit.strip().rpartition("/")
    if sep and num.strip() and "/" not in num and den.strip() in _PER_SECOND:
        return num.strip(), _PER_SECOND[den.strip()]
    return None


def unit_factor(unit: str) -> float:
    """Factor that turns a value in ``unit`` into SI base units.

    Accepts the spellings profilers use: ``byte``, ``Kbyte``, ``MB``,
    ``nsecond``, ``usecond``, ``us``, ``ms``, ``cycle/second``, ``hz``,
    ``Ghz``, ``GB/s``, ``Gbyte/second``, ``%``, ``KiB``, and any of the
    quantities per time unit (``byte/nsecond``, ``sector/s``,
    ``inst/second``). Empty means 1. Raises ValueError for anything else.
    """
    u = unit.strip()
    if u in ("", "-"):
        return 1.0
    if u in _WHOLE:
        return _WHOLE[u]
    for plen in (2, 1, 0):
        prefix, rest = u[:plen], u[plen:]
        if prefix in _PREFIX and rest and rest.lower() in _QUANTITY:
            return _PREFIX[prefix]
    rate = split_rate(u)
    if rate is not None:
        try:
            return unit_factor(rate[0]) * rate[1]
        except ValueError:
            pass
    raise ValueError(f"unknown unit {unit!r}")


_NUMBER_UNIT = re.compile(
    r"^\s*([-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-zµ%/]*)\s*$")


def parse_number(text: str) -> float:
    """A plain number as profilers print it: thousands separators, ``.00``,
    ``n/a`` (NaN). Raises ValueError otherwise."""
    t = text.strip().strip('"')
    if t.lower() in ("n/a", "nan", "", "-"):
        return math.nan
    return float(t.replace(",", ""))


def parse_quantity(text: str, unit: str = "") -> float:
    """A number with an embedded or separate unit, in SI: ``43.9GB/s`` ->
    4.39e10, ``12.258us`` -> 1.2258e-05, ``("1,024", "Kbyte")`` -> 1.024e6,
    ``n/a`` -> NaN. Raises ValueError when it cannot be read."""
    t = text.strip().strip('"')
    if t.lower() in ("n/a", "nan", "", "-"):
        return math.nan
    m = _NUMBER_UNIT.match(t)
    if not m:
        raise ValueError(f"not a quantity: {text!r}")
    value = float(m.group(1).replace(",", ""))
    embedded = m.group(2)
    if embedded and unit:
        raise ValueError(f"{text!r} carries a unit and {unit!r} was also given")
    return value * unit_factor(embedded or unit)


_DISPLAY = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"),
            (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"), (1e-12, "p")]


def format_si(value: float, unit: str = "", digits: int = 3) -> str:
    """``format_si(1.53e9, 'Hz')`` -> ``'1.53 GHz'``; NaN -> ``'n/a'``."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if value == 0:
        return f"0 {unit}".strip()
    mag = abs(value)
    for scale, prefix in _DISPLAY:
        if mag >= scale * 0.9995:
            break
    return f"{value / scale:.{digits}g} {prefix}{unit}".strip()


def format_iec(nbytes: float) -> str:
    """Cache and buffer sizes in binary units: ``32768`` -> ``'32 KiB'``."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= factor:
            return f"{nbytes / factor:.3g} {unit}"
    return f"{nbytes:.0f} B"


def format_percent(fraction: float | None) -> str:
    """6%; 2128%; 6.4e+297% (a time of 1e-300 s), not 298 digits."""
    if fraction is None:
        return "n/a"
    return f"{100 * fraction:.0f}%" if fraction < 100 else f"{100 * fraction:.2g}%"


def whole_counts(counts):
    """Call counts (floats, whole numbers) as integers: int64 while they fit,
    else Python ints, which do not wrap (a sum of rows each below 2**53 can
    pass 2**63, where int64 turns it negative)."""
    import numpy as np
    counts = np.asarray(counts, dtype=float)
    if not counts.size or np.nanmax(counts) < 2.0 ** 63:
        return np.nan_to_num(counts).astype(np.int64)
    return np.array([int(c) for c in np.nan_to_num(counts).tolist()], dtype=object)
