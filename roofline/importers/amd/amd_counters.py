"""AMD GPU hardware counters -> FLOP per precision and bytes per level: the
rules the rocprof readers (v1/v2 ``results.csv``, rocprofv3 JSON and CSV,
rocprof-compute ``pmc_perf.csv``) share.

The formulas are those ROCm Compute Profiler (rocprof-compute, formerly
Omniperf) places kernels on its roofline with: panel 400 "Roofline"
(tables 401 and 402) in ROCm/rocm-systems
``projects/rocprofiler-compute/src/rocprof_compute_soc/analysis_configs/gfx942/0400_roofline.yaml``
and ``.../gfx950/0400_roofline.yaml``, the same as ``calc_ai`` in
ROCm/rocprofiler-compute ``src/utils/roofline_calc.py``, which also gives
the MI200 (gfx90a) HBM formula. They are evaluated per dispatch, then
summed per kernel.

Work (FLOP), per precision
--------------------------
VALU instructions are counted per wavefront, so times the wave size (64 on
CDNA; rocprof-compute's ``$wave_size``), for ``p`` in F16, F32, F64::

    FLOP[p] = wave_size * (SQ_INSTS_VALU_ADD_p + SQ_INSTS_VALU_MUL_p
                           + SQ_INSTS_VALU_TRANS_p + 2 * SQ_INSTS_VALU_FMA_p)

-> ``fp16``, ``fp32``, ``fp64``. A precision with only some of the four
counters gets their partial sum and a note that it is a lower bound.
Matrix cores (MFMA) count operations in units of 512 FLOP::

    FLOP = 512 * SQ_INSTS_VALU_MFMA_MOPS_t

with ``t`` -> precision: F16 ``tensor_fp16``, BF16 ``tensor_bf16``, F64
``tensor_fp64``, I8 ``tensor_int8``, F8 ``tensor_fp8`` (gfx942 on), F6F4
``tensor_fp6`` (gfx950: FP6 and FP4 share the counter and the rate), and
F32 ``fp32``: matrix fp32 runs at the packed-fp32 rate on CDNA2-4, so it
shares the fp32 roof (as the datasheet profiles and
:mod:`roofline.core.kernel_precision` put fp32 MFMA GEMMs). XF32 (gfx942,
AMD's TF32) is not in rocprof-compute's roofline and is left out, with a
note naming how much.

Traffic (bytes), per level
--------------------------
* ``L1`` (the vector L1, vL1D): ``64 * TCP_TOTAL_CACHE_ACCESSES_sum``
* ``L2``: ``64 * (TCP_TCC_READ_REQ_sum + TCP_TCC_WRITE_REQ_sum
  + TCP_TCC_ATOMIC_WITH_RET_REQ_sum + TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum)``
* ``DRAM`` (HBM), gfx94x/gfx950 counters (``TCC_EA0_*``)::

      128 * TCC_BUBBLE_sum + 32 * TCC_EA0_RDREQ_32B_sum
      + 64 * (TCC_EA0_RDREQ_sum - TCC_BUBBLE_sum - TCC_EA0_RDREQ_32B_sum)
      + 32 * (TCC_EA0_WRREQ_sum - TCC_EA0_WRREQ_64B_sum) + 64 * TCC_EA0_WRREQ_64B_sum

  (``TCC_BUBBLE`` counts the 128-byte reads); gfx90a counters (``TCC_EA_*``)::

      32 * TCC_EA_RDREQ_32B_sum + 64 * (TCC_EA_RDREQ_sum - TCC_EA_RDREQ_32B_sum)
      + 64 * TCC_EA_WRREQ_64B_sum + 32 * (TCC_EA_WRREQ_sum - TCC_EA_WRREQ_64B_sum)

  else rocprofiler-sdk's derived ``FETCH_SIZE + WRITE_SIZE`` (KiB, x 1024;
  ROCm/rocprofiler-sdk ``source/lib/rocprofiler-sdk/counters/yaml/counter_defs.yaml``).

Counters that do not fit one hardware pass are collected in several runs
of the kernel (replay passes), so a total and the request sizes split off
it can come from different runs: ``TCC_EA0_RDREQ - TCC_BUBBLE -
TCC_EA0_RDREQ_32B`` comes out slightly negative for some dispatches of a
real MI300X workload (-37 to -887 of about 411,000 requests). A difference
whose size is at most :data:`REPLAY_TOLERANCE` (1 %) of the total it is
taken from is counted as 0, with one warning saying how many dispatches
and how large; a larger one is no replay noise and is refused naming the
dispatch.

The LDS is not a memory level here (as in the mi250-gcd profile); its
traffic is not read. A counter is looked up as ``X_sum`` (rocprof-compute,
rocprofv3's derived sums), else ``X`` (rocprofv3 sums a counter's instances
when it writes it), else the sum of its per-instance columns ``X[0]``,
``X[1]``, ... (rocprof v1/v2).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


MOP_FLOP = 512.0
CACHE_LINE = 64.0          # bytes per vL1D access and per vL1D -> L2 request, as rocprof-compute counts them
# A negative difference of counters from different replay passes counts as 0
# up to this share of the total it is taken from; beyond, it is refused.
REPLAY_TOLERANCE = 0.01
_VALU = {"fp16": "F16", "fp32": "F32", "fp64": "F64"}
_VALU_OPS = (("ADD", 1.0), ("MUL", 1.0), ("TRANS", 1.0), ("FMA", 2.0))
_MFMA = {"tensor_fp16": "F16", "tensor_bf16": "BF16", "tensor_fp64": "F64", "tensor_int8": "I8",
         "tensor_fp8": "F8", "tensor_fp6": "F6F4"}
_UNPLACED = {"XF32": "XF32"}
_L2_PARTS = ("TCP_TCC_READ_REQ", "TCP_TCC_WRITE_REQ", "TCP_TCC_ATOMIC_WITH_RET_REQ",
             "TCP_TCC_ATOMIC_WITHOUT_RET_REQ")

# What to collect, for the advice when a file has none of it.
FLOP_COUNTERS = tuple(f"SQ_INSTS_VALU_{op}_{p}" for p in ("F16", "F32", "F64") for op, _ in _VALU_OPS) + \
    tuple(f"SQ_INSTS_VALU_MFMA_MOPS_{t}" for t in ("F16", "BF16", "F32", "F64", "I8", "F8"))
BYTE_COUNTERS_MI300 = ("TCP_TOTAL_CACHE_ACCESSES_sum",) + tuple(p + "_sum" for p in _L2_PARTS) + (
    "TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum", "TCC_BUBBLE_sum", "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum")
BYTE_COUNTERS_MI200 = ("TCP_TOTAL_CACHE_ACCESSES_sum",) + tuple(p + "_sum" for p in _L2_PARTS) + (
    "TCC_EA_RDREQ_sum", "TCC_EA_RDREQ_32B_sum", "TCC_EA_WRREQ_sum", "TCC_EA_WRREQ_64B_sum")


class Counters(Protocol):
    """Counter columns by name (one value per dispatch, NaN where a dispatch
    has none); readers parse a column only when it is asked for."""

    def get(self, name: str) -> np.ndarray | None: ...

    def names(self) -> list[str]: ...


class CounterError(ValueError):
    """A formula gave a negative amount at dispatch ``index`` (counters that
    cannot be from one dispatch): the reader names the line or record."""

    def __init__(self, index: int, message: str):
        super().__init__(message)
        self.index = index
        self.message = message


@dataclass
class AmdWork:
    """Per-dispatch FLOP and bytes (NaN where not collected), and notes."""

    flops: dict[str, np.ndarray] = field(default_factory=dict)
    bytes: dict[str, np.ndarray] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # (what, dispatches clamped, dispatches with a value, most negative, largest share of its total)
    clamped: list[tuple] = field(default_factory=list)


_INSTANCE = re.compile(r"^(.+)\[(\d+)\]$")


def lookup(counters: Counters, base: str) -> np.ndarray | None:
    """``base_sum``, else ``base``, else the sum of ``base[i]`` columns."""
    for name in (base + "_sum", base):
        v = counters.get(name)
        if v is not None:
            return v
    parts = [n for n in counters.names() if (m := _INSTANCE.match(n)) and m.group(1) == base]
    if not parts:
        return None
    return np.sum([counters.get(n) for n in parts], axis=0)


def amd_work(counters: Counters, wave_size: np.ndarray) -> AmdWork:
    """Apply the rules of the module docstring to every dispatch."""
    out = AmdWork()
    _valu(counters, wave_size, out)
    _mfma(counters, out)
    _levels(counters, out)
    if out.clamped:
        out.notes.append(_clamp_note(out.clamped))
    return out


def _valu(counters: Counters, wave_size: np.ndarray, out: AmdWork) -> None:
    for precision, suffix in _VALU.items():
        found, missing, total = [], [], None
        for op, weight in _VALU_OPS:
            v = counters.get(f"SQ_INSTS_VALU_{op}_{suffix}")
            if v is None:
                missing.append(op)
                continue
            found.append(op)
            total = weight * v if total is None else total + weight * v
        if total is None:
            continue
        out.flops[precision] = wave_size * total
        if missing:
            out.notes.append(f"{precision} work counts only {'/'.join(found)} instructions "
                             f"({'/'.join(missing)} not collected): a lower bound")


def _mfma(counters: Counters, out: AmdWork) -> None:
    for precision, t in _MFMA.items():
        v = counters.get(f"SQ_INSTS_VALU_MFMA_MOPS_{t}")
        if v is not None and np.nansum(v) > 0:     # a zero count adds nothing but a column
            out.flops[precision] = MOP_FLOP * v
    f32 = counters.get("SQ_INSTS_VALU_MFMA_MOPS_F32")
    if f32 is not None:                             # matrix fp32 shares the fp32 roof
        if "fp32" not in out.flops:
            out.notes.append("fp32 work counts only MFMA F32 (no SQ_INSTS_VALU_*_F32 collected): a lower bound")
        out.flops["fp32"] = out.flops.get("fp32", 0.0) + MOP_FLOP * f32
    for t, what in _UNPLACED.items():
        v = counters.get(f"SQ_INSTS_VALU_MFMA_MOPS_{t}")
        if v is not None and np.nansum(v) > 0:
            out.notes.append(f"{MOP_FLOP * np.nansum(v):.4g} FLOP of {what} matrix work left out: "
                             "rocprof-compute's roofline does not count it")


def _levels(counters: Counters, out: AmdWork) -> None:
    l1 = lookup(counters, "TCP_TOTAL_CACHE_ACCESSES")
    if l1 is not None:
        out.bytes["L1"] = CACHE_LINE * l1
    parts = {p: lookup(counters, p) for p in _L2_PARTS}
    if parts["TCP_TCC_READ_REQ"] is not None and parts["TCP_TCC_WRITE_REQ"] is not None:
        present = [v for v in parts.values() if v is not None]
        out.bytes["L2"] = CACHE_LINE * np.sum(present, axis=0)
        if len(present) < len(parts):
            out.notes.append("L2 bytes leave out atomics (TCP_TCC_ATOMIC_*_REQ not collected): a lower bound")
    dram = _hbm_mi300(counters, out) if lookup(counters, "TCC_EA0_RDREQ") is not None else \
        _hbm_mi200(counters, out) if lookup(counters, "TCC_EA_RDREQ") is not None else _hbm_sizes(counters, out)
    if dram is not None:
        out.bytes["DRAM"] = dram


def _hbm_mi300(c: Counters, out: AmdWork) -> np.ndarray:
    rd, rd32 = lookup(c, "TCC_EA0_RDREQ"), _or_zero(c, "TCC_EA0_RDREQ_32B", out)
    bubble = _or_zero(c, "TCC_BUBBLE", out, "128-byte reads counted as 64 bytes")
    rd64 = _not_negative(rd - bubble - rd32, rd, "64-byte reads (TCC_EA0_RDREQ - TCC_BUBBLE - TCC_EA0_RDREQ_32B)",
                         out)
    return 128.0 * bubble + 32.0 * rd32 + 64.0 * rd64 + _writes(c, "TCC_EA0_WRREQ", out)


def _hbm_mi200(c: Counters, out: AmdWork) -> np.ndarray:
    rd, rd32 = lookup(c, "TCC_EA_RDREQ"), _or_zero(c, "TCC_EA_RDREQ_32B", out)
    rd64 = _not_negative(rd - rd32, rd, "64-byte reads (TCC_EA_RDREQ - TCC_EA_RDREQ_32B)", out)
    return 32.0 * rd32 + 64.0 * rd64 + _writes(c, "TCC_EA_WRREQ", out)


def _writes(c: Counters, base: str, out: AmdWork):
    wr = lookup(c, base)
    if wr is None:
        out.notes.append(f"DRAM bytes count only reads ({base}_sum not collected): a lower bound")
        return 0.0
    wr64 = _or_zero(c, base + "_64B", out)
    wr32 = _not_negative(wr - wr64, wr, f"32-byte writes ({base} - {base}_64B)", out)
    return 32.0 * wr32 + 64.0 * wr64


def _hbm_sizes(c: Counters, out: AmdWork) -> np.ndarray | None:
    fetch, write = lookup(c, "FETCH_SIZE"), lookup(c, "WRITE_SIZE")
    if fetch is None and write is None:
        return None
    if fetch is None or write is None:
        out.notes.append(f"DRAM bytes count only {'writes' if fetch is None else 'reads'} "
                         f"({'FETCH_SIZE' if fetch is None else 'WRITE_SIZE'} not collected): a lower bound")
    return 1024.0 * ((0.0 if fetch is None else fetch) + (0.0 if write is None else write))


def _or_zero(c: Counters, base: str, out: AmdWork, effect: str = "") -> np.ndarray | float:
    """A request-size counter, or 0 with a note (the requests it splits off
    are then counted at the other size)."""
    v = lookup(c, base)
    if v is None:
        out.notes.append(f"DRAM bytes: {base}_sum not collected, "
                         f"{effect or 'its requests counted at the other size'}")
        return 0.0
    return v


def _not_negative(values, total, what: str, out: AmdWork):
    """``values`` (a total minus the requests split off it) with small
    negatives set to 0 and noted in ``out.clamped``; a CounterError at the
    first dispatch where the negative is beyond :data:`REPLAY_TOLERANCE`
    of ``total`` (not replay noise: not one kernel's counts)."""
    values = np.asarray(values, dtype=np.float64)
    total = np.broadcast_to(np.asarray(total, dtype=np.float64), values.shape)
    negative = values < 0
    if not negative.any():
        return values
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(total > 0, -values / np.where(total > 0, total, 1.0), np.inf)
    bad = np.flatnonzero(negative & ~(share <= REPLAY_TOLERANCE))
    if bad.size:
        i = int(bad[0])
        raise CounterError(i, f"{what} come out negative ({values[i]:.6g}, {_share(share[i])} of the total "
                           f"{total[i]:.6g}): the request-size counters exceed the total they split by more "
                           f"than the {REPLAY_TOLERANCE:.0%} that counters from different replay passes can differ")
    out.clamped.append((what, int(negative.sum()), int(np.count_nonzero(~np.isnan(values))),
                        float(values[negative].min()), float(values[negative].max()),
                        float(share[negative].max()), float(np.nanmedian(total[negative]))))
    return np.where(negative, 0.0, values)


def _share(share: float) -> str:
    return "more than all" if not np.isfinite(share) else f"{share:.2%}"


def _clamp_note(clamped: list[tuple]) -> str:
    """One warning for every formula that had small negatives."""
    parts = [f"{what}: {n} of {m} dispatches, {lo:.6g} to {hi:.6g} (at most {share:.2%} of a total of "
             f"typically {typical:.6g})" for what, n, m, lo, hi, share, typical in clamped]
    return ("slightly negative counter differences counted as 0 — " + "; ".join(parts) + ". The counters come "
            "from different replay passes of each kernel (what does not fit one hardware pass is collected in "
            "another run), so a total and the parts split off it need not match exactly; differences beyond "
            f"{REPLAY_TOLERANCE:.0%} of the total are refused")
