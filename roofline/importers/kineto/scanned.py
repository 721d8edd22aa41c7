"""A chunk of Kineto events scanned by :mod:`.jsonscan`, turned into the
columns :mod:`.events` keeps, with a Python object per distinct value,
not per event.

Each field the reader uses is a column of byte spans; equal bytes are one
value, decoded once by msgspec (so a value means here what it means to
the msgspec path). Kernels, operators, runtime calls, copies, sets and
annotations are read here; a chunk holding anything else the reader reads
(range-profiler counters, a collective's or Inductor's arguments, an
``nccl:*`` annotation's sizes) or anything odd (a name that is no string,
a time that is no number, a phase no trace has, a byte count no trace
holds) is left to the msgspec path (:class:`Scanner` returns None), which
reads it, or says what is wrong, as it always has.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import msgspec
import numpy as np

from . import decode, jsonscan
from .scanfields import CALL, CALL_FIELDS, CAPACITY, COLUMN, LAUNCH, Chunk, Columns, Odd
from .counts import byte_count, named_size
from .events import FLOWS, MAX_DUR_US, MAX_TS_US, GpuEvents, Span, batch_kind, kind_of
from .extras import COMM_ANNOTATION
from .op_columns import OpEvents, add_floats, is_count
from .replay import graph_launch_rows

PHASES = frozenset(("X",) + decode.OTHER_PHASES)
KINDS = ("kernel", "op", "api", "copy", "annotation")   # the order take_chunk adds them in


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
        if (chunk.marks & jsonscan.ODD_ARGS).any():
            raise Odd()
        self._check_times()
        self._name_list = None
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
        if "copy" in self.batches:
            self.copies = self._copy_rows(self.batches["copy"])
        if "annotation" in self.batches:
            self.annotation_tid = self.chunk.objects("tid", self.batches["annotation"].rows)
            self.comm_annotations = self._comm_annotations(self.batches["annotation"])
        marked = np.flatnonzero(chunk.marks & jsonscan.MARKED)
        self.comm_args = self._comm_args(marked, kinds) if len(marked) else []
        self.chunk = None                       # its bytes and the scanner's arrays are reused

    def _comm_args(self, rows: np.ndarray, kinds: np.ndarray) -> list:
        """(kind, position in its batch, args) of the operators and kernels
        with a collective's or Inductor's arguments, each decoded alone with
        those fields as msgspec decodes a chunk holding it: where its name is
        a collective's (``record_param_comms``, ``nccl*``, ``rccl*``) or a
        Triton launch's with Inductor's counts. Any other such event: Odd."""
        c, out = self.chunk, []
        names = c.objects("name", rows)
        for r, code, name in zip(rows.tolist(), kinds[rows].tolist(), names):
            kind = KINDS[code - 1] if code > 0 else None
            if kind not in ("op", "kernel") or not isinstance(name, str):
                raise Odd()
            start, end = c.bounds[r].tolist()
            text = c.buf[start:end].tobytes()
            inductor = name.startswith(decode.INDUCTOR_PREFIX) and any(m in text for m in decode.INDUCTOR_MARKS)
            if not (name.startswith(decode.COMM_EVENT_PREFIXES) or inductor):
                raise Odd()                  # the msgspec path reads it or not by what else its chunk holds
            position = int(np.searchsorted(self.batches[kind].rows, r))
            out.append((kind, position, msgspec.json.decode(text, type=decode.CommEvent).args))
        return out

    def _comm_annotations(self, b: Batch) -> list:
        """(position, thread, Input Dims, Input type) of the ``nccl:*`` annotations (their sizes)."""
        c = self.chunk
        at = [j for j, name in enumerate(b.names) if name.startswith(COMM_ANNOTATION)]
        if not at:
            return []
        rows = b.rows[at]
        dims = c.either("Input Dims", "Input dims", rows, raw=True)
        return list(zip(at, c.objects("tid", rows), dims, c.raws("Input type", rows)))

    def take_into(self, gpu: GpuEvents, ops: OpEvents, span: Span) -> None:
        take(self, gpu, ops, span)

    def __len__(self) -> int:
        return self.n

    def _check_times(self) -> None:
        """Odd where any event's ts or dur is neither a number nor null:
        msgspec's structs type them (``float | None``) in every event, read
        or not, and it says which."""
        c = self.chunk
        for key in ("ts", "dur"):
            col = COLUMN[key]
            c.floats_decoded(col, np.flatnonzero((c.present & c.inexact & (1 << col)) != 0), nullable=True)

    def _kinds(self) -> np.ndarray:
        """Each event's kind (1 to 5: KINDS; 0: not read); the dropped
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
            raise Odd()                      # a range of the range profiler (its counters)
        self.dropped = {}
        counts = np.bincount(cat.codes[cat.codes >= 0], minlength=len(cats))
        for x, code, count in zip(cats, code_of, counts.tolist()):
            if code == 0 and x is not None and x not in FLOWS and count:
                self.dropped[x] = count
        return np.where(complete, codes, 0)

    def _batch(self, rows: np.ndarray) -> Batch:
        c = self.chunk
        d = c.distinct(COLUMN["name"])
        names_of = self._names(d)
        # each distinct name checked once: a string, not empty (code -1: no name)
        used = np.flatnonzero(np.bincount(d.codes[rows] + 1, minlength=len(names_of) + 1)).tolist()
        if used[0] == 0 or any(names_of[k - 1] is None for k in used):
            raise Odd()
        names = d.per_event(names_of, rows)
        ts, dur = c.times("ts", rows), c.times("dur", rows)
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(ts) | ~np.isfinite(dur) | (dur < 0) | (np.abs(ts) > MAX_TS_US) | (dur > MAX_DUR_US)
        if bad.any():
            raise Odd()
        return Batch(rows, names, ts, dur)

    def _names(self, d) -> list:
        """The chunk's distinct names as the batches hold them (Kineto's
        ``__missing__`` said), None for one that is no string or empty."""
        if self._name_list is None:
            self._name_list = [MISSING if v == "__missing__" else v if type(v) is str and v else None
                               for v in d.decoded()]
        return self._name_list

    def _kernel_fields(self, rows: np.ndarray) -> dict:
        c = self.chunk
        devices = c.either("device", "pid", rows)           # a kernel's device, else its process
        try:
            distinct_devices = set(devices)
        except TypeError:
            raise Odd() from None            # an unhashable device: the msgspec path names it
        return {"ext": self._external(rows), "corr": c.ids("correlation", rows),
                "devices": devices, "one_device": len(distinct_devices) == 1,
                "launch": self._launches(rows)}

    def _launches(self, rows: np.ndarray) -> list:
        """(name, launch fields) of the first kernel of ``rows`` with each
        distinct (name, launch fields), in file order, the fields a
        ``launch_fields``-ready args object; (name, None) of the first of
        each name without args (which says nothing of the launches)."""
        c = self.chunk
        has = (c.marks[rows] & jsonscan.HAS_ARGS) != 0
        keys = np.where(has, c.tuple_codes[LAUNCH, rows], -1 - c.distinct(COLUMN["name"]).codes[rows])
        firsts = np.sort(np.unique(keys, return_index=True)[1])
        one = rows[firsts]                      # each field read for all of them at once (as _op_fields)
        fields = zip(c.objects("name", one), c.raws("grid", one), c.raws("block", one),
                     c.objects("registers per thread", one), c.objects("shared memory", one), has[firsts].tolist())
        out = []
        for name, grid, block, registers, shared, with_args in fields:
            name = MISSING if name == "__missing__" else name
            out.append((name, LaunchArgs(_raw(grid), _raw(block), registers, shared) if with_args else None))
        return out

    def _external(self, rows: np.ndarray) -> np.ndarray | list:
        return self.chunk.ids("External id", rows, "external id")      # (2021 traces: the second)

    def _op_fields(self, rows: np.ndarray) -> dict:
        c = self.chunk
        # each distinct call's raw JSON, once: a field read for all of them at
        # once (read per call, a chunk of thousands of distinct calls cost
        # thousands of tables of its distinct values: 3.2 s of a 1.1 GB trace)
        reps = c.tuple_reps(CALL, rows)
        fields = [c.either("Input Dims", "Input dims", reps, raw=True)] + [c.raws(k, reps) for k in CALL_FIELDS[1:4]]
        keys = dict(zip(c.tuple_codes[CALL, reps].tolist(), zip(*fields)))
        # forward operators carry Fwd thread id 0; autograd's nodes the
        # forward's thread; torch's FLOP count where it is a count: each
        # worked out once per distinct value, then gathered per operator
        fwd = c.distinct(COLUMN["Fwd thread id"])
        backward = np.array([f not in (None, 0, "0") for f in fwd.decoded()] + [False], dtype=bool)
        flops = c.distinct(COLUMN["flops"])
        counts = flops.decoded()
        codes = flops.codes[rows]
        if (codes < 0).all() or all(counts[k] is None for k in np.unique(codes[codes >= 0]).tolist()):
            torch_flops = None
        else:
            table = np.empty(len(counts) + 1, dtype=object)
            for i, f in enumerate(counts):
                table[i] = f if is_count(f) else math.nan
            table[-1] = math.nan                 # no flops arg
            torch_flops = table[codes].tolist()
        return {"ext": self._external(rows), "keys": keys, "call": c.tuple_codes[CALL, rows],
                "tid": c.objects("tid", rows), "backward": backward[fwd.codes[rows]].tolist(), "flops": torch_flops}

    def _api_fields(self, rows: np.ndarray) -> dict:
        c = self.chunk
        corr = c.ids("correlation", rows)
        return {"ext": self._external(rows), "corr": corr, "tid": c.objects("tid", rows),
                "kernel": c.objects("kernel", rows), "sizes": self._named_sizes(rows),
                "names": self._name_codes(rows)}

    def _name_codes(self, rows: np.ndarray) -> tuple[np.ndarray, list]:
        """(each of ``rows``' name as a code, the names in order of first
        appearance among them): the calls' names for GpuEvents.finish."""
        d = self.chunk.distinct(COLUMN["name"])
        distinct, first, inverse = np.unique(d.codes[rows], return_index=True, return_inverse=True)
        order = np.argsort(first)
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        decoded = d.decoded()
        names = [decoded[k] for k in distinct[order].tolist()]
        return rank[inverse.reshape(-1)], [MISSING if n == "__missing__" else n for n in names]

    def _named_sizes(self, rows: np.ndarray) -> dict:
        """correlation -> the bytes its runtime call names (for copies without their own)."""
        c = self.chunk
        named = np.flatnonzero(c.has(COLUMN["bytes"])[rows] | c.has(COLUMN["size"])[rows])
        sizes = {}
        if not len(named):
            return sizes
        values = [b if b is not None else z for b, z in zip(c.objects("bytes", rows[named]),
                                                             c.objects("size", rows[named]))]
        corr = c.objects("correlation", rows[named])
        for j, value in enumerate(values):
            if corr[j] is None or value is None:
                continue
            try:
                size = named_size(value)
            except ValueError:
                raise Odd() from None        # the msgspec path names the call
            if size is not None:
                sizes[corr[j]] = size
        return sizes

    def _copy_rows(self, b: Batch) -> list:
        """GpuEvents.copy_events' rows of the copies and sets ``b``, as
        counts.copy_row makes them, each field checked and converted once
        per distinct value (a row at a time was 3 us a copy)."""
        c = self.chunk
        cat = c.distinct(COLUMN["cat"])
        kinds = cat.per_event([kind_of(x) if isinstance(x, str) else None for x in cat.decoded()], b.rows)
        nbytes = c.distinct(COLUMN["bytes"])
        values, counted = nbytes.decoded(), {}
        for k in np.unique(nbytes.codes[b.rows]).tolist():
            if k >= 0 and values[k] is not None:         # (null: no bytes)
                counted[k] = byte_count(values[k])
                if counted[k] is None:
                    raise Odd()                          # the msgspec path names the copy
        sizes = nbytes.per_event([counted.get(k) for k in range(len(values))], b.rows)
        args_kind = c.distinct(COLUMN["kind"])
        texts = args_kind.per_event(["" if v is None else str(v) for v in args_kind.decoded()], b.rows)
        return list(zip(kinds, b.names, b.dur.tolist(), ["" if t is None else t for t in texts], sizes,
                        c.objects("correlation", b.rows)))

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
    bases = {"op": len(ops), "kernel": len(gpu.kernel_names)}
    for kind, position, args in p.comm_args:
        (gpu.extras.take_op if kind == "op" else gpu.extras.take_kernel)(bases[kind] + position, args)
    for kind, b in p.batches.items():
        ts = b.ts - span.t0
        if kind == "annotation":           # the step split's ranges (kineto.phases), no time of their own
            ops.annotations.extend(b.names, ts, b.dur, p.annotation_tid)
            for j, tid, dims, types in p.comm_annotations:        # nccl:* sizes
                gpu.extras.take_annotation(b.names[j], float(ts[j]), float(b.dur[j]), tid, dims, types)
            continue
        if kind == "op":
            f = p.op
            ops.names += b.names
            add_floats(ops.ts, ts)
            add_floats(ops.dur, b.dur)
            ops.thread += f["tid"]
            ops.external_id += f["ext"]
            calls = np.full(max(f["keys"]) + 1, -1, dtype=np.int64)
            calls[list(f["keys"])] = [ops.call_of(k) for k in f["keys"].values()]
            ops.call += calls[f["call"]]
            ops.backward += f["backward"]
            ops.torch_flops += [math.nan] * len(b.names) if f["flops"] is None else f["flops"]
            continue
        span.cover(ts, b.dur)
        if kind == "kernel":
            _kernels(gpu, b.names, ts, b.dur, p.kernel)
        elif kind == "api":
            _apis(gpu, b.names, ts, b.dur, p.api)
        else:                              # copies and sets, in file order
            add_floats(gpu.starts, ts)
            add_floats(gpu.ends, ts + b.dur)
            gpu.copy_events += p.copies


def _kernels(gpu: GpuEvents, names: list, ts: np.ndarray, dur: np.ndarray, f: dict) -> None:
    names = list(map(gpu.name_ids.setdefault, names, names))
    add_floats(gpu.starts, ts)
    add_floats(gpu.kernel_ts, ts)
    add_floats(gpu.ends, ts + dur)
    durations = dur.tolist()
    gpu.kernel_names += names
    add_floats(gpu.kernel_dur, dur)
    gpu.kernel_ext += f["ext"]
    gpu.kernel_corr += f["corr"]
    for name, a in f["launch"]:
        raw = None if a is None else (a.grid, a.block, a.registers, a.shared)
        gpu.agree_launch(gpu.name_ids.setdefault(name, name), raw, a)
    gpu.add_device_time(f["devices"], durations, f["one_device"])


def _apis(gpu: GpuEvents, names: list, ts: np.ndarray, dur: np.ndarray, f: dict) -> None:
    codes, values = f["names"]          # (summed by name in GpuEvents.finish: codes, not a name a call)
    gpu.api_names.append((codes, [gpu.name_ids.setdefault(v, v) for v in values]))
    gpu.api_dur.append(dur)
    gpu.api_graph.update(graph_launch_rows(names, len(gpu.api_corr)))
    kernels = f["kernel"]
    if kernels.count(None) != len(kernels):
        first = len(gpu.api_corr)
        gpu.api_kernel.update((first + i, k) for i, k in enumerate(kernels) if isinstance(k, str) and k)
    gpu.api_corr += f["corr"]
    gpu.api_tid += f["tid"]
    add_floats(gpu.api_ts, ts)
    gpu.api_ext_col += f["ext"]
    gpu.api_sizes.update(f["sizes"])
