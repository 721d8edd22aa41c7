"""Static verification of the GPU microbenchmark kernels (no GPU needed).

Each kernel source is compiled exactly as the runtime compiles it
(``build.compile_cubin``: NVRTC through CuPy's binding, the runtime's
options, ``-ftz=true`` included) for every SASS target below, disassembled
with nvdisasm / cuobjdump from the PyPI wheels, and the timed loop is checked
against the declaration in ``roofline.microbench.gpu.kernels``: opcode counts
(so FLOP and bytes per iteration), load width and cache operator, no stray
memory instruction, no spills. Mutations of the sources (sink store removed,
body unroll halved, `#pragma unroll 1` removed) must make the check fail, or
leave the timed loop unchanged.

Needs: cupy-cuda13x, nvidia-cuda-nvrtc pinned to the CUDA 13.0 series,
nvidia-cuda-cuobjdump (and nvidia-cuda-nvdisasm, used when present). Skips
when they are missing.
"""
from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from roofline.microbench.gpu import build, sass, verify
from roofline.microbench.gpu.kernels import KERNELS, SOURCES, WORK_PER_INSTRUCTION

ARCHS = (75, 80, 86, 89, 90, 100, 120)
static = pytest.mark.gpu_static


# ---------------------------------------------------------------- toolchain

def _toolchain():
    """(nvrtc, supported archs) or a skip reason."""
    try:
        nvrtc = build.CupyNvrtc()
        supported = set(nvrtc.supported_archs())
    except Exception as exc:  # CuPy or its NVRTC library missing
        return None, f"NVRTC through CuPy is not available ({exc})"
    if sass.find_tool("cuobjdump") is None:  # disassembles, and reports registers / spills
        return None, "cuobjdump not found (pip install nvidia-cuda-cuobjdump)"
    return (nvrtc, supported), None


def _jobs():
    """(source, arch, suffix) compile jobs: every source for every target."""
    jobs = []
    for source in SOURCES:
        for suffix in sorted({k.arch_suffix for k in KERNELS if k.source == source}):
            for arch in ARCHS:
                if any(k.supports(arch) for k in KERNELS
                       if k.source == source and k.arch_suffix == suffix):
                    jobs.append((source, arch, suffix))
    return jobs


@pytest.fixture(scope="session")
def toolchain():
    tc, why = _toolchain()
    if tc is None:
        pytest.skip(why)
    return tc


@pytest.fixture(scope="session")
def verified(toolchain):
    """{(kernel, arch): result} for every declared kernel on every target,
    compiled in parallel once per session."""
    nvrtc, supported = toolchain

    def run(job):
        source, arch, suffix = job
        if arch not in supported:
            return job, None
        return job, verify.verify_source(build.kernel_source(source), source, arch, suffix,
                                         nvrtc=nvrtc)

    out = {}
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for (source, arch, suffix), result in pool.map(run, _jobs()):
            for name, r in (result or {}).items():
                out[(name, arch)] = r
    return out


CASES = [(k.name, a) for a in ARCHS for k in KERNELS if k.supports(a)]


@static
@pytest.mark.parametrize("kernel,arch", CASES, ids=[f"{k}-sm_{a}" for k, a in CASES])
def test_kernel_matches_declaration(verified, toolchain, kernel, arch):
    if arch not in toolchain[1]:
        pytest.skip(f"this NVRTC does not target sm_{arch}")
    result = verified[(kernel, arch)]
    assert result["problems"] == []
    assert result["registers"] is not None  # cuobjdump -res-usage saw the function


# ---------------------------------------------------------------- mutations

def _remove_sink(src: str) -> str:
    return re.sub(r"^.*// sink\s*$\n", "", src, flags=re.M)


def _halve(macro: str):
    def mutate(src: str) -> str:
        return re.sub(rf"^(#define {macro}) (\d+)",
                      lambda m: f"{m.group(1)} {int(m.group(2)) // 2}", src, flags=re.M)
    return mutate


def _unpin(src: str) -> str:
    return src.replace("#pragma unroll 1\n", "")


def _mutation_target(source: str) -> tuple[int, str]:
    suffixes = {k.arch_suffix for k in KERNELS if k.source == source}
    return (90, "a") if "a" in suffixes else (80, "")


MUTATIONS = [("sink", s) for s in SOURCES] + [
    (f"halve:{m}", s) for s in SOURCES
    for m in sorted({k.unroll_macro for k in KERNELS if k.source == s and k.unroll_macro})
] + [("unpin", s) for s in SOURCES]


def _mutate(kind: str, src: str) -> str:
    if kind == "sink":
        return _remove_sink(src)
    if kind == "unpin":
        return _unpin(src)
    return _halve(kind.split(":", 1)[1])(src)


def _affected(kind: str, source: str, arch: int):
    specs = [k for k in KERNELS if k.source == source and k.supports(arch) and k.has_loop]
    if kind == "sink":
        return [k for k in specs if k.needs_sink]
    if kind.startswith("halve:"):
        return [k for k in specs if k.unroll_macro == kind.split(":", 1)[1]]
    return specs


@static
@pytest.mark.parametrize("kind,source", MUTATIONS, ids=[f"{k}-{s}" for k, s in MUTATIONS])
def test_mutation_is_caught(toolchain, verified, kind, source):
    """Removing the sink store or halving the unroll must fail the check.
    Removing `#pragma unroll 1` must fail it unless the compiler leaves the
    timed loop exactly as it was (then the pragma is only a safeguard)."""
    nvrtc, supported = toolchain
    arch, suffix = _mutation_target(source)
    if arch not in supported:
        pytest.skip(f"this NVRTC does not target sm_{arch}")
    original = build.kernel_source(source)
    mutated = _mutate(kind, original)
    assert mutated != original, f"mutation {kind} changed nothing in {source}"
    result = verify.verify_source(mutated, source, arch, suffix, nvrtc=nvrtc)
    affected = _affected(kind, source, arch)
    assert affected
    for spec in affected:
        problems = result[spec.name]["problems"]
        if kind == "unpin" and not problems:
            assert result[spec.name]["counts"] == verified[(spec.name, arch)]["counts"]
            continue
        assert problems, f"{kind} on {source}: {spec.name} still passes on sm_{arch}{suffix}"


@static
@pytest.mark.parametrize("arch", [75, 120])
def test_nvdisasm_and_cuobjdump_agree(toolchain, arch):
    """Both disassembler formats (labels vs hex targets, uniform-predicate
    branches on sm_120) give the same timed-loop counts."""
    nvrtc, supported = toolchain
    if sass.find_tool("nvdisasm") is None:
        pytest.skip("nvdisasm not found (pip install nvidia-cuda-nvdisasm)")
    if arch not in supported:
        pytest.skip(f"this NVRTC does not target sm_{arch}")
    for source in ("fma.cu", "memory.cu"):
        src = build.kernel_source(source)
        a = verify.verify_source(src, source, arch, nvrtc=nvrtc, tool="nvdisasm")
        b = verify.verify_source(src, source, arch, nvrtc=nvrtc, tool="cuobjdump")
        assert {k: v["counts"] for k, v in a.items()} == {k: v["counts"] for k, v in b.items()}
        assert all(not v["problems"] for v in b.values())


# ---------------------------------------------------------------- declarations

def test_declared_work_matches_declared_opcodes():
    """Work per iteration = sum of count x work per instruction (compute) or
    of access bytes (memory), for every architecture's opcode set."""
    for spec in KERNELS:
        if not spec.has_loop:
            continue
        for arch, opcodes in spec.opcodes.items():
            if spec.unit in ("flop", "op"):
                total = sum(n * WORK_PER_INSTRUCTION[op] for op, n in opcodes.items())
                assert total == spec.work_per_iteration, (spec.name, arch)
            elif spec.unit == "byte":
                assert sum(a.bytes_per_iteration for a in spec.access) == spec.work_per_iteration
                mem = sum(n for op, n in opcodes.items() if op.split(".")[0] in verify.MEMORY_BASES)
                assert mem == sum(a.per_iteration for a in spec.access), (spec.name, arch)
            elif spec.unit == "inst":
                assert sum(opcodes.values()) / 32 == spec.work_per_iteration


def test_every_kernel_is_in_its_source():
    for spec in KERNELS:
        src = build.kernel_source(spec.source)
        assert re.search(rf'extern "C" __global__ void (__launch_bounds__\(\d+\) )?{spec.name}\(', src)
        if spec.unroll_macro:
            assert f"#define {spec.unroll_macro} " in src
        if spec.needs_sink:
            assert "// sink" in src


# ---------------------------------------------------------------- legacy targets

def _nvrtc12() -> Path | None:
    try:
        import nvidia
    except ImportError:
        return None
    for root in nvidia.__path__:
        for p in sorted(Path(root).glob("cuda_nvrtc/lib/libnvrtc.so.12*")):
            return p
    return None


@static
@pytest.mark.parametrize("arch", [52, 70])
def test_cuda12_legacy_targets_compile_without_spills(arch):
    """sm_52 (GTX 970) and sm_70 (V100) need CUDA 12 (NVRTC 12 from the
    nvidia-cuda-nvrtc-cu12 wheel). No PyPI disassembler reads their cubins
    (nvdisasm/cuobjdump 13.2+ refuse SM < 75), so only compilation with the
    runtime's options and ptxas' spill report are checked here."""
    lib = _nvrtc12()
    if lib is None:
        pytest.skip("NVRTC 12 not installed (pip install nvidia-cuda-nvrtc-cu12)")
    nvrtc = build.CtypesNvrtc(str(lib))
    for source in SOURCES:
        if not any(k.supports(arch) for k in KERNELS if k.source == source and not k.arch_suffix):
            continue
        src = build.kernel_source(source)
        compiled = build.compile_cubin(src, str(arch), name=source, nvrtc=nvrtc)
        assert compiled.cubin[:4] == b"\x7fELF"
        # Same options plus -Xptxas=-v, only to read the register/spill report.
        _, log = nvrtc.compile(src, source, build.compile_options(str(arch)) + ("-Xptxas=-v",))
        spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
        assert spills, log
        assert all(a == "0" and b == "0" for a, b in spills), log
