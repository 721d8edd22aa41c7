"""The C references of benchmarks/cpu_vs_reference.py build and print what
the benchmark parses (tiny sizes: a format check, never a speed check)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

BENCH = REPO / "benchmarks"
sys.path.insert(0, str(BENCH))
CC = shutil.which("gcc") or shutil.which("cc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler")


def build(tmp_path, source, *flags):
    exe = tmp_path / source.replace(".c", "")
    r = subprocess.run([CC, "-O2", *flags, str(BENCH / source), "-o", str(exe)], capture_output=True, text=True)
    if r.returncode and "-fopenmp" in flags:
        pytest.skip(f"no OpenMP: {r.stderr.strip()[-200:]}")
    assert r.returncode == 0, r.stderr
    return exe


@needs_cc
@pytest.mark.parametrize("streams", [1, 2, 4, 8])
def test_read_bw_prints_a_rate_for_every_stream_count(tmp_path, streams):
    exe = build(tmp_path, "read_bw.c")
    out = subprocess.run([str(exe), "65536", "3", "huge", str(streams)], capture_output=True, text=True,
                         check=True).stdout
    m = re.fullmatch(r"read_bytes_s (\S+) median_bytes_s (\S+) bytes (\d+) huge 1 streams (\d+)\n", out)
    assert m and float(m.group(1)) >= float(m.group(2)) > 0
    assert int(m.group(3)) == 65536 and int(m.group(4)) == streams


@needs_cc
def test_read_bw_refuses_a_stream_count_it_does_not_build(tmp_path):
    exe = build(tmp_path, "read_bw.c")
    r = subprocess.run([str(exe), "65536", "3", "small", "3"], capture_output=True, text=True)
    assert r.returncode == 2 and "streams 1|2|4|8" in r.stderr


@needs_cc
def test_stream_triad_prints_what_the_benchmark_parses(tmp_path):
    import cpu_vs_reference as bench
    exe = build(tmp_path, "stream.c", "-fopenmp")
    rate = bench.c_run(exe, [100_000, 3, "huge"], "triad_bytes_s", threads=1)
    out = subprocess.run([str(exe), "100000", "3"], capture_output=True, text=True, check=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1")).stdout
    assert rate and rate > 0
    assert re.match(r"triad_bytes_s \S+ median_bytes_s \S+ elements 100000 threads 1 check ", out)


def test_bandwidth_rows_fail_high_as_well_as_low():
    import cpu_vs_reference as bench
    assert bench.verdict(0.89, 0.90, "B/s") == "LOW"
    assert bench.verdict(1.11, 0.90, "B/s") == "HIGH"
    assert bench.verdict(1.05, 0.90, "B/s") == "ok"
    assert bench.verdict(1.30, 0.95, "FLOP/s") == "ok"     # a FLOP row has a floor only


def test_interleaving_takes_the_best_of_each_side_and_skips_missing_runs():
    import cpu_vs_reference as bench
    ours = iter([1.0, 3.0, 2.0])
    ref = iter([None, 5.0, 4.0])
    assert bench.interleaved(lambda: next(ours), lambda: next(ref), rounds=3) == (3.0, 5.0)
    assert bench.interleaved(lambda: None, lambda: None, rounds=2) == (None, None)
