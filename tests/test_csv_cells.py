"""CSV we write is safe to open in a spreadsheet (text cells that would run
as formulas get a leading apostrophe, numbers never do), and our kernels.csv
reader reads back exactly what our writer wrote."""
from __future__ import annotations

import csv
import io
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.render import tables
from roofline.core.csv_cells import defused, restored
from roofline.importers import kernels_csv
from roofline.importers.kernels_csv import format_kernels, parse
from roofline.core.model import Kernel
from roofline.core.placement import place
from roofline.devices.profile import find_device

RISKY = ["=cmd|' /C calc'!A0", "+1+2", "-2+3", "@SUM(A1)", "\tTAB", "\rCR", "'=already quoted", "''@x"]


def test_defused_cells_start_with_an_apostrophe_and_are_restored():
    for text in RISKY:
        assert defused(text) == "'" + text and restored(defused(text)) == text
    for text in ["plain", "'plain", "a=b", "", " =space first", "1-2"]:
        assert defused(text) == text and restored(text) == text


def _kernels():
    return [Kernel(name, time_s=1e-3 * (i + 1), flops={"fp32": 1e6}, bytes={"DRAM": 1e3},
                   family="=family", variant="-v2", operator="@op", source="+src.cu")
            for i, name in enumerate(RISKY + ["#pragma kernel", "plain"])]


def test_kernels_csv_is_defused_and_reads_back_the_same():
    ks = _kernels()
    text = format_kernels(ks)
    for row in list(csv.reader(io.StringIO(text)))[1:]:
        name, time_s = row[0], row[1]
        assert name[:1] not in "=+-@\t\r" and not time_s.startswith("'")
        assert all(c[:1] == "'" for c in row[-4:])          # family, variant, source, operator
    back = parse(text)
    assert [k.name for k in back] == [k.name for k in ks]
    assert {(k.family, k.variant, k.operator, k.source) for k in back} == {("=family", "-v2", "@op", "+src.cu")}
    assert [k.time_s for k in back] == [k.time_s for k in ks]


def test_both_kernels_csv_readers_restore(monkeypatch):
    text = format_kernels(_kernels())
    with_comment = "# a comment sends the file to the careful reader\n" + text
    fast = kernels_csv._arrow_set(text)
    if fast is None:
        pytest.skip("pyarrow is not installed")
    careful = kernels_csv.parse_columns(with_comment)
    assert list(fast.names) == list(careful.names) == [k.name for k in _kernels()]
    assert list(fast.operators) == list(careful.operators) == ["@op"] * len(_kernels())


names = st.text(st.sampled_from("'=+-@\t\rab#, \"\n"), min_size=1, max_size=8).filter(
    lambda s: s.strip() == s and not s.startswith("#"))


@settings(max_examples=150, deadline=None)
@given(st.lists(names, min_size=1, max_size=6))
def test_any_name_of_risky_characters_round_trips(names):
    ks = [Kernel(n, time_s=1e-3, operator=n) for n in names]
    back = parse(format_kernels(ks))
    assert [(k.name, k.operator) for k in back] == [(n, n) for n in names]


@pytest.mark.parametrize("arrow", [True, False])
def test_classify_csv_defuses_text_cells_only(monkeypatch, arrow):
    if not arrow:
        monkeypatch.setattr(tables, "_arrow_csv", lambda columns: None)
    ks = parse(format_kernels(_kernels()))
    rows = list(csv.reader(io.StringIO(tables.placements_csv(place(ks, find_device("v100-sxm2"))))))
    header, body = rows[0], rows[1:]
    names = [r[header.index("name")] for r in body]
    assert names == [defused(k.name) for k in _kernels()]
    for r in body:
        assert r[header.index("operator")] == "'@op" and r[header.index("family")] == "'=family"
        for column in ("time_s", "flops", "efficiency", "roofline_time_s"):
            assert math.isfinite(float(r[header.index(column)]))     # numbers stay numbers


def test_the_csv_in_slices_is_the_csv_in_one_piece(monkeypatch):
    """classify --format csv writes slices of rows as they are formatted, at
    most two per core ahead; joined they are the one-piece CSV."""
    import numpy as np

    from roofline import Ceiling, Device, KernelSet, MemoryLevel, place
    from roofline.render import tables
    n = 1003
    ks = KernelSet([f"k{i % 17},\"x\"" for i in range(n)], np.linspace(1e-6, 1e-3, n),
                   flops={"fp32": np.linspace(1e3, 1e9, n)}, bytes={"DRAM": np.linspace(1e3, 1e8, n)})
    dev = Device("d", "gpu", {"fp32": Ceiling(1e13)}, {"DRAM": MemoryLevel("DRAM", Ceiling(1e12))})
    p = place(ks, dev)
    whole = tables.placements_csv_bytes(p)
    monkeypatch.setattr(tables, "CSV_SLICE_ROWS", 97)
    pieces = list(tables.placements_csv_chunks(p))
    assert len(pieces) == 1 + -(-n // 97)
    assert b"".join(pieces) == whole
    assert whole.count(b"\n") == n + 1
