"""Where the GPU parameters come from: every document the table cites
(:data:`SRC`), and the per-SM rates, cache organisations and notes that
several products of one architecture share, each with its source.

A ceiling's ``source`` text quotes these documents; the profiles list the
documents their ceilings cite (``provenance.sources``).
"""
from __future__ import annotations

from .sources_2025 import SRC_2025
from .sources_variants import SRC_VARIANTS
from ..links import SRC_LINKS

SRC = {
    "kepler": ("NVIDIA Kepler GK110 whitepaper (2012): SMX = 192 FP32 + 64 FP64 units, 4 warp "
               "schedulers, 64 KB shared/L1"),
    "k40ds": ("NVIDIA Tesla K40 board specification BD-06902-001 (15 SMX, 745 MHz base, 875 MHz "
              "boost, 384-bit 6 Gbps GDDR5, 1.43/4.29 TFLOP/s FP64/FP32 at base clock)"),
    "k20ds": ("NVIDIA Tesla K20 board specification BD-06455-001 (13 SMX, 706 MHz, 320-bit "
              "5.2 Gbps GDDR5, 1.17/3.52 TFLOP/s FP64/FP32)"),
    "pascal": ("NVIDIA GeForce GTX 1080 whitepaper (Pascal GP104, 2016): SM = 128 FP32 units, "
               "4 FP64 units, 4 schedulers, 96 KB shared memory; GP10x FP16 at 1/64 rate"),
    "gtx1080ti": ("NVIDIA GeForce GTX 1080 Ti specifications (GP102, 28 SMs, 1582 MHz boost, "
                  "352-bit 11 Gbps GDDR5X, 2816 KB L2)"),
    "gtx1070": ("NVIDIA GeForce GTX 1070 specifications (GP104, 15 SMs, 1683 MHz boost, 256-bit "
                "8 Gbps GDDR5, 2 MB L2)"),
    "maxwell": "NVIDIA GeForce GTX 980 whitepaper (Maxwell GM204, 2014)",
    "gtx970": ("NVIDIA GeForce GTX 970 specifications (1050/1178 MHz, 256-bit 7 Gbps GDDR5) and "
               "NVIDIA's Jan 2015 correction (13 SMM, 1792 KB L2, 3.5 GB + 0.5 GB segments)"),
    "turing": "NVIDIA Turing GPU Architecture whitepaper (WP-09183-001, 2018)",
    "gtx1650": "NVIDIA GeForce GTX 1650 specifications (TU117, 14 SMs, 1665 MHz boost, 8 Gbps GDDR5)",
    "t4": "NVIDIA T4 Tensor Core GPU datasheet (40 SMs, 1590 MHz boost, 320 GB/s GDDR6)",
    "volta": "NVIDIA Tesla V100 GPU Architecture whitepaper (WP-08608-001, 2017)",
    "v100ds": "NVIDIA Tesla V100 datasheet (SXM2 1530 MHz, PCIe 1380 MHz, HBM2 876 MHz DDR)",
    "dw2019": "Ding & Williams 2019, 'An Instruction Roofline Model for GPUs' (PMBS'19)",
    "jia2018": ("Jia et al. 2018, 'Dissecting the NVIDIA Volta GPU Architecture via "
                "Microbenchmarking' (arXiv:1804.06826)"),
    "ampere": "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020)",
    "a100ds": "NVIDIA A100 datasheet (40GB HBM2 1555 GB/s, 80GB HBM2e 2039 GB/s)",
    "hopper": "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3",
    "h100ds": "NVIDIA H100 datasheet (SXM 3.35 TB/s HBM3, PCIe 2.0 TB/s HBM2e)",
    "h200ds": "NVIDIA H200 datasheet (141 GB HBM3e, 4.8 TB/s; compute as H100 SXM)",
    "ada": "NVIDIA Ada GPU Architecture whitepaper (2022), RTX 4090 and L4 tables",
    "l4ds": "NVIDIA L4 datasheet (2023)",
    # GeForce Blackwell (GB202, compute capability 12.0)
    "rtx5090": ("NVIDIA GeForce RTX 5090 specifications and RTX Blackwell GPU Architecture whitepaper (2025): "
                "GB202 with 170 SMs (21,760 CUDA cores, 680 fifth-generation tensor cores: 128 and 4 per SM), "
                "2407 MHz boost, 3352 AI TOPS (FP4, 2:4 sparse), 838 TFLOP/s FP16 tensor (sparse), 32 GB GDDR7 "
                "on 512 bits at 28 Gbit/s (1792 GB/s), 96 MB L2, PCIe Gen5 x16; these figures as reproduced in "
                "Tom's Hardware's RTX 5090 review (Linux Format, May 2025) and TechPowerUp's RTX 5090 Founders "
                "Edition review"),
    "tpu_5090": ("TechPowerUp GPU database, GeForce RTX 5090 (third-party): 2017 MHz base clock, 128 KB L1 per "
                 "SM, FP16 (non-tensor) 104.8 TFLOP/s (1:1 with FP32), FP64 1.637 TFLOP/s (1:64)"),
    "hmc_blackwell": ("hmc-tech.com GPU database (third-party), GeForce RTX 5050 (GeForce Blackwell, 20 SMs, 2.57 "
                      "GHz): dense tensor FP16 with FP16 accumulate 52.63, with FP32 accumulate 26.32, BF16 26.32, "
                      "TF32 13.16, FP8 105.3, INT8 105.3, FP4 210.5 TFLOP/s, i.e. 1024, 512, 512, 256, 2048, 2048 "
                      "and 4096 FLOP/clk/SM"),
    "ncu_5090": ("Nsight Compute 2025 SpeedOfLight_RooflineChart section of a public RTX 5090 report "
                 "(CodeGandee/llm-perf-opt, compute capability 12.0): theoretical 21,760 FFMA and 340 DFMA thread "
                 "instructions per cycle (128 and 2 per SM over 170 SMs; its rule: 'the ratio of peak float (fp32) "
                 "to double (fp64) performance on this device is 64:1'), 128 DRAM bytes per DRAM cycle at "
                 "13.72 GHz (1756 GB/s), SM clock 1.99-2.15 GHz while profiled"),
    "cuda_guide": ("CUDA C++ Programming Guide: shared memory has 32 banks, each 32 bits per "
                   "clock, i.e. 128 B/clk/SM"),
    "pcie": ("PCI Express Base Specification (Gen2: 5 GT/s per lane, 8b/10b; Gen3/4/5: 8/16/32 GT/s "
             "per lane, 128b/130b)"),
    # cache levels
    "jia2019": ("Jia et al. 2019, 'Dissecting the NVidia Turing T4 GPU via Microbenchmarking' "
                "(arXiv:1903.07486): Turing L1 and shared memory deliver 64 B/clk/SM in theory, half "
                "of Volta's 128 (T4 shared memory: 40 SMs x 64 B x 1590 MHz = 4,070 GB/s)"),
    "ncu_slices": ("Nsight Compute device attributes (device__attribute_l2s_count, fbp_count, "
                   "num_l2s_per_fbp) in public .ncu-rep reports: GV100 64 L2 slices (8 FBPs x 8), "
                   "GA100 80 (10 x 8), TU117 4 per 64-bit FBP, AD107 8 per 64-bit FBP"),
    "ncu_ad107": ("Nsight Compute 2024.2 peak rates in a public RTX 4060 Laptop GPU (AD107) report: "
                  "derived__lts__lts2xbar_bytes.sum.peak_sustained = 1024 B/clk over 16 L2 slices "
                  "(64 B/clk/slice), derived__l1tex__lsu_writeback_bytes_mem_lg.sum.peak_sustained = "
                  "3072 B/clk over 24 SMs (128 B/clk/SM), L2 and SM clocks equal"),
    "cc_h100": ("chipsandcheese, 'Nvidia's H100: Funny L2, and Tons of Bandwidth' (2023): the H100 "
                "PCIe enables 114 SMs, 50 MB of L2 and 10 of GH100's 12 512-bit HBM controllers "
                "(60 MB L2)"),
    "ss_4090": ("smallscientist1/cuda_microbenchmark, analysis_RTX4090.md (third-party): 48 L2 slices "
                "(6 FBPs x 8, from Nsight Compute) and 4.9 TB/s reached from L2 with cp.async"),
    "ga102": ("NVIDIA Ampere GA102 GPU Architecture whitepaper (2020): 512 KB of L2 per 32-bit memory "
              "controller, 128 KB L1/shared per SM, 2 FP64 units per SM"),
    "a10ds": ("NVIDIA A10 Tensor Core GPU datasheet (2021): 9216 CUDA cores (72 SMs), 31.2 TFLOP/s "
              "FP32, 62.5 TF32 / 125 FP16 and BF16 / 250 INT8 dense tensor TFLOP/s, 24 GB GDDR6 "
              "600 GB/s, PCIe Gen4 x16"),
    "a10g": ("AWS EC2 G5 instance documentation: NVIDIA A10G with 24 GB of memory, 80 RT cores and "
             "320 third-generation Tensor Cores (i.e. 80 GA102 SMs)"),
    "h800ds": ("NVIDIA H800 SXM5 datasheet (2023): FP64 and FP64 Tensor Core 1 TFLOP/s, NVLink "
               "400 GB/s, other peaks, 80 GB HBM3 and 3.35 TB/s as H100 SXM5"),
    "gh200ds": ("NVIDIA GH200 Grace Hopper Superchip datasheet (2023): H100 GPU (132 SMs, compute peaks "
                "as H100 SXM5) with 96 GB HBM3 at 4 TB/s (or 144 GB HBM3e at 4.9 TB/s), NVLink-C2C "
                "900 GB/s CPU-GPU"),
    # laptop parts: the boost clock depends on the power limit (TGP) the laptop maker sets
    "rtx40laptop": ("NVIDIA GeForce RTX 40 Series Laptop GPU specifications (2023): RTX 4060 Laptop 3072 "
                    "CUDA cores, 1470-2370 MHz boost, 8 GB GDDR6 128-bit; RTX 4050 Laptop 2560 CUDA cores, "
                    "1605-2370 MHz boost, 6 GB GDDR6 96-bit; boost by the laptop's TGP"),
    "ncu_laptops": ("Nsight Compute device attributes in public .ncu-rep reports (RTX 4050 Laptop: 20 SMs, "
                    "24 MB L2 in 16 slices, 1605 MHz; RTX 4060 Laptop: 24 SMs, 32 MB L2 in 16 slices, "
                    "2010 MHz; both 16 Gbit/s GDDR6, PCIe 16 GT/s x8; MX450: TU117, 14 SMs, 64-bit 10 Gbit/s "
                    "GDDR6, 2 GB, 512 KB L2 in 4 slices, 1575 MHz, PCIe 8 GT/s x4)"),
    "gtx1060maxq": ("NVIDIA GeForce GTX 1060 notebook specifications (GP106, 1280 CUDA cores = 10 SMs; Max-Q "
                    "Design: 1063-1265 MHz base, up to 1480 MHz boost by TGP; 6 GB GDDR5 192-bit 8 Gbps)"),
    "nsys_1060": ("Nsight Systems TARGET_INFO_GPU in a public report (GTX 1060 with Max-Q Design: GP106, "
                  "10 SMs, 1341.5 MHz, 1.5 MB L2, 6 GB, 192.2 GB/s, 96 KB shared memory per SM)"),
    "gp106": ("GeForce GTX 1060 launch material (2016): GP106 has six 32-bit memory controllers, each "
              "with 256 KB of L2"),
    # AMD
    "mi250arch": ("AMD ROCm documentation, 'AMD Instinct MI250 microarchitecture' (per GCD: 104 CUs of four "
                  "SIMD16 units, 1.7 GHz peak engine clock, HBM2e 1.6 TB/s, its own PCIe Gen4 x16 link; "
                  "FLOPS/clock/CU table)"),
    "rocm_specs": ("AMD ROCm documentation, 'GPU hardware specifications' (MI250: gfx90a, 104 CUs and 8 MiB "
                   "L2 per GCD, wavefront 64, 16 KiB vector L1 per CU, 64 KiB LDS, GFXIP 9.0; MI210: one "
                   "such die with 64 GiB)"),
    "rocprof_gfx90a": ("ROCm Compute Profiler (rocprofiler-compute) for gfx90a: 32 L2 channels; peaks vL1D "
                       "64 B/clk/CU, L2 64 B/clk/channel, LDS 128 B/clk/CU, IPC 5/clk/CU; requests of 64 B "
                       "(vL1D), 128 B (L2), 64 B (HBM)"),
    "mi250ds": ("AMD Instinct MI250 specifications (two GCDs, 8192-bit HBM2e at 1.6 GHz, 3.2 TB/s, "
                "128 GB)"),
}

SRC.update(SRC_2025)     # CDNA2-4, data-center Blackwell, H20, L40S, RTX PRO 6000 (kept apart for size)
SRC.update(SRC_LINKS)    # GPU-to-GPU links of the older data-center GPUs, collective latencies
SRC.update(SRC_VARIANTS)  # H100 NVL, A30, RTX 2070 SUPER, MI210

VOLTA_SM = {"fp64": 32, "fp32": 64, "fp16": 128}
TURING_SM = {"fp64": 2, "fp32": 64, "fp16": 128}
AMPERE_SM = {"fp64": 32, "fp32": 64, "fp16": 256, "bf16": 128}
GA10X_SM = {"fp64": 2, "fp32": 128, "fp16": 128, "bf16": 128}
HOPPER_SM = {"fp64": 64, "fp32": 128, "fp16": 256, "bf16": 256}
ADA_SM = {"fp64": 2, "fp32": 128, "fp16": 128, "bf16": 128}

A100_TENSOR = {"tensor_fp64": 128, "tensor_tf32": 1024, "tensor_fp16": 2048,
                "tensor_bf16": 2048, "tensor_int8": 4096}
H100_TENSOR = {"tensor_fp64": 256, "tensor_tf32": 2048, "tensor_fp16": 4096,
                "tensor_bf16": 4096, "tensor_fp8": 8192, "tensor_int8": 8192}
GA10X_TENSOR = {"tensor_tf32": 512, "tensor_fp16": 1024, "tensor_bf16": 1024, "tensor_int8": 2048}

# ------------------------------------------------ cache levels
# L1 = SMs x bytes/clk/SM x clock; L2 = slices x bytes/clk/slice x clock, the
# L2 taken to run at the SM clock (it does in the AD107 report). NVIDIA
# publishes L2 rates only for V100 and A100; elsewhere the slice count comes
# from Nsight Compute's device attributes of the same design, and the
# per-slice rate is GA100's 64 B/clk: the highest documented, so the roof is
# an upper bound (GV100 slices move 32 B/clk).
L2_RATE_AMPERE = (f"assumption: 64 B/clk, GA100's rate (5120 B/clk / 80 slices, {SRC['ampere']}), "
                   f"also AD107's ({SRC['ncu_ad107']}); NVIDIA publishes no L2 rate for this chip")
L2_RATE_OLDER = (f"assumption: 64 B/clk, the highest rate documented (GA100: 5120 B/clk / 80 slices, "
                  f"{SRC['ampere']}; AD107: {SRC['ncu_ad107']}); GV100 slices move 32 B/clk, so this "
                  "roof may be up to 2x high: an upper bound, measure it")
L1_TURING = f"64 B/clk/SM as on the T4 (same Turing SM), {SRC['jia2019']}"
L1_ADA = f"128 B/clk/SM, {SRC['ncu_ad107']}; {SRC['cuda_guide']}"


def l2_src(slices: str, rate: str) -> str:
    return f"slices: {slices}; per-slice rate: {rate}"


def hopper_l2(controllers: str) -> str:
    return l2_src(f"80 = {controllers} x 8 slices each, as on GA100 and GV100 ({SRC['ncu_slices']}); "
                   "assumption for GH100: 50 MB / 80 = 640 KB per slice", L2_RATE_AMPERE)


def turing_l2(chip: str) -> str:
    return l2_src(f"16 = 8 32-bit memory controllers x 2 (4 per 64-bit FBP, {SRC['ncu_slices']}); "
                   f"assumed for {chip}: 4 MB / 16 = 256 KB per slice", L2_RATE_OLDER)


def pascal_l2(n: int) -> str:
    return l2_src(f"{n} = one 256 KB L2 slice per 32-bit memory controller, the GM204 organisation of "
                   f"{SRC['gtx970']} (8 L2 units, 7 on the GTX 970); assumption for Pascal", L2_RATE_OLDER)


# CUDA C++ Programming Guide, arithmetic instruction throughput: 32-bit integer
# multiply-add results per clock per SM for compute capability 7.0 to 9.0
INT32_IMAD_PER_SM = 64
INT32_IMAD_CC = ((7, 0), (9, 0))
# A GeForce board without a spec of its own (RTX 3090: GA102, cc 8.6) runs
# FP16/BF16/TF32 MMA with FP32 accumulate, what PyTorch's GEMMs use, at half
# the professional board's rate (GA102 whitepaper); GA100 (cc 8.0) has no GeForce
GEFORCE_FP32_ACCUMULATE_SHARE = 0.5
GEFORCE_FP32_ACCUMULATE_KEYS = ("tensor_fp16", "tensor_bf16", "tensor_tf32")
GEFORCE_ACC = ("FP16 accumulate; GeForce parts run FP16 and FP8 MMA with FP32 accumulate "
                "at half this rate")
V100_SRC = {"units": SRC["volta"], "clock": SRC["v100ds"], "tensor": SRC["volta"],
             "dram": SRC["v100ds"],
             "l1": (f"128 B/clk/SM, {SRC['jia2018']}; {SRC['dw2019']} measured "
                    "437.5 GTXN/s x 32 B = 14.0 TB/s on V100 SXM2"),
             "l2": l2_src(f"64 (8 FBPs x 8), {SRC['ncu_slices']}",
                           f"32 B/clk = 2048 B/clk / 64 slices, {SRC['ampere']} (V100 vs A100 L2 read "
                           f"bandwidth); {SRC['dw2019']} measured 93.6 GTXN/s x 32 B = 3.0 TB/s")}
A100_SRC = {"units": SRC["ampere"], "clock": SRC["ampere"], "tensor": SRC["ampere"],
             "dram": SRC["a100ds"], "l1": SRC["cuda_guide"],
             "l2": l2_src("80: two partitions of 40, eight 512 KB slices per memory controller, "
                           f"{SRC['ampere']}; also {SRC['ncu_slices']}",
                           f"64 B/clk = the 5120 B/clk L2 read bandwidth of {SRC['ampere']} / 80 slices")}
PUBLISHED = {"l1": "derived", "l2": "published"}
H100_SRC = {"units": SRC["hopper"], "clock": SRC["hopper"],
             "tensor": SRC["hopper"] + " (tensor peaks except FP64 quoted at the lower tensor clock)",
             "dram": SRC["h100ds"], "l1": SRC["cuda_guide"],
             "l2": hopper_l2(f"10 512-bit memory controllers (five HBM3 stacks, {SRC['hopper']})")}
HOPPER_BASIS = {"l1": "derived", "l2": "assumption"}
H200_L2 = l2_src(f"80: assumption, the same 50 MB L2 as H100 SXM5 in 640 KB slices (GA100 and GV100 "
                   f"have 8 slices per 512-bit controller, {SRC['ncu_slices']}); were all 12 controllers "
                   "of six stacks to carry 8 slices it would be 96 (12.2 TB/s)", L2_RATE_AMPERE)

KEPLER_SM = {"fp64": 64, "fp32": 192}
PASCAL_GP10X_SM = {"fp64": 4, "fp32": 128, "fp16": 2}
KEPLER_NOTES = {"clock": ("peaks at the base clock NVIDIA quotes them at; GPU Boost runs higher when "
                           "power allows"),
                 "issue": "Kepler schedulers dual-issue; 1 instr/clk/scheduler is the Ding & Williams convention",
                 "fp16": "no FP16 arithmetic on compute capability 3.5 (FP16 runs as FP32)",
                 "l2": ("no L2 slice count or per-slice rate is published for GK110, and Nsight Compute "
                        "(which reports them) does not support Kepler: level omitted; measure it")}
KEPLER_L1 = SRC["cuda_guide"] + " (Kepler: 32 banks of 4 B, or 8 B in 64-bit mode)"

# Laptop parts: NVIDIA gives a boost range, the laptop maker's power limit
# (TGP) picks the clock. The profiles take the top of the range, so their
# roofs are upper bounds for any laptop, and say what the real report ran at.
def tgp_clock(mhz: int, published: str, seen: str) -> str:
    return (f"assumption: {mhz} MHz, the top of the published boost range ({published}); the clock depends "
            f"on the laptop's power limit (TGP), so these roofs are upper bounds; {seen}")


ADA_GEFORCE_TENSOR = {"tensor_tf32": 256, "tensor_fp16": 1024, "tensor_bf16": 512,
                       "tensor_fp8": 2048, "tensor_int8": 2048}
ADA_GEFORCE_NOTES = {"tensor_fp16": GEFORCE_ACC, "tensor_fp8": GEFORCE_ACC,
                      "tensor_bf16": "BF16 MMA accumulates in FP32 (half the FP16-accumulate rate)",
                      "tensor_tf32": "GeForce TF32 rate (half the datacenter Ada rate per SM)",
                      "pcie": ("Gen4 x8: the link of the RTX 4050 and 4060 Laptop GPUs in the public reports "
                               "(device__attribute_gpu_pci_ext_gpu_link_rate 16000 MT/s, width 8)")}
ADA_GEFORCE_EXTRA = {"tensor_fp32_accumulate_flop_per_sm_per_clk": {"tensor_fp16": 512, "tensor_fp8": 1024}}
ADA_LAPTOP_SRC = {"units": f"{SRC['ada']} (FP16/BF16 non-tensor at the FP32 rate, FP64 1/64); SMs: "
                            f"{SRC['rtx40laptop']}",
                   "tensor": f"per-SM rates of the GeForce Ada SM (the RTX 4090 table of {SRC['ada']})",
                   "dram": f"{SRC['rtx40laptop']}; 16 Gbit/s per pin: {SRC['ncu_laptops']}",
                   "l1": L1_ADA}


def ada_laptop_l2(mb: int) -> str:
    return l2_src(f"16, {SRC['ncu_laptops']} ({mb} MB / 16 slices)", f"64 B/clk, {SRC['ncu_ad107']}")


# GeForce Blackwell SM (GB202 and its compute capability 12.0 siblings): the
# Ada GeForce rates per SM. FP32 and FP64 per SM are in the real RTX 5090
# report; FP16 and FP8 tensor rates follow from NVIDIA's sparse totals; the
# rest are assumed as on Ada (the notes below say which).
BLACKWELL_GEFORCE_SM = ADA_SM
BLACKWELL_GEFORCE_TENSOR = {**ADA_GEFORCE_TENSOR, "tensor_fp4": 4096}
BLACKWELL_GEFORCE_ACC = ("FP16 accumulate; assumption: FP16 and FP8 MMA with FP32 accumulate at half this rate, "
                          "as on Ada GeForce (no NVIDIA statement for GeForce Blackwell was found; "
                          f"{SRC['hmc_blackwell']} lists half)")
BLACKWELL_NON_TENSOR_16 = ("assumption: non-tensor FP16/BF16 at the FP32 rate as on Ada GeForce ({ada}); no "
                            "NVIDIA figure for GB202 was found, {tpu} lists 1:1").format(ada=SRC["ada"],
                                                                                         tpu=SRC["tpu_5090"])
BLACKWELL_GEFORCE_NOTES = {
    "fp16": BLACKWELL_NON_TENSOR_16, "bf16": BLACKWELL_NON_TENSOR_16,
    "tensor_fp16": BLACKWELL_GEFORCE_ACC, "tensor_fp8": BLACKWELL_GEFORCE_ACC,
    "tensor_bf16": ("assumption: BF16 MMA accumulates in FP32 at half the FP16-accumulate rate, as on Ada "
                    "GeForce (third-party database above)"),
    "tensor_tf32": "assumption: the GeForce Ada TF32 rate per SM (third-party database above)",
    "tensor_int8": "assumption: INT8 at the FP8 rate, as on Ada (third-party database above)",
    "tensor_fp4": ("FP4 MMA (NVFP4/MXFP4), 3352 AI TOPS sparse / 2 = 1676 TFLOP/s dense; no FP6 rate is published "
                   "for GeForce Blackwell: with no tensor_fp6 roof FP6 work falls back to tensor_fp8 (data-center "
                   "Blackwell runs FP6 at the FP8 rate)"),
}
