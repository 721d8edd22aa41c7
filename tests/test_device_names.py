"""Device names as people type them and as profilers write them.

The rules are pure functions over {stem: display name}; they are tested on
fixed tables (so a profile added or removed elsewhere changes nothing here)
and, where it matters, on whatever built-in profiles exist."""
from __future__ import annotations

import pytest

from roofline.devices.names import (STAND_INS, NameError_, model_of, resolve_capability, resolve_reported,
                                    resolve_typed, stand_ins_in_effect)
from roofline.core.errors import UnknownDeviceError
from roofline.devices.profile import builtin_profiles, find_device, profile_names

# the built-in profiles of the first session: no H800, GH200, A10 or laptop profile
BASE = {
    "k20c": "NVIDIA Tesla K20c", "k40c": "NVIDIA Tesla K40c", "gtx-970": "NVIDIA GeForce GTX 970",
    "gtx-1070": "NVIDIA GeForce GTX 1070", "gtx-1080-ti": "NVIDIA GeForce GTX 1080 Ti",
    "gtx-1650": "NVIDIA GeForce GTX 1650", "rtx-2070": "NVIDIA GeForce RTX 2070", "t4": "NVIDIA Tesla T4",
    "v100-sxm2": "NVIDIA Tesla V100 SXM2", "v100-pcie": "NVIDIA Tesla V100 PCIe",
    "a100-40gb-sxm": "NVIDIA A100 40GB SXM4", "a100-80gb-sxm": "NVIDIA A100 80GB SXM4",
    "h100-sxm": "NVIDIA H100 SXM5", "h100-pcie": "NVIDIA H100 PCIe", "h200": "NVIDIA H200 SXM",
    "rtx-4090": "NVIDIA GeForce RTX 4090", "l4": "NVIDIA L4",
}
# the same with profiles of their own for GPUs that otherwise borrow one
MORE = {**BASE, "h800": "NVIDIA H800 SXM5", "gh200": "NVIDIA GH200 Grace Hopper", "a10": "NVIDIA A10",
        "a10g": "NVIDIA A10G", "gtx-1080": "NVIDIA GeForce GTX 1080",
        "rtx-4060": "NVIDIA GeForce RTX 4060", "rtx-4060-laptop": "NVIDIA GeForce RTX 4060 Laptop GPU",
        "h100-nvl": "NVIDIA H100 NVL"}


@pytest.mark.parametrize("typed, stem", [
    ("V100-SXM2", "v100-sxm2"), ("v100 sxm", "v100-sxm2"), ("v100-s", "v100-sxm2"), ("4090", "rtx-4090"),
    ("RTX 4090", "rtx-4090"), ("t4", "t4"), ("T4", "t4"), ("NVIDIA Tesla T4", "t4"), ("h100 sxm", "h100-sxm"),
    ("H100-PCIE", "h100-pcie"), ("a100 80gb", "a100-80gb-sxm"), ("A100_40GB", "a100-40gb-sxm"), ("k40c", "k40c"),
    ("gtx 1080 ti", "gtx-1080-ti"), ("GTX1080Ti", "gtx-1080-ti"), ("1650", "gtx-1650"),
])
def test_typed_names_ignore_case_and_punctuation_and_take_prefixes_and_models(typed, stem):
    assert resolve_typed(typed, BASE).stem == stem


def test_a_file_stem_wins_over_the_same_name_inside_a_busy_run_kept_beside_it():
    """`roofline measure` keeps a busy run as my-cpu.busy.yaml beside a quieter my-cpu.yaml;
    both hold the name my-cpu. Typed or reported, my-cpu is my-cpu.yaml whichever is listed
    first (the busy one was, by file order, and the README's main job drew its chart on it)."""
    for stems in ({"my-cpu.busy": "my-cpu", "my-cpu": "my-cpu"}, {"my-cpu": "my-cpu", "my-cpu.busy": "my-cpu"}):
        assert resolve_typed("my-cpu", stems).stem == "my-cpu"
        assert resolve_reported("my-cpu", stems).stem == "my-cpu"
        assert resolve_typed("my-cpu.busy", stems).stem == "my-cpu.busy"
    # a name inside a profile still finds it when no stem is that name
    assert resolve_typed("NVIDIA Tesla T4", BASE).stem == "t4"


@pytest.mark.parametrize("typed, candidates", [
    ("v100", {"v100-pcie", "v100-sxm2"}), ("V100", {"v100-pcie", "v100-sxm2"}), ("H100", {"h100-pcie", "h100-sxm"}),
    ("a100", {"a100-40gb-sxm", "a100-80gb-sxm"}), ("rtx", {"rtx-2070", "rtx-4090"}), ("gtx", None),
])
def test_ambiguous_names_list_their_candidates(typed, candidates):
    with pytest.raises(NameError_, match="ambiguous") as info:
        resolve_typed(typed, BASE)
    if candidates is None:
        candidates = {s for s in BASE if s.startswith("gtx")}
    assert set(info.value.candidates) == candidates
    for stem in candidates:
        assert stem in str(info.value)


@pytest.mark.parametrize("typed, suggested", [
    ("rtx-4900", "rtx-4090"), ("v1OO-sxm2", "v100-sxm2"), ("h100-sxn", "h100-sxm"), ("1080", "gtx-1080-ti"),
])
def test_typos_get_did_you_mean(typed, suggested):
    with pytest.raises(NameError_, match="did you mean") as info:
        resolve_typed(typed, BASE)
    assert suggested in info.value.candidates and suggested in str(info.value)


def test_a_number_is_never_cut_in_two():
    """'a10' is not a prefix of 'a100': with an A10 profile it is the A10, without one no A100."""
    assert resolve_typed("a10", MORE).stem == "a10"
    with pytest.raises(NameError_, match="no device profile named 'a10'"):
        resolve_typed("a10", BASE)
    assert resolve_typed("gtx 1080", MORE).stem == "gtx-1080"        # not the Ti
    assert resolve_typed("GTX 1080 Ti", MORE).stem == "gtx-1080-ti"


@pytest.mark.parametrize("gpu, stand_in", [("h800", "h100-sxm"), ("gh200", "h100-sxm"), ("a10g", "a10")])
def test_stand_ins_only_when_the_gpu_has_no_profile_and_the_stand_in_has_one(gpu, stand_in):
    base = dict(BASE, a10="NVIDIA A10") if gpu == "a10g" else BASE
    m = resolve_typed(gpu.upper(), base)
    assert m.stem == stand_in and "no profile of its own" in m.note and STAND_INS[gpu].why in m.note
    assert resolve_typed(gpu, MORE).stem == gpu and not resolve_typed(gpu, MORE).note
    without = {s: n for s, n in base.items() if model_of(s) != STAND_INS[gpu].model}
    with pytest.raises(NameError_):                 # skipped, not a crash, when the stand-in is missing
        resolve_typed(gpu, without)
    assert resolve_reported(f"NVIDIA {gpu.upper()}", without) is None


@pytest.mark.parametrize("reported, stem", [
    ("Tesla V100-SXM2-16GB", "v100-sxm2"), ("Tesla V100-SXM2-32GB", "v100-sxm2"), ("Tesla V100-SXM2", "v100-sxm2"),
    ("Tesla V100-PCIE-16GB", "v100-pcie"), ("NVIDIA A100-SXM4-80GB", "a100-80gb-sxm"),
    ("NVIDIA A100-SXM4-40GB", "a100-40gb-sxm"), ("A100-PCIE-40GB", "a100-40gb-sxm"),
    ("NVIDIA A100 80GB PCIe", "a100-80gb-sxm"), ("NVIDIA A100-PG509-200", "a100-40gb-sxm"),
    ("NVIDIA H100 80GB HBM3", "h100-sxm"), ("NVIDIA H100 PCIe", "h100-pcie"),
    ("NVIDIA H800", "h100-sxm"), ("NVIDIA GH200 480GB", "h100-sxm"), ("NVIDIA A800-SXM4-80GB", "a100-80gb-sxm"),
    ("Tesla K20c", "k20c"), ("Tesla K40c", "k40c"), ("GeForce GTX 1080 Ti", "gtx-1080-ti"),
    ("GeForce GTX 1070", "gtx-1070"), ("NVIDIA GeForce RTX 4090", "rtx-4090"), ("NVIDIA L4", "l4"),
    ("Tesla T4", "t4"), ("NVIDIA H200", "h200"),
])
def test_names_in_files_resolve(reported, stem):
    m = resolve_reported(reported, BASE)
    assert m is not None and m.stem == stem, m
    assert reported in m.note


@pytest.mark.parametrize("reported, stem", [
    ("NVIDIA H800", "h800"), ("NVIDIA GH200 480GB", "gh200"), ("NVIDIA A10G", "a10g"), ("NVIDIA A10", "a10"),
    ("GeForce GTX 1080", "gtx-1080"), ("NVIDIA GeForce RTX 4060 Laptop GPU", "rtx-4060-laptop"),
    ("NVIDIA GeForce RTX 4060", "rtx-4060"), ("NVIDIA A100-SXM4-40GB", "a100-40gb-sxm"),
    ("NVIDIA H100 NVL", "h100-nvl"),
])
def test_a_gpu_with_its_own_profile_gets_it(reported, stem):
    m = resolve_reported(reported, MORE)
    assert m is not None and m.stem == stem and "stands in" not in m.note


def test_closest_profile_says_what_differs():
    m = resolve_reported("A100-PCIE-40GB", BASE)
    assert m.conflicts == "PCIe card, SXM profile" and "closest profile" in m.note
    m = resolve_reported("NVIDIA A100 80GB PCIe", BASE)
    assert m.stem == "a100-80gb-sxm" and "PCIe card, SXM profile" in m.note
    laptop = {"rtx-4060": "NVIDIA GeForce RTX 4060"}
    m = resolve_reported("NVIDIA GeForce RTX 4060 Laptop GPU", laptop)
    assert m.stem == "rtx-4060" and m.conflicts == "laptop card, desktop profile"
    assert not resolve_reported("Tesla V100-SXM2-16GB", BASE).conflicts


@pytest.mark.parametrize("reported", [
    "NVIDIA GeForce MX450", "AMD Radeon Graphics", "NVIDIA GeForce RTX 4060 Laptop GPU",
    "NVIDIA GeForce RTX 4050 Laptop GPU", "GeForce GTX 1060 with Max-Q Design", "Tesla V100S-PCIE-32GB",
    "NVIDIA GeForce RTX 5090", "GeForce GTX 1080", "Intel(R) HD Graphics 630",
])
def test_gpus_without_a_profile_get_none(reported):
    assert resolve_reported(reported, BASE) is None


def test_equally_close_profiles_are_an_error_listing_them():
    with pytest.raises(NameError_, match="equally well") as info:
        resolve_reported("NVIDIA H100", BASE)
    assert set(info.value.candidates) == {"h100-sxm", "h100-pcie"}


def test_a_compute_capability_alone():
    caps = {"a100-40gb-sxm": ("8.0", "ga100"), "a100-80gb-sxm": ("8.0", "ga100"), "t4": ("7.5", "tu104"),
            "rtx-2070": ("7.5", "tu106"), "l4": ("8.9", "ad104")}
    m = resolve_capability("8.0", caps)
    assert m.stem == "a100-40gb-sxm" and "a100-80gb-sxm" in m.note and "--device" in m.note
    assert resolve_capability("8.9", caps).stem == "l4" and "only profile" in resolve_capability("8.9", caps).note
    with pytest.raises(NameError_) as info:          # T4 and RTX 2070 compute differently
        resolve_capability("7.5", caps)
    assert set(info.value.candidates) == {"t4", "rtx-2070"}
    assert resolve_capability("12.0", caps) is None


def test_the_built_in_profiles_resolve_by_their_own_names_and_stems():
    """Whatever profiles exist: each is found by its stem and by its display
    name, and v100 stays ambiguous while both V100 profiles exist."""
    names = profile_names(builtin_profiles())
    for stem, shown in names.items():
        assert resolve_typed(stem, names).stem == stem
        assert resolve_typed(shown, names).stem == stem
        m = resolve_reported(shown, names)
        assert m is not None and m.stem == stem
    if {"v100-sxm2", "v100-pcie"} <= set(names):
        with pytest.raises(UnknownDeviceError, match=r"ambiguous: v100-pcie, v100-sxm2"):
            find_device("v100")


def test_stand_ins_in_effect_are_the_ones_without_a_profile():
    shown = {gpu: stems for gpu, stems, _ in stand_ins_in_effect(BASE)}
    assert shown["H800"] == ["h100-sxm"] and shown["GH200"] == ["h100-sxm"]
    assert shown["A100-PG509-200"] == ["a100-40gb-sxm"]
    assert shown["A800"] == ["a100-40gb-sxm", "a100-80gb-sxm"]     # told apart by the memory in the name
    assert "A10G" not in shown                                      # no A10 profile to stand in
    in_more = {gpu for gpu, _, _ in stand_ins_in_effect(MORE)}
    assert not in_more & {"H800", "GH200", "A10G"}


def test_an_h100_nvl_without_its_profile_is_neither_h100_by_name():
    """Issue 30: 'NVL' was read as PCIe, so an H100 NVL (132 SMs, 3.9 TB/s)
    went on the H100 PCIe roofs (114 SMs, 2 TB/s) without a word. Without an
    h100-nvl profile the name now fits both H100 profiles equally, and the
    trace's SM count decides (tests/test_device_from_trace.py)."""
    with pytest.raises(NameError_) as exc:
        resolve_reported("NVIDIA H100 NVL", BASE)
    assert set(exc.value.candidates) == {"h100-pcie", "h100-sxm"}
    assert resolve_reported("NVIDIA H100 PCIe 80GB", MORE).stem == "h100-pcie"


def test_a_v100_dgxs_is_taken_as_sxm2_and_the_note_says_so():
    m = resolve_reported("Tesla V100-DGXS-32GB", BASE)
    assert m is not None and m.stem == "v100-sxm2"
    assert "V100-DGXS" in m.note and "assumed" in m.note and m.conflicts
