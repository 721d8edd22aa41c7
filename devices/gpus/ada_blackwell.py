"""NVIDIA Ada Lovelace and GB202 Blackwell GPUs: RTX 4090, L4, L40S, the RTX
40 laptop parts, RTX 5090, RTX PRO 6000 Blackwell (Workstation Edition).
"""
from __future__ import annotations

from .sources import (ADA_GEFORCE_EXTRA, ADA_GEFORCE_NOTES, ADA_GEFORCE_TENSOR, ADA_LAPTOP_SRC, ADA_SM,
                      BLACKWELL_GEFORCE_NOTES, BLACKWELL_GEFORCE_SM, BLACKWELL_GEFORCE_TENSOR,
                      GEFORCE_ACC, L1_ADA, SRC, ada_laptop_l2, l2_src, tgp_clock)
from .spec import GpuSpec, gib, mib, scale_up_link

PRO6000_SMS = 188
PRO6000_BOOST = 125e12 / (PRO6000_SMS * 256)      # NVIDIA's 125 TFLOP/s FP32; 4000 AI TOPS FP4 (sparse) agree
PRO6000_ASSUMED_ACC = ("assumption: FP32 accumulate at the full rate as on NVIDIA's professional Ada cards, an upper "
                       "bound; were it half, as the RTX 5090 profile assumes for GeForce, this roof would be half")

SPECS: tuple[GpuSpec, ...] = (
    GpuSpec(
        stem="rtx-4090", name="NVIDIA GeForce RTX 4090", chip="AD102", family="Ada Lovelace",
        compute_capability="8.9", sms=128, boost_clock_hz=2520e6,
        fma_per_sm=ADA_SM, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_tf32": 256, "tensor_fp16": 1024, "tensor_bf16": 512,
                            "tensor_fp8": 2048, "tensor_int8": 2048},
        memory_type="GDDR6X", bus_bits=384, data_rate_bps=21e9, dram_bytes=gib(24),
        l2_bytes=mib(72), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=16,
        l2_slices=48, l2_slice_bytes_per_clk=64,
        src={"units": SRC["ada"] + " (FP16/BF16 non-tensor at the FP32 rate, FP64 1/64)",
             "clock": SRC["ada"], "tensor": SRC["ada"], "dram": SRC["ada"], "l1": L1_ADA,
             "l2": l2_src(f"48 = 12 32-bit memory controllers x 4 (8 per 64-bit FBP, {SRC['ncu_slices']}); "
                           f"72 MB / 48 = 1.5 MB per slice; {SRC['ss_4090']}",
                           f"64 B/clk, {SRC['ncu_ad107']}")},
        basis={"l1": "derived", "l2": "derived"},
        notes={"tensor_fp16": GEFORCE_ACC, "tensor_fp8": GEFORCE_ACC,
               "tensor_bf16": "BF16 MMA accumulates in FP32 (half the FP16-accumulate rate)",
               "tensor_tf32": "GeForce TF32 rate (half the datacenter Ada rate per SM)"},
        extra={"tensor_fp32_accumulate_flop_per_sm_per_clk": {"tensor_fp16": 512,
                                                              "tensor_fp8": 1024}}),
    GpuSpec(
        stem="l4", name="NVIDIA L4", chip="AD104", family="Ada Lovelace",
        compute_capability="8.9", sms=58, boost_clock_hz=2040e6,
        fma_per_sm=ADA_SM, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_tf32": 512, "tensor_fp16": 1024, "tensor_bf16": 1024,
                            "tensor_fp8": 2048, "tensor_int8": 2048},
        memory_type="GDDR6", bus_bits=192, data_rate_bps=12.5e9, dram_bytes=gib(24),
        l2_bytes=mib(48), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=16,
        l2_slices=24, l2_slice_bytes_per_clk=64,
        src={"units": SRC["ada"] + " (FP16/BF16 non-tensor at the FP32 rate, FP64 1/64)",
             "clock": SRC["l4ds"] + " (2040 MHz boost)",
             "tensor": SRC["l4ds"] + " (sparse figures halved: 121 FP16, 242.5 FP8/INT8)",
             "dram": SRC["l4ds"] + " (300 GB/s, 192-bit GDDR6)", "l1": L1_ADA,
             "l2": l2_src(f"24 = 6 32-bit memory controllers x 4 (8 per 64-bit FBP, {SRC['ncu_slices']}); "
                           "48 MB / 24 = 2 MB per slice, as on AD107", f"64 B/clk, {SRC['ncu_ad107']}")},
        basis={"l1": "derived", "l2": "derived"},
        notes={"sms": ("58 SMs: NVIDIA's 30.3 TFLOP/s FP32 and 242 TFLOP/s sparse FP16 at 2040 MHz "
                       "imply 58 (third-party databases list 60)")}),
    GpuSpec(
        stem="rtx-4050-laptop", name="NVIDIA GeForce RTX 4050 Laptop GPU", chip="AD107", family="Ada Lovelace",
        compute_capability="8.9", sms=20, boost_clock_hz=2370e6,
        fma_per_sm=ADA_SM, schedulers_per_sm=4, tensor_flop_per_sm=ADA_GEFORCE_TENSOR,
        memory_type="GDDR6", bus_bits=96, data_rate_bps=16e9, dram_bytes=gib(6),
        l2_bytes=mib(24), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=8,
        l2_slices=16, l2_slice_bytes_per_clk=64,
        src={**ADA_LAPTOP_SRC, "l2": ada_laptop_l2(24),
             "clock": tgp_clock(2370, "1605-2370 MHz in the specifications above",
                                 f"the laptop of the public report ran at most 1605 MHz ({SRC['ncu_laptops']})")},
        basis={"l1": "derived", "l2": "derived"},
        notes=ADA_GEFORCE_NOTES, extra=ADA_GEFORCE_EXTRA),
    GpuSpec(
        stem="rtx-4060-laptop", name="NVIDIA GeForce RTX 4060 Laptop GPU", chip="AD107", family="Ada Lovelace",
        compute_capability="8.9", sms=24, boost_clock_hz=2370e6,
        fma_per_sm=ADA_SM, schedulers_per_sm=4, tensor_flop_per_sm=ADA_GEFORCE_TENSOR,
        memory_type="GDDR6", bus_bits=128, data_rate_bps=16e9, dram_bytes=gib(8),
        l2_bytes=mib(32), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=8,
        l2_slices=16, l2_slice_bytes_per_clk=64,
        src={**ADA_LAPTOP_SRC, "l2": ada_laptop_l2(32),
             "clock": tgp_clock(2370, "1470-2370 MHz in the specifications above",
                                 f"the laptop of the public report ran at most 2010 MHz ({SRC['ncu_laptops']})")},
        basis={"l1": "derived", "l2": "derived"},
        notes=ADA_GEFORCE_NOTES, extra=ADA_GEFORCE_EXTRA),
    GpuSpec(
        stem="rtx-5090", name="NVIDIA GeForce RTX 5090", chip="GB202", family="Blackwell",
        compute_capability="12.0", sms=170, boost_clock_hz=2407e6,
        fma_per_sm=BLACKWELL_GEFORCE_SM, schedulers_per_sm=4, tensor_flop_per_sm=BLACKWELL_GEFORCE_TENSOR,
        memory_type="GDDR7", bus_bits=512, data_rate_bps=28e9, dram_bytes=gib(32),
        l2_bytes=mib(96), l1_bytes_per_sm=128 * 1024, pcie_gen=5, pcie_lanes=16,
        l2_slices=64, l2_slice_bytes_per_clk=64,
        src={"units": (f"{SRC['rtx5090']}; 4 warp schedulers per SM (four SM partitions, as on Ada); "
                       f"per-SM FP32 and FP64 rates: {SRC['ncu_5090']}"),
             "clock": (f"2407 MHz, NVIDIA's boost clock ({SRC['rtx5090']}); GPU Boost may run higher, and "
                       f"Nsight Compute locks the base clock by default (2017 MHz, {SRC['tpu_5090']})"),
             "tensor": (f"dense = NVIDIA's sparse figures / 2: FP16 838 / 2 = 419 TFLOP/s, FP4 3352 / 2 = 1676 "
                        f"(4096 FLOP/clk/SM), FP8 between them; {SRC['rtx5090']}; TF32, BF16 and INT8 rates: "
                        f"{SRC['hmc_blackwell']}"),
             "dram": f"{SRC['rtx5090']}; {SRC['ncu_5090']}",
             "l1": ("assumption: Ada's rate, as no Nsight Compute L1 peak for GB202 is at hand: "
                    f"{L1_ADA}; 128 KB L1/shared per SM: {SRC['tpu_5090']}"),
             "l2": l2_src(f"assumption: 64 = 8 per 64-bit memory partition (FBP) as on AD107 and AD102 "
                           f"({SRC['ncu_slices']}) x 8 partitions on 512 bits; 96 MB / 64 = 1.5 MB per slice, as "
                           "on AD102. NVIDIA publishes no slice count for GB202 (128 MB in full; the RTX 5090 "
                           "enables 96): 48 slices of 2 MB would hold 96 MB too (7.4 TB/s)",
                           f"assumption: 64 B/clk, AD107's ({SRC['ncu_ad107']}); NVIDIA publishes no L2 rate "
                           "for GB202")},
        basis={"l1": "assumption", "l2": "assumption"},
        notes={**BLACKWELL_GEFORCE_NOTES,
               "dram": ("Nsight Compute's own DRAM peak in the public report is 128 B per DRAM cycle x 13.72 GHz "
                        "= 1756 GB/s: 512 bits move 2 x 64 B per DRAM clock, and 28 Gbit/s per pin is a 14 GHz "
                        "clock; the clock it measured over a 6.75 us kernel is 2 % under that"),
               "pcie": f"Gen5 x16, {SRC['rtx5090']}",
               "sms": "170 of GB202's 192 SMs, 96 of its 128 MB of L2",
               "compute_capability": ("12.0 is shared by the RTX 5080, 5070 Ti, 5070, 5060 and the RTX PRO "
                                      "Blackwell cards, whose SM counts, clocks and memory differ: this profile "
                                      "is the RTX 5090's only")},
        extra={"tensor_fp32_accumulate_flop_per_sm_per_clk": {"tensor_fp16": 512, "tensor_fp8": 1024}}),
    GpuSpec(
        stem="l40s", name="NVIDIA L40S", chip="AD102", family="Ada Lovelace",
        compute_capability="8.9", sms=142, boost_clock_hz=2520e6,
        fma_per_sm=ADA_SM, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_tf32": 512, "tensor_fp16": 1024, "tensor_bf16": 1024,
                            "tensor_fp8": 2048, "tensor_int8": 2048},
        memory_type="GDDR6", bus_bits=384, data_rate_bps=18e9, dram_bytes=gib(48),
        l2_bytes=mib(96), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=16,
        l2_slices=48, l2_slice_bytes_per_clk=64,
        src={"units": f"{SRC['ada']} (FP16/BF16 non-tensor at the FP32 rate, FP64 1/64); SMs: {SRC['l40s_ds']}",
             "clock": (f"2520 MHz boost, {SRC['tpu_l40s']}; derived as well: 91.6 TFLOP/s FP32 / (142 SMs x 256 "
                       f"FLOP/clk), {SRC['l40s_ds']}"),
             "tensor": (f"the data-center Ada rates per SM (FP32 accumulate at the full rate, as the L4's), "
                        f"{SRC['l40s_ds']}: TF32 183 and FP8 733 TFLOP/s dense at 2520 MHz"),
             "dram": f"384-bit GDDR6 at 18 Gbit/s, {SRC['tpu_l40s']}; 864 GB/s and 48 GB: {SRC['l40s_ds']}",
             "l1": L1_ADA,
             "l2": l2_src(f"48 = 12 32-bit memory controllers x 4 (8 per 64-bit FBP, {SRC['ncu_slices']}) as on the "
                          f"RTX 4090; assumption: 96 MB, AD102's full L2 ({SRC['ada']}), 2 MB per slice as on the "
                          f"L4; {SRC['hmc_l40']}, while {SRC['tpu_l40s']}",
                          f"64 B/clk, {SRC['ncu_ad107']}")},
        basis={"l1": "derived", "l2": "assumption"},
        notes={"tensor_fp16": ("NVIDIA's 362.05 TFLOP/s is 142 x 1024 x 2490 MHz (the L40's boost clock); at the "
                               "L40S's 2520 MHz, which its TF32 and FP8 figures use, the rate is 366 TFLOP/s"),
               "tensor_int8": "assumption: INT8 at the FP8 rate, as on the other Ada parts",
               "pcie": f"PCIe Gen4 x16 (64 GB/s both ways), {SRC['l40s_ds']}"},
        extra={"scale_up_link": scale_up_link("PCIe Gen4 x16 (no NVLink)", 1, 64e9, SRC["l40s_ds"], "published")}),
    GpuSpec(
        stem="rtx-pro-6000", name="NVIDIA RTX PRO 6000 Blackwell Workstation Edition", chip="GB202",
        family="Blackwell", compute_capability="12.0", sms=PRO6000_SMS, boost_clock_hz=PRO6000_BOOST,
        fma_per_sm=BLACKWELL_GEFORCE_SM, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_tf32": 512, "tensor_fp16": 1024, "tensor_bf16": 1024, "tensor_fp8": 2048,
                            "tensor_int8": 2048, "tensor_fp4": 4096},
        memory_type="GDDR7", bus_bits=512, data_rate_bps=28e9, dram_bytes=gib(96),
        l2_bytes=mib(128), l1_bytes_per_sm=128 * 1024, pcie_gen=5, pcie_lanes=16,
        l2_slices=64, l2_slice_bytes_per_clk=64,
        src={"units": (f"{SRC['rtxpro6000']}; per SM the GB202 SM of the RTX 5090 profile (128 FP32 and 2 FP64 "
                       f"FMA, {SRC['ncu_5090']})"),
             "clock": (f"derived: 125 TFLOP/s FP32 / (188 SMs x 256 FLOP/clk) = 2597 MHz; 4000 AI TOPS FP4 "
                       f"(sparse) / 2 / (188 x 4096) gives the same ({SRC['rtxpro6000']})"),
             "tensor": (f"FP4 4096 FLOP/clk/SM, from NVIDIA's 4000 AI TOPS (sparse) / 2 ({SRC['rtxpro6000']}); "
                        f"FP8 and INT8 half of it, FP16 a quarter, as on the RTX 5090 ({SRC['hmc_blackwell']})"),
             "dram": SRC["rtxpro6000"],
             "l1": ("assumption: Ada's rate, as no Nsight Compute L1 peak for GB202 is at hand: "
                    f"{L1_ADA}; 128 KB L1/shared per SM: {SRC['tpu_5090']}"),
             "l2": l2_src(f"assumption: 64 = 8 per 64-bit memory partition (FBP) as on AD107 and AD102 "
                          f"({SRC['ncu_slices']}) x 8 partitions on 512 bits: GB202's full 128 MB, 2 MB per slice; "
                          f"{SRC['rtxpro6000']}",
                          f"assumption: 64 B/clk, AD107's ({SRC['ncu_ad107']}); NVIDIA publishes no L2 rate")},
        basis={"l1": "assumption", "l2": "assumption"},
        notes={"edition": ("the Workstation Edition (600 W), the card NVIDIA's 125 TFLOP/s and 4000 AI TOPS are "
                           "quoted for; the Server Edition and the Max-Q Workstation Edition (300 W) have the same "
                           "188 SMs and 96 GB but lower sustained clocks, so these roofs are their upper bounds"),
               "fp16": BLACKWELL_GEFORCE_NOTES["fp16"], "bf16": BLACKWELL_GEFORCE_NOTES["bf16"],
               "tensor_fp16": PRO6000_ASSUMED_ACC, "tensor_bf16": PRO6000_ASSUMED_ACC,
               "tensor_fp8": PRO6000_ASSUMED_ACC,
               "tensor_tf32": "assumption: half the FP16 rate per SM, as on data-center Ada (an upper bound)",
               "tensor_int8": "assumption: INT8 at the FP8 rate, as on Ada",
               "tensor_fp4": BLACKWELL_GEFORCE_NOTES["tensor_fp4"].replace("3352 AI TOPS sparse / 2 = 1676",
                                                                           "4000 AI TOPS sparse / 2 = 2000"),
               "pcie": f"Gen5 x16, {SRC['rtxpro6000']}",
               "compute_capability": ("12.0, shared with the RTX 5090 and the GeForce RTX 50 and other RTX PRO "
                                      "Blackwell cards")},
        extra={"scale_up_link": scale_up_link("PCIe Gen5 x16 (no NVLink)", 1, 2 * 63e9,
                                              f"assumption: peers reach each other over PCIe, {SRC['rtxpro6000']}",
                                              "assumption")}),
)
