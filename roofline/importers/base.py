"""What every reader returns, and the registry that picks a reader by content."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..errors import Advice, InputError
from ..model import Kernel


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
    """Kernels read from one file, and what else the file said."""

    path: str
    format: str
    kernels: tuple[Kernel, ...]
    device_name: str | None = None
    program: ProgramTime | None = None
    warnings: tuple[Advice, ...] = ()


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


HEAD_BYTES = 64 * 1024


def read_text(path) -> str:
    """A profile's text, or an InputError naming the file and the problem."""
    try:
        return Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not UTF-8 text (byte {exc.start})") from None


def detect(path: Path) -> Reader:
    """The reader whose sniff accepts the file's first bytes."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    for reader in _READERS:
        if reader.sniff(path, head):
            return reader
    names = ", ".join(r.name for r in _READERS)
    raise InputError(path, None, f"unrecognised profile format (supported: {names})")
