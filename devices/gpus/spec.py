"""The parameters of one GPU product, as the datasheet table gives them.

Sizes are in bytes (:func:`kib`, :func:`mib`, :func:`gib` convert the units
datasheets use), rates and clocks in SI units. Every L1 and L2 figure says
how firm it is (:data:`BASIS`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class GpuSpec:
    """Published architecture parameters of one GPU product (SI units).

    ``fma_per_sm`` counts FMA results per SM per clock (half2 counts two);
    ``tensor_flop_per_sm`` is dense tensor-core FLOP per SM per clock.
    ``src`` names where each group of parameters comes from; ``basis``
    says how firm each cache level's figure is (:data:`BASIS`).
    """

    stem: str
    name: str
    chip: str
    family: str
    compute_capability: str | None       # NVIDIA's; None for AMD (see extra: gfxip_version)
    sms: int                             # SMs, or compute units (CUs) on AMD
    boost_clock_hz: float
    fma_per_sm: Mapping[str, int]
    schedulers_per_sm: int
    memory_type: str
    bus_bits: int
    data_rate_bps: float
    dram_bytes: float
    l2_bytes: float
    l1_bytes_per_sm: int
    pcie_gen: int
    pcie_lanes: int
    src: Mapping[str, str]
    tensor_flop_per_sm: Mapping[str, int] = field(default_factory=dict)
    tensor_clock_hz: float | None = None  # Hopper quotes low-precision tensor peaks lower
    l1_bytes_per_clk: int | None = 128
    l2_slices: int | None = None
    l2_slice_bytes_per_clk: int | None = None
    basis: Mapping[str, str] = field(default_factory=dict)
    host_link: str | None = None                 # a CPU-GPU link other than PCIe (NVLink-C2C)
    host_link_bidirectional_bytes_s: float | None = None
    notes: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping[str, object] = field(default_factory=dict)
    vendor: str = "NVIDIA"
    # warp (wavefront) instructions each scheduler issues per clock: 1 on NVIDIA
    # (Ding & Williams); a CDNA SIMD takes 4 clocks over a wave64 VALU instruction
    instr_per_clk_per_scheduler: float = 1.0
    transaction_bytes: Mapping[str, int] = field(default_factory=dict)   # by level; default 32 B sectors

    @property
    def l2_bytes_per_clk(self) -> int | None:
        if self.l2_slices is None or self.l2_slice_bytes_per_clk is None:
            return None
        return self.l2_slices * self.l2_slice_bytes_per_clk


# How firm a cache level's per-clock figure is; every L1 and L2 source names one.
BASIS = {
    "published": "the per-clock figure is published for this chip (whitepaper or paper)",
    "derived": "computed from figures published for the same SM or L2 design",
    "assumption": "at least one parameter is assumed (the source names which and why)",
}


def kib(n: float) -> float:
    return float(n * 1024)


def mib(n: float) -> float:
    return float(n * 1024 ** 2)


def gib(n: float) -> float:
    return float(n * 1024 ** 3)
