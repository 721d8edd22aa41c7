"""Calibrate this CPU in the calling process: numba kernels -> timed samples
-> levels -> Device (:func:`measure_cpu`; :mod:`.run` runs it in a fresh
process, :mod:`.assemble` turns the samples into the profile).

Where each figure comes from (all kept as raw samples):

* clock: ``add_chain`` (2 dependent one-cycle integer ops per iteration) on
  one core; ``clocks_hz["core"]`` is the best sample (preemption only
  slows the chain), ``core_median`` the median. Wide vector code may run at
  a lower licence clock; ``clocks_hz["fma_implied"]`` = one-core FP64 FMA
  peak / (FMA pipes x lanes x 2) shows it.
* compute: 14-accumulator FMA blocks, one core and one pinned thread per
  core; the roof is the all-core best sample; one-core figures are kept in
  ``architecture["single_core"]``.
* memory: one-core pure-load sweep over working sets from 4 kB to >= 4x
  the reported last-level cache in geometric steps (one buffer, sliced);
  plateaus give the levels; each level's roof is then measured with all
  cores inside that plateau (private caches: the plateau size per core;
  shared L3 and DRAM: split across cores). A triad (STREAM counting)
  sweep is kept as the write figure.
* launch overhead: median time of calling an empty compiled kernel from
  Python.
"""
from __future__ import annotations

import glob
import math
import os
import sys
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...core.errors import Advice, MeasurementError
from ...core.model import Device
from .. import levels as _levels
from ..timing import Samples, geometric_sizes, measure, per_call_seconds
from .assemble import MiB, build_device, fmt_bytes
from .attempts import scaling, steady
from .cpuinfo import CpuInfo, configure_numba_environment, cpu_info


@dataclass(frozen=True)
class CpuPlan:
    """How thoroughly to measure. ``full()``: ~20-30 s; ``quick()``: < 10 s."""

    min_bytes: int = 4096
    max_bytes: int | None = None      # None: max(4 x reported LLC, 64 MiB)
    steps_per_octave: int = 4         # load sweep
    triad_steps_per_octave: int = 2
    min_time_s: float = 0.005         # each timed call lasts at least this
    repeats: int = 5
    long_call_s: float = 0.05         # calls longer than this ...
    long_repeats: int = 2             # ... are repeated this often (plus the calibration call)
    threads: int | None = None        # None: every usable core
    coarse_above_bytes: int | None = 256 * MiB  # fewer sizes above this ...
    coarse_steps_per_octave: int = 2            # ... this many per octave
    max_bytes_cap: int | None = None  # quick: stop here even if < 4x LLC (warned)
    wake_s: float = 0.3               # untimed all-core spin before each all-core phase
    retries: int = 2                  # a ceiling whose samples spread > 10 % is measured again
    max_wait_s: float = 30.0          # wait this long at most for other processes to quiet down
    mode: str = "full"

    @classmethod
    def full(cls, **kw) -> "CpuPlan":
        return cls(**kw)

    @classmethod
    def quick(cls, **kw) -> "CpuPlan":
        base = dict(steps_per_octave=2, triad_steps_per_octave=1, min_time_s=0.004,
                    repeats=3, long_repeats=1, coarse_above_bytes=64 * MiB,
                    coarse_steps_per_octave=1, max_bytes_cap=512 * MiB, max_wait_s=15.0,
                    mode="quick")
        base.update(kw)
        return cls(**base)


HUGE_PAGE_BYTES = 2 << 20
# Before each retry of a noisy ceiling, wait at most this long for the cores to be idle.
RETRY_WAIT_S = 5.0


def _aligned_buffer(nbytes: int, align: int = 64, touch: bool = True) -> np.ndarray:
    """One float64 buffer for every sweep, touched before timing.

    Anonymous mmap with MADV_HUGEPAGE where available: first-touching 2 GiB
    in 4 KiB pages took 6.8 s in a VM here, 0.5 s with transparent huge pages.
    Its start is aligned to a huge page: mmap placed it 4 KiB before a 2 MiB
    boundary, so every L1-sized working set straddled a 4 KiB page and a
    2 MiB one, and the one-core load rate dipped to 106-146 GB/s at 5-16 KiB
    (Zen 4 VM); from a 2 MiB boundary the same sweep read 187-219 GB/s at
    every size from 4 to 32 KiB.
    """
    n = int(math.ceil(nbytes / 8))
    buf = None
    try:
        import mmap
        m = mmap.mmap(-1, n * 8 + HUGE_PAGE_BYTES, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        if hasattr(mmap, "MADV_HUGEPAGE"):
            m.madvise(mmap.MADV_HUGEPAGE)
        whole = np.frombuffer(m, dtype=np.float64)
        off = (-whole.ctypes.data % HUGE_PAGE_BYTES) // 8
        buf = whole[off:off + n]
    except (ImportError, AttributeError, OSError, ValueError):
        raw = np.empty(n + align // 8, dtype=np.float64)
        off = (-raw.ctypes.data % align) // 8
        buf = raw[off:off + n]
    if touch:
        buf.fill(1.0)  # first touch: every page is really mapped before timing
    return buf


def _thread_affinities() -> list[str]:
    out = []
    for status in glob.glob("/proc/self/task/*/status"):
        try:
            with open(status) as fh:
                for line in fh:
                    if line.startswith("Cpus_allowed_list"):
                        out.append(line.split(":", 1)[1].strip())
        except OSError:
            pass
    return out


class _Progress:
    def __init__(self, enabled, total: int):
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, desc="measuring CPU", unit="step", file=sys.stderr,
                                dynamic_ncols=True, leave=False)
            except ImportError:  # pragma: no cover
                self.bar = None

    def step(self, what: str, n: int = 1):
        if self.bar is not None:
            self.bar.set_postfix_str(what, refresh=False)
            self.bar.update(n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def measure_cpu(quick: bool = False, progress=None, name: str | None = None, *,
                plan: CpuPlan | None = None,
                clock: Callable[[], float] = time.perf_counter,
                info: CpuInfo | None = None, say: Callable[[str], object] | None = None) -> Device:
    """Measure this CPU in the calling process and return a Device(kind="cpu").

    ``progress``: truthy shows a tqdm bar on stderr. ``say(text)``, when
    given, is told that the run waits for a busy machine. ``plan`` overrides
    ``quick`` (tests use a tiny plan); ``info`` overrides what the OS
    reports (tests inject cache sizes so thresholds do not depend on the
    machine). Raises MeasurementError when numba is missing.
    """
    wall0 = time.perf_counter()
    from . import busy
    plan = plan or (CpuPlan.quick() if quick else CpuPlan.full())
    # Another process on a 2-core machine halves the all-core figures: wait
    # (bounded) until the cores are idle, and record what was seen.
    def waiting(share):
        if say is not None:
            say(f"other processes use {100 * share:.0f} % of the CPU; waiting up to "
                f"{plan.max_wait_s:.0f} s for it to quiet down")
    quiet = (busy.wait_for_quiet(lambda: busy.read("/proc/stat"), time.sleep, plan.max_wait_s,
                                 on_wait=waiting) if plan.max_wait_s > 0 else None)
    settle = _retry_waits(busy, plan.max_wait_s) if plan.max_wait_s > 0 else None
    load_text, stat_text = busy.read("/proc/loadavg"), busy.read("/proc/stat")
    info = info or cpu_info()
    threads = plan.threads or info.threads
    env_applied = configure_numba_environment(info, threads)
    try:
        import numba
    except ImportError as exc:
        raise MeasurementError(
            f"numba is not installed ({exc}); `roofline measure` on the CPU needs it: "
            "pip install numba") from None
    layer = _use_openmp_layer(numba)
    from . import kernels as K

    warnings: list[Advice] = []
    if not env_applied:
        warnings.append(Advice(
            "numba was imported before the measurement configured it, so threads may be "
            "unpinned and AVX-512 code limited to 256-bit vectors",
            "use `roofline measure` or measure_cpu_isolated(), which start a fresh process",
            "environment"))

    assumed = info.uarch().assumption
    if assumed:
        warnings.append(Advice(assumed, "measured figures are unaffected; only the % of theoretical "
                               "uses it (microbench/cpu/uarch.py lists the known cores)", "theoretical"))

    llc = max((c.size_bytes for c in info.os_caches), default=32 * MiB)
    max_bytes = plan.max_bytes or max(4 * llc, 64 * MiB)
    if plan.max_bytes is None and plan.max_bytes_cap:
        # --quick: first-touching GiBs costs seconds in a VM whose balloon
        # hands freed pages back to the host (6 s for 2 GiB here)
        max_bytes = min(max_bytes, max(plan.max_bytes_cap, 64 * MiB))
    step_bytes = K.LOAD_MULTIPLE * 8 * 3  # multiple of the load step and of 3 streams
    load_sizes = geometric_sizes(plan.min_bytes, max_bytes, plan.steps_per_octave,
                                 multiple=K.LOAD_MULTIPLE * 8)
    if plan.coarse_above_bytes and plan.coarse_above_bytes < max_bytes:
        head = [s for s in load_sizes if s < plan.coarse_above_bytes]
        load_sizes = head + geometric_sizes(plan.coarse_above_bytes, max_bytes,
                                            plan.coarse_steps_per_octave,
                                            multiple=K.LOAD_MULTIPLE * 8)
    triad_sizes = geometric_sizes(max(plan.min_bytes, step_bytes), max_bytes,
                                  plan.triad_steps_per_octave, multiple=step_bytes)
    buf_bytes = max(load_sizes[-1], triad_sizes[-1])
    steps = 4 + 4 + len(load_sizes) + len(triad_sizes) + 7
    bar = _Progress(progress, steps)
    try:
        phases = {}
        t = time.perf_counter()
        K.warm_all(_aligned_buffer(64 * 1024), threads)   # compile or load numba's cache
        compile_s = time.perf_counter() - t
        phases["compile"] = compile_s
        t = time.perf_counter()
        buf = _aligned_buffer(buf_bytes, touch=False)
        K.fill_par(buf, 1.0, threads)   # first touch by the pinned threads
        phases["first_touch"] = first_touch_s = time.perf_counter() - t
        bar.step(f"allocated {fmt_bytes(buf_bytes)}")
        hits = sum(sum(getattr(K, k).stats.cache_hits.values()) for k in K.ALL_KERNELS)
        misses = sum(sum(getattr(K, k).stats.cache_misses.values()) for k in K.ALL_KERNELS)
        bar.step("compiled kernels")
        affinities = _thread_affinities()
        pinned = layer == "omp" and env_applied and sum(1 for a in affinities if a.isdigit()) >= min(threads, 2)

        # assembly check: vector FMAs in the compute kernels
        asm = {p: K.fresh_vector_fma_counts(K.fma_f64 if p == "fp64" else K.fma_f32,
                                            K.FMA_SIGNATURES[p]) for p in ("fp64", "fp32")}
        for p, counts in asm.items():
            if sum(counts.values()) == 0:
                warnings.append(Advice(
                    f"numba generated no vector FMA (vfmadd...p{'d' if p == 'fp64' else 's'} on "
                    f"ymm/zmm) for the {p} kernel, so its peak is far below the hardware's",
                    "check that numba targets this CPU (NUMBA_CPU_NAME/NUMBA_CPU_FEATURES unset) "
                    "and that the CPU has FMA", p))
        bar.step("checked assembly")
        phases["asm_check"] = time.perf_counter() - t - first_touch_s
        t = time.perf_counter()

        meas = dict(min_time_s=plan.min_time_s, repeats=plan.repeats, clock=clock,
                    long_call_s=plan.long_call_s, long_repeats=plan.long_repeats)

        # clock actually reached (one core)
        # short calls, many of them: preemption only slows a sample, the best is the clock
        clock_s = measure(lambda r: K.add_chain(r, 3, 5, 7), K.ADD_CHAIN_CYCLES_PER_ITER,
                          **{**meas, "min_time_s": 0.002, "repeats": max(9, plan.repeats)},
                          start=_start_reps(0.002, 6e9, K.ADD_CHAIN_CYCLES_PER_ITER))
        # upper bounds of each rate (x1.5 the theoretical at the measured clock)
        up_clock = 1.5 * clock_s.best
        def flop_start(p, n):
            return _start_reps(plan.min_time_s, info.theoretical_flop_s(p, up_clock, n),
                               K.fma_flop_per_rep(p, n))

        def load_start(nbytes, n=1):
            return _start_reps(plan.min_time_s, n * info.load_bytes_per_cycle() * up_clock, nbytes)
        bar.step(f"clock {clock_s.best / 1e9:.2f} GHz")

        # compute peaks
        a64, b64 = 0.999999, 1e-6
        a32, b32 = np.float32(0.9999), np.float32(1e-4)
        one, allc = {}, {}
        repeated: dict[str, int] = {}
        for p, a, b in (("fp64", a64, b64), ("fp32", a32, b32)):
            kernel = K.fma_f64 if p == "fp64" else K.fma_f32
            one[p] = steady(lambda: measure(lambda r: kernel(r, a, b), K.fma_flop_per_rep(p), **meas,
                                             start=flop_start(p, 1)), plan.retries, f"{p} one core", repeated, settle)
            bar.step(f"{p} one core")
        wake_reps = flop_start("fp64", threads)
        spin_all = lambda: K.fma_f64_par(wake_reps, a64, b64, threads)  # noqa: E731 - used twice
        _wake_cores(spin_all, plan.wake_s)
        for p, a, b in (("fp64", a64, b64), ("fp32", a32, b32)):
            kernel = K.fma_f64_par if p == "fp64" else K.fma_f32_par
            take_all = lambda: steady(  # noqa: E731 - taken again below while it does not scale
                lambda: measure(lambda r: kernel(r, a, b, threads), K.fma_flop_per_rep(p, threads), **meas,
                                start=flop_start(p, threads)),
                plan.retries, f"{p} {threads} cores", repeated, settle)
            allc[p] = scaling(take_all, one[p].best, threads, plan.retries, settle,
                               f"{p} {threads} cores, scaling", repeated)
            bar.step(f"{p} {threads} cores")

        # the other units (bf16, int8, int32, AMX ...) the CPU has, each skipped with its reason
        from . import units as U
        t_units = time.perf_counter()
        unit_results = U.measure_units(info, threads, meas, plan.retries, repeated=repeated,
                                       settle=settle, clock_hz=up_clock)
        phases["units"] = time.perf_counter() - t_units
        bar.step("other units")
        phases["clock_and_compute"] = time.perf_counter() - t
        t = time.perf_counter()
        # launch overhead: an empty compiled kernel called from Python
        overhead = per_call_seconds(K.empty, min_time_s=plan.min_time_s, repeats=plan.repeats,
                                    clock=clock)
        bar.step("launch overhead")

        # one-core sweeps
        load_curve = []
        for size in load_sizes:
            n = size // 8
            load_curve.append(measure(lambda r, n=n: K.load(buf, n, r), 8.0 * n, **meas,
                                      start=load_start(8.0 * n)))
            bar.step(f"load {fmt_bytes(size)}")
        phases["load_sweep"] = time.perf_counter() - t
        t = time.perf_counter()
        triad_curve = []
        for size in triad_sizes:
            n = size // 8
            triad_curve.append(measure(lambda r, n=n: K.triad(buf, n, r, 0.5), K.triad_bytes(n), **meas,
                                       start=load_start(K.triad_bytes(n))))
            bar.step(f"triad {fmt_bytes(size)}")

        phases["triad_sweep"] = time.perf_counter() - t
        t = time.perf_counter()
        best_rates = [s.best for s in load_curve]
        # OS cache sizes as priors, the curve as evidence (the blind fit when
        # the OS reports no L1)
        fit = _levels.detect_levels(load_sizes, best_rates, os_caches=info.os_caches)

        # all-core roof inside each plateau
        _wake_cores(spin_all, plan.wake_s)
        level_all: dict[str, tuple[Samples, int]] = {}
        shared = {c.name for c in info.os_caches if c.shared_cpus > 1}
        for p in fit.plateaus:
            total = _probe_bytes(p, load_sizes, threads, p.name == "DRAM" or p.name in shared,
                                 buf_bytes, K.LOAD_MULTIPLE * 8)
            n_per = total // threads // 8
            s = steady(lambda n=n_per: measure(lambda r: K.load_par(buf, n, r, threads),
                                                8.0 * n * threads, **meas,
                                                start=load_start(8.0 * n * threads, threads)),
                        plan.retries, f"{p.name} {threads} cores", repeated, settle)
            level_all[p.name] = (s, n_per * 8 * threads)
            bar.step(f"{p.name} {threads} cores")
        n_tri = (buf_bytes // threads // 8) // 3 * 3
        triad_all = steady(lambda: measure(lambda r: K.triad_par(buf, n_tri, r, 0.5, threads),
                                            K.triad_bytes(n_tri) * threads, **meas,
                                            start=load_start(K.triad_bytes(n_tri) * threads, threads)),
                            plan.retries, f"DRAM triad {threads} cores", repeated, settle)
        bar.step("DRAM triad, all cores")
        phases["all_core_levels"] = time.perf_counter() - t
    finally:
        bar.close()

    wall_s = time.perf_counter() - wall0
    fma_clock = one["fp64"].best / info.flop_per_cycle("fp64")
    machine_load = _machine_load(busy, load_text, stat_text, threads)
    if quiet is not None:
        machine_load.update(busy_share_before=None if quiet.share is None else round(quiet.share, 4),
                            waited_for_quiet_s=round(quiet.waited_s, 2))
    device = build_device(
        name=name or "my-cpu", info=info, threads=threads, plan=plan, clock_s=clock_s,
        fma_clock=fma_clock, one=one, allc=allc, units=unit_results, overhead=overhead, load_sizes=load_sizes,
        load_curve=load_curve, triad_sizes=triad_sizes, triad_curve=triad_curve, fit=fit,
        level_all=level_all, triad_all=triad_all, max_bytes=buf_bytes, llc=llc, warnings=warnings,
        provenance_extra={
            "numba": numba.__version__, "threading_layer": layer, "threads_pinned": pinned,
            "thread_affinities": affinities, "numba_env_applied": env_applied,
            "numba_cpu_features": os.environ.get("NUMBA_CPU_FEATURES", "numba default"),
            "compile_time_s": round(compile_s, 3),
            "numba_cache": "warm" if misses == 0 else ("cold" if hits == 0 else "partial"),
            "first_touch_s": round(first_touch_s, 3),
            "phase_times_s": {k: round(v, 3) for k, v in phases.items()},
            "asm_vector_fma": {p: dict(c) for p, c in asm.items()},
            "wall_time_s": round(wall_s, 3),
            "machine_load": machine_load,
            "measured_again": repeated,
        })
    return _with_busy_verdict(device, machine_load, threads)


def _retry_waits(busy, budget_s: float) -> Callable[[], None]:
    """Before a retry: wait for idle cores, at most RETRY_WAIT_S each time
    and ``budget_s`` in all (a machine that stays busy would otherwise
    cost RETRY_WAIT_S per retried ceiling: 72 s for a quick run here)."""
    left = [budget_s]

    def settle() -> None:
        if left[0] > 0:
            left[0] -= busy.wait_for_quiet(lambda: busy.read("/proc/stat"), time.sleep,
                                           min(RETRY_WAIT_S, left[0])).waited_s
    return settle


def _machine_load(busy, load_text, stat_text, threads) -> dict:
    """Load average before the run and the hypervisor's steal share during it."""
    after = busy.read("/proc/stat")
    load = busy.load_average(load_text) if load_text else None
    steal = None
    if stat_text and after:
        try:
            steal = busy.steal_share(busy.cpu_times(stat_text), busy.cpu_times(after))
        except ValueError:
            steal = None
    return {"load_average_before": load, "steal_share": None if steal is None else round(steal, 4),
            "cores": threads}


def _with_busy_verdict(device, machine_load: dict, threads: int):
    """Mark a profile measured on a busy machine: a prominent warning and
    ``machine_load.busy`` (``roofline measure`` then refuses to replace a
    quieter profile with it)."""
    from dataclasses import replace

    from . import busy
    spreads = {k: c.spread for k, c in device.compute.items() if c.samples}
    spreads.update({k: m.bandwidth.spread for k, m in device.memory.items() if m.bandwidth.samples})
    reasons = busy.busy_reasons(machine_load["load_average_before"], machine_load["steal_share"],
                                threads, spreads, machine_load.get("busy_share_before"))
    prov = dict(device.provenance)
    prov["machine_load"] = {**machine_load, "busy": bool(reasons), "reasons": reasons}
    warnings = list(device.warnings)
    if reasons:
        warnings.insert(0, Advice("MEASURED ON A BUSY MACHINE: " + "; ".join(reasons),
                                  "measure again when the machine is idle", "machine"))
    return replace(device, provenance=prov, warnings=tuple(warnings))


def _start_reps(min_time_s: float, upper_rate: float, work_per_rep: float) -> int:
    """Where calibration starts: a quarter of ``min_time_s`` at an upper bound
    of the rate. A call can then never be mostly fixed cost (waking worker
    threads on a busy machine takes milliseconds), whatever the noise."""
    return max(1, int(0.25 * min_time_s * upper_rate / work_per_rep))


def _wake_cores(spin: Callable[[], object], seconds: float) -> None:
    """Run ``spin`` (one all-core call of a few milliseconds) untimed for
    ``seconds``. The other cores idle through the one-core sweeps, and a
    vCPU woken from idle ran its first tens of milliseconds slow on a Zen 3
    VM: the first all-core L1 sample read 277 GB/s, the next four 372-393
    (30 % spread on an idle machine, so the run was flagged busy)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        spin()


def _use_openmp_layer(numba) -> str:
    """Select numba's OpenMP layer (honours OMP_PROC_BIND/OMP_PLACES) if it loads."""
    try:
        import numba.np.ufunc.omppool  # noqa: F401
    except ImportError:
        return str(numba.config.THREADING_LAYER)
    if numba.config.THREADING_LAYER in ("default", "safe", "threadsafe", "omp", "forksafe"):
        numba.config.THREADING_LAYER = "omp"
    return str(numba.config.THREADING_LAYER)


def _probe_bytes(p, sizes, threads: int, shared: bool, buf_bytes: int, multiple: int) -> int:
    """Total working set for the all-core test of plateau ``p``."""
    core = [sizes[i] for i in (p.core or range(p.first, p.last + 1))]
    if p.name == "DRAM":
        per_thread = buf_bytes // threads
    else:
        centre = math.sqrt(core[0] * core[-1])
        per_thread = centre / threads if shared else centre
    per_thread = max(multiple, int(per_thread // multiple) * multiple)
    return min(per_thread * threads, buf_bytes // multiple * multiple)
