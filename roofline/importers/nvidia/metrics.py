"""Profiler metrics as the file wrote them, checked before any rule reads
them: :class:`MetricSet` holds one kernel's metrics (name -> value and unit,
with where each came from), parses values whatever their spelling
(``1,234.00``, ``43.9GB/s``, ``n/a``) and refuses a unit that cannot be
right for what the metric measures (bytes given in ``nsecond`` would be read
as 1e-9 of themselves, a ``%`` on a counter as a hundredth of it). An empty
unit (nvprof counters, old exports) cannot be checked and is taken as
written. The rules that turn metrics into work, traffic and time are in
:mod:`.counters` and :mod:`.nvprof_counters`."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ...core.errors import InputError
from ...core.units import parse_number, parse_quantity, split_rate, unit_factor

_COUNT_UNITS = {"", "inst", "instruction", "instructions", "sector", "sectors", "cycle",
                "cycles", "op", "ops", "warp", "warps", "request", "requests", "flop",
                "transaction", "transactions", "wavefront", "wavefronts", "thread", "threads",
                "block", "blocks", "pass", "passes", "register", "registers"}
_COUNT_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


@dataclass
class Metric:
    """One metric as read: ``value`` is the text (or a number from a binary
    report), ``unit`` the unit string, ``line`` where it was read."""

    value: object
    unit: str = ""
    line: int | None = None


class MetricSet:
    """A kernel's metrics by name; :meth:`get` returns SI floats.

    Values are converted only when asked for, so an odd unit on a metric the
    rules never use cannot fail a file. ``n/a`` reads as absent.
    """

    def __init__(self, path, metrics: dict[str, Metric] | None = None):
        self.path = path
        self.metrics: dict[str, Metric] = dict(metrics or {})

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def names(self) -> list[str]:
        return list(self.metrics)

    def get(self, name: str) -> float | None:
        m = self.metrics.get(name)
        if m is None:
            return None
        try:
            if isinstance(m.value, (int, float)):
                value = float(m.value) * _factor(m.unit)
            else:
                try:
                    value = parse_number(str(m.value)) * _factor(m.unit)
                except ValueError:
                    if m.unit.strip():
                        raise
                    value = parse_quantity(str(m.value))   # nvprof: "43.99GB/s", "12.5%"
            if math.isnan(value):
                return None
        except ValueError as exc:
            raise InputError(self.path, m.line, f"metric {name}: cannot read value "
                             f"{_cell(m.value)} {_cell(m.unit)} ({str(exc)[:100]})") from None
        if not math.isfinite(value) or value < 0:
            raise InputError(self.path, m.line, f"metric {name}: expected a finite non-negative "
                             f"value, found {_cell(m.value)}")
        _check_unit(self.path, name, m)
        return value

    def unit(self, name: str) -> str:
        m = self.metrics.get(name)
        return "" if m is None else m.unit


def _factor(unit: str) -> float:
    """SI factor of a unit; counts (inst, sector, thread ... and per-cycle
    counts) are 1, or 1e3/1e6/... with a K/M/G prefix; a count or quantity
    per time unit (``sector/s``, ``inst/second``, ``byte/nsecond``) is that
    factor per second."""
    u = unit.strip()
    base = u.split("/")[0]
    if u.endswith("/cycle") or "/" not in u:
        if base.lower() in _COUNT_UNITS:
            return 1.0
        if base[:1] in _COUNT_PREFIX and base[1:].lower() in _COUNT_UNITS - {""}:
            return _COUNT_PREFIX[base[:1]]
    rate = split_rate(u)
    if rate is not None and rate[0].strip():
        try:
            return _factor(rate[0]) * rate[1]
        except ValueError:
            raise ValueError(f"unknown unit {unit!r}") from None
    return unit_factor(u)


_TIME_UNITS = frozenset({"s", "ns", "us", "ms", "µs", "sec", "second", "seconds", "nsecond",
                         "usecond", "msecond"})


def unit_kind(unit: str) -> str:
    """'time', 'frequency', 'bandwidth' (bytes per time), 'rate' (another
    count per time), 'bytes' or 'other' for a unit string."""
    u = unit.strip().lower()
    rate = split_rate(u)
    if rate is not None:
        num = rate[0]
        if num.startswith("cycle"):
            return "frequency"
        if num.endswith(("byte", "bytes")) or num in ("b", "kb", "mb", "gb", "tb"):
            return "bandwidth"
        return "rate"
    if u.endswith("hz") or u.startswith("cycle/"):
        return "frequency"
    if u in _TIME_UNITS:
        return "time"
    if u.endswith("byte") or u.endswith("bytes") or u in ("b", "kb", "mb", "gb"):
        return "bytes"
    return "other"


def _cell(value) -> str:
    """repr of a value from the file, shortened (a damaged cell can hold
    thousands of digits)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + f"... ({len(text):,} characters)"


_COUNT_NAME = re.compile(r"inst_executed|sectors|cycles_elapsed\.(avg|max|min|sum)$|ops_path_tensor"
                         r"|wavefronts|transactions|flop_count|^elapsed cycles$|^executed instructions$")


_UNIT_EXAMPLE = {"time": "nsecond", "frequency": "cycle/second", "bandwidth": "byte/second",
                 "bytes": "byte", "count": "inst, sector or none", "rate": "sector/second",
                 "per_cycle": "inst/cycle"}


def _unit_class(unit: str) -> str:
    """'none', 'percent', 'per_cycle', 'count' or a :func:`unit_kind` ('time',
    'frequency', 'bandwidth', 'rate', 'bytes', 'other')."""
    u = unit.strip()
    if not u:
        return "none"
    if u == "%":
        return "percent"
    if u.lower().endswith("/cycle"):
        return "per_cycle"
    kind = unit_kind(u)
    if kind != "other":
        return kind
    if u.lower() in _COUNT_UNITS or (u[:1] in _COUNT_PREFIX and u[1:].lower() in _COUNT_UNITS):
        return "count"
    return "other"


def expected_units(name: str) -> frozenset[str] | None:
    """The unit classes a metric the rules read may carry (None: not
    checked). Rates of byte metrics may also carry ``byte``: Nsight Compute
    labels some derived rates (``derived__lts__lts2xbar_bytes.sum.per_second``)
    with their numerator's unit."""
    n = name.strip().lower()
    if n == "duration" or n.startswith("gpu__time_duration"):
        return frozenset({"time"})
    if n == "sm frequency" or ("cycles_elapsed" in n and n.endswith(".per_second")):
        return frozenset({"frequency"})
    if n.endswith(".per_second"):
        return frozenset({"bandwidth", "bytes"} if "bytes" in n else {"rate", "count"})
    if n.endswith((".per_cycle_elapsed", " per cycle")):
        return frozenset({"per_cycle", "count"})
    if n.endswith(" bandwidth"):
        return frozenset({"bandwidth"})
    if "bytes" in n:
        return frozenset({"bytes"})
    if _COUNT_NAME.search(n):
        return frozenset({"count"})
    return None


_EMBEDDED_UNIT = re.compile(r"^\s*[-+]?[\d.,]+(?:[eE][-+]?\d+)?\s*(\S*)\s*$")


def _check_unit(path, name: str, m: Metric) -> None:
    """InputError when the unit of ``m`` does not fit what ``name`` measures."""
    expected = expected_units(name)
    if expected is None:
        return
    unit = m.unit.strip()
    if not unit and isinstance(m.value, str):     # nvprof: "43.99GB/s", "12.5%"
        embedded = _EMBEDDED_UNIT.match(m.value)
        unit = embedded.group(1) if embedded else ""
    got = _unit_class(unit)
    if got == "none" or got in expected:
        return
    want = " or ".join(sorted(_UNIT_EXAMPLE[e] for e in expected))
    raise InputError(path, m.line, f"metric {name}: unit {unit!r} does not fit what it counts "
                     f"(expected {want}): a damaged or hand-edited file")
