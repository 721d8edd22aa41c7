"""CUPTI records as Nsight Systems exports them: copy kinds and API names.

Copies (CUPTI ``copyKind`` enum) become kernels of family ``memcpy`` named
as nvprof names them (``[CUDA memcpy HtoD]``), one per copy kind. Their
bytes go on the level they cross: host-device and peer copies on the host
link (``PCIe``, where NVLink also goes), device-to-device copies on
``DRAM`` twice (read and write), host-to-host copies nowhere.

Runtime API names may carry a ``_v3020``-style version suffix; exports from
about 2021 record each call twice, with and without it
(:func:`api_totals` counts it once).
"""
from __future__ import annotations

import math
import re

# CUpti_ActivityMemcpyKind -> (short name, level the bytes cross, bytes factor)
COPY_KINDS = {
    0: ("unknown", None, 1.0),
    1: ("HtoD", "PCIe", 1.0), 2: ("DtoH", "PCIe", 1.0),
    3: ("HtoA", "PCIe", 1.0), 4: ("AtoH", "PCIe", 1.0),
    5: ("AtoA", "DRAM", 2.0), 6: ("AtoD", "DRAM", 2.0), 7: ("DtoA", "DRAM", 2.0),
    8: ("DtoD", "DRAM", 2.0), 9: ("HtoH", None, 1.0), 10: ("PtoP", "PCIe", 1.0),
}
_VERSION_SUFFIX = re.compile(r"_v\d+$")


def copy_name(kind: int) -> str:
    return f"[CUDA memcpy {COPY_KINDS.get(kind, COPY_KINDS[0])[0]}]"


def copy_bytes(kind: int, nbytes: float) -> dict[str, float]:
    """Bytes per level of ``nbytes`` copied with CUPTI copy kind ``kind``."""
    _, level, factor = COPY_KINDS.get(kind, COPY_KINDS[0])
    return {} if level is None or math.isnan(nbytes) else {level: nbytes * factor}


def api_totals(rows) -> dict[str, float]:
    """(raw name, seconds) pairs -> seconds per API name, version suffix
    dropped; when both ``cudaMalloc`` and ``cudaMalloc_v3020`` appear the
    suffixed records are nested duplicates and are not counted."""
    raw: dict[str, float] = {}
    for name, seconds in rows:
        raw[name] = raw.get(name, 0.0) + seconds
    out: dict[str, float] = {}
    for name, seconds in raw.items():
        base = _VERSION_SUFFIX.sub("", name)
        if base != name and base in raw:
            continue
        out[base] = out.get(base, 0.0) + seconds
    return out

