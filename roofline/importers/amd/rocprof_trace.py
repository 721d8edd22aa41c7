"""rocprof v1/v2 JSON traces (``rocprof --hip-trace`` / ``--sys-trace``
writes ``results.json`` beside ``results.csv``): Chrome trace events whose
values are all strings.

Layout (ROCm/rocprofiler ``bin/sqlitedb.py`` ``dump_json`` and
``bin/dform.py``)::

    { "traceEvents":[{}
    ,{"args":{"name":"GPU0"},"ph":"M","pid":6,"name":"process_name"}
    ,{"ph":"X","name":"vecAdd(...)","pid":6,"tid":0,"ts":"1234","dur":"12",
      "args":{"KernelName":"...","gpu-id":"0","grd":"1048576","wgr":"256",
              "lds":"0",...,"<counters>":"...","BeginNs":"...","EndNs":"..."}}
    ...], "otherData": {...}}

A kernel is an ``X`` event on a process labelled ``GPU<n>`` (older
versions prefix a section number: ``3 GPU0``). Its time is ``EndNs -
BeginNs`` from its args, exact integers, when it has them; else ``ts`` and
``dur`` in microseconds, read exactly as decimals (``dur`` is whole
microseconds there, and 0 is written as 1, so a warning says so). A
timestamp is at most :data:`MAX_NUMBER_CHARS` characters; one that is no
finite non-negative number is an InputError naming the event and field.
The args (launch configuration, counters) are read as the rocprof v1
``results.csv`` columns are (:mod:`.rocprof_rows`, :mod:`.amd_counters`).
"""
from __future__ import annotations

import csv
import io
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated, Union

import msgspec
import numpy as np

from ..options import DEFAULT, ReadOptions
from ...core.errors import Advice, InputError
from ...core.gcpause import paused
from ...core.text_files import read_text
from ..recipes import missing_counter_advice
from ...core.import_result import DeviceClues, ImportResult
from ..base import Reader, register
from .rocprof_common import advice, kernels_of, program_time
from .rocprof_rows import dispatches, times
from .rocprof_table import MAX_NS, Table

MAX_NUMBER_CHARS = 40            # a timestamp in ns has 19 digits; no figure needs more than this
MAX_NAME_CHARS = 1 << 16
Cell = Union[str, int, float, None]
_GPU_LABEL = re.compile(r"(?:^|\s)GPU\s*(\d+)\s*$")
_NUMBER = re.compile(r"^\s*\+?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")


class _Event(msgspec.Struct, gc=False):
    ph: str = ""
    name: Annotated[str, msgspec.Meta(max_length=MAX_NAME_CHARS)] = ""
    pid: Union[int, str] = -1
    ts: Cell = None
    dur: Cell = None
    args: dict[Annotated[str, msgspec.Meta(max_length=MAX_NAME_CHARS)], Cell] = {}


class _File(msgspec.Struct, gc=False):
    traceEvents: list[Union[_Event, None]]


_DECODER = msgspec.json.Decoder(_File)


def sniff(path: Path, head: bytes) -> bool:
    """A Chrome trace whose ``ts`` values are strings (rocprof's, not Kineto's)."""
    return (head.lstrip().startswith(b"{") and b'"traceEvents"' in head
            and re.search(rb'"ts"\s*:\s*"', head) is not None)


def read(path, options: ReadOptions = DEFAULT) -> ImportResult:
    path = Path(path)
    text = read_text(path, options.max_text_bytes)
    with paused():
        events = _decode(text, path).traceEvents
    gpus = _gpu_pids(events)
    picked = [i for i, e in enumerate(events) if e is not None and e.ph == "X" and str(e.pid) in gpus]
    if not picked:
        raise InputError(path, None, "no kernel events: rocprof labels its GPU processes 'GPU0', 'GPU1', ... "
                         "(process_name events) and none has an 'X' event (was --hip-trace or --sys-trace on?)")
    rows, coarse = _rows(events, picked, path)
    table = _EventTable(path, _csv(rows), picked)
    time, _, note = times(table)
    notes = [note] if note else []
    if coarse:
        notes.append(f"{coarse} kernel event(s) have no BeginNs/EndNs: their time is dur in microseconds as "
                     "written (rocprof truncates it to whole microseconds and writes 0 as 1)")
    d = dispatches(table, counters=table, time_ns=time, notes=notes)
    d.where = lambda i: (None, f"traceEvents[{picked[i]}]: ")
    kernels, more = kernels_of(d)
    warnings = advice(more, path.name) + missing_counter_advice(kernels, tool="rocprof", subject=path.name)
    warnings.append(Advice("the file does not name its GPU", "pass --device (rocprof v1/v2 traces do not "
                           "record it)", path.name))
    start, end = table.timestamps("BeginNs")[0], table.timestamps("EndNs")[0]
    return ImportResult(str(path), "rocprof-json", tuple(kernels), program=program_time(start, end),
                        warnings=tuple(warnings), device=DeviceClues(name=None, kind="gpu"))


def _decode(text: str, path: Path) -> _File:
    try:
        return _DECODER.decode(text)
    except msgspec.ValidationError as exc:
        m = re.search(r" - at `\$\.?([^`]*)`", str(exc))
        where = m.group(1) if m else "the file"
        raise InputError(path, None, f"{where}: {str(exc)[:m.start() if m else 200]} (not a rocprof JSON trace)") \
            from None
    except RecursionError:      # values nested thousands deep (in a key the reader skips, too)
        raise InputError(path, None, "JSON nested too deeply to read: not a rocprof JSON trace") from None
    except msgspec.DecodeError as exc:
        raise InputError(path, None, f"not valid JSON: {exc}") from None


def _gpu_pids(events) -> set[str]:
    """The pids rocprof labels GPU<n> (as text: it writes them as numbers or strings)."""
    out = set()
    for e in events:
        if e is not None and e.ph == "M" and e.name == "process_name":
            label = e.args.get("name")
            if isinstance(label, str) and _GPU_LABEL.search(label):
                out.add(str(e.pid))
    return out


def _rows(events, picked: list[int], path: Path) -> tuple[list[dict], int]:
    """One dict of text cells per kernel event: its args, the kernel name
    and exact BeginNs/EndNs (from ts and dur when the args lack them)."""
    rows, coarse = [], 0
    for i in picked:
        e = events[i]
        row = {k.strip(): "" if v is None else str(v) for k, v in e.args.items()}
        row["KernelName"] = row.get("KernelName") or row.get("Name") or e.name
        if not row.get("gpu-id") and row.get("dev-id"):
            row["gpu-id"] = row["dev-id"]
        if not (row.get("BeginNs", "").strip() and row.get("EndNs", "").strip()):
            start = _ns(e.ts, f"traceEvents[{i}].ts", path)
            row["BeginNs"], row["EndNs"] = str(start), str(start + _ns(e.dur, f"traceEvents[{i}].dur", path))
            coarse += 1
        rows.append(row)
    return rows, coarse


def _ns(value: Cell, field: str, path: Path) -> int:
    """Microseconds written as text (or a number) to integer ns, exactly."""
    text = str(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else ""
    shown = repr(text) if len(text) <= MAX_NUMBER_CHARS else f"{text[:20]!r}... ({len(text)} characters)"
    if value is None or len(text) > MAX_NUMBER_CHARS or not _NUMBER.match(text):
        raise InputError(path, None, f"{field}: expected microseconds (a non-negative number of at most "
                         f"{MAX_NUMBER_CHARS} characters), found {shown if value is not None else 'none'}")
    try:
        ns = Decimal(text.strip()) * 1000
    except InvalidOperation:
        raise InputError(path, None, f"{field}: expected microseconds, found {shown}") from None
    if ns > MAX_NS:
        raise InputError(path, None, f"{field}: {shown} microseconds is past any timestamp (year 2262)")
    return int(ns)


def _csv(rows: list[dict]) -> str:
    """The rows as a CSV table, the columns in order of first appearance."""
    header = list(dict.fromkeys(k for row in rows for k in row))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([row.get(k, "") for k in header] for row in rows)
    return buf.getvalue()


class _EventTable(Table):
    """The kernel events' args as a table whose errors name the event and
    field (``traceEvents[12].args.grd``), not a line of a CSV no one wrote."""

    def __init__(self, path: Path, text: str, events: list[int]):
        self._events = events
        super().__init__(path, text)

    def line_of(self, i: int) -> None:
        return None

    def _refuse(self, name: str, i: int, cell: str, what: str):
        shown = repr(cell) if len(cell) <= 40 else repr(cell[:40]) + "..."
        raise InputError(self.path, None, f"traceEvents[{self._events[i]}].args.{name}: expected {what}, "
                         f"found {shown}")


register(Reader("rocprof-json", sniff, read))
