"""How busy the machine is while a calibration runs: load average and
steal time, read from /proc (functions take the text, so tests inject it).

A busy machine is reported in the profile (``provenance.machine_load``) and
by ``roofline measure``; a busy run never silently replaces a quieter
profile (see :func:`busy_reasons`)."""
from __future__ import annotations

from dataclasses import dataclass

# Another process on the machine: 1-min load average above this share of
# the cores before the run starts (our own threads are not running yet).
LOAD_PER_CORE = 0.5
# The hypervisor took more than this share of CPU time during the run.
STEAL_SHARE = 0.05
# Samples of one ceiling further apart than this: the figure is not trustworthy.
SPREAD_LIMIT = 0.25


@dataclass(frozen=True)
class CpuTimes:
    total: float
    steal: float


def load_average(text: str) -> float:
    """1-minute load average from /proc/loadavg."""
    return float(text.split()[0])


def cpu_times(text: str) -> CpuTimes:
    """Aggregate CPU times (jiffies) from the ``cpu`` line of /proc/stat."""
    for line in text.splitlines():
        if line.startswith("cpu "):
            fields = [float(v) for v in line.split()[1:]]
            # user nice system idle iowait irq softirq steal guest guest_nice;
            # guest time is already counted in user/nice
            total = sum(fields[:8])
            steal = fields[7] if len(fields) > 7 else 0.0
            return CpuTimes(total, steal)
    raise ValueError("no cpu line in /proc/stat")


def steal_share(before: CpuTimes, after: CpuTimes) -> float:
    dt = after.total - before.total
    return (after.steal - before.steal) / dt if dt > 0 else 0.0


def read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def busy_reasons(load_before: float | None, steal: float | None, cores: int,
                 spreads: dict[str, float]) -> list[str]:
    """Why a run's figures should not be trusted (empty when quiet)."""
    out = []
    if load_before is not None and load_before > LOAD_PER_CORE * cores:
        out.append(f"load average {load_before:.2f} on {cores} cores before the run")
    if steal is not None and steal > STEAL_SHARE:
        out.append(f"the hypervisor took {100 * steal:.0f} % of CPU time (steal)")
    noisy = {k: v for k, v in spreads.items() if v > SPREAD_LIMIT}
    if noisy:
        worst = max(noisy, key=noisy.get)
        out.append(f"{worst} samples spread {100 * noisy[worst]:.0f} % (> {100 * SPREAD_LIMIT:.0f} %)")
    return out


def worst_spread(device) -> float:
    """The largest sample spread of a profile's ceilings (0 when none)."""
    ceilings = list(device.compute.values()) + [m.bandwidth for m in device.memory.values()]
    return max((c.spread for c in ceilings if c.samples), default=0.0)
