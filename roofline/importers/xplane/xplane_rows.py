"""The kernels of a TensorFlow/JAX profile as columns, one row per kernel
name, device and operator with its calls (:func:`grouped`), seen as Kernel
objects with their launches when iterated.

``roofline classify`` takes the columns (``.columns``, a KernelSet: no
object per kernel); code that iterates the kernels (tests, ``roofline
import``) gets each Kernel with its ``launch``: the launch configuration of
its stats (shared by every kernel with the same stats), its device,
stream and correlation id, built on first use.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...core.aggregate import aggregate_set, factorize
from ...core.model import Kernel, KernelRows, KernelSet, carry_labels
from .xplane_capture import NO_ID

NO_STREAM = -1          # a row whose launches ran on more than one stream


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
        out["device"] = x["devices"][int(x["device_id"][i])]
        if int(x["stream"][i]) != NO_STREAM:
            out["stream"] = int(x["stream"][i])
        correlation = int(x["correlation"][i])
        if correlation != NO_ID:
            out["id"] = correlation
        return out


def grouped(kernels: KernelSet, launch: dict) -> XplaneRows:
    """One row per kernel name, device and operator, with its calls (time,
    FLOPs and bytes summed, in order of first launch); each row's launch is
    its first launch's configuration and device, its stream when all its
    launches share one, and no correlation id (a row is many launches)."""
    n = len(kernels)
    if not n:
        return XplaneRows(kernels, launch)
    name_codes, _ = factorize(kernels.names)
    op_codes, _ = factorize(kernels.operators)
    device = np.asarray(launch["device_id"], dtype=np.int64)
    combined = np.stack([name_codes, device, op_codes], axis=1)
    _, first, inverse = np.unique(combined, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(first, kind="stable")           # groups in order of first launch
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    codes, m = rank[inverse], len(order)
    rows = carry_labels(kernels, aggregate_set(kernels, by="name", groups=(codes, m)), codes)
    heads = first[order]
    if len(np.unique(device)) > 1:      # rows of several GPUs: each says which (they would look alike)
        names = np.asarray([str(d) for d in launch["devices"]], dtype=object)
        rows = rows.with_columns(devices=names[device[heads]])
    stream = np.asarray(launch["stream"], dtype=np.int64)
    lo = np.full(m, np.iinfo(np.int64).max)
    hi = np.full(m, np.iinfo(np.int64).min)
    np.minimum.at(lo, codes, stream)
    np.maximum.at(hi, codes, stream)
    out = {"launches": launch["launches"], "devices": launch["devices"], "device_id": device[heads],
           "stream": np.where(lo == hi, lo, NO_STREAM), "correlation": np.full(m, NO_ID, dtype=np.int64),
           "profile": np.asarray(launch["profile"])[heads]}
    return XplaneRows(rows, out)
