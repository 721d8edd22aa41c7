"""FMA pipes, datapath widths and L1 load ports per core, by
microarchitecture, with where each figure comes from.

The theoretical peaks of a CPU profile are built from these: FLOP/cycle =
FMA pipes x (datapath bits / element bits) x 2, L1 bytes/cycle = loads per
cycle x load width. The ISA's register width is not the datapath width:
Zen 1 runs AVX2 on 128-bit units and Zen 4 runs AVX-512 on 256-bit ones,
so a peak from the ISA alone is 2x too high on both.

The microarchitecture comes from archspec (the library Spack uses to name
CPUs), else from the vendor, family and model numbers of CPUID (what a VM
still shows when archspec only sees a generic x86_64_v4), else from the
ISA flags with an assumption named in the profile.
"""
from __future__ import annotations

from dataclasses import dataclass

AMD_ZEN = "AMD Software Optimization Guide for the family (Zen #55723, Zen 2 #56305, Zen 3 #56665, " \
          "Zen 4 #57647, Zen 5 #58455)"
INTEL = "Intel 64 and IA-32 Architectures Optimization Reference Manual (248966)"
AGNER = "Agner Fog, The microarchitecture of Intel, AMD and VIA CPUs (2024)"
ARM = "Arm Neoverse Software Optimization Guide of the core (N1, V1, V2)"
APPLE = "Apple Silicon CPU Optimization Guide (2024); Dougall Johnson's Firestorm measurements"


@dataclass(frozen=True)
class Uarch:
    name: str
    fma_pipes: int
    fma_bits: int          # datapath width of one FMA pipe
    loads_per_cycle: int
    load_bits: int
    source: str
    assumption: str = ""   # set when the figures are a guess, shown to the user

    def flop_per_cycle(self, element_bytes: int, fma: bool = True) -> float:
        lanes = self.fma_bits // (8 * element_bytes)
        return float(self.fma_pipes * lanes * (2 if fma else 1))

    @property
    def load_bytes_per_cycle(self) -> float:
        return self.loads_per_cycle * self.load_bits / 8


TABLE = {u.name: u for u in (
    Uarch("zen", 2, 128, 2, 128, AMD_ZEN + "; " + AGNER),
    Uarch("zen2", 2, 256, 2, 256, AMD_ZEN),
    Uarch("zen3", 2, 256, 2, 256, AMD_ZEN),
    Uarch("zen4", 2, 256, 2, 256, AMD_ZEN + " (AVX-512 runs on 256-bit datapaths)"),
    Uarch("zen5", 2, 512, 2, 512, AMD_ZEN + " (full 512-bit datapaths on desktop and server parts)"),
    Uarch("haswell", 2, 256, 2, 256, INTEL),
    Uarch("broadwell", 2, 256, 2, 256, INTEL),
    Uarch("skylake", 2, 256, 2, 256, INTEL),
    Uarch("alderlake", 2, 256, 2, 256, INTEL + " (P-cores; AVX-512 disabled)"),
    Uarch("skylake_avx512", 2, 512, 2, 512, INTEL + " (two 512-bit FMA units on Gold 6xxx/Platinum)"),
    Uarch("cascadelake", 2, 512, 2, 512, INTEL + " (two 512-bit FMA units on Gold 6xxx/Platinum)"),
    Uarch("icelake", 2, 512, 2, 512, INTEL + " (Ice Lake-SP; client parts have one 512-bit unit)"),
    Uarch("sapphirerapids", 2, 512, 2, 512, INTEL),
    Uarch("emeraldrapids", 2, 512, 2, 512, INTEL),
    Uarch("graniterapids", 2, 512, 2, 512, INTEL),
    Uarch("neoverse_n1", 2, 128, 2, 128, ARM),
    Uarch("neoverse_v1", 4, 128, 3, 128, ARM + " (4 x 128-bit NEON FMA = 2 x 256-bit SVE)"),
    Uarch("neoverse_n2", 2, 128, 3, 128, ARM),
    Uarch("neoverse_v2", 4, 128, 3, 128, ARM),
    Uarch("m1", 4, 128, 3, 128, APPLE),
    Uarch("m2", 4, 128, 3, 128, APPLE),
    Uarch("m3", 4, 128, 3, 128, APPLE),
    Uarch("m4", 4, 128, 3, 128, APPLE),
)}
# Skylake-SP and Cascade Lake parts with one 512-bit FMA unit (Intel ARK).
ONE_FMA_512 = ("bronze", "silver", "gold 5")


def _amd(family: int | None, model: int | None, flags: frozenset = frozenset()) -> str | None:
    if family == 0x17:
        return "zen" if model is not None and model < 0x30 else "zen2"
    if family == 0x19:
        if model is None:          # only Zen 4 has AVX-512 in this family
            return "zen4" if "avx512f" in flags else "zen3"
        return "zen4" if (0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or 0xA0 <= model <= 0xAF) else "zen3"
    if family == 0x1A:
        return "zen5"
    return None


_INTEL_MODELS = {
    **dict.fromkeys((0x3C, 0x3F, 0x45, 0x46), "haswell"),
    **dict.fromkeys((0x3D, 0x47, 0x4F, 0x56), "broadwell"),
    **dict.fromkeys((0x4E, 0x5E, 0x8E, 0x9E, 0xA5, 0xA6), "skylake"),
    0x55: "skylake_avx512",
    **dict.fromkeys((0x6A, 0x6C), "icelake"),
    **dict.fromkeys((0x97, 0x9A, 0xB7, 0xBA, 0xBF), "alderlake"),
    0x8F: "sapphirerapids", 0xCF: "emeraldrapids",
    **dict.fromkeys((0xAD, 0xAE), "graniterapids"),
}


def name_from_cpuid(vendor: str, family: int | None, model: int | None,
                    flags: frozenset = frozenset()) -> str | None:
    if vendor in ("AuthenticAMD", "HygonGenuine"):
        return _amd(family, model, flags)
    if vendor == "GenuineIntel" and family == 6 and model is not None:
        return _INTEL_MODELS.get(model)
    return None


# Generations in order, per vendor line: archspec names a CPU by the
# newest generation whose every feature flag the OS shows, so a VM that
# hides one flag is named a generation early. The Emerald Rapids Xeon of
# ../shared/cpu-sweeps (family 6 model 207) was named "icelake": its KVM
# hides WAITPKG (numba's feature list there: -waitpkg), which archspec
# requires of sapphirerapids, and icelake is the newest it found complete.
LINEAGES = (
    ("zen", "zen2", "zen3", "zen4", "zen5"),
    ("haswell", "broadwell", "skylake", "skylake_avx512", "cascadelake", "icelake",
     "sapphirerapids", "emeraldrapids", "graniterapids"),
)


def _newer(a: str | None, b: str | None) -> str | None:
    """The later generation of two names on one lineage, else ``a``."""
    for line in LINEAGES:
        if a in line and b in line:
            return a if line.index(a) >= line.index(b) else b
    return a if a is not None else b


def name_and_basis(vendor: str, family: int | None, model: int | None, flags: frozenset,
                   archspec_name: str | None = None) -> tuple[str | None, str]:
    """The microarchitecture's name and what named it.

    archspec's name is a lower bound (every flag it requires is there); the
    CPUID family and model name the silicon, unless the hypervisor claims
    an older model. So the newer of the two wins: the CPUID model where
    archspec was misled by hidden flags, archspec where the CPUID table's
    model ranges are coarser than the flags (a family 19h part with AVX-512
    is a Zen 4)."""
    known = archspec_name if archspec_name in TABLE else None
    cpuid = name_from_cpuid(vendor, family, model, flags)
    name = _newer(cpuid, known) if cpuid and known else cpuid or known
    where = f"CPUID family {family} model {model}" if cpuid else ""
    if name is None:
        return None, ""
    if known and cpuid and known != cpuid:
        other = "archspec (from the flags the OS shows)"
        basis = (f"{where} ({cpuid}) over {other} ({known})" if name == cpuid
                 else f"{other} ({known}) over {where} ({cpuid})")
    elif known:
        basis = "archspec" + (f" and {where}" if cpuid else "")
    else:
        basis = where
    return name, basis


def detect(vendor: str, family: int | None, model: int | None, flags: frozenset, model_name: str,
           archspec_name: str | None = None, x86: bool = True) -> Uarch:
    """The microarchitecture's figures, and an assumption when guessed."""
    name, _ = name_and_basis(vendor, family, model, flags, archspec_name)
    if name in TABLE:
        u = TABLE[name]
        if name in ("skylake_avx512", "cascadelake") and any(t in model_name.lower() for t in ONE_FMA_512):
            u = Uarch(u.name, 1, 512, 2, 512, u.source + "; one 512-bit FMA unit on this SKU (Intel ARK)")
        return u
    return _from_flags(flags, x86, model_name)


def _from_flags(flags: frozenset, x86: bool, model_name: str) -> Uarch:
    if not x86:
        return Uarch("unknown", 2, 128, 2, 128, "assumed", f"{model_name}: an unknown Arm/other core; "
                     "2 FMA pipes of 128 bits assumed (NEON)")
    bits = 512 if "avx512f" in flags else 256 if ("avx" in flags or "avx2" in flags) else 128
    pipes = 2 if ("fma" in flags or "avx512f" in flags) else 1
    return Uarch("unknown", pipes, bits, 2, bits, "assumed from the ISA flags",
                 f"{model_name}: microarchitecture not recognised; {pipes} FMA pipe(s) of {bits} bits "
                 "assumed from the ISA (the theoretical peak may be 2x off)")


# ------------------------------------------------------------------ other units
# Vector integer ALU pipes at the widest register the kernel uses (zmm on
# AVX-512 cores, ymm else) and scalar integer ALUs, per core. Sources:
# Agner Fog's instruction tables and microarchitecture guide (AGNER),
# uops.info measurements, the vendors' optimisation guides. On Intel cores
# with AVX-512, 512-bit integer ops issue on ports 0 and 5 only (port 1 is
# fused into port 0 for 512-bit uops); 256-bit ones on 0, 1 and 5. Zen 3
# and 4 run vector integer adds on all four FP/vector pipes (Zen 4 a zmm op
# as two 256-bit halves). Table figures: a core not listed gets no
# theoretical integer peak rather than a guess.
UOPS = "uops.info measured throughputs; " + AGNER
INT_UNITS = {
    "zen": (3, 4), "zen2": (3, 4), "zen3": (4, 4), "zen4": (4, 4), "zen5": (4, 6),
    "haswell": (3, 4), "broadwell": (3, 4), "skylake": (3, 4), "alderlake": (3, 5),
    "skylake_avx512": (2, 4), "cascadelake": (2, 4), "icelake": (2, 4),
    "sapphirerapids": (2, 5), "emeraldrapids": (2, 5), "graniterapids": (2, 5),
}
# AMX per core and cycle: one TDPBF16PS (16x16x32 multiply-adds) or TDPBUSD
# (16x16x64) every 16 cycles: 1024 BF16/FP16 FLOP, 2048 INT8 ops (Intel
# Optimization Reference Manual 248966, AMX chapter; Intel's Sapphire
# Rapids AMX figures). AMX-FP16 from Granite Rapids on.
AMX_OPS = {
    "sapphirerapids": {"amx_bf16": 1024.0, "amx_int8": 2048.0},
    "emeraldrapids": {"amx_bf16": 1024.0, "amx_int8": 2048.0},
    "graniterapids": {"amx_bf16": 1024.0, "amx_int8": 2048.0, "amx_fp16": 1024.0},
}
# Multiply-adds per 32-bit lane of one dot-product instruction (vdpbf16ps: 2
# bf16 pairs, vpdpbusd: 4 byte pairs, vfmadd...ph: 2 fp16 lanes of 1 each).
_DOT = {"dp_bf16": 2, "dp_int8": 4, "fma_fp16": 2}


def unit_ops_per_cycle(u: Uarch, kind: str, kernel_bits: int) -> tuple[float | None, str]:
    """Theoretical ops per core and cycle of one unit kernel, and the basis.

    * dot products and FP16 FMAs issue on the FMA pipes (Intel DL Boost
      and AVX512-FP16 at the FMA throughput; Zen 4 on its two 256-bit FMA
      pipes): pipes x 32-bit lanes x multiply-adds per lane x 2;
    * the int8 form without VNNI (vpmaddubsw + vpmaddwd + vpaddd) needs two
      multiply-pipe instructions per 4 multiply-adds of a lane: half that,
      with integer multiplies assumed on as many pipes as FMAs;
    * vector int32 adds: ALU pipes x lanes; scalar adds: integer ALUs;
    * AMX: the table above.
    ``u.assumption`` (an unknown core) makes every figure an assumption."""
    lanes = min(u.fma_bits, kernel_bits) // 32
    guess = f"; {u.assumption}" if u.assumption else ""
    if kind in _DOT:
        per = u.fma_pipes * lanes * _DOT[kind] * 2
        return float(per), f"{u.fma_pipes} FMA pipes x {lanes} 32-bit lanes x {_DOT[kind]} multiply-adds x 2 " \
                           f"({u.name}: {u.source}){guess}"
    if kind == "maddubs_int8":
        per = u.fma_pipes * lanes * 4 * 2 / 2
        return float(per), f"{u.fma_pipes} multiply pipes (assumed = FMA pipes) x {lanes} lanes x 4 " \
                           f"multiply-adds x 2 / 2 multiply instructions ({u.name}){guess}"
    if kind in ("add_int32", "add_scalar"):
        pipes = INT_UNITS.get(u.name)
        if pipes is None:
            return None, f"{u.name}: integer pipes not in the table"
        if kind == "add_scalar":
            return float(pipes[1]), f"{pipes[1]} scalar integer ALUs ({u.name}: {UOPS})"
        # pipes as wide as the FMA datapath: Zen 4 does a zmm add as two 256-bit halves
        return float(pipes[0] * lanes), f"{pipes[0]} vector ALU pipes x {lanes} 32-bit lanes " \
                                        f"({u.name}: {UOPS}){guess}"
    if kind in ("amx_bf16", "amx_int8", "amx_fp16"):
        per = AMX_OPS.get(u.name, {}).get(kind)
        if per is None:
            return None, f"{u.name}: no AMX figure in the table"
        return per, f"one 16-cycle tile op per core ({u.name}: {INTEL}, AMX)"
    return None, f"no rate for {kind}"
