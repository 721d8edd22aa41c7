"""Which unit of a CPU runs an operator's FLOPs: the matrix units (AMX) for
bf16, fp16 and int8 matrix work where the CPU has them, else its vector units.

oneDNN (PyTorch's CPU convolutions and GEMMs) picks its kernel at run time
from the CPU's ISA: AMX tiles for bf16 and int8 where the CPU has them
(Intel Sapphire Rapids and later; fp16 from Granite Rapids on),
AVX512-BF16/FP16/VNNI instructions where it has those (Cooper Lake, Zen 4,
Sapphire Rapids), else it converts to fp32. A trace does not say which it
picked, so:

* the reader keys bf16/fp16/int8 matrix FLOPs (``OpWork.matrix``: GEMMs,
  convolutions) ``tensor_bf16``/``tensor_fp16``/``tensor_int8``
  (:func:`flops_key`): the work is matrix work of that dtype, whatever the
  device (the ceiling keys ``roofline measure`` writes for AMX);
* at placement the device decides: a CPU profile with a ``tensor_bf16``
  ceiling (AMX measured) times it there, one without falls back to its
  vector ``bf16`` ceiling, then ``fp32`` (``PRECISION_FALLBACK``);
* a row timed on a CPU's matrix-unit ceiling rests on an assumption (that
  oneDNN used AMX), which it carries (:func:`matrix_unit_assumed`, the
  reason ``precision assumed``) and the placement's warnings say
  (:func:`matrix_unit_note`).

fp32 and fp64 matrix work stays on the vector FMA units (AMX has no fp32
or fp64 path). numpy at most.
"""
from __future__ import annotations

import numpy as np

from .errors import Advice

# matrix work of these dtypes runs on the CPU's matrix units where it has them
MATRIX_UNIT = {"bf16": "tensor_bf16", "fp16": "tensor_fp16", "int8": "tensor_int8"}


def flops_key(precision: str, matrix: bool) -> str:
    """The ceiling key of a CPU operator's FLOPs of ``precision``."""
    return MATRIX_UNIT.get(precision, precision) if matrix else precision


def on_matrix_unit(device, key: str) -> bool:
    """Whether ``device`` times FLOPs keyed ``key`` on a matrix-unit ceiling."""
    return key.startswith("tensor_") and device.compute_key(key).startswith("tensor_")


def matrix_unit_assumed(kernels, device) -> np.ndarray:
    """Per row of ``kernels`` (a KernelSet): modelled FLOPs placed on a CPU
    matrix-unit ceiling (AMX), an assumption the trace cannot check."""
    out = np.zeros(len(kernels), dtype=bool)
    if device.kind != "cpu":
        return out
    for key in MATRIX_UNIT.values():
        flops = kernels.flops.get(key)
        if flops is not None and on_matrix_unit(device, key):
            out |= kernels.modelled & (np.nan_to_num(flops) > 0)
    return out


def matrix_unit_note(kernels, device) -> Advice | None:
    """What the placement assumed of the CPU's bf16/fp16/int8 matrix work:
    the AMX ceiling it was timed on (assumed used), or the vector ceiling it
    fell back to where the profile has no matrix unit for its dtype."""
    if device.kind != "cpu":
        return None
    amx, vector = [], []
    for precision, key in MATRIX_UNIT.items():
        flops = kernels.flops.get(key)
        rows = int(np.sum(np.nan_to_num(flops) > 0)) if flops is not None else 0
        if rows:
            said = f"{rows} row(s) of {precision} matrix work on its {device.compute_key(key)} roof"
            (amx if on_matrix_unit(device, key) else vector).append(said)
    if not amx and not vector:
        return None
    parts = []
    if amx:
        parts.append("; ".join(amx) + ": assumed oneDNN ran them on the AMX tiles (the trace does not say "
                     "which ISA it picked)")
    if vector:
        parts.append("; ".join(vector) + ": the profile has no matrix-unit (AMX) ceiling for that dtype, so "
                     "the vector units' roof is used")
    return Advice(". ".join(parts),
                  "ONEDNN_VERBOSE=1 names each primitive's ISA (avx512_core_amx for AMX); on a CPU with AMX, "
                  "roofline measure gives its tensor_* roofs", subject="cpu units")
