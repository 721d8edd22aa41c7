"""Device profile schema: round trips, validation errors with file/line/key."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.core.errors import ProfileError, UnknownDeviceError
from roofline.core.model import Ceiling, Device, MemoryLevel
from roofline.devices.profile import dump_device, find_device, load_device, parse_device, save_device


def test_round_trip_keeps_samples_and_provenance(tmp_path):
    d = Device("cpu x", "cpu", {"fp64": Ceiling(48e9, samples=(47e9, 48e9), theoretical=49.6e9, clock_hz=3.1e9)},
               {"L1": MemoryLevel("L1", Ceiling(150e9), capacity_bytes=32768),
                "DRAM": MemoryLevel("DRAM", Ceiling(18e9, samples=(17e9, 18e9)))},
               launch_overhead_s=2e-7, clocks_hz={"core": 3.1e9},
               provenance={"method": "measured", "date": "2026-11-21"})
    path = save_device(d, tmp_path / "x.yaml")
    assert load_device(path) == d
    assert "median" in path.read_text()


rate = st.floats(1e3, 1e16, allow_nan=False)


@settings(max_examples=40)
@given(rate, rate, st.lists(rate, max_size=5))
def test_any_device_round_trips(flops, bw, samples):
    d = Device("d", "gpu", {"fp32": Ceiling(flops, samples=tuple(samples))},
               {"DRAM": MemoryLevel("DRAM", Ceiling(bw), transaction_bytes=32.0)})
    assert parse_device(dump_device(d)) == d


GOOD = """schema_version: 1
name: t
kind: gpu
compute:
  fp32: {flop_s: 1.0e12}
memory:
  DRAM: {bytes_s: 1.0e11}
"""


@pytest.mark.parametrize("old,new,line,key", [
    ("kind: gpu", "kind: tpu", 3, "kind"),
    ("{flop_s: 1.0e12}", "{flops: 1.0e12}", 5, "compute.fp32"),
    ("{bytes_s: 1.0e11}", "{bytes_s: -1}", 7, "memory.DRAM.bytes_s"),
    ("schema_version: 1", "schema_version: 9", 1, "schema_version"),
    ("memory:\n  DRAM: {bytes_s: 1.0e11}\n", "memory: 3\n", 6, "memory"),
])
def test_errors_name_file_line_and_key(old, new, line, key):
    with pytest.raises(ProfileError) as err:
        parse_device(GOOD.replace(old, new), "dev.yaml")
    assert str(err.value).startswith(f"dev.yaml:{line}: key '{key}'")


def test_broken_yaml_names_the_line():
    with pytest.raises(ProfileError, match=r"^bad.yaml:\d+: not valid YAML"):
        parse_device("name: [unclosed\nkind: gpu\n", "bad.yaml")


def test_yaml_never_runs_code():
    with pytest.raises(ProfileError):
        parse_device("!!python/object/apply:os.system ['true']", "evil.yaml")


def test_exponent_without_dot_is_read_as_number():
    assert parse_device(GOOD.replace("1.0e12", "7e12")).compute["fp32"].value == 7e12


def test_find_by_path_and_saved_name(tmp_path):
    d = parse_device(GOOD)
    from roofline.devices.profile import user_profile_dir
    save_device(d, user_profile_dir() / "my-cpu.yaml")
    assert find_device("my-cpu") == d
    assert find_device("MY_CPU") == d
    p = save_device(d, tmp_path / "elsewhere.yaml")
    assert find_device(str(p)) == d


def test_unknown_name_lists_known():
    with pytest.raises(UnknownDeviceError, match="known:"):
        find_device("no-such-gpu-9000")


@pytest.mark.parametrize("old,new,key", [
    ("{flop_s: 1.0e12}", "{flop_s: .inf}", "compute.fp32.flop_s"),
    ("fp32: {flop_s: 1.0e12}", "fp33: {flop_s: 1.0e12}", "compute.fp33"),
    ("DRAM: {bytes_s: 1.0e11}", "SRAM: {bytes_s: 1.0e11}", "memory.SRAM"),
    ("memory:", "warnings: 5\nmemory:", "warnings"),
])
def test_more_schema_errors(old, new, key):
    with pytest.raises(ProfileError, match=f"key '{key}'"):
        parse_device(GOOD.replace(old, new), "dev.yaml")


def test_hbm_and_gddr_are_dram():
    assert list(parse_device(GOOD.replace("DRAM:", "HBM2e:")).memory) == ["DRAM"]


def test_a_broken_saved_profile_does_not_hide_others(tmp_path):
    from roofline.devices.profile import user_profile_dir
    folder = user_profile_dir()
    folder.mkdir(parents=True)
    (folder / "broken.yaml").write_text("schema_version: 1\nname: [\n")
    save_device(parse_device(GOOD.replace("name: t", "name: Fine GPU")), folder / "fine.yaml")
    assert find_device("Fine GPU").name == "Fine GPU"
    with pytest.raises(UnknownDeviceError):
        find_device("nope")


def test_oversized_profile_is_refused_before_parsing(tmp_path):
    from roofline.devices.profile import MAX_PROFILE_BYTES
    p = tmp_path / "huge.yaml"
    p.write_text(GOOD + "#" * (MAX_PROFILE_BYTES + 1) + "\n")
    with pytest.raises(ProfileError, match=r"too big for a device profile \(at most 1,048,576\)"):
        load_device(p)


def test_deeply_nested_yaml_is_a_profile_error():
    with pytest.raises(ProfileError, match="nested too deeply"):
        parse_device("a: " + "[" * 20000 + "]" * 20000 + "\n", "deep.yaml")


def test_a_fifo_among_saved_profiles_is_skipped_not_opened(tmp_path):
    import os
    from roofline.devices.profile import user_profile_dir
    folder = user_profile_dir()
    folder.mkdir(parents=True)
    os.mkfifo(folder / "pipe.yaml")   # opening it for reading would block until a writer came
    save_device(parse_device(GOOD.replace("name: t", "name: Fine GPU")), folder / "fine.yaml")
    assert find_device("Fine GPU").name == "Fine GPU"
    with pytest.raises(UnknownDeviceError):
        find_device("nope")
