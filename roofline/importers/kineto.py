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

Only the standard library's ``json`` is used; a 26 MB trace reads in well
under the 2 s target (see ``benchmarks/import_speed.py``).
"""
from __future__ import annotations

import gzip
import json
import math
import re
import zlib
from pathlib import Path

from ..errors import Advice, InputError
from ..families import family_of
from ..model import Kernel
from .base import ImportResult, ProgramTime, Reader, register
from .timeline import busy_time

KERNEL_CATS = frozenset({"kernel"})
MEMCPY_CATS = frozenset({"gpu_memcpy", "memcpy"})
MEMSET_CATS = frozenset({"gpu_memset", "memset"})
API_CATS = frozenset({"cuda_runtime", "runtime", "cuda_driver", "driver"})
RANGE_CATS = frozenset({"cuda_profiler_range"})

_COUNTER = re.compile(r"^(sm|smsp)__sass_thread_inst_executed_op_([dfh])(add|mul|fma)_pred_on\.sum$")
_PRECISION = {"d": "fp64", "f": "fp32", "h": "fp16"}
_WEIGHT = {"add": 1.0, "mul": 1.0, "fma": 2.0}
_DIRECTION = re.compile(r"\b(HtoD|DtoH|DtoD|HtoH|PtoP|DtoP|PtoD)\b", re.IGNORECASE)
_LAUNCH_ARGS = {"grid": "grid", "block": "block", "registers per thread": "registers_per_thread",
                "shared memory": "shared_memory_bytes"}


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


def _load(path: Path):
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if _is_gzip(raw):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(path, None, f"corrupt gzip stream: {exc}") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})") from None
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not UTF-8 JSON (byte {exc.start})") from None
    except RecursionError:
        raise InputError(path, None, "JSON nested too deeply") from None


def read(path: str | Path) -> ImportResult:
    path = Path(path)
    data = _load(path)
    try:
        return _parse(data, path)
    except InputError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError) as exc:
        raise InputError(path, None, f"malformed Kineto trace ({type(exc).__name__}: {exc})") from None


def parse(data, path: str | Path = "<kineto trace>") -> ImportResult:
    """A decoded Chrome trace (dict or event list) -> kernels."""
    return _parse(data, Path(str(path)))


def _number(event, key, path, index) -> float:
    value = event.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(path, None, f"traceEvents[{index}] ({event.get('name')!r}): "
                         f"{key} is not a number: {value!r}")
    return float(value)


def _parse(data, path: Path) -> ImportResult:
    if isinstance(data, dict):
        events = data.get("traceEvents")
        if not isinstance(events, list):
            raise InputError(path, None, "no traceEvents list: not a Chrome/Kineto trace")
        properties = data.get("deviceProperties")
    elif isinstance(data, list):
        events, properties = data, None
    else:
        raise InputError(path, None, "expected a JSON object with traceEvents")

    kernels: dict[str, dict] = {}
    copies: dict[str, dict] = {}
    ranges: dict[str, list] = {}
    api: dict[str, float] = {}
    starts: list[float] = []
    ends: list[float] = []
    lo, hi = math.inf, -math.inf
    t0 = None
    device_time: dict[object, float] = {}
    pending_bytes: list[tuple[dict, object, str]] = []
    api_sizes: dict[object, float] = {}

    for index, e in enumerate(events):
        if not isinstance(e, dict):
            raise InputError(path, None, f"traceEvents[{index}] is not an object")
        if e.get("ph") != "X":
            continue
        cat = e.get("cat")
        if not isinstance(cat, str):
            continue
        cat = cat.lower()
        if cat in KERNEL_CATS:
            kind = "kernel"
        elif cat in MEMCPY_CATS:
            kind = "memcpy"
        elif cat in MEMSET_CATS:
            kind = "memset"
        elif cat in API_CATS:
            kind = "api"
        elif cat in RANGE_CATS:
            kind = "range"
        else:
            continue
        name = e.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(path, None, f"traceEvents[{index}] ({cat}) has no name")
        args = e.get("args") or {}
        if not isinstance(args, dict):
            raise InputError(path, None, f"traceEvents[{index}] ({name!r}): args is not an object")
        if kind == "range":
            ranges.setdefault(name, []).append(flops_from_counters(args))
            continue
        ts = _number(e, "ts", path, index)
        dur = _number(e, "dur", path, index)
        if dur < 0:
            raise InputError(path, None, f"traceEvents[{index}] ({name!r}): negative duration {dur}")
        lo, hi = min(lo, ts), max(hi, ts + dur)
        if kind == "api":
            api[name] = api.get(name, 0.0) + dur * 1e-6
            size = args.get("bytes", args.get("size"))
            corr = args.get("correlation")
            if size is not None and corr is not None:
                try:
                    api_sizes[corr] = float(size)
                except (TypeError, ValueError):
                    pass
            continue
        if t0 is None:
            t0 = ts  # intervals relative to the first one keep sub-ns precision
        starts.append(ts - t0)
        ends.append(ts - t0 + dur)
        device = args.get("device", e.get("pid"))
        if kind == "kernel":
            g = kernels.get(name)
            if g is None:
                g = kernels[name] = {"n": 0, "t": 0.0, "launch": _launch(args)}
            elif g["launch"]:
                launch = _launch(args)
                g["launch"] = {k: v for k, v in g["launch"].items() if launch.get(k) == v}
            g["n"] += 1
            g["t"] += dur
            try:
                device_time[device] = device_time.get(device, 0.0) + dur
            except TypeError:  # an unhashable device id
                raise InputError(path, None, f"traceEvents[{index}] ({name!r}): bad device {device!r}") from None
        else:
            g = copies.get(name)
            if g is None:
                g = copies[name] = {"n": 0, "t": 0.0, "bytes": 0.0, "all_bytes": True,
                                    "family": kind, "kind": str(args.get("kind", ""))}
            g["n"] += 1
            g["t"] += dur
            nbytes = args.get("bytes")
            if nbytes is None:
                pending_bytes.append((g, args.get("correlation"), name))
            elif (isinstance(nbytes, bool) or not isinstance(nbytes, (int, float))
                  or not math.isfinite(nbytes) or nbytes < 0):
                raise InputError(path, None, f"traceEvents[{index}] ({name!r}): bytes is not a "
                                 f"non-negative number: {nbytes!r}")
            else:
                g["bytes"] += float(nbytes)

    for g, corr, name in pending_bytes:
        size = api_sizes.get(corr) if corr is not None else None
        if size is None or not math.isfinite(size) or size < 0:
            g["all_bytes"] = False
        else:
            g["bytes"] += size

    warnings: list[Advice] = []
    out: list[Kernel] = []
    for name, g in kernels.items():
        flops = {}
        if name in ranges:
            flops = _per_call(ranges.pop(name), g["n"])
        out.append(Kernel(name=name, time_s=g["t"] * 1e-6, count=g["n"], flops=flops, launch=g["launch"],
                          family=family_of(name)))
    if ranges:
        n = sum(len(v) for v in ranges.values())
        if kernels:
            message = (f"{n} cuda_profiler_range event(s) under {len(ranges)} name(s) match no kernel "
                       "event; they are kept as kernels with FLOPs and unknown time")
        else:
            message = (f"{n} cuda_profiler_range event(s) and no kernel events: kernels have FLOPs but "
                       "unknown time (Kineto spreads range timestamps evenly over the profiling window)")
        warnings.append(Advice(message, "profile the same step again without the CUPTI range profiler "
                               "to get kernel times", subject="kineto"))
        for name, rs in ranges.items():
            total: dict[str, float] = {}
            for f in rs:
                for p, v in f.items():
                    total[p] = total.get(p, 0.0) + v
            out.append(Kernel(name=name, time_s=math.nan, count=len(rs), flops=total, family=family_of(name)))
    partial = []
    for name, g in copies.items():
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
    device_name = _device_name(properties, device_time)
    if len(device_time) > 1:
        warnings.append(Advice(f"kernels ran on {len(device_time)} devices; each name is one row over all",
                               "device_name is the device with the most kernel time", subject="devices"))
    program = None
    if api or starts:
        busy = busy_time(starts, ends) * 1e-6 if starts else None
        program = ProgramTime(api_s=api, gpu_busy_s=busy, span_s=(hi - lo) * 1e-6 if hi >= lo else None)
    if not out and program is None:
        raise InputError(path, None, "no GPU kernel, copy, range or CUDA API events: was the trace "
                         "recorded with ProfilerActivity.CUDA?")
    return ImportResult(str(path), "kineto", tuple(out), device_name=device_name, program=program,
                        warnings=tuple(warnings))


def _per_call(flop_list: list[dict], count: int) -> dict[str, float]:
    total: dict[str, float] = {}
    for f in flop_list:
        for p, v in f.items():
            total[p] = total.get(p, 0.0) + v
    return {p: v / len(flop_list) * count for p, v in total.items()}


def _launch(args: dict) -> dict:
    out = {}
    for key, name in _LAUNCH_ARGS.items():
        value = args.get(key)
        if isinstance(value, list):
            value = tuple(value)
        if value is not None:
            try:
                hash(value)
            except TypeError:
                continue
            out[name] = value
    return out


def _device_name(properties, device_time: dict) -> str | None:
    if not isinstance(properties, list):
        return None
    named = [p for p in properties if isinstance(p, dict) and isinstance(p.get("name"), str)]
    if not named:
        return None
    if device_time:
        busiest = max(device_time, key=device_time.get)
        for p in named:
            if p.get("id") == busiest:
                return p["name"]
    names = {p["name"] for p in named}
    return named[0]["name"] if len(names) == 1 else None


register(Reader("kineto", sniff, read))
