"""The GPU activity of a TensorFlow/JAX profile -> kernels: what the XPlane
and Trace Viewer readers (:mod:`.xplane`, :mod:`.xplane_json`) share.

Each reader fills a :class:`~.xplane_capture.Capture` (columns: one row
per event on a GPU stream line, kernels, memcpy and memset, with the index
of its distinct stats dict), and :func:`import_result` turns it into one
kernel per launch, as columns (:class:`~.xplane_rows.XplaneRows`); what is
asked of the stats is asked once per distinct stats dict or name:

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
- **work**: XLA's cost analysis or the TF op models (:mod:`.xplane_work`).
"""
from __future__ import annotations

import math

import numpy as np

from ...core.errors import Advice, InputError
from ...core.families import COPIES, family_of
from ...core.model import LEVELS, KernelSet
from ...core.import_result import DeviceClues, ImportResult, ProgramTime
from ..timeline import busy_time
from .xplane_capture import Capture
from .xplane_rows import grouped
from .xplane_stats import (TF_OP, annotation_op, blocks_of, copy_bytes_of,  # noqa: F401  (TF_OP, annotation_op:
                           device_properties, launch_config, operator_of, output_dims, split_op)  # the API)
from .xplane_work import work_columns

_XLA_FUSION = {"loop": "elementwise", "wrapped": "elementwise", "input": "reduction"}


def import_result(cap: Capture) -> ImportResult:
    """The kernels of ``cap`` with their ops, families and work; an
    InputError when the profile has no GPU activity."""
    if not cap.devices:
        raise InputError(cap.path, None, "no GPU plane (/device:GPU:N): a CPU-only or TPU profile; "
                         "expected a TensorFlow/JAX profile of a GPU run")
    if not len(cap.name_id):
        raise InputError(cap.path, None, f"the GPU plane{'s' if len(cap.devices) > 1 else ''} "
                         f"({', '.join(cap.devices)}) hold no kernel or copy events")
    warnings: list[Advice] = []
    rows = cap.rows()
    names = np.array(cap.names.values, dtype=object)
    ops_of_profile = np.array([operator_of(s) for s in cap.profiles], dtype=object)
    ops = ops_of_profile[rows["profile"]]
    families = _families(cap, rows, ops)
    flops, nbytes, modelled, sources, whys, modules = work_columns(cap, rows, ops, families, names, warnings)
    _copies(cap, rows, names, nbytes)
    time_s = rows["duration_ns"] * 1e-9
    launches = [launch_config(s.get("kernel_details")) for s in cap.profiles]
    blocks = np.array([blocks_of(x) for x in launches] or [math.nan])[rows["profile"]]
    kernels = KernelSet(names[rows["name_id"]], time_s, flops=dict(sorted(flops.items())),
                        bytes=dict(sorted(nbytes.items(), key=lambda kv: _level_rank(kv[0]))),
                        families=families, modelled=modelled, operators=ops, blocks=blocks, whys=whys)
    props = _device(cap, rows, time_s, warnings)
    _say_sources(cap, kernels, sources, warnings, modules)
    end = rows["start_ns"] + rows["duration_ns"]
    program = ProgramTime(api_s={k: v * 1e-9 for k, v in cap.api_ns.items()},
                          gpu_busy_s=busy_time(rows["start_ns"], end) * 1e-9,
                          span_s=(cap.span_ns[1] - cap.span_ns[0]) * 1e-9 if cap.span_ns else None)
    launch = {"launches": launches, "devices": cap.device_names.values, "device_id": rows["device_id"],
              "stream": rows["stream"], "correlation": rows["correlation"], "profile": rows["profile"]}
    return ImportResult(cap.path, cap.format, grouped(kernels, launch), program=program,
                        warnings=tuple(warnings),
                        device=DeviceClues(name=props.pop("name", None), capability=props.get("capability"),
                                           kind="gpu", properties=props or None))


def _level_rank(name: str) -> tuple[int, str]:
    """Levels in the order KernelSet.from_kernels puts them."""
    return (LEVELS.index(name) if name in LEVELS else len(LEVELS) - 1, name)


def _families(cap: Capture, rows: dict, ops: np.ndarray) -> np.ndarray:
    """The family of each row: from its name (XLA fusions by their prefix
    where the kernel names an HLO op), then a GEMM launched by a
    convolution op that also ran Winograd or FFT kernels is that
    algorithm's product stage."""
    has_hlo = np.array(["hlo_op" in s for s in cap.profiles], dtype=bool)[rows["profile"]]
    key = rows["name_id"] * 2 + has_hlo
    distinct, inverse = np.unique(key, return_inverse=True)
    per_key = np.array([_family(cap.names.values[k // 2], bool(k % 2)) for k in distinct.tolist()], dtype=object)
    out = per_key[inverse.reshape(-1)]
    op_ids, op_inverse = np.unique(ops, return_inverse=True)
    op_inverse = op_inverse.reshape(-1)
    by_op: dict[int, set] = {}
    fam_ids, fam_inverse = np.unique(out, return_inverse=True)
    pairs = np.unique(op_inverse * len(fam_ids) + fam_inverse.reshape(-1))
    for pair in pairs.tolist():
        op, fam = divmod(pair, len(fam_ids))
        if op_ids[op]:
            by_op.setdefault(op, set()).add(fam_ids[fam])
    for op, seen in by_op.items():
        algorithm = seen & {"winograd", "fft"}
        if "gemm" in seen and len(algorithm) == 1:   # the product stage of a non-fused Winograd or FFT convolution
            out[(op_inverse == op) & (out == "gemm")] = algorithm.pop()
    return out


def _family(name: str, has_hlo: bool) -> str:
    family = family_of(name)
    if family == "other" and has_hlo:
        prefix = name.split("_", 1)[0]
        if "fusion" in name or prefix == "wrapped":
            family = _XLA_FUSION.get(prefix, family)
    return family


def _copies(cap: Capture, rows: dict, names: np.ndarray, nbytes: dict) -> None:
    """Bytes of copies and memsets (from their stats), in place of any modelled bytes."""
    key = rows["name_id"] * max(len(cap.profiles), 1) + rows["profile"]
    distinct, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.reshape(-1)
    for j, k in enumerate(distinct.tolist()):
        name_id, profile = divmod(k, max(len(cap.profiles), 1))
        moved = copy_bytes_of(names[name_id], cap.profiles[profile])
        if not moved:
            continue
        members = inverse == j
        for column in nbytes.values():        # a copy's bytes replace the modelled ones
            column[members] = math.nan
        for level, value in moved.items():
            nbytes.setdefault(level, np.full(len(key), math.nan))[members] = value


def _say_sources(cap: Capture, kernels: KernelSet, sources: dict, warnings: list[Advice], modules) -> None:
    """One warning when no kernel got work; else which source gave how much,
    the share of kernel time with work, and why the rest has none."""
    computing = ~np.isin(kernels.families, list(COPIES))
    n_computing = int(computing.sum())
    for label, why in sorted(modules.failures.items()):
        warnings.append(Advice(f"HLO module {label}: {why}", "its kernels get no work from it",
                               subject="tensorflow"))
    if not any(sources.values()):
        shapes = ("its TF op events carry no input shapes (TensorFlow records them at "
                  "host_tracer_level=3)" if cap.host_ops else "it has no TF op events with input shapes")
        joined = len(modules) and any(str(w).startswith("HLO: ") for w in kernels.whys.tolist())
        hlo = ("the HLO instructions its kernels ran give no work (each row says why), " if joined
               else f"its kernels join none of the {len(modules)} embedded HLO modules, "
               if len(modules) else "it embeds no HLO module, ")
        warnings.append(Advice(f"no FLOP or byte counts for the {n_computing} kernels: the file has no XLA "
                               f"cost-analysis stats (flops, bytes_accessed), {hlo}and {shapes}",
                               "kernels keep their measured times and families; place them with a "
                               "kernels.csv that adds FLOPs, or profile with "
                               "tf.profiler.experimental.ProfilerOptions(host_tracer_level=3)",
                               subject="tensorflow"))
        return
    known = np.zeros(len(kernels), dtype=bool)
    for column in list(kernels.flops.values()) + list(kernels.bytes.values()):
        known |= ~np.isnan(column)
    unknown = int((computing & ~known).sum())
    parts = [f"{n} kernel launches from {what}" for n, what in ((sources["xla"], "XLA cost analysis (flops, bytes_accessed)"),
                                                 (sources["hlo"], "the HLO modules the profile embeds"),
                                                 (sources["tf"], "TF op shapes (direct convolution, GEMM)")) if n]
    time = np.nan_to_num(kernels.time_s)
    total = float(time[computing].sum())
    share = f" ({float(time[computing & known].sum()) / total:.0%} of kernel time)" if total > 0 else ""
    missing = _missing_reasons(kernels, computing & ~known, time, total)
    warnings.append(Advice(f"modelled work for {' and '.join(parts)}{share}; {unknown} of "
                           f"{n_computing} launches have none{missing}",
                           "modelled bytes are compulsory bytes: a lower bound on traffic", subject="tensorflow"))


def _missing_reasons(kernels: KernelSet, missing: np.ndarray, time: np.ndarray, total: float) -> str:
    """The three reasons with the most kernel time among launches without work."""
    by_why: dict[str, float] = {}
    for i in np.flatnonzero(missing).tolist():
        why = str(kernels.whys[i]) or "no HLO op, XLA cost or TF op shapes name its work"
        by_why[why] = by_why.get(why, 0.0) + float(time[i])
    top = sorted(by_why.items(), key=lambda kv: -kv[1])[:3]
    if not top or total <= 0:
        return ""
    return ": " + "; ".join(f"{why} ({t / total:.1%} of kernel time)" for why, t in top)


def _other_gpus(cap: Capture, busiest: str, time: dict) -> str:
    """What the planes say when GPUs of other figures ran kernels too (their
    kernels are placed on the roofs of the busiest one's profile)."""
    figures = ("name", "capability", "sms", "memory_bytes")
    mine = {k: v for k, v in device_properties(cap.devices[busiest]).items() if k in figures}
    other = sorted(d for d in cap.devices if time.get(d) and d != busiest and mine != {
        k: v for k, v in device_properties(cap.devices[d]).items() if k in figures})
    if not other:
        return ""
    return (f"; {len(other)} of them ({', '.join(other[:4])}{', ...' if len(other) > 4 else ''}) give other "
            "figures (name, compute capability, SMs or memory): their kernels are placed on the roofs of "
            f"{busiest}'s GPU")


def _device(cap: Capture, rows: dict, time_s: np.ndarray, warnings: list[Advice]) -> dict:
    """The properties of the GPU with the most kernel time, as
    ImportResult.device_properties (and its name under 'name', if given)."""
    # bincount adds in row order, as a loop over the kernels would
    per_device = np.bincount(rows["device_id"], weights=time_s, minlength=len(cap.device_names))
    ran = np.bincount(rows["device_id"], minlength=len(cap.device_names)) > 0
    time = {cap.device_names.values[i]: float(per_device[i]) for i in np.flatnonzero(ran).tolist()}
    busiest = max(cap.devices, key=lambda d: time.get(d, 0.0))
    if len([d for d in cap.devices if time.get(d)]) > 1:
        warnings.append(Advice(f"kernels ran on {len(time)} GPUs ({', '.join(sorted(time))}); the "
                               f"device is {busiest}, the one with the most kernel time"
                               + _other_gpus(cap, busiest, time), "each kernel's launch says its device",
                               subject="devices"))
    return device_properties(cap.devices[busiest])
