"""What a TensorFlow/JAX profile says, as columns: the readers
(:mod:`.xplane`, :mod:`.xplane_json`) fill a :class:`Capture`, and
:mod:`.xplane_kernels` turns it into kernels.

A profile of millions of GPU events repeats a few kernel names and a few
combinations of stats (the launch configuration, the op that launched the
kernel); what differs per event is its time and its correlation id. So
each event is a row of numbers: its name's index in :attr:`Capture.names`,
its *profile*'s index in :attr:`Capture.profiles` (the stats it carries
with its metadata's, correlation id aside, as a dict made once per distinct
combination), its device, stream, start, duration and correlation id.
Host events leave only sums (API time per call, calls per TF op and input
shape) and the distinct output shapes of each op. Only the stats in
:data:`USED_STATS` are kept: the readers skip the others undecoded.
"""
from __future__ import annotations

from array import array
from collections import defaultdict

import numpy as np

from .xplane_stats import TF_OP, output_dims

# Every stat the kernels module reads (operator_of, launch_config, copies,
# XLA cost analysis, host events); everything else is skipped.
USED_STATS = frozenset({"tf_op", "hlo_op", "hlo_module", "annotation", "level 0", "long_name", "kernel_details",
                        "correlation_id", "memcpy_details", "Memset_details", "memset_details", "flops",
                        "model_flops", "bytes_accessed", "shape", "region_type", "program_id"})
CORRELATION = "correlation_id"
NO_ID = -1


class Interner:
    """Distinct values in order of first sight, each with its index."""

    def __init__(self):
        self.values: list = []
        self._index: dict = {}

    def id_of(self, value) -> int:
        found = self._index.get(value)
        if found is None:
            found = self._index[value] = len(self.values)
            self.values.append(value)
        return found

    def __len__(self) -> int:
        return len(self.values)


class Capture:
    """The GPU activity (columns), device stats and host sums of one profile."""

    def __init__(self, path: str, fmt: str):
        self.path, self.format = path, fmt
        self.names = Interner()
        self.profiles: list[dict] = []            # distinct stat dicts (correlation id aside)
        self._profile_ids: dict = {}
        self.profile_names = array("q")           # XPlane: each profile's event name (index in names)
        self.devices: dict = {}                   # GPU plane/process name -> its stats
        self.device_names = Interner()
        # one entry per GPU stream event, in file order
        self.name_id, self.device_id, self.profile = array("q"), array("q"), array("q")
        self.stream, self.correlation = array("q"), array("q")
        self.start_ns, self.duration_ns = array("d"), array("d")
        self.lo, self.hi = float("inf"), float("-inf")
        self.api_ns: dict = {}                    # host API name -> total ns
        self.op_shapes: dict = defaultdict(dict)  # TF op name -> {input 'shape' stat: calls}
        self.op_outputs: dict = defaultdict(list)  # TF op name -> distinct output shapes, first seen first
        self.hlo_costs: dict = {}                 # (plane, "module/op") -> (stats, occurrences)
        self.hlo_protos: dict = {}                # "module(program id)" -> serialized HloProto (bytes)
        self.host_ops = 0
        self._host_actions: dict = {}
        self._hlo_keys: dict = {}

    # ------------------------------------------------------------ filling

    def profile_id(self, key, make) -> int:
        """The index of the profile ``key`` stands for; ``make()`` builds
        its stats dict the first time."""
        found = self._profile_ids.get(key)
        if found is None:
            found = self._profile_ids[key] = len(self.profiles)
            self.profiles.append(make())
        return found

    def see(self, start_ns: float, end_ns: float) -> None:
        """An event of any kind widens the profile's span."""
        if start_ns < self.lo:
            self.lo = start_ns
        if end_ns > self.hi:
            self.hi = end_ns

    def add_activity(self, name_id: int, device_id: int, stream: int, start_ns: float, duration_ns: float,
                     profile: int, correlation) -> None:
        self.name_id.append(name_id)
        self.device_id.append(device_id)
        self.stream.append(stream)
        self.start_ns.append(start_ns)
        self.duration_ns.append(duration_ns)
        self.profile.append(profile)
        self.correlation.append(correlation_column(correlation, self.profiles[profile]))

    def host_event(self, name: str, profile: int, correlated: bool, duration_ns: float) -> None:
        """What a host event says: API time, a TF op call with its input
        shape, the output shape of an allocation (once per distinct one)."""
        key = (name, profile, correlated)
        action = self._host_actions.get(key)
        if action is None:
            action = self._host_actions[key] = host_action(self, name, self.profiles[profile], correlated)
        if action[0] == "api":
            self.api_ns[action[1]] = self.api_ns.get(action[1], 0.0) + duration_ns
        elif action[0] == "op":
            self.host_ops += 1
            if action[2] is not None:
                calls = self.op_shapes[action[1]]
                calls[action[2]] = calls.get(action[2], 0) + 1

    def hlo_event(self, device: str, name: str, profile: int) -> None:
        """An ``XLA Ops`` event: its HLO op's cost analysis, with how often it ran."""
        key = (device, name, profile)
        target = self._hlo_keys.get(key)
        if target is None:
            target = self._hlo_keys[key] = hlo_key(device, name, self.profiles[profile])
        if target is not None:
            known = self.hlo_costs.get(target)
            self.hlo_costs[target] = (self.profiles[profile], 1 + (known[1] if known else 0))

    # ------------------------------------------------------------ reading

    @property
    def span_ns(self) -> tuple[float, float] | None:
        return (self.lo, self.hi) if self.lo <= self.hi else None

    def rows(self) -> dict:
        """The activity columns as numpy arrays, ordered by start time
        (events that start together keep their order in the file); asked
        once: the capture's own columns are emptied."""
        start = np.frombuffer(self.start_ns, dtype=np.float64)
        order = np.argsort(start, kind="stable")
        as_array = {"name_id": (self.name_id, np.int64), "device_id": (self.device_id, np.int64),
                    "profile": (self.profile, np.int64), "stream": (self.stream, np.int64),
                    "correlation": (self.correlation, np.int64), "start_ns": (self.start_ns, np.float64),
                    "duration_ns": (self.duration_ns, np.float64)}
        out = {k: np.frombuffer(v, dtype=t)[order] for k, (v, t) in as_array.items()}
        for name in as_array:           # the sorted copies are all that is kept: free the unsorted ones
            setattr(self, name, array(getattr(self, name).typecode))
        return out


def correlation_column(value, stats: dict) -> int:
    """The correlation id a launch column keeps: the event's, else its
    profile's; only a whole number an int64 holds (others: NO_ID)."""
    if value is None:
        value = stats.get(CORRELATION)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 63:
        return value
    return NO_ID


def host_action(cap: Capture, name: str, stats: dict, correlated: bool) -> tuple:
    """What every host event of this name and stats adds: ("api", call name),
    ("op", TF op name, input shape or None), or ("none",) (an output
    allocation's shape is kept here, once)."""
    if correlated or CORRELATION in stats:
        # a launch is recorded under the kernel's name, a copy as MemcpyH2D/D2H
        if "memcpy_details" in stats:
            return "api", "cuMemcpyAsync" if "async:1" in str(stats["memcpy_details"]) else "cuMemcpy"
        if "kernel_details" in stats or not name.startswith(("cu", "Memset", "Memcpy")):
            return "api", "cuLaunchKernel"
        return "api", name
    if name == "MemoryAllocation":
        op, shape = stats.get("tf_op"), stats.get("shape")
        if stats.get("region_type") == "output" and isinstance(op, str) and op and isinstance(shape, str):
            dims = output_dims(shape)
            if dims and dims not in cap.op_outputs[op]:
                cap.op_outputs[op].append(dims)
        return ("none",)
    if TF_OP.match(name):
        shape = stats.get("shape")
        return "op", name.partition(":")[0], shape if isinstance(shape, str) and shape.startswith("(") else None
    return ("none",)


def hlo_key(device: str, name: str, stats: dict):
    """The (plane, "module/op") an XLA Ops event's cost analysis is kept
    under, or None when it carries none."""
    if not name or not any(k in stats for k in ("flops", "model_flops", "bytes_accessed")):
        return None
    module = stats.get("hlo_module")
    return device, f"{module}/{name}" if isinstance(module, str) and module else name
