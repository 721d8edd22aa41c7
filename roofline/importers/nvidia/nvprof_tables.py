"""nvprof output -> :class:`Table` objects, from CSV (``--csv``) or plain text.

:func:`tables` splits a file into its tables (``==PID== Profiling result:``,
``API calls:``, ``Metric result:`` ... titles; program output between them
is skipped). CSV tables keep their header and units row. The plain-text
tables are rewritten to the CSV flavour's header, so
:mod:`roofline.importers.nvidia.nvprof` builds kernels from either.

nvprof prints, without ``--csv``:

* the summary ("Type  Time(%)  Time  Calls  Avg  Min  Max  Name", rows under
  ``GPU activities:`` and ``API calls:``), with values carrying their units
  (``16.127ms``, ``992ns``) or, with ``-u ms``, a units row under the header;
  long names wrap onto the next lines when the output is pasted into a
  narrow report;
* the GPU trace (``--print-gpu-trace``): fixed-width, right-aligned columns
  under the header, per-value units (``12.258us``, ``96.000KB``,
  ``7.4688GB/s``), ``-`` for empty cells and grid tuples ``(8 1 1)``;
* ``--metrics``/``--events``: ``Device "..."`` and ``Kernel: ...`` lines,
  then one row per counter (categorical values such as ``Low (1)``);
* the unified-memory summary ("Count  Avg Size ... Total Time  Name").

Simple inline HTML tags a report paste leaves in the text (``<b>GPU
activities:</b>``) are removed from non-CSV lines first. A summary row whose
"name" starts with the rest of a number (a line break inside the Max
column: ``... 3.8930us 3`` then ``.8930us cudaEventQuery``) is skipped with
a warning naming its line.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import Advice, InputError


@dataclass
class Table:
    """One nvprof table: ``kind`` is summary, trace, api-trace, metrics,
    events or unified; ``units`` has one entry per column ('' for none)."""

    kind: str
    header: list[str]
    units: list[str]
    rows: list[tuple[int, list[str]]] = field(default_factory=list)
    title: str = ""
    notes: list[Advice] = field(default_factory=list)   # rows skipped, and why


SUMMARY_HEADER = ["Type", "Time(%)", "Time", "Calls", "Avg", "Min", "Max", "Name"]
METRICS_HEADER = ["Device", "Kernel", "Invocations", "Metric Name", "Metric Description",
                  "Min", "Max", "Avg"]
EVENTS_HEADER = ["Device", "Kernel", "Invocations", "Event Name", "Min", "Max", "Avg", "Total"]
UNIFIED_HEADER = ["Device", "Count", "Avg Size", "Min Size", "Max Size", "Total Size",
                  "Total Time", "Name"]

_SUMMARY_HEAD = re.compile(r"^\s*(?:Type\s+)?Time\(%\)\s+Time\s+Calls\s+Avg\s+Min\s+Max\s+Name\s*$")
_TRACE_HEAD = re.compile(r"^\s*Start\s+Duration\s+\S")
_METRICS_HEAD = re.compile(r"^\s*Invocations\s+Metric Name\s+Metric Description\s+Min\s+Max\s+Avg\s*$")
_EVENTS_HEAD = re.compile(r"^\s*Invocations\s+Event Name\s+Min\s+Max\s+Avg(\s+Total)?\s*$")
_UNIFIED_HEAD = re.compile(r"^\s*Count\s+Avg Size\s+Min Size\s+Max Size\s+Total Size\s+Total Time\s+Name\s*$")
_SECTION = re.compile(r"^\s*(GPU activities|API calls):\s*")
_NUM = r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_SUMMARY_ROW = re.compile(
    rf"^({_NUM}%?)\s+({_NUM}[a-zµ]*)\s+(\d+)\s+({_NUM}[a-zµ]*)\s+({_NUM}[a-zµ]*)\s+({_NUM}[a-zµ]*)(?:\s+(.*))?$")
_CATEGORY = r"(?:\S+ \(\d+\)|\S+)"
_METRIC_ROW = re.compile(
    rf"^\s*(\d+)\s+(\S+)\s+(.*?)\s+({_CATEGORY})\s+({_CATEGORY})\s+({_CATEGORY})\s*$")
_EVENT_ROW = re.compile(r"^\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)(?:\s+(\S+))?\s*$")
_UNIFIED_ROW = re.compile(r"^\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S.*?)\s*$")
DEVICE_LINE = _TITLE = re.compile(r"^==\d+==\s*(.*?)\s*$")
_TOOL_MESSAGE = re.compile(r"^=+\s*(Error|Warning):\s*(.*?)\s*$")
DEVICE_LINE = _DEVICE = re.compile(r'^\s*Device\s+"(.*)"\s*$')
_KERNEL = re.compile(r"^\s*Kernel:\s*(.*?)\s*$")
# simple inline HTML a report paste leaves around labels: <b>GPU activities:</b>
_HTML_TAG = re.compile(r"</?(?:b|i|u|em|strong|code|tt|span|font|br|small)"
                       r"(?:\s+[a-z-]+=(?:\"[^\"]*\"|'[^']*'))*\s*/?>", re.I)
# a "name" that starts with the rest of a number ("3" + ".8930us cudaEventQuery"):
# a line break fell inside the Max column, not before the name
_CUT_NUMBER = re.compile(r"^[.\d][\d.,]*(?:[a-zµ%]+)?(?:\s|$)")


def strip_html(line: str) -> str:
    """``<b>GPU activities:</b>`` -> ``GPU activities:`` (simple inline
    tags only; template arguments such as ``<bool=0>`` are left alone)."""
    return _HTML_TAG.sub("", line) if "<" in line else line


def header_kind(line: str) -> str | None:
    """The kind of text table whose header this line is, if any."""
    for kind, pattern in (("summary", _SUMMARY_HEAD), ("trace", _TRACE_HEAD),
                          ("metrics", _METRICS_HEAD), ("events", _EVENTS_HEAD),
                          ("unified", _UNIFIED_HEAD)):
        if pattern.match(line):
            return kind
    return None


def parse_table(kind: str, lines: list[tuple[int, str]], path, title: str = "",
                device: str = "") -> Table:
    """``lines``: (number, text) from the header to the end of the table;
    ``device``: the last ``Device "..."`` line seen before it."""
    if kind == "unified":
        return _unified(lines, path, title, device)
    return {"summary": _summary, "trace": _trace, "metrics": _metrics,
            "events": _events}[kind](lines, path, title)


def _is_units_row(text: str) -> bool:
    tokens = text.split()
    return bool(tokens) and all(re.fullmatch(r"%|[numµkKMG]?(s|B|B/s)", t) for t in tokens)


def _open_name(name: str) -> bool:
    """Whether a kernel/API name looks cut short by a line wrap."""
    n = name.rstrip()
    return (not n or n.endswith(",") or n.endswith("void") or n.endswith("::")
            or n.count("(") > n.count(")") or n.count("<") > n.count(">"))


# No kernel name comes near this (the longest CUTLASS names are tens of
# kilobytes); a "name" wrapped over more is a damaged file.
MAX_NAME_CHARS = 1 << 20


class _WrappedName:
    """A summary row's name, assembled from the lines it was wrapped over.
    Bracket balances are kept as it grows, so a name wrapped over many lines
    costs time linear in its length (re-counting the whole name at every
    line took 56 s for one wrapped over 200,000 lines)."""

    def __init__(self, text: str, line: int):
        self.line = line
        self.parts = [text] if text else []
        self.parens = text.count("(") - text.count(")")
        self.angles = text.count("<") - text.count(">")
        self.length = len(text)

    def is_open(self) -> bool:
        """Whether the name looks cut short by a line wrap (as :func:`_open_name`)."""
        tail = self.parts[-1].rstrip() if self.parts else ""
        return (not tail or tail.endswith((",", "void", "::"))
                or self.parens > 0 or self.angles > 0)

    def add(self, text: str, path, number: int) -> None:
        self.parts.append(text)
        self.parens += text.count("(") - text.count(")")
        self.angles += text.count("<") - text.count(">")
        self.length += len(text) + 1
        if self.length > MAX_NAME_CHARS:
            raise InputError(path, number, f"the name wrapped from line {self.line} to here is longer "
                             f"than {MAX_NAME_CHARS:,} characters: not a kernel name (a damaged file)")

    def text(self) -> str:
        return " ".join(self.parts).strip()


def _summary(lines, path, title) -> Table:
    body = lines[1:]
    units = [""] * len(SUMMARY_HEADER)
    if body and _is_units_row(body[0][1]):
        tokens = body[0][1].split()
        # %, Time, Avg, Min, Max (Calls has no unit)
        if len(tokens) == 5:
            units = ["", tokens[0], tokens[1], "", tokens[2], tokens[3], tokens[4], ""]
        body = body[1:]
    table = Table("summary", list(SUMMARY_HEADER), units, title=title)
    section = "API calls" if "API" in title else "GPU activities"
    current: list[str] | None = None
    names: list[_WrappedName] = []
    for number, text in body:
        rest = text.strip()
        m = _SECTION.match(rest)
        if m:
            section = m.group(1)
            rest = rest[m.end():].strip()
        row = _SUMMARY_ROW.match(rest)
        if row:
            current = [section, *row.group(1, 2, 3, 4, 5, 6), ""]
            names.append(_WrappedName((row.group(7) or "").strip(), number))
            table.rows.append((number, current))
        elif current is not None and rest and names[-1].is_open():
            names[-1].add(rest, path, number)
        else:
            raise InputError(path, number, "expected a summary row (Time(%) Time Calls Avg Min "
                             f"Max Name){' or ' if current else ''}"
                             f"{'the rest of a wrapped name' if current else ''}, found {rest[:60]!r}")
    for (_, cells), name in zip(table.rows, names):
        cells[7] = name.text()
    kept = []
    for number, cells in table.rows:
        if _CUT_NUMBER.match(cells[7]):
            table.notes.append(Advice(
                f"skipped the summary row at line {number}: a line break cut a value "
                f"({cells[6]!r} then {cells[7].split()[0]!r}), so {cells[7][:50]!r} is not a name",
                "re-export the nvprof output without wrapping", Path(str(path)).name))
            continue
        kept.append((number, cells))
    table.rows = kept
    for number, cells in table.rows:
        if not cells[7]:
            raise InputError(path, number, "summary row without a name")
        if _open_name(cells[7]):
            raise InputError(path, number, f"name {cells[7][:60]!r} is cut short "
                             "(a wrapped name without its continuation)")
    return table


def _trace(lines, path, title) -> Table:
    (_, head), body = lines[0], lines[1:]
    labels = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+(?: \S+)*", head)]
    if labels[-1][2] != "Name":
        raise InputError(path, lines[0][0], "GPU trace header does not end with 'Name'")
    header = [lab for _, _, lab in labels]
    gpu = "Size" in header or "Grid Size" in header   # else --print-api-trace alone
    table = Table("trace" if gpu else "api-trace", header, [""] * len(header), title=title)
    name_start = labels[-1][0]
    ends = [end for _, end, _ in labels[:-1]]
    for number, text in body:
        if len(text.rstrip()) <= name_start:
            raise InputError(path, number, "GPU trace row ends before the Name column (truncated?)")
        cells, prev = [], 0
        for end in ends:
            cells.append(text[prev:end].strip())
            prev = end
        if text[prev:name_start].strip():
            raise InputError(path, number, "GPU trace row does not line up with the header")
        cells.append(text[name_start:].strip())
        table.rows.append((number, cells))
    return table


def _grouped(lines, path, row_re, build, what: str) -> list[tuple[int, list[str]]]:
    device, kernel, rows = "", "", []
    for number, text in lines[1:]:
        if not text.strip():
            continue
        m = _DEVICE.match(text)
        if m:
            device = m.group(1)
            continue
        m = _KERNEL.match(text)
        if m:
            kernel = m.group(1)
            continue
        m = row_re.match(text)
        if not m or not kernel:
            raise InputError(path, number, f"expected a {what} row under a 'Kernel:' line, "
                             f"found {text.strip()[:60]!r}")
        rows.append((number, build(device, kernel, m)))
    return rows


def _metrics(lines, path, title) -> Table:
    table = Table("metrics", list(METRICS_HEADER), [""] * len(METRICS_HEADER), title=title)
    table.rows = _grouped(lines, path, _METRIC_ROW,
                          lambda d, k, m: [d, k, *m.group(1, 2, 3, 4, 5, 6)], "metric")
    return table


def _events(lines, path, title) -> Table:
    table = Table("events", list(EVENTS_HEADER), [""] * len(EVENTS_HEADER), title=title)
    table.rows = _grouped(lines, path, _EVENT_ROW,
                          lambda d, k, m: [d, k, *m.group(1, 2, 3, 4, 5), m.group(6) or ""], "event")
    return table


def _unified(lines, path, title, device="") -> Table:
    table = Table("unified", list(UNIFIED_HEADER), [""] * len(UNIFIED_HEADER), title=title)
    for number, text in lines[1:]:
        if not text.strip():
            continue
        m = _DEVICE.match(text)
        if m:
            device = m.group(1)
            continue
        m = _UNIFIED_ROW.match(text)
        if not m:
            raise InputError(path, number, f"expected a unified-memory row, found {text.strip()[:60]!r}")
        table.rows.append((number, [device, *m.group(1, 2, 3, 4, 5, 6, 7)]))
    return table


# --------------------------------------------------------------------------
# the whole file -> tables (CSV or text)
# --------------------------------------------------------------------------

def tables(text: str, path) -> tuple[list[Table], list[Advice]]:
    """Every table in an nvprof output, and the tool's own error/warning lines."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    lines = [line if line.startswith('"') else strip_html(line) for line in lines]
    found, notes = [], []
    title, device, i = "", "", 0
    while i < len(lines):
        line = lines[i]
        m = _TITLE.match(line)
        if m:
            title = m.group(1)
            i += 1
            continue
        m = _TOOL_MESSAGE.match(line)
        if m:
            notes.append(Advice(f"nvprof {m.group(1).lower()}: {m.group(2)}", "",
                                Path(str(path)).name))
            i += 1
            continue
        m = DEVICE_LINE.match(line)
        if m:
            device = m.group(1)
            i += 1
            continue
        kind = "csv" if line.startswith('"') else header_kind(line)
        if kind is None:
            i += 1   # program output and anything else between tables
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() and not _TITLE.match(lines[j]) \
                and not _TOOL_MESSAGE.match(lines[j]):
            j += 1
        block = [(n + 1, lines[n]) for n in range(i, j)]
        if kind == "csv":
            table = _csv_table(block, path, title)
            if table is None:
                notes.append(Advice(f"skipped a table with header {line[:60]!r}", "",
                                    Path(str(path)).name))
            else:
                found.append(table)
        else:
            table = parse_table(kind, block, path, title, device)
            notes.extend(table.notes)
            found.append(table)
        i = j
    return found, notes


def _csv_table(block, path, title) -> Table | None:
    try:
        rows = list(csv.reader(io.StringIO("\n".join(t for _, t in block)), strict=True))
    except csv.Error as exc:
        raise InputError(path, block[0][0], f"malformed CSV table ({exc})") from None
    if len(rows) != len(block):
        raise InputError(path, block[0][0], "malformed CSV table (a quoted field spans lines)")
    header = rows[0]
    units = [""] * len(header)
    body = list(zip((n for n, _ in block[1:]), rows[1:]))
    if len(block) > 1 and not block[1][1].startswith('"'):
        units = rows[1]
        body = body[1:]
        if len(units) != len(header):
            raise InputError(path, block[1][0], f"units row has {len(units)} fields, "
                             f"header has {len(header)}")
    for number, cells in body:
        if len(cells) != len(header):
            raise InputError(path, number, f"expected {len(header)} fields, found {len(cells)}")
    has_units = len(block) > 1 and not block[1][1].startswith('"')
    if header[:2] == ["Start", "Duration"] or ("Time(%)" in header and "Name" in header):
        if not has_units:   # nvprof always writes one; without it ms would read as s
            raise InputError(path, block[0][0] + 1, "expected the units row under the header")
    if header[:2] == ["Start", "Duration"]:
        kind = "trace" if ("Size" in header or "Grid X" in header) else "api-trace"
    elif "Time(%)" in header and "Name" in header:
        kind = "summary"
    elif header[:3] == ["Device", "Kernel", "Invocations"] and "Metric Name" in header:
        kind = "metrics"
    elif header[:3] == ["Device", "Kernel", "Invocations"] and "Event Name" in header:
        kind = "events"
    elif "Count" in header and "Total Size" in header:
        kind = "unified"
    else:
        return None
    need = {"summary": ["Time", "Calls", "Name"], "trace": ["Duration", "Name"],
            "api-trace": ["Duration", "Name"], "metrics": METRICS_HEADER[1:4] + ["Avg"],
            "events": EVENTS_HEADER[1:4] + ["Avg"], "unified": UNIFIED_HEADER[1:2] + ["Total Size", "Total Time", "Name"]}[kind]
    missing = [c for c in need if c not in header]
    if missing:
        raise InputError(path, block[0][0], f"{kind} table lacks column(s) {', '.join(missing)}")
    if kind == "summary" and "Type" not in header:  # old format: one table per section
        section = "API calls" if "API" in title else "GPU activities"
        header, units = ["Type", *header], ["", *units]
        body = [(n, [section, *cells]) for n, cells in body]
    return Table(kind, header, units, body, title)
