"""ERT (Empirical Roofline Toolkit) results: recognised, and refused as
kernel profiles. They describe a device, not kernels: they are read by
:mod:`roofline.devices.ert` when given as ``--device PATH``, and this reader
only turns "unrecognised format" into a message that says so. The
readers themselves are importable from here too, as the message names them."""
from __future__ import annotations

from pathlib import Path

from .options import DEFAULT, ReadOptions
from ..core.errors import InputError
from ..devices.ert import ErtSweep, ert_kind, parse_sum, read_ert_device, read_ert_sweep
from ..core.import_result import ImportResult
from .base import Reader, register


def sniff(path: Path, head: bytes) -> bool:
    return ert_kind(head) is not None


def read(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    raise InputError(path, None, "this is an ERT device profile, not a kernel profile: use it with "
                     "--device PATH (library: roofline.importers.ert.read_ert_device)")


register(Reader("ert", sniff, read))

__all__ = ["ErtSweep", "parse_sum", "read", "read_ert_device", "read_ert_sweep", "sniff"]
