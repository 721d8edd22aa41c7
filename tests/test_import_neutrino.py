"""Neutrino block-scheduling traces (roofline.importers.neutrino.reader).

No real Neutrino trace is public (the artifact's were on object storage), so
every file here is built byte by byte from the writer's source in
open-neutrino/neutrino: neutrino/src/common.h and neutrino/src/cuda.c at
commit 4a82cd2 (trace_header_t, trace_section_t with u32 size, u32 warpDiv,
u64 offset; cuLaunchKernel's event.log lines), the older u64 size/u64 offset
layout of cfbebe3 (size per thread/warp) and d412812 (size of the section),
neutrino/probe/cuda.py for the record index (block by block, warp by warp),
and neutrino/tools/block_sched.py for the record (u64 start, u32 elapsed,
u32 SM id)."""
from __future__ import annotations

import hashlib
import math
import struct

import numpy as np
import pytest

from roofline.core.errors import InputError
from roofline.importers import neutrino  # noqa: F401  (registers the reader)
from roofline.importers.base import detect
from roofline.importers.neutrino.reader import read, read_result, read_run, sniff
from roofline.importers.read import read_profile

WARP = 32


def records(blocks) -> bytes:
    """``blocks``: per block, per warp (start, elapsed, sm) -> the records."""
    return b"".join(struct.pack("<QII", *w) for b in blocks for w in b)


def current(grid, block, sections, shared=0, n=None) -> bytes:
    """A result file of the current layout. ``sections``: (bytes per unit,
    warp divisor, payload); offsets as neutrino/src/cuda.c computes them."""
    count = len(sections) if n is None else n
    out = struct.pack("<8I", *grid, *block, shared, count)
    offset = 32 + 16 * len(sections)
    blocks, threads = math.prod(grid), math.prod(block)
    for unit, div, _ in sections:
        out += struct.pack("<IIQ", unit, div, offset)
        offset += blocks * threads * unit // div
    return out + b"".join(p for _, _, p in sections)


def legacy(grid, block, sections) -> bytes:
    """The older layout: (u64 size, payload), data back to back."""
    out = struct.pack("<8I", *grid, *block, 0, len(sections))
    offset = 32 + 16 * len(sections)
    for size, payload in sections:
        out += struct.pack("<QQ", size, offset)
        offset += len(payload)
    return out + b"".join(p for _, p in sections)


# 2 SMs, 4 blocks of 2 warps: block b's warps start at s and s+2, end at e and e-1
BLOCKS = [[(1000, 100, 0), (1002, 97, 0)],      # SM0 1000..1100
          [(1000, 50, 1), (1001, 48, 1)],       # SM1 1000..1050
          [(1110, 90, 0), (1112, 87, 0)],       # SM0 1110..1200 (gap 10)
          [(1070, 30, 1), (1071, 29, 1)]]       # SM1 1070..1100 (gap 20)
GRID, BLOCK = (4, 1, 1), (64, 1, 1)


def write(tmp_path, data: bytes, name="0.500000.bin"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def check_timeline(t):
    assert t.block.tolist() == [0, 1, 2, 3]
    assert t.sm.tolist() == [0, 1, 0, 1]
    assert t.origin_cycles == 1000
    assert t.start_cycles.tolist() == [0, 0, 110, 70]
    assert t.end_cycles.tolist() == [100, 50, 200, 100]


def test_current_layout(tmp_path):
    p = write(tmp_path, current(GRID, BLOCK, [(16, WARP, records(BLOCKS))]))
    assert sniff(p, p.read_bytes()[:64]) and detect(p).name == "neutrino"
    r = read_profile(p)
    assert r.format == "neutrino" and len(r.kernels) == 1
    k = r.kernels[0]
    assert k.launch["grid"] == GRID and k.launch["block"] == BLOCK and k.count == 0 and math.isnan(k.time_s)
    assert k.launch["layout"].startswith("current")
    check_timeline(k.launch["block_sched"])
    assert any("kernel name unknown" in w.message for w in r.warnings)


@pytest.mark.parametrize("meaning", ["per warp (cfbebe3)", "whole section (d412812)"])
def test_older_layout(tmp_path, meaning):
    payload = records(BLOCKS)
    size = 16 if meaning.startswith("per") else len(payload)
    r = read(write(tmp_path, legacy(GRID, BLOCK, [(size, payload)])))
    k = r.kernels[0]
    assert k.launch["layout"].startswith("older")
    check_timeline(k.launch["block_sched"])


def test_older_layout_thread_records(tmp_path):
    """examples/analysis.py reads one 16-byte record per thread."""
    blocks = [[(s + t, e, sm) for t in range(4)] for (s, e, sm), _ in BLOCKS]
    t = read(write(tmp_path, legacy(GRID, (4, 1, 1), [(16, records(blocks))]))).kernels[0].launch["block_sched"]
    assert t.sm.tolist() == [0, 1, 0, 1] and t.start_cycles.tolist() == [0, 0, 110, 70]
    assert t.end_cycles.tolist() == [103, 53, 203, 103]


def test_picks_the_block_sched_section(tmp_path):
    gmem = struct.pack("<II", 1, 2) * (4 * 64)            # thread-level, 8 bytes
    p = write(tmp_path, current(GRID, BLOCK, [(8, 1, gmem), (16, WARP, records(BLOCKS))]))
    check_timeline(read(p).kernels[0].launch["block_sched"])


def test_block_not_whole_warps(tmp_path):
    """96 threads + 16: the host writes 4 warp records per block, the device
    indexes 3 per block, so warp 0's record may hold the previous block's
    partial warp and is not read."""
    blocks = [[(1000 + 5 * b, 10, b % 2), (1000 + 5 * b, 10, b % 2), (1001 + 5 * b, 9, b % 2)] for b in range(4)]
    blocks[1][0] = (1, 1, 1)         # the slot the partial warp of block 0 overwrote
    payload = records(blocks) + bytes(16 * 4)             # 4 x 4 records allocated, 4 x 3 indexed
    t = read(write(tmp_path, current(GRID, (112, 1, 1), [(16, WARP, payload)]))).kernels[0].launch["block_sched"]
    assert t.sm.tolist() == [0, 1, 0, 1] and t.start_cycles.tolist() == [0, 5, 10, 15]


# ------------------------------------------------------------------ bad files: one line each

GOOD = current(GRID, BLOCK, [(16, WARP, records(BLOCKS))])


def _bad(tmp_path, data, expect):
    p = write(tmp_path, data)
    with pytest.raises(InputError) as err:
        read_profile(p)
    text = str(err.value)
    assert "\n" not in text and text.startswith(str(p)), text
    assert expect in text, text
    return text


@pytest.mark.parametrize("data, expect", [
    (GOOD[:20], "truncated: 20 bytes"),
    (GOOD[:40], "the header and its 1 section entries need 48"),
    (GOOD[:-16], "truncated: the records end at byte 176"),
    (GOOD + b"\0" * 8, "8 bytes after the last section's records"),
    (struct.pack("<8I", *GRID, *BLOCK, 0, 0), "0 probes"),
    (struct.pack("<8I", *GRID, *BLOCK, 0, 1) + struct.pack("<IIQ", 16, WARP, 4096) + records(BLOCKS),
     "past the end of the file"),
    (struct.pack("<8I", *GRID, *BLOCK, 0, 1) + struct.pack("<IIQ", 16, WARP, 64) + records(BLOCKS) + bytes(16),
     "section 0 starts at byte 64: expected 48"),
    (struct.pack("<8I", *GRID, *BLOCK, 0, 1) + struct.pack("<IIQ", 16, 7, 48) + records(BLOCKS), "warp divisor 7"),
    (current(GRID, BLOCK, [(24, WARP, bytes(24 * 8))]), "24 bytes per warp is not a whole number of 16-byte"),
    (current(GRID, BLOCK, [(0, WARP, b"")]), "record size 0"),
    (struct.pack("<8I", 0, 1, 1, *BLOCK, 0, 1), "gridDim.x = 0"),
    (legacy(GRID, BLOCK, [(16, records(BLOCKS)[:-8])]), "older layout, u64 size 16) holds 120 bytes"),
    (legacy(GRID, BLOCK, [(120, bytes(120))]), "do not divide into 4 blocks"),
    (current(GRID, BLOCK, [(16, WARP, bytes(128))]), "every record is zero"),
])
def test_bad_files(tmp_path, data, expect):
    _bad(tmp_path, data, expect)


def test_clock_going_backwards(tmp_path):
    """elapsed = (end - start) mod 2^32 with end before start wraps high."""
    blocks = [list(b) for b in BLOCKS]
    blocks[2][1] = (1112, (1100 - 1112) % 2 ** 32, 0)
    _bad(tmp_path, current(GRID, BLOCK, [(16, WARP, records(blocks))]), "block 2, warp 1: elapsed 4294967284 "
         "cycles is at least 2^31: the end clock is before the start clock")


def test_block_on_two_sms(tmp_path):
    blocks = [list(b) for b in BLOCKS]
    blocks[3][1] = (1071, 29, 0)
    _bad(tmp_path, current(GRID, BLOCK, [(16, WARP, records(blocks))]), "block 3: its warps report SMs 0 and 1")


def test_block_smaller_than_a_warp(tmp_path):
    _bad(tmp_path, current(GRID, (16, 1, 1), [(16, WARP, records([b[:1] for b in BLOCKS]))]),
         "blocks of 16 threads")


def test_two_candidate_sections_without_probe_toml(tmp_path):
    payload = records(BLOCKS)
    _bad(tmp_path, current(GRID, BLOCK, [(16, WARP, payload), (16, WARP, payload)]), "2 sections hold 16-byte")


def test_missing_blocks_warn(tmp_path):
    blocks = [list(b) for b in BLOCKS]
    blocks[3] = [(0, 0, 0), (0, 0, 0)]
    r = read(write(tmp_path, current(GRID, BLOCK, [(16, WARP, records(blocks))])))
    assert r.kernels[0].launch["block_sched"].block.tolist() == [0, 1, 2]
    assert any("1 of 4 blocks wrote no record" in w.message for w in r.warnings)


def test_sniff_refuses_other_binaries(tmp_path):
    p = write(tmp_path, b"SQLite format 3\0" + bytes(100), "x.bin")
    assert not sniff(p, p.read_bytes())
    p = write(tmp_path, b"Name,Time\nk,1\n", "x.csv")
    assert not sniff(p, p.read_bytes())


# ------------------------------------------------------------------ a run folder

NAME_A, NAME_B = "_Z6kernelPf", "void gemm<128, 64>(float*)"


def run_folder(tmp_path, with_log=True, grid_in_log=GRID):
    folder = tmp_path / "Jan23_062737_268336"
    (folder / "result").mkdir(parents=True)
    (folder / "probe.toml").write_text(
        'regs = 2\nCALLBACK = "block_sched_callback.py"\n\n[probe.thread_start]\nlevel = "warp"\npos = "kernel"\n'
        'before = "mov.u64 %NR0, %clock64;"\n\n[map.block_sched]\nlevel = "warp"\ntype = "array"\nsize = 16\n'
        'cap = 1\n\n[map.block_sched.regs]\nstart = [ "u64",]\nelapsed = [ "u32",]\ncuid = [ "u32",]\n')
    (folder / "read.py").write_text("# Neutrino Auto-Generated Code for Trace Reading\n")
    files = ["0.486795.bin", "1.250000.bin", "2.000001.bin"]
    for f in files:
        (folder / "result" / f).write_bytes(GOOD)
    digest = {n: hashlib.sha1(n.encode()).hexdigest() for n in (NAME_A, NAME_B)}
    for i, n in enumerate((NAME_A, NAME_B)):
        (folder / "kernel" / f"{i}_{digest[n]}").mkdir(parents=True)
        (folder / "kernel" / f"{i}_{digest[n]}" / "kernel.info").write_text(f"{n}\n1\n1\n1,16\n")
    if not with_log:
        return folder
    lines = ["[init] pid 268336", "[init] cmd 16 python bench.py ", "[init] dl 0x55d0c1e0", "[init] success"]

    def launch(ptr, name, idx, file, first):
        out = []
        if first:
            out += [f"[exec] funcmap-not-find {ptr}", f"[probe] find {ptr} name {name} bin 0x7f00 size 4096",
                    f"[probe] rename {name} {idx}_{digest[name]}", "[probe] python succeed",
                    f"[probe] finish {ptr} name {name} n_param 1"]
        gx, gy, gz = grid_in_log
        out += [f"[exec] funcmap-find {ptr} success", "[exec] 1737613657000000000 param 7f0000000000 ",
                f"[exec] grid {gx} {gy} {gz} block 64 1 1 shared 0", "[exec] grid 4 warp  2 probe 16 total 128",
                "[exec] probe-mem 128 (bytes)", "[exec] succeed 0",
                f"[exec] save /tmp/trace/Jan23_062737_268336/result/{file} size 176",
                "[exec] prologue 0.100000 kernel 0.002500 epilogue 0.200000 ratio 121.000000"]
        return out
    lines += launch("0x5600a0", NAME_A, 0, files[0], True)
    lines += launch("0x5600b8", NAME_B, 1, files[1], True)
    lines += launch("0x5600a0", NAME_A, 0, files[2], False)
    (folder / "event.log").write_text("\n".join(lines) + "\n")
    return folder


def test_run_folder_names_each_launch(tmp_path):
    folder = run_folder(tmp_path)
    r = read_run(folder)
    assert [k.name for k in r.kernels] == [NAME_A, NAME_B, NAME_A]
    assert [k.launch["trace_file"] for k in r.kernels] == ["result/0.486795.bin", "result/1.250000.bin",
                                                            "result/2.000001.bin"]
    assert r.kernels[0].launch["probed_time_s"] == pytest.approx(2.5e-6)
    assert not r.warnings
    # the registry reaches the folder through its event.log or probe.toml, and a result file alone
    assert [k.name for k in read_profile(folder / "event.log").kernels] == [NAME_A, NAME_B, NAME_A]
    assert detect(folder / "probe.toml").name == "neutrino"
    assert read_result(folder / "result" / "1.250000.bin").kernels[0].name == NAME_B


def test_run_folder_without_event_log(tmp_path):
    folder = run_folder(tmp_path, with_log=False)
    r = read_run(folder)
    assert all(k.name.startswith("neutrino launch ") for k in r.kernels)   # two kernels probed: no guess
    assert any("no event.log" in w.message for w in r.warnings)


def test_run_folder_log_disagrees_with_file(tmp_path):
    folder = run_folder(tmp_path, grid_in_log=(8, 1, 1))
    with pytest.raises(InputError) as err:
        read_run(folder)
    assert str(err.value).startswith(f"{folder / 'event.log'}:") and "does not belong to this log" in str(err.value)


def test_large_launch_is_columnar(tmp_path):
    """A million warp records (125k blocks of 8 warps) read without a Python loop per record."""
    rng = np.random.default_rng(1)
    blocks, warps = 125_000, 8
    rec = np.zeros((blocks, warps), dtype=[("start", "<u8"), ("elapsed", "<u4"), ("sm", "<u4")])
    start = np.arange(blocks, dtype=np.uint64) * 100 + 10_000
    rec["start"] = start[:, None] + rng.integers(0, 5, (blocks, warps)).astype(np.uint64)
    rec["elapsed"] = 90
    rec["sm"] = (np.arange(blocks) % 108)[:, None]
    p = write(tmp_path, current((blocks, 1, 1), (256, 1, 1), [(16, WARP, rec.tobytes())]))
    t = read(p).kernels[0].launch["block_sched"]
    assert len(t) == blocks and t.sm.max() == 107


def test_clocks_days_apart(tmp_path):
    blocks = [list(b) for b in BLOCKS]
    blocks[3] = [(1 << 50, 30, 1), (1 << 50, 29, 1)]
    _bad(tmp_path, current(GRID, BLOCK, [(16, WARP, records(blocks))]), "cycles apart")


def test_the_run_folder_itself_reads_and_reports(tmp_path, toy_gpu):
    # read_profile takes the folder (importers.read), and the report shows the
    # block-scheduling section beside the kernels when a run is among its inputs
    folder = run_folder(tmp_path)
    assert [k.name for k in read_profile(folder).kernels] == [NAME_A, NAME_B, NAME_A]
    from roofline.report import build_report
    r = build_report([folder], toy_gpu)
    page = r.to_html()
    assert 'href="#rr-block-sched"' in page and "Block scheduling" in page
    text, images = r.to_markdown()
    assert "Block scheduling" in text


def test_the_cli_reads_a_run_folder_as_one_profile_not_as_rank_traces(tmp_path, capsys):
    from conftest import DATA
    from roofline.cli.main import main
    folder = run_folder(tmp_path)
    assert main(["classify", str(folder), "--device", str(DATA / "toy_gpu.yaml"), "--format", "csv"]) == 0
    assert NAME_A in capsys.readouterr().out
