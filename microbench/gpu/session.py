"""One GPU being measured: compiled modules, buffers, kernel arguments and
the timed occupancy sweep every ceiling goes through (``Session.measure``).

Kernels are compiled by :func:`build.compile_cubin` (the exact cubin the
static tests disassemble) and loaded with ``cupy.RawModule(path=...)``.
For each kernel, grids are whole waves over all SMs and every
resident-blocks-per-SM count of an occupancy sweep is tried; each timed
call is calibrated to at least 10 ms (CUDA events), the best configuration
is re-timed ``repeats`` times and every sample is kept, with the NVML
reading taken while it ran.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from . import build, timing
from .kernels import KernelSpec


@dataclass
class Result:
    """The samples of one kernel: rates (work per second), the NVML reading
    taken during each, and the configuration that reached them."""

    kernel: str
    rates: tuple[float, ...]
    clocks: list[dict]
    config: dict

    @property
    def best(self) -> float:
        return max(self.rates)


def _half2_bits(value: float, fmt) -> np.uint32:
    """Two copies of ``value`` packed as half2 / bf16x2 bits (kernel arguments)."""
    if fmt == "bf16":
        half = int(np.array(value, dtype=np.float32).view(np.uint32)) >> 16  # truncate to bf16
    else:
        half = int(np.array(value, dtype=fmt).view(np.uint16))
    return np.uint32(half << 16 | half)


class Session:
    """One GPU, its compiled modules and buffers, and the timing helpers."""

    def __init__(self, cp, info, nvml, quick, min_time_s, workdir):
        self.cp, self.info, self.nvml, self.quick = cp, info, nvml, quick
        self.min_time_s = min_time_s
        self.repeats = 3 if quick else 10
        self.sms = info["sm_count"]
        self.cc = info["compute_capability"]
        self.nvrtc = build.CupyNvrtc()
        self.supported = self.nvrtc.supported_archs()
        self.arch = build.select_arch(self.cc, self.supported)
        self.arch_int = int(self.arch)
        self.workdir = Path(workdir)
        self.modules = {}
        self.start, self.end = cp.cuda.Event(), cp.cuda.Event()
        self.sink = cp.zeros(self.sms * 2048 * 2, dtype=np.uint32)  # 8 bytes per thread

    def module(self, source: str, suffix: str = ""):
        """The compiled module of ``source`` (compiled on first use)."""
        key = (source, suffix)
        if key not in self.modules:
            arch = build.select_arch(self.cc, self.supported, arch_specific=bool(suffix))
            compiled = build.compile_cubin(build.kernel_source(source), arch, name=source,
                                           nvrtc=self.nvrtc)
            path = self.workdir / f"{source}.sm_{arch}.cubin"
            path.write_bytes(compiled.cubin)
            self.modules[key] = self.cp.RawModule(path=str(path))
        return self.modules[key]

    def function(self, spec: KernelSpec):
        return self.module(spec.source, spec.arch_suffix).get_function(spec.name)

    def timed(self, launch: Callable[[], None]) -> tuple[float, dict]:
        """Seconds of ``launch()`` on the GPU (CUDA events) and an NVML sample
        taken while it runs."""
        self.start.record()
        launch()
        self.end.record()
        clocks = self.nvml.sample()
        self.end.synchronize()
        return self.cp.cuda.get_elapsed_time(self.start, self.end) / 1e3, clocks

    def max_resident(self, fn, block: int) -> int:
        try:
            n = self.cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.kernel.ptr, block, 0)
        except Exception:
            n = 0
        return max(1, int(n) or self.info["max_threads_per_sm"] // block)

    # -------------------------------------------------------- arguments
    _SCALARS = {  # (a, b, magic): acc = acc * a + b stays finite; the sum is never magic
        "fp64": (np.float64(0.999), np.float64(1e-3), np.float64(-1.0)),
        "fp32": (np.float32(0.999), np.float32(1e-3), np.float32(-1.0)),
        "fp16": tuple(_half2_bits(v, np.float16) for v in (0.999, 1e-3, -1.0)),
        "bf16": tuple(_half2_bits(v, "bf16") for v in (0.999, 1e-3, -1.0)),
        "int32": (np.uint32(1664525), np.uint32(1013904223), np.uint32(0xFFFFFFFF)),
        "inst": (np.float32(0.999), np.float32(1e-3), np.uint32(0xFFFFFFFF)),
    }
    _A_BITS = {"tensor_fp16": 0x3C003C00, "tensor_bf16": 0x3F803F80,  # 1.0 in each format
               "tensor_tf32": 0x3F800000, "tensor_int8": 0x01010101}

    def args(self, spec: KernelSpec, iters: int, *, src=None, dst=None, n4=0, mask=0):
        a, b, magic = self._SCALARS.get(spec.ceiling, (None, None, np.uint32(0xFFFFFFFF)))
        values = {
            "sink": self.sink, "iters": np.int32(iters), "a": a, "b": b, "magic": magic,
            "k": np.uint32(0x9E3779B9), "a_bits": np.uint32(self._A_BITS.get(spec.ceiling, 0x3C003C00)),
            "src": src, "dst": dst, "n4": np.uint32(n4), "mask": np.uint32(mask),
            "value": np.uint32(0x5A5A5A5A),
        }
        return tuple(values[name] for name in spec.signature)

    # -------------------------------------------------------- measuring
    def measure(self, spec: KernelSpec, launch_for, *, iterations=None, iter_cap=None) -> Result:
        """Best configuration of an occupancy sweep, then ``repeats`` samples.

        ``launch_for(grid, iters)`` returns a callable that launches the
        kernel once. A timed call is ``launches`` back-to-back launches of
        ``iters`` loop iterations each. ``iters`` is calibrated first unless
        ``iterations(grid)`` fixes it (a stream over a whole buffer); then
        ``launches`` grows when one launch cannot reach the minimum time
        (fixed iterations, or ``iter_cap(grid)`` reached).
        """
        fn = self.function(spec)
        best = None
        for bps in timing.occupancy_sweep(self.max_resident(fn, spec.block), self.quick):
            grid = timing.full_wave_grid(self.sms, bps)
            fixed = iterations(grid) if iterations else None
            cap = iter_cap(grid) if iter_cap else 2**31 - 1

            def call(iters, launches=1, grid=grid):
                one = launch_for(grid, iters)

                def run():
                    for _ in range(launches):
                        one()
                return self.timed(run)[0]

            call(fixed or 1)  # warm-up: module load, first launch
            if fixed is None:
                iters, t = timing.calibrate(call, self.min_time_s, limit=cap)
            else:
                iters, t = fixed, call(fixed)
            launches = 1
            if t < self.min_time_s:
                launches, t = timing.calibrate(lambda n, i=iters, c=call: c(i, n), self.min_time_s,
                                               start=max(2, int(self.min_time_s / max(t, 1e-9))))
            work = launches * spec.total_work(grid, spec.block, iters)
            if best is None or work / t > best[0]:
                best = (work / t, bps, grid, iters, launches, work)
        _, bps, grid, iters, launches, work = best
        one = launch_for(grid, iters)

        def run():
            for _ in range(launches):
                one()
        rates, clocks = [], []
        for _ in range(self.repeats):
            t, clk = self.timed(run)
            rates.append(work / t)
            clocks.append(clk)
        return Result(spec.name, tuple(rates), clocks,
                      {"blocks_per_sm": bps, "grid": grid, "block": spec.block,
                       "iterations": iters, "launches": launches})
