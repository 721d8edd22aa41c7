"""Theoretical peaks from device attributes and the clock actually observed.

Per-SM, per-clock rates by compute capability, from NVIDIA's CUDA
programming guide (arithmetic instruction throughput) and the architecture
whitepapers (V100, T4/Turing, A100, GA102, AD102, H100). FLOP count an FMA
as 2; integer ops count an IMAD as 2; tensor rates are dense (no sparsity).
Compute capabilities not in the table get no theoretical figure (the
measured value is then shown without a percentage) rather than a guess.
"""
from __future__ import annotations

import re
from types import MappingProxyType
from typing import Mapping

# FLOP (or integer ops) per clock per SM.
_VOLTA = {"fp64": 64, "fp32": 128, "fp16": 256, "int32": 128}
_TURING = {"fp64": 4, "fp32": 128, "fp16": 256, "int32": 128, "tensor_fp16": 1024}
_AMPERE_DC = {"fp64": 64, "fp32": 128, "fp16": 512, "bf16": 256, "int32": 128,
              "tensor_fp16": 2048, "tensor_bf16": 2048, "tensor_tf32": 1024, "tensor_int8": 4096}
_AMPERE_GA10X = {"fp64": 4, "fp32": 256, "fp16": 256, "bf16": 256, "int32": 128,
                 "tensor_fp16": 1024, "tensor_bf16": 1024, "tensor_tf32": 512, "tensor_int8": 2048}
_HOPPER = {"fp64": 128, "fp32": 256, "fp16": 512, "bf16": 512, "int32": 128,
           "tensor_fp16": 4096, "tensor_bf16": 4096, "tensor_tf32": 2048, "tensor_int8": 8192}

PER_SM_PER_CLOCK: Mapping[tuple[int, int], Mapping[str, float]] = MappingProxyType({
    (7, 0): _VOLTA, (7, 5): _TURING, (8, 0): _AMPERE_DC, (8, 6): _AMPERE_GA10X,
    (8, 9): _AMPERE_GA10X, (9, 0): _HOPPER,
})

# Export-controlled boards keep their chip's compute capability but cap some
# rates (FLOP/clk/SM, matched as a whole word of the device name): NVIDIA's
# H800 datasheet gives FP64 1 TFLOP/s, i.e. 4 on 132 SMs; the H20's totals
# (FP64 1, TF32 74, FP16/BF16 148, INT8 296 TFLOP/s dense) on 78 SMs are a
# quarter of Hopper's tensor rates and 6 FP64 (roofline.devices.gpus.ampere_hopper).
_CAPPED = {"h800": {"fp64": 4},
           "h20": {"fp64": 6, "tensor_tf32": 512, "tensor_fp16": 1024, "tensor_bf16": 1024,
                   "tensor_int8": 2048}}

# GeForce boards run FP16/BF16/TF32 tensor math with FP32 accumulation (what
# the kernels measure) at half the rate of the professional boards.
_HALF_RATE_FP32_ACCUMULATE = ("tensor_fp16", "tensor_bf16", "tensor_tf32")

# Since Volta: 4 schedulers per SM, each issuing one warp instruction a
# clock; the L1 and shared memory deliver 128 bytes a clock per SM.
SCHEDULERS_PER_SM = 4
L1_BYTES_PER_CLOCK = 128
SHARED_BYTES_PER_CLOCK = 128

# PCIe usable rate per lane and direction after line coding, bytes/s.
PCIE_LANE_BYTES_S = MappingProxyType({1: 0.25e9, 2: 0.5e9, 3: 0.985e9, 4: 1.969e9,
                                      5: 3.938e9, 6: 7.563e9})


def per_sm_per_clock(cc: tuple[int, int], name: str = "") -> Mapping[str, float] | None:
    """FLOP (ops) per clock per SM by ceiling for compute capability ``cc``,
    with the caps of the export-controlled board ``name`` names."""
    table = PER_SM_PER_CLOCK.get(tuple(cc))
    if table is None:
        return None
    for board, caps in _CAPPED.items():
        if re.search(rf"\b{board}\b", name.lower()):
            return MappingProxyType({**table, **{k: v for k, v in caps.items() if k in table}})
    return table


def compute_peak(ceiling: str, cc: tuple[int, int], sm_count: int, sm_clock_hz: float,
                 name: str = "") -> float | None:
    """Theoretical FLOP/s (ops/s) of ``ceiling`` at ``sm_clock_hz``, or None."""
    table = per_sm_per_clock(cc, name)
    if table is None or ceiling not in table or not sm_clock_hz:
        return None
    rate = table[ceiling] * sm_count * sm_clock_hz
    if ceiling in _HALF_RATE_FP32_ACCUMULATE and "geforce" in name.lower() and cc != (8, 0):
        rate /= 2
    return float(rate)


def instruction_peak(cc: tuple[int, int], sm_count: int, sm_clock_hz: float) -> float | None:
    """Warp instructions per second: SMs x schedulers x 1 x clock (sm_70+)."""
    if cc[0] < 7 or not sm_clock_hz:
        return None
    return float(sm_count * SCHEDULERS_PER_SM * sm_clock_hz)


def onchip_peak(level: str, cc: tuple[int, int], sm_count: int, sm_clock_hz: float) -> float | None:
    """L1 or shared-memory bytes/s over all SMs (sm_70+); L2 has no simple figure."""
    if cc[0] < 7 or not sm_clock_hz:
        return None
    per_clock = {"L1": L1_BYTES_PER_CLOCK, "shared": SHARED_BYTES_PER_CLOCK}.get(level)
    return None if per_clock is None else float(per_clock * sm_count * sm_clock_hz)


def dram_peak(memory_clock_hz: float, bus_width_bits: int) -> float | None:
    """Bytes/s: clock x 2 (double data rate) x bus width / 8, with the memory
    clock as NVML reports it (A100: 1215 MHz x 5120 bit -> 1.555 TB/s;
    RTX 4090: 10501 MHz x 384 bit -> 1.008 TB/s)."""
    if not memory_clock_hz or not bus_width_bits:
        return None
    return float(memory_clock_hz * 2 * bus_width_bits / 8)


def pcie_peak(generation: int, width: int) -> float | None:
    """Bytes/s per direction of a PCIe link."""
    lane = PCIE_LANE_BYTES_S.get(int(generation))
    return None if lane is None or not width else float(lane * width)
