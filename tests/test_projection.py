"""roofline project: each row moved by its evidence, intervals, totals."""
from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from roofline import Ceiling, Device, KernelSet, MemoryLevel, place
from roofline.analysis.library_efficiency import LibrarySample, library_sample
from roofline.analysis.projection import Figures, project
from roofline.analysis.projection_bases import CODE, KEYS, Z80
from roofline.core.kernel_arch import built_for, older_than_device
from roofline.devices.observed import Figure, kernel_floor, matrix_efficiency, read_table
from roofline.render.projection import projection_csv_bytes, projection_dict, projection_table


def gpu(name, bf16, fp32, dram, sms=100, cc="9.0"):
    return Device(name=name, kind="gpu",
                  compute={"tensor_bf16": Ceiling(bf16), "fp32": Ceiling(fp32)},
                  memory={"DRAM": MemoryLevel("DRAM", Ceiling(dram))},
                  architecture={"sms": sms, "compute_capability": cc, "vendor": "X"})


SRC = gpu("src", bf16=1e15, fp32=5e13, dram=2e12, sms=100)
DST = gpu("dst", bf16=2e15, fp32=1e14, dram=4e12, sms=200)


def figures(floors=None, library=None):
    floors = floors or {}
    library = library or {}
    return Figures(lambda d: Figure(floors[d.name], "test") if d.name in floors else None,
                   lambda d: Figure(library[d.name], "test") if d.name in library else None)


def kernels(rows):
    """rows: (name, family, count, time_s, {precision: flops}, {level: bytes}, blocks)"""
    names, fams, count, times, blocks = [], [], [], [], []
    flops, byts = {}, {}
    for i, (name, family, n, t, f, b, bl) in enumerate(rows):
        names.append(name); fams.append(family); count.append(n); times.append(t); blocks.append(bl)
        for k, v in f.items():
            flops.setdefault(k, [math.nan] * len(rows))[i] = v
        for k, v in b.items():
            byts.setdefault(k, [math.nan] * len(rows))[i] = v
    return KernelSet(names, times, count=count, flops=flops, bytes=byts, families=fams, blocks=blocks)


def test_a_bandwidth_row_moves_by_the_bandwidth_ratio_at_its_efficiency():
    # 1 GB on 2 TB/s is 0.5 ms; it took 1 ms (50 % of its roof); the target streams at 4 TB/s
    ks = kernels([("copy_kernel", "elementwise", 1, 1e-3, {"fp32": 0.0}, {"DRAM": 1e9}, math.nan)])
    p = project(place(ks, SRC), DST, figures=figures())
    assert p.projected_s[0] == pytest.approx(0.5e-3)
    assert KEYS[p.basis[0]] == "bandwidth"


def test_floors_come_off_the_source_and_go_on_the_target():
    ks = kernels([("k", "elementwise", 10, 10 * 20e-6, {"fp32": 0.0}, {"DRAM": 10 * 2e7}, math.nan)])
    p = project(place(ks, SRC), DST, figures=figures({"src": 2e-6, "dst": 5e-6}))
    # variable part 18 us per call at 10 us roof: efficiency 10/18; on the target 5 us roof / (10/18) + 5 us
    assert p.projected_s[0] == pytest.approx(10 * (5e-6 + 5e-6 * 18 / 10))


def test_a_kernel_at_the_source_floor_is_projected_at_the_target_floor():
    ks = kernels([("tiny", "elementwise", 100, 100 * 2.1e-6, {"fp32": 0.0}, {"DRAM": 100 * 4096.0}, math.nan)])
    p = project(place(ks, SRC), DST, figures=figures({"src": 2e-6, "dst": 5e-6}))
    assert KEYS[p.basis[0]] == "floor"
    assert p.projected_s[0] == pytest.approx(100 * 5e-6, rel=0.05)


def test_matrix_rows_carry_each_gpu_library_efficiency():
    # 1 TFLOP bf16: 1 ms on the source roof; it took 2 ms (50 %)
    ks = kernels([("sm90_xmma_gemm", "gemm", 1, 2e-3, {"tensor_bf16": 1e12}, {"DRAM": 1e6}, math.nan)])
    placed = place(ks, SRC)
    same = project(placed, DST, figures=figures(library={"src": 0.6, "dst": 0.6}))
    assert same.projected_s[0] == pytest.approx(1e-3)            # 0.5 ms roof at 50 %
    worse = project(placed, DST, figures=figures(library={"src": 0.6, "dst": 0.3}))
    assert worse.projected_s[0] == pytest.approx(2e-3)           # at 25 % of the target's roof
    assert KEYS[worse.basis[0]] == "matrix"
    carried = project(placed, DST, figures=figures(library={"src": 0.6}))
    assert KEYS[carried.basis[0]] == "matrix_carried"
    assert carried.projected_s[0] == pytest.approx(1e-3)
    # unknown library efficiency: a wider interval than with both known
    assert carried.high_s[0] / carried.projected_s[0] > worse.high_s[0] / worse.projected_s[0]


def test_a_kernel_built_for_an_older_gpu_gets_the_target_library_efficiency():
    ks = kernels([("void cutlass::Kernel2<cutlass_75_tensorop_bf16_gemm>", "gemm", 1, 5e-3,
                   {"tensor_bf16": 1e12}, {"DRAM": 1e6}, math.nan)])
    p = project(place(ks, SRC), DST, figures=figures(library={"src": 0.6, "dst": 0.5}))
    assert KEYS[p.basis[0]] == "older_kernel"
    assert p.projected_s[0] == pytest.approx(0.5e-3 / 0.5)


def test_kernel_names_say_the_architecture_they_were_built_for():
    assert built_for("sm90_xmma_gemm_bf16bf16_bf16f32") == 90
    assert built_for("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64>") == 80
    assert built_for("ampere_sgemm_128x64_tn") == 80
    assert math.isnan(built_for("Cijk_Alik_Bljk_BBS_BH_MT64x64x64"))
    assert older_than_device(["cutlass_75_x", "sm90_xmma", "elementwise"], {"compute_capability": "9.0"}).tolist() \
        == [True, False, False]
    assert not older_than_device(["cutlass_75_x"], {}).any()


def test_a_launch_of_fewer_blocks_than_sms_gets_the_compute_roof_of_the_sms_it_fills():
    # 50 blocks: half of the source's 100 SMs, a quarter of the target's 200
    ks = kernels([("k", "elementwise", 1, 2e-3, {"fp32": 5e10}, {"DRAM": 1e6}, 50.0)])
    p = project(place(ks, SRC), DST, figures=figures())
    # source compute roof 1 ms / 0.5 = 2 ms (at its roof); target 0.5 ms / 0.25 = 2 ms
    assert p.projected_s[0] == pytest.approx(2e-3)


def test_a_launch_of_more_waves_pays_for_its_last_one():
    # 150 blocks: 1.5 waves on the source's 100 SMs (75 % busy), one wave of 200 on the target (75 %)
    ks = kernels([("k", "elementwise", 1, 1e-3 / 0.75, {"fp32": 5e10}, {"DRAM": 1e6}, 150.0),
                  ("k2", "elementwise", 1, 2e-3, {"fp32": 5e10}, {"DRAM": 1e6}, 200.0)])
    p = project(place(ks, SRC), DST, figures=figures())
    # k: 1 ms / 0.75 at its roof on the source; 0.5 ms / 0.75 on the target
    assert p.projected_s[0] == pytest.approx(0.5e-3 / 0.75)
    # k2: two full waves on the source (at 50 % of its roof), one full wave on the target
    assert p.projected_s[1] == pytest.approx(0.5e-3 / 0.5)
    # a memory-bound row keeps its memory roof whatever its waves
    mem = kernels([("m", "elementwise", 1, 1e-3, {"fp32": 0.0}, {"DRAM": 1e9}, 150.0)])
    assert project(place(mem, SRC), DST, figures=figures()).projected_s[0] == pytest.approx(0.5e-3)


def test_rows_without_work_take_a_twin_then_the_family_then_the_trace():
    ks = kernels([
        ("k", "elementwise", 1, 1e-3, {"fp32": 0.0}, {"DRAM": 1e9}, math.nan),      # ratio 0.5
        ("k", "elementwise", 4, 2e-3, {}, {}, math.nan),                             # twin of the first
        ("other", "elementwise", 1, 1e-3, {}, {}, math.nan),                         # family
        ("lonely", "custom", 1, 1e-3, {}, {}, math.nan),                             # trace
    ])
    p = project(place(ks, SRC), DST, figures=figures())
    assert [KEYS[b] for b in p.basis] == ["bandwidth", "twin", "family", "trace"]
    assert p.projected_s[1:].tolist() == pytest.approx([1e-3, 0.5e-3, 0.5e-3])
    # no work: wider than its donor
    assert (p.high_s[1] / p.projected_s[1]) > (p.high_s[0] / p.projected_s[0])


def test_a_trace_with_no_work_at_all_is_kept_at_its_time_and_says_so():
    ks = kernels([("a", "custom", 1, 1e-3, {}, {}, math.nan)])
    p = project(place(ks, SRC), DST, figures=figures())
    assert KEYS[p.basis[0]] == "kept" and p.projected_s[0] == pytest.approx(1e-3)
    assert p.high_s[0] > 2 * p.projected_s[0]


def test_copies_are_projected_but_left_out_of_the_totals():
    ks = kernels([("k", "elementwise", 1, 1e-3, {"fp32": 0.0}, {"DRAM": 1e9}, math.nan),
                  ("Memcpy HtoD", "memcpy", 1, 5e-3, {}, {"DRAM": 1e9}, math.nan)])
    p = project(place(ks, SRC), DST, figures=figures())
    assert p.totals.total.measured_s == pytest.approx(1e-3)
    assert p.totals.total.projected_s == pytest.approx(p.projected_s[0])
    assert np.isfinite(p.projected_s[1]) and not p.counted[1]
    assert set(p.totals.families) == {"elementwise"}


def test_on_its_own_device_a_trace_projects_to_its_own_time():
    ks = kernels([("k", "elementwise", 3, 3e-4, {"fp32": 1e6}, {"DRAM": 1e8}, 500.0),
                  ("g", "gemm", 2, 2e-3, {"tensor_bf16": 1e12}, {"DRAM": 1e7}, math.nan)])
    p = project(place(ks, SRC), SRC, figures=figures({"src": 2e-6}, {"src": 0.5}))
    assert p.projected_s.tolist() == pytest.approx(ks.time_s.tolist())
    # nothing moved, so nothing is uncertain: the intervals are the times themselves
    assert p.low_s.tolist() == pytest.approx(ks.time_s.tolist())
    assert p.high_s.tolist() == pytest.approx(ks.time_s.tolist())
    assert p.totals.total.low_s == pytest.approx(p.totals.total.high_s)
    assert any("keeps its measured time" in n for n in p.notes)
    # a device with other roofs under the same name is not the same device
    faster = MemoryLevel("DRAM", Ceiling(SRC.memory["DRAM"].bandwidth.value * 1.5))
    other = Device(**{**SRC.__dict__, "memory": {**SRC.memory, "DRAM": faster}})
    q = project(place(ks, SRC), other, figures=figures({"src": 2e-6}, {"src": 0.5}))
    assert np.all(q.low_s < q.high_s)


def test_intervals_hold_the_projection_and_combine_in_the_totals():
    ks = kernels([("k%d" % i, "elementwise" if i % 2 else "gemm", 1, 1e-3 * (i + 1),
                   {"tensor_bf16": 1e11} if i % 2 == 0 else {"fp32": 0.0}, {"DRAM": 1e9}, math.nan)
                  for i in range(6)])
    p = project(place(ks, SRC), DST, figures=figures(library={"src": 0.5, "dst": 0.4}))
    assert np.all(p.low_s < p.projected_s) and np.all(p.projected_s < p.high_s)
    t = p.totals.total
    assert t.projected_s == pytest.approx(float(np.sum(p.projected_s)))
    # rows of one basis share their error, bases add in quadrature: within the row sums
    assert float(np.sum(p.low_s)) <= t.low_s < t.projected_s < t.high_s <= float(np.sum(p.high_s))
    # a row alone: projected x exp(+-1.28 sigma)
    assert math.log(p.high_s[0] / p.projected_s[0]) == pytest.approx(-math.log(p.low_s[0] / p.projected_s[0]))
    assert math.log(p.high_s[0] / p.projected_s[0]) / Z80 > 0


def test_at_the_roof_is_never_slower_than_the_projection_nor_faster_than_the_floor():
    ks = kernels([("k", "elementwise", 10, 1e-3, {"fp32": 0.0}, {"DRAM": 1e8}, math.nan),
                  ("tiny", "elementwise", 10, 25e-6, {"fp32": 0.0}, {"DRAM": 10.0}, math.nan)])
    p = project(place(ks, SRC), DST, share=0.8, figures=figures({"src": 2e-6, "dst": 3e-6}))
    assert np.all(p.at_roof_s <= p.projected_s + 1e-15)
    assert p.at_roof_s[1] == pytest.approx(10 * 3e-6)
    assert p.at_roof_s[0] == pytest.approx(1e8 / 4e12 / 0.8)


def test_share_must_be_a_share():
    ks = kernels([("k", "elementwise", 1, 1e-3, {"fp32": 0.0}, {"DRAM": 1e9}, math.nan)])
    with pytest.raises(ValueError):
        project(place(ks, SRC), DST, share=0.0, figures=figures())


def test_the_json_names_its_fields_and_keeps_every_row():
    ks = kernels([("<img src=x onerror=alert(1)>", "elementwise", 1, 1e-3, {"fp32": 0.0}, {"DRAM": 1e9}, math.nan),
                  ("=cmd|' /C calc'!A0", "custom", 1, 1e-3, {}, {}, math.nan)])
    p = project(place(ks, SRC), DST, figures=figures())
    d = projection_dict(p)
    assert {"source_device", "target_device", "measured_time_s", "projected_time_s", "interval_s",
            "families", "rows"} <= set(d)
    assert d["source_device"] == "src" and d["target_device"] == "dst"
    assert len(d["rows"]) == 2 and d["rows"][0]["name"].startswith("<img")
    assert set(d["rows"][0]) >= {"name", "family", "measured_time_s", "projected_time_s", "interval_s", "basis"}
    assert d["families"]["elementwise"]["interval_s"][0] <= d["families"]["elementwise"]["projected_time_s"]
    json.dumps(d, allow_nan=False)
    csv = projection_csv_bytes(p).decode()
    assert "'=cmd" in csv                      # defused for spreadsheets
    assert "projected" in projection_table(p)


def test_library_samples_add_and_summarise():
    a = LibrarySample(math.log(0.5) * 2, math.log(0.5) ** 2 * 2, 2.0, 1)
    b = LibrarySample(math.log(0.25) * 2, math.log(0.25) ** 2 * 2, 2.0, 1)
    s = a + b
    assert s.efficiency == pytest.approx(math.sqrt(0.5 * 0.25))
    assert s.spread == pytest.approx(abs(math.log(0.5) - math.log(0.25)) / 2)
    assert math.isnan(LibrarySample().efficiency)


def test_a_library_sample_counts_compute_bound_matrix_rows_built_for_the_device():
    ks = kernels([("sm90_xmma_gemm", "gemm", 1, 2e-3, {"tensor_bf16": 1e12}, {"DRAM": 1e6}, math.nan),
                  ("cutlass_75_tensorop", "gemm", 1, 8e-3, {"tensor_bf16": 1e12}, {"DRAM": 1e6}, math.nan),
                  ("elementwise", "elementwise", 1, 1e-3, {"fp32": 0.0}, {"DRAM": 1e9}, math.nan)])
    s = library_sample(place(ks, SRC), 0.0)
    assert s.rows == 1 and s.efficiency == pytest.approx(0.5)


def test_observed_figures_fall_back_to_the_vendor_and_refuse_bad_files(tmp_path):
    path = tmp_path / "obs.yaml"
    path.write_text("devices:\n  src:\n    kernel_floor_s: 2.0e-6\n    kernel_floor_source: traces A\n"
                    "    matrix_efficiency: 0.5\n    matrix_efficiency_source: traces B\n"
                    "vendors:\n  X:\n    kernel_floor_s: 3.0e-6\n    kernel_floor_source: src\n")
    assert kernel_floor(SRC, str(path)) == Figure(2e-6, "traces A", 0.0)
    assert matrix_efficiency(SRC, str(path)).value == 0.5
    other = kernel_floor(DST, str(path))
    assert other.value == 3e-6 and "no trace of this GPU" in other.source
    assert matrix_efficiency(DST, str(path)) is None
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a\n- b\n")
    with pytest.raises(ValueError):
        read_table(str(bad))


def test_a_given_observations_file_replaces_every_shipped_figure(tmp_path):
    """--observed FILE: floors, library, fallback and attention figures all
    come from FILE (the benchmark's leave-one-model-out runs rely on it: a
    shipped figure seeping in would be in-sample)."""
    from roofline.cli.project import _figures
    from roofline.devices.datasheet import devices
    h100 = devices()["h100-sxm"]
    path = tmp_path / "obs.yaml"
    path.write_text("devices:\n  NVIDIA H100 SXM5:\n    kernel_floor_s: 2.0e-6\n    kernel_floor_source: t\n")
    figures = _figures(str(path))
    assert Figures().fallback(h100) is not None and Figures().attention(h100) is not None   # shipped
    assert figures.floor(h100).value == 2e-6
    assert figures.library(h100) is None and figures.fallback(h100) is None and figures.attention(h100) is None


def test_the_shipped_observations_name_their_traces():
    from roofline.devices.observed import PATH
    table = read_table(str(PATH))
    for name, entry in table["devices"].items():
        assert entry["kernel_floor_s"] > 0 and ".json.gz" in entry["kernel_floor_source"], name
        for key in ("matrix_efficiency", "fallback_efficiency", "attention_efficiency"):
            if key in entry:
                assert 0 < entry[key] <= 1 and ".json.gz" in entry[key.replace("efficiency", "efficiency_source")]


def _trace_file(tmp_path: Path, name_suffix: str = "") -> Path:
    """Six bf16 GEMMs on an H100 (their kernel names end in ``name_suffix``)."""
    events = []
    for i in range(6):
        ts = 10.0 + 100 * i
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": ts, "dur": 50,
                       "args": {"External id": i + 1, "Input Dims": [[1024, 1024], [1024, 1024]],
                                "Input type": ["c10::BFloat16", "c10::BFloat16"]}})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": ts + 5, "dur": 4, "args": {"correlation": 100 + i, "External id": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n" + name_suffix,
                       "pid": 0, "tid": 7, "ts": ts + 20, "dur": 12.0,
                       "args": {"device": 0, "stream": 7, "correlation": 100 + i, "External id": i + 1,
                                "grid": [64, 1, 1], "block": [128, 1, 1]}})
    doc = {"traceEvents": events, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3",
                                                        "numSms": 132, "totalGlobalMem": 85018279936}]}
    path = tmp_path / "trace.json.gz"
    with gzip.open(path, "wt") as f:
        json.dump(doc, f)
    return path


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-c", "import sys; from roofline.cli.main import main; sys.exit(main())",
                           *args], capture_output=True, text=True, cwd=cwd)


def test_the_command_projects_a_trace_as_json_csv_and_table(tmp_path):
    trace = _trace_file(tmp_path)
    done = _cli("project", str(trace), "--to", "mi300x", "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["source_device"] == "NVIDIA H100 SXM5" and out["target_device"] == "AMD Instinct MI300X"
    assert out["measured_time_s"] == pytest.approx(6 * 12e-6)
    low, high = out["interval_s"]
    assert low < out["projected_time_s"] < high
    assert sum(r["projected_time_s"] for r in out["rows"] if r["in_total"]) == pytest.approx(out["projected_time_s"])
    csv = _cli("project", str(trace), "--to", "mi300x", "--format", "csv")
    assert csv.returncode == 0 and csv.stdout.splitlines()[0].startswith("name,family,measured_time_s")
    table = _cli("project", str(trace), "--from", "h100-sxm", "--to", "mi300x")
    assert table.returncode == 0 and "80 % interval" in table.stdout


def test_the_command_refuses_a_bad_target_a_bad_share_and_bad_observations(tmp_path):
    trace = _trace_file(tmp_path)
    bad = _cli("project", str(trace), "--to", "no-such-gpu")
    assert bad.returncode != 0 and "no device profile named" in bad.stderr
    share = _cli("project", str(trace), "--to", "mi300x", "--share", "1.5")
    assert share.returncode != 0 and "--share" in share.stderr
    obs = tmp_path / "obs.yaml"
    obs.write_text("[1, 2")
    refused = _cli("project", str(trace), "--to", "mi300x", "--observed", str(obs))
    assert refused.returncode != 0 and "obs.yaml" in refused.stderr and "Traceback" not in refused.stderr


def test_the_real_pairs_are_projected_whole(realdata):
    """Every row of a real trace is projected and the totals add up; the
    measured time is the MANIFEST's GPU kernel time. (How close the
    projections come is benchmarks/projection.py's job.)"""
    from roofline.cli.common import load_inputs
    from roofline.devices.profile import find_device
    path = realdata / "pairs" / "AMD-AGI__TraceLens__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
    ks, _ = load_inputs([str(path)])
    p = project(place(ks, find_device("h100-sxm")), find_device("mi300x"))
    assert np.all(np.isfinite(p.projected_s[np.isfinite(p.measured_s)]))
    assert p.totals.total.measured_s == pytest.approx(45.43e-3, abs=0.01e-3)
    assert p.totals.total.projected_s == pytest.approx(float(np.sum(p.projected_s[p.counted])))
    assert {"twin", "matrix", "bandwidth"} <= {KEYS[b] for b in p.basis}
    assert CODE["kept"] not in set(p.basis.tolist())


def test_a_collective_moves_to_the_target_links_with_their_latency():
    """A 1 GiB all-reduce on 8 A100s (NVLink 3, 300 GB/s a rank sends) at its
    measured efficiency, projected onto 8 H100s (NVLink 4, 450 GB/s)."""
    from test_collectives import NCCL_ARGS, _placed, _trace
    from roofline.devices.profile import find_device
    doc = _trace([("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 100.0, 10_000.0,
                   dict(NCCL_ARGS))], api=[(50.0, 5)])
    _, placed = _placed(doc)
    h100 = find_device("h100-sxm")
    p = project(placed, h100, figures=figures())
    row = int(np.flatnonzero(p.names == placed.kernels.names[placed.link.level != ""][0])[0])
    assert KEYS[p.basis[row]] == "collective"
    on_h100 = place(placed.kernels, h100)
    # efficiency carried: measured x (target link time / source link time)
    assert p.projected_s[row] == pytest.approx(
        10e-3 * on_h100.roofline_time_s[row] / placed.roofline_time_s[row], rel=1e-6)
    assert p.projected_s[row] < 10e-3


def cpu(name, dram_all, dram_one, fp64_all, fp64_one, model):
    return Device(name=name, kind="cpu", compute={"fp64": Ceiling(fp64_all)},
                  memory={"DRAM": MemoryLevel("DRAM", Ceiling(dram_all))},
                  architecture={"threads": 2, "cpu_model": model,
                                "single_core": {"compute": {"fp64": {"flop_s": fp64_one}},
                                                "memory": {"DRAM": {"bytes_s": dram_one}}}},
                  provenance={"method": "measured"})


def test_a_cpu_trace_uses_the_one_core_roofs_its_threads_require():
    a = cpu("my-cpu", dram_all=40e9, dram_one=20e9, fp64_all=200e9, fp64_one=100e9, model="CPU A")
    b = cpu("my-cpu", dram_all=80e9, dram_one=25e9, fp64_all=800e9, fp64_one=200e9, model="CPU B")
    threads = np.array([1.0, 2.0])
    ks = kernels([("aten::add(1e8)", "elementwise", 1, 0.1, {"fp64": 0.0}, {"DRAM": 2e9}, math.nan),
                  ("aten::add(1e8)", "elementwise", 1, 0.1, {"fp64": 0.0}, {"DRAM": 2e9}, math.nan)])
    ks = ks.with_columns(threads=threads)
    p = project(place(ks, a), b, figures=figures())
    # one thread: 2 GB at 20 GB/s is 0.1 s (at its roof) -> 2 GB at 25 GB/s
    assert p.projected_s[0] == pytest.approx(2e9 / 25e9)
    # two threads: 2 GB at 40 GB/s is 50 % of its roof -> 2 GB at 80 GB/s, at 50 %
    assert p.projected_s[1] == pytest.approx(2e9 / 80e9 / 0.5)
    d = projection_dict(p)
    assert d["source_device"] == "my-cpu (CPU A)" and d["target_device"] == "my-cpu (CPU B)"


def test_the_command_projects_the_example_cpu_trace_onto_another_cpu(tmp_path):
    """The bundled PyTorch CPU trace from one measured CPU profile onto
    another (both written here): every operator projected, a total with
    its interval, both CPUs named."""
    from roofline import save_device
    root = Path(__file__).resolve().parent.parent
    a = cpu("my-cpu", dram_all=40e9, dram_one=20e9, fp64_all=200e9, fp64_one=100e9, model="CPU A")
    b = cpu("my-cpu", dram_all=80e9, dram_one=25e9, fp64_all=800e9, fp64_one=200e9, model="CPU B")
    a = Device(**{**a.__dict__, "compute": {"fp64": Ceiling(200e9), "fp32": Ceiling(400e9)}})
    b = Device(**{**b.__dict__, "compute": {"fp64": Ceiling(800e9), "fp32": Ceiling(1600e9)}})
    save_device(a, tmp_path / "a.yaml")
    save_device(b, tmp_path / "b.yaml")
    done = _cli("project", str(root / "examples" / "pytorch_cpu_trace.json.gz"), "--from", str(tmp_path / "a.yaml"),
                "--to", str(tmp_path / "b.yaml"), "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["source_device"], out["target_device"]) == ("my-cpu (CPU A)", "my-cpu (CPU B)")
    low, high = out["interval_s"]
    assert low < out["projected_time_s"] < high < out["measured_time_s"]     # b is faster in every roof
    assert all(r["projected_time_s"] is not None for r in out["rows"] if r["measured_time_s"])


def test_across_kinds_of_device_every_interval_is_wider_and_says_why():
    ks = kernels([("aten::add(1e8)", "elementwise", 1, 0.1, {"fp64": 0.0}, {"DRAM": 2e9}, math.nan)])
    host = cpu("my-cpu", dram_all=40e9, dram_one=20e9, fp64_all=200e9, fp64_one=100e9, model="CPU A")
    on_cpu = project(place(ks, host), host, figures=figures())
    on_gpu = project(place(ks, host), DST, figures=figures())
    assert on_gpu.high_s[0] / on_gpu.projected_s[0] > on_cpu.high_s[0] / on_cpu.projected_s[0]
    assert any("across kinds" in n for n in on_gpu.notes)


def test_a_cpu_trace_is_refused_on_a_gpu_profile():
    """Its rows are host times: no GPU roof bounds them (the finding: a
    matmul at 6,529 % of an H100's roof)."""
    root = Path(__file__).resolve().parent.parent
    done = _cli("classify", str(root / "examples" / "pytorch_cpu_trace.json.gz"), "--device", "h100-sxm")
    assert done.returncode != 0 and "host times" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_gpu_kernels_are_refused_on_a_cpu_profile():
    """The reverse: a file of GPU kernels (Nsight Compute here) placed on,
    or projected from, a CPU profile is refused in one line."""
    root = Path(__file__).resolve().parent
    for args in (("classify", str(root / "data" / "ncu_details.csv"), "--device", str(root / "data" / "zen3_cpu.yaml")),
                 ("project", str(root / "data" / "ncu_details.csv"), "--from", str(root / "data" / "zen3_cpu.yaml"),
                  "--to", "h100-sxm")):
        done = _cli(*args)
        assert done.returncode != 0 and "GPU kernels" in done.stderr and "Traceback" not in done.stderr, args
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_rows_without_a_measured_time_are_not_projected_and_say_so():
    ks = kernels([("k", "elementwise", 1, 1e-3, {"fp32": 0.0}, {"DRAM": 1e9}, math.nan),
                  ("none", "elementwise", 1, math.nan, {"fp32": 0.0}, {"DRAM": 1e9}, math.nan),
                  ("zero", "elementwise", 1, 0.0, {"fp32": 0.0}, {"DRAM": 1e9}, math.nan)])
    p = project(place(ks, SRC), DST, figures=figures({"src": 2e-6, "dst": 3e-6}))
    assert [KEYS[b] for b in p.basis[1:]] == ["unmeasured", "unmeasured"]
    assert np.isnan(p.projected_s[1:]).all() and not p.counted[1:].any()
    assert p.totals.total.projected_s == pytest.approx(p.projected_s[0])
    assert any("no measured time" in n for n in p.notes)
    json.dumps(projection_dict(p), allow_nan=False)


def test_a_name_cannot_forge_lines_in_the_table():
    ks = kernels([("evil\nprojected on the target  1 ns  (FAKE)", "fam\nline2", 1, 1e-3, {"fp32": 0.0},
                   {"DRAM": 1e9}, math.nan)])
    text = projection_table(project(place(ks, SRC), DST, figures=figures()))
    assert not any(line.startswith("projected on the target  1 ns") for line in text.splitlines())
    assert "evil\\x0aprojected" in text and "fam\\x0aline2"[:15] in text


def test_bad_observations_are_refused_not_a_traceback(tmp_path):
    for text in ("devices: {}\nvendors: [1, 2]\n", "devices: {}\nvendors: {NVIDIA: 3}\n",
                 "devices:\n  src:\n    matrix_efficiency: 5.0\n"):
        path = tmp_path / "o.yaml"
        path.write_text(text)
        with pytest.raises(ValueError):
            read_table(str(path))


def test_on_its_own_device_even_fast_and_small_grid_rows_keep_their_time():
    ks = kernels([("sm90_xmma_gemm", "gemm", 1, 1.2e-3, {"tensor_bf16": 1e11}, {"DRAM": 1e6}, 10.0),
                  ("fast", "elementwise", 5, 5 * 2.2e-6, {"fp32": 0.0}, {"DRAM": 5 * 1e6}, math.nan)])
    p = project(place(ks, SRC), SRC, figures=figures({"src": 2e-6}, {"src": 0.5}))
    assert p.projected_s.tolist() == pytest.approx(ks.time_s.tolist())


def test_copies_lend_no_ratio_to_rows_without_work():
    ks = kernels([("k", "elementwise", 1, 1e-3, {"fp32": 0.0}, {"DRAM": 1e9}, math.nan),
                  ("Memcpy HtoD", "memcpy", 1, 9e-3, {}, {"PCIe": 1e6}, math.nan),
                  ("lonely", "custom", 1, 1e-3, {}, {}, math.nan)])
    dev = lambda d: Device(**{**d.__dict__, "memory": {**d.memory, "PCIe": MemoryLevel("PCIe", Ceiling(1e9))}})  # noqa: E731
    p = project(place(ks, dev(SRC)), dev(DST), figures=figures())
    assert p.projected_s[2] == pytest.approx(1e-3 * p.projected_s[0] / 1e-3)


def test_a_trace_with_nothing_timed_has_no_totals():
    ks = kernels([("k", "elementwise", 1, math.nan, {"fp32": 0.0}, {"DRAM": 1e9}, math.nan)])
    d = projection_dict(project(place(ks, SRC), DST, figures=figures()))
    assert d["measured_time_s"] is None and d["projected_time_s"] is None and d["interval_s"] == [None, None]


def _nvidia(device, cc="9.0"):
    return Device(**{**device.__dict__, "architecture": {**device.architecture, "vendor": "NVIDIA",
                                                         "compute_capability": cc}})


def test_unaligned_gemms_fall_back_on_newer_nvidia_gpus():
    """A GEMM whose operands are not 16-byte aligned (a 3601-token
    sequence) runs older-GPU kernels on an sm_90 target, at the share of its
    roof such kernels were observed to reach there; aligned rows, AMD
    targets and older NVIDIA targets are not moved by the rule."""
    ks = kernels([("Cijk_bmm", "gemm", 1, 2e-3, {"tensor_bf16": 1e12}, {"DRAM": 1e6}, math.nan),
                  ("Cijk_mm", "gemm", 1, 2e-3, {"tensor_bf16": 1e12}, {"DRAM": 1e6}, math.nan)])
    ks = ks.with_columns(unaligned=np.array([1.0, 0.0]))
    placed = place(ks, SRC)
    lib = {"src": 0.5, "dst": 0.5}
    seen = Figures(figures(library=lib).floor, figures(library=lib).library,
                   lambda d: Figure(0.25, "test fallback") if d.name == "dst" else None)
    p = project(placed, _nvidia(DST), figures=seen)
    assert KEYS[p.basis[0]] == "fallback" and KEYS[p.basis[1]] == "matrix"
    # 1 TFLOP on the target's 2 PFLOP/s roof is 0.5 ms; at 25 % of it, 2 ms
    assert p.projected_s[0] == pytest.approx(2e-3)
    assert p.projected_s[1] == pytest.approx(1e-3)      # 50 % carried at equal library efficiency
    # a row already below the fallback's share (10 % of its roof) is not made faster by it
    slow = project(place(ks.with_columns(time_s=np.array([1e-2, 2e-3])), SRC), _nvidia(DST), figures=seen)
    assert slow.projected_s[0] == pytest.approx(0.5e-3 / 0.1)
    assert any("not 16-byte aligned" in n and "test fallback" in n for n in p.notes)
    unseen = project(placed, _nvidia(DST), figures=figures(library=lib))
    assert KEYS[unseen.basis[0]] == "fallback_unobserved"
    assert unseen.projected_s[0] == pytest.approx(1e-3)
    assert unseen.high_s[0] / unseen.projected_s[0] > p.high_s[1] / p.projected_s[1]
    for other in (DST, _nvidia(DST, cc="8.0")):        # vendor X (not NVIDIA), an sm_80 GPU
        q = project(placed, other, figures=seen)
        assert KEYS[q.basis[0]] == "matrix" and q.projected_s[0] == pytest.approx(1e-3)


def test_unaligned_share_is_time_weighted_when_rows_are_summed():
    from roofline.core.aggregate import aggregate_set, concat
    ks = kernels([("k", "gemm", 1, 3e-3, {}, {}, math.nan), ("k", "gemm", 1, 1e-3, {}, {}, math.nan),
                  ("j", "gemm", 1, 1e-3, {}, {}, math.nan)])
    ks = ks.with_columns(unaligned=np.array([1.0, 0.0, math.nan]))
    grouped = aggregate_set(ks, "name")
    by_name = dict(zip(grouped.names.tolist(), grouped.unaligned.tolist()))
    assert by_name["k"] == pytest.approx(0.75) and math.isnan(by_name["j"])
    assert concat([ks, ks]).unaligned[:3].tolist()[:2] == [1.0, 0.0]
    assert KernelSet.from_kernels(ks.kernels()).unaligned[0] == 1.0


def test_an_unaligned_older_kernel_keeps_its_own_share_where_no_fallback_was_seen():
    """An H100 row that fell back (cutlass_75) projected onto another sm_90+
    GPU with no fallback figure: the target's kernels cannot take it
    either, so the target library's efficiency is not promised."""
    ks = kernels([("cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_tn_align1", "gemm", 1, 4e-3,
                   {"tensor_bf16": 1e12}, {"DRAM": 1e6}, math.nan)]).with_columns(unaligned=np.array([1.0]))
    lib = {"src": 0.6, "dst": 0.6}
    p = project(place(ks, _nvidia(SRC)), _nvidia(DST, cc="10.0"), figures=figures(library=lib))
    assert KEYS[p.basis[0]] == "fallback_unobserved"
    assert p.projected_s[0] == pytest.approx(0.5e-3 / 0.25)     # 25 % of the roof, as on the source
    aligned = project(place(ks.with_columns(unaligned=np.array([0.0])), _nvidia(SRC)), _nvidia(DST, cc="10.0"),
                      figures=figures(library=lib))
    assert KEYS[aligned.basis[0]] == "older_kernel" and aligned.projected_s[0] < p.projected_s[0]
