"""A big Kineto trace read by two processes: the ``traceEvents`` array cut
in two at an event boundary near the middle of the file, each half decoded
and turned into columns by one process, the second half's columns appended
to the first's.

Decoding and building the columns make a Python object per event, and
that is most of a big trace's reading time; two processes make them side
by side. The second process (a fork of this one, so nothing is imported
again) hands back columns, not events: a few arrays, lists and dicts,
pickled once into an in-memory file the parent maps (Linux's memfd;
elsewhere down the pipe). Everything summed in file order (API time, copy groups) is kept per
event until :meth:`.events.GpuEvents.finish` sums it, so the merged
columns give the same floats as one pass.

The cut is a ``}`` ``,`` ``{`` found by a byte search: the first half,
decoded up to it and closed with ``]``, and the second, decoded from it,
both prove it a boundary (inside a string or an event, one of them does
not decode). Whatever fails (no cut found, a half that does not decode, a
worker that dies, a launch configuration the halves cannot merge exactly)
makes :func:`read_in_halves` return None, and the file is read again in
one pass, which says what is wrong, if anything, as it always has. Only a
plain UTF-8 file is cut (gzip cannot be entered in the middle).
"""
from __future__ import annotations

import itertools
import mmap
import multiprocessing
import os
import pickle
import re
from array import array
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from .columns import distinct, int_column
from .decode import GZIP_MAGIC, UTF8_BOM, UTF16_BOMS
from .events import GpuEvents, Span, take_chunk
from .op_columns import OpEvents, add_floats
from .stream import READ_BYTES, StreamedTrace, EventArray, read_into

# Below this a second process costs more than it saves (a fork and a pickle
# of the columns against about a second of decoding).
PARALLEL_ABOVE_BYTES = 32 << 20
# The idle share of a core (cores less the 1-minute load average) the worker
# needs: with half a core it still finishes its half about when this
# process finishes the first.
FREE_CORE = 0.5
SPLIT_WINDOW = 1 << 20           # where a cut is looked for, from the middle of the file
_BOUNDARY = re.compile(rb"\}[ \t\r\n]*,[ \t\r\n]*\{")
_MISSING = object()


class NoMerge(Exception):
    """The halves cannot be merged into what one pass gives."""


def two_cores() -> bool:
    """Whether a second core is free for a worker: this process may run on
    two or more, and the load average leaves :data:`FREE_CORE` idle. On a machine whose
    other cores are busy the worker only shares this one, and its cost
    (a fork, pickling the columns, merging them: about a fifth more CPU
    time) is all that is left."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:                 # not Linux
        cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):      # no load average (Windows): trust the count
        busy = 0.0
    return cores >= 2 and cores - busy >= FREE_CORE


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


# how often progress is told (bytes): a call per piece read would cost more than it shows
PROGRESS_STEP = 16 << 20


def reported(pieces, progress, total: int | None, scale: float = 1.0):
    """``pieces``, telling ``progress(done, total)`` every
    :data:`PROGRESS_STEP` bytes and at the end (``done``: the bytes passed
    on, times ``scale``)."""
    done = told = 0
    for piece in pieces:
        done += len(piece)
        if done - told >= PROGRESS_STEP:
            told = done
            progress(_scaled(done, scale, total), total)
        yield piece
    progress(_scaled(done, scale, total), total)


def _scaled(done: int, scale: float, total: int | None) -> int:
    n = int(done * scale)
    return n if total is None else min(n, total)


def read_in_halves(path: Path, chunk_bytes: int | None, piece_bytes: int | None, progress=None,
                   scanner=None):
    """(trace, GPU columns, operator columns, span) of the file read by two
    processes, or None where it cannot be (then read it in one pass).
    ``progress(done, total)``: told how far the first half is, as a share
    of the file (the worker reads the second at the same pace)."""
    piece = READ_BYTES if piece_bytes is None else piece_bytes
    path = Path(path)
    try:
        cut = _cut(path)
        if cut is None:
            return None
        comma, closing = cut
        return _read(path, comma, closing, chunk_bytes, piece, progress, scanner)
    except Exception:     # any failure: the one-pass reader says what is wrong, as it always has
        return None


def _cut(path: Path) -> tuple[int, bytes] | None:
    """(the file offset of a comma between two events near the middle of
    the file, the bytes that close the first half's JSON there), or None."""
    with open(path, "rb") as f:
        head = f.read(4096)
        size = os.fstat(f.fileno()).st_size
        if head[:2] == GZIP_MAGIC or head.startswith(UTF16_BOMS) or (head and b"\0" in head[:64]):
            return None
        start = head.removeprefix(UTF8_BOM).lstrip()
        if not start[:1] in (b"{", b"["):
            return None
        middle = size // 2
        f.seek(middle)
        window = f.read(SPLIT_WINDOW)
    m = _BOUNDARY.search(window)
    if m is None:
        return None
    closing = b"]}" if start[:1] == b"{" else b"]"
    return middle + window.index(b",", m.start()), closing


def _range(path: Path, start: int, stop: int | None, piece: int):
    """The file's bytes from ``start`` to ``stop`` (None: its end), in pieces."""
    with open(path, "rb") as f:
        f.seek(start)
        yield from read_into(f, piece, -1 if stop is None else stop - start)


def _read(path: Path, comma: int, closing: bytes, chunk_bytes: int | None, piece: int, progress, scanner):
    def first_half():
        return itertools.chain(_range(path, 0, comma, piece), (closing,))

    size = path.stat().st_size
    pieces = first_half() if progress is None else reported(first_half(), progress, size, size / max(comma, 1))
    trace = StreamedTrace(pieces, path, reread=first_half, chunk_bytes=chunk_bytes,
                          scanner=None if scanner is None else scanner())
    gpu, ops, span = GpuEvents(), OpEvents(), Span()
    chunks = iter(trace.event_chunks)
    first = 0
    for chunk in chunks:              # until the first timed event: the second half's times count from it
        take_chunk(chunk, first, gpu, ops, span, path)
        first += len(chunk)
        if span.t0 is not None:
            break
    else:
        return None
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    shared = _handoff_file()
    worker = context.Process(target=_second_half, daemon=True,
                             args=(send, path, comma, chunk_bytes, span.t0, piece, scanner, shared))
    worker.start()
    send.close()
    try:
        for chunk in chunks:
            take_chunk(chunk, first, gpu, ops, span, path)
            first += len(chunk)
        del chunk
        part = _unpickled(receive.recv_bytes(), shared)
    finally:
        receive.close()
        if shared is not None:
            os.close(shared)
        if worker.is_alive():
            worker.kill()
        worker.join()
    if part is None:
        return None
    other_gpu, other_ops, lo, hi, tail, base = part
    del part
    _from_codes(other_gpu, other_ops)
    trace.metadata(trace.head, SimpleNamespace(tail=tail, line0=0, base=base))
    merge(gpu, ops, other_gpu, other_ops)
    span.lo, span.hi = min(span.lo, lo), max(span.hi, hi)
    return trace, gpu, ops, span


def _second_half(send, path: Path, comma: int, chunk_bytes: int | None, t0: float, piece: int,
                 scanner, shared: int | None = None) -> None:
    """In the worker: the columns of the events after ``comma``, pickled
    into ``shared`` (:func:`_handoff_file`; where None, down ``send``),
    None where anything fails."""
    try:
        array = EventArray(b"", _range(path, comma + 1, None, piece), 0, comma + 1, path,
                            lambda base: 0, chunk_bytes, None if scanner is None else scanner())
        gpu, ops, span = GpuEvents(), OpEvents(), Span()
        span.t0 = t0
        first = 0
        for chunk in array.chunks():
            take_chunk(chunk, first, gpu, ops, span, path)
            first += len(chunk)
        # a launch's first raw fields hold msgspec.Raw (not picklable): the
        # merge needs only whether it had any
        gpu.launch_first = {name: raw is not None for name, raw in gpu.launch_first.items()}
        _as_arrays(gpu, _FLOATS)
        _as_arrays(ops, _OP_FLOATS)
        _as_codes(gpu, ops)
        data = pickle.dumps((gpu, ops, span.lo, span.hi, array.tail, array.base), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:         # the parent reads the file in one pass and says what is wrong
        data = pickle.dumps(None)
    if shared is not None and len(data) > len(_IN_FILE) + 8:
        with open(shared, "wb", closefd=False) as f:
            f.write(data)
        data = _IN_FILE + len(data).to_bytes(8, "little")
    send.send_bytes(data)
    send.close()


# The worker's columns (100 MB at 1.7 GB of trace) cross in an anonymous
# in-memory file the parent maps: down the pipe they took 0.25 s, 64 KB a
# switch between the processes, and two more copies on the way in.
_IN_FILE = b"roofline: in the shared file, bytes: "     # (a pickle starts with 0x80)


def _handoff_file() -> int | None:
    """An anonymous in-memory file for the worker's columns (Linux), else None."""
    try:
        return os.memfd_create("roofline-half", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        return None


def _unpickled(message: bytes, shared: int | None):
    """What the worker sent: its pickle, or where it names ``shared``, the
    pickle in that file (read in place)."""
    if shared is None or not message.startswith(_IN_FILE):
        return pickle.loads(message)
    size = int.from_bytes(message[len(_IN_FILE):], "little")
    with mmap.mmap(shared, size, access=mmap.ACCESS_READ) as mapped:
        return pickle.loads(mapped)


# Columns of floats cross as numpy buffers (a pickled float is an object to
# make again; tolist() makes them several times faster)
_FLOATS = ("kernel_dur", "kernel_ts", "starts", "ends", "api_ts")   # (api_dur: arrays already)
_OP_FLOATS = ("ts", "dur")      # not torch_flops: an integer count stays one


def _as_arrays(columns, names: tuple) -> None:
    for name in names:
        setattr(columns, name, np.array(getattr(columns, name), dtype=float))


# Columns whose values repeat (threads; torch's FLOP counts, NaN where none):
# pickle memoizes no int or float, so each row would come back its own
# object (30 MB of 1M rows); they cross as codes and their distinct values.
_REPEATED = (("gpu", "api_tid"), ("ops", "thread"), ("ops", "torch_flops"))


def _as_codes(gpu: GpuEvents, ops: OpEvents) -> None:
    """The _REPEATED columns as (codes, distinct values), in the worker."""
    for columns, name in _repeated(gpu, ops):
        values = getattr(columns, name)
        try:
            first, code = distinct(values, len(values))
        except TypeError:                                # an unhashable value: the list crosses as it is
            continue
        setattr(columns, name, (code, [values[i] for i in first.tolist()]))


def _from_codes(gpu: GpuEvents, ops: OpEvents) -> None:
    """The _REPEATED columns back as lists, each distinct value one object."""
    for columns, name in _repeated(gpu, ops):
        values = getattr(columns, name)
        if isinstance(values, tuple):
            code, distinct_values = values
            table = np.empty(len(distinct_values), dtype=object)
            for i, v in enumerate(distinct_values):      # one by one: a tuple value is one object
                table[i] = v
            setattr(columns, name, table[code].tolist())


def _repeated(gpu: GpuEvents, ops: OpEvents):
    return [(gpu if owner == "gpu" else ops, name) for owner, name in _REPEATED]


def _extend(columns, later, name: str) -> None:
    """``columns.name += later.name`` (a list, or an array of floats), the
    later half's column freed as it goes."""
    values, column = getattr(later, name), getattr(columns, name)
    if isinstance(column, array):
        add_floats(column, values)
    else:
        column.extend(values.tolist() if isinstance(values, np.ndarray) else values)
    setattr(later, name, None)


_LISTS = ("kernel_dur", "kernel_ext", "kernel_corr", "kernel_ts", "starts", "ends",
          "api_corr", "api_tid", "api_ts", "api_ext_col", "api_names", "api_dur", "copy_events")
_OP_LISTS = ("names", "ts", "dur", "thread", "external_id", "torch_flops", "backward")


def merge(gpu: GpuEvents, ops: OpEvents, later: GpuEvents, later_ops: OpEvents) -> None:
    """Append the columns of the events after the cut (``later``,
    ``later_ops``) to those before it, as if one pass had read them."""
    kernels, calls, n_ops = len(gpu.kernel_names), len(gpu.api_corr), len(ops)
    _merge_launch(gpu, later)
    # one string object per kernel name, this process's
    gpu.kernel_names += list(map(gpu.name_ids.setdefault, later.kernel_names, later.kernel_names))
    for name in _LISTS:
        _extend(gpu, later, name)
    for name, ranges in later.ranges.items():
        gpu.ranges.setdefault(name, []).extend(ranges)
    gpu.api_sizes.update(later.api_sizes)
    gpu.api_graph.update(row + calls for row in later.api_graph)
    gpu.api_kernel.update((row + calls, k) for row, k in later.api_kernel.items())
    for cat, n in later.other_categories.items():
        gpu.other_categories[cat] = gpu.other_categories.get(cat, 0) + n
    for device, t in later.device_time.items():     # summed per chunk: chunks are cut anywhere anyway
        gpu.device_time[device] = gpu.device_time.get(device, 0.0) + t
    ex, lx = gpu.extras, later.extras
    ex.op_comm.update((o + n_ops, c) for o, c in lx.op_comm.items())
    ex.op_counts.update((o + n_ops, c) for o, c in lx.op_counts.items())
    ex.kernel_comm.update((k + kernels, c) for k, c in lx.kernel_comm.items())
    for name in ("ann_names", "ann_ts", "ann_dur", "ann_tid", "ann_shapes"):
        getattr(ex, name).extend(getattr(lx, name))
    _merge_ops(ops, later_ops)


def _merge_launch(gpu: GpuEvents, later: GpuEvents) -> None:
    """The launch configuration each name's launches agree on, over both
    halves: a key stays where the later half's launches all agree with the
    value the earlier half kept (events.py compares every launch with the
    name's first one)."""
    for name, agreed in later.launch.items():
        known = gpu.launch.get(name)
        if known is None:
            gpu.launch[name] = agreed
            gpu.launch_first[name] = later.launch_first[name]
            continue
        if not known:
            continue
        if not later.launch_first[name]:   # its first launch had no args: what it kept says nothing
            raise NoMerge(name)
        for key in [k for k, v in known.items() if agreed.get(k, _MISSING) != v]:
            del known[key]


def _merge_ops(ops: OpEvents, later: OpEvents) -> None:
    remap = []
    for key in later.calls:             # the later half's distinct calls, numbered as one pass numbers them
        call = ops._call_ids.get(key)
        if call is None:
            call = ops._call_ids[key] = len(ops.calls)
            ops.calls.append(key)
        remap.append(call)
    table = np.array(remap + [-1], dtype=np.int64)      # -1 (no shapes) stays -1
    ops.call += table[int_column(later.call)]
    later.call = None
    for name in _OP_LISTS:
        _extend(ops, later, name)
    ann, later_ann = ops.annotations, later.annotations
    ann.extend(later_ann.names, later_ann.ts, later_ann.dur, later_ann.thread)
