"""AMD Instinct CDNA3 GPUs (gfx942): MI300X, MI300A, MI325X.

One profile is the whole GPU as HIP and PyTorch see it in the default (SPX)
partition mode: all XCDs. Levels: the vector L1 (vL1D) of every CU, the L2
(4 MB per XCD, 16 channels each, summed over the XCDs), the memory-side
Infinity Cache (MALL) as L3, HBM as DRAM, and the host link.
"""
from __future__ import annotations

from .sources import SRC, l2_src
from .spec import GpuSpec, gib, mib, scale_up_link

# Per CU per clock (AMD's MI300 table): FMA units (an FMA is 2 FLOP) and dense matrix FLOP.
CDNA3_CU = {"fp64": 64, "fp32": 128}
CDNA3_MATRIX = {"tensor_fp64": 256, "tensor_tf32": 1024, "tensor_fp16": 2048, "tensor_bf16": 2048,
                "tensor_fp8": 4096, "tensor_int8": 4096}
CDNA3_TRANSACTIONS = {"L1": 128, "L2": 128, "L3": 64, "DRAM": 64}

CDNA3_SRC = {
    "units": SRC["mi300arch"],
    "tensor": f"matrix cores (MFMA), FLOPS/clock/CU of {SRC['mi300arch']}",
    "l1": f"128 B/clk/CU, {SRC['rocprof_cdna3']}; 32 KiB per CU: {SRC['rocm_specs_2026']}",
}


def cdna3_l2(xcds: int) -> str:
    return l2_src(f"{16 * xcds} = {xcds} XCDs x 16 channels, {SRC['rocprof_cdna3']}; {4 * xcds} MiB of L2 (4 per "
                  f"XCD): {SRC['rocm_specs_2026']}", "128 B/clk/channel at the engine clock, the same")


CDNA3_L3 = (f"256 MiB, {SRC['rocm_specs_2026']}; derived: AMD publishes the total, {SRC['sth_mi300']}; 128 channels "
            "(one per HBM3 channel) of 64 B/clk at the 2100 MHz engine clock give 17.2 TB/s, the decomposition "
            "that reproduces it (the Infinity Cache runs on the Infinity Fabric clock, which AMD does not publish)")

CDNA3_NOTES = {
    "fp32": ("packed FP32 (256 FLOP/clk/CU, AMD's vector FP32 rate); code without packed math peaks at half (128, "
             "ROCm Compute Profiler's VALU peak of 64 lanes x 2); matrix FP32 (MFMA) also runs 256 FLOP/clk/CU, so "
             "it shares this roof"),
    "fp16": "no vector FP16 or BF16 rate in AMD's MI300 table: such work falls back to the fp32 roof",
    "tensor_fp16": ("AMD's dense rate; ROCm Compute Profiler's MFMA F16/BF16 speed-of-light uses 4096 FLOP/clk/CU "
                    "(INT8 8192), twice the published figures, so its percentages of peak are half of this roof's"),
    "tensor_fp8": "FP8 and BF8 MFMA (the FNUZ formats on gfx942)",
    "issue": ("a CU has four 16-lane SIMDs and a wave64 VALU instruction holds one for 4 clocks: one wavefront "
              "VALU instruction per CU per clock; scalar, LDS, memory and branch instructions issue alongside "
              "(ROCm Compute Profiler's IPC peak is 5), so all instructions together can pass this roof"),
    "l1": ("the vector L1 (vL1D, 32 KiB per CU) that global loads pass through; the LDS (64 KiB per CU, "
           "128 B/clk/CU) is not this level"),
    "l2": ("each XCD's 4 MB L2 serves only its own CUs (38 on gfx942): the roof is the sum over all XCDs, reached "
           "only when the work and its data are spread over every XCD"),
    "l3": ("memory-side: the Infinity Cache holds HBM data for every XCD and is not coherent-private to any; "
           "bytes that hit it do not reach HBM. Kineto traces do not count them, so kernels are placed on it only "
           "from counter-based files"),
    "transactions": ("128 B vL1D and L2 requests and 64 B HBM requests, as ROCm Compute Profiler counts them; "
                     "64 B Infinity Cache lines taken as the HBM request size (assumption)"),
    "partition": ("the GPU can be split into partitions (CPX: one XCD per device, 38 CUs); such a device still "
                  "reports the whole GPU's name, so pass --device with a measured profile for partitioned runs: "
                  "this profile is the whole GPU (SPX)"),
}
CDNA3_EXTRA = {"gfx_target": "gfx942", "gfxip_version": "9.4", "wavefront_size": 64,
               "lds_bytes_per_cu": 65536, "lds_bytes_per_clk_per_cu": 128,
               "fp32_unpacked_flop_per_cu_per_clk": 128, "tensor_fp32_flop_per_cu_per_clk": 256,
               "l2_bytes_per_xcd": mib(4), "cus_per_xcd": 38}

MI300X_LINK = scale_up_link(
    "Infinity Fabric (xGMI)", 7, 128e9, f"{SRC['mi300x_ds']}; {SRC['mi300arch']}", "published",
    topology="8 GPUs all-to-all on a universal baseboard: one link to each of the 7 peers",
    per_peer_bidirectional_bytes_s=128e9)

SPECS: tuple[GpuSpec, ...] = (
    GpuSpec(
        stem="mi300x", name="AMD Instinct MI300X", chip="gfx942", family="CDNA3", vendor="AMD",
        compute_capability=None, sms=304, boost_clock_hz=2100e6,
        fma_per_sm=CDNA3_CU, schedulers_per_sm=4, instr_per_clk_per_scheduler=0.25, tensor_flop_per_sm=CDNA3_MATRIX,
        memory_type="HBM3", bus_bits=8192, data_rate_bps=5.2e9, dram_bytes=gib(192),
        l2_bytes=mib(32), l1_bytes_per_sm=32 * 1024, pcie_gen=5, pcie_lanes=16,
        l1_bytes_per_clk=128, l2_slices=128, l2_slice_bytes_per_clk=128,
        l3_bytes=mib(256), l3_channels=128, l3_channel_bytes_per_clk=64,
        transaction_bytes=CDNA3_TRANSACTIONS,
        src={**CDNA3_SRC, "clock": f"2100 MHz peak engine clock, {SRC['mi300x_ds']}",
             "dram": (f"8 HBM3 stacks of 1024 bits at 5.2 Gbit/s, {SRC['mi300x_ds']}; the same 5324.8 GB/s: "
                      f"{SRC['rocprof_cdna3']}"),
             "l2": cdna3_l2(8), "l3": CDNA3_L3},
        basis={"l1": "published", "l2": "published", "l3": "derived"},
        notes={**CDNA3_NOTES,
               "pcie": f"the host link: PCIe Gen5 x16, {SRC['mi300arch']}",
               "clock": (f"AMD's peak engine clock; long GEMMs run lower: {SRC['tracelens_arch']} (708 TFLOP/s BF16 "
                         "measured, 54 % of this roof)"),
               "dram": f"{SRC['tl_mi300x_trace']}: the runtime reports 192 GiB less 16 MiB"},
        extra={**CDNA3_EXTRA, "xcds": 8, "scale_up_link": MI300X_LINK}),
    GpuSpec(
        stem="mi300a", name="AMD Instinct MI300A", chip="gfx942", family="CDNA3", vendor="AMD",
        compute_capability=None, sms=228, boost_clock_hz=2100e6,
        fma_per_sm=CDNA3_CU, schedulers_per_sm=4, instr_per_clk_per_scheduler=0.25, tensor_flop_per_sm=CDNA3_MATRIX,
        memory_type="HBM3", bus_bits=8192, data_rate_bps=5.2e9, dram_bytes=gib(128),
        l2_bytes=mib(24), l1_bytes_per_sm=32 * 1024, pcie_gen=5, pcie_lanes=16,
        l1_bytes_per_clk=128, l2_slices=96, l2_slice_bytes_per_clk=128,
        l3_bytes=mib(256), l3_channels=128, l3_channel_bytes_per_clk=64,
        transaction_bytes=CDNA3_TRANSACTIONS,
        host_link="on-package Infinity Fabric (APU: CPU and GPU share the HBM)",
        host_link_bidirectional_bytes_s=2 * 8192 / 8 * 5.2e9,
        src={**CDNA3_SRC, "clock": f"2100 MHz peak engine clock, {SRC['mi300a_ds']}",
             "dram": (f"8 HBM3 stacks of 1024 bits at 5.2 Gbit/s as on MI300X ({SRC['mi300x_ds']}); 128 GB, "
                      f"5.3 TB/s: {SRC['mi300a_ds']}"),
             "l2": cdna3_l2(6), "l3": CDNA3_L3,
             "host": (f"assumption: CPU and GPU share one HBM3 ({SRC['mi300a_ds']}), so a host-device copy is a "
                      "copy within the HBM and the HBM roof bounds it; no separate CPU-GPU figure was found")},
        basis={"l1": "published", "l2": "published", "l3": "derived"},
        notes={**CDNA3_NOTES,
               "dram": ("128 GB shared with the 24 CPU cores: the GPU can use most of it, the runtime reports "
                        "what the OS leaves")},
        extra={**CDNA3_EXTRA, "xcds": 6,
               "scale_up_link": scale_up_link(
                   "Infinity Fabric (xGMI)", None, None,
                   "not found: no Infinity Fabric figure for MI300A in the documents at hand", "assumption")}),
    GpuSpec(
        stem="mi325x", name="AMD Instinct MI325X", chip="gfx942", family="CDNA3", vendor="AMD",
        compute_capability=None, sms=304, boost_clock_hz=2100e6,
        fma_per_sm=CDNA3_CU, schedulers_per_sm=4, instr_per_clk_per_scheduler=0.25, tensor_flop_per_sm=CDNA3_MATRIX,
        memory_type="HBM3E", bus_bits=8192, data_rate_bps=6e12 / 1024, dram_bytes=gib(256),
        l2_bytes=mib(32), l1_bytes_per_sm=32 * 1024, pcie_gen=5, pcie_lanes=16,
        l1_bytes_per_clk=128, l2_slices=128, l2_slice_bytes_per_clk=128,
        l3_bytes=mib(256), l3_channels=128, l3_channel_bytes_per_clk=64,
        transaction_bytes=CDNA3_TRANSACTIONS,
        src={**CDNA3_SRC, "clock": f"2100 MHz, {SRC['mi325x_ds']}",
             "dram": (f"8 HBM3E stacks of 1024 bits, {SRC['mi325x_ds']}; per-pin rate back-derived from 6 TB/s; "
                      f"{SRC['tracelens_arch']}"),
             "l2": cdna3_l2(8),
             "l3": ("assumption: the MI300X's Infinity Cache (the same I/O dies; AMD publishes no MI325X figure): "
                    + CDNA3_L3)},
        basis={"l1": "published", "l2": "published", "l3": "assumption"},
        notes={**CDNA3_NOTES, "pcie": f"assumption: PCIe Gen5 x16 as on MI300X ({SRC['mi300arch']})",
               "dram": "per-pin rate back-derived from AMD's 6 TB/s (5.86 Gbit/s on 8192 bits)"},
        extra={**CDNA3_EXTRA, "xcds": 8,
               "scale_up_link": {**MI300X_LINK, "basis": "assumption",
                                 "source": f"assumption: the MI300X's links ({SRC['mi300x_ds']})"}}),
)
