"""Facts about an NVIDIA GPU: CuPy device properties (``probe_gpu``) and NVML
readings of clocks, power and temperature (``Nvml``).

Errors are one plain line (:class:`MeasurementError`) when CuPy, the
driver or the device is missing. CuPy and NVML are imported on use.
"""
from __future__ import annotations

from statistics import median

from ...core.errors import MeasurementError

NO_CUPY = "CuPy is not installed (pip install 'roofline[gpu]')"
NO_DRIVER = "no NVIDIA driver found"
NO_DEVICE = "no GPU device found"

# cudaError_t values that mean "no usable driver" / "no device".
_DRIVER_STATUS = {34, 35, 3}   # stub library, insufficient driver, init error
_DEVICE_STATUS = {100, 101}    # no device, invalid device


def import_cupy():
    try:
        import cupy
    except ImportError:
        raise MeasurementError(NO_CUPY) from None
    return cupy


def cuda_failure(exc) -> MeasurementError:
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
    cp = import_cupy()
    rt = cp.cuda.runtime
    try:
        count = rt.getDeviceCount()
    except rt.CUDARuntimeError as exc:
        raise cuda_failure(exc) from None
    if count < 1 or not 0 <= index < count:
        raise MeasurementError(NO_DEVICE if count < 1 else
                               f"{NO_DEVICE} at index {index} ({count} present)")
    try:
        p = rt.getDeviceProperties(index)
    except rt.CUDARuntimeError as exc:
        raise cuda_failure(exc) from None

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

class Nvml:
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


def median_of(samples: list[dict], key: str) -> float | None:
    vals = [s[key] for s in samples if s.get(key)]
    return float(median(vals)) if vals else None
