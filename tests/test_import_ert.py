"""ERT results as device profiles: the real P100 run in ../shared/realdata/ert,
hand-written fixtures in tests/data/ert_*, and corrupted files.

Expected numbers were read off the files by eye (roofline.json and sum are
short) and, for the raw sweep, recomputed with a few lines of numpy outside
the reader (quoted in the comments).
"""
from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, REALDATA
from corrupt import corrupt, fuzz_dir, needs_folder
from roofline.core.errors import InputError, RooflineError
from roofline.importers import ert, read_profile
from roofline.importers.base import detect
from roofline.devices.profile import dump_device, parse_device

ERT = REALDATA / "ert"
RUN = "WeakKnight__roofline__kingspeak-p100-gpu_Run.002_"
JSON = ERT / f"{RUN}roofline.json"
SUM = ERT / f"{RUN}FLOPS.064_GPU_Blocks.0640_GPU_Threads.0256_sum"
TRY = ERT / f"{RUN}FLOPS.064_GPU_Blocks.0640_GPU_Threads.0256_try.001"

needs_realdata = needs_folder(ERT)


# ---------------------------------------------------------------- realdata

@needs_realdata
def test_p100_roofline_json_metadata_as_list_of_strings():
    d = ert.read_ert_device(JSON)
    # gflops data [["FP64 GFLOPs", 4258.4]]; gbytes L1 1723.76, L2 1301.09, DRAM 508.35
    assert d.name == "kingspeak-p100-gpu.01"         # CONFIG ERT_RESULTS 'Results/Results.kingspeak-p100-gpu.01'
    assert d.kind == "gpu"                             # CONFIG ERT_GPU ['True']
    assert set(d.compute) == {"fp64"}
    assert d.compute["fp64"].value == 4258.4e9
    assert {k: m.bytes_s for k, m in d.memory.items()} == {"L1": 1723.76e9, "L2": 1301.09e9, "DRAM": 508.35e9}
    assert list(d.memory) == ["L1", "L2", "DRAM"]
    p = d.provenance
    assert (p["method"], p["tool"], p["version"]) == ("measured", "ERT", "1.1.0")
    assert p["date"] == "2021-03-30T20:52:43Z"          # TIMESTAMP_DATA 1617137563.66 (UTC)
    assert p["host"] == "kp361.kingspeak.peaks"
    assert (p["ert_flops"], p["ert_gpu_blocks"], p["ert_gpu_threads"]) == (1024, 2560, 64)
    assert d.ridge_point("DRAM") == pytest.approx(4258.4 / 508.35)
    # the profile round-trips through the project's YAML schema
    again = parse_device(dump_device(d))
    assert again.compute["fp64"].value == d.compute["fp64"].value and again.provenance["tool"] == "ERT"


@needs_realdata
def test_p100_per_run_sum():
    # "2907.99 FP64 GFLOPs", "4729.06 Weight", "727.00 L1", "439.42 DRAM", then META_DATA
    d = ert.read_ert_device(SUM)
    assert d.compute["fp64"].value == 2907.99e9
    assert {k: m.bytes_s for k, m in d.memory.items()} == {"L1": 727.00e9, "DRAM": 439.42e9}
    assert d.provenance["ert_file"] == "sum" and d.provenance["ert_flops"] == 64


@needs_realdata
def test_p100_raw_sweep_reproduces_the_sum():
    s = ert.read_ert_sweep(TRY)
    # 1546 data rows of 5 columns after the "fp64" line (wc -l: 1557 lines with META_DATA)
    assert len(s.trials) == 1546 and set(s.precision) == {"fp64"}
    best = s.best()
    assert len(best.trials) == 146      # distinct working sets: awk "NF==5 {print $1}" | sort -u | wc -l
    # numpy outside the reader: for each working set the row with the most trials, then
    # max(total_bytes / (usec * 1e-6)) = 1111318528 / 1528.64e-6 at 4341088 B, 128 trials
    i = int(best.bytes_s.argmax())
    assert (best.working_set_bytes[i], best.trials[i]) == (4341088, 128)
    # ... which is the sum file's "727.00 L1" and, at 4 FLOP/byte, its "2907.99 FP64 GFLOPs"
    assert s.peak_bytes_s == pytest.approx(727.00e9, abs=0.005e9)
    assert s.peak_flop_s == pytest.approx(2907.99e9, abs=0.005e9)
    assert s.metadata["FLOPS"] == 64


@needs_realdata
@pytest.mark.parametrize("path", [JSON, SUM, TRY])
def test_ert_files_are_recognised_and_pointed_to_device(path):
    assert detect(path).name == "ert"
    with pytest.raises(InputError, match="--device PATH"):
        read_profile(path)


@needs_realdata
def test_raw_sweep_is_not_a_device():
    with pytest.raises(InputError, match="read_ert_sweep"):
        ert.read_ert_device(TRY)


# ---------------------------------------------------------------- fixtures

def test_python2_schema_metadata_mapping_and_spec():
    d = ert.read_ert_device(DATA / "ert_roofline_py2.json")
    assert d.name == "node17.01" and d.kind == "cpu"
    # an unlabelled "GFLOPs" takes ERT_PRECISION (FP32) from the configuration
    assert set(d.compute) == {"fp32"}
    c = d.compute["fp32"]
    assert (c.value, c.theoretical) == (99.5e9, 198.4e9)
    assert c.fraction_of_theoretical == pytest.approx(99.5 / 198.4)
    assert [k for k in d.memory] == ["L1", "L2", "L3", "DRAM"]
    assert d.memory["DRAM"].bandwidth.theoretical == 25.6e9
    assert d.memory["L2"].bandwidth.theoretical is None
    assert d.provenance["date"] == "2023-11-14T22:13:20Z"     # 1700000000
    assert any("dependent FMA chain" in w.message for w in d.warnings)


def test_cpu_sum_fixture():
    d = ert.read_ert_device(DATA / "ert_sum_cpu", name="my-node")
    assert d.name == "my-node" and d.kind == "cpu"
    assert d.compute["fp32"].value == 99.5e9
    assert {k: m.bytes_s for k, m in d.memory.items()} == {"L1": 150e9, "L2": 85e9, "DRAM": 18e9}


def test_sweep_keeps_best_time_over_experiments():
    s = ert.read_ert_sweep(DATA / "ert_try.001", DATA / "ert_try.002")
    assert s.experiments == 2
    rows = {(w, t): u for w, t, u in zip(s.working_set_bytes, s.trials, s.time_s)}
    # (1024,1): min(10, 8) us; (1024,2): min(10, 12); (2048,2): min(16, 20)
    assert rows[(1024, 1)] == pytest.approx(8e-6)
    assert rows[(1024, 2)] == pytest.approx(10e-6)
    assert rows[(2048, 2)] == pytest.approx(16e-6)
    b = s.best()
    assert list(b.trials) == [2, 2]
    assert list(b.bytes_s) == pytest.approx([4096 / 10e-6, 8192 / 16e-6])
    assert s.peak_bytes_s == pytest.approx(5.12e8) and s.peak_flop_s == pytest.approx(2.56e8)


def test_hbm_label_becomes_dram(tmp_path):
    path = tmp_path / "roofline.json"
    path.write_text('{"empirical": {"gflops": {"data": [["FP64 GFLOPs", 10.0]]},'
                    ' "gbytes": {"data": [["L2", 30.0], ["HBM", 20.0]]}}}')
    d = ert.read_ert_device(path)
    assert list(d.memory) == ["L2", "DRAM"] and d.kind == "cpu"


@pytest.mark.parametrize("text, message", [
    ('{"empirical": {}}', "GFLOP/s"),
    ('{"empirical": {"gflops": {"data": [["FP64 GFLOPs", -1]]}, "gbytes": {"data": [["L1", 1]]}}}', "positive"),
    ('{"empirical": {"gflops": {"data": [["FP64 GFLOPs", "fast"]]}, "gbytes": {"data": [["L1", 1]]}}}', "number"),
    ('{"empirical": {"gflops": {"data": [["FP64 GFLOPs", 1]]}, "gbytes": {"data": []}}}', "GB/s"),
    ('{"empirical": {"gflops": {"data": [["FP64 GFLOPs"]]}, "gbytes": {"data": [["L1", 1]]}}}', r"\[label, value\]"),
    ('{"empirical": {"gflops": {"data": [["FP64 GFLOPs", 1]]}', "JSON"),
    ("  12.5 FP64 GFLOPs\n  7 L1\n oops\n", ":3: expected 'value label'"),
])
def test_malformed_ert_names_the_problem(tmp_path, text, message):
    path = tmp_path / "roofline.json"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        ert.read_ert_device(path)


def test_malformed_sweep_names_the_line(tmp_path):
    path = tmp_path / "try.001"
    path.write_text("fp64\n  1024 1 10.0 2048 1024\n  1024 2 oops 4096 2048\n")
    with pytest.raises(InputError, match=":3:"):
        ert.read_ert_sweep(path)


# ---------------------------------------------------------------- corrupted files

FUZZ_DIR = fuzz_dir("ert")
SOURCES = [p for p in (JSON, SUM, TRY) if p.is_file()] + [
    DATA / "ert_roofline_py2.json", DATA / "ert_sum_cpu", DATA / "ert_try.001"]


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(source=st.sampled_from(SOURCES), how=st.sampled_from(["truncate", "drop", "flip", "duplicate"]),
       a=st.floats(0, 1), b=st.floats(0, 1), bits=st.integers(1, 16))
def test_corrupted_ert_files_raise_only_roofline_errors(source, how, a, b, bits):
    data = corrupt(source.read_bytes(), how, a, b, bits)
    bad = FUZZ_DIR / "bad"
    bad.write_bytes(data)
    assert isinstance(ert.sniff(bad, data[:65536]), bool)
    for reader in (ert.read_ert_device, ert.read_ert_sweep, ert.read):
        try:
            result = reader(bad)
        except RooflineError:
            continue
        if reader is ert.read_ert_device:
            assert all(math.isfinite(c.value) and c.value > 0 for c in result.compute.values())
            assert all(math.isfinite(m.bytes_s) and m.bytes_s > 0 for m in result.memory.values())
        elif reader is ert.read_ert_sweep:
            assert (result.time_s > 0).all()
