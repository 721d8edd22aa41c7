"""Operator cost models: what an ATen operator call costs, from the shapes,
dtypes and scalar arguments a PyTorch profiler records.

``op_work(OpCall("aten::addmm", dims, types, strides, concrete))`` gives an
:class:`OpWork`: FLOP per precision and the compulsory bytes (every input
read once, every output written once: a lower bound on traffic, so the
intensity it gives is an upper bound), the operator family, whether the
FLOPs are matrix multiply-adds, and the assumptions made. One module per
family: :mod:`.matmul`, :mod:`.conv`, :mod:`.attention`, :mod:`.norm`,
:mod:`.softmax`, :mod:`.elementwise`, :mod:`.reduction`, :mod:`.pooling`,
:mod:`.embedding`, :mod:`.optimizer`, :mod:`.rnn` (oneDNN's recurrent
layers), :mod:`.upsample` (resampling), :mod:`.views`; layer-level models of
convolution algorithms (Winograd, FFT, explicit GEMM) are in :mod:`.layers`;
the custom operators of LLM serving libraries (vLLM, SGLang, FlashAttention,
FlashInfer), named by their registered schema (``_C::rms_norm``,
``vllm::moe_forward``), in :mod:`.serving`, :mod:`.moe`,
:mod:`.paged_attention`, :mod:`.kv_attention` (FlashAttention-3, MLA decode)
and :mod:`.flashinfer`; aiter's RMSNorm operators (``aiter::rmsnorm``,
``aiter::rmsnorm2d_fwd_with_add_ck``) in :mod:`.aiter`; triton_kernels' MoE
routing (the ``TopK`` and ``SortTokens`` autograd Functions, recorded by
their class name) in :mod:`.routing`; aiter's SageAttention launches in :mod:`.sage`;
TorchInductor's Triton kernels (``triton_poi_fused_add_cos_sin_0``, named
by their launcher) in :mod:`.triton`; what a collective is and moves in
:mod:`.collectives`.

May import: ``roofline.core`` only (and the standard library): a model
takes a call's shapes and returns work; it reads no file and knows no
device. The Kineto reader (:mod:`roofline.importers.kineto`) calls it.
"""
from __future__ import annotations

from . import aiter, attention, conv, elementwise, embedding, flashinfer, kv_attention, matmul, moe, norm, optimizer
from . import paged_attention, pooling, reduction, rnn, routing, sage, serving, softmax, triton, upsample
from .call import FAMILIES, Args, OpCall, OpWork, UnknownWork, tensor_core_key
from .elementwise import RANDOM_OPERATORS, RNG_NOTE
from .views import VIEWS

NAMESPACE = "aten::"

_MODELS = {}
for _module in (matmul, conv, attention, norm, softmax, elementwise, reduction, pooling,
                embedding, optimizer, rnn, upsample):
    _MODELS.update(_module.MODELS)

# custom operators, by their full registered name (namespace::name)
_CUSTOM = {}
for _module in (serving, moe, paged_attention, kv_attention, flashinfer, aiter, routing):
    _CUSTOM.update(_module.MODELS)

MODELLED_OPERATORS = frozenset({NAMESPACE + n for n in set(_MODELS) | VIEWS} | set(_CUSTOM))
_NO_WORK = OpWork({}, 0.0, "view")


def _short(name: str) -> str | None:
    return name[len(NAMESPACE):] if name.startswith(NAMESPACE) else None


def _model_of(name: str):
    """The model of an ATen operator by its short name, else of a custom
    operator by its full name (None: no model)."""
    short = _short(name)
    if short is not None:
        return _MODELS.get(short)
    return _CUSTOM.get(name) or _pattern_model(name)


# operators known by a pattern of their name: FlashInfer's attention by its JIT module,
# SageAttention's Triton launches by their kernel, SGLang's numbered profiler ranges
_PATTERNED = (flashinfer, sage, paged_attention)


def _pattern_model(name: str):
    return next((m for m in (p.pattern_model(name) for p in _PATTERNED) if m is not None), None)


def is_view(name: str) -> bool:
    """An operator with no work of its own (view, allocation, dispatch)."""
    return _short(name) in VIEWS


def has_model(name: str) -> bool:
    return (name in MODELLED_OPERATORS or (name.startswith(triton.PREFIX) and triton.parse(name) is not None)
            or _pattern_model(name) is not None)


def generates_random(name: str) -> bool:
    """The operator's time goes to generating random numbers (``bernoulli_``
    of dropout, ``normal_``, ``uniform_``, ``native_dropout``...): work no
    FLOP or bandwidth roof bounds; its model's notes hold ``RNG_NOTE``."""
    return _short(name) in RANDOM_OPERATORS


def unknown_reason(call: OpCall) -> str | None:
    """Why the model of ``call``'s operator cannot size it from what the
    trace recorded (``op_work`` gives None for it), or None: no such
    reason (a model answered, or none exists, or the arguments are not the
    operator's)."""
    model = _model_of(call.name)
    if model is None:
        return None
    try:
        model(Args(call))
    except UnknownWork as e:
        return str(e)
    except (LookupError, ValueError, TypeError, ZeroDivisionError, OverflowError):
        return None
    return None


def op_work(call: OpCall) -> OpWork | None:
    """The model's answer for ``call``; None when the operator has no model
    or its recorded arguments do not fit it (never raises)."""
    short = _short(call.name)
    if short in VIEWS:
        return _NO_WORK
    if call.name.startswith(triton.PREFIX):
        try:
            return triton.triton_work(call.name, Args(call))
        except (LookupError, ValueError, TypeError, ZeroDivisionError, OverflowError):
            return None
    model = _model_of(call.name)
    if model is None:
        return None
    try:
        return model(Args(call))
    except (LookupError, ValueError, TypeError, ZeroDivisionError, OverflowError):
        return None


__all__ = ["FAMILIES", "MODELLED_OPERATORS", "RNG_NOTE", "OpCall", "OpWork", "generates_random",
           "has_model", "is_view", "op_work", "tensor_core_key", "unknown_reason"]
