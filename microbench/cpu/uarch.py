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


def detect(vendor: str, family: int | None, model: int | None, flags: frozenset, model_name: str,
           archspec_name: str | None = None, x86: bool = True) -> Uarch:
    """The microarchitecture's figures, and an assumption when guessed."""
    name = archspec_name if archspec_name in TABLE else name_from_cpuid(vendor, family, model, flags)
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
