"""Products that share a chip with a profiled GPU but not its figures: the
H100 NVL (GH100, 132 SMs at a lower clock, six HBM3 stacks), the A30
(GA100 with 56 SMs and three HBM2 stacks), the GeForce RTX 2070 SUPER
(TU104, not the RTX 2070's TU106) and the MI210 (one CDNA2 die on a PCIe
card: an MI250 GCD's figures). Each was refused or put on a neighbour's
roofs before it had a profile of its own.
"""
from __future__ import annotations

from .amd import TRANSACTIONS_NOTE, _cdna2_extra, _cdna2_gcd
from .sources import (A100_TENSOR, AMPERE_SM, GEFORCE_ACC, H100_TENSOR, HOPPER_BASIS, HOPPER_SM, L1_TURING,
                      L2_RATE_AMPERE, SRC, l2_src, turing_l2)
from .spec import GpuSpec, gib, mib, scale_up_link

# NVIDIA gives the H100 NVL's totals, not its clocks: FP32 60 TFLOP/s over 132 SMs x 256 FLOP/clk gives the
# boost clock, dense BF16 (1671 / 2) over 132 x 4096 the tensor clock, as the H100 whitepaper quotes its
# low-precision tensor peaks at a lower clock than the rest.
H100_NVL_BOOST = 60e12 / (132 * 256)
H100_NVL_TENSOR_CLOCK = 1671e12 / 2 / (132 * 4096)
H100_NVL_DERIVED = f"derived from NVIDIA's totals ({SRC['h100nvl_ds']}) over {SRC['h100nvl_sms']}"

SPECS: tuple[GpuSpec, ...] = (
    GpuSpec(
        stem="h100-nvl", name="NVIDIA H100 NVL", chip="GH100", family="Hopper",
        compute_capability="9.0", sms=132, boost_clock_hz=H100_NVL_BOOST, tensor_clock_hz=H100_NVL_TENSOR_CLOCK,
        fma_per_sm=HOPPER_SM, schedulers_per_sm=4, tensor_flop_per_sm=H100_TENSOR,
        memory_type="HBM3", bus_bits=6144, data_rate_bps=3.9e12 * 8 / 6144, dram_bytes=gib(94),
        l2_bytes=mib(50), l1_bytes_per_sm=256 * 1024, l2_slices=80, l2_slice_bytes_per_clk=64,
        pcie_gen=5, pcie_lanes=16,
        src={"units": f"the Hopper SM, {SRC['hopper']}; SMs: {SRC['h100nvl_sms']}",
             "clock": (f"{H100_NVL_BOOST / 1e6:.1f} MHz = 60 TFLOP/s FP32 / (132 SMs x 256 FLOP/clk), "
                       f"{H100_NVL_DERIVED}"),
             "tensor": (f"{H100_NVL_TENSOR_CLOCK / 1e6:.1f} MHz = 835.5 TFLOP/s dense BF16 / (132 x 4096 FLOP/clk); "
                        f"FP64 tensor at the boost clock (60 TFLOP/s); {H100_NVL_DERIVED}"),
             "dram": (f"3.9 TB/s on six 1024-bit HBM3 stacks (assumption: six stacks, the 94 GB of six 16 GB "
                      f"stacks less a reserve), {SRC['h100nvl_ds']}"),
             "l1": f"128 B/clk/SM, {SRC['cuda_guide']}",
             "l2": l2_src(f"assumption: 80, the H100 SXM5's and PCIe's 50 MB in 640 KB slices (8 per 512-bit "
                          f"controller as on GA100 and GV100, {SRC['ncu_slices']}); NVIDIA gives no L2 size for the "
                          "H100 NVL", L2_RATE_AMPERE)},
        basis=HOPPER_BASIS,
        notes={"dram": "per-pin rate back-derived from 3.9 TB/s on 6144 bits (5.08 Gbit/s)",
               "memory": ("94 GB taken as 94 GiB: a runtime reports about 93.6 GiB for the board (assumption; "
                          "the choice of profile allows 10 % below)"),
               "clock": ("NVIDIA publishes the H100 NVL's totals, not its clocks; its 30/60/60 TFLOP/s FP64, FP64 "
                         "tensor and FP32 all give 1776 MHz over 132 SMs"),
               "nvl": ("the H100 NVL is a PCIe card (350-400 W) whose pairs are joined by NVLink bridges; an "
                       "'NVIDIA H100 NVL' is not an H100 PCIe (114 SMs, 2 TB/s)")},
        extra={"scale_up_link": scale_up_link(
            "NVLink 4 bridge", 12, 50e9, f"600 GB/s: {SRC['h100nvl_ds']}; 50 GB/s per NVLink 4 link: {SRC['hopper']}",
            "derived", topology="pairs of cards joined by three NVLink bridges; other GPUs over PCIe",
            links_note="12 links = 600 GB/s / 50 GB/s per NVLink 4 link")}),
    GpuSpec(
        stem="a30", name="NVIDIA A30", chip="GA100", family="Ampere",
        compute_capability="8.0", sms=56, boost_clock_hz=1440e6,
        fma_per_sm=AMPERE_SM, schedulers_per_sm=4, tensor_flop_per_sm=A100_TENSOR,
        memory_type="HBM2", bus_bits=3072, data_rate_bps=2.43e9, dram_bytes=gib(24),
        l2_bytes=mib(24), l1_bytes_per_sm=192 * 1024, l2_slices=48, l2_slice_bytes_per_clk=64,
        pcie_gen=4, pcie_lanes=16,
        src={"units": f"the GA100 SM, {SRC['ampere']}; {SRC['a30_config']}",
             "clock": f"1440 MHz boost: {SRC['a30_config']}; totals: {SRC['a30ds']}",
             "tensor": f"GA100 tensor rates per SM, {SRC['ampere']}; 56 x 2048 x 1.44 GHz = 165 TFLOP/s, {SRC['a30ds']}",
             "dram": f"{SRC['a30ds']}; {SRC['a30_config']}",
             "l1": SRC["cuda_guide"],
             "l2": l2_src(f"assumption: 48 = 6 512-bit memory controllers (three HBM2 stacks) x 8 slices as on GA100 "
                          f"({SRC['ncu_slices']}): 24 MB / 48 = 512 KB per slice, as the A100's 40 MB / 80",
                          f"64 B/clk = the 5120 B/clk L2 read bandwidth of {SRC['ampere']} / 80 slices")},
        basis={"l1": "derived", "l2": "assumption"},
        notes={"a30": ("a GA100 with 56 SMs and 24 GB: it computes as about half an A100 (compute capability 8.0 "
                       "like the A100s, so a file giving only 8.0 cannot tell them apart)")},
        extra={"scale_up_link": scale_up_link(
            "NVLink 3 bridge", 4, 50e9, f"200 GB/s: {SRC['a30ds']}; 50 GB/s per NVLink 3 link: {SRC['ampere']}",
            "derived", topology="pairs of cards joined by an NVLink bridge; other GPUs over PCIe",
            links_note="4 links = 200 GB/s / 50 GB/s per NVLink 3 link")}),
    GpuSpec(
        stem="rtx-2070-super", name="NVIDIA GeForce RTX 2070 SUPER", chip="TU104", family="Turing",
        compute_capability="7.5", sms=40, boost_clock_hz=1770e6,
        fma_per_sm={"fp64": 2, "fp32": 64, "fp16": 128}, schedulers_per_sm=4,
        tensor_flop_per_sm={"tensor_fp16": 1024, "tensor_int8": 2048},
        memory_type="GDDR6", bus_bits=256, data_rate_bps=14e9, dram_bytes=gib(8),
        l2_bytes=mib(4), l1_bytes_per_sm=96 * 1024, pcie_gen=3, pcie_lanes=16,
        l1_bytes_per_clk=64, l2_slices=16, l2_slice_bytes_per_clk=64,
        src={"units": SRC["turing"], "clock": SRC["rtx2070s"] + " (reference boost)",
             "tensor": SRC["turing"] + " (8 tensor cores/SM x 64 FP16 FMA/clk)",
             "dram": SRC["rtx2070s"], "l1": L1_TURING, "l2": turing_l2("TU104")},
        basis={"l1": "derived", "l2": "assumption"},
        notes={"tensor_fp16": GEFORCE_ACC,
               "super": ("the RTX 2070 SUPER is a TU104 (40 SMs), not the RTX 2070's TU106 (36 SMs): 9.1 against "
                         "7.5 TFLOP/s FP32")},
        extra={"tensor_fp32_accumulate_flop_per_sm_per_clk": {"tensor_fp16": 512}}),
    GpuSpec(
        stem="mi210", name="AMD Instinct MI210", chip="gfx90a",
        sms=104, bus_bits=4096, dram_bytes=gib(64), l2_bytes=mib(8), pcie_lanes=16, l2_slices=32,
        **_cdna2_gcd(),
        src={"units": f"{SRC['mi250arch']} (the same CDNA2 CU); 104 CUs: {SRC['mi210_ds']}",
             "clock": f"1.7 GHz peak engine clock, {SRC['mi210_ds']}",
             "tensor": f"matrix cores (MFMA), {SRC['mi250arch']}",
             "dram": SRC["mi210_ds"],
             "l1": f"64 B/clk/CU, {SRC['rocprof_gfx90a']}; 16 KiB per CU: {SRC['rocm_specs']}",
             "l2": l2_src(f"32 channels of 64 B/clk, {SRC['rocprof_gfx90a']}; 8 MiB: {SRC['mi210_ds']}",
                          "64 B/clk/channel, the same")},
        notes={"mi210": ("one CDNA2 die on a PCIe card, with the figures of one MI250 GCD (104 CUs, 1.7 GHz, 64 GB "
                         "HBM2e at 1.6 TB/s, 8 MB L2): the same roofs as mi250-gcd. A file's device properties "
                         "cannot tell the two apart, so they are chosen by name only"),
               "fp32": ("packed FP32 (256 FLOP/clk/CU); code without packed math peaks at half; matrix FP32 (MFMA) "
                        "also runs 256 FLOP/clk/CU, so it shares this roof"),
               "fp16": "no vector FP16 or BF16 rate in AMD's table: such work falls back to the fp32 roof",
               "pcie": "PCIe Gen4 x16 to the host, " + SRC["mi210_ds"],
               "transactions": TRANSACTIONS_NOTE},
        extra={**_cdna2_extra(), "same_figures_as": "mi250-gcd",
               "scale_up_link": scale_up_link(
                   "Infinity Fabric (xGMI) bridge", 3, 100e9, SRC["mi210_ds"], "published",
                   topology="up to four cards joined by an Infinity Fabric bridge")}),
)
