"""Nsight Compute CSV exports -> one kernel per profiled launch.

Flavours, recognised from the header (``"ID","Process ID","Process Name",...``):

* details page (``ncu --csv``, ``ncu --import x.ncu-rep --csv``): one row per
  metric with ``Section Name``, ``Metric Name``, ``Metric Unit``, ``Metric
  Value``. Old versions (2019/2020) have a ``Kernel Time`` timestamp column
  and no Block/Grid/Device/CC; modern ones add Rule and Estimated Speedup
  columns (rule rows have no metric, and metric rows may stop short of the
  rule columns).
* section exports with a ``Body Item Label`` column, e.g.
  ``--section SpeedOfLight_RooflineChart``: the chart's achieved FLOP/cycle,
  SM frequency and DRAM bandwidth. These are rates; without a duration in the
  same file the kernel's ``flops``/``bytes`` hold the rates (FLOP and bytes
  per second of kernel time, so the intensity is right), its time is unknown
  (NaN; ``launch['time_source']`` starting with ``normalised``) and a
  warning says so: :func:`merge_results` with the details export of the
  same launch turns the rates into totals over its duration.
* raw page (``--page raw``): one row per launch, one column per metric and a
  units row under the header.

Text before the header (``==PROF==`` lines, program output) is skipped;
``==PROF==``/``==WARNING==`` lines after it are too. Values may carry
thousands separators and ``.00``; ``n/a`` means not collected. The counter
rules (FLOP per precision, bytes per level, time) are in
:mod:`roofline.importers.nvidia.counters`.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from ..options import DEFAULT, ReadOptions
from ...core.errors import Advice, InputError
from ...core.text_files import read_text
from ...core.import_result import DeviceClues, ImportResult
from ..base import Reader, register
from .counters import Counts, ncu_counts
from .metrics import Metric, MetricSet
from ..results import all_nan_advice, advice_for, family_for, kernel_from_counts, merge_files, merge_results

# merge_results/merge_files live in results (nvprof uses them too) and are
# re-exported here: they are how two-pass ncu roofline collections
# (time-dram + time-flops) become one set of kernels.
__all__ = ["merge_files", "merge_results", "parse", "read", "sniff"]

HEADER_START = '"ID","Process ID","Process Name"'
IDENTITY = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time",
            "Context", "Stream", "Block Size", "Grid Size", "Device", "CC", "Function Name",
            "Demangled Name", "Mangled Name", "API Name", "Estimated Speedup Type",
            "Estimated Speedup"}
LONG = {"Section Name", "Body Item Label", "Metric Name", "Metric Unit", "Metric Value",
        "Rule Name", "Rule Type", "Rule Description"}
_CHART_PRECISION = {"single": "fp32", "double": "fp64", "half": "fp16"}
# time_source of a chart launch without a duration (flops/bytes are per second)
CHART_RATES = "normalised: roofline-chart rates per second of kernel time, no duration"


def sniff(path: Path, head: bytes) -> bool:
    text = head.decode("utf-8", errors="replace")
    return any(line.startswith(HEADER_START) for line in text.splitlines())


def read(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    return parse(read_text(path, options.max_text_bytes), path)


def parse(text: str, path: str | Path = "<ncu.csv>") -> ImportResult:
    """Parse the text of an ncu CSV export (any flavour above)."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(HEADER_START)), None)
    if start is None:
        raise InputError(path, None, f"no Nsight Compute CSV header (a line starting {HEADER_START})")
    rows = _rows("\n".join(lines[start:]), path, first_line=start + 1)
    (header_line, header), body = rows[0], rows[1:]
    dupes = sorted({c for c in header if header.count(c) > 1})
    if dupes:
        raise InputError(path, header_line, f"duplicate column(s) {', '.join(dupes)}")
    for col in ("ID", "Kernel Name"):
        if col not in header:
            raise InputError(path, header_line, f"header has no {col!r} column")
    if "Metric Name" in header:
        if "Metric Value" not in header:
            raise InputError(path, header_line, "header has 'Metric Name' but no 'Metric Value'")
        launches = _long(header, body, path)
        fmt = "ncu-csv-chart" if "Body Item Label" in header else "ncu-csv"
    else:
        launches = _wide(header, body, path, header_line)
        fmt = "ncu-csv-raw"
    if not launches:
        raise InputError(path, None, "no profiled kernel in the file (header only)")
    return _result(launches, path, fmt)


# --------------------------------------------------------------------------
# CSV rows
# --------------------------------------------------------------------------

def _rows(text: str, path, first_line: int) -> list[tuple[int, list[str]]]:
    """(line number, cells) of the CSV rows, profiler messages skipped."""
    out = []
    reader = csv.reader(io.StringIO(text), strict=True)
    line = first_line
    try:
        for cells in reader:
            number = line
            line = first_line + reader.line_num
            if not cells or (len(cells) == 1 and not cells[0].strip()):
                continue
            if len(cells) == 1 and cells[0].startswith("=="):
                continue  # ==PROF== / ==WARNING== / ==ERROR== lines
            out.append((number, cells))
    except csv.Error as exc:
        raise InputError(path, line, f"malformed CSV ({exc})") from None
    return out


class _Launch:
    def __init__(self, line: int, ident: dict[str, str], path):
        self.line = line
        self.last_line = line
        self.ident = ident
        self.metrics = MetricSet(path)
        self.chart: dict[str, dict[str, Metric]] = {}   # body item label -> metrics

    def add(self, name: str, value: str, unit: str, line: int, label: str = "") -> None:
        self.last_line = line
        metric = Metric(value, unit, line)
        if label:
            self.chart.setdefault(label, {})[name] = metric
        old = self.metrics.metrics.get(name)
        # the same human name can appear in two sections ("Memory Throughput"
        # is % under Speed Of Light and Gbyte/s under Memory Workload
        # Analysis): keep the one with a physical unit
        if old is None or (old.unit.strip() == "%" and unit.strip() != "%"):
            self.metrics.metrics[name] = metric


def _key(ident: dict[str, str], path, line: int) -> tuple[str, int]:
    raw = ident.get("ID", "").strip()
    try:
        launch_id = int(raw)
    except ValueError:
        raise InputError(path, line, f"column ID: expected a launch number, found {raw!r}") from None
    return ident.get("Process ID", "").strip(), launch_id


def _long(header: list[str], body, path) -> dict:
    idx = {c: i for i, c in enumerate(header)}
    need = max(idx["Metric Value"], idx["Kernel Name"], idx["ID"]) + 1
    ident_cols = [c for c in header if c not in LONG]
    launches: dict[tuple, _Launch] = {}
    for line, cells in body:
        if len(cells) > len(header):
            raise InputError(path, line, f"expected at most {len(header)} fields, found {len(cells)}")
        if len(cells) < need:
            raise InputError(path, line, f"expected at least {need} fields up to 'Metric Value', "
                             f"found {len(cells)} (truncated line?)")
        cell = dict(zip(header, cells))
        ident = {c: cell.get(c, "") for c in ident_cols}
        key = _key(ident, path, line)
        launch = launches.get(key)
        if launch is None:
            launch = launches[key] = _Launch(line, ident, path)
        elif launch.ident.get("Kernel Name") != ident.get("Kernel Name"):
            raise InputError(path, line, f"launch ID {key[1]} is named "
                             f"{launch.ident.get('Kernel Name')!r} above and "
                             f"{ident.get('Kernel Name')!r} here")
        name = cell.get("Metric Name", "").strip()
        if not name:
            if cell.get("Metric Value", "").strip():
                raise InputError(path, line, "a metric value without a metric name")
            continue  # rule row
        launch.add(name, cell["Metric Value"], cell.get("Metric Unit", ""), line,
                   cell.get("Body Item Label", "").strip())
    _check_truncation(launches, path)
    return launches


def _check_truncation(launches: dict, path) -> None:
    """ncu writes the same metric rows for every launch it profiles with the
    same sections (``n/a`` when a value is missing), so a launch lacking
    metrics that other launches of the same kernel have, or the last launch
    lacking metrics that every other launch has, means lines were lost."""
    items = list(launches.values())
    if len(items) < 2:
        return
    by_kernel: dict[str, list[_Launch]] = {}
    for x in items:
        by_kernel.setdefault(x.ident.get("Kernel Name", ""), []).append(x)
    for group in by_kernel.values():
        union = set.union(*(set(x.metrics.metrics) for x in group))
        for x in group:
            lacking = sorted(union - set(x.metrics.metrics))
            if lacking:
                raise InputError(path, x.last_line,
                                 f"launch ID {x.ident.get('ID')} lacks {_few(lacking)}, which "
                                 "other launches of the same kernel have: lines are missing")
    common = set.intersection(*(set(x.metrics.metrics) for x in items[:-1]))
    lacking = sorted(common - set(items[-1].metrics.metrics))
    if lacking:
        raise InputError(path, items[-1].last_line,
                         f"the last launch (ID {items[-1].ident.get('ID')}) lacks {_few(lacking)}, "
                         "which every other launch has: the file looks truncated")


def _few(names: list[str]) -> str:
    return ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")


def _wide(header: list[str], body, path, header_line: int) -> dict:
    # the raw page always has a units row under the header (ID cell empty);
    # without it "8.39" Mbyte would silently read as 8.39 bytes
    if not body or not body[0][1] or body[0][1][0].strip():
        raise InputError(path, body[0][0] if body else header_line,
                         "expected the units row under the raw-page header")
    units_line, units = body[0]
    if len(units) != len(header):
        raise InputError(path, units_line, f"units row has {len(units)} fields, "
                         f"header has {len(header)}")
    body = body[1:]
    metric_cols = [i for i, c in enumerate(header) if c not in IDENTITY]
    launches: dict[tuple, _Launch] = {}
    for line, cells in body:
        if len(cells) != len(header):
            raise InputError(path, line, f"expected {len(header)} fields, found {len(cells)}")
        ident = {c: cells[i] for i, c in enumerate(header) if c in IDENTITY}
        key = _key(ident, path, line)
        if key in launches:
            raise InputError(path, line, f"launch ID {key[1]} appears twice")
        launch = launches[key] = _Launch(line, ident, path)
        for i in metric_cols:
            launch.add(header[i], cells[i], units[i], line)
    return launches


# --------------------------------------------------------------------------
# launches -> kernels
# --------------------------------------------------------------------------

def _dims(text: str):
    t = text.strip()
    if t.startswith("(") and t.endswith(")"):
        try:
            return tuple(int(x) for x in t[1:-1].replace(" ", "").split(",") if x)
        except ValueError:
            return t
    return t


def _cc(launch: _Launch) -> str | None:
    cc = launch.ident.get("CC", "").strip()
    if cc:
        return cc
    major = launch.metrics.get("device__attribute_compute_capability_major")
    minor = launch.metrics.get("device__attribute_compute_capability_minor")
    if major is not None and minor is not None:
        return f"{int(major)}.{int(minor)}"
    return None


def _chart_rates(launch: _Launch, path) -> tuple[dict[str, float], dict[str, float]]:
    """FLOP/s per precision and bytes/s per level from roofline-chart items."""
    flops, bw = {}, {}
    for label, metrics in launch.chart.items():
        low = label.lower()
        if "achieved" not in low:
            continue
        ms = MetricSet(path, metrics)
        hz = ms.get("SM Frequency")
        precision = next((p for word, p in _CHART_PRECISION.items() if word in low), None)
        if precision and hz:
            letter = {"fp32": "F", "fp64": "D", "fp16": "H"}[precision]
            fma = ms.get(f"Predicated-On {letter}FMA Operations Per Cycle")  # already x2
            add = ms.get(f"Predicated-On {letter}ADD Thread Instructions Executed Per Cycle")
            mul = ms.get(f"Predicated-On {letter}MUL Thread Instructions Executed Per Cycle")
            if fma is not None or add is not None or mul is not None:
                flops[precision] = ((fma or 0.0) + (add or 0.0) + (mul or 0.0)) * hz
        for name in metrics:
            level = {"dram": "DRAM", "l2": "L2", "l1": "L1"}.get(name.split()[0].lower().split("/")[0])
            if level and name.lower().endswith("bandwidth"):
                v = ms.get(name)
                if v is not None:
                    bw[level] = v
    return flops, bw


def _result(launches: dict, path, fmt: str) -> ImportResult:
    kernels, counted, device, capability = [], [], None, None
    for (_, launch_id), launch in launches.items():
        name = launch.ident.get("Kernel Name", "").strip()
        if not name:
            raise InputError(path, launch.line, f"launch ID {launch_id} has an empty kernel name")
        capability = capability or _cc(launch)
        counts = ncu_counts(launch.metrics, name, _cc(launch))
        if launch.chart:
            counts = _apply_chart(counts, launch, path)
        launch_info = {"id": launch_id}
        for col, key in (("Grid Size", "grid"), ("Block Size", "block")):
            if launch.ident.get(col, "").strip():
                launch_info[key] = _dims(launch.ident[col])
        for col, key in (("Stream", "stream"), ("Context", "context"), ("Device", "device"),
                         ("CC", "cc")):
            if launch.ident.get(col, "").strip():
                launch_info[key] = launch.ident[col].strip()
        dev = launch.metrics.metrics.get("device__attribute_display_name")
        if dev is not None and str(dev.value).strip() and device is None:
            device = str(dev.value).strip()
        kernels.append(kernel_from_counts(name, counts, launch=launch_info, family=family_for(name)))
        counted.append(counts)
    warnings = advice_for(path, kernels, counted, tool="ncu")
    nan_only = [lid for (_, lid), launch in launches.items() if _all_nan(launch.metrics.metrics)]
    warnings += all_nan_advice(path, nan_only, len(kernels))
    rates_only = sum(1 for c in counted if c.time_source == CHART_RATES)
    if rates_only:
        warnings.append(Advice(
            f"{rates_only} of {len(kernels)} launches come from a roofline-chart export without a "
            "duration: their FLOP and bytes are per-second rates (the intensity is right; time, "
            "performance and totals are unknown)",
            "merge it with the details CSV of the same launches: merge_files([details.csv, chart.csv])",
            Path(str(path)).name))
    return ImportResult(str(path), fmt, tuple(kernels), warnings=tuple(warnings),
                        device=DeviceClues(name=device, capability=capability, kind="gpu"))


def _all_nan(metrics: dict) -> bool:
    """Every numeric metric of the launch is n/a or NaN (text metrics such
    as the device name do not count)."""
    seen = False
    for m in metrics.values():
        v = m.value
        if isinstance(v, float):
            if not math.isnan(v):
                return False
            seen = True
            continue
        t = str(v).strip().replace(",", "")
        if t.lower() in ("n/a", "nan", "-nan"):
            seen = True
            continue
        try:
            float(t)
        except ValueError:
            continue
        return False
    return seen


def _apply_chart(counts: Counts, launch: _Launch, path) -> Counts:
    flops, bw = _chart_rates(launch, path)
    if not flops and not bw:
        return counts
    if math.isfinite(counts.time_s):
        scale, counts.from_rates = counts.time_s, True
    else:
        # no duration in the file: keep the rates (FLOP and bytes per second
        # of kernel time, so the intensity is right) and leave the time
        # unknown; merge_results scales them by the details export's duration
        scale = 1.0
        counts.time_source = CHART_RATES
    for p, v in flops.items():
        counts.flops.setdefault(p, v * scale)
        counts.has_fp_counters = True
    for level, v in bw.items():
        if level not in counts.bytes:
            counts.bytes[level] = v * scale
            counts.transactions[level] = v * scale / 32.0
    return counts


register(Reader("ncu-csv", sniff, read))
