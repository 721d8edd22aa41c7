"""Documents cited by the profiles of :mod:`.variants` (H100 NVL, A30,
RTX 2070 SUPER, MI210). :mod:`.sources` merges them into ``SRC``.
"""
from __future__ import annotations

SRC_VARIANTS = {
    "h100nvl_ds": ("NVIDIA H100 Tensor Core GPU datasheet (2023 edition, H100 NVL column, per GPU): FP64 30, FP64 "
                   "Tensor Core 60, FP32 60 TFLOP/s; TF32 835, BF16 and FP16 1671, FP8 and INT8 3341 TFLOP/s with "
                   "sparsity (half without); 94 GB HBM3 at 3.9 TB/s; NVLink 600 GB/s; PCIe Gen5 128 GB/s; "
                   "350-400 W"),
    "h100nvl_sms": ("the H100 NVL enables 132 SMs, as the H100 SXM5 (NVIDIA's H100 NVL figures are the SXM5's "
                    "132-SM rates at a lower clock; third-party GPU databases list 16,896 CUDA cores = 132 x 128)"),
    "a30ds": ("NVIDIA A30 Tensor Core GPU datasheet (2021): FP64 5.2, FP64 Tensor Core 10.3, FP32 10.3 TFLOP/s; "
              "TF32 82, BF16 and FP16 165, INT8 330 dense tensor TFLOP/s; 24 GB HBM2 at 933 GB/s; PCIe Gen4 "
              "64 GB/s; third-generation NVLink 200 GB/s (bridged pairs); 165 W"),
    "a30_config": ("A30 configuration as NVIDIA's figures imply it: GA100 with 56 SMs (3584 FP32 cores) at 1440 MHz "
                   "boost (10.3 TFLOP/s FP32 = 56 x 128 x 1.44 GHz), three HBM2 stacks (3072 bits at 2.43 Gbit/s = "
                   "933 GB/s, the A100 40 GB's per-pin rate), 24 MB of L2"),
    "rtx2070s": ("NVIDIA GeForce RTX 2070 SUPER specifications (2019): TU104, 2560 CUDA cores (40 SMs), 1770 MHz "
                 "boost, 8 GB GDDR6 on 256 bits at 14 Gbit/s (448 GB/s), 4 MB L2"),
    "mi210_ds": ("AMD Instinct MI210 specifications: one CDNA2 die (gfx90a) with 104 CUs, 1700 MHz peak engine clock, "
                 "64 GB HBM2e on 4096 bits at 1.6 TB/s, 8 MB L2, PCIe Gen4 x16, up to three Infinity Fabric links "
                 "(100 GB/s each, 300 GB/s peer-to-peer) through a bridge"),
}
