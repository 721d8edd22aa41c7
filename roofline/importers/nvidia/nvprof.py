"""nvprof outputs -> kernels, memory copies and host API time.

One reader for everything nvprof writes, told apart by the table headers in
the file (CSV with ``--csv`` or plain text; the file is split into tables by
:mod:`roofline.importers.nvidia.nvprof_tables`):

* summary (default mode): one kernel per name with its total time and calls;
  ``API calls`` rows go to ``ImportResult.program.api_s``;
* GPU trace (``--print-gpu-trace``): one kernel per launch (``launch['id']``
  is the correlation ID, the ``[115]`` suffix nvprof appends to names), and
  ``program.gpu_busy_s``/``span_s`` from the timeline; API trace rows
  (``--print-api-trace``) are summed into ``api_s``;
* ``--metrics``/``--events`` (also both in one file, two sections): one kernel
  per name, counters x invocations through
  :func:`roofline.importers.nvidia.nvprof_counters.nvprof_counts`; no time, so merge with a
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

from ..options import DEFAULT, ReadOptions
from ...core.errors import Advice, InputError
from ...core.model import Kernel
from ...core.text_files import read_text
from ...core.import_result import DeviceClues, ImportResult, ProgramTime
from ..base import Reader, register
from .nvprof_rows import busy_union, counter_tables, summary_table, time_cell, trace_table, unified_table
from ..results import advice_for, merge_results
from .nvprof_tables import tables

__all__ = ["merge_results", "parse", "read", "sniff"]

_SNIFF = re.compile(
    r'^(==\d+== (NVPROF is profiling|Profiling application|Profiling result|Metric result|'
    r'Event result|API calls)|"Start","Duration"|"Device","Kernel","Invocations"|'
    r'"Time\(%\)","Time","Calls"|"Type","Time\(%\)"|\s*(<b>)?GPU activities:)', re.M)


def sniff(path: Path, head: bytes) -> bool:
    return bool(_SNIFF.search(head.decode("utf-8", errors="replace")))


def read(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    return parse(read_text(path, options.max_text_bytes), path)


# --------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# tables -> kernels
# --------------------------------------------------------------------------


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
        return _merged_runs(text, runs, path)
    return _parse_run(text, path)


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
    device = next((r.device.name for r in parts if r.device.name), None)
    return ImportResult(str(path), merged.format, merged.kernels, program=base.program,
                        warnings=(note,) + merged.warnings, device=DeviceClues(name=device))


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
                summary_table(t, path, kernels, api)
            else:
                device = unified_table(t, path, kernels) or device
        results.append(("nvprof-summary", kernels, []))
    traces = [t for t in found if t.kind == "trace"]
    if traces:
        kernels = []
        for t in traces:
            device = trace_table(t, path, kernels, intervals, api) or device
        results.append(("nvprof-trace", kernels, []))
    for t in (t for t in found if t.kind == "api-trace"):
        idx = {c: i for i, c in enumerate(t.header)}
        for number, cells in t.rows:
            name = cells[idx["Name"]].strip()
            api[name] = api.get(name, 0.0) + time_cell(cells[idx["Duration"]],
                                                   t.units[idx["Duration"]], path, number, "Duration")
    counters = [t for t in found if t.kind in ("metrics", "events")]
    if counters:
        kernels, counted = [], []
        device = counter_tables(counters, path, kernels, counted) or device
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
            api_s=api, gpu_busy_s=busy_union(intervals) if intervals else None,
            span_s=(max(b for _, b in intervals) - min(a for a, _ in intervals)) if intervals else None)
    return ImportResult(str(path), merged.format, merged.kernels, program=program,
                        warnings=tuple(notes) + merged.warnings, device=DeviceClues(name=device))


register(Reader("nvprof", sniff, read))
