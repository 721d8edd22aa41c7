"""The registry of readers, which picks one by a file's content. What every
reader returns is :class:`roofline.core.import_result.ImportResult`."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..core.errors import InputError, RooflineError
from ..core.import_result import ImportResult
from ..core.text_files import head_problem, read_head
from .options import ReadOptions


@dataclass(frozen=True)
class Reader:
    """One file flavour: ``sniff(path, head)`` says whether it is ours from
    the first bytes, ``read(path, options)`` parses it (as the
    :class:`~.options.ReadOptions` ask) or raises InputError. A
    format that is a folder one profiler wrote (a rocprof-compute workload,
    a Neutrino run) says so with ``folder(path)``, asked of folders only."""

    name: str
    sniff: Callable[[Path, bytes], bool]
    read: Callable[[Path, ReadOptions], ImportResult]
    # asked only when no reader's sniff took the file: may read past the
    # head (a trace whose traceEvents key comes after 64 KiB of metadata)
    sniff_further: Callable[[Path, bytes], bool] | None = None
    folder: Callable[[Path], bool] | None = None


_READERS: list[Reader] = []


def register(reader: Reader) -> Reader:
    _READERS.append(reader)
    return reader


def readers() -> tuple[Reader, ...]:
    return tuple(_READERS)


def named(name: str) -> Reader:
    """The reader called ``name`` (``--input-format``); an InputError
    listing the names for any other."""
    for reader in _READERS:
        if reader.name == name:
            return reader
    raise RooflineError(f"--input-format {name!r}: no such reader; expected one of "
                     f"{', '.join(r.name for r in _READERS)}")


def detect(path: Path) -> Reader:
    """The reader whose sniff accepts the file's first bytes (decompressed
    and decoded as :func:`read_head` says). Every reader is reached through
    here, so what is no regular file (a FIFO or pipe, which the sniff would
    consume or block on) is refused here, before it is opened."""
    if path.is_dir():
        for reader in _READERS:
            if reader.folder is not None and reader.folder(path):
                return reader
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
