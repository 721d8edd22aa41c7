"""What kernels.csv's two readers must agree on: its columns, what a line,
a comment, a blank and a cell are, and which values are measurements.

:mod:`.kernels_csv` reads a file with Arrow's CSV reader when it can and
with ``csv.reader`` (which names the line of any problem) when it cannot;
every rule both apply lives here, once, so the two give the same kernels
for every file the fast one accepts.

- Lines end only at CR, LF or CRLF (as in RFC 4180 and Arrow), never at
  the other characters ``str.splitlines`` breaks at (U+2028, U+2029, U+0085,
  VT, FF, \\x1c-\\x1e): those are text inside a cell.
- A comment is a line whose first character after spaces and tabs is ``#``
  and that starts a record: a ``#`` line inside a quoted multi-line cell,
  or a quoted cell starting with ``#``, is data.
- Cells are trimmed of spaces and tabs only; other white space (U+00A0,
  U+3000, U+2029 ...) is part of a name.
- A cell holds at most :data:`MAX_FIELD_CHARS` characters, as written (the
  csv module's default limit). A longer run without a comma or line end is
  refused before any reader copies the text (a 500 MB one-cell file would
  not fit in memory several times over).
- Times are finite, not negative and at most a year (:data:`.base.MAX_TIME_S`);
  ``count`` and ``threads`` are whole numbers from 1 to 2**53, the largest
  range a float64 holds exactly.
"""
from __future__ import annotations

import csv
import math
import re
from collections import Counter
from decimal import Decimal, InvalidOperation

import numpy as np

from ..core.csv_cells import restored
from ..core.errors import InputError
from ..core.model import LEVELS, PRECISIONS
from ..core.import_result import MAX_TIME_S

# Times are divided by a whole number of units per second (1e-6 has no exact
# float; 1e6 has): a year written in ns reads as exactly a year.
PER_SECOND = {"time_s": 1.0, "time_ms": 1e3, "time_us": 1e6, "time_ns": 1e9}
TIME_COLUMNS = {c: 1.0 / n for c, n in PER_SECOND.items()}
LEVEL_COLUMNS = {f"bytes_{lv.lower()}": lv for lv in LEVELS}
FLOP_COLUMNS = {f"flops_{p}": p for p in PRECISIONS}
# 32-byte transactions (sectors; shared-memory wavefronts) for the instruction roofline
TX_COLUMNS = {f"transactions_{lv.lower()}": lv for lv in ("L1", "shared", "L2", "DRAM")}
TEXT_COLUMNS = ("family", "variant", "source", "operator")
OTHER_NUMERIC = ("count", "instructions", "threads")
FLAG_COLUMNS = ("modelled",)
TRUE, FALSE = frozenset({"1", "true", "yes"}), frozenset({"", "0", "false", "no"})
KNOWN = (set(TIME_COLUMNS) | set(LEVEL_COLUMNS) | set(FLOP_COLUMNS) | set(TX_COLUMNS)
         | set(TEXT_COLUMNS) | set(OTHER_NUMERIC) | set(FLAG_COLUMNS) | {"name"})
NUMERIC = (set(OTHER_NUMERIC) | set(TIME_COLUMNS) | set(FLOP_COLUMNS) | set(LEVEL_COLUMNS)
           | set(TX_COLUMNS))
EXPECTED_COLUMNS = ("name, time_s|time_ms|time_us|time_ns, count, flops_<precision>, bytes_<level>, "
                    "family, variant, source, operator, threads, modelled, instructions, "
                    "transactions_<level>")

BLANKS = " \t"
MAX_FIELD_CHARS = 131072
MAX_COUNT = 2 ** 53

_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)?")
_LINE_END = re.compile(r"\r\n?|\n")
# where str.splitlines breaks a line besides CR and LF
_OTHER_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_COMMENT_LINE = re.compile(r"[ \t]*#")
_COMMENT_ANYWHERE = re.compile(r"(?:^|[\r\n])[ \t]*#")
_COMMENT_ANYWHERE_BYTES = re.compile(rb"(?:^|[\r\n])[ \t]*#")


# --- lines, comments, blanks -------------------------------------------------

def physical_lines(text: str):
    """The lines of ``text`` with their endings, split at CR, LF and CRLF only."""
    if not any(c in text for c in _OTHER_BREAKS):      # the usual file: splitlines is C and the same
        return iter(text.splitlines(keepends=True))
    return filter(None, map(re.Match.group, _LINE.finditer(text)))


def data_lines(text: str):
    """(line number, line, whether a line end follows it) of the lines that
    are neither blank nor comments (the header is the first)."""
    pieces = _LINE_END.split(text)
    for number, line in enumerate(pieces, start=1):
        if line.strip(BLANKS) and not _COMMENT_LINE.match(line):
            yield number, line, number < len(pieces)


def is_comment(line: str) -> bool:
    return _COMMENT_LINE.match(line) is not None


def has_comment(text: str | bytes) -> bool:
    # a scan for '#' is 100x faster than the regex, and most files have none
    if isinstance(text, bytes):
        return b"#" in text and _COMMENT_ANYWHERE_BYTES.search(text) is not None
    return "#" in text and _COMMENT_ANYWHERE.search(text) is not None


def line_at(text: str, offset: int) -> int:
    """The line number of character ``offset`` (CRLF is one line end)."""
    return 1 + text.count("\n", 0, offset) + text.count("\r", 0, offset) - text.count("\r\n", 0, offset)


class _Lines:
    """Physical lines for ``csv.reader``, comment lines left out: the reader
    pulls a line at a time and says (``at_start``) when a record is done, so
    a ``#`` line inside a quoted cell is never taken for a comment."""

    def __init__(self, text: str):
        self._lines = physical_lines(text)
        self.number = 0          # the last line handed out
        self.first = 0           # the line the current record started on
        self.at_start = True

    def __iter__(self):
        return self

    def __next__(self) -> str:
        for line in self._lines:
            self.number += 1
            if self.at_start:
                if line[0] in "# \t" and _COMMENT_LINE.match(line):
                    continue
                self.first, self.at_start = self.number, False
            return line
        raise StopIteration


def records(text: str, path) -> tuple[list, list]:
    """The CSV records that are neither blank nor comments, and the line
    each starts on; an unreadable record is an InputError naming its line."""
    lines = _Lines(text)
    rows, starts = [], []
    try:
        for row in csv.reader(lines):
            lines.at_start = True
            if len(row) > 1 or (row and row[0].strip(BLANKS)):
                rows.append(row)
                starts.append(lines.first)
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise InputError(path, lines.number, _too_long()) from None
        raise InputError(path, lines.number, f"not a readable CSV: {exc}") from None
    return rows, starts


# --- cell sizes --------------------------------------------------------------

def _too_long() -> str:
    return f"a cell longer than {MAX_FIELD_CHARS} characters (the most a kernels.csv cell may hold)"


def check_cell_runs(text: str, path) -> None:
    """Refuse a run of more than MAX_FIELD_CHARS characters without a comma
    or line end (one cell that long, as written) before anything copies the
    text."""
    start = long_run_at(text)
    if start is not None:
        raise InputError(path, line_at(text, start), _too_long())


def long_run_at(text: str | bytes) -> int | None:
    """Where the first run of more than MAX_FIELD_CHARS characters (or
    bytes, for bytes: at least as many) without a comma or line end starts,
    or None. Every such run covers a whole aligned window of half that
    length, so only one window in each is searched for a separator: linear,
    and a few characters per window in a usual file."""
    limit = MAX_FIELD_CHARS
    half = max(1, (limit + 1) // 2)
    comma, lf, cr = (",", "\n", "\r") if isinstance(text, str) else (b",", b"\n", b"\r")
    for a in range(0, len(text) - half + 1, half):
        b = a + half
        if text.find(comma, a, b) >= 0 or text.find(lf, a, b) >= 0 or text.find(cr, a, b) >= 0:
            continue
        low, high = max(0, a - limit - 1), min(len(text), b + limit + 1)
        before = max(text.rfind(comma, low, a), text.rfind(lf, low, a), text.rfind(cr, low, a))
        start = before + 1 if before >= 0 else low
        ends = [i for i in (text.find(c, b, high) for c in (comma, cr, lf)) if i >= 0]
        if min(ends, default=high) - start > limit:
            return start
    return None


def check_cell_lengths(cells: dict, lines, path) -> None:
    """Refuse a cell whose text (quotes taken off) is over MAX_FIELD_CHARS:
    the csv module's own limit can be raised by anyone in the process."""
    for column in cells.values():
        if max(map(len, column)) > MAX_FIELD_CHARS:
            i = next(i for i, c in enumerate(column) if len(c) > MAX_FIELD_CHARS)
            raise InputError(path, int(lines[i]), _too_long())


# --- header ------------------------------------------------------------------

def header_columns(line: str) -> list[str]:
    """The column names of a header line (quoted or not), trimmed and lower-case."""
    return [c.strip(BLANKS).lower() for c in next(csv.reader([line]), [])]


def header_problem(columns: list[str]) -> str | None:
    """What is wrong with a header, or None; linear in the number of columns."""
    if "name" not in columns:
        return "header has no 'name' column"
    unknown = list(dict.fromkeys(c for c in columns if c not in KNOWN))
    if unknown:
        return f"unknown column(s) {_listed(unknown)}; expected {EXPECTED_COLUMNS}"
    times = list(dict.fromkeys(c for c in columns if c in TIME_COLUMNS))
    if len(times) > 1:
        return f"more than one time column: {', '.join(times)}"
    dupes = [c for c, n in Counter(columns).items() if n > 1]
    if dupes:
        return f"duplicate column(s): {_listed(dupes)}"
    return None


def _listed(names: list[str], most: int = 8) -> str:
    def plain(n):
        return n.isprintable() and n.strip(BLANKS) == n and "," not in n and len(n) <= 60
    shown = ", ".join(n if n and plain(n) else shortened(n) for n in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def shortened(text: str, limit: int = 60) -> str:
    """``text`` quoted for a message, cut to ``limit`` characters (a cell
    may hold 131072)."""
    return repr(text if len(text) <= limit else text[:limit - 1] + "…")


# --- values ------------------------------------------------------------------

def seconds(values: np.ndarray, column: str) -> np.ndarray:
    return values / PER_SECOND[column]


def beyond_a_year(time_s: np.ndarray) -> np.ndarray:
    """Where a (finite, non-negative) time in seconds is longer than a year:
    an overflowed counter or a damaged file, not a measurement."""
    return time_s > MAX_TIME_S


def not_whole(values: np.ndarray) -> np.ndarray:
    """Where a count is not a whole number from 1 to 2**53 (beyond, a
    float64 skips integers and int64 conversions wrap around)."""
    return ~((values >= 1) & (values <= MAX_COUNT) & (values == np.floor(values)))


def needs_digits(values: np.ndarray) -> np.ndarray:
    """Where a float64 whole number may be a rounded one: from 2**52 on it
    holds no fraction, so '4503599627370496.5' or '9007199254740993' (2**53
    + 1) reads as a whole number; only the written digits can tell."""
    return values >= 2.0 ** 52


def _written_whole(cell: str, value: float) -> bool:
    try:
        return Decimal(cell.strip(BLANKS)) == int(value)
    except (InvalidOperation, ValueError):
        return False


def numbers(cells: dict, column: str, lines, path) -> np.ndarray:
    """One numeric column as float64 (NaN for empty cells), checked finite and >= 0."""
    raw = cells[column]
    filled = [c if c.strip(BLANKS) else "nan" for c in raw] if "" in raw else raw
    try:
        values = np.array(filled, dtype=np.float64)
    except ValueError:          # a cell numpy cannot read: find it, or read the column cell by cell
        values = np.array([_cell_value(c, column, lines, i, path) for i, c in enumerate(raw)],
                          dtype=np.float64)
    nan = np.flatnonzero(np.isnan(values))
    written = [int(i) for i in nan if raw[i].strip(BLANKS)]          # "nan" typed in a cell
    wrong = np.flatnonzero(~np.isnan(values) & ~(np.isfinite(values) & (values >= 0)))
    if written or wrong.size:
        i = min(written[:1] + [int(j) for j in wrong[:1]])
        raise InputError(path, int(lines[i]), f"column {column}: expected a non-negative number, "
                         f"found {shortened(raw[i])}")
    return values


def _cell_value(cell: str, column: str, lines, i: int, path) -> float:
    if not cell.strip(BLANKS):
        return math.nan
    try:
        return float(cell)
    except ValueError:
        raise InputError(path, int(lines[i]), f"column {column}: expected a number, "
                         f"found {shortened(cell)}") from None


def times(cells: dict, column: str, lines, path) -> np.ndarray:
    """A time column in seconds, each time at most a year."""
    time_s = seconds(numbers(cells, column, lines, path), column)
    bad = np.flatnonzero(beyond_a_year(time_s))
    if bad.size:
        i = int(bad[0])
        most = MAX_TIME_S * PER_SECOND[column]
        raise InputError(path, int(lines[i]), f"column {column}: expected a time of at most a year "
                         f"({most:g} {column[5:]}), found {shortened(cells[column][i])}: not a "
                         "measurement (an overflowed or damaged duration)")
    return time_s


def whole(values: np.ndarray, column: str, cells: dict, lines, path) -> np.ndarray:
    """``values`` (NaN for empty cells) when every written one is a whole
    number from 1 to 2**53."""
    refused = not_whole(values) & ~np.isnan(values)
    for i in np.flatnonzero(needs_digits(values) & ~refused):
        refused[i] = not _written_whole(cells[column][i], float(values[i]))
    bad = np.flatnonzero(refused)
    if bad.size:
        i = int(bad[0])
        raise InputError(path, int(lines[i]), f"column {column}: expected a whole number from 1 to "
                         f"2**53 ({MAX_COUNT}), found {shortened(cells[column][i])}")
    return values


def names(column, lines, path) -> np.ndarray:
    """Kernel names, trimmed and restored (each distinct name one object)."""
    out = text_cells(column)
    empty = np.flatnonzero(out == "")
    if empty.size:
        raise InputError(path, int(lines[int(empty[0])]), "empty kernel name")
    return out


def text_cells(column) -> np.ndarray:
    interned: dict[str, str] = {}
    return np.asarray([interned.setdefault(s, s) for s in (restored(c.strip(BLANKS)) for c in column)],
                      dtype=object)


def flags(column, lines, path) -> np.ndarray:
    """The ``modelled`` column as booleans (1/true/yes, 0/false/no/empty)."""
    lowered = [c.strip(BLANKS).lower() for c in column]
    for i, f in enumerate(lowered):
        if f not in TRUE and f not in FALSE:
            raise InputError(path, int(lines[i]), f"column modelled: expected 1 or 0, "
                             f"found {shortened(column[i])}")
    return np.fromiter((f in TRUE for f in lowered), dtype=bool, count=len(lowered))
