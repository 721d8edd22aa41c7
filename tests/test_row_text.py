"""Rows joined from coded and formatted pieces (roofline.render.row_text),
checked against the same rows joined in Python; and the classify CSV of
counts past int64."""
from __future__ import annotations

import csv
import io

import numpy as np
import pyarrow as pa

from roofline import Ceiling, Device, KernelSet, MemoryLevel, place
from roofline.render import tables
from roofline.render.row_text import Coded, Formatted, coded, joined, literal, rows_text


def python_rows(fields, n):
    """The reference: each row's texts joined by Python."""
    out = []
    for i in range(n):
        out.append("".join(f(i) for f in fields))
    return "".join(out).encode()


def test_adjacent_coded_pieces_become_one_and_rows_are_the_same():
    rng = np.random.default_rng(3)
    n = 1000
    names = ["a", "b,c", "é", "d"]
    flags = ["no", "yes"]
    kinds = ["x", "y", "z"]
    name_codes, flag_codes, kind_codes = rng.integers(0, 4, n), rng.integers(0, 2, n), rng.integers(0, 3, n)
    numbers = rng.random(n)
    numbers[::7] = np.nan
    pieces = [literal("<"), coded(names, name_codes), literal("|"), coded(flags, flag_codes), literal("|"),
              Formatted(lambda a, b: pa.array(numbers[a:b], mask=np.isnan(numbers[a:b])).cast(pa.string())),
              literal("|"), coded(kinds, kind_codes), literal(">\n")]
    merged = joined(pieces)
    assert [type(p) for p in merged] == [Coded, Formatted, Coded]
    assert len(merged[0].texts) <= 8        # the name-flag pairs that occur, not one per row
    got = b"".join(rows_text(merged, a, min(n, a + 97), "NA") for a in range(0, n, 97))
    numbers_text = pa.array(numbers, mask=np.isnan(numbers)).cast(pa.string()).to_pylist()
    want = python_rows([lambda i: "<" + names[name_codes[i]] + "|" + flags[flag_codes[i]] + "|",
                        lambda i: numbers_text[i] or "NA",
                        lambda i: "|" + kinds[kind_codes[i]] + ">\n"], n)
    assert got == want


def test_a_run_of_many_combinations_is_numbered_in_parts(monkeypatch):
    from roofline.render import row_text
    rng = np.random.default_rng(5)
    n = 500
    columns = [(["a", "b", "c"], rng.integers(0, 3, n)), (["x", "y"], rng.integers(0, 2, n)),
               (["1", "2", "3", "4"], rng.integers(0, 4, n)), (["p", "q"], rng.integers(0, 2, n))]
    pieces = []
    for texts, codes in columns:
        pieces += [coded(texts, codes), literal(";")]
    whole = rows_text(joined(pieces), 0, n, "")
    monkeypatch.setattr(row_text, "LARGEST_NUMBER", 5)
    merged = joined(pieces)
    assert len(merged) == 1
    assert rows_text(merged, 0, n, "") == whole == python_rows(
        [lambda i: "".join(t[c[i]] + ";" for t, c in columns)], n)


def test_rows_of_one_text_each():
    pieces = joined([literal("k"), coded(["only"], np.zeros(5, dtype=np.int32)), literal("\n")])
    assert len(pieces) == 1 and pieces[0].codes is None
    assert rows_text(pieces, 0, 5, "") == b"konly\n" * 5


def test_classify_csv_writes_counts_past_int64_as_digits():
    ks = KernelSet(["a", "b"], [1e-3, 2e-3], count=[2.0 ** 53, 2.0 ** 65])
    dev = Device("d", "gpu", {"fp32": Ceiling(1e13)}, {"DRAM": MemoryLevel("DRAM", Ceiling(1e12))})
    rows = list(csv.DictReader(io.StringIO(tables.placements_csv(place(ks, dev)))))
    assert [r["count"] for r in rows] == [str(2 ** 53), str(2 ** 65)]


def test_json_floats_stay_floats_whole_or_not():
    """Whole floats get ".0" where Arrow writes bare digits (below its
    exponent threshold), and only there, in every way JSON is built."""
    import json

    import pyarrow.compute as pac

    from roofline.render import json_rows
    values = np.array([0.0, -0.0, 1.0, 7.0, 1e9, 9999999999.0, 1e10, 12345678901.0, 1e15, 1e16, 2.0 ** 53,
                       1e300, 123.5, 1.5e-5, 5e-324, -42.0, np.nan, np.inf])
    texts = json_rows._floats(values).to_pylist()
    plain = pac.cast(pa.array(values), pa.string()).to_pylist()
    for v, text, arrow in zip(values.tolist(), texts, plain):
        if not np.isfinite(v):
            assert text is None
            continue
        assert isinstance(json.loads(text), float) and json.loads(text) == v, (v, text)
        assert text == (arrow + ".0" if arrow.lstrip("-").isdigit() else arrow)
    whole = values[np.isfinite(values) & (values == np.trunc(values))]
    for column in (whole, whole[np.abs(whole) < 1e10], whole[np.abs(whole) >= 1e10]):
        pieces = joined(json_rows._float_pieces(column) + [literal("\n")])
        lines = bytes(rows_text(pieces, 0, len(column), "null")).decode().splitlines()
        assert [json.loads(x) for x in lines] == column.tolist()
        assert all(isinstance(json.loads(x), float) for x in lines)


def test_pieces_joined_by_a_separator_with_the_row_end_after_a_number():
    """The CSV's way: a comma between every two fields (inside a coded run
    too), the line end after the last field even when it is a number, and
    nothing for a missing one."""
    rng = np.random.default_rng(9)
    n = 300
    x, y = rng.random(n), rng.random(n)
    x[::5], y[::3] = np.nan, np.nan
    names, flags = ["a", "b"], ["p", "q", "r"]
    nc, fc = rng.integers(0, 2, n), rng.integers(0, 3, n)

    def number(v):
        return Formatted(lambda a, b: pa.array(v[a:b], mask=np.isnan(v[a:b])).cast(pa.string()))
    pieces = joined([number(x), coded(names, nc), coded(flags, fc), literal(""), number(y)], ",", "\n")
    assert [type(p) for p in pieces] == [Formatted, Coded, Formatted]
    got = b"".join(rows_text(pieces, a, min(n, a + 64), "", ",") for a in range(0, n, 64))
    xt = pa.array(x, mask=np.isnan(x)).cast(pa.string()).to_pylist()
    yt = pa.array(y, mask=np.isnan(y)).cast(pa.string()).to_pylist()
    want = "".join(f"{xt[i] or ''},{names[nc[i]]},{flags[fc[i]]},,{yt[i] or ''}\n" for i in range(n)).encode()
    assert got == want


def test_whole_floats_below_the_exponent_form_are_cast_as_integers_with_arrows_text():
    """row_text.whole_digits: the int64 cast gives Arrow's float text where
    it is used, and is refused for a fraction, -0.0, NaN or a value Arrow
    writes with an exponent."""
    from roofline.render.row_text import plain_below, whole_digits
    limit = plain_below()
    rng = np.random.default_rng(5)
    values = np.floor(rng.lognormal(12, 4, 5000))
    values = np.concatenate([values[values < limit], [0.0, 1.0, limit - 1, 2.0 ** 31, 2.0 ** 32 + 1]])
    text = whole_digits(values)
    assert text is not None
    assert text(3, len(values)).to_pylist() == pa.array(values[3:]).cast(pa.string()).to_pylist()
    for bad in (0.5, -0.0, np.nan, np.inf, limit, 10 * limit):
        assert whole_digits(np.append(values, bad)) is None, bad
    assert whole_digits(np.array([-0.0, 0.0])) is None
    assert whole_digits(np.array([], dtype=float)) is None


def test_the_csv_of_whole_counts_is_the_same_cast_as_integers_or_as_floats(monkeypatch):
    """The same column written through whole_digits and through Arrow's
    float formatting (whole_digits refused) gives the same bytes."""
    from roofline.render import row_text
    rng = np.random.default_rng(8)
    column = np.floor(rng.lognormal(14, 3, 3000))
    column = column[column < row_text.plain_below()]
    fast = tables._csv_piece("float", column)
    monkeypatch.setattr(tables, "whole_digits", lambda values: None)
    slow = tables._csv_piece("float", column)
    assert fast.text is not slow.text
    assert fast.text(0, len(column)).equals(slow.text(0, len(column)))
