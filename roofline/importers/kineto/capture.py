"""A trace of CUDA/HIP graph replays read with the trace(s) of the graphs'
capture (docs/pytorch.md, "Graph replays and their capture").

Serving engines capture their graphs once, at start-up, and replay them
for every step: vLLM writes the capture's trace with
``--profiler-config.capture_torch_profiler`` to
``<torch_profiler_dir>/capture_traces/``, SGLang with
``--enable-profile-cuda-graph`` (``capture_traces/bs_<N>_rank<R>.json.gz``).
The replay trace's kernels name no operator and no shapes
(:mod:`.replay`); the capture trace has the operators, with shapes, around
launch calls that ran no kernel. Given both (two files, or a folder),
:func:`join_captures` reads the replay once more with the capture's
operators and captured launch calls added, each on threads of its own (so
nothing of one file can enclose anything of the other), with correlation
and External ids of their own and no API time; the capture's own kernels
(warm-up runs while capturing) and its ranges are left out. The replay's
kernels then take their captured launch's work as in one trace
(:func:`.replay.joined_launches`). Its times, steps and program time stay
the replay trace's own.

Where no capture is among the inputs, the replay's result says which file
would give the work.
"""
from __future__ import annotations

import math
import stat
from dataclasses import replace
from pathlib import Path

import msgspec

from ...core import reasons as R
from ...core.errors import Advice, InputError
from ...core.import_result import ImportResult
from ..options import DEFAULT, ReadOptions
from . import decode
from .events import API_CATS, KERNEL_CATS, MEMCPY_CATS, MEMSET_CATS, OP_CATS, GpuEvents, Span, take_chunk
from .op_columns import OpEvents
from .result import kineto_result

_GPU_CATS = KERNEL_CATS | MEMCPY_CATS | MEMSET_CATS
SUBJECT = "graph capture"
WHERE_CAPTURES = ("vLLM writes it with --profiler-config.capture_torch_profiler to "
                  "<torch_profiler_dir>/capture_traces/, SGLang with --enable-profile-cuda-graph "
                  "(capture_traces/bs_<N>_rank<R>.json.gz); on ROCm its launch calls name their kernels, on "
                  "CUDA only Inductor's Triton launchers can be matched")


def join_captures(results: list, options: ReadOptions = DEFAULT) -> list:
    """``results`` with every Kineto replay trace (kernels replayed from a
    graph whose capture it lacks) read again with the capture traces among
    the other Kineto inputs, which are then left out (their work is in the
    replay's rows now); a replay with no capture among them says which
    file would give its kernels' work."""
    replays = [r for r in results if _replayed_share(r) > 0]
    if not replays:
        return results
    captures = [r for r in results if r.format == "kineto" and r not in replays
                and captured_launches(Path(r.path), options)]
    out = []
    for r in results:
        if r in captures:
            continue
        if r in replays:
            r = (read_with_captures(Path(r.path), [Path(c.path) for c in captures], options) if captures
                 else _with_note(r, _alone_note(r)))
        out.append(r)
    return out


def _replayed_share(r) -> float:
    """Share of a result's kernel time in rows replayed from a graph whose
    capture it lacks (0 for other formats)."""
    if getattr(r, "format", None) != "kineto" or not len(r.kernels):
        return 0.0
    ks = r.kernels
    time = [t if math.isfinite(t) else 0.0 for t in ks.time_s.tolist()]
    total = sum(time)
    replayed = sum(t for t, w in zip(time, ks.whys) if w == R.GRAPH_REPLAY)
    return replayed / total if total > 0 else 0.0


def _alone_note(r) -> Advice:
    return Advice(f"{_replayed_share(r):.1%} of kernel time was replayed from CUDA/HIP graphs whose capture "
                  "is in no input: those kernels stay without work",
                  "give the trace of the graphs' capture beside this one (two files, or one folder): "
                  + WHERE_CAPTURES, subject=SUBJECT)


def _with_note(r: ImportResult, note: Advice) -> ImportResult:
    return replace(r, warnings=tuple(r.warnings) + (note,))


def read_with_captures(replay: Path, captures: list[Path], options: ReadOptions = DEFAULT) -> ImportResult:
    """The replay trace's result, its replayed kernels joined to the
    captured launches of ``captures`` (module docstring)."""
    try:
        trace = _trace(replay, options)
        gpu, ops, span = GpuEvents(), OpEvents(), Span()
        first = 0
        for chunk in _chunks(trace):
            take_chunk(chunk, first, gpu, ops, span, replay)
            first += len(chunk)
        for k, path in enumerate(captures):
            chunk = _captured_events(path, k, options)
            take_chunk(chunk, first, gpu, ops, Span(), path)
            first += len(chunk)
        gpu.finish()
        result = kineto_result(trace, replay, gpu, ops, span.lo, span.hi)
    except InputError:
        raise
    except MemoryError:
        raise InputError(replay, None, "the traces do not fit in memory") from None
    except OSError as exc:
        raise InputError(replay, None, f"cannot read: {exc.strerror or exc}") from None
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError) as exc:
        raise InputError(replay, None, f"malformed Kineto trace ({type(exc).__name__}: {exc})") from None
    left = _replayed_share(result)
    names = ", ".join(p.name for p in captures)
    note = Advice(f"kernels replayed from CUDA/HIP graphs take the work of their captured launches in {names}"
                  + (f"; {left:.1%} of kernel time found no single capture of its kernel sequence and stays "
                     "without work" if left > 0 else ""),
                  "the capture files' own kernels (run while capturing) are not counted"
                  + ("; give only the capture of the batch size the replay ran (two captures with the same "
                     "kernels cannot be told apart)" if left > 0 else ""), subject=SUBJECT)
    return _with_note(result, note)


def captured_launches(path: Path, options: ReadOptions = DEFAULT) -> int:
    """How many launch calls of a trace name a kernel that did not run in
    it: a graph's captured launches (0 for a trace that is no capture)."""
    try:
        return sum(1 for e in _captured_events(path, 0, options) if _cat(e) in API_CATS)
    except (InputError, OSError, ValueError, TypeError, MemoryError):
        return 0


def _captured_events(path: Path, k: int, options: ReadOptions) -> list:
    """The capture's operators and its launch calls that ran nothing, on
    threads ``capture k: <tid>``, without External ids (they would link
    the other file's kernels), each call with a correlation id of its own
    and no duration (a capture's calls are not the replay's API time)."""
    trace = _trace(path, options)
    ran, ops, calls = set(), [], []
    for chunk in _chunks(trace):
        for e in chunk:
            cat = _cat(e)
            if e.ph != "X" or e.args is None and cat not in OP_CATS:
                continue
            if cat in _GPU_CATS:
                ran.add(_hashable(e.args.correlation))
            elif cat in OP_CATS:
                ops.append(e)
            elif cat in API_CATS and isinstance(e.args.kernel, str) and e.args.kernel:
                calls.append(e)
    prefix = f"capture {k}: "
    out = [msgspec.structs.replace(e, tid=prefix + str(e.tid), args=_no_ids(e.args)) for e in ops]
    out += [msgspec.structs.replace(e, tid=prefix + str(e.tid), dur=0.0,
                                    args=msgspec.structs.replace(_no_ids(e.args),
                                                                 correlation=prefix + str(e.args.correlation)))
            for e in calls if _hashable(e.args.correlation) not in ran]
    return out


def _no_ids(args):
    if args is None:
        return None
    return msgspec.structs.replace(args, external_id=None, external_id_2021=None)


def _hashable(x):
    return x if isinstance(x, (int, float, str)) or x is None else repr(x)


def _cat(e):
    cat = e.cat
    return cat.lower() if isinstance(cat, str) else None


def _trace(path: Path, options: ReadOptions):
    """The decoded trace of a file: whole when small and not gzip, else a
    chunk at a time (.stream)."""
    try:
        info = path.stat()
        with open(path, "rb") as fh:
            gz = fh.read(2) == decode.GZIP_MAGIC
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(path, None, "not a regular file: save the trace to a file first")
    if not (gz or info.st_size > (1 << 20)):
        return decode.load(path)
    from .stream import READ_BYTES, StreamedTrace, file_bytes
    chunk = options.chunk_bytes
    piece = None if chunk is None else min(chunk, READ_BYTES)

    def pieces():
        return file_bytes(path, piece)
    return StreamedTrace(pieces(), path, reread=pieces, chunk_bytes=chunk)


def _chunks(trace):
    chunks = getattr(trace, "event_chunks", None)
    return [trace.traceEvents or []] if chunks is None else chunks
