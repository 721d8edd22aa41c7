"""ReadOptions: the user names the format where sniffing is wrong, and a
reader's engine and limits are asked for, not patched."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from roofline.cli.common import INPUT_FORMATS
from roofline.core.errors import InputError, RooflineError
from roofline.importers import read_profile, readers
from roofline.importers.options import ReadOptions

ROOT = Path(__file__).resolve().parents[1]
ECE408 = ROOT / "examples" / "ece408_kernels.csv"


def _cli(*argv):
    return subprocess.run([sys.executable, "-m", "roofline.cli.main", *map(str, argv)],
                          capture_output=True, text=True, cwd=ROOT)


def test_the_help_names_every_reader_in_sniffing_order():
    assert INPUT_FORMATS.split(", ") == [r.name for r in readers()]


def test_a_named_format_skips_sniffing_and_the_reader_says_what_is_wrong(tmp_path):
    odd = tmp_path / "odd.csv"            # an unknown column: no reader's sniff takes it
    odd.write_text("name,time_us,flops_fp32,comment\nk,2,1e6,x\n")
    with pytest.raises(InputError, match="unrecognised profile format"):
        read_profile(odd)
    with pytest.raises(InputError, match=r"odd\.csv:1: unknown column\(s\) comment"):
        read_profile(odd, ReadOptions(format="kernels-csv"))
    done = _cli("classify", odd, "--device", "v100-sxm2", "--input-format", "kernels-csv")
    assert done.returncode == 2 and "odd.csv:1: unknown column(s) comment" in done.stderr


def test_an_unknown_format_name_lists_the_readers():
    done = _cli("import", ECE408, "--input-format", "nsight")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"roofline import: error: --input-format 'nsight': no such reader; expected one of {INPUT_FORMATS}"]
    with pytest.raises(RooflineError, match="no such reader"):
        read_profile(ECE408, ReadOptions(format="nsight"))


def test_the_right_format_named_reads_as_sniffing_does():
    sniffed = read_profile(ECE408)
    named = read_profile(ECE408, ReadOptions(format="kernels-csv"))
    assert named.kernels == sniffed.kernels and named.format == sniffed.format


@pytest.mark.parametrize("engine", ["auto", "python"])
def test_both_kernels_csv_engines_read_the_example_alike(engine):
    auto = read_profile(ECE408).kernels
    got = read_profile(ECE408, ReadOptions(csv_engine=engine)).kernels
    assert list(got.names) == list(auto.names)
    np.testing.assert_array_equal(got.time_s, auto.time_s)
    for p in auto.flops:
        np.testing.assert_array_equal(got.flops[p], auto.flops[p])
    assert got == auto


def test_options_refuse_what_no_reader_takes():
    with pytest.raises(RooflineError, match="csv_engine 'pandas'"):
        ReadOptions(csv_engine="pandas")
    with pytest.raises(RooflineError, match="chunk_bytes 8"):
        ReadOptions(chunk_bytes=8)
