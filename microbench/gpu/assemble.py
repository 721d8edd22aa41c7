"""The measured results of one GPU as a :class:`~roofline.core.model.Device`:
ceilings with their samples, theoretical peaks at the clocks observed,
provenance, and warnings about suspicious figures."""
from __future__ import annotations

import datetime as _dt
from statistics import median

from ...core.errors import Advice
from ...core.model import Ceiling, Device, MemoryLevel

from . import theory
from .kernels import KERNELS
from .probe import median_of
from .session import Result, Session

VERIFIED_ARCHS = (75, 80, 86, 89, 90, 100, 120)  # tests/test_gpu_static.py


def to_device(s: Session, info, nvml, results, launch, host, dram_bytes, l2_window,
              skipped=None) -> Device:
    from ..._version import __version__

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

    def ceiling(res: Result, theoretical, clock) -> Ceiling:
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

    sm_clock = lambda r: median_of(r.clocks, "sm_hz")  # noqa: E731
    mem_clock = lambda r: median_of(r.clocks, "memory_hz")  # noqa: E731

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
        inst = ceiling(r, theory.instruction_peak(cc, sms, sm_clock(r), name), sm_clock(r))

    memory = {}
    if "l1_read" in results:
        r = results["l1_read"]
        memory["L1"] = MemoryLevel("L1", ceiling(r, theory.onchip_peak("L1", cc, sms, sm_clock(r), name),
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
        extra["shared_read"] = _plain(ceiling(r, theory.onchip_peak("shared", cc, sms, sm_clock(r), name),
                                              sm_clock(r)))

    all_clocks = [c for r in results.values() for c in r.clocks]
    clocks_hz = {k: v for k, v in {
        "sm": median_of(all_clocks, "sm_hz"), "memory": median_of(all_clocks, "memory_hz"),
        "sm_max": static.get("max_sm_hz"), "memory_max": static.get("max_memory_hz")}.items() if v}
    power = median_of(all_clocks, "power_w")
    temp = median_of(all_clocks, "temperature_c")
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
