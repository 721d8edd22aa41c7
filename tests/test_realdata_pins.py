"""Every real profiler output imports to the counts and sums pinned in
tests/fixtures/realdata_pins/pins.json (made by make.py there)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import REALDATA
from corrupt import needs_realdata

PINS_DIR = Path(__file__).parent / "fixtures" / "realdata_pins"
sys.path.insert(0, str(PINS_DIR))
from make import summary  # noqa: E402

PINS = json.loads((PINS_DIR / "pins.json").read_text())


@needs_realdata
@pytest.mark.parametrize("name", sorted(PINS))
def test_real_file_imports_to_its_pinned_counts_and_sums(name):
    path = REALDATA / name
    if not path.exists():
        pytest.skip(f"{path} is not present")
    got, want = summary(path), PINS[name]
    assert set(got) == set(want)
    for key, value in want.items():
        if isinstance(value, dict):
            assert set(got[key]) == set(value), key
            for sub, v in value.items():
                assert got[key][sub] == pytest.approx(v, rel=1e-9, abs=1e-12), (key, sub)
        elif isinstance(value, float):
            assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
        else:
            assert got[key] == value, key
