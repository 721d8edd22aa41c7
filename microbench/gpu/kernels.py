"""What every GPU microbenchmark kernel does, declared once.

For each kernel: the ceiling it measures, the work (FLOP, integer ops,
bytes or warp instructions) per timed-loop iteration per thread, the SASS
opcodes expected inside the timed loop (per architecture where they differ),
its memory accesses (width, cache operator), and the formula from launch
parameters to total work. ``tests/test_gpu_static.py`` compiles the sources
with the runtime's options, disassembles them and checks the loop against
these declarations; ``runner.py`` uses the same numbers to turn times into
rates.

Work per SASS instruction, per thread (lane), in :data:`WORK_PER_INSTRUCTION`
ties the two together: the declared work per iteration must equal the sum of
count x work over the expected opcodes (a unit test checks that), so a
verified opcode count is a verified FLOP (or byte) count.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

# FLOP (or integer ops) per thread for one SASS instruction. Warp-level
# matrix instructions do their FLOP per warp (32 threads) or warpgroup (128).
WORK_PER_INSTRUCTION: Mapping[str, float] = MappingProxyType({
    "DFMA": 2, "FFMA": 2, "FFMA2": 4, "HFMA2": 4, "HFMA2.BF16_V2": 4, "IMAD": 2,
    "HMMA.16816.F32": 2 * 16 * 8 * 16 / 32,        # mma m16n8k16 f16 -> f32
    "HMMA.16816.F32.BF16": 2 * 16 * 8 * 16 / 32,   # mma m16n8k16 bf16 -> f32
    "HMMA.1688.F32": 2 * 16 * 8 * 8 / 32,          # mma m16n8k8 f16 -> f32 (sm_75)
    "HMMA.1688.F32.TF32": 2 * 16 * 8 * 8 / 32,     # mma m16n8k8 tf32 -> f32
    "IMMA.16832.S8.S8": 2 * 16 * 8 * 32 / 32,      # mma m16n8k32 s8 -> s32
    "HGMMA.64x128x16.F32": 2 * 64 * 128 * 16 / 128,  # wgmma m64n128k16, per warpgroup
})

# Opcodes that stand for several instructions of another (sm_100 pairs FFMAs).
WIDE_OPCODES: Mapping[str, tuple[str, int]] = MappingProxyType({"FFMA2": ("FFMA", 2)})


@dataclass(frozen=True)
class Access:
    """One kind of memory instruction in the timed loop."""

    space: str        # "global" or "shared"
    op: str           # "load" or "store"
    width_bytes: int  # per thread per instruction
    cache: str        # PTX cache operator: "" (default), "cg" (L2 only), "ca" (L1)
    per_iteration: int

    @property
    def bytes_per_iteration(self) -> int:
        return self.width_bytes * self.per_iteration


def _frozen(m):
    return MappingProxyType({k: (MappingProxyType(dict(v)) if isinstance(v, Mapping) else v)
                             for k, v in dict(m).items()})


@dataclass(frozen=True)
class KernelSpec:
    """A microbenchmark kernel and its declared behaviour.

    ``opcodes`` maps a SASS architecture number to the opcode counts expected
    in one timed-loop iteration, valid from that architecture upwards (the
    entry with the greatest key not above the target applies). Opcodes are
    compared up to the modifiers in ``verify.IGNORED_MODIFIERS`` (FTZ, MMA).
    ``work_per_iteration`` is per thread: FLOP or integer ops (compute),
    bytes (memory), warp instructions / 32 (instruction rate).
    """

    name: str
    source: str
    ceiling: str          # Device key: "fp32", "tensor_fp16", "DRAM", "shared", "inst", "launch"
    unit: str             # "flop", "op", "byte", "inst", "launch"
    work_per_iteration: float
    opcodes: Mapping[int, Mapping[str, int]] = field(default_factory=dict)
    slack: Mapping[str, int] = field(default_factory=dict)  # extra loop bookkeeping allowed
    access: tuple[Access, ...] = ()
    block: int = 256
    archs: tuple[int, ...] | None = None  # None: every target from min_arch
    min_arch: int = 52                    # runs from here; SASS is verified from sm_75
    arch_suffix: str = ""                 # "a" for arch-specific features (wgmma)
    unroll_macro: str = ""                # #define that sets the loop-body unroll
    needs_sink: bool = True               # the loop must vanish without the sink store
    max_overhead: int | None = None       # non-declared instructions allowed in the loop
    elements_per_iteration: int = 0       # 16-byte vectors per thread per iteration (streams)
    signature: tuple[str, ...] = ()       # kernel parameters, by role (runner.py fills them)
    has_loop: bool = True

    def __post_init__(self):
        object.__setattr__(self, "opcodes", _frozen(self.opcodes))
        object.__setattr__(self, "slack", _frozen(self.slack))

    def supports(self, arch: int) -> bool:
        if self.archs is not None:
            return arch in self.archs
        return arch >= self.min_arch

    def expected_opcodes(self, arch: int) -> dict[str, int]:
        keys = [k for k in self.opcodes if k <= arch]
        return dict(self.opcodes[max(keys)]) if keys else {}

    def total_work(self, grid: int, block: int, iterations: int) -> float:
        """FLOP / ops / bytes / warp instructions of one launch."""
        return float(iterations) * grid * block * self.work_per_iteration

    def stream_length(self, grid: int, block: int, iterations: int) -> int:
        """``n4`` argument of a grid-stride kernel: 16-byte vectors covered."""
        return iterations * self.elements_per_iteration * grid * block


# ------------------------------------------------------------ declarations

_FMA = 8 * 64       # FMA_CHAINS x FMA_UNROLL instructions per iteration
_MMA = 8 * 8        # MMA_CHAINS x MMA_UNROLL
_COMPUTE_SIG = ("sink", "a", "b", "iters", "magic")
_MMA_SIG = ("sink", "a_bits", "iters", "magic")
_G16 = 16           # bytes per uint4 access
_STREAM = 4         # MEM_UNROLL


def _ld(cache="", space="global"):
    return Access(space, "load", _G16, cache, _STREAM)


def _st():
    return Access("global", "store", _G16, "", _STREAM)


KERNELS: tuple[KernelSpec, ...] = (
    KernelSpec("peak_fp64", "fma.cu", "fp64", "flop", 2 * _FMA, {75: {"DFMA": _FMA}},
               unroll_macro="FMA_UNROLL", max_overhead=16, signature=_COMPUTE_SIG),
    KernelSpec("peak_fp32", "fma.cu", "fp32", "flop", 2 * _FMA, {75: {"FFMA": _FMA}},
               unroll_macro="FMA_UNROLL", max_overhead=16, signature=_COMPUTE_SIG),
    KernelSpec("peak_fp16", "fma.cu", "fp16", "flop", 4 * _FMA, {75: {"HFMA2": _FMA}},
               min_arch=53, unroll_macro="FMA_UNROLL", max_overhead=16, signature=_COMPUTE_SIG),
    KernelSpec("peak_bf16", "fma.cu", "bf16", "flop", 4 * _FMA, {80: {"HFMA2.BF16_V2": _FMA}},
               min_arch=80, unroll_macro="FMA_UNROLL", max_overhead=16, signature=_COMPUTE_SIG),
    KernelSpec("peak_int32", "fma.cu", "int32", "op", 2 * _FMA, {75: {"IMAD": _FMA}},
               unroll_macro="FMA_UNROLL", max_overhead=16, signature=_COMPUTE_SIG),
    # 8 chains x MIX_UNROLL 32 = 256 FFMA + 128 IADD3 + 128 LOP3 = 512 warp
    # instructions per iteration per warp, i.e. 16 per thread.
    KernelSpec("inst_mix", "fma.cu", "inst", "inst", 512 / 32,
               {75: {"FFMA": 256, "IADD3": 128, "LOP3.LUT": 128}}, slack={"IADD3": 1},
               unroll_macro="MIX_UNROLL", max_overhead=16,
               signature=("sink", "a", "b", "k", "iters", "magic")),
    KernelSpec("mma_fp16", "mma.cu", "tensor_fp16", "flop", _MMA * 4096 / 32,
               {75: {"HMMA.1688.F32": 2 * _MMA}, 80: {"HMMA.16816.F32": _MMA}}, min_arch=75,
               unroll_macro="MMA_UNROLL", max_overhead=16, signature=_MMA_SIG),
    KernelSpec("mma_bf16", "mma.cu", "tensor_bf16", "flop", _MMA * 4096 / 32,
               {80: {"HMMA.16816.F32.BF16": _MMA}}, min_arch=80,
               unroll_macro="MMA_UNROLL", max_overhead=16, signature=_MMA_SIG),
    KernelSpec("mma_tf32", "mma.cu", "tensor_tf32", "flop", _MMA * 2048 / 32,
               {80: {"HMMA.1688.F32.TF32": _MMA}}, min_arch=80,
               unroll_macro="MMA_UNROLL", max_overhead=16, signature=_MMA_SIG),
    KernelSpec("mma_int8", "mma.cu", "tensor_int8", "op", _MMA * 8192 / 32,
               {80: {"IMMA.16832.S8.S8": _MMA}}, min_arch=80,
               unroll_macro="MMA_UNROLL", max_overhead=16, signature=_MMA_SIG),
    # One block = one warpgroup; 8 wgmma per iteration, 262144 FLOP each.
    KernelSpec("wgmma_fp16", "wgmma.cu", "tensor_fp16", "flop", 8 * 262144 / 128,
               {90: {"HGMMA.64x128x16.F32": 8}}, block=128, archs=(90,), arch_suffix="a",
               unroll_macro="WG_UNROLL", max_overhead=16,
               signature=("sink", "iters", "magic")),
    KernelSpec("dram_read", "memory.cu", "DRAM", "byte", _G16 * _STREAM,
               {75: {"LDG.E.128.SYS": _STREAM}, 80: {"LDG.E.128": _STREAM}},
               access=(_ld(),), unroll_macro="MEM_UNROLL", elements_per_iteration=_STREAM,
               signature=("src", "sink", "n4", "magic")),
    KernelSpec("dram_write", "memory.cu", "DRAM", "byte", _G16 * _STREAM,
               {75: {"STG.E.128.SYS": _STREAM}, 80: {"STG.E.128": _STREAM}},
               access=(_st(),), unroll_macro="MEM_UNROLL", needs_sink=False,
               elements_per_iteration=_STREAM, signature=("dst", "n4", "value")),
    KernelSpec("dram_copy", "memory.cu", "DRAM", "byte", 2 * _G16 * _STREAM,
               {75: {"LDG.E.128.SYS": _STREAM, "STG.E.128.SYS": _STREAM},
                80: {"LDG.E.128": _STREAM, "STG.E.128": _STREAM}},
               access=(_ld(), _st()), unroll_macro="MEM_UNROLL", needs_sink=False,
               elements_per_iteration=_STREAM, signature=("src", "dst", "n4")),
    KernelSpec("l2_read", "memory.cu", "L2", "byte", _G16 * _STREAM,
               {75: {"LDG.E.128.STRONG.GPU": _STREAM}}, access=(_ld("cg"),),
               unroll_macro="MEM_UNROLL", elements_per_iteration=_STREAM,
               signature=("src", "sink", "n4", "mask", "magic")),
    KernelSpec("l1_read", "memory.cu", "L1", "byte", _G16 * _STREAM,
               {75: {"LDG.E.128.STRONG.CTA": _STREAM}, 80: {"LDG.E.128.STRONG.SM": _STREAM}},
               access=(_ld("ca"),), unroll_macro="MEM_UNROLL", elements_per_iteration=_STREAM,
               signature=("src", "sink", "n4", "mask", "magic")),
    KernelSpec("shared_read", "memory.cu", "shared", "byte", _G16 * _STREAM,
               {75: {"LDS.U.128": _STREAM}, 80: {"LDS.128": _STREAM}},
               access=(_ld(space="shared"),), unroll_macro="MEM_UNROLL",
               signature=("sink", "iters", "magic")),
    KernelSpec("empty_kernel", "memory.cu", "launch", "launch", 0, has_loop=False,
               needs_sink=False),
)

BY_NAME: Mapping[str, KernelSpec] = MappingProxyType({k.name: k for k in KERNELS})
SOURCES: tuple[str, ...] = tuple(dict.fromkeys(k.source for k in KERNELS))


def kernels_for(arch: int) -> list[KernelSpec]:
    return [k for k in KERNELS if k.supports(arch)]


def arch_string(spec: KernelSpec, arch: int) -> str:
    return f"{arch}{spec.arch_suffix}"
