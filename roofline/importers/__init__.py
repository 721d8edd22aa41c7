"""Readers of profiler outputs, each file to kernels (one reader per format).

``read_profile(path)`` recognises the format from the content. Each reader
module registers itself on import; the import order below is the sniffing
order (most specific first).
"""
from __future__ import annotations

from pathlib import Path

from .base import ImportResult, ProgramTime, Reader, detect, readers, register
from . import kernels_csv  # noqa: F401  (registers the project's own format)
from . import nsys  # noqa: F401  (Nsight Systems SQLite exports and nsys stats CSV)
from . import kineto  # noqa: F401  (PyTorch profiler / Kineto Chrome traces)
from . import ert  # noqa: F401  (ERT results: device profiles, recognised to say so)
from . import ncu_rep  # noqa: F401  (Nsight Compute .ncu-rep, needs ncu-report)
from . import ncu_csv  # noqa: F401  (Nsight Compute CSV: details, raw, section exports)
from . import nvprof  # noqa: F401  (nvprof summary, GPU trace, metrics/events; CSV or text)

__all__ = ["ImportResult", "ProgramTime", "Reader", "read_profile", "readers", "register"]


def read_profile(path: str | Path) -> ImportResult:
    """Read any supported profile into kernels (each with a family, from its
    name when the file gives none); raises InputError on bad input."""
    from dataclasses import replace

    from ..families import family_of
    from ..model import KernelRows
    path = Path(path)
    result = detect(path).read(path)
    if isinstance(result.kernels, KernelRows):
        fill_families(result.kernels.columns)
        return result
    if all(k.family for k in result.kernels):
        return result
    kernels = tuple(k if k.family else replace(k, family=family_of(k.name)) for k in result.kernels)
    return replace(result, kernels=kernels)


def fill_families(ks) -> None:
    """Empty families of a KernelSet from the names, each distinct name once."""
    from ..families import family_of
    empty = ks.families == ""
    if not empty.any():
        return
    names = ks.names[empty]
    family = {name: family_of(name) for name in dict.fromkeys(names.tolist())}
    ks.families[empty] = [family[name] for name in names.tolist()]
