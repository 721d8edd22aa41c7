"""The kernels of a TensorFlow/JAX profile as columns, one row per kernel
name, device and operator with its calls (:func:`grouped`); each row's
``launches`` cell holds the launch configuration of its stats (shared by
every kernel with the same stats), its device, and its stream where all
its launches share one.
"""
from __future__ import annotations


import numpy as np

from ...core.aggregate import aggregate_set, factorize
from ...core.model import KernelSet, carry_labels
from .xplane_capture import NO_ID

NO_STREAM = -1          # a row whose launches ran on more than one stream


def _launch_of(x: dict, i: int) -> dict:
    """Row ``i``'s launch: configuration, device, stream, correlation id."""
    out = dict(x["launches"][int(x["profile"][i])])
    out["device"] = x["devices"][int(x["device_id"][i])]
    if int(x["stream"][i]) != NO_STREAM:
        out["stream"] = int(x["stream"][i])
    correlation = int(x["correlation"][i])
    if correlation != NO_ID:
        out["id"] = correlation
    return out


def grouped(kernels: KernelSet, launch: dict) -> KernelSet:
    """One row per kernel name, device and operator, with its calls (time,
    FLOPs and bytes summed, in order of first launch); each row's launch is
    its first launch's configuration and device, its stream when all its
    launches share one, and no correlation id (a row is many launches)."""
    n = len(kernels)
    if not n:
        return kernels
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
    return rows.with_columns(launches=[_launch_of(out, i) for i in range(m)])
