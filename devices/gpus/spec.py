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
    # a memory-side cache between L2 and DRAM (AMD's Infinity Cache, "MALL"): the L3 level
    l3_bytes: float | None = None
    l3_channels: int | None = None
    l3_channel_bytes_per_clk: int | None = None
    l3_name: str = "Infinity Cache (MALL)"

    @property
    def l2_bytes_per_clk(self) -> int | None:
        if self.l2_slices is None or self.l2_slice_bytes_per_clk is None:
            return None
        return self.l2_slices * self.l2_slice_bytes_per_clk

    @property
    def l3_bytes_per_clk(self) -> int | None:
        if self.l3_channels is None or self.l3_channel_bytes_per_clk is None:
            return None
        return self.l3_channels * self.l3_channel_bytes_per_clk


# How firm a cache level's per-clock figure is; every L1 and L2 source names one.
BASIS = {
    "published": "the per-clock figure is published for this chip (whitepaper or paper)",
    "derived": "computed from figures published for the same SM or L2 design",
    "assumption": "at least one parameter is assumed (the source names which and why)",
}


def scale_up_link(link: str, links: int | None, per_link_bidirectional_bytes_s: float | None,
                  source: str, basis: str = "published", **more) -> dict:
    """The GPU-to-GPU (scale-up) link, kept in a profile's architecture block
    (``extra["scale_up_link"]``) for collective-communication models; it is
    not a roofline level. Rates are bidirectional (both directions added),
    as NVIDIA and AMD quote them; ``basis`` says how firm the rate is."""
    if basis not in BASIS:
        raise ValueError(f"scale-up link basis must be one of {', '.join(BASIS)}")
    out: dict = {"link": link, "links": links,
                 "per_link_bidirectional_bytes_s": (None if per_link_bidirectional_bytes_s is None
                                                    else float(per_link_bidirectional_bytes_s))}
    if links is not None and per_link_bidirectional_bytes_s is not None:
        out["bidirectional_bytes_s"] = float(links * per_link_bidirectional_bytes_s)
    out.update(more)
    out.update({"basis": basis, "source": source})
    return out


def kib(n: float) -> float:
    return float(n * 1024)


def mib(n: float) -> float:
    return float(n * 1024 ** 2)


def gib(n: float) -> float:
    return float(n * 1024 ** 3)
