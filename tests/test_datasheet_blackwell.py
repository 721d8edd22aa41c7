"""The GeForce RTX 5090 (GB202, GeForce Blackwell, compute capability 12.0)
datasheet profile. Its key figures are recomputed here from NVIDIA's
published totals (21,760 CUDA cores, 2407 MHz boost, 838 TFLOP/s FP16 tensor
and 3352 AI TOPS FP4, both with 2:4 sparsity, 512-bit GDDR7 at 28 Gbit/s),
so a typo in a parameter fails; the per-SM rates are checked against the
ceilings Nsight Compute itself drew in a real RTX 5090 report (read here with
the csv module, not through roofline's importers); and the figures that rest
on assumptions must say so in their sources."""
from __future__ import annotations

import csv
import json
import math
import subprocess
import sys

import pytest

from roofline.devices import datasheet as ds, regenerate
from roofline.devices.names import resolve_reported, resolve_typed
from roofline.core.model import PRECISIONS
from roofline.devices.profile import builtin_profiles, find_device, profile_names

T, G = 1e12, 1e9
STEM = "rtx-5090"
DEV = ds.devices()[STEM]
ARCH = DEV.architecture
CHART = "ncu_csv/CodeGandee__llm-perf-opt__kernel_0001_ncu.section_SpeedOfLight_RooflineChart.csv"
DETAILS = "ncu_csv/CodeGandee__llm-perf-opt__kernel_0001_ncu.details.csv"
KERN_SUM = "nsys/CodeGandee__llm-perf-opt__sam_summary_cuda_gpu_kern_sum.csv"

# NVIDIA's published totals for the GeForce RTX 5090
CUDA_CORES, BOOST_HZ = 21760, 2407e6
FP16_TENSOR_SPARSE, FP4_SPARSE = 838e12, 3352e12
BUS_BITS, PIN_BPS = 512, 28e9


def close(value: float, published: float, rel: float = 0.005) -> bool:
    return math.isclose(value, published, rel_tol=rel)


# ------------------------------------------------ recomputed from the published totals

def test_vector_rates_from_cuda_cores_and_boost_clock():
    fp32 = CUDA_CORES * 2 * BOOST_HZ                         # 104.75 TFLOP/s (NVIDIA: 104.8)
    assert close(DEV.compute["fp32"].value, fp32, 1e-9)
    assert close(DEV.compute["fp32"].value, 104.8 * T, 0.001)
    assert close(DEV.compute["fp64"].value, fp32 / 64, 1e-9)  # 1.637 TFLOP/s
    assert close(DEV.compute["fp16"].value, fp32, 1e-9)
    assert close(DEV.compute["bf16"].value, fp32, 1e-9)
    assert ARCH["sms"] * 128 == CUDA_CORES and ARCH["compute_capability"] == "12.0"
    assert DEV.clocks_hz == {"boost": BOOST_HZ}
    # one warp instruction per scheduler per clock, 4 schedulers per SM
    assert close(DEV.instruction_rate.value, CUDA_CORES / 128 * 4 * BOOST_HZ, 1e-9)


def test_tensor_rates_are_nvidias_sparse_figures_halved():
    assert close(DEV.compute["tensor_fp16_acc16"].value, FP16_TENSOR_SPARSE / 2)     # 419 TFLOP/s dense
    assert close(DEV.compute["tensor_fp16"].value, FP16_TENSOR_SPARSE / 4)           # FP32 accumulate: half
    # FP4 runs at twice the FP8 rate, so FP8 x 2 x 2 = the sparse FP4 figure
    assert close(DEV.compute["tensor_fp8_acc16"].value * 2 * 2, FP4_SPARSE)
    assert close(DEV.compute["tensor_fp4"].value, FP4_SPARSE / 2)
    assert close(DEV.compute["tensor_fp8_acc16"].value, 838e12)
    assert close(DEV.compute["tensor_fp8"].value, 419e12)                      # FP32 accumulate: half
    assert close(DEV.compute["tensor_int8"].value, DEV.compute["tensor_fp8_acc16"].value, 1e-9)
    assert close(DEV.compute["tensor_bf16"].value, FP16_TENSOR_SPARSE / 4)     # FP32 accumulate: half
    assert close(DEV.compute["tensor_tf32"].value, FP16_TENSOR_SPARSE / 8)
    per_clk = {k: v.value / (ARCH["sms"] * BOOST_HZ) for k, v in DEV.compute.items() if k.startswith("tensor")}
    assert {k: round(v) for k, v in per_clk.items()} == {
        "tensor_tf32": 256, "tensor_fp16": 512, "tensor_fp16_acc16": 1024, "tensor_bf16": 512, "tensor_fp8": 1024,
        "tensor_fp8_acc16": 2048, "tensor_int8": 2048, "tensor_fp4": 4096}
    # the FP32-accumulate rates the tensor_fp16/fp8 roofs come from: half the FP16-accumulate ones
    assert ARCH["tensor_fp32_accumulate_flop_per_sm_per_clk"] == {"tensor_fp16": 512, "tensor_fp8": 1024}


def test_fp4_is_a_roof_and_fp6_falls_back_to_fp8():
    assert set(DEV.compute) <= set(PRECISIONS)
    assert ARCH["tensor_dense_flop_per_sm_per_clk"]["tensor_fp4"] == 4096
    assert "3352 AI TOPS sparse / 2 = 1676" in DEV.compute["tensor_fp4"].source
    assert "tensor_fp6" not in DEV.compute
    assert DEV.compute_key("tensor_fp6") == "tensor_fp8" and DEV.compute_key("tensor_fp4") == "tensor_fp4"


def test_memory_levels_from_published_parameters():
    assert DEV.bandwidth("DRAM") == pytest.approx(BUS_BITS / 8 * PIN_BPS, rel=1e-12)   # 1792 GB/s
    assert close(DEV.bandwidth("DRAM"), 1792 * G, 1e-9)
    assert DEV.memory["DRAM"].capacity_bytes == 32 * 2 ** 30
    assert DEV.memory["L2"].capacity_bytes == 96 * 2 ** 20
    assert close(DEV.bandwidth("PCIe"), 16 * 32e9 * 128 / 130 / 8, 1e-9)            # Gen5 x16: 63.0 GB/s
    assert close(DEV.bandwidth("L1"), 170 * 128 * BOOST_HZ, 1e-9)                   # 52.4 TB/s
    assert close(DEV.bandwidth("L2"), 64 * 64 * BOOST_HZ, 1e-9)                     # 9.86 TB/s, assumed
    assert DEV.memory["L1"].capacity_bytes == 170 * 128 * 1024
    assert ARCH["memory_type"] == "GDDR7"
    assert [lv for lv in DEV.memory] == ["L1", "L2", "DRAM", "PCIe"]


def test_assumed_figures_say_so_and_published_ones_do_not():
    assert ARCH["cache_level_basis"] == {"L1": "assumption", "L2": "assumption"}
    for level in ("L1", "L2"):
        assert "(assumption)" in DEV.memory[level].bandwidth.source
    l2 = DEV.memory["L2"].bandwidth.source
    assert "no slice count for GB202" in l2 and "no L2 rate" in l2
    for key in ("fp16", "bf16", "tensor_fp16", "tensor_fp8", "tensor_bf16", "tensor_tf32", "tensor_int8"):
        assert "assumption" in DEV.compute[key].source, key
    assert "FP32 accumulate at half this rate" in DEV.compute["tensor_fp16_acc16"].source
    assert "FP32 accumulate, what PyTorch's GEMMs run" in DEV.compute["tensor_fp16"].source
    for key in ("fp32", "fp64"):
        assert "assumption" not in DEV.compute[key].source, key
    assert "assumption" not in DEV.memory["DRAM"].bandwidth.source
    assert "assumption" in ARCH["launch_overhead_source"]
    assert DEV.launch_overhead_s == ds.LAUNCH_OVERHEAD_S


def test_shipped_yaml_is_what_the_code_generates():
    assert STEM in builtin_profiles()
    assert regenerate.compare_with_files()[STEM] == []
    assert find_device(STEM) == DEV


# ------------------------------------------------ what the real RTX 5090 reports say

def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _rows(realdata, rel):
    path = realdata / rel
    if not path.exists():
        pytest.skip(f"{rel} is not present")
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _chart(realdata) -> dict:
    """(body item label, metric name) -> (unit, value) of the roofline-chart section."""
    return {(r["Body Item Label"], r["Metric Name"]): (r["Metric Unit"], r["Metric Value"])
            for r in _rows(realdata, CHART) if r["Metric Name"]}


def test_per_sm_rates_are_the_ceilings_nsight_compute_drew(realdata):
    chart = _chart(realdata)
    rows = _rows(realdata, CHART)
    assert {r["CC"] for r in rows} == {ARCH["compute_capability"]}
    unit, ffma = chart[("", "Theoretical Predicated-On FFMA Thread Instructions Executed")]
    assert unit == "inst/cycle" and _number(ffma) == 21760
    assert _number(ffma) == ARCH["sms"] * ARCH["fma_per_sm_per_clk"]["fp32"]
    _, dfma = chart[("", "Theoretical Predicated-On DFMA Thread Instructions Executed")]
    assert _number(dfma) == ARCH["sms"] * ARCH["fma_per_sm_per_clk"]["fp64"]            # 340: FP64 1/64
    # the single-precision roof: 43,520 FFMA operations (2 FLOP each counted) per cycle
    _, ops = chart[("Single Precision Roofline", "Theoretical Predicated-On FFMA Operations")]
    assert DEV.compute["fp32"].value / ARCH["boost_clock_hz"] == pytest.approx(_number(ops))
    _, dops = chart[("Double Precision Roofline", "Theoretical Predicated-On DFMA Operations")]
    assert DEV.compute["fp64"].value / ARCH["boost_clock_hz"] == pytest.approx(_number(dops))
    # the profiler ran the SMs below NVIDIA's boost clock
    _, sm_ghz = chart[("Single Precision Roofline", "SM Frequency")]
    assert _number(sm_ghz) * 1e9 < ARCH["boost_clock_hz"]


def test_dram_bytes_per_cycle_are_the_bus_at_two_transfers_per_clock(realdata):
    chart = _chart(realdata)
    unit, per_cycle = chart[("Single Precision Roofline", "Theoretical DRAM Bytes Accessible")]
    assert unit == "byte/cycle" and _number(per_cycle) == 128
    assert _number(per_cycle) == ARCH["memory_bus_bits"] / 8 * 2
    _, dram_ghz = chart[("Single Precision Roofline", "DRAM Frequency")]
    ncu_peak = _number(per_cycle) * _number(dram_ghz) * 1e9          # 1756 GB/s
    # 28 Gbit/s per pin is a 14 GHz DRAM clock; the profiler measured 13.72 (98 %)
    assert ARCH["memory_data_rate_bps"] / 2 == 14e9
    assert 0.97 < ncu_peak / DEV.bandwidth("DRAM") <= 1.0


def test_details_throughput_implies_the_same_dram_peak(realdata):
    rows = _rows(realdata, DETAILS)
    by = {(r["Section Name"], r["Metric Name"]): (r["Metric Unit"], _number(r["Metric Value"]))
          for r in rows if r["Metric Name"] and r["Metric Value"] not in ("", "n/a")}
    unit, achieved = by[("Memory Workload Analysis", "Memory Throughput")]
    assert unit == "Gbyte/s" and achieved == 345.14
    _, pct = by[("GPU Speed Of Light Throughput", "DRAM Throughput")]
    implied = achieved * G / (pct / 100)                             # 1755.5 GB/s
    _, dram_ghz = by[("GPU Speed Of Light Throughput", "DRAM Frequency")]
    assert implied == pytest.approx(ARCH["memory_bus_bits"] / 8 * 2 * dram_ghz * G, rel=0.005)
    assert 0.97 < implied / DEV.bandwidth("DRAM") <= 1.0
    # the frequencies are cycles over the kernel's duration: 13,485 cycles / 6.75 us = 1.998 GHz
    _, cycles = by[("GPU Speed Of Light Throughput", "Elapsed Cycles")]
    _, duration_us = by[("GPU Speed Of Light Throughput", "Duration")]
    _, sm_ghz = by[("GPU Speed Of Light Throughput", "SM Frequency")]
    assert cycles / (duration_us * 1e-6) == pytest.approx(sm_ghz * G, rel=0.01)
    assert sm_ghz * G < ARCH["boost_clock_hz"]
    # the kernel read 2.33 MB in 6.75 us: the throughput above
    _, mbytes = by[("Command line profiler metrics", "dram__bytes_read.sum")]
    assert mbytes * 1e6 / (duration_us * 1e-6) == pytest.approx(achieved * G, rel=0.005)


# ------------------------------------------------ names and the command line

def test_names_pick_the_5090_and_only_it():
    names = profile_names(builtin_profiles())
    assert resolve_typed("5090", names).stem == STEM
    assert resolve_typed("RTX 5090", names).stem == STEM
    assert resolve_reported("NVIDIA GeForce RTX 5090", names).stem == STEM
    # other compute capability 12.0 GPUs are not the 5090 (the RTX PRO 6000 has a profile of its own)
    for other in ("NVIDIA GeForce RTX 5080", "NVIDIA GeForce RTX 5070 Ti"):
        assert resolve_reported(other, names) is None, other
    assert resolve_reported("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", names).stem == "rtx-pro-6000"


@pytest.mark.parametrize("rel", [DETAILS, CHART, KERN_SUM])
def test_classify_with_device_rtx_5090(realdata, rel):
    path = realdata / rel
    if not path.exists():
        pytest.skip(f"{rel} is not present")
    out = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(path), "--device", STEM,
                          "--format", "json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "compute capability" not in out.stderr          # no warning that the file ran on another GPU
    rows = json.loads(out.stdout)
    assert rows
    if rel == DETAILS:
        (row,) = rows
        # 2.33 MB in 6.75 us against the 1792 GB/s roof: 19 % of it. One launch of
        # one kernel says nothing about a fixed cost: bandwidth-bound, no evidence
        assert row["efficiency"] == pytest.approx(2.33e6 / 6.75e-6 / (1792 * G), rel=1e-3)
        assert (row["bound"], row["level"], row["reason"]) == ("bandwidth", "DRAM", "no evidence")
