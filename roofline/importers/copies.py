"""Copy traffic, written once: which memory level a copy or set moves its
bytes on, and what a copy of each direction is called.

Every reader that sees copies (nvprof, nsys CSV and SQLite, rocprofv3,
XPlane, Kineto) names the direction in its own words (``HtoD``,
``Host-to-Device``, ``H2D``, CUPTI's ``copyKind`` 1, rocprofiler's
operation 2) and asks here what it means:

* host-device and peer copies cross the host link (``PCIe``, where NVLink
  also goes), once;
* device-to-device copies (and CUDA arrays, which live in device memory)
  read and write device memory, so their bytes go twice on ``DRAM``;
* host-to-host copies touch no device level;
* a memset writes its bytes once to ``DRAM``.

A copy of unknown direction, or with an unknown size, has no bytes: no
level is guessed.
"""
from __future__ import annotations

import math
import re

# direction -> (level the bytes cross, times they cross it)
LEVELS: dict[str, tuple[str | None, float]] = {
    "HtoD": ("PCIe", 1.0), "DtoH": ("PCIe", 1.0), "HtoA": ("PCIe", 1.0), "AtoH": ("PCIe", 1.0),
    "PtoP": ("PCIe", 1.0), "DtoP": ("PCIe", 1.0), "PtoD": ("PCIe", 1.0),
    "DtoD": ("DRAM", 2.0), "AtoA": ("DRAM", 2.0), "AtoD": ("DRAM", 2.0), "DtoA": ("DRAM", 2.0),
    "HtoH": (None, 1.0),
}
# CUpti_ActivityMemcpyKind -> direction (0 is CUPTI's "unknown")
CUPTI_KINDS = {0: "unknown", 1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD",
               7: "DtoA", 8: "DtoD", 9: "HtoH", 10: "PtoP"}
# rocprofiler_memory_copy_operation_t -> direction (rocprofiler-sdk's enum)
ROCPROFILER_KINDS = {1: "HtoH", 2: "HtoD", 3: "DtoH", 4: "DtoD"}
# other spellings of a direction, lower case: nsys's long names, XLA's short ones
ALIASES = {"host-to-device": "HtoD", "device-to-host": "DtoH", "device-to-device": "DtoD",
           "host-to-host": "HtoH", "peer-to-peer": "PtoP",
           "h2d": "HtoD", "d2h": "DtoH", "d2d": "DtoD", "p2p": "PtoP"}
_CANONICAL = {**{d.lower(): d for d in LEVELS}, **ALIASES}
_WORDS = sorted(_CANONICAL, key=len, reverse=True)
_DIRECTION = re.compile(r"\b(" + "|".join(re.escape(w) for w in _WORDS) + r")\b", re.IGNORECASE)


def direction_named(word: str) -> str:
    """The direction ``word`` spells (``Host-to-Device``, ``h2d``, ``HtoD``),
    or ``unknown``."""
    return _CANONICAL.get(word.strip().lower(), "unknown")


def direction_in(text: str) -> str | None:
    """The first direction a copy's name or kind names (``Memcpy HtoD
    (Pageable -> Device)``, ``[CUDA memcpy Host-to-Device]``), or None."""
    m = _DIRECTION.search(text or "")
    return _CANONICAL[m.group(1).lower()] if m else None


def copy_bytes(direction: str | None, nbytes: float) -> dict[str, float]:
    """Bytes per level of ``nbytes`` copied in ``direction``; none when the
    direction or the size is unknown."""
    level, times = LEVELS.get(direction or "", (None, 1.0))
    return {} if level is None or math.isnan(nbytes) else {level: nbytes * times}


def set_bytes(nbytes: float) -> dict[str, float]:
    """Bytes per level of a memset of ``nbytes``: written once to DRAM."""
    return {} if math.isnan(nbytes) else {"DRAM": nbytes}


def copy_name(direction: str, runtime: str = "CUDA") -> str:
    """The row name of a copy, as nvprof writes it: ``[CUDA memcpy HtoD]``."""
    return f"[{runtime} memcpy {direction}]"


def cupti_direction(kind: int) -> str:
    """The direction of a CUPTI ``copyKind`` (``unknown`` past the enum)."""
    return CUPTI_KINDS.get(kind, "unknown")
