"""Device names as typed and as profilers write them, and the device a
command picks from the file when --device is omitted."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REALDATA
from roofline.device_names import NameError_, resolve_reported, resolve_typed
from roofline.errors import UnknownDeviceError
from roofline.profile import builtin_profiles, find_device, profile_names

ROOT = Path(__file__).resolve().parents[1]
NAMES = profile_names(builtin_profiles())


@pytest.mark.parametrize("typed, stem", [
    ("V100-SXM2", "v100-sxm2"), ("v100 sxm", "v100-sxm2"), ("4090", "rtx-4090"), ("RTX 4090", "rtx-4090"),
    ("t4", "t4"), ("NVIDIA Tesla T4", "t4"), ("h100 sxm", "h100-sxm"), ("a100 80gb", "a100-80gb-sxm"),
    ("k40c", "k40c"), ("gtx 1080 ti", "gtx-1080-ti"),
])
def test_typed_names_resolve(typed, stem):
    assert resolve_typed(typed, NAMES).stem == stem


@pytest.mark.parametrize("typed, candidates", [
    ("v100", {"v100-pcie", "v100-sxm2"}), ("H100", {"h100-pcie", "h100-sxm"}),
    ("a100", {"a100-40gb-sxm", "a100-80gb-sxm"}), ("rtx", {"rtx-2070", "rtx-4090"}),
])
def test_ambiguous_names_list_their_candidates(typed, candidates):
    with pytest.raises(NameError_, match="ambiguous") as info:
        resolve_typed(typed, NAMES)
    assert set(info.value.candidates) == candidates


def test_typos_get_did_you_mean_and_stand_ins_a_note():
    with pytest.raises(NameError_, match="did you mean rtx-4090"):
        resolve_typed("rtx-4900", NAMES)
    m = resolve_typed("H800", NAMES)
    assert m.stem == "h100-sxm" and "NVLink" in m.note
    assert resolve_typed("gh200", NAMES).stem == "h100-sxm"
    with pytest.raises(UnknownDeviceError, match=r"ambiguous: v100-pcie, v100-sxm2"):
        find_device("v100")


@pytest.mark.parametrize("reported, stem", [
    ("Tesla V100-SXM2-16GB", "v100-sxm2"), ("Tesla V100-SXM2", "v100-sxm2"),
    ("NVIDIA A100-SXM4-80GB", "a100-80gb-sxm"), ("A100-PCIE-40GB", "a100-40gb-sxm"),
    ("NVIDIA A100-PG509-200", "a100-40gb-sxm"), ("NVIDIA H800", "h100-sxm"),
    ("NVIDIA GH200 480GB", "h100-sxm"), ("Tesla K20c", "k20c"), ("Tesla K40c", "k40c"),
    ("GeForce GTX 1080 Ti", "gtx-1080-ti"), ("GeForce GTX 1070", "gtx-1070"),
    ("NVIDIA GeForce RTX 4090", "rtx-4090"), ("NVIDIA L4", "l4"),
])
def test_names_in_files_resolve(reported, stem):
    m = resolve_reported(reported, NAMES)
    assert m is not None and m.stem == stem, m
    assert reported in m.note


def test_closest_profile_says_what_differs_and_unknown_gpus_get_none():
    assert "PCIE card, SXM profile" in resolve_reported("A100-PCIE-40GB", NAMES).note
    for name in ("NVIDIA GeForce MX450", "AMD Radeon Graphics", "NVIDIA GeForce RTX 4060 Laptop GPU"):
        assert resolve_reported(name, NAMES) is None


def roofline(*args, env=None):
    return subprocess.run([sys.executable, "-m", "roofline.cli.main", *map(str, args)], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=120)


V100_REP = REALDATA / "ncu_rep" / "wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-flops_ncuroof-time-1.ncu-rep"
V100_LOG = REALDATA / "nvprof" / "peihunglin__XPlacer-ML-DataPlacement__output_000000_graph4096.log"


@pytest.mark.parametrize("path", [V100_REP, V100_LOG], ids=lambda p: p.suffix)
def test_device_from_the_file_and_mismatch_warning(path):
    if not path.exists():
        pytest.skip(f"{path} is not present")
    out = roofline("classify", path, "--format", "csv")
    assert out.returncode == 0, out.stderr
    assert "using device profile v100-sxm2 (the file names Tesla V100-SXM2" in out.stderr
    other = roofline("classify", path, "--device", "t4", "--format", "csv")
    assert other.returncode == 0
    assert other.stderr.count("names the GPU 'Tesla V100-SXM2") == 1 and "NVIDIA Tesla T4" in other.stderr
    same = roofline("classify", path, "--device", "v100-sxm2", "--format", "csv")
    assert "names the GPU" not in same.stderr


def test_cpu_trace_defaults_to_my_cpu_when_saved(tmp_path):
    trace = ROOT / "examples" / "pytorch_cpu_trace.json.gz"
    empty = roofline("classify", trace, env={"ROOFLINE_HOME": str(tmp_path)})
    assert empty.returncode == 2 and "roofline measure" in empty.stderr
    (tmp_path / "devices").mkdir()
    shutil.copy(builtin_profiles()["t4"], tmp_path / "devices" / "my-cpu.yaml")   # any profile will do
    out = roofline("classify", trace, env={"ROOFLINE_HOME": str(tmp_path)})
    assert out.returncode == 0 and "using device profile my-cpu" in out.stderr


def test_a_file_naming_an_unprofiled_gpu_asks_for_device():
    path = REALDATA / "ncu_rep" / "Alaric617R__COALDA__rgb_original.ncu-rep"
    if not path.exists():
        pytest.skip(f"{path} is not present")
    out = roofline("classify", path)
    assert out.returncode == 2 and "'NVIDIA GeForce MX450', which has no built-in or saved profile" in out.stderr
