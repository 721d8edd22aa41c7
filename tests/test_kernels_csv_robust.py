"""kernels.csv on hostile and awkward input (issue 20): impossible times and
counts are refused naming the line, lines end only at CR/LF, a cut character
or a quoted header still reads, a huge header or cell is refused fast and
before it is copied, names keep their non-ASCII white space; and the Arrow
reader and the careful one agree on every file the Arrow one accepts."""
from __future__ import annotations

import shutil
import time
import tracemalloc
import warnings

import numpy as np
import pyarrow as pa  # a hard dependency: imported, never skipped on
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roofline.core.errors import InputError
from roofline.core.text_files import HEAD_BYTES
from roofline.importers import kernels_csv, kernels_csv_checks, read_profile
from roofline.core.import_result import MAX_TIME_S
from roofline.importers.kernels_csv import parse, parse_columns



def _arrow(text):
    return kernels_csv._arrow_set(text)


def _refused_by_both(text, line, message):
    """``parse`` (Arrow first) and the careful reader alone refuse ``text``
    with the same error, naming the line."""
    errors = []
    for read in (parse, parse_columns):
        with pytest.raises(InputError) as err:
            read(text, "k.csv")
        errors.append(err.value)
    assert str(errors[0]) == str(errors[1])
    assert errors[0].line == line, str(errors[0])
    assert message in errors[0].detail, str(errors[0])
    return errors[0]


def _same(a, b):
    assert list(a.names) == list(b.names)
    for x, y in [(a.time_s, b.time_s), (a.count, b.count), (a.threads, b.threads)]:
        assert np.array_equal(x, y, equal_nan=True)
    for d1, d2 in [(a.flops, b.flops), (a.bytes, b.bytes), (a.transactions, b.transactions)]:
        assert set(d1) == set(d2) and all(np.array_equal(d1[k], d2[k], equal_nan=True) for k in d1)
    for col in ("families", "variants", "operators", "sources", "modelled"):
        assert list(getattr(a, col)) == list(getattr(b, col)), col


# --- finding 3: impossible times -----------------------------------------------

@pytest.mark.parametrize("column,scale", list(kernels_csv.TIME_COLUMNS.items()))
@pytest.mark.parametrize("cell,message", [
    ("1e300", "expected a time of at most a year"),
    ("-1", "expected a non-negative number"),
    ("inf", "expected a non-negative number"),
    ("nan", "expected a non-negative number"),
])
def test_impossible_times_are_refused_naming_the_line(column, scale, cell, message):
    text = f"name,{column},count\nok,1,1\nk,{cell},1\n"
    err = _refused_by_both(text, 3, message)
    assert f"column {column}" in err.detail and repr(cell) in err.detail


@pytest.mark.parametrize("column,scale", list(kernels_csv.TIME_COLUMNS.items()))
def test_a_year_is_the_longest_time(column, scale):
    year = repr(MAX_TIME_S / scale)
    for text in (f"name,{column}\nk,{year}\n", f"# c\nname,{column}\nk,{year}\n"):
        assert parse(text)[0].time_s == pytest.approx(MAX_TIME_S)
    _refused_by_both(f"name,{column}\nj,1\nk,{MAX_TIME_S * 1.001 / scale!r}\n", 3, "at most a year")


def test_time_beyond_a_year_from_a_file(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("name,time_us,count\nk,1e300,1\n")
    with pytest.raises(InputError, match=r"k\.csv:2: column time_us: expected a time of at most a year"):
        read_profile(path)


# --- finding 4: counts past 2**53 ----------------------------------------------

@pytest.mark.parametrize("cell", ["1e20", "9223372036854775808", "9007199254740993", "4503599627370496.5",
                                  "0", "-0", "1.5"])
def test_counts_must_be_whole_numbers_up_to_2_53(cell):
    err = _refused_by_both(f"name,time_us,count\nok,1,2\nk,1,{cell}\n", 3,
                           "column count: expected a whole number from 1 to 2**53")
    assert repr(cell) in err.detail


def test_largest_count_reads_exactly_on_both_paths():
    text = "name,time_us,count,threads\nk,1,9007199254740992,\nj,1,4503599627370497,2\n"
    careful = parse_columns(text)
    assert careful.count.tolist() == [2 ** 53, 2 ** 52 + 1]
    fast = _arrow(text)           # past 2**52 the digits decide: the careful reader reads them
    assert fast is None or fast.count.tolist() == careful.count.tolist()
    assert [k.count for k in parse(text)] == [2 ** 53, 2 ** 52 + 1]


def test_huge_count_is_a_one_line_error_not_a_negative_count(tmp_path, capsys):
    from roofline.cli.main import main
    path = tmp_path / "k.csv"
    path.write_text("name,time_us,count\nk,1,1e20\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)      # numpy's cast warning leaked to stderr
        code = main(["classify", str(path), "--device", "v100-sxm2"])
    out, err = capsys.readouterr()
    assert code == 2 and "-9223372036854775808" not in out
    assert err.strip().endswith("k.csv:2: column count: expected a whole number from 1 to 2**53 "
                                "(9007199254740992), found '1e20'")


@pytest.mark.parametrize("cell", ["1e20", "0", "2.5"])
def test_threads_follow_the_same_rule(cell):
    _refused_by_both(f"name,time_us,threads\nk,1,{cell}\n", 2, "column threads: expected a whole number")


# --- finding 5: lines end at CR/LF only; quoted '#' is data ---------------------

FINDING_5 = ('# comment\n'
             'name,time_us,count,flops_fp32\n'
             '"odd\u2028name",1,1,1\n'
             '# note,5,1,1,1\n'
             '"#pragma_unroll_kernel",2000,1,1\n')


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_comment_is_never_a_kernel_and_quoted_hash_is_data(tmp_path, newline):
    path = tmp_path / "k.csv"
    path.write_bytes(FINDING_5.replace("\n", newline).encode("utf-8"))
    ks = read_profile(path).kernels
    assert [k.name for k in ks] == ["odd\u2028name", "#pragma_unroll_kernel"]
    assert [k.time_s for k in ks] == pytest.approx([1e-6, 2e-3])


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"])
def test_unicode_line_separators_are_text_on_both_paths(sep):
    text = f"name,time_us\na{sep}b,1\nk{sep},2\nbad,x\n"
    with pytest.raises(InputError, match=r":4: column time_us"):     # line numbers count CR/LF only
        parse(text, "k.csv")
    good = text.replace("bad,x\n", "")
    fast, careful = _arrow(good), parse_columns(good)
    assert list(careful.names) == [f"a{sep}b", f"k{sep}"]
    _same(fast, careful)
    commented = f"# {sep}# not a kernel\n{good}"
    assert list(parse_columns(commented).names) == [f"a{sep}b", f"k{sep}"]


def test_hash_line_inside_a_quoted_cell_is_data():
    text = 'name,time_us\n"first\n# still the name",1\n# a comment,9\nk,2\n'
    assert list(parse_columns(text).names) == ["first\n# still the name", "k"]
    with pytest.raises(InputError, match=r":6: column time_us"):
        parse(text + "bad,x\n", "k.csv")


def test_comment_with_an_open_quote_does_not_swallow_rows():
    text = 'name,time_us\n# say "hi, and never close it\nk,1\nj,2\n'
    assert list(parse(text).names) == ["k", "j"]


# --- finding 7: a cut character in the sniffing head; a quoted header ----------

def test_head_ending_inside_a_two_byte_character_is_sniffed(tmp_path):
    header = "name,time_us,count\n"
    pad = 0
    while True:   # put the first byte of a 'é' at the last byte of the head
        text = header + "x" * pad + ",1,1\n" + "é" * 10 + ",1,1\n" * 1 + ("é" * 10 + ",1,1\n") * 7000
        if text.encode("utf-8")[HEAD_BYTES - 1] == 0xC3:
            break
        pad += 1
    path = tmp_path / "k.csv"
    path.write_text(text, encoding="utf-8")
    assert path.read_bytes()[HEAD_BYTES - 1:HEAD_BYTES + 1] == "é".encode()
    result = read_profile(path)
    assert result.format == "kernels-csv" and len(result.kernels) == 7002


def test_sniff_takes_a_header_cut_by_the_head():
    assert kernels_csv.sniff(None, b"name,time_us,flops_fp3")
    assert not kernels_csv.sniff(None, b"name,time_us,bogus_colu")
    assert not kernels_csv.sniff(None, b"name,time_us,bogus\nk,1,2\n")


@pytest.mark.parametrize("header", ['"name","time_us","count"', '"name",time_us,"count"'])
def test_quoted_header_as_r_writes_it(tmp_path, header):
    path = tmp_path / "k.csv"
    path.write_text(f'{header}\n"k",1,2\n"j",3,4\n')
    ks = read_profile(path).kernels
    assert [(k.name, k.count) for k in ks] == [("k", 2), ("j", 4)]
    text = path.read_text()
    _same(_arrow(text), parse_columns(text))


# --- finding 10: a header of 80,000 columns -------------------------------------

def test_huge_header_of_duplicates_is_refused_fast(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("name" + ",count" * 80_000 + "\nk" + ",1" * 80_000 + "\n")
    start = time.perf_counter()
    with pytest.raises(InputError) as err:
        read_profile(path)
    assert time.perf_counter() - start < 10          # 116 s when the check was quadratic
    assert err.value.line == 1 and err.value.detail == "duplicate column(s): count"


def test_many_unknown_columns_are_listed_briefly():
    err = _refused_by_both("name" + "".join(f",x{i}" for i in range(5000)) + "\nk\n", 1, "unknown column(s)")
    assert err.detail.count("x") < 20 and "and 4992 more" in err.detail


# --- finding 13: huge cells ------------------------------------------------------

def test_long_cell_is_refused_before_any_reader_copies_the_text(monkeypatch):
    monkeypatch.setattr(kernels_csv_checks, "MAX_FIELD_CHARS", 1000)

    def copied(*args, **kwargs):
        raise AssertionError("a reader ran before the cell limit was checked")
    monkeypatch.setattr(kernels_csv, "_arrow_set", copied)
    monkeypatch.setattr(kernels_csv, "records", copied)
    text = "name,time_us\nk,1\n" + "a" * 50_000 + ",1\n"
    with pytest.raises(InputError) as err:
        parse(text, "k.csv")
    assert err.value.line == 3 and "a cell longer than 1000 characters" in err.value.detail


def test_streamed_32_mb_cell_fails_in_little_memory(tmp_path):
    size = 32 * 2 ** 20
    if shutil.disk_usage(tmp_path).free < 4 * size:
        pytest.skip("not enough free disk for a 32 MB file")
    path = tmp_path / "k.csv"
    with open(path, "w") as fh:
        fh.write("name,time_us\n# a comment\nk,1\n")
        chunk = "n" * 2 ** 20
        for _ in range(size // len(chunk)):
            fh.write(chunk)
        fh.write(",1\n")
    with pytest.raises(InputError, match=r"k\.csv:4: a cell longer than 131072 characters"):
        read_profile(path)
    text = path.read_text()
    tracemalloc.start()
    try:
        with pytest.raises(InputError):
            parse(text, path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 ** 20          # nothing the size of the cell was built


@pytest.mark.parametrize("cell", ["q" * 131_073, "q" * 200_000, '"' + "q," * 70_000 + '"'])
def test_one_cell_limit_on_both_paths(cell):
    text = f"name,time_us\nk,1\n{cell},2\n"
    _refused_by_both(text, 3, "a cell longer than 131072 characters")


def test_a_cell_at_the_limit_reads_on_both_paths():
    name = "q" * 131_072
    text = f"name,time_us\nk,1\n{name},2\n"
    fast, careful = _arrow(text), parse_columns(text)
    assert fast is not None and list(careful.names) == ["k", name]
    _same(fast, careful)


def test_long_numeric_cell_is_refused_by_both():
    _refused_by_both("name,time_us\nk," + "0" * 131_072 + "1\n", 2, "a cell longer than")


def test_monkeypatched_limit_holds_on_both_paths(monkeypatch):
    monkeypatch.setattr(kernels_csv_checks, "MAX_FIELD_CHARS", 100)
    text = 'name,time_us\nk,1\n"' + "a," * 60 + '",2\n'       # commas: no long run, a long cell
    _refused_by_both(text, 3, "a cell longer than 100 characters")


# --- names keep non-ASCII white space ---------------------------------------------

@pytest.mark.parametrize("raw,name", [
    (" \tk\t ", "k"),
    ("\u00a0k\u3000", "\u00a0k\u3000"),
    ("\u2029k\u2028", "\u2029k\u2028"),
    (" \u3000 ", "\u3000"),
])
def test_names_lose_spaces_and_tabs_only(raw, name):
    text = f"name,time_us,family\n{raw},1,{raw}\n"
    fast, careful = _arrow(text), parse_columns(text)
    assert list(careful.names) == [name] and list(careful.families) == [name]
    _same(fast, careful)
    assert list(parse_columns("# c\n" + text).names) == [name]


def test_numbers_padded_with_other_white_space_are_not_numbers():
    with pytest.raises(InputError, match=r":2: column time_us: expected a number"):
        parse("name,time_us\nk,\u3000\n", "k.csv")


# --- both readers agree -------------------------------------------------------------

AWKWARD = list("ab,\"#' =-@\t\r\n\x00") + ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1e",
                                          "\u00a0", "\u3000", "é", "名"]
name_text = st.text(st.sampled_from(AWKWARD), min_size=1, max_size=10)


def _mostly(valid, invalid):
    """A cell that is usually valid, so that most files reach both readers."""
    return st.integers(0, 29).flatmap(lambda k: st.sampled_from(invalid if k == 0 else valid))


number_cell = _mostly(["", "1", " 2.5 ", "\t3", "1e3", "-0", ".5", "5.", "+7", "1E2", "0", "3.1536e13"],
                      ["1e300", "-1", "inf", "nan", "0x10", "1_0", "\u00a01", "3.1537e13", " "])
count_cell = _mostly(["", "1", "2", " 3 ", "2.0", "1e3", "9007199254740992", "4503599627370497"],
                     ["0", "1.5", "1e20", "9007199254740993", "-1", "4503599627370496.5"])
flag_cell = _mostly(["", "0", "1", " yes", "True", "NO\t"], ["maybe", "\u00a01"])


def _quoted(cell: str, force: bool) -> str:
    needs = any(c in cell for c in ',"\r\n') or cell.lstrip(" \t").startswith("#") or cell.startswith('"')
    return '"' + cell.replace('"', '""') + '"' if needs or force else cell


@st.composite
def kernels_files(draw):
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    header = ["name", "time_us", "count", "flops_fp32", "family", "modelled"]
    lines = [",".join(draw(st.sampled_from([c, f'"{c}"', f" {c} "])) for c in header)]
    for _ in range(draw(st.integers(1, 6))):
        pad = draw(st.sampled_from(["", " ", "\t "]))
        cells = [pad + draw(name_text) + pad, draw(number_cell), draw(count_cell), draw(number_cell),
                 draw(name_text), draw(flag_cell)]
        lines.append(",".join(_quoted(c, draw(st.booleans())) for c in cells))
        if draw(st.integers(0, 5)) == 0:
            lines.append("")                                   # a blank line
    end = newline if draw(st.booleans()) else ""
    return newline.join(lines) + end, newline


def _careful_or_error(text):
    try:
        return parse_columns(text, "k.csv")
    except InputError as exc:
        return exc


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels_files())
def test_arrow_and_careful_readers_agree_on_awkward_files(file):
    text, newline = file
    careful = _careful_or_error(text)
    fast = _arrow(text)
    if fast is not None:
        assert not isinstance(careful, InputError), f"Arrow accepted what the careful reader refused: {careful}"
        _same(fast, careful)
    if isinstance(careful, InputError):
        assert careful.line is not None or "empty" in careful.detail
        return
    # comment lines between records change nothing (the careful reader skips them)
    records = _records_of(text)
    commented = newline.join(f"{line}{newline}# note, \"5{newline}  #x,1,1" for line in records)
    _same(parse_columns(commented), careful)


def _records_of(text):
    """The header and rows of a generated file as raw text, split at the
    line ends outside quotes."""
    out, current, quoted, i = [], [], False, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            quoted = not quoted
        if not quoted and c in "\r\n":
            out.append("".join(current))
            current = []
            i += 2 if text.startswith("\r\n", i) else 1
            continue
        current.append(c)
        i += 1
    if current:
        out.append("".join(current))
    return [line for line in out if line]


@settings(max_examples=150, deadline=None)
@given(st.lists(name_text.filter(lambda s: s.strip(" \t")), min_size=1, max_size=6))
def test_awkward_names_round_trip_and_both_readers_agree(names):
    from roofline.core.model import Kernel
    ks = [Kernel(n.strip(" \t"), time_s=1e-3, count=2) for n in names]
    text = kernels_csv.format_kernels(ks)
    careful = parse_columns(text)
    assert list(careful.names) == [k.name for k in ks]
    fast = _arrow(text)
    if fast is not None:
        _same(fast, careful)
    assert [(k.name, k.count, k.time_s) for k in parse(text)] == [(k.name, 2, 1e-3) for k in ks]


def test_calls_summed_past_int64_stay_exact():
    # 1,100 rows of 2**53 calls each sum to 9.9e18 > 2**63: an int64 cast
    # printed -9,223,372,036,854,775,808 calls
    import numpy as np
    from roofline.core.units import whole_counts
    total = whole_counts(np.array([1100 * 2.0 ** 53]))
    assert total.tolist() == [1100 * 2 ** 53] and whole_counts(np.array([3.0])).dtype == np.int64
    from roofline import find_device
    from roofline.report import build_report
    from roofline.core.model import Kernel
    r = build_report([Kernel("k", 1e-6, count=2 ** 53, flops={"fp32": 1e6}, bytes={"DRAM": 1e6})] * 1100,
                     find_device("v100-sxm2"))
    text, _ = r.to_markdown()
    assert "9,907,919,180,215,091,200" in text and "-9,223" not in text
