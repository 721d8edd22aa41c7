"""Small column helpers every Kineto stage may use (no stage of its own):
codes of a column's distinct values, a column of ids held as int64
(:class:`Ids`), the order of times a trace holds nearly sorted, and the
row holding each wanted key."""
from __future__ import annotations

import array
import itertools
from dataclasses import dataclass

import numpy as np


def codes(values: list) -> np.ndarray:
    """An integer per value, equal for equal values (not contiguous)."""
    code: dict = {}
    return np.fromiter(map(code.setdefault, values, itertools.count()), dtype=np.int64, count=len(values))


def distinct(values, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of an iterable of ``n`` hashables, as (index of
    each one's first occurrence, in order, and each value's rank among
    them): one pass of a dict in C, no Python code per value."""
    first_of: dict = {}
    first = np.fromiter(map(first_of.setdefault, values, itertools.count()), dtype=np.int64, count=n)
    # the dict's values are the first positions, ascending in insertion order
    starts = np.fromiter(first_of.values(), dtype=np.int64, count=len(first_of))
    return starts, np.searchsorted(starts, first)


def distinct_ints(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`distinct` of an integer column (no Python object per value):
    first positions ascending, and each value's rank; through a table
    indexed by value where the values are few beside the keys, else by
    sorting."""
    n = len(keys)
    if not n:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    low, high = int(keys.min()), int(keys.max())
    if high - low <= 4 * n + 1024:
        # repeated indices: the last assignment wins, so writing the
        # positions backwards leaves each value's first one
        first_at = np.full(high - low + 1, n, dtype=np.int64)
        first_at[keys[::-1] - low] = np.arange(n - 1, -1, -1, dtype=np.int64)
        seen = np.flatnonzero(first_at < n)
        order = np.argsort(first_at[seen], kind="stable")
        rank_at = np.zeros(high - low + 1, dtype=np.int64)
        rank_at[seen[order]] = np.arange(len(seen))
        return first_at[seen[order]], rank_at[keys - low]
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order].astype(np.int64), rank[inverse.ravel()].astype(np.int64)


def int_column(values) -> np.ndarray | None:
    """``values`` as int64 when every one is an integer (a bool too: a
    dict takes it for 0 or 1), else None (a float, a string, a None, an
    integer past 64 bits). array.array checks and converts in C: 18 ms for
    900k ids, where a type check and np.fromiter took 120 ms."""
    if isinstance(values, Ids):
        return values.ints()
    try:
        return np.frombuffer(array.array("q", values), dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        return None


# an Ids row holding this is None (absent) or the value Ids.odd keeps
ODD = -2 ** 63


class Ids:
    """A column of ids (External ids, correlation ids) that reads like the
    list it replaces: 8 bytes a row in an int64 array where the value is
    an integer in 64 bits; a row holding :data:`ODD` is None, or the value
    ``odd`` keeps for it (a string, a float, a bigger integer). A list
    holds a 32-byte int object a row behind its pointer: 3M ids of a
    0.5 GB trace were 100 MB of its read (#36)."""

    __slots__ = ("values", "odd", "marked")

    def __init__(self, values=()):
        self.values = array.array("q")
        self.odd: dict = {}           # row -> its value, where that is no 64-bit integer and not None
        self.marked = 0               # rows holding ODD
        self.extend(values)

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, i: int):
        value = self.values[i]
        if value != ODD:
            return value
        return self.odd.get(i % len(self.values))

    def __iter__(self):
        return iter(self.tolist() if self.marked else self.values)

    def append(self, value) -> None:
        self.extend([value])

    def __iadd__(self, values):
        self.extend(values)
        return self

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def tolist(self) -> list:
        out = self.values.tolist()
        if self.marked:
            for row in np.flatnonzero(np.array(self.values, dtype=np.int64) == ODD).tolist():
                out[row] = self.odd.get(row)
        return out

    def ints(self) -> np.ndarray | None:
        """The column as int64 (a copy: the array may grow), None where a
        row is not an integer."""
        return None if self.marked else np.array(self.values, dtype=np.int64)

    def coded(self) -> np.ndarray | None:
        """The column as int64 with ODD where a row is None (a copy), None
        where a row holds some other value that is no 64-bit integer."""
        return None if self.odd else np.array(self.values, dtype=np.int64)

    def extend(self, values) -> None:
        """Append ``values``: another Ids, an int64 array (ODD where absent:
        the scanner's), or a list of any values (the msgspec path's)."""
        base = len(self.values)
        if isinstance(values, Ids):
            self.odd.update((row + base, v) for row, v in values.odd.items())
            self.marked += values.marked
            self.values += values.values
            return
        if isinstance(values, np.ndarray):
            self.marked += int(np.count_nonzero(values == ODD))
            self.values.frombytes(np.ascontiguousarray(values, dtype=np.int64).tobytes())
            return
        try:
            more = array.array("q", values)       # every value an integer: checked in C
        except (TypeError, OverflowError):
            more = None
        if more is None or ODD in more:           # (an id of -2^63 itself is kept in ``odd``)
            more = self._marked(values, base)
        self.marked += more.count(ODD)
        self.values += more

    def _marked(self, values: list, base: int) -> array.array:
        """``values`` as int64, ODD where one is not an integer in 64 bits
        (those other than None kept in ``odd``)."""
        # (a bool is an integer, as array.array takes it: a dict finds it as 0 or 1)
        more = array.array("q", [v if isinstance(v, int) and ODD < v < -ODD else ODD for v in values])
        self.odd.update((base + i, v) for i, v in enumerate(values)
                        if v is not None and not (isinstance(v, int) and ODD < v < -ODD))
        return more

    def __reduce__(self):
        return _ids, (self.values, self.odd, self.marked)


def _ids(values: array.array, odd: dict, marked: int) -> Ids:
    out = Ids()
    out.values, out.odd, out.marked = values, odd, marked
    return out


def nearly_sorted_order(primary: np.ndarray, tie: np.ndarray | None = None,
                        group: np.ndarray | None = None) -> np.ndarray:
    """``np.lexsort((tie, primary, group))`` (a missing key left out), for
    times a trace holds nearly in order: a stable sort (timsort, which
    takes runs already in order whole), the tie key sorted only where
    times are equal, then by group: a few picked out in turn, more by a
    stable sort (radix where their codes span 16 bits). 10 ms where
    lexsort took 80 ms (789k operators of a trace)."""
    order = np.argsort(primary, kind="stable")
    if tie is not None:
        by_time = primary[order]
        equal = np.flatnonzero(by_time[1:] == by_time[:-1])
        if len(equal):
            tied = np.union1d(equal, equal + 1)          # runs of equal times, each contiguous
            rows = order[tied]
            order[tied] = rows[np.lexsort((tie[rows], primary[rows]))]
    if group is not None and len(order):
        g = group[order]
        low, high = int(g.min()), int(g.max())
        if high - low < FEW_GROUPS:
            # a few threads: each one's rows picked out in turn, in order
            order = np.concatenate([order[g == v] for v in range(low, high + 1)])
        else:
            order = order[np.argsort((g - low).astype(np.int16) if high - low < 2 ** 15 else g, kind="stable")]
    return order


# Groups numbered within this span are picked out in turn by
# nearly_sorted_order (a pass each) rather than sorted (radix sort and
# gather: 60 ms at 4.8M rows).
FEW_GROUPS = 8


def row_of(keys: np.ndarray, wanted: np.ndarray, last: bool = False) -> np.ndarray:
    """The row of the first (``last``: the last) of ``keys`` equal to each
    of ``wanted`` (-1: none; ODD matches nothing), by sorting: no dict of
    a Python int per key."""
    keep = np.flatnonzero(keys != ODD)
    if last:
        keep = keep[::-1]
    values, at = np.unique(keys[keep], return_index=True)     # (the first of equal values in keep's order)
    if not len(values):
        return np.full(len(wanted), -1, dtype=np.int64)
    k = np.minimum(np.searchsorted(values, wanted), len(values) - 1)
    return np.where((values[k] == wanted) & (wanted != ODD), keep[at[k]], -1)


def distinct_values(values: list) -> tuple[np.ndarray, np.ndarray]:
    """:func:`distinct` of a column, through :func:`distinct_ints` where
    its values are integers in a range a table holds (thread ids)."""
    n = len(values)
    ints = int_column(values) if n else None
    if ints is not None and int(ints.max()) - int(ints.min()) <= 4 * n + 1024:
        return distinct_ints(ints)
    return distinct(values, n)


def sorted_distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` of non-negative integers:
    through a presence table where the values are few beside the keys."""
    n = len(keys)
    if n and int(keys.min()) >= 0 and int(keys.max()) <= 4 * n + 1024:
        present = np.bincount(keys) > 0
        values = np.flatnonzero(present)
        return values, (np.cumsum(present) - 1)[keys]
    values, inverse = np.unique(keys, return_inverse=True)
    return values, inverse.ravel()


@dataclass(frozen=True, slots=True, eq=False)
class LaunchColumns:
    """A GPU trace's kernel launches and runtime calls as arrays, found
    once per trace and read by every later stage (attribution, the step
    split), not converted from the event lists again in each (#36)."""

    name_code: np.ndarray    # int64 per launch: its kernel name's index in ``names``
    names: list              # the distinct kernel names, in order of first launch
    dur: np.ndarray          # float64 per launch: its duration (us)
    api_ts: np.ndarray       # float64 per runtime call: its start (us)

    def per_name(self, value, dtype=bool) -> np.ndarray:
        """``value(name)`` for every launch, worked out once per distinct kernel name."""
        return np.array([value(name) for name in self.names], dtype=dtype).reshape(-1)[self.name_code]


def launch_columns(gpu) -> LaunchColumns:
    """:class:`LaunchColumns` of a trace's GPU events (:class:`.events.GpuEvents`)."""
    first, code = distinct(gpu.kernel_names, len(gpu.kernel_names))
    return LaunchColumns(code, [gpu.kernel_names[i] for i in first.tolist()],
                         np.asarray(gpu.kernel_dur, dtype=float).reshape(-1),
                         np.asarray(gpu.api_ts, dtype=float).reshape(-1))
