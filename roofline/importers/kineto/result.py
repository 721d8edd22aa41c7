"""Columns of a Kineto trace -> the import result: kernel rows (with the
work of the operators behind them, :mod:`.attribution`), copies and sets
with their bytes, kernels known only from range-profiler counters, the
program's API, busy and span times, the device the trace names and the
rank of a distributed job; its communication launches with their exposed
time (:mod:`.overlap`), carried in the result's ``communication``.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

from ...core import reasons as R
from ...core.errors import Advice, InputError
from ...core.families import family_of
from ...core.model import Kernel
from ...core.import_result import DeviceClues, ImportResult, ProgramTime
from ..copies import copy_bytes, direction_in, set_bytes
from ..timeline import busy_time
from . import attribution, cpu_rows, phases
from .comms import Job
from .events import GpuEvents
from .overlap import comm_launches
from .why import before_window, first_runtime_correlation
from .nesting import nest
from .op_columns import OpEvents


def kineto_result(trace, path: Path, gpu: GpuEvents, ops: OpEvents, lo: float, hi: float) -> ImportResult:
    warnings: list[Advice] = []
    cpu_trace = bool(len(ops)) and not gpu.kernel_names and not gpu.copies and not gpu.ranges
    if cpu_trace:
        lost = lost_gpu_work(gpu, trace)
        if lost:
            raise InputError(path, None, lost)
    nesting = nest(ops)                      # once; every later stage reads it
    communication = None
    if cpu_trace:
        rows = cpu_rows.cpu_kernels(ops, nesting, warnings, threads=_intra_op_threads(trace))
        out = list(rows.rows)
        split = phases.cpu_phases(ops, nesting, rows.op_row)
    else:
        gpu.extras.job = Job.of(trace)       # the job's groups, for collectives (.comms)
        launches = attribution.gpu_kernels(gpu, ops, nesting, warnings)
        out = list(launches.rows)
        launched = len(out)
        out += _range_only_kernels(gpu, warnings)
        out += _copy_kernels(gpu, warnings)
        split = phases.gpu_phases(gpu, ops, nesting, launches.launch_row, launches.op_of, launches.call,
                                  [(launched + i, k.time_s) for i, k in enumerate(out[launched:])],
                                  launches.launches)
        if launches.comm is not None:
            communication = comm_launches(gpu, launches.comm)
    device = None if cpu_trace else _device_entry(trace.deviceProperties, gpu.device_time)
    if len(gpu.device_time) > 1:
        warnings.append(Advice(f"kernels ran on {len(gpu.device_time)} devices; each name is one row over all",
                               "device_name is the device with the most kernel time", subject="devices"))
    program = None
    if gpu.api or gpu.starts:
        busy = busy_time(gpu.starts, gpu.ends) * 1e-6 if gpu.starts else None
        program = ProgramTime(api_s=gpu.api, gpu_busy_s=busy, span_s=(hi - lo) * 1e-6 if hi >= lo else None)
    if not out and program is None:
        raise InputError(path, None, "no PyTorch operator, GPU kernel, copy, range or CUDA API events: "
                         "record with torch.profiler (ProfilerActivity.CPU and/or CUDA)")
    properties = _cpu_identity(trace) if cpu_trace else _identity(device)
    return ImportResult(str(path), "kineto", tuple(out), program=program,
                        warnings=tuple(warnings) + _device_notes(trace, gpu, cpu_trace),
                        rank=_rank(trace.distributedInfo), phases=split, communication=communication,
                        device=DeviceClues(name=_named(device), kind="cpu" if cpu_trace else "gpu",
                                           properties=properties))


# Runtime calls that launch work on a CUDA or ROCm GPU (cudaLaunchKernel,
# cuLaunchKernelEx, hipExtModuleLaunchKernel, cudaGraphLaunch ...)
_LAUNCH_CALL = re.compile(r"(cuda|cu|hip)\w*launch\w*", re.IGNORECASE)
_GPU_BACKENDS = ("nccl", "rccl")


def lost_gpu_work(gpu: GpuEvents, trace) -> str:
    """Why a trace with operators but no kernel, copy or range event is not
    a CPU trace ("" when nothing says so): it records GPU launch calls, or
    a job on NCCL, which runs only on GPUs. Its operator times are then
    host launch times, which no roof (CPU or GPU) bounds: refused rather
    than placed. GPUs listed in deviceProperties alone do not say it (a CPU
    run on a machine with a GPU lists them; :func:`_device_notes` warns)."""
    launches = sorted(n for n in gpu.api if _LAUNCH_CALL.fullmatch(n))
    if launches:
        shown = ", ".join(launches[:3]) + (" ..." if len(launches) > 3 else "")
        why = f"it records GPU launch calls ({shown})"
    elif _backend(trace.distributedInfo) in _GPU_BACKENDS:
        why = f"its job ran on {_backend(trace.distributedInfo)}, which runs on GPUs"
    else:
        return ""
    return (f"a GPU trace without kernel events: {why} but no kernel, copy or set event, so its operator "
            "times are host launch times, not the GPU's work; record again with ProfilerActivity.CUDA "
            "(and check that the trace was written whole)")


def _backend(info) -> str:
    value = info.get("backend") if isinstance(info, dict) else None
    return value.lower() if isinstance(value, str) and value.lower() in _GPU_BACKENDS else ""


def _rank(info) -> int | None:
    """``distributedInfo.rank`` of a trace written by torch.distributed."""
    value = info.get("rank") if isinstance(info, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _cpu_identity(trace) -> dict | None:
    """The CPU a CPU trace ran on, where the trace records it (the
    ``roofline`` section examples/pytorch_cpu.py writes; PyTorch's own
    traces name only the host)."""
    meta = trace.roofline
    model = meta.get("cpu_model") if isinstance(meta, dict) else None
    if not (isinstance(model, str) and model.strip()):
        return None
    out = {"cpu_model": model}
    if isinstance(meta.get("vendor"), str):
        out["vendor"] = meta["vendor"]
    for k in ("cpu_family", "cpu_model_id"):   # CPUID numbers: two "AMD EPYC" VMs differ here
        v = meta.get(k)
        if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 16:
            out[k] = v
    return out


def _intra_op_threads(trace) -> int | None:
    meta = trace.roofline
    value = meta.get("intra_op_threads") if isinstance(meta, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _range_only_kernels(gpu: GpuEvents, warnings: list[Advice]) -> list[Kernel]:
    """Ranges left after gpu_kernels took those with a kernel of their name."""
    if not gpu.ranges:
        return []
    n = sum(len(v) for v in gpu.ranges.values())
    if gpu.kernel_names:
        message = (f"{n} cuda_profiler_range event(s) under {len(gpu.ranges)} name(s) match no kernel "
                   "event; they are kept as kernels with FLOPs and unknown time")
    else:
        message = (f"{n} cuda_profiler_range event(s) and no kernel events: kernels have FLOPs but "
                   "unknown time (Kineto spreads range timestamps evenly over the profiling window)")
    warnings.append(Advice(message, "profile the same step again without the CUPTI range profiler "
                           "to get kernel times", subject="kineto"))
    out = []
    for name, rs in gpu.ranges.items():
        total: dict[str, float] = {}
        for f in rs:
            for p, v in f.items():
                total[p] = total.get(p, 0.0) + v
        out.append(Kernel(name=name, time_s=math.nan, count=len(rs), flops=total, family=family_of(name)))
    return out


def _copy_kernels(gpu: GpuEvents, warnings: list[Advice]) -> list[Kernel]:
    """A row per copy/set name with the bytes its events carry (or their
    runtime calls name); its events without a byte count in a row of their
    own, without bytes, saying why."""
    unsized = _unsized_copies(gpu)
    out, partial = [], []
    for name, g in gpu.copies.items():
        n, t, early = unsized.get(id(g), (0, 0.0, True))
        if n:
            partial.append(name)
        if n < g["n"]:
            nbytes = set_bytes(g["bytes"]) if g["family"] == "memset" else copy_levels(name, g["bytes"], g["kind"])
            out.append(Kernel(name=name, time_s=(g["t"] - t) * 1e-6, count=g["n"] - n, bytes=nbytes,
                              family=g["family"]))
        if n:
            out.append(Kernel(name=name if n == g["n"] else f"{name} (events without bytes)", time_s=t * 1e-6,
                              count=n, family=g["family"], why=R.BEFORE_WINDOW if early else R.NO_BYTES))
    if partial:
        warnings.append(Advice(f"{len(partial)} copy/set group(s) have events without a byte count "
                               f"({', '.join(partial[:3])}): those events are a row of their own, without bytes",
                               "events launched before the profiler's CPU window have no runtime call to name "
                               "their size (start the profiler a step earlier); older profilers write no "
                               "args.bytes at all", subject="kineto"))
    return out


def _unsized_copies(gpu: GpuEvents) -> dict[int, tuple[int, float, bool]]:
    """Per copy group (by id): how many of its events have no byte count,
    their time (us), and whether every one of them was launched before the
    CPU window (its correlation below the first runtime call's); the bytes
    the runtime calls name are added to the groups."""
    first = None
    out: dict[int, tuple[int, float, bool]] = {}
    for g, corr, dur in gpu.pending_bytes:
        size = gpu.api_sizes.get(corr) if corr is not None else None
        if size is None or not math.isfinite(size) or size < 0:
            if first is None:      # found once it is needed
                first = first_runtime_correlation(gpu)
            n, t, early = out.get(id(g), (0, 0.0, True))
            out[id(g)] = (n + 1, t + dur, early and before_window(corr, first))
        else:
            g["bytes"] += size
    return out


def copy_levels(name: str, nbytes: float, kind: str = "") -> dict[str, float]:
    """Bytes per level for a Kineto copy named ``name`` (or with arg ``kind``)."""
    return copy_bytes(direction_in(name) or direction_in(kind or ""), nbytes)


def _device_entry(properties, device_time: dict) -> dict | None:
    """deviceProperties of the device with the most kernel time, else of
    the one kind of device listed (only its name when their figures differ)."""
    if not isinstance(properties, list):
        return None
    named = [p for p in properties if isinstance(p, dict) and isinstance(p.get("name"), str)]
    if not named:
        return None
    if device_time:
        busiest = max(device_time, key=device_time.get)
        for p in named:
            if p.get("id") == busiest:
                return p
    if len({p["name"] for p in named}) != 1:
        return None
    same = len({repr(_identity(p)) for p in named}) == 1
    return named[0] if same else {"name": named[0]["name"]}


# deviceProperties keys -> ImportResult.device_properties keys
_IDENTITY = {"numSms": "sms", "warpSize": "warp_size", "totalGlobalMem": "memory_bytes"}


def _identity(entry: dict | None) -> dict | None:
    """The figures that tell GPUs apart when the name does not (integers only)."""
    if not entry:
        return None
    out = {ours: entry[theirs] for theirs, ours in _IDENTITY.items() if _whole(entry.get(theirs), 1)}
    major, minor = entry.get("computeMajor"), entry.get("computeMinor")
    if _whole(major, 1) and _whole(minor, 0):
        out["capability"] = f"{major}.{minor}"
    return out or None


def _whole(value, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _named(device: dict | None) -> str | None:
    """The GPU's name in deviceProperties; None where it is blank (PyTorch on
    ROCm writes "name": "" for an MI300X), so its figures pick the profile."""
    name = device.get("name") if device else None
    return name if isinstance(name, str) and name.strip() else None


# Categories of events of a device other than a CUDA or ROCm GPU (Meta's
# MTIA: mtia_ccp_events, mtia_runtime; Intel's XPU, Gaudi's HPU, Ascend's NPU ...)
_OTHER_DEVICE = re.compile(r"(?:^|[^a-z])(mtia|xpu|hpu|npu|mlu|ipu|tpu|privateuse1?|accelerator)(?:[^a-z]|$)")
# GPU categories roofline does not read, which say a GPU ran where no kernel was recorded
_GPU_SIDE = re.compile(r"^(gpu|cuda|hip|rocm)_")


def _device_notes(trace, gpu: GpuEvents, cpu_trace: bool) -> tuple[Advice, ...]:
    """Warnings for device activity the rows leave out: events of a device
    roofline does not read, and a trace that lists GPUs in deviceProperties
    but records no GPU activity (its operator times are host times)."""
    out = []
    unread = {c: n for c, n in gpu.other_categories.items()
              if _OTHER_DEVICE.search(c.lower()) or (cpu_trace and _GPU_SIDE.match(c.lower()))}
    if unread:
        listed = sorted(unread.items(), key=lambda cn: (-cn[1], cn[0]))
        shown = ", ".join(f"{c} {n:,}" for c, n in listed[:4]) + (f" and {len(listed) - 4} more"
                                                                  if len(listed) > 4 else "")
        what = ("the rows are its host operators, timed on the CPU" if cpu_trace
                else "they are left out of the rows")
        out.append(Advice(f"the trace holds {sum(unread.values()):,} events of a device roofline does not "
                          f"read ({shown}): {what}",
                          "roofline places CUDA and ROCm kernels; the device's own work is not placed",
                          subject="devices"))
    gpus = _listed_gpus(trace.deviceProperties)
    if cpu_trace and gpus and not unread:
        names = sorted({g for g in gpus if g})
        said = f" ({', '.join(names[:2])}{' ...' if len(names) > 2 else ''})" if names else ""
        plural = "s" if len(gpus) != 1 else ""
        out.append(Advice(f"the trace lists {len(gpus)} GPU{plural}{said} in deviceProperties but holds no "
                          "GPU activity: if the model ran on a GPU, the operator times are host launch times, "
                          "not work",
                          "record with ProfilerActivity.CUDA to get the GPU's kernels", subject="devices"))
    return tuple(out)


def _listed_gpus(properties) -> list[str]:
    """The names of the GPUs deviceProperties lists ("" for a nameless one)."""
    if not isinstance(properties, list):
        return []
    return [p.get("name") if isinstance(p.get("name"), str) else "" for p in properties if isinstance(p, dict)
            and (isinstance(p.get("name"), str) and p["name"].strip() or _whole(p.get("numSms"), 1)
                 or _whole(p.get("computeMajor"), 1))]
