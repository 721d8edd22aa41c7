"""Measure an NVIDIA GPU with CuPy and NVML: ``probe_gpu`` and ``measure_gpu``.

Nothing in this module has run on a GPU yet (no development or CI machine
has one); its pure parts live in ``timing.py``, ``theory.py``, ``build.py``
and are unit-tested, and the kernels' SASS is checked statically. See
docs/measurement.md for the validation checklist on a real GPU.

The steps (``measure_gpu``): probe the device (:mod:`.probe`), open a
:class:`~.session.Session`, warm the clocks up, measure each kernel's
ceiling, the launch overhead and the host link, then assemble the profile
(:mod:`.assemble`). How a ceiling is measured is told in :mod:`.session`;
NVML clocks, power and temperature are read while each timed call runs,
and the theoretical peak is computed at the SM (or memory) clock actually
observed.
"""
from __future__ import annotations

import tempfile
import time

import numpy as np

from ...core.errors import MeasurementError
from ...core.model import Device

from . import timing
from .assemble import VERIFIED_ARCHS, to_device
from .kernels import KERNELS, KernelSpec
from .probe import NO_CUPY, NO_DEVICE, NO_DRIVER, Nvml, cuda_failure, import_cupy, probe_gpu
from .session import Result, Session

__all__ = ["L1_WINDOW_BYTES", "NO_CUPY", "NO_DEVICE", "NO_DRIVER", "VERIFIED_ARCHS", "measure_gpu",
           "probe_gpu"]

L1_WINDOW_BYTES = 16 * 1024


def _progress_callable(progress):
    if callable(progress):
        return progress
    if progress:
        from tqdm import tqdm  # a dependency of the package
        bar = tqdm(total=100, desc="roofline measure gpu", unit="%", leave=False)

        def show(step, fraction):
            bar.set_postfix_str(step)
            bar.n = round(100 * fraction)
            bar.refresh()
            if fraction >= 1:
                bar.close()
        return show
    return lambda step, fraction: None


def _compute_launcher(session, spec):
    fn = session.function(spec)

    def launch_for(grid, iters):
        args = session.args(spec, iters)
        return lambda: fn((grid,), (spec.block,), args)
    return launch_for


def measure_gpu(index: int = 0, quick: bool = False, progress=None, *,
                min_time_s: float = timing.MIN_TIMED_S) -> Device:
    """Measure GPU ``index`` and return its :class:`~roofline.core.model.Device`.

    ``progress`` is a callable ``(step_name, fraction)``, or True for a
    progress bar on stderr. ``quick`` trims the occupancy sweep, the host
    sizes and the repeats (3 instead of 10).
    """
    report = _progress_callable(progress)
    info = probe_gpu(index)
    cp = import_cupy()
    cp.cuda.Device(index).use()
    nvml = Nvml(info)
    with tempfile.TemporaryDirectory(prefix="roofline-gpu-") as workdir:
        report("compiling kernels", 0.0)
        s = Session(cp, info, nvml, quick, min_time_s, workdir)
        try:
            return _measure_all(s, info, nvml, report)
        except cp.cuda.runtime.CUDARuntimeError as exc:
            raise cuda_failure(exc) from None


def _measure_all(s: Session, info: dict, nvml: Nvml, report) -> Device:
    cp = s.cp
    specs = [k for k in KERNELS if k.has_loop and k.supports(s.arch_int)]
    steps = len(specs) + 1
    done = 0
    results: dict[str, Result] = {}

    def step(name):
        nonlocal done
        report(name, done / steps)
        done += 1

    # Warm-up: bring the clocks up before the first timed configuration.
    warm = next(k for k in specs if k.name == "peak_fp32")
    _measure_warmup(s, warm)

    buffers = {}
    free, _total = cp.cuda.runtime.memGetInfo()
    dram_bytes = timing.dram_buffer_bytes(info["l2_bytes"], free)
    l2_window = timing.pow2_floor(max(info["l2_bytes"] / 2, 1 << 20))

    skipped = {}
    for spec in specs:
        step(spec.name)
        if spec.arch_suffix:  # arch-specific (wgmma): only on exactly that GPU, optional
            try:
                s.module(spec.source, spec.arch_suffix)
            except MeasurementError as exc:
                skipped[spec.name] = str(exc).splitlines()[0]
                continue
        if spec.unit in ("flop", "op", "inst") or spec.name == "shared_read":
            results[spec.name] = s.measure(spec, _compute_launcher(s, spec))
        elif spec.name.startswith("dram_"):
            if "src" not in buffers:
                n16 = int(dram_bytes // 16)
                buffers["src"] = cp.ones(n16 * 4, dtype=np.uint32)
                buffers["dst"] = cp.zeros(n16 * 4, dtype=np.uint32)
            results[spec.name] = _measure_stream(s, spec, buffers, dram_bytes)
        elif spec.name in ("l2_read", "l1_read"):
            window = l2_window if spec.name == "l2_read" else L1_WINDOW_BYTES
            if "window" not in buffers:
                buffers["window"] = cp.ones(l2_window // 4, dtype=np.uint32)
            results[spec.name] = _measure_window(s, spec, buffers["window"], window)
    step("launch overhead")
    launch = _measure_launch(s)
    report("host link", (steps - 0.5) / steps)
    host = _measure_host_link(s)
    report("done", 1.0)
    return to_device(s, info, nvml, results, launch, host, dram_bytes, l2_window, skipped)


def _measure_warmup(s: Session, spec: KernelSpec):
    fn = s.function(spec)
    grid = timing.full_wave_grid(s.sms, s.max_resident(fn, spec.block))
    call = lambda n: s.timed(lambda: fn((grid,), (spec.block,), s.args(spec, n)))[0]  # noqa: E731
    iters, _ = timing.calibrate(call, 0.05)
    for _ in range(4):
        call(iters)


def _measure_stream(s, spec, buffers, dram_bytes):
    fn = s.function(spec)

    def launch_for(grid, iters):
        n4 = spec.stream_length(grid, spec.block, iters)
        args = s.args(spec, iters, src=buffers["src"], dst=buffers["dst"], n4=n4)
        return lambda: fn((grid,), (spec.block,), args)

    def whole_buffer(grid):  # one launch = one pass over the buffer
        return max(1, int(dram_bytes // (16 * spec.elements_per_iteration * grid * spec.block)))

    return s.measure(spec, launch_for, iterations=whole_buffer)


def _measure_window(s, spec, window_buf, window_bytes):
    fn = s.function(spec)
    mask = window_bytes // 16 - 1

    def launch_for(grid, iters):
        n4 = spec.stream_length(grid, spec.block, iters)
        args = s.args(spec, iters, src=window_buf, n4=n4, mask=mask)
        return lambda: fn((grid,), (spec.block,), args)

    def cap(grid):  # n4 is a 32-bit count of 16-byte vectors
        return max(1, (2**32 - 1) // (spec.elements_per_iteration * grid * spec.block))

    return s.measure(spec, launch_for, iter_cap=cap)


def _measure_launch(s: Session) -> Result:
    """Back-to-back launches of the empty kernel, host-timed, per launch."""
    spec = next(k for k in KERNELS if k.name == "empty_kernel")
    fn = s.function(spec)

    def call(n):
        t0 = time.perf_counter()
        for _ in range(n):
            fn((1,), (1,), ())
        s.cp.cuda.runtime.deviceSynchronize()
        return time.perf_counter() - t0

    call(10)
    n, _ = timing.calibrate(call, s.min_time_s)
    per_launch = tuple(call(n) / n for _ in range(s.repeats))
    return Result(spec.name, per_launch, [], {"launches": n})


def _measure_host_link(s: Session) -> dict:
    """Pinned and pageable H2D / D2H over a size sweep (cudaMemcpy, host-timed)."""
    cp = s.cp
    rt = cp.cuda.runtime
    sizes = timing.host_sizes(s.quick)
    top = sizes[-1]
    dev = cp.empty(top, dtype=np.uint8)
    pinned_mem = cp.cuda.alloc_pinned_memory(top)
    pageable = np.ones(top, dtype=np.uint8)
    hosts = {"pinned": pinned_mem.ptr, "pageable": pageable.ctypes.data}
    out = {}
    for kind, host_ptr in hosts.items():
        for direction, (code, dst, src) in {
                "h2d": (1, dev.data.ptr, host_ptr), "d2h": (2, host_ptr, dev.data.ptr)}.items():
            times = []
            for size in sizes:
                def call(n, size=size):
                    t0 = time.perf_counter()
                    for _ in range(n):
                        rt.memcpy(dst, src, size, code)
                    rt.deviceSynchronize()
                    return time.perf_counter() - t0
                call(1)
                n, _ = timing.calibrate(call, s.min_time_s)
                reps = s.repeats if size == top else 1
                samples = [call(n) / n for _ in range(reps)]
                times.append(min(samples))
                if size == top:
                    out[f"{direction}_{kind}_samples"] = tuple(size / t for t in samples)
            try:
                lat, bw = timing.fit_latency_bandwidth(sizes, times)
            except ValueError:
                lat, bw = None, None
            out[f"{direction}_{kind}"] = {"latency_s": lat, "fit_bytes_s": bw,
                                          "sizes": list(sizes), "times_s": times}
    return out
