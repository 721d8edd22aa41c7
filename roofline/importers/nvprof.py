"""nvprof outputs -> kernels, memory copies and host API time.

One reader for everything nvprof writes, told apart by the table headers in
the file (CSV with ``--csv`` or plain text; the file is split into tables by
:mod:`roofline.importers.nvprof_tables`):

* summary (default mode): one kernel per name with its total time and calls;
  ``API calls`` rows go to ``ImportResult.program.api_s``;
* GPU trace (``--print-gpu-trace``): one kernel per launch (``launch['id']``
  is the correlation ID, the ``[115]`` suffix nvprof appends to names), and
  ``program.gpu_busy_s``/``span_s`` from the timeline; API trace rows
  (``--print-api-trace``) are summed into ``api_s``;
* ``--metrics``/``--events`` (also both in one file, two sections): one kernel
  per name, counters x invocations through
  :func:`roofline.importers.nvprof_counters.nvprof_counts`; no time, so merge with a
  summary or trace of the same run (:func:`merge_results`).

Several runs in one log (more than one ``==PID== Profiling application:``
or ``Profiling result:`` line, as when the usual nvprof workflow appends a
``--metrics`` replay to a summary run) are read run by run and merged as
passes of one program: times from the first run that has them, counters
from every run (:func:`merge_results`); a warning names the runs and what
came from each. Runs of different applications are refused (their kernels
must not be merged), naming the line where the other program starts.

Copies: ``[CUDA memcpy HtoD]``/``DtoH``/``PtoP`` (and unified-memory
migrations) are kernels of family ``memcpy`` with their bytes on level
``PCIe`` (from the trace's Size; unknown in summaries); ``DtoD`` copies read
and write device memory, so 2 x Size on ``DRAM``; ``[CUDA memset]`` is family
``memset`` with Size on ``DRAM``.

Byte units: nvprof CUDA 8 and later print binary prefixes (``KB`` = 1024 B,
``MB/s`` = 2^20 B/s); older versions decimal. The reader decides per file from
the copies themselves (Size / (Throughput x Duration) comes out at 1 under the
right convention) and assumes binary when no copy tells.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

from ..errors import Advice, InputError
from ..model import Kernel
from ..units import parse_quantity, unit_factor
from .base import ImportResult, ProgramTime, Reader, checked, read_text, register
from .counters import Metric, MetricSet
from .nvprof_counters import nvprof_counts
from .results import advice_for, family_for, merge_results
from .nvprof_tables import Table, tables

__all__ = ["merge_results", "parse", "read", "sniff"]

_SNIFF = re.compile(
    r'^(==\d+== (NVPROF is profiling|Profiling application|Profiling result|Metric result|'
    r'Event result|API calls)|"Start","Duration"|"Device","Kernel","Invocations"|'
    r'"Time\(%\)","Time","Calls"|"Type","Time\(%\)"|\s*(<b>)?GPU activities:)', re.M)
_CORRELATION = re.compile(r"\s*\[(\d+)\]$")
_MEMCPY = re.compile(r"\[(?:CUDA memcpy|Unified Memory Memcpy) ([A-Za-z]+)\]")
_PREFIX_POWER = {"K": 1, "M": 2, "G": 3, "T": 4}


def sniff(path: Path, head: bytes) -> bool:
    return bool(_SNIFF.search(head.decode("utf-8", errors="replace")))


def read(path: Path) -> ImportResult:
    return parse(read_text(path), path)


# --------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------

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


def _time(cell: str, unit: str, path, line, what: str) -> float:
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


# --------------------------------------------------------------------------
# tables -> kernels
# --------------------------------------------------------------------------

def _copy_bytes(name: str, size: float) -> tuple[str, dict[str, float]]:
    m = _MEMCPY.search(name)
    if m:
        kind = m.group(1)
        if math.isnan(size):
            return "memcpy", {}
        if kind in ("DtoD", "DtoA", "AtoD", "AtoA"):
            return "memcpy", {"DRAM": 2.0 * size}
        if kind == "HtoH":
            return "memcpy", {}
        return "memcpy", {"PCIe": size}
    if "[CUDA memset]" in name:
        return "memset", ({} if math.isnan(size) else {"DRAM": size})
    return "", {}


def _device(cell: str) -> str:
    return re.sub(r"\s*\(\d+\)$", "", cell.strip())


def _summary(table: Table, path, kernels: list, api: dict) -> None:
    idx = {c: i for i, c in enumerate(table.header)}
    for number, cells in table.rows:
        name = cells[idx["Name"]].strip()
        time_s = _time(cells[idx["Time"]], table.units[idx["Time"]], path, number, "Time")
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


def _trace(table: Table, path, kernels: list, intervals: list, api: dict) -> str | None:
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
        duration = _time(cell(cells, "Duration"), unit["Duration"], path, number, "Duration")
        if um_event:
            continue   # page-fault and throttling events, not GPU work
        if _API_NAME.match(name):   # --print-api-trace rows mixed into the GPU trace
            if math.isfinite(duration):
                api[name] = api.get(name, 0.0) + duration
            continue
        if not math.isfinite(duration) or duration < 0:
            raise InputError(path, number, f"GPU trace row {name!r} has no duration")
        start = _time(cell(cells, "Start"), unit.get("Start", ""), path, number, "Start") \
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


def _counters(tables_: list[Table], path, kernels: list, counted: list) -> str | None:
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


def _unified(table: Table, path, kernels: list) -> str | None:
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
        time_s = _time(cells[idx["Total Time"]], table.units[idx["Total Time"]], path, number,
                       "Total Time")
        if not (count >= 1 and count == int(count)):
            raise InputError(path, number, f"Count: expected a whole number, found {cells[idx['Count']]!r}")
        if not time_s >= 0:
            raise InputError(path, number, f"Total Time: expected a duration, found {_cut(cells[idx['Total Time']])}")
        kname = f"[Unified Memory Memcpy {direction}]"
        kernels.append(Kernel(name=kname, time_s=time_s, count=int(count),
                              bytes={} if math.isnan(size) else {"PCIe": size},
                              launch={"time_source": "nvprof summary"}, family="memcpy"))
    return device


def _union(intervals: list[tuple[float, float]]) -> float:
    busy, end = 0.0, -math.inf
    for a, b in sorted(intervals):
        if a > end:
            busy += b - a
            end = b
        elif b > end:
            busy += b - end
            end = b
    return busy


_RUN = re.compile(r"^==\d+== (Profiling application|Profiling result):")


def _check_one_run(text: str, path) -> None:
    """One nvprof run per file: several (a log that several nvprof commands
    appended to) would otherwise be summed as if they were one program run."""
    starts: dict[str, list[int]] = {"Profiling application": [], "Profiling result": []}
    for number, line in enumerate(text.split("\n"), start=1):
        m = _RUN.match(line)
        if m:
            starts[m.group(1)].append(number)
    runs = max(starts.values(), key=len)
    if len(runs) > 1:
        raise InputError(path, runs[1], f"the file holds {len(runs)} nvprof runs (starting at lines "
                         f"{', '.join(map(str, runs))}): split it into one file per run and read "
                         "each on its own (merge_results([...]) when they are passes of one program "
                         "run, e.g. --metrics and --print-gpu-trace)")


def parse(text: str, path: str | Path = "<nvprof>") -> ImportResult:
    runs = _run_starts(text)
    if len(runs) > 1:
        return checked(_merged_runs(text, runs, path))
    return checked(_parse_run(text, path))


_APP = re.compile(r"^==\d+== Profiling application:\s*(.*)$")


def _run_starts(text: str) -> list[int]:
    """First line of every run: its 'Profiling application' line, else its
    'Profiling result' line."""
    starts: dict[str, list[int]] = {"Profiling application": [], "Profiling result": []}
    for number, line in enumerate(text.split("\n"), start=1):
        m = _RUN.match(line)
        if m:
            starts[m.group(1)].append(number)
    apps = starts["Profiling application"]
    return apps if len(apps) >= len(starts["Profiling result"]) else starts["Profiling result"]


def _merged_runs(text: str, starts: list[int], path) -> ImportResult:
    """Several runs of one program in one log, merged as passes."""
    from dataclasses import replace
    lines = text.split("\n")
    bounds = list(zip(starts, starts[1:] + [len(lines) + 1]))
    programs = [(_APP.match(lines[a - 1]) or [None, ""])[1].split() for a, _ in bounds]
    first = next((p[0] for p in programs if p), None)
    for (a, _), prog in zip(bounds, programs):
        if prog and first and prog[0] != first:
            raise InputError(path, a, f"the log holds runs of different programs ({first} and {prog[0]}): "
                             "split it into one file per program")
    parts, used = [], []
    for a, b in bounds:
        try:
            parts.append(_run_between(lines, a, b, path))
            used.append(a)
        except InputError as exc:
            if "no nvprof table found" not in str(exc) and "hold no kernel" not in str(exc):
                raise
    if not parts:
        raise InputError(path, None, "no nvprof table found in any of the runs")
    timed = [i for i, r in enumerate(parts) if any(math.isfinite(k.time_s) for k in r.kernels)]
    time_run = timed[0] if timed else None
    adjusted = []
    for i, r in enumerate(parts):
        if i in timed and i != time_run:        # repeats: times from one run only, never mixed
            r = replace(r, kernels=tuple(replace(k, time_s=math.nan) for k in r.kernels))
        adjusted.append(r)
    merged = merge_results(adjusted)
    note = Advice(f"{len(parts)} nvprof runs of one program merged: times from the run at line "
                  f"{used[time_run] if time_run is not None else '-'}, counters from the runs at lines "
                  f"{', '.join(str(used[i]) for i in range(len(parts)) if i != time_run) or '-'}"
                  + (f"; the times of the runs at lines {', '.join(str(used[i]) for i in timed[1:])} "
                     "were not used" if len(timed) > 1 else ""),
                  "read the runs one by one to compare them", subject="nvprof runs")
    base = parts[time_run] if time_run is not None else parts[0]
    device = next((r.device_name for r in parts if r.device_name), None)
    return ImportResult(str(path), merged.format, merged.kernels, device_name=device,
                        program=base.program, warnings=(note,) + merged.warnings)


def _run_between(lines: list[str], a: int, b: int, path) -> ImportResult:
    """The run on lines a .. b-1 (1-based), line numbers kept. Output of the
    next program before its nvprof banner may trail the tables: a run ends
    at the first line its tables cannot read, if what precedes it reads."""
    chunk = "\n" * (a - 1) + "\n".join(lines[a - 1:b - 1])
    try:
        return _parse_run(chunk, path)
    except InputError as exc:
        if not exc.line or not a < exc.line < b:
            raise
        try:
            return _parse_run("\n" * (a - 1) + "\n".join(lines[a - 1:exc.line - 1]), path)
        except InputError:
            raise exc from None


def _parse_run(text: str, path) -> ImportResult:
    found, notes = tables(text, path)
    if not found:
        raise InputError(path, None, "no nvprof table found (expected a summary, a GPU trace, "
                         "or --metrics/--events output)")
    results = []
    device = None
    api: dict[str, float] = {}
    intervals: list[tuple[float, float]] = []

    summary = [t for t in found if t.kind in ("summary", "unified")]
    if summary:
        kernels: list[Kernel] = []
        for t in summary:
            if t.kind == "summary":
                _summary(t, path, kernels, api)
            else:
                device = _unified(t, path, kernels) or device
        results.append(("nvprof-summary", kernels, []))
    traces = [t for t in found if t.kind == "trace"]
    if traces:
        kernels = []
        for t in traces:
            device = _trace(t, path, kernels, intervals, api) or device
        results.append(("nvprof-trace", kernels, []))
    for t in (t for t in found if t.kind == "api-trace"):
        idx = {c: i for i, c in enumerate(t.header)}
        for number, cells in t.rows:
            name = cells[idx["Name"]].strip()
            api[name] = api.get(name, 0.0) + _time(cells[idx["Duration"]],
                                                   t.units[idx["Duration"]], path, number, "Duration")
    counters = [t for t in found if t.kind in ("metrics", "events")]
    if counters:
        kernels, counted = [], []
        device = _counters(counters, path, kernels, counted) or device
        kinds = sorted({t.kind for t in counters})
        results.append(("nvprof-" + "+".join(kinds), kernels, counted))

    partial = []
    for fmt, kernels, counted in results:
        warnings = advice_for(path, kernels, counted, tool="nvprof")
        partial.append(ImportResult(str(path), fmt, tuple(kernels), warnings=tuple(warnings)))
    if not any(r.kernels for r in partial) and not api:
        raise InputError(path, None, "the nvprof tables hold no kernel, copy or API call")
    merged = merge_results(partial) if len(partial) > 1 else (
        partial[0] if partial else ImportResult(str(path), "nvprof-api", ()))
    program = None
    if api or intervals:
        program = ProgramTime(
            api_s=api, gpu_busy_s=_union(intervals) if intervals else None,
            span_s=(max(b for _, b in intervals) - min(a for a, _ in intervals)) if intervals else None)
    return ImportResult(str(path), merged.format, merged.kernels, device_name=device,
                        program=program, warnings=tuple(notes) + merged.warnings)


register(Reader("nvprof", sniff, read))
