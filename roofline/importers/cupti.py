"""CUPTI records as Nsight Systems exports them: API names.

(Copy kinds and the level their bytes cross: :mod:`roofline.importers.copies`.)

Runtime API names may carry a ``_v3020``-style version suffix; exports from
about 2021 record each call twice, with and without it
(:func:`api_totals` counts it once).
"""
from __future__ import annotations

import re

_VERSION_SUFFIX = re.compile(r"_v\d+$")


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

