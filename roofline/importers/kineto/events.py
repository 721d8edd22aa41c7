"""Kineto trace events -> columns, one chunk of events at a time.

The second stage of the reader (after :mod:`.decode`/:mod:`.stream`):
complete events (``ph == "X"``) are batched by kind (kernel, operator,
runtime/driver API, copy and set, profiler range), checked (a name, a
finite time, a non-negative duration, or an error naming the event's index
in ``traceEvents``) and appended as columns to :class:`GpuEvents` (GPU
activity and API calls) and :class:`~.operators.OpEvents` (PyTorch
operators). Range-profiler counters become FLOP per precision
(:func:`flops_from_counters`); launch configurations are kept where every
launch of a name agrees.
"""
from __future__ import annotations

import math
import operator
from collections.abc import Hashable
from pathlib import Path

import msgspec
import numpy as np

from ...core.errors import InputError
from ...core.import_result import MAX_TIME_S
from . import decode
from .columns import Ids
from .counts import copy_row, flops_from_counters, named_size
from .extras import Extras
from .op_columns import OpEvents, add_floats, float_column
from .replay import graph_launch_rows

KERNEL_CATS = frozenset({"kernel"})
OP_CATS = frozenset({"cpu_op", "operator"})
MEMCPY_CATS = frozenset({"gpu_memcpy", "memcpy"})
MEMSET_CATS = frozenset({"gpu_memset", "memset"})
API_CATS = frozenset({"cuda_runtime", "runtime", "cuda_driver", "driver"})
RANGE_CATS = frozenset({"cuda_profiler_range"})
# record_function ranges: ProfilerStep#N, Optimizer.step#SGD.step, user "## forward ##"
ANNOTATION_CATS = frozenset({"user_annotation"})

_LAUNCH_ARGS = {"grid": "grid", "block": "block", "registers": "registers_per_thread",
                "shared": "shared_memory_bytes"}
_LAUNCH_FIELD = {name: key for key, name in _LAUNCH_ARGS.items()}
_C_INT = (-2 ** 63, 2 ** 63)


class GpuEvents:
    """GPU activity of a trace: kernel launches as columns, copies and sets
    grouped by name, API time, and the correlation -> operator links."""

    def __init__(self):
        self.kernel_names: list[str] = []
        self.kernel_dur = float_column()
        self.kernel_ext = Ids()
        self.kernel_corr = Ids()
        self.launch: dict[str, dict] = {}
        self.copies: dict[str, dict] = {}
        self.ranges: dict[str, list] = {}
        self.api: dict[str, float] = {}
        self.api_sizes: dict = {}        # correlation -> bytes the runtime call names
        # runtime calls as columns: correlation id, thread, start, External id
        self.api_corr = Ids()
        self.api_tid: list = []
        self.api_ts = float_column()
        self.api_ext_col = Ids()
        self.api_graph: set = set()       # rows of the calls that launch a CUDA/HIP graph (.replay)
        self.api_kernel: dict = {}        # row -> the kernel name a launch call carries (ROCm)
        self.other_categories: dict[str, int] = {}   # events of categories not read, per category
        self.pending_bytes: list = []
        self.starts = float_column()
        self.ends = float_column()
        self.device_time: dict = {}
        self.launch_first: dict = {}
        self.kernel_ts = float_column()   # each launch's start (us from the first event), for overlap
        self.extras = Extras()           # collectives' and Triton launches' arguments (.extras)
        self.name_ids: dict = {}          # kernel or API call name -> its one string object
        # What is summed in file order, kept per event until :meth:`finish`
        # sums it: so the columns of two parts of a file (.halves) add up to
        # the same floats as one pass over it.
        self.api_names: list = []         # per chunk: its calls' names (or, scanned, their codes and the
                                          # names they stand for), and their durations (an array)
        self.api_dur: list = []
        self.copy_events: list = []       # (kind, name, dur, args kind, bytes or None, correlation)

    def agree_launch(self, name: str, raw, args) -> None:
        """Take a launch of ``name`` (``raw``: its launch fields as decoded,
        None without args, which says nothing of them): the first sets the
        name's configuration, every later one keeps only what it agrees on."""
        known = self.launch.get(name)
        if known is None:
            self.launch[name] = launch_fields(args)
            self.launch_first[name] = raw
        elif known and raw is not None and raw != self.launch_first[name]:
            for key in [k for k, v in known.items() if launch_value(args, k) != v]:
                del known[key]

    def add_device_time(self, devices: list, durations: list, one_device: bool) -> None:
        """Kernel time per device, summed a chunk at a time as it always was."""
        time = self.device_time
        if one_device:
            time[devices[0]] = time.get(devices[0], 0.0) + sum(durations)
            return
        for device, d in zip(devices, durations):
            time[device] = time.get(device, 0.0) + d

    def _api_time(self) -> None:
        """API seconds by name, each name's calls added one by one in file
        order (np.add.at adds in the order given: the floats a loop gives)."""
        index = {name: i for i, name in enumerate(self.api)}
        codes = [_codes_in(index, names) for names in self.api_names]
        sums = np.zeros(len(index))
        sums[:len(self.api)] = list(self.api.values())
        if codes:
            np.add.at(sums, np.concatenate(codes), np.concatenate(self.api_dur) * 1e-6)
        self.api = dict(zip(index, sums.tolist()))
        self.api_names, self.api_dur = [], []

    def finish(self) -> None:
        """API time by name and the copy and set groups (with the copies
        whose bytes come from their runtime calls), from the events in
        file order; called once, after the last chunk."""
        self._api_time()
        copies, pending = self.copies, self.pending_bytes
        for kind, name, dur, args_kind, nbytes, corr in self.copy_events:
            g = copies.get(name)
            if g is None:
                g = copies[name] = {"n": 0, "t": 0.0, "bytes": 0.0, "family": kind, "kind": args_kind}
            g["n"] += 1
            g["t"] += dur
            if nbytes is None:
                pending.append((g, corr, dur))
            else:
                g["bytes"] += nbytes
        self.copy_events = []

def _codes_in(index: dict, names) -> np.ndarray:
    """Each call's name numbered in ``index`` (grown as names come): from a
    list of names, or from a scanned chunk's (codes, its distinct names)."""
    if isinstance(names, tuple):
        codes, values = names
        return np.array([index.setdefault(v, len(index)) for v in values], dtype=np.int64)[codes]
    return np.fromiter((index.setdefault(n, len(index)) for n in names), dtype=np.int64, count=len(names))


class Span:
    """First and last instant of GPU activity and API calls, relative to
    the first timed event (times relative to it keep sub-ns precision)."""

    def __init__(self):
        self.t0 = None
        self.lo, self.hi = math.inf, -math.inf

    def cover(self, ts: np.ndarray, dur: np.ndarray) -> None:
        if len(ts):
            self.lo = min(self.lo, float(ts.min()))
            self.hi = max(self.hi, float((ts + dur).max()))

# a chunk's columns gathered in C (map with attrgetter), not by a Python
# loop over its events
_PHASE_OF = operator.attrgetter("ph")
_ARGS_OF, _TID_OF, _CAT_OF = (operator.attrgetter(f) for f in ("args", "tid", "cat"))
_NAME_OF, _TS_OF, _DUR_OF = (operator.attrgetter(f) for f in ("name", "ts", "dur"))


def take_chunk(chunk: list, first: int, gpu: GpuEvents, ops: OpEvents, span: Span, path: Path) -> None:
    """Add one chunk's complete events, kind by kind, as columns (a Python loop
    per event was most of a big trace's reading time); a scanned one (.scanned) adds its own."""
    if hasattr(chunk, "take_into"):
        chunk.take_into(gpu, ops, span)
        return
    batches = {kind: complete for kind, events in _by_kind(chunk, gpu.other_categories).items()
               if (complete := _complete(events))}
    where = _Where(chunk, first, path)
    for e in batches.pop("range", ()):
        try:
            flops = flops_from_counters(_counter_args(e.args))
        except ValueError as exc:
            where.fail(e, f"({e.name!r}): {exc}")
        gpu.ranges.setdefault(where.name_of(e), []).append(flops)
    if span.t0 is None:
        span.t0 = _first_time(chunk, batches)
    for kind, events in batches.items():
        names = where.names(events, kind)
        ts, dur = where.times(events, names)
        ts -= span.t0
        args = list(map(_ARGS_OF, events))
        if kind == "op":
            gpu.extras.take_ops(len(ops), args)
            ops.extend(names, ts, dur, list(map(_TID_OF, events)), args)
            continue
        if kind == "annotation":       # the step split's ranges (kineto.phases), no time of their own
            ops.annotations.extend(names, ts, dur, list(map(_TID_OF, events)))
            gpu.extras.take_annotations(names, ts.tolist(), dur.tolist(), events)   # nccl:* sizes
            continue
        span.cover(ts, dur)
        if kind == "api":
            _apis(gpu, names, ts, dur, events, args, where)
        elif kind == "kernel":
            _kernels(gpu, names, ts, dur, events, args, where)
        else:   # copies and sets together, so their groups keep the file's order
            for name, t, d, e, a in zip(names, ts.tolist(), dur.tolist(), events, args):
                _copy(gpu, kind_of(e.cat), name, t, d, a, where, e)

def _complete(events: list) -> list:
    """The complete ("X") events of a batch: most batches hold nothing else
    (flow and instant events have categories of their own, dropped before)."""
    phases = list(map(_PHASE_OF, events))        # gathered in C
    return events if phases.count("X") == len(phases) else [e for e, ph in zip(events, phases) if ph == "X"]


def _by_kind(events: list, dropped: dict | None = None) -> dict[str, list]:
    """Events by kind (kernel, op, api, copy: memcpy and memset, range), each
    list in file order; events of other categories are dropped (counted per
    category in ``dropped``: a device roofline does not read, MTIA's)."""
    cats = list(map(_CAT_OF, events))
    try:
        distinct = set(cats)
    except TypeError:                      # a list as category: not one of ours
        cats = [c if isinstance(c, str) else None for c in cats]
        distinct = set(cats)
    kinds = [None, "kernel", "op", "api", "copy", "range", "annotation"]
    code_of = {c: kinds.index(batch_kind(c)) for c in distinct}
    codes = np.fromiter(map(code_of.__getitem__, cats), dtype=np.int8, count=len(cats))
    if dropped is not None:
        for c in distinct:
            if code_of[c] == 0 and isinstance(c, str) and c not in FLOWS:
                dropped[c] = dropped.get(c, 0) + cats.count(c)
    out = {}
    for code in sorted(set(code_of.values()) - {0}):
        idx = np.flatnonzero(codes == code).tolist()
        out[kinds[code]] = [events[i] for i in idx]
    return out


_COPY_OR = {"memcpy": "copy", "memset": "copy"}
# flow arrows between a launch and its kernel: every GPU trace has them, not worth a count
FLOWS = frozenset({"ac2g", "async_cpu_to_gpu"})


def batch_kind(cat) -> str | None:
    """The batch an event goes to: its kind, copies and sets together."""
    kind = kind_of(cat)
    return _COPY_OR.get(kind, kind)

def kind_of(cat) -> str | None:
    kind = _KIND.get(cat)
    if kind is None and isinstance(cat, str):
        kind = _KIND.get(cat.lower())
    return kind

def _first_time(chunk: list, batches: dict) -> float | None:
    """ts of the chunk's first timed event in file order (None without one):
    the earliest of the batches' first events."""
    heads = {id(batch[0]) for batch in batches.values() if batch}
    for e in chunk:
        if id(e) in heads:
            return e.ts
    return None

# Kineto timestamps are microseconds from the epoch, taken from 64-bit
# nanosecond clocks: none is past 2^63 ns. No event lasts a year (the bound
# importers.base.checked puts on every reader's times).
MAX_TS_US = 2.0 ** 63 / 1e3
MAX_DUR_US = MAX_TIME_S * 1e6


class _Where:
    """Checks on a batch of events, naming the first bad one's index."""

    MISSING = "(kernel name missing in the trace)"   # Kineto's "__missing__": CUPTI gave no name

    def __init__(self, chunk: list, first: int, path: Path):
        self.chunk, self.first, self.path = chunk, first, path

    def index(self, event) -> int:
        return self.first + next(i for i, e in enumerate(self.chunk) if e is event)

    def fail(self, event, message: str):
        raise InputError(self.path, None, f"traceEvents[{self.index(event)}] {message}")

    def name_of(self, e) -> str:
        return self.names([e], "range")[0]

    def names(self, events: list, kind: str) -> list[str]:
        names = list(map(_NAME_OF, events))
        if set(map(type, names)) != {str} or "" in names:
            bad = next(e for e in events if not isinstance(e.name, str) or not e.name)
            self.fail(bad, f"({bad.cat}) has no name")
        if "__missing__" in names:
            names = [self.MISSING if n == "__missing__" else n for n in names]
        return names

    def times(self, events: list, names: list) -> tuple[np.ndarray, np.ndarray]:
        ts = list(map(_TS_OF, events))
        dur = list(map(_DUR_OF, events))
        for column, label in ((ts, "ts"), (dur, "dur")):
            if None in column:
                j = column.index(None)
                self.fail(events[j], f"({names[j]!r}): no {label}")
        t = np.array(ts, dtype=float)
        d = np.array(dur, dtype=float)
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(t) | ~np.isfinite(d) | (d < 0)
        if bad.any():
            j = int(np.argmax(bad))
            self.fail(events[j], f"({names[j]!r}): bad time: ts {ts[j]}, duration {dur[j]}")
        late = np.abs(t) > MAX_TS_US
        if late.any():
            j = int(np.argmax(late))
            self.fail(events[j], f"({names[j]!r}): ts {ts[j]:.6g} us is past 2^63 ns from the epoch (the year "
                      "2262): no clock gives it (a damaged timestamp)")
        long = d > MAX_DUR_US
        if long.any():
            j = int(np.argmax(long))
            self.fail(events[j], f"({names[j]!r}): duration {dur[j]:.6g} us is beyond a year: not a "
                      "measurement (an overflowed or damaged duration)")
        return t, d


_KIND = {**{c: "kernel" for c in KERNEL_CATS}, **{c: "memcpy" for c in MEMCPY_CATS},
         **{c: "memset" for c in MEMSET_CATS}, **{c: "api" for c in API_CATS},
         **{c: "range" for c in RANGE_CATS}, **{c: "op" for c in OP_CATS},
         **{c: "annotation" for c in ANNOTATION_CATS}}


def _counter_args(args) -> dict:
    if args is None:
        return {}
    return {key: value for key, value in zip(decode.COUNTER_KEYS, decode.counter_values(args))
            if value is not None}


def _apis(gpu: GpuEvents, names: list, ts: np.ndarray, dur: np.ndarray, events: list, args: list,
          where: _Where) -> None:
    """API time by name; per correlation id the call's thread and start,
    its External id and the bytes it names (for copies without their own)."""
    # summed in file order by GpuEvents.finish; one string object per distinct
    # name (each call's own would be kept until then: 22 MB at 300k calls)
    gpu.api_names.append(list(map(gpu.name_ids.setdefault, names, names)))
    gpu.api_dur.append(dur)
    corr = decode.correlations(args)
    gpu.api_graph.update(graph_launch_rows(names, len(gpu.api_corr)))
    kernels = decode.field_of(args, _KERNEL_OF)
    if kernels.count(None) != len(kernels):
        first = len(gpu.api_corr)
        gpu.api_kernel.update((first + i, k) for i, k in enumerate(kernels) if isinstance(k, str) and k)
    gpu.api_corr += corr
    gpu.api_tid += list(map(_TID_OF, events))
    add_floats(gpu.api_ts, ts)
    gpu.api_ext_col += decode.external_ids(args)
    if None not in args and list(map(_SIZES_OF, args)).count((None, None)) == len(args):
        return                               # no call names the bytes it copies
    for c, a, e in zip(corr, args, events):
        if c is None or (a.bytes is None and a.size is None):
            continue
        try:
            size = named_size(a.bytes if a.bytes is not None else a.size)
        except ValueError as exc:
            where.fail(e, f"({e.name!r}): {exc}")
        if size is not None:
            gpu.api_sizes[c] = size


def _kernels(gpu: GpuEvents, names: list, ts: np.ndarray, dur: np.ndarray, events: list, args: list,
             where: _Where) -> None:
    gpu.extras.take_kernels(len(gpu.kernel_names), args)
    # one string object per distinct name: a trace repeats a few hundred names
    # (400 characters each in some), and every later set, dict and equality
    # over them then compares pointers, not characters
    names = list(map(gpu.name_ids.setdefault, names, names))
    add_floats(gpu.starts, ts)
    add_floats(gpu.kernel_ts, ts)
    add_floats(gpu.ends, ts + dur)
    durations = dur.tolist()
    gpu.kernel_names += names
    add_floats(gpu.kernel_dur, dur)
    gpu.kernel_ext += decode.external_ids(args)
    gpu.kernel_corr += decode.correlations(args)
    # the launch fields gathered in C (attrgetter of four fields makes the
    # tuples); a loop then compares each with its name's first launch
    raws = decode.field_of(args, _LAUNCH_RAW)
    for name, raw, a in zip(names, raws, args):
        gpu.agree_launch(name, raw, a)
    devices = _devices(events, args)
    try:
        distinct = set(devices)
    except TypeError:  # an unhashable device id
        j = next(j for j, d in enumerate(devices) if not isinstance(d, Hashable))
        where.fail(events[j], f"({names[j]!r}): bad device {devices[j]!r}")
    gpu.add_device_time(devices, durations, len(distinct) == 1)


_DEVICE_OF, _KERNEL_OF = operator.attrgetter("device"), operator.attrgetter("kernel")
_SIZES_OF = operator.attrgetter("bytes", "size")


def _devices(events: list, args: list) -> list:
    """Each kernel's device: its args' ``device``, else its process id."""
    devices = decode.field_of(args, _DEVICE_OF)
    if None not in devices:                 # kernels name their device
        return devices
    return [d if d is not None else e.pid for e, d in zip(events, devices)]


def _copy(gpu: GpuEvents, kind: str, name: str, ts: float, dur: float, args, where: _Where, e) -> None:
    """One copy or set, checked; grouped by name in GpuEvents.finish."""
    gpu.starts.append(ts)
    gpu.ends.append(ts + dur)
    try:
        row = copy_row(kind, name, dur, *((None,) * 3 if args is None else (args.bytes, args.kind, args.correlation)))
    except ValueError as exc:
        where.fail(e, f"({name!r}): {exc}")
    gpu.copy_events.append(row)


# the launch fields as decoded (Raw compares by content): equal to the first
# launch's, nothing needs checking field by field
_LAUNCH_RAW = operator.attrgetter("grid", "block", "registers", "shared")


def launch_value(args, key: str):
    value = getattr(args, _LAUNCH_FIELD[key])
    return bytes(value) if isinstance(value, msgspec.Raw) else value


def launch_fields(args) -> dict:
    """Launch configuration of one kernel event; grid and block stay raw
    JSON (compared as bytes, decoded once per kernel name by _decoded)."""
    out = {}
    if args is None:
        return out
    for key, name in _LAUNCH_ARGS.items():
        value = getattr(args, key)
        if isinstance(value, msgspec.Raw):
            value = bytes(value)
        if value is not None:
            try:
                hash(value)
            except TypeError:
                continue
            if isinstance(value, int) and not _C_INT[0] <= value < _C_INT[1]:
                continue                     # no launch figure is that big: damaged
            out[name] = value
    return out


def decoded_launch(launch: dict) -> dict:
    """grid/block from raw JSON to tuples; values that are not lists of
    integers are dropped."""
    out = {}
    for key, value in launch.items():
        if isinstance(value, bytes):
            try:
                value = msgspec.json.decode(value)
            except msgspec.DecodeError:
                continue
            if not (isinstance(value, list) and all(isinstance(v, int) and _C_INT[0] <= v < _C_INT[1]
                                                    for v in value)):
                continue
            value = tuple(value)
        out[key] = value
    return out
