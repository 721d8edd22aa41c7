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
  their work comes from the operator models (:mod:`roofline.ops`; nesting
  in :mod:`.operators`, attribution in :mod:`.attribution`). On a GPU
  trace an operator's work goes to the kernels it launched (``External id`` on the kernel, or the
  runtime launch with the kernel's ``correlation``), split by kernel time
  when it launched several; kernel rows are then one per (kernel name,
  operator). Counters, where a kernel has them, win over the model. A trace
  with operators and no GPU activity is a CPU trace: each operator is a
  kernel, its self time its time; a compiled graph's self time there is
  Inductor's C++ kernels, unsized work (:mod:`.compiled`).

The reader is a pipeline, one module per stage, each importing only the
modules drawn before it in docs/architecture.md ("The PyTorch reader",
held by tests/test_kineto_stages.py): :mod:`.decode` (bytes -> typed
events; :mod:`.stream` for files larger than memory, and every gzip file,
with :mod:`.scan` to find the top-level keys and where events end; in a
big trace :mod:`.jsonscan`, compiled, reads the chunks of kernels, operators
and runtime calls into arrays, with :mod:`.jsongrammar`, :mod:`.jsonvalues`,
:mod:`.spancodes` and :mod:`.scanfields` (numba and their cached code loaded by
:mod:`.numba_load`), and :mod:`.scanned` makes their columns; :mod:`.counts`
checks counters and byte counts) ->
:mod:`.events` (events -> columns: GPU activity, and the operator columns
of :mod:`.op_columns`; :mod:`.halves` runs this stage and the decoding in
two processes for a big plain file, one half of its events each, and
merges their columns) -> :mod:`.nesting` (each operator's parent, self
time and depth, computed once; by :mod:`.nestwalk`'s compiled walk where
numba is loaded) and :mod:`.operators` (modelled work) ->
:mod:`.attribution` (operator work -> the kernels it launched, handed on
as an ``Attribution`` record; on a CPU trace :mod:`.cpu_rows`, every
operator a row, each with its dtype from :mod:`.dtypes`) -> :mod:`.phases`
(the step split) and :mod:`.result` (the import result). This module runs
it. Beside the stages: :mod:`.extras` (the events' collective and Inductor
fields), :mod:`.replay` (kernels replayed from a CUDA/HIP graph; :mod:`.capture` reads a replay trace with its graphs' capture trace),
:mod:`.geometry`, :mod:`.layout`, :mod:`.serving` and :mod:`.step_lengths`
(calls settled from their neighbours: convolution geometry, layout copies,
fused MoE routing, attention sized by its serving step's sequence lengths),
:mod:`.why` (why a row got no work), :mod:`.notes` (what the models
assumed), :mod:`.comms` (collectives and their sizes), :mod:`.overlap`
(exposed communication) and :mod:`.columns` (column codes, id columns,
orders of nearly sorted times).
"""
from __future__ import annotations

import ctypes
import stat
import sys
import zlib
from pathlib import Path

import msgspec

from ..options import DEFAULT, ReadOptions
from ...core.errors import InputError
from ...core.import_result import ImportResult
from ..base import Reader, register
from . import decode
from .comms import CollectiveFieldError
from .events import GpuEvents, Span, take_chunk
from .counts import flops_from_counters  # noqa: F401  (part of the reader's API)
from .events import decoded_launch  # noqa: F401  (part of the reader's API)
from .halves import PARALLEL_ABOVE_BYTES, can_fork, read_in_halves, reported, two_cores
from .op_columns import OpEvents
from .result import copy_levels  # noqa: F401  (part of the reader's API)
from .result import kineto_result


def _is_gzip(head: bytes) -> bool:
    return head[:2] == b"\x1f\x8b"


def sniff(path: Path, head: bytes) -> bool:
    if _is_gzip(head):
        text = _inflated_head(head)
    else:
        text = head
    text = text.removeprefix(decode.UTF8_BOM).lstrip()
    if not text.startswith((b"{", b"[")):
        return False
    if b'"traceEvents"' in text or (b'"schemaVersion"' in text and b'"deviceProperties"' in text):
        return True
    return text.startswith(b"[") and b'"ph"' in text and b'"ts"' in text


# how far past the head a JSON object is searched for a top-level
# traceEvents key (the chunked reader refuses more top-level data than this)
FURTHER_BYTES = 32 << 20


def sniff_further(path: Path, head: bytes) -> bool:
    """A JSON object whose top-level ``traceEvents`` key comes after the
    head (long metadata first, or the key spelt with ``\\u`` escapes): its
    first 32 MiB scanned for the key at the top level."""
    text = (_inflated_head(head) if _is_gzip(head) else head).removeprefix(decode.UTF8_BOM).lstrip()
    if not text.startswith(b"{"):
        return False
    from .scan import top_level_keys
    from .stream import file_bytes
    buf = bytearray()
    try:
        for piece in file_bytes(path):
            buf += piece
            if len(buf) >= FURTHER_BYTES:
                break
    except (OSError, InputError, zlib.error):
        return False
    return bool(top_level_keys(bytes(buf[:FURTHER_BYTES]).removeprefix(decode.UTF8_BOM), "traceEvents"))


def _inflated_head(head: bytes) -> bytes:
    """What the gzip bytes of a file's head inflate to, a bad checksum
    aside (read reports that, where it is not taken for another format)."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        text = inflate.decompress(head[:-8], 65536)   # all but a trailer: its CRC is checked last
    except zlib.error:
        return b""
    if len(text) < 65536:
        try:
            text += inflate.decompress(inflate.unconsumed_tail + head[-8:], 65536 - len(text))
        except zlib.error:
            pass
    return text


# Files above this size are decoded a chunk at a time (.stream), so a
# trace larger than memory still reads, and faster (chunks stay in cache);
# smaller ones are decoded whole. Every gzip file is read in chunks: its
# size on disk says nothing of its size inflated.
STREAM_ABOVE_BYTES = 1 << 20


def read(path: str | Path, options: ReadOptions = DEFAULT) -> ImportResult:
    path = Path(path)
    try:
        info = path.stat()
        with open(path, "rb") as fh:
            gz = _is_gzip(fh.read(2))
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(path, None, "not a regular file: save the trace to a file first")
    stream = options.stream if options.stream is not None else (info.st_size > STREAM_ABOVE_BYTES or gz)
    if stream:
        from .stream import READ_BYTES, SCANNED_READ_BYTES, StreamedTrace, file_bytes
        chunk = options.chunk_bytes
        scanner = _scanner(options, info.st_size, gz)
        piece = None if chunk is None else min(chunk, READ_BYTES)   # a piece is at most a chunk
        if chunk is None and scanner is not None:
            piece = SCANNED_READ_BYTES

        def pieces():
            return file_bytes(path, piece)
        halves = None
        if _two_processes(options, info.st_size, gz):
            def halves():
                return read_in_halves(path, chunk, piece, options.progress, scanner)
        first = pieces() if options.progress is None else reported(pieces(), options.progress,
                                                                   None if gz else info.st_size)
        trace = StreamedTrace(first, path, reread=pieces, chunk_bytes=chunk,
                              scanner=None if scanner is None else scanner())
        return _checked(trace, path, halves)
    return _checked(decode.load(path), path)


# Above this a trace's events are scanned into columns (.scanned); below,
# loading the compiled scanner (numba, its cache) costs more than it saves.
# A gzip file's size is what it holds, compressed about tenfold.
SCAN_ABOVE_BYTES = 32 << 20
SCAN_ABOVE_GZIP_BYTES = 4 << 20


def _scanner(options: ReadOptions, size: int, gz: bool):
    """What makes a scanner for each pass over the events (None: msgspec decodes them all)."""
    engine = options.kineto_engine
    if engine == "msgspec" or (engine == "auto" and size <= (SCAN_ABOVE_GZIP_BYTES if gz else SCAN_ABOVE_BYTES)):
        return None
    if sys.byteorder != "little":        # the scanner reads eight bytes a word as a little-endian machine does
        return None
    from .numba_load import load_target
    load_target(options.quick_numba_load)
    from .scanned import Scanner
    return Scanner


def _two_processes(options: ReadOptions, size: int, gz: bool) -> bool:
    """Whether to read the trace in two processes (.halves)."""
    if gz or options.workers == 1 or not can_fork():
        return False
    return options.workers == 2 or (size > PARALLEL_ABOVE_BYTES and two_cores())


def parse(data, path: str | Path = "<kineto trace>") -> ImportResult:
    """A decoded Chrome trace (dict or event list) -> kernels (encoded back
    to JSON first: the reader keeps operator arguments as raw JSON)."""
    path = Path(str(path))
    try:
        raw = msgspec.json.encode(data)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InputError(path, None, f"not JSON data: {exc}") from None
    return _checked(decode.decode(raw, path), path)


def _checked(trace, path: Path, halves=None) -> ImportResult:
    """The import result of ``trace`` (its times and counts checked when it
    is made, as every reader's are), any failure as one InputError.
    ``halves``: reads the trace in two processes (None where it cannot:
    then ``trace`` is read in one pass)."""
    try:
        with decode.no_gc():
            parsed = None if halves is None else halves()
            if parsed is not None:
                trace, gpu, ops, span = parsed
                gpu.finish()
                _return_freed_memory()
                return kineto_result(trace, path, gpu, ops, span.lo, span.hi)
            return _parse(trace, path)
    except InputError:
        raise
    except CollectiveFieldError as exc:
        raise InputError(path, None, str(exc)) from None
    except MemoryError:
        raise InputError(path, None, "the trace does not fit in memory") from None
    except RecursionError:              # the chunked path's decodes (decode.decode says it for the rest)
        raise InputError(path, None, decode.NESTED_TOO_DEEP) from None
    except OSError as exc:                 # a read failing half-way (the chunked reader reads as it goes)
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError) as exc:
        raise InputError(path, None, f"malformed Kineto trace ({type(exc).__name__}: {exc})") from None


def _parse(trace, path: Path) -> ImportResult:
    gpu = GpuEvents()
    ops = OpEvents()
    span = Span()
    first = 0
    for chunk in _event_chunks(trace):
        take_chunk(chunk, first, gpu, ops, span, path)
        first += len(chunk)
    gpu.finish()
    _return_freed_memory()
    return kineto_result(trace, path, gpu, ops, span.lo, span.hi)


def _return_freed_memory() -> None:
    """Hand the heap the read has freed (its chunks' buffers, a half's
    pickle) back to the system before the result stage allocates its
    own: glibc keeps it otherwise, 50 MB of a 0.5 GB trace's peak (#36).
    Elsewhere (not Linux, or a C library without malloc_trim): nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _event_chunks(trace):
    """The trace's events in lists: one per chunk when streamed."""
    chunks = getattr(trace, "event_chunks", None)
    return [trace.traceEvents] if chunks is None else chunks


register(Reader("kineto", sniff, read, sniff_further))

__all__ = ["copy_levels", "decoded_launch", "flops_from_counters", "parse", "read", "sniff"]
