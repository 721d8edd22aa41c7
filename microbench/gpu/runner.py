"""Measure an NVIDIA GPU with CuPy and NVML: ``probe_gpu`` and ``measure_gpu``.

Nothing in this module has run on a GPU yet (no development or CI machine
has one); its pure parts live in ``timing.py``, ``theory.py``, ``build.py``
and are unit-tested, and the kernels' SASS is checked statically. See
docs/measurement.md for the validation checklist on a real GPU.

How a ceiling is measured: kernels are compiled by :func:`build.compile_cubin`
(the exact cubin the static tests disassemble) and loaded with
``cupy.RawModule(path=...)``. For each kernel, grids are whole waves over all
SMs and every resident-blocks-per-SM count of an occupancy sweep is tried;
each timed call is calibrated to at least 10 ms (CUDA events), the best
configuration is re-timed ``repeats`` times and every sample is kept. NVML
clocks, power and temperature are read while each timed call runs, and the
theoretical peak is computed at the SM (or memory) clock actually observed.
"""
from __future__ import annotations

import datetime as _dt
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Callable

import numpy as np

from roofline.errors import Advice, MeasurementError
from roofline.model import Ceiling, Device, MemoryLevel

from . import build, theory, timing
from .kernels import KERNELS, KernelSpec

NO_CUPY = "CuPy is not installed (pip install 'roofline[gpu]')"
NO_DRIVER = "no NVIDIA driver found"
NO_DEVICE = "no GPU device found"
VERIFIED_ARCHS = (75, 80, 86, 89, 90, 100, 120)  # tests/test_gpu_static.py
L1_WINDOW_BYTES = 16 * 1024

# cudaError_t values that mean "no usable driver" / "no device".
_DRIVER_STATUS = {34, 35, 3}   # stub library, insufficient driver, init error
_DEVICE_STATUS = {100, 101}    # no device, invalid device


def _import_cupy():
    try:
        import cupy
    except ImportError:
        raise MeasurementError(NO_CUPY) from None
    return cupy


def _cuda_failure(exc) -> MeasurementError:
    status = getattr(exc, "status", None)
    if status in _DRIVER_STATUS:
        return MeasurementError(NO_DRIVER)
    if status in _DEVICE_STATUS:
        return MeasurementError(NO_DEVICE)
    return MeasurementError(f"CUDA error: {exc}")


def probe_gpu(index: int = 0) -> dict:
    """Facts about GPU ``index`` (name, compute capability, SMs, caches...).

    Raises :class:`MeasurementError` with one plain line when CuPy, the
    driver or the device is missing.
    """
    cp = _import_cupy()
    rt = cp.cuda.runtime
    try:
        count = rt.getDeviceCount()
    except rt.CUDARuntimeError as exc:
        raise _cuda_failure(exc) from None
    if count < 1 or not 0 <= index < count:
        raise MeasurementError(NO_DEVICE if count < 1 else
                               f"{NO_DEVICE} at index {index} ({count} present)")
    try:
        p = rt.getDeviceProperties(index)
    except rt.CUDARuntimeError as exc:
        raise _cuda_failure(exc) from None

    def attr(key, attr_name, default=0):
        if key in p:
            return p[key]
        try:
            return rt.deviceGetAttribute(getattr(rt, attr_name), index)
        except Exception:
            return default

    name = p.get("name", b"NVIDIA GPU")
    info = {
        "index": index,
        "name": name.decode() if isinstance(name, bytes) else str(name),
        "compute_capability": _compute_capability(cp, p, index),
        "sm_count": int(attr("multiProcessorCount", "cudaDevAttrMultiProcessorCount")),
        "l2_bytes": int(attr("l2CacheSize", "cudaDevAttrL2CacheSize")),
        "memory_bytes": int(p.get("totalGlobalMem", 0)),
        "bus_width_bits": int(attr("memoryBusWidth", "cudaDevAttrGlobalMemoryBusWidth")),
        "max_threads_per_sm": int(attr("maxThreadsPerMultiProcessor",
                                       "cudaDevAttrMaxThreadsPerMultiProcessor", 1024)),
        "shared_bytes_per_sm": int(attr("sharedMemPerMultiprocessor",
                                        "cudaDevAttrMaxSharedMemoryPerMultiprocessor")),
        "warp_size": int(p.get("warpSize", 32)),
        "clock_hz_attr": 1e3 * float(attr("clockRate", "cudaDevAttrClockRate")),
        "memory_clock_hz_attr": 1e3 * float(attr("memoryClockRate", "cudaDevAttrMemoryClockRate")),
        "pci_bus_id": _pci_bus_id(rt, index),
        "cuda_driver_version": _safe(rt.driverGetVersion),
        "cuda_runtime_version": _safe(rt.runtimeGetVersion),
        "cupy_version": getattr(cp, "__version__", "?"),
    }
    return info


def _compute_capability(cp, props, index) -> tuple[int, int]:
    if "major" in props and "minor" in props:
        return int(props["major"]), int(props["minor"])
    cc = str(cp.cuda.Device(index).compute_capability)  # "80", "120"
    return int(cc[:-1]), int(cc[-1])


def _safe(fn, *args):
    try:
        return fn(*args)
    except Exception:
        return None


def _pci_bus_id(rt, index):
    fn = getattr(rt, "deviceGetPCIBusId", None)
    return _safe(fn, index) if fn else None


# ------------------------------------------------------------------ NVML

class _Nvml:
    """Clocks, power and temperature of one GPU; every reading may be None."""

    def __init__(self, info: dict):
        self.ok = False
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nv = pynvml
            self.h = None
            bus = info.get("pci_bus_id")  # CUDA and NVML may number GPUs differently
            if bus:
                self.h = _safe(pynvml.nvmlDeviceGetHandleByPciBusId, bus)
            if self.h is None:
                self.h = pynvml.nvmlDeviceGetHandleByIndex(info["index"])
            self.ok = True
        except Exception:  # ImportError, NVMLError: measurement goes on without clocks
            self.nv = self.h = None

    def _get(self, fn, *args):
        if not self.ok:
            return None
        try:
            return getattr(self.nv, fn)(self.h, *args)
        except Exception:
            return None

    def sample(self) -> dict:
        nv = self.nv
        sm = self._get("nvmlDeviceGetClockInfo", nv.NVML_CLOCK_SM) if self.ok else None
        mem = self._get("nvmlDeviceGetClockInfo", nv.NVML_CLOCK_MEM) if self.ok else None
        power = self._get("nvmlDeviceGetPowerUsage")
        temp = self._get("nvmlDeviceGetTemperature", nv.NVML_TEMPERATURE_GPU) if self.ok else None
        return {"sm_hz": None if sm is None else sm * 1e6,
                "memory_hz": None if mem is None else mem * 1e6,
                "power_w": None if power is None else power / 1e3,
                "temperature_c": temp}

    def static(self) -> dict:
        if not self.ok:
            return {}
        nv = self.nv
        out = {
            "max_sm_hz": self._get("nvmlDeviceGetMaxClockInfo", nv.NVML_CLOCK_SM),
            "max_memory_hz": self._get("nvmlDeviceGetMaxClockInfo", nv.NVML_CLOCK_MEM),
            "pcie_generation": self._get("nvmlDeviceGetMaxPcieLinkGeneration"),
            "pcie_width": self._get("nvmlDeviceGetMaxPcieLinkWidth"),
            "driver": _safe(nv.nvmlSystemGetDriverVersion),
        }
        for key in ("max_sm_hz", "max_memory_hz"):
            if out[key] is not None:
                out[key] *= 1e6
        return out


def _median_of(samples: list[dict], key: str) -> float | None:
    vals = [s[key] for s in samples if s.get(key)]
    return float(median(vals)) if vals else None


# ------------------------------------------------------------------ results

@dataclass
class _Result:
    kernel: str
    rates: tuple[float, ...]
    clocks: list[dict]
    config: dict

    @property
    def best(self) -> float:
        return max(self.rates)


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


# ------------------------------------------------------------------ the session

def _half2_bits(value: float, fmt) -> np.uint32:
    """Two copies of ``value`` packed as half2 / bf16x2 bits (kernel arguments)."""
    if fmt == "bf16":
        half = int(np.array(value, dtype=np.float32).view(np.uint32)) >> 16  # truncate to bf16
    else:
        half = int(np.array(value, dtype=fmt).view(np.uint16))
    return np.uint32(half << 16 | half)


class _Session:
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
    def measure(self, spec: KernelSpec, launch_for, *, iterations=None, iter_cap=None) -> _Result:
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
        return _Result(spec.name, tuple(rates), clocks,
                       {"blocks_per_sm": bps, "grid": grid, "block": spec.block,
                        "iterations": iters, "launches": launches})


def _compute_launcher(session, spec):
    fn = session.function(spec)

    def launch_for(grid, iters):
        args = session.args(spec, iters)
        return lambda: fn((grid,), (spec.block,), args)
    return launch_for


def measure_gpu(index: int = 0, quick: bool = False, progress=None, *,
                min_time_s: float = timing.MIN_TIMED_S) -> Device:
    """Measure GPU ``index`` and return its :class:`~roofline.model.Device`.

    ``progress`` is a callable ``(step_name, fraction)``, or True for a
    progress bar on stderr. ``quick`` trims the occupancy sweep, the host
    sizes and the repeats (3 instead of 10).
    """
    report = _progress_callable(progress)
    info = probe_gpu(index)
    cp = _import_cupy()
    cp.cuda.Device(index).use()
    nvml = _Nvml(info)
    with tempfile.TemporaryDirectory(prefix="roofline-gpu-") as workdir:
        report("compiling kernels", 0.0)
        s = _Session(cp, info, nvml, quick, min_time_s, workdir)
        try:
            return _measure_all(s, info, nvml, report)
        except cp.cuda.runtime.CUDARuntimeError as exc:
            raise _cuda_failure(exc) from None


def _measure_all(s: _Session, info: dict, nvml: _Nvml, report) -> Device:
    cp = s.cp
    specs = [k for k in KERNELS if k.has_loop and k.supports(s.arch_int)]
    steps = len(specs) + 1
    done = 0
    results: dict[str, _Result] = {}

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
    return _to_device(s, info, nvml, results, launch, host, dram_bytes, l2_window, skipped)


def _measure_warmup(s: _Session, spec: KernelSpec):
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


def _measure_launch(s: _Session) -> _Result:
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
    return _Result(spec.name, per_launch, [], {"launches": n})


def _measure_host_link(s: _Session) -> dict:
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


# ------------------------------------------------------------------ the profile

def _to_device(s: _Session, info, nvml, results, launch, host, dram_bytes, l2_window,
               skipped=None) -> Device:
    from roofline import __version__

    static = nvml.static()
    name, cc, sms = info["name"], info["compute_capability"], info["sm_count"]
    warnings: list[Advice] = []
    if not nvml.ok:
        warnings.append(Advice("NVML unavailable: clocks, power and temperature were not recorded",
                               "pip install nvidia-ml-py", "clocks"))
    for kernel, why in (skipped or {}).items():
        warnings.append(Advice(f"{kernel} not measured: {why}", "", kernel))
    if s.arch_int not in VERIFIED_ARCHS:
        warnings.append(Advice(f"the SASS for sm_{s.arch} is not statically verified "
                               "(tests/test_gpu_static.py covers sm_75..sm_120)",
                               "check the kernels' SASS for this architecture", "kernels"))

    def ceiling(res: _Result, theoretical, clock) -> Ceiling:
        c = Ceiling(value=res.best, samples=res.rates, theoretical=theoretical, clock_hz=clock,
                    source=f"roofline.microbench.gpu:{res.kernel} "
                           f"(grid {res.config.get('grid')}x{res.config.get('block')}, "
                           f"{res.config.get('blocks_per_sm')} blocks/SM)")
        if theoretical and res.best > 1.05 * theoretical:
            warnings.append(Advice(f"{res.kernel} measured {res.best / theoretical:.0%} of theoretical",
                                   "check the clock readings and the kernel's declared work", res.kernel))
        if c.spread > 0.10:
            warnings.append(Advice(f"{res.kernel} samples spread {c.spread:.0%}",
                                   "close other GPU work and lock clocks (nvidia-smi -lgc)", res.kernel))
        return c

    sm_clock = lambda r: _median_of(r.clocks, "sm_hz")  # noqa: E731
    mem_clock = lambda r: _median_of(r.clocks, "memory_hz")  # noqa: E731

    compute, extra, owner = {}, {}, {}
    for spec in KERNELS:  # two kernels may measure one ceiling (mma.sync, wgmma): keep the best
        r = results.get(spec.name)
        if r is None or spec.unit not in ("flop", "op"):
            continue
        c = ceiling(r, theory.compute_peak(spec.ceiling, cc, sms, sm_clock(r), name), sm_clock(r))
        if spec.ceiling in compute and compute[spec.ceiling].value >= c.value:
            extra[spec.name] = _plain(c)
            continue
        if spec.ceiling in compute:
            extra[owner[spec.ceiling]] = _plain(compute[spec.ceiling])
        compute[spec.ceiling], owner[spec.ceiling] = c, spec.name

    inst = None
    if "inst_mix" in results:
        r = results["inst_mix"]
        inst = ceiling(r, theory.instruction_peak(cc, sms, sm_clock(r)), sm_clock(r))

    memory = {}
    if "l1_read" in results:
        r = results["l1_read"]
        memory["L1"] = MemoryLevel("L1", ceiling(r, theory.onchip_peak("L1", cc, sms, sm_clock(r)),
                                                 sm_clock(r)), transaction_bytes=32)
    if "l2_read" in results:
        r = results["l2_read"]
        memory["L2"] = MemoryLevel("L2", ceiling(r, None, sm_clock(r)), transaction_bytes=32,
                                   capacity_bytes=info["l2_bytes"] or None)
    streams = [results[k] for k in ("dram_read", "dram_copy", "dram_write") if k in results]
    if streams:
        best = max(streams, key=lambda r: r.best)
        theo = theory.dram_peak(mem_clock(best), info["bus_width_bits"])
        memory["DRAM"] = MemoryLevel("DRAM", ceiling(best, theo, mem_clock(best)), transaction_bytes=32,
                                     capacity_bytes=info["memory_bytes"] or None)
        for r in streams:
            if r is not best:
                extra[r.kernel] = _plain(ceiling(r, theo, mem_clock(r)))
    if dram_bytes < 4 * info["l2_bytes"]:
        warnings.append(Advice("DRAM test buffer is smaller than 4x the L2",
                               "free device memory and measure again", "DRAM"))
    h2d = host.get("h2d_pinned_samples")
    if h2d:
        theo = theory.pcie_peak(static.get("pcie_generation") or 0, static.get("pcie_width") or 0)
        memory["PCIe"] = MemoryLevel("PCIe", Ceiling(value=max(h2d), samples=h2d, theoretical=theo,
                                                     source="cudaMemcpy pinned host-to-device"))
    if "shared_read" in results:
        r = results["shared_read"]
        extra["shared_read"] = _plain(ceiling(r, theory.onchip_peak("shared", cc, sms, sm_clock(r)),
                                              sm_clock(r)))

    all_clocks = [c for r in results.values() for c in r.clocks]
    clocks_hz = {k: v for k, v in {
        "sm": _median_of(all_clocks, "sm_hz"), "memory": _median_of(all_clocks, "memory_hz"),
        "sm_max": static.get("max_sm_hz"), "memory_max": static.get("max_memory_hz")}.items() if v}
    power = _median_of(all_clocks, "power_w")
    temp = _median_of(all_clocks, "temperature_c")
    return Device(
        name=name, kind="gpu", compute=compute, memory=memory, instruction_rate=inst,
        launch_overhead_s=float(median(launch.rates)), clocks_hz=clocks_hz,
        architecture={
            "vendor": "NVIDIA", "compute_capability": f"{cc[0]}.{cc[1]}", "sm_count": sms,
            "l2_bytes": info["l2_bytes"], "memory_bytes": info["memory_bytes"],
            "bus_width_bits": info["bus_width_bits"], "warp_size": info["warp_size"],
            "max_threads_per_sm": info["max_threads_per_sm"],
            "pcie_generation": static.get("pcie_generation"), "pcie_width": static.get("pcie_width"),
        },
        provenance={
            "method": "measured", "tool": "roofline.microbench.gpu", "version": __version__,
            "date": _dt.date.today().isoformat(), "backend": f"cupy {info['cupy_version']}",
            "nvrtc": ".".join(map(str, s.nvrtc.version())), "sass_target": f"sm_{s.arch}",
            "driver": static.get("driver") or info.get("cuda_driver_version"),
            "power_w": power, "temperature_c": temp,
            "launch_overhead_samples_s": list(launch.rates),
            "dram_buffer_bytes": dram_bytes, "l2_window_bytes": l2_window,
            "configs": {k: r.config for k, r in results.items()},
            "extra_ceilings": extra,
            "host_link": {k: v for k, v in host.items() if not k.endswith("_samples")},
        },
        warnings=warnings,
    )


def _plain(c: Ceiling) -> dict:
    return {"value": c.value, "median": c.median, "spread": c.spread, "samples": list(c.samples),
            "theoretical": c.theoretical, "clock_hz": c.clock_hz, "source": c.source}
