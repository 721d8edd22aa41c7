"""NVIDIA data-center Blackwell (compute capability 10.0): B200 (HGX B200,
up to 1000 W) and GB200 (the B200 GPU of a Grace Blackwell superchip, up to
1200 W, with the NVLink-C2C host link, as gh200 is for Hopper).

NVIDIA publishes totals, not clocks: the per-SM rates are Hopper's doubled
for the tensor cores (8192 dense FP16 FLOP/clk/SM, 4096 on H100) and
Hopper's for the vector units, and the clocks are the ones at which 148 SMs
give NVIDIA's totals (the tensor clock from the FP16/BF16 figure, the boost
clock from the FP32 one). Third-party databases list the same clocks.
"""
from __future__ import annotations

from .sources import HOPPER_SM, SRC, L2_RATE_AMPERE, l2_src
from .spec import GpuSpec, gib, mib, scale_up_link

SMS = 148
BLACKWELL_DC_TENSOR = {"tensor_fp64": 128, "tensor_tf32": 4096, "tensor_fp16": 8192, "tensor_bf16": 8192,
                       "tensor_fp8": 16384, "tensor_int8": 16384, "tensor_fp4": 32768}


def _clock(total_flop_s: float, flop_per_sm_per_clk: int) -> float:
    """The clock at which 148 SMs of ``flop_per_sm_per_clk`` give ``total_flop_s``."""
    return total_flop_s / (SMS * flop_per_sm_per_clk)


def _src(boost_tf: int, dense_pf: float, which: str) -> dict:
    return {
        "units": (f"148 SMs: {SRC['tl_b200_trace']} and {SRC['cc_b200']}; per SM the Hopper SM's vector units "
                  f"(128 FP32 and 64 FP64 FMA, {SRC['hopper']}); NVIDIA's totals: {SRC['b200_specs']}"),
        "clock": (f"derived: {boost_tf} TFLOP/s FP32 / (148 SMs x 256 FLOP/clk), NVIDIA's {which} FP32 figure "
                  f"({SRC['b200_specs']}); {SRC['hmc_b200']}"),
        "tensor": (f"dense = NVIDIA's sparse figures / 2 ({SRC['b200_specs']}; {SRC['blackwell_launch']}): "
                   f"{dense_pf:g} PFLOP/s FP16/BF16 = 148 SMs x 8192 FLOP/clk (twice Hopper's 4096, "
                   f"{SRC['hopper']}) x the tensor clock, which is derived from it; FP8/INT8 twice FP16, FP4 four "
                   "times, TF32 half; FP64 tensor at the FP64 vector rate and boost clock"),
        "l1": (f"128 B/clk/SM, {SRC['cuda_guide']}; 256 KB L1/shared per SM: {SRC['cc_b200']}"),
        "l2": l2_src(f"assumption: 128 = 16 512-bit memory controllers (8 HBM3e stacks) x 8 slices each, as GA100 "
                     f"and GV100 ({SRC['ncu_slices']}); 126 MB in two partitions, one per die: {SRC['cc_b200']}",
                     L2_RATE_AMPERE),
    }


NOTES = {
    "tensor_fp8": "FP6 runs at the FP8 rate (NVIDIA: 'FP8/FP6'): with no tensor_fp6 roof, FP6 work falls back here",
    "tensor_tf32": "NVIDIA's TF32 figure (2.2 PFLOP/s sparse on HGX B200) is 4096 FLOP/clk/SM rounded down",
    "tensor_fp16": "FP16 and FP8 MMA accumulate in FP32 at this rate on data-center Blackwell",
    "fp16": ("assumption: non-tensor FP16/BF16 at twice the FP32 rate, as on Hopper; third-party databases "
             f"list it so ({SRC['hmc_b200']})"),
    "bf16": "assumption: as fp16",
    "l2": ("two L2 partitions, one per die; data in the other die's partition is reached across the die-to-die "
           "link (10 TB/s) at a latency cost: the roof is the sum of both"),
    "dies": "two dies of 74 enabled SMs (of 80) seen by software as one GPU",
}
LINK = scale_up_link("NVLink 5", 18, 100e9, f"{SRC['b200_specs']}; 18 links: {SRC['vultr_b200']}", "published",
                     topology="through NVSwitch: every GPU reaches every other at the full 1.8 TB/s")


SPECS: tuple[GpuSpec, ...] = (
    GpuSpec(
        stem="b200", name="NVIDIA B200", chip="B200 (2 dies)", family="Blackwell",
        compute_capability="10.0", sms=SMS, boost_clock_hz=1980e6, tensor_clock_hz=_clock(2.25e15, 8192),
        fma_per_sm=HOPPER_SM, schedulers_per_sm=4, tensor_flop_per_sm=BLACKWELL_DC_TENSOR,
        memory_type="HBM3e", bus_bits=8192, data_rate_bps=8e12 / 1024, dram_bytes=gib(180),
        l2_bytes=mib(126), l1_bytes_per_sm=256 * 1024, l2_slices=128, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16,
        src={**_src(75, 2.25, "HGX B200"),
             "dram": (f"8 HBM3e stacks of 1024 bits, 8 TB/s ({SRC['blackwell_launch']}); per-pin rate "
                      "back-derived from it")},
        basis={"l1": "derived", "l2": "assumption"},
        notes={**NOTES,
               "dram": (f"8 TB/s as NVIDIA announced the B200 ({SRC['blackwell_launch']}); NVIDIA's later HGX "
                        f"B200 table lists 7.7 TB/s (7.5 Gbit/s per pin), 4 % lower ({SRC['b200_specs']}). 180 GB "
                        f"usable of 192 GB: the runtime reports 178.4 GiB ({SRC['tl_b200_trace']})"),
               "pcie": f"PCIe Gen5 x16 (NVIDIA: 128 GB/s both ways), {SRC['b200_specs']}",
               "clock": ("vector peaks at the 1980 MHz boost clock, tensor peaks at the lower clock NVIDIA's "
                         "totals imply (1856 MHz), as on H100 (1980 and 1830 MHz)")},
        extra={"scale_up_link": LINK, "dies": 2}),
    GpuSpec(
        stem="gb200", name="NVIDIA GB200", chip="B200 (2 dies)", family="Blackwell",
        compute_capability="10.0", sms=SMS, boost_clock_hz=2112e6, tensor_clock_hz=_clock(2.5e15, 8192),
        fma_per_sm=HOPPER_SM, schedulers_per_sm=4, tensor_flop_per_sm=BLACKWELL_DC_TENSOR,
        memory_type="HBM3e", bus_bits=8192, data_rate_bps=8e12 / 1024, dram_bytes=186e9,
        l2_bytes=mib(126), l1_bytes_per_sm=256 * 1024, l2_slices=128, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16, host_link="NVLink-C2C", host_link_bidirectional_bytes_s=900e9,
        src={**_src(80, 2.5, "GB200"),
             "dram": f"8 HBM3e stacks of 1024 bits; 186 GB at 8 TB/s: {SRC['b200_specs']}",
             "host": (f"{SRC['gb200_c2c']}; assumption: one GPU can use the whole link (the superchip's two GPUs "
                      "share the Grace CPU's NVLink-C2C; with both copying each gets about half)")},
        basis={"l1": "derived", "l2": "assumption"},
        notes={**NOTES,
               "gb200": ("one B200 GPU of a GB200 superchip (Grace CPU + 2 B200) at up to 1200 W: the B200's SMs "
                         "and memory at higher clocks (NVIDIA: 5 PFLOP/s FP16/BF16 sparse, 80 TFLOP/s FP32)"),
               "dram": "186 GB per GPU (GB200 NVL72); per-pin rate back-derived from 8 TB/s",
               "clock": ("vector peaks at 2112 MHz, tensor peaks at the 2062 MHz NVIDIA's totals imply")},
        extra={"scale_up_link": {**LINK, "topology": ("GB200 NVL72: 72 GPUs in one NVLink domain through NVSwitch "
                                                      "trays, each at 1.8 TB/s")}, "dies": 2}),
)
