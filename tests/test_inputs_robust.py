"""Inputs from the fuzzing review (issue 20), each built here in tmp_path:
what no profiler writes (counts beyond 2**53, FIFOs and pipes, gzip bombs,
text that is not UTF-8, damaged gzip streams, 5,000-digit numbers) is a
one-line error naming the file, never a hang, a traceback or a silently
wrong result; profile writers lock the file a symlink names, check where
they write before measuring, and leave nothing behind on SIGTERM."""
from __future__ import annotations

import gzip
import math
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from conftest import DATA
from roofline.core import text_files
from roofline.core.errors import InputError, ProfileError
from roofline.core.families import demangle_identifiers, family_of
from roofline.core.model import Kernel, KernelSet
from roofline.core.text_files import read_text
from roofline.devices.profile import load_device, parse_device, profile_lock, save_device
from roofline.importers import read_profile
from roofline.importers import base
from roofline.core.import_result import MAX_COUNT, ImportResult
from roofline.importers.base import Reader
from roofline.importers.options import ReadOptions

CSV = b"name,time_ms,flops_fp32\nk,1,2\n"


def _cli(*args, timeout: float = 60, **kw) -> subprocess.CompletedProcess:
    """The CLI in a child process, so a hang fails the test instead of the run."""
    return subprocess.run([sys.executable, "-m", "roofline.cli.main", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, **kw)


def _one_line_error(run, path, words: str) -> None:
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and words in lines[0], run.stderr


def _zeros_gzip(path: Path, head: bytes, zeros: int) -> Path:
    """``head`` then ``zeros`` NUL bytes, gzip-compressed on the fly (never held whole)."""
    c = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    with open(path, "wb") as fh:
        fh.write(c.compress(head))
        for _ in range(zeros >> 20):
            fh.write(c.compress(block))
        fh.write(c.flush())
    return path


# ------------------------------------- ImportResult: checked once, column-wise

def _set(n: int, **columns) -> KernelSet:
    base = dict(names=np.array([f"k{i}" for i in range(n)], dtype=object), time_s=np.full(n, 1e-3),
                count=np.ones(n), flops={"fp32": np.full(n, 1e9)}, bytes={"DRAM": np.full(n, math.nan)})
    return KernelSet(**{**base, **columns})


def _no_objects(monkeypatch):
    """Fail the test if a Kernel object is built from the columns."""
    monkeypatch.setattr(KernelSet, "_row", lambda self, i: pytest.fail("a Kernel object was built"))


@pytest.mark.parametrize("column, value, words", [
    ("count", 1e20, "kernel 'k5': count 1e+20 is not a whole number from 0 to 2**53"),
    ("count", 9223372036854775808.0, "count 9.223372036854776e+18 is not a whole number"),
    ("count", -1.0, "count -1.0 is not a whole number"),
    ("count", 1.5, "count 1.5 is not a whole number"),
    ("count", math.nan, "count nan"),
    ("time_s", -1e-6, "kernel 'k5': time -1e-06 s is negative"),
    ("time_s", math.inf, "time inf s is beyond a year"),
    ("flops", math.inf, "kernel 'k5': fp32 FLOP = inf: a counter overflowed"),
    ("bytes", -32.0, "kernel 'k5': DRAM bytes = -32.0"),
    ("threads", math.inf, "kernel 'k5': inf threads"),
])
def test_a_result_names_the_first_bad_kernel_of_its_columns(column, value, words, monkeypatch):
    ks = _set(10)
    target = {"flops": ks.flops["fp32"], "bytes": ks.bytes["DRAM"]}.get(column)
    target = getattr(ks, column) if target is None else target
    target[5] = target[8] = value
    _no_objects(monkeypatch)
    with pytest.raises(InputError, match=r"^f\.csv: ") as err:
        ImportResult("f.csv", "kernels-csv", ks)
    assert words in str(err.value)


def test_a_million_rows_are_checked_as_columns(monkeypatch):
    n = 1_000_000
    _no_objects(monkeypatch)
    ks = _set(n, count=np.full(n, float(MAX_COUNT)))
    assert ImportResult("f.csv", "kernels-csv", ks).kernels is ks
    ks.count[-1] = MAX_COUNT * 2.0
    with pytest.raises(InputError, match="k999999': count"):
        ImportResult("f.csv", "kernels-csv", ks)


def test_counts_of_kernel_objects_are_checked_and_zero_kept():
    assert len(ImportResult("f", "x", (Kernel("idle", count=0),)).kernels) == 1
    for count in (2 ** 63, 1e20, -1, 2.5, True):
        with pytest.raises(InputError, match="count .* is not a whole number from 0 to 2\\*\\*53"):
            ImportResult("f", "x", (Kernel("k", count=count),))


def test_every_reader_passes_checked_and_the_cli_says_which_kernel(tmp_path, monkeypatch):
    # a reader that checks nothing itself: read_profile checks its columns
    bad = KernelSet(names=["ok", "wrapped"], time_s=[1e-3, 1e-3], count=[3.0, 1e20])
    lax = Reader("lax", lambda path, head: head.startswith(b"LAX"),
                 lambda path, options: ImportResult(str(path), "lax", bad))
    monkeypatch.setattr(base, "_READERS", [lax, *base._READERS])
    path = tmp_path / "lax.txt"
    path.write_text("LAX\n")
    with pytest.raises(InputError, match=r"lax\.txt: kernel 'wrapped': count 1e\+20 is not a whole number"):
        read_profile(path)
    nsys = tmp_path / "cuda_gpu_kern_sum.csv"
    huge = "1" + "0" * 20                                   # Instances of 1e20: was -9223372036854775808
    nsys.write_text((DATA / "nsys_gpukernsum_2021.csv").read_text().replace(",1000000,4,", f",1000000,{huge},", 1))
    _one_line_error(_cli("classify", nsys, "--device", "t4"), nsys, f"count {huge} is not a whole number")


# ------------------------------------------------- 6: a symlink and its target are one profile

HOLDER = textwrap.dedent("""
    import sys
    from roofline.devices.profile import profile_lock
    with profile_lock(sys.argv[1]):
        print("held", flush=True)
        sys.stdin.read()
""")


def test_a_symlink_to_a_profile_being_written_is_locked_too(tmp_path):
    same, link = tmp_path / "same.yaml", tmp_path / "link.yaml"
    link.symlink_to(same.name)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(same)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ProfileError, match=rf"another roofline measure \(process {holder.pid}\)"):
            save_device(load_device(DATA / "toy_gpu.yaml"), link)
        # measure checks the target and takes the lock before measuring anything
        run = _cli("measure", "--device", "cpu", "--quick", "-o", link, timeout=120)
        _one_line_error(run, os.path.realpath(same), f"another roofline measure (process {holder.pid})")
        assert not same.exists()
    finally:
        holder.stdin.close()
        holder.wait(10)
    with profile_lock(link):                                # free again, and one lock for both names
        with profile_lock(same):
            pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.yaml"]


# ------------------------------------------------- 11: FIFOs and pipes are refused, never read

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_before_it_is_opened(tmp_path):
    fifo = tmp_path / "trace.csv"
    os.mkfifo(fifo)
    for read in (read_profile, read_text):
        with pytest.raises(InputError, match=r"not a regular file \(a FIFO or pipe\); save the profile"):
            read(fifo)
    _one_line_error(_cli("classify", fifo, "--device", "t4", timeout=30), fifo, "not a regular file")


def test_a_pipe_is_refused_and_a_redirected_file_is_read(tmp_path):
    pipe = _cli("classify", "/dev/stdin", "--device", "t4", input=CSV.decode(), timeout=30)
    _one_line_error(pipe, "/dev/stdin", "not a regular file (a FIFO or pipe)")
    path = tmp_path / "k.csv"
    path.write_bytes(CSV)
    with open(path) as stdin:                       # /dev/stdin that is a file is a file
        assert _cli("classify", "/dev/stdin", "--device", "t4", stdin=stdin).returncode == 0


# ------------------------------------------------- 13: bounded text and gzip

def test_a_gzip_bomb_is_one_line_and_bounded(tmp_path, monkeypatch):
    bomb = _zeros_gzip(tmp_path / "bomb.csv.gz", b"name,time_ms\n", 96 << 20)
    assert bomb.stat().st_size < 1 << 20                    # real caps: 64 MiB for a file this small
    _one_line_error(_cli("classify", bomb, "--device", "t4"), bomb, "a decompression bomb")
    monkeypatch.setattr(text_files, "GZIP_SMALL_BYTES", 1 << 20)
    small = _zeros_gzip(tmp_path / "small.csv.gz", b"name,time_ms\n", 4 << 20)
    with pytest.raises(InputError, match="inflates to more than 1,048,576 bytes"):
        read_text(small)
    monkeypatch.setattr(text_files, "MAX_GZIP_RATIO", 10 ** 6)
    with pytest.raises(InputError, match="at most 2,097,152 bytes"):
        read_text(small, 2 << 20)


def test_a_plain_text_file_over_the_limit_is_refused(tmp_path):
    path = tmp_path / "big.csv"
    path.write_bytes(CSV + b"k,1,2\n" * 1000)
    with pytest.raises(InputError, match=r"big\.csv: 6,0\d\d bytes: too big for a text profile \(at most 1,000\)"):
        read_profile(path, ReadOptions(max_text_bytes=1000))


# ------------------------------------------------- 13: messages that say what is wrong

@pytest.mark.parametrize("name, data, words", [
    ("empty.csv", b"", "empty file"),
    ("blank.csv", b"\n  \r\n", "holds only white space"),
    ("empty.csv.gz", gzip.compress(b""), "empty file"),
    ("latin1.csv", b"name,time_ms,flops_fp32\nk\xe9,1,2\n", "not UTF-8 text (byte 25)"),
    ("bom-latin1.csv", b"\xef\xbb\xbfname,time_ms,flops_fp32\nk\xe9,1,2\n", "not UTF-8 text (byte 28)"),
    ("u16le.csv", CSV.decode().encode("utf-16-le"), "UTF-16 text (little-endian) without a byte-order mark"),
    ("u16be.csv", CSV.decode().encode("utf-16-be"), "UTF-16 text (big-endian) without a byte-order mark"),
    ("zeros.csv", bytes(5000), "holds only NUL bytes"),
])
def test_files_no_reader_takes_say_why(tmp_path, name, data, words):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as err:
        read_profile(path)
    assert str(err.value).startswith(f"{path}: {words}")
    assert "unrecognised" not in str(err.value)


def test_messages_reach_the_cli_as_one_line(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"name,time_ms,flops_fp32\nk\xe9,1,2\n")
    _one_line_error(_cli("classify", path, "--device", "t4"), path, "not UTF-8 text (byte 25)")


def test_gzip_zero_padding_and_members_read_as_gzip_does(tmp_path):
    plain = (DATA / "ncu_details.csv").read_bytes()
    padded = tmp_path / "padded.csv.gz"
    padded.write_bytes(gzip.compress(plain) + bytes(512))           # tape-block padding
    members = tmp_path / "members.csv.gz"
    members.write_bytes(gzip.compress(plain[:1000]) + gzip.compress(plain[1000:]) + bytes(3))
    want = read_profile(DATA / "ncu_details.csv")
    for path in (padded, members):
        if shutil.which("gzip"):                                    # gzip(1) takes them too
            assert subprocess.run(["gzip", "-t", str(path)], capture_output=True).returncode in (0, 2)
        got = read_profile(path)
        assert [(k.name, dict(k.flops)) for k in got.kernels] == [(k.name, dict(k.flops)) for k in want.kernels]


@pytest.mark.parametrize("damage, words", [
    ("crc", "the data does not match its checksum (the file is damaged)"),
    ("garbage", "bytes after its end are neither a gzip member nor zero padding"),
    ("truncated", "truncated"),
])
def test_damaged_gzip_streams_say_so(tmp_path, damage, words):
    data = bytearray(gzip.compress(CSV))
    if damage == "crc":
        data[-8] ^= 0xFF
    elif damage == "garbage":
        data += b"PK\x03\x04 not gzip"
    else:
        del data[-6:]
    path = tmp_path / "k.csv.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match="corrupt gzip stream") as err:
        read_profile(path)
    assert words in str(err.value) and err.value.path == str(path)
    if damage == "crc":
        _one_line_error(_cli("classify", path, "--device", "t4"), path, words)


# ------------------------------------------------- 14: numbers beyond every limit

def test_a_mangled_name_of_5000_digits_is_a_name(tmp_path):
    name = "_Z" + "1" * 5000
    assert demangle_identifiers(name) == name and family_of(name) == "other"
    assert demangle_identifiers("_Z" + "999999" + "a" * 20) == "_Z999999" + "a" * 20
    start = time.perf_counter()     # linear however the length prefixes overlap
    for hostile in ("_Z" + "999999a" * 100_000 + "-", "_Z" + "999999-" * 100_000, "_Z" + "1a" * 300_000):
        demangle_identifiers(hostile)
    assert time.perf_counter() - start < 5
    path = tmp_path / "k.csv"
    path.write_text(f"name,time_ms,flops_fp32\n{name},1,2\n")
    assert read_profile(path).kernels[0].family == "other"
    run = _cli("classify", path, "--device", "t4", "--format", "csv")
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr


@pytest.mark.parametrize("where, value, line, key", [
    ("launch_overhead_s: 5.0e-6", "launch_overhead_s: " + "9" * 401, 13, "launch_overhead_s"),
    ("launch_overhead_s: 5.0e-6", "launch_overhead_s: -" + "9" * 5000, 13, "launch_overhead_s"),
    ("  fp32: {flop_s: 15.7e12}", "  fp32: {flop_s: " + "9" * 401 + "}", 6, "compute.fp32.flop_s"),
    ("provenance: {method: datasheet}", "provenance: {method: datasheet, n: " + "9" * 401 + "}", 14,
     "provenance.n"),
])
def test_a_profile_number_beyond_the_float_range_names_key_and_line(tmp_path, where, value, line, key):
    text = (DATA / "toy_gpu.yaml").read_text()
    assert where in text
    path = tmp_path / "big.yaml"
    path.write_text(text.replace(where, value))
    with pytest.raises(ProfileError) as err:
        load_device(path)
    assert err.value.line == line and f"key '{key}': a whole number of" in str(err.value)
    assert "beyond the range of a number" in str(err.value) and len(str(err.value)) < 300
    csv = tmp_path / "k.csv"
    csv.write_bytes(CSV)
    _one_line_error(_cli("classify", csv, "--device", path), path, f"key '{key}'")


def test_ordinary_profile_integers_still_read():
    text = (DATA / "toy_gpu.yaml").read_text().replace("launch_overhead_s: 5.0e-6", "launch_overhead_s: 1_000")
    assert parse_device(text).launch_overhead_s == 1000.0
    text = text.replace("provenance: {method: datasheet}", "provenance: {method: datasheet, n: 0x1f}")
    assert parse_device(text).provenance["n"] == 31


# ------------------------------------------------- measure: the target, checked before measuring

def test_measure_refuses_a_directory_or_a_path_under_a_file_before_measuring(tmp_path):
    folder = tmp_path / "profiles"
    folder.mkdir()
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder\n")
    for target, words in [(folder, "names a directory: give the profile's file name"),
                          (f"{tmp_path / 'new'}/", "names a directory"),
                          (blocker / "sub" / "my.yaml",
                           f"cannot make its folder: {os.path.realpath(blocker)} is a file")]:
        start = time.perf_counter()
        run = _cli("measure", "--device", "cpu", "--quick", "-o", target, timeout=60)
        _one_line_error(run, target, words)
        assert time.perf_counter() - start < 30             # nothing was measured
    assert list(folder.iterdir()) == [] and not (tmp_path / "new").exists()


# ------------------------------------------------- SIGTERM: no temporaries, exit 143

ROUNDS = textwrap.dedent("""
    import json, os, random, signal, sys, threading, time
    from roofline.core.atomic import atomic_path

    class Term(Exception):
        pass

    def on_term(signum, frame):
        raise Term()

    signal.signal(signal.SIGTERM, on_term)
    target, rounds = sys.argv[1], int(sys.argv[2])
    terminated = 0

    def shoot():
        time.sleep(random.uniform(0, 0.0002))
        os.kill(os.getpid(), signal.SIGTERM)

    for _ in range(rounds):
        shooter = threading.Thread(target=shoot)
        try:
            shooter.start()
            while True:
                with atomic_path(target) as tmp:
                    tmp.write_bytes(b"x" * 100)
        except Term:
            terminated += 1
        shooter.join()
    assert signal.getsignal(signal.SIGTERM) is on_term      # the handler was restored
    print(json.dumps({"terminated": terminated}))
""")


def test_sigterm_at_any_moment_of_a_write_leaves_no_temporary_file(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    script = tmp_path / "rounds.py"
    script.write_text(ROUNDS)
    run = subprocess.run([sys.executable, str(script), str(out / "chart.png"), "1000"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "Exception ignored" not in run.stderr, run.stderr[-2000:]
    assert '"terminated": 1000' in run.stdout
    assert sorted(p.name for p in out.iterdir()) in ([], ["chart.png"])


DEFAULT_SIGTERM = textwrap.dedent("""
    import sys, time
    from roofline.core.atomic import atomic_path
    with atomic_path(sys.argv[1]) as tmp:
        tmp.write_bytes(b"half")
        print("writing", flush=True)
        time.sleep(60)
""")


def test_sigterm_with_the_default_action_removes_the_temporary_then_ends(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", DEFAULT_SIGTERM, str(tmp_path / "p.yaml")],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "writing"
    assert len(list(tmp_path.iterdir())) == 1                 # the temporary
    child.send_signal(signal.SIGTERM)
    assert child.wait(30) == -signal.SIGTERM                   # still ends as SIGTERM does
    assert list(tmp_path.iterdir()) == []


def test_the_cli_turns_sigterm_into_exit_143_after_its_cleanups(tmp_path):
    target = tmp_path / "my.yaml"
    child = subprocess.Popen([sys.executable, "-m", "roofline.cli.main", "measure", "--device", "cpu",
                              "--quick", "-o", str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env={**os.environ, "ROOFLINE_HOME": str(tmp_path / "home")})
    deadline = time.monotonic() + 60
    while not (tmp_path / ".my.yaml.lock").exists():          # measuring, under the profile's lock
        assert child.poll() is None and time.monotonic() < deadline, child.communicate()
        time.sleep(0.02)
    child.send_signal(signal.SIGTERM)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 143, err
    assert err.strip().splitlines()[-1] == "roofline measure: terminated"
    assert list(tmp_path.iterdir()) == []                     # lock released, nothing half-written
