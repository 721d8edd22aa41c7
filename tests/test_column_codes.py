"""The column helpers the million-row paths rest on (#36): group numbers,
the families filled from names, the reasons of rows without work, and
the kernels.csv ``modelled`` flags read per distinct text. Each fast path
must give what the plain per-row rule gives."""
from __future__ import annotations

import numpy as np

from roofline.core import reasons as R
from roofline.core.evidence import _codes
from roofline.core import families as F
from roofline.core.families import family_of
from roofline.core.model import KernelSet
from roofline.importers.kernels_csv import parse


def _first_appearance(values) -> list[int]:
    seen: dict = {}
    return [seen.setdefault(v, len(seen)) for v in values]


def test_codes_number_keys_by_first_appearance():
    values = np.array(["b", "a", "b", "c", "a", "a"], dtype=object)
    assert _codes(values).tolist() == _first_appearance(values.tolist())


def test_codes_of_one_repeated_key_are_one_group():
    values = np.array(["", "", ""], dtype=object)
    assert _codes(values).tolist() == [0, 0, 0]
    assert _codes(np.array([], dtype=object)).tolist() == []


def test_codes_of_keys_that_are_no_strings_group_by_their_text():
    values = np.array([3, "3", 4.5, 3], dtype=object)
    assert _codes(values).tolist() == [0, 0, 1, 0]


def test_a_kernel_set_fills_only_empty_families_each_from_its_name():
    names = np.array(["volta_sgemm_128x64_nn", "my_kernel", "volta_sgemm_128x64_nn", "softmax_fwd"], dtype=object)
    families = np.array(["", "custom", "", ""], dtype=object)
    ks = KernelSet(names=names, time_s=np.ones(4), families=families)
    assert ks.families.tolist() == [family_of(names[0]), "custom", family_of(names[0]), family_of(names[3])]
    assert families.tolist() == ["", "custom", "", ""]      # the caller's column is not written


def test_a_kernel_set_without_families_has_each_rows_from_its_name():
    names = np.array(["volta_sgemm_128x64_nn", "softmax_fwd"], dtype=object)
    ks = KernelSet(names=names, time_s=np.ones(2))
    assert ks.families.tolist() == [family_of(n) for n in names.tolist()]
    assert ks.with_columns(families=["", ""]).families.tolist() == ks.families.tolist()


def test_families_of_names_arrow_cannot_encode_as_per_row():
    # a number, a lone surrogate: Arrow refuses them, the dict path classifies their text
    names = np.array(["volta_sgemm_128x64_nn", 7, "\ud800conv", "volta_sgemm_128x64_nn", 7], dtype=object)
    assert F.families_of(names).tolist() == [family_of(str(n)) for n in names.tolist()]
    assert F.families_of([]).tolist() == []


def test_families_of_without_pyarrow_as_with_it(monkeypatch):
    import builtins
    names = np.array(["softmax_fwd", "nccl_allreduce", "softmax_fwd", "x"], dtype=object)
    with_arrow = F.families_of(names).tolist()
    real_import = builtins.__import__

    def no_arrow(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_arrow)
    assert F.families_of(names).tolist() == with_arrow == [family_of(n) for n in names.tolist()]


def test_without_work_gives_each_why_its_reason_and_the_rest_by_time():
    why = R.WITHOUT_WORK[0]
    whys = np.array(["", why, "", "not a reason"], dtype=object)
    time_s = np.array([np.nan, 1.0, 2.0, 1.0])
    out = R.without_work(whys, time_s).tolist()
    assert out == [R.REASONS.index(R.NO_TIME), R.REASONS.index(why), R.REASONS.index(R.NO_COUNTERS),
                   R.REASONS.index(R.NO_COUNTERS)]
    assert R.without_work(np.array([], dtype=object), np.array([])).tolist() == []


def test_modelled_flags_read_per_distinct_text_as_per_row():
    text = "name,time_us,modelled\na,1,1\nb,1,no\nc,1,TRUE\nd,1,\ne,1,0\n"
    assert parse(text).modelled.tolist() == [True, False, True, False, False]


def test_a_modelled_cell_that_is_no_flag_is_named_by_its_line():
    import pytest
    from roofline.core.errors import InputError
    with pytest.raises(InputError) as err:
        parse("name,time_us,modelled\na,1,1\nb,1,maybe\n")
    assert err.value.line == 3
