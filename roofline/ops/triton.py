"""TorchInductor's Triton kernels, from their launcher's record and name.

Inductor names a kernel ``triton_<kind>_fused_<ops>_<n>``: its kind
(``poi`` pointwise, ``red``/``per`` reduction, ``tem`` a template: matrix
multiply or convolution, ``for`` foreach, ``spl`` split scan) and the ATen
operators fused in it, in alphabetical order, each listed once (at most
``config.kernel_name_max_ops``, 10). Its launch is a ``cpu_op`` named like
the kernel whose ``Input Dims``/``Input type``/``Input Strides`` are the
kernel's pointer arguments and whose ``Concrete Inputs`` hold its scalar
ones: the element counts ``xnumel`` (last) and, for reductions,
``rnumel`` (``triton_red_..._0(in_ptr0, ..., xnumel, r0_numel)``).

Work, most trusted first:

* ``kernel_flop`` and ``kernel_num_gb`` on the launcher (torch >= 2.9 with
  ``TORCHINDUCTOR_BENCHMARK_KERNEL=1``: Inductor's own counts): taken as they
  are (:func:`counted_work`);
* a template (``tem``) from its shapes: the first tensors ``A [.., M, K]``
  and ``B [.., K, N]`` give ``2 x batch x M x N x K``; a convolution template
  ``x [N, C, H, W]``, ``w [K, C/g, R, S]`` and its output ``[N, K, P, Q]`` give
  ``2 x N x K x P x Q x C/g x R x S`` (matrix FLOPs, on the tensor units of
  the dtype);
* any other kind: the **compulsory bytes** (every tensor argument read or
  written once; an expanded, stride-0 dimension counted once) and FLOPs
  ``sum over fused ops of cost(op) x xnumel x rnumel`` with the per-op
  costs of :data:`COST` (the same counts the ATen models use:
  :mod:`.elementwise`, :mod:`.reduction`, :mod:`.norm`, :mod:`.softmax`;
  views and copies 0). Each op is counted once per element of the
  iteration space: an op the graph applies twice counts once, one applied
  per row (``rsqrt`` of a norm) counts per element; ops the table does not
  know count 0 and are named in the assumptions. Half types compute in
  fp32, integer arithmetic is not counted (as for ATen element-wise ops).

An ``in_out_ptr`` is read and written but appears once among the pointers,
and the launch does not name its pointers; it is counted twice only where
the launch shows it (:func:`in_place_buffer`). Inductor orders a kernel's
pointers ``in_out_ptr*``, then ``in_ptr*``, then ``out_ptr*``
(``KernelArgs.python_argdefs``), and a pointwise kernel stores every
element of its iteration space (``xnumel``) into each buffer it writes. So
when the *last* pointer of a pointwise launch holds fewer elements than
``xnumel``, it cannot be written: the kernel has no ``out_ptr`` and what it
stores goes to ``in_out_ptr0``, the first pointer, read and written
(``triton_poi_fused_addmm_gelu_view_15(in_out_ptr0 [2, 4096, 9728],
in_ptr0 [9728], xnumel)``: the GEMM's result read, bias and GELU applied,
written back). Everything else stays counted once, a lower bound, where
the pointers alone cannot tell an in-place launch from an out-of-place one
(``(in_out_ptr0, in_ptr0)`` and ``(in_ptr0, out_ptr0)`` of the same shape
look alike): TraceLens adds an output write for every pointwise kernel;
this does not.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache

from . import elementwise, norm, reduction, softmax
from .call import Args, OpWork, Tensor, distinct_elements, dtype_bytes, dtype_precision, tensor_core_key, vector_precision, work  # noqa: F401
from .views import VIEWS

PREFIX = "triton_"
_NAME = re.compile(r"^triton_(poi|red|per|tem|for|spl)_(?:fused_)?(.*?)(?:_(\d+))?$")

# FLOP per element of the iteration space, per fused ATen op. Sources: the
# ATen models of this package (their module docs give the formulas).
COST: dict[str, int] = {}
COST.update(elementwise.COST)                         # add 1, mul 1, exp 1, silu 5, gelu 5 ...
COST.update(reduction.COST)                           # sum 1, mean 1, var 3, var_mean 4 ...
COST.update({
    # norm.py: statistics 4, normalise 2, affine 1 + 1; backward: input 8, weight 2, bias 1
    "native_layer_norm": norm.STATS + norm.NORMALISE + 2, "native_group_norm": norm.STATS + norm.NORMALISE + 2,
    "native_batch_norm": norm.STATS + norm.NORMALISE + 2,
    "_native_batch_norm_legit": norm.STATS + norm.NORMALISE + 2,
    "_native_batch_norm_legit_functional": norm.STATS + norm.NORMALISE + 2,
    "_native_batch_norm_legit_no_training": norm.NORMALISE + 2,
    "native_layer_norm_backward": norm.GRAD_INPUT + norm.GRAD_WEIGHT + norm.GRAD_BIAS,
    "native_batch_norm_backward": norm.GRAD_INPUT + norm.GRAD_WEIGHT + norm.GRAD_BIAS,
    "native_group_norm_backward": norm.GRAD_INPUT + norm.GRAD_WEIGHT + norm.GRAD_BIAS,
    "rms_norm": 4, "_fused_rms_norm": 4,
    # softmax.py: forward 5, backward 4
    "_softmax": softmax.FORWARD, "_log_softmax": softmax.FORWARD, "_safe_softmax": softmax.FORWARD,
    "_softmax_backward_data": softmax.BACKWARD, "_log_softmax_backward_data": softmax.BACKWARD,
    # a GEMM's epilogue fused into a pointwise kernel: the bias add of addmm
    "addmm": 1, "baddbmm": 1, "mm": 0, "bmm": 0, "convolution": 0, "convolution_backward": 0,
    # data movement, indexing, losses' gathers
    "index": 0, "index_put": 0, "_index_put_impl": 0, "gather": 0, "scatter": 0, "scatter_add": 1,
    "scatter_reduce": 1, "embedding": 0, "embedding_dense_backward": 1, "slice_scatter": 0,
    "select_scatter": 0, "constant_pad_nd": 0, "new_zeros": 0, "new_ones": 0, "full": 0, "iota": 0,
    "scalar_tensor": 0, "lift_fresh": 0, "nll_loss_forward": 1, "nll_loss_backward": 1, "sort": 0,
    "avg_pool2d": 1, "max_pool2d_with_indices": 1, "avg_pool2d_backward": 1,
    "max_pool2d_with_indices_backward": 1, "upsample_nearest2d": 0, "upsample_bilinear2d": 8,
})
COST.update({v: 0 for v in VIEWS if v not in COST})
VOCABULARY = frozenset(COST)
_LONGEST = max(len(v) for v in VOCABULARY)


def parse(name: str) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """``triton_poi_fused__unsafe_view_mul_silu_2`` -> (``poi``, (``_unsafe_view``,
    ``mul``, ``silu``), unknown words): the kind and the fused ATen ops,
    split against :data:`VOCABULARY` (the split covering most letters
    wins); None for a name of another form."""
    m = _NAME.match(name)
    if not m:
        return None
    kind, text = m.group(1), m.group(2)
    ops, unknown = _split("" if text.isdigit() else text)
    return kind, ops, unknown


@lru_cache(maxsize=4096)
def _split(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``_``-separated words of ``text`` grouped into op names: dynamic
    programming over word boundaries, maximising the letters covered by
    known names (an op may start with ``_``: ``_unsafe_view``); a word no
    known name covers stays a word of its own, unknown."""
    words = text.split("_")
    m = len(words)
    best: list = [(0, None)] + [(-1, None)] * m       # (letters covered, (start, known)) per end
    span = max(1, _LONGEST // 2)
    for end in range(1, m + 1):
        for start in range(max(0, end - span), end):
            if best[start][0] < 0:
                continue
            word = "_".join(words[start:end])
            known = word in VOCABULARY
            if not known and end - start > 1:
                continue
            score = best[start][0] + (len(word) if known else 0)
            if score > best[end][0] or (score == best[end][0] and known):
                best[end] = (score, (start, known))
    ops, unknown = [], []
    end = m
    while end > 0:
        start, known = best[end][1]
        word = "_".join(words[start:end])
        if known:
            ops.append(word)
        elif word:
            unknown.append(word)
        end = start
    return tuple(reversed(ops)), tuple(reversed(unknown))


def _ints(concrete) -> list[int]:
    out = []
    for c in concrete or ():
        if isinstance(c, str) and re.fullmatch(r"-?\d+", c.strip() or "x"):
            out.append(int(c))
    return out


def _distinct_numel(t: Tensor, strides) -> int:
    """Elements a tensor argument holds: expanded (stride 0) dims count once
    (:func:`.call.distinct_elements`)."""
    return distinct_elements(t.shape, strides)


def _bytes(args: Args) -> float:
    return float(sum(args.stored_bytes(i) for i in args.tensor_positions()))


# fused ops that store through an index (into a buffer smaller than the
# iteration space): with one of them the last pointer may be written
_INDIRECT_STORE = ("scatter", "put", "index_add", "index_copy", "embedding_dense_backward",
                   "bincount", "histc", "masked_scatter")


def in_place_buffer(kind: str, ops: tuple, unknown: tuple, args: Args) -> int | None:
    """The position of the buffer a pointwise launch reads and writes
    (``in_out_ptr0``), where the launch shows there is one; else None.

    The evidence (see the module doc): the kernel is pointwise (``poi``)
    with one integer argument, ``xnumel`` (a second one could be a size
    variable ``ks0`` or ``ynumel``, and the iteration space would be
    unsure); its first pointer holds exactly ``xnumel`` elements; its last
    pointer holds fewer, so it cannot be the ``out_ptr`` a pointwise store
    fills, and no fused op stores through an index (``index_put``,
    ``scatter``: those write a smaller buffer). Then the kernel has no
    ``out_ptr`` and its first pointer is ``in_out_ptr0``."""
    if kind != "poi" or any(any(w in op for w in _INDIRECT_STORE) for op in ops + unknown):
        return None
    ints = [v for v in _ints(args.call.concrete) if v > 0]
    at = args.tensor_positions()
    if len(ints) != 1 or len(at) < 2:
        return None
    xnumel = ints[0]
    if args.distinct(at[0]) != xnumel or args.distinct(at[-1]) >= xnumel:
        return None
    return at[0]


def _domain(kind: str, args: Args, tensors: list[Tensor]) -> tuple[float, str]:
    """The elements of the iteration space: the product of the trailing
    ``*numel`` scalars (``xnumel``; ``ynumel, xnumel`` of a 2-D tiled
    pointwise kernel; ``xnumel, r0_numel`` of a reduction). Which trailing
    scalars are numels the launch does not say (dynamic shapes add ``ks0``
    before them), so the run of 1-3 whose product is the largest tensor's
    elements is taken; failing that, the last (two for a reduction)."""
    ints = [v for v in _ints(args.call.concrete) if v > 0]
    largest = max(_distinct_numel(t, None) for t in tensors)
    for k in range(1, min(3, len(ints)) + 1):
        if math.prod(ints[-k:]) == largest:
            return float(largest), ""
    if kind in ("red", "per", "spl") and len(ints) >= 2:
        return float(ints[-2] * ints[-1]), ""
    if ints:
        return float(ints[-1]), ""
    return float(largest), "element count not recorded: the largest tensor's taken"


GATHER_NOTE = ("element count not recorded; an integer argument and one tensor larger than all others: "
               "read through that index (an embedding lookup), so only the rows gathered are read: its "
               "bytes are not counted and the next largest tensor is taken as the element count")


def gathered_table(kind: str, args: Args) -> int | None:
    """The position of a tensor a pointwise launch can only read through an
    index, where its element count is not recorded: an integer tensor is
    among the arguments and one floating-point tensor holds more elements
    than every other (a pointwise map over the largest tensor would read
    all of it; over an output that is smaller, only gathered rows). Then
    counting all of it overstates the bytes without bound (a vocabulary's
    embedding table behind 32 looked-up tokens); None otherwise."""
    at = args.tensor_positions()
    if kind != "poi" or len(at) < 3:
        return None
    if not any(vector_precision(args.need(i).dtype) is None for i in at):
        return None
    sizes = sorted(((args.distinct(i), i) for i in at), reverse=True)
    (first, table), (second, _) = sizes[0], sizes[1]
    return table if first > second and vector_precision(args.need(table).dtype) is not None else None


def pointwise_work(kind: str, ops: tuple, unknown: tuple, args: Args) -> OpWork:
    tensors = args.tensors()
    if not tensors:
        raise LookupError("a Triton launch without tensor arguments")
    domain, note = _domain(kind, args, tensors)
    widest = max(tensors, key=lambda t: t.numel)
    precision = vector_precision(widest.dtype)
    per_element = sum(COST.get(op, 0) for op in ops)
    notes = ["FLOPs from the fused ops in the name, each once per element of the iteration space"]
    if unknown:
        notes.append(f"fused ops without a cost (0 FLOPs counted): {', '.join(unknown)}")
    if note:
        notes.append(note)
    family = {"poi": "elementwise", "for": "elementwise"}.get(kind, "reduction")
    nbytes = _bytes(args)
    table = gathered_table(kind, args) if note else None
    if table is not None:
        nbytes -= args.stored_bytes(table)
        domain = max(args.distinct(i) for i in args.tensor_positions() if i != table)
        notes[-1] = GATHER_NOTE
    inout = in_place_buffer(kind, ops, unknown, args)
    if inout is not None:
        nbytes += args.stored_bytes(inout)
        notes.append("in place: the first pointer (in_out_ptr0) read and written; the last holds fewer "
                     "elements than xnumel, so it is no output")
    return work({precision: per_element * domain} if precision else {}, nbytes, family, args=args,
                assumptions=tuple(notes))


# a template's matrix FLOPs run on the tensor units of its inputs' type
_MATRIX_PRECISION = {"fp16": "fp16", "bf16": "bf16", "fp8": "fp8", "fp64": "fp64"}


def template_work(ops: tuple, args: Args) -> OpWork:
    """A matrix-multiply or convolution template from its first tensors."""
    tensors = args.tensors()
    if "convolution" in ops and len(tensors) >= 2 and len(tensors[0].shape) >= 3:
        x, w = tensors[0], tensors[1]
        out = next((t for t in tensors[2:] if len(t.shape) == len(x.shape) and t.shape[1] == w.shape[0]), None)
        if out is None:
            raise LookupError("convolution template without an output of K channels")
        flops = 2.0 * math.prod(out.shape) * math.prod(w.shape[1:])
    else:
        mats = [t for t in tensors if len(t.shape) >= 2]
        pair = next(((a, b) for a, b in zip(mats, mats[1:]) if a.shape[-1] == b.shape[-2]), None)
        if pair is None:
            raise LookupError("template without two matrices of a common inner dimension")
        a, b = pair
        batch = math.prod(a.shape[:-2]) if len(a.shape) > 2 else 1
        flops = 2.0 * batch * a.shape[-2] * b.shape[-1] * a.shape[-1]
    precision = _MATRIX_PRECISION.get(tensors[0].precision, "fp32")
    return work({precision: flops}, _bytes(args), "gemm" if "convolution" not in ops else "convolution",
                matrix=True, args=args)


def triton_work(name: str, args: Args) -> OpWork | None:
    parsed = parse(name)
    if parsed is None:
        return None
    kind, ops, unknown = parsed
    if kind == "tem":
        return template_work(ops, args)
    return pointwise_work(kind, ops, unknown, args)


def counted_work(flop, num_gb, dtype: str | None = None, name: str = "") -> OpWork | None:
    """Inductor's own counts (``kernel_flop``, ``kernel_num_gb``: 1e9 bytes)
    as work: a template's (``triton_tem_*``) are matrix FLOPs on the tensor
    units of its dtype, the others vector FLOPs of the kernel's kind."""
    def number(x):
        if isinstance(x, bool) or not isinstance(x, (int, float, str)):
            return None
        try:
            v = float(x)
        except ValueError:
            return None
        return v if math.isfinite(v) and v >= 0 else None
    f, gb = number(flop), number(num_gb)
    if f is None and gb is None:
        return None
    parsed = parse(name)
    kind, ops = (parsed[0], parsed[1]) if parsed else ("poi", ())
    notes = ("kernel_flop/kernel_num_gb: Inductor's own counts",)
    if kind == "tem":
        precision = _MATRIX_PRECISION.get(dtype_precision(dtype) if dtype else None, "fp32")
        return work({precision: f or 0.0}, (gb or 0.0) * 1e9,
                    "convolution" if "convolution" in ops else "gemm", matrix=True, assumptions=notes)
    precision = (vector_precision(dtype) if dtype else None) or "fp32"
    family = {"poi": "elementwise", "for": "elementwise"}.get(kind, "reduction")
    return work({precision: f or 0.0}, (gb or 0.0) * 1e9, family, assumptions=notes)
