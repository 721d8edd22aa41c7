"""Block scheduling inside a kernel: the SM cycles lost between one thread
block's end and the next block's start on the same SM, from per-block SM
clocks (Neutrino's block-scheduling probe; :mod:`roofline.importers.neutrino.reader`
puts them in ``Kernel.launch["block_sched"]``).

This is overhead inside a kernel's GPU time, which its roofline cannot see:
the SM sits (partly) empty while the block scheduler retires a block and
places the next one. Everything is computed per SM in that SM's own cycles
(``%clock64``), columnar, for millions of blocks:

- **concurrency** k of an SM: the most blocks resident on it at once
  (a block ending at the cycle another starts is not counted with it);
- **busy span** of an SM: its last block's end minus its first block's start;
- **gaps**: take an SM's blocks by start, s_0 <= s_1 <= ..., and their ends
  by time, e_0 <= e_1 <= ...; with at most k blocks resident, the j-th block
  to start (j >= k) could only start after at least j-k+1 blocks had ended,
  so it took the slot freed at e_(j-k); its **gap** is s_j - e_(j-k) >= 0.
  With one block at a time (k = 1) this is exactly the next block's start
  minus the previous block's end; the first k blocks have no gap;
- **scheduling cost** of an SM: the sum of its gaps, in cycles; its
  **share** of the SM's time: cost / (k x busy span), the block slots the SM
  offered while busy; the kernel's share: all costs / all SMs' k x span;
- **waves**: blocks / the slots observed on all SMs (sum of k); per SM,
  its blocks / k;
- **tail**: the last SM's finish minus the median SM's finish. This one,
  and the kernel's span (last end minus first start over all SMs), compare
  clocks of different SMs: they hold only as far as the SMs' counters are
  aligned (Neutrino's own notes say the local timer "sacrifices the auto
  alignment from global timer"); the gaps and shares never do.

Seconds are cycles / the SM clock of the device profile (:func:`sm_clock`
says which clock it used); without a profile everything stays in cycles.

May import: ``roofline.core``, numpy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import Advice
from ..core.model import Device


@dataclass(frozen=True)
class SmColumns:
    """One entry per SM used, by SM id: its blocks, concurrency k, first
    start and last end (cycles from the kernel's first start), busy span,
    cycles inside blocks and scheduling cost (sum of gaps)."""

    sm: np.ndarray
    blocks: np.ndarray
    concurrent: np.ndarray
    first_start: np.ndarray
    last_end: np.ndarray
    span_cycles: np.ndarray
    block_cycles: np.ndarray
    gap_cycles: np.ndarray

    def __len__(self) -> int:
        return len(self.sm)

    @property
    def share(self) -> np.ndarray:
        """Scheduling cost / (k x busy span), per SM."""
        slots = self.concurrent * self.span_cycles
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(slots > 0, self.gap_cycles / slots, 0.0)

    @property
    def waves(self) -> np.ndarray:
        return self.blocks / self.concurrent


@dataclass(frozen=True)
class BlockSchedule:
    """The block scheduling of one launch (see the module docstring).

    Per-block arrays (input order): ``sm``, ``start_cycles``, ``end_cycles``,
    ``gap_cycles`` (NaN for a block of an SM's first k), ``previous`` (the
    block whose freed slot it took, -1 for none) and ``lane`` (its slot,
    0..k-1, for drawing). ``clock_hz`` converts cycles to seconds (None: no
    clock, see ``clock_source``)."""

    name: str
    sms: SmColumns
    sm: np.ndarray
    start_cycles: np.ndarray
    end_cycles: np.ndarray
    gap_cycles: np.ndarray
    previous: np.ndarray
    lane: np.ndarray
    clock_hz: float | None = None
    clock_source: str = ""
    sm_count: int | None = None
    probed_time_s: float | None = None
    source: str = ""
    grid: tuple | None = None
    block: tuple | None = None
    warnings: tuple[Advice, ...] = field(default=())

    @property
    def blocks(self) -> int:
        return len(self.sm)

    @property
    def sms_used(self) -> int:
        return len(self.sms)

    @property
    def cost_cycles(self) -> float:
        return float(self.sms.gap_cycles.sum())

    @property
    def slot_cycles(self) -> float:
        return float((self.sms.concurrent * self.sms.span_cycles).sum())

    @property
    def share(self) -> float:
        """All SMs' scheduling cost over their slot cycles (k x span)."""
        return self.cost_cycles / self.slot_cycles if self.slot_cycles > 0 else 0.0

    @property
    def waves(self) -> float:
        return self.blocks / float(self.sms.concurrent.sum())

    @property
    def span_cycles(self) -> float:
        return float(self.end_cycles.max() - self.start_cycles.min())

    @property
    def tail_cycles(self) -> float:
        finish = self.sms.last_end
        return float(finish.max() - np.median(finish))

    @property
    def mean_gap_cycles(self) -> float | None:
        gaps = self.gap_cycles[np.isfinite(self.gap_cycles)]
        return float(gaps.mean()) if gaps.size else None

    def seconds(self, cycles) -> float | None:
        """``cycles`` at the SM clock, or None without one."""
        if cycles is None or not self.clock_hz:
            return None
        return float(cycles) / self.clock_hz

    @property
    def implied_clock_hz(self) -> float | None:
        """Span cycles / the probed launch's event time: a lower bound on the
        SM clock (the event time also holds the launch's start-up)."""
        if not self.probed_time_s or self.probed_time_s <= 0:
            return None
        return self.span_cycles / self.probed_time_s


def sm_clock(device: Device | None) -> tuple[float | None, str]:
    """The SM clock to turn cycles into seconds and a sentence saying which
    it is: a measured profile's median SM clock, else its maximum SM clock,
    else the datasheet boost clock (the real clock may be lower, then the
    seconds are too short); None without a GPU profile."""
    if device is None:
        return None, "no device profile given: SM cycles, not converted to seconds"
    if device.kind != "gpu":
        return None, f"{device.name} is not a GPU profile: SM cycles, not converted to seconds"
    for key, what in (("sm", "measured SM clock (median while benchmarking)"),
                      ("sm_max", "maximum SM clock (from the driver)"),
                      ("boost", "datasheet boost clock (an SM running slower makes these seconds too short)")):
        hz = device.clocks_hz.get(key)
        if hz and math.isfinite(hz) and hz > 0:
            return float(hz), f"{what} of {device.name}, {hz / 1e6:.0f} MHz"
    return None, f"the profile of {device.name} has no SM clock: SM cycles, not converted to seconds"


def sm_count(device: Device | None) -> int | None:
    if device is None or device.kind != "gpu":
        return None
    for key in ("sms", "sm_count"):
        n = device.architecture.get(key)
        if isinstance(n, int) and not isinstance(n, bool) and n > 0:
            return n
    return None


def block_schedule(sm, start_cycles, end_cycles, *, name: str = "", clock_hz: float | None = None,
                   clock_source: str = "", sms_on_device: int | None = None, probed_time_s: float | None = None,
                   source: str = "", grid=None, block=None) -> BlockSchedule:
    """The block scheduling of one launch from its blocks' SM ids and start
    and end cycles (arrays of equal length, one entry per block)."""
    sm = np.asarray(sm, dtype=np.int64)
    start = np.asarray(start_cycles, dtype=np.int64)
    end = np.asarray(end_cycles, dtype=np.int64)
    n = len(sm)
    if n == 0 or start.shape != (n,) or end.shape != (n,):
        raise ValueError(f"block_schedule needs one SM, start and end per block, got {sm.shape}, "
                         f"{start.shape}, {end.shape}")
    if np.any(end < start):
        raise ValueError("a block ends before it starts")
    by_start = np.lexsort((start, sm))
    ids, seg, counts = np.unique(sm[by_start], return_index=True, return_counts=True)
    k = _concurrency(sm, start, end)
    by_end = np.lexsort((start, end, sm))          # same SM segments as by_start
    rank = np.arange(n) - np.repeat(seg, counts)   # position within its SM, in start order
    k_each = np.repeat(k, counts)
    later = rank >= k_each
    previous = np.full(n, -1, dtype=np.int64)
    gap = np.full(n, np.nan)
    pos = np.flatnonzero(later)
    freed = by_end[pos - k_each[pos]]
    previous[by_start[pos]] = freed
    gap[by_start[pos]] = (start[by_start[pos]] - end[freed]).astype(float)
    gap_sum = np.add.reduceat(np.nan_to_num(gap[by_start]), seg)
    first = start[by_start[seg]]
    last = np.maximum.reduceat(end[by_start], seg)
    busy = np.add.reduceat((end - start)[by_start], seg).astype(float)
    lane = _lanes(previous, by_start, rank, later)
    cols = SmColumns(sm=ids, blocks=counts, concurrent=k, first_start=first, last_end=last,
                     span_cycles=(last - first).astype(float), block_cycles=busy, gap_cycles=gap_sum)
    warnings = []
    if clock_hz is None:
        warnings.append(Advice(f"{name or 'kernel'}: block-scheduling times are in SM cycles ({clock_source})",
                               "give a GPU device profile (--device) to convert them to seconds",
                               subject="block scheduling"))
    return BlockSchedule(name=name, sms=cols, sm=sm, start_cycles=start, end_cycles=end, gap_cycles=gap,
                         previous=previous, lane=lane, clock_hz=clock_hz, clock_source=clock_source,
                         sm_count=sms_on_device, probed_time_s=probed_time_s, source=source, grid=grid,
                         block=block, warnings=tuple(warnings))


def _concurrency(sm, start, end) -> np.ndarray:
    """The most blocks resident at once on each SM (ends before starts at
    the same cycle), SMs in increasing id."""
    n = len(sm)
    t = np.concatenate([start, end])
    delta = np.concatenate([np.ones(n, dtype=np.int64), -np.ones(n, dtype=np.int64)])
    s = np.concatenate([sm, sm])
    order = np.lexsort((delta, t, s))
    running = np.cumsum(delta[order])     # every SM's events sum to 0: the count restarts per SM
    seg = np.flatnonzero(np.r_[True, s[order][1:] != s[order][:-1]])
    return np.maximum(np.maximum.reduceat(running, seg), 1)


def _lanes(previous, by_start, rank, later) -> np.ndarray:
    """Each block's slot: an SM's first k blocks take slots 0..k-1 in start
    order, every later block the slot of the block it followed (pointer
    doubling, so chains of a million blocks take ~20 numpy steps)."""
    n = len(previous)
    lane = np.zeros(n, dtype=np.int64)
    root = np.where(previous >= 0, previous, np.arange(n))
    for _ in range(64):
        nxt = root[root]
        if np.array_equal(nxt, root):
            break
        root = nxt
    lane[by_start[~later]] = rank[~later]
    return lane[root]


def schedule_of(kernel, device: Device | None = None) -> BlockSchedule | None:
    """The block scheduling of a Kernel whose ``launch["block_sched"]``
    holds per-block ``sm``, ``start_cycles`` and ``end_cycles`` (a Neutrino
    launch), converted with ``device``'s SM clock; None for other kernels."""
    timeline = kernel.launch.get("block_sched") if kernel.launch else None
    if timeline is None or len(getattr(timeline, "sm", ())) == 0:
        return None
    hz, source = sm_clock(device)
    return block_schedule(timeline.sm, timeline.start_cycles, timeline.end_cycles, name=kernel.name,
                          clock_hz=hz, clock_source=source, sms_on_device=sm_count(device),
                          probed_time_s=kernel.launch.get("probed_time_s"),
                          source=str(kernel.launch.get("trace_file", "")),
                          grid=kernel.launch.get("grid"), block=kernel.launch.get("block"))


def schedules(kernels, device: Device | None = None) -> list[BlockSchedule]:
    """:func:`schedule_of` for every kernel that has block clocks, in order."""
    out = []
    for k in kernels:
        s = schedule_of(k, device)
        if s is not None:
            out.append(s)
    return out
