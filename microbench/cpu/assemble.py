"""The samples of one CPU calibration as a :class:`~roofline.core.model.Device`:
roofs from the all-core samples, one-core figures and the sweeps kept in
``architecture`` and ``provenance``, and warnings about suspicious figures."""
from __future__ import annotations

import datetime as _dt
import os

import numpy as np

from ...core.errors import Advice
from ...core.model import Ceiling, Device, MemoryLevel
from ...core.units import format_iec
from .attempts import ALL_CORE_MIN_SCALING, SPREAD_LIMIT, roof_at_least
from .cpuinfo import CpuInfo

MiB = 1024 ** 2
# The clock is measured seconds before or after a kernel runs, and a VM's
# boost clock moves by a percent or two in between (one core FP64 read
# 100.2-100.5 % of its theoretical here): within this a figure is at its
# limit, not above it, and no warning blames the FMA pipe table.
CLOCK_NOISE = 0.02
K_ACC = 14


def above_theoretical(value: float, theoretical: float | None) -> bool:
    """Above its theoretical bound by more than the clock's noise."""
    return theoretical is not None and value > (1 + CLOCK_NOISE) * theoretical


fmt_bytes = format_iec   # cache and buffer sizes in binary units


def _floored_advice(what: str, floor: float, measured: float, unit: str, scale: float, subject: str) -> Advice:
    return Advice(f"all cores read {measured / scale:.1f} {unit}, below {what}'s {floor / scale:.1f}: "
                  f"the roof is {what}'s figure", "another process likely held a core during the "
                  "all-core test: measure again when the machine is idle", subject)


def levels_in_order(memory: dict, warnings: list) -> dict:
    """Each level's roof at least the next (slower, larger) level's: data
    that fits a cache can always be read at the rate measured from the
    level below it, so a cache reading slower than DRAM was disturbed
    while it was measured. The raised level says so in its source."""
    from dataclasses import replace
    names = list(memory)
    out = dict(memory)
    for upper, lower in reversed(list(zip(names, names[1:]))):
        below = out[lower].bandwidth.value
        c = out[upper].bandwidth
        if c.value < below:
            warnings.append(Advice(f"read {c.value / 1e9:.1f} GB/s, below {lower}'s {below / 1e9:.1f}: "
                                   f"the roof is {lower}'s figure",
                                   "another process likely disturbed this level's test: measure again "
                                   "when the machine is idle", upper))
            out[upper] = replace(out[upper], bandwidth=replace(
                c, value=below, source=f"{c.source}; {lower}'s figure, as this level read less"))
    return out


def _tool_version() -> str:
    try:
        from ..._version import __version__
    except ImportError:  # pragma: no cover
        __version__ = "unknown"
    return f"roofline {__version__}"


def _physical_memory() -> float | None:
    try:
        return float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def build_device(*, name, info: CpuInfo, threads, plan, clock_s, fma_clock, one, allc, units=(), overhead,
                 load_sizes, load_curve, triad_sizes, triad_curve, fit, level_all, triad_all,
                 max_bytes, llc, warnings, provenance_extra) -> Device:
    clock_hz = clock_s.best  # preemption only ever slows the chain: the best is the clock
    warnings = list(warnings)
    compute = {}
    for p in ("fp64", "fp32"):
        theo = info.theoretical_flop_s(p, clock_hz, threads)
        value, floored = roof_at_least(allc[p].best, one[p].best)
        compute[p] = Ceiling(value=value, samples=allc[p].rates, theoretical=theo,
                             clock_hz=clock_hz,
                             source=f"numba FMA, {K_ACC} vector accumulators, {threads} pinned threads"
                                    + ("; one core's best, as all cores read less" if floored else ""))
        if floored:
            warnings.append(_floored_advice("one core", one[p].best, allc[p].best, "GFLOP/s", 1e9, p))
        if threads >= 2 and allc[p].best < ALL_CORE_MIN_SCALING * one[p].best:
            warnings.append(Advice(
                f"{threads} cores reach only {allc[p].best / one[p].best:.2f}x one core",
                "the host may be scheduling the vCPUs on one physical core, or another process "
                "is running: measure again when the machine is idle", p))
        one_theo = info.theoretical_flop_s(p, clock_hz, 1)
        if above_theoretical(one[p].best, one_theo):
            warnings.append(Advice(
                f"one core measured {one[p].best / 1e9:.1f} GFLOP/s, above the theoretical "
                f"{one_theo / 1e9:.1f} at the measured clock",
                "the FMA pipe table or the clock measurement is wrong for this CPU", p))

    from .units import fma_unit_entries, unit_architecture, unit_ceilings
    compute.update(unit_ceilings(units, clock_hz, threads))
    for r in units:
        for note in r.notes:
            warnings.append(Advice(note, "check that numba targets this CPU", r.key))

    memory = {}
    mem_one = {}
    triad_one = {}
    ram = _physical_memory()
    triad_best = np.array([s.best for s in triad_curve])
    for p in fit.plateaus:
        s, total = level_all[p.name]
        theo = None
        if p.name == "L1" and info.x86:
            theo = threads * info.load_bytes_per_cycle() * clock_hz
        cap = ram if p.name == "DRAM" else p.capacity_bytes
        value, floored = roof_at_least(s.best, p.best)
        if floored:
            warnings.append(_floored_advice("one core", p.best, s.best, "GB/s", 1e9, p.name))
        memory[p.name] = MemoryLevel(
            name=p.name,
            bandwidth=Ceiling(value=value, samples=s.rates, theoretical=theo, clock_hz=clock_hz,
                              source=f"pure vector loads, two half-streams, {threads} threads, "
                                     f"{fmt_bytes(total)} in all"
                                     + ("; one core's best, as all cores read less" if floored else "")),
            transaction_bytes=64.0, capacity_bytes=cap)
        mem_one[p.name] = {"bytes_s": p.best, "median": p.median,
                           "sizes_bytes": [load_sizes[p.first], load_sizes[p.last]],
                           "os_bytes": p.os_bytes, "measured_bytes": p.measured_bytes}
        lo, hi = load_sizes[p.first], load_sizes[p.last]
        in_range = [i for i, sz in enumerate(triad_sizes) if lo <= sz <= hi]
        if p.name == "DRAM":  # the largest working set is DRAM whatever the fit says
            in_range = [len(triad_sizes) - 1]
        if in_range:
            triad_one[p.name] = float(triad_best[in_range].max())
        if above_theoretical(s.best, theo):
            warnings.append(Advice(f"{s.best / 1e9:.0f} GB/s is above the theoretical "
                                   f"{theo / 1e9:.0f} GB/s (2 vector loads per cycle)",
                                   "check the clock measurement", p.name))
    memory = levels_in_order(memory, warnings)
    warnings.extend(level_warnings(fit))
    expected = ["L1"] + [c.name for c in info.os_caches if c.level >= 2] + ["DRAM"]
    missing = [n for n in expected if n not in memory]
    if missing:
        warnings.append(Advice(f"no plateau found for {', '.join(missing)}",
                               "the bandwidth curve is in provenance.sweep; measure again without --quick",
                               "memory"))
    if max_bytes < 4 * llc:
        warnings.append(Advice(
            f"the largest working set ({fmt_bytes(max_bytes)}) is smaller than 4x the last-level "
            f"cache ({fmt_bytes(llc)}), so DRAM may be measured in cache", "use the full plan",
            "DRAM"))
    for key, c in [(k, c) for k, c in compute.items()] + [(k, m.bandwidth) for k, m in memory.items()]:
        if c.spread > SPREAD_LIMIT:
            warnings.append(Advice(f"samples spread {100 * c.spread:.0f} % (> 10 %)",
                                   "another process may be running; the roof uses the best sample",
                                   key))
    if clock_s.spread > SPREAD_LIMIT:
        warnings.append(Advice(f"clock samples spread {100 * clock_s.spread:.0f} %",
                               "frequency scaling or another process", "clock"))

    single = {p: {"flop_s": one[p].best, "median": one[p].median, "spread": round(one[p].spread, 6),
                  "samples": list(one[p].rates),
                  "theoretical_flop_s": info.theoretical_flop_s(p, clock_hz, 1)} for p in one}
    # the other units' one-core figures beside FMA's: a trace recorded on one
    # thread is placed on them (core.cores), a bf16 GEMM on one core's bf16 rate
    single.update({r.key: {"flop_s": r.one.best, "median": r.one.median, "spread": round(r.one.spread, 6),
                           "samples": list(r.one.rates),
                           "theoretical_flop_s": None if r.ops_per_cycle is None else r.ops_per_cycle * clock_hz}
                   for r in units if r.key in compute and r.measured})
    provenance = {
        "method": "measured",
        "tool": _tool_version(),
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu_model": info.model,
        "mode": plan.mode,
        "clock_method": "dependent integer chain x = (x ^ y) + z, 2 cycles per iteration, one core",
        "launch_overhead_method": "median time of calling an empty numba function from Python",
        "launch_overhead_samples_s": list(overhead.rates),
        **provenance_extra,
        "clock_samples_hz": list(clock_s.rates),
        "levels": {p.name: {"from_bytes": load_sizes[p.first], "to_bytes": load_sizes[p.last],
                            "capacity_bytes": p.capacity_bytes, "os_bytes": p.os_bytes,
                            "measured_bytes": p.measured_bytes}
                   for p in fit.plateaus},
        "sweep": {
            "load": _curve_dict(load_sizes, load_curve, "one core, pure vector loads, two half-streams"),
            "triad": _curve_dict(triad_sizes, triad_curve, "one core, a = b + s*c, 24 B per element"),
        },
    }
    architecture = {
        **info.describe(),
        "threads_measured": threads,
        "single_core": {"compute": single, "memory": mem_one},
        "units": {**fma_unit_entries(info, one, allc, provenance_extra.get("asm_vector_fma", {}), clock_hz, threads),
                  **unit_architecture(units, clock_hz, threads)},
        "triad_bytes_s": {"single_core": triad_one,
                          "all_cores": {"DRAM": triad_all.best, "median": triad_all.median,
                                        "samples": list(triad_all.rates)}},
    }
    return Device(name=name, kind="cpu", compute=compute, memory=memory,
                  launch_overhead_s=overhead.median,
                  clocks_hz={"core": clock_hz, "core_median": clock_s.median, "fma_implied": fma_clock},
                  architecture=architecture, provenance=provenance, warnings=tuple(warnings))



# The OS size and the measured knee of a level disagree when they are this
# far apart (a VM's share of the host's L3 ends early; a knee found within
# a factor 2 is the same cache seen through a curve that bends gradually).
CAPACITY_DISAGREEMENT = 2.0


def level_warnings(fit) -> list[Advice]:
    """The level fit's notes (equal or inverted adjacent levels) and a
    warning for each level whose measured end is more than 2x away from the
    size the OS reports."""
    out = list(fit.notes)
    for p in fit.plateaus:
        if not (p.os_bytes and p.measured_bytes):
            continue
        ratio = p.measured_bytes / p.os_bytes
        if ratio > CAPACITY_DISAGREEMENT or ratio < 1 / CAPACITY_DISAGREEMENT:
            # a late end: a Zen 3 VM's quick sweep read 89-75 GB/s from 724 KiB
            # to 2 MiB past its (correct) 512 KiB L2, then 60 in L3
            why = ("the curve falls gradually past the OS size (the next level reads nearly as fast "
                   "just beyond it)" if ratio > 1 else
                   "normal for a shared cache in a VM (the OS reports the host's)")
            out.append(Advice(
                f"the {p.name} plateau ends near {fmt_bytes(p.measured_bytes)} but the OS reports "
                f"{fmt_bytes(p.os_bytes)}",
                why + "; the profile is labelled with the OS size and keeps the measured one beside it "
                "(architecture.single_core.memory, provenance.levels)", p.name))
    return out


def _curve_dict(sizes, curve, what) -> dict:
    return {"what": what, "sizes_bytes": [int(s) for s in sizes],
            "best_bytes_s": [s.best for s in curve], "median_bytes_s": [s.median for s in curve],
            "samples_bytes_s": [list(s.rates) for s in curve]}

