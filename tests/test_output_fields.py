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
