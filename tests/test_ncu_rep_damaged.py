"""A damaged .ncu-rep is one InputError, never an aborted process."""
from __future__ import annotations

import importlib.util

import pytest

from conftest import REALDATA
from roofline.core.errors import InputError
from roofline.importers import read_profile

ORIGIN = REALDATA / "ncu_rep" / "Alaric617R__COALDA__origin.ncu-rep"


@pytest.mark.skipif(importlib.util.find_spec("ncu_report") is None, reason="ncu-report not installed")
def test_byte_39600_set_to_4_is_an_input_error(tmp_path):
    if not ORIGIN.exists():
        pytest.skip(f"{ORIGIN} is not present")
    data = bytearray(ORIGIN.read_bytes())
    data[39600] = 4          # the fuzzer's case: ncu_report aborted the process (exit 134)
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(bytes(data))
    with pytest.raises(InputError, match="crashed reading the report|cannot read the report"):
        read_profile(bad)
    good = read_profile(ORIGIN)   # the intact report still reads, every kernel named and timed
    assert good.kernels and all(k.name and k.name != "None" for k in good.kernels)
