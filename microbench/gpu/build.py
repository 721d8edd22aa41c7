"""Compile the kernel sources: one code path for the runtime and the tests.

The runtime does not let CuPy compile the sources. It calls
:func:`compile_cubin` (NVRTC, through CuPy's own NVRTC binding, so the same
``libnvrtc`` CuPy would use) and loads the cubin with
``cupy.RawModule(path=...)``. The static tests call the same function with
the same :func:`compile_options`, so the cubin disassembled in CI is the one
the runtime loads, given the same NVRTC version.

The options mirror what ``cupy.RawModule(code=...)`` passes to NVRTC where it
matters for code generation: ``-ftz=true`` (CuPy always adds it, hence
``FFMA.FTZ`` in the SASS) and ``--device-as-default-execution-space``; plus
an explicit C++ standard and an explicit ``-arch=sm_XX`` (never ``native``,
which silently falls back to a default architecture without a GPU). The
kernels include no headers, so CuPy's include paths would change nothing.
"""
from __future__ import annotations

import ctypes
import hashlib
import struct
from dataclasses import dataclass
from importlib import resources
from typing import Iterable

from ...core.errors import MeasurementError

BASE_OPTIONS = ("-ftz=true", "--std=c++17", "--device-as-default-execution-space")


def compile_options(arch: str) -> tuple[str, ...]:
    """Exact NVRTC options for ``arch`` (``"80"``, ``"90a"``)."""
    return BASE_OPTIONS + (f"-arch=sm_{arch}",)


def kernel_source(filename: str) -> str:
    """Text of a kernel source shipped in the package (``fma.cu`` ...)."""
    return (resources.files(__package__) / "kernels" / filename).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Compiled:
    cubin: bytes
    arch: str
    options: tuple[str, ...]
    log: str
    nvrtc_version: tuple[int, int]

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.cubin).hexdigest()[:16]


def compile_cubin(source: str, arch: str, *, name: str = "kernels.cu", nvrtc=None) -> Compiled:
    """Compile ``source`` for ``sm_<arch>`` to a cubin with NVRTC.

    ``nvrtc`` is an object with ``version()`` and ``compile(source, name,
    options) -> (cubin, log)``; by default CuPy's NVRTC binding. Raises
    :class:`MeasurementError` with the compiler log on failure.
    """
    nvrtc = nvrtc or CupyNvrtc()
    options = compile_options(arch)
    cubin, log = nvrtc.compile(source, name, options)
    return Compiled(cubin=complete_elf(cubin), arch=arch, options=options, log=log,
                    nvrtc_version=tuple(nvrtc.version()))


def complete_elf(data: bytes) -> bytes:
    """Pad a cubin cut short by CuPy's ``getCUBIN`` (it drops the last byte,
    taking it for a string terminator) back to the size its ELF header
    declares; cuobjdump and nvdisasm reject the short file."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2:
        return data
    e_phoff, e_shoff = struct.unpack_from("<QQ", data, 0x20)
    e_phentsize, e_phnum, e_shentsize, e_shnum = struct.unpack_from("<HHHH", data, 0x36)
    end = max(e_shoff + e_shentsize * e_shnum, e_phoff + e_phentsize * e_phnum)
    return data + b"\0" * (end - len(data)) if end > len(data) else data


def select_arch(cc: tuple[int, int], supported: Iterable[int], *, arch_specific: bool = False) -> str:
    """The sm_XX to compile for on a device of compute capability ``cc``.

    A cubin runs on devices of the same major version and an equal or higher
    minor one, so this is the highest supported target of that major not
    above the device. ``arch_specific`` asks for the ``a`` variant (wgmma
    needs ``sm_90a``), which runs only on exactly that compute capability.
    """
    major, minor = cc
    want = major * 10 + minor
    fits = [s for s in supported if s // 10 == major and s % 10 <= minor]
    if not fits:
        known = ", ".join(f"sm_{s}" for s in sorted(supported)) or "none"
        raise MeasurementError(
            f"this NVRTC cannot compile for sm_{want} (it targets {known}); "
            "install the CuPy build for your CUDA version (cupy-cuda12x or cupy-cuda13x)")
    best = max(fits)
    if arch_specific:
        if best != want:
            raise MeasurementError(f"sm_{want}a is not supported by this NVRTC")
        return f"{want}a"
    return str(best)


class CupyNvrtc:
    """NVRTC through CuPy's binding (``cupy_backends.cuda.libs.nvrtc``)."""

    def __init__(self):
        try:
            from cupy_backends.cuda.libs import nvrtc
        except ImportError:
            raise MeasurementError("CuPy is not installed (pip install 'roofline[gpu]')") from None
        self._nvrtc = nvrtc

    def version(self) -> tuple[int, int]:
        return tuple(self._nvrtc.getVersion())

    def supported_archs(self) -> tuple[int, ...]:
        return tuple(self._nvrtc.getSupportedArchs())

    def compile(self, source: str, name: str, options: tuple[str, ...]) -> tuple[bytes, str]:
        nv = self._nvrtc
        try:
            prog = nv.createProgram(source, name, (), ())
        except RuntimeError as exc:  # NVRTC library missing (DynamicLibNotFoundError)
            raise MeasurementError(f"NVRTC is not available: {exc}") from None
        try:
            try:
                nv.compileProgram(prog, options)
            except nv.NVRTCError:
                log = nv.getProgramLog(prog)
                raise MeasurementError(f"NVRTC failed on {name} ({' '.join(options)}):\n{log}") from None
            return nv.getCUBIN(prog), nv.getProgramLog(prog)
        finally:
            nv.destroyProgram(prog)


class CtypesNvrtc:
    """NVRTC from an explicit ``libnvrtc.so`` path (for instance the CUDA 12
    library of the ``nvidia-cuda-nvrtc-cu12`` wheel, which still targets
    sm_52..sm_70). Same interface as :class:`CupyNvrtc`."""

    def __init__(self, path: str):
        try:
            self._lib = ctypes.CDLL(str(path))
        except OSError as exc:
            raise MeasurementError(f"cannot load NVRTC from {path}: {exc}") from None

    def version(self) -> tuple[int, int]:
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check(self._lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
        return major.value, minor.value

    def _check(self, status: int, what: str):
        if status != 0:
            raise MeasurementError(f"{what} failed with NVRTC status {status}")

    def _text(self, prog, size_fn, get_fn) -> bytes:
        size = ctypes.c_size_t()
        self._check(size_fn(prog, ctypes.byref(size)), "NVRTC size query")
        buf = ctypes.create_string_buffer(size.value)
        self._check(get_fn(prog, buf), "NVRTC result query")
        return buf.raw

    def compile(self, source: str, name: str, options: tuple[str, ...]) -> tuple[bytes, str]:
        lib = self._lib
        prog = ctypes.c_void_p()
        self._check(lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(),
                                           0, None, None), "nvrtcCreateProgram")
        try:
            opts = (ctypes.c_char_p * len(options))(*(o.encode() for o in options))
            status = lib.nvrtcCompileProgram(prog, len(options), opts)
            log = self._text(prog, lib.nvrtcGetProgramLogSize, lib.nvrtcGetProgramLog)
            log = log.rstrip(b"\0").decode(errors="replace")
            if status != 0:
                raise MeasurementError(f"NVRTC failed on {name} ({' '.join(options)}):\n{log}")
            return self._text(prog, lib.nvrtcGetCUBINSize, lib.nvrtcGetCUBIN), log
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(prog))
