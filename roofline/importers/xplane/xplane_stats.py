"""What the stats of a TensorFlow/JAX event say, one stats dict at a time:
its framework op, launch configuration, copy size, XLA cost analysis, and
a GPU plane's device properties. :mod:`.xplane_kernels` asks these once
per distinct stats dict (a profile of :mod:`.xplane_capture`), not per event.
"""
from __future__ import annotations

import math
import re

from ...core.kernel_precision import precision_from_name
from ..copies import copy_bytes, direction_named, set_bytes

_COPY = re.compile(r"^Memcpy(H2D|D2H|D2D|P2P)\b")
# a size of more than 20 digits is no copy (and int() of thousands of digits is slow)
_SIZE = re.compile(r"(?:^|\s)size:(\d{1,20})(?!\d)")
TF_OP = re.compile(r"^[A-Za-z0-9_.\-/>]+:[A-Za-z_][A-Za-z0-9_]*$")
FLOP_STATS = ("flops", "model_flops")
BYTE_STATS = ("bytes_accessed",)
# launch_config: a dimension or count of more digits than this is damaged
_MAX_DIGITS = 19


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
    hlo = stats.get("hlo_op")
    # JAX writes tf_op "XlaModule:" (a module, no op) beside the HLO op: the HLO op names it better
    if isinstance(op, str) and op.strip() and not (op.strip().endswith(":") and isinstance(hlo, str) and hlo.strip()):
        return op.strip()
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
        if len(value) > 4 * _MAX_DIGITS:
            continue
        try:
            if key in ("grid", "block"):
                dims = tuple(int(v) for v in value.split(","))
                if dims and all(0 < d < 2 ** 31 for d in dims):
                    out[key] = dims
            elif key == "regs" and len(value) <= _MAX_DIGITS:
                out["registers_per_thread"] = int(value)
            elif key in ("shm", "static_shared", "dynamic_shared") and len(value) <= _MAX_DIGITS:
                shared += int(value)
                seen_shared = True
        except ValueError:
            continue
    if seen_shared:
        out["shared_bytes"] = shared
    return out


def blocks_of(launch: dict) -> float:
    """Thread blocks of a launch: the product of its grid (NaN without one)."""
    grid = launch.get("grid")
    return float(math.prod(grid)) if grid else math.nan


def output_dims(text: str) -> tuple[int, ...] | None:
    """An allocation's ``shape`` stat ``[8,32,32,16]`` -> its dimensions."""
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")) or len(body) > 4096:
        return None
    try:
        return tuple(int(d) for d in body[1:-1].split(",") if d.strip())
    except ValueError:
        return None


def copy_bytes_of(name: str, stats: dict) -> dict:
    """Bytes a copy moved (on the level it crosses) or a memset wrote (DRAM)."""
    copy = _COPY.match(name)
    if copy:
        size = _SIZE.search(str(stats.get("memcpy_details", "")))
        return copy_bytes(direction_named(copy.group(1)), float(size.group(1))) if size else {}
    if name.startswith("Memset"):
        size = _SIZE.search(str(stats.get("Memset_details", stats.get("memset_details", ""))))
        return set_bytes(float(size.group(1))) if size else {}
    return {}


def xla_cost(stats: dict) -> tuple[float, float | None] | None:
    """(FLOP, bytes or None) of XLA's cost analysis in ``stats``, or None."""
    flops = next((float(stats[k]) for k in FLOP_STATS if number(stats.get(k))), None)
    nbytes = next((float(stats[k]) for k in BYTE_STATS if number(stats.get(k))), None)
    if flops is None and nbytes is None:
        return None
    return (flops or 0.0, nbytes)


def precision_key(name: str) -> str:
    """The precision XLA's FLOPs of a kernel go on: the one its name
    states, else fp32 (XLA's counts carry no dtype)."""
    found = precision_from_name(name)
    return found.precision if found else "fp32"


def number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


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
