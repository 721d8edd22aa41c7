"""PyTorch profiler (Kineto) Chrome traces, ``.json`` or ``.json.gz``.

Both schemas are read: the 2021 one (categories ``Kernel``, ``Memcpy``,
``Memset``, ``Runtime``; GPU events on tids like ``"stream 7"``; args key
``external id``) and the 2023+ one (``kernel``, ``gpu_memcpy``,
``gpu_memset``, ``cuda_runtime``, ``cuda_driver``; integer tids). ROCm
traces (``hip*`` runtime calls, ``Dispatch Kernel``) have the same shape.
Timestamps and durations are microseconds (``displayTimeUnit`` only
changes how viewers draw them). The top level may also be a bare event list.

What becomes of the events (complete events, ``ph == "X"``, only):

* kernels are grouped by name: count, total duration; the launch
  configuration (grid, block, registers per thread, shared memory) is kept
  when all launches agree.
* ``gpu_memcpy``/``gpu_memset`` are kept under their Kineto names
  (``Memcpy HtoD (Pageable -> Device)``, ``Memset (Device)``), family
  ``memcpy``/``memset``. Bytes come from ``args.bytes``; where a copy has
  none (2021 traces, ROCm) from the ``size``/``bytes`` arg of the runtime
  call with the same correlation id. HtoD/DtoH/peer bytes go on ``PCIe``,
  DtoD bytes twice on ``DRAM`` (read and write), memset bytes on ``DRAM``.
  A group keeps bytes only if every copy in it has them.
* ``cuda_profiler_range`` events (Kineto's CUPTI range profiler) carry
  per-kernel counters ``sm__``/``smsp__sass_thread_inst_executed_op_
  {d,f,h}{add,mul,fma}_pred_on.sum``. FLOP = add + mul + 2 x fma per
  precision (d: fp64, f: fp32, h: fp16), as Nsight Compute's roofline
  counts them. They are attached to the kernels of the same name (FLOP per
  call = mean over that name's ranges, times the kernel's count). The
  ranges' own timestamps are not kernel times (Kineto spreads them evenly
  over the profiling window), so a trace with ranges but no kernel events
  gives kernels with FLOPs and unknown time, with a warning.
* ``cuda_runtime``/``cuda_driver`` durations summed by name are the
  program's API time; GPU busy time is the union of kernel, copy and set
  intervals; the span runs from the first API call or GPU activity to the
  last one.

* ``cpu_op`` events (with ``record_shapes=True``) are PyTorch operators:
  their work comes from the operator models (:mod:`roofline.ops`, nesting
  and attribution in :mod:`.kineto_ops`). On a GPU trace an operator's work
  goes to the kernels it launched (``External id`` on the kernel, or the
  runtime launch with the kernel's ``correlation``), split by kernel time
  when it launched several; kernel rows are then one per (kernel name,
  operator). Counters, where a kernel has them, win over the model. A trace
  with operators and no GPU activity is a CPU trace: each operator is a
  kernel, its self time its time.

Events are decoded with msgspec into typed structs that keep only these
fields (:mod:`.kineto_decode`).
"""
from __future__ import annotations

import math
from collections.abc import Hashable
import re
import zlib
from pathlib import Path

import msgspec
import numpy as np

from ..errors import Advice, InputError
from ..families import family_of
from ..model import Kernel
from . import kineto_attrib, kineto_decode
from .base import ImportResult, ProgramTime, Reader, register
from .kineto_ops import OpEvents
from .timeline import busy_time

KERNEL_CATS = frozenset({"kernel"})
OP_CATS = frozenset({"cpu_op", "operator"})
MEMCPY_CATS = frozenset({"gpu_memcpy", "memcpy"})
MEMSET_CATS = frozenset({"gpu_memset", "memset"})
API_CATS = frozenset({"cuda_runtime", "runtime", "cuda_driver", "driver"})
RANGE_CATS = frozenset({"cuda_profiler_range"})

_COUNTER = re.compile(r"^(sm|smsp)__sass_thread_inst_executed_op_([dfh])(add|mul|fma)_pred_on\.sum$")
_PRECISION = {"d": "fp64", "f": "fp32", "h": "fp16"}
_WEIGHT = {"add": 1.0, "mul": 1.0, "fma": 2.0}
_DIRECTION = re.compile(r"\b(HtoD|DtoH|DtoD|HtoH|PtoP|DtoP|PtoD)\b", re.IGNORECASE)
_LAUNCH_ARGS = {"grid": "grid", "block": "block", "registers": "registers_per_thread",
                "shared": "shared_memory_bytes"}
_LAUNCH_FIELD = {name: key for key, name in _LAUNCH_ARGS.items()}


def copy_levels(name: str, nbytes: float, kind: str = "") -> dict[str, float]:
    """Bytes per level for a Kineto copy named ``name`` (or with arg ``kind``)."""
    m = _DIRECTION.search(name) or _DIRECTION.search(kind or "")
    direction = m.group(1).lower() if m else ""
    if direction in ("htod", "dtoh", "ptop", "dtop", "ptod"):
        return {"PCIe": nbytes}
    if direction == "dtod":
        return {"DRAM": 2.0 * nbytes}
    return {}


def flops_from_counters(args: dict) -> dict[str, float]:
    """FLOP per precision from SASS instruction counters (FMA counts 2).
    ``smsp__`` and ``sm__`` spellings of one counter are not added twice."""
    seen: dict[tuple[str, str], tuple[str, float]] = {}
    for key, value in args.items():
        m = _COUNTER.match(key)
        if not m:
            continue
        scope, prec, op = m.groups()
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ValueError(f"counter {key} is not a non-negative number: {value!r}")
        if (prec, op) in seen and seen[(prec, op)][0] == "smsp":
            continue
        seen[(prec, op)] = (scope, float(value))
    flops: dict[str, float] = {}
    for (prec, op), (_, value) in seen.items():
        p = _PRECISION[prec]
        flops[p] = flops.get(p, 0.0) + _WEIGHT[op] * value
    return flops


def _is_gzip(head: bytes) -> bool:
    return head[:2] == b"\x1f\x8b"


def sniff(path: Path, head: bytes) -> bool:
    if _is_gzip(head):
        try:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            text = d.decompress(head, 65536)
        except zlib.error:
            return False
    else:
        text = head
    text = text.lstrip()
    if not text.startswith((b"{", b"[")):
        return False
    if b'"traceEvents"' in text or (b'"schemaVersion"' in text and b'"deviceProperties"' in text):
        return True
    return text.startswith(b"[") and b'"ph"' in text and b'"ts"' in text


# Files above this size are decoded a chunk at a time (kineto_stream), so a
# trace larger than memory still reads, and faster (chunks stay in cache);
# smaller ones are decoded whole.
STREAM_ABOVE_BYTES = 1 << 20


def read(path: str | Path) -> ImportResult:
    path = Path(path)
    try:
        big = path.stat().st_size > STREAM_ABOVE_BYTES
        with open(path, "rb") as fh:
            gz = fh.read(2) == b"\x1f\x8b"    # its size on disk says nothing of its size inflated
    except OSError:
        big = gz = False
    if big or gz:
        from .kineto_stream import NotStreamable, StreamedTrace, file_bytes
        try:
            return _checked(StreamedTrace(file_bytes(path)), path)
        except NotStreamable:
            pass            # decoded whole below (which names any syntax error's line)
    return _checked(kineto_decode.load(path), path)


def parse(data, path: str | Path = "<kineto trace>") -> ImportResult:
    """A decoded Chrome trace (dict or event list) -> kernels (encoded back
    to JSON first: the reader keeps operator arguments as raw JSON)."""
    path = Path(str(path))
    try:
        raw = msgspec.json.encode(data)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InputError(path, None, f"not JSON data: {exc}") from None
    return _checked(kineto_decode.decode(raw, path), path)


def _checked(trace, path: Path) -> ImportResult:
    try:
        with kineto_decode.no_gc():
            return _parse(trace, path)
    except InputError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError) as exc:
        raise InputError(path, None, f"malformed Kineto trace ({type(exc).__name__}: {exc})") from None


class _Gpu:
    """GPU activity of a trace: kernel launches as columns, copies and sets
    grouped by name, API time, and the correlation -> operator links."""

    def __init__(self):
        self.kernel_names: list[str] = []
        self.kernel_dur: list[float] = []
        self.kernel_ext: list = []
        self.kernel_corr: list = []
        self.launch: dict[str, dict] = {}
        self.copies: dict[str, dict] = {}
        self.ranges: dict[str, list] = {}
        self.api: dict[str, float] = {}
        self.api_sizes: dict = {}        # correlation -> bytes the runtime call names
        # runtime calls as columns: correlation id, thread, start, External id
        self.api_corr: list = []
        self.api_tid: list = []
        self.api_ts: list = []
        self.api_ext_col: list = []
        self.pending_bytes: list = []
        self.starts: list[float] = []
        self.ends: list[float] = []
        self.device_time: dict = {}
        self.launch_first: dict = {}


def _parse(trace, path: Path) -> ImportResult:
    gpu = _Gpu()
    ops = OpEvents()
    span = _Span()
    first = 0
    for chunk in _event_chunks(trace):
        _take_chunk(chunk, first, gpu, ops, span, path)
        first += len(chunk)
    return _result(trace, path, gpu, ops, span.lo, span.hi)


def _event_chunks(trace):
    """The trace's events in lists: one per chunk when streamed."""
    chunks = getattr(trace, "event_chunks", None)
    return [trace.traceEvents] if chunks is None else chunks


class _Span:
    """First and last instant of GPU activity and API calls, relative to
    the first timed event (times relative to it keep sub-ns precision)."""

    def __init__(self):
        self.t0 = None
        self.lo, self.hi = math.inf, -math.inf

    def cover(self, ts: np.ndarray, dur: np.ndarray) -> None:
        if len(ts):
            self.lo = min(self.lo, float(ts.min()))
            self.hi = max(self.hi, float((ts + dur).max()))


def _take_chunk(chunk: list, first: int, gpu: _Gpu, ops: OpEvents, span: _Span, path: Path) -> None:
    """Add one chunk's complete events, kind by kind, as columns (a Python
    loop per event was most of the reading time of a big trace)."""
    batches = _by_kind([e for e in chunk if e.ph == "X"])
    where = _Where(chunk, first, path)
    for e in batches.pop("range", ()):
        gpu.ranges.setdefault(where.name_of(e), []).append(flops_from_counters(_counter_args(e.args)))
    if span.t0 is None:
        span.t0 = _first_time(chunk, batches)
    for kind, events in batches.items():
        names = where.names(events, kind)
        ts, dur = where.times(events, names)
        ts -= span.t0
        args = [e.args for e in events]
        if kind == "op":
            ops.extend(names, ts.tolist(), dur.tolist(), [e.tid for e in events], args)
            continue
        span.cover(ts, dur)
        if kind == "api":
            _apis(gpu, names, ts, dur, [e.tid for e in events], args)
        elif kind == "kernel":
            _kernels(gpu, names, ts, dur, events, args, where)
        else:   # copies and sets together, so their groups keep the file's order
            for name, t, d, e, a in zip(names, ts.tolist(), dur.tolist(), events, args):
                _copy(gpu, _kind(e.cat), name, t, d, a, where, e)


def _by_kind(events: list) -> dict[str, list]:
    """Events by kind (kernel, op, api, copy: memcpy and memset, range), each
    list in file order; events of other categories are dropped."""
    cats = [e.cat for e in events]
    try:
        distinct = set(cats)
    except TypeError:                      # a list as category: not one of ours
        cats = [c if isinstance(c, str) else None for c in cats]
        distinct = set(cats)
    kinds = [None, "kernel", "op", "api", "copy", "range"]
    code_of = {c: kinds.index(_batch_kind(c)) for c in distinct}
    codes = np.fromiter(map(code_of.__getitem__, cats), dtype=np.int8, count=len(cats))
    out = {}
    for code in sorted(set(code_of.values()) - {0}):
        idx = np.flatnonzero(codes == code).tolist()
        out[kinds[code]] = [events[i] for i in idx]
    return out


_COPY_OR = {"memcpy": "copy", "memset": "copy"}


def _batch_kind(cat) -> str | None:
    """The batch an event goes to: its kind, copies and sets together."""
    kind = _kind(cat)
    return _COPY_OR.get(kind, kind)


def _kind(cat) -> str | None:
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
        names = [e.name for e in events]
        if set(map(type, names)) != {str} or "" in names:
            bad = next(e for e in events if not isinstance(e.name, str) or not e.name)
            self.fail(bad, f"({bad.cat}) has no name")
        if "__missing__" in names:
            names = [self.MISSING if n == "__missing__" else n for n in names]
        return names

    def times(self, events: list, names: list) -> tuple[np.ndarray, np.ndarray]:
        ts = [e.ts for e in events]
        dur = [e.dur for e in events]
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
        return t, d


_KIND = {**{c: "kernel" for c in KERNEL_CATS}, **{c: "memcpy" for c in MEMCPY_CATS},
         **{c: "memset" for c in MEMSET_CATS}, **{c: "api" for c in API_CATS},
         **{c: "range" for c in RANGE_CATS}, **{c: "op" for c in OP_CATS}}


def _counter_args(args) -> dict:
    if args is None:
        return {}
    return {key: value for key, value in zip(kineto_decode.COUNTER_KEYS, kineto_decode.counter_values(args))
            if value is not None}


def _apis(gpu: _Gpu, names: list, ts: np.ndarray, dur: np.ndarray, tids: list, args: list) -> None:
    """API time by name; per correlation id the call's thread and start,
    its External id and the bytes it names (for copies without their own)."""
    api = gpu.api
    for name, d in zip(names, dur.tolist()):
        api[name] = api.get(name, 0.0) + d * 1e-6
    corr = [None if a is None else a.correlation for a in args]
    gpu.api_corr += corr
    gpu.api_tid += tids
    gpu.api_ts += ts.tolist()
    gpu.api_ext_col += [None if a is None else (a.external_id if a.external_id is not None
                                                else a.external_id_2021) for a in args]
    for c, a in zip(corr, args):
        if c is None or (a.bytes is None and a.size is None):
            continue
        try:
            gpu.api_sizes[c] = float(a.bytes if a.bytes is not None else a.size)
        except (TypeError, ValueError):
            pass


def _kernels(gpu: _Gpu, names: list, ts: np.ndarray, dur: np.ndarray, events: list, args: list,
             where: _Where) -> None:
    gpu.starts += ts.tolist()
    gpu.ends += (ts + dur).tolist()
    durations = dur.tolist()
    gpu.kernel_names += names
    gpu.kernel_dur += durations
    gpu.kernel_ext += [None if a is None else (a.external_id if a.external_id is not None
                                               else a.external_id_2021) for a in args]
    gpu.kernel_corr += [None if a is None else a.correlation for a in args]
    for name, a in zip(names, args):
        known = gpu.launch.get(name)
        if known is None:
            gpu.launch[name] = _launch(a)
            gpu.launch_first[name] = _launch_raw(a)
        elif known and a is not None and _launch_raw(a) != gpu.launch_first[name]:
            # keep what every launch of this name agrees on
            for key in [k for k, v in known.items() if _launch_value(a, k) != v]:
                del known[key]
    devices = [a.device if a is not None and a.device is not None else e.pid for e, a in zip(events, args)]
    try:
        distinct = set(devices)
    except TypeError:  # an unhashable device id
        j = next(j for j, d in enumerate(devices) if not isinstance(d, Hashable))
        where.fail(events[j], f"({names[j]!r}): bad device {devices[j]!r}")
    device_time = gpu.device_time
    if len(distinct) == 1:
        device = devices[0]
        device_time[device] = device_time.get(device, 0.0) + sum(durations)
        return
    for device, d in zip(devices, durations):
        device_time[device] = device_time.get(device, 0.0) + d


def _copy(gpu: _Gpu, kind: str, name: str, ts: float, dur: float, args, where: _Where, e) -> None:
    gpu.starts.append(ts)
    gpu.ends.append(ts + dur)
    g = gpu.copies.get(name)
    if g is None:
        g = gpu.copies[name] = {"n": 0, "t": 0.0, "bytes": 0.0, "all_bytes": True, "family": kind,
                                "kind": str(args.kind) if args is not None and args.kind is not None else ""}
    g["n"] += 1
    g["t"] += dur
    nbytes = args.bytes if args is not None else None
    if nbytes is None:
        gpu.pending_bytes.append((g, args.correlation if args is not None else None))
    elif (isinstance(nbytes, bool) or not isinstance(nbytes, (int, float))
          or not math.isfinite(nbytes) or nbytes < 0):
        where.fail(e, f"({name!r}): bytes is not a non-negative number: {nbytes!r}")
    else:
        g["bytes"] += float(nbytes)


def _result(trace, path: Path, gpu: _Gpu, ops: OpEvents, lo: float, hi: float) -> ImportResult:
    warnings: list[Advice] = []
    cpu_trace = bool(len(ops)) and not gpu.kernel_names and not gpu.copies and not gpu.ranges
    if cpu_trace:
        out = kineto_attrib.cpu_kernels(ops, warnings, threads=_intra_op_threads(trace))
    else:
        out = kineto_attrib.gpu_kernels(gpu, ops, warnings)
        out += _range_only_kernels(gpu, warnings)
        out += _copy_kernels(gpu, warnings)
    device = None if cpu_trace else _device_entry(trace.deviceProperties, gpu.device_time)
    if len(gpu.device_time) > 1:
        warnings.append(Advice(f"kernels ran on {len(gpu.device_time)} devices; each name is one row over all",
                               "device_name is the device with the most kernel time", subject="devices"))
    program = None
    if gpu.api or gpu.starts:
        busy = busy_time(gpu.starts, gpu.ends) * 1e-6 if gpu.starts else None
        program = ProgramTime(api_s=gpu.api, gpu_busy_s=busy, span_s=(hi - lo) * 1e-6 if hi >= lo else None)
    if not out and program is None:
        raise InputError(path, None, "no PyTorch operator, GPU kernel, copy, range or CUDA API events: "
                         "record with torch.profiler (ProfilerActivity.CPU and/or CUDA)")
    return ImportResult(str(path), "kineto", tuple(out), device_name=device["name"] if device else None,
                        program=program, warnings=tuple(warnings), rank=_rank(trace.distributedInfo),
                        device_properties=_identity(device))


def _rank(info) -> int | None:
    """``distributedInfo.rank`` of a trace written by torch.distributed."""
    value = info.get("rank") if isinstance(info, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _intra_op_threads(trace) -> int | None:
    meta = trace.roofline
    value = meta.get("intra_op_threads") if isinstance(meta, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _range_only_kernels(gpu: _Gpu, warnings: list[Advice]) -> list[Kernel]:
    """Ranges left after gpu_kernels took those with a kernel of their name."""
    if not gpu.ranges:
        return []
    n = sum(len(v) for v in gpu.ranges.values())
    if gpu.kernel_names:
        message = (f"{n} cuda_profiler_range event(s) under {len(gpu.ranges)} name(s) match no kernel "
                   "event; they are kept as kernels with FLOPs and unknown time")
    else:
        message = (f"{n} cuda_profiler_range event(s) and no kernel events: kernels have FLOPs but "
                   "unknown time (Kineto spreads range timestamps evenly over the profiling window)")
    warnings.append(Advice(message, "profile the same step again without the CUPTI range profiler "
                           "to get kernel times", subject="kineto"))
    out = []
    for name, rs in gpu.ranges.items():
        total: dict[str, float] = {}
        for f in rs:
            for p, v in f.items():
                total[p] = total.get(p, 0.0) + v
        out.append(Kernel(name=name, time_s=math.nan, count=len(rs), flops=total, family=family_of(name)))
    return out


def _copy_kernels(gpu: _Gpu, warnings: list[Advice]) -> list[Kernel]:
    for g, corr in gpu.pending_bytes:
        size = gpu.api_sizes.get(corr) if corr is not None else None
        if size is None or not math.isfinite(size) or size < 0:
            g["all_bytes"] = False
        else:
            g["bytes"] += size
    out, partial = [], []
    for name, g in gpu.copies.items():
        if not g["all_bytes"]:
            nbytes = {}
            partial.append(name)
        elif g["family"] == "memset":
            nbytes = {"DRAM": g["bytes"]}
        else:
            nbytes = copy_levels(name, g["bytes"], g["kind"])
        out.append(Kernel(name=name, time_s=g["t"] * 1e-6, count=g["n"], bytes=nbytes, family=g["family"]))
    if partial:
        warnings.append(Advice(f"{len(partial)} copy/set group(s) lack byte counts for some events "
                               f"({', '.join(partial[:3])}); their bytes are left unknown",
                               "record with a newer PyTorch profiler, which writes args.bytes",
                               subject="kineto"))
    return out


def _per_call(flop_list: list[dict], count: int) -> dict[str, float]:
    total: dict[str, float] = {}
    for f in flop_list:
        for p, v in f.items():
            total[p] = total.get(p, 0.0) + v
    return {p: v / len(flop_list) * count for p, v in total.items()}


def _launch_raw(args) -> tuple | None:
    """The launch fields as decoded (Raw compares by content): equal to the
    first launch's, nothing needs checking field by field."""
    if args is None:
        return None
    return (args.grid, args.block, args.registers, args.shared)


def _launch_value(args, key: str):
    value = getattr(args, _LAUNCH_FIELD[key])
    return bytes(value) if isinstance(value, msgspec.Raw) else value


def _launch(args) -> dict:
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
            if not (isinstance(value, list) and all(isinstance(v, int) for v in value)):
                continue
            value = tuple(value)
        out[key] = value
    return out
    for key, name in _LAUNCH_ARGS.items():
        value = getattr(args, key)
        if isinstance(value, list):
            value = tuple(value)
        if value is not None:
            try:
                hash(value)
            except TypeError:
                continue
            out[name] = value
    return out


def _device_entry(properties, device_time: dict) -> dict | None:
    """deviceProperties of the device with the most kernel time, else of
    the one kind of device listed (only its name when their figures differ)."""
    if not isinstance(properties, list):
        return None
    named = [p for p in properties if isinstance(p, dict) and isinstance(p.get("name"), str)]
    if not named:
        return None
    if device_time:
        busiest = max(device_time, key=device_time.get)
        for p in named:
            if p.get("id") == busiest:
                return p
    if len({p["name"] for p in named}) != 1:
        return None
    same = len({repr(_identity(p)) for p in named}) == 1
    return named[0] if same else {"name": named[0]["name"]}


# deviceProperties keys -> ImportResult.device_properties keys
_IDENTITY = {"numSms": "sms", "warpSize": "warp_size", "totalGlobalMem": "memory_bytes"}


def _identity(entry: dict | None) -> dict | None:
    """The figures that tell GPUs apart when the name does not (integers only)."""
    if not entry:
        return None
    out = {ours: entry[theirs] for theirs, ours in _IDENTITY.items() if _whole(entry.get(theirs), 1)}
    major, minor = entry.get("computeMajor"), entry.get("computeMinor")
    if _whole(major, 1) and _whole(minor, 0):
        out["capability"] = f"{major}.{minor}"
    return out or None


def _whole(value, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


register(Reader("kineto", sniff, read))
