"""The GPU activity of a TensorFlow/JAX profile -> kernels: what the XPlane
and Trace Viewer readers (:mod:`.xplane`, :mod:`.xplane_json`) share.

Each reader fills a :class:`Capture`: one :class:`Activity` per event on a
GPU stream line (kernels, memcpy, memset) with its stats by name, the GPU
planes' device properties, the host's API time, and what the host says of
TF ops (input shapes, output allocations) and of XLA ops (cost analysis).
:func:`import_result` turns it into one kernel per launch:

- **operator**: the framework op that launched it, from the first of the
  kernel's stats that names one: ``tf_op`` (``name:type``), ``hlo_op`` with
  ``hlo_module`` (``module/op``), the innermost op of ``annotation`` or
  ``level 0`` (TraceMe ``name:type#k=v#`` scopes joined by ``::``; TF 2.5
  writes the op there, not in ``tf_op``).
- **launch**: grid, block, registers and shared memory from
  ``kernel_details`` (``regs:16 shm:0 grid:30,1,1 block:1024,1,1``), the
  device (plane), stream (line) and correlation id.
- **copies**: ``MemcpyH2D``/``D2H``/``D2D``/``P2P`` with the size in
  ``memcpy_details`` on the host link (or twice on DRAM for D2D).
- **family**: from the name (:func:`roofline.core.families.family_of`),
  then from the op: a cuBLAS GEMM launched by an op that also launched
  Winograd (or FFT) kernels is that algorithm's product stage, and XLA's
  ``loop_*``/``wrapped_*`` fusions are element-wise, ``input_*`` fusions
  reductions.
- **work**: XLA's cost analysis where the file has it (stats ``flops`` and
  ``bytes_accessed`` on a kernel event, or on the ``XLA Ops`` event of its
  HLO op, spread over that op's kernels by duration); else the TF op
  models of :mod:`.xplane_costs` from recorded input shapes, spread over
  the op's matrix kernels by duration. Both are models (``modelled``).
"""
from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

from ..core.errors import Advice, InputError
from ..core.families import family_of
from ..core.kernel_precision import precision_from_name
from ..core.model import Kernel
from .base import ImportResult, ProgramTime, checked
from .cupti import copy_bytes
from .timeline import busy_time
from .xplane_costs import MODELLED_OPS, OpCost, op_cost


@dataclass
class Activity:
    """One event on a GPU stream: a kernel, copy or memset."""

    name: str
    device: str                 # the plane ("/device:GPU:0")
    stream: int | None          # the line's stream id
    start_ns: float
    duration_ns: float
    stats: dict                 # stat name -> value (references resolved)


@dataclass
class Capture:
    """What a TensorFlow/JAX profile says, as the readers find it."""

    path: str
    format: str
    activities: list[Activity] = field(default_factory=list)
    devices: dict = field(default_factory=dict)        # plane name -> its stats
    api_ns: dict = field(default_factory=dict)         # host API name -> total ns
    span_ns: tuple[float, float] | None = None
    op_shapes: dict = field(default_factory=lambda: defaultdict(list))   # TF op name -> 'shape' per call
    op_outputs: dict = field(default_factory=lambda: defaultdict(list))  # TF op name -> output shapes
    hlo_costs: dict = field(default_factory=dict)      # (plane, "module/op") -> (stats, occurrences)
    host_ops: int = 0                                  # TF op events on the host


_MATRIX = frozenset({"gemm", "implicit_gemm", "explicit_gemm", "winograd", "fft", "conv_custom"})
_COPY_KINDS = {"H2D": 1, "D2H": 2, "D2D": 8, "P2P": 10}
_COPY = re.compile(r"^Memcpy(H2D|D2H|D2D|P2P)\b")
_SIZE = re.compile(r"(?:^|\s)size:(\d+)")
_XLA_FUSION = {"loop": "elementwise", "wrapped": "elementwise", "input": "reduction"}
TF_OP = re.compile(r"^[A-Za-z0-9_.\-/>]+:[A-Za-z_][A-Za-z0-9_]*$")
FLOP_STATS = ("flops", "model_flops")
BYTE_STATS = ("bytes_accessed",)


def split_op(full: str) -> tuple[str, str]:
    """``model/conv1_1/Relu:_FusedConv2D`` -> (name, type); no type: ('x', '')."""
    name, _, kind = full.partition(":")
    return name, kind


def annotation_op(text: str) -> str:
    """The innermost op named in a TraceMe annotation: scopes are joined by
    ``::`` and each may end in ``#key=value,...#`` arguments."""
    for part in reversed(str(text).split("::")):
        name = part.split("#", 1)[0].strip()
        if name:
            return name
    return ""


def operator_of(stats: dict) -> str:
    op = stats.get("tf_op")
    if isinstance(op, str) and op.strip():
        return op.strip()
    hlo = stats.get("hlo_op")
    if isinstance(hlo, str) and hlo.strip():
        module = stats.get("hlo_module")
        return f"{module}/{hlo.strip()}" if isinstance(module, str) and module else hlo.strip()
    for key in ("annotation", "level 0", "long_name"):
        value = stats.get(key)
        if isinstance(value, str) and (op := annotation_op(value)):
            return op
    return ""


def launch_config(details) -> dict:
    """``regs:16 shm:0 grid:30,1,1 block:1024,1,1`` (newer: ``static_shared``,
    ``dynamic_shared``, ``occ_pct``) -> launch keys; malformed parts dropped."""
    out: dict = {}
    shared = 0
    seen_shared = False
    for part in str(details or "").split():
        key, _, value = part.partition(":")
        try:
            if key in ("grid", "block"):
                dims = tuple(int(v) for v in value.split(","))
                if dims and all(0 < d < 2 ** 31 for d in dims):
                    out[key] = dims
            elif key == "regs":
                out["registers_per_thread"] = int(value)
            elif key in ("shm", "static_shared", "dynamic_shared"):
                shared += int(value)
                seen_shared = True
        except ValueError:
            continue
    if seen_shared:
        out["shared_bytes"] = shared
    return out


def add_hlo_cost(cap: Capture, device: str, name: str, stats: dict) -> None:
    """Keep an HLO op's cost analysis (an ``XLA Ops`` event), counting its occurrences."""
    if not name or not any(k in stats for k in ("flops", "model_flops", "bytes_accessed")):
        return
    module = stats.get("hlo_module")
    key = (device, f"{module}/{name}" if isinstance(module, str) and module else name)
    known = cap.hlo_costs.get(key)
    cap.hlo_costs[key] = (stats, 1 + (known[1] if known else 0))


def add_host_event(cap: Capture, name: str, stats: dict, duration_ns: float) -> None:
    """Keep what a host event says: API time, an op's output shape, a TF op's input shapes."""
    if "correlation_id" in stats:
        # a launch is recorded under the kernel's name, a copy as MemcpyH2D/D2H
        if "memcpy_details" in stats:
            api = "cuMemcpyAsync" if "async:1" in str(stats["memcpy_details"]) else "cuMemcpy"
        elif "kernel_details" in stats or not name.startswith(("cu", "Memset", "Memcpy")):
            api = "cuLaunchKernel"
        else:
            api = name
        cap.api_ns[api] = cap.api_ns.get(api, 0.0) + duration_ns
    elif name == "MemoryAllocation":
        op, shape = stats.get("tf_op"), stats.get("shape")
        if stats.get("region_type") == "output" and isinstance(op, str) and op and isinstance(shape, str):
            dims = _dims(shape)
            if dims:
                cap.op_outputs[op].append(dims)
    elif TF_OP.match(name):
        cap.host_ops += 1
        shape = stats.get("shape")
        if isinstance(shape, str) and shape.startswith("("):
            cap.op_shapes[name.partition(":")[0]].append(shape)


def _dims(text: str) -> tuple[int, ...] | None:
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        return None
    try:
        return tuple(int(d) for d in body[1:-1].split(",") if d.strip())
    except ValueError:
        return None


def import_result(cap: Capture) -> ImportResult:
    """The kernels of ``cap`` with their ops, families and work; an
    InputError when the profile has no GPU activity."""
    if not cap.devices:
        raise InputError(cap.path, None, "no GPU plane (/device:GPU:N): a CPU-only or TPU profile; "
                         "expected a TensorFlow/JAX profile of a GPU run")
    if not cap.activities:
        raise InputError(cap.path, None, f"the GPU plane{'s' if len(cap.devices) > 1 else ''} "
                         f"({', '.join(cap.devices)}) hold no kernel or copy events")
    warnings: list[Advice] = []
    ops = [operator_of(a.stats) for a in cap.activities]
    families = _families(cap.activities, ops)
    work, sources = _work(cap, ops, families, warnings)
    kernels = []
    for a, op, family, w in zip(cap.activities, ops, families, work):
        launch = launch_config(a.stats.get("kernel_details"))
        launch.update(device=a.device, stream=a.stream)
        corr = a.stats.get("correlation_id")
        if isinstance(corr, int) and not isinstance(corr, bool):
            launch["id"] = corr
        flops, nbytes = w if w else ({}, {})
        nbytes = _copy_bytes(a) or nbytes
        kernels.append(Kernel(a.name, time_s=a.duration_ns * 1e-9, flops=flops, bytes=nbytes, launch=launch,
                              family=family, operator=op, modelled=bool(w)))
    props = _device(cap, kernels, warnings)
    _say_sources(cap, kernels, sources, warnings)
    program = ProgramTime(api_s={k: v * 1e-9 for k, v in cap.api_ns.items()},
                          gpu_busy_s=busy_time([a.start_ns for a in cap.activities],
                                               [a.start_ns + a.duration_ns for a in cap.activities]) * 1e-9,
                          span_s=(cap.span_ns[1] - cap.span_ns[0]) * 1e-9 if cap.span_ns else None)
    return checked(ImportResult(cap.path, cap.format, tuple(kernels), device_name=props.pop("name", None),
                                program=program, warnings=tuple(warnings),
                                compute_capability=props.get("capability"), device_kind="gpu",
                                device_properties=props or None))


def _copy_bytes(a: Activity) -> dict:
    """Bytes a copy moved (on the level it crosses) or a memset wrote (DRAM)."""
    copy = _COPY.match(a.name)
    if copy:
        size = _SIZE.search(str(a.stats.get("memcpy_details", "")))
        return copy_bytes(_COPY_KINDS[copy.group(1)], float(size.group(1))) if size else {}
    if a.name.startswith("Memset"):
        size = _SIZE.search(str(a.stats.get("Memset_details", a.stats.get("memset_details", ""))))
        return {"DRAM": float(size.group(1))} if size else {}
    return {}


def _families(activities: list[Activity], ops: list[str]) -> list[str]:
    out = []
    for a in activities:
        family = family_of(a.name)
        if family == "other" and "hlo_op" in a.stats:
            prefix = a.name.split("_", 1)[0]
            if "fusion" in a.name or prefix == "wrapped":
                family = _XLA_FUSION.get(prefix, family)
        out.append(family)
    by_op: dict[str, set] = defaultdict(set)
    for op, family in zip(ops, out):
        if op:
            by_op[op].add(family)
    for i, (op, family) in enumerate(zip(ops, out)):
        if family == "gemm" and op:
            algorithm = by_op[op] & {"winograd", "fft"}
            if len(algorithm) == 1:          # the product stage of a non-fused Winograd or FFT convolution
                out[i] = algorithm.pop()
    return out


def _work(cap: Capture, ops: list[str], families: list[str], warnings: list[Advice]):
    """(flops, bytes) per activity (None: no work known) and how many got it
    from each source."""
    work: list = [None] * len(ops)
    sources = {"xla": 0, "tf": 0}
    # XLA cost analysis on the kernel event itself
    for i, a in enumerate(cap.activities):
        own = _xla_cost(a.stats)
        if own is not None:
            work[i] = _on_levels(own, a.name)
            sources["xla"] += 1
    # per HLO op (XLA Ops line) and per TF op (host shapes): spread over the op's kernels
    groups: dict[str, list[int]] = defaultdict(list)
    for i, op in enumerate(ops):
        if op and work[i] is None and families[i] not in ("memcpy", "memset"):
            groups[(cap.activities[i].device, op)].append(i)
    assumptions: set[str] = set()
    for (device, op), members in groups.items():
        total = _op_total(cap, device, op, assumptions)
        if total is None:
            continue
        matrix = [i for i in members if families[i] in _MATRIX] if total[2] else []
        chosen = matrix or members
        time = sum(cap.activities[i].duration_ns for i in chosen)
        for i in chosen:
            share = cap.activities[i].duration_ns / time if time > 0 else 1.0 / len(chosen)
            flops = {p: v * share for p, v in total[0].items()}
            nbytes = {"DRAM": total[1] * share} if total[1] else {}
            if total[3] == "xla":
                flops = _on_levels((sum(flops.values()), nbytes.get("DRAM")), cap.activities[i].name)[0]
            work[i] = (flops, nbytes)
            sources[total[3]] += 1
    for text in sorted(assumptions):
        warnings.append(Advice(f"TF op models: {text}", "the FLOPs of those ops may be off by the stride "
                               "squared", subject="tensorflow"))
    return work, sources


def _xla_cost(stats: dict) -> tuple[float, float | None] | None:
    flops = next((float(stats[k]) for k in FLOP_STATS if _number(stats.get(k))), None)
    nbytes = next((float(stats[k]) for k in BYTE_STATS if _number(stats.get(k))), None)
    if flops is None and nbytes is None:
        return None
    return (flops or 0.0, nbytes)


def _on_levels(cost, name: str):
    """XLA's (flops, bytes) on a kernel: FLOPs at the precision its name
    states, else fp32 (XLA's counts carry no dtype); bytes on DRAM."""
    flops, nbytes = cost
    found = precision_from_name(name)
    key = found.precision if found else "fp32"
    return ({key: flops} if flops else {}), ({"DRAM": nbytes} if nbytes else {})


def _op_total(cap: Capture, device: str, op: str, assumptions: set[str]):
    """(flops, bytes, matrix, source) of all calls of ``op`` on ``device`` (TF ops: all calls of
    that name)."""
    # the XLA Ops line may name no module
    known = cap.hlo_costs.get((device, op)) or cap.hlo_costs.get((device, op.rpartition("/")[2]))
    if known:
        stats, occurrences = known
        cost = _xla_cost(stats)
        if cost is not None:
            return ({"": cost[0] * occurrences}, (cost[1] or 0.0) * occurrences, False, "xla")
    name, kind = split_op(op)
    if kind not in MODELLED_OPS or name not in cap.op_shapes:
        return None
    flops: dict[str, float] = defaultdict(float)
    nbytes = 0.0
    for shapes in cap.op_shapes[name]:
        cost: OpCost | None = op_cost(kind, shapes, cap.op_outputs.get(name, ()))
        if cost is None:
            return None
        for p, v in cost.flops.items():
            flops[p] += v
        nbytes += cost.bytes
        if cost.assumption:
            assumptions.add(cost.assumption)
    return (dict(flops), nbytes, True, "tf") if flops else None


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


def _say_sources(cap: Capture, kernels: list[Kernel], sources: dict, warnings: list[Advice]) -> None:
    """One warning when no kernel got work; else which source gave how much."""
    computing = [k for k in kernels if k.family not in ("memcpy", "memset")]
    if not sources["xla"] and not sources["tf"]:
        shapes = ("its TF op events carry no input shapes (TensorFlow records them at "
                  "host_tracer_level=3)" if cap.host_ops else "it has no TF op events with input shapes")
        warnings.append(Advice(f"no FLOP or byte counts for the {len(computing)} kernels: the file has no XLA "
                               f"cost-analysis stats (flops, bytes_accessed) and {shapes}",
                               "kernels keep their measured times and families; place them with a "
                               "kernels.csv that adds FLOPs, or profile with "
                               "tf.profiler.experimental.ProfilerOptions(host_tracer_level=3)",
                               subject="tensorflow"))
        return
    unknown = sum(1 for k in computing if not k.flops and not k.bytes)
    parts = [f"{n} from {what}" for n, what in ((sources["xla"], "XLA cost analysis (flops, bytes_accessed)"),
                                                 (sources["tf"], "TF op shapes (direct convolution, GEMM)")) if n]
    warnings.append(Advice(f"modelled work for {' and '.join(parts)}; {unknown} of {len(computing)} kernels "
                           "have none", "modelled bytes are compulsory bytes: a lower bound on traffic",
                           subject="tensorflow"))


def _device(cap: Capture, kernels: list[Kernel], warnings: list[Advice]) -> dict:
    """The properties of the GPU with the most kernel time, as
    ImportResult.device_properties (and its name under 'name', if given)."""
    time: dict[str, float] = defaultdict(float)
    for k in kernels:
        time[k.launch.get("device")] += k.time_s
    busiest = max(cap.devices, key=lambda d: time.get(d, 0.0))
    if len([d for d in cap.devices if time.get(d)]) > 1:
        warnings.append(Advice(f"kernels ran on {len(time)} GPUs ({', '.join(sorted(time))}); the "
                               f"device is {busiest}, the one with the most kernel time",
                               "each kernel's launch says its device", subject="devices"))
    return device_properties(cap.devices[busiest])


def device_properties(stats: dict) -> dict:
    """A GPU plane's stats as ImportResult.device_properties: sms, capability
    (compute capability), memory_bytes, clock_hz, memory_bandwidth_bytes_s,
    warp_size (32 for an NVIDIA vendor), vendor, name; each when given."""
    out: dict = {}
    major, minor = stats.get("compute_cap_major"), stats.get("compute_cap_minor")
    if _whole(major) and _whole(minor):
        out["capability"] = f"{int(major)}.{int(minor)}"
    for key, ours, scale in (("core_count", "sms", 1), ("memory_size", "memory_bytes", 1),
                             ("clock_rate", "clock_hz", 1000), ("memory_bandwidth", "memory_bandwidth_bytes_s", 1)):
        if _whole(stats.get(key)) and stats[key] > 0:
            out[ours] = int(stats[key]) * scale
    vendor = stats.get("device_vendor")
    if isinstance(vendor, str) and vendor.strip():
        out["vendor"] = vendor.strip()
        if "nvidia" in vendor.lower():
            out["warp_size"] = 32
    name = stats.get("gpu_device_name")
    if isinstance(name, str) and name.strip():
        out["name"] = name.strip()
    return out


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)

