"""A profile file to kernels, whatever its format: the reader is picked by
content (:func:`roofline.importers.base.detect`, over the readers the
package registered on import), every reader's result passes the same
checks (:func:`roofline.importers.base.checked`), and kernels the file gave
no family get one from their names."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..core.families import family_of
from ..core.model import KernelRows
from .base import ImportResult, checked, detect


def read_profile(path: str | Path) -> ImportResult:
    """Read any supported profile into kernels (each with a family, from its
    name when the file gives none); raises InputError on bad input: what
    is no regular file, text that cannot be read, and times, counts or
    counters that are no measurement."""
    path = Path(path)
    result = checked(_folder(path) or detect(path).read(path))
    if isinstance(result.kernels, KernelRows):
        fill_families(result.kernels.columns)
        return result
    if all(k.family for k in result.kernels):
        return result
    kernels = tuple(k if k.family else replace(k, family=family_of(k.name)) for k in result.kernels)
    return replace(result, kernels=kernels)


def is_profiler_folder(path) -> bool:
    """A folder one profiler wrote for one run (a rocprof-compute workload, a
    Neutrino run), read as one profile: not a folder of rank traces."""
    from . import neutrino, rocprof_compute
    return rocprof_compute.is_workload(path) or neutrino.is_run_folder(path)


def _folder(path: Path) -> ImportResult | None:
    """The result of a profiler's output folder (a rocprof-compute
    workload, a Neutrino run), None for anything else (files, and folders no reader takes:
    detect() then says what they are)."""
    if not path.is_dir():
        return None
    from . import neutrino, rocprof_compute
    if rocprof_compute.is_workload(path):
        return rocprof_compute.read_workload(path)
    if neutrino.is_run_folder(path):
        return neutrino.read_run(path)
    return None


def fill_families(ks) -> None:
    """Empty families of a KernelSet from the names, each distinct name once."""
    empty = ks.families == ""
    if not empty.any():
        return
    names = ks.names[empty]
    family = {name: family_of(name) for name in dict.fromkeys(names.tolist())}
    ks.families[empty] = [family[name] for name in names.tolist()]
