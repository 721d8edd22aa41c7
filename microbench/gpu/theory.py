"""Theoretical peaks from device attributes and the clock actually observed.

The per-SM, per-clock rates are the datasheet table's
(:mod:`roofline.devices.gpus`, each figure with its whitepaper): the spec
of the board the device names (an H20 or H800 keeps its chip's compute
capability but not its rates), else the first professional board of the
same compute capability. FLOP count an FMA as 2, integer ops an IMAD as 2;
tensor rates are dense (no sparsity) and, on GeForce boards, with FP32
accumulate (what the kernels measure). Compute capabilities without a spec
get no theoretical figure (the measured value is then shown without a
percentage) rather than a guess. The link and DRAM formulas are
:mod:`roofline.devices.datasheet`'s.
"""
from __future__ import annotations

import re
from types import MappingProxyType
from typing import Mapping

from ...devices import datasheet
from ...devices.gpus import SPECS, GpuSpec
from ...devices.gpus.sources import (GEFORCE_FP32_ACCUMULATE_KEYS, GEFORCE_FP32_ACCUMULATE_SHARE, INT32_IMAD_CC,
                                     INT32_IMAD_PER_SM)

# Since Volta the shared memory delivers 128 bytes a clock per SM (CUDA C++
# Programming Guide); the L1 rate is the spec's own (64 B/clk on Turing).
SHARED_BYTES_PER_CLOCK = 128
_MODEL = re.compile(r"\S*\d\S*")


def _model(spec: GpuSpec) -> str:
    """The board's model word ("H800", "A10G", "4090"): the first word of its
    name with a digit, after the vendor's."""
    match = _MODEL.search(spec.name.removeprefix("NVIDIA "))
    return match.group(0).lower() if match else ""


def spec_for(cc: tuple[int, int], name: str = "") -> GpuSpec | None:
    """The datasheet spec of the board ``name`` names, else the first
    non-GeForce spec of compute capability ``cc`` (else its first), else None."""
    same = [s for s in SPECS if s.compute_capability == f"{cc[0]}.{cc[1]}"]
    words = set(re.split(r"[\s_/-]+", name.lower()))
    named = [s for s in same if _model(s) and _model(s) in words]
    if named:
        return named[0]
    professional = [s for s in same if "geforce" not in s.name.lower()]
    return (professional or same or [None])[0]


def per_sm_per_clock(cc: tuple[int, int], name: str = "") -> Mapping[str, float] | None:
    """FLOP (ops) per clock per SM by ceiling for compute capability ``cc``
    on the board ``name``, or None where no spec has that capability."""
    spec = spec_for(tuple(cc), name)
    if spec is None:
        return None
    table = {key: 2.0 * fma for key, fma in spec.fma_per_sm.items()}
    table.update({key: float(flop) for key, flop in spec.tensor_flop_per_sm.items()})
    if INT32_IMAD_CC[0] <= tuple(cc) <= INT32_IMAD_CC[1]:
        table["int32"] = 2.0 * INT32_IMAD_PER_SM
    accumulate = dict(spec.extra).get("tensor_fp32_accumulate_flop_per_sm_per_clk")
    if accumulate:       # the spec's own FP32-accumulate rates
        table.update({key: float(v) for key, v in accumulate.items()})
    elif "geforce" in name.lower() and "geforce" not in spec.name.lower() and tuple(cc) != (8, 0):
        for key in GEFORCE_FP32_ACCUMULATE_KEYS:
            if key in table:
                table[key] *= GEFORCE_FP32_ACCUMULATE_SHARE
    return MappingProxyType(table)


def compute_peak(ceiling: str, cc: tuple[int, int], sm_count: int, sm_clock_hz: float,
                 name: str = "") -> float | None:
    """Theoretical FLOP/s (ops/s) of ``ceiling`` at ``sm_clock_hz``, or None."""
    table = per_sm_per_clock(cc, name)
    if table is None or ceiling not in table or not sm_clock_hz:
        return None
    return datasheet.flop_rate(sm_count, table[ceiling], sm_clock_hz)


def instruction_peak(cc: tuple[int, int], sm_count: int, sm_clock_hz: float, name: str = "") -> float | None:
    """Warp instructions per second: SMs x schedulers x 1 x clock (sm_70+)."""
    spec = spec_for(tuple(cc), name)
    if cc[0] < 7 or spec is None or not sm_clock_hz:
        return None
    return datasheet.warp_instruction_rate(sm_count, spec.schedulers_per_sm, sm_clock_hz)


def onchip_peak(level: str, cc: tuple[int, int], sm_count: int, sm_clock_hz: float,
                name: str = "") -> float | None:
    """L1 or shared-memory bytes/s over all SMs (sm_70+); L2 has no simple figure."""
    spec = spec_for(tuple(cc), name)
    if cc[0] < 7 or spec is None or not sm_clock_hz:
        return None
    per_clock = {"L1": spec.l1_bytes_per_clk, "shared": SHARED_BYTES_PER_CLOCK}.get(level)
    return None if not per_clock else datasheet.per_clock_bandwidth(sm_count, per_clock, sm_clock_hz)


def dram_peak(memory_clock_hz: float, bus_width_bits: int) -> float | None:
    """Bytes/s: clock x 2 (double data rate) x bus width / 8, with the memory
    clock as NVML reports it (A100: 1215 MHz x 5120 bit -> 1.555 TB/s;
    RTX 4090: 10501 MHz x 384 bit -> 1.008 TB/s)."""
    if not memory_clock_hz or not bus_width_bits:
        return None
    return datasheet.dram_bandwidth(int(bus_width_bits), 2 * memory_clock_hz)


def pcie_peak(generation: int, width: int) -> float | None:
    """Bytes/s per direction of a PCIe link."""
    if int(generation) not in datasheet.PCIE_GT_S or not width:
        return None
    return datasheet.pcie_bandwidth(int(generation), int(width))
