"""CSV files of the AMD tools read as columns: rocprof v1/v2 ``results.csv``,
rocprofv3's ``*_kernel_trace.csv`` / ``*_counter_collection.csv`` /
``*_kernel_stats.csv`` / ``*_agent_info.csv``, rocprof-compute's
``pmc_perf.csv`` and ``sysinfo.csv``.

A :class:`Table` keeps each column as text (Arrow string arrays, from
Arrow's C++ CSV reader: a million-row kernel trace in seconds, no Python
object per cell); numbers are parsed only for the columns a reader asks
for (``pmc_perf.csv`` has 2,718 columns, a roofline uses about twenty), so
an odd cell in a column nobody reads cannot fail a file. A file Arrow
refuses (a row of the wrong width, a broken quote) is read again by
Python's csv module, which names the line; so is a column whose cells
Arrow cannot convert, to name the cell. Line numbers are counted only when
an error needs one.

Timestamps are parsed exactly (:meth:`Table.timestamps`): integer
nanoseconds as written, and a cell in exponent or decimal notation
(``8.1097E+14``, as a spreadsheet saves them) by its decimal value, with its
resolution (10^10 ns for ``8.1097E+14``: the last digit written), so a
reader can tell a duration of 0 from one the file no longer holds.
"""
from __future__ import annotations

import csv
import io
from decimal import Decimal, InvalidOperation
from pathlib import Path

import numpy as np

from ...core.errors import InputError
from ...core.text_files import read_text
from ...devices.rocprof_roofline import read_small_text

# No AMD profiler writes more columns (pmc_perf.csv has 2,718; 128 L2 channels
# of 50 TCC counters would be 6,400). Arrow keeps 7-10 KB per column (20,000
# took 280 MB peak here), and 400,000 (a 3.9 MB header) aborted the process.
MAX_COLUMNS = 20_000
MISSING = ("", "None", "none", "N/A", "n/a", "NA", "nan", "NaN")   # v1 writes 'None' for a value it lacks
MAX_NS = 2 ** 63 - 1            # no timestamp is later (year 2262, int64's limit)


def header_cells(head: bytes, limit: int = 20) -> list[str]:
    """The first non-empty line of ``head`` split as CSV (sniffing)."""
    text = head.decode("utf-8", errors="replace")
    for line in text.splitlines()[:limit]:
        if line.strip():
            try:
                return [c.strip() for c in next(csv.reader([line]))]
            except (csv.Error, StopIteration):
                return []
    return []


class Table:
    """One CSV table as text columns; ``header`` holds the names as written.
    Blank lines are skipped (rocprof v2 writes one after the header)."""

    def __init__(self, path, text: str):
        self.path = Path(str(path))
        self._text = text
        self.header, self.header_line, body = self._split_header(text)
        self._lines: list[int] | None = None
        self._numbers: dict[str, np.ndarray] = {}
        self._folded = {h.lower(): h for h in self.header}
        self._arrow = self._arrow_columns(body)
        if self._arrow is None:                 # Arrow refused it: the csv module names the line
            self._lists = self._python_columns()
            self._rows = len(self._lines)
        else:
            self._lists = {}
            self._rows = len(self._arrow[self.header[0]]) if self.header else 0

    @classmethod
    def read(cls, path, limit: int | None = None) -> Table:
        return cls(path, read_text(path, limit))

    @classmethod
    def read_small(cls, path, what: str) -> Table:
        """A table that describes the machine, read only up to
        :data:`MAX_DESCRIPTION_BYTES` (a larger one is refused unread)."""
        return cls(path, read_small_text(path, what))

    # ------------------------------------------------------------ parsing

    def _split_header(self, text: str) -> tuple[list[str], int, str]:
        """The header (the first non-empty line), its line number and the
        text after it (found without copying the text line by line)."""
        offset, line = 0, 1
        while offset < len(text):
            end = text.find("\n", offset)
            end = len(text) if end < 0 else end + 1
            raw = text[offset:end]
            if raw.strip():
                try:
                    header = [c.strip() for c in next(csv.reader([raw]))]
                except (csv.Error, StopIteration) as exc:
                    raise InputError(self.path, line, f"malformed CSV header: {exc}") from None
                if len(header) > MAX_COLUMNS:
                    raise InputError(self.path, line, f"{len(header):,} columns in the header: more than any AMD "
                                     f"profiler writes (at most {MAX_COLUMNS:,} are read)")
                _no_duplicates(header, self.path, line)
                return header, line, text[end:]
            offset, line = end, line + 1
        raise InputError(self.path, None, "empty file: no header line")

    def _arrow_columns(self, body: str) -> dict[str, pa.ChunkedArray] | None:
        import pyarrow as pa            # (here, not at import: every command imports the readers,
        from pyarrow import csv as pa_csv    # and pyarrow's import is 60 ms of a Kineto trace's read)
        if not body.strip():
            return {h: pa.chunked_array([], pa.string()) for h in self.header}
        names = [f"c{i}" for i in range(len(self.header))]     # the names as written may repeat after strip
        try:
            table = pa_csv.read_csv(
                io.BytesIO(body.encode("utf-8")),
                read_options=pa_csv.ReadOptions(column_names=names),
                parse_options=pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=True),
                convert_options=pa_csv.ConvertOptions(column_types={n: pa.string() for n in names},
                                                      strings_can_be_null=False, quoted_strings_can_be_null=False))
        except (pa.ArrowInvalid, pa.ArrowException):
            return None
        return {h: table.column(n) for h, n in zip(self.header, names)}

    def _python_columns(self) -> dict[str, list[str]]:
        cols: list[list[str]] = [[] for _ in self.header]
        self._lines = []
        reader = csv.reader(io.StringIO(self._text, newline=""))
        try:
            for row in reader:
                # the lines Arrow skips too: before the header, and empty ones
                if reader.line_num <= self.header_line or not row or (len(row) == 1 and not row[0].strip()):
                    continue
                if len(row) != len(self.header):
                    raise InputError(self.path, reader.line_num, f"expected {len(self.header)} cells, as the "
                                     f"header on line {self.header_line} has, found {len(row)} (a damaged or "
                                     "cut file)")
                for col, cell in zip(cols, row):
                    col.append(cell)
                self._lines.append(reader.line_num)
        except csv.Error as exc:
            raise InputError(self.path, reader.line_num, f"malformed CSV: {exc}") from None
        return dict(zip(self.header, cols))

    def line_of(self, i: int) -> int:
        """The line row ``i`` ends on (counted on first need)."""
        if self._lines is None:
            self._python_columns()
        return self._lines[i]

    # ------------------------------------------------------------ columns

    def __len__(self) -> int:
        return self._rows

    def names(self) -> list[str]:
        return list(self.header)

    def column(self, *aliases: str) -> str | None:
        """The first of ``aliases`` the header has (ignoring case)."""
        for alias in aliases:
            found = self._folded.get(alias.lower())
            if found is not None:
                return found
        return None

    def text(self, name: str) -> list[str]:
        if name not in self._lists:
            self._lists[name] = self._arrow[name].to_pylist()
        return self._lists[name]

    def codes(self, name: str) -> tuple[np.ndarray, list[str]]:
        """Each row's index into the distinct texts of column ``name``."""
        if self._arrow is not None:
            encoded = self._arrow[name].combine_chunks().dictionary_encode()
            return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), encoded.dictionary.to_pylist()
        index: dict[str, int] = {}
        codes = np.fromiter((index.setdefault(c, len(index)) for c in self.text(name)), dtype=np.int64,
                            count=len(self))
        return codes, list(index)

    def _cast(self, name: str, kind) -> np.ndarray | None:
        """Arrow's conversion of a column (empty cells NaN), or None when a
        cell is not of that kind (the slow path then names it)."""
        if self._arrow is None:
            return None
        import pyarrow as pa
        import pyarrow.compute as pc
        col = self._arrow[name]
        try:
            blank = pc.is_in(col, value_set=pa.array(MISSING))
            values = pc.cast(pc.if_else(blank, pa.scalar(None, pa.string()), col), kind)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
        return values.to_numpy(zero_copy_only=False)

    # ------------------------------------------------------------ numbers

    def get(self, name: str) -> np.ndarray | None:
        """Column ``name`` as floats (NaN where empty); None when absent.
        A cell that is no finite non-negative number is an InputError."""
        if name not in self.header:
            return None
        if name not in self._numbers:
            self._numbers[name] = self._floats(name)
        return self._numbers[name]

    def _floats(self, name: str) -> np.ndarray:
        import pyarrow as pa
        values = self._cast(name, pa.float64())
        if values is None:
            values = np.array([self._float(name, i, c) for i, c in enumerate(self.text(name))], dtype=np.float64)
        values = values.astype(np.float64)
        bad = np.flatnonzero(~np.isnan(values) & ~((values >= 0) & np.isfinite(values)))
        if bad.size:
            self._refuse(name, int(bad[0]), self.text(name)[int(bad[0])], "a finite non-negative number")
        return values

    def _float(self, name: str, i: int, cell: str) -> float:
        if cell.strip() in MISSING:
            return np.nan
        try:
            return float(cell)
        except ValueError:
            self._refuse(name, i, cell, "a number")

    def integers(self, name: str | None, default: int = -1) -> np.ndarray:
        """Column ``name`` as int64 (``default`` where empty or absent): a
        launch-configuration figure, which must be a whole number."""
        if name is None or name not in self.header:
            return np.full(len(self), default, dtype=np.int64)
        values = self.get(name)
        # a whole number int64 holds (2**64 - 1, an unsigned figure, cast to garbage before)
        whole = np.isnan(values) | ((values == np.floor(values)) & (np.abs(values) < 2.0 ** 63))
        if not whole.all():
            i = int(np.flatnonzero(~whole)[0])
            self._refuse(name, i, self.text(name)[i], "a whole number below 2**63")
        return np.where(np.isnan(values), default, values).astype(np.int64)

    def timestamps(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(ns as int64, resolution in ns as int64) of a timestamp column;
        -1 where a cell is empty. Integers are exact; ``8.1097E+14`` is
        810970000000000 with a resolution of 10^10."""
        import pyarrow as pa
        fast = self._cast(name, pa.int64())
        if fast is not None and fast.dtype == np.int64 and not (fast < 0).any():
            return fast, np.ones(len(fast), dtype=np.int64)
        pairs = [self._exact(name, i, c) for i, c in enumerate(self.text(name))]
        return (np.array([p[0] for p in pairs], dtype=np.int64).reshape(len(pairs)),
                np.array([p[1] for p in pairs], dtype=np.int64).reshape(len(pairs)))

    def _exact(self, name: str, i: int, cell: str) -> tuple[int, int]:
        text = cell.strip()
        if text in MISSING:
            return -1, 1
        try:
            value = Decimal(text)
        except InvalidOperation:
            self._refuse(name, i, cell, "a timestamp in nanoseconds")
        if not value.is_finite() or value < 0 or value > MAX_NS:
            self._refuse(name, i, cell, "a timestamp in nanoseconds (finite, non-negative, before 2262)")
        exponent = value.as_tuple().exponent
        return int(value), 10 ** exponent if exponent > 0 else 1

    def _refuse(self, name: str, i: int, cell: str, what: str):
        shown = repr(cell) if len(cell) <= 40 else repr(cell[:40]) + "..."
        raise InputError(self.path, self.line_of(i), f"column {name}: expected {what}, found {shown}")


def _no_duplicates(header: list[str], path: Path, line: int) -> None:
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InputError(path, line, f"duplicate column {name!r} in the header")
        seen.add(name)


class Columns:
    """Counter columns of several shapes behind the one ``get``/``names``
    interface :mod:`.amd_counters` reads (a pivoted counter_collection.csv,
    rocprofv3 JSON records)."""

    def __init__(self, columns: dict[str, np.ndarray]):
        self._columns = columns

    def get(self, name: str) -> np.ndarray | None:
        return self._columns.get(name)

    def names(self) -> list[str]:
        return list(self._columns)


class RowsOf:
    """The counter columns of some rows of a table (repeated rows left
    out), parsed only when asked for, as :class:`Table` does."""

    def __init__(self, table: Table, rows: np.ndarray):
        self._table, self._rows = table, rows

    def get(self, name: str) -> np.ndarray | None:
        values = self._table.get(name)
        return None if values is None else values[self._rows]

    def names(self) -> list[str]:
        return self._table.names()
