"""Collectives: what a communication operator or kernel is, and its size.

A PyTorch trace names a collective in several places, and a size in some
of them (``docs/pytorch.md``, "Collectives"):

* the arguments PyTorch writes on ``record_param_comms`` and, since 2024,
  on the NCCL kernel itself: ``Collective name`` (``allreduce``,
  ``_allgather_base``, ``alltoall_base``, ``wait`` ...), ``In msg nelems``,
  ``Out msg nelems``, ``Group size``, ``dtype`` (a ``c10::ScalarType``
  name: ``Float``, ``BFloat16``), ``Process Group Name`` and ``Process
  Group Ranks`` (torch/csrc/profiler/util.h);
* the operators: ``nccl:all_reduce`` (a ``user_annotation`` whose ``Input
  Dims``/``Input type`` are the input tensor, the only size in older
  traces), ``c10d::_allgather_base_(output, input, ...)``,
  ``c10d::_reduce_scatter_base_(output, input, ...)``,
  ``c10d::alltoall_base_(output, input, ...)``, ``symm_mem::multimem_all_reduce_(input, ...)``,
  ``symm_mem::one_shot_all_reduce``, ``symm_mem::two_shot_all_reduce_``,
  ``vllm::all_reduce(input, ...)``, ``vllm::outplace_all_reduce``;
* the kernel's name: ``ncclKernel_AllReduce_RING_LL_Sum_float``,
  ``ncclDevKernel_AllGather_RING_LL`` (collective, algorithm, protocol),
  ``multimem_all_reduce_kernel``, DeepEP's ``dispatch``/``combine``.

``wait`` (and ``_c10d_functional::wait_tensor``) is no collective: it only
waits for one, and moves nothing. The size of a collective is ``S`` as
nccl-tests counts it (:func:`roofline.core.comm.message_elements`).
"""
from __future__ import annotations

import math
import re

from ..core.comm import (ALL_GATHER, ALL_REDUCE, ALL_TO_ALL, BROADCAST, GATHER, REDUCE, REDUCE_SCATTER,
                         SCATTER, SEND_RECV)
from .call import dtype_bytes, known_dtype

WAIT = "wait"        # a pseudo-collective: no traffic

# c10::ScalarType names (the ``dtype`` argument) -> bytes per element
SCALAR_TYPE_BYTES = {
    "Byte": 1, "Char": 1, "Bool": 1, "Short": 2, "Int": 4, "Long": 8, "Half": 2, "Float": 4, "Double": 8,
    "ComplexHalf": 4, "ComplexFloat": 8, "ComplexDouble": 16, "BFloat16": 2, "QInt8": 1, "QUInt8": 1,
    "QInt32": 4, "Float8_e5m2": 1, "Float8_e4m3fn": 1, "Float8_e5m2fnuz": 1, "Float8_e4m3fnuz": 1,
    "UInt16": 2, "UInt32": 4, "UInt64": 8, "Float8_e8m0fnu": 1, "Float4_e2m1fn_x2": 1,
    # C++ names older traces write in Input type
    "long": 8, "long long": 8, "unsigned long": 8, "short": 2, "unsigned short": 2, "char": 1,
}

# a name's words (lower case, no underscores) -> the collective, first match wins
_WORDS = (("allreduce", ALL_REDUCE), ("allgather", ALL_GATHER), ("reducescatter", REDUCE_SCATTER),
          ("alltoall", ALL_TO_ALL), ("broadcast", BROADCAST), ("sendrecv", SEND_RECV),
          ("send", SEND_RECV), ("recv", SEND_RECV), ("barrier", ALL_REDUCE), ("reduce", REDUCE),
          ("gather", GATHER), ("scatter", SCATTER))
_WAITS = ("wait", "waittensor", "waitall")


_WORD = re.compile("|".join(w for w, _ in _WORDS))
_COLLECTIVE_OF = dict(_WORDS)


def canonical(name: str) -> str | None:
    """``allreduce``, ``_allgather_base``, ``nccl:_reduce_scatter_base``,
    ``c10d::alltoall_base_``, ``symm_mem::multimem_all_reduce_``,
    ``symm_mem::two_shot_all_reduce_``, ``vllm::outplace_all_reduce`` -> the
    collective (``all_reduce`` ...): the first collective word of the name's
    last part, wherever it starts (after ``multimem``, ``one_shot``,
    ``outplace`` ...; at one place the longer word: ``reduce_scatter``, not
    ``reduce``); ``wait`` -> :data:`WAIT`; None when the name is no
    collective."""
    if not isinstance(name, str):
        return None
    text = re.split(r"::|:", name)[-1].lower().replace("_", "")
    if text in _WAITS or text.startswith("wait"):
        return WAIT
    m = _WORD.search(text)        # alternatives in _WORDS order: the longer word first at one place
    return _COLLECTIVE_OF[m.group(0)] if m else None


_OPERATOR = re.compile(r"^(nccl|rccl|gloo|mpi|ucc|xccl|hccl):|^c10d::|^_c10d_functional::|^c10d_functional::"
                       r"|^symm_mem::|^vllm::(outplace_|inplace_)?(all_reduce|all_gather|reduce_scatter)"
                       r"|^_C_custom_ar::|^trtllm::\w*allreduce")


def is_comm_operator(name: str) -> bool:
    """An operator that launches a collective (and whose name says which)."""
    return bool(_OPERATOR.match(name)) and canonical(name) is not None


_NCCL = re.compile(r"nccl(?:Dev)?Kernel_(AllReduce|AllGather|ReduceScatter|Broadcast|Reduce|SendRecv|AllToAll"
                   r"|Generic)(?:_(RING|TREE|NVLS_TREE|NVLSTREE|NVLS|COLLNET_DIRECT|COLLNET_CHAIN|PAT))?"
                   r"(?:_(LL128|LL|SIMPLE))?", re.IGNORECASE)
_NCCL_ALGO = re.compile(r"_(RING|TREE|NVLS_TREE|NVLSTREE|NVLS|COLLNET_DIRECT|COLLNET_CHAIN|PAT)_(LL128|LL|SIMPLE)\b")
_NCCL_COLL = {"allreduce": ALL_REDUCE, "allgather": ALL_GATHER, "reducescatter": REDUCE_SCATTER,
              "broadcast": BROADCAST, "reduce": REDUCE, "sendrecv": SEND_RECV, "alltoall": ALL_TO_ALL}
IN_SWITCH = ("nvls", "nvls_tree", "nvlstree", "collnet_direct", "collnet_chain", "multimem")


def from_kernel_name(name: str) -> tuple[str | None, str]:
    """(collective, algorithm) a communication kernel's name states; the
    collective is None when the name does not say (RCCL's
    ``ncclDevKernel_Generic``). NCCL's kernel is named after the first
    collective of its launch: an operator's own collective wins."""
    low = name.lower()
    m = _NCCL.search(name)
    if m:
        coll = _NCCL_COLL.get(m.group(1).lower())
        algo = _NCCL_ALGO.search(name)
        parts = [p.lower() for p in (algo.groups() if algo else (m.group(2), m.group(3))) if p]
        return coll, " ".join(parts)
    if "multimem_all_reduce" in low or "multimem_allreduce" in low:
        return ALL_REDUCE, "multimem"
    if "one_shot_all_reduce" in low:
        return ALL_REDUCE, "one-shot"
    if "two_shot_all_reduce" in low:
        return ALL_REDUCE, "two-shot"
    if "cross_device_reduce" in low:
        return ALL_REDUCE, "vllm custom"
    if "dpsk::ep::" in low or "deep_ep::" in low or "deepep" in low:
        return ALL_TO_ALL, "deepep"
    return canonical(re.sub(r"[^a-z_]", "_", low.split("<")[0].split("(")[0]).strip("_")), ""


def in_switch(algorithm: str) -> bool:
    """The algorithm reduces in the switch or the network (NVLS, SHARP)."""
    return any(a in algorithm for a in IN_SWITCH)


def element_bytes(dtype) -> int | None:
    """Bytes per element of a ``dtype`` argument (``Float``) or an ``Input
    type`` (``float``, ``c10::BFloat16``); None when unknown."""
    if not isinstance(dtype, str):
        return None
    if dtype in SCALAR_TYPE_BYTES:
        return SCALAR_TYPE_BYTES[dtype]
    if known_dtype(dtype):
        return dtype_bytes(dtype)
    return None


def _numel(dims) -> int | None:
    if isinstance(dims, list) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in dims):
        return math.prod(dims)
    return None


def _tensors(dims, types) -> list[tuple[int, str]]:
    """(elements, dtype) of every tensor argument (TensorList members summed
    under the list's dtype: float, as recorded types go)."""
    out = []
    if not isinstance(dims, list):
        return out
    for j, d in enumerate(dims):
        t = types[j] if isinstance(types, list) and j < len(types) else ""
        if not isinstance(t, str) or t in ("Scalar", "ScalarList", "", "GenericList", "Device"):
            continue
        if t == "TensorList":
            if isinstance(d, list) and d and all(isinstance(x, list) for x in d):
                sizes = [_numel(x) for x in d]
                if None not in sizes:
                    out.append((sum(sizes), "float"))
            continue
        n = _numel(d)
        if n is not None and d != []:
            out.append((n, t))
    return out


# operators whose first tensor is the output and second the input
_OUTPUT_FIRST = ("_allgather_base", "_reduce_scatter_base", "alltoall_base", "allgather_into_tensor",
                 "reduce_scatter_tensor", "all_gather_into_tensor")


def operator_message(name: str, dims, types) -> dict | None:
    """What an operator's recorded shapes say of its collective:
    ``collective``, ``in`` and ``out`` elements, ``dtype`` and, where the
    shapes give it, ``group`` (all-gather and reduce-scatter: the ratio of
    their output and input); None when the shapes say nothing."""
    coll = canonical(name)
    if coll in (None, WAIT):
        return None
    tensors = _tensors(dims, types)
    if not tensors:
        return None
    short = re.split(r"::|:", name)[-1].strip("_")
    if len(tensors) >= 2 and any(short.startswith(p.strip("_")) for p in _OUTPUT_FIRST):
        (out_n, dtype), (in_n, _) = tensors[0], tensors[1]
    elif name.startswith(("nccl:", "rccl:")) or len(tensors) == 1:
        in_n, dtype = tensors[0]
        out_n = in_n if coll not in (ALL_GATHER, REDUCE_SCATTER) else math.nan
    else:
        in_n, dtype = tensors[0]
        out_n = in_n
    group = None
    if coll == ALL_GATHER and in_n > 0 and out_n == out_n and out_n % in_n == 0:
        group = int(out_n // in_n)
    elif coll == REDUCE_SCATTER and out_n == out_n and out_n > 0 and in_n % out_n == 0:
        group = int(in_n // out_n)
    if out_n != out_n:
        out_n = 0
    return {"collective": coll, "in": float(in_n), "out": float(out_n), "dtype": dtype, "group": group}


def parse_ranks(text) -> tuple[int, ...] | None:
    """``"[0, 1, 2]"`` (or a list) -> (0, 1, 2); None when it is no list of ranks."""
    if isinstance(text, list):
        values = text
    elif isinstance(text, str) and text.strip().startswith("["):
        try:
            values = [int(v) for v in text.strip()[1:-1].split(",") if v.strip()]
        except ValueError:
            return None
    else:
        return None
    if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        return tuple(values)
    return None
