"""Issue 30, numbers validated where they enter: --network rates without
a unit or not finite, rocprof numbers past 64 bits, rocprof-compute clocks
of hundreds of digits; each refused in one line naming what to write or
the file and field. Inputs are built here."""
from __future__ import annotations

import pytest

from roofline.core.errors import InputError, RooflineError
from roofline.devices.links import parse_network


@pytest.mark.parametrize("text", ["400", "1e400", "2.5e10"])
def test_a_network_rate_without_a_unit_is_refused_saying_the_forms(text):
    with pytest.raises(RooflineError, match=r"without a unit.*400Gb/s.*50GB/s"):
        parse_network(text)


@pytest.mark.parametrize("text", ["1e400Gb/s", "1e400GB/s", "0Gb/s", "1e30GB/s"])
def test_a_network_rate_that_is_not_finite_or_absurd_is_refused(text):
    with pytest.raises(RooflineError, match=r"positive and finite"):
        parse_network(text)


def test_network_rates_with_units_still_read():
    assert parse_network("400Gb/s")[1] == pytest.approx(50e9)
    assert parse_network("2.5e10B/s")[1] == pytest.approx(2.5e10)
    assert parse_network("2e11bit/s")[1] == pytest.approx(2.5e10)


# ------------------------------------------------------------- rocprofv3 JSON

from roofline.importers import read_profile  # noqa: E402

from test_import_rocprof import SYMBOLS, counting, dispatch, sdk_json, write_json  # noqa: E402

BIG = 2 ** 64 - 1           # an unsigned 64-bit figure: no signed int64 holds it


def _set(d: dict, dotted: str, value):
    *keys, last = dotted.split(".")
    for k in keys:
        d = d[k]
    d[last] = value


@pytest.mark.parametrize("field", ["start_timestamp", "end_timestamp", "dispatch_info.grid_size.x",
                                   "dispatch_info.agent_id.handle", "dispatch_info.private_segment_size"])
def test_rocprofv3_json_with_an_unsigned_64_bit_figure_is_one_line_naming_record_and_field(tmp_path, field):
    d = dispatch(2, 1, 10_000, 14_000)
    _set(d, field, BIG)
    if field == "start_timestamp":
        d["end_timestamp"] = BIG
    path = write_json(tmp_path, sdk_json(dispatches=[dispatch(1, 1, 1_000, 6_000), d]))
    with pytest.raises(InputError) as exc:
        read_profile(path)
    text = str(exc.value)
    assert "results.json" in text and "kernel_dispatch[1]" in text and field.split(".")[-1] in text
    assert "64-bit" in text and "\n" not in text


def test_a_kernel_id_defined_twice_is_said_and_the_first_name_kept(tmp_path):
    again = {**SYMBOLS[0], "formatted_kernel_name": "another_kernel"}
    data = sdk_json(dispatches=[dispatch(1, 1, 1_000, 6_000)])
    data["rocprofiler-sdk-tool"][0]["kernel_symbols"] = SYMBOLS + [again]
    r = read_profile(write_json(tmp_path, data))
    assert [k.name for k in r.kernels] == ["gemm_bf16_kernel"]
    assert any("kernel_id 1 is defined twice" in str(w) and "another_kernel" in str(w) for w in r.warnings)


def test_a_repeated_counting_record_is_said_and_not_summed_twice(tmp_path):
    once = read_profile(write_json(tmp_path, sdk_json(dispatches=[dispatch(1, 1, 1_000, 6_000)],
                                                      countings=[counting(1, 1)]), name="once.json"))
    twice = read_profile(write_json(tmp_path, sdk_json(dispatches=[dispatch(1, 1, 1_000, 6_000)],
                                                       countings=[counting(1, 1), counting(1, 1)]), name="twice.json"))
    (a,), (b,) = once.kernels, twice.kernels
    assert a.flops == b.flops and a.bytes == b.bytes and a.flops
    assert any("1 counting record(s) repeat another exactly" in str(w) for w in twice.warnings)
    assert not any("repeat another" in str(w) for w in once.warnings)


# ------------------------------------------------------------- rocprof-compute / rocprofv3 CSV

from test_import_rocprof_compute import PMC_ROWS, SYS_ROW, write_workload  # noqa: E402


def test_a_sysinfo_clock_of_400_digits_is_one_line_naming_the_file_and_field(tmp_path):
    row = SYS_ROW.replace(",1024,32,1700,", ",1024,32," + "9" * 400 + ",")
    with pytest.raises(InputError) as exc:
        read_profile(write_workload(tmp_path / "MI200", sys_rows=(row,)))
    text = str(exc.value)
    assert "sysinfo.csv" in text and "max_sclk" in text and "400 digits" in text and "\n" not in text


def test_a_csv_grid_size_past_int64_is_refused_naming_column_and_line(tmp_path):
    rows = [PMC_ROWS[0].replace(",262144,256,", f",{BIG},256,")]
    with pytest.raises(InputError, match=r"pmc_perf\.csv:2: column Grid_Size: expected a whole number below 2\*\*63"):
        read_profile(write_workload(tmp_path / "MI200", rows=rows))


# ------------------------------------------------------------- collective figures

from roofline.core.comm_checks import collective_field_error  # noqa: E402


@pytest.mark.parametrize("group, world, said", [
    (0, 16, "Group size 0: a group has at least one rank"),
    (-4, 16, "Group size -4: a group has at least one rank"),
    (True, 16, "Group size True: expected a whole number of ranks"),
    (10 ** 9, 16, "Group size 1000000000: more ranks than the job's 16"),
    (10 ** 9, None, "Group size 1000000000: more than 16,777,216 ranks"),
])
def test_impossible_group_sizes_are_refused_naming_the_field(group, world, said):
    assert said in collective_field_error(group_size=group, world_size=world)


@pytest.mark.parametrize("elems, said", [
    (1e30, "In msg nelems 1e+30: more than"), (float("nan"), "not a finite count"),
    (-1, "a count is not negative"), ("many", "expected a number of elements"),
])
def test_impossible_element_counts_are_refused_naming_the_field(elems, said):
    assert said in collective_field_error(in_elems=elems)


def test_plausible_collective_figures_pass():
    assert collective_field_error(group_size=16, in_elems=2 ** 30, out_elems=2 ** 34, world_size=16) is None
    assert collective_field_error() is None         # absent fields are not errors
