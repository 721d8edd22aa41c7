"""kernels.csv: the accepted header, units in column names, errors with line."""
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.errors import InputError
from roofline.importers import read_profile
from roofline.importers.kernels_csv import format_kernels, parse
from roofline.model import Kernel


def test_issue_header_is_accepted():
    ks = parse("name,time_us,count,flops_fp64,flops_fp32,flops_fp16,bytes_dram,bytes_l2,bytes_l1\n"
               "k,10,2,1,2,3,4,5,6\n")
    k = ks[0]
    assert k.time_s == pytest.approx(10e-6) and k.count == 2
    assert dict(k.flops) == {"fp64": 1, "fp32": 2, "fp16": 3}
    assert dict(k.bytes) == {"DRAM": 4, "L2": 5, "L1": 6}


@pytest.mark.parametrize("column,scale", [("time_s", 1), ("time_ms", 1e-3), ("time_us", 1e-6), ("time_ns", 1e-9)])
def test_time_units(column, scale):
    assert parse(f"name,{column}\nk,3\n")[0].time_s == pytest.approx(3 * scale)


def test_subset_of_columns_and_empty_cells():
    k = parse("name,bytes_dram\nk,\n")[0]
    assert math.isnan(k.time_s) and k.bytes == {} and k.count == 1


@pytest.mark.parametrize("text,line,expected", [
    ("name,time_us\nk,fast\n", 2, "expected a number"),
    ("name,time_us\nk,1\nj,1,2\n", 3, "expected 2 fields"),
    ("name,time_us,flops_fp33\n", 1, "unknown column"),
    ("time_us\n1\n", 1, "no 'name' column"),
    ("name,time_us,time_ms\n", 1, "more than one time column"),
    ("name,count\nk,1.5\n", 2, "whole number"),
    ("name,time_us\nk,-1\n", 2, "non-negative"),
    ("# only a comment\n", None, "empty file"),
])
def test_errors_name_line_and_expectation(text, line, expected):
    with pytest.raises(InputError) as err:
        parse(text, "k.csv")
    assert err.value.line == line and expected in str(err.value)
    assert str(err.value).startswith("k.csv")


def test_read_profile_recognises_kernels_csv(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("# comment\nname,time_ms,flops_fp32\nk,1,2\n")
    result = read_profile(path)
    assert result.format == "kernels-csv" and result.kernels[0].flops == {"fp32": 2.0}


def test_unrecognised_file_is_an_input_error(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("hello\n")
    with pytest.raises(InputError, match="unrecognised"):
        read_profile(path)


names = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20).filter(
    lambda s: s.strip() == s and not s.startswith("#"))
values = st.none() | st.floats(0, 1e15, allow_nan=False)


@settings(max_examples=60)
@given(st.lists(st.tuples(names, values, st.integers(1, 1000), values, values), min_size=1, max_size=8))
def test_format_then_parse_round_trips(rows):
    ks = [Kernel(n, time_s=math.nan if t is None else t, count=c,
                 flops={} if f is None else {"fp32": f}, bytes={} if b is None else {"DRAM": b})
          for n, t, c, f, b in rows]
    back = parse(format_kernels(ks))
    assert [(k.name, k.count, dict(k.flops), dict(k.bytes)) for k in back] == \
           [(k.name, k.count, dict(k.flops), dict(k.bytes)) for k in ks]
