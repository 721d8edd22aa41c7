"""What every reader returns, and the registry that picks a reader by content."""
from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

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
    """Kernels read from one file, and what else the file said.

    What the file says about its device, for choosing a profile when the
    user names none (:func:`roofline.device_choice.device_for`):
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


HEAD_BYTES = 64 * 1024

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def text_bytes(raw: bytes, *, partial: bool = False) -> bytes:
    """Bytes of a text file as UTF-8 without a byte-order mark: a UTF-8 BOM
    is dropped and UTF-16 with a BOM (Windows tools write it) is re-encoded.
    Anything else is returned unchanged. ``partial``: ``raw`` is the head of
    a file (a UTF-16 code unit may be cut at the end)."""
    if raw.startswith(UTF8_BOM):
        return raw[len(UTF8_BOM):]
    if raw.startswith(UTF16_BOMS):
        body = raw[: len(raw) - (len(raw) % 2)] if partial else raw
        return body.decode("utf-16", errors="replace" if partial else "strict").encode("utf-8")
    return raw


def read_text(path) -> str:
    """A profile's text, or an InputError naming the file and the problem.

    Every text reader comes through here, so all of them take gzip-compressed
    files (``.gz``, recognised by their magic bytes), a UTF-8 byte-order mark
    and UTF-16 text with a byte-order mark."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if raw.startswith(GZIP_MAGIC):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(path, None, f"corrupt gzip stream: {exc}") from None
    try:
        raw = text_bytes(raw)
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not UTF-16 text (byte {exc.start})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not UTF-8 text (byte {exc.start})") from None


def read_head(path) -> bytes:
    """The first bytes a reader's sniff sees: of the decompressed stream for
    a gzip file, as UTF-8 without a byte-order mark for text (see
    :func:`read_text`). A gzip stream that cannot be read gives its raw
    bytes (no reader claims them, or the reader reports the damage)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if head.startswith(GZIP_MAGIC):
        try:   # as much as the head holds, even of a truncated stream
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, HEAD_BYTES)
        except zlib.error:
            pass
    return text_bytes(head, partial=True)


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
