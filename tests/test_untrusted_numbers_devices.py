"""Issue 30, device choice: the profile a file's GPU name picks is checked
against the figures the file gives (SMs/CUs, memory, clock), a stand-in or
a contradiction is said in the report's banner as well as on stderr, AMD
GPUs in XPlanes are told by vendor and GFX IP version, a family name
(rocprof-compute's "MI200") by its compute units, and a rocprof-compute
workload of a GPU without a profile takes the roofs it measured. Every
input is built here."""
from __future__ import annotations

import pytest

from roofline.core.errors import UnknownDeviceError
from roofline.core.model import Ceiling, Device, Kernel, MemoryLevel
from roofline.devices.choice import device_for
from roofline.devices.profile import dump_device
from roofline.devices.trust import doubts, doubts_for, with_choice_doubts
from roofline.core.import_result import DeviceClues, ImportResult
from roofline.importers import read_profile

from test_import_rocprof_compute import SYS_ROW, write_roofline, write_workload

GIB = 2 ** 30


def result(name=None, properties=None, path="trace.json", fmt="kineto", capability=None):
    return ImportResult(path, fmt, (), device=DeviceClues(name=name, properties=properties,
                                                          capability=capability, kind="gpu"))


def nvidia(sms, memory_gib, capability="9.0", **more):
    return {"sms": sms, "warp_size": 32, "capability": capability, "memory_bytes": memory_gib * GIB, **more}


# ------------------------------------------------------------- profiles that were missing

def test_an_h100_nvl_gets_its_own_roofs_not_the_pcie_cards():
    choice = device_for([result("NVIDIA H100 NVL", nvidia(132, 93.6))])
    assert choice.profile == "h100-nvl" and choice.doubts == ()
    d = choice.device
    assert d.architecture["sms"] == 132 and d.bandwidth("DRAM") == pytest.approx(3.9e12)
    assert d.compute["fp32"].value == pytest.approx(60e12)              # NVIDIA's per-GPU figure
    assert d.compute["tensor_bf16"].value == pytest.approx(1671e12 / 2)   # its sparse figure halved
    pcie = device_for([], requested="h100-pcie").device
    assert pcie.bandwidth("DRAM") == pytest.approx(2.0e12)               # what it was placed on before


@pytest.mark.parametrize("name, stem, fp32, dram", [
    ("NVIDIA A30", "a30", 56 * 128 * 1.44e9, 3072 / 8 * 2.43e9),
    ("NVIDIA GeForce RTX 2070 SUPER", "rtx-2070-super", 40 * 128 * 1.77e9, 448e9),
    ("AMD Instinct MI210", "mi210", 104 * 256 * 1.7e9, 4096 / 8 * 3.2e9),
])
def test_gpus_that_had_no_profile_get_one_from_their_architecture(name, stem, fp32, dram):
    choice = device_for([result(name, fmt="ncu-rep")])
    assert choice.profile == stem and "stands in" not in choice.reason
    assert choice.device.compute["fp32"].value == pytest.approx(fp32)
    assert choice.device.bandwidth("DRAM") == pytest.approx(dram)
    assert choice.device.provenance["sources"]                           # every figure cites a document


def test_a_v100_dgxs_is_an_sxm2_with_the_assumption_said_in_the_banner():
    choice = device_for([result("Tesla V100-DGXS-32GB", nvidia(80, 31.7, "7.0"))])
    assert choice.profile == "v100-sxm2"
    assert "V100-DGXS" in choice.reason and "assumed" in choice.reason
    device = with_choice_doubts(choice.device, choice.doubts)
    assert any("assumed" in str(d) for d in doubts(device))


# ------------------------------------------------------------- figures against the name

def test_a_trace_whose_sms_and_memory_contradict_its_name_is_said():
    """An 'H100 PCIe' whose deviceProperties give 132 SMs and 94 GiB: the
    name picks h100-pcie (114 SMs, 80 GiB); the figures are said against it."""
    r = result("NVIDIA H100 PCIe", nvidia(132, 94))
    choice = device_for([r])
    assert choice.profile == "h100-pcie"
    (said,) = [d for d in choice.doubts if "132 SMs" in d]
    assert "not the 114 of h100-pcie" in said and "trace.json" in said
    assert any("94.0 GiB of memory is not the 80.0 GiB" in d for d in choice.doubts)
    assert device_for([result("NVIDIA H100 PCIe", nvidia(114, 79.2))]).doubts == ()


def test_a_clock_far_from_the_profiles_is_said():
    r = result("NVIDIA H100 PCIe", nvidia(114, 79.2, clock_hz=1.2e9), fmt="xplane")
    (said,) = device_for([r]).doubts
    assert "1200 MHz is below h100-pcie's 1755 MHz" in said
    assert device_for([result("NVIDIA H100 PCIe", nvidia(114, 79.2, clock_hz=1.755e9))]).doubts == ()


def test_a_stand_in_and_a_contradiction_reach_the_report_banner_not_only_stderr(tmp_path):
    from roofline.report import build_report
    choice = device_for([result("NVIDIA GeForce RTX 4090 Laptop GPU", nvidia(76, 15.6, "8.9"))])
    assert choice.profile == "rtx-4090"
    assert any("laptop card, desktop profile" in d for d in choice.doubts)
    assert any("76 SMs are not the 128 of rtx-4090" in d for d in choice.doubts)
    device = with_choice_doubts(choice.device, choice.doubts)
    report = build_report([Kernel("k", time_s=1e-3, flops={"fp32": 1e9}, bytes={"DRAM": 1e8})], device)
    banner = report.banner()
    assert banner.startswith("These roofs may not hold") and "laptop card, desktop profile" in banner
    report.save(tmp_path / "report.md")
    written = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "laptop card, desktop profile" in written and "76 SMs" in written
    # what choosing said belongs to one run's files, not to the profile: never saved
    assert "choice_doubts" not in dump_device(device)
    assert doubts_for(device, []) == doubts(device)


def test_choose_device_prints_the_doubt_once_and_attaches_it(capsys):
    from roofline.cli.common import choose_device
    device = choose_device(None, [result("NVIDIA H100 PCIe", nvidia(132, 94))], "classify")
    err = capsys.readouterr().err
    assert err.count("132 SMs") == 1 and "These roofs may not hold" in err
    assert any("132 SMs" in str(d) for d in doubts(device))


# ------------------------------------------------------------- AMD by vendor and GFX IP

def test_an_amd_xplane_with_capability_9_4_is_an_mi300x():
    """A JAX XPlane on ROCm: vendor AMD, 'compute capability' 9.4 (the GFX IP
    version), 304 CUs, 192 GiB, no name: it was refused as no NVIDIA profile
    has 9.4."""
    props = {"capability": "9.4", "sms": 304, "memory_bytes": 206141652992, "clock_hz": 2100000000,
             "vendor": "AMD"}
    choice = device_for([result(None, props, fmt="xplane", capability="9.4")])
    assert choice.profile == "mi300x"
    assert "vendor AMD" in choice.reason and "304 compute units" in choice.reason


def test_an_amd_xplane_with_capability_9_0_is_not_a_hopper():
    props = {"capability": "9.0", "sms": 104, "memory_bytes": 64 * GIB, "vendor": "AMD"}
    assert device_for([result(None, props, fmt="xplane", capability="9.0")]).profile == "mi250-gcd"
    with pytest.raises(UnknownDeviceError, match="which no profile has"):
        device_for([result(None, {**props, "sms": 60}, fmt="xplane", capability="9.0")])


# ------------------------------------------------------------- rocprof-compute workloads

def test_a_rocprof_compute_mi200_of_104_cus_is_an_mi250_gcd_naming_the_mi210(tmp_path):
    r = read_profile(write_workload(tmp_path / "MI200"))
    assert r.device.name == "AMD Instinct MI200"
    choice = device_for([r])
    assert choice.profile == "mi250-gcd"
    assert "CDNA2 family" in choice.reason and "mi210 has the same figures" in choice.reason


def test_a_workload_of_a_gpu_without_a_profile_takes_its_measured_roofline_csv(tmp_path):
    mi100 = SYS_ROW.replace(",MI200,gfx90a,16,8192,104,", ",MI100,gfx908,16,8192,120,")
    pmc = write_workload(tmp_path / "MI100", sys_rows=(mi100,))
    with pytest.raises(UnknownDeviceError, match="AMD Instinct MI100"):
        device_for([read_profile(pmc)])
    write_roofline(tmp_path / "MI100")
    choice = device_for([read_profile(pmc)])
    assert choice.profile.endswith("roofline.csv") and "measured in the same workload" in choice.reason
    assert choice.device.provenance["method"] == "measured"
    assert choice.device.name == "AMD Instinct MI100"


# ------------------------------------------------------------- profiles that contradict themselves

def _device(fp32=1e12, theoretical=None, l1=2e12, dram=1e12, method="datasheet"):
    return Device("test", "gpu", {"fp32": Ceiling(fp32, theoretical=theoretical)},
                  {"L1": MemoryLevel("L1", Ceiling(l1)), "DRAM": MemoryLevel("DRAM", Ceiling(dram))},
                  provenance={"method": method})


def test_a_profile_measured_far_above_its_own_theoretical_peak_is_doubted():
    (d,) = doubts(_device(fp32=7e12, theoretical=1e12, method="measured"))
    assert d.kind == "above theoretical" and "fp32 7x" in d.message
    assert doubts(_device(fp32=1.1e12, theoretical=1e12, method="measured")) == []


@pytest.mark.parametrize("method", ["datasheet", "measured"])
def test_an_l1_slower_than_dram_is_doubted_for_every_kind_of_profile(method):
    (d,) = doubts(_device(l1=0.5e12, dram=1e12, method=method))
    assert d.kind == "levels out of order" and "DRAM" in d.message and "L1" in d.message
