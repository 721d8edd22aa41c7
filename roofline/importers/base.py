"""What every reader returns, and the registry that picks a reader by content."""
from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

from ..core.errors import Advice, InputError
from ..core.model import Kernel, KernelRows, KernelSet
from ..core.text_files import head_problem, read_head


@dataclass(frozen=True)
class ProgramTime:
    """Program-level time outside kernels, from summaries and timelines.

    ``api_s`` maps host API call name -> total seconds; ``gpu_busy_s`` is the
    union of GPU activity, ``span_s`` the wall span of the timeline (or None
    where the file has no timeline), so idle = span - busy.
    """

    api_s: dict[str, float] = field(default_factory=dict)
    gpu_busy_s: float | None = None
    span_s: float | None = None

    @property
    def api_total_s(self) -> float:
        return float(sum(self.api_s.values()))

    @property
    def idle_s(self) -> float | None:
        if self.span_s is None or self.gpu_busy_s is None:
            return None
        return max(self.span_s - self.gpu_busy_s, 0.0)


@dataclass(frozen=True)
class ImportResult:
    """Kernels read from one file, and what else the file said.

    What the file says about its device, for choosing a profile when the
    user names none (:func:`roofline.devices.choice.device_for`):
    ``device_name`` is the GPU's name as the tool wrote it ("Tesla
    V100-SXM2-16GB"), ``compute_capability`` its "major.minor" when the file
    gives it, and ``device_kind`` "cpu" when the kernels ran on the host
    (a PyTorch CPU trace), "gpu" when on a GPU, None when the file does not
    say. ``device_properties`` holds what else the file says about that
    device, for GPUs whose name tells nothing (ROCm calls an MI250 GCD
    "AMD Radeon Graphics"): ``sms`` (SMs or compute units), ``warp_size``,
    ``capability`` ("major.minor" as the runtime gives it: CUDA's compute
    capability, AMD's GFX IP version) and ``memory_bytes``, each only when
    given.
    """

    path: str
    format: str
    kernels: tuple[Kernel, ...]
    device_name: str | None = None
    program: ProgramTime | None = None
    warnings: tuple[Advice, ...] = ()
    rank: int | None = None          # the process rank of a multi-GPU job's trace
    compute_capability: str | None = None
    device_kind: str | None = None
    device_properties: Mapping[str, object] | None = None
    # time per (kernel row, step, phase) where the file marks a training step
    # (roofline.importers.kineto.phases.PhaseTable); None where it cannot
    phases: object = None


@dataclass(frozen=True)
class Reader:
    """One file flavour: ``sniff(path, head)`` says whether it is ours from
    the first bytes, ``read(path)`` parses it or raises InputError."""

    name: str
    sniff: Callable[[Path, bytes], bool]
    read: Callable[[Path], ImportResult]
    # asked only when no reader's sniff took the file: may read past the
    # head (a trace whose traceEvents key comes after 64 KiB of metadata)
    sniff_further: Callable[[Path, bytes], bool] | None = None


_READERS: list[Reader] = []


def register(reader: Reader) -> Reader:
    _READERS.append(reader)
    return reader


def readers() -> tuple[Reader, ...]:
    return tuple(_READERS)


def detect(path: Path) -> Reader:
    """The reader whose sniff accepts the file's first bytes (decompressed
    and decoded as :func:`read_head` says). Every reader is reached through
    here, so what is no regular file (a FIFO or pipe, which the sniff would
    consume or block on) is refused here, before it is opened."""
    head = read_head(path)
    for reader in _READERS:
        if reader.sniff(path, head):
            return reader
    for reader in _READERS:
        if reader.sniff_further is not None and reader.sniff_further(path, head):
            return reader
    problem = head_problem(path)    # empty, or text no reader can take: say so, not "unrecognised"
    if problem:
        raise InputError(path, None, problem)
    names = ", ".join(r.name for r in _READERS)
    raise InputError(path, None, f"unrecognised profile format (supported: {names})")


# A kernel (or program) time longer than this is no measurement: it is an
# overflowed or wrapped-around counter (2^64 ns is 584 years) or a damaged
# file. A year is far beyond any profiling session.
MAX_TIME_S = 365 * 24 * 3600.0
# Counts are whole numbers a float holds exactly; beyond that they are
# damaged cells (1e20 became -9223372036854775808 in an int64 column).
MAX_COUNT = 2 ** 53

# results already checked, by identity: readers that check their own are not checked twice
_CHECKED: weakref.WeakValueDictionary[int, ImportResult] = weakref.WeakValueDictionary()


def checked(result: ImportResult) -> ImportResult:
    """``result`` when every quantity in it is a measurement, else an
    InputError naming the first bad kernel and the quantity: times must be
    finite, not negative and under :data:`MAX_TIME_S` (NaN means "no time");
    counts whole numbers from 0 to :data:`MAX_COUNT`; FLOP, bytes,
    transactions and instructions finite and not negative (a counter times
    invocations that overflows to infinity is refused here). Columns
    (:class:`KernelRows`) are checked as arrays, no Kernel built; a result
    is checked once however many times it is passed."""
    if _CHECKED.get(id(result)) is result:
        return result
    if isinstance(result.kernels, KernelRows):
        _check_columns(result.path, result.kernels.columns)
    else:
        for k in result.kernels:
            _check_kernel(result.path, k)
    _check_program(result.path, result.program)
    _CHECKED[id(result)] = result
    return result


def _check_kernel(path: str, k: Kernel) -> None:
    t = k.time_s
    if not math.isnan(t) and not 0.0 <= t <= MAX_TIME_S:
        raise InputError(path, None, _bad_time(k.name, t))
    c = k.count
    if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) \
            or not (0 <= c <= MAX_COUNT and float(c).is_integer()):
        raise InputError(path, None, _bad_count(k.name, c))
    for what, values in (("FLOP", k.flops), ("bytes", k.bytes), ("transactions", k.transactions),
                         ("instructions", {"": k.instructions})):
        for key, v in values.items():
            if v is not None and not 0.0 <= v < math.inf:
                raise InputError(path, None, _bad_counter(k.name, key, what, v))


def _check_columns(path: str, ks: KernelSet) -> None:
    """The checks of :func:`_check_kernel` on whole columns, naming the first
    bad kernel; NaN in a counter column means "no such counter" there, as in
    :meth:`KernelSet.kernels`."""
    with np.errstate(invalid="ignore"):
        for values, ok, message in _column_rules(ks):
            bad = np.flatnonzero(~ok(values))
            if bad.size:
                i = int(bad[0])
                raise InputError(path, None, message(ks.names[i], float(values[i])))


def _column_rules(ks: KernelSet):
    """(column, what its good values are, the message for a bad one)."""
    yield ks.time_s, lambda v: np.isnan(v) | ((v >= 0) & (v <= MAX_TIME_S)), _bad_time
    yield ks.count, lambda v: _whole(v, 0), _bad_count
    yield ks.threads, lambda v: np.isnan(v) | _whole(v, 1), _bad_threads
    for what, columns in (("FLOP", ks.flops), ("bytes", ks.bytes), ("transactions", ks.transactions),
                          ("instructions", {} if ks.instructions is None else {"": ks.instructions})):
        for key, column in columns.items():
            yield (column, lambda v: np.isnan(v) | ((v >= 0) & (v < math.inf)),
                   lambda name, v, key=key, what=what: _bad_counter(name, key, what, v))


def _whole(v: np.ndarray, low: int) -> np.ndarray:
    return (v >= low) & (v <= MAX_COUNT) & (np.floor(v) == v)


def _bad_threads(name, n: float) -> str:
    return f"kernel {_short(str(name))}: {n!r} threads: expected a whole number >= 1"


def _bad_time(name, t: float) -> str:
    return (f"kernel {_short(str(name))}: time {t!r} s is {'negative' if t < 0 else 'beyond a year'}: "
            "not a measurement (an overflowed or damaged duration)")


def _bad_count(name, c) -> str:
    return (f"kernel {_short(str(name))}: count {c!r} is not a whole number from 0 to 2**53 "
            "(a damaged or overflowed cell)")


def _bad_counter(name, key: str, what: str, v: float) -> str:
    return (f"kernel {_short(str(name))}: {key + ' ' if key else ''}{what} = {v!r}: "
            "a counter overflowed or is damaged")


def _check_program(path: str, p: ProgramTime | None) -> None:
    if p is None:
        return
    for what, v in [(f"host API {name!r}", s) for name, s in p.api_s.items()] + \
            [("GPU busy time", p.gpu_busy_s), ("timeline span", p.span_s)]:
        if v is not None and not 0.0 <= v <= MAX_TIME_S:
            raise InputError(path, None, f"{_short(what)}: {v!r} s is not a measurement "
                             "(negative, infinite or beyond a year)")


def _short(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit - 1] + "…")
