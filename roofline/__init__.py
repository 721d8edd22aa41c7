"""roofline: roofline performance modeling.

Library entry points::

    from roofline import find_device, read_kernels, place, project
    device = find_device("v100-sxm2")
    placements = place(read_kernels("kernels.csv"), device)
    placements.records()       # one dict per kernel: bound, level, efficiency ...
    project(placements, find_device("a100-40gb-sxm"))   # the same kernels on another device

Everything is in SI units (seconds, bytes, FLOP). The package map, and
which part may import which, is in docs/architecture.md.
"""
from __future__ import annotations

from ._version import __version__  # noqa: F401


def _source_checkout_path() -> None:
    """In a source checkout, microbench/ and devices/ sit beside roofline/
    (pyproject.toml maps them to roofline.microbench and roofline.devices in
    the wheel). When Python imports this package straight from a checkout
    (``python -m ...`` run in the repository), add the checkout to the
    package path so those two names resolve there too."""
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "microbench" / "__init__.py").is_file():
        __path__.append(str(root))  # noqa: F821 (the package's own __path__)


_source_checkout_path()

from .core.errors import Advice, InputError, MissingMetricError, RooflineError  # noqa: E402
from .core.model import Ceiling, Device, Kernel, KernelSet, MemoryLevel  # noqa: E402
from .core.placement import Placements, Rules, place  # noqa: E402
from .devices.profile import find_device, load_device, save_device  # noqa: E402


def project(placements: Placements, target: Device, share: float = 0.8):
    """``placements`` (a trace placed on its own device) projected onto
    ``target``: a :class:`roofline.analysis.projection.Projection`, per row
    and in total, with 80 % intervals (docs/concepts.md, "Projection")."""
    from .analysis.projection import project as _project
    return _project(placements, target, share=share)


def read_kernels(*paths) -> KernelSet:
    """Kernels from any supported profile file(s) (kernels.csv, ncu, nvprof,
    nsys, Kineto), as one :class:`KernelSet`."""
    from .core.import_result import all_kernels
    from .importers import read_profile
    return all_kernels([read_profile(p) for p in paths])


__all__ = ["Advice", "Ceiling", "Device", "InputError", "Kernel", "KernelSet", "MemoryLevel",
           "MissingMetricError", "Placements", "RooflineError", "Rules", "find_device",
           "load_device", "place", "project", "read_kernels", "save_device"]
