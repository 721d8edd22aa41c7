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
# Other processes used more than this share of all cores while ours slept
# (sampled over QUIET_WINDOW_S just before measuring): the machine is busy
# now. The 1-minute load average lags a finished job by minutes, so this
# instantaneous share rules when it was sampled.
BUSY_SHARE = 0.25
QUIET_WINDOW_S = 0.5


@dataclass(frozen=True)
class CpuTimes:
    total: float
    steal: float
    idle: float = 0.0


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
            idle = sum(fields[3:5])   # idle + iowait
            return CpuTimes(total, steal, idle)
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


def busy_share(before: CpuTimes, after: CpuTimes) -> float:
    """Share of all CPU time that was not idle between two /proc/stat reads
    (taken while this process sleeps, so it is other processes' work)."""
    dt = after.total - before.total
    return (dt - (after.idle - before.idle)) / dt if dt > 0 else 0.0


@dataclass(frozen=True)
class QuietWait:
    """What :func:`wait_for_quiet` saw: the last busy share sampled, the
    seconds spent sampling and waiting, and whether the machine was quiet
    when it returned."""

    share: float | None
    waited_s: float
    quiet: bool


def wait_for_quiet(read_stat, sleep, max_wait_s: float, window_s: float = QUIET_WINDOW_S,
                   on_wait=None) -> QuietWait:
    """Sample the busy share over ``window_s`` until it is at most
    :data:`BUSY_SHARE` or ``max_wait_s`` has been spent waiting.

    ``read_stat()`` returns /proc/stat's text (None where there is none: no
    wait); ``sleep(s)`` waits. Both are injected so tests need no clock.
    ``on_wait(share)`` is called once, when the first sample is busy."""
    spent, share = 0.0, None
    while True:
        before = read_stat()
        if before is None:
            return QuietWait(None, spent, True)
        sleep(window_s)
        spent += window_s
        try:
            share = busy_share(cpu_times(before), cpu_times(read_stat() or ""))
        except ValueError:
            return QuietWait(None, spent, True)
        if share <= BUSY_SHARE or spent >= max_wait_s:
            return QuietWait(share, spent, share <= BUSY_SHARE)
        if spent == window_s and on_wait is not None:
            on_wait(share)


def busy_reasons(load_before: float | None, steal: float | None, cores: int,
                 spreads: dict[str, float], share_before: float | None = None) -> list[str]:
    """Why a run's figures should not be trusted (empty when quiet).

    ``share_before``, where sampled, is the busy share of the last quiet
    check; it replaces the load average, which still counts a job that
    ended in the minute before."""
    out = []
    if share_before is not None:
        if share_before > BUSY_SHARE:
            out.append(f"other processes used {100 * share_before:.0f} % of the {cores} cores "
                       "just before the run")
    elif load_before is not None and load_before > LOAD_PER_CORE * cores:
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
