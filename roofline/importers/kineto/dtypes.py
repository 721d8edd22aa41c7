"""The dtype(s) of a PyTorch operator call, as a row of the output says it:
``bf16``; ``bf16,fp32`` for a call on tensors of two dtypes (group norm of
bf16 activations with fp32 weights); ``fp32->bf16`` for a cast.

A cast is what turns an fp32 model into a bf16 one under
``torch.autocast``: ``aten::to`` and ``aten::_to_copy`` name the target
dtype in their concrete arguments (a ``c10::ScalarType`` code), ``aten::copy_``
writes its second argument's dtype into its first's. Without the dtype
column those rows read as plain copies.

Only what the trace records is said: tensor lists carry no dtype (``""``
for a ``cat`` of them), nor do operators recorded without shapes. A row
over calls of several dtypes joins their labels with ``|`` (CPU rows of
operators without work of their own, GPU rows of one kernel name launched
by one operator name).
"""
from __future__ import annotations

import re

import numpy as np

from ...ops.call import Args, OpCall, is_shape
from .columns import distinct_ints
from .op_columns import OpEvents

# C++ dtype names of Kineto traces -> the short names rows carry
SHORT = {
    "double": "fp64", "float": "fp32", "c10::Half": "fp16", "c10::BFloat16": "bf16",
    "c10::Float8_e4m3fn": "fp8_e4m3", "c10::Float8_e5m2": "fp8_e5m2",
    "c10::Float8_e4m3fnuz": "fp8_e4m3fnuz", "c10::Float8_e5m2fnuz": "fp8_e5m2fnuz",
    "c10::complex<double>": "complex128", "c10::complex<float>": "complex64",
    "c10::complex<c10::Half>": "complex32",
    "long int": "int64", "long long int": "int64", "int": "int32", "unsigned int": "uint32",
    "short int": "int16", "unsigned short": "uint16", "signed char": "int8", "unsigned char": "uint8",
    "bool": "bool", "c10::quint8": "quint8", "c10::qint8": "qint8", "c10::qint32": "qint32",
}
CASTS_TO = ("aten::to", "aten::_to_copy")       # the target dtype is a concrete argument
COPY_INTO = ("aten::copy_",)                    # copy_(self, src): src's dtype into self's
ARROW = "->"
_TYPE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_:<> ]{0,47}")


def short(dtype) -> str | None:
    """``float`` -> ``fp32``; None for what is not a tensor dtype
    (``Scalar``, ``TensorList``, ``""``); an unlisted dtype keeps its C++ name."""
    if not isinstance(dtype, str) or not dtype.strip():
        return None
    if dtype in SHORT:
        return SHORT[dtype]
    if dtype in ("Scalar", "ScalarList", "TensorList", "GenericList", "Device", "Layout", "ScalarType",
                 "MemoryFormat", "Tensor(a)", "None"):
        return None
    # a dtype this table lacks (a newer torch's) keeps its name, if it looks like one (text from a file)
    return dtype if _TYPE_NAME.fullmatch(dtype) else None


def call_dtype(name: str, dims, types, concrete) -> str:
    """The dtype label of one call (see the module doc); "" when the trace
    records none."""
    if not isinstance(types, list) or not isinstance(dims, list):
        return ""
    args = Args(OpCall(name, dims=_frozen(dims), types=_frozen(types),
                       concrete=_frozen(concrete) if isinstance(concrete, list) else ()))
    try:
        tensors = [short(types[i]) for i in args.tensor_positions()]
    except TypeError:           # an argument type that is not text (a dict): the trace says nothing usable
        return ""
    seen = list(dict.fromkeys(t for t in tensors if t))
    if not seen:
        return ""
    cast = _cast(name, args, types, seen[0])
    if cast:
        return cast
    return ",".join(seen)


def _cast(name: str, args: Args, types: list, first: str) -> str:
    """``src->dst`` for a cast between two dtypes; "" otherwise."""
    if name in COPY_INTO and len(types) >= 2:
        dst, src = short(types[0]), short(types[1])
        return f"{src}{ARROW}{dst}" if dst and src and dst != src else ""
    if name in CASTS_TO:
        for i in (1, 2):                        # to(self, dtype, ...), to(self, device, dtype, ...)
            target = args.dtype_code(i) if i < len(types) and types[i] in ("Scalar", "ScalarType") else None
            if target is None and i == 1 and args.tensor(1) is not None:   # to(self, other)
                target = types[1]
            dst = short(target)
            if dst:
                return f"{first}{ARROW}{dst}" if dst != first else ""
    return ""


_PLAIN = (str, int, float, bool, type(None))


def _frozen(x):
    """A decoded JSON value with its lists as tuples and anything but a
    list or plain value (an object) as its text; one call per list."""
    if type(x) is list:
        return tuple([v if isinstance(v, _PLAIN) else _frozen(v) for v in x])
    return x if isinstance(x, _PLAIN) else repr(x)


def joined(labels) -> str:
    """Distinct non-empty labels of the calls behind one row, in order, joined by ``|``."""
    return "|".join(dict.fromkeys(x for x in labels if x))


def call_dtypes(ops: OpEvents, keys: tuple | None = None) -> dict[tuple, str]:
    """The dtype label of each distinct (operator name, call) of ``ops``
    (a call is its arguments: two operators may share one, and a cast is
    told by its name). ``keys``: ``ops.call_keys()`` where already found
    (:class:`.nesting.Nesting`)."""
    out: dict[tuple, str] = {}
    labels: dict[tuple, str] = {}
    for o in (ops.call_keys() if keys is None else keys)[0].tolist():
        name, c = ops.names[o], ops.call[o]
        if c >= 0:
            dims, types, _, concrete = ops.decoded(c)
            key = _label_key(name, dims, ops.calls[c])
            label = labels.get(key)
            if label is None:
                label = labels[key] = call_dtype(name, dims, types, concrete)
            out[(name, c)] = label
    return out


def _label_key(name: str, dims, raw: tuple) -> tuple:
    """What a call's label depends on (:func:`call_dtype`): its types, which
    of its arguments are tensors (their dims a shape: :meth:`Args.tensor`),
    and for a cast its name and concrete arguments. Calls alike in these get
    one label, worked out once: a trace of many shapes (a server's steps)
    has few of them. ``raw``: the call's (dims, types, strides, concrete) as
    raw JSON."""
    cast = name in CASTS_TO or name in COPY_INTO
    shapes = tuple(isinstance(d, list) and is_shape(d) for d in dims) if isinstance(dims, list) else None
    return (name if cast else None, raw[1], raw[3] if cast else None, shapes)


def op_dtypes(ops: OpEvents, keys: tuple | None = None) -> np.ndarray:
    """The dtype label of every operator ("" without shapes), and "" at the
    end for launches without one (op_of -1); ``keys`` as :func:`call_dtypes`."""
    labels, code = op_dtype_codes(ops, keys)
    return np.array(labels, dtype=object)[code]


def op_dtype_codes(ops: OpEvents, keys: tuple | None = None) -> tuple[list[str], np.ndarray]:
    """The distinct dtype labels and each operator's label's index among
    them, one more at the end ("") for launches without an operator: a
    code per operator from its (name, call) pair's, no string per operator."""
    if not ops.has_shapes:
        return [""], np.zeros(len(ops) + 1, dtype=np.int64)
    keys = ops.call_keys() if keys is None else keys
    by_call = call_dtypes(ops, keys)
    firsts, pair = keys
    per_pair = [by_call.get((ops.names[o], ops.call[o]), "") for o in firsts.tolist()] + [""]
    labels = list(dict.fromkeys(per_pair))
    index = {label: i for i, label in enumerate(labels)}
    return labels, np.array([index[x] for x in per_pair], dtype=np.int64)[np.append(pair, len(firsts))]


def row_dtypes(codes: np.ndarray, op_of: np.ndarray, labels: list[str], op_code: np.ndarray, m: int) -> list[str]:
    """Per row: the distinct dtype labels of the operators behind its
    launches, in order of first launch (:func:`joined`); ``codes``: each
    launch's row, ``op_of``: its operator (-1: none), ``labels`` and
    ``op_code``: :func:`op_dtype_codes`."""
    label_code = op_code[op_of]
    if not len(label_code):
        return [""] * m
    key = codes.astype(np.int64) * len(labels) + label_code
    first = distinct_ints(key)[0]          # each (row, label)'s first launch, ascending
    per_row: list[list] = [[] for _ in range(m)]
    for row, label in zip(codes[first].tolist(), label_code[first].tolist()):
        per_row[row].append(labels[label])
    return [joined(x) for x in per_row]
