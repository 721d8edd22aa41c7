import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roofline.core.units import format_si, parse_quantity, unit_factor


@pytest.mark.parametrize("text,unit,expected", [
    ("43.9GB/s", "", 43.9e9), ("976.56KB/s", "", 976.56e3), ("12.258us", "", 12.258e-6),
    ("501.31ms", "", 0.50131), ("96.000KB", "", 96e3), ("1,024", "Kbyte", 1.024e6),
    ("34,359,738,368,000.00", "", 34359738368000.0), ("1.47e-03", "ms", 1.47e-6),
    ("645000000", "cycle/second", 645e6), ("1.53", "Ghz", 1.53e9), ("55.5", "%", 0.555),
    ("690960320", "byte", 690960320), ("3", "nsecond", 3e-9), ("2", "usecond", 2e-6),
    ("2", "msecond", 2e-3), ("1.2", "Mbyte", 1.2e6), ("7", "Gbyte", 7e9), ("1", "KiB", 1024),
])
def test_profiler_spellings(text, unit, expected):
    assert parse_quantity(text, unit) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["n/a", "", "-"])
def test_missing_values_are_nan(text):
    assert math.isnan(parse_quantity(text))


@pytest.mark.parametrize("bad", ["fast", "1.2 parsecs", "1..2"])
def test_garbage_raises_value_error(bad):
    with pytest.raises(ValueError):
        parse_quantity(bad)


def test_unknown_unit():
    with pytest.raises(ValueError):
        unit_factor("furlong")


@given(st.floats(1.0, 1e18))
def test_format_si_reads_back_bytes(x):
    number, unit = format_si(x, "B", digits=6).split(" ")
    assert parse_quantity(number, unit) == pytest.approx(x, rel=1e-5)


@given(st.floats(1e-9, 900.0))
def test_format_si_reads_back_seconds(x):
    number, unit = format_si(x, "s", digits=6).split(" ")
    assert parse_quantity(number, unit) == pytest.approx(x, rel=1e-5)


@pytest.mark.parametrize("typo", ["mB", "mhz", "uB/s"])
def test_dividing_prefixes_on_quantities_are_rejected(typo):
    with pytest.raises(ValueError):
        unit_factor(typo)


@pytest.mark.parametrize("unit,expected", [
    ("sector/nsecond", ("sector", 1e9)), ("inst/second", ("inst", 1.0)), ("Gbyte/s", ("Gbyte", 1.0)),
    ("byte", None), ("cycle", None)])
def test_split_rate(unit, expected):
    from roofline.core.units import split_rate
    assert split_rate(unit) == expected


def test_count_per_time_units():
    assert unit_factor("sector/nsecond") == 1e9
    assert unit_factor("Kbyte/usecond") == pytest.approx(1e9)
