"""The ``cpu_op`` events of a Kineto trace as columns, and its
``user_annotation`` ranges: what the events stage fills and every later
stage reads (nesting, operator work, dtypes, the step split).
"""
from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field

import msgspec
import numpy as np

from .columns import Ids, distinct, distinct_ints, int_column
from .decode import external_ids


def float_column() -> array:
    """A column of floats, 8 bytes each (a list holds a 24-byte object per
    float: 170 MB of a 900k-kernel trace's columns); numpy reads it in place."""
    return array("d")


def add_floats(column, values) -> None:
    """Append ``values`` (a numpy array or a list) to a float column (an
    ``array('d')``, or a list where a caller made one)."""
    if not isinstance(column, array):
        column += values.tolist() if isinstance(values, np.ndarray) else values
    elif isinstance(values, np.ndarray):
        column.frombytes(np.ascontiguousarray(values, dtype=np.float64).tobytes())
    else:
        column.extend(values)


@dataclass
class Annotations:
    """``record_function`` ranges (``user_annotation``) as columns: the
    ProfilerStep#N, Optimizer.step#... and user ranges the step split reads."""

    names: list = field(default_factory=list)
    ts: array = field(default_factory=float_column)
    dur: array = field(default_factory=float_column)
    thread: list = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.names)

    def extend(self, names: list, ts, dur, threads: list) -> None:
        self.names += names
        add_floats(self.ts, ts)
        add_floats(self.dur, dur)
        self.thread += threads


@dataclass
class OpEvents:
    """The ``cpu_op`` events of a trace as columns, in file order. The
    arguments of a call (shapes, dtypes, strides, concrete inputs) are kept
    once per distinct call, as raw JSON (``calls``), and each operator
    points at its call (``call``: -1 without shapes)."""

    names: list = field(default_factory=list)
    ts: array = field(default_factory=float_column)
    dur: array = field(default_factory=float_column)
    thread: list = field(default_factory=list)
    external_id: Ids = field(default_factory=Ids)
    call: Ids = field(default_factory=Ids)
    torch_flops: list = field(default_factory=list)
    calls: list = field(default_factory=list)          # (dims, types, strides, concrete) raw JSON bytes
    backward: list = field(default_factory=list)       # autograd ran it (its Fwd thread id is not 0)
    annotations: Annotations = field(default_factory=Annotations)
    _call_ids: dict = field(default_factory=dict)
    # (operators when computed, call_keys()): asked for by several stages
    _keys: tuple = field(default=(-1, None), compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.names)

    def extend(self, names: list, ts, dur, threads: list, args: list) -> None:
        """Add a batch of operators (columns of equal length, file order)."""
        self.names += names
        add_floats(self.ts, ts)
        add_floats(self.dur, dur)
        self.thread += threads
        self.external_id += external_ids(args)
        self.call += [self._call(a) for a in args]
        # forward operators carry Fwd thread id 0; autograd's nodes the forward's thread
        self.backward += [a is not None and a.fwd_thread not in (None, 0, "0") for a in args]
        flops = [None if a is None else a.flops for a in args]
        if flops.count(None) == len(flops):
            self.torch_flops += [math.nan] * len(flops)
        else:
            self.torch_flops += [f if is_count(f) else math.nan for f in flops]

    def _call(self, args) -> int:
        """Index of the call's distinct arguments (-1: no shapes)."""
        if args is None:
            return -1
        dims = args.input_dims if args.input_dims is not None else args.input_dims_2021
        if dims is None:
            return -1
        # inline: under cProfile a call per field was 0.33 s of this function's 1.15 s (300k calls)
        t, st, c = args.input_type, args.input_strides, args.concrete
        return self.call_of((bytes(dims), t if t is None else bytes(t), st if st is None else bytes(st),
                             c if c is None else bytes(c)))

    def call_of(self, key: tuple) -> int:
        """Index of the distinct call (dims, types, strides, concrete) as raw
        JSON bytes (-1: no dims, so no shapes)."""
        if key[0] is None:
            return -1
        call = self._call_ids.get(key)
        if call is None:
            call = self._call_ids[key] = len(self.calls)
            self.calls.append(key)
        return call

    def call_keys(self) -> tuple:
        """The distinct (operator name, call) pairs: the first operator of
        each (int64, ascending) and each operator's pair among them (int64).
        The models and dtypes are worked out once per pair, not per operator."""
        n, keys = self._keys
        if n != len(self.names):         # columns grown since (a merged half)
            keys = self._call_keys()
            self._keys = (len(self.names), keys)
        return keys

    def _call_keys(self) -> tuple:
        """:meth:`call_keys` found on integer codes: each (name, call) pair
        one int64 (name code x (calls + 1) + call + 1), numbered by a table."""
        n = len(self.names)
        if not n:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        name_code = distinct(self.names, n)[1]
        call = int_column(self.call)
        return distinct_ints(name_code * (len(self.calls) + 1) + (call + 1))

    @property
    def has_shapes(self) -> bool:
        return bool(self.calls)

    def decoded(self, call: int) -> tuple:
        """(dims, types, strides, concrete) of a distinct call as Python
        values (None where the trace has no such field or it is not JSON)."""
        return tuple(json_or_none(raw) for raw in self.calls[call])


def json_or_none(raw: bytes | None):
    """Raw JSON bytes decoded (None for None and for bytes that are not JSON)."""
    if raw is None:
        return None
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return None


def is_count(x) -> bool:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x) and x >= 0
    except OverflowError:        # an integer past any float: no count
        return False
