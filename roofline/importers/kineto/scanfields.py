"""The fields of a Kineto event the scanner (:mod:`.jsonscan`) reads, the
arrays it writes them into, and a scanned chunk read back from them: each
field's values by event, decoded once per distinct value (:mod:`.scanned`
makes the reader's columns of them).
"""
from __future__ import annotations

import msgspec
import numpy as np

from . import decode, jsonscan
from .columns import ODD

_J = jsonscan
# (key, kind, column): the event's keys, then its args'
TOP = [("ph", _J.RAW, 0), ("cat", _J.RAW, 1), ("name", _J.RAW, 2), ("pid", _J.RAW, 3), ("tid", _J.RAW, 4),
       ("ts", _J.NUM, 5), ("dur", _J.NUM, 6), ("args", _J.ARGS, 0)]
_ARGS_READ = [("External id", _J.INT), ("external id", _J.INT), ("correlation", _J.INT),
              ("device", _J.RAW), ("registers per thread", _J.RAW), ("shared memory", _J.RAW),
              ("grid", _J.RAW), ("block", _J.RAW), ("Input Dims", _J.RAW), ("Input dims", _J.RAW),
              ("Input type", _J.RAW), ("Input Strides", _J.RAW), ("Concrete Inputs", _J.RAW),
              ("Fwd thread id", _J.RAW), ("flops", _J.RAW), ("kernel", _J.RAW), ("bytes", _J.RAW),
              ("size", _J.RAW), ("kind", _J.RAW)]
# keys whose presence marks an event: a collective's name, Inductor's
# counts, the range profiler's counters (decode.py's rare fields), decoded by
# msgspec from the event's own bytes (.scanned). A collective's other fields
# (sizes, dtype, group) are read only beside its name (extras.take_op,
# take_kernel; msgspec types them all as any value), so alone they mark
# nothing: an operator with a "dtype" arg sent its whole chunk to msgspec
_MARKED = ["Collective name", "kernel_flop", "kernel_num_gb", *decode.COUNTER_KEYS]
ARGS = [(key, kind, 7 + i) for i, (key, kind) in enumerate(_ARGS_READ)] + [(k, _J.MARK, 0) for k in _MARKED]
COLUMN = {key: col for key, kind, col in TOP + ARGS if kind != _J.MARK and kind != _J.ARGS}
WIDTH = 7 + len(_ARGS_READ)
RAW_COLUMNS = np.array([col for _, kind, col in TOP + ARGS if kind == _J.RAW], dtype=np.int64)
# the tuples of fields numbered as one: a kernel's launch, an operator's call
LAUNCH_FIELDS = ("name", "grid", "block", "registers per thread", "shared memory")
CALL_FIELDS = ("Input Dims", "Input type", "Input Strides", "Concrete Inputs", "Input dims")
LAUNCH, CALL = 0, 1
_RAW_INDEX = {col: j for j, col in enumerate(RAW_COLUMNS.tolist())}
TUPLES = np.array([[_RAW_INDEX[COLUMN[k]] for k in fields] for fields in (LAUNCH_FIELDS, CALL_FIELDS)],
                  dtype=np.int64)
_TABLES = jsonscan.KeyTables(TOP, ARGS)
CAPACITY = 1 << 14                          # events per scan: about a chunk of a trace (16 MB of arrays)
FLOATS = 1 + max(col for _, kind, col in TOP + ARGS if kind == _J.NUM)


class Columns:
    """The scanner's output arrays, reused from chunk to chunk: a row per
    event (jsonscan.PRESENT, MARKS, INEXACT, then each field's span and
    hash or value), and the fields' floats."""

    def __init__(self, capacity: int = CAPACITY):
        self.capacity = capacity
        self.out = np.zeros((capacity, jsonscan.row_width(WIDTH)), dtype=np.int64)
        self.floats = np.zeros((capacity, FLOATS), dtype=np.float64)
        self.bounds = np.zeros((capacity, 2), dtype=np.int64)
        self.codes = np.zeros((len(RAW_COLUMNS), capacity), dtype=np.int64)
        self.reps = np.zeros((len(RAW_COLUMNS), capacity), dtype=np.int64)
        self.counts = np.zeros(len(RAW_COLUMNS), dtype=np.int64)
        self.tuple_codes = np.zeros((len(TUPLES), capacity), dtype=np.int64)
        self.tuple_reps = np.zeros((len(TUPLES), capacity), dtype=np.int64)
        self.tuple_counts = np.zeros(len(TUPLES), dtype=np.int64)

    def scan(self, buf: np.ndarray, start: int) -> tuple[int, int, int]:
        """(events, where the next chunk starts, status): jsonscan.scan."""
        numbering = (RAW_COLUMNS, self.codes, self.reps, self.counts, TUPLES, self.tuple_codes,
                     self.tuple_reps, self.tuple_counts)
        return jsonscan.scan(buf, start, self.capacity, _TABLES.keys, _TABLES.meta, _TABLES.slots,
                             self.out, self.floats, self.bounds, numbering)


class Odd(Exception):
    """The chunk holds something the msgspec path reads (or reports)."""


class Distinct:
    """A field's distinct values in a chunk: each event's code (-1: absent)
    and each code's bytes, decoded once when asked."""

    def __init__(self, codes: np.ndarray, raw: list):
        self.codes, self.raw = codes, raw
        self._decoded = None
        self._tables: dict[int, tuple[list, np.ndarray]] = {}   # id(values) -> (values, their table)

    def decoded(self) -> list:
        if self._decoded is None:
            try:
                self._decoded = [msgspec.json.decode(r) for r in self.raw]
            except (msgspec.DecodeError, UnicodeDecodeError):
                raise Odd() from None          # the msgspec path says where
        return self._decoded

    def per_event(self, values: list, rows: np.ndarray) -> list:
        """``values[code]`` of each of ``rows`` (None where it has none)."""
        return self._table(values)[self.codes[rows]].tolist()

    def _table(self, values: list) -> np.ndarray:
        """``values`` and a None after them as an object array, made once
        per list (a chunk reads one field for several kinds of event)."""
        made = self._tables.get(id(values))
        if made is not None and made[0] is values:
            return made[1]
        table = np.empty(len(values) + 1, dtype=object)
        for i, v in enumerate(values):        # one by one: a list value is one object, not a row
            table[i] = v
        self._tables[id(values)] = (values, table)
        return table


class Chunk:
    """One scanned chunk: its bytes, its rows, and what is read of them."""

    def __init__(self, buf: np.ndarray, cols: Columns, n: int):
        self.buf, self.n = buf, n
        self.out, self.floats = cols.out[:n], cols.floats[:n]
        self.present = self.out[:, jsonscan.PRESENT]
        self.marks = self.out[:, jsonscan.MARKS]
        self.bounds = cols.bounds[:n]          # each event's bytes
        self.inexact = self.out[:, jsonscan.INEXACT]
        self.parsed = self.present & ~self.inexact    # a bit per field whose number the scan parsed
        self._has: dict[int, np.ndarray] = {}
        self._distinct = self._all_distinct(cols)
        self.tuple_codes = cols.tuple_codes[:, :n]
        self._tuple_reps, self._tuple_counts = cols.tuple_reps, cols.tuple_counts

    def tuple_reps(self, t: int, rows: np.ndarray) -> np.ndarray:
        """A row of each distinct tuple ``t`` (LAUNCH, CALL) among ``rows``:
        the first of the chunk's rows holding it."""
        seen = np.zeros(int(self._tuple_counts[t]), dtype=bool)
        seen[self.tuple_codes[t, rows]] = True
        return self._tuple_reps[t, np.flatnonzero(seen)]

    def __len__(self) -> int:
        return self.n

    def has(self, col: int) -> np.ndarray:
        """Whether each event has field ``col``."""
        has = self._has.get(col)
        if has is None:
            has = self._has[col] = (self.present & (1 << col)) != 0
        return has

    def state(self, col: int, rows: np.ndarray) -> np.ndarray:
        """ABSENT, PARSED or DECODE: each of ``rows``' number in field ``col``."""
        bit = 1 << col
        return np.where((self.present[rows] & bit) == 0, jsonscan.ABSENT,
                        np.where((self.inexact[rows] & bit) == 0, jsonscan.PARSED, jsonscan.DECODE))

    def all_parsed(self, col: int, rows: np.ndarray) -> bool:
        """Whether every one of ``rows`` has a number in field ``col`` the
        scan parsed (:meth:`state` PARSED for all)."""
        return bool(np.all(self.parsed[rows] & (1 << col)))

    def span(self, col: int) -> np.ndarray:
        at = jsonscan.FIRST + 3 * col
        return self.out[:, at:at + 2]

    def distinct(self, col: int) -> Distinct:
        return self._distinct[col]

    def _all_distinct(self, cols: Columns) -> dict[int, Distinct]:
        """Each RAW field's Distinct (numbered as the chunk was scanned)."""
        codes, reps = cols.codes[:, :self.n], cols.reps
        out = {}
        for j, (col, count) in enumerate(zip(RAW_COLUMNS.tolist(), cols.counts.tolist())):
            at = jsonscan.FIRST + 3 * col    # (a value's first row may be one scanned past n)
            spans = cols.out[reps[j, :count], at:at + 2].tolist()
            out[col] = Distinct(codes[j], [self.buf[s:e].tobytes() for s, e in spans])
        return out

    def objects(self, key: str, rows: np.ndarray) -> list:
        """The decoded value of field ``key`` of each of ``rows`` (None
        where absent), as the msgspec path's ``object`` fields hold it."""
        col = COLUMN[key]
        if key in _INT_KEYS:
            out = self.out[rows, jsonscan.FIRST + 3 * col + 2].tolist()
            if self.all_parsed(col, rows):
                return out
            states = self.state(col, rows)
            for j in np.flatnonzero(states != jsonscan.PARSED).tolist():
                out[j] = None if states[j] == jsonscan.ABSENT else self.decoded_at(rows[j], col)
            return out
        d = self.distinct(col)
        return d.per_event(d.decoded(), rows)

    def ids(self, key: str, rows: np.ndarray, other: str | None = None) -> np.ndarray | list:
        """Integer field ``key`` of ``rows`` (``other``'s where it is absent)
        for an :class:`.columns.Ids`: int64, ODD where absent, no Python
        object per event; a list (:meth:`objects`) where a value is no
        number the scan parsed."""
        col = COLUMN[key]
        values = self.out[rows, jsonscan.FIRST + 3 * col + 2]
        if self.all_parsed(col, rows) and ODD not in values:
            return values
        parsed = (self.parsed[rows] & (1 << col)) != 0
        if ((self.present[rows] & (1 << col)) != 0).sum() != parsed.sum() or ODD in values[parsed]:
            return self.objects(key, rows) if other is None else self.either(key, other, rows)
        values[~parsed] = ODD
        if other is not None and (~parsed).any():
            left = np.flatnonzero(~parsed)
            more = self.ids(other, rows[left])
            if isinstance(more, list):
                return self.either(key, other, rows)
            values[left] = more
        return values

    def either(self, key: str, other: str, rows: np.ndarray, raw: bool = False) -> list:
        """objects() (raws() where ``raw``) of ``key``, and of ``other``
        where ``key`` is absent."""
        read = self.raws if raw else self.objects
        first = read(key, rows)
        if key in _INT_KEYS and self.all_parsed(COLUMN[key], rows) or None not in first:
            return first
        return [a if a is not None else b for a, b in zip(first, read(other, rows))]

    def decoded_at(self, row: int, col: int):
        s, e = self.span(col)[row].tolist()
        try:
            return msgspec.json.decode(self.buf[s:e].tobytes())
        except (msgspec.DecodeError, UnicodeDecodeError):
            raise Odd() from None

    def raws(self, key: str, rows: np.ndarray) -> list:
        """The raw JSON bytes of field ``key`` of each of ``rows`` (None where absent)."""
        d = self.distinct(COLUMN[key])
        return d.per_event(d.raw, rows)

    def times(self, key: str, rows: np.ndarray) -> np.ndarray:
        """ts or dur of ``rows`` as floats (msgspec's ``float | None``:
        Odd where one is absent, null or no number)."""
        col = COLUMN[key]
        values = self.floats[rows, col]
        if self.all_parsed(col, rows):
            return values
        states = self.state(col, rows)
        if (states == jsonscan.ABSENT).any():
            raise Odd()
        left = np.flatnonzero(states != jsonscan.PARSED)
        values[left] = self.floats_decoded(col, rows[left])
        return values

    def floats_decoded(self, col: int, rows: np.ndarray, nullable: bool = False) -> list:
        """Field ``col`` of ``rows`` decoded by msgspec as the msgspec path's
        ``float`` (``float | None`` where ``nullable``) fields are, all in
        one call (a JSON array of their bytes: a trace whose times have more
        digits than the scanner converts has millions); Odd where one is
        not that."""
        if not len(rows):
            return []
        spans = self.span(col)[rows]
        sizes = spans[:, 1] - spans[:, 0] + 1                 # each value and a comma after it
        at = np.cumsum(sizes) - sizes
        picked = self.buf[np.repeat(spans[:, 0] - at, sizes) + np.arange(int(sizes.sum()))]
        picked[at + sizes - 1] = 0x2C                         # ","
        picked[-1] = 0x5D                                     # "]"
        try:
            return msgspec.json.decode(b"[" + picked.tobytes(), type=list[float | None] if nullable else list[float])
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
            raise Odd() from None


_INT_KEYS = frozenset(k for k, kind, _ in ARGS if kind == _J.INT)
