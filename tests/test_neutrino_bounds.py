"""A Neutrino run folder cannot make the reader take unbounded time or
memory (issue 30): a probe.toml nested deep or with a dotted key of
thousands of parts, a result file declaring gigabytes of records it does
not have (or has as a sparse file), an event.log of hundreds of MB. Files
are built as tests/test_import_neutrino.py builds them; the cases that
would take gigabytes without the bounds run in a child process whose
address space is capped, so a regression fails instead of swapping."""
from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import textwrap
import tracemalloc

import pytest
from test_import_neutrino import NAME_A, NAME_B, run_folder

from roofline.core.errors import InputError
from roofline.importers.neutrino.reader import MAX_LOG_LINE, read_result, read_run
from roofline.importers.neutrino.neutrino_bin import MAX_BLOCKS
from roofline.importers.read import read_profile

LINUX = sys.platform.startswith("linux")
CAP_BYTES = 1 << 30      # the child's address space: far below what the unbounded reads took


def in_capped_child(code: str) -> dict:
    """Run ``code`` (which prints one JSON line) with the address space capped."""
    prelude = ("import resource\nresource.setrlimit(resource.RLIMIT_AS, (%d, %d))\n" % (CAP_BYTES, CAP_BYTES))
    proc = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _warnings(result) -> list[str]:
    return [str(w) for w in result.warnings]


# --- probe.toml ------------------------------------------------------------------

@pytest.mark.skipif(not LINUX, reason="RLIMIT_AS")
@pytest.mark.parametrize("text, says", [
    ("a" + ".a" * 100_000 + " = 1\n", "dotted key of more than 16 parts at line 1"),   # tomllib: ~38 GB
    ("x = 1\n[" + ".".join(["t"] * 5000) + "]\n", "dotted key of more than 16 parts at line 2"),
    ("a = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested too deeply"),
    ("a = " + "{b = " * 20_000 + "1" + "}" * 20_000 + "\n", "nested too deeply"),
    ("# " + "x" * (2 << 20) + "\n", "more than 1024 KiB"),
])
def test_a_hostile_probe_toml_is_one_warning_and_the_run_is_read(tmp_path, text, says):
    folder = run_folder(tmp_path)
    (folder / "probe.toml").write_text(text)
    out = in_capped_child(f"""
        import json, time
        from roofline.importers.neutrino.reader import read_run
        t = time.perf_counter()
        r = read_run({str(folder)!r})
        print(json.dumps({{"s": time.perf_counter() - t, "names": [k.name for k in r.kernels],
                          "warnings": [str(w) for w in r.warnings]}}))
    """)
    assert out["names"] == [NAME_A, NAME_B, NAME_A]      # the 16-byte section is found without it
    assert len(out["warnings"]) == 1 and "probe.toml cannot be read" in out["warnings"][0]
    assert says in out["warnings"][0], out["warnings"][0]
    assert out["s"] < 10


def test_a_dotted_key_within_the_bound_is_still_read(tmp_path):
    folder = run_folder(tmp_path)
    (folder / "probe.toml").write_text((folder / "probe.toml").read_text()
                                       + "[" + ".".join(["deep"] * 16) + "]\nx = 1\n")
    r = read_run(folder)
    assert [k.name for k in r.kernels] == [NAME_A, NAME_B, NAME_A] and not r.warnings


# --- result files declaring more than they hold ------------------------------------

def _header(blocks: int, threads: int = 32) -> bytes:
    return struct.pack("<8I", blocks, 1, 1, threads, 1, 1, 0, 1) + struct.pack("<IIQ", 16, 32, 48)


@pytest.mark.skipif(not LINUX, reason="RLIMIT_AS")
@pytest.mark.parametrize("blocks, sparse_size, says", [
    (1 << 29, 0, "truncated: the records end at byte 8589934640"),        # 8 GiB declared, 48 bytes held
    (1 << 29, 48 + (1 << 33), f"more than the {MAX_BLOCKS:,} this reader keeps a row for"),   # 8 GiB, sparse
])
def test_gigabytes_of_declared_records_are_refused_before_reading(tmp_path, blocks, sparse_size, says):
    p = tmp_path / "0.500000.bin"
    p.write_bytes(_header(blocks))
    if sparse_size:
        os.truncate(p, sparse_size)
    out = in_capped_child(f"""
        import json
        from roofline.core.errors import InputError
        from roofline.importers.neutrino.reader import read_result
        try:
            read_result({str(p)!r})
            print(json.dumps({{"error": None}}))
        except InputError as exc:
            print(json.dumps({{"error": str(exc)}}))
    """)
    assert out["error"] is not None and out["error"].startswith(f"{p}: ")
    assert says in out["error"], out["error"]


@pytest.mark.skipif(not LINUX, reason="RLIMIT_AS")
def test_a_big_section_is_read_in_chunks(tmp_path):
    """512 MiB of (zero) records, sparse: read with the address space capped
    at 1 GiB, where reading the section whole would not fit beside numpy."""
    p = tmp_path / "0.500000.bin"
    blocks = 1 << 21
    p.write_bytes(_header(blocks, threads=512))          # 16 warps x 16 bytes per block
    os.truncate(p, 48 + blocks * 16 * 16)
    out = in_capped_child(f"""
        import json, resource
        from roofline.core.errors import InputError
        from roofline.importers.neutrino.reader import read_result
        try:
            read_result({str(p)!r})
            error = None
        except InputError as exc:
            error = str(exc)
        # VmHWM: this process image's own peak (ru_maxrss survives exec, so a child
        # of a large pytest process would report the parent's size)
        hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
        print(json.dumps({{"error": error, "rss_mb": int(hwm.split()[1]) / 1024}}))
    """)
    assert "every record is zero" in out["error"]
    assert out["rss_mb"] < 400, out


def test_records_of_later_chunks_name_their_block(tmp_path, monkeypatch):
    """Chunked reading keeps block numbers: a bad record in the third chunk
    is named by its block in the whole launch."""
    import numpy as np

    import roofline.importers.neutrino.neutrino_bin as nb
    monkeypatch.setattr(nb, "CHUNK_BYTES", 64 * 16)            # 64 records: 32 blocks of 2 warps a chunk
    blocks = 100
    rec = np.zeros((blocks, 2), dtype=nb.RECORD)
    rec["start"] = 1000 + np.arange(blocks)[:, None]
    rec["elapsed"] = 50
    rec["sm"] = (np.arange(blocks) % 4)[:, None]
    rec["sm"][70, 1] = 3 if rec["sm"][70, 0] != 3 else 2      # block 70: two SMs
    p = tmp_path / "0.5.bin"
    p.write_bytes(struct.pack("<8I", blocks, 1, 1, 64, 1, 1, 0, 1) + struct.pack("<IIQ", 16, 32, 48) + rec.tobytes())
    with pytest.raises(InputError, match="block 70: its warps report SMs"):
        read_result(p)
    rec["sm"][70, 1] = rec["sm"][70, 0]
    p.write_bytes(p.read_bytes()[:48] + rec.tobytes())
    t = read_result(p).kernels[0].launch["block_sched"]
    assert t.block.tolist() == list(range(blocks)) and t.sm.tolist() == (np.arange(blocks) % 4).tolist()
    assert t.start_cycles.tolist() == list(range(blocks)) and t.end_cycles.tolist() == [50 + b for b in range(blocks)]


# --- event.log ---------------------------------------------------------------------

def _big_log(folder, filler_lines: int, long_line: bool = False) -> tuple[int, int]:
    """event.log with ``filler_lines`` lines of 998 bytes (and a line of 3
    MiB) before the second kernel's launch: (its size, the long line's number)."""
    text = (folder / "event.log").read_text()
    head, tail = text.split("[exec] funcmap-find 0x5600b8", 1)
    filler = ("[exec] 1737613657000000000 param 7f0000000000 " + "x" * 950 + "\n") * 1000
    with open(folder / "event.log", "w") as fh:
        fh.write(head)
        for _ in range(filler_lines // 1000):
            fh.write(filler)
        if long_line:
            fh.write("[probe] find 0x5600b8 name " + "y" * (3 * MAX_LOG_LINE) + "\n")
        fh.write("[exec] funcmap-find 0x5600b8" + tail)
    return (folder / "event.log").stat().st_size, head.count("\n") + filler_lines + 1


def test_event_log_is_streamed(tmp_path):
    folder = run_folder(tmp_path)
    size, _ = _big_log(folder, 40_000)              # 40 MB of lines the parser skips
    tracemalloc.start()
    try:
        r = read_run(folder)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [k.name for k in r.kernels] == [NAME_A, NAME_B, NAME_A] and not r.warnings
    assert size > 39e6 and peak < 4e6, peak          # was the whole text, decoded and split: over 2x its size


def test_a_line_longer_than_the_bound_is_skipped_with_a_warning(tmp_path):
    folder = run_folder(tmp_path)
    _, line = _big_log(folder, 1000, long_line=True)
    r = read_run(folder)
    assert [k.name for k in r.kernels] == [NAME_A, NAME_B, NAME_A]
    (warning,) = _warnings(r)
    assert f"1 line(s) longer than 1024 KiB skipped (first: line {line})" in warning


def test_line_numbers_still_name_the_bad_line(tmp_path):
    folder = run_folder(tmp_path)
    log = folder / "event.log"
    lines = log.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("[exec] prologue"))
    lines[at] = "[exec] prologue 0.1 kernel -5 epilogue 0.2 ratio 1"
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        read_run(folder)
    assert err.value.line == at + 1 and "kernel time '-5'" in err.value.detail


# --- a run folder with rank traces beside it ---------------------------------------

def test_probe_toml_reads_the_run_of_a_folder_that_also_holds_traces(tmp_path):
    folder = run_folder(tmp_path)
    (folder / "rank0.json").write_text('{"traceEvents": []}')
    with pytest.raises(InputError, match="holds both 1 trace file"):
        read_profile(folder)
    assert [k.name for k in read_profile(folder / "probe.toml").kernels] == [NAME_A, NAME_B, NAME_A]

