"""A second, independent source for the numbers pinned in
tests/fixtures/realdata_pins/pins.json.

pins.json is written by the code it tests (make.py runs roofline's readers),
so on its own it catches changes, not errors. Here every number is read
again from the real file WITHOUT roofline's importers: ``csv`` on the Nsight
Compute and nvprof CSV exports, plain text parsing of nvprof's fixed-width
output, NVIDIA's own ``ncu_report`` module on .ncu-rep (in a child process,
as roofline does, because a damaged report can crash it), ``sqlite3`` on
Nsight Systems exports, ``json`` on Kineto traces, and the raw text of ERT
results. The formulas are written from the tools' documentation, cited
where they are used. Where the two sources disagree, the test fails: the
pin is then investigated by hand, never regenerated to match.

What is compared (per file, see SOURCES): the number of launches ("calls":
kernels, plus copies and memsets where the format records them as rows of
their own), the summed duration ("time_s"), FLOPs per precision and bytes
per memory level where the file has counters. Tolerance: ``REL`` (1e-9
relative) for all of them: both sources add the same decimal numbers, in a
different order and with different unit handling, so anything larger is a
real difference. "rows" (how roofline groups launches) and "families" are
roofline's own presentation, not something a file states, and are not
compared here (the families have their own hand review:
tests/fixtures/realdata_families/reviewed.json).

Files the second source cannot recompute are listed in NOT_COVERED with the
reason; a test checks that every pinned file is in exactly one of the two.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import math
import re
import sqlite3
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import REALDATA
from corrupt import needs_realdata, real_file

PINS = json.loads((Path(__file__).parent / "fixtures" / "realdata_pins" / "pins.json").read_text())
REL = 1e-9

# ------------------------------------------------------------------ units

# Nsight Compute prints decimal (SI) prefixes: the details CSV of
# CodeGandee__llm-perf-opt says dram__bytes_read.sum = 2.33 Mbyte in
# 6.75 us and "Memory Throughput" 345.14 Gbyte/s; 2.33e6 B / 6.75e-6 s =
# 345.2e9 B/s, while 2.33 MiB would give 362e9.
NCU_SCALE = {
    "byte": 1.0, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "tbyte": 1e12,
    "nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3,
    "second": 1.0, "s": 1.0,
    "cycle/second": 1.0, "cycle/nsecond": 1e9, "hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9,
    "cycle/usecond": 1e6, "byte/second": 1.0, "kbyte/second": 1e3, "mbyte/second": 1e6,
    "gbyte/second": 1e9, "gbyte/s": 1e9, "tbyte/second": 1e12,
    "cycle": 1.0, "inst": 1.0, "": 1.0, "inst/cycle": 1.0, "byte/cycle": 1.0, "sector": 1.0,
}
TIME_UNIT = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3,
             "msecond": 1e-3, "s": 1.0, "second": 1.0}
# 32-byte sectors/transactions: an L2/DRAM sector is 32 bytes (Nsight
# Compute Kernel Profiling Guide, "Memory Tables": "sector: aligned 32 byte
# chunk of memory"); nvprof's *_transactions are counted in the same
# 32-byte units (CUDA Profiler User's Guide, metrics reference; checked on
# untiled.csv below against nvprof's own throughput metrics).
SECTOR = 32.0


def number(text: str) -> float | None:
    """A number as the profilers print it ("1,309,394,950.84", "n/a", "1.47e-03")."""
    t = text.strip().replace(",", "")
    if t in ("", "n/a", "-", "N/A"):
        return None
    try:
        return float(t)
    except ValueError:
        return None


def msum(values) -> float:
    return math.fsum(v for v in values if v is not None)


# ------------------------------------------------------------------ FLOP formulas

# Nsight Compute (ncu) FLOPs per precision, the formula of NVIDIA's roofline
# methodology (Nsight Compute "SpeedOfLight_RooflineChart" section; NERSC
# "Roofline on NVIDIA GPUs", gitlab.com/NERSC/roofline-on-nvidia-gpus, and
# Yang, Kurth & Williams, CCPE 2020, "Hierarchical Roofline analysis for
# GPUs"): FLOPs = add + mul + 2 * fma of the predicated-on thread
# instructions sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum
# (smsp__ in some metric sets: the sum over all SMSPs is the same count).
NCU_PRECISION = {"d": "fp64", "f": "fp32", "h": "fp16"}
# Time without gpu__time_duration: sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second
# (same NERSC methodology: "Time = sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second").


def ncu_flops(get) -> dict[str, float]:
    """FLOPs per precision from a getter of metric values (None when absent)."""
    out = {}
    for tag, precision in NCU_PRECISION.items():
        parts = {}
        for op in ("add", "mul", "fma"):
            for unit in ("sm", "smsp"):
                v = get(f"{unit}__sass_thread_inst_executed_op_{tag}{op}_pred_on.sum")
                if v is not None:
                    parts[op] = v
                    break
        if parts:
            out[precision] = parts.get("add", 0.0) + parts.get("mul", 0.0) + 2.0 * parts.get("fma", 0.0)
    return out


def mma_flops_per_instruction(kernel_name: str) -> tuple[str, float] | None:
    """(precision, FLOPs per warp-level tensor instruction) read from the MMA
    shape a kernel name states, or None: a tensor-pipe instruction count is
    FLOPs only once the shape m x n x k of the instruction is known
    (2*m*n*k FLOPs: one multiply and one add per product term, PTX ISA
    "mma.sync.aligned.m16n8k16"). CUTLASS names the shape in
    ``cutlass::arch::Mma<cutlass::gemm::GemmShape<16, 8, 8>, ...>``; cuBLAS
    in the kernel name (``ampere_s16816gemm_fp16_...``: m16 n8 k16)."""
    m = re.search(r"arch::Mma<cutlass::gemm::GemmShape<\(int\)(\d+), \(int\)(\d+), \(int\)(\d+)>,"
                  r" \(int\)\d+, cutlass::(\w+)", kernel_name)
    if m:
        kind = {"half_t": "tensor_fp16", "bfloat16_t": "tensor_bf16", "tfloat32_t": "tensor_tf32"}
        return kind.get(m.group(4), "tensor_" + m.group(4)), 2.0 * int(m.group(1)) * int(m.group(2)) * int(m.group(3))
    m = re.search(r"_[hs](16)(8)(8|16)gemm_(fp16|bf16|tf32)", kernel_name)
    if m:
        return "tensor_" + m.group(4), 2.0 * int(m.group(1)) * int(m.group(2)) * int(m.group(3))
    return None


# ------------------------------------------------------------------ Nsight Compute CSV

def read_ncu_csv(path: Path) -> dict:
    """An ``ncu --csv`` details export (long format: one row per metric):
    launches grouped by ID; Metric Value with thousands separators, units
    from Metric Unit. A roofline-chart section export (the "Body Item Label"
    column) holds achieved rates, not counts: see read_ncu_chart_csv."""
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    start = next(i for i, line in enumerate(text) if line.startswith('"ID"'))
    rows = list(csv.reader(text[start:]))
    head = rows[0]
    col = {name: i for i, name in enumerate(head)}
    launches: dict[str, dict] = {}
    for r in rows[1:]:
        if len(r) <= col["Metric Value"] or not r[col["Metric Name"]]:
            continue   # rule rows of newer ncu have no metric (and metric rows may stop
            #            before the rule columns)
        launch = launches.setdefault(r[col["ID"]], {"name": r[col["Kernel Name"]], "m": {}})
        v = number(r[col["Metric Value"]])
        unit = r[col["Metric Unit"]].strip().lower()
        # a unit this table does not know turns the value into NaN, so a
        # metric used below with such a unit fails the comparison loudly
        launch["m"][r[col["Metric Name"]]] = None if v is None else v * NCU_SCALE.get(unit, math.nan)
    time_s, flops, nbytes = [], defaultdict(list), defaultdict(list)
    for launch in launches.values():
        m = launch["m"].get
        t = m("gpu__time_duration.sum") or m("Duration")
        if t is None:
            for unit in ("sm", "smsp"):
                cyc, rate = m(f"{unit}__cycles_elapsed.avg"), m(f"{unit}__cycles_elapsed.avg.per_second")
                if cyc is not None and rate:
                    t = cyc / rate
                    break
        time_s.append(t)
        for p, v in ncu_flops(m).items():
            flops[p].append(v)
        tensor = m("sm__inst_executed_pipe_tensor.sum") or m("smsp__inst_executed_pipe_tensor.sum")
        shape = mma_flops_per_instruction(launch["name"])
        if tensor is not None and shape is not None:
            flops[shape[0]].append(tensor * shape[1])
        dram = m("dram__bytes.sum")
        if dram is None and (m("dram__bytes_read.sum") is not None or m("dram__bytes_write.sum") is not None):
            dram = (m("dram__bytes_read.sum") or 0.0) + (m("dram__bytes_write.sum") or 0.0)
        for level, v in (("DRAM", dram), ("L2", m("lts__t_bytes.sum")), ("L1", m("l1tex__t_bytes.sum"))):
            if v is not None:
                nbytes[level].append(v)
    return {"calls": len(launches), "time_s": msum(time_s),
            "flops": {p: msum(v) for p, v in flops.items()},
            "bytes": {lv: msum(v) for lv, v in nbytes.items()}}


def read_ncu_chart_csv(path: Path) -> dict:
    """``ncu --section SpeedOfLight_RooflineChart --csv``: the chart's
    achieved point, a RATE per second of kernel time (the export has no
    duration). FP32 FLOP/s = ("Predicated-On FFMA Operations Per Cycle",
    which already counts 2 per FFMA, + FADD + FMUL thread instructions per
    cycle) x SM Frequency; FP64 the same with DFMA/DADD/DMUL; DRAM bytes/s
    = "DRAM Bandwidth". Same formula as for counts (2*fma + add + mul), per
    cycle. roofline pins these rates in the flops/bytes fields of a launch
    with no duration (its CHART_RATES time source), so they compare as is."""
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    items: dict[str, dict[str, float]] = defaultdict(dict)
    launches = set()
    for r in rows:
        if not r["Metric Name"]:
            continue
        launches.add(r["ID"])
        v = number(r["Metric Value"])
        items[r["Body Item Label"]][r["Metric Name"]] = v * NCU_SCALE.get(r["Metric Unit"].strip().lower(), math.nan)
    flops, nbytes = {}, {}
    for label, precision, letter in (("Single Precision Achieved Value", "fp32", "F"),
                                     ("Double Precision Achieved Value", "fp64", "D")):
        it = items.get(label)
        if not it:
            continue
        per_cycle = (it[f"Predicated-On {letter}FMA Operations Per Cycle"]
                     + it[f"Predicated-On {letter}ADD Thread Instructions Executed Per Cycle"]
                     + it[f"Predicated-On {letter}MUL Thread Instructions Executed Per Cycle"])
        flops[precision] = per_cycle * it["SM Frequency"]
        nbytes["DRAM"] = it["DRAM Bandwidth"]
    return {"calls": len(launches), "time_s": 0.0, "flops": flops, "bytes": nbytes}


# ------------------------------------------------------------------ Nsight Compute report (.ncu-rep)

# Run in a child process: ncu_report can crash the interpreter on a damaged
# report. Dumps every action's numeric metrics of interest with their units.
_NCU_REP_DUMP = r"""
import json, re, sys
import ncu_report
want = re.compile(r"^(gpu__time_duration\.sum|(sm|smsp)__cycles_elapsed\.avg(\.per_second)?"
                  r"|(sm|smsp)__sass_thread_inst_executed_op_[dfh](add|mul|fma)_pred_on\.sum(\.per_cycle_elapsed)?"
                  r"|dram__bytes(_read|_write)?\.sum(\.per_second)?|lts__t_(bytes|sectors)\.sum"
                  r"|l1tex__t_bytes\.sum|derived__lts__lts2xbar_bytes\.sum\.per_second"
                  r"|derived__l1tex__lsu_writeback_bytes_mem_lg\.sum\.per_second)$")
ctx = ncu_report.load_report(sys.argv[1])
out = []
for r in range(ctx.num_ranges()):
    rng = ctx.range_by_idx(r)
    for a in range(rng.num_actions()):
        act = rng.action_by_idx(a)
        metrics = {}
        for n in act.metric_names():
            if want.match(n):
                m = act.metric_by_name(n)
                v = m.value()
                if isinstance(v, (int, float)):
                    metrics[n] = [float(v), m.unit()]
        out.append({"name": act.name(), "metrics": metrics})
print(json.dumps(out))
"""


def read_ncu_rep(path: Path) -> dict:
    """A binary Nsight Compute report, through NVIDIA's ncu_report module.

    Time: gpu__time_duration.sum, else sm__cycles_elapsed.avg / .per_second.
    FLOPs: ncu_flops on the .sum counters; a report made with the
    hierarchical roofline section (rashwanth__...output0) holds only
    per-cycle rates, which that section turns into FLOP/s with
    (dadd + dmul + 2*dfma).sum.per_cycle_elapsed * smsp__cycles_elapsed.avg.per_second;
    times the duration, that is the count. Bytes: DRAM dram__bytes.sum
    (else read + write, else dram__bytes.sum.per_second * duration); L2
    lts__t_bytes.sum, else lts__t_sectors.sum * 32, else the hierarchical
    chart's derived__lts__lts2xbar_bytes.sum.per_second * duration; L1
    l1tex__t_bytes.sum, else the chart's
    derived__l1tex__lsu_writeback_bytes_mem_lg.sum.per_second * duration."""
    import ncu_report  # noqa: F401  ([test] installs it: a missing module is a failure, not a skip)
    out = subprocess.run([sys.executable, "-c", _NCU_REP_DUMP, str(path)], capture_output=True,
                         text=True, timeout=300, check=True)
    actions = json.loads(out.stdout)
    time_s, flops, nbytes = [], defaultdict(list), defaultdict(list)
    for act in actions:
        raw = act["metrics"]

        def m(name, raw=raw):
            if name not in raw:
                return None
            v, unit = raw[name]
            return v * TIME_UNIT[unit] if unit in TIME_UNIT else v
        t = m("gpu__time_duration.sum")
        if t is None and m("sm__cycles_elapsed.avg") is not None:
            t = m("sm__cycles_elapsed.avg") / m("sm__cycles_elapsed.avg.per_second")
        time_s.append(t)
        counted = ncu_flops(m)
        if not counted and t is not None:
            cycles = (m("smsp__cycles_elapsed.avg.per_second") or 0.0) * t

            def per_cycle(name, m=m, cycles=cycles):
                v = m(name.replace(".sum", ".sum.per_cycle_elapsed"))
                return None if v is None else v * cycles
            counted = ncu_flops(per_cycle)
        for p, v in counted.items():
            flops[p].append(v)
        dram = m("dram__bytes.sum")
        if dram is None and m("dram__bytes_read.sum") is not None:
            dram = m("dram__bytes_read.sum") + (m("dram__bytes_write.sum") or 0.0)
        if dram is None and m("dram__bytes.sum.per_second") is not None and t is not None:
            dram = m("dram__bytes.sum.per_second") * t
        l2 = m("lts__t_bytes.sum")
        if l2 is None and m("lts__t_sectors.sum") is not None:
            l2 = m("lts__t_sectors.sum") * SECTOR
        if l2 is None and m("derived__lts__lts2xbar_bytes.sum.per_second") is not None and t is not None:
            l2 = m("derived__lts__lts2xbar_bytes.sum.per_second") * t
        l1 = m("l1tex__t_bytes.sum")
        if l1 is None and m("derived__l1tex__lsu_writeback_bytes_mem_lg.sum.per_second") is not None \
                and t is not None:
            l1 = m("derived__l1tex__lsu_writeback_bytes_mem_lg.sum.per_second") * t
        for level, v in (("DRAM", dram), ("L2", l2), ("L1", l1)):
            if v is not None:
                nbytes[level].append(v)
    return {"calls": len(actions), "time_s": msum(time_s),
            "flops": {p: msum(v) for p, v in flops.items()},
            "bytes": {lv: msum(v) for lv, v in nbytes.items()}}


# ------------------------------------------------------------------ nvprof

# Compute capability of the GPUs named in the nvprof files (NVIDIA, "CUDA
# GPUs - Compute Capability"): Kepler (3.x) sends __ldg/read-only loads
# through the texture path, counted in tex_cache_transactions and not in
# gld_transactions; from Maxwell on, global loads go through the unified
# L1/texture cache and are counted in both, so only Kepler adds them.
NVPROF_CC = {"tesla k20c": 3.5, "tesla k40c": 3.5, "geforce gtx 1080 ti": 6.1,
             "geforce gtx 1070": 6.1, "tesla v100-sxm2-16gb": 7.0}


def read_nvprof_metrics_csv(path: Path) -> dict:
    """``nvprof --metrics/--events ... --csv``: one row per kernel and
    metric with Invocations and Min/Max/Avg per invocation; the total is
    Avg * Invocations. Sections "Event result:" and "Metric result:" have
    different headers (the event table has no Description).

    FLOPs: flop_count_{dp,sp,hp}, which count an FMA as 2 (CUDA Profiler
    User's Guide, metrics reference: "Each multiply-accumulate operation
    contributes 2 to the count"). Bytes (32-byte transactions): DRAM =
    dram_read + dram_write transactions; L2 = l2_read + l2_write
    transactions; L1 = global memory traffic at L1, gld + gst transactions
    (+ tex_cache_transactions on Kepler, see NVPROF_CC). Local and shared
    memory transactions are NOT in L1 here (the same definition as the pin;
    the report on this second source discusses local memory)."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    kernels: dict[tuple[str, str], dict] = {}
    head = None
    for line in lines:
        if not line.startswith('"'):
            head = None if "result:" in line else head
            continue
        r = next(csv.reader([line]))
        if r[0] == "Device":
            head = r
            continue
        row = dict(zip(head, r))
        k = kernels.setdefault((row["Device"], row["Kernel"]), {"inv": int(row["Invocations"]), "m": {}})
        name = row.get("Metric Name") or row.get("Event Name")
        k["m"][name] = number(row["Avg"])
    flops, nbytes = defaultdict(list), defaultdict(list)
    for (device, _), k in kernels.items():
        m, inv = k["m"].get, k["inv"]
        for tag, p in (("dp", "fp64"), ("sp", "fp32"), ("hp", "fp16")):
            if m(f"flop_count_{tag}") is not None:
                flops[p].append(m(f"flop_count_{tag}") * inv)
        if m("dram_read_transactions") is not None:
            nbytes["DRAM"].append((m("dram_read_transactions") + m("dram_write_transactions")) * SECTOR * inv)
        if m("l2_read_transactions") is not None:
            nbytes["L2"].append((m("l2_read_transactions") + m("l2_write_transactions")) * SECTOR * inv)
        if m("gld_transactions") is not None:
            l1 = m("gld_transactions") + m("gst_transactions")
            kepler = NVPROF_CC[re.sub(r"\s*\(\d+\)$", "", device).lower()] < 5
            if kepler and m("tex_cache_transactions") is not None:
                l1 += m("tex_cache_transactions")
            nbytes["L1"].append(l1 * SECTOR * inv)
    return {"calls": sum(k["inv"] for k in kernels.values()), "time_s": 0.0,
            "flops": {p: msum(v) for p, v in flops.items()},
            "bytes": {lv: msum(v) for lv, v in nbytes.items()}}


def read_nvprof_metrics_text(path: Path) -> dict:
    """nvprof's plain-text metric output: "Kernel: name" then rows
    "Invocations  metric  description  Min  Max  Avg". Only the number of
    invocations per kernel is a count here (the metrics are throughputs
    without a duration)."""
    calls, seen = 0, False
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.strip().startswith("Kernel:"):
            seen = False
        elif not seen and re.match(r"^\s+\d+\s+\w", line):
            calls += int(line.split()[0])
            seen = True
    return {"calls": calls, "time_s": 0.0, "flops": {}, "bytes": {}}


def _prefix_base(rows: list[tuple[float, str, float, float, str]]) -> float:
    """1000 or 1024: nvprof scales sizes and throughputs with decimal
    prefixes in some versions and binary ones in others (K20c file: 269.485056
    MB = 8208*8208*4 bytes, 1e6; GTX 1080 Ti file: 400 KB = 320*320*4 bytes,
    1024). Each copy row states its size, duration and throughput: the base
    is the one for which size / duration = throughput."""
    def err(base):
        e = 0.0
        for size, sunit, dur_s, thr, tunit in rows:
            b = size * base ** "BKMGT".index(sunit[0])
            rate = thr * base ** "BKMGT".index(tunit[0])
            e += abs(b / dur_s / rate - 1.0)
        return e
    return min((1000.0, 1024.0), key=err)


def read_nvprof_trace_csv(path: Path) -> dict:
    """``nvprof --print-gpu-trace --csv``: one row per kernel or copy, units
    in the row under the header (Duration in s/ms/us, Size in B/KB/MB)."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"Start"'))
    rows = list(csv.reader(lines[start:]))
    head, units = rows[0], rows[1]
    col = {n: i for i, n in enumerate(head)}
    tscale = TIME_UNIT[units[col["Duration"]]]
    body = [r for r in rows[2:] if len(r) == len(head)]
    copies = [(float(r[col["Size"]]), units[col["Size"]], float(r[col["Duration"]]) * tscale,
               float(r[col["Throughput"]]), units[col["Throughput"]]) for r in body if r[col["Size"]]]
    base = _prefix_base(copies)
    pcie = [c[0] * base ** "BKMGT".index(c[1][0]) for c in copies]
    return {"calls": len(body), "time_s": msum(float(r[col["Duration"]]) * tscale for r in body),
            "flops": {}, "bytes": {"PCIe": msum(pcie)} if pcie else {},
            "copies": len(copies)}


_VALUE_UNIT = re.compile(r"^([0-9.]+(?:e[-+]?\d+)?)([a-zA-Z/]*)$")


def _split_value(text: str) -> tuple[float, str] | None:
    m = _VALUE_UNIT.match(text.strip())
    return (float(m.group(1)), m.group(2)) if m else None


def read_nvprof_trace_text(path: Path) -> dict:
    """``nvprof --print-gpu-trace`` as text: fixed-width columns, right-
    aligned under their header label, the Name column left-aligned; each
    value carries its unit (12.258us, 96.000KB, 7.4688GB/s). Unified-memory
    migrations ("[Unified Memory Memcpy HtoD]") give their size in the
    "Unified Memory" column; page-fault rows are events, not device work
    (no duration for CPU faults; a GPU fault group's duration is the fault
    handling), and are not counted. Copies are host<->device: PCIe."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    hi = next(i for i, line in enumerate(lines) if line.lstrip().startswith("Start") and "Duration" in line)
    labels = [(m.group(), m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", lines[hi])]
    name_at = labels[-1][1]
    rows = []
    for line in lines[hi + 1:]:
        if not line.strip():
            break
        row, prev = {}, 0
        for label, _, end in labels[:-1]:
            row[label] = line[prev:end].strip()
            prev = end
        row["Name"] = line[name_at:].strip()
        rows.append(row)
    work = [r for r in rows if "page faults" not in r["Name"] and r["Duration"] != "-"]
    durations = []
    for r in work:
        v, unit = _split_value(r["Duration"])
        durations.append(v * TIME_UNIT[unit])
    sized = [r for r in work if r["Size"] != "-" and r["Throughput"] != "-"]
    base = _prefix_base([(*_split_value(r["Size"]), _split_value(r["Duration"])[0]
                          * TIME_UNIT[_split_value(r["Duration"])[1]], *_split_value(r["Throughput"]))
                         for r in sized])
    pcie = []
    for r in work:
        cell = r["Size"] if r["Size"] != "-" else (r["Unified Memory"] if "Memcpy" in r["Name"] else "-")
        if cell != "-":
            v, unit = _split_value(cell)
            pcie.append(v * base ** "BKMGT".index(unit[0]))
    return {"calls": len(work), "time_s": msum(durations), "flops": {},
            "bytes": {"PCIe": msum(pcie)} if pcie else {}}


def read_nvprof_summary(path: Path) -> dict:
    """nvprof's default summary, CSV (``--csv``: header, units row, rows
    until a blank line; "API calls" follow) or text ("GPU activities:"
    rows until "API calls:"). Calls and total Time per row."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    calls, time_s = 0, []
    if any(line.startswith('"Time(%)"') for line in lines):
        start = next(i for i, line in enumerate(lines) if line.startswith('"Time(%)"'))
        rows = list(csv.reader(lines[start:]))
        head, units = rows[0], rows[1]
        col = {n: i for i, n in enumerate(head)}
        for r in rows[2:]:
            if not r or len(r) != len(head):
                break
            calls += int(r[col["Calls"]])
            time_s.append(float(r[col["Time"]]) * TIME_UNIT[units[col["Time"]]])
    else:
        hi = next(i for i, line in enumerate(lines) if line.split()[:2] == ["Type", "Time(%)"])
        unit = lines[hi + 1].split()[1]
        for line in lines[hi + 2:]:
            if "API calls:" in line or not line.strip():
                break
            parts = line.replace("GPU activities:", "").split()
            time_s.append(float(parts[1]) * TIME_UNIT[unit])
            calls += int(parts[2])
    return {"calls": calls, "time_s": msum(time_s), "flops": {}, "bytes": {}}


# ------------------------------------------------------------------ Nsight Systems

# CUpti_ActivityMemcpyKind (CUPTI API reference): 1 HtoD, 2 DtoH, 3 HtoA,
# 4 AtoH, 8 DtoD, 10 PtoP (peer). Host<->device copies cross PCIe; a
# device-to-device copy reads and writes each byte in DRAM; a memset writes.
HOST_DEVICE_KINDS = {1, 2, 3, 4}
DEVICE_DEVICE_KINDS = {8}


def read_nsys_sqlite(path: Path) -> dict:
    """``nsys export --type sqlite``: CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and
    _MEMSET rows (start/end in ns). Read-only, with text as bytes (one file
    has non-UTF-8 metadata)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    con.text_factory = bytes
    tables = {r[0].decode() for r in con.execute("select name from sqlite_master where type='table'")}
    counts, time_ns, pcie, dram = {}, [], [], []
    for kind in ("KERNEL", "MEMCPY", "MEMSET"):
        table = f"CUPTI_ACTIVITY_KIND_{kind}"
        if table not in tables:
            counts[kind] = 0
            continue
        counts[kind] = con.execute(f"select count(*) from {table}").fetchone()[0]
        time_ns.append(con.execute(f"select total(end - start) from {table}").fetchone()[0])
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in tables:
        for nbytes, kind in con.execute("select bytes, copyKind from CUPTI_ACTIVITY_KIND_MEMCPY"):
            if kind in HOST_DEVICE_KINDS:
                pcie.append(nbytes)
            elif kind in DEVICE_DEVICE_KINDS:
                dram.append(2 * nbytes)
    if "CUPTI_ACTIVITY_KIND_MEMSET" in tables:
        dram += [b for (b,) in con.execute("select bytes from CUPTI_ACTIVITY_KIND_MEMSET")]
    con.close()
    nbytes = {k: float(msum(v)) for k, v in (("PCIe", pcie), ("DRAM", dram)) if v}
    return {"calls": sum(counts.values()), "time_s": msum(time_ns) * 1e-9, "flops": {}, "bytes": nbytes,
            "kernels": counts["KERNEL"], "memcpy": counts["MEMCPY"], "memset": counts["MEMSET"]}


def read_nsys_kern_sum(path: Path) -> dict:
    """``nsys stats -r cuda_gpu_kern_sum --format csv``: one row per kernel
    name with Instances and Total Time (ns)."""
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    return {"calls": sum(int(r["Instances"]) for r in rows),
            "time_s": msum(float(r["Total Time (ns)"]) for r in rows) * 1e-9, "flops": {}, "bytes": {},
            "kernels": sum(int(r["Instances"]) for r in rows)}


def read_nsys_nvtx_csv(path: Path) -> dict:
    """An ``nsys stats`` NVTX push/pop trace: CPU-side ranges (Start/End,
    RangeStack, NameTree), no GPU activity at all: zero kernels, which is
    why the importer refuses it (pin: an error)."""
    head = next(csv.reader([path.read_text(encoding="utf-8").splitlines()[0]]))
    assert {"RangeStack", "NameTree"} <= set(head)
    assert not any(w in " ".join(head).lower() for w in ("kernel", "grid", "memcpy", "device"))
    return {"kernels": 0}


# ------------------------------------------------------------------ Kineto

def _kineto_events(path: Path) -> list[dict]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def read_kineto(path: Path) -> dict:
    """A PyTorch profiler (Kineto) Chrome trace: complete events ("ph":
    "X") of category kernel, gpu_memcpy, gpu_memset ("Kernel", "Memcpy",
    "Memset" in 2021 traces), "dur" in microseconds (Chrome Trace Event
    Format; Kineto writes microseconds). Copy bytes from args.bytes: HtoD /
    DtoH cross PCIe, DtoD reads and writes DRAM, a memset writes DRAM.

    Traces taken with the CUPTI range profiler carry no kernel events but
    one "cuda_profiler_range" event per kernel whose args are the
    smsp__sass_thread_inst_executed_op_* counters: FLOPs = add + mul + 2*fma
    (ncu_flops); the event's duration is the profiler's replay, not the
    kernel, so there is no kernel time."""
    events = [e for e in _kineto_events(path) if e.get("ph") == "X"]
    cat = defaultdict(list)
    for e in events:
        cat[str(e.get("cat", "")).lower()].append(e)
    kernels, copies, sets = cat["kernel"], cat["gpu_memcpy"] + cat["memcpy"], cat["gpu_memset"] + cat["memset"]
    out = {"kernels": len(kernels), "memcpy": len(copies), "memset": len(sets),
           "calls": len(kernels) + len(copies) + len(sets),
           "time_s": msum(e.get("dur", 0.0) for e in kernels + copies + sets) * 1e-6,
           "flops": {}, "bytes": {}}
    pcie, dram, missing = [], [], 0
    for e in copies:
        b = e.get("args", {}).get("bytes")
        if b is None:
            missing += 1
        elif re.search(r"\b(HtoD|DtoH)\b", e["name"]):
            pcie.append(b)
        elif re.search(r"\bDtoD\b", e["name"]):
            dram.append(2 * b)
    for e in sets:
        if e.get("args", {}).get("bytes") is not None:
            dram.append(e["args"]["bytes"])
    if pcie:
        out["bytes"]["PCIe"] = float(msum(pcie))
    if dram:
        out["bytes"]["DRAM"] = float(msum(dram))
    out["copies_without_bytes"] = missing
    ranges = cat["cuda_profiler_range"]
    if ranges:
        out["kernels"] = out["calls"] = len(ranges)
        out["time_s"] = 0.0
        per = defaultdict(list)
        for e in ranges:
            for p, v in ncu_flops(lambda n, a=e["args"]: a.get(n)).items():
                per[p].append(v)
        out["flops"] = {p: msum(v) for p, v in per.items()}
    return out


# ------------------------------------------------------------------ ERT

def read_ert_try(path: Path) -> dict:
    """A raw ERT sweep (``try.NNN``): a precision line, then per line
    working-set bytes, trials, time (microseconds), total bytes, total
    FLOPs (ERT driver1 printf). ERT's Scripts/preprocess.py turns each line
    into GB/s = bytes / 1e9 / (usec / 1e6) and GFLOP/s likewise (its
    GB_sec_max / GFLOP_sec_max use the minimum time over repeats; one
    experiment here, so the time of the line); Scripts/maximum.py keeps, per
    working set, the LAST line (the most trials); the summary's FP64 GFLOPs
    is the maximum GFLOP/s of those, and its first (L1) bandwidth the maximum
    GB/s."""
    rows = []
    for line in path.read_text().splitlines():
        p = line.split()
        if len(p) == 5 and p[0].isdigit():
            rows.append((int(p[0]), int(p[1]), float(p[2]), int(p[3]), int(p[4])))
    last = {}
    for r in rows:
        last[r[0]] = r
    return {"lines": len(rows),
            "gflops": max(r[4] / 1e9 / (r[2] / 1e6) for r in last.values()),
            "gbytes_max": max(r[3] / 1e9 / (r[2] / 1e6) for r in last.values()),
            "total_bytes": msum(r[3] for r in rows), "total_flops": msum(r[4] for r in rows)}


def read_ert_sum(path: Path) -> dict:
    """ERT's per-configuration ``sum``: "  2907.99 FP64 GFLOPs", "  4729.06
    Weight", then "  727.00 L1" ... up to META_DATA."""
    out = {}
    for line in path.read_text().splitlines():
        if line.strip() == "META_DATA":
            break
        p = line.split()
        if len(p) >= 2 and number(p[0]) is not None:
            out[" ".join(p[1:])] = float(p[0])
    return out


def read_ert_json(path: Path) -> dict:
    """ERT's ``roofline.json``: empirical.gflops.data [[label, GFLOP/s]] and
    empirical.gbytes.data [[level, GB/s]]."""
    doc = json.loads(path.read_text())["empirical"]
    return {"gflops": dict(doc["gflops"]["data"]), "gbytes": dict(doc["gbytes"]["data"])}


# ------------------------------------------------------------------ what covers what

NCU_CSV, NCU_REP, NVPROF, NSYS, KINETO, ERT = "ncu_csv/", "ncu_rep/", "nvprof/", "nsys/", "kineto_trace/", "ert/"
HTA = "facebookresearch__HolisticTraceAnalysis__"

# file -> (reader, keys compared with the pin). "flops"/"bytes" compare
# every precision/level and require the same set of them in both sources.
SOURCES: dict[str, tuple] = {
    NCU_CSV + "wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-dram_ncuroof-time-1.csv":
        (read_ncu_csv, ("calls", "time_s", "flops", "bytes")),
    NCU_CSV + "wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-flops_ncuroof-time-1.csv":
        (read_ncu_csv, ("calls", "time_s", "flops", "bytes")),
    NCU_CSV + "Gardenia-Tian__LearningNote4Dev__sgemm.csv": (read_ncu_csv, ("calls", "time_s", "flops", "bytes")),
    NCU_CSV + "peihunglin__XPlacer-ML-DataPlacement__nsight_bfs_graph4096.log":
        (read_ncu_csv, ("calls", "time_s", "flops", "bytes")),
    NCU_CSV + "wangzy0327__cuda-roofline__output_A100.csv": (read_ncu_csv, ("calls", "time_s", "flops", "bytes")),
    NCU_CSV + "CodeGandee__llm-perf-opt__kernel_0001_ncu.details.csv":
        (read_ncu_csv, ("calls", "time_s", "flops", "bytes")),
    NCU_CSV + "CodeGandee__llm-perf-opt__kernel_0001_ncu.section_SpeedOfLight_RooflineChart.csv":
        (read_ncu_chart_csv, ("calls", "time_s", "flops", "bytes")),
    NCU_REP + "Alaric617R__COALDA__origin.ncu-rep": (read_ncu_rep, ("calls", "time_s", "flops", "bytes")),
    NCU_REP + "Alaric617R__COALDA__rgb_original.ncu-rep": (read_ncu_rep, ("calls", "time_s", "flops", "bytes")),
    NCU_REP + "extra-p__extrap__ex-gpu.s10.ncu-rep": (read_ncu_rep, ("calls", "time_s", "flops", "bytes")),
    NCU_REP + "rashwanth__RooflineAnalysis_On_NVIDIA_GPU__output0.ncu-rep":
        (read_ncu_rep, ("calls", "time_s", "flops", "bytes")),
    NCU_REP + "wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-dram_ncuroof-time-1.ncu-rep":
        (read_ncu_rep, ("calls", "time_s", "flops", "bytes")),
    NCU_REP + "wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-flops_ncuroof-time-1.ncu-rep":
        (read_ncu_rep, ("calls", "time_s", "flops", "bytes")),
    NVPROF + "pssrawat__IEEE2017__untiled.csv": (read_nvprof_metrics_csv, ("calls", "time_s", "flops", "bytes")),
    NVPROF + "pssrawat__IEEE2017__jacobi-orig.profile":
        (read_nvprof_metrics_csv, ("calls", "time_s", "flops", "bytes")),
    NVPROF + "leimingyu__magus__matrixMul_metrics.csv":
        (read_nvprof_metrics_csv, ("calls", "time_s", "flops", "bytes")),
    NVPROF + "sankarmanoj__thrust2D__native.profile":
        (read_nvprof_metrics_text, ("calls", "time_s", "flops", "bytes")),
    NVPROF + "pssrawat__IEEE2017__jacobi-orig.trace": (read_nvprof_trace_csv, ("calls", "time_s", "flops", "bytes")),
    NVPROF + "leimingyu__magus__matrixMul_trace.csv": (read_nvprof_trace_csv, ("calls", "time_s", "flops", "bytes")),
    NVPROF + "peihunglin__XPlacer-ML-DataPlacement__GPUTraceOutput_111100_graph4096.log":
        (read_nvprof_trace_text, ("calls", "time_s", "flops", "bytes")),
    NVPROF + "peihunglin__XPlacer-ML-DataPlacement__output_000000_graph4096.log":
        (read_nvprof_summary, ("calls", "time_s", "flops", "bytes")),
    NVPROF + "pssrawat__IEEE2017__jacobi-unroll.time": (read_nvprof_summary, ("calls", "time_s", "flops", "bytes")),
    NSYS + "extra-p__extrap__con_kernel.sqlite": (read_nsys_sqlite, ("calls", "time_s", "flops", "bytes")),
    NSYS + "extra-p__extrap__ex-gpu.s10.sqlite": (read_nsys_sqlite, ("calls", "time_s", "flops", "bytes")),
    NSYS + "CodeGandee__llm-perf-opt__sam_summary_cuda_gpu_kern_sum.csv":
        (read_nsys_kern_sum, ("calls", "time_s", "flops", "bytes")),
    KINETO + HTA + "benchmark_result_493459_1694039959_trace.json.gz":
        (read_kineto, ("calls", "time_s", "flops", "bytes")),
    KINETO + HTA + "benchmark_result_924719_1679055439_trace.json.gz":
        (read_kineto, ("calls", "time_s", "flops", "bytes")),
    # FLOPs and kernel bytes of these three come from roofline's models of the
    # operators' shapes (no counter in the file; triton_example's Triton
    # kernel from its launcher, checked by hand in tests/test_triton_models.py):
    # only the launches, time and the copies' PCIe bytes are recomputed;
    # their DRAM bytes of copies and memsets are compared in test_kineto_copy_bytes_*.
    KINETO + HTA + "triton_example.json.gz": (read_kineto, ("calls", "time_s")),
    KINETO + HTA + "negative_queue_rank0.json.gz": (read_kineto, ("calls", "time_s", "PCIe")),
    KINETO + HTA + "mi250_minitoy_train_ROCm6_2_kineto.json.gz": (read_kineto, ("calls", "time_s")),
}

# Pinned as refused (an "error" pin): the second source shows the file has
# no kernel records, see test_refused_files_have_no_kernels.
REFUSED = {
    NSYS + "hpcgroup__pipit__nbody-nvtx_trace.csv": read_nsys_nvtx_csv,
    ERT + "WeakKnight__roofline__kingspeak-p100-gpu_Run.002_FLOPS.064_GPU_Blocks.0640_GPU_Threads.0256_sum": None,
    ERT + "WeakKnight__roofline__kingspeak-p100-gpu_Run.002_FLOPS.064_GPU_Blocks.0640_GPU_Threads.0256_try.001": None,
    ERT + "WeakKnight__roofline__kingspeak-p100-gpu_Run.002_roofline.json": None,
}

NOT_COVERED = {
    NSYS + "armleth__cuda-mlp-inference__nsys_report.nsys-rep":
        "binary QdstrmFile/.nsys-rep: only NVIDIA's nsys CLI can export it (nsys export --type "
        "sqlite), and no independent reader exists here; roofline refuses it too (pin: an error)",
}


def compare(got: dict, want: dict, keys) -> list[str]:
    """Differences between the second source and the pin, as messages."""
    bad = []
    for key in keys:
        if key in ("flops", "bytes"):
            if set(got[key]) != set(want[key]):
                bad.append(f"{key}: {sorted(got[key])} != pinned {sorted(want[key])}")
            for sub in set(got[key]) & set(want[key]):
                if got[key][sub] != pytest.approx(want[key][sub], rel=REL, abs=1e-12):
                    bad.append(f"{key}[{sub}]: {got[key][sub]!r} != pinned {want[key][sub]!r}")
        elif key == "PCIe":
            if got["bytes"].get("PCIe") != pytest.approx(want["bytes"].get("PCIe"), rel=REL):
                bad.append(f"PCIe: {got['bytes'].get('PCIe')!r} != pinned {want['bytes'].get('PCIe')!r}")
        elif got[key] != pytest.approx(want[key], rel=REL, abs=1e-12):
            bad.append(f"{key}: {got[key]!r} != pinned {want[key]!r}")
    return bad


def test_every_pinned_file_is_covered_or_says_why_not():
    named = set(SOURCES) | set(REFUSED) | set(NOT_COVERED)
    assert set(PINS) == named, (set(PINS) - named, named - set(PINS))
    assert not set(SOURCES) & set(REFUSED) and not set(SOURCES) & set(NOT_COVERED)


@needs_realdata
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_second_source_agrees_with_pin(name):
    path = real_file(REALDATA / name)
    reader, keys = SOURCES[name]
    got, want = reader(path), PINS[name]
    assert "error" not in want
    assert not compare(got, want, keys)


@needs_realdata
@pytest.mark.parametrize("name", sorted(n for n in SOURCES if n.startswith((NSYS, KINETO))
                                        and SOURCES[n][0] in (read_nsys_sqlite, read_kineto)))
def test_copies_and_memsets_are_the_pinned_memcpy_and_memset_rows(name):
    """Of the launches, those the trace records as copies and memsets are
    the ones the pin files under the memcpy and memset families, and the
    rest are kernels."""
    got = SOURCES[name][0](real_file(REALDATA / name))
    fam = PINS[name]["families"]
    if got.get("memcpy") or got.get("memset") or "memcpy" in fam or "memset" in fam:
        assert fam.get("memcpy", 0) == got["memcpy"]
        assert fam.get("memset", 0) == got["memset"]
    assert sum(v for f, v in fam.items() if f not in ("memcpy", "memset")) == got["kernels"]


@needs_realdata
def test_kineto_copy_bytes_of_the_recommender_trace_match_the_import():
    """negative_queue_rank0: copies and memsets carry args.bytes; the DRAM
    bytes of the rows roofline files as copies/memsets (from its import) are
    2 * DtoD + memset bytes, and its PCIe bytes are the HtoD/DtoH bytes."""
    from roofline.importers import read_profile
    path = real_file(REALDATA / KINETO / (HTA + "negative_queue_rank0.json.gz"))
    got = read_kineto(path)
    rows = [k for k in read_profile(path).kernels if k.family in ("memcpy", "memset")]
    assert msum(k.bytes.get("DRAM") for k in rows) == pytest.approx(got["bytes"]["DRAM"], rel=REL)
    assert msum(k.bytes.get("PCIe") for k in rows) == pytest.approx(got["bytes"]["PCIe"], rel=REL)
    assert got["copies_without_bytes"] == 0


@needs_realdata
def test_tensor_flops_from_the_instruction_shape_match_the_programs_own_printout():
    """A third source for output_A100.csv: the program printed "Cutlass GEMM
    time: 181.561 ms / Performance: 94622.9 GFLOPS" and "Cublas GEMM time:
    276.617 ms / 62107 GFLOPS" before ncu's CSV, i.e. 2*M*N*K FLOPs per
    GEMM. Tensor instructions * 2*m*n*k of the MMA shape in each kernel's
    name give the same FLOPs per launch (6 CUTLASS launches, 1 cuBLAS)."""
    path = real_file(REALDATA / NCU_CSV / "wangzy0327__cuda-roofline__output_A100.csv")
    text = path.read_text()
    printed = {lib: float(ms) * 1e-3 * float(gf) * 1e9 for lib, ms, gf in re.findall(
        r"(Cutlass|Cublas) GEMM time: ([0-9.]+) ms\s+\w+ GEMM Performance: ([0-9.]+) GFLOPS", text)}
    lines = text.splitlines()
    rows = list(csv.reader(lines[next(i for i, x in enumerate(lines) if x.startswith('"ID"')):]))
    per_launch = {}
    for r in rows[1:]:
        if r[12] == "sm__inst_executed_pipe_tensor.sum" and number(r[14]):
            per_launch[r[0]] = (r[4], number(r[14]) * mma_flops_per_instruction(r[4])[1])
    cutlass = [f for n, f in per_launch.values() if "cutlass" in n]
    cublas = [f for n, f in per_launch.values() if "s16816gemm" in n]
    assert len(cutlass) == 6 and len(cublas) == 1
    for f in cutlass:
        assert f == pytest.approx(printed["Cutlass"], rel=1e-4)
    assert cublas[0] == pytest.approx(printed["Cublas"], rel=1e-4)


@needs_realdata
def test_nvprof_transactions_are_32_bytes_by_nvprofs_own_throughputs():
    """untiled.csv (K40c): transactions * 32 B / nvprof's own throughput
    metric gives the same kernel duration for DRAM reads, L2 reads and the
    texture path, and the Kepler frame-buffer events fb_subp*_read/write_sectors
    count the same DRAM traffic as dram_read/write_transactions."""
    path = real_file(REALDATA / NVPROF / "pssrawat__IEEE2017__untiled.csv")
    avg = {}
    for line in path.read_text().splitlines():
        if line.startswith('"Tesla'):
            r = next(csv.reader([line]))
            avg[r[3]] = r[-1]
    gb = {k: float(v.removesuffix("GB/s")) * 1e9 for k, v in avg.items() if v.endswith("GB/s")}
    t = {lvl: number(avg[tx]) * SECTOR / gb[thr] for lvl, tx, thr in (
        ("DRAM", "dram_read_transactions", "dram_read_throughput"),
        ("L2", "l2_read_transactions", "l2_read_throughput"),
        ("tex", "tex_cache_transactions", "tex_cache_throughput"))}
    assert max(t.values()) / min(t.values()) < 1.001, t
    fb = msum(number(avg[f"fb_subp{i}_{rw}_sectors"]) for i in (0, 1) for rw in ("read", "write"))
    assert fb == number(avg["dram_read_transactions"]) + number(avg["dram_write_transactions"])


@needs_realdata
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_files_have_no_kernels(name):
    """Pinned as an import error: the file holds no kernel records (an NVTX
    range trace; ERT results describe the device, read with --device)."""
    path = real_file(REALDATA / name)
    assert "error" in PINS[name]
    if REFUSED[name] is not None:
        assert REFUSED[name](path)["kernels"] == 0


@needs_realdata
def test_ert_sum_is_what_erts_scripts_make_of_the_raw_sweep():
    """The ``sum`` beside ``try.001`` (same FLOPS.064/GPU_Blocks.0640/
    GPU_Threads.0256 directory) is ERT's processing of that sweep: its FP64
    GFLOPs and L1 GB/s are the maxima read_ert_try computes (printed with 2
    decimals); its DRAM level is a plateau of the sweep's large working sets."""
    stem = "WeakKnight__roofline__kingspeak-p100-gpu_Run.002_FLOPS.064_GPU_Blocks.0640_GPU_Threads.0256_"
    sweep = read_ert_try(real_file(REALDATA / ERT / (stem + "try.001")))
    summary = read_ert_sum(real_file(REALDATA / ERT / (stem + "sum")))
    assert sweep["gflops"] == pytest.approx(summary["FP64 GFLOPs"], abs=0.005)
    assert sweep["gbytes_max"] == pytest.approx(summary["L1"], abs=0.005)
    assert sweep["gbytes_max"] > summary["DRAM"] > 0.5 * sweep["gbytes_max"]


@needs_realdata
def test_ert_files_read_as_devices_match_their_raw_text():
    """roofline reads ERT results as device ceilings (roofline.devices.ert),
    not as kernel profiles: those ceilings are the raw file's numbers."""
    from roofline.devices.ert import read_ert_device, read_ert_sweep
    stem = "WeakKnight__roofline__kingspeak-p100-gpu_Run.002_"
    summed = real_file(REALDATA / ERT / (stem + "FLOPS.064_GPU_Blocks.0640_GPU_Threads.0256_sum"))
    raw, dev = read_ert_sum(summed), read_ert_device(summed)
    assert dev.compute["fp64"].value == pytest.approx(raw["FP64 GFLOPs"] * 1e9, rel=REL)
    assert {lv: dev.memory[lv].bandwidth.value for lv in dev.memory} == pytest.approx(
        {lv: raw[lv] * 1e9 for lv in ("L1", "DRAM")}, rel=REL)
    js = real_file(REALDATA / ERT / (stem + "roofline.json"))
    raw, dev = read_ert_json(js), read_ert_device(js)
    assert dev.compute["fp64"].value == pytest.approx(raw["gflops"]["FP64 GFLOPs"] * 1e9, rel=REL)
    assert {lv: dev.memory[lv].bandwidth.value for lv in dev.memory} == pytest.approx(
        {lv: v * 1e9 for lv, v in raw["gbytes"].items()}, rel=REL)
    sweep_path = real_file(REALDATA / ERT / (stem + "FLOPS.064_GPU_Blocks.0640_GPU_Threads.0256_try.001"))
    mine, theirs = read_ert_try(sweep_path), read_ert_sweep(sweep_path)
    assert len(theirs.time_s) == mine["lines"]
    assert math.fsum(theirs.total_bytes) == pytest.approx(mine["total_bytes"], rel=REL)
    assert math.fsum(theirs.total_flops) == pytest.approx(mine["total_flops"], rel=REL)
