"""rocprof-compute (ROCm Compute Profiler, formerly Omniperf) workload folders.

``rocprof-compute profile -n NAME -- app`` writes ``workloads/NAME/<GPU>/``
(``<GPU>`` being the model, e.g. ``MI300X_A1``) holding ``pmc_perf.csv``
(every dispatch with every counter of every pass), ``sysinfo.csv`` (the
GPU: model, gfx target, CUs, XCDs, clocks) and, when the roofline was
measured, ``roofline.csv``. :func:`read_workload` takes that folder (or
``workloads/NAME`` when it holds one GPU's folder) and reads its
``pmc_perf.csv`` as :mod:`.rocprof_csv` does, the GPU named by
``sysinfo.csv``; a folder with several GPUs' profiles is refused with
their names, as their kernels ran on different hardware.
``roofline.csv`` is a measured device profile
(:func:`roofline.devices.rocprof_roofline.read_rocprof_roofline`).

The reader registers for folders (:mod:`..ranks.rank_rule` says which
folders are a workload rather than a folder of rank traces).
"""
from __future__ import annotations

from pathlib import Path

from ..options import DEFAULT, ReadOptions
from ...core.errors import InputError
from ...devices.rocprof_roofline import read_rocprof_roofline
from ...core.import_result import ImportResult
from ..base import Reader, register
from ..ranks.rank_rule import ROCPROF_COMPUTE, folder_kind
from .rocprof_csv import read_dispatches

PMC = "pmc_perf.csv"


def is_workload(path) -> bool:
    """A folder holding pmc_perf.csv, or folders that do."""
    path = Path(path)
    return path.is_dir() and ((path / PMC).is_file() or bool(_gpu_folders(path)))


def _gpu_folders(path: Path) -> list[Path]:
    try:
        return sorted(p for p in path.iterdir() if p.is_dir() and (p / PMC).is_file())
    except OSError:
        return []


def workload_file(path) -> Path:
    """The pmc_perf.csv a workload folder means; InputError when none or
    several GPUs' profiles are in it."""
    path = Path(path)
    if not path.is_dir():
        raise InputError(path, None, "not a folder: expected a rocprof-compute workload folder")
    if (path / PMC).is_file():
        return path / PMC
    folders = _gpu_folders(path)
    if not folders:
        raise InputError(path, None, f"no {PMC} here nor in a folder below: not a rocprof-compute workload "
                         "(expected workloads/<name>/<GPU>/pmc_perf.csv)")
    if len(folders) > 1:
        names = ", ".join(f.name for f in folders)
        raise InputError(path, None, f"profiles of {len(folders)} GPUs ({names}): their kernels ran on "
                         f"different hardware; read one folder, e.g. {folders[0]}")
    return folders[0] / PMC


def read_workload(path, options: ReadOptions = DEFAULT) -> ImportResult:
    """The kernels of a rocprof-compute workload folder (see the module docstring)."""
    return read_dispatches(workload_file(path), options)


def workload_device(path, device: int | None = None):
    """The measured roofs of a workload folder (its roofline.csv) as a Device."""
    folder = workload_file(path).parent
    if not (folder / "roofline.csv").is_file():
        raise InputError(folder, None, "no roofline.csv: the roofline was not measured (rocprof-compute "
                         "profile --roof-only measures it)")
    return read_rocprof_roofline(folder / "roofline.csv", device)


register(Reader("rocprof-compute", lambda path, head: False, read_workload,
                folder=lambda path: folder_kind(path) == ROCPROF_COMPUTE))
