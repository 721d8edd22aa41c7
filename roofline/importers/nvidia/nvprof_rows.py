"""nvprof tables -> kernels: the rows of each kind of table (summary, GPU
trace, metrics/events, unified memory) as kernels, copies and API time, with
every cell parsed in the units nvprof wrote (:func:`binary_prefixes` says
whether ``KB`` meant 1000 or 1024 bytes). :mod:`.nvprof` decides which
tables a file holds and merges the runs of a log."""
from __future__ import annotations

import math
import re

from ...core.errors import InputError
from ...core.model import Kernel
from ...core.units import parse_quantity, unit_factor
from .metrics import Metric, MetricSet
from .nvprof_counters import nvprof_counts
from .nvprof_tables import Table
from ..copies import copy_bytes, direction_named, set_bytes
from ..results import family_for


_CORRELATION = re.compile(r"\s*\[(\d+)\]$")


_MEMCPY = re.compile(r"\[(?:CUDA memcpy|Unified Memory Memcpy) ([A-Za-z]+)\]")


_PREFIX_POWER = {"K": 1, "M": 2, "G": 3, "T": 4}


def _q(cell: str, unit: str, path, line, what: str) -> float:
    """A number (NaN for n/a), never infinite: a value beyond the float
    range (1e400, a 5000-digit count) is a damaged file, not a measurement."""
    try:
        value = parse_quantity(cell, unit)
    except ValueError as exc:
        raise InputError(path, line, f"{what}: cannot read {_cut(cell)} ({str(exc)[:100]})") from None
    if math.isinf(value):
        raise InputError(path, line, f"{what}: {_cut(cell)} is beyond the range of a number")
    return value


def _cut(text: str, limit: int = 40) -> str:
    """``repr`` of a cell, shortened: a damaged cell can be megabytes long."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text):,} characters)"


def _whole(text: str, path, line, what: str) -> int:
    """An integer cell (IDs, grid sizes, registers); Python refuses to read
    integers over 4,300 digits, and no ID or size has more than 19."""
    if len(text) > 19:
        raise InputError(path, line, f"{what}: {_cut(text)} is too long for a whole number")
    return int(text)


def time_cell(cell: str, unit: str, path, line, what: str) -> float:
    """A time cell: its unit comes from the units row or the value itself."""
    t = cell.strip()
    if t not in ("", "-") and not unit and not re.search(r"[a-zµ]$", t):
        raise InputError(path, line, f"{what}: {cell!r} has no unit and there is no units row")
    return _q(cell, unit, path, line, what)


def _bytes(cell: str, unit: str, binary: bool, path, line, what: str) -> float:
    """Bytes from an nvprof size cell, binary or decimal prefixes."""
    m = re.match(r"^\s*([-+\d.,eE]+)\s*([A-Za-z/]*)\s*$", cell)
    if not cell.strip() or cell.strip() == "-":
        return math.nan
    if not m:
        raise InputError(path, line, f"{what}: cannot read {cell!r}")
    u = m.group(2) or unit
    value = _q(m.group(1), "", path, line, what)
    power = _PREFIX_POWER.get(u[:1], 0) if u[1:2] in ("B", "b") else 0
    if power and binary:
        value *= 1024.0 ** power
    else:
        try:
            value *= unit_factor(u)
        except ValueError:
            raise InputError(path, line, f"{what}: unknown byte unit {u!r}") from None
    if not math.isfinite(value) or value < 0:
        raise InputError(path, line, f"{what}: expected a byte count, found {cell!r}")
    return value


def _power(cell: str, unit: str) -> int:
    u = re.sub(r"^[\s\d.,eE+-]+", "", cell) or unit
    return _PREFIX_POWER.get(u[:1], 0)


def binary_prefixes(table: Table, path) -> bool:
    """Whether this trace's byte prefixes are binary (see module docstring)."""
    idx = {c: i for i, c in enumerate(table.header)}
    if not {"Size", "Throughput", "Duration"} <= set(idx):
        return True
    votes = {True: 0, False: 0}
    for number, cells in table.rows:
        size, tp = cells[idx["Size"]], cells[idx["Throughput"]]
        if size in ("", "-") or tp in ("", "-"):
            continue
        s_unit, t_unit = table.units[idx["Size"]], table.units[idx["Throughput"]]
        try:
            size_dec = parse_quantity(size, s_unit)
            tp_dec = parse_quantity(tp, t_unit)
            dur = parse_quantity(cells[idx["Duration"]], table.units[idx["Duration"]])
        except ValueError:
            continue
        if not (size_dec > 0 and tp_dec > 0 and dur > 0):
            continue
        binary_ratio = 1.024 ** (_power(tp, t_unit) - _power(size, s_unit))
        if abs(binary_ratio - 1.0) < 0.01:
            continue
        r = size_dec / (tp_dec * dur)
        votes[abs(r - binary_ratio) < abs(r - 1.0)] += 1
    return votes[True] >= votes[False]


def _copy_bytes(name: str, size: float) -> tuple[str, dict[str, float]]:
    """(family, bytes per level) of a copy or memset row; ("", {}) for a kernel."""
    m = _MEMCPY.search(name)
    if m:
        return "memcpy", copy_bytes(direction_named(m.group(1)), size)
    if "[CUDA memset]" in name:
        return "memset", set_bytes(size)
    return "", {}


def _device(cell: str) -> str:
    return re.sub(r"\s*\(\d+\)$", "", cell.strip())


def summary_table(table: Table, path, kernels: list, api: dict) -> None:
    idx = {c: i for i, c in enumerate(table.header)}
    for number, cells in table.rows:
        name = cells[idx["Name"]].strip()
        time_s = time_cell(cells[idx["Time"]], table.units[idx["Time"]], path, number, "Time")
        calls = _q(cells[idx["Calls"]], "", path, number, "Calls")
        if not name or not math.isfinite(time_s) or time_s < 0 \
                or not (calls >= 1 and calls == int(calls)):
            raise InputError(path, number, "summary row needs a name, a time and a whole "
                             "number of calls")
        if "API" in cells[idx["Type"]]:
            api[name] = api.get(name, 0.0) + time_s
            continue
        family, _ = _copy_bytes(name, math.nan)
        kernels.append(Kernel(name=name, time_s=time_s, count=int(calls),
                              launch={"time_source": "nvprof summary"},
                              family=family or family_for(name)))


_API_NAME = re.compile(r"^cu(da)?[A-Z]\w*$")   # cudaMalloc, cuLaunchKernel: no parameter list


def trace_table(table: Table, path, kernels: list, intervals: list, api: dict) -> str | None:
    idx = {c: i for i, c in enumerate(table.header)}
    binary = binary_prefixes(table, path)
    unit = {c: table.units[i] for c, i in idx.items()}
    device = None

    def cell(cells, col):
        return cells[idx[col]].strip() if col in idx else ""

    for number, cells in table.rows:
        raw = cell(cells, "Name")
        m = _CORRELATION.search(raw)
        name = _CORRELATION.sub("", raw).strip()
        if not name:
            raise InputError(path, number, "GPU trace row without a name")
        um_event = name.startswith("[Unified Memory") and "Memcpy" not in name
        duration = time_cell(cell(cells, "Duration"), unit["Duration"], path, number, "Duration")
        if um_event:
            continue   # page-fault and throttling events, not GPU work
        if _API_NAME.match(name):   # --print-api-trace rows mixed into the GPU trace
            if math.isfinite(duration):
                api[name] = api.get(name, 0.0) + duration
            continue
        if not math.isfinite(duration) or duration < 0:
            raise InputError(path, number, f"GPU trace row {name!r} has no duration")
        start = time_cell(cell(cells, "Start"), unit.get("Start", ""), path, number, "Start") \
            if "Start" in idx else math.nan
        size_col = "Unified Memory" if name.startswith("[Unified Memory") else "Size"
        size = _bytes(cell(cells, size_col), unit.get(size_col, ""), binary, path, number, size_col) \
            if size_col in idx else math.nan
        family, moved = _copy_bytes(name, size)
        launch: dict[str, object] = {"time_source": "nvprof trace"}
        corr = cell(cells, "Correlation_ID") or (m.group(1) if m else "")
        if corr.isdigit():
            launch["id"] = _whole(corr, path, number, "Correlation ID")
        for key, cols in (("grid", ("Grid X", "Grid Y", "Grid Z")),
                          ("block", ("Block X", "Block Y", "Block Z"))):
            values = [cell(cells, c) for c in cols]
            if all(v.isdigit() for v in values):
                launch[key] = tuple(_whole(v, path, number, key) for v in values)
        for key, col in (("grid", "Grid Size"), ("block", "Block Size")):
            t = cell(cells, col)
            if re.fullmatch(r"\(\d+ \d+ \d+\)", t):
                launch[key] = tuple(_whole(v, path, number, col) for v in t[1:-1].split())
        regs = cell(cells, "Registers Per Thread") or cell(cells, "Regs*")
        if regs.isdigit():
            launch["registers_per_thread"] = _whole(regs, path, number, "Registers Per Thread")
        if cell(cells, "Stream").isdigit():
            launch["stream"] = _whole(cell(cells, "Stream"), path, number, "Stream")
        if math.isfinite(start):
            launch["start_s"] = start
            intervals.append((start, start + duration))
        if device is None and cell(cells, "Device") not in ("", "-"):
            device = _device(cell(cells, "Device"))
        kernels.append(Kernel(name=name, time_s=duration, count=1, bytes=moved,
                              transactions={}, launch=launch,
                              family=family or family_for(name)))
    return device


def counter_tables(tables_: list[Table], path, kernels: list, counted: list) -> str | None:
    """metrics and events tables -> one kernel per (device, kernel name)."""
    groups: dict[tuple[str, str], tuple[int, int, dict[str, Metric]]] = {}
    tex_description: dict[str, str] = {}   # device -> description of tex_cache_transactions
    for table in tables_:
        idx = {c: i for i, c in enumerate(table.header)}
        name_col = "Metric Name" if table.kind == "metrics" else "Event Name"
        _check_same_counters(table, idx, name_col, path)
        for number, cells in table.rows:
            key = (cells[idx["Device"]].strip(), cells[idx["Kernel"]].strip())
            if not key[1]:
                raise InputError(path, number, "counter row without a kernel name")
            inv = _q(cells[idx["Invocations"]], "", path, number, "Invocations")
            if not (inv >= 1 and inv == int(inv)):
                raise InputError(path, number, f"Invocations: expected a whole number >= 1, "
                                 f"found {cells[idx['Invocations']]!r}")
            first, invocations, metrics = groups.setdefault(key, (number, int(inv), {}))
            if int(inv) != invocations:
                raise InputError(path, number, f"{key[1]!r}: {int(inv)} invocations here, "
                                 f"{invocations} above")
            metric = cells[idx[name_col]].strip()
            if not metric:
                raise InputError(path, number, f"row without a {name_col.lower()}")
            metrics.setdefault(metric, Metric(cells[idx["Avg"]], table.units[idx["Avg"]], number))
            if metric == "tex_cache_transactions" and "Metric Description" in idx:
                tex_description.setdefault(key[0], cells[idx["Metric Description"]])
    device = None
    for (dev, name), (_, invocations, metrics) in groups.items():
        counts = nvprof_counts(MetricSet(path, metrics), _device(dev),
                               tex_description.get(dev, "")).scaled(invocations)
        device = device or (_device(dev) if dev else None)
        family, _ = _copy_bytes(name, math.nan)
        kernels.append(Kernel(name=name, count=invocations, flops=counts.flops,
                              bytes=counts.bytes, transactions=counts.transactions,
                              instructions=counts.instructions,
                              family=family or family_for(name)))
        counted.append(counts)
    return device


def _check_same_counters(table: Table, idx: dict, name_col: str, path) -> None:
    """nvprof reports every requested counter for every kernel, so a kernel
    with fewer rows than the others means lines were lost."""
    names: dict[tuple[str, str], tuple[int, set[str]]] = {}
    for number, cells in table.rows:
        key = (cells[idx["Device"]].strip(), cells[idx["Kernel"]].strip())
        _, seen = names.setdefault(key, (number, set()))
        seen.add(cells[idx[name_col]].strip())
        names[key] = (number, seen)
    if len(names) < 2:
        return
    union = set.union(*(seen for _, seen in names.values()))
    for (_, kernel), (last, seen) in names.items():
        lacking = sorted(union - seen)
        if lacking:
            raise InputError(path, last, f"{kernel[:60]!r} lacks {', '.join(lacking[:3])}"
                             f"{' ...' if len(lacking) > 3 else ''}, which the other kernels "
                             "have: lines are missing")


def unified_table(table: Table, path, kernels: list) -> str | None:
    idx = {c: i for i, c in enumerate(table.header)}
    device = None
    for number, cells in table.rows:
        name = cells[idx["Name"]].strip()
        direction = {"host to device": "HtoD", "device to host": "DtoH"}.get(name.lower())
        if cells[idx["Device"]].strip():
            device = device or _device(cells[idx["Device"]])
        if direction is None:
            continue   # page-fault groups, throttling: not transfers
        count = _q(cells[idx["Count"]], "", path, number, "Count")
        size = _bytes(cells[idx["Total Size"]], table.units[idx["Total Size"]], True, path,
                      number, "Total Size")
        time_s = time_cell(cells[idx["Total Time"]], table.units[idx["Total Time"]], path, number,
                       "Total Time")
        if not (count >= 1 and count == int(count)):
            raise InputError(path, number, f"Count: expected a whole number, found {cells[idx['Count']]!r}")
        if not time_s >= 0:
            raise InputError(path, number, f"Total Time: expected a duration, found {_cut(cells[idx['Total Time']])}")
        kname = f"[Unified Memory Memcpy {direction}]"
        kernels.append(Kernel(name=kname, time_s=time_s, count=int(count),
                              bytes=copy_bytes(direction, size),
                              launch={"time_source": "nvprof summary"}, family="memcpy"))
    return device


def busy_union(intervals: list[tuple[float, float]]) -> float:
    busy, end = 0.0, -math.inf
    for a, b in sorted(intervals):
        if a > end:
            busy += b - a
            end = b
        elif b > end:
            busy += b - end
            end = b
    return busy
