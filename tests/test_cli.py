"""The CLI through a subprocess: exit codes, output formats, one-line errors."""
import json
import os
import subprocess
import sys

import pytest

from conftest import DATA, REPO

EXAMPLE = REPO / "examples" / "ece408_kernels.csv"
TOY = str(DATA / "toy_gpu.yaml")


def roofline(*args, env=None):
    return subprocess.run([sys.executable, "-m", "roofline.cli.main", *map(str, args)],
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=120)


def test_help_is_instant_and_teaches():
    out = roofline("--help")
    assert out.returncode == 0
    # instant = no matplotlib/numba/scipy at import: checked in a fresh process below
    for command in ("plot", "classify", "devices", "show", "import"):
        assert command in out.stdout
    check = subprocess.run([sys.executable, "-c", "import roofline.cli.main as m, sys; m.build_parser(); "
                            "print(sorted(k for k in ('matplotlib','numba','cupy','scipy') if k in sys.modules))"],
                           capture_output=True, text=True)
    assert check.stdout.strip() == "[]"


def test_classify_json_fields(tmp_path):
    out = roofline("classify", EXAMPLE, "--device", TOY, "--format", "json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert len(rows) == 16
    for key in ("name", "count", "time_s", "flops", "bound", "level", "achieved_flop_s",
                "attainable_flop_s", "efficiency"):
        assert key in rows[0]
    copy = next(r for r in rows if r["name"] == "[CUDA memcpy HtoD]")
    assert copy["limiter"] == "PCIe" and copy["count"] == 20
    assert {r["bound"] for r in rows} <= {"compute", "bandwidth", "overhead", "unknown"}


def test_classify_known_answers(tmp_path):
    f = tmp_path / "k.csv"
    f.write_text("name,time_us,flops_fp32,bytes_dram\n"
                 "stream,1200,2.5e8,1e9\n"
                 "sgemm,80000,1.1e12,8e8\n"
                 "tiny,5,1000,4000\n"
                 "tiny,5.05,10000,40000\n"
                 "tiny,5.4,100000,400000\n"
                 "slow,500000,1e9,1e8\n")
    out = json.loads(roofline("classify", f, "-d", TOY, "-f", "json").stdout)
    rows = {r["name"]: r for r in out}
    assert (rows["stream"]["bound"], rows["stream"]["level"]) == ("bandwidth", "DRAM")
    assert rows["sgemm"]["bound"] == "compute"
    # one kernel at three sizes: t = 5 us + bytes / 900 GB/s, a fixed cost
    tiny = [r for r in out if r["name"] == "tiny"]
    assert [(r["bound"], r["overhead_kind"]) for r in tiny] == [("overhead", "fixed cost")] * 3
    assert tiny[0]["fixed_s"] == pytest.approx(5e-6, rel=0.01)
    # 111 us of DRAM time per call: never overhead, however slow
    assert (rows["slow"]["bound"], rows["slow"]["reason"]) == ("bandwidth", "no evidence")


def test_classify_csv_and_table():
    csv_out = roofline("classify", EXAMPLE, "-d", TOY, "-f", "csv")
    assert csv_out.stdout.splitlines()[0].startswith("name,family,variant,operator,device,modelled,count,time_s")
    assert len(csv_out.stdout.splitlines()) == 17
    table = roofline("classify", EXAMPLE, "-d", TOY)
    assert "forward_kernel" in table.stdout and "bound" in table.stdout.splitlines()[0]


def test_bad_file_fails_with_file_and_line(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("name,time_us\nok,1\nbroken,soon\n")
    out_png = tmp_path / "out.png"
    out = roofline("plot", f, "--device", TOY, "-o", out_png)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and f"{f}:3:" in out.stderr
    assert not out_png.exists()


def test_unknown_device_exits_2():
    out = roofline("classify", EXAMPLE, "--device", "no-such-gpu")
    assert out.returncode == 2 and "no device profile named" in out.stderr


def test_show_json_and_devices_listing(tmp_path):
    out = roofline("show", TOY, "--format", "json")
    data = json.loads(out.stdout)
    assert data["kind"] == "gpu" and data["compute"]["fp32"] == 15.7e12
    assert data["memory"]["DRAM"] == 900e9 and data["launch_overhead_s"] == 5e-6
    assert roofline("devices").returncode == 0


def test_import_writes_csv_and_json(tmp_path):
    out_csv = tmp_path / "k.csv"
    assert roofline("import", EXAMPLE, "-o", out_csv).returncode == 0
    assert out_csv.read_text().startswith("name,time_s,count")
    js = json.loads(roofline("import", EXAMPLE, "--format", "json").stdout)
    assert js[0]["bytes"]["PCIe"] == 92160000 and js[0]["family"] == "memcpy"
    assert set(js[0]) >= {"name", "count", "time_s", "flops", "bytes", "family"}


def test_ert_roofline_json_works_as_a_device(realdata):
    ert = realdata / "ert" / "WeakKnight__roofline__kingspeak-p100-gpu_Run.002_roofline.json"
    data = json.loads(roofline("show", ert, "--format", "json").stdout)
    assert data["compute"]["fp64"] == pytest.approx(4258.4e9)
    assert data["memory"]["DRAM"] == pytest.approx(508.35e9)


def test_ece408_nvprof_example_is_dominated_by_api_overhead(tmp_path):
    # seeds' ECE408 milestone 1: 97 % of API time in three calls, 39.39 % of GPU time in HtoD copies
    from roofline.importers import read_profile
    r = read_profile(REPO / "examples" / "ece408_nvprof_m1.txt")
    gpu = sum(k.time_s for k in r.kernels)
    htod = next(k for k in r.kernels if k.name == "[CUDA memcpy HtoD]")
    assert htod.time_s / gpu == pytest.approx(0.3939, abs=0.002) and htod.family == "memcpy"
    assert r.program.api_total_s / (r.program.api_total_s + gpu) > 0.99
    out = roofline("report", REPO / "examples" / "ece408_nvprof_m1.txt", "-d", "v100-sxm2", "-o", tmp_path / "r.html")
    assert out.returncode == 0 and "host API calls take 99%" in out.stderr
    assert "skipped" not in out.stderr  # the cleaned example has no broken rows
