"""AMD Instinct CDNA4 GPUs (gfx950): MI350X, MI355X.

The two share the silicon (256 CUs in 8 XCDs of 32, 288 GB of HBM3E) and
differ in the peak engine clock and power: MI350X 2.2 GHz at 1000 W
(air-cooled), MI355X 2.4 GHz at 1400 W (liquid-cooled). Levels as on CDNA3
(:mod:`.cdna3`), without the Infinity Cache: AMD's figure for its bandwidth
on CDNA4 was not found, so no L3 roof is drawn (its capacity is recorded).
"""
from __future__ import annotations

from .sources import SRC, l2_src
from .spec import GpuSpec, gib, mib, scale_up_link

# Per CU per clock. Vector FP64 and FP32 as CDNA3 (157.3 TFLOP/s FP32 = 256 CUs x 256 x 2.4 GHz);
# matrix FP16/BF16 2048 -> 4096 and FP8 4096 -> 8192 (ISSCC 2026), INT8 = FP8 (5 POPS dense),
# FP6 and FP4 16384 (20.1 PFLOP/s sparse on MI355X = 2 x 256 x 16384 x 2.4 GHz).
CDNA4_CU = {"fp64": 64, "fp32": 128}
CDNA4_MATRIX = {"tensor_fp16": 4096, "tensor_bf16": 4096, "tensor_fp8": 8192, "tensor_int8": 8192,
                "tensor_fp6": 16384, "tensor_fp4": 16384}

CDNA4_SRC = {
    "units": (f"vector FP64 and FP32 per CU as on CDNA3 ({SRC['mi300arch']}), checked against "
              f"{SRC['cdna4_launch']}; 256 CUs: {SRC['rocm_specs_2026']}"),
    "tensor": (f"matrix cores (MFMA): FP8 8192 FLOP/clk/CU, {SRC['cdna4_isscc']}; FP16/BF16 half of that and INT8 "
               f"equal to it, FP6/FP4 twice it, as the dense totals of {SRC['cdna4_launch']} require; no TF32 "
               f"GEMM: {SRC['rocprof_perf_model']}"),
    "dram": (f"8192 bits at 8 Gbit/s: the memory width and 2000 MHz memory clock of {SRC['rocprofv3_908']} "
             f"(4 transfers per clock); AMD rounds 8.19 to 8 TB/s: {SRC['cdna4_launch']}"),
    "l1": f"128 B/clk/CU, {SRC['rocprof_cdna3']}; 32 KiB per CU: {SRC['rocm_specs_2026']}",
    "l2": l2_src(f"128 = 8 XCDs x 16 channels, {SRC['rocprof_cdna3']}; 32 MiB of L2 (4 per XCD): "
                 f"{SRC['rocm_specs_2026']}", "128 B/clk/channel at the engine clock, the same"),
}
CDNA4_NOTES = {
    "fp32": ("packed FP32 (256 FLOP/clk/CU); code without packed math peaks at half; matrix FP32 runs at this "
             "rate too (157.3 TFLOP/s on MI355X)"),
    "fp16": "no vector FP16 or BF16 rate published for CDNA4: such work falls back to the fp32 roof",
    "tensor_fp64": ("no matrix FP64 roof: AMD's CDNA4 matrix FP64 rate was not found in the documents at hand; "
                    "FP64 MFMA work falls back to the vector fp64 roof"),
    "tensor_tf32": "no TF32 GEMM on CDNA4: TF32 work falls back to the fp32 roof",
    "tensor_fp6": "FP6 runs at the FP4 rate on CDNA4 (twice FP8), unlike NVIDIA Blackwell where it runs at the FP8 rate",
    "issue": ("a CU has four 16-lane SIMDs and a wave64 VALU instruction holds one for 4 clocks: one wavefront "
              "VALU instruction per CU per clock; other instructions issue alongside, so all together can pass "
              "this roof"),
    "l1": ("the vector L1 (vL1D, 32 KiB per CU); the LDS (160 KiB per CU, read at 256 B/clk on CDNA4) is not "
           "this level"),
    "l2": ("each XCD's 4 MB L2 serves only its 32 CUs: the roof is the sum over all 8 XCDs"),
    "l3": ("256 MB of memory-side Infinity Cache (MALL) as on CDNA3; no CDNA4 bandwidth figure was found, so "
           "there is no L3 roof: kernels that hit it can sit above the DRAM roof"),
    "transactions": "128 B vL1D and L2 requests and 64 B HBM requests, as ROCm Compute Profiler counts them",
    "partition": ("the GPU can be split into partitions (CPX: one XCD per device, 32 CUs); such a device still "
                  "reports the whole GPU's name: this profile is the whole GPU (SPX)"),
    "pcie": f"the host link: PCIe Gen5 x16; the agent's PCIe io_link of {SRC['rocprofv3_908']}",
}
CDNA4_EXTRA = {"gfx_target": "gfx950", "gfxip_version": "9.5", "wavefront_size": 64,
               "lds_bytes_per_cu": 160 * 1024, "lds_read_bytes_per_clk_per_cu": 256,
               "fp32_unpacked_flop_per_cu_per_clk": 128, "tensor_fp32_flop_per_cu_per_clk": 256,
               "xcds": 8, "cus_per_xcd": 32, "l2_bytes_per_xcd": mib(4), "l3_bytes": mib(256),
               "scale_up_link": scale_up_link(
                   "Infinity Fabric (xGMI)", 7, None,
                   f"7 links per GPU, {SRC['cdna4_launch']}; AMD's per-link rate was not found in the documents "
                   "at hand", "published",
                   topology="8 GPUs all-to-all on a universal baseboard: one link to each of the 7 peers")}


def _cdna4(stem: str, name: str, clock_mhz: int, power: str, seen: str = "") -> GpuSpec:
    return GpuSpec(
        stem=stem, name=name, chip="gfx950", family="CDNA4", vendor="AMD",
        compute_capability=None, sms=256, boost_clock_hz=clock_mhz * 1e6,
        fma_per_sm=CDNA4_CU, schedulers_per_sm=4, instr_per_clk_per_scheduler=0.25, tensor_flop_per_sm=CDNA4_MATRIX,
        memory_type="HBM3E", bus_bits=8192, data_rate_bps=8e9, dram_bytes=gib(288),
        l2_bytes=mib(32), l1_bytes_per_sm=32 * 1024, pcie_gen=5, pcie_lanes=16,
        l1_bytes_per_clk=128, l2_slices=128, l2_slice_bytes_per_clk=128,
        transaction_bytes={"L1": 128, "L2": 128, "DRAM": 64},
        src={**CDNA4_SRC, "clock": f"{clock_mhz} MHz peak engine clock at {power}, {SRC['cdna4_launch']}{seen}"},
        basis={"l1": "published", "l2": "published"},
        notes=CDNA4_NOTES, extra=CDNA4_EXTRA)


SPECS: tuple[GpuSpec, ...] = (
    _cdna4("mi350x", "AMD Instinct MI350X", 2200, "1000 W",
           f"; the same max engine clock in {SRC['rocprofv3_908']}"),
    _cdna4("mi355x", "AMD Instinct MI355X", 2400, "1400 W"),
)
