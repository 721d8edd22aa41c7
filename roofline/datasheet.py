"""Built-in GPU profiles derived in code from published architecture parameters.

Every ceiling is computed from a handful of per-chip parameters with a
short formula, and carries a ``source`` naming the formula and the document
the parameters come from. Nothing here is measured: these are theoretical
peaks at the boost clock, the roofs a measured profile is compared with.

Formulas (SI units throughout):

- vector FLOP/s   = SMs x 2 x FMA units/SM x clock
- tensor FLOP/s   = SMs x dense FLOP/clk/SM x clock (no structured sparsity)
- warp instr/s    = SMs x warp schedulers/SM x 1 instr/clk x clock
                    (Ding & Williams 2019, instruction roofline)
- DRAM bytes/s    = bus width (bits) / 8 x data rate per pin (bit/s)
- L1 bytes/s      = SMs x L1/shared bytes/clk/SM x clock
- L2 bytes/s      = L2 slices x bytes/clk/slice x clock (L2 at the SM clock)
- PCIe bytes/s    = lanes x transfer rate x 128/130 / 8, one direction

Each L1 and L2 figure is marked ``published``, ``derived`` or
``assumption`` (:data:`BASIS`) in its source and in the profile's
``architecture.cache_level_basis``: NVIDIA publishes L2 rates only for V100
and A100, so elsewhere the slice count and per-slice rate come from the
same design (Nsight Compute's device attributes) or are assumed, and say so.

Regenerate the YAML files in ``devices/`` with ``python -m roofline.datasheet``;
``python -m roofline.datasheet --check`` reports drift between code and files.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Mapping

import yaml

from .model import Ceiling, Device, MemoryLevel
from .profile import dump_device, save_device

GENERATED_BY = "roofline.datasheet"

# Host-side launch cost of an empty kernel, back to back. No datasheet gives
# it; a few microseconds is the usual figure, so it is marked as assumed.
LAUNCH_OVERHEAD_S = 5e-6
LAUNCH_OVERHEAD_SOURCE = ("assumption: typical CUDA kernel launch overhead (~5 us host side); "
                          "not published for any GPU, measure it with `roofline measure`")
_HIP_LAUNCH = ("assumption: ~5 us host side, the usual CUDA kernel launch figure taken for HIP too; "
               "not published for any GPU, measure it")

SECTOR_BYTES = 32  # L1/L2/DRAM transaction (sector) size; Ding & Williams 2019

# ---------------------------------------------------------------- sources

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


# ---------------------------------------------------------------- parameters

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


# What each vendor calls a multiprocessor, its issue units, its thread group
# and the L1 level the profiles give (AMD's LDS is not that level).
_WORDS = {"NVIDIA": ("SM", "schedulers", "warp", "L1/shared", "SM clock"),
          "AMD": ("CU", "SIMDs", "wavefront", "vector L1 (vL1D)", "engine clock")}


def _unit(spec: GpuSpec) -> str:
    return _WORDS[spec.vendor][0]


def _transaction(spec: GpuSpec, level: str) -> int:
    return spec.transaction_bytes.get(level, SECTOR_BYTES)


def _kib(n: float) -> float:
    return float(n * 1024)


def _mib(n: float) -> float:
    return float(n * 1024 ** 2)


def _gib(n: float) -> float:
    return float(n * 1024 ** 3)


_VOLTA_SM = {"fp64": 32, "fp32": 64, "fp16": 128}
_TURING_SM = {"fp64": 2, "fp32": 64, "fp16": 128}
_AMPERE_SM = {"fp64": 32, "fp32": 64, "fp16": 256, "bf16": 128}
_GA10X_SM = {"fp64": 2, "fp32": 128, "fp16": 128, "bf16": 128}
_HOPPER_SM = {"fp64": 64, "fp32": 128, "fp16": 256, "bf16": 256}
_ADA_SM = {"fp64": 2, "fp32": 128, "fp16": 128, "bf16": 128}

_A100_TENSOR = {"tensor_fp64": 128, "tensor_tf32": 1024, "tensor_fp16": 2048,
                "tensor_bf16": 2048, "tensor_int8": 4096}
_H100_TENSOR = {"tensor_fp64": 256, "tensor_tf32": 2048, "tensor_fp16": 4096,
                "tensor_bf16": 4096, "tensor_fp8": 8192, "tensor_int8": 8192}
_GA10X_TENSOR = {"tensor_tf32": 512, "tensor_fp16": 1024, "tensor_bf16": 1024, "tensor_int8": 2048}

# ------------------------------------------------ cache levels
# L1 = SMs x bytes/clk/SM x clock; L2 = slices x bytes/clk/slice x clock, the
# L2 taken to run at the SM clock (it does in the AD107 report). NVIDIA
# publishes L2 rates only for V100 and A100; elsewhere the slice count comes
# from Nsight Compute's device attributes of the same design, and the
# per-slice rate is GA100's 64 B/clk: the highest documented, so the roof is
# an upper bound (GV100 slices move 32 B/clk).
_L2_RATE_AMPERE = (f"assumption: 64 B/clk, GA100's rate (5120 B/clk / 80 slices, {SRC['ampere']}), "
                   f"also AD107's ({SRC['ncu_ad107']}); NVIDIA publishes no L2 rate for this chip")
_L2_RATE_OLDER = (f"assumption: 64 B/clk, the highest rate documented (GA100: 5120 B/clk / 80 slices, "
                  f"{SRC['ampere']}; AD107: {SRC['ncu_ad107']}); GV100 slices move 32 B/clk, so this "
                  "roof may be up to 2x high: an upper bound, measure it")
_L1_TURING = f"64 B/clk/SM as on the T4 (same Turing SM), {SRC['jia2019']}"
_L1_ADA = f"128 B/clk/SM, {SRC['ncu_ad107']}; {SRC['cuda_guide']}"


def _l2_src(slices: str, rate: str) -> str:
    return f"slices: {slices}; per-slice rate: {rate}"


def _hopper_l2(controllers: str) -> str:
    return _l2_src(f"80 = {controllers} x 8 slices each, as on GA100 and GV100 ({SRC['ncu_slices']}); "
                   "assumption for GH100: 50 MB / 80 = 640 KB per slice", _L2_RATE_AMPERE)


def _turing_l2(chip: str) -> str:
    return _l2_src(f"16 = 8 32-bit memory controllers x 2 (4 per 64-bit FBP, {SRC['ncu_slices']}); "
                   f"assumed for {chip}: 4 MB / 16 = 256 KB per slice", _L2_RATE_OLDER)


def _pascal_l2(n: int) -> str:
    return _l2_src(f"{n} = one 256 KB L2 slice per 32-bit memory controller, the GM204 organisation of "
                   f"{SRC['gtx970']} (8 L2 units, 7 on the GTX 970); assumption for Pascal", _L2_RATE_OLDER)


_GEFORCE_ACC = ("FP16 accumulate; GeForce parts run FP16 and FP8 MMA with FP32 accumulate "
                "at half this rate")
_V100_SRC = {"units": SRC["volta"], "clock": SRC["v100ds"], "tensor": SRC["volta"],
             "dram": SRC["v100ds"],
             "l1": (f"128 B/clk/SM, {SRC['jia2018']}; {SRC['dw2019']} measured "
                    "437.5 GTXN/s x 32 B = 14.0 TB/s on V100 SXM2"),
             "l2": _l2_src(f"64 (8 FBPs x 8), {SRC['ncu_slices']}",
                           f"32 B/clk = 2048 B/clk / 64 slices, {SRC['ampere']} (V100 vs A100 L2 read "
                           f"bandwidth); {SRC['dw2019']} measured 93.6 GTXN/s x 32 B = 3.0 TB/s")}
_A100_SRC = {"units": SRC["ampere"], "clock": SRC["ampere"], "tensor": SRC["ampere"],
             "dram": SRC["a100ds"], "l1": SRC["cuda_guide"],
             "l2": _l2_src("80: two partitions of 40, eight 512 KB slices per memory controller, "
                           f"{SRC['ampere']}; also {SRC['ncu_slices']}",
                           f"64 B/clk = the 5120 B/clk L2 read bandwidth of {SRC['ampere']} / 80 slices")}
_PUBLISHED = {"l1": "derived", "l2": "published"}
_H100_SRC = {"units": SRC["hopper"], "clock": SRC["hopper"],
             "tensor": SRC["hopper"] + " (tensor peaks except FP64 quoted at the lower tensor clock)",
             "dram": SRC["h100ds"], "l1": SRC["cuda_guide"],
             "l2": _hopper_l2(f"10 512-bit memory controllers (five HBM3 stacks, {SRC['hopper']})")}
_HOPPER_BASIS = {"l1": "derived", "l2": "assumption"}
_H200_L2 = _l2_src(f"80: assumption, the same 50 MB L2 as H100 SXM5 in 640 KB slices (GA100 and GV100 "
                   f"have 8 slices per 512-bit controller, {SRC['ncu_slices']}); were all 12 controllers "
                   "of six stacks to carry 8 slices it would be 96 (12.2 TB/s)", _L2_RATE_AMPERE)

_KEPLER_SM = {"fp64": 64, "fp32": 192}
_PASCAL_GP10X_SM = {"fp64": 4, "fp32": 128, "fp16": 2}
_KEPLER_NOTES = {"clock": ("peaks at the base clock NVIDIA quotes them at; GPU Boost runs higher when "
                           "power allows"),
                 "issue": "Kepler schedulers dual-issue; 1 instr/clk/scheduler is the Ding & Williams convention",
                 "fp16": "no FP16 arithmetic on compute capability 3.5 (FP16 runs as FP32)",
                 "l2": ("no L2 slice count or per-slice rate is published for GK110, and Nsight Compute "
                        "(which reports them) does not support Kepler: level omitted; measure it")}
_KEPLER_L1 = SRC["cuda_guide"] + " (Kepler: 32 banks of 4 B, or 8 B in 64-bit mode)"

# Laptop parts: NVIDIA gives a boost range, the laptop maker's power limit
# (TGP) picks the clock. The profiles take the top of the range, so their
# roofs are upper bounds for any laptop, and say what the real report ran at.
def _tgp_clock(mhz: int, published: str, seen: str) -> str:
    return (f"assumption: {mhz} MHz, the top of the published boost range ({published}); the clock depends "
            f"on the laptop's power limit (TGP), so these roofs are upper bounds; {seen}")


_ADA_GEFORCE_TENSOR = {"tensor_tf32": 256, "tensor_fp16": 1024, "tensor_bf16": 512,
                       "tensor_fp8": 2048, "tensor_int8": 2048}
_ADA_GEFORCE_NOTES = {"tensor_fp16": _GEFORCE_ACC, "tensor_fp8": _GEFORCE_ACC,
                      "tensor_bf16": "BF16 MMA accumulates in FP32 (half the FP16-accumulate rate)",
                      "tensor_tf32": "GeForce TF32 rate (half the datacenter Ada rate per SM)",
                      "pcie": ("Gen4 x8: the link of the RTX 4050 and 4060 Laptop GPUs in the public reports "
                               "(device__attribute_gpu_pci_ext_gpu_link_rate 16000 MT/s, width 8)")}
_ADA_GEFORCE_EXTRA = {"tensor_fp32_accumulate_flop_per_sm_per_clk": {"tensor_fp16": 512, "tensor_fp8": 1024}}
_ADA_LAPTOP_SRC = {"units": f"{SRC['ada']} (FP16/BF16 non-tensor at the FP32 rate, FP64 1/64); SMs: "
                            f"{SRC['rtx40laptop']}",
                   "tensor": f"per-SM rates of the GeForce Ada SM (the RTX 4090 table of {SRC['ada']})",
                   "dram": f"{SRC['rtx40laptop']}; 16 Gbit/s per pin: {SRC['ncu_laptops']}",
                   "l1": _L1_ADA}


def _ada_laptop_l2(mb: int) -> str:
    return _l2_src(f"16, {SRC['ncu_laptops']} ({mb} MB / 16 slices)", f"64 B/clk, {SRC['ncu_ad107']}")


# GeForce Blackwell SM (GB202 and its compute capability 12.0 siblings): the
# Ada GeForce rates per SM. FP32 and FP64 per SM are in the real RTX 5090
# report; FP16 and FP8 tensor rates follow from NVIDIA's sparse totals; the
# rest are assumed as on Ada (the notes below say which).
_BLACKWELL_GEFORCE_SM = _ADA_SM
_BLACKWELL_GEFORCE_TENSOR = _ADA_GEFORCE_TENSOR
_BLACKWELL_GEFORCE_ACC = ("FP16 accumulate; assumption: FP16 and FP8 MMA with FP32 accumulate at half this rate, "
                          "as on Ada GeForce (no NVIDIA statement for GeForce Blackwell was found; "
                          f"{SRC['hmc_blackwell']} lists half)")
_BLACKWELL_NON_TENSOR_16 = ("assumption: non-tensor FP16/BF16 at the FP32 rate as on Ada GeForce ({ada}); no "
                            "NVIDIA figure for GB202 was found, {tpu} lists 1:1").format(ada=SRC["ada"],
                                                                                         tpu=SRC["tpu_5090"])
_BLACKWELL_GEFORCE_NOTES = {
    "fp16": _BLACKWELL_NON_TENSOR_16, "bf16": _BLACKWELL_NON_TENSOR_16,
    "tensor_fp16": _BLACKWELL_GEFORCE_ACC, "tensor_fp8": _BLACKWELL_GEFORCE_ACC,
    "tensor_bf16": ("assumption: BF16 MMA accumulates in FP32 at half the FP16-accumulate rate, as on Ada "
                    "GeForce (third-party database above)"),
    "tensor_tf32": "assumption: the GeForce Ada TF32 rate per SM (third-party database above)",
    "tensor_int8": "assumption: INT8 at the FP8 rate, as on Ada (third-party database above)",
    "fp4": ("FP4 MMA: 4096 dense FLOP/clk/SM (3352 AI TOPS sparse / 2 = 1676 TFLOP/s dense); roofline has "
            "no fp4 precision, so no ceiling"),
}


SPECS: tuple[GpuSpec, ...] = (
    GpuSpec(
        stem="k20c", name="NVIDIA Tesla K20c", chip="GK110", family="Kepler",
        compute_capability="3.5", sms=13, boost_clock_hz=706e6,
        fma_per_sm=_KEPLER_SM, schedulers_per_sm=4,
        memory_type="GDDR5", bus_bits=320, data_rate_bps=5.2e9, dram_bytes=_gib(5),
        l2_bytes=_kib(1280), l1_bytes_per_sm=64 * 1024, pcie_gen=2, pcie_lanes=16,
        src={"units": SRC["kepler"], "clock": SRC["k20ds"], "dram": SRC["k20ds"], "l1": _KEPLER_L1},
        basis={"l1": "derived"}, notes=_KEPLER_NOTES),
    GpuSpec(
        stem="k40c", name="NVIDIA Tesla K40c", chip="GK110B", family="Kepler",
        compute_capability="3.5", sms=15, boost_clock_hz=745e6,
        fma_per_sm=_KEPLER_SM, schedulers_per_sm=4,
        memory_type="GDDR5", bus_bits=384, data_rate_bps=6e9, dram_bytes=_gib(12),
        l2_bytes=_kib(1536), l1_bytes_per_sm=64 * 1024, pcie_gen=3, pcie_lanes=16,
        src={"units": SRC["kepler"], "clock": SRC["k40ds"], "dram": SRC["k40ds"], "l1": _KEPLER_L1},
        basis={"l1": "derived"}, notes=_KEPLER_NOTES),
    GpuSpec(
        stem="gtx-1070", name="NVIDIA GeForce GTX 1070", chip="GP104", family="Pascal",
        compute_capability="6.1", sms=15, boost_clock_hz=1683e6,
        fma_per_sm=_PASCAL_GP10X_SM, schedulers_per_sm=4,
        memory_type="GDDR5", bus_bits=256, data_rate_bps=8e9, dram_bytes=_gib(8),
        l2_bytes=_mib(2), l1_bytes_per_sm=96 * 1024, pcie_gen=3, pcie_lanes=16,
        l2_slices=8, l2_slice_bytes_per_clk=64,
        src={"units": SRC["pascal"], "clock": SRC["gtx1070"], "dram": SRC["gtx1070"],
             "l1": SRC["cuda_guide"] + " (Pascal GP104: 96 KB shared memory per SM)",
             "l2": _pascal_l2(8)},
        basis={"l1": "derived", "l2": "assumption"}),
    GpuSpec(
        stem="gtx-1080-ti", name="NVIDIA GeForce GTX 1080 Ti", chip="GP102", family="Pascal",
        compute_capability="6.1", sms=28, boost_clock_hz=1582e6,
        fma_per_sm=_PASCAL_GP10X_SM, schedulers_per_sm=4,
        memory_type="GDDR5X", bus_bits=352, data_rate_bps=11e9, dram_bytes=_gib(11),
        l2_bytes=_kib(2816), l1_bytes_per_sm=96 * 1024, pcie_gen=3, pcie_lanes=16,
        l2_slices=11, l2_slice_bytes_per_clk=64,
        src={"units": SRC["pascal"], "clock": SRC["gtx1080ti"], "dram": SRC["gtx1080ti"],
             "l1": SRC["cuda_guide"] + " (Pascal GP102: 96 KB shared memory per SM)",
             "l2": _pascal_l2(11)},
        basis={"l1": "derived", "l2": "assumption"}),
    GpuSpec(
        stem="gtx-1060-maxq", name="NVIDIA GeForce GTX 1060 Max-Q", chip="GP106", family="Pascal",
        compute_capability="6.1", sms=10, boost_clock_hz=1480e6,
        fma_per_sm=_PASCAL_GP10X_SM, schedulers_per_sm=4,
        memory_type="GDDR5", bus_bits=192, data_rate_bps=8e9, dram_bytes=_gib(6),
        l2_bytes=_kib(1536), l1_bytes_per_sm=96 * 1024, pcie_gen=3, pcie_lanes=16,
        l2_slices=6, l2_slice_bytes_per_clk=64,
        src={"units": f"{SRC['pascal']}; SMs: {SRC['gtx1060maxq']}; {SRC['nsys_1060']}",
             "clock": _tgp_clock(1480, "Max-Q Design, in the specifications above",
                                 f"the laptop of the public report ran at most 1341.5 MHz ({SRC['nsys_1060']})"),
             "dram": f"{SRC['gtx1060maxq']}; {SRC['nsys_1060']}",
             "l1": SRC["cuda_guide"] + " (Pascal GP106: 96 KB shared memory per SM)",
             "l2": _pascal_l2(6) + f"; {SRC['gp106']}"},
        basis={"l1": "derived", "l2": "assumption"},
        notes={"pcie": "assumption: GP106's Gen3 x16; a laptop may wire fewer lanes"}),
    GpuSpec(
        stem="gtx-970", name="NVIDIA GeForce GTX 970", chip="GM204", family="Maxwell",
        compute_capability="5.2", sms=13, boost_clock_hz=1178e6,
        fma_per_sm={"fp64": 4, "fp32": 128}, schedulers_per_sm=4,
        memory_type="GDDR5", bus_bits=256, data_rate_bps=7e9, dram_bytes=_gib(4),
        l2_bytes=_kib(1792), l1_bytes_per_sm=96 * 1024, pcie_gen=3, pcie_lanes=16,
        l2_slices=7, l2_slice_bytes_per_clk=64,
        src={"units": SRC["maxwell"], "clock": SRC["gtx970"], "dram": SRC["gtx970"],
             "l1": SRC["cuda_guide"] + " (Maxwell: 96 KB shared memory per SMM)",
             "l2": _l2_src(f"7 of GM204's 8 L2 units of 256 KB (1792 KB), {SRC['gtx970']}", _L2_RATE_OLDER)},
        basis={"l1": "derived", "l2": "assumption"},
        notes={"dram": ("only the first 3.5 GB sit on 224 bits (196 GB/s); the last 0.5 GB "
                        "on 32 bits (28 GB/s)"),
               "fp16": "no native FP16 arithmetic on compute capability 5.2 (FP16 runs as FP32)",
               "issue": "Maxwell schedulers can dual-issue; 1 instr/clk/scheduler is the "
                        "Ding & Williams convention"}),
    GpuSpec(
        stem="gtx-1650", name="NVIDIA GeForce GTX 1650", chip="TU117", family="Turing",
        compute_capability="7.5", sms=14, boost_clock_hz=1665e6,
        fma_per_sm=_TURING_SM, schedulers_per_sm=4,
        memory_type="GDDR5", bus_bits=128, data_rate_bps=8e9, dram_bytes=_gib(4),
        l2_bytes=_mib(1), l1_bytes_per_sm=96 * 1024, pcie_gen=3, pcie_lanes=16,
        l1_bytes_per_clk=64, l2_slices=8, l2_slice_bytes_per_clk=64,
        src={"units": SRC["turing"] + " (TU11x: no tensor cores, dedicated FP16 units at 2x FP32)",
             "clock": SRC["gtx1650"], "dram": SRC["gtx1650"], "l1": _L1_TURING,
             "l2": _l2_src(f"8 = 2 64-bit FBPs x 4, {SRC['ncu_slices']} (1 MB / 8 = 128 KB per slice)",
                           _L2_RATE_OLDER)},
        basis={"l1": "derived", "l2": "assumption"},
        notes={"dram": "GDDR5 launch model; the 2020 GDDR6 model runs 12 Gbps (192 GB/s)"}),
    GpuSpec(
        stem="mx450", name="NVIDIA GeForce MX450", chip="TU117", family="Turing",
        compute_capability="7.5", sms=14, boost_clock_hz=1575e6,
        fma_per_sm=_TURING_SM, schedulers_per_sm=4,
        memory_type="GDDR6", bus_bits=64, data_rate_bps=10e9, dram_bytes=_gib(2),
        l2_bytes=_kib(512), l1_bytes_per_sm=96 * 1024, pcie_gen=3, pcie_lanes=4,
        l1_bytes_per_clk=64, l2_slices=4, l2_slice_bytes_per_clk=64,
        src={"units": (f"{SRC['turing']} (TU11x: no tensor cores, dedicated FP16 units at 2x FP32); "
                       f"SMs: {SRC['ncu_laptops']}"),
             "clock": ("assumption: 1575 MHz, the clock_rate of the MX450 in the public report (NVIDIA "
                       "publishes no MX450 clock; the laptop's power limit sets it, so other MX450s may run "
                       f"lower or higher); {SRC['ncu_laptops']}"),
             "dram": f"the memory of the MX450 in the public report (another laptop's may differ), {SRC['ncu_laptops']}",
             "l1": _L1_TURING,
             "l2": _l2_src(f"4 = one 64-bit FBP x 4, {SRC['ncu_laptops']} (512 KB / 4 = 128 KB per slice)",
                           _L2_RATE_OLDER)},
        basis={"l1": "derived", "l2": "assumption"},
        notes={"pcie": ("Gen3 x4: the link of the MX450 in the public report (8 GT/s, 4 lanes downstream); "
                        "another laptop may wire it differently")}),
    GpuSpec(
        stem="rtx-2070", name="NVIDIA GeForce RTX 2070", chip="TU106", family="Turing",
        compute_capability="7.5", sms=36, boost_clock_hz=1620e6,
        fma_per_sm=_TURING_SM, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_fp16": 1024, "tensor_int8": 2048},
        memory_type="GDDR6", bus_bits=256, data_rate_bps=14e9, dram_bytes=_gib(8),
        l2_bytes=_mib(4), l1_bytes_per_sm=96 * 1024, pcie_gen=3, pcie_lanes=16,
        l1_bytes_per_clk=64, l2_slices=16, l2_slice_bytes_per_clk=64,
        src={"units": SRC["turing"], "clock": SRC["turing"] + " (reference boost; FE 1710 MHz)",
             "tensor": SRC["turing"] + " (8 tensor cores/SM x 64 FP16 FMA/clk)",
             "dram": SRC["turing"], "l1": _L1_TURING, "l2": _turing_l2("TU106")},
        basis={"l1": "derived", "l2": "assumption"},
        notes={"tensor_fp16": _GEFORCE_ACC},
        extra={"tensor_fp32_accumulate_flop_per_sm_per_clk": {"tensor_fp16": 512}}),
    GpuSpec(
        stem="t4", name="NVIDIA Tesla T4", chip="TU104", family="Turing",
        compute_capability="7.5", sms=40, boost_clock_hz=1590e6,
        fma_per_sm=_TURING_SM, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_fp16": 1024, "tensor_int8": 2048},
        memory_type="GDDR6", bus_bits=256, data_rate_bps=10e9, dram_bytes=_gib(16),
        l2_bytes=_mib(4), l1_bytes_per_sm=96 * 1024, pcie_gen=3, pcie_lanes=16,
        l1_bytes_per_clk=64, l2_slices=16, l2_slice_bytes_per_clk=64,
        src={"units": SRC["turing"], "clock": SRC["t4"],
             "tensor": SRC["t4"] + " (65 TFLOP/s mixed precision, 130 TOPS INT8)",
             "dram": SRC["t4"], "l1": f"64 B/clk/SM, {SRC['jia2019']}", "l2": _turing_l2("TU104")},
        basis={"l1": "published", "l2": "assumption"}),
    GpuSpec(
        stem="v100-sxm2", name="NVIDIA Tesla V100 SXM2", chip="GV100", family="Volta",
        compute_capability="7.0", sms=80, boost_clock_hz=1530e6,
        fma_per_sm=_VOLTA_SM, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_fp16": 1024},
        memory_type="HBM2", bus_bits=4096, data_rate_bps=1.752e9, dram_bytes=_gib(16),
        l2_bytes=_mib(6), l1_bytes_per_sm=128 * 1024, l2_slices=64, l2_slice_bytes_per_clk=32,
        pcie_gen=3, pcie_lanes=16, src=_V100_SRC, basis={"l1": "published", "l2": "published"},
        notes={"issue": "Ding & Williams 2019 use 489.6 warp GIPS for this part"}),
    GpuSpec(
        stem="v100-pcie", name="NVIDIA Tesla V100 PCIe", chip="GV100", family="Volta",
        compute_capability="7.0", sms=80, boost_clock_hz=1380e6,
        fma_per_sm=_VOLTA_SM, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_fp16": 1024},
        memory_type="HBM2", bus_bits=4096, data_rate_bps=1.752e9, dram_bytes=_gib(16),
        l2_bytes=_mib(6), l1_bytes_per_sm=128 * 1024, l2_slices=64, l2_slice_bytes_per_clk=32,
        pcie_gen=3, pcie_lanes=16, src=_V100_SRC, basis={"l1": "published", "l2": "published"}),
    GpuSpec(
        stem="a100-40gb-sxm", name="NVIDIA A100 40GB SXM4", chip="GA100", family="Ampere",
        compute_capability="8.0", sms=108, boost_clock_hz=1410e6,
        fma_per_sm=_AMPERE_SM, schedulers_per_sm=4, tensor_flop_per_sm=_A100_TENSOR,
        memory_type="HBM2", bus_bits=5120, data_rate_bps=2.43e9, dram_bytes=_gib(40),
        l2_bytes=_mib(40), l1_bytes_per_sm=192 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=4, pcie_lanes=16, src=_A100_SRC, basis=_PUBLISHED),
    GpuSpec(
        stem="a100-80gb-sxm", name="NVIDIA A100 80GB SXM4", chip="GA100", family="Ampere",
        compute_capability="8.0", sms=108, boost_clock_hz=1410e6,
        fma_per_sm=_AMPERE_SM, schedulers_per_sm=4, tensor_flop_per_sm=_A100_TENSOR,
        memory_type="HBM2e", bus_bits=5120, data_rate_bps=3.186e9, dram_bytes=_gib(80),
        l2_bytes=_mib(40), l1_bytes_per_sm=192 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=4, pcie_lanes=16, src=_A100_SRC, basis=_PUBLISHED),
    GpuSpec(
        stem="a10", name="NVIDIA A10", chip="GA102", family="Ampere",
        compute_capability="8.6", sms=72, boost_clock_hz=1695e6,
        fma_per_sm=_GA10X_SM, schedulers_per_sm=4, tensor_flop_per_sm=_GA10X_TENSOR,
        memory_type="GDDR6", bus_bits=384, data_rate_bps=12.5e9, dram_bytes=_gib(24),
        l2_bytes=_mib(6), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=16,
        l2_slices=24, l2_slice_bytes_per_clk=64,
        src={"units": SRC["ga102"] + " (FP16/BF16 non-tensor at the FP32 rate, FP64 1/64)",
             "clock": SRC["a10ds"] + " (1695 MHz boost: 31.2 TFLOP/s / (9216 cores x 2 FLOP))",
             "tensor": SRC["a10ds"] + " (data-center GA102: FP32 accumulate at the full rate)",
             "dram": SRC["a10ds"],
             "l1": f"assumption: 128 B/clk/SM as on Ada, whose SM extends GA10x's ({SRC['ncu_ad107']})",
             "l2": _l2_src(f"24 = 12 32-bit memory controllers x 2, assumed as on Turing "
                           f"({SRC['ncu_slices']}): 6 MB / 24 = 256 KB per slice, {SRC['ga102']}",
                           _L2_RATE_AMPERE)},
        basis={"l1": "assumption", "l2": "assumption"}),
    GpuSpec(
        stem="a10g", name="NVIDIA A10G", chip="GA102", family="Ampere",
        compute_capability="8.6", sms=80, boost_clock_hz=1710e6,
        fma_per_sm=_GA10X_SM, schedulers_per_sm=4, tensor_flop_per_sm=_GA10X_TENSOR,
        memory_type="GDDR6", bus_bits=384, data_rate_bps=12.5e9, dram_bytes=_gib(24),
        l2_bytes=_mib(6), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=16,
        l2_slices=24, l2_slice_bytes_per_clk=64,
        src={"units": SRC["a10g"] + "; per-SM units: " + SRC["ga102"],
             "clock": ("assumption: 1710 MHz, the boost clock third-party GPU databases and CUDA device "
                       "queries give for the A10G; NVIDIA publishes no A10G datasheet, " + SRC["a10g"]),
             "tensor": ("assumption: per-SM tensor rates of the A10, " + SRC["a10ds"]),
             "dram": ("assumption: the A10's memory (384-bit GDDR6 at 12.5 Gbit/s), " + SRC["a10ds"]
                      + "; 24 GB: " + SRC["a10g"]),
             "l1": f"assumption: 128 B/clk/SM as on Ada, whose SM extends GA10x's ({SRC['ncu_ad107']})",
             "l2": _l2_src(f"24 = 12 32-bit memory controllers x 2, assumed as on Turing "
                           f"({SRC['ncu_slices']}): 6 MB / 24 = 256 KB per slice, {SRC['ga102']}",
                           _L2_RATE_AMPERE)},
        basis={"l1": "assumption", "l2": "assumption"}),
    GpuSpec(
        stem="h100-sxm", name="NVIDIA H100 SXM5", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=132, boost_clock_hz=1980e6, tensor_clock_hz=1830e6,
        fma_per_sm=_HOPPER_SM, schedulers_per_sm=4, tensor_flop_per_sm=_H100_TENSOR,
        memory_type="HBM3", bus_bits=5120, data_rate_bps=5.234375e9, dram_bytes=_gib(80),
        l2_bytes=_mib(50), l1_bytes_per_sm=256 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16, src=_H100_SRC, basis=_HOPPER_BASIS,
        notes={"dram": "per-pin rate back-derived from the 3.35 TB/s datasheet figure"}),
    GpuSpec(
        stem="h800", name="NVIDIA H800 SXM5", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=132, boost_clock_hz=1980e6, tensor_clock_hz=1830e6,
        fma_per_sm={**_HOPPER_SM, "fp64": 2}, schedulers_per_sm=4,
        tensor_flop_per_sm={**_H100_TENSOR, "tensor_fp64": 4},
        memory_type="HBM3", bus_bits=5120, data_rate_bps=5.234375e9, dram_bytes=_gib(80),
        l2_bytes=_mib(50), l1_bytes_per_sm=256 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16,
        src={**_H100_SRC, "units": f"{SRC['hopper']}; FP64 capped: {SRC['h800ds']}",
             "clock": f"{SRC['hopper']} (H100 SXM5 clocks)",
             "tensor": f"{SRC['hopper']} (tensor peaks except FP64 at the lower tensor clock); {SRC['h800ds']}",
             "dram": SRC["h800ds"]},
        basis=_HOPPER_BASIS,
        notes={"fp64": ("FP64 FMA per SM per clock back-derived from the datasheet's 1 TFLOP/s "
                        "(1e12 / (132 x 2 x 1980 MHz) = 1.9, rounded to 2)"),
               "tensor_fp64": "back-derived from the datasheet's 1 TFLOP/s FP64 Tensor Core (3.8, rounded to 4)",
               "dram": "per-pin rate back-derived from the 3.35 TB/s datasheet figure",
               "nvlink": "NVLink 400 GB/s (H100 SXM5: 900 GB/s); not a roofline level"}),
    GpuSpec(
        stem="h100-pcie", name="NVIDIA H100 PCIe", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=114, boost_clock_hz=1755e6, tensor_clock_hz=1620e6,
        fma_per_sm=_HOPPER_SM, schedulers_per_sm=4, tensor_flop_per_sm=_H100_TENSOR,
        memory_type="HBM2e", bus_bits=5120, data_rate_bps=3.125e9, dram_bytes=_gib(80),
        l2_bytes=_mib(50), l1_bytes_per_sm=256 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16,
        src={**_H100_SRC, "l2": _hopper_l2(f"10 512-bit HBM2e memory controllers ({SRC['cc_h100']})")},
        basis=_HOPPER_BASIS,
        notes={"dram": "per-pin rate back-derived from the 2.0 TB/s datasheet figure"}),
    GpuSpec(
        stem="h200", name="NVIDIA H200 SXM", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=132, boost_clock_hz=1980e6, tensor_clock_hz=1830e6,
        fma_per_sm=_HOPPER_SM, schedulers_per_sm=4, tensor_flop_per_sm=_H100_TENSOR,
        memory_type="HBM3e", bus_bits=6144, data_rate_bps=6.25e9, dram_bytes=141e9,
        l2_bytes=_mib(50), l1_bytes_per_sm=256 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16,
        src={**_H100_SRC, "clock": SRC["hopper"] + " (H100 SXM5 clocks; H200 datasheet peaks match)",
             "dram": SRC["h200ds"] + " (six 1024-bit HBM3e stacks)", "l2": _H200_L2},
        basis=_HOPPER_BASIS,
        notes={"dram": "per-pin rate back-derived from the 4.8 TB/s datasheet figure"}),
    GpuSpec(
        stem="gh200", name="NVIDIA GH200 Grace Hopper", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=132, boost_clock_hz=1980e6, tensor_clock_hz=1830e6,
        fma_per_sm=_HOPPER_SM, schedulers_per_sm=4, tensor_flop_per_sm=_H100_TENSOR,
        memory_type="HBM3", bus_bits=6144, data_rate_bps=4e12 / 768, dram_bytes=_gib(96),
        l2_bytes=_mib(50), l1_bytes_per_sm=256 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16, host_link="NVLink-C2C", host_link_bidirectional_bytes_s=900e9,
        src={**_H100_SRC, "clock": f"{SRC['hopper']} (H100 SXM5 clocks); {SRC['gh200ds']}",
             "dram": SRC["gh200ds"] + " (assumption: six 1024-bit HBM3 stacks of 16 GB)",
             "l2": _H200_L2, "host": SRC["gh200ds"]},
        basis=_HOPPER_BASIS,
        notes={"dram": ("the 96 GB HBM3 model ('GH200 480GB'); per-pin rate back-derived from "
                        "4 TB/s. The 144 GB HBM3e model has 4.9 TB/s"),
               "l2": "assumption: 50 MB of L2 as on H100 SXM5 (not in the GH200 datasheet)"}),
    GpuSpec(
        stem="rtx-4090", name="NVIDIA GeForce RTX 4090", chip="AD102", family="Ada Lovelace",
        compute_capability="8.9", sms=128, boost_clock_hz=2520e6,
        fma_per_sm=_ADA_SM, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_tf32": 256, "tensor_fp16": 1024, "tensor_bf16": 512,
                            "tensor_fp8": 2048, "tensor_int8": 2048},
        memory_type="GDDR6X", bus_bits=384, data_rate_bps=21e9, dram_bytes=_gib(24),
        l2_bytes=_mib(72), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=16,
        l2_slices=48, l2_slice_bytes_per_clk=64,
        src={"units": SRC["ada"] + " (FP16/BF16 non-tensor at the FP32 rate, FP64 1/64)",
             "clock": SRC["ada"], "tensor": SRC["ada"], "dram": SRC["ada"], "l1": _L1_ADA,
             "l2": _l2_src(f"48 = 12 32-bit memory controllers x 4 (8 per 64-bit FBP, {SRC['ncu_slices']}); "
                           f"72 MB / 48 = 1.5 MB per slice; {SRC['ss_4090']}",
                           f"64 B/clk, {SRC['ncu_ad107']}")},
        basis={"l1": "derived", "l2": "derived"},
        notes={"tensor_fp16": _GEFORCE_ACC, "tensor_fp8": _GEFORCE_ACC,
               "tensor_bf16": "BF16 MMA accumulates in FP32 (half the FP16-accumulate rate)",
               "tensor_tf32": "GeForce TF32 rate (half the datacenter Ada rate per SM)"},
        extra={"tensor_fp32_accumulate_flop_per_sm_per_clk": {"tensor_fp16": 512,
                                                              "tensor_fp8": 1024}}),
    GpuSpec(
        stem="l4", name="NVIDIA L4", chip="AD104", family="Ada Lovelace",
        compute_capability="8.9", sms=58, boost_clock_hz=2040e6,
        fma_per_sm=_ADA_SM, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_tf32": 512, "tensor_fp16": 1024, "tensor_bf16": 1024,
                            "tensor_fp8": 2048, "tensor_int8": 2048},
        memory_type="GDDR6", bus_bits=192, data_rate_bps=12.5e9, dram_bytes=_gib(24),
        l2_bytes=_mib(48), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=16,
        l2_slices=24, l2_slice_bytes_per_clk=64,
        src={"units": SRC["ada"] + " (FP16/BF16 non-tensor at the FP32 rate, FP64 1/64)",
             "clock": SRC["l4ds"] + " (2040 MHz boost)",
             "tensor": SRC["l4ds"] + " (sparse figures halved: 121 FP16, 242.5 FP8/INT8)",
             "dram": SRC["l4ds"] + " (300 GB/s, 192-bit GDDR6)", "l1": _L1_ADA,
             "l2": _l2_src(f"24 = 6 32-bit memory controllers x 4 (8 per 64-bit FBP, {SRC['ncu_slices']}); "
                           "48 MB / 24 = 2 MB per slice, as on AD107", f"64 B/clk, {SRC['ncu_ad107']}")},
        basis={"l1": "derived", "l2": "derived"},
        notes={"sms": ("58 SMs: NVIDIA's 30.3 TFLOP/s FP32 and 242 TFLOP/s sparse FP16 at 2040 MHz "
                       "imply 58 (third-party databases list 60)")}),
    GpuSpec(
        stem="rtx-4050-laptop", name="NVIDIA GeForce RTX 4050 Laptop GPU", chip="AD107", family="Ada Lovelace",
        compute_capability="8.9", sms=20, boost_clock_hz=2370e6,
        fma_per_sm=_ADA_SM, schedulers_per_sm=4, tensor_flop_per_sm=_ADA_GEFORCE_TENSOR,
        memory_type="GDDR6", bus_bits=96, data_rate_bps=16e9, dram_bytes=_gib(6),
        l2_bytes=_mib(24), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=8,
        l2_slices=16, l2_slice_bytes_per_clk=64,
        src={**_ADA_LAPTOP_SRC, "l2": _ada_laptop_l2(24),
             "clock": _tgp_clock(2370, "1605-2370 MHz in the specifications above",
                                 f"the laptop of the public report ran at most 1605 MHz ({SRC['ncu_laptops']})")},
        basis={"l1": "derived", "l2": "derived"},
        notes=_ADA_GEFORCE_NOTES, extra=_ADA_GEFORCE_EXTRA),
    GpuSpec(
        stem="rtx-4060-laptop", name="NVIDIA GeForce RTX 4060 Laptop GPU", chip="AD107", family="Ada Lovelace",
        compute_capability="8.9", sms=24, boost_clock_hz=2370e6,
        fma_per_sm=_ADA_SM, schedulers_per_sm=4, tensor_flop_per_sm=_ADA_GEFORCE_TENSOR,
        memory_type="GDDR6", bus_bits=128, data_rate_bps=16e9, dram_bytes=_gib(8),
        l2_bytes=_mib(32), l1_bytes_per_sm=128 * 1024, pcie_gen=4, pcie_lanes=8,
        l2_slices=16, l2_slice_bytes_per_clk=64,
        src={**_ADA_LAPTOP_SRC, "l2": _ada_laptop_l2(32),
             "clock": _tgp_clock(2370, "1470-2370 MHz in the specifications above",
                                 f"the laptop of the public report ran at most 2010 MHz ({SRC['ncu_laptops']})")},
        basis={"l1": "derived", "l2": "derived"},
        notes=_ADA_GEFORCE_NOTES, extra=_ADA_GEFORCE_EXTRA),
    GpuSpec(
        stem="rtx-5090", name="NVIDIA GeForce RTX 5090", chip="GB202", family="Blackwell",
        compute_capability="12.0", sms=170, boost_clock_hz=2407e6,
        fma_per_sm=_BLACKWELL_GEFORCE_SM, schedulers_per_sm=4, tensor_flop_per_sm=_BLACKWELL_GEFORCE_TENSOR,
        memory_type="GDDR7", bus_bits=512, data_rate_bps=28e9, dram_bytes=_gib(32),
        l2_bytes=_mib(96), l1_bytes_per_sm=128 * 1024, pcie_gen=5, pcie_lanes=16,
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
                    f"{_L1_ADA}; 128 KB L1/shared per SM: {SRC['tpu_5090']}"),
             "l2": _l2_src(f"assumption: 64 = 8 per 64-bit memory partition (FBP) as on AD107 and AD102 "
                           f"({SRC['ncu_slices']}) x 8 partitions on 512 bits; 96 MB / 64 = 1.5 MB per slice, as "
                           "on AD102. NVIDIA publishes no slice count for GB202 (128 MB in full; the RTX 5090 "
                           "enables 96): 48 slices of 2 MB would hold 96 MB too (7.4 TB/s)",
                           f"assumption: 64 B/clk, AD107's ({SRC['ncu_ad107']}); NVIDIA publishes no L2 rate "
                           "for GB202")},
        basis={"l1": "assumption", "l2": "assumption"},
        notes={**_BLACKWELL_GEFORCE_NOTES,
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
        stem="mi250-gcd", name="AMD Instinct MI250 (one GCD)", chip="gfx90a", family="CDNA2", vendor="AMD",
        compute_capability=None, sms=104, boost_clock_hz=1700e6,
        fma_per_sm={"fp64": 64, "fp32": 128}, schedulers_per_sm=4, instr_per_clk_per_scheduler=0.25,
        tensor_flop_per_sm={"tensor_fp64": 256, "tensor_fp16": 1024, "tensor_bf16": 1024, "tensor_int8": 1024},
        memory_type="HBM2e", bus_bits=4096, data_rate_bps=3.2e9, dram_bytes=_gib(64),
        l2_bytes=_mib(8), l1_bytes_per_sm=16 * 1024, pcie_gen=4, pcie_lanes=16,
        l1_bytes_per_clk=64, l2_slices=32, l2_slice_bytes_per_clk=64,
        transaction_bytes={"L1": 64, "L2": 128, "DRAM": 64},
        src={"units": SRC["mi250arch"], "clock": "1.7 GHz, the same document",
             "tensor": f"matrix cores (MFMA), {SRC['mi250arch']}",
             "dram": f"one GCD has half of the 8192 bits, {SRC['mi250ds']}",
             "l1": f"64 B/clk/CU, {SRC['rocprof_gfx90a']}; 16 KiB per CU: {SRC['rocm_specs']}",
             "l2": _l2_src(f"32 channels of 64 B/clk, {SRC['rocprof_gfx90a']}; 8 MiB per GCD: {SRC['rocm_specs']}",
                           "64 B/clk/channel, the same")},
        basis={"l1": "published", "l2": "published"},
        notes={"gcd": ("one GCD of an MI250, which HIP and PyTorch see as one device (an MI250 is two); an "
                       "MI210 has the same figures (104 CUs, 1.7 GHz, 64 GB HBM2e at 1.6 TB/s, 8 MB L2)"),
               "fp32": ("packed FP32 (256 FLOP/clk/CU); code without packed math peaks at half (128, 22.6 "
                        "TFLOP/s per GCD); matrix FP32 (MFMA) also runs 256 FLOP/clk/CU, so it shares this roof"),
               "fp16": ("no vector FP16 or BF16 rate in AMD's MI250 table: such work falls back to the fp32 "
                        "roof"),
               "issue": ("a CU has four 16-lane SIMDs and a wave64 VALU instruction holds one for 4 clocks: one "
                         "wavefront VALU instruction per CU per clock; scalar, LDS, memory and branch "
                         "instructions issue alongside (ROCm Compute Profiler's IPC peak is 5), so all "
                         "instructions together can pass this roof"),
               "l1": ("the vector L1 (vL1D) that global loads pass through; the LDS (64 KiB per CU, "
                      "128 B/clk/CU = 22.6 TB/s per GCD) is not this level"),
               "pcie": ("each GCD has its own PCIe Gen4 x16 link to the host (some platforms wire x8), "
                        + SRC["mi250arch"]),
               "transactions": "64 B vL1D, 128 B L2 and 64 B HBM requests, as ROCm Compute Profiler counts them"},
        extra={"gfx_target": "gfx90a", "gfxip_version": "9.0", "wavefront_size": 64,
               "lds_bytes_per_cu": 65536, "lds_bytes_per_clk_per_cu": 128,
               "fp32_unpacked_flop_per_cu_per_clk": 128, "tensor_fp32_flop_per_cu_per_clk": 256}),
)

SPECS_BY_STEM: dict[str, GpuSpec] = {s.stem: s for s in SPECS}


# ---------------------------------------------------------------- formulas

def flop_rate(sms: int, flop_per_clk_per_sm: float, clock_hz: float) -> float:
    """FLOP/s = SMs x FLOP per clock per SM x clock."""
    return sms * flop_per_clk_per_sm * clock_hz


def fma_flop_rate(sms: int, fma_per_clk_per_sm: float, clock_hz: float) -> float:
    """FLOP/s of FMA units: each FMA is 2 FLOP."""
    return flop_rate(sms, 2 * fma_per_clk_per_sm, clock_hz)


def warp_instruction_rate(sms: int, schedulers_per_sm: int, clock_hz: float,
                          per_clock: float = 1.0) -> float:
    """Peak warp instructions/s = SMs x schedulers x instr/clk (1, Ding &
    Williams; 1/4 for a CDNA SIMD) x clock."""
    return sms * schedulers_per_sm * per_clock * clock_hz


def dram_bandwidth(bus_bits: int, data_rate_bps: float) -> float:
    """Bytes/s = bus width in bits / 8 x data rate per pin (bit/s)."""
    return bus_bits / 8 * data_rate_bps


def per_clock_bandwidth(units: int, bytes_per_clk: float, clock_hz: float) -> float:
    """Bytes/s of ``units`` parts each moving ``bytes_per_clk`` per clock."""
    return units * bytes_per_clk * clock_hz


PCIE_GT_S = {2: 5e9, 3: 8e9, 4: 16e9, 5: 32e9}
PCIE_ENCODING = 128 / 130  # Gen3 and later
PCIE_GEN2_ENCODING = 8 / 10


def _pcie_encoding(gen: int) -> tuple[float, str]:
    return (PCIE_GEN2_ENCODING, "8/10") if gen <= 2 else (PCIE_ENCODING, "128/130")


def pcie_bandwidth(gen: int, lanes: int) -> float:
    """Raw link bytes/s in one direction = lanes x transfers/s x encoding / 8
    (8b/10b up to Gen2, 128b/130b from Gen3)."""
    return lanes * PCIE_GT_S[gen] * _pcie_encoding(gen)[0] / 8


# ---------------------------------------------------------------- ceilings

def _fmt_rate(value: float, unit: str) -> str:
    for scale, prefix in ((1e12, "T"), (1e9, "G")):
        if value >= scale:
            return f"{value / scale:.4g} {prefix}{unit}"
    return f"{value:.4g} {unit}"


def _mhz(hz: float) -> str:
    return f"{hz / 1e6:g} MHz"


def _ceiling(value: float, clock_hz: float | None, source: str) -> Ceiling:
    return Ceiling(value=float(value), theoretical=float(value),
                   clock_hz=None if clock_hz is None else float(clock_hz), source=source)


def _with_note(text: str, spec: GpuSpec, key: str) -> str:
    note = spec.notes.get(key)
    return f"{text}; {note}" if note else text


def tensor_clock(spec: GpuSpec, key: str) -> float:
    """Clock a tensor peak is quoted at (FP64 MMA runs at the boost clock)."""
    if spec.tensor_clock_hz is None or key == "tensor_fp64":
        return spec.boost_clock_hz
    return spec.tensor_clock_hz


def vector_ceiling(spec: GpuSpec, key: str) -> Ceiling:
    fma = spec.fma_per_sm[key]
    value = fma_flop_rate(spec.sms, fma, spec.boost_clock_hz)
    u = _unit(spec)
    text = (f"{key} = {spec.sms} {u}s x {2 * fma} FLOP/clk/{u} ({fma} FMA) x "
            f"{_mhz(spec.boost_clock_hz)} = {_fmt_rate(value, 'FLOP/s')}; "
            f"{spec.src['units']}; clock: {spec.src['clock']}")
    return _ceiling(value, spec.boost_clock_hz, _with_note(text, spec, key))


def tensor_ceiling(spec: GpuSpec, key: str) -> Ceiling:
    per_sm = spec.tensor_flop_per_sm[key]
    clock = tensor_clock(spec, key)
    value = flop_rate(spec.sms, per_sm, clock)
    u = _unit(spec)
    text = (f"{key} = {spec.sms} {u}s x {per_sm} dense FLOP/clk/{u} x {_mhz(clock)} = "
            f"{_fmt_rate(value, 'FLOP/s')}; {spec.src['tensor']}")
    return _ceiling(value, clock, _with_note(text, spec, key))


def instruction_ceiling(spec: GpuSpec) -> Ceiling:
    value = warp_instruction_rate(spec.sms, spec.schedulers_per_sm, spec.boost_clock_hz,
                                  spec.instr_per_clk_per_scheduler)
    unit, schedulers, thread, _, _ = _WORDS[spec.vendor]
    text = (f"{thread} instructions/s = {spec.sms} {unit}s x {spec.schedulers_per_sm} {schedulers} x "
            f"{spec.instr_per_clk_per_scheduler:g} instr/clk x {_mhz(spec.boost_clock_hz)} = "
            f"{_fmt_rate(value, 'inst/s')}; "
            f"formula: {SRC['dw2019']}; schedulers: {spec.src['units']}")
    return _ceiling(value, spec.boost_clock_hz, _with_note(text, spec, "issue"))


def dram_level(spec: GpuSpec) -> MemoryLevel:
    value = dram_bandwidth(spec.bus_bits, spec.data_rate_bps)
    text = (f"DRAM = {spec.bus_bits} bit / 8 x {spec.data_rate_bps / 1e9:g} Gbit/s/pin "
            f"{spec.memory_type} = {_fmt_rate(value, 'B/s')}; {spec.src['dram']}")
    return MemoryLevel("DRAM", _ceiling(value, None, _with_note(text, spec, "dram")),
                       transaction_bytes=_transaction(spec, "DRAM"), capacity_bytes=spec.dram_bytes)


def _basis(spec: GpuSpec, level: str) -> str:
    basis = spec.basis.get(level)
    if basis not in BASIS:
        raise ValueError(f"{spec.stem}: {level} needs a basis, one of {', '.join(BASIS)}")
    return basis


def l1_level(spec: GpuSpec) -> MemoryLevel | None:
    if spec.l1_bytes_per_clk is None:
        return None
    value = per_clock_bandwidth(spec.sms, spec.l1_bytes_per_clk, spec.boost_clock_hz)
    unit, label = _unit(spec), _WORDS[spec.vendor][3]
    text = (f"{label} = {spec.sms} {unit}s x {spec.l1_bytes_per_clk} B/clk/{unit} x "
            f"{_mhz(spec.boost_clock_hz)} = {_fmt_rate(value, 'B/s')} ({_basis(spec, 'l1')}); "
            f"{spec.src['l1']}")
    return MemoryLevel("L1", _ceiling(value, spec.boost_clock_hz, text),
                       transaction_bytes=_transaction(spec, "L1"),
                       capacity_bytes=float(spec.sms * spec.l1_bytes_per_sm))


def l2_level(spec: GpuSpec) -> MemoryLevel | None:
    if spec.l2_bytes_per_clk is None:
        return None
    value = per_clock_bandwidth(spec.l2_slices, spec.l2_slice_bytes_per_clk, spec.boost_clock_hz)
    text = (f"L2 = {spec.l2_slices} slices x {spec.l2_slice_bytes_per_clk} B/clk/slice x "
            f"{_mhz(spec.boost_clock_hz)} (L2 at the {_WORDS[spec.vendor][4]}) = {_fmt_rate(value, 'B/s')} "
            f"({_basis(spec, 'l2')}); {spec.src['l2']}")
    return MemoryLevel("L2", _ceiling(value, spec.boost_clock_hz, text),
                       transaction_bytes=_transaction(spec, "L2"), capacity_bytes=spec.l2_bytes)


def pcie_level(spec: GpuSpec) -> MemoryLevel:
    """The host link, kept under the ``PCIe`` level whatever carries it."""
    if spec.host_link is not None:
        value = spec.host_link_bidirectional_bytes_s / 2
        text = (f"host link {spec.host_link} = {_fmt_rate(spec.host_link_bidirectional_bytes_s, 'B/s')} "
                f"bidirectional / 2 = {_fmt_rate(value, 'B/s')} per direction (the CPU-GPU link is "
                f"{spec.host_link}, not PCIe; kept as this level, the host-link roof); {spec.src['host']}")
        return MemoryLevel("PCIe", _ceiling(value, None, text))
    value = pcie_bandwidth(spec.pcie_gen, spec.pcie_lanes)
    text = (f"PCIe Gen{spec.pcie_gen} x{spec.pcie_lanes} = {spec.pcie_lanes} lanes x "
            f"{PCIE_GT_S[spec.pcie_gen] / 1e9:g} GT/s x {_pcie_encoding(spec.pcie_gen)[1]} / 8 = "
            f"{_fmt_rate(value, 'B/s')} "
            f"per direction (raw link; packet overhead lowers what copies reach); {SRC['pcie']}")
    return MemoryLevel("PCIe", _ceiling(value, None, _with_note(text, spec, "pcie")))


# ---------------------------------------------------------------- devices

def compute_ceilings(spec: GpuSpec) -> dict[str, Ceiling]:
    out = {k: vector_ceiling(spec, k) for k in spec.fma_per_sm}
    out.update({k: tensor_ceiling(spec, k) for k in spec.tensor_flop_per_sm})
    return out


def memory_levels(spec: GpuSpec) -> dict[str, MemoryLevel]:
    levels = [l1_level(spec), l2_level(spec), dram_level(spec), pcie_level(spec)]
    return {lv.name: lv for lv in levels if lv is not None}


def clocks(spec: GpuSpec) -> dict[str, float]:
    out = {"boost": float(spec.boost_clock_hz)}
    if spec.tensor_clock_hz is not None:
        out["boost_tensor"] = float(spec.tensor_clock_hz)
    return out


def architecture(spec: GpuSpec) -> dict[str, object]:
    """The parameters every ceiling was derived from (YAML-safe plain data)."""
    arch: dict[str, object] = {
        "vendor": spec.vendor, "chip": spec.chip, "family": spec.family,
        "compute_capability": spec.compute_capability, "sms": spec.sms,
        "schedulers_per_sm": spec.schedulers_per_sm,
        "boost_clock_hz": float(spec.boost_clock_hz),
        "fma_per_sm_per_clk": dict(spec.fma_per_sm),
        "tensor_dense_flop_per_sm_per_clk": dict(spec.tensor_flop_per_sm),
        "memory_type": spec.memory_type, "memory_bus_bits": spec.bus_bits,
        "memory_data_rate_bps": float(spec.data_rate_bps),
        "dram_bytes": float(spec.dram_bytes), "l2_bytes": float(spec.l2_bytes),
        "l1_shared_bytes_per_sm": spec.l1_bytes_per_sm,
        "pcie_gen": spec.pcie_gen, "pcie_lanes": spec.pcie_lanes,
        "launch_overhead_source": LAUNCH_OVERHEAD_SOURCE if spec.vendor == "NVIDIA" else _HIP_LAUNCH,
    }
    if spec.compute_capability is None:
        del arch["compute_capability"]          # AMD: the GFX IP version is in extra
    if spec.instr_per_clk_per_scheduler != 1:
        arch["instructions_per_clk_per_scheduler"] = float(spec.instr_per_clk_per_scheduler)
    if spec.transaction_bytes:
        arch["transaction_bytes"] = dict(spec.transaction_bytes)
    if spec.tensor_clock_hz is not None:
        arch["tensor_clock_hz"] = float(spec.tensor_clock_hz)
    if spec.l1_bytes_per_clk is not None:
        arch["l1_bytes_per_clk_per_sm"] = spec.l1_bytes_per_clk
    if spec.l2_bytes_per_clk is not None:
        arch["l2_slices"] = spec.l2_slices
        arch["l2_bytes_per_clk_per_slice"] = spec.l2_slice_bytes_per_clk
        arch["l2_bytes_per_clk"] = spec.l2_bytes_per_clk
    if spec.host_link is not None:
        arch["host_link"] = spec.host_link
        arch["host_link_bidirectional_bytes_s"] = float(spec.host_link_bidirectional_bytes_s)
    arch["cache_level_basis"] = {level.upper(): basis for level, basis in spec.basis.items()}
    arch.update({k: v for k, v in spec.extra.items()})
    if spec.notes:
        arch["notes"] = dict(spec.notes)
    return arch


def sources(texts) -> list[str]:
    """The documents of SRC named in any of ``texts``, in SRC order."""
    return [doc for doc in SRC.values() if any(doc in t for t in texts)]


def build_device(spec: GpuSpec) -> Device:
    compute, memory = compute_ceilings(spec), memory_levels(spec)
    inst = instruction_ceiling(spec)
    texts = [c.source for c in compute.values()] + [m.bandwidth.source for m in memory.values()]
    return Device(
        name=spec.name, kind="gpu", compute=compute, memory=memory, instruction_rate=inst,
        launch_overhead_s=LAUNCH_OVERHEAD_S,
        clocks_hz=clocks(spec), architecture=architecture(spec),
        provenance={"method": "datasheet", "sources": sources(texts + [inst.source]),
                    "generated_by": GENERATED_BY},
    )


def devices() -> dict[str, Device]:
    """Every datasheet profile, file stem -> Device."""
    return {spec.stem: build_device(spec) for spec in SPECS}


# ---------------------------------------------------------------- docs

_TABLE_COLUMNS = (("FP64", "compute", "fp64", 1e12), ("FP32", "compute", "fp32", 1e12),
                  ("FP16", "compute", "fp16", 1e12), ("Tensor FP16", "compute", "tensor_fp16", 1e12),
                  ("DRAM", "memory", "DRAM", 1e9), ("L2", "memory", "L2", 1e9),
                  ("L1", "memory", "L1", 1e12), ("PCIe", "memory", "PCIe", 1e9))


def _cell(dev: Device, group: str, key: str, scale: float) -> str:
    table = dev.compute if group == "compute" else dev.memory
    if key not in table:
        return "-"
    value = (table[key].value if group == "compute" else table[key].bytes_s) / scale
    return f"{value:.0f}" if value >= 1e4 else f"{value:.4g}"   # 10138, not 1.014e+04


def markdown_table() -> str:
    """The headline ceilings of every profile as a Markdown table (docs/devices.md)."""
    head = ("| profile | chip | SMs/CUs | boost MHz | FP64 TFLOP/s | FP32 TFLOP/s | FP16 TFLOP/s | "
            "Tensor FP16 TFLOP/s | DRAM GB/s | L2 GB/s | L1 TB/s | PCIe GB/s | warp GIPS | "
            "FP32 ridge FLOP/B |")
    rows = [head, "|" + "---|" * 14]
    for spec in SPECS:
        dev = build_device(spec)
        cells = [_cell(dev, *col[1:]) for col in _TABLE_COLUMNS]
        rows.append(f"| `{spec.stem}` | {spec.chip} | {spec.sms} | {spec.boost_clock_hz / 1e6:g} | "
                    + " | ".join(cells)
                    + f" | {dev.instruction_rate.value / 1e9:.4g}"
                    + f" | {dev.ridge_point('DRAM', 'fp32'):.3g} |")
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------- files

def default_folder() -> Path:
    """The package's devices/ folder (the source tree in an editable install)."""
    return Path(str(resources.files("roofline.devices")))


def write_profiles(folder: str | Path | None = None) -> list[Path]:
    """(Re)write ``<stem>.yaml`` for every spec; returns the paths written."""
    folder = Path(folder) if folder is not None else default_folder()
    return [save_device(dev, folder / f"{stem}.yaml") for stem, dev in devices().items()]


def _plain(device: Device) -> dict:
    """The device as it reads back from YAML (tuples become lists, etc.)."""
    return yaml.safe_load(dump_device(device))


def _diff(a, b, prefix: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in list(a) + [k for k in b if k not in a]:
            where = f"{prefix}.{key}" if prefix else str(key)
            if key not in a or key not in b:
                out.append(f"{where}: only in {'file' if key in a else 'code'}")
            else:
                out.extend(_diff(a[key], b[key], where))
        return out
    return [] if a == b else [f"{prefix}: file {a!r} != code {b!r}"]


def compare_with_files(folder: str | Path | None = None) -> dict[str, list[str]]:
    """Drift between the code and the YAML files: stem -> differences.

    A stem is listed when its file is missing or differs in any value; the
    list is empty for every stem whose file matches the code exactly.
    """
    folder = Path(folder) if folder is not None else default_folder()
    report: dict[str, list[str]] = {}
    for stem, device in devices().items():
        path = folder / f"{stem}.yaml"
        if not path.exists():
            report[stem] = [f"{path}: missing"]
            continue
        on_disk = yaml.safe_load(path.read_text(encoding="utf-8"))
        report[stem] = _diff(on_disk, _plain(device))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m roofline.datasheet",
                                     description="Write or check the built-in GPU profiles.")
    parser.add_argument("--out", type=Path, default=None, help="folder (default: roofline.devices)")
    parser.add_argument("--check", action="store_true",
                        help="report drift between code and files; write nothing")
    args = parser.parse_args(argv)
    if args.check:
        drift = {k: v for k, v in compare_with_files(args.out).items() if v}
        for stem, problems in drift.items():
            sys.stdout.write(f"{stem}: " + "; ".join(problems[:5]) + "\n")
        sys.stdout.write(f"{len(SPECS) - len(drift)}/{len(SPECS)} profiles match the code\n")
        return 1 if drift else 0
    for path in write_profiles(args.out):
        sys.stdout.write(f"wrote {path}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
