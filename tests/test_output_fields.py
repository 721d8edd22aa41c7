"""classify's fields (roofline.core.row_schema) in every output: the device
of rows from a file of several GPUs, and none where a file has one."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _classify(*args) -> str:
    done = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", *args],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    return done.stdout


def test_rows_of_several_gpus_say_which_gpu(realdata):
    path = str(realdata / "tf_profile" / "AMD-AGI__TraceLens__tw003.xplane.pb")
    rows = json.loads(_classify(path, "--format", "json"))
    devices = {r["device"] for r in rows}
    assert {f"/device:GPU:{i}" for i in range(8)} <= devices
    # one row per kernel name, device and operator: no two rows alike
    keys = [(r["name"], r["device"], r["operator"]) for r in rows]
    assert len(keys) == len(set(keys))
    table = csv.DictReader(io.StringIO(_classify(path, "--format", "csv")))
    assert {r["device"] for r in table} == devices
    text = _classify(path)
    assert text.splitlines()[0].split()[1] == "device" and "/device:GPU:7" in text


def test_a_file_of_one_device_names_none():
    rows = json.loads(_classify(str(ROOT / "examples" / "ece408_kernels.csv"), "-d", "v100-sxm2", "--format", "json"))
    assert rows and all(r["device"] is None for r in rows)
    assert "device" not in _classify(str(ROOT / "examples" / "ece408_kernels.csv"), "-d", "v100-sxm2").splitlines()[0]


def _ece408():
    from roofline import place
    from roofline.devices.profile import find_device
    from roofline.importers import read_profile
    return place(read_profile(ROOT / "examples" / "ece408_kernels.csv").kernels, find_device("v100-sxm2"))


def test_short_reprs_say_what_matters():
    p = _ece408()
    text = repr(p)
    assert len(text) < 200 and "16 rows on NVIDIA Tesla V100 SXM2" in text and "compute" in text
    device = repr(p.device)
    assert len(device) < 200 and "V100" in device and "datasheet" in device and "tensor_fp16" in device


def test_to_pandas_has_the_csv_columns_and_values():
    import pandas as pd
    p = _ece408()
    frame = p.to_pandas()
    from_csv = pd.read_csv(io.StringIO(_classify(str(ROOT / "examples" / "ece408_kernels.csv"), "-d", "v100-sxm2",
                                                 "--format", "csv")), keep_default_na=False)
    assert list(frame.columns) == list(from_csv.columns)
    assert len(frame) == len(p) == len(from_csv)
    by_name = frame.set_index(frame["name"] + "|" + frame["variant"].fillna(""))
    for row in from_csv.itertuples():
        got = by_name.loc[f"{row.name}|{row.variant}"]
        assert got["time_s"] == row.time_s and got["bound"] == row.bound and got["count"] == row.count


def test_a_table_of_rows_is_a_file_not_a_trace_in_the_cpu_doubt():
    from roofline.devices.trust import doubts_for
    from roofline.devices.profile import find_device
    from roofline.importers import read_profile
    cpu = find_device(str(ROOT / "tests" / "data" / "zen3_cpu.yaml"))
    texts = [d.message for d in doubts_for(cpu, [read_profile(ROOT / "examples" / "ece408_kernels.csv")])]
    assert any("the file does not name the CPU its rows were measured on" in t for t in texts), texts
    trace = [d.message for d in doubts_for(cpu, [read_profile(ROOT / "examples" / "pytorch_cpu_trace.json.gz")])]
    assert not any("the file does not name" in t for t in trace)
