"""The device profile a command uses when --device is omitted (the GPU the
file names, its compute capability, my-cpu for a CPU trace), the warning
when --device differs, and the errors when nothing fits. Expectations are
stated over whatever built-in profiles exist, so profiles added elsewhere
do not break them."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REALDATA, REPO
from roofline.devices.choice import device_for, profile_infos
from roofline.devices.names import model_of, resolve_reported
from roofline.core.errors import UnknownDeviceError
from roofline.core.import_result import DeviceClues, ImportResult
from roofline.importers import read_profile
from roofline.devices.profile import builtin_profiles, profile_names, user_profile_dir

NAMES = profile_names(builtin_profiles())


def result(path="run.ncu-rep", fmt="ncu-rep", **clues):
    return ImportResult(path, fmt, (), device=DeviceClues(**clues))


def saved_profile(stem: str, from_stem: str, **architecture) -> Path:
    """A 'measured' profile in the temporary ROOFLINE_HOME, made from a built-in one."""
    data = yaml.safe_load(builtin_profiles()[from_stem].read_text())
    data["name"] = stem
    data["architecture"] = {**data.get("architecture", {}), **architecture}
    folder = user_profile_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_the_gpu_the_file_names_picks_its_profile_and_says_why():
    choice = device_for([result(name="Tesla V100-SXM2-16GB")])
    assert choice.profile == "v100-sxm2" and choice.device.name == "NVIDIA Tesla V100 SXM2"
    assert choice.reason == "the file names Tesla V100-SXM2-16GB" and not choice.warnings


def test_device_given_and_different_warns_once_naming_both():
    files = [result("a.ncu-rep", name="Tesla V100-SXM2-16GB"),
             result("b.ncu-rep", name="Tesla V100-SXM2-16GB")]
    choice = device_for(files, requested="t4")
    assert choice.profile == "t4" and len(choice.warnings) == 1
    assert "a.ncu-rep names the GPU 'Tesla V100-SXM2-16GB' but --device gives 'NVIDIA Tesla T4'" in choice.warnings[0]
    for same in ("v100-sxm2", "V100 SXM2", "NVIDIA Tesla V100 SXM2", str(builtin_profiles()["v100-sxm2"])):
        assert device_for(files, requested=same).warnings == (), same


def test_several_gpus_named_use_the_first_and_say_so():
    choice = device_for([result(name="Tesla K20c"), result(name="Tesla K40c")])
    assert choice.profile == "k20c"
    assert len(choice.warnings) == 1 and "2 GPUs (Tesla K20c, Tesla K40c)" in choice.warnings[0]


def test_a_gpu_without_a_profile_is_an_error_listing_the_device_values():
    with pytest.raises(UnknownDeviceError) as info:
        device_for([result("x.ncu-rep", name="NVIDIA GeForce RTX 5080")])
    text = str(info.value)
    assert "x.ncu-rep names the GPU 'NVIDIA GeForce RTX 5080', which has no built-in or saved profile" in text
    assert all(stem in text for stem in NAMES)


def test_equally_close_profiles_are_an_error_listing_them():
    assert {"h100-sxm", "h100-pcie"} <= set(NAMES), "the shipped profiles must keep both H100s"
    with pytest.raises(UnknownDeviceError, match=r"matches \d+ profiles equally well: .*h100-pcie, h100-sxm"):
        device_for([result(name="NVIDIA H100")])


def test_a_file_that_names_nothing_is_an_error_listing_the_device_values():
    saved_profile("my-cpu", "t4")
    with pytest.raises(UnknownDeviceError) as info:
        device_for([result("summary.csv", "nsys-stats-csv")])
    text = str(info.value)
    assert text.startswith("summary.csv: the file does not name its GPU; pass --device (built-in: ")
    assert "saved: my-cpu" in text and all(stem in text for stem in NAMES)


def _capabilities():
    caps = {}
    for stem, info in profile_infos().items():
        if info.origin == "built-in" and info.capability:
            caps.setdefault(info.capability, []).append(stem)
    return caps


def test_a_compute_capability_alone_picks_its_only_profile():
    single = {cc: stems[0] for cc, stems in _capabilities().items() if len(stems) == 1}
    assert single, "some compute capability has exactly one built-in profile"
    for cc, stem in single.items():
        choice = device_for([result(capability=cc)])
        assert choice.profile == stem and f"({cc})" in choice.reason


def test_compute_capability_8_0_is_an_a100_with_the_alternative_named():
    stems = _capabilities().get("8.0", [])
    # pinned: a new 8.0 profile (A800) must update this test, not skip it
    assert sorted(stems) == ["a100-40gb-sxm", "a100-80gb-sxm", "a30"], stems
    choice = device_for([result(capability="8.0")])
    assert choice.profile == "a100-40gb-sxm"
    # the A30 (56 SMs) computes at about half an A100: said, not hidden behind "differ in memory"
    assert "a100-80gb-sxm differs from it in memory only" in choice.reason
    assert "a30 computes differently" in choice.reason


def test_an_unknown_compute_capability_is_an_error():
    assert "11.0" not in _capabilities()
    with pytest.raises(UnknownDeviceError, match=r"only the compute capability \(11\.0\).*no profile has"):
        device_for([result(capability="11.0")])


def test_a_capability_other_gpus_share_warns_and_names_them():
    """CC 12.0 is the RTX 5090's and the RTX 5080's (84 SMs to 170): the
    only profile of it is used, with a warning, not silently."""
    choice = device_for([result(capability="12.0")])
    assert choice.profile == "rtx-5090" and "only profile" in choice.reason
    assert len(choice.warnings) == 1
    assert "RTX 5080" in choice.warnings[0] and "pass --device" in choice.warnings[0]
    assert device_for([result(capability="12.0")], requested="rtx-5090").warnings == ()


def test_the_a100_chosen_from_its_capability_names_the_a30_as_well():
    choice = device_for([result(capability="8.0")])
    # the A30 has a profile now: named in the reason; the A800 (no profile) in the warning
    assert choice.profile == "a100-40gb-sxm" and "a30" in choice.reason
    assert len(choice.warnings) == 1 and "A800" in choice.warnings[0]


def test_a_capability_shared_with_no_other_gpu_gives_no_warning():
    from roofline.devices.names import capability_warning
    assert capability_warning("7.0", "v100-sxm2") is None
    assert "RTX 5080" in capability_warning("12.0", "rtx-5090")


def test_device_given_against_a_compute_capability_warns():
    choice = device_for([result("a.csv", "ncu-csv", capability="8.0")], requested="t4")
    assert len(choice.warnings) == 1
    assert "compute capability 8.0 but --device gives 'NVIDIA Tesla T4' (t4), of compute capability 7.5" \
        in choice.warnings[0]
    assert device_for([result(capability="7.5")], requested="t4").warnings == ()


def test_a_measured_profile_of_the_gpu_wins_over_the_datasheet():
    saved_profile("my-gpu", "v100-sxm2", gpu_name="Tesla V100-SXM2-16GB")
    choice = device_for([result(name="Tesla V100-SXM2-16GB")])
    assert choice.profile == "my-gpu" and "measured by `roofline measure`" in choice.reason
    assert device_for([result(name="Tesla V100-SXM2-16GB")], requested="my-gpu").warnings == ()


def test_a_measured_profile_of_another_form_factor_does_not():
    saved_profile("my-gpu", "v100-pcie", gpu_name="Tesla V100-PCIE-16GB")
    assert device_for([result(name="Tesla V100-SXM2-16GB")]).profile == "v100-sxm2"
    assert device_for([result(name="Tesla V100-PCIE-16GB")]).profile == "my-gpu"


def test_cpu_traces_use_my_cpu_when_it_exists():
    cpu = result("trace.json", "kineto", kind="cpu")
    with pytest.raises(UnknownDeviceError, match="run `roofline measure` first"):
        device_for([cpu])
    saved_profile("my-cpu", "t4")                  # any profile will do
    choice = device_for([cpu])
    assert choice.profile == "my-cpu" and "without a GPU" in choice.reason
    # a reader that does not set device_kind: a Kineto trace naming no GPU is a CPU trace
    assert device_for([result("trace.json", "kineto")]).profile == "my-cpu"
    assert device_for([result("trace.json", "kineto", kind="gpu")], requested="my-cpu").profile == "my-cpu"


def test_a_typed_stand_in_says_so():
    choice = device_for([], requested="h800")
    if "h800" in NAMES:
        assert choice.profile == "h800" and not choice.reason
    else:
        assert choice.profile == "h100-sxm" and "no profile of its own" in choice.reason


def test_typed_errors_list_the_device_values():
    with pytest.raises(UnknownDeviceError) as info:
        device_for([], requested="rtx-4900")
    assert "did you mean rtx-4090" in str(info.value) and "built-in: " in str(info.value)


# ------------------------------------------------------------- real files

def expected_for_name(named: str) -> str | None:
    """The profile a GPU name must pick among the built-in profiles, or None
    when none is of that model."""
    try:
        m = resolve_reported(named, NAMES)
    except LookupError:
        return None
    return m.stem if m else None


# file -> the GPU it names (None: the file does not name it), and the model
# the chosen profile must be of (None: no built-in profile may fit)
REAL = {
    "ncu_rep/wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-dram_ncuroof-time-1.ncu-rep":
        ("Tesla V100-SXM2-16GB", "v100"),
    "ncu_rep/wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-flops_ncuroof-time-1.ncu-rep":
        ("Tesla V100-SXM2-16GB", "v100"),
    "ncu_rep/extra-p__extrap__ex-gpu.s10.ncu-rep": ("A100-PCIE-40GB", "a100"),
    "ncu_rep/rashwanth__RooflineAnalysis_On_NVIDIA_GPU__output0.ncu-rep":
        ("NVIDIA GeForce RTX 4060 Laptop GPU", "4060"),
    "ncu_rep/Alaric617R__COALDA__origin.ncu-rep": ("NVIDIA GeForce RTX 4050 Laptop GPU", "4050"),
    "ncu_rep/Alaric617R__COALDA__rgb_original.ncu-rep": ("NVIDIA GeForce MX450", "mx450"),
    "nsys/extra-p__extrap__ex-gpu.s10.sqlite": ("A100-PCIE-40GB", "a100"),
    "nsys/extra-p__extrap__con_kernel.sqlite": ("GeForce GTX 1060 with Max-Q Design", "1060"),
    "nvprof/pssrawat__IEEE2017__untiled.csv": ("Tesla K40c", "k40c"),
    "nvprof/pssrawat__IEEE2017__jacobi-orig.profile": ("Tesla K20c", "k20c"),
    "nvprof/pssrawat__IEEE2017__jacobi-orig.trace": ("Tesla K20c", "k20c"),
    "nvprof/leimingyu__magus__matrixMul_metrics.csv": ("GeForce GTX 1080 Ti", "1080ti"),
    "nvprof/leimingyu__magus__matrixMul_trace.csv": ("GeForce GTX 1080 Ti", "1080ti"),
    "nvprof/peihunglin__XPlacer-ML-DataPlacement__output_000000_graph4096.log": ("Tesla V100-SXM2-16GB", "v100"),
    "nvprof/peihunglin__XPlacer-ML-DataPlacement__GPUTraceOutput_111100_graph4096.log":
        ("Tesla V100-SXM2", "v100"),
    "nvprof/sankarmanoj__thrust2D__native.profile": ("GeForce GTX 1070", "1070"),
}
# files that give only a compute capability, or nothing
CAPABILITY_ONLY = {
    "ncu_csv/wangzy0327__cuda-roofline__output_A100.csv": "8.0",
    "ncu_csv/Gardenia-Tian__LearningNote4Dev__sgemm.csv": "8.0",
    "ncu_csv/CodeGandee__llm-perf-opt__kernel_0001_ncu.details.csv": "12.0",
    "ncu_csv/CodeGandee__llm-perf-opt__kernel_0001_ncu.section_SpeedOfLight_RooflineChart.csv": "12.0",
}
NAMELESS = [
    "ncu_csv/wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-dram_ncuroof-time-1.csv",
    "ncu_csv/wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-flops_ncuroof-time-1.csv",
    "ncu_csv/peihunglin__XPlacer-ML-DataPlacement__nsight_bfs_graph4096.log",
    "nsys/CodeGandee__llm-perf-opt__sam_summary_cuda_gpu_kern_sum.csv",
    "nvprof/pssrawat__IEEE2017__jacobi-unroll.time",
]


def _read(realdata, rel):
    path = realdata / rel
    if not path.exists():
        pytest.skip(f"{rel} is not present")
    return read_profile(path)


@pytest.mark.parametrize("rel", sorted(REAL), ids=lambda r: Path(r).name[:50])
def test_real_files_name_their_gpu_and_pick_its_profile(realdata, rel):
    named, model = REAL[rel]
    r = _read(realdata, rel)
    assert r.device.name == named
    expected = expected_for_name(named)
    if model is not None:
        assert expected is not None and model in (model_of(expected), model_of(NAMES[expected]))
    if expected is None:
        with pytest.raises(UnknownDeviceError, match=re.escape(f"names the GPU {named!r}")):
            device_for([r])
        return
    choice = device_for([r])
    assert choice.profile == expected and named in choice.reason


MI250_TRACE = "kineto_trace/facebookresearch__HolisticTraceAnalysis__mi250_minitoy_train_ROCm6_2_kineto.json.gz"


def test_real_rocm_trace_picks_the_mi250_gcd_by_its_device_properties(realdata):
    """ROCm names the MI250 'AMD Radeon Graphics' (as it names APU graphics):
    the name picks nothing, the trace's deviceProperties do."""
    r = _read(realdata, MI250_TRACE)
    assert r.device.name == "AMD Radeon Graphics" and expected_for_name(r.device.name) is None
    choice = device_for([r])
    assert choice.profile == "mi250-gcd" and "AMD Radeon Graphics" in choice.reason
    assert "104 SMs/CUs, warp size 64, version 9.0, 64.0 GiB" in choice.reason


@pytest.mark.parametrize("rel", sorted(CAPABILITY_ONLY), ids=lambda r: Path(r).name[:50])
def test_real_files_with_only_a_compute_capability(realdata, rel):
    r = _read(realdata, rel)
    cc = CAPABILITY_ONLY[rel]
    assert r.device.name is None and r.device.capability == cc
    if cc in _capabilities():
        choice = device_for([r])
        assert f"({cc})" in choice.reason
        if cc == "8.0":
            assert model_of(choice.profile) == "a100"
    else:
        with pytest.raises(UnknownDeviceError, match=re.escape(f"({cc})")):
            device_for([r])


@pytest.mark.parametrize("rel", NAMELESS, ids=lambda r: Path(r).name[:50])
def test_real_files_that_name_no_gpu_ask_for_device(realdata, rel):
    r = _read(realdata, rel)
    assert r.device.name is None and r.device.capability is None
    with pytest.raises(UnknownDeviceError, match="does not name its GPU; pass --device"):
        device_for([r])
    assert device_for([r], requested="v100-sxm2").warnings == ()


def roofline(*args, home=None):
    env = {**os.environ, "ROOFLINE_HOME": str(home)} if home else None
    return subprocess.run([sys.executable, "-m", "roofline.cli.main", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=300)


V100_LOG = "nvprof/peihunglin__XPlacer-ML-DataPlacement__output_000000_graph4096.log"


def test_cli_says_which_profile_and_warns_once_when_device_differs(realdata, tmp_path):
    path = realdata / V100_LOG
    if not path.exists():
        pytest.skip(f"{path} is not present")
    out = roofline("classify", path, "--format", "csv", home=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "roofline classify: using device profile v100-sxm2 (the file names Tesla V100-SXM2-16GB)" in out.stderr
    other = roofline("classify", path, "--device", "t4", "--format", "csv", home=tmp_path)
    assert other.returncode == 0, other.stderr
    assert other.stderr.count("names the GPU 'Tesla V100-SXM2-16GB' but --device gives 'NVIDIA Tesla T4'") == 1
    same = roofline("classify", path, "--device", "V100-SXM2", "--format", "csv", home=tmp_path)
    assert same.returncode == 0 and "names the GPU" not in same.stderr and "using device" not in same.stderr
    typo = roofline("classify", path, "--device", "v100", home=tmp_path)
    assert typo.returncode == 2
    assert "ambiguous: v100-pcie, v100-sxm2" in typo.stderr and "Traceback" not in typo.stderr


def test_cli_diff_places_each_run_on_its_own_gpu(realdata, tmp_path):
    a, b = realdata / V100_LOG, realdata / "nvprof/pssrawat__IEEE2017__jacobi-orig.trace"
    if not (a.exists() and b.exists()):
        pytest.skip("realdata files are not present")
    out = roofline("diff", a, b, home=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "using device profile v100-sxm2" in out.stderr and "using device profile k20c" in out.stderr


def test_cli_cpu_trace_defaults_to_my_cpu(tmp_path):
    trace = REPO / "examples" / "pytorch_cpu_trace.json.gz"
    empty = roofline("classify", trace, home=tmp_path)
    assert empty.returncode == 2 and "roofline measure" in empty.stderr
    (tmp_path / "devices").mkdir()
    from roofline import Ceiling, Device, MemoryLevel, save_device
    # any CPU profile will do (a GPU's is refused for a trace of host times)
    save_device(Device("my-cpu", "cpu", {"fp32": Ceiling(1e11)}, {"DRAM": MemoryLevel("DRAM", Ceiling(2e10))}),
                tmp_path / "devices" / "my-cpu.yaml")
    out = roofline("classify", trace, home=tmp_path)
    assert out.returncode == 0 and "using device profile my-cpu" in out.stderr
