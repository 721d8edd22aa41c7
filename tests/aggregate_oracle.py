"""An independent per-object sum of kernels by family or name: the oracle
the columnar aggregate (roofline.core.aggregate.aggregate_set) and the
report's family rows are checked against. Written here, in tests, so the
package sums rows one way only."""
from __future__ import annotations

import math
from typing import Iterable

from roofline.core.families import family_of
from roofline.core.model import Kernel


def aggregate(kernels: Iterable[Kernel], by: str = "family") -> list[Kernel]:
    """Sum kernels into one row per family (``by="family"``) or per name.

    Time, count, FLOPs per precision, bytes per level, instructions and
    transactions are summed. A member without a value for a quantity
    contributes nothing to it; the group has no value (NaN time, no key)
    only when no member has one. Kernels without a family get
    :func:`family_of` their name. Rows come in order of first appearance.
    ``launch`` is dropped (it differs between members); ``source`` and
    ``variant`` are kept when all members agree.
    """
    if by not in ("family", "name"):
        raise ValueError(f"aggregate by 'family' or 'name', not {by!r}")
    groups: dict[str, dict] = {}
    for k in kernels:
        family = k.family or family_of(k.name)
        key = family if by == "family" else k.name
        g = groups.get(key)
        if g is None:
            g = groups[key] = {"time": math.nan, "count": 0, "flops": {}, "bytes": {},
                               "inst": None, "txn": {}, "family": family,
                               "source": k.source, "variant": k.variant}
        if not math.isnan(k.time_s):
            g["time"] = k.time_s if math.isnan(g["time"]) else g["time"] + k.time_s
        g["count"] += k.count
        for p, v in k.flops.items():
            g["flops"][p] = g["flops"].get(p, 0.0) + v
        for lv, v in k.bytes.items():
            g["bytes"][lv] = g["bytes"].get(lv, 0.0) + v
        for lv, v in k.transactions.items():
            g["txn"][lv] = g["txn"].get(lv, 0.0) + v
        if k.instructions is not None:
            g["inst"] = k.instructions + (g["inst"] or 0.0)
        if g["source"] != k.source:
            g["source"] = ""
        if g["variant"] != k.variant:
            g["variant"] = ""
        if by == "name" and g["family"] != family:
            g["family"] = g["family"] or family
    return [Kernel(name=key, time_s=g["time"], count=g["count"], flops=g["flops"],
                   bytes=g["bytes"], instructions=g["inst"], transactions=g["txn"],
                   family=g["family"], source=g["source"], variant=g["variant"])
            for key, g in groups.items()]
