"""nvprof metrics/events -> work, traffic and time (the nvprof half of the
rules described in :mod:`roofline.importers.nvidia.counters`)."""
from __future__ import annotations

import re

from .counters import SECTOR_BYTES, Counts
from .metrics import MetricSet

_KEPLER_NAME = re.compile(
    r"\btesla k\d|\bgrid k\d|\bgeforce gtx (6\d\d|7[6-9]\d)\b|\bgtx titan( black| z)?$"
    r"|\bquadro k(?!620\b|1200\b|2200\b)\d{3,4}|\btegra k1\b|\bgk\d{2,3}")


def is_kepler(device: str = "", tex_description: str = "") -> bool | None:
    """Whether an nvprof file comes from a Kepler GPU (compute capability
    3.x): from the description nvprof gives ``tex_cache_transactions``
    (Kepler: texture cache; Maxwell on: "Unified Cache"), else from the
    device name (``Tesla K40c``, ``GeForce GTX 780``); None when neither says."""
    d = tex_description.strip().lower()
    if "unified" in d:
        return False
    if "texture" in d:
        return True
    name = re.sub(r"\s*\(\d+\)$", "", device.strip().lower())
    if not name:
        return None
    return bool(_KEPLER_NAME.search(name))


def nvprof_counts(ms: MetricSet, device: str = "", tex_description: str = "") -> Counts:
    """Apply the nvprof rules to one kernel's per-invocation metrics/events.

    ``device`` (the Device column) and ``tex_description`` (the Metric
    Description of ``tex_cache_transactions``) tell a Kepler GPU, whose
    texture/read-only loads are counted in ``tex_cache_transactions`` and
    not in ``gld_transactions`` (see :func:`is_kepler`)."""
    out = Counts()
    for tag, precision in (("dp", "fp64"), ("sp", "fp32"), ("hp", "fp16")):
        v = ms.get(f"flop_count_{tag}")
        if v is None:
            parts = {op: ms.get(f"flop_count_{tag}_{op}") for op in ("add", "mul", "fma")}
            if any(p is not None for p in parts.values()):
                v = (parts["add"] or 0.0) + (parts["mul"] or 0.0) + 2.0 * (parts["fma"] or 0.0)
                missing = [op for op, p in parts.items() if p is None]
                if missing:
                    out.notes.append(f"{precision} work lacks flop_count_{tag}_"
                                     f"{'/'.join(missing)}: a lower bound")
        if v is not None:
            out.has_fp_counters = True
            out.flops[precision] = v

    def pair(a: str, b: str, scale: float = 1.0) -> float | None:
        va, vb = ms.get(a), ms.get(b)
        if va is None and vb is None:
            return None
        if va is None or vb is None:
            out.notes.append(f"{b if va is None else a} without {a if va is None else b}: "
                             "a lower bound")
        return ((va or 0.0) + (vb or 0.0)) * scale

    dram = pair("dram_read_bytes", "dram_write_bytes")
    if dram is None:
        dram = pair("dram_read_transactions", "dram_write_transactions", SECTOR_BYTES)
    if dram is None:   # Kepler events: per-subpartition frame-buffer sectors
        rd = [ms.get(n) for n in ms.names() if re.fullmatch(r"fb_subp\d+_read_sectors", n)]
        wr = [ms.get(n) for n in ms.names() if re.fullmatch(r"fb_subp\d+_write_sectors", n)]
        if rd or wr:
            dram = sum(v or 0.0 for v in rd + wr) * SECTOR_BYTES
            if not rd or not wr:
                out.notes.append(f"DRAM bytes count only {'reads' if rd else 'writes'} "
                                 "(fb_subp*_read/write_sectors): a lower bound")
    if dram is not None:
        out.bytes["DRAM"] = dram
        out.transactions["DRAM"] = dram / SECTOR_BYTES
    l2 = pair("l2_read_transactions", "l2_write_transactions")
    if l2 is not None:
        out.transactions["L2"] = l2
        out.bytes["L2"] = l2 * SECTOR_BYTES
    l1 = pair("gld_transactions", "gst_transactions")
    tex = ms.get("tex_cache_transactions")
    if tex is not None and l1 is not None:
        kepler = is_kepler(device, tex_description)
        if kepler:
            # Kepler: __ldg/texture loads take the texture path, which
            # gld_transactions does not count; Maxwell on, the unified cache
            # counts global loads in both, so adding would count them twice
            l1 += tex
            out.notes.append("L1 bytes include tex_cache_transactions (Kepler texture/read-only "
                             "loads, which gld_transactions misses)")
        elif kepler is None:
            out.notes.append("tex_cache_transactions not added to L1 bytes: the file does not say "
                             "whether the GPU is a Kepler (where they are loads gld_transactions "
                             "misses) or later (where they overlap gld_transactions)")
    if l1 is not None:
        out.transactions["L1"] = l1
        out.bytes["L1"] = l1 * SECTOR_BYTES
        if l2 is not None and l1 < l2:
            out.notes.append("L1 bytes are below L2 bytes: the L1 counters miss some loads "
                             "(texture/read-only path, or 128-byte L1 lines counted once): "
                             "a lower bound")
    inst = ms.get("inst_executed")
    if inst is not None:
        out.instructions = inst
    out.thread_instructions = ms.get("thread_inst_executed")
    shared = pair("shared_load_transactions", "shared_store_transactions")
    if shared is not None:
        out.transactions["shared"] = shared
    return out
