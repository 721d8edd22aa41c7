"""Cache levels of the built-in GPU profiles: every profile has L1, L2 and
DRAM ceilings (Kepler's L2 excepted, with the reason in the file), each
figure equals the arithmetic from the parameters stored beside it, each is
marked published / derived / assumption, and Nsight Compute's L2 bytes land
on an L2 roof instead of being dropped."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
import yaml

from roofline.devices import datasheet as ds, gpus
from roofline.render.chart import views
from roofline.importers import read_profile
from roofline.core.model import KernelSet
from roofline.core.placement import place
from roofline.devices.profile import builtin_profiles, find_device

GENERATED = {stem: path for stem, path in builtin_profiles().items() if stem in gpus.SPECS_BY_STEM}
NO_L2 = {"k20c", "k40c"}   # nothing published supports a GK110 L2 figure (see the profile's notes)


def raw(stem: str) -> dict:
    """The profile as written in its YAML file (not through the loader)."""
    return yaml.safe_load(GENERATED[stem].read_text(encoding="utf-8"))


def rel_equal(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12)


def test_every_datasheet_spec_has_a_shipped_file():
    assert set(GENERATED) == set(gpus.SPECS_BY_STEM)
    assert {"a10", "a10g", "h800", "gh200"} <= set(GENERATED)


def _same_except(a: dict, b: dict, keys: set) -> dict:
    """Compute ceilings whose values differ, outside ``keys`` (sources differ by design)."""
    va, vb = ({k: c.value for k, c in d.items()} for d in (a, b))
    return {k: (va.get(k), vb.get(k)) for k in set(va) | set(vb) if k not in keys and va.get(k) != vb.get(k)}


def test_h800_is_an_h100_sxm_with_fp64_capped_at_one_teraflop():
    h800, h100 = find_device("h800"), find_device("h100-sxm")
    # NVIDIA H800 datasheet: FP64 and FP64 Tensor Core 1 TFLOP/s
    assert h800.compute["fp64"].value == pytest.approx(1e12, rel=0.05)
    assert h800.compute["tensor_fp64"].value == pytest.approx(1e12, rel=0.05)
    assert h100.compute["fp64"].value > 30 * h800.compute["fp64"].value
    assert _same_except(h800.compute, h100.compute, {"fp64", "tensor_fp64"}) == {}
    assert {lv: m.bytes_s for lv, m in h800.memory.items()} == {lv: m.bytes_s for lv, m in h100.memory.items()}


def test_gh200_is_an_h100_with_96_gb_hbm3_and_nvlink_c2c():
    gh200, h100 = find_device("gh200"), find_device("h100-sxm")
    assert gh200.bandwidth("DRAM") == pytest.approx(4e12)                 # GH200 datasheet, 96 GB HBM3
    assert gh200.memory["DRAM"].capacity_bytes == 96 * 2 ** 30
    assert gh200.bandwidth("PCIe") == pytest.approx(450e9)                # NVLink-C2C 900 GB/s both ways
    assert "NVLink-C2C" in gh200.memory["PCIe"].bandwidth.source
    assert _same_except(gh200.compute, h100.compute, set()) == {}
    assert gh200.bandwidth("L2") == h100.bandwidth("L2")


@pytest.mark.parametrize("stem", sorted(GENERATED))
def test_levels_present_ordered_and_sized(stem):
    mem, arch = raw(stem)["memory"], raw(stem)["architecture"]
    expected = ["L1", "DRAM"] if stem in NO_L2 else ["L1", "L2", "L3", "DRAM"] if "L3" in mem else ["L1", "L2", "DRAM"]
    assert [lv for lv in mem if lv != "PCIe"] == expected
    rates = [mem[lv]["bytes_s"] for lv in expected]
    assert all(a > b for a, b in zip(rates, rates[1:])), rates     # nearer is strictly faster
    for lv in expected:
        assert mem[lv]["capacity_bytes"] > 0
        # 32 B sectors on NVIDIA; AMD's requests are sized per level (stored beside them)
        assert mem[lv]["transaction_bytes"] == arch.get("transaction_bytes", {}).get(lv, 32)
    if "L2" in mem:
        assert mem["L2"]["capacity_bytes"] < mem["DRAM"]["capacity_bytes"]
    if "L3" in mem:     # AMD's memory-side Infinity Cache: bigger than L2, smaller than HBM
        assert mem["L2"]["capacity_bytes"] < mem["L3"]["capacity_bytes"] < mem["DRAM"]["capacity_bytes"]
        per_clk = arch["l3_channels"] * arch["l3_bytes_per_clk_per_channel"]
        assert arch["l3_bytes_per_clk"] == per_clk
        assert rel_equal(mem["L3"]["bytes_s"], per_clk * arch["boost_clock_hz"])
        assert rel_equal(mem["L3"]["capacity_bytes"], arch["l3_bytes"])


@pytest.mark.parametrize("stem", sorted(GENERATED))
def test_level_figures_are_the_arithmetic_of_the_stored_parameters(stem):
    data = raw(stem)
    arch, mem = data["architecture"], data["memory"]
    clock = arch["boost_clock_hz"]
    assert rel_equal(mem["L1"]["bytes_s"], arch["sms"] * arch["l1_bytes_per_clk_per_sm"] * clock)
    assert rel_equal(mem["L1"]["capacity_bytes"], arch["sms"] * arch["l1_shared_bytes_per_sm"])
    assert rel_equal(mem["DRAM"]["bytes_s"], arch["memory_bus_bits"] / 8 * arch["memory_data_rate_bps"])
    assert rel_equal(mem["DRAM"]["capacity_bytes"], arch["dram_bytes"])
    if "host_link" in arch:
        assert rel_equal(mem["PCIe"]["bytes_s"], arch["host_link_bidirectional_bytes_s"] / 2)
    else:
        encoding = 8 / 10 if arch["pcie_gen"] <= 2 else 128 / 130
        rate = {2: 5e9, 3: 8e9, 4: 16e9, 5: 32e9}[arch["pcie_gen"]]
        assert rel_equal(mem["PCIe"]["bytes_s"], arch["pcie_lanes"] * rate * encoding / 8)
    if stem in NO_L2:
        assert "l2_slices" not in arch and "level omitted" in arch["notes"]["l2"]
        return
    per_clk = arch["l2_slices"] * arch["l2_bytes_per_clk_per_slice"]
    assert arch["l2_bytes_per_clk"] == per_clk
    assert rel_equal(mem["L2"]["bytes_s"], per_clk * clock)
    assert mem["L2"]["clock_hz"] == clock
    assert rel_equal(mem["L2"]["capacity_bytes"], arch["l2_bytes"])
    # the formula with its numbers is spelled out in the source
    assert f"{arch['l2_slices']} slices x {arch['l2_bytes_per_clk_per_slice']} B/clk/slice" in mem["L2"]["source"]
    unit = {"NVIDIA": "SM", "AMD": "CU"}[arch["vendor"]]
    assert f"{arch['sms']} {unit}s x {arch['l1_bytes_per_clk_per_sm']} B/clk/{unit}" in mem["L1"]["source"]


@pytest.mark.parametrize("stem", sorted(GENERATED))
def test_every_cache_figure_says_how_firm_it_is(stem):
    data = raw(stem)
    basis = data["architecture"]["cache_level_basis"]
    levels = [lv for lv in ("L1", "L2", "L3") if lv in data["memory"]]
    assert sorted(basis) == levels
    for lv in levels:
        assert basis[lv] in ds.BASIS
        source = data["memory"][lv]["source"]
        assert f"({basis[lv]})" in source
        if basis[lv] == "assumption":
            assert source.count("assumption") >= 2, source   # the mark, and what is assumed


def test_published_l2_rates_are_nvidias():
    # A100 whitepaper: L2 read bandwidth 5120 B/clk on A100, 2048 B/clk on V100
    for stem, per_clk in (("a100-40gb-sxm", 5120), ("a100-80gb-sxm", 5120),
                          ("v100-sxm2", 2048), ("v100-pcie", 2048)):
        arch = raw(stem)["architecture"]
        assert arch["l2_bytes_per_clk"] == per_clk
        assert arch["cache_level_basis"]["L2"] == "published"
    # Jia et al. 2019: T4 shared memory 4,070 GB/s in theory
    assert raw("t4")["memory"]["L1"]["bytes_s"] == pytest.approx(4070e9, rel=1e-3)


def test_turing_l1_is_half_volta_per_sm():
    for stem in ("t4", "rtx-2070", "gtx-1650"):
        assert raw(stem)["architecture"]["l1_bytes_per_clk_per_sm"] == 64
    assert raw("v100-sxm2")["architecture"]["l1_bytes_per_clk_per_sm"] == 128


def test_assumptions_are_not_marked_published():
    """Only V100 and A100 have an L2 rate from NVIDIA; no other NVIDIA part may
    claim one. AMD publishes its L2 rates in ROCm Compute Profiler's peaks
    (gfx90a: 32 channels x 64 B/clk per GCD; gfx942/gfx950: 16 channels per
    XCD x 128 B/clk)."""
    published = {stem for stem in GENERATED if "L2" in raw(stem)["memory"]
                 and raw(stem)["architecture"]["cache_level_basis"]["L2"] == "published"}
    nvidia = {s for s in published if raw(s)["architecture"]["vendor"] == "NVIDIA"}
    assert nvidia == {"v100-sxm2", "v100-pcie", "a100-40gb-sxm", "a100-80gb-sxm"}
    assert published - nvidia == {"mi210", "mi250-gcd", "mi250x-gcd", "mi250x", "mi300x", "mi300a", "mi325x",
                                  "mi350x", "mi355x"}
    for stem in published - nvidia:
        assert "ROCm Compute Profiler" in raw(stem)["memory"]["L2"]["source"]


# ------------------------------------------------ evidence in real reports

def _ncu_attributes(path) -> dict:
    from conftest import ncu_first_launch_numbers
    return ncu_first_launch_numbers(path)


def test_slice_counts_and_rates_match_nsight_compute_attributes(realdata):
    """The slice counts and the Ada per-slice and per-SM rates the profiles
    use are what Nsight Compute reports for those chips."""
    rep = realdata / "ncu_rep"
    v100 = _ncu_attributes(rep / "wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-dram_ncuroof-time-1.ncu-rep")
    a100 = _ncu_attributes(rep / "extra-p__extrap__ex-gpu.s10.ncu-rep")
    ad107 = _ncu_attributes(rep / "rashwanth__RooflineAnalysis_On_NVIDIA_GPU__output0.ncu-rep")
    tu117 = _ncu_attributes(rep / "Alaric617R__COALDA__rgb_original.ncu-rep")
    assert raw("v100-sxm2")["architecture"]["l2_slices"] == v100["device__attribute_l2s_count"]
    assert raw("a100-40gb-sxm")["architecture"]["l2_slices"] == a100["device__attribute_l2s_count"]
    # TU117 (an MX450 here): slices per FBP and bits per FBP; the GTX 1650 has 128 bits
    fbp_bits = tu117["device__attribute_fb_bus_width"] / tu117["device__attribute_fbp_count"]
    gtx1650 = raw("gtx-1650")["architecture"]
    assert gtx1650["l2_slices"] == gtx1650["memory_bus_bits"] / fbp_bits * tu117["device__attribute_num_l2s_per_fbp"]
    slice_rate = ad107["derived__lts__lts2xbar_bytes.sum.peak_sustained"] / ad107["device__attribute_l2s_count"]
    sm_rate = (ad107["derived__l1tex__lsu_writeback_bytes_mem_lg.sum.peak_sustained"]
               / ad107["device__attribute_multiprocessor_count"])
    assert ad107["lts__cycles_elapsed.avg.per_second"] == pytest.approx(
        ad107["sm__cycles_elapsed.avg.per_second"], rel=1e-3)       # L2 runs at the SM clock
    for stem in ("rtx-4090", "l4"):
        arch = raw(stem)["architecture"]
        assert arch["l2_bytes_per_clk_per_slice"] == slice_rate
        assert arch["l1_bytes_per_clk_per_sm"] == sm_rate
        # Ada: 8 slices per 64-bit FBP, as on AD107
        assert arch["l2_slices"] == arch["memory_bus_bits"] / 64 * ad107["device__attribute_num_l2s_per_fbp"]


# ------------------------------------------------ L2 bytes reach an L2 roof

SGEMM = "ncu_csv/Gardenia-Tian__LearningNote4Dev__sgemm.csv"


def test_nsight_compute_l2_bytes_are_placed_on_h100_sxm(realdata):
    result = read_profile(realdata / SGEMM)
    ks = KernelSet.from_kernels(result.kernels)
    assert np.all(ks.bytes["L2"] > 0)                       # the file does hold L2 bytes
    p = place(ks, find_device("h100-sxm"))
    assert not [w for w in p.warnings if "no L2 ceiling" in str(w)]
    assert np.all(np.isfinite(p.intensity["L2"]))
    assert "hierarchical" in views(p)


def test_classify_cli_no_longer_drops_l2_bytes(realdata):
    out = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(realdata / SGEMM),
                          "--device", "h100-sxm", "--format", "json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "no L2 ceiling" not in out.stderr
    rows = json.loads(out.stdout)
    assert rows and all(r["intensity"]["L2"] > 0 for r in rows)


@pytest.mark.parametrize("stem", sorted(set(GENERATED) - NO_L2))
def test_l2_and_dram_bytes_alone_make_a_hierarchical_roofline(stem):
    """A file with only L2 and DRAM bytes (ncu's memory chart, or nvprof's
    l2_* and dram_* transactions) gets the hierarchical view, so the report
    does not ask for L2 bytes the file already holds."""
    ks = KernelSet(names=["k"], time_s=[1e-3], flops={"fp32": [1e9]},
                   bytes={"L2": [4e8], "DRAM": [1e8]})
    p = place(ks, find_device(stem))
    assert not p.warnings or not [w for w in p.warnings if "no L2" in str(w)]
    assert "hierarchical" in views(p)
