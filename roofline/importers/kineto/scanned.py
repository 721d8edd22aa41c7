"""A chunk of Kineto events scanned by :mod:`.jsonscan`, turned into the
columns :mod:`.events` keeps, with a Python object per distinct value,
not per event.

Each field the reader uses is a column of byte spans; equal bytes are one
value, decoded once by msgspec (so a value means here what it means to
the msgspec path). Kernels, operators and runtime calls (the bulk of a
trace) are read here; a chunk holding anything else the reader reads
(copies, sets, annotations, range-profiler counters, a collective's or
Inductor's arguments, a runtime call naming bytes) or anything odd (a
name that is no string, a time that is no number, a phase no trace has)
is left to the msgspec path (:class:`Scanner` returns None), which
reads it, or says what is wrong, as it always has.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import msgspec
import numpy as np

from . import decode, jsonscan
from .events import FLOWS, MAX_DUR_US, MAX_TS_US, GpuEvents, Span, batch_kind, launch_fields, launch_value
from .op_columns import OpEvents, is_count
from .replay import graph_launch_rows

_J = jsonscan
# (key, kind, column): the event's keys, then its args'
TOP = [("ph", _J.RAW, 0), ("cat", _J.RAW, 1), ("name", _J.RAW, 2), ("pid", _J.RAW, 3), ("tid", _J.RAW, 4),
       ("ts", _J.NUM, 5), ("dur", _J.NUM, 6), ("args", _J.ARGS, 0)]
_ARGS_READ = [("External id", _J.INT), ("external id", _J.INT), ("correlation", _J.INT),
              ("device", _J.RAW), ("registers per thread", _J.RAW), ("shared memory", _J.RAW),
              ("grid", _J.RAW), ("block", _J.RAW), ("Input Dims", _J.RAW), ("Input dims", _J.RAW),
              ("Input type", _J.RAW), ("Input Strides", _J.RAW), ("Concrete Inputs", _J.RAW),
              ("Fwd thread id", _J.RAW), ("flops", _J.RAW), ("kernel", _J.RAW), ("bytes", _J.RAW),
              ("size", _J.RAW)]
# keys whose presence leaves the chunk to msgspec: a collective's arguments,
# Inductor's counts, the range profiler's counters (decode.py's rare fields)
_MARKED = ["Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype", "Process Group Name",
           "Process Group Ranks", "kernel_flop", "kernel_num_gb", *decode.COUNTER_KEYS]
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
PHASES = frozenset(("X",) + decode.OTHER_PHASES)
KINDS = ("kernel", "op", "api")             # the order take_chunk adds them in
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

    def decoded(self) -> list:
        if self._decoded is None:
            try:
                self._decoded = [msgspec.json.decode(r) for r in self.raw]
            except msgspec.DecodeError:
                raise Odd() from None
        return self._decoded

    def per_event(self, values: list, rows: np.ndarray) -> list:
        """``values[code]`` of each of ``rows`` (None where it has none)."""
        table = np.empty(len(values) + 1, dtype=object)
        for i, v in enumerate(values):        # one by one: a list value is one object, not a row
            table[i] = v
        return table[self.codes[rows]].tolist()


class Chunk:
    """One scanned chunk: its bytes, its rows, and what is read of them."""

    def __init__(self, buf: np.ndarray, cols: Columns, n: int):
        self.buf, self.n = buf, n
        self.out, self.floats = cols.out[:n], cols.floats[:n]
        self.present = self.out[:, jsonscan.PRESENT]
        self.marks = self.out[:, jsonscan.MARKS]
        self.inexact = self.out[:, jsonscan.INEXACT]
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
            spans = self.span(col)[reps[j, :count]].tolist()
            out[col] = Distinct(codes[j], [self.buf[s:e].tobytes() for s, e in spans])
        return out

    def objects(self, key: str, rows: np.ndarray) -> list:
        """The decoded value of field ``key`` of each of ``rows`` (None
        where absent), as the msgspec path's ``object`` fields hold it."""
        col = COLUMN[key]
        if key in _INT_KEYS:
            states = self.state(col, rows)
            out = self.out[rows, jsonscan.FIRST + 3 * col + 2].tolist()
            if (states == jsonscan.PARSED).all():
                return out
            for j in np.flatnonzero(states != jsonscan.PARSED).tolist():
                out[j] = None if states[j] == jsonscan.ABSENT else self._decode_at(rows[j], col)
            return out
        d = self.distinct(col)
        return d.per_event(d.decoded(), rows)

    def _decode_at(self, row: int, col: int):
        s, e = self.span(col)[row].tolist()
        try:
            return msgspec.json.decode(self.buf[s:e].tobytes())
        except msgspec.DecodeError:
            raise Odd() from None

    def raws(self, key: str, rows: np.ndarray) -> list:
        """The raw JSON bytes of field ``key`` of each of ``rows`` (None where absent)."""
        d = self.distinct(COLUMN[key])
        return d.per_event(d.raw, rows)

    def times(self, key: str, rows: np.ndarray) -> np.ndarray:
        """ts or dur of ``rows`` as floats (msgspec's ``float | None``:
        Odd where one is absent, null or no number)."""
        col = COLUMN[key]
        states = self.state(col, rows)
        values = self.floats[rows, col]
        if (states == jsonscan.PARSED).all():
            return values
        for j in np.flatnonzero(states != jsonscan.PARSED).tolist():
            if states[j] == jsonscan.ABSENT:
                raise Odd()
            x = self._decode_at(rows[j], col)
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise Odd()
            try:
                values[j] = float(x)
            except OverflowError:
                raise Odd() from None
        return values


_INT_KEYS = frozenset(k for k, kind, _ in ARGS if kind == _J.INT)


@dataclass
class Batch:
    """One kind's events of a chunk (file order), checked."""

    rows: np.ndarray
    names: list
    ts: np.ndarray
    dur: np.ndarray


class Prepared:
    """A chunk read as far as it can be without the reader's state: every
    check done, so taking it cannot fail half-way."""

    def __init__(self, chunk: Chunk):
        self.chunk = chunk
        self.n = chunk.n
        if (chunk.marks & (jsonscan.ODD_ARGS | jsonscan.MARKED)).any():
            raise Odd()
        kinds = self._kinds()
        self.batches = {}
        for code, kind in enumerate(KINDS, start=1):
            rows = np.flatnonzero(kinds == code)
            if len(rows):
                self.batches[kind] = self._batch(rows)
        if "kernel" in self.batches:
            self.kernel = self._kernel_fields(self.batches["kernel"].rows)
        if "op" in self.batches:
            self.op = self._op_fields(self.batches["op"].rows)
        if "api" in self.batches:
            self.api = self._api_fields(self.batches["api"].rows)
        self.chunk = None                       # its bytes and the scanner's arrays are reused

    def take_into(self, gpu: GpuEvents, ops: OpEvents, span: Span) -> None:
        take(self, gpu, ops, span)

    def __len__(self) -> int:
        return self.n

    def _kinds(self) -> np.ndarray:
        """Each event's kind (1-3: KINDS; 0: not read); the dropped
        categories counted in ``self.dropped``."""
        c = self.chunk
        ph = c.distinct(COLUMN["ph"])
        phases = ph.decoded()
        if (ph.codes < 0).any() or not all(isinstance(p, str) and p in PHASES for p in phases):
            raise Odd()                      # the msgspec path knows what to make of it
        cat = c.distinct(COLUMN["cat"])
        cats = [x if isinstance(x, str) else None for x in cat.decoded()]
        code_of = []
        for x in cats:
            kind = None if x is None else batch_kind(x)
            code_of.append(KINDS.index(kind) + 1 if kind in KINDS else (0 if kind is None else -1))
        codes = np.array(code_of + [0], dtype=np.int64)[cat.codes]      # code -1 of an absent cat: 0
        complete = np.array([p == "X" for p in phases], dtype=bool)[ph.codes]
        if ((codes == -1) & complete).any():
            raise Odd()                      # a copy, a set, an annotation, a counter range
        self.dropped = {}
        counts = np.bincount(cat.codes[cat.codes >= 0], minlength=len(cats))
        for x, code, count in zip(cats, code_of, counts.tolist()):
            if code == 0 and x is not None and x not in FLOWS and count:
                self.dropped[x] = count
        return np.where(complete, codes, 0)

    def _batch(self, rows: np.ndarray) -> Batch:
        c = self.chunk
        names = c.objects("name", rows)
        if set(map(type, names)) != {str} or "" in names:
            raise Odd()
        if "__missing__" in names:
            names = [MISSING if n == "__missing__" else n for n in names]
        ts, dur = c.times("ts", rows), c.times("dur", rows)
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(ts) | ~np.isfinite(dur) | (dur < 0) | (np.abs(ts) > MAX_TS_US) | (dur > MAX_DUR_US)
        if bad.any():
            raise Odd()
        return Batch(rows, names, ts, dur)

    def _kernel_fields(self, rows: np.ndarray) -> dict:
        c = self.chunk
        devices = c.objects("device", rows)
        if None in devices:
            pids = c.objects("pid", rows)
            devices = [d if d is not None else p for d, p in zip(devices, pids)]
        try:
            distinct_devices = set(devices)
        except TypeError:
            raise Odd() from None            # an unhashable device: the msgspec path names it
        return {"ext": self._external(rows), "corr": c.objects("correlation", rows),
                "stream": c.objects("tid", rows), "devices": devices, "one_device": len(distinct_devices) == 1,
                "launch": self._launches(rows)}

    def _launches(self, rows: np.ndarray) -> list:
        """(name, launch fields) of each distinct (name, launch fields) of
        the kernels ``rows``: a ``launch_fields``-ready args object each."""
        c = self.chunk
        out = []
        for r in c.tuple_reps(LAUNCH, rows).tolist():
            one = np.array([r])
            grid, block = (c.raws(k, one)[0] for k in ("grid", "block"))
            registers, shared = (c.objects(k, one)[0] for k in ("registers per thread", "shared memory"))
            name = c.objects("name", one)[0]
            out.append((MISSING if name == "__missing__" else name,
                        LaunchArgs(_raw(grid), _raw(block), registers, shared)))
        return out

    def _external(self, rows: np.ndarray) -> list:
        c = self.chunk
        ext = c.objects("External id", rows)
        if None in ext:
            old = c.objects("external id", rows)
            ext = [e if e is not None else o for e, o in zip(ext, old)]
        return ext

    def _op_fields(self, rows: np.ndarray) -> dict:
        c = self.chunk
        keys = {}                               # each distinct call's raw JSON, once
        for r in c.tuple_reps(CALL, rows).tolist():
            one = np.array([r])
            dims, *rest = (c.raws(k, one)[0] for k in CALL_FIELDS[:4])
            keys[c.tuple_codes[CALL, r]] = (dims if dims is not None else c.raws("Input dims", one)[0], *rest)
        fwd = c.objects("Fwd thread id", rows)
        flops = c.objects("flops", rows)
        return {"ext": self._external(rows), "keys": keys, "call": c.tuple_codes[CALL, rows],
                "tid": c.objects("tid", rows), "backward": [f not in (None, 0, "0") for f in fwd],
                "flops": None if flops.count(None) == len(flops) else
                [f if is_count(f) else math.nan for f in flops]}

    def _api_fields(self, rows: np.ndarray) -> dict:
        c = self.chunk
        if c.has(COLUMN["bytes"])[rows].any() or c.has(COLUMN["size"])[rows].any():
            raise Odd()                      # a call naming the bytes it copies: the msgspec path's
        return {"ext": self._external(rows), "corr": c.objects("correlation", rows),
                "tid": c.objects("tid", rows), "kernel": c.objects("kernel", rows)}


MISSING = "(kernel name missing in the trace)"


def _raw(value: bytes | None):
    return None if value is None else msgspec.Raw(value)


@dataclass
class LaunchArgs:
    """The launch fields of a kernel's args, as the msgspec struct holds them."""

    grid: object
    block: object
    registers: object
    shared: object


class Scanner:
    """What :class:`.stream.EventArray` calls on a chunk's bytes (a ``[``
    then events): (its first events read, where the rest starts, whether
    the array ended there), or None where the msgspec path must read the
    chunk's first event."""

    def __init__(self, capacity: int = CAPACITY):
        self.capacity = capacity
        self.cols = None

    def __call__(self, buf: bytearray):
        if self.cols is None:
            if not buf[1:4097].lstrip().startswith(b"{"):
                return None                   # no event first: the arrays are not made for nothing
            self.cols = Columns(self.capacity)
        array = np.frombuffer(buf, dtype=np.uint8)
        n, end, status = self.cols.scan(array, 1)
        if status == jsonscan.IRREGULAR and n:
            # the last event goes with what follows it: msgspec then sees the
            # comma before what the scanner refused (a trailing comma is an error)
            n -= 1
            end = int(self.cols.bounds[n, 0])
        if n == 0:
            return None
        try:
            events = Prepared(Chunk(array, self.cols, n))
        except Odd:
            return None
        return events, end, status == jsonscan.ARRAY_CLOSED


def take(p: Prepared, gpu: GpuEvents, ops: OpEvents, span: Span) -> None:
    """Add a prepared chunk's events to the columns, as take_chunk does."""
    for cat, count in p.dropped.items():
        gpu.other_categories[cat] = gpu.other_categories.get(cat, 0) + count
    if not p.batches:
        return
    if span.t0 is None:
        first = min(b.rows[0] for b in p.batches.values())
        span.t0 = next(float(b.ts[0]) for b in p.batches.values() if b.rows[0] == first)
    for kind, b in p.batches.items():
        ts = b.ts - span.t0
        if kind == "op":
            f = p.op
            ops.names += b.names
            ops.ts += ts.tolist()
            ops.dur += b.dur.tolist()
            ops.thread += f["tid"]
            ops.external_id += f["ext"]
            calls = np.full(max(f["keys"]) + 1, -1, dtype=np.int64)
            calls[list(f["keys"])] = [ops.call_of(k) for k in f["keys"].values()]
            ops.call += calls[f["call"]].tolist()
            ops.backward += f["backward"]
            ops.torch_flops += [math.nan] * len(b.names) if f["flops"] is None else f["flops"]
            continue
        span.cover(ts, b.dur)
        if kind == "kernel":
            _kernels(gpu, b.names, ts, b.dur, p.kernel)
        else:
            _apis(gpu, b.names, ts, b.dur, p.api)


def _kernels(gpu: GpuEvents, names: list, ts: np.ndarray, dur: np.ndarray, f: dict) -> None:
    names = list(map(gpu.name_ids.setdefault, names, names))
    starts = ts.tolist()
    gpu.starts += starts
    gpu.kernel_ts += starts
    gpu.kernel_stream += f["stream"]
    gpu.ends += (ts + dur).tolist()
    durations = dur.tolist()
    gpu.kernel_names += names
    gpu.kernel_dur += durations
    gpu.kernel_ext += f["ext"]
    gpu.kernel_corr += f["corr"]
    launch, first = gpu.launch, gpu.launch_first
    for name, a in f["launch"]:
        name, raw = gpu.name_ids.setdefault(name, name), (a.grid, a.block, a.registers, a.shared)
        known = launch.get(name)
        if known is None:
            launch[name] = launch_fields(a)
            first[name] = raw
        elif known and raw != first[name]:
            for key in [k for k, v in known.items() if launch_value(a, k) != v]:
                del known[key]
    device_time = gpu.device_time
    if f["one_device"]:
        device = f["devices"][0]
        device_time[device] = device_time.get(device, 0.0) + sum(durations)
        return
    for device, d in zip(f["devices"], durations):
        device_time[device] = device_time.get(device, 0.0) + d


def _apis(gpu: GpuEvents, names: list, ts: np.ndarray, dur: np.ndarray, f: dict) -> None:
    gpu.api_names.append(list(map(gpu.name_ids.setdefault, names, names)))
    gpu.api_dur.append(dur)
    gpu.api_graph.update(graph_launch_rows(names, len(gpu.api_corr)))
    kernels = f["kernel"]
    if kernels.count(None) != len(kernels):
        first = len(gpu.api_corr)
        gpu.api_kernel.update((first + i, k) for i, k in enumerate(kernels) if isinstance(k, str) and k)
    gpu.api_corr += f["corr"]
    gpu.api_tid += f["tid"]
    gpu.api_ts += ts.tolist()
    gpu.api_ext_col += f["ext"]
