"""Every compute unit of the CPU beyond the FP64/FP32 FMA: which this CPU
has, a kernel that reaches each (:mod:`.unit_kernels`), its one-core and
all-core rates, the instruction, the work one instruction does, and the
theoretical peak (:func:`.uarch.unit_ops_per_cycle`).

The choice of units depends only on the flags of ``/proc/cpuinfo`` (given
as data: :func:`plan_units` runs on any CPU's flags, so tests inject a
Zen 3's or an Emerald Rapids'); a unit the CPU lacks is returned skipped
with the reason, and its kernel is never compiled or run (an AVX-512 BF16
or AMX instruction on a CPU without it is an illegal instruction).

Ceiling keys (``roofline.core.model.PRECISIONS``) and what one op is:

* ``bf16``: FLOP of ``vdpbf16ps`` (2 bf16 multiply-adds per fp32 lane,
  2 FLOP each); ``fp16``: FLOP of ``vfmadd...ph``;
* ``int8``: int8 ops, 2 per multiply-add as FLOP counts them
  (``vpdpbusd``: 4 multiply-adds per 32-bit lane);
* ``int32``: vector integer ops, one 32-bit lane add each (``vpaddd``);
* ``tensor_bf16`` / ``tensor_int8`` / ``tensor_fp16``: AMX tile
  multiply-adds (``tdpbf16ps``, ``tdpbusd``, ``tdpfp16ps``), 2 per MAC;
* ``int_scalar`` (no ceiling key; kept in ``architecture["units"]``):
  scalar 64-bit integer adds, the scalar half of Advisor's integer roofline.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from ...core.model import Ceiling
from ..timing import Samples, measure
from .attempts import roof_at_least, scaling
from .attempts import steady as again
from .uarch import Uarch, unit_ops_per_cycle

AMX_MACS = 16 * 16 * 32          # one tdpbf16ps/tdpfp16ps on 16x64-byte tiles: C 16x16 += A 16x32 . B 32x16
AMX_INT8_MACS = 16 * 16 * 64     # one tdpbusd: K = 64 bytes


@dataclass(frozen=True)
class UnitSpec:
    """One way to reach a unit: the flags it needs and the kernel that uses it."""

    key: str                 # compute ceiling key (or "int_scalar")
    unit: str                # what the hardware unit is called
    flags: tuple[str, ...]   # /proc/cpuinfo flags, all required
    instruction: str         # as an assembler writes it
    pattern: str             # regex of the instruction in the kernel's assembly
    kernel: str              # unit_kernels function name (its *_par twin runs all cores)
    ops_per_instruction: float
    instructions_per_rep: int
    op: str                  # what one op is
    method: str              # how the kernel was built
    rate_kind: str           # unit_ops_per_cycle's name for it
    amx: bool = False


_INTRINSIC = "numba @intrinsic writing the loop in LLVM IR around {}"
_VEC = 12   # unit_kernels.ACCUMULATORS (not imported: importing it starts numba)

CANDIDATES: tuple[UnitSpec, ...] = (
    UnitSpec("bf16", "AVX-512 BF16", ("avx512_bf16",), "vdpbf16ps zmm", r"vdpbf16ps\s[^\n]*%zmm",
             "bf16_zmm", 16 * 2 * 2, _VEC, "FLOP (2 per bf16 multiply-add)",
             _INTRINSIC.format("llvm.x86.avx512bf16.dpbf16ps.512"), "dp_bf16"),
    UnitSpec("fp16", "AVX-512 FP16", ("avx512_fp16",), "vfmadd...ph zmm", r"vf\w*madd\w*ph\s[^\n]*%zmm",
             "fp16_zmm", 32 * 2, _VEC, "FLOP (2 per fp16 multiply-add)",
             _INTRINSIC.format("llvm.fma.v32f16"), "fma_fp16"),
    UnitSpec("int8", "AVX-512 VNNI", ("avx512_vnni",), "vpdpbusd zmm", r"vpdpbusd\s[^\n]*%zmm",
             "int8_vnni_zmm", 16 * 4 * 2, _VEC, "int8 op (2 per u8 x s8 multiply-add)",
             _INTRINSIC.format("llvm.x86.avx512.vpdpbusd.512"), "dp_int8"),
    UnitSpec("int8", "AVX2 integer multiply (no VNNI)", ("avx2",), "vpmaddubsw ymm + vpmaddwd ymm + vpaddd ymm",
             r"vpmaddubsw\s[^\n]*%ymm", "int8_maddubs_ymm", 8 * 4 * 2, _VEC,
             "int8 op (2 per u8 x s8 multiply-add; 3 instructions per 32 multiply-adds)",
             _INTRINSIC.format("llvm.x86.avx2.pmadd.ub.sw and llvm.x86.avx2.pmadd.wd"), "maddubs_int8"),
    UnitSpec("int32", "AVX-512 integer ALU", ("avx512f",), "vpaddd zmm", r"vpaddd\s[^\n]*%zmm",
             "int32_zmm", 16, _VEC, "integer op (one 32-bit lane add)",
             _INTRINSIC.format("an add of <16 x i32>"), "add_int32"),
    UnitSpec("int32", "AVX2 integer ALU", ("avx2",), "vpaddd ymm", r"vpaddd\s[^\n]*%ymm",
             "int32_ymm", 8, _VEC, "integer op (one 32-bit lane add)",
             _INTRINSIC.format("an add of <8 x i32>"), "add_int32"),
    UnitSpec("int_scalar", "scalar integer ALU", (), "add r64, r64", r"^\s*addq\s+%r\w+,\s*%r\w+",
             "scalar_add", 1, 32, "integer op (one 64-bit add)",
             "numba @intrinsic, one inline-asm add per op (LLVM folds or vectorises plain adds)",
             "add_scalar"),
    UnitSpec("tensor_bf16", "AMX-BF16", ("amx_tile", "amx_bf16"), "tdpbf16ps tmm", r"tdpbf16ps\s",
             "amx_bf16", 2 * AMX_MACS, 4, "FLOP (2 per bf16 multiply-add)",
             _INTRINSIC.format("llvm.x86.tdpbf16ps (ldtilecfg, tileloadd64, tilestored64)"), "amx_bf16",
             amx=True),
    UnitSpec("tensor_int8", "AMX-INT8", ("amx_tile", "amx_int8"), "tdpbusd tmm", r"tdpbusd\s",
             "amx_int8", 2 * AMX_INT8_MACS, 4, "int8 op (2 per multiply-add)",
             _INTRINSIC.format("llvm.x86.tdpbusd (ldtilecfg, tileloadd64, tilestored64)"), "amx_int8",
             amx=True),
    UnitSpec("tensor_fp16", "AMX-FP16", ("amx_tile", "amx_fp16"), "tdpfp16ps tmm", r"tdpfp16ps\s",
             "amx_fp16", 2 * AMX_MACS, 4, "FLOP (2 per fp16 multiply-add)",
             _INTRINSIC.format("llvm.x86.tdpfp16ps (ldtilecfg, tileloadd64, tilestored64)"), "amx_fp16",
             amx=True),
)

# Why a unit is absent, by key (said when no candidate's flags are present).
ABSENT = {
    "bf16": "the CPU lacks AVX512_BF16 (no vdpbf16ps): BF16 work is converted and runs on the FP32 FMA "
            "units (the fp32 roof)",
    "fp16": "the CPU lacks AVX512_FP16 (F16C only converts): FP16 work runs on the FP32 FMA units "
            "(the fp32 roof)",
    "int8": "the CPU lacks AVX512_VNNI and AVX2: no vector int8 multiply-add form here",
    "int32": "the CPU lacks AVX2 and AVX-512: no 256/512-bit vector integer unit",
    "int_scalar": "",
    "tensor_bf16": "the CPU lacks AMX-BF16 (amx_tile, amx_bf16): no matrix unit; tensor_bf16 work runs "
                   "at the bf16 roof",
    "tensor_int8": "the CPU lacks AMX-INT8 (amx_tile, amx_int8): no matrix unit; tensor_int8 work runs "
                   "at the int8 roof",
    "tensor_fp16": "the CPU lacks AMX-FP16 (amx_tile, amx_fp16; Granite Rapids and later): tensor_fp16 "
                   "work runs at the fp16 roof",
}
KEYS = tuple(dict.fromkeys(c.key for c in CANDIDATES))


@dataclass(frozen=True)
class UnitResult:
    """One unit: measured (``one``/``all`` set) or skipped (``skipped`` says why)."""

    key: str
    spec: UnitSpec | None
    ops_per_cycle: float | None = None     # theoretical, per core
    theoretical_basis: str = ""
    one: Samples | None = None
    all: Samples | None = None
    asm_count: int | None = None           # the instruction in the timed loop, fresh compile
    skipped: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def measured(self) -> bool:
        return self.one is not None and not self.skipped


def plan_units(flags: Iterable[str], uarch: Uarch, x86: bool = True) -> list[UnitResult]:
    """The form of each unit this CPU's flags allow (first candidate whose
    flags are all present), or a skipped result with the reason."""
    flags = frozenset(flags)
    out = []
    for key in KEYS:
        if not x86:
            out.append(UnitResult(key, None, skipped="no kernel for this ISA: the unit kernels are x86 "
                                                     "(NEON/SVE/SME forms are not built; not measured)"))
            continue
        spec = next((c for c in CANDIDATES if c.key == key and all(f in flags for f in c.flags)), None)
        if spec is None:
            out.append(UnitResult(key, None, skipped=ABSENT[key]))
            continue
        per_cycle, basis = unit_ops_per_cycle(uarch, spec.rate_kind, _kernel_bits(spec))
        out.append(UnitResult(key, spec, per_cycle, basis))
    return out


def _kernel_bits(spec: UnitSpec) -> int:
    return 512 if "zmm" in spec.instruction else 256 if "ymm" in spec.instruction else 64


# ------------------------------------------------------------------ assembly

_LABEL = re.compile(r"^(\.?L\w+):", re.M)
_JUMP = re.compile(r"^\s*j\w+\s+(\.?L\w+)\s*$", re.M)


def loop_instruction_count(asm: str, pattern: str) -> int:
    """How often ``pattern`` occurs inside the busiest loop of ``asm`` (the
    lines from a label to a backward jump to it): the instruction must be
    in the timed loop, not only in setup or remainder code."""
    rx = re.compile(pattern, re.M)
    labels = {m.group(1): m.end() for m in _LABEL.finditer(asm)}
    best = 0
    for j in _JUMP.finditer(asm):
        start = labels.get(j.group(1))
        if start is not None and start < j.start():
            best = max(best, len(rx.findall(asm[start:j.start()])))
    return best


def _signature(spec: UnitSpec, parallel: bool = False):
    from numba import types
    extra = (types.int64,) if parallel else ()
    if spec.amx:
        arr = types.Array(types.uint8, 1, "C")
        return (types.int64, arr, arr, arr) + extra
    return (types.int64, types.int64) + extra


def fresh_asm(kernel_name: str, signature) -> str:
    """Assembly of an uncached twin of a unit kernel (numba shows none for
    code loaded from its cache). Compiles only: nothing runs."""
    import numba

    from . import unit_kernels as UK
    k = getattr(UK, kernel_name)
    twin = numba.njit(parallel=bool(k.targetoptions.get("parallel", False)))(k.py_func)
    twin.compile(signature)
    return "\n".join(twin.inspect_asm().values())


def asm_count(spec: UnitSpec) -> int:
    return loop_instruction_count(fresh_asm(spec.kernel, _signature(spec)), spec.pattern)


# ------------------------------------------------------------------ AMX permission

ARCH_REQ_XCOMP_PERM = 0x1023
XFEATURE_XTILEDATA = 18
SYS_ARCH_PRCTL = 158     # x86_64


def request_amx_permission() -> str:
    """Ask Linux for the AMX tile data state (needed before the first tile
    instruction, else SIGILL). Returns "" when granted, else the reason."""
    import ctypes
    import os
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        rc = libc.syscall(SYS_ARCH_PRCTL, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)
    except (OSError, AttributeError) as exc:
        return f"could not call arch_prctl: {exc}"
    if rc != 0:
        err = ctypes.get_errno()
        return f"the OS refused AMX tile data (arch_prctl ARCH_REQ_XCOMP_PERM: {os.strerror(err)})"
    return ""


# ------------------------------------------------------------------ measuring

Steady = Callable[[Callable[[], Samples], str], Samples]


def measure_units(info, threads: int, meas_kwargs: dict, retries: int = 0, *,
                  repeated: dict | None = None, settle: Callable[[], object] | None = None,
                  steady: Steady | None = None, check_asm: bool = True,
                  clock_hz: float = 5e9, keys: Iterable[str] | None = None) -> list[UnitResult]:
    """Plan the units from ``info`` (a :class:`.cpuinfo.CpuInfo`), then time
    each present one on one core and on ``threads`` pinned threads.

    ``meas_kwargs``: :func:`..timing.measure` options (min_time_s, repeats,
    clock...). ``steady(take, what)``: how a noisy figure is measured again
    (default: :func:`.attempts.steady` with ``retries`` and ``settle``,
    recording retried figures in ``repeated`` as measure.py does for its
    own); an all-core figure below 1.5x one core's is taken again after
    ``settle`` (:func:`.attempts.scaling`), as the FMA ones are.
    ``clock_hz``: an upper bound of the clock, for where calibration starts.
    ``keys``: only these units (tests). Must run after
    ``configure_numba_environment`` like the other kernels.
    """
    planned = plan_units(info.flags, info.uarch(), info.x86)
    wanted = set(keys) if keys is not None else None
    log = repeated if repeated is not None else {}
    if steady is None:
        steady = lambda take, what: again(take, retries, what, log, settle)   # noqa: E731

    def all_cores(take, one_best, what):
        return scaling(lambda: steady(take, what), one_best, threads, retries, settle, what + ", scaling", log)
    out = []
    for r in planned:
        if wanted is not None and r.key not in wanted:
            continue
        if r.skipped:
            out.append(r)
            continue
        try:
            out.append(_measure_one(r, threads, meas_kwargs, steady, all_cores, check_asm, clock_hz))
        except Exception as exc:   # noqa: BLE001 - numba/LLVM errors have no common base
            # a kernel LLVM cannot build here (an llvmlite release without the
            # intrinsic) costs that unit, not the whole calibration
            from dataclasses import replace
            out.append(replace(r, skipped=f"the {r.spec.instruction} kernel failed to build or run: "
                                          f"{type(exc).__name__}: {str(exc)[:300]}"))
    return out


def _measure_one(r: UnitResult, threads: int, meas: dict, steady: Steady, all_cores, check_asm: bool,
                 clock_hz: float) -> UnitResult:
    from dataclasses import replace

    from . import unit_kernels as UK
    spec = r.spec
    if spec.amx:
        refused = request_amx_permission()
        if refused:
            return replace(r, skipped=refused)
    one_k, all_k = getattr(UK, spec.kernel), getattr(UK, spec.kernel + "_par")
    if spec.amx:
        cfg, data, out = UK.amx_buffers(threads)
        one_call = lambda n: one_k(n, cfg, data, out[:out.size // threads])   # noqa: E731
        all_call = lambda n: all_k(n, cfg, data, out, threads)                 # noqa: E731
    else:
        one_call = lambda n: one_k(n, 3)              # noqa: E731
        all_call = lambda n: all_k(n, 3, threads)     # noqa: E731
    per_rep = spec.ops_per_instruction * spec.instructions_per_rep
    one_call(1)
    all_call(1)      # compile or load numba's cache before timing
    count = asm_count(spec) if check_asm else None
    notes = ()
    if count == 0:
        notes = (f"the compiled kernel holds no {spec.instruction} in its loop: the figure is not "
                 f"this unit's",)
    upper = (r.ops_per_cycle or 256.0) * clock_hz
    min_time = meas.get("min_time_s", 0.01)

    def start(n):
        return max(1, int(0.25 * min_time * upper * n / (per_rep * n)))
    one = steady(lambda: measure(one_call, per_rep, **meas, start=start(1)), f"{r.key} one core")
    allc = all_cores(lambda: measure(all_call, per_rep * threads, **meas, start=start(threads)), one.best,
                     f"{r.key} {threads} cores")
    return replace(r, one=one, all=allc, asm_count=count, notes=notes)


# ------------------------------------------------------------------ into the profile

def unit_ceilings(results: list[UnitResult], clock_hz: float, threads: int) -> dict[str, Ceiling]:
    """The compute ceilings of the measured units (``int_scalar`` has no
    key): the all-core best sample, never below one core's."""
    out = {}
    for r in results:
        if not r.measured or r.key == "int_scalar" or r.asm_count == 0:
            continue
        value, floored = roof_at_least(r.all.best, r.one.best)
        theo = None if r.ops_per_cycle is None else r.ops_per_cycle * clock_hz * threads
        out[r.key] = Ceiling(
            value=value, samples=r.all.rates, theoretical=theo, clock_hz=clock_hz,
            source=f"{r.spec.instruction}, {r.spec.unit}; {r.spec.method}; one op = {r.spec.op}; "
                   f"{threads} pinned threads" + ("; one core's best, as all cores read less" if floored else ""))
    return out


def unit_architecture(results: list[UnitResult], clock_hz: float, threads: int) -> dict:
    """``architecture["units"]``: per unit the instruction, how it was built,
    the one-core and all-core figures, the theoretical peak and its basis,
    or the reason it was skipped."""
    out = {}
    for r in results:
        if r.skipped or r.spec is None:
            out[r.key] = {"skipped": r.skipped}
            continue
        s = r.spec
        entry = {
            "unit": s.unit, "instruction": s.instruction, "method": s.method, "op": s.op,
            "ops_per_instruction": s.ops_per_instruction, "asm_count_in_loop": r.asm_count,
            "theoretical_ops_per_cycle_per_core": r.ops_per_cycle,
            "theoretical_basis": r.theoretical_basis,
            "theoretical_one_core": _at(r.ops_per_cycle, clock_hz, 1),
            "theoretical_all_cores": _at(r.ops_per_cycle, clock_hz, threads),
        }
        if r.measured:
            entry["one_core"] = _figures(r.one)
            entry["all_cores"] = _figures(r.all)
        if r.notes:
            entry["notes"] = list(r.notes)
        out[r.key] = entry
    return out


def fma_unit_entries(info, one: dict, allc: dict, asm: dict, clock_hz: float, threads: int) -> dict:
    """``architecture["units"]`` entries for the FP64/FP32 FMA figures that
    measure.py takes (``one``/``allc``: Samples by precision; ``asm``: its
    ymm/zmm FMA counts), so every unit is listed in one place."""
    out = {}
    for p in ("fp64", "fp32"):
        if p not in one:
            continue
        counts = asm.get(p, {})
        reg = "zmm" if counts.get("zmm") else "ymm" if counts.get("ymm") else "?"
        per_cycle = info.flop_per_cycle(p)
        out[p] = {
            "unit": "FMA", "instruction": f"vfmadd...p{'d' if p == 'fp64' else 's'} {reg}",
            "method": "numba loop over 14 vector accumulators (fastmath)",
            "op": "FLOP (2 per multiply-add)", "asm_count_in_loop": sum(counts.values()) if counts else None,
            "theoretical_ops_per_cycle_per_core": per_cycle,
            "theoretical_basis": f"{info.fma_pipes} FMA pipes x {info.fma_pipe_bits} bits ({info.uarch().name})",
            "theoretical_one_core": _at(per_cycle, clock_hz, 1),
            "theoretical_all_cores": _at(per_cycle, clock_hz, threads),
            "one_core": _figures(one[p]), "all_cores": _figures(allc[p]),
        }
    return out


def _at(per_cycle, clock_hz, cores):
    return None if per_cycle is None or not math.isfinite(clock_hz) else per_cycle * clock_hz * cores


def _figures(s: Samples) -> dict:
    return {"best": s.best, "median": s.median, "spread": round(s.spread, 6), "samples": list(s.rates)}


# ------------------------------------------------------------------ static verification

STATIC_CPU = "graniterapids"
STATIC_FEATURES = ("+avx512f,+avx512dq,+avx512bw,+avx512vl,+avx512bf16,+avx512fp16,+avx512vnni,"
                   "+amx-tile,+amx-bf16,+amx-int8,+amx-fp16")


def static_asm_counts(kernels: Iterable[str], cpu: str = STATIC_CPU, features: str = STATIC_FEATURES,
                      timeout: float = 300.0) -> dict[str, int]:
    """Compile the unit kernels named (``UnitSpec.kernel``) for another CPU
    (LLVM's ``cpu`` with ``features``) in a fresh process and count each
    one's instruction in its loop. Nothing is executed: this is how the AMX
    and AVX512-FP16 kernels are checked on a machine without them, and the
    AVX2 int8 form on one with VNNI (where LLVM fuses its vpmaddwd + vpaddd
    into vpdpwssd). The child has a numba cache of its own, so the host's
    cache never holds foreign code."""
    import json
    import os
    import subprocess
    import sys
    import tempfile
    names = [k for k in kernels if any(c.kernel == k for c in CANDIDATES)]
    code = ("import json, sys\n"
            "from roofline.microbench.cpu import units as U\n"
            "by_kernel = {c.kernel: c for c in U.CANDIDATES}\n"
            "out = {}\n"
            "for name in json.loads(sys.argv[1]):\n"
            "    spec = by_kernel[name]\n"
            "    out[name] = U.loop_instruction_count(U.fresh_asm(name, U._signature(spec)), spec.pattern)\n"
            "print(json.dumps(out))\n")
    with tempfile.TemporaryDirectory(prefix="roofline-static-") as cache:
        env = {**os.environ, "NUMBA_CPU_NAME": cpu, "NUMBA_CPU_FEATURES": features, "NUMBA_CACHE_DIR": cache}
        proc = subprocess.run([sys.executable, "-c", code, json.dumps(names)],
                              env=env, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"static compile for {cpu} failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])
