"""rocprof-compute (Omniperf) workloads: the real MI300X vcopy pmc_perf.csv
and sysinfo.csv in ../shared/realdata/rocprof_compute, workload folders
built from them, hand-made pmc_perf.csv / sysinfo.csv / roofline.csv for
every variant and every error.

Known answers are computed here from the same files with csv.reader (the
rocprof-compute formulas written out again), never by the readers.
"""
from __future__ import annotations

import csv
import math
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REALDATA
from corrupt import RANDOM_KINDS, check_random_corruption, corrupt_randomly, fuzz_dir, needs_realdata
from roofline.core.errors import InputError
from roofline.devices.rocprof_roofline import read_rocprof_roofline
from roofline.importers import read_profile
from roofline.importers.base import detect
from roofline.importers.amd.rocprof_compute import is_workload, read_workload, workload_device

FOLDER = REALDATA / "rocprof_compute"
PREFIX = "ROCm__rocprofiler-compute__vcopy_MI300X_A1_"
PMC = FOLDER / f"{PREFIX}pmc_perf.csv"
SYSINFO = FOLDER / f"{PREFIX}sysinfo.csv"


def rows_of(path: Path) -> list[dict]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def mi300_bytes(row: dict) -> dict:
    """rocprof-compute's roofline formulas (gfx942 0400_roofline.yaml), written out again."""
    v = {k: float(x) for k, x in row.items() if k.endswith("_sum")}
    hbm = (128 * v["TCC_BUBBLE_sum"] + 32 * v["TCC_EA0_RDREQ_32B_sum"]
           + 64 * (v["TCC_EA0_RDREQ_sum"] - v["TCC_BUBBLE_sum"] - v["TCC_EA0_RDREQ_32B_sum"])
           + 32 * (v["TCC_EA0_WRREQ_sum"] - v["TCC_EA0_WRREQ_64B_sum"]) + 64 * v["TCC_EA0_WRREQ_64B_sum"])
    l2 = 64 * (v["TCP_TCC_READ_REQ_sum"] + v["TCP_TCC_WRITE_REQ_sum"] + v["TCP_TCC_ATOMIC_WITH_RET_REQ_sum"]
               + v["TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum"])
    return {"L1": 64 * v["TCP_TOTAL_CACHE_ACCESSES_sum"], "L2": l2, "DRAM": hbm}


# ---------------------------------------------------------------- the real MI300X workload

@needs_realdata
def test_real_mi300x_pmc_perf_with_its_sysinfo_beside():
    if not PMC.exists():
        pytest.skip(f"{PMC} is not present")
    r = read_profile(PMC)
    assert r.format == "rocprof-compute" and detect(PMC).name == "rocprof-csv"
    rows = rows_of(PMC)
    (info,) = rows_of(SYSINFO)
    (k,) = r.kernels
    assert len(rows) == 3 and k.count == 3
    assert k.name == rows[0]["Kernel_Name"].removesuffix(" (.kd)") == "vecCopy(double*, double*, double*, int, int)"
    assert k.family == "elementwise"
    want = {lv: sum(mi300_bytes(row)[lv] for row in rows) for lv in ("L1", "L2", "DRAM")}
    assert k.bytes == pytest.approx(want, rel=1e-12)
    # the FP counters are there and zero: no FLOP, measured (not "not collected")
    for p in ("F16", "F32", "F64"):
        assert all(float(row[f"SQ_INSTS_VALU_FMA_{p}"]) == 0 for row in rows)
    assert k.flops == {"fp16": 0.0, "fp32": 0.0, "fp64": 0.0}
    assert k.launch["grid"] == (int(rows[0]["Grid_Size"]) // int(rows[0]["Workgroup_Size"]), 1, 1)
    # Start/End_Timestamp are '8.1097E+14': end - start is 0 +- 2e10 ns, no duration; the time is
    # GRBM_GUI_ACTIVE per XCD at max_sclk (sysinfo: 8 XCDs, 2100 MHz)
    assert {row["Start_Timestamp"] for row in rows} == {"8.1097E+14"}
    grbm = sum(float(row["GRBM_GUI_ACTIVE"]) for row in rows)
    assert k.time_s == pytest.approx(grbm / int(info["num_xcd"]) / (float(info["max_sclk"]) * 1e6), rel=1e-12)
    assert k.launch["time_source"] == "GRBM_GUI_ACTIVE / num_xcd / max_sclk"
    assert any("8.1097E+14" in str(w) and "GRBM_GUI_ACTIVE" in str(w) for w in r.warnings)
    # the GPU from sysinfo.csv: MI300X_A1, gfx942, 304 CUs
    assert r.device.name == "AMD Instinct MI300X"
    assert r.device.properties == {"sms": int(info["cu_per_gpu"]), "warp_size": int(info["wave_size"]),
                                   "capability": "9.4", "gfx_target": info["gpu_arch"]}


@needs_realdata
def test_real_pmc_perf_alone_names_no_gpu_and_no_time(tmp_path):
    if not PMC.exists():
        pytest.skip(f"{PMC} is not present")
    alone = shutil.copy(PMC, tmp_path / "pmc_perf.csv")
    r = read_profile(alone)
    (k,) = r.kernels
    assert r.device.name is None and r.device.properties is None
    assert math.isnan(k.time_s)                          # the clock and XCDs are in sysinfo.csv
    text = " ".join(map(str, r.warnings))
    assert "sysinfo.csv" in text and "--device" in text and "unknown" in text
    assert k.bytes == pytest.approx({lv: sum(mi300_bytes(row)[lv] for row in rows_of(PMC))
                                     for lv in ("L1", "L2", "DRAM")}, rel=1e-12)


@needs_realdata
def test_real_workload_folder(tmp_path):
    if not PMC.exists():
        pytest.skip(f"{PMC} is not present")
    gpu = tmp_path / "workloads" / "vcopy" / "MI300X_A1"
    gpu.mkdir(parents=True)
    shutil.copy(PMC, gpu / "pmc_perf.csv")
    shutil.copy(SYSINFO, gpu / "sysinfo.csv")
    for folder in (gpu, gpu.parent):                    # the GPU's folder, or the workload holding one
        assert is_workload(folder)
        r = read_workload(folder)
        assert r.device.name == "AMD Instinct MI300X" and r.kernels[0].count == 3
    (gpu.parent / "MI200").mkdir()
    shutil.copy(PMC, gpu.parent / "MI200" / "pmc_perf.csv")
    with pytest.raises(InputError) as err:
        read_workload(gpu.parent)
    assert "profiles of 2 GPUs (MI200, MI300X_A1)" in str(err.value) and str(gpu.parent) in str(err.value)
    assert not is_workload(tmp_path / "nothing")


def test_read_profile_takes_a_workload_folder_and_device_for_a_roofline_csv(tmp_path):
    if not PMC.exists():
        pytest.skip(f"{PMC} is not present")
    gpu = tmp_path / "MI300X_A1"
    gpu.mkdir()
    shutil.copy(PMC, gpu / "pmc_perf.csv")
    shutil.copy(SYSINFO, gpu / "sysinfo.csv")
    r = read_profile(gpu)                                # the folder itself, families filled in
    assert r.device.name == "AMD Instinct MI300X" and r.kernels[0].family == "elementwise"   # vecCopy
    from roofline.devices.choice import device_for
    roof = write_roofline(tmp_path / "w" / "MI200")
    for given in (roof, roof.parent):                    # the file, or the folder holding it
        choice = device_for([r], requested=str(given))
        assert choice.device.provenance["method"] == "measured" and "DRAM" in choice.device.memory
    with pytest.raises(InputError, match="is a directory"):
        read_profile(tmp_path / "w")                     # a folder no reader takes


def test_folder_without_pmc_perf(tmp_path):
    with pytest.raises(InputError, match="no pmc_perf.csv"):
        read_workload(tmp_path)


# ---------------------------------------------------------------- hand-made pmc_perf.csv

SYS_HEADER = ("workload_name,command,ip_blocks,timestamp,version,hostname,cpu_model,sbios,gpu_model,gpu_arch,"
              "gpu_l1,gpu_l2,cu_per_gpu,simd_per_cu,se_per_gpu,wave_size,workgroup_max_size,max_waves_per_cu,"
              "max_sclk,max_mclk,cur_sclk,cur_mclk,total_l2_chan,lds_banks_per_cu,sqc_per_gpu,pipes_per_gpu,"
              "hbm_bw,num_xcd")
SYS_ROW = ('mm,./mm,SQ|TCC,Thu 30 May 2024,2,host,"AMD EPYC","American Megatrends International, LLC.",MI200,'
           "gfx90a,16,8192,104,4,8,64,1024,32,1700,1600,1700,1600,32,32,56,4,1638.4,1")
PMC_HEADER = ("Dispatch_ID,Kernel_Name,GPU_ID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,Scratch_Per_Workitem,"
              "Arch_VGPR,Accum_VGPR,SGPR,wave_size,obj,SQ_INSTS_VALU_ADD_F64,SQ_INSTS_VALU_MUL_F64,"
              "SQ_INSTS_VALU_FMA_F64,SQ_INSTS_VALU_TRANS_F64,SQ_INSTS_VALU_MFMA_MOPS_F64,"
              "SQ_INSTS_VALU_MFMA_MOPS_F32,TCP_TOTAL_CACHE_ACCESSES_sum,TCP_TCC_READ_REQ_sum,TCP_TCC_WRITE_REQ_sum,"
              "TCP_TCC_ATOMIC_WITH_RET_REQ_sum,TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum,TCC_EA_RDREQ_sum,"
              "TCC_EA_RDREQ_32B_sum,TCC_EA_WRREQ_sum,TCC_EA_WRREQ_64B_sum,GRBM_GUI_ACTIVE,"
              "Start_Timestamp,End_Timestamp")
DGEMM = '"Cijk_Ailk_Bljk_DB_MT64x64x16_MI16x16x4x1 [clone .kd]"'
PMC_ROWS = [
    (f"0,{DGEMM},2,262144,256,8192,0,128,128,80,64,0x7f,10,20,3000,5,40000,7,90000,30000,10000,0,0,29000,1000,"
    "10000,9000,170000,1411551767635712,1411551767735712"),
    (f"1,{DGEMM},2,262144,256,8192,0,128,128,80,64,0x7f,10,20,3000,5,40000,7,90000,30000,10000,0,0,29000,1000,"
    "10000,9000,170000,1411551767835712,1411551767935712"),
]


def write_workload(folder: Path, rows=PMC_ROWS, header=PMC_HEADER, sys_rows=(SYS_ROW,), prefix="") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{prefix}sysinfo.csv").write_text("\n".join((SYS_HEADER,) + tuple(sys_rows)) + "\n")
    pmc = folder / f"{prefix}pmc_perf.csv"
    pmc.write_text("\n".join([header] + list(rows)) + "\n")
    return pmc


def test_mi200_pmc_perf_work_traffic_and_time(tmp_path):
    pmc = write_workload(tmp_path / "MI200", prefix="run_")
    r = read_profile(pmc)
    (k,) = r.kernels
    rows = rows_of(pmc)
    n = len(rows)
    v = {key: float(val) for key, val in rows[0].items() if key.isupper() or key.endswith("_sum")}
    assert k.name == "Cijk_Ailk_Bljk_DB_MT64x64x16_MI16x16x4x1" and k.family == "gemm"
    assert k.flops == {
        "fp64": n * 64 * (v["SQ_INSTS_VALU_ADD_F64"] + v["SQ_INSTS_VALU_MUL_F64"] + v["SQ_INSTS_VALU_TRANS_F64"]
                          + 2 * v["SQ_INSTS_VALU_FMA_F64"]),
        "tensor_fp64": n * 512 * v["SQ_INSTS_VALU_MFMA_MOPS_F64"],
        "fp32": n * 512 * v["SQ_INSTS_VALU_MFMA_MOPS_F32"]}             # matrix fp32: the fp32 roof
    # no VALU F32 counter: the fp32 figure is only the MFMA part
    assert any("fp32 work counts only MFMA F32" in str(w) for w in r.warnings)
    hbm = (32 * v["TCC_EA_RDREQ_32B_sum"] + 64 * (v["TCC_EA_RDREQ_sum"] - v["TCC_EA_RDREQ_32B_sum"])
           + 64 * v["TCC_EA_WRREQ_64B_sum"] + 32 * (v["TCC_EA_WRREQ_sum"] - v["TCC_EA_WRREQ_64B_sum"]))
    assert k.bytes == {"L1": n * 64 * v["TCP_TOTAL_CACHE_ACCESSES_sum"],
                       "L2": n * 64 * (v["TCP_TCC_READ_REQ_sum"] + v["TCP_TCC_WRITE_REQ_sum"]), "DRAM": n * hbm}
    # integer timestamps: exact end - start, not GRBM
    assert k.time_s == pytest.approx(sum(int(x["End_Timestamp"]) - int(x["Start_Timestamp"]) for x in rows) * 1e-9)
    assert "time_source" not in k.launch
    assert k.launch["grid"] == (1024, 1, 1) and k.launch["lds_bytes"] == 8192
    assert r.device.name == "AMD Instinct MI200"
    assert r.device.properties["capability"] == "9.0" and r.device.properties["sms"] == 104
    assert r.program is not None and r.program.span_s == pytest.approx(300e-6)


def test_exponent_timestamps_take_the_duration_column_when_there_is_one(tmp_path):
    header = PMC_HEADER + ",DurationNs"
    rows = [row.replace("1411551767635712,1411551767735712", "1.41155E+15,1.41155E+15") + ",100000"
            for row in PMC_ROWS]
    pmc = write_workload(tmp_path / "w", rows=rows, header=header)
    (k,) = read_profile(pmc).kernels
    assert k.time_s == pytest.approx(2 * 100_000e-9)     # the duration column, not GRBM
    assert "time_source" not in k.launch
    # exact timestamps and a duration column that disagrees: a damaged file
    bad = [PMC_ROWS[0] + ",100000", PMC_ROWS[1] + ",99000"]
    pmc = write_workload(tmp_path / "x", rows=bad, header=header)
    with pytest.raises(InputError) as err:
        read_profile(pmc)
    assert err.value.line == 3 and "DurationNs: 99000 ns, but the timestamps give 100000 ns" in str(err.value)


def test_exponent_timestamps_without_grbm_stay_unknown(tmp_path):
    header = PMC_HEADER.replace("GRBM_GUI_ACTIVE", "SQ_WAVES")
    rows = [row.replace("1411551767635712,1411551767735712", "8.1097E+14,8.1097E+14") for row in PMC_ROWS[:1]]
    r = read_profile(write_workload(tmp_path / "w", rows=rows, header=header))
    assert math.isnan(r.kernels[0].time_s)
    assert any("no GRBM_GUI_ACTIVE" in str(w) for w in r.warnings)


def test_missing_counters_name_what_to_collect(tmp_path):
    header = "Dispatch_ID,Kernel_Name,GPU_ID,Grid_Size,Workgroup_Size,Start_Timestamp,End_Timestamp"
    r = read_profile(write_workload(tmp_path / "w", rows=['0,"k",2,256,256,100,200'], header=header))
    text = " ".join(map(str, r.warnings))
    assert "rocprof-compute profile --roof-only" in text
    # gfx90a: the MI200 names of the HBM counters
    assert "TCC_EA_RDREQ_sum" in text and "TCC_EA0_RDREQ_sum" not in text


def test_partial_counters_say_lower_bound(tmp_path):
    header = PMC_HEADER.replace("TCC_EA_WRREQ_sum,TCC_EA_WRREQ_64B_sum,", "")
    rows = [row.replace(",10000,9000,170000,", ",170000,") for row in PMC_ROWS]
    r = read_profile(write_workload(tmp_path / "w", rows=rows, header=header))
    assert any("count only reads" in str(w) for w in r.warnings)


@pytest.mark.parametrize("rows, line, message", [
    ([PMC_ROWS[0].replace(",29000,1000,", ",900,1000,", 1)], 2,
     "64-byte reads (TCC_EA_RDREQ - TCC_EA_RDREQ_32B) come out negative"),
    ([PMC_ROWS[0].replace(",10,20,3000,", ",ten,20,3000,", 1)], 2, "column SQ_INSTS_VALU_ADD_F64: expected a number"),
    ([PMC_ROWS[0].replace("1411551767735712", "1411551767535712")], 2, "is before Start_Timestamp"),
])
def test_pmc_perf_errors_name_the_line(tmp_path, rows, line, message):
    pmc = write_workload(tmp_path / "w", rows=rows)
    with pytest.raises(InputError) as err:
        read_profile(pmc)
    assert err.value.line == line and message in str(err.value) and str(pmc) in str(err.value)


def test_sysinfo_with_two_rows_is_refused(tmp_path):
    pmc = write_workload(tmp_path / "w", sys_rows=(SYS_ROW, SYS_ROW))
    with pytest.raises(InputError, match="expected one row of system information, found 2"):
        read_profile(pmc)


def test_sysinfo_alone_points_to_pmc_perf(tmp_path):
    write_workload(tmp_path / "w")
    with pytest.raises(InputError, match="sysinfo.csv describes the system"):
        read_profile(tmp_path / "w" / "sysinfo.csv")


# ---------------------------------------------------------------- roofline.csv as a device

ROOF_HEADER = ("device,HBMBw,HBMBwLow,hbmBwHigh,L2Bw,L2BwLow,L2BwHigh,L1Bw,L1BwLow,L1BwHigh,LDSBw,LDSBwLow,"
               "LDSBwHigh,FP32Flops,FP32FlopsLow,FP32FlopsHigh,FP64Flops,FP64FlopsLow,FP64FlopsHigh,"
               "MFMABF16Flops,MFMABF16FlopsLow,MFMABF16FlopsHigh,MFMAF16Flops,MFMAF16FlopsLow,MFMAF16FlopsHigh,"
               "MFMAF32Flops,MFMAF32FlopsLow,MFMAF32FlopsHigh,MFMAF64Flops,MFMAF64FlopsLow,MFMAF64FlopsHigh,"
               "MFMAI8Ops,MFMAFI8OpsLow,MFMAI8OpsHigh")
ROOF_ROWS = [("0,1388.7948,1388.2125,1389.3771,5016.1738,5013.2036,5019.144,9226.4229,9225.7852,9227.0605,"
             "17715.307,17712.113,17718.5,20942.453,20882.1,21002.807,20272.682,20272.182,20273.182,170487.92,"
             "170484.22,170491.62,164932.06,164926.69,164937.44,41438.844,41438.195,41439.492,41498.918,"
             "41498.344,41499.492,166413.58,165921.97,166905.19"),
             ("1,1389.3043,1388.6895,1389.9192,5029.6997,5027.6914,5031.708,9239.2627,9238.5391,9239.9863,"
             "18243.783,18241.363,18246.203,20985.506,20918.434,21052.578,20301.832,20301.094,20302.57,170928.06,"
             "170923.66,170932.47,165162.06,165158.09,165166.03,41494.691,41493.625,41495.758,41550.176,"
             "41549.141,41551.211,166923.81,166920.55,166927.08")]


def write_roofline(folder: Path, rows=ROOF_ROWS, header=ROOF_HEADER) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "roofline.csv"
    path.write_text("\n".join([header] + list(rows)) + "\n")
    return path


def test_roofline_csv_is_a_measured_device(tmp_path):
    path = write_roofline(tmp_path / "workloads" / "mm" / "MI200")
    d = read_rocprof_roofline(path)
    first = dict(zip(ROOF_HEADER.lower().split(","), ROOF_ROWS[0].split(",")))
    assert d.name == "AMD Instinct MI200" and d.kind == "gpu"      # from the folder's name
    # fp32: the larger of the VALU (20.9 T, unpacked) and MFMA (41.4 T) figures, as matrix fp32
    # work shares the fp32 roof
    assert float(first["mfmaf32flops"]) > float(first["fp32flops"])
    assert {k: c.value for k, c in d.compute.items()} == {
        "fp32": float(first["mfmaf32flops"]) * 1e9, "fp64": float(first["fp64flops"]) * 1e9,
        "tensor_bf16": float(first["mfmabf16flops"]) * 1e9, "tensor_fp16": float(first["mfmaf16flops"]) * 1e9,
        "tensor_fp64": float(first["mfmaf64flops"]) * 1e9, "tensor_int8": float(first["mfmai8ops"]) * 1e9}
    assert d.architecture["valu_fp32_flop_s"] == float(first["fp32flops"]) * 1e9
    assert {lv: m.bytes_s for lv, m in d.memory.items()} == {
        "L1": float(first["l1bw"]) * 1e9, "L2": float(first["l2bw"]) * 1e9, "DRAM": float(first["hbmbw"]) * 1e9}
    assert list(d.memory) == ["L1", "L2", "DRAM"]
    assert d.architecture["lds_bytes_s"] == float(first["ldsbw"]) * 1e9
    # Low/High are the samples (the 'hbmBwHigh' and 'MFMAFI8OpsLow' spellings included)
    assert d.memory["DRAM"].bandwidth.samples == tuple(float(first[k]) * 1e9 for k in ("hbmbwlow", "hbmbw", "hbmbwhigh"))
    assert d.compute["tensor_int8"].samples[0] == float(first["mfmafi8opslow"]) * 1e9
    assert d.provenance["method"] == "measured" and d.provenance["device_row"] == 0
    second = read_rocprof_roofline(path, device=1)
    assert second.memory["DRAM"].bytes_s == float(ROOF_ROWS[1].split(",")[1]) * 1e9


def test_roofline_csv_named_by_the_sysinfo_beside_and_by_workload(tmp_path):
    folder = tmp_path / "w"
    write_workload(folder)
    write_roofline(folder)
    assert read_rocprof_roofline(folder).name == "AMD Instinct MI200"       # sysinfo gpu_model MI200
    assert workload_device(folder).memory["DRAM"].bytes_s == pytest.approx(1388.7948e9)
    with pytest.raises(InputError, match="roofline.csv is a device profile"):
        read_profile(folder / "roofline.csv")


@pytest.mark.parametrize("rows, line, message", [
    ([ROOF_ROWS[0].replace("1388.7948", "fast", 1)], 2, "column hbmbw: expected a number"),
    ([ROOF_ROWS[0].replace("1388.7948", "-1388.7948", 1)], 2, "not a positive rate"),
    ([ROOF_ROWS[0] + ",7"], 2, "expected 34 cells"),
    ([], None, "no roofline rows"),
])
def test_roofline_csv_errors(tmp_path, rows, line, message):
    path = write_roofline(tmp_path, rows=rows)
    with pytest.raises(InputError) as err:
        read_rocprof_roofline(path)
    assert err.value.line == line and message in str(err.value) and str(path) in str(err.value)


def test_roofline_csv_without_compute_or_device_row(tmp_path):
    path = write_roofline(tmp_path, rows=["0,1388.7"], header="device,HBMBw")
    with pytest.raises(InputError, match="no compute figure"):
        read_rocprof_roofline(path)
    path = write_roofline(tmp_path, rows=ROOF_ROWS)
    with pytest.raises(InputError, match=r"no row for device 5 \(devices: 0, 1\)"):
        read_rocprof_roofline(path, device=5)


def test_workload_kernels_placed_on_its_measured_roofline(tmp_path):
    from roofline import KernelSet, place
    folder = tmp_path / "w"
    pmc = write_workload(folder)
    write_roofline(folder)
    r = read_profile(pmc)
    device = workload_device(folder)
    p = place(KernelSet.from_kernels(r.kernels), device)
    (k,) = r.kernels
    roofs = {lv: k.bytes[lv] / device.memory[lv].bytes_s for lv in k.bytes}
    compute = sum(w / device.compute_rate(prec) for prec, w in k.flops.items())
    limiter = max(roofs, key=roofs.get)
    assert max(roofs.values()) > compute          # the DGEMM's counters put it under a memory roof
    assert p.level[0] == limiter
    assert p.roofline_time_s[0] == pytest.approx(max(roofs.values()), rel=1e-9)


def test_crlf_and_byte_order_mark(tmp_path):
    pmc = write_workload(tmp_path / "w")
    text = pmc.read_text()
    pmc.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    (k,) = read_profile(pmc).kernels
    assert k.count == 2 and k.name == "Cijk_Ailk_Bljk_DB_MT64x64x16_MI16x16x4x1"


# ---------------------------------------------------------------- corrupted files: only RooflineError

_FUZZ = fuzz_dir("rocprof-compute")
FUZZ_FILES = [write_workload(_FUZZ / "w"), write_roofline(_FUZZ / "r")] + ([PMC] if PMC.exists() else [])


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_corrupted_workload_files_raise_only_roofline_errors(data):
    check_random_corruption(data, FUZZ_FILES)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_corrupted_roofline_csv_raises_only_input_errors(data):
    path = FUZZ_FILES[1]
    kind = data.draw(st.sampled_from(RANDOM_KINDS))
    raw = corrupt_randomly(path.read_bytes(), kind, data.draw(st.randoms(use_true_random=False)))
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "roofline.csv"
        target.write_bytes(raw)
        try:
            d = read_rocprof_roofline(target)
        except InputError:
            return
        assert all(c.value > 0 for c in d.compute.values())


@needs_realdata
def test_real_sysinfo_is_refused_with_a_pointer():
    if not SYSINFO.exists():
        pytest.skip(f"{SYSINFO} is not present")
    with pytest.raises(InputError) as err:
        read_profile(SYSINFO)
    assert "read the pmc_perf.csv beside it" in str(err.value) and str(SYSINFO) in str(err.value)


def test_the_cli_reads_a_workload_folder_as_one_profile_not_as_rank_traces(tmp_path, capsys):
    # a folder on the command line is a rank job only when no profiler wrote it as one run
    from roofline.cli.main import main
    write_workload(tmp_path / "vcopy" / "MI200")        # rocprof-compute's layout: a folder per GPU
    assert main(["classify", str(tmp_path / "vcopy"), "--device", "mi250x", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith('"Cijk_Ailk_Bljk_DB_MT64x64x16_MI16x16x4x1"')
