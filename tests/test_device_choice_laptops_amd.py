"""Device choice for the GPUs that real files name and that now have
datasheet profiles: laptop parts kept apart from desktop ones (with a note
when only the other exists), and an AMD MI250 GCD that ROCm calls "AMD
Radeon Graphics", a name it gives a Ryzen APU's integrated graphics too:
it is chosen only when every device property the trace gives is the
MI250 GCD's, and says why."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from roofline.devices.choice import device_for
from roofline.devices.names import NameError_, resolve_properties
from roofline.core.errors import UnknownDeviceError
from roofline.core.import_result import DeviceClues, ImportResult
from roofline.importers import read_profile
from roofline.devices.profile import builtin_profiles, profile_names

NAMES = profile_names(builtin_profiles())
GIB = 2 ** 30
# deviceProperties of the ROCm 6.2 MI250 trace in realdata, as ImportResult.device.properties
MI250 = {"sms": 104, "warp_size": 64, "capability": "9.0", "memory_bytes": 68702699520}
# a Ryzen APU's integrated Vega graphics: the same name, the same GFX IP 9.0 and wave64
APU = {"sms": 8, "warp_size": 64, "capability": "9.0", "memory_bytes": 16 * GIB}


def result(name, properties=None, path="trace.json", fmt="kineto"):
    return ImportResult(path, fmt, (), device=DeviceClues(name=name, properties=properties))


# ------------------------------------------------------------- NVIDIA laptop parts

@pytest.mark.parametrize("named, stem", [
    ("NVIDIA GeForce RTX 4050 Laptop GPU", "rtx-4050-laptop"),
    ("NVIDIA GeForce RTX 4060 Laptop GPU", "rtx-4060-laptop"),
    ("NVIDIA GeForce MX450", "mx450"),
    ("GeForce GTX 1060 with Max-Q Design", "gtx-1060-maxq"),
])
def test_laptop_gpus_get_their_own_profile_without_a_note(named, stem):
    choice = device_for([result(named, fmt="ncu-rep")])
    assert choice.profile == stem
    assert choice.reason == f"the file names {named}"          # no "closest profile: ..." note


@pytest.mark.parametrize("named, laptop_stem, desktop_stem", [
    ("NVIDIA GeForce RTX 4060", "rtx-4060-laptop", "rtx-4060"),
    ("GeForce GTX 1060 6GB", "gtx-1060-maxq", "gtx-1060"),
])
def test_a_desktop_card_gets_a_laptop_profile_only_with_a_note(named, laptop_stem, desktop_stem):
    choice = device_for([result(named, fmt="ncu-rep")])
    if desktop_stem in NAMES:
        assert choice.profile == desktop_stem
        return
    assert choice.profile == laptop_stem
    assert "the closest profile: desktop card, laptop profile" in choice.reason


def test_a_laptop_card_gets_a_desktop_profile_only_with_a_note():
    choice = device_for([result("NVIDIA GeForce RTX 4090 Laptop GPU", fmt="ncu-rep")])
    assert choice.profile == "rtx-4090" and "laptop card, desktop profile" in choice.reason


def test_a_typed_model_needs_no_form_factor():
    choice = device_for([], requested="4060")
    assert choice.profile == "rtx-4060-laptop" and not choice.reason
    assert device_for([], requested="mx450").profile == "mx450"
    assert device_for([], requested="MI250").profile == "mi250-gcd"


# ------------------------------------------------------------- AMD: by the device properties

def test_radeon_graphics_with_an_mi250_gcds_properties_is_an_mi250_gcd_and_says_why():
    choice = device_for([result("AMD Radeon Graphics", MI250)])
    assert choice.profile == "mi250-gcd" and not choice.warnings
    assert choice.reason == ("the file names AMD Radeon Graphics, a name that does not say which GPU it is; "
                             "its device properties (104 SMs/CUs, warp size 64, version 9.0, 64.0 GiB) are "
                             "those of AMD Instinct MI250 (one GCD)")


@pytest.mark.parametrize("properties", [
    APU,                                              # integrated graphics: 8 CUs, shared memory
    None,                                             # a trace without deviceProperties figures
    {k: v for k, v in MI250.items() if k != "memory_bytes"},   # one figure missing
    {**MI250, "sms": 120, "memory_bytes": 32 * GIB},  # an MI100
    {**MI250, "capability": "9.4"},                   # CDNA3
    {**MI250, "warp_size": 32},                       # an RDNA part in wave32
    {**MI250, "memory_bytes": 128 * GIB},             # more memory than one GCD has
    {**MI250, "memory_bytes": 60 * GIB},              # more than 3 % less
])
def test_radeon_graphics_without_every_mi250_figure_stays_an_error(properties):
    with pytest.raises(UnknownDeviceError) as info:
        device_for([result("AMD Radeon Graphics", properties)])
    text = str(info.value)
    assert "names the GPU 'AMD Radeon Graphics'" in text and "which has no built-in or saved profile" in text
    assert "pass --device" in text and "mi250-gcd" in text          # the device values are listed
    if properties:
        assert f"warp size {properties['warp_size']}" in text       # what the file said is repeated


def test_a_name_shared_by_two_gpus_is_decided_by_the_properties():
    # ROCm names both parts "AMD Instinct MI250X / MI250": the CU count of
    # one GCD decides (104 on an MI250, 110 on an MI250X)
    choice = device_for([result("AMD Instinct MI250X / MI250", MI250)])
    assert choice.profile == "mi250-gcd"
    assert "a name given to several GPUs (MI250X, MI250)" in choice.reason
    assert device_for([result("AMD Instinct MI250X / MI250", {**MI250, "sms": 110})]).profile == "mi250x-gcd"
    # properties that are neither stay an error
    with pytest.raises(UnknownDeviceError):
        device_for([result("AMD Instinct MI250X / MI250", {**MI250, "sms": 96})])


def test_radeon_graphics_with_an_mi250x_gcds_properties_is_one():
    assert device_for([result("AMD Radeon Graphics", {**MI250, "sms": 110})]).profile == "mi250x-gcd"


def test_an_mi210_has_its_own_profile_with_the_mi250_gcds_roofs():
    """Issue 30: the MI210 had no profile (it borrowed mi250-gcd's). It has
    one now, with the same roofs; its figures are never used to choose it,
    so an MI250 GCD told by its device properties stays mi250-gcd."""
    choice = device_for([result("AMD Instinct MI210")])
    assert choice.profile == "mi210" and "no profile of its own" not in choice.reason
    gcd = device_for([], requested="mi250-gcd").device
    assert {k: c.value for k, c in choice.device.compute.items()} == {k: c.value for k, c in gcd.compute.items()}
    assert choice.device.bandwidth("DRAM") == gcd.bandwidth("DRAM")
    assert device_for([result("AMD Radeon Graphics", MI250)]).profile == "mi250-gcd"


def test_device_given_for_an_mi250_trace_warns_only_when_it_is_another_gpu():
    assert device_for([result("AMD Radeon Graphics", MI250)], requested="mi250-gcd").warnings == ()
    (warning,) = device_for([result("AMD Radeon Graphics", MI250)], requested="a100-40gb-sxm").warnings
    assert "names the GPU 'AMD Radeon Graphics' but --device gives 'NVIDIA A100 40GB SXM4'" in warning
    (warning,) = device_for([result("AMD Radeon Graphics", APU)], requested="mi250-gcd").warnings
    assert "--device gives 'AMD Instinct MI250 (one GCD)'" in warning


def test_resolve_properties_needs_every_figure_and_one_profile():
    gcd = {"sms": 104, "warp_size": 64, "capability": "9.0", "memory_bytes": 64 * GIB}
    assert resolve_properties("AMD Radeon Graphics", MI250, {"x": gcd}).stem == "x"
    assert resolve_properties("AMD Radeon Graphics", MI250, {}) is None
    assert resolve_properties("AMD Radeon Graphics", {**MI250, "capability": None}, {"x": gcd}) is None
    with pytest.raises(NameError_) as info:
        resolve_properties("AMD Radeon Graphics", MI250, {"x": gcd, "y": dict(gcd)})
    assert set(info.value.candidates) == {"x", "y"}


# ------------------------------------------------------------- Kineto carries the properties

def _trace(tmp_path, props):
    events = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": 1,
               "args": {"device": 5, "correlation": 1}}]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"deviceProperties": props, "traceEvents": events}))
    return read_profile(path)


def test_kineto_gives_the_figures_of_the_device_it_names(tmp_path):
    entry = {"name": "AMD Radeon Graphics", "numSms": 104, "warpSize": 64, "computeMajor": 9,
             "computeMinor": 0, "totalGlobalMem": 68702699520, "maxThreadsPerBlock": 1024}
    r = _trace(tmp_path, [{"id": i, **entry} for i in range(4)])     # the kernel's device 5 is not listed
    assert r.device.name == "AMD Radeon Graphics" and r.device.properties == MI250
    # same name, different figures: the name is kept, no figures (they would pick one at random)
    r = _trace(tmp_path, [{"id": 0, **entry}, {"id": 1, **entry, "numSms": 8}])
    assert r.device.name == "AMD Radeon Graphics" and r.device.properties is None
    # figures that are not whole numbers are left out
    r = _trace(tmp_path, [{"id": 5, **entry, "numSms": "104", "warpSize": True, "computeMinor": -1}])
    assert r.device.properties == {"memory_bytes": 68702699520}


# ------------------------------------------------------------- the real files, on the command line

REAL_LINES = {
    "ncu_rep/Alaric617R__COALDA__origin.ncu-rep":
        "using device profile rtx-4050-laptop (the file names NVIDIA GeForce RTX 4050 Laptop GPU)",
    "ncu_rep/Alaric617R__COALDA__rgb_original.ncu-rep":
        "using device profile mx450 (the file names NVIDIA GeForce MX450)",
    "ncu_rep/rashwanth__RooflineAnalysis_On_NVIDIA_GPU__output0.ncu-rep":
        "using device profile rtx-4060-laptop (the file names NVIDIA GeForce RTX 4060 Laptop GPU)",
    "nsys/extra-p__extrap__con_kernel.sqlite":
        "using device profile gtx-1060-maxq (the file names GeForce GTX 1060 with Max-Q Design)",
    "kineto_trace/facebookresearch__HolisticTraceAnalysis__mi250_minitoy_train_ROCm6_2_kineto.json.gz":
        "using device profile mi250-gcd (the file names AMD Radeon Graphics, a name that does not say which "
        "GPU it is; its device properties (104 SMs/CUs, warp size 64, version 9.0, 64.0 GiB) are those of "
        "AMD Instinct MI250 (one GCD))",
}


@pytest.mark.parametrize("rel", sorted(REAL_LINES), ids=lambda r: r.split("/")[-1][:40])
def test_classify_says_which_profile_each_real_file_gets(realdata, rel, tmp_path):
    path = realdata / rel
    if not path.exists():
        pytest.skip(f"{rel} is not present")
    out = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(path), "--format", "csv"],
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, "ROOFLINE_HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert f"roofline classify: {REAL_LINES[rel]}\n" in out.stderr
