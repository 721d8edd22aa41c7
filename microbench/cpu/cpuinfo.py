"""What the CPU is, without importing numba: model, vector width, FMA pipes,
threads, caches; and the environment numba must start with.

Theoretical FMA peak = cores x FMA pipes x vector lanes x 2 FLOP x clock.
The FMA pipe count cannot be read from cpuid; it comes from a small table:
AMD Zen 1-4 have 2 FMA pipes of 256 bits for this purpose (Zen 4 runs
AVX-512 as two 256-bit halves), Zen 5 2 x 512 bits with AVX-512; Intel cores
with AVX-512 are taken as 2 x 512 bits (server parts; some client and
Silver/Bronze parts have one 512-bit pipe, for which this bound is 2x high
and so still never below a real measurement), AVX2+FMA cores 2 x 256 bits.
"""
from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass, field

from ..levels import OsCache, read_os_caches


@dataclass(frozen=True)
class CpuInfo:
    model: str
    vendor: str
    family: int | None
    flags: frozenset = field(default_factory=frozenset)
    machine: str = ""
    threads: int = 1
    os_caches: tuple[OsCache, ...] = ()
    model_id: int | None = None        # CPUID model number ("model" in /proc/cpuinfo)
    archspec_name: str | None = None   # archspec's name for the host, when it knows one

    def uarch(self):
        """FMA pipes, datapath and load widths of this core (:mod:`.uarch`)."""
        from .uarch import detect
        return detect(self.vendor, self.family, self.model_id, self.flags, self.model,
                      self.archspec_name, self.x86)

    def uarch_basis(self) -> str:
        """What named the microarchitecture (CPUID model, archspec, or the ISA flags)."""
        from .uarch import name_and_basis
        name, basis = name_and_basis(self.vendor, self.family, self.model_id, self.flags, self.archspec_name)
        return basis if name == self.uarch().name else "assumed from the ISA flags"

    @property
    def x86(self) -> bool:
        return self.machine.lower() in ("x86_64", "amd64", "i686", "i386")

    @property
    def has_fma(self) -> bool:
        return "fma" in self.flags or not self.x86

    @property
    def isa_vector_bits(self) -> int:
        """Widest vector registers the ISA offers."""
        if "avx512f" in self.flags:
            return 512
        if "avx" in self.flags or "avx2" in self.flags:
            return 256
        return 128

    @property
    def fma_pipe_bits(self) -> int:
        """Width of one FMA pipe (what the FMA peak is computed with), never
        wider than the registers the ISA offers."""
        return min(self.uarch().fma_bits, self.isa_vector_bits if self.x86 else 10**6)

    @property
    def fma_pipes(self) -> int:
        return self.uarch().fma_pipes

    def flop_per_cycle(self, precision: str) -> float:
        """Per core: FMA pipes x lanes x 2 (an FMA is two FLOP)."""
        item = 8 if precision == "fp64" else 4
        lanes = self.fma_pipe_bits // 8 // item
        per_op = 2 if self.has_fma else 1
        return float(self.fma_pipes * lanes * per_op)

    def load_bytes_per_cycle(self) -> float:
        """L1 load bytes per core and cycle: load ports x load width."""
        u = self.uarch()
        width = min(u.load_bits, self.isa_vector_bits) if self.x86 else u.load_bits
        return float(u.loads_per_cycle * width / 8)

    def theoretical_flop_s(self, precision: str, clock_hz: float, cores: int = 1) -> float:
        return cores * self.flop_per_cycle(precision) * clock_hz

    def describe(self) -> dict:
        return {
            "cpu_model": self.model, "vendor": self.vendor, "machine": self.machine,
            # CPUID family/model: two VMs both named "AMD EPYC" (Zen 3 and Zen 4) differ here,
            # which is how a trace recorded on one is told from a profile of the other
            "cpu_family": self.family, "cpu_model_id": self.model_id,
            "threads": self.threads, "isa_vector_bits": self.isa_vector_bits,
            "fma_pipes": self.fma_pipes, "fma_pipe_bits": self.fma_pipe_bits,
            "microarchitecture": self.uarch().name, "microarchitecture_source": self.uarch().source,
            "microarchitecture_basis": self.uarch_basis(),
            "os_caches": {c.name: {"bytes": c.size_bytes, "shared_cpus": c.shared_cpus}
                          for c in self.os_caches},
        }


def usable_cpus() -> list[int]:
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return list(range(os.cpu_count() or 1))


def cpu_info(cpuinfo_path: str = "/proc/cpuinfo") -> CpuInfo:
    model, vendor, family, flags = platform.processor() or "unknown CPU", "", None, set()
    model_id = None
    try:
        with open(cpuinfo_path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "model name" and model in ("", "unknown CPU", platform.processor()):
                    model = value
                elif key == "vendor_id" and not vendor:
                    vendor = value
                elif key == "cpu family" and family is None:
                    try:
                        family = int(value)
                    except ValueError:
                        pass
                elif key == "model" and model_id is None:
                    try:
                        model_id = int(value)
                    except ValueError:
                        pass
                elif key in ("flags", "Features") and not flags:
                    flags = set(value.split())
                elif not line.strip() and flags:
                    break
    except OSError:
        pass
    return CpuInfo(model=model or "unknown CPU", vendor=vendor, family=family,
                   flags=frozenset(flags), machine=platform.machine(),
                   threads=len(usable_cpus()), os_caches=tuple(read_os_caches()),
                   model_id=model_id, archspec_name=_archspec_name())


def _archspec_name() -> str | None:
    """archspec's microarchitecture of this host (None when not installed
    or when it only knows a generic level such as x86_64_v4)."""
    try:
        import archspec.cpu
        name = archspec.cpu.host().name
    except Exception:   # archspec is optional here: a failure means "not known"
        return None
    from .uarch import TABLE
    return name if name in TABLE else None


def numba_environment(info: CpuInfo, threads: int | None = None) -> dict[str, str]:
    """Variables numba (and its OpenMP layer) must see before it starts.

    * ``NUMBA_CPU_FEATURES``: the host's features, minus the
      ``prefer-256-bit`` tuning LLVM applies to AVX-512 cores, so the
      vectoriser uses full 512-bit registers (measured here: 14 ymm
      accumulators reach half the zmm FMA peak).
    * ``NUMBA_NUM_THREADS``, ``OMP_PROC_BIND=close``, ``OMP_PLACES=cores``:
      one pinned thread per usable core in the OpenMP threading layer.
    """
    env = {
        "NUMBA_NUM_THREADS": str(threads or info.threads),
        "OMP_PROC_BIND": "close",
        "OMP_PLACES": "cores",
    }
    if info.x86 and "avx512f" in info.flags:
        try:
            import llvmlite.binding as llvm
            feats = llvm.get_host_cpu_features().flatten()
            env["NUMBA_CPU_FEATURES"] = feats + ",-prefer-256-bit"
        except Exception:  # llvmlite missing or too old: keep numba's default
            pass
    return env


def configure_numba_environment(info: CpuInfo, threads: int | None = None) -> bool:
    """Set :func:`numba_environment` in ``os.environ`` if numba has not started.

    Returns True when applied (numba not yet imported), False otherwise; the
    measurement records which, since pinning and 512-bit code depend on it.
    """
    if "numba" in sys.modules:
        return False
    for key, value in numba_environment(info, threads).items():
        os.environ.setdefault(key, value)
    return True
