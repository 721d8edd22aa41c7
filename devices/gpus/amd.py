"""AMD Instinct CDNA2 GPUs (gfx90a): MI250 and MI250X, one GCD per profile
(what HIP and PyTorch see as one device), and the whole MI250X (both GCDs)
for a per-package view. CDNA3 and CDNA4 are in :mod:`.cdna3` and :mod:`.cdna4`.
"""
from __future__ import annotations

from .sources import (SRC, l2_src)
from .spec import GpuSpec, gib, mib, scale_up_link

# one MI250X GCD: 110 CUs of the MI250's CDNA2 CU (AMD's FLOPS/clock/CU table)
MI250X_SRC = {"units": f"{SRC['mi250arch']}; 110 CUs per GCD: {SRC['rocm_specs_2026']}",
              "clock": f"1.7 GHz peak engine clock, {SRC['mi250x_ds']}",
              "tensor": f"matrix cores (MFMA), {SRC['mi250arch']}; totals: {SRC['mi250x_ds']}",
              "l1": f"64 B/clk/CU, {SRC['rocprof_gfx90a']}; 16 KiB per CU: {SRC['rocm_specs_2026']}"}
# per GCD (each GCD is one device); the pairs differ: 200 GB/s each way to the
# other GCD of its OAM, 50 (or 100) to a GCD of another OAM; a group's GCDs
# are not known, so every peer is taken at the lowest pair rate, one link
MI250X_LINKS = scale_up_link(
    "Infinity Fabric (xGMI)", 8, 100e9, SRC["mi250_links"], "published",
    to_other_gcd_links=4, to_other_gcd_bidirectional_bytes_s=400e9,
    topology="per GCD: 4 links to the other GCD of its OAM, the rest to other OAMs (one may serve as PCIe)",
    per_peer_bidirectional_bytes_s=100e9, per_peer_basis="lowest",
    per_peer_note=("a GCD reaches the other GCD of its OAM at 200 GB/s each way (four links), a GCD of another "
                   "OAM at 50 (one link; 100 for GCD pairs 2-6 and 0-4): one link assumed for every peer"))

TRANSACTIONS_NOTE = "64 B vL1D, 128 B L2 and 64 B HBM requests, as ROCm Compute Profiler counts them"


def _cdna2_gcd() -> dict:
    """What every CDNA2 GCD profile shares: the CU (AMD's FLOPS/clock/CU
    table), its clock, HBM2e, the caches' per-clock rates and request sizes."""
    return dict(family="CDNA2", vendor="AMD", compute_capability=None, boost_clock_hz=1700e6,
                fma_per_sm={"fp64": 64, "fp32": 128}, schedulers_per_sm=4, instr_per_clk_per_scheduler=0.25,
                tensor_flop_per_sm={"tensor_fp64": 256, "tensor_fp16": 1024, "tensor_bf16": 1024,
                                    "tensor_int8": 1024},
                memory_type="HBM2e", data_rate_bps=3.2e9, l1_bytes_per_sm=16 * 1024, pcie_gen=4,
                l1_bytes_per_clk=64, l2_slice_bytes_per_clk=64, transaction_bytes={"L1": 64, "L2": 128, "DRAM": 64},
                basis={"l1": "published", "l2": "published"})


def _cdna2_extra() -> dict:
    """The architecture fields every CDNA2 profile carries (the MI250
    document's links: MI250 and MI250X alike)."""
    return {"gfx_target": "gfx90a", "gfxip_version": "9.0", "wavefront_size": 64,
            "lds_bytes_per_cu": 65536, "lds_bytes_per_clk_per_cu": 128,
            "fp32_unpacked_flop_per_cu_per_clk": 128, "tensor_fp32_flop_per_cu_per_clk": 256,
            "scale_up_link": MI250X_LINKS}


SPECS: tuple[GpuSpec, ...] = (
    GpuSpec(
        stem="mi250-gcd", name="AMD Instinct MI250 (one GCD)", chip="gfx90a",
        sms=104, bus_bits=4096, dram_bytes=gib(64), l2_bytes=mib(8), pcie_lanes=16, l2_slices=32,
        **_cdna2_gcd(),
        src={"units": SRC["mi250arch"], "clock": "1.7 GHz, the same document",
             "tensor": f"matrix cores (MFMA), {SRC['mi250arch']}",
             "dram": f"one GCD has half of the 8192 bits, {SRC['mi250ds']}",
             "l1": f"64 B/clk/CU, {SRC['rocprof_gfx90a']}; 16 KiB per CU: {SRC['rocm_specs']}",
             "l2": l2_src(f"32 channels of 64 B/clk, {SRC['rocprof_gfx90a']}; 8 MiB per GCD: {SRC['rocm_specs']}",
                           "64 B/clk/channel, the same")},
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
               "transactions": TRANSACTIONS_NOTE},
        extra=_cdna2_extra()),
    GpuSpec(
        stem="mi250x-gcd", name="AMD Instinct MI250X (one GCD)", chip="gfx90a",
        sms=110, bus_bits=4096, dram_bytes=gib(64), l2_bytes=mib(8), pcie_lanes=16, l2_slices=32,
        **_cdna2_gcd(),
        src={**MI250X_SRC, "dram": f"one GCD has half of the 8192 bits, {SRC['mi250x_ds']}",
             "l2": l2_src(f"32 channels of 64 B/clk, {SRC['rocprof_gfx90a']}; 8 MiB per GCD: "
                          f"{SRC['rocm_specs_2026']}", "64 B/clk/channel, the same")},
        notes={"gcd": ("one GCD of an MI250X, which HIP and PyTorch see as one device: the MI250 GCD's CU, "
                       "memory and caches with 110 CUs instead of 104"),
               "fp32": ("packed FP32 (256 FLOP/clk/CU); code without packed math peaks at half; matrix FP32 "
                        "(MFMA) also runs 256 FLOP/clk/CU, so it shares this roof"),
               "fp16": "no vector FP16 or BF16 rate in AMD's table: such work falls back to the fp32 roof",
               "issue": ("one wavefront VALU instruction per CU per clock (four SIMD16 units, 4 clocks per wave64 "
                         "instruction); other instructions issue alongside"),
               "l1": "the vector L1 (vL1D); the LDS (64 KiB per CU, 128 B/clk/CU) is not this level",
               "pcie": ("each GCD has its own PCIe Gen4 x16 link to the host (some platforms wire x8; on "
                        "Frontier-like nodes the CPU is reached over Infinity Fabric instead), " + SRC["mi250arch"]),
               "transactions": TRANSACTIONS_NOTE},
        extra=_cdna2_extra()),
    GpuSpec(
        stem="mi250x", name="AMD Instinct MI250X (both GCDs)", chip="gfx90a x2",
        sms=220, bus_bits=8192, dram_bytes=gib(128), l2_bytes=mib(16), pcie_lanes=32, l2_slices=64,
        **_cdna2_gcd(),
        src={**MI250X_SRC, "dram": f"8 HBM2e stacks, 8192 bits at 3.2 Gbit/s, {SRC['mi250x_ds']}",
             "l2": l2_src(f"64 = 2 GCDs x 32 channels of 64 B/clk, {SRC['rocprof_gfx90a']}; 16 MiB (8 per GCD): "
                          f"{SRC['rocm_specs_2026']}", "64 B/clk/channel, the same")},
        notes={"gcd": ("both GCDs of an MI250X as one package, for per-package sums: no runtime shows them as one "
                       "device (each GCD is a device; its profile is mi250x-gcd), and a GCD reaches the other's "
                       "memory only over 4 Infinity Fabric links (200 GB/s per direction), not at HBM speed"),
               "fp32": "packed FP32 (256 FLOP/clk/CU); code without packed math peaks at half",
               "fp16": "no vector FP16 or BF16 rate in AMD's table: such work falls back to the fp32 roof",
               "issue": "one wavefront VALU instruction per CU per clock, as on one GCD",
               "l2": "two separate 8 MB L2s, one per GCD: the roof is their sum",
               "pcie": ("two PCIe Gen4 x16 links, one per GCD (32 lanes in all), " + SRC["mi250arch"]),
               "transactions": TRANSACTIONS_NOTE},
        extra={**_cdna2_extra(), "gcds": 2}),
)
