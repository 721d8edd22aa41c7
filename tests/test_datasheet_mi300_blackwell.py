"""Datasheet profiles of AMD's MI250X (one GCD and both), MI300X, MI300A,
MI325X, MI350X, MI355X and NVIDIA's B200, GB200, H20, L40S and RTX PRO 6000
Blackwell (issue 22). Each key figure is recomputed here by hand from the
vendor's published parameters (CUs or SMs x per-clock rate x clock; bus
width x pin rate), not read back from the code under test; the real traces
in ../shared/realdata pick their profiles with no --device, and the
parameters are checked against what those files say about their GPU."""
from __future__ import annotations

import gzip
import json
import math

import pytest

from roofline.core.errors import UnknownDeviceError
from roofline.core.model import PRECISIONS
from roofline.devices import datasheet as ds
from roofline.devices.choice import device_for
from roofline.devices.names import NameError_, resolve_properties, resolve_reported, resolve_typed
from roofline.devices.profile import builtin_profiles, profile_names
from roofline.devices.regenerate import compare_with_files
from roofline.core.import_result import DeviceClues, ImportResult
from roofline.importers import read_profile

T, G, GIB = 1e12, 1e9, 2 ** 30
DEV = ds.devices()
NEW = ("mi250x-gcd", "mi250x", "mi300x", "mi300a", "mi325x", "mi350x", "mi355x",
       "b200", "gb200", "h20", "l40s", "rtx-pro-6000")
NAMES = profile_names(builtin_profiles())

MI300X_TRACE = "kineto_trace/AMD-AGI__TraceLens__torch_compile_triton_trace.json.gz"
B200_TRACE = "kineto_trace/AMD-AGI__TraceLens__b200_eager_trace.json.gz"
MI350X_ROCPROF = "rocprofv3/AMD-AGI__TraceLens__908_results.json.gz"


def close(value: float, published: float, rel: float = 0.005) -> bool:
    return math.isclose(value, published, rel_tol=rel)


def rate(stem: str, key: str) -> float:
    return DEV[stem].compute[key].value


def result(name, properties=None, capability=None):
    return ImportResult("trace.json", "kineto", (),
                        device=DeviceClues(name=name, properties=properties, capability=capability))


# ------------------------------------------------ AMD CDNA3

def test_mi300x_reproduces_amds_published_peaks():
    cus, clock = 304, 2.1e9                                      # AMD: 304 CUs, 2100 MHz peak engine clock
    assert rate("mi300x", "tensor_fp16") == pytest.approx(cus * 2048 * clock)   # MI300 table: 2048 FLOP/clk/CU
    assert close(rate("mi300x", "tensor_bf16"), 1307.4 * T, 1e-4)               # AMD: 1307.4 TFLOP/s dense
    assert close(rate("mi300x", "tensor_fp8"), 2614.9 * T, 1e-4)
    assert close(rate("mi300x", "tensor_int8"), 2614.9 * T, 1e-4)
    assert close(rate("mi300x", "tensor_tf32"), 653.7 * T, 1e-4)
    assert close(rate("mi300x", "tensor_fp64"), 163.4 * T, 1e-3)
    assert close(rate("mi300x", "fp64"), 81.7 * T, 1e-3)        # vector FP64 128 FLOP/clk/CU
    assert close(rate("mi300x", "fp32"), 163.4 * T, 1e-3)       # vector FP32 256 FLOP/clk/CU (packed)
    assert "fp16" not in DEV["mi300x"].compute                  # not in AMD's table: falls back to fp32
    hbm = 8192 / 8 * 5.2e9                                       # 8 HBM3 stacks x 1024 bits x 5.2 Gbit/s
    assert DEV["mi300x"].bandwidth("DRAM") == pytest.approx(hbm)
    assert close(hbm, 5.3 * T, 0.005) and close(hbm, 5324.8 * G, 1e-9)   # ROCm Compute Profiler's 5324.8 GB/s
    assert DEV["mi300x"].memory["DRAM"].capacity_bytes == 192 * GIB


def test_mi300x_cache_levels_and_host_link():
    mem = DEV["mi300x"].memory
    assert list(mem) == ["L1", "L2", "L3", "DRAM", "PCIe"]
    assert mem["L1"].bytes_s == pytest.approx(304 * 128 * 2.1e9)     # vL1D 128 B/clk/CU
    assert mem["L2"].bytes_s == pytest.approx(8 * 16 * 128 * 2.1e9)  # 16 channels per XCD x 128 B/clk
    assert mem["L2"].capacity_bytes == 32 * 2 ** 20
    assert close(mem["L3"].bytes_s, 17.2 * T, 0.002)                 # AMD: Infinity Cache 17.2 TB/s
    assert mem["L3"].capacity_bytes == 256 * 2 ** 20
    assert mem["PCIe"].bytes_s == pytest.approx(16 * 32e9 * 128 / 130 / 8)   # Gen5 x16, one direction
    arch = DEV["mi300x"].architecture
    assert arch["cache_level_basis"] == {"L1": "published", "L2": "published", "L3": "derived"}
    assert arch["gfxip_version"] == "9.4" and arch["wavefront_size"] == 64 and arch["gfx_target"] == "gfx942"
    assert arch["transaction_bytes"] == {"L1": 128, "L2": 128, "L3": 64, "DRAM": 64}
    link = arch["scale_up_link"]
    assert link["links"] == 7 and link["per_link_bidirectional_bytes_s"] == 128e9
    assert link["bidirectional_bytes_s"] == 896e9 and link["basis"] == "published"


def test_mi300a_and_mi325x():
    assert close(rate("mi300a", "tensor_fp16"), 228 * 2048 * 2.1e9, 1e-12)
    assert close(rate("mi300a", "tensor_fp16"), 980.6 * T, 1e-4)       # AMD: 980.6 TFLOP/s
    assert DEV["mi300a"].memory["L2"].bytes_s == pytest.approx(6 * 16 * 128 * 2.1e9)
    # the APU's CPU shares the HBM: its host-link roof is the HBM roof, said to be an assumption
    assert DEV["mi300a"].bandwidth("PCIe") == pytest.approx(DEV["mi300a"].bandwidth("DRAM"))
    assert "assumption" in DEV["mi300a"].memory["PCIe"].bandwidth.source
    # MI325X: MI300X compute, 256 GB HBM3E at 6 TB/s
    assert {k: c.value for k, c in DEV["mi325x"].compute.items()} == {
        k: c.value for k, c in DEV["mi300x"].compute.items()}
    assert DEV["mi325x"].bandwidth("DRAM") == pytest.approx(6 * T)
    assert DEV["mi325x"].memory["DRAM"].capacity_bytes == 256 * GIB
    assert DEV["mi325x"].architecture["cache_level_basis"]["L3"] == "assumption"


# ------------------------------------------------ AMD CDNA4

@pytest.mark.parametrize("stem, clock, fp4_sparse", [("mi350x", 2.2e9, 18.45 * 1e15), ("mi355x", 2.4e9, 20.1 * 1e15)])
def test_cdna4_reproduces_amds_published_peaks(stem, clock, fp4_sparse):
    cus = 256
    assert rate(stem, "tensor_fp8") == pytest.approx(cus * 8192 * clock)     # ISSCC: 8192 FP8 FLOP/clk/CU
    assert rate(stem, "tensor_bf16") == pytest.approx(cus * 4096 * clock)
    assert close(rate(stem, "tensor_fp4") * 2, fp4_sparse, 0.002)            # AMD's sparse FP4/FP6 figure
    assert rate(stem, "tensor_fp6") == rate(stem, "tensor_fp4")              # CDNA4: FP6 at the FP4 rate
    assert rate(stem, "tensor_int8") == rate(stem, "tensor_fp8")
    assert rate(stem, "fp32") == pytest.approx(cus * 256 * clock)
    assert "tensor_tf32" not in DEV[stem].compute and "tensor_fp64" not in DEV[stem].compute
    assert DEV[stem].compute_key("tensor_tf32") == "fp32" and DEV[stem].compute_key("tensor_fp64") == "fp64"
    assert DEV[stem].bandwidth("DRAM") == pytest.approx(8192 / 8 * 8e9)       # 8.19 TB/s ("8 TB/s")
    assert DEV[stem].memory["DRAM"].capacity_bytes == 288 * GIB
    assert "L3" not in DEV[stem].memory and DEV[stem].architecture["l3_bytes"] == 256 * 2 ** 20
    assert DEV[stem].architecture["gfxip_version"] == "9.5"


def test_mi355x_headline_figures():
    assert close(rate("mi355x", "tensor_fp16"), 2.5e15, 0.01)     # AMD: 2.5 PFLOP/s
    assert close(rate("mi355x", "tensor_fp8"), 5.0e15, 0.01)      # 5 PFLOP/s (ISSCC)
    assert close(rate("mi355x", "fp32"), 157.3 * T, 1e-3)
    assert close(rate("mi350x", "tensor_fp16"), 2.3e15, 0.005)


# ------------------------------------------------ AMD CDNA2: MI250X

def test_mi250x_gcd_and_both_gcds():
    gcd, both = DEV["mi250x-gcd"], DEV["mi250x"]
    assert gcd.compute["fp64"].value == pytest.approx(110 * 128 * 1.7e9)
    assert close(both.compute["fp64"].value, 47.9 * T, 1e-3)          # AMD: 47.9 TFLOP/s vector FP64
    assert close(both.compute["tensor_fp16"].value, 383 * T, 1e-3)    # 383 TFLOP/s FP16/BF16
    for key, c in gcd.compute.items():
        assert both.compute[key].value == pytest.approx(2 * c.value)
    for level in ("L1", "L2", "DRAM", "PCIe"):
        assert both.bandwidth(level) == pytest.approx(2 * gcd.bandwidth(level)), level
    assert close(both.bandwidth("DRAM"), 3.2 * T, 0.03) and gcd.memory["DRAM"].capacity_bytes == 64 * GIB
    assert gcd.architecture["scale_up_link"]["to_other_gcd_bidirectional_bytes_s"] == 400e9
    # the same CU as the MI250 GCD: 110 CUs against 104
    assert gcd.compute["fp64"].value / DEV["mi250-gcd"].compute["fp64"].value == pytest.approx(110 / 104)


# ------------------------------------------------ NVIDIA data-center Blackwell

def test_b200_reproduces_nvidias_dense_peaks_from_sms_rates_and_clocks():
    sms, per_sm = 148, 8192                       # 148 SMs (the trace, chipsandcheese); twice Hopper's 4096
    tensor_clock = DEV["b200"].compute["tensor_bf16"].clock_hz
    assert close(tensor_clock, 1.86e9, 0.005)                              # third-party: 1.86 GHz
    assert rate("b200", "tensor_bf16") == pytest.approx(sms * per_sm * tensor_clock)
    assert close(rate("b200", "tensor_bf16"), 2250 * T, 1e-9)             # NVIDIA: 2.25 PFLOP/s dense
    assert close(rate("b200", "tensor_fp16"), 4.5e15 / 2, 1e-9)           # 4.5 sparse
    assert close(rate("b200", "tensor_fp8"), 9e15 / 2, 1e-9)
    assert close(rate("b200", "tensor_int8"), 9e15 / 2, 1e-9)
    assert close(rate("b200", "tensor_fp4"), 18e15 / 2, 1e-9)
    assert close(rate("b200", "tensor_tf32"), 2.2e15 / 2, 0.025)          # NVIDIA rounds 2.25 down to 2.2
    assert rate("b200", "fp32") == pytest.approx(sms * 256 * 1.98e9)
    assert close(rate("b200", "fp32"), 75 * T, 0.001)                     # NVIDIA: 75 TFLOP/s
    assert close(rate("b200", "fp64"), 37 * T, 0.015) and close(rate("b200", "tensor_fp64"), 37 * T, 0.015)
    assert "tensor_fp6" not in DEV["b200"].compute and DEV["b200"].compute_key("tensor_fp6") == "tensor_fp8"
    assert DEV["b200"].bandwidth("DRAM") == pytest.approx(8 * T)         # 8 stacks x 1024 bits, 8 TB/s
    assert DEV["b200"].architecture["memory_bus_bits"] == 8192
    assert DEV["b200"].bandwidth("PCIe") == pytest.approx(16 * 32e9 * 128 / 130 / 8)
    assert DEV["b200"].architecture["cache_level_basis"] == {"L1": "derived", "L2": "assumption"}
    assert DEV["b200"].memory["L2"].capacity_bytes == 126 * 2 ** 20
    assert "derived" in DEV["b200"].compute["tensor_bf16"].source
    link = DEV["b200"].architecture["scale_up_link"]
    assert link["link"] == "NVLink 5" and link["links"] == 18 and link["bidirectional_bytes_s"] == 1.8e12


def test_gb200_is_a_faster_b200_with_nvlink_c2c():
    b, gb = DEV["b200"], DEV["gb200"]
    assert close(gb.compute["tensor_bf16"].value, 5e15 / 2, 1e-9)          # NVIDIA: 5 PFLOP/s sparse
    assert close(gb.compute["tensor_fp4"].value, 20e15 / 2, 1e-9)
    assert close(gb.compute["fp32"].value, 80 * T, 0.001) and close(gb.compute["fp64"].value, 40 * T, 0.001)
    assert gb.architecture["sms"] == b.architecture["sms"] == 148
    assert gb.bandwidth("PCIe") == pytest.approx(900e9 / 2)                 # NVLink-C2C, one direction
    assert "NVLink-C2C" in gb.memory["PCIe"].bandwidth.source
    assert gb.memory["DRAM"].capacity_bytes == 186e9 and gb.bandwidth("DRAM") == pytest.approx(8 * T)
    assert gb.architecture["compute_capability"] == b.architecture["compute_capability"] == "10.0"


# ------------------------------------------------ NVIDIA H20, L40S, RTX PRO 6000

def test_h20_reproduces_nvidias_totals():
    for key, published in (("tensor_fp16", 148), ("tensor_bf16", 148), ("tensor_fp8", 296),
                           ("tensor_int8", 296), ("tensor_tf32", 74), ("fp32", 44)):
        assert close(rate("h20", key), published * T, 1e-6), key
    assert close(rate("h20", "fp64"), 1 * T, 0.05)
    assert DEV["h20"].bandwidth("DRAM") == pytest.approx(4 * T)
    assert DEV["h20"].memory["L2"].capacity_bytes == 60 * 2 ** 20
    assert "assumption" in DEV["h20"].compute["fp32"].source


def test_l40s_and_rtx_pro_6000():
    assert rate("l40s", "fp32") == pytest.approx(142 * 256 * 2.52e9)       # 18,176 cores x 2 x 2520 MHz
    assert close(rate("l40s", "fp32"), 91.6 * T, 1e-3)
    assert close(rate("l40s", "tensor_tf32"), 183 * T, 0.002)
    assert close(rate("l40s", "tensor_fp8"), 733 * T, 0.001)
    assert close(rate("l40s", "tensor_fp16"), 362.05 * T, 0.015)          # NVIDIA's figure is at 2490 MHz
    assert DEV["l40s"].bandwidth("DRAM") == pytest.approx(384 / 8 * 18e9)  # 864 GB/s
    pro = "rtx-pro-6000"
    assert close(rate(pro, "fp32"), 125 * T, 1e-9)                        # NVIDIA: 125 TFLOP/s
    assert close(rate(pro, "tensor_fp4"), 4000 * T / 2, 1e-9)             # 4000 AI TOPS sparse
    assert DEV[pro].architecture["sms"] == 188
    assert DEV[pro].bandwidth("DRAM") == pytest.approx(512 / 8 * 28e9)    # 1792 GB/s
    assert DEV[pro].memory["L2"].capacity_bytes == 128 * 2 ** 20
    assert "Workstation Edition" in DEV[pro].name


# ------------------------------------------------ every new profile

@pytest.mark.parametrize("stem", NEW)
def test_new_profiles_state_their_sources_and_scale_up_link(stem):
    dev = DEV[stem]
    assert set(dev.compute) <= set(PRECISIONS)
    link = dev.architecture["scale_up_link"]
    assert link["basis"] in ds.BASIS and link["source"]
    if link["per_link_bidirectional_bytes_s"] is not None or link["links"] is not None:
        assert any(doc in link["source"] for doc in dev.provenance["sources"])
    else:
        assert link["basis"] == "assumption" and "not found" in link["source"]
    for c in [*dev.compute.values(), *(m.bandwidth for m in dev.memory.values())]:
        assert any(doc in c.source for doc in dev.provenance["sources"]), c.source


def test_shipped_files_are_what_the_code_generates():
    drift = {stem: problems for stem, problems in compare_with_files().items() if problems}
    assert drift == {}
    assert set(NEW) <= set(NAMES)


def test_fp4_and_fp6_fall_back_to_fp8_where_there_is_no_such_unit():
    h100 = DEV["h100-sxm"]
    assert h100.compute_key("tensor_fp4") == "tensor_fp8" and h100.compute_key("tensor_fp6") == "tensor_fp8"
    assert DEV["mi300x"].compute_key("tensor_fp4") == "tensor_fp8"
    assert DEV["mi355x"].compute_key("tensor_fp4") == "tensor_fp4"
    assert DEV["a10"].compute_key("tensor_fp4") == "tensor_fp16"       # no FP8 either


# ------------------------------------------------ names and device properties

@pytest.mark.parametrize("named, stem", [
    ("AMD Instinct MI300X", "mi300x"), ("AMD Instinct MI300X VF", "mi300x"), ("AMD Instinct MI300A", "mi300a"),
    ("AMD Instinct MI325X", "mi325x"), ("AMD Instinct MI350X", "mi350x"), ("AMD Instinct MI355X", "mi355x"),
    ("AMD Instinct MI250X", "mi250x-gcd"), ("NVIDIA B200", "b200"), ("NVIDIA GB200", "gb200"),
    ("NVIDIA H20", "h20"), ("NVIDIA L40S", "l40s"),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "rtx-pro-6000"),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000"),
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "rtx-pro-6000"),
])
def test_reported_names_pick_their_profiles(named, stem):
    match = resolve_reported(named, NAMES)
    assert match.stem == stem and not match.conflicts


@pytest.mark.parametrize("named", ["NVIDIA RTX 6000 Ada Generation", "NVIDIA L40", "AMD Instinct MI100",
                                   "AMD Instinct MI250X / MI250"])
def test_names_of_other_gpus_pick_none(named):
    assert resolve_reported(named, NAMES) is None


def test_typed_names():
    assert resolve_typed("mi300x", NAMES).stem == "mi300x"
    assert resolve_typed("MI355X", NAMES).stem == "mi355x"
    assert resolve_typed("h20", NAMES).stem == "h20" and resolve_typed("h200", NAMES).stem == "h200"
    assert resolve_typed("rtx pro 6000", NAMES).stem == "rtx-pro-6000"
    assert resolve_typed("mi250x", NAMES).stem == "mi250x"             # the stem: both GCDs
    assert resolve_typed("mi250x gcd", NAMES).stem == "mi250x-gcd"
    with pytest.raises(NameError_, match="ambiguous"):
        resolve_typed("mi300", NAMES)


MI300X_PROPS = {"sms": 304, "warp_size": 64, "capability": "9.4", "memory_bytes": 206141652992.0}


def test_properties_pick_amd_profiles_when_the_name_does_not():
    choice = device_for([result("AMD Radeon Graphics", MI300X_PROPS)])
    assert choice.profile == "mi300x" and "304 SMs/CUs" in choice.reason
    gcd = {"sms": 110, "warp_size": 64, "capability": "9.0", "memory_bytes": 64 * GIB * 0.99}
    assert device_for([result("AMD Radeon Graphics", gcd)]).profile == "mi250x-gcd"
    # one device id, two GPUs: the CU count decides
    assert device_for([result("AMD Instinct MI250X / MI250", gcd)]).profile == "mi250x-gcd"
    mi250 = {**gcd, "sms": 104}
    choice = device_for([result("AMD Instinct MI250X / MI250", mi250)])
    assert choice.profile == "mi250-gcd" and "several GPUs (MI250X, MI250)" in choice.reason
    # MI350X and MI355X differ only in clocks: the properties cannot choose
    cdna4 = {"sms": 256, "warp_size": 64, "capability": "9.5", "memory_bytes": 309220868096.0}
    identities = {s: i for s, i in ((s, choice_identity(s)) for s in ("mi350x", "mi355x"))}
    with pytest.raises(NameError_) as info:
        resolve_properties("AMD Radeon Graphics", cdna4, identities)
    assert set(info.value.candidates) == {"mi350x", "mi355x"}


def choice_identity(stem: str) -> dict:
    arch = DEV[stem].architecture
    return {"sms": arch["sms"], "warp_size": arch["wavefront_size"], "capability": arch["gfxip_version"],
            "memory_bytes": arch["dram_bytes"], "shown": DEV[stem].name}


def test_capability_only_files():
    with pytest.raises(UnknownDeviceError, match=r"\(10\.0\).*b200, gb200"):
        device_for([result(None, capability="10.0")])
    choice = device_for([result(None, capability="12.0")])
    assert choice.profile == "rtx-5090" and "rtx-pro-6000" in choice.reason
    assert "RTX 5080" in choice.warnings[0]


# ------------------------------------------------ the real files

def _json(path):
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def test_real_mi300x_trace_picks_mi300x_and_its_properties_are_the_profiles(realdata):
    path = realdata / MI300X_TRACE
    if not path.exists():
        pytest.skip(f"{MI300X_TRACE} is not present")
    (props,) = _json(path)["deviceProperties"]
    arch = DEV["mi300x"].architecture
    assert props["name"] == DEV["mi300x"].name
    assert props["numSms"] == arch["sms"] and props["warpSize"] == arch["wavefront_size"]
    assert f"{props['computeMajor']}.{props['computeMinor']}" == arch["gfxip_version"]
    assert 0.97 * arch["dram_bytes"] <= props["totalGlobalMem"] <= arch["dram_bytes"]
    choice = device_for([read_profile(path)])
    assert choice.profile == "mi300x" and "AMD Instinct MI300X" in choice.reason


def test_real_b200_trace_picks_b200(realdata):
    path = realdata / B200_TRACE
    if not path.exists():
        pytest.skip(f"{B200_TRACE} is not present")
    props = _json(path)["deviceProperties"]
    arch = DEV["b200"].architecture
    assert {p["name"] for p in props} == {DEV["b200"].name}
    assert {p["numSms"] for p in props} == {arch["sms"]}
    assert {f"{p['computeMajor']}.{p['computeMinor']}" for p in props} == {arch["compute_capability"]}
    assert {p["sharedMemPerMultiprocessor"] for p in props} == {228 * 1024}     # of the 256 KB L1/shared
    assert all(0.97 * arch["dram_bytes"] <= p["totalGlobalMem"] <= arch["dram_bytes"] for p in props)
    choice = device_for([read_profile(path)])
    assert choice.profile == "b200" and "NVIDIA B200" in choice.reason


def test_real_rocprofv3_file_is_an_mi350x_and_its_name_picks_mi350x(realdata):
    path = realdata / MI350X_ROCPROF
    if not path.exists():
        pytest.skip(f"{MI350X_ROCPROF} is not present")
    tool = _json(path)["rocprofiler-sdk-tool"]
    tool = tool[0] if isinstance(tool, list) else tool
    gpus = [a for a in tool["agents"] if a.get("type") == 2]
    assert {a["product_name"] for a in gpus} == {"AMD Instinct MI350X"}
    assert resolve_reported("AMD Instinct MI350X", NAMES).stem == "mi350x"
    arch = DEV["mi350x"].architecture
    for a in gpus:
        assert a["cu_count"] == arch["sms"] and a["wave_front_size"] == arch["wavefront_size"]
        version = a["gfx_target_version"]                                   # 90500: gfx950, GFX IP 9.5
        assert f"{version // 10000}.{version // 100 % 100}" == arch["gfxip_version"]
        assert a["max_engine_clk_fcompute"] * 1e6 == arch["boost_clock_hz"]
        (bank,) = a["mem_banks"]
        assert bank["width"] == arch["memory_bus_bits"]
        assert bank["mem_clk_max"] * 1e6 * 4 == arch["memory_data_rate_bps"]   # HBM3E: 4 transfers per clock
        assert 0.97 * arch["dram_bytes"] <= bank["size_in_bytes"] <= arch["dram_bytes"]
        assert a["lds_size_in_kb"] * 1024 == arch["lds_bytes_per_cu"]
    try:
        r = read_profile(path)
    except Exception:                       # the rocprofv3 reader may not be registered yet
        return
    if r.device.name:
        assert device_for([r]).profile == "mi350x"
