"""What every reader returns: the one type between the importers and the
rest of the package.

An :class:`ImportResult` holds its kernels as columns (a
:class:`~roofline.core.model.KernelSet`, however the reader built them),
what the file says of its device (:class:`DeviceClues`), the program's time
outside kernels (:class:`ProgramTime`) and the reader's advice. It is
validated once, when it is made: every time, count and counter must be a
measurement (:data:`MAX_TIME_S`, :data:`MAX_COUNT`), else an InputError
names the file, the first bad kernel and the quantity. So no reader checks
its own result and no caller checks one again.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from .errors import Advice, InputError
from .model import Kernel, KernelSet

# A kernel (or program) time longer than this is no measurement: it is an
# overflowed or wrapped-around counter (2^64 ns is 584 years) or a damaged
# file. A year is far beyond any profiling session.
MAX_TIME_S = 365 * 24 * 3600.0
# Counts are whole numbers a float holds exactly; beyond that they are
# damaged cells (1e20 became -9223372036854775808 in an int64 column).
MAX_COUNT = 2 ** 53


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
class DeviceClues:
    """What a file says about the device its kernels ran on, for choosing a
    profile when the user names none (:func:`roofline.devices.choice.device_for`).

    ``name`` is the GPU's name as the tool wrote it ("Tesla V100-SXM2-16GB");
    ``capability`` its "major.minor" compute capability when the file gives
    it; ``kind`` "cpu" when the kernels ran on the host (a PyTorch CPU
    trace), "gpu" when on a GPU, None when the file does not say.
    ``properties`` holds what else the file says, for GPUs whose name tells
    nothing (ROCm calls an MI250 GCD "AMD Radeon Graphics"): ``sms`` (SMs or
    compute units), ``warp_size``, ``capability`` ("major.minor" as the
    runtime gives it: CUDA's compute capability, AMD's GFX IP version) and
    ``memory_bytes``, each only when given.
    """

    name: str | None = None
    capability: str | None = None
    kind: str | None = None
    properties: Mapping[str, object] | None = None


NO_CLUES = DeviceClues()


@dataclass(frozen=True)
class ImportResult:
    """Kernels read from one file, and what else the file said.

    ``kernels`` may be given as Kernel objects (small readers build those);
    they are kept as a KernelSet. ``rank`` is the process rank of a
    multi-GPU job's trace; ``phases`` the time per (kernel row, step, phase)
    where the file marks training steps
    (:class:`roofline.importers.kineto.phases.PhaseTable`);
    ``communication`` the trace's collective launches
    (:class:`roofline.core.comm.CommLaunches`), None without any.
    """

    path: str
    format: str
    kernels: KernelSet
    device: DeviceClues = NO_CLUES
    program: ProgramTime | None = None
    warnings: tuple[Advice, ...] = ()
    rank: int | None = None
    phases: object = None
    communication: object = None

    def __post_init__(self):
        kernels = self.kernels
        if not isinstance(kernels, KernelSet):
            kernels = tuple(kernels)
            for k in kernels:
                _check_kernel(self.path, k)
            object.__setattr__(self, "kernels", KernelSet.from_kernels(kernels))
        else:
            _check_columns(self.path, kernels)
        _check_program(self.path, self.program)
        object.__setattr__(self, "warnings", tuple(self.warnings))


def _check_kernel(path: str, k: Kernel) -> None:
    """The rules of :func:`_check_columns` on one Kernel object, where a
    NaN counter is a damaged value, not an absent one (an absent counter
    has no key), and a count may be no number at all."""
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
    """Times finite, not negative and under :data:`MAX_TIME_S` (NaN means
    "no time"); counts whole numbers from 0 to :data:`MAX_COUNT`; FLOP,
    bytes, transactions and instructions finite and not negative (NaN in a
    counter column means "no such counter" there). The first bad kernel is
    named."""
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


def all_kernels(results) -> KernelSet:
    """The kernels of several results as one KernelSet, in order (the set
    itself where there is one)."""
    from .aggregate import concat
    sets = [r.kernels for r in results if len(r.kernels)]
    if len(sets) == 1:
        return sets[0]
    return concat(sets) if sets else KernelSet([], [])
