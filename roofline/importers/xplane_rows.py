"""The kernels of a TensorFlow/JAX profile as columns, seen as Kernel
objects with their launches when iterated.

``roofline classify`` takes the columns (``.columns``, a KernelSet: no
object per kernel); code that iterates the kernels (tests, ``roofline
import``) gets each Kernel with its ``launch``: the launch configuration of
its stats (shared by every kernel with the same stats), its device,
stream and correlation id, built on first use.
"""
from __future__ import annotations

from dataclasses import replace

from ..core.model import Kernel, KernelRows, KernelSet
from .xplane_capture import NO_ID


class XplaneRows(KernelRows):
    """KernelRows whose Kernels carry the launch of each row."""

    def __init__(self, columns: KernelSet, launch: dict):
        super().__init__(columns)
        self._launch = launch

    def _all(self) -> list[Kernel]:
        if self._rows is None:
            self._rows = [replace(k, launch=self.launch_of(i)) for i, k in enumerate(self.columns.kernels())]
        return self._rows

    def launch_of(self, i: int) -> dict:
        """Row ``i``'s launch: configuration, device, stream, correlation id."""
        x = self._launch
        out = dict(x["launches"][int(x["profile"][i])])
        out.update(device=x["devices"][int(x["device_id"][i])], stream=int(x["stream"][i]))
        correlation = int(x["correlation"][i])
        if correlation != NO_ID:
            out["id"] = correlation
        return out
