"""What every reader returns, and the registry that picks a reader by content."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from ..core.errors import Advice, InputError
from ..core.model import Kernel
from ..core.text_files import read_head


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


@dataclass(frozen=True)
class Reader:
    """One file flavour: ``sniff(path, head)`` says whether it is ours from
    the first bytes, ``read(path)`` parses it or raises InputError."""

    name: str
    sniff: Callable[[Path, bytes], bool]
    read: Callable[[Path], ImportResult]


_READERS: list[Reader] = []


def register(reader: Reader) -> Reader:
    _READERS.append(reader)
    return reader


def readers() -> tuple[Reader, ...]:
    return tuple(_READERS)


def detect(path: Path) -> Reader:
    """The reader whose sniff accepts the file's first bytes (decompressed
    and decoded as :func:`read_head` says)."""
    head = read_head(path)
    for reader in _READERS:
        if reader.sniff(path, head):
            return reader
    names = ", ".join(r.name for r in _READERS)
    raise InputError(path, None, f"unrecognised profile format (supported: {names})")


# A kernel (or program) time longer than this is no measurement: it is an
# overflowed or wrapped-around counter (2^64 ns is 584 years) or a damaged
# file. A year is far beyond any profiling session.
MAX_TIME_S = 365 * 24 * 3600.0


def checked(result: ImportResult) -> ImportResult:
    """``result`` when every quantity in it is a measurement, else an
    InputError naming the kernel and the quantity: times must be finite,
    not negative and under :data:`MAX_TIME_S` (NaN means "no time"); FLOP,
    bytes, transactions and instructions finite and not negative (a counter
    times invocations that overflows to infinity is refused here)."""
    path = result.path
    for k in result.kernels:
        t = k.time_s
        if t == t and not 0.0 <= t <= MAX_TIME_S:
            raise InputError(path, None, f"kernel {_short(k.name)}: time {t!r} s is "
                             f"{'negative' if t < 0 else 'beyond a year'}: not a measurement "
                             "(an overflowed or damaged duration)")
        if k.count < 0:
            raise InputError(path, None, f"kernel {_short(k.name)}: negative count {k.count}")
        for what, values in (("FLOP", k.flops), ("bytes", k.bytes), ("transactions", k.transactions),
                             ("instructions", {"": k.instructions})):
            for key, v in values.items():
                if v is not None and not 0.0 <= v < float("inf"):
                    raise InputError(path, None, f"kernel {_short(k.name)}: {key + ' ' if key else ''}{what} = {v!r}: "
                                     "a counter overflowed or is damaged")
    p = result.program
    if p is not None:
        for what, v in [(f"host API {name!r}", s) for name, s in p.api_s.items()] + \
                [("GPU busy time", p.gpu_busy_s), ("timeline span", p.span_s)]:
            if v is not None and not 0.0 <= v <= MAX_TIME_S:
                raise InputError(path, None, f"{_short(what)}: {v!r} s is not a measurement "
                                 "(negative, infinite or beyond a year)")
    return result


def _short(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit - 1] + "…")
