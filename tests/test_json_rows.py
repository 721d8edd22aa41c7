"""`classify --format json` built column by column (roofline.render.json_rows):
the same values as ``Placements.records()`` (checked through json.loads,
independently of how the text is made), one kernel per line."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from roofline.render import json_rows
from roofline.cli.main import main
from roofline.core.model import KernelSet
from roofline.core.placement import place

from conftest import REALDATA, REPO


def loads_records(p):
    """records() through the standard library's encoder: the reference."""
    return json.loads(json.dumps(p.records()))


def awkward(n=7):
    names = ['say "hi"', "back\\slash", "new\nline", "tab\there", "\x01ctl", "€ 名前 🚀", ""][:n]
    return KernelSet(
        names=names, time_s=[1e-3, 2.0, math.nan, 3.0, 1e-9, 5e-324, 7.0][:n],
        count=[1, 2, 3, 4, 5, 6, 7][:n],
        flops={"fp32": [1e9, math.inf, 2.0, 0.0, -0.0, 1e300, math.nan][:n]},
        bytes={"DRAM": [1e6, math.nan, 4.0, math.nan, 1.0, 2.0, math.nan][:n],
               "L2": [math.nan, math.nan, 8.0, 5.5, math.nan, 3.0, math.nan][:n]},
        families=["gemm", "", "conv", "", "x", "y", ""][:n],
        operators=["aten::mm", "", "", "", "", "", ""][:n],
        modelled=[True, False, False, True, False, False, False][:n])


def test_awkward_names_and_numbers_read_back_as_records(toy_gpu):
    p = place(awkward(), toy_gpu)
    text = json_rows.placements_json_bytes(p)
    got = json.loads(text)
    assert got == loads_records(p)
    # a kernel with no level figure gets an empty object, not a dangling comma
    assert got[6]["bytes"] == {} and got[1]["bytes"] == {}
    assert got[2]["time_s"] is None and got[1]["flops"] is None
    # whole numbers stay floats
    assert isinstance(got[3]["time_s"], float) and got[3]["time_s"] == 3.0
    assert isinstance(got[0]["count"], int)


def test_one_kernel_per_line(toy_gpu):
    ks = KernelSet(names=["a", "b", "c"], time_s=[1e-3, 2e-3, 3e-3], flops={"fp32": [1e9, 2e9, 3e9]})
    p = place(ks, toy_gpu)
    lines = json_rows.placements_json_bytes(p).decode().splitlines()
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == 5
    assert [json.loads(line.rstrip(","))["name"] for line in lines[1:-1]] == ["a", "b", "c"]


def test_slices_join_to_the_same_text(toy_gpu, monkeypatch):
    p = place(awkward(), toy_gpu)
    whole = json_rows.placements_json_bytes(p)
    monkeypatch.setattr(json_rows, "SLICE_ROWS", 2)
    assert json_rows.placements_json_bytes(p) == whole
    assert len(list(json_rows.placements_json_chunks(p))) == 1 + 4 + 2   # "[", 4 slices, "\n", "]"


def test_no_kernels_is_an_empty_array(toy_gpu):
    p = place(KernelSet(names=[], time_s=[]), toy_gpu)
    assert json.loads(json_rows.placements_json_bytes(p)) == []


def test_without_pyarrow_the_same_values_come_from_records(toy_gpu, monkeypatch):
    import builtins
    real = builtins.__import__

    def no_arrow(name, *a, **kw):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(name)
        return real(name, *a, **kw)
    p = place(awkward(), toy_gpu)
    monkeypatch.setattr(builtins, "__import__", no_arrow)
    text = json_rows.placements_json_bytes(p)
    monkeypatch.setattr(builtins, "__import__", real)
    assert json.loads(text) == loads_records(p) == json.loads(json_rows.placements_json_bytes(p))


REAL = ["ncu_csv", "kineto_trace", "nvprof", "nsys"]


@pytest.mark.parametrize("folder", REAL)
def test_real_files_read_back_as_records(folder, realdata):
    from roofline.cli.common import load_inputs
    from roofline.devices.profile import builtin_profiles, load_device
    device = load_device(builtin_profiles()["h100-sxm"])
    done = 0
    for path in sorted((realdata / folder).iterdir())[:6]:
        try:
            kernels, _results = load_inputs([str(path)], merge=False)
        except Exception:        # files that need other options are covered by their own tests
            continue
        p = place(kernels, device)
        assert json.loads(json_rows.placements_json_bytes(p)) == loads_records(p), path.name
        done += 1
    assert done, f"no file of {folder} was read"


def test_cli_writes_the_json(capsys):
    example = REPO / "examples" / "ece408_kernels.csv"
    assert main(["classify", str(example), "--device", "v100-sxm2", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 16 and {"name", "bytes", "intensity", "efficiency"} <= set(rows[0])


def test_level_names_and_values_that_are_not_strings_are_written_as_records_writes_them(toy_gpu):
    """Found in review: a level named with a quote broke the JSON, and a
    None or number among the names came out as null or raised."""
    ks = KernelSet(names=[None, 7, math.nan, "k"], time_s=[1e-3] * 4, flops={"fp32": [1e9] * 4},
                   bytes={'L"2\\x': [1.0, math.nan, 2.0, 3.0]},
                   families=[None, "", math.nan, "gemm"])
    p = place(ks, toy_gpu)
    got = json.loads(json_rows.placements_json_bytes(p))
    assert got == loads_records(p)
    assert [r["name"] for r in got] == ["None", "7", "nan", "k"]
    assert got[0]["bytes"] == {'L"2\\x': 1.0} and got[1]["bytes"] == {}


def test_the_names_are_taken_per_slice(toy_gpu, monkeypatch):
    """Each slice takes its rows' texts from the distinct literals, so the
    whole column never has to fit one Arrow string array (2 GiB)."""
    monkeypatch.setattr(json_rows, "SLICE_ROWS", 3)
    names = [f"kernel_{i % 4}" for i in range(10)]
    p = place(KernelSet(names=names, time_s=[1e-3] * 10, flops={"fp32": [1e9] * 10}), toy_gpu)
    literal, indices = json_rows._strings(p.kernels.names, empty_is_null=False)
    assert len(literal) == 5 and len(indices) == 10        # 4 names and the null slot
    assert [r["name"] for r in json.loads(json_rows.placements_json_bytes(p))] == names
