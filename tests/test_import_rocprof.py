"""rocprofv3 (JSON and CSV) and rocprof v1/v2 results.csv: the real MI350X
trace in ../shared/realdata/rocprofv3, small files written here for every
variant and every error.

Known answers are computed in the tests from the same files with json.load
or csv.reader (or from the numbers the test wrote), never by the readers.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REALDATA
from corrupt import check_random_corruption, fuzz_dir, needs_realdata
from roofline.core.errors import InputError
from roofline.core.families import family_of
from roofline.importers import read_profile
from roofline.importers.base import detect

MI350X = REALDATA / "rocprofv3" / "AMD-AGI__TraceLens__908_results.json.gz"
KD_SUFFIXES = ("[clone .kd]", "(.kd)", ".kd")


def strip_kd(name: str) -> str:
    name = name.strip()
    for suffix in KD_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)].rstrip()
    return name


# ---------------------------------------------------------------- the real MI350X trace

@pytest.fixture(scope="module")
def mi350x():
    if not MI350X.exists():
        pytest.skip(f"{MI350X} is not present")
    with gzip.open(MI350X) as fh:
        raw = json.load(fh)["rocprofiler-sdk-tool"][0]
    return raw, read_profile(MI350X)


@needs_realdata
def test_mi350x_every_dispatch_counted_and_timed(mi350x):
    raw, r = mi350x
    dispatches = raw["buffer_records"]["kernel_dispatch"]
    assert len(dispatches) == 43_915
    assert r.format == "rocprofv3-json"
    assert sum(k.count for k in r.kernels) == 43_915
    total_ns = sum(d["end_timestamp"] - d["start_timestamp"] for d in dispatches)
    assert sum(k.time_s for k in r.kernels) == pytest.approx(total_ns * 1e-9, rel=1e-12)
    assert total_ns == 4_441_741_378                      # 4.44 s of kernel time
    starts = [d["start_timestamp"] for d in dispatches]
    ends = [d["end_timestamp"] for d in dispatches]
    assert r.program.span_s == pytest.approx((max(ends) - min(starts)) * 1e-9)
    assert 0 < r.program.gpu_busy_s <= total_ns * 1e-9


@needs_realdata
def test_mi350x_kernels_per_name_and_launch(mi350x):
    raw, r = mi350x
    symbols = {s["kernel_id"]: s for s in raw["kernel_symbols"]}
    calls, time, groups = Counter(), Counter(), set()
    for d in raw["buffer_records"]["kernel_dispatch"]:
        info = d["dispatch_info"]
        name = strip_kd(symbols[info["kernel_id"]]["formatted_kernel_name"])
        calls[name] += 1
        time[name] += d["end_timestamp"] - d["start_timestamp"]
        groups.add((name, tuple(info["grid_size"].values()), tuple(info["workgroup_size"].values()),
                    info["group_segment_size"], info["private_segment_size"], info["agent_id"]["handle"]))
    assert len(calls) == 80 and len(r.kernels) == len(groups) == 127
    got_calls, got_time = Counter(), Counter()
    for k in r.kernels:
        got_calls[k.name] += k.count
        got_time[k.name] += k.time_s
        assert k.family == family_of(k.name)
        grid, block = k.launch["grid_size"], k.launch["block"]
        assert k.launch["grid"] == tuple(-(-g // b) for g, b in zip(grid, block))
    assert got_calls == calls
    assert all(got_time[n] == pytest.approx(t * 1e-9, rel=1e-12) for n, t in time.items())
    assert got_calls["ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)"] == 1310


@needs_realdata
def test_mi350x_device_and_no_counter_advice(mi350x):
    raw, r = mi350x
    gpu = next(a for a in raw["agents"] if a["id"]["handle"] == raw["buffer_records"]["kernel_dispatch"][0]
               ["dispatch_info"]["agent_id"]["handle"])
    assert r.device.name == gpu["product_name"] == "AMD Instinct MI350X"
    assert r.device.kind == "gpu"
    assert r.device.properties == {"sms": 256, "warp_size": 64, "capability": "9.5",
                                   "memory_bytes": float(gpu["mem_banks"][0]["size_in_bytes"]),
                                   "gfx_target": "gfx950"}
    text = " ".join(map(str, r.warnings))
    # no counters in the file: the advice names what to collect, no kernel has work
    assert "SQ_INSTS_VALU_FMA_F32" in text and "TCC_EA0_RDREQ_sum" in text and "rocprofv3" in text
    assert not any(k.flops or k.bytes for k in r.kernels)


# ---------------------------------------------------------------- hand-made rocprofv3 JSON

AGENT = {"id": {"handle": 7}, "type": 2, "name": "gfx942", "product_name": "AMD Instinct MI300X",
         "cu_count": 304, "wave_front_size": 64, "gfx_target_version": 90402, "num_xcc": 8,
         "max_engine_clk_fcompute": 2100,
         "mem_banks": [{"heap_type": 1, "size_in_bytes": 205822885888}]}
CPU = {"id": {"handle": 1}, "type": 1, "name": "AMD EPYC 9654", "product_name": "AMD EPYC 9654"}
SYMBOLS = [
    {"kernel_id": 1, "kernel_name": "_Z4gemmv.kd", "formatted_kernel_name": "gemm_bf16_kernel",
     "demangled_kernel_name": "gemm_bf16_kernel() [clone .kd]", "arch_vgpr_count": 128,
     "accum_vgpr_count": 64, "sgpr_count": 96},
    {"kernel_id": 2, "kernel_name": "Cijk_Ailk_Bljk_BBS_BH_MT64x64x64_MI16x16x1.kd", "formatted_kernel_name": "",
     "demangled_kernel_name": "", "arch_vgpr_count": 64, "accum_vgpr_count": 0, "sgpr_count": 32},
]
# counters: per dispatch, each counter's instances (summed by the reader)
COUNTS = {
    "SQ_INSTS_VALU_MFMA_MOPS_BF16": [600, 400],
    "SQ_INSTS_VALU_FMA_F32": [10], "SQ_INSTS_VALU_ADD_F32": [4], "SQ_INSTS_VALU_MUL_F32": [2],
    "SQ_INSTS_VALU_TRANS_F32": [1],
    "TCP_TOTAL_CACHE_ACCESSES_sum": [5000], "TCP_TCC_READ_REQ_sum": [300], "TCP_TCC_WRITE_REQ_sum": [100],
    "TCP_TCC_ATOMIC_WITH_RET_REQ_sum": [0], "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum": [2],
    "TCC_EA0_RDREQ_sum": [250], "TCC_EA0_RDREQ_32B_sum": [10], "TCC_BUBBLE_sum": [40],
    "TCC_EA0_WRREQ_sum": [90], "TCC_EA0_WRREQ_64B_sum": [80],
}


def dispatch(i, kernel_id, start, end, grid=(65536, 1, 1), wg=(256, 1, 1), agent=7):
    return {"size": 184, "kind": 11, "operation": 2, "thread_id": 5,
            "correlation_id": {"internal": i, "external": 0},
            "start_timestamp": start, "end_timestamp": end,
            "dispatch_info": {"size": 72, "agent_id": {"handle": agent}, "queue_id": {"handle": 3},
                              "kernel_id": kernel_id, "dispatch_id": i, "private_segment_size": 0,
                              "group_segment_size": 16384,
                              "workgroup_size": dict(zip("xyz", wg)), "grid_size": dict(zip("xyz", grid))}}


def counting(i, kernel_id, start=0, end=0):
    ids = {name: n for n, name in enumerate(COUNTS, start=100)}
    records = [{"counter_id": {"handle": ids[name]}, "value": v} for name, vs in COUNTS.items() for v in vs]
    return {"dispatch_data": {"size": 1, "correlation_id": {"internal": i, "external": 0},
                              "start_timestamp": start, "end_timestamp": end,
                              "dispatch_info": dispatch(i, kernel_id, 0, 0)["dispatch_info"]},
            "records": records, "thread_id": 5, "arch_vgpr_count": 128, "sgpr_count": 96, "lds_block_size_v": 0}


def sdk_json(dispatches=(), countings=(), copies=(), hip=(), **overrides) -> dict:
    process = {
        "metadata": {"pid": 5, "init_time": 0, "fini_time": 10 ** 9, "config": {"kernel_rename": False}},
        "agents": [CPU, AGENT],
        "counters": [{"agent_id": {"handle": 7}, "id": {"handle": n}, "is_constant": 0, "is_derived": 0,
                      "name": name, "description": "", "block": "", "expression": "", "dimension_ids": []}
                     for n, name in enumerate(COUNTS, start=100)],
        "strings": {"buffer_records": [{"kind": "NONE", "operations": []}] * 5 +
                    [{"kind": "HIP_RUNTIME_API", "operations": ["hipApiName", "hipMemcpy", "hipLaunchKernel"]}]},
        "kernel_symbols": SYMBOLS,
        "callback_records": {"counter_collection": list(countings)},
        "buffer_records": {"kernel_dispatch": list(dispatches), "memory_copy": list(copies),
                           "hip_api": list(hip), "hsa_api": []},
    }
    process.update(overrides)
    return {"rocprofiler-sdk-tool": [process]}


def write_json(tmp_path, data, name="results.json", gz=False) -> Path:
    path = tmp_path / (name + (".gz" if gz else ""))
    text = json.dumps(data, indent=1)
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    return path


def test_json_dispatches_with_counters_copies_and_api(tmp_path):
    data = sdk_json(
        dispatches=[dispatch(1, 1, 1_000, 6_000), dispatch(2, 1, 10_000, 14_000), dispatch(3, 2, 20_000, 21_000)],
        countings=[counting(1, 1), counting(2, 1)],
        copies=[{"size": 1, "kind": 10, "operation": 2, "thread_id": 5, "correlation_id": {"internal": 9},
                 "start_timestamp": 500, "end_timestamp": 900, "dst_agent_id": {"handle": 7},
                 "src_agent_id": {"handle": 1}, "bytes": 4096}],
        hip=[{"size": 1, "kind": 5, "operation": 2, "correlation_id": {"internal": 1},
              "start_timestamp": 100, "end_timestamp": 400, "thread_id": 5}])
    path = write_json(tmp_path, data, gz=True)
    assert detect(path).name == "rocprofv3-json"
    r = read_profile(path)
    by_name = {k.name: k for k in r.kernels}
    assert set(by_name) == {"gemm_bf16_kernel", "Cijk_Ailk_Bljk_BBS_BH_MT64x64x64_MI16x16x1", "[HIP memcpy HtoD]"}
    gemm = by_name["gemm_bf16_kernel"]
    c = {name: sum(vs) for name, vs in COUNTS.items()}      # one dispatch's counters
    assert (gemm.count, gemm.time_s) == (2, pytest.approx(9_000e-9))
    assert gemm.flops == {
        "tensor_bf16": 2 * 512 * c["SQ_INSTS_VALU_MFMA_MOPS_BF16"],
        "fp32": 2 * 64 * (c["SQ_INSTS_VALU_ADD_F32"] + c["SQ_INSTS_VALU_MUL_F32"] + c["SQ_INSTS_VALU_TRANS_F32"]
                          + 2 * c["SQ_INSTS_VALU_FMA_F32"])}
    hbm = (128 * c["TCC_BUBBLE_sum"] + 32 * c["TCC_EA0_RDREQ_32B_sum"]
           + 64 * (c["TCC_EA0_RDREQ_sum"] - c["TCC_BUBBLE_sum"] - c["TCC_EA0_RDREQ_32B_sum"])
           + 32 * (c["TCC_EA0_WRREQ_sum"] - c["TCC_EA0_WRREQ_64B_sum"]) + 64 * c["TCC_EA0_WRREQ_64B_sum"])
    assert gemm.bytes == {"L1": 2 * 64 * 5000, "L2": 2 * 64 * (300 + 100 + 0 + 2), "DRAM": 2 * hbm}
    assert gemm.launch["grid"] == (256, 1, 1) and gemm.launch["block"] == (256, 1, 1)
    assert (gemm.launch["lds_bytes"], gemm.launch["arch_vgpr"], gemm.launch["accum_vgpr"]) == (16384, 128, 64)
    # the mangled name, without .kd, when the symbol has no formatted one; Tensile -> gemm
    cijk = by_name["Cijk_Ailk_Bljk_BBS_BH_MT64x64x64_MI16x16x1"]
    assert (cijk.count, cijk.family, dict(cijk.flops)) == (1, "gemm", {})
    copy = by_name["[HIP memcpy HtoD]"]
    assert (copy.family, dict(copy.bytes), copy.time_s) == ("memcpy", {"PCIe": 4096.0}, pytest.approx(400e-9))
    assert r.program.api_s == {"hipLaunchKernel": pytest.approx(300e-9)}
    assert r.program.span_s == pytest.approx((21_000 - 100) * 1e-9)
    assert r.device.name == "AMD Instinct MI300X"
    assert r.device.properties["capability"] == "9.4" and r.device.properties["sms"] == 304
    # counters for only some dispatches of a kernel are scaled to all, and said so
    assert not any("floating-point" in str(w) for w in r.warnings)


def test_json_counters_without_kernel_trace_take_the_counting_times(tmp_path):
    path = write_json(tmp_path, sdk_json(countings=[counting(1, 1, 100, 1_100), counting(2, 1, 0, 0)]))
    (k,) = read_profile(path).kernels
    # the second record has no timestamps: its time is unknown, the first's scaled to both
    assert k.count == 2 and k.time_s == pytest.approx(2 * 1_000e-9)
    assert k.flops["tensor_bf16"] == 2 * 512 * 1000


@pytest.mark.parametrize("change, message", [
    (lambda d: d["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][1].update(start_timestamp="soon"),
     "rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[1].start_timestamp"),
    (lambda d: d["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][1].update(end_timestamp=5),
     "kernel_dispatch[1]: end_timestamp 5 is before start_timestamp 10000"),
    (lambda d: d["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][0]["dispatch_info"]
     .update(kernel_id=99), "kernel_dispatch[0]: kernel_id 99 is not in kernel_symbols"),
    (lambda d: d["rocprofiler-sdk-tool"][0]["callback_records"]["counter_collection"][0]["records"][0]
     .update(value=-3), "counter_collection[0].records[0].value"),
    (lambda d: d["rocprofiler-sdk-tool"][0]["callback_records"]["counter_collection"][0]["records"][0]
     .update(counter_id={"handle": 5}), "counter id 5 is not in the file's counters list"),
    (lambda d: d["rocprofiler-sdk-tool"][0]["buffer_records"].update(kernel_dispatch=[]) or
     d["rocprofiler-sdk-tool"][0]["callback_records"].update(counter_collection=[]), "no kernel dispatches"),
    (lambda d: d["rocprofiler-sdk-tool"][0].update(kernel_symbols="none"), "kernel_symbols"),
])
def test_json_errors_name_the_record(tmp_path, change, message):
    data = sdk_json(dispatches=[dispatch(1, 1, 1_000, 6_000), dispatch(2, 1, 10_000, 14_000)],
                    countings=[counting(1, 1)])
    change(data)
    path = write_json(tmp_path, data)
    with pytest.raises(InputError) as err:
        read_profile(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_json_syntax_error_names_the_line(tmp_path):
    path = write_json(tmp_path, sdk_json(dispatches=[dispatch(1, 1, 1_000, 6_000)]))
    text = path.read_text()
    cut = text.index('"end_timestamp"')
    path.write_text(text[:cut] + "]" + text[cut:])
    with pytest.raises(InputError) as err:
        read_profile(path)
    assert err.value.line == text[:cut].count("\n") + 1 and "not valid JSON" in str(err.value)


# ---------------------------------------------------------------- rocprofv3 CSV

TRACE_HEADER = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
                "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size", "Scratch_Size",
                "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X", "Workgroup_Size_Y",
                "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
ADD = "void addition_kernel<float>(float*, float const*, float const*, int, int)"
SUB = "subtract_kernel(float*, float const*, float const*, int, int)"
TRACE_ROWS = [
    ["KERNEL_DISPATCH", "Agent 4", 1, 0, 69, 1, 16, ADD, 1, 8819330200067564, 8819330200116308, 0, 0, 8, 0, 16,
     64, 1, 1, 1024, 1024, 1],
    ["KERNEL_DISPATCH", "Agent 4", 2, 0, 69, 2, 16, ADD, 2, 8819330200118678, 8819330200219573, 0, 0, 8, 0, 16,
     64, 1, 1, 1024, 1024, 1],
    ["KERNEL_DISPATCH", "Agent 4", 1, 0, 69, 3, 19, SUB, 3, 8819330200120456, 8819330200223721, 512, 0, 12, 0, 16,
     128, 1, 1, 4096, 1, 1],
]
AGENT_INFO = [["Node_Id", "Logical_Node_Id", "Agent_Type", "Wave_Front_Size", "Num_Xcc", "Cu_Count",
               "Gfx_Target_Version", "Max_Engine_Clk_Fcompute", "Name", "Vendor_Name", "Product_Name", "Model_Name"],
              [0, 0, "CPU", 0, 1, 64, 0, 0, "AMD EPYC 9654", "CPU", "AMD EPYC 9654", ""],
              [4, 1, "GPU", 64, 8, 304, 90402, 2100, "gfx942", "AMD", "AMD Instinct MI300X", "ip discovery"]]


def write_csv(path: Path, rows, quote=csv.QUOTE_NONNUMERIC) -> Path:
    buf = io.StringIO()
    csv.writer(buf, quoting=quote, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue())
    return path


def read_rows(path: Path) -> list[dict]:
    return list(csv.DictReader(path.open(newline="")))


def test_v3_kernel_trace_with_agent_info(tmp_path):
    trace = write_csv(tmp_path / "1234_kernel_trace.csv", [TRACE_HEADER] + TRACE_ROWS)
    write_csv(tmp_path / "1234_agent_info.csv", AGENT_INFO)
    r = read_profile(trace)
    assert r.format == "rocprofv3-csv"
    rows = read_rows(trace)
    want = Counter()
    for row in rows:
        want[row["Kernel_Name"]] += int(row["End_Timestamp"]) - int(row["Start_Timestamp"])
    assert {k.name: k.time_s for k in r.kernels} == {n: pytest.approx(t * 1e-9) for n, t in want.items()}
    sub = next(k for k in r.kernels if k.name == SUB)
    assert sub.launch["grid"] == (32, 1, 1) and sub.launch["lds_bytes"] == 512 and sub.launch["agent"] == 4
    assert r.device.name == "AMD Instinct MI300X"
    assert r.device.properties == {"sms": 304, "warp_size": 64, "capability": "9.4", "gfx_target": "gfx942"}
    text = " ".join(map(str, r.warnings))
    assert "--pmc" in text and "SQ_INSTS_VALU_ADD_F32" in text


COUNTER_HEADER = ["Correlation_Id", "Dispatch_Id", "Agent_Id", "Queue_Id", "Process_Id", "Thread_Id", "Grid_Size",
                  "Kernel_Id", "Kernel_Name", "Workgroup_Size", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
                  "Accum_VGPR_Count", "SGPR_Count", "Counter_Name", "Counter_Value"]


def counter_rows(timestamps: bool):
    out = []
    for d, (t0, t1) in ((1, (100, 1_100)), (2, (2_000, 2_900))):
        for name, value in (("SQ_INSTS_VALU_FMA_F64", 16384), ("SQ_INSTS_VALU_ADD_F64", 8),
                            ("SQ_INSTS_VALU_MUL_F64", 0), ("SQ_INSTS_VALU_TRANS_F64", 0),
                            ("TCP_TOTAL_CACHE_ACCESSES_sum", 32768), ("FETCH_SIZE", 8192.5), ("WRITE_SIZE", 4096)):
            out.append([d, d, "Agent 4", 1, 1234, 69, 1048576, 16, ADD, 64, 0, 0, 8, 0, 16, name, value]
                       + ([t0, t1] if timestamps else []))
    return out


def test_v3_counter_collection_pivoted_and_timed(tmp_path):
    path = write_csv(tmp_path / "1234_counter_collection.csv",
                     [COUNTER_HEADER + ["Start_Timestamp", "End_Timestamp"]] + counter_rows(True))
    write_csv(tmp_path / "1234_agent_info.csv", AGENT_INFO)
    r = read_profile(path)
    (k,) = r.kernels
    rows = read_rows(path)
    total = Counter()
    for row in rows:
        total[row["Counter_Name"]] += float(row["Counter_Value"])
    assert k.count == len({row["Dispatch_Id"] for row in rows}) == 2
    assert k.time_s == pytest.approx((1_000 + 900) * 1e-9)
    assert k.flops == {"fp64": 64 * (2 * total["SQ_INSTS_VALU_FMA_F64"] + total["SQ_INSTS_VALU_ADD_F64"])}
    assert k.bytes == {"L1": 64 * total["TCP_TOTAL_CACHE_ACCESSES_sum"],
                       "DRAM": 1024 * (total["FETCH_SIZE"] + total["WRITE_SIZE"])}
    assert k.launch["grid"] == (16384, 1, 1)
    assert r.device.name == "AMD Instinct MI300X"


def test_v3_counter_collection_times_from_the_kernel_trace_beside(tmp_path):
    path = write_csv(tmp_path / "1234_counter_collection.csv", [COUNTER_HEADER] + counter_rows(False))
    (k,) = read_profile(path).kernels
    assert math.isnan(k.time_s)
    write_csv(tmp_path / "1234_kernel_trace.csv", [TRACE_HEADER] + TRACE_ROWS)
    r = read_profile(path)
    # dispatches 1 and 2 of the trace: 48744 ns and 100895 ns
    assert r.kernels[0].time_s == pytest.approx((8819330200116308 - 8819330200067564 + 8819330200219573
                                                 - 8819330200118678) * 1e-9)
    assert any("1234_kernel_trace.csv" in str(w) for w in r.warnings)


def test_v3_kernel_stats(tmp_path):
    path = write_csv(tmp_path / "run_kernel_stats.csv", [
        ["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage", "MinNs", "MaxNs", "StdDev"],
        [ADD + " [clone .kd]", 2, 149639, 74819.5, 59.2, 48744, 100895, 36887.6],
        ["ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", 1, 103265, 103265, 40.8, 103265, 103265, 0]])
    r = read_profile(path)
    assert [(k.name, k.count, k.time_s, k.family) for k in r.kernels] == [
        (ADD, 2, pytest.approx(149639e-9), family_of(ADD)),
        ("ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", 1, pytest.approx(103265e-9), "communication")]


# ---------------------------------------------------------------- rocprof v1 / v2

V1_HEADER = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
             "wave_size,sig,obj,SQ_INSTS_VALU_FMA_F64,SQ_INSTS_VALU_ADD_F64,SQ_INSTS_VALU_MUL_F64,"
             "SQ_INSTS_VALU_TRANS_F64,TCC_EA_RDREQ[0],TCC_EA_RDREQ[1],TCC_EA_RDREQ_32B_sum,TCC_EA_WRREQ_sum,"
             "TCC_EA_WRREQ_64B_sum,DispatchNs,BeginNs,EndNs,CompleteNs")
V1_ROWS = [('0,"daxpy(double*, double const*, double, int) [clone .kd]",2,0,0,111,111,1048576,256,0,0,8,0,16,64,'
           '0x0,0x7f,16384,0,0,0,16000,16768,0,16384,16384,1000,2000,12000,13000'),
           ('1,"daxpy(double*, double const*, double, int) [clone .kd]",2,0,2,111,111,1048576,256,0,0,8,0,16,64,'
           '0x0,0x7f,16384,0,0,0,16000,16768,0,16384,16384,20000,21000,30000,31000')]


def test_v1_results_with_counters_and_instances(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("\n".join([V1_HEADER] + V1_ROWS) + "\n")
    r = read_profile(path)
    assert r.format == "rocprof"
    (k,) = r.kernels
    rows = read_rows(path)
    assert k.name == "daxpy(double*, double const*, double, int)"
    assert k.time_s == pytest.approx(sum(int(x["EndNs"]) - int(x["BeginNs"]) for x in rows) * 1e-9)
    assert k.flops == {"fp64": sum(64 * 2 * int(x["SQ_INSTS_VALU_FMA_F64"]) for x in rows)}
    # per-instance columns summed; gfx90a formula (no 32-byte reads, all 64-byte writes)
    reads = sum(int(x["TCC_EA_RDREQ[0]"]) + int(x["TCC_EA_RDREQ[1]"]) for x in rows)
    writes = sum(int(x["TCC_EA_WRREQ_64B_sum"]) for x in rows)
    assert k.bytes == {"DRAM": 64 * reads + 64 * writes}
    assert k.launch["grid"] == (4096, 1, 1) and k.launch["wave_size"] == 64
    assert r.device.name is None and any("--device" in str(w) for w in r.warnings)


def test_v2_results_blank_line_after_header(tmp_path):
    path = tmp_path / "results_v2.csv"
    path.write_text(
        "Dispatch_ID,GPU_ID,Queue_ID,PID,TID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,Scratch_Per_Workitem,"
        "Arch_VGPR,Accum_VGPR,SGPR,Wave_Size,Kernel_Name,Start_Timestamp,End_Timestamp,Correlation_ID,"
        "SQ_INSTS_VALU_MFMA_MOPS_F16,SQ_INSTS_VALU_MFMA_MOPS_F8\n\n"
        '1,2,1,5,5,65536,256,16384,0,128,128,96,64,"igemm_fwd_gtcx_nhwc_fp16_bx0_ex1 (.kd)",100,5100,0,1000,250\n')
    (k,) = read_profile(path).kernels
    assert (k.name, k.family, k.time_s) == ("igemm_fwd_gtcx_nhwc_fp16_bx0_ex1", "implicit_gemm", pytest.approx(5e-6))
    assert k.flops == {"tensor_fp16": 512 * 1000, "tensor_fp8": 512 * 250}


def test_timestamps_in_exponent_notation_are_parsed_exactly(tmp_path):
    path = tmp_path / "results_v2.csv"
    head = "Dispatch_ID,Kernel_Name,Grid_Size,Workgroup_Size,Start_Timestamp,End_Timestamp\n"
    # 16 significant digits: exact to the nanosecond
    path.write_text(head + '1,"k",256,256,1.410078545959517E+15,1.410078545984317E+15\n')
    assert read_profile(path).kernels[0].time_s == pytest.approx(24_800e-9, abs=1e-15)
    # integers beyond 2^53 stay exact (as floats, 1769000000000000001 and ...501 differ by 512)
    path.write_text(head + '2,"k",256,256,1769000000000000001,1769000000000000501\n')
    assert read_profile(path).kernels[0].time_s == pytest.approx(500e-9, abs=1e-15)
    path.write_text(head + '1,"k",256,256,8.1097E+14,8.1097E+14\n')
    r = read_profile(path)
    assert math.isnan(r.kernels[0].time_s)          # not 0: the file no longer holds it
    assert any("1e+10 ns" in str(w) and "unknown" in str(w) for w in r.warnings)


@pytest.mark.parametrize("rows, line, message", [
    (V1_ROWS[:1] + [V1_ROWS[1].rsplit(",", 1)[0]], 3, "expected 30 cells"),
    ([V1_ROWS[0].replace(",16000,", ",many,", 1)], 2, "column TCC_EA_RDREQ[0]: expected a number"),
    ([V1_ROWS[0].replace(",16000,", ",-5,", 1)], 2, "expected a finite non-negative number"),
    ([V1_ROWS[0].replace(",2000,12000,", ",2000,soon,", 1)], 2, "column EndNs: expected a timestamp"),
    ([V1_ROWS[0].replace(",2000,12000,", ",12000,2000,", 1)], 2, "EndNs 2000 is before BeginNs 12000"),
    ([V1_ROWS[0].replace(",0,16384,16384,", ",0,16384,99999,", 1)], 2,
     "32-byte writes (TCC_EA_WRREQ - TCC_EA_WRREQ_64B) come out negative"),
    ([V1_ROWS[0].replace(",256,0,0,8,", ",256.5,0,0,8,", 1)], 2, "column wgr: expected a whole number"),
])
def test_v1_errors_name_the_line(tmp_path, rows, line, message):
    path = tmp_path / "results.csv"
    path.write_text("\n".join([V1_HEADER] + rows) + "\n")
    with pytest.raises(InputError) as err:
        read_profile(path)
    assert (err.value.line, err.value.path) == (line, str(path))
    assert message in str(err.value)


@pytest.mark.parametrize("name, text, message", [
    ("dup.csv", "Dispatch_ID,Kernel_Name,Kernel_Name\n1,a,b\n", "duplicate column 'Kernel_Name'"),
    ("trace.csv", "Dispatch_ID,Kernel_Name,BeginNs,EndNs,DurationNs\n1,a,100,200,150\n",
     "column DurationNs: 150 ns, but the timestamps give 100 ns"),
    ("run_hip_api_stats.csv", '"Name","Calls","TotalDurationNs"\n"hipMalloc",3,900\n', "API or copy statistics"),
    ("run_kernel_stats.csv", '"Name","Calls","TotalDurationNs"\n"k",,900\n', "expected Calls and TotalDurationNs"),
    ("1_agent_info.csv", ",".join(AGENT_INFO[0]) + "\n" + ",".join(map(str, AGENT_INFO[2])) + "\n",
     "agent_info.csv describes the GPUs"),
    ("c_counter_collection.csv", '"Kernel_Name","Counter_Name","Counter_Value"\n"k","SQ_WAVES",4\n',
     "no Dispatch_Id column"),
])
def test_csv_errors(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read_profile(path)
    assert message in str(err.value) and str(path) in str(err.value)


# ---------------------------------------------------------------- the CLI: one line, nothing written

def test_cli_bad_file_one_line_and_nothing_written(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("\n".join([V1_HEADER, V1_ROWS[0].replace(",16000,", ",many,", 1)]) + "\n")
    out = tmp_path / "kernels.csv"
    run = subprocess.run([sys.executable, "-m", "roofline.cli.main", "import", str(path), "-o", str(out)],
                         check=False, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0 and "results.csv:2" in run.stderr
    assert "Traceback" not in run.stderr and not out.exists()


def test_cli_imports_a_rocprofv3_json(tmp_path):
    path = write_json(tmp_path, sdk_json(dispatches=[dispatch(1, 1, 1_000, 6_000)], countings=[counting(1, 1)]))
    out = tmp_path / "kernels.csv"
    run = subprocess.run([sys.executable, "-m", "roofline.cli.main", "import", str(path), "-o", str(out)],
                         check=False, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    (row,) = read_rows(out)
    assert row["name"] == "gemm_bf16_kernel" and float(row["count"]) == 1


# ---------------------------------------------------------------- corrupted files: only RooflineError

_FUZZ = fuzz_dir("rocprof")


def _fuzz_files() -> list[Path]:
    json_path = write_json(_FUZZ, sdk_json(dispatches=[dispatch(1, 1, 1_000, 6_000), dispatch(3, 2, 7_000, 9_000)],
                                           countings=[counting(1, 1)]))
    v1 = _FUZZ / "results.csv"
    v1.write_text("\n".join([V1_HEADER] + V1_ROWS) + "\n")
    trace = write_csv(_FUZZ / "9_kernel_trace.csv", [TRACE_HEADER] + TRACE_ROWS)
    counters = write_csv(_FUZZ / "9_counter_collection.csv",
                         [COUNTER_HEADER + ["Start_Timestamp", "End_Timestamp"]] + counter_rows(True))
    return [json_path, v1, trace, counters]


FUZZ_FILES = _fuzz_files()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_corrupted_rocprof_files_raise_only_roofline_errors(data):
    check_random_corruption(data, FUZZ_FILES)


def test_json_with_no_process_is_refused(tmp_path):
    path = write_json(tmp_path, {"rocprofiler-sdk-tool": []})
    with pytest.raises(InputError, match="no kernel dispatches"):
        read_profile(path)
    path = write_json(tmp_path, {"rocprofiler-sdk-tool": {"agents": []}}, name="object.json")
    with pytest.raises(InputError, match="record rocprofiler-sdk-tool: Expected `array`"):
        read_profile(path)


def test_matrix_fp32_f6f4_and_xf32(tmp_path):
    path = tmp_path / "results_v2.csv"
    path.write_text(
        "Dispatch_ID,Kernel_Name,Grid_Size,Workgroup_Size,Wave_Size,Start_Timestamp,End_Timestamp,"
        "SQ_INSTS_VALU_ADD_F32,SQ_INSTS_VALU_MUL_F32,SQ_INSTS_VALU_FMA_F32,SQ_INSTS_VALU_TRANS_F32,"
        "SQ_INSTS_VALU_MFMA_MOPS_F32,SQ_INSTS_VALU_MFMA_MOPS_F6F4,SQ_INSTS_VALU_MFMA_MOPS_XF32\n"
        '1,"mxfp4_gemm",1024,256,64,100,900,1,2,3,4,5,10,3\n')
    r = read_profile(path)
    (k,) = r.kernels
    # VALU fp32 and matrix fp32 on one roof; F6F4 on tensor_fp6; XF32 left out, named
    assert k.flops == {"fp32": 64 * (1 + 2 + 4 + 2 * 3) + 512 * 5, "tensor_fp6": 512 * 10}
    assert any("1536 FLOP of XF32 matrix work left out" in str(w) for w in r.warnings)
