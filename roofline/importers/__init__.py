"""Readers of profiler outputs, each file to kernels (one reader per format).

``read_profile(path)`` recognises the format from the content. Each reader
module registers itself on import; the import order below is the sniffing
order (most specific first).
"""
from __future__ import annotations

from pathlib import Path

from .base import ImportResult, ProgramTime, Reader, detect, readers, register
from . import kernels_csv  # noqa: F401  (registers the project's own format)

__all__ = ["ImportResult", "ProgramTime", "Reader", "read_profile", "readers", "register"]


def read_profile(path: str | Path) -> ImportResult:
    """Read any supported profile into kernels; raises InputError on bad input."""
    path = Path(path)
    return detect(path).read(path)
