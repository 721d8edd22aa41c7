"""kernels.csv: the accepted header, units in column names, errors with line."""
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.core.errors import InputError
from roofline.importers import read_profile
from roofline.importers.kernels_csv import format_kernels, parse
from roofline.core.model import Kernel


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
times = st.none() | st.floats(0, 365 * 24 * 3600.0, allow_nan=False)     # at most a year


@settings(max_examples=60)
@given(st.lists(st.tuples(names, times, st.integers(1, 1000), values, values), min_size=1, max_size=8))
def test_format_then_parse_round_trips(rows):
    ks = [Kernel(n, time_s=math.nan if t is None else t, count=c,
                 flops={} if f is None else {"fp32": f}, bytes={} if b is None else {"DRAM": b})
          for n, t, c, f, b in rows]
    back = parse(format_kernels(ks))
    assert [(k.name, k.count, dict(k.flops), dict(k.bytes)) for k in back] == \
           [(k.name, k.count, dict(k.flops), dict(k.bytes)) for k in ks]


def test_names_with_hash_newline_and_commas_round_trip():
    from roofline.core.model import Kernel
    ks = [Kernel("#pragma unroll kernel", time_s=1e-3, flops={"fp32": 1e6}),
          Kernel("two\nlines, and a \"quote\"", time_s=2e-3),
          Kernel("void f<float, 3>(int)", time_s=3e-3, bytes={"DRAM": 5.0})]
    back = parse(format_kernels(ks))
    assert [k.name for k in back] == [k.name for k in ks]
    assert back[0].flops == {"fp32": 1e6} and back[2].bytes == {"DRAM": 5.0}


def test_errors_name_the_physical_line_after_quoted_newlines_and_comments():
    text = 'name,time_us\n# a comment\n"multi\nline",1\nk,2\nbad,x\n'
    with pytest.raises(InputError, match=r":6: column time_us: expected a number, found 'x'"):
        parse(text, "k.csv")
    with pytest.raises(InputError, match=r":3: expected 2 fields"):
        parse('name,time_us\nk,1\nj,1,2\n', "k.csv")


def test_parse_gives_columns_without_building_kernels(monkeypatch):
    from roofline.core.model import KernelSet
    monkeypatch.setattr(KernelSet, "_row", lambda self, i: pytest.fail("a Kernel object was built"))
    ks = parse("name,time_us,count,flops_fp32\nk,2,2,10\nj,,1,\nk,4,1,20\n")
    assert isinstance(ks, KernelSet)
    assert list(ks.names) == ["k", "j", "k"] and ks.names[0] is ks.names[2]   # names interned
    assert np.allclose(ks.time_s, [2e-6, np.nan, 4e-6], equal_nan=True)
    assert np.allclose(ks.flops["fp32"], [10, np.nan, 20], equal_nan=True)
    assert list(ks.count) == [2, 1, 1]


SAMPLE = ('name,time_us,count,flops_fp32,flops_fp16,bytes_dram,bytes_l2,instructions,threads,'
          'family,variant,operator,source,modelled\n'
          '"void f<float, 3>(int)",12.5,3,1e9,,2e6,4e6,1000,1,gemm,v2,aten::mm,a.cu,1\n'
          '"two\nlines",0.5,1,,5e5,,,,,,,,,0\n'
          'k,,2,3,4,5,6,7,2,,,,,\n')


def _same_columns(a, b):
    assert list(a.names) == list(b.names)
    for x, y in [(a.time_s, b.time_s), (a.count, b.count), (a.threads, b.threads)]:
        assert np.array_equal(x, y, equal_nan=True)
    for d1, d2 in [(a.flops, b.flops), (a.bytes, b.bytes), (a.transactions, b.transactions)]:
        assert set(d1) == set(d2) and all(np.array_equal(d1[k], d2[k], equal_nan=True) for k in d1)
    assert (a.instructions is None) == (b.instructions is None)
    if a.instructions is not None:
        assert np.array_equal(a.instructions, b.instructions, equal_nan=True)
    for col in ("families", "variants", "operators", "sources", "modelled"):
        assert list(getattr(a, col)) == list(getattr(b, col)), col


def test_arrow_and_careful_readers_agree(monkeypatch):
    from roofline.importers import kernels_csv
    fast = kernels_csv._arrow_set(SAMPLE)
    if fast is None:
        pytest.skip("pyarrow is not installed")
    careful = kernels_csv.parse_columns(SAMPLE)
    _same_columns(fast, careful)
    spaced = "name,time_us\n k ,  1.5 \n"          # both trim names and read padded numbers
    _same_columns(kernels_csv._arrow_set(spaced), kernels_csv.parse_columns(spaced))
    assert list(careful.names) == ["void f<float, 3>(int)", "two\nlines", "k"]


@pytest.mark.parametrize("text", [
    "name,time_us\n# comment\nk,1\n",          # comments: the careful reader
    "name,time_us\nk,nan\n",                   # a written NaN is an error
    "name,time_us\nk,-1\n",
    "name,time_us,count\nk,1,1.5\n",
    "name,time_us\nk,1,2\n",
    "name,time_us\n ,1\n",
])
def test_arrow_reader_hands_unusual_files_to_the_careful_one(text):
    from roofline.importers import kernels_csv
    assert kernels_csv._arrow_set(text) is None


def test_classify_csv_writers_agree_and_defuse_formulas(monkeypatch):
    import csv as csvmod
    import io

    from roofline.render import tables
    from roofline.core.placement import place
    from roofline.devices.profile import find_device
    ks = parse('name,time_us,count,flops_fp32,bytes_dram,operator,modelled\n'
               '"a,b",3,2,1e9,5e6,,1\n=cmd,1e-3,1,,7,aten::mm,0\nk,0.5,1,123.456,,,0\n')
    p = place(ks, find_device("v100-sxm2"))
    fast = tables.placements_csv(p)
    monkeypatch.setattr(tables, "_arrow_csv", lambda columns: None)
    plain = tables.placements_csv(p)
    a, b = (list(csvmod.reader(io.StringIO(t))) for t in (fast, plain))
    from roofline.core.row_schema import FIELDS
    levels = [f.name for f in FIELDS if f.kind == "levels"]
    per_level = {"bytes": list(p.kernels.bytes), "intensity": list(p.intensity)}
    expected = [n for f in FIELDS for n in ([f"{f.name}_{lv}" for lv in per_level[f.name]]
                                            if f.name in levels else [f.name])]
    assert a[0] == b[0] == expected     # every JSON field, per-level ones one column per level
    assert len(a) == len(b) == 4
    for ra, rb in zip(a[1:], b[1:]):
        for x, y in zip(ra, rb):
            try:
                assert float(x) == pytest.approx(float(y), rel=1e-15)
            except ValueError:
                assert x == y
    assert b[2][0] == "'=cmd" and b[1][0] == "a,b"


def test_the_docs_list_every_output_field():
    """docs/formats.md's table of classify's fields names each field of the
    schema, in its order."""
    import re
    from roofline.core.row_schema import NAMES
    text = (Path(__file__).resolve().parent.parent / "docs" / "formats.md").read_text()
    section = text.split("## What `classify` writes", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^\| `([a-z_]+)` \|", section, re.M) == list(NAMES)


def test_arrow_reader_trims_and_names_families_once_per_distinct_cell():
    """Cells that differ only in spaces and tabs are one name after
    trimming, and every row gets its name's family, without a family
    column and with one that names some rows."""
    from roofline.core.families import family_of
    from roofline.importers import kernels_csv
    plain = 'name,time_us\n k ,1\nk,2\n\tvolta_sgemm_128x64_nn ,3\nvolta_sgemm_128x64_nn,4\n'
    named = 'name,time_us,family\n k ,1,\nk,2,\n\tvolta_sgemm_128x64_nn ,3,conv\nvolta_sgemm_128x64_nn,4,\n'
    for text in (plain, named):
        fast, careful = kernels_csv._arrow_set(text), kernels_csv.parse_columns(text)
        assert fast is not None
        _same_columns(fast, careful)
        assert list(fast.names) == ["k", "k", "volta_sgemm_128x64_nn", "volta_sgemm_128x64_nn"]
    assert list(fast.families) == [family_of("k")] * 2 + ["conv", family_of("volta_sgemm_128x64_nn")]


@pytest.mark.parametrize("raw,fast", [
    (b"name,time_us,count\nk,1.5,2\n\xc3\xa9t\xc3\xa9,2,1\n", True),          # plain UTF-8: Arrow reads the bytes
    (b"\xef\xbb\xbfname,time_us\nk,1\n", False),                               # a byte-order mark: read as text
    ("name,time_us\nk,1\n".encode("utf-16"), False),
])
def test_a_file_is_read_the_same_from_its_bytes_or_its_text(tmp_path, raw, fast, monkeypatch):
    """A plain UTF-8 kernels.csv goes to Arrow as its bytes (no decode and
    re-encode); every other file, and the careful engine, through read_text:
    the kernels are the same either way."""
    from roofline.importers import kernels_csv
    from roofline.importers.options import ReadOptions
    from roofline.core.text_files import read_text
    path = tmp_path / "k.csv"
    path.write_bytes(raw)
    got = kernels_csv.read(path).kernels
    _same_columns(got, kernels_csv.parse(read_text(path)))
    _same_columns(got, kernels_csv.read(path, ReadOptions(csv_engine="python")).kernels)
    assert (kernels_csv._plain_bytes(path, None) is not None) == fast


@pytest.mark.parametrize("raw", [
    b"name,time_us\nk\xff,1\n",          # not UTF-8 in a name
    b"name,time_us\nk,1\xff\n",          # not UTF-8 in a number
])
def test_a_file_that_is_not_utf8_is_refused_naming_the_byte(tmp_path, raw):
    from roofline.importers import kernels_csv
    path = tmp_path / "k.csv"
    path.write_bytes(raw)
    with pytest.raises(InputError) as err:
        kernels_csv.read(path)
    bad = raw.index(b"\xff")
    assert f"not UTF-8 text (byte {bad})" in str(err.value)
