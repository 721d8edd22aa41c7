"""Neutrino result files (``result/<seconds>.bin``): the header, the two
section layouts, and the block-scheduling probe's records as one row per
thread block (:class:`BlockTimeline`).

The layout, as verified in open-neutrino/neutrino (commit 4a82cd2, 2025-07-01;
the older layout at cfbebe3, 2025-05-02, and d412812, 2025-03-11). No real
trace is public (the paper's were on object storage), so this is written from
the writer's source; docs/neutrino.md says the same.

- Header (``trace_header_t``, neutrino/src/common.h): 8 little-endian uint32:
  gridDim x y z, blockDim x y z, dynamic shared memory bytes, number of probes.
- One 16-byte section entry per probe. Current (common.h since b6c251f):
  ``uint32 size`` (bytes per thread or per warp), ``uint32 warpDiv`` (32 for a
  warp-level probe, 1 for a thread-level one), ``uint64 offset``. Older
  (cfbebe3/dbe5e89 and d412812, read by examples/analysis.py and
  tools/gmem_bytes_analysis.py as ``"QQ"``): ``uint64 size``, ``uint64 offset``.
  They are told apart by the entry's second uint32: the current writer puts
  1 or 32 there, the older one the high half of a u64 size, which is 0. The
  older ``size`` is the bytes per thread/warp (cfbebe3) or the whole section's
  bytes (d412812); which one, and whether the probe was per warp or per
  thread, follows from the bytes between this offset and the next (or the
  end of the file).
- Then each section's records, block by block in the order
  ``(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x``, inside
  a block warp by warp (thread by thread for thread-level probes). The host
  allocates and writes ``ceil(threads / 32)`` warp records per block
  (neutrino/src/cuda.c), but the device indexes them with ``threads / 32``
  rounded down (neutrino/probe/cuda.py, WARP_BUFFER_CALC), and the current
  writer's offsets of later sections use ``grid * threads * size / 32``; so
  for a block size that is not a multiple of 32 a block's last, partial warp
  lands on the next block's first record (see :func:`block_timeline`).
- The block-scheduling record (neutrino/tools/block_sched.py and the older
  block_sched.toml): per warp ``u64 start`` (``%clock64`` at kernel entry),
  ``u32 elapsed`` (``%clock64`` at exit minus start, truncated to 32 bits),
  ``u32`` SM id (``%smid``). Unwritten records stay zero (cuMemsetD32).
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as np

from ...core.errors import InputError
from ...core.text_files import regular_file

HEADER = struct.Struct("<8I")
ENTRY = struct.Struct("<IIQ")        # current; the older "<QQ" reads the same bytes as (lo, hi, offset)
RECORD = np.dtype([("start", "<u8"), ("elapsed", "<u4"), ("sm", "<u4")])
RECORD_BYTES = RECORD.itemsize       # 16
WARP = 32                            # WARP_SIZE in neutrino/src/cuda.c
MAX_PROBES = 64
MAX_THREADS = 1024                   # a CUDA block
MAX_SM = 4096
ELAPSED_LIMIT = 1 << 31              # a 32-bit elapsed count at or above this is a wrapped difference
MAX_SPAN = 1 << 48                   # cycles between a launch's first start and last end (1.6 days at 2 GHz)
# blocks of one launch the reader keeps a row for: 4 columns of 8 bytes, 512
# MiB at the cap (a GEMM has thousands of blocks, an element-wise kernel
# over 2^30 elements about 4 million)
MAX_BLOCKS = 1 << 24
CHUNK_BYTES = 16 << 20               # records read and reduced at a time
CURRENT, LEGACY_UNIT, LEGACY_WHOLE = ("current (u32 size, u32 warp divisor, u64 offset)",
                                      "older (u64 size per thread/warp, u64 offset)",
                                      "older (u64 size of the whole section, u64 offset)")


@dataclass(frozen=True)
class Section:
    """One probe's records: ``unit_bytes`` per warp (``warp_level``) or per
    thread, found at byte ``start`` for ``length`` bytes."""

    index: int
    unit_bytes: int
    warp_level: bool
    start: int
    length: int
    layout: str


@dataclass(frozen=True)
class Layout:
    """A result file's header and sections."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    sections: tuple[Section, ...]
    size: int
    notes: tuple[str, ...] = ()

    @property
    def blocks(self) -> int:
        return math.prod(self.grid)

    @property
    def threads(self) -> int:
        return math.prod(self.block)

    @property
    def warps(self) -> int:
        return -(-self.threads // WARP)


class BlockTimeline:
    """Per thread block of one launch: its linear index, the SM it ran on and
    its start and end in that SM's clock cycles, counted from ``origin_cycles``
    (the earliest start in the launch, a raw ``%clock64`` value).

    This is what a Neutrino reader puts in ``Kernel.launch["block_sched"]``;
    :mod:`roofline.analysis.block_sched` reads the attributes ``block``,
    ``sm``, ``start_cycles`` and ``end_cycles`` from it (numpy arrays)."""

    __slots__ = ("block", "end_cycles", "missing_blocks", "origin_cycles", "sm", "start_cycles", "warps_read")

    def __init__(self, block, sm, start_cycles, end_cycles, origin_cycles: int = 0, warps_read: int = 1,
                 missing_blocks: int = 0):
        self.block = np.asarray(block, dtype=np.int64)
        self.sm = np.asarray(sm, dtype=np.int64)
        self.start_cycles = np.asarray(start_cycles, dtype=np.int64)
        self.end_cycles = np.asarray(end_cycles, dtype=np.int64)
        self.origin_cycles = int(origin_cycles)
        self.warps_read = int(warps_read)
        self.missing_blocks = int(missing_blocks)
        for a in (self.block, self.sm, self.start_cycles, self.end_cycles):
            a.setflags(write=False)

    def __len__(self) -> int:
        return len(self.block)

    def __eq__(self, other) -> bool:
        if not isinstance(other, BlockTimeline):
            return NotImplemented
        return (self.origin_cycles == other.origin_cycles and self.missing_blocks == other.missing_blocks
                and all(np.array_equal(getattr(self, k), getattr(other, k))
                        for k in ("block", "sm", "start_cycles", "end_cycles")))

    __hash__ = None

    def __repr__(self) -> str:
        return f"BlockTimeline({len(self)} blocks on {len(np.unique(self.sm))} SMs)"


def looks_like_result(head: bytes, named_bin: bool = False) -> bool:
    """A plausible header whose first section starts right after the
    section table (both layouts put the u64 offset in the same place). For a
    file named ``.bin`` a plausible start is enough (as many header fields as
    it has, zeros allowed), so that a truncated or damaged result gets its
    own error rather than "unrecognised format"."""
    if named_bin and 12 <= len(head) < HEADER.size + ENTRY.size:
        fields = struct.unpack_from(f"<{min(8, len(head) // 4)}I", head)
        dims = fields[:6]
        return (dims[0] < 1 << 31 and all(d <= 65535 for d in dims[1:3]) and all(d <= MAX_THREADS for d in dims[3:])
                and (len(fields) < 8 or fields[7] <= MAX_PROBES))
    if len(head) < HEADER.size + ENTRY.size:
        return False
    gx, gy, gz, bx, by, bz, shared, n = HEADER.unpack_from(head)
    if not (n <= MAX_PROBES and gy <= 65535 and gz <= 65535 and gx < 1 << 31 and bx * by * bz <= MAX_THREADS
            and shared <= 1 << 20):
        return False
    if named_bin:
        return True
    lo, hi, offset = ENTRY.unpack_from(head, HEADER.size)
    return (n >= 1 and min(gx, gy, gz, bx, by, bz) >= 1 and offset == HEADER.size + n * ENTRY.size and lo > 0
            and hi in (0, 1, WARP))


def parse_layout(path, data: bytes, size: int) -> Layout:
    """The header and sections of a result file of ``size`` bytes whose
    first bytes are ``data`` (at least the header and section table when the
    file has them); an InputError naming the first inconsistency."""
    if size < HEADER.size:
        raise InputError(path, None, f"truncated: {size} bytes, a Neutrino result starts with a "
                         f"{HEADER.size}-byte header (grid, block, shared memory, number of probes)")
    gx, gy, gz, bx, by, bz, shared, n = HEADER.unpack_from(data)
    for what, v, top in (("gridDim.x", gx, (1 << 31) - 1), ("gridDim.y", gy, 65535), ("gridDim.z", gz, 65535),
                         ("blockDim.x", bx, MAX_THREADS), ("blockDim.y", by, MAX_THREADS), ("blockDim.z", bz, 64)):
        if not 1 <= v <= top:
            raise InputError(path, None, f"header {what} = {v}: expected 1 to {top} (a CUDA launch); "
                             "not a Neutrino result or a damaged one")
    if bx * by * bz > MAX_THREADS:
        raise InputError(path, None, f"header block {bx}x{by}x{bz} has {bx * by * bz} threads: expected at most "
                         f"{MAX_THREADS}")
    if n == 0:
        raise InputError(path, None, "header says 0 probes: expected at least one section (the "
                         "block-scheduling probe's records); the launch saved nothing")
    if n > MAX_PROBES:
        raise InputError(path, None, f"header says {n} probes: expected at most {MAX_PROBES}; not a Neutrino "
                         "result or a damaged one")
    table_end = HEADER.size + n * ENTRY.size
    if size < table_end:
        raise InputError(path, None, f"truncated: {size} bytes, the header and its {n} section entries "
                         f"need {table_end}")
    entries = [ENTRY.unpack_from(data, HEADER.size + i * ENTRY.size) for i in range(n)]
    second = [e[1] for e in entries]
    odd = [i for i, s in enumerate(second) if s not in (0, 1, WARP)]
    if odd or (0 in second and any(second)):
        i = odd[0] if odd else second.index(0)
        raise InputError(path, None, f"section {i}: warp divisor {second[i]}: expected 1 (thread-level) or "
                         f"{WARP} (warp-level) in every entry, or 0 in all of them (the older layout's u64 "
                         "size); AMD traces (neutrino/src/hip.c leaves it unset) are not read")
    legacy = not any(second)
    for i, (_, _, offset) in enumerate(entries):
        if offset > size:
            raise InputError(path, None, f"section {i} starts at byte {offset}, past the end of the file "
                             f"({size} bytes): truncated or damaged")
    if entries[0][2] != table_end:
        raise InputError(path, None, f"section 0 starts at byte {entries[0][2]}: expected {table_end}, right "
                         f"after the header and {n} section entries")
    grid, block = (gx, gy, gz), (bx, by, bz)
    blocks, threads = gx * gy * gz, bx * by * bz
    warps = -(-threads // WARP)
    if legacy:
        sections, notes = _legacy(path, entries, blocks, threads, warps, size)
    else:
        sections, notes = _current(path, entries, blocks, threads, warps, size, table_end)
    return Layout(grid, block, shared, tuple(sections), size, tuple(notes))


def _current(path, entries, blocks: int, threads: int, warps: int, size: int, table_end: int):
    """Sections of the current layout: each one's data follows the previous
    one's, ``blocks * (warps or threads) * size`` bytes as neutrino/src/cuda.c
    writes them; its recorded offset is checked against the writer's formula."""
    out, notes, at, recorded = [], [], table_end, table_end
    for i, (unit, div, offset) in enumerate(entries):
        if unit == 0:
            raise InputError(path, None, f"section {i}: record size 0 bytes per {'warp' if div == WARP else 'thread'}: "
                             "expected a positive size")
        if offset != recorded:
            raise InputError(path, None, f"section {i} starts at byte {offset}: expected {recorded} (the previous "
                             "sections' grid x block x size / warp divisor after the section table)")
        length = blocks * (warps if div == WARP else threads) * unit
        out.append(Section(i, unit, div == WARP, at, length, CURRENT))
        at += length
        recorded += blocks * threads * unit // div
    if at != recorded and len(entries) > 1:
        notes.append(f"a block of {threads} threads is not whole warps: the file's section offsets round "
                     "warps down, so sections were read where the writer put their data")
    if size < at:
        raise InputError(path, None, f"truncated: the records end at byte {at} ({blocks} blocks of "
                         f"{warps} warps / {threads} threads x the sections' record sizes), the file has {size} bytes")
    if size > at:
        raise InputError(path, None, f"{size - at} bytes after the last section's records: expected the file "
                         f"to end at byte {at}")
    return out, notes


def _legacy(path, entries, blocks: int, threads: int, warps: int, size: int):
    """Sections of the older layout: the bytes from each offset to the next
    (or to the end) say which meaning ``size`` had and whether the probe
    saved per warp or per thread."""
    out = []
    bounds = [e[2] for e in entries] + [size]
    for i, (lo, hi, offset) in enumerate(entries):
        total = lo | hi << 32
        extent = bounds[i + 1] - offset
        if extent < 0:
            raise InputError(path, None, f"section {i + 1} starts at byte {bounds[i + 1]}, before section {i} "
                             f"(byte {offset}): offsets must not go backwards")
        if total == 0:
            raise InputError(path, None, f"section {i}: size 0: expected a positive size")
        if extent == blocks * warps * total:
            out.append(Section(i, total, True, offset, extent, LEGACY_UNIT))
        elif extent == blocks * threads * total:
            out.append(Section(i, total, False, offset, extent, LEGACY_UNIT))
        elif extent == total:
            if extent % (blocks * warps) == 0 and (extent // (blocks * warps)) % RECORD_BYTES == 0:
                out.append(Section(i, extent // (blocks * warps), True, offset, extent, LEGACY_WHOLE))
            elif extent % (blocks * threads) == 0:
                out.append(Section(i, extent // (blocks * threads), False, offset, extent, LEGACY_WHOLE))
            else:
                raise InputError(path, None, f"section {i}: {extent} bytes do not divide into {blocks} blocks of "
                                 f"{warps} warp or {threads} thread records")
        else:
            end = "the end of the file" if i == len(entries) - 1 else f"section {i + 1}"
            raise InputError(path, None, f"section {i} (older layout, u64 size {total}) holds {extent} bytes up to "
                             f"{end}: expected {blocks * warps * total} ({blocks} blocks x {warps} warps x size), "
                             f"{blocks * threads * total} (x {threads} threads) or {total} (the whole section); "
                             "truncated or damaged")
    return out, []


def choose_section(path, layout: Layout, hint: int | None = None) -> Section:
    """The block-scheduling probe's section: ``hint`` (from probe.toml) when
    given, else the one section of 16-byte records (warp-level first)."""
    if hint is not None:
        if hint >= len(layout.sections):
            raise InputError(path, None, f"probe.toml puts the block-scheduling map at section {hint}, the file "
                             f"has {len(layout.sections)}")
        return _check_unit(path, layout.sections[hint])
    exact = [s for s in layout.sections if s.unit_bytes == RECORD_BYTES]
    pick = [s for s in exact if s.warp_level] or exact
    if len(pick) == 1:
        return pick[0]
    if len(layout.sections) == 1:
        return _check_unit(path, layout.sections[0])
    have = ", ".join(f"{s.unit_bytes} B/{'warp' if s.warp_level else 'thread'}" for s in layout.sections)
    if not pick:
        raise InputError(path, None, f"no section holds 16-byte records (u64 start clock, u32 elapsed, u32 SM "
                         f"id): not the block-scheduling probe's trace (sections: {have})")
    raise InputError(path, None, f"{len(pick)} sections hold 16-byte records ({have}): read the run folder, "
                     "whose probe.toml says which map is block_sched")


def _check_unit(path, s: Section) -> Section:
    if s.unit_bytes % RECORD_BYTES:
        raise InputError(path, None, f"section {s.index}: {s.unit_bytes} bytes per "
                         f"{'warp' if s.warp_level else 'thread'} is not a whole number of 16-byte "
                         "block-scheduling records (u64 start, u32 elapsed, u32 SM id)")
    return s


def read_layout(path) -> Layout:
    """The header and sections of the result file at ``path``."""
    size = regular_file(path).st_size       # a FIFO would block the open: refused before it
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEADER.size + MAX_PROBES * ENTRY.size)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    return parse_layout(path, head, size)


def block_timeline(path, layout: Layout, section: Section) -> BlockTimeline:
    """The section's records reduced to one row per block that wrote one:
    start = its earliest warp's start, end = its latest warp's start +
    elapsed, SM = the SM all its warps report. An InputError when no record
    was written, a block's warps disagree on their SM, an SM id is out of
    range or a 32-bit elapsed count is a wrapped (negative) difference.

    The records are read :data:`CHUNK_BYTES` at a time and reduced as they
    come: memory is the rows kept (one per block, at most
    :data:`MAX_BLOCKS`), not the section's size."""
    per_unit = section.unit_bytes // RECORD_BYTES
    units = layout.warps if section.warp_level else layout.threads
    skip = 0
    if section.warp_level and layout.threads % WARP:
        whole = layout.threads // WARP
        if whole < 2:
            raise InputError(path, None, f"blocks of {layout.threads} threads: the warp-level probe indexes "
                             f"records with threads / 32 rounded down ({whole}), so every block's partial warp "
                             "overwrites the next block's record (neutrino/probe/cuda.py): which block ran where "
                             "cannot be read")
        units, skip = whole, per_unit     # warp 0's record may hold the previous block's partial warp
    row = units * per_unit                # records per block
    _check_extent(path, layout, section, row)
    step = max(1, CHUNK_BYTES // (row * RECORD_BYTES))
    parts = []
    try:
        with open(path, "rb") as fh:
            for b0 in range(0, layout.blocks, step):
                n = min(step, layout.blocks - b0)
                fh.seek(section.start + b0 * row * RECORD_BYTES)
                rec = np.fromfile(fh, dtype=RECORD, count=n * row)
                if len(rec) != n * row:
                    raise InputError(path, None, f"truncated: {b0 * row + len(rec)} of {layout.blocks * row} "
                                     f"records of section {section.index}")
                parts.append(_reduce(path, rec.reshape(n, row)[:, skip:], b0, per_unit, section, skip // per_unit))
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    blocks, first, last, sm = (np.concatenate(c) for c in zip(*parts))
    if not blocks.size:
        raise InputError(path, None, f"section {section.index}: every record is zero: the probe wrote nothing "
                         "(the kernel did not run probed, or the file holds zeroed memory)")
    origin = int(first.min())
    if int(last.max()) - origin >= MAX_SPAN:
        raise InputError(path, None, f"section {section.index}: block clocks {int(last.max()) - origin:,} cycles apart "
                         "(days at any GPU clock): a damaged record, or clocks from different resets")
    return BlockTimeline(blocks, sm, (first - np.uint64(origin)).astype(np.int64),
                         (last - np.uint64(origin)).astype(np.int64), origin, row - skip,
                         layout.blocks - int(blocks.size))


def _check_extent(path, layout: Layout, section: Section, row: int) -> None:
    """Refuse, before anything is read, a launch whose rows this reader would
    not hold, and records the file does not have (:func:`parse_layout`
    checked the section table; this is the reading's own guard)."""
    if layout.blocks > MAX_BLOCKS:
        raise InputError(path, None, f"a grid of {layout.blocks:,} blocks: more than the {MAX_BLOCKS:,} this "
                         "reader keeps a row for (a damaged header, or a launch too big for the block-scheduling "
                         "analysis)")
    if row * RECORD_BYTES > CHUNK_BYTES:
        raise InputError(path, None, f"section {section.index}: {row * RECORD_BYTES:,} bytes of records per block: "
                         f"more than {CHUNK_BYTES >> 20} MiB (a block has at most {MAX_THREADS} threads): a damaged "
                         "section entry")
    end = section.start + layout.blocks * row * RECORD_BYTES
    if end > layout.size:
        raise InputError(path, None, f"truncated: section {section.index}'s records end at byte {end:,}, the file "
                         f"has {layout.size:,} bytes")


def _reduce(path, rec, b0: int, per_unit: int, section: Section, first_warp: int):
    """(block index, first start, last end, SM) of the blocks of ``rec``
    (blocks ``b0`` on) that wrote a record, after checking the records."""
    start, elapsed, sm = rec["start"], rec["elapsed"], rec["sm"]
    written = (start != 0) | (elapsed != 0) | (sm != 0)
    _check_records(path, rec, written, per_unit, section, first_warp, b0)
    has = written.any(axis=1)
    top = np.uint64(np.iinfo(np.uint64).max)
    first = np.where(written, start, top).min(axis=1)[has]
    last = np.where(written, start + elapsed.astype(np.uint64), np.uint64(0)).max(axis=1)[has]
    sm_lo = np.where(written, sm, np.uint32(MAX_SM)).min(axis=1)[has]
    sm_hi = np.where(written, sm, np.uint32(0)).max(axis=1)[has]
    blocks = np.flatnonzero(has) + b0
    split = np.flatnonzero(sm_lo != sm_hi)
    if split.size:
        b = int(split[0])
        raise InputError(path, None, f"block {int(blocks[b])}: its warps report SMs {int(sm_lo[b])} and "
                         f"{int(sm_hi[b])}: expected one SM per block (the records are not laid out block by block "
                         "as the Neutrino writer lays them out, or the launch was preempted and moved)")
    return blocks, first, last, sm_lo


def _check_records(path, rec, written, per_unit: int, section: Section, first_warp: int, b0: int = 0) -> None:
    unit = "warp" if section.warp_level else "thread"
    checks = (("elapsed", rec["elapsed"] >= ELAPSED_LIMIT,
               ("elapsed {v} cycles is at least 2^31: the end clock is before the start clock (a wrapped "
                "difference: the clock went backwards) or the {unit} ran longer than the 32-bit count holds")),
              ("start", rec["start"] >= np.uint64(1 << 63), "start clock {v} is 2^63 cycles or more: a damaged record"),
              ("sm", rec["sm"] >= MAX_SM, f"SM id {{v}}: expected below {MAX_SM}"))
    for field, bad, what in checks:
        where = np.argwhere(bad & written)
        if where.size:
            b, r = (int(x) for x in where[0])
            raise InputError(path, None, f"section {section.index}, block {b0 + b}, {unit} {first_warp + r // per_unit}: "
                             + what.format(v=int(rec[field][b, r]), unit=unit))
