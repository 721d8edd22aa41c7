"""Documents cited by the CDNA2 (MI250X), CDNA3 (MI300X, MI300A, MI325X),
CDNA4 (MI350X, MI355X), data-center Blackwell (B200, GB200), H20, L40S and
RTX PRO 6000 Blackwell profiles. :mod:`.sources` merges them into ``SRC``,
so a profile's ``provenance.sources`` lists them like any other document.

Third-party material (reviews, databases, public traces) is named as such;
a figure taken from it is marked ``assumption`` or ``derived`` where it is
used, never ``published``.
"""
from __future__ import annotations

SRC_2025 = {
    # ------------------------------------------------------------ AMD CDNA3
    "mi300arch": ("AMD ROCm documentation, 'AMD Instinct MI300 series microarchitecture' (MI300X: 304 CUs in 8 "
                  "XCDs of 38, each XCD's CUs sharing a 4 MB L2; peak FLOPS/clock/CU: matrix FP64 256, vector FP64 "
                  "128, matrix FP32 256, vector FP32 256, TF32 1024, FP16 and BF16 2048, FP8 and INT8 4096; "
                  "1307.4 TFLOP/s FP16; 5.3 TB/s; PCIe Gen 5 x16 to the host; seven Infinity Fabric links join 8 "
                  "GPUs all-to-all)"),
    "rocm_specs_2026": ("AMD ROCm documentation, 'GPU hardware specifications' (2026 edition): MI355X and MI350X "
                        "gfx950, 288 GiB, 256 CUs (32 per XCD), wavefront 64, 160 KiB LDS, 256 MiB L3, 32 MiB L2 (4 "
                        "per XCD), 32 KiB vector L1, GFXIP 9.5; MI325X, MI300X, MI300A gfx942 with 256, 192 and 128 "
                        "GiB, 304, 304 and 228 CUs (38 per XCD), 64 KiB LDS, 256 MiB L3, 32, 32 and 24 MiB L2, 32 "
                        "KiB vector L1, GFXIP 9.4; MI250X gfx90a, 128 GiB, 220 CUs (110 per GCD), 16 MiB L2 (8 per "
                        "GCD), 16 KiB vector L1, GFXIP 9.0"),
    "rocprof_cdna3": ("ROCm Compute Profiler (rocprofiler-compute) for gfx942 and gfx950: 16 L2 (TCC) channels per "
                      "XCD; speed-of-light peaks vL1D 128 B/clk/CU, L2 128 B/clk/channel, LDS 128 B/clk/CU, IPC "
                      "5/clk/CU, HBM = memory clock x 32 B x HBM channels; requests counted as 128 B (vL1D, L2) and "
                      "64 B (HBM); an MI300X's sysinfo: 304 CUs, 8 XCDs, 128 L2 channels, HBM 5324.8 GB/s"),
    "mi300x_ds": ("AMD Instinct MI300X specifications: 2100 MHz peak engine clock, 192 GB HBM3 in 8 stacks on "
                  "8192 bits at 5.2 Gbit/s (5.3 TB/s), PCIe Gen5 x16, 7 Infinity Fabric links of 128 GB/s each "
                  "(896 GB/s peer-to-peer aggregate)"),
    "mi300a_ds": ("AMD Instinct MI300A specifications: an APU of 6 XCDs (228 CUs) and 24 Zen 4 cores sharing 128 GB "
                  "of HBM3 (5.3 TB/s); 2100 MHz peak engine clock; 980.6 TFLOP/s FP16 matrix"),
    "mi325x_ds": ("AMD Instinct MI325X specifications: the MI300X's compute (304 CUs, 2100 MHz, 1307.4 TFLOP/s "
                  "FP16 matrix) with 256 GB of HBM3E at 6 TB/s"),
    "sth_mi300": ("ServeTheHome, 'AMD Instinct MI300X GPU and MI300A APUs Launched for AI Era' (2023), AMD's launch "
                  "slides: 128-channel interleaved HBM3, 256 MB of Infinity Cache with 17 TB/s of peak bandwidth"),
    "tracelens_arch": ("AMD-AGI/TraceLens GPU architecture files MI300X.json and MI325X.json: measured max-"
                       "achievable rates, not peaks (MI300X 708 TFLOP/s BF16 matrix, 5300 GB/s, 192 GB; MI325X 843 "
                       "TFLOP/s BF16 matrix, 6000 GB/s, 256 GB)"),
    "tl_mi300x_trace": ("Kineto trace in AMD-AGI/TraceLens (tests/traces/torch_compile_triton): deviceProperties "
                        "'AMD Instinct MI300X', 304 CUs, warp size 64, compute 9.4, 206,141,652,992 bytes"),
    # ------------------------------------------------------------ AMD CDNA4
    "cdna4_launch": ("AMD Instinct MI350 series (CDNA 4) launch figures as reported: MI350X 2.2 GHz peak engine "
                     "clock at 1000 W, MI355X 2.4 GHz at 1400 W (Hot Chips 2025, Wccftech); MI355X 157.3 TFLOP/s "
                     "FP32, 5 POPS INT8 dense, 20 PFLOP/s FP6/FP4 with sparsity (svethardware, June 2025); MI350X "
                     "and MI355X 18.45 and 20.1 PFLOP/s FP4/FP6 with sparsity, 288 GB HBM3E at 8 TB/s (Tom's "
                     "Hardware, ISC 2025); 7 Infinity Fabric links per GPU (Hot Chips 2025)"),
    "cdna4_isscc": ("AMD at ISSCC 2026 on the MI355X, as reported (World Today News, Feb 2026): 32 active CUs per "
                    "XCD, matrix FP8 doubled per CU from 4096 to 8192 FLOP/clk, 5 PFLOP/s FP8"),
    "rocprof_perf_model": ("ROCm Compute Profiler documentation, 'Performance model': CDNA4 (MI350X, MI355X) has "
                           "FP64, FP32, FP16, BF16 and INT8 GEMM, packed FP32 and FP8, and no TF32 GEMM"),
    "rocprofv3_908": ("rocprofv3 output in AMD-AGI/TraceLens (tests/rocprof/908_results.json), agents section: "
                      "product_name 'AMD Instinct MI350X', gfx950 (gfx_target_version 90500), device id 30112 "
                      "(rocprofiler-compute's mi350), 256 CUs in 8 XCCs, wavefront 64, 160 KB LDS, max engine "
                      "clock 2200 MHz, memory 8192 bits wide at 2000 MHz, 309,220,868,096 bytes, 4 MB L2 per XCC "
                      "and 256 MB L3, PCIe io_link of 64,000 MB/s"),
    # ------------------------------------------------------------ AMD CDNA2 (MI250X)
    "mi250x_ds": ("AMD Instinct MI250X specifications: two GCDs of 110 CUs, 1.7 GHz peak engine clock, 128 GB "
                  "HBM2e on 8192 bits at 3.2 TB/s, 47.9 TFLOP/s FP64 vector, 95.7 FP64 matrix, 383 FP16/BF16 matrix"),
    "mi250_links": ("AMD ROCm documentation, 'AMD Instinct MI250 microarchitecture', node-level section: each "
                    "16-lane Infinity Fabric link runs at 25 GT/s, 50 GB/s per direction (100 GB/s bidirectional); "
                    "the two GCDs of an OAM are joined by four (200 GB/s per direction, 400 bidirectional); each "
                    "GCD drives two interfaces of four links, one of which may be its PCIe link; between OAMs a "
                    "link joins a GCD to a GCD of another OAM (50 GB/s per direction), GCD pairs 2-6 and 0-4 "
                    "by two links (100 GB/s per direction)"),
    # ------------------------------------------------------------ NVIDIA data-center Blackwell
    "b200_specs": ("NVIDIA HGX B200 and GB200 NVL72 specifications, per-GPU table (sparse figures; dense is half): "
                   "HGX B200 FP4 18, FP8/FP6 9, INT8 9, FP16/BF16 4.5, TF32 2.2 PFLOP/s, FP32 75 and FP64/FP64 "
                   "Tensor Core 37 TFLOP/s, 180 GB HBM3E at 7.7 TB/s, up to 1000 W; GB200 FP4 20, FP8/FP6 10, INT8 "
                   "10, FP16/BF16 5, TF32 2.5 PFLOP/s, FP32 80 and FP64 40 TFLOP/s, 186 GB HBM3E at 8 TB/s, up to "
                   "1200 W; fifth-generation NVLink 1.8 TB/s, PCIe Gen5 128 GB/s"),
    "blackwell_launch": ("NVIDIA Blackwell launch figures (GTC 2024), as tabulated by G. Lockwood ('B200', "
                         "glennklockwood.com): B200 with two dies, 192 GB HBM3e in 8 stacks at 8 TB/s, HGX B200 at "
                         "1000 W 2.25 PFLOP/s dense FP16/BF16, 4.5 FP8/FP6, 9 FP4; NVLink 5 1.8 TB/s per GPU"),
    "cc_b200": ("chipsandcheese, 'Nvidia's B200: Keeping the CUDA Juggernaut Rolling' (2025): two dies of 80 SMs "
                "with 74 enabled on each (148), 256 KB of L1/shared memory per SM as on H100, 126 MB of L2 in two "
                "partitions (one per die; a remote partition adds latency), clocks similar to H100 SXM5"),
    "hmc_b200": ("hmc-tech.com GPU database (third-party), NVIDIA B200 and GB200: 148 SMs, 1.98 and 2.11 GHz boost, "
                 "1.86 and 2.06 GHz tensor clocks, 8192-bit HBM3e, BF16 (non-tensor) at twice the FP32 rate"),
    "tl_b200_trace": ("Kineto trace in AMD-AGI/TraceLens (tests/traces/b200/eager_trace): deviceProperties "
                      "'NVIDIA B200', 148 SMs, warp size 32, compute capability 10.0, 191,503,138,816 bytes, 228 KB "
                      "shared memory per SM; 8 GPUs"),
    "vultr_b200": ("Vultr documentation, 'NVIDIA HGX B200 Hardware Overview' (2026): nvidia-smi topo shows NV18 "
                   "(18 NVLinks) between every GPU pair through NVSwitch, 1.8 TB/s bidirectional per GPU"),
    "gb200_c2c": ("NVIDIA GB200 Grace Blackwell Superchip (GTC 2024 material, as summarised in public notes): one "
                  "Grace CPU and two B200 GPUs joined by NVLink-C2C at 900 GB/s bidirectional; 186 GB HBM3e per GPU"),
    # ------------------------------------------------------------ NVIDIA H20, L40S, RTX PRO 6000
    "h20": ("NVIDIA H20 specifications (2024, partner datasheets, as reported): FP64 1, FP32 44, TF32 74, "
            "FP16/BF16 148, FP8 and INT8 296 TFLOP/s (dense), 96 GB HBM3 at 4.0 TB/s, 60 MB L2, NVLink 900 GB/s, "
            "PCIe Gen5 x16, 400 W"),
    "h20_sms": ("third-party report of a Geekbench 6 listing of the H20: 78 SMs (GH100 has 144, H100 SXM5 132)"),
    "l40s_ds": ("NVIDIA L40S datasheet (2023): 18,176 CUDA cores (142 SMs), 568 fourth-generation Tensor Cores, "
                "FP32 91.6, TF32 183, BF16 and FP16 362.05, FP8 733 TFLOP/s dense (twice with sparsity), 48 GB "
                "GDDR6 with ECC at 864 GB/s, PCIe Gen4 x16 (64 GB/s bidirectional), 350 W"),
    "tpu_l40s": ("TechPowerUp GPU database (third-party), L40S: AD102, 142 SMs, 1110 MHz base and 2520 MHz boost, "
                 "384-bit GDDR6 at 18 Gbit/s, 128 KB L1 per SM (it lists 48 MB of L2)"),
    "hmc_l40": "hmc-tech.com GPU database (third-party), NVIDIA L40: AD102, 142 SMs, 2.49 GHz boost, 98.3 MB L2",
    "rtxpro6000": ("NVIDIA RTX PRO 6000 Blackwell (GTC 2025), as reported by Tom's Hardware and VideoCardz: GB202 "
                   "with 188 of its 192 SMs (24,064 CUDA cores), up to 125 TFLOP/s FP32 and 4000 AI TOPS (FP4, "
                   "sparse), 128 MB L2, 96 GB GDDR7 (32 chips of 3 GB, clamshell) on 512 bits at 28 Gbit/s (1792 "
                   "GB/s), PCIe Gen5 x16; Workstation Edition 600 W, Max-Q Workstation Edition 300 W and Server "
                   "Edition with the same SMs and memory"),
}
