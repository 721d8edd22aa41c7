"""The CPU's other compute units (microbench/cpu/units.py): which a CPU has
from its flags, the theoretical peaks, the kernels' assembly, a tiny real
run of the units this machine has, and `roofline show` listing them."""
from __future__ import annotations

import importlib.util

import pytest

from roofline.core.model import Ceiling, Device, MemoryLevel
from roofline.microbench.cpu import units as U
from roofline.microbench.cpu.cpuinfo import CpuInfo, cpu_info
from roofline.microbench.timing import Samples

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")

BASE = frozenset("sse2 ssse3 sse4_1 sse4_2 avx avx2 fma f16c bmi2".split())
AVX512 = BASE | frozenset("avx512f avx512dq avx512bw avx512vl avx512cd".split())
ZEN4 = AVX512 | {"avx512_bf16", "avx512_vnni", "avx512ifma", "avx512vbmi"}
# the Emerald Rapids VM of ../shared/cpu-sweeps (README: AVX-512 F/DQ/BW/VL/FP16/BF16/VNNI, AMX)
EMR = AVX512 | {"avx512_bf16", "avx512_fp16", "avx512_vnni", "avx_vnni", "amx_tile", "amx_bf16", "amx_int8"}


def info(vendor, family, model_id, flags, archspec=None, machine="x86_64", name="cpu"):
    return CpuInfo(model=name, vendor=vendor, family=family, flags=frozenset(flags), machine=machine,
                   model_id=model_id, archspec_name=archspec)


def planned(cpu):
    return {r.key: r for r in U.plan_units(cpu.flags, cpu.uarch(), cpu.x86)}


def forms(plan):
    return {k: (r.spec.instruction if r.spec else None) for k, r in plan.items()}


# ------------------------------------------------------------------ which units, from the flags

def test_zen3_has_avx2_integer_units_only():
    p = planned(info("AuthenticAMD", 25, 1, BASE))
    assert forms(p) == {"bf16": None, "fp16": None, "int8": "vpmaddubsw ymm + vpmaddwd ymm + vpaddd ymm",
                        "int32": "vpaddd ymm", "int_scalar": "add r64, r64", "tensor_bf16": None,
                        "tensor_int8": None, "tensor_fp16": None}
    assert "lacks AVX512_BF16" in p["bf16"].skipped and "fp32 roof" in p["bf16"].skipped
    assert "lacks AVX512_FP16" in p["fp16"].skipped
    for key in ("tensor_bf16", "tensor_int8", "tensor_fp16"):
        assert "lacks AMX" in p[key].skipped
    # 2 multiply pipes x 8 lanes x 4 MACs x 2 / 2 instructions; 4 ALU pipes x 8 lanes; 4 ALUs
    assert (p["int8"].ops_per_cycle, p["int32"].ops_per_cycle, p["int_scalar"].ops_per_cycle) == (64, 32, 4)


def test_zen4_has_avx512_bf16_and_vnni_on_256_bit_pipes():
    p = planned(info("AuthenticAMD", 25, 17, ZEN4))
    assert forms(p)["bf16"] == "vdpbf16ps zmm" and forms(p)["int8"] == "vpdpbusd zmm"
    assert forms(p)["int32"] == "vpaddd zmm" and p["fp16"].skipped and p["tensor_bf16"].skipped
    # 2 FMA pipes x 8 lanes of 256 bits: a zmm instruction is two halves
    assert p["bf16"].ops_per_cycle == 2 * 8 * 2 * 2 == 64
    assert p["int8"].ops_per_cycle == 2 * 8 * 4 * 2 == 128
    assert p["int32"].ops_per_cycle == 4 * 8


def test_emerald_rapids_has_fp16_and_amx():
    cpu = info("GenuineIntel", 6, 207, EMR, archspec="icelake", name="Intel(R) Xeon(R) Processor")
    assert cpu.uarch().name == "emeraldrapids"
    p = planned(cpu)
    assert forms(p)["fp16"] == "vfmadd...ph zmm" and forms(p)["tensor_bf16"] == "tdpbf16ps tmm"
    assert forms(p)["tensor_int8"] == "tdpbusd tmm"
    assert "Granite Rapids" in p["tensor_fp16"].skipped       # AMX-FP16 is not on EMR
    assert p["bf16"].ops_per_cycle == 128 and p["fp16"].ops_per_cycle == 128
    assert p["int8"].ops_per_cycle == 256
    assert p["tensor_bf16"].ops_per_cycle == 1024 and p["tensor_int8"].ops_per_cycle == 2048
    assert p["int32"].ops_per_cycle == 2 * 16 and p["int_scalar"].ops_per_cycle == 5


def test_zen1_and_a_cpu_without_avx2():
    p = planned(info("AuthenticAMD", 23, 1, BASE))
    assert p["int8"].ops_per_cycle == 2 * 4 * 4 and p["int32"].ops_per_cycle == 3 * 4   # 128-bit pipes
    old = planned(info("GenuineIntel", 6, 0x2A, {"sse2", "avx"}))
    assert "lacks AVX512_VNNI and AVX2" in old["int8"].skipped and old["int32"].skipped
    assert old["int_scalar"].spec is not None and old["int_scalar"].ops_per_cycle is None   # unknown core


def test_a_non_x86_cpu_skips_every_unit_and_says_why():
    p = planned(info("", None, None, frozenset({"asimd", "sve", "bf16"}), archspec="neoverse_v2",
                     machine="aarch64"))
    assert all(r.skipped and "x86" in r.skipped for r in p.values())


def test_the_emerald_rapids_vm_is_no_longer_named_icelake():
    """archspec named the recorded EMR VM icelake (the VM hides WAITPKG,
    which archspec requires of sapphirerapids); the CPUID model names it."""
    from roofline.microbench.cpu.uarch import name_and_basis
    name, basis = name_and_basis("GenuineIntel", 6, 207, EMR, "icelake")
    assert name == "emeraldrapids" and "CPUID family 6 model 207" in basis and "icelake" in basis
    # archspec wins where it names a later generation than the CPUID table
    assert name_and_basis("AuthenticAMD", 25, 1, ZEN4, "zen4")[0] == "zen4"
    # and alone where the CPUID model is not in the table
    assert name_and_basis("GenuineIntel", 6, 0x99, AVX512, "cascadelake")[0] == "cascadelake"


# ------------------------------------------------------------------ assembly

LOOP_ASM = """\
f:
\tvdpbf16ps\t%zmm1, %zmm1, %zmm9
\ttestq\t%rdx, %rdx
.LBB0_2:
\tvdpbf16ps\t%zmm1, %zmm1, %zmm0
\tvdpbf16ps\t%zmm1, %zmm1, %zmm2
\tdecq\t%rdx
\tjne\t.LBB0_2
.LBB0_3:
\tvdpbf16ps\t%zmm1, %zmm1, %zmm3
\tretq
"""


def test_loop_count_counts_only_inside_a_loop():
    bf16 = next(c for c in U.CANDIDATES if c.key == "bf16")
    assert U.loop_instruction_count(LOOP_ASM, bf16.pattern) == 2
    assert U.loop_instruction_count(LOOP_ASM.replace("jne\t.LBB0_2", "jne\t.LBB0_3"), bf16.pattern) == 0
    assert U.loop_instruction_count(LOOP_ASM.replace("%zmm", "%ymm"), bf16.pattern) == 0


@needs_numba
def test_a_kernel_without_the_instruction_fails_the_assembly_check():
    """Mutation: the same loop shape with plain FP32 adds holds none of the
    units' instructions, and measure_units says so and keeps no ceiling."""
    asm = U.fresh_asm("no_unit", U._signature(U.CANDIDATES[0]))
    for spec in U.CANDIDATES:
        assert U.loop_instruction_count(asm, spec.pattern) == 0, spec.instruction


@needs_numba
def test_a_unit_whose_kernel_lacks_its_instruction_gets_no_ceiling(monkeypatch):
    from dataclasses import replace
    host = cpu_info()
    if "avx2" not in host.flags:
        pytest.skip("this CPU has no AVX2: no int32 vector kernel to swap")
    key = "int32"
    fake = [replace(c, kernel="no_unit") if c.key == key else c for c in U.CANDIDATES]
    monkeypatch.setattr(U, "CANDIDATES", tuple(fake))
    from roofline.microbench.cpu import unit_kernels as UK
    monkeypatch.setattr(UK, "no_unit_par", UK.int32_ymm_par, raising=False)
    [r] = U.measure_units(host, 1, dict(min_time_s=0.0005, repeats=1), keys=[key])
    assert r.asm_count == 0 and "holds no" in r.notes[0]
    assert U.unit_ceilings([r], 3e9, 1) == {}


# ------------------------------------------------------------------ real kernels, this machine

HOST = cpu_info()
HOST_PLAN = {r.key: r for r in U.plan_units(HOST.flags, HOST.uarch(), HOST.x86)}


@needs_numba
@pytest.mark.parametrize("key", ["bf16", "int8", "int32", "int_scalar"])
def test_real_unit_kernels_run_and_hold_their_instruction(key):
    r = HOST_PLAN[key]
    if r.skipped:
        pytest.skip(f"this CPU: {r.skipped}")
    [got] = U.measure_units(HOST, 2, dict(min_time_s=0.001, repeats=2), keys=[key])
    assert got.asm_count and got.asm_count >= 1, got.spec.instruction
    assert got.one.best > 0 and got.all.best > 0 and len(got.one.rates) == 2


@needs_numba
def test_integer_kernels_compute_what_they_say():
    """The results are the adds and multiply-adds done, so nothing was folded
    away: 8 chains x 4 adds of (seed | 1) per iteration; vpdpbusd adds
    3*3 + 1 + 1 + 1 (bytes of seed | 0x01010101, seed 3) per lane per iteration."""
    from roofline.microbench.cpu import unit_kernels as UK
    n, seed = 1000, 3
    assert UK.scalar_add(n, seed) == sum(seed + k for k in range(8)) + 8 * 4 * n * (seed | 1)
    if HOST_PLAN["int8"].spec and HOST_PLAN["int8"].spec.kernel == "int8_vnni_zmm":
        assert UK.int8_vnni_zmm(n, seed) == sum(16 * (k + 12 * n) for k in range(12))


@needs_numba
def test_amx_and_fp16_kernels_compile_for_a_cpu_that_has_them():
    """Statically verified only: compiled for Granite Rapids in a fresh
    process, never run (this machine may have no AMX)."""
    names = ["amx_bf16", "amx_int8", "amx_fp16", "fp16_zmm"]
    counts = U.static_asm_counts(names)
    assert all(counts[k] >= 4 for k in names), counts


@needs_numba
def test_the_avx2_int8_form_keeps_its_three_instructions_on_zen3():
    """Compiled for znver3 (no VNNI), statically: here, with VNNI, LLVM
    fuses vpmaddwd + vpaddd into vpdpwssd, so the host compile shows
    nothing of the form Zen 1-3 run."""
    counts = U.static_asm_counts(["int8_maddubs_ymm", "int32_ymm", "scalar_add"], cpu="znver3",
                                 features="+avx,+avx2,+fma,+bmi2,+sse4.2")
    assert counts["int8_maddubs_ymm"] >= 12 and counts["int32_ymm"] >= 12 and counts["scalar_add"] == 32


def test_amx_is_skipped_when_the_os_refuses_it(monkeypatch):
    monkeypatch.setattr(U, "request_amx_permission", lambda: "the OS refused AMX tile data (test)")
    emr = info("GenuineIntel", 6, 207, EMR)
    [r] = U.measure_units(emr, 1, dict(min_time_s=0.001, repeats=1), keys=["tensor_bf16"])
    assert r.skipped == "the OS refused AMX tile data (test)" and r.one is None


# ------------------------------------------------------------------ into the profile

def _result(key, one, allc, per_cycle, count=12):
    spec = next(c for c in U.CANDIDATES if c.key == key)
    return U.UnitResult(key, spec, per_cycle, "table", Samples((one,)), Samples((allc, allc * 0.9)), count)


def test_ceilings_and_architecture_from_results():
    res = [_result("bf16", 200e9, 380e9, 64.0), _result("int_scalar", 14e9, 28e9, 4.0),
           _result("int32", 120e9, 100e9, 32.0),
           U.UnitResult("tensor_bf16", None, skipped=U.ABSENT["tensor_bf16"])]
    ceilings = U.unit_ceilings(res, 3.5e9, 2)
    assert set(ceilings) == {"bf16", "int32"}                 # int_scalar has no ceiling key
    assert ceilings["bf16"].value == 380e9 and ceilings["bf16"].theoretical == 64 * 3.5e9 * 2
    assert ceilings["int32"].value == 120e9 and "one core's best" in ceilings["int32"].source
    assert "vdpbf16ps zmm" in ceilings["bf16"].source
    arch = U.unit_architecture(res, 3.5e9, 2)
    assert arch["tensor_bf16"] == {"skipped": U.ABSENT["tensor_bf16"]}
    assert arch["bf16"]["theoretical_one_core"] == 64 * 3.5e9 and arch["bf16"]["asm_count_in_loop"] == 12
    assert arch["int_scalar"]["one_core"]["best"] == 14e9


def _profile_with_units() -> Device:
    clock, threads = 3.5e9, 2
    res = [_result("bf16", 220e9, 440e9, 64.0), _result("int_scalar", 14e9, 28e9, 4.0),
           U.UnitResult("tensor_bf16", None, skipped=U.ABSENT["tensor_bf16"])]
    compute = {"fp64": Ceiling(110e9, (110e9,), theoretical=112e9), **U.unit_ceilings(res, clock, threads)}
    return Device(name="cpu-with-units", kind="cpu", compute=compute,
                  memory={"DRAM": MemoryLevel("DRAM", Ceiling(30e9, (30e9,)))},
                  architecture={"units": U.unit_architecture(res, clock, threads)},
                  provenance={"method": "measured"})


def test_show_lists_each_unit_with_measured_theoretical_and_skips(tmp_path, capsys):
    from roofline.cli.main import main
    from roofline.devices.profile import save_device
    path = save_device(_profile_with_units(), tmp_path / "cpu-with-units.yaml")
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    bf16 = next(line for line in out.splitlines() if line.strip().startswith("bf16") and "vdpbf16ps" in line)
    # all cores 440 of 448 GFLOP/s (98 %), one core 220 of 224 (98 %)
    assert "440 GFLOP/s of 448 GFLOP/s (98%)" in bf16 and "220 GFLOP/s of 224 GFLOP/s (98%)" in bf16
    scalar = next(line for line in out.splitlines() if "add r64, r64" in line)
    assert "28 Gops/s of 28 Gops/s (100%)" in scalar
    assert "tensor_bf16  skipped: the CPU lacks AMX-BF16" in out


def test_show_of_a_profile_without_units_adds_nothing():
    from roofline.cli.devices import units_table
    dev = _profile_with_units()
    from dataclasses import replace
    assert units_table(replace(dev, architecture={})) == ""
    assert units_table(replace(dev, architecture={"units": {"bf16": "junk", "x\x1b[2J": {"skipped": "a\x1b"}}})) \
        .count("\x1b") == 0


def test_a_kernel_that_fails_to_build_costs_only_its_unit(monkeypatch):
    def broken(*a, **kw):
        raise RuntimeError("LLVM ERROR: Cannot select intrinsic")
    monkeypatch.setattr(U, "_measure_one", broken)
    res = U.measure_units(info("AuthenticAMD", 25, 17, ZEN4), 1, {}, keys=["bf16", "fp16"])
    by = {r.key: r for r in res}
    assert "vdpbf16ps zmm kernel failed" in by["bf16"].skipped and "Cannot select" in by["bf16"].skipped
    assert "lacks AVX512_FP16" in by["fp16"].skipped


def test_fma_entries_list_fp64_and_fp32_beside_the_units():
    zen4 = info("AuthenticAMD", 25, 17, ZEN4)
    one = {"fp64": Samples((58e9,)), "fp32": Samples((116e9,))}
    allc = {"fp64": Samples((115e9,)), "fp32": Samples((230e9,))}
    e = U.fma_unit_entries(zen4, one, allc, {"fp64": {"ymm": 0, "zmm": 14}, "fp32": {"ymm": 0, "zmm": 14}},
                           3.6e9, 2)
    assert e["fp64"]["instruction"] == "vfmadd...pd zmm" and e["fp64"]["asm_count_in_loop"] == 14
    assert e["fp32"]["theoretical_all_cores"] == 32 * 3.6e9 * 2 and e["fp32"]["one_core"]["best"] == 116e9
