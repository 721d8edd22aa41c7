"""Theoretical peaks from the microarchitecture, never from the ISA alone."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conftest import REALDATA
from roofline.microbench.cpu.cpuinfo import CpuInfo
from roofline.microbench.cpu.uarch import detect

AVX2 = frozenset({"avx", "avx2", "fma"})
AVX512 = AVX2 | {"avx512f"}


def info(vendor, family, model_id, flags, name="cpu", archspec=None, machine="x86_64"):
    return CpuInfo(model=name, vendor=vendor, family=family, flags=flags, machine=machine,
                   model_id=model_id, archspec_name=archspec)


@pytest.mark.parametrize("cpu, uarch, fp64, load", [
    (info("AuthenticAMD", 23, 1, AVX2, "AMD EPYC 7601"), "zen", 8, 32),          # 2 x 128-bit FMA
    (info("AuthenticAMD", 23, 49, AVX2, "AMD EPYC 7742"), "zen2", 16, 64),
    (info("AuthenticAMD", 25, 1, AVX2, "AMD EPYC 7763"), "zen3", 16, 64),
    (info("AuthenticAMD", 25, 17, AVX512, "AMD EPYC 9654"), "zen4", 16, 64),      # AVX-512 on 256-bit
    (info("AuthenticAMD", 26, 2, AVX512, "AMD EPYC 9755"), "zen5", 32, 128),
    (info("GenuineIntel", 6, 0x55, AVX512, "Intel(R) Xeon(R) Gold 6148"), "skylake_avx512", 32, 128),
    (info("GenuineIntel", 6, 0x55, AVX512, "Intel(R) Xeon(R) Silver 4114"), "skylake_avx512", 16, 128),
    (info("GenuineIntel", 6, 0x8F, AVX512, "Intel(R) Xeon(R) Platinum 8480+"), "sapphirerapids", 32, 128),
    (info("GenuineIntel", 6, 0x3F, AVX2, "Intel(R) Xeon(R) E5-2680 v3"), "haswell", 16, 64),
    (info("", None, None, frozenset(), "Neoverse-V2", archspec="neoverse_v2", machine="aarch64"),
     "neoverse_v2", 16, 48),                                                   # 4 x 128-bit FMA
])
def test_flop_and_load_per_cycle(cpu, uarch, fp64, load):
    assert cpu.uarch().name == uarch and not cpu.uarch().assumption
    assert cpu.flop_per_cycle("fp64") == fp64 and cpu.flop_per_cycle("fp32") == 2 * fp64
    assert cpu.load_bytes_per_cycle() == load


def test_unknown_cores_fall_back_to_the_isa_and_say_so():
    u = detect("CentaurHauls", 7, 1, AVX2, "VIA something")
    assert u.name == "unknown" and u.fma_pipes == 2 and u.fma_bits == 256 and "assumed" in u.assumption


def test_archspec_name_wins_over_cpuid():
    cpu = info("AuthenticAMD", 25, 1, AVX512, archspec="zen4")
    assert cpu.uarch().name == "zen4"


def test_recorded_zen_sweep_is_near_but_not_above_its_theoretical_peak():
    """The recorded Zen 1 run: the ISA-based peak put it at 27-47 %; the
    table puts one core at 8 FP64 FLOP/cycle, which is AMD's figure for
    family 17h (Software Optimization Guide #55723: two 128-bit FMA pipes,
    2 x 2 FP64 lanes x 2 FLOP), checked here against the run's own clock."""
    path = REALDATA.parent / "cpu-sweeps" / "amd-epyc-zen-2vcpu-full.yaml"
    if not path.exists():
        pytest.skip(f"{path} is not present")
    prof = yaml.safe_load(path.read_text())
    clock = prof["clocks_hz"]["core"]
    one = prof["architecture"]["single_core"]["compute"]["fp64"]["flop_s"]
    zen = info("AuthenticAMD", 23, 1, AVX2, "AMD EPYC")
    fraction = one / zen.theoretical_flop_s("fp64", clock)
    assert 0.85 < fraction <= 1.0, fraction
    # 8 FP64 FLOP per cycle per core from the guide, written out, not derived
    # from a measurement (likwid's 19.6 GFLOP/s only gives a clock if one
    # assumes the very figure being checked)
    assert zen.theoretical_flop_s("fp64", 1.0) == pytest.approx(2 * 2 * 2)


def test_the_profile_says_what_named_the_core():
    """The Emerald Rapids VM's flags lack WAITPKG, so archspec says icelake;
    the CPUID model (6/207) names it, and describe() says so."""
    emr = info("GenuineIntel", 6, 207, AVX512 | {"avx512_bf16", "amx_tile"}, archspec="icelake")
    d = emr.describe()
    assert d["microarchitecture"] == "emeraldrapids"
    assert d["microarchitecture_basis"].startswith("CPUID family 6 model 207 (emeraldrapids) over archspec")
    assert info("AuthenticAMD", 25, 17, AVX512).describe()["microarchitecture_basis"] == "CPUID family 25 model 17"
    assert info("CentaurHauls", 7, 1, AVX2).describe()["microarchitecture_basis"] == "assumed from the ISA flags"
