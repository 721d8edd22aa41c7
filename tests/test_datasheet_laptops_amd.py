"""Datasheet profiles of the GPUs that real files in ../shared/realdata name
and that had none: the RTX 4050 and 4060 Laptop GPUs, the GeForce MX450,
the GTX 1060 Max-Q and one GCD of an AMD MI250. Each key figure is
recomputed here from the vendor's published totals (so a typo in a
parameter fails), and the parameters are checked against what the real
reports themselves say about their GPU (Nsight Compute device attributes,
Nsight Systems TARGET_INFO_GPU, Kineto deviceProperties)."""
from __future__ import annotations

import json
import math
import sqlite3

import pytest

from roofline.devices import datasheet as ds
from roofline.importers import read_profile

T, G = 1e12, 1e9
DEV = ds.devices()
NEW = ("rtx-4050-laptop", "rtx-4060-laptop", "mx450", "gtx-1060-maxq", "mi250-gcd")


def close(value: float, published: float, rel: float = 0.005) -> bool:
    return math.isclose(value, published, rel_tol=rel)


def per_sm(stem: str, key: str) -> float:
    """FLOP per SM (CU) per clock of a ceiling, back from its value."""
    d = DEV[stem]
    return d.compute[key].value / (d.architecture["sms"] * d.compute[key].clock_hz)


# ------------------------------------------------ NVIDIA laptop parts

@pytest.mark.parametrize("stem, cores, bus_bits, gib, l2_mib", [
    ("rtx-4060-laptop", 3072, 128, 8, 32),      # NVIDIA: 3072 CUDA cores, 8 GB GDDR6 128-bit
    ("rtx-4050-laptop", 2560, 96, 6, 24),       # NVIDIA: 2560 CUDA cores, 6 GB GDDR6 96-bit
])
def test_rtx_40_laptop_gpus_at_the_top_of_their_boost_range(stem, cores, bus_bits, gib, l2_mib):
    d = DEV[stem]
    assert d.architecture["sms"] * 128 == cores                    # 128 CUDA cores per Ada SM
    # the boost clock is TGP-dependent: the profile takes 2370 MHz, the top of NVIDIA's range
    assert d.clocks_hz == {"boost": 2370e6}
    assert close(d.compute["fp32"].value, cores * 2 * 2370e6)
    assert close(d.compute["fp64"].value, d.compute["fp32"].value / 64)
    # tensor rates per SM are the GeForce Ada SM's (RTX 4090: 330.3 TFLOP/s FP16 accumulate)
    for key in ("tensor_fp16", "tensor_bf16", "tensor_tf32", "tensor_fp8", "tensor_int8"):
        assert per_sm(stem, key) == per_sm("rtx-4090", key), key
    assert close(d.bandwidth("DRAM"), bus_bits / 8 * 16e9)     # 16 Gbit/s GDDR6
    assert d.memory["DRAM"].capacity_bytes == gib * 2 ** 30
    assert d.memory["L2"].capacity_bytes == l2_mib * 2 ** 20
    assert close(d.bandwidth("L2"), 16 * 64 * 2370e6)          # 16 slices x 64 B/clk
    assert close(d.bandwidth("L1"), cores / 128 * 128 * 2370e6)
    assert close(d.bandwidth("PCIe"), ds.pcie_bandwidth(4, 8))
    clock_source = d.compute["fp32"].source
    assert "assumption: 2370 MHz" in clock_source and "TGP" in clock_source


def test_mx450_is_a_turing_tu117_without_tensor_cores():
    d = DEV["mx450"]
    assert close(d.compute["fp32"].value, 896 * 2 * 1575e6)       # 14 SMs x 64 cores at 1575 MHz
    assert d.compute["fp16"].value == pytest.approx(2 * d.compute["fp32"].value)
    assert not [k for k in d.compute if k.startswith("tensor")]
    assert close(d.bandwidth("DRAM"), 80 * G)                      # 64-bit GDDR6 at 10 Gbit/s
    assert d.memory["DRAM"].capacity_bytes == 2 * 2 ** 30
    assert d.memory["L2"].capacity_bytes == 512 * 1024
    assert close(d.bandwidth("L1"), 14 * 64 * 1575e6)              # Turing: 64 B/clk/SM
    assert close(d.bandwidth("PCIe"), 4 * 8e9 * 128 / 130 / 8)     # Gen3 x4
    assert "assumption: 1575 MHz" in d.compute["fp32"].source


def test_gtx_1060_max_q_is_a_pascal_gp106():
    d = DEV["gtx-1060-maxq"]
    assert close(d.compute["fp32"].value, 1280 * 2 * 1480e6)     # 1280 CUDA cores, Max-Q boost up to 1480
    assert close(d.compute["fp64"].value, d.compute["fp32"].value / 32)
    assert close(d.compute["fp16"].value, d.compute["fp32"].value / 64)
    assert close(d.bandwidth("DRAM"), 192 * G)                      # 192-bit GDDR5 at 8 Gbit/s
    assert d.memory["L2"].capacity_bytes == 1536 * 1024            # six 32-bit controllers x 256 KB
    assert d.architecture["l2_slices"] == 6
    assert "assumption: 1480 MHz" in d.compute["fp32"].source


def test_laptop_profiles_are_laptop_parts_by_name():
    from roofline.devices.names import _profile_features
    names = {s: DEV[s].name for s in NEW}
    for stem in ("rtx-4050-laptop", "rtx-4060-laptop", "gtx-1060-maxq"):
        assert _profile_features(stem, names)[0] == "laptop", stem
    # the MX450 exists only in laptops and names itself without the word: no form factor to disagree with
    assert _profile_features("mx450", names)[0] is None


# ------------------------------------------------ AMD MI250, one GCD

def test_mi250_gcd_is_half_of_amds_mi250_figures():
    d = DEV["mi250-gcd"]
    # AMD: MI250 (two GCDs) 45.3 vector FP64, 90.5 matrix FP64, 90.5 packed FP32,
    # 362.1 matrix FP16 / BF16 / INT8 TFLOP/s, 3.2 TB/s HBM2e
    assert close(d.compute["fp64"].value, 45.3 * T / 2)
    assert close(d.compute["tensor_fp64"].value, 90.5 * T / 2)
    assert close(d.compute["fp32"].value, 90.5 * T / 2)
    for key in ("tensor_fp16", "tensor_bf16", "tensor_int8"):
        assert close(d.compute[key].value, 362.1 * T / 2), key
    assert close(d.bandwidth("DRAM"), 1.6384 * T)                 # 4096 bits x 3.2 Gbit/s
    assert d.memory["DRAM"].capacity_bytes == 64 * 2 ** 30
    # ROCm Compute Profiler's gfx90a peaks: 32 L2 channels x 64 B/clk, vL1D 64 B/clk/CU
    assert close(d.bandwidth("L2"), 32 * 64 * 1.7e9)
    assert close(d.bandwidth("L1"), 104 * 64 * 1.7e9)
    assert d.memory["L2"].capacity_bytes == 8 * 2 ** 20
    assert close(d.bandwidth("PCIe"), ds.pcie_bandwidth(4, 16))   # each GCD its own Gen4 x16
    # one wave64 VALU instruction per CU per clock (4 SIMD16 units, 4 clocks each)
    assert close(d.instruction_rate.value, 104 * 1.7e9)
    assert {lv: d.memory[lv].transaction_bytes for lv in ("L1", "L2", "DRAM")} == {"L1": 64, "L2": 128, "DRAM": 64}


def test_mi250_gcd_has_no_cuda_capability_and_no_vector_fp16_roof():
    d = DEV["mi250-gcd"]
    arch = d.architecture
    assert arch["vendor"] == "AMD" and "compute_capability" not in arch
    assert (arch["gfxip_version"], arch["wavefront_size"], arch["sms"]) == ("9.0", 64, 104)
    assert d.compute_key("fp16") == "fp32" and d.compute_key("bf16") == "fp32"
    assert d.compute_key("tensor_tf32") == "fp32"                   # no TF32 on CDNA2
    assert "CU" in d.compute["fp64"].source and "SM" not in d.compute["fp64"].source.split(";")[0]
    assert "packed" in d.compute["fp32"].source


# ------------------------------------------------ what the real files say

def _ncu_attributes(path) -> dict:
    from conftest import ncu_first_launch_numbers
    return {k[len("device__attribute_"):]: v for k, v in ncu_first_launch_numbers(path).items()
            if k.startswith("device__attribute_")}


@pytest.mark.parametrize("rel, stem", [
    ("ncu_rep/Alaric617R__COALDA__origin.ncu-rep", "rtx-4050-laptop"),
    ("ncu_rep/rashwanth__RooflineAnalysis_On_NVIDIA_GPU__output0.ncu-rep", "rtx-4060-laptop"),
    ("ncu_rep/Alaric617R__COALDA__rgb_original.ncu-rep", "mx450"),
])
def test_laptop_parameters_are_what_nsight_compute_reports(realdata, rel, stem):
    a = _ncu_attributes(realdata / rel)
    arch = DEV[stem].architecture
    assert arch["sms"] == a["multiprocessor_count"]
    assert arch["compute_capability"] == f"{a['compute_capability_major']:.0f}.{a['compute_capability_minor']:.0f}"
    assert arch["memory_bus_bits"] == a["global_memory_bus_width"]
    # GDDR6: the attribute is half the data rate per pin, in kHz
    assert arch["memory_data_rate_bps"] == pytest.approx(2 * a["memory_clock_rate"] * 1e3, rel=1e-3)
    assert arch["l2_bytes"] == a["l2_cache_size"] and arch["l2_slices"] == a["l2s_count"]
    assert 0.9 * arch["dram_bytes"] <= a["total_memory"] <= arch["dram_bytes"]
    # that laptop's clock is at or below the profile's (the top of the TGP range: an upper bound)
    assert a["clock_rate"] * 1e3 <= arch["boost_clock_hz"]
    assert arch["pcie_lanes"] == min(a["gpu_pci_ext_gpu_link_width"], a["gpu_pci_ext_downstream_link_width"])
    assert ds.PCIE_GT_S[arch["pcie_gen"]] == a["gpu_pci_ext_gpu_link_rate"] * 1e6


def test_gtx_1060_max_q_parameters_are_what_nsight_systems_reports(realdata):
    path = realdata / "nsys/extra-p__extrap__con_kernel.sqlite"
    if not path.exists():
        pytest.skip(f"{path} is not present")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.text_factory = bytes                       # the file holds Latin-1 text elsewhere
    cols = ("smCount", "l2CacheSize", "totalMemory", "memoryBandwidth", "clockRate", "computeMajor",
            "computeMinor", "maxShmemPerSm")
    row = dict(zip(cols, conn.execute(f"SELECT {', '.join(cols)} FROM TARGET_INFO_GPU WHERE id = 0").fetchone()))
    conn.close()
    d = DEV["gtx-1060-maxq"]
    arch = d.architecture
    assert arch["sms"] == row["smCount"] and arch["l2_bytes"] == row["l2CacheSize"]
    assert arch["dram_bytes"] == row["totalMemory"]
    assert d.bandwidth("DRAM") == pytest.approx(row["memoryBandwidth"], rel=2e-3)
    assert arch["compute_capability"] == f"{row['computeMajor']}.{row['computeMinor']}"
    assert arch["l1_shared_bytes_per_sm"] == row["maxShmemPerSm"]
    assert row["clockRate"] <= arch["boost_clock_hz"]


def test_mi250_parameters_are_what_the_rocm_kineto_trace_reports(realdata):
    path = realdata / "kineto_trace/facebookresearch__HolisticTraceAnalysis__mi250_minitoy_train_ROCm6_2_kineto.json.gz"
    if not path.exists():
        pytest.skip(f"{path} is not present")
    props = read_profile(path).device.properties
    arch = DEV["mi250-gcd"].architecture
    assert props["sms"] == arch["sms"] and props["warp_size"] == arch["wavefront_size"]
    assert props["capability"] == arch["gfxip_version"]
    assert 0.97 * arch["dram_bytes"] <= props["memory_bytes"] <= arch["dram_bytes"]
