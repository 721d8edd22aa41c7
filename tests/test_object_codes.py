"""Text columns coded by their distinct objects (roofline.core.object_codes),
and the CSV/JSON of ``classify`` the same whether a column's rows share
objects (coded) or each row holds its own string (converted whole)."""
from __future__ import annotations

import numpy as np

from roofline.core.model import KernelSet
from roofline.core.placement import place
from roofline.core import object_codes
from roofline.render import json_rows, tables
from roofline.core.object_codes import distinct_objects


def test_rows_sharing_objects_get_one_code_per_object():
    a, b = "sgemm", "=cmd"
    values = np.array([a, b, a, None, b, a, a, a] * 4, dtype=object)
    distinct, codes = distinct_objects(values)
    assert distinct.tolist() == ["sgemm", "=cmd", None]
    assert distinct[codes].tolist() == values.tolist()
    assert codes.dtype == np.int32


def test_equal_strings_in_different_objects_keep_their_text():
    one, other = "".join(["ab", "c"]), "".join(["a", "bc"])   # equal, not the same object
    assert one == other and one is not other
    values = np.array([one, other] * 10, dtype=object)
    distinct, codes = distinct_objects(values)
    assert distinct[codes].tolist() == ["abc"] * 20


def test_mostly_distinct_or_not_object_columns_are_left_to_the_caller():
    assert distinct_objects(np.array([str(i) for i in range(100)], dtype=object)) is None
    assert distinct_objects(np.arange(10.0)) is None
    assert distinct_objects(np.array([], dtype=object)) is None


def test_a_column_of_a_view_is_read_through_its_own_rows():
    a, b = "x", "y"
    values = np.array([a, b] * 50, dtype=object)[::2]      # not contiguous: every "x"
    distinct, codes = distinct_objects(values)
    assert distinct[codes].tolist() == ["x"] * 50


def shared_and_own(toy_gpu):
    """The same kernels, once with names shared by rows, once each row's own string."""
    names = ["=sum", "gemm, \"tiled\"", "", "conv\nrelu", "x"] * 40
    own = ["".join(list(n)) if n else "".join([]) for n in names]     # new objects, equal texts
    kw = dict(time_s=np.linspace(1e-5, 1e-3, 200), flops={"fp32": np.linspace(1e6, 1e9, 200)},
              bytes={"DRAM": np.linspace(1e5, 1e8, 200)})
    names[2::5] = ["k"] * 40        # a name may not be empty
    own[2::5] = ["".join(["k"]) for _ in range(40)]
    return place(KernelSet(names=names, **kw), toy_gpu), place(KernelSet(names=own, **kw), toy_gpu)


def test_classify_outputs_are_the_same_coded_or_converted(toy_gpu, monkeypatch):
    shared, own = shared_and_own(toy_gpu)
    csv_coded, json_coded = tables.placements_csv_bytes(shared), json_rows.placements_json_bytes(shared)
    monkeypatch.setattr(object_codes, "MOST_DISTINCT", 0.0)       # nothing coded
    assert tables.placements_csv_bytes(shared) == csv_coded
    assert json_rows.placements_json_bytes(shared) == json_coded
    assert tables.placements_csv_bytes(own) == csv_coded
    assert json_rows.placements_json_bytes(own) == json_coded
    assert b"'=sum" in csv_coded and b'"gemm, ""tiled"""' in csv_coded


def test_numbers_drawn_from_thousands_of_values_are_coded_and_mostly_distinct_ones_not():
    """repeated_numbers: a fixed cost per kernel name (2,000 values over
    200,000 rows, too many for a sample to show most of them twice) is
    coded; a column whose rows are distinct but for a repeated peak is
    not, nor a column of distinct values."""
    from roofline.core.object_codes import repeated_numbers
    rng = np.random.default_rng(11)
    n = 200_000
    per_name = rng.random(2000)
    column = per_name[rng.integers(0, 2000, n)]
    got = repeated_numbers(column)
    assert got is not None
    distinct, codes = got
    assert np.array_equal(distinct[codes], column) and len(distinct) == len(np.unique(column))
    peaked = rng.random(n)
    peaked[rng.random(n) < 0.2] = 15.7e12
    assert repeated_numbers(peaked) is None
    assert repeated_numbers(rng.random(n)) is None
    zeros = np.zeros(n)
    zeros[::2] = -0.0                       # told apart bit for bit
    distinct, codes = repeated_numbers(zeros)
    assert len(distinct) == 2 and np.array_equal(np.signbit(distinct[codes]), np.signbit(zeros))


def test_a_column_of_one_object_is_one_code_without_a_hash(monkeypatch):
    """distinct_objects: every row the same object gives that object and
    code 0 everywhere (no dictionary encoding); two objects still hash."""
    import pyarrow.compute as pac
    empty = np.empty(5000, dtype=object)
    empty.fill("")
    calls = []
    real = pac.dictionary_encode
    monkeypatch.setattr(pac, "dictionary_encode", lambda *a, **k: calls.append(1) or real(*a, **k))
    objects, codes = distinct_objects(empty)
    assert objects.tolist() == [""] and not codes.any() and len(codes) == 5000 and not calls
    empty[-1] = "x"
    objects, codes = distinct_objects(empty)
    assert objects.tolist() == ["", "x"] and codes[-1] == 1 and calls
