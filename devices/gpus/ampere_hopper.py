"""NVIDIA Ampere and Hopper GPUs: A100, A10/A10G, H100, H800, H200, GH200, H20.
"""
from __future__ import annotations

from .sources import (A100_SRC, A100_TENSOR, AMPERE_SM, GA10X_SM, GA10X_TENSOR, H100_SRC, H100_TENSOR,
                      H200_L2, HOPPER_BASIS, HOPPER_SM, L2_RATE_AMPERE, PUBLISHED, SRC, hopper_l2,
                      l2_src)
from .spec import GpuSpec, gib, mib, scale_up_link

# H20: NVIDIA publishes totals only, and its tensor rates are cut far below H100's. With 78 SMs (a
# third-party figure) the per-SM rates are a quarter of Hopper's tensor rates (1024 dense FP16 FLOP/clk)
# at the clock that gives NVIDIA's 148 TFLOP/s, and the Hopper SM's 128 FP32 FMA at the clock that gives
# its 44 TFLOP/s FP32: both clocks are back-derived, not published.
H20_SMS = 78
H20_BOOST = 44e12 / (H20_SMS * 256)
H20_TENSOR_CLOCK = 148e12 / (H20_SMS * 1024)
H20_ASSUMED = (f"assumption: {H20_SMS} SMs ({SRC['h20_sms']}) and clocks back-derived from NVIDIA's totals "
               f"({SRC['h20']})")
# GPU-to-GPU links (not roofline levels: the roofs of collectives, roofline.devices.links)
A100_LINK = scale_up_link("NVLink 3", 12, 50e9, f"12 links, 600 GB/s: {SRC['ampere']}; {SRC['hgx_a100']}",
                          "published", topology="HGX A100 8-GPU: six NVSwitches, every GPU reaches every other "
                          "at the full 600 GB/s")
H100_LINK = scale_up_link("NVLink 4", 18, 50e9, f"18 links, 900 GB/s: {SRC['hopper']}; {SRC['dgx_basepod']}",
                          "published", topology="HGX H100 8-GPU: four third-generation NVSwitches (NVLink SHARP: "
                          "reductions in the switch)")

SPECS: tuple[GpuSpec, ...] = (
    GpuSpec(
        stem="a100-40gb-sxm", name="NVIDIA A100 40GB SXM4", chip="GA100", family="Ampere",
        compute_capability="8.0", sms=108, boost_clock_hz=1410e6,
        fma_per_sm=AMPERE_SM, schedulers_per_sm=4, tensor_flop_per_sm=A100_TENSOR,
        memory_type="HBM2", bus_bits=5120, data_rate_bps=2.43e9, dram_bytes=gib(40),
        l2_bytes=mib(40), l1_bytes_per_sm=192 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=4, pcie_lanes=16, src=A100_SRC, basis=PUBLISHED, extra={"scale_up_link": A100_LINK}),
    GpuSpec(
        stem="a100-80gb-sxm", name="NVIDIA A100 80GB SXM4", chip="GA100", family="Ampere",
        compute_capability="8.0", sms=108, boost_clock_hz=1410e6,
        fma_per_sm=AMPERE_SM, schedulers_per_sm=4, tensor_flop_per_sm=A100_TENSOR,
        memory_type="HBM2e", bus_bits=5120, data_rate_bps=3.186e9, dram_bytes=gib(80),
        l2_bytes=mib(40), l1_bytes_per_sm=192 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=4, pcie_lanes=16, src=A100_SRC, basis=PUBLISHED, extra={"scale_up_link": A100_LINK}),
    GpuSpec(
        stem="a10", name="NVIDIA A10", chip="GA102", family="Ampere",
        compute_capability="8.6", sms=72, boost_clock_hz=1695e6,
        fma_per_sm=GA10X_SM, schedulers_per_sm=4, tensor_flop_per_sm=GA10X_TENSOR,
        memory_type="GDDR6", bus_bits=384, data_rate_bps=12.5e9, dram_bytes=gib(24),
        l2_bytes=mib(6), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=16,
        l2_slices=24, l2_slice_bytes_per_clk=64,
        src={"units": SRC["ga102"] + " (FP16/BF16 non-tensor at the FP32 rate, FP64 1/64)",
             "clock": SRC["a10ds"] + " (1695 MHz boost: 31.2 TFLOP/s / (9216 cores x 2 FLOP))",
             "tensor": SRC["a10ds"] + " (data-center GA102: FP32 accumulate at the full rate)",
             "dram": SRC["a10ds"],
             "l1": f"assumption: 128 B/clk/SM as on Ada, whose SM extends GA10x's ({SRC['ncu_ad107']})",
             "l2": l2_src(f"24 = 12 32-bit memory controllers x 2, assumed as on Turing "
                           f"({SRC['ncu_slices']}): 6 MB / 24 = 256 KB per slice, {SRC['ga102']}",
                           L2_RATE_AMPERE)},
        basis={"l1": "assumption", "l2": "assumption"}),
    GpuSpec(
        stem="a10g", name="NVIDIA A10G", chip="GA102", family="Ampere",
        compute_capability="8.6", sms=80, boost_clock_hz=1710e6,
        fma_per_sm=GA10X_SM, schedulers_per_sm=4, tensor_flop_per_sm=GA10X_TENSOR,
        memory_type="GDDR6", bus_bits=384, data_rate_bps=12.5e9, dram_bytes=gib(24),
        l2_bytes=mib(6), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=16,
        l2_slices=24, l2_slice_bytes_per_clk=64,
        src={"units": SRC["a10g"] + "; per-SM units: " + SRC["ga102"],
             "clock": ("assumption: 1710 MHz, the boost clock third-party GPU databases and CUDA device "
                       "queries give for the A10G; NVIDIA publishes no A10G datasheet, " + SRC["a10g"]),
             "tensor": ("assumption: per-SM tensor rates of the A10, " + SRC["a10ds"]),
             "dram": ("assumption: the A10's memory (384-bit GDDR6 at 12.5 Gbit/s), " + SRC["a10ds"]
                      + "; 24 GB: " + SRC["a10g"]),
             "l1": f"assumption: 128 B/clk/SM as on Ada, whose SM extends GA10x's ({SRC['ncu_ad107']})",
             "l2": l2_src(f"24 = 12 32-bit memory controllers x 2, assumed as on Turing "
                           f"({SRC['ncu_slices']}): 6 MB / 24 = 256 KB per slice, {SRC['ga102']}",
                           L2_RATE_AMPERE)},
        basis={"l1": "assumption", "l2": "assumption"}),
    GpuSpec(
        stem="h100-sxm", name="NVIDIA H100 SXM5", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=132, boost_clock_hz=1980e6, tensor_clock_hz=1830e6,
        fma_per_sm=HOPPER_SM, schedulers_per_sm=4, tensor_flop_per_sm=H100_TENSOR,
        memory_type="HBM3", bus_bits=5120, data_rate_bps=5.234375e9, dram_bytes=gib(80),
        l2_bytes=mib(50), l1_bytes_per_sm=256 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16, src=H100_SRC, basis=HOPPER_BASIS,
        notes={"dram": "per-pin rate back-derived from the 3.35 TB/s datasheet figure"},
        extra={"scale_up_link": H100_LINK}),
    GpuSpec(
        stem="h800", name="NVIDIA H800 SXM5", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=132, boost_clock_hz=1980e6, tensor_clock_hz=1830e6,
        fma_per_sm={**HOPPER_SM, "fp64": 2}, schedulers_per_sm=4,
        tensor_flop_per_sm={**H100_TENSOR, "tensor_fp64": 4},
        memory_type="HBM3", bus_bits=5120, data_rate_bps=5.234375e9, dram_bytes=gib(80),
        l2_bytes=mib(50), l1_bytes_per_sm=256 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16,
        src={**H100_SRC, "units": f"{SRC['hopper']}; FP64 capped: {SRC['h800ds']}",
             "clock": f"{SRC['hopper']} (H100 SXM5 clocks)",
             "tensor": f"{SRC['hopper']} (tensor peaks except FP64 at the lower tensor clock); {SRC['h800ds']}",
             "dram": SRC["h800ds"]},
        basis=HOPPER_BASIS,
        notes={"fp64": ("FP64 FMA per SM per clock back-derived from the datasheet's 1 TFLOP/s "
                        "(1e12 / (132 x 2 x 1980 MHz) = 1.9, rounded to 2)"),
               "tensor_fp64": "back-derived from the datasheet's 1 TFLOP/s FP64 Tensor Core (3.8, rounded to 4)",
               "dram": "per-pin rate back-derived from the 3.35 TB/s datasheet figure",
               "nvlink": "NVLink 400 GB/s (H100 SXM5: 900 GB/s); not a roofline level"},
        extra={"scale_up_link": {**scale_up_link("NVLink 4", 8, 50e9, f"400 GB/s: {SRC['h800ds']}", "derived"),
                                 "topology": "HGX H800 8-GPU through NVSwitch (as H100, 8 of its 18 links)",
                                 "links_note": "8 links = 400 GB/s / 50 GB/s per NVLink 4 link (H100's rate)"}}),
    GpuSpec(
        stem="h100-pcie", name="NVIDIA H100 PCIe", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=114, boost_clock_hz=1755e6, tensor_clock_hz=1620e6,
        fma_per_sm=HOPPER_SM, schedulers_per_sm=4, tensor_flop_per_sm=H100_TENSOR,
        memory_type="HBM2e", bus_bits=5120, data_rate_bps=3.125e9, dram_bytes=gib(80),
        l2_bytes=mib(50), l1_bytes_per_sm=256 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16,
        src={**H100_SRC, "l2": hopper_l2(f"10 512-bit HBM2e memory controllers ({SRC['cc_h100']})")},
        basis=HOPPER_BASIS,
        notes={"dram": "per-pin rate back-derived from the 2.0 TB/s datasheet figure"},
        extra={"scale_up_link": scale_up_link(
            "PCIe Gen5 x16", 1, 2 * 63e9, f"{SRC['h100ds']}; {SRC['pcie']}", "published",
            topology="GPUs talk over PCIe; an optional NVLink bridge joins pairs at 600 GB/s (give a profile "
                     "with that link for bridged pairs)")}),
    GpuSpec(
        stem="h200", name="NVIDIA H200 SXM", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=132, boost_clock_hz=1980e6, tensor_clock_hz=1830e6,
        fma_per_sm=HOPPER_SM, schedulers_per_sm=4, tensor_flop_per_sm=H100_TENSOR,
        memory_type="HBM3e", bus_bits=6144, data_rate_bps=6.25e9, dram_bytes=141e9,
        l2_bytes=mib(50), l1_bytes_per_sm=256 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16,
        src={**H100_SRC, "clock": SRC["hopper"] + " (H100 SXM5 clocks; H200 datasheet peaks match)",
             "dram": SRC["h200ds"] + " (six 1024-bit HBM3e stacks)", "l2": H200_L2},
        basis=HOPPER_BASIS,
        notes={"dram": "per-pin rate back-derived from the 4.8 TB/s datasheet figure"},
        extra={"scale_up_link": {**H100_LINK, "basis": "published",
                                 "source": f"NVLink 900 GB/s: {SRC['h200ds']}; 18 links: {SRC['hopper']}; "
                                           f"{SRC['dgx_basepod']}"}}),
    GpuSpec(
        stem="gh200", name="NVIDIA GH200 Grace Hopper", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=132, boost_clock_hz=1980e6, tensor_clock_hz=1830e6,
        fma_per_sm=HOPPER_SM, schedulers_per_sm=4, tensor_flop_per_sm=H100_TENSOR,
        memory_type="HBM3", bus_bits=6144, data_rate_bps=4e12 / 768, dram_bytes=gib(96),
        l2_bytes=mib(50), l1_bytes_per_sm=256 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16, host_link="NVLink-C2C", host_link_bidirectional_bytes_s=900e9,
        src={**H100_SRC, "clock": f"{SRC['hopper']} (H100 SXM5 clocks); {SRC['gh200ds']}",
             "dram": SRC["gh200ds"] + " (assumption: six 1024-bit HBM3 stacks of 16 GB)",
             "l2": H200_L2, "host": SRC["gh200ds"]},
        basis=HOPPER_BASIS,
        notes={"dram": ("the 96 GB HBM3 model ('GH200 480GB'); per-pin rate back-derived from "
                        "4 TB/s. The 144 GB HBM3e model has 4.9 TB/s"),
               "l2": "assumption: 50 MB of L2 as on H100 SXM5 (not in the GH200 datasheet)"},
        extra={"scale_up_link": {**H100_LINK, "basis": "derived",
                                 "source": f"the H100's 18 NVLink 4 links ({SRC['hopper']}); {SRC['gh200ds']}",
                                 "topology": "GH200 NVL2/NVL32: GPUs joined through NVSwitch; a lone GH200 "
                                             "has no GPU peer"}}),
    GpuSpec(
        stem="h20", name="NVIDIA H20", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=H20_SMS, boost_clock_hz=H20_BOOST, tensor_clock_hz=H20_TENSOR_CLOCK,
        fma_per_sm={**HOPPER_SM, "fp64": 3}, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_tf32": 512, "tensor_fp16": 1024, "tensor_bf16": 1024, "tensor_fp8": 2048,
                            "tensor_int8": 2048},
        memory_type="HBM3", bus_bits=6144, data_rate_bps=4e12 / 768, dram_bytes=gib(96),
        l2_bytes=mib(60), l1_bytes_per_sm=256 * 1024, l2_slices=96, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16,
        src={"units": f"{H20_ASSUMED}; the Hopper SM: {SRC['hopper']}",
             "clock": (f"derived: 44 TFLOP/s FP32 / (78 SMs x 256 FLOP/clk) = 2204 MHz, above H100 SXM5's 1980; "
                       f"{H20_ASSUMED}"),
             "tensor": (f"NVIDIA's dense totals ({SRC['h20']}): 148 TFLOP/s FP16/BF16 = 78 SMs x 1024 FLOP/clk (a "
                        f"quarter of Hopper's 4096, {SRC['hopper']}) x 1853 MHz; TF32 half, FP8/INT8 twice; "
                        f"{H20_ASSUMED}"),
             "dram": f"{SRC['h20']} (assumption: six 1024-bit HBM3 stacks of 16 GB as on GH200)",
             "l1": f"128 B/clk/SM, {SRC['cuda_guide']}",
             "l2": l2_src(f"assumption: 96 = 12 512-bit controllers (six stacks) x 8 slices, as GA100 and GV100 "
                          f"({SRC['ncu_slices']}); 60 MB / 96 = 640 KB per slice as on H100; 60 MB: {SRC['h20']}",
                          L2_RATE_AMPERE)},
        basis={"l1": "derived", "l2": "assumption"},
        notes={"fp64": ("FP64 FMA per SM back-derived from NVIDIA's 1 TFLOP/s (2.9, rounded to 3); no FP64 "
                        "tensor roof: FP64 MMA falls back to this one"),
               "fp16": "assumption: non-tensor FP16/BF16 at twice FP32 as on the Hopper SM",
               "sms": ("NVIDIA publishes no SM count: 78 SMs and 44 TFLOP/s FP32 imply 2.2 GHz, above any "
                       "published GH100 clock, so one of the two may be off; the roofs reproduce NVIDIA's totals "
                       "either way, the L1 and L2 roofs (which scale with SMs x clock) are the uncertain ones"),
               "tensor": "the H20's tensor throughput is cut to about 15 % of H100 SXM5's, per NVIDIA's totals",
               "dram": "per-pin rate back-derived from 4.0 TB/s on 6144 bits"},
        extra={"scale_up_link": scale_up_link("NVLink 4", 18, 50e9, f"{SRC['h20']}; 18 links: {SRC['hopper']}",
                                              "published")}),
)
