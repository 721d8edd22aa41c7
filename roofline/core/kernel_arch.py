"""The GPU architecture a library kernel was built for, from its name.

cuBLAS and CUTLASS name their kernels after the architecture they target
(``sm90_xmma_gemm_...``, ``cutlass_75_tensorop_...``, ``ampere_sgemm_...``).
A kernel built for an older architecture than the device it ran on (a
``cutlass_75`` kernel on an H100, sm_90) uses none of the newer matrix
instructions (wgmma, TMA), so its efficiency says more about the library's
choice than about the work. Pure functions over names; NaN: the name says
nothing (hipBLASLt ``Cijk_*``, Triton, PyTorch's own kernels).
"""
from __future__ import annotations

import math
import re

import numpy as np

# "sm90_xmma", "sm80_xmma", "cutlass_75_", "cutlass3x_sm90_", "sm100_"
_SM = re.compile(r"(?:^|[^a-z0-9])(?:cutlass_|cutlass3x_sm|sm)(\d{2,3})_")
# the generation names cuBLAS used before it wrote sm numbers
_GENERATIONS = (("volta_", 70), ("turing_", 75), ("ampere_", 80), ("hopper_", 90))


def built_for(name: str) -> float:
    """The sm number (75, 80, 90, 100) a kernel name says it targets, or NaN."""
    text = name[:400].lower()
    match = _SM.search(text)
    if match:
        return float(match.group(1))
    for word, sm in _GENERATIONS:
        if word in text:
            return float(sm)
    return math.nan


def device_sm(architecture) -> float:
    """The device's sm number from its compute capability ("9.0" -> 90), or NaN."""
    cc = (architecture or {}).get("compute_capability")
    try:
        major, _, minor = str(cc).partition(".")
        return float(int(major) * 10 + int(minor or 0))
    except ValueError:
        return math.nan


def older_than_device(names, architecture) -> np.ndarray:
    """Per name: built for an older architecture than the device's."""
    sm = device_sm(architecture)
    names = np.asarray(names, dtype=object)
    if math.isnan(sm):
        return np.zeros(len(names), dtype=bool)
    built = {n: built_for(str(n)) for n in set(names.tolist())}
    return np.array([built[n] < sm for n in names.tolist()], dtype=bool)
