"""Built-in datasheet profiles: derived figures match NVIDIA's published
peaks, and the shipped YAML files are exactly what the code generates."""
from __future__ import annotations

import math

import pytest
import yaml

from roofline.devices import datasheet as ds, gpus, regenerate
from roofline.core.model import LEVELS, PRECISIONS
from roofline.devices.profile import builtin_profiles, find_device, load_device

T, G = 1e12, 1e9
DEVICES = ds.devices()


def close(value: float, published: float, rel: float) -> bool:
    return math.isclose(value, published, rel_tol=rel)


# ------------------------------------------------ published figures

def test_v100_sxm2_matches_whitepaper_and_ding_williams():
    v100 = DEVICES["v100-sxm2"]
    assert close(v100.compute["fp64"].value, 7.8 * T, 0.01)
    assert close(v100.compute["fp32"].value, 15.7 * T, 0.01)
    assert close(v100.compute["tensor_fp16"].value, 125 * T, 0.01)
    assert close(v100.bandwidth("DRAM"), 900 * G, 0.01)
    # Ding & Williams 2019: 80 SMs x 4 schedulers x 1.53 GHz
    assert v100.instruction_rate.value == pytest.approx(489.6 * G, rel=1e-12)
    # their HBM ceiling is 25.9 GTXN/s measured: the datasheet roof must sit above it
    assert v100.bandwidth("DRAM") / 32 > 25.9 * G


def test_v100_pcie_matches_datasheet():
    v100 = DEVICES["v100-pcie"]
    assert close(v100.compute["fp64"].value, 7.0 * T, 0.02)
    assert close(v100.compute["fp32"].value, 14.0 * T, 0.02)
    assert close(v100.compute["tensor_fp16"].value, 112 * T, 0.02)


def test_a100_matches_whitepaper():
    a100 = DEVICES["a100-40gb-sxm"]
    assert close(a100.compute["fp64"].value, 9.7 * T, 0.01)
    assert close(a100.compute["tensor_fp64"].value, 19.5 * T, 0.01)
    assert close(a100.compute["fp32"].value, 19.5 * T, 0.01)
    assert close(a100.compute["tensor_tf32"].value, 156 * T, 0.01)
    assert close(a100.compute["tensor_fp16"].value, 312 * T, 0.01)
    assert close(a100.compute["tensor_bf16"].value, 312 * T, 0.01)
    assert close(a100.compute["tensor_int8"].value, 624 * T, 0.01)
    assert close(a100.bandwidth("DRAM"), 1555 * G, 0.01)
    assert close(DEVICES["a100-80gb-sxm"].bandwidth("DRAM"), 2039 * G, 0.01)
    # A100 whitepaper: L2 read bandwidth 2.3x V100's
    assert close(a100.bandwidth("L2") / DEVICES["v100-sxm2"].bandwidth("L2"), 2.3, 0.01)


@pytest.mark.parametrize("stem", ["h100-sxm", "h200"])
def test_h100_sxm_compute_matches_datasheet(stem):
    h = DEVICES[stem]
    assert close(h.compute["fp64"].value, 34 * T, 0.03)
    assert close(h.compute["tensor_fp64"].value, 67 * T, 0.03)
    assert close(h.compute["fp32"].value, 67 * T, 0.03)
    assert close(h.compute["tensor_tf32"].value, 989 * T / 2, 0.01)
    assert close(h.compute["tensor_fp16"].value, 989 * T, 0.01)
    assert close(h.compute["tensor_fp8"].value, 1979 * T, 0.01)


def test_hopper_memory_matches_datasheets():
    assert close(DEVICES["h100-sxm"].bandwidth("DRAM"), 3.35 * T, 0.01)
    assert close(DEVICES["h100-pcie"].bandwidth("DRAM"), 2.0 * T, 0.01)
    assert close(DEVICES["h200"].bandwidth("DRAM"), 4.8 * T, 0.01)
    assert close(DEVICES["h100-pcie"].compute["tensor_fp16"].value, 756 * T, 0.01)
    assert close(DEVICES["h100-pcie"].compute["fp64"].value, 26 * T, 0.03)


def test_consumer_and_inference_parts_match_published_peaks():
    assert close(DEVICES["gtx-970"].compute["fp32"].value, 3.92 * T, 0.01)
    assert close(DEVICES["gtx-970"].bandwidth("DRAM"), 224 * G, 0.01)
    assert close(DEVICES["gtx-1650"].compute["fp32"].value, 2.984 * T, 0.01)
    assert close(DEVICES["gtx-1650"].bandwidth("DRAM"), 128 * G, 0.01)
    # GeForce: the published FP16 tensor rate is FP16 accumulate; FP32 accumulate is half
    assert close(DEVICES["rtx-2070"].compute["tensor_fp16_acc16"].value, 59.7 * T, 0.01)
    assert close(DEVICES["rtx-2070"].compute["tensor_fp16"].value, 59.7 / 2 * T, 0.01)
    assert close(DEVICES["rtx-2070"].bandwidth("DRAM"), 448 * G, 0.01)
    assert close(DEVICES["t4"].compute["tensor_fp16"].value, 65 * T, 0.01)
    assert close(DEVICES["t4"].compute["tensor_int8"].value, 130 * T, 0.01)
    assert close(DEVICES["rtx-4090"].compute["fp32"].value, 82.6 * T, 0.01)
    assert close(DEVICES["rtx-4090"].compute["tensor_fp16_acc16"].value, 330.3 * T, 0.01)
    assert close(DEVICES["rtx-4090"].compute["tensor_fp16"].value, 165.2 * T, 0.01)
    assert close(DEVICES["rtx-4090"].compute["tensor_fp8_acc16"].value, 660.6 * T, 0.01)
    assert close(DEVICES["rtx-4090"].compute["tensor_fp8"].value, 330.3 * T, 0.01)
    # a datacenter part accumulates in FP32 at the datasheet rate: no roof of its own for FP16 accumulate
    assert "tensor_fp16_acc16" not in DEVICES["l4"].compute and "tensor_fp16_acc16" not in DEVICES["a100-80gb-sxm"].compute
    assert close(DEVICES["rtx-4090"].bandwidth("DRAM"), 1008 * G, 0.01)
    assert close(DEVICES["l4"].compute["fp32"].value, 30.3 * T, 0.01)
    assert close(DEVICES["l4"].compute["tensor_fp8"].value, 485 * T / 2, 0.01)
    assert close(DEVICES["l4"].bandwidth("DRAM"), 300 * G, 0.01)


def test_gtx_1650_has_no_tensor_cores_and_double_rate_fp16():
    d = DEVICES["gtx-1650"]
    assert not [k for k in d.compute if k.startswith("tensor")]
    assert d.compute["fp16"].value == pytest.approx(2 * d.compute["fp32"].value)
    assert "bf16" not in d.compute


def test_gtx_970_has_no_native_fp16():
    d = DEVICES["gtx-970"]
    assert "fp16" not in d.compute
    assert d.compute_key("fp16") == "fp32"


def test_tensor_rates_are_per_chip_not_a_constant():
    per_sm = {stem: gpus.SPECS_BY_STEM[stem].tensor_flop_per_sm.get("tensor_fp16")
              for stem in DEVICES}
    values = {v for v in per_sm.values() if v is not None}
    assert values == {1024, 2048, 4096, 8192}        # 8192: data-center Blackwell and CDNA4
    assert DEVICES["a100-40gb-sxm"].compute["tensor_fp64"].value > 0
    assert "tensor_fp64" not in DEVICES["v100-sxm2"].compute


def test_hopper_tensor_peaks_use_the_tensor_clock():
    h = DEVICES["h100-sxm"]
    assert h.compute["tensor_fp16"].clock_hz == 1830e6
    assert h.compute["tensor_fp64"].clock_hz == 1980e6
    assert h.compute["fp32"].clock_hz == 1980e6
    assert h.clocks_hz == {"boost": 1980e6, "boost_tensor": 1830e6}


# ------------------------------------------------ formulas

def test_derivation_formulas():
    assert ds.fma_flop_rate(80, 64, 1.53e9) == pytest.approx(15.6672e12)
    assert ds.warp_instruction_rate(80, 4, 1.53e9) == pytest.approx(489.6e9)
    assert ds.dram_bandwidth(5120, 2.43e9) == pytest.approx(1555.2e9)
    assert ds.per_clock_bandwidth(108, 128, 1.41e9) == pytest.approx(19.49e12, rel=1e-3)
    assert ds.pcie_bandwidth(3, 16) == pytest.approx(15.754e9, rel=1e-4)
    assert ds.pcie_bandwidth(5, 16) == pytest.approx(4 * ds.pcie_bandwidth(3, 16))


def test_every_ceiling_is_recomputed_from_the_architecture_block():
    for stem, dev in DEVICES.items():
        arch = dev.architecture
        for key, fma in arch["fma_per_sm_per_clk"].items():
            assert dev.compute[key].value == pytest.approx(
                arch["sms"] * 2 * fma * arch["boost_clock_hz"]), (stem, key)
        acc32 = (arch.get("tensor_fp32_accumulate_flop_per_sm_per_clk") or {})
        for key, flop in arch["tensor_dense_flop_per_sm_per_clk"].items():
            clock = dev.compute[key].clock_hz
            assert clock in dev.clocks_hz.values()
            # where FP32 accumulate is slower, the key is its rate and key_acc16 the datasheet's
            datasheet = f"{key}_acc16" if key in acc32 else key
            assert dev.compute[datasheet].value == pytest.approx(arch["sms"] * flop * clock), (stem, key)
            if key in acc32:
                assert dev.compute[key].value == pytest.approx(arch["sms"] * acc32[key] * clock), (stem, key)
        assert dev.bandwidth("DRAM") == pytest.approx(
            arch["memory_bus_bits"] / 8 * arch["memory_data_rate_bps"])


# ------------------------------------------------ profile hygiene

@pytest.mark.parametrize("stem", sorted(DEVICES))
def test_profile_shape_and_sources(stem):
    dev = DEVICES[stem]
    assert dev.kind == "gpu"
    assert dev.provenance["method"] == "datasheet"
    assert dev.provenance["generated_by"] == "roofline.datasheet"
    assert dev.provenance["sources"]
    assert set(dev.compute) <= set(PRECISIONS)
    assert set(dev.memory) <= set(LEVELS) and {"DRAM", "PCIe"} <= set(dev.memory)
    ceilings = [*dev.compute.values(), dev.instruction_rate,
                *(m.bandwidth for m in dev.memory.values())]
    for c in ceilings:
        assert c.source.strip(), (stem, c)
        assert any(doc in c.source for doc in dev.provenance["sources"]), c.source
    assert "assumption" in dev.architecture["launch_overhead_source"]


@pytest.mark.parametrize("stem", sorted(DEVICES))
def test_ridge_points_are_sane(stem):
    dev = DEVICES[stem]
    assert 1 <= dev.ridge_point("DRAM", "fp32") <= 200
    # nearer levels are faster, so their ridge points are lower
    rates = [dev.bandwidth(lv) for lv in dev.memory]
    assert rates == sorted(rates, reverse=True)


# ------------------------------------------------ files cannot drift from code

def test_every_generated_profile_is_shipped_and_identical():
    shipped = builtin_profiles()
    assert set(DEVICES) <= set(shipped)
    assert {k: v for k, v in regenerate.compare_with_files().items() if v} == {}


@pytest.mark.parametrize("stem", sorted(builtin_profiles()))
def test_every_shipped_yaml_loads(stem):
    path = builtin_profiles()[stem]
    dev = load_device(path)
    if dev.provenance.get("generated_by") == ds.GENERATED_BY:
        assert dev == DEVICES[stem]


def test_find_device_by_stem_and_name():
    assert find_device("v100-sxm2") == DEVICES["v100-sxm2"]
    assert find_device("NVIDIA H100 SXM5").name == "NVIDIA H100 SXM5"


def test_check_detects_drift_and_write_repairs_it(tmp_path):
    written = regenerate.write_profiles(tmp_path)
    assert len(written) == len(ds.SPECS)
    assert not any(regenerate.compare_with_files(tmp_path).values())
    path = tmp_path / "a100-40gb-sxm.yaml"
    data = yaml.safe_load(path.read_text())
    data["memory"]["DRAM"]["bytes_s"] = 1.6e12
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    (tmp_path / "t4.yaml").unlink()
    report = regenerate.compare_with_files(tmp_path)
    assert any("memory.DRAM.bytes_s" in p for p in report["a100-40gb-sxm"])
    assert "missing" in report["t4"][0]
    assert regenerate.main(["--check", "--out", str(tmp_path)]) == 1
    assert regenerate.main(["--out", str(tmp_path)]) == 0
    assert regenerate.main(["--check", "--out", str(tmp_path)]) == 0


def test_docs_table_is_current():
    from pathlib import Path
    doc = Path(__file__).resolve().parents[1] / "docs" / "devices.md"
    if not doc.exists():
        pytest.skip("docs/ not present")
    assert regenerate.markdown_table() in doc.read_text(encoding="utf-8"), (
        "docs/devices.md is stale: paste roofline.devices.regenerate.markdown_table() into it")
