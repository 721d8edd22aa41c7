"""AMD Instinct GPUs (CDNA): MI250, one GCD per profile.
"""
from __future__ import annotations

from .sources import (SRC, l2_src)
from .spec import GpuSpec, gib, mib

SPECS: tuple[GpuSpec, ...] = (
    GpuSpec(
        stem="mi250-gcd", name="AMD Instinct MI250 (one GCD)", chip="gfx90a", family="CDNA2", vendor="AMD",
        compute_capability=None, sms=104, boost_clock_hz=1700e6,
        fma_per_sm={"fp64": 64, "fp32": 128}, schedulers_per_sm=4, instr_per_clk_per_scheduler=0.25,
        tensor_flop_per_sm={"tensor_fp64": 256, "tensor_fp16": 1024, "tensor_bf16": 1024, "tensor_int8": 1024},
        memory_type="HBM2e", bus_bits=4096, data_rate_bps=3.2e9, dram_bytes=gib(64),
        l2_bytes=mib(8), l1_bytes_per_sm=16 * 1024, pcie_gen=4, pcie_lanes=16,
        l1_bytes_per_clk=64, l2_slices=32, l2_slice_bytes_per_clk=64,
        transaction_bytes={"L1": 64, "L2": 128, "DRAM": 64},
        src={"units": SRC["mi250arch"], "clock": "1.7 GHz, the same document",
             "tensor": f"matrix cores (MFMA), {SRC['mi250arch']}",
             "dram": f"one GCD has half of the 8192 bits, {SRC['mi250ds']}",
             "l1": f"64 B/clk/CU, {SRC['rocprof_gfx90a']}; 16 KiB per CU: {SRC['rocm_specs']}",
             "l2": l2_src(f"32 channels of 64 B/clk, {SRC['rocprof_gfx90a']}; 8 MiB per GCD: {SRC['rocm_specs']}",
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
