"""What AMD profiler files may hold and what is read of them (issue 30):
counters from different replay passes whose differences come out slightly
negative, tables with hundreds of thousands of columns, oversized
description files, repeated rows and agent figures no GPU has, and the
messages that name the field at fault rather than the kernel or a missing
file. Every input is generated here."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from roofline.core.errors import InputError
from roofline.importers import read_profile
from roofline.importers.amd.amd_counters import REPLAY_TOLERANCE

SYS_HEADER = ["workload_name", "gpu_model", "gpu_arch", "cu_per_gpu", "wave_size", "max_sclk", "num_xcd"]
MI300X = ["w", "MI300X_A1", "gfx942", "304", "64", "2100", "8"]
PMC_HEADER = ["Dispatch_ID", "Kernel_Name", "GPU_ID", "Grid_Size", "Workgroup_Size", "Wave_Size",
              "SQ_INSTS_VALU_MFMA_MOPS_BF16", "TCC_EA0_RDREQ_sum", "TCC_BUBBLE_sum", "TCC_EA0_RDREQ_32B_sum",
              "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum", "GRBM_GUI_ACTIVE", "Start_Timestamp", "End_Timestamp"]
GEMM = "Cijk_Alik_Bljk_BBS_BH_MT256x256x64_MI16x16x16x1 (.kd)"


def write(path: Path, rows) -> Path:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue())
    return path


def workload(folder: Path, reads: np.ndarray, bubble: np.ndarray, rd32: np.ndarray, sysinfo=MI300X,
             start=None) -> Path:
    """A rocprof-compute MI300X workload whose read counters are given per dispatch."""
    folder.mkdir(parents=True, exist_ok=True)
    write(folder / "sysinfo.csv", [SYS_HEADER, sysinfo])
    rows = [PMC_HEADER]
    for i, (rd, bb, r32) in enumerate(zip(reads.tolist(), bubble.tolist(), rd32.tolist())):
        t0 = 1_000_000 + 50_000 * i if start is None else start[i]
        rows.append([i, GEMM, 2, 1048576, 256, 64, 2_000_000, rd, bb, r32, 90_000, 80_000, 840_000,
                     t0, t0 + 40_000 if start is None else "8.1097E+14"])
    return write(folder / "pmc_perf.csv", rows)


def replay_counters(n=150, negative=39, seed=7):
    """Reads of about 411,000 requests split into 128-, 32- and 64-byte
    parts; ``negative`` dispatches get parts exceeding the total by 37 to
    887 requests, as counters from different replay passes do."""
    rng = np.random.default_rng(seed)
    reads = rng.integers(405_000, 418_000, n)
    rd32 = rng.integers(1_000, 5_000, n)
    bubble = reads - rd32 - rng.integers(0, 20_000, n)
    bad = rng.choice(n, negative, replace=False)
    excess = rng.integers(37, 888, negative)
    if negative >= 2:
        excess[0], excess[1] = 37, 887
    bubble[bad] = reads[bad] - rd32[bad] + excess
    return reads, bubble, rd32, bad, excess


def test_replay_noise_is_counted_as_zero_with_one_warning_saying_why(tmp_path):
    reads, bubble, rd32, bad, excess = replay_counters()
    r = read_profile(workload(tmp_path / "w", reads, bubble, rd32))
    (k,) = r.kernels
    rd64 = np.maximum(reads - bubble - rd32, 0)
    writes = 150 * (32 * (90_000 - 80_000) + 64 * 80_000)
    assert k.bytes["DRAM"] == pytest.approx(float(np.sum(128 * bubble + 32 * rd32 + 64 * rd64)) + writes)
    assert k.flops == {"tensor_bf16": pytest.approx(150 * 512 * 2_000_000)}
    said = [str(w) for w in r.warnings if "replay" in str(w)]
    assert len(said) == 1
    text = said[0]
    assert "39 of 150 dispatches" in text and "-887 to -37" in text and "different replay passes" in text
    worst = float(np.max(excess / reads[bad]))
    assert f"{worst:.2%}" in text and f"{REPLAY_TOLERANCE:.0%}" in text


@pytest.mark.parametrize("share", [0.011, 0.4])
def test_negative_beyond_the_tolerance_is_refused_naming_the_line(tmp_path, share):
    reads, bubble, rd32, _, _ = replay_counters(n=6, negative=0)
    bubble[3] = reads[3] - rd32[3] + int(share * reads[3]) + 1
    pmc = workload(tmp_path / "w", reads, bubble, rd32)
    with pytest.raises(InputError) as err:
        read_profile(pmc)
    assert err.value.line == 5 and err.value.path == str(pmc)       # header on line 1, dispatch 3 on line 5
    assert "64-byte reads (TCC_EA0_RDREQ - TCC_BUBBLE - TCC_EA0_RDREQ_32B) come out negative" in str(err.value)
    assert "replay passes" in str(err.value)


def test_parts_of_a_zero_total_are_refused(tmp_path):
    reads, bubble, rd32, _, _ = replay_counters(n=3, negative=0)
    reads[1], bubble[1], rd32[1] = 0, 5, 0
    with pytest.raises(InputError, match="more than all of the total 0"):
        read_profile(workload(tmp_path / "w", reads, bubble, rd32))


# ---------------------------------------------------------------- sizes read before allocating

def test_a_header_of_400k_columns_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "results.csv"
    n = 400_000
    header = ["Dispatch_ID", "Kernel_Name", "BeginNs", "EndNs"] + [f"C{i}" for i in range(n)]
    path.write_text(",".join(header) + "\n1,k,100,200," + ",".join(["1"] * n) + "\n")
    done = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(path), "--format", "csv"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "400,004 columns" in lines[0]


def test_sysinfo_is_read_only_as_far_as_a_description_goes(tmp_path):
    reads, bubble, rd32, _, _ = replay_counters(n=2, negative=0)
    pmc = workload(tmp_path / "w", reads, bubble, rd32)
    sysinfo = tmp_path / "w" / "sysinfo.csv"
    with open(sysinfo, "r+b") as fh:        # a sparse 8 GiB file: read whole, it would take minutes
        fh.truncate(8 << 30)
    t0 = time.monotonic()
    with pytest.raises(InputError) as err:
        read_profile(pmc)
    assert time.monotonic() - t0 < 20
    assert err.value.path == str(sysinfo) and "more than 1,048,576 bytes" in str(err.value)


# ---------------------------------------------------------------- misleading messages

def coarse_workload(tmp_path, sysinfo):
    reads, bubble, rd32, _, _ = replay_counters(n=2, negative=0)
    return workload(tmp_path / "w", reads, bubble, rd32, sysinfo=sysinfo, start=["8.1097E+14"] * 2)


@pytest.mark.parametrize("field, value, said", [("max_sclk", "0", "its max_sclk is 0 MHz, which no GPU has"),
                                                ("num_xcd", "0", "its num_xcd is 0, which no GPU has")])
def test_a_zero_sysinfo_field_is_named_not_called_missing(tmp_path, field, value, said):
    sysinfo = list(MI300X)
    sysinfo[SYS_HEADER.index(field)] = value
    r = read_profile(coarse_workload(tmp_path, sysinfo))
    text = " ".join(map(str, r.warnings))
    assert said in text and "no sysinfo.csv beside it" not in text
    assert all(np.isnan(k.time_s) for k in r.kernels)      # no time made up from a 1-XCD or 0 MHz guess


def test_negative_xcds_name_the_sysinfo_field(tmp_path):
    sysinfo = list(MI300X)
    sysinfo[SYS_HEADER.index("num_xcd")] = "-8"
    with pytest.raises(InputError) as err:
        read_profile(coarse_workload(tmp_path, sysinfo))
    assert err.value.path.endswith("sysinfo.csv") and "column num_xcd: -8 is no GPU's figure" in str(err.value)


# ---------------------------------------------------------------- rocprofv3: repeats and agent figures

TRACE_HEADER = ["Kind", "Agent_Id", "Queue_Id", "Process_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id",
                "Kernel_Name", "Start_Timestamp", "End_Timestamp", "Workgroup_Size_X", "Workgroup_Size_Y",
                "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
AGENT_HEADER = ["Node_Id", "Agent_Type", "Wave_Front_Size", "Num_Xcc", "Cu_Count", "Gfx_Target_Version",
                "Max_Engine_Clk_Fcompute", "Name", "Product_Name"]
GPU_AGENT = [4, "GPU", 64, 8, 304, 90402, 2100, "gfx942", "AMD Instinct MI300X"]


def trace_rows(n=4):
    return [["KERNEL_DISPATCH", "Agent 4", 1, 77, 77, i, 3, "k(float*)", 1000 * i, 1000 * i + 100 + i,
             256, 1, 1, 65536, 1, 1] for i in range(1, n + 1)]


def test_a_repeated_kernel_trace_row_is_counted_once(tmp_path):
    rows = trace_rows()
    path = write(tmp_path / "9_kernel_trace.csv", [TRACE_HEADER] + rows + [rows[1]])
    r = read_profile(path)
    (k,) = r.kernels
    assert k.count == 4 and k.time_s == pytest.approx(sum(100 + i for i in range(1, 5)) * 1e-9)
    said = [str(w) for w in r.warnings if "repeat" in str(w)]
    assert len(said) == 1 and "1 row(s) repeat the dispatch" in said[0]


def test_a_repeated_counter_row_is_summed_once(tmp_path):
    header = ["Dispatch_Id", "Agent_Id", "Process_Id", "Kernel_Name", "Workgroup_Size", "Grid_Size",
              "Counter_Name", "Counter_Value", "Start_Timestamp", "End_Timestamp"]
    rows = [[d, "Agent 4", 77, "k", 256, 65536, "SQ_INSTS_VALU_FMA_F32", 1000 * d, 100 * d, 100 * d + 50]
            for d in (1, 2)]
    path = write(tmp_path / "9_counter_collection.csv", [header] + rows + [rows[0]])
    r = read_profile(path)
    (k,) = r.kernels
    assert k.flops == {"fp32": 64 * 2 * (1000 + 2000)}
    assert sum("repeat the dispatch, counter and value" in str(w) for w in r.warnings) == 1


@pytest.mark.parametrize("clock", ["1" + "0" * 30, "1e30", "0", "-2100"])
def test_an_agent_info_clock_no_gpu_has_is_ignored_naming_the_field(tmp_path, clock):
    path = write(tmp_path / "9_kernel_trace.csv", [TRACE_HEADER] + trace_rows())
    agent = list(GPU_AGENT)
    agent[AGENT_HEADER.index("Max_Engine_Clk_Fcompute")] = clock
    write(tmp_path / "9_agent_info.csv", [AGENT_HEADER, agent])
    r = read_profile(path)
    assert r.device.name == "AMD Instinct MI300X"
    said = [str(w) for w in r.warnings if "max_engine_clk_fcompute" in str(w)]
    assert len(said) == 1 and "9_agent_info.csv" in said[0] and "ignored" in said[0]


def test_a_json_agent_clock_no_gpu_has_is_ignored_naming_the_agent(tmp_path):
    agent = {"id": {"handle": 7}, "type": 2, "name": "gfx942", "product_name": "AMD Instinct MI300X",
             "cu_count": 304, "wave_front_size": 64, "max_engine_clk_fcompute": 10 ** 30}
    data = {"rocprofiler-sdk-tool": [{
        "agents": [agent],
        "kernel_symbols": [{"kernel_id": 3, "kernel_name": "k.kd"}],
        "buffer_records": {"kernel_dispatch": [
            {"start_timestamp": 100, "end_timestamp": 300,
             "dispatch_info": {"kernel_id": 3, "agent_id": {"handle": 7}, "dispatch_id": 1,
                               "workgroup_size": {"x": 64, "y": 1, "z": 1},
                               "grid_size": {"x": 4096, "y": 1, "z": 1}}}]}}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    r = read_profile(path)
    assert r.device.name == "AMD Instinct MI300X" and r.device.properties["sms"] == 304
    said = [str(w) for w in r.warnings if "max_engine_clk_fcompute" in str(w)]
    assert len(said) == 1 and "agent 7" in said[0]


def test_an_oversized_agent_info_is_refused_unread(tmp_path):
    path = write(tmp_path / "9_kernel_trace.csv", [TRACE_HEADER] + trace_rows())
    info = write(tmp_path / "9_agent_info.csv", [AGENT_HEADER, GPU_AGENT])
    os.truncate(info, 3 << 20)
    with pytest.raises(InputError) as err:
        read_profile(path)
    assert err.value.path == str(info) and "agent_info.csv" in str(err.value)


def test_rocprofv3_json_nested_thousands_deep_is_one_line(tmp_path):
    path = tmp_path / "results.json"
    path.write_text('{"rocprofiler-sdk-tool": [{"agents": [], "junk": ' + "[" * 100_000 + "]" * 100_000 + "}]}")
    with pytest.raises(InputError, match="nested too deeply to read: not rocprofv3 JSON output"):
        read_profile(path)
