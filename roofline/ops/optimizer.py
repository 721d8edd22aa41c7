"""Multi-tensor (``_foreach_*``) and fused optimizer operators.

``_foreach_<op>`` applies an element-wise operator to lists of tensors: the
FLOPs and bytes of :mod:`.elementwise` summed over the list. Fused
optimizers, per parameter element (one precision for all states):

==============  ===============================================  =========================
operator        FLOP                                             tensors read / written
==============  ===============================================  =========================
Adam(W)         m: 3, v: 4, step: sqrt, add eps, divide, scale,  p g m v / p m v
                subtract = 5 (+2 weight decay; AMSGrad +1)       (AMSGrad: + max v r/w)
SGD             2 (+2 momentum; +2 weight decay)                 p g (buf) / p (buf)
Adagrad         sum: 2, step: 4                                  p g s / p s
==============  ===============================================  =========================

torch 2.14 records a tensor-list argument as ``[]``: a list recorded empty
beside one with shapes is sized like it (a ``_foreach_*`` operator's lists,
and an optimizer's params, grads and states, hold tensors of the same
shapes); when no list has shapes the work is unknown
(:class:`.call.UnknownWork`), never zero. ``addcmul``'s two factor lists,
recorded alike, are read once (``addcmul_(grads, grads)``; see
:data:`.elementwise.ALIAS_NOTE`).
"""
from __future__ import annotations

from .call import Args, OpWork, Tensor, UnknownWork, vector_precision, work
from .elementwise import ALIAS_NOTE, COST, WRITE_ONLY

REDUCE = {"norm": 2, "max": 1}
EMPTY_LISTS = ("tensor lists recorded without shapes ([]: torch 2.14 records them so): "
               "the work is unknown")
SIBLING_NOTE = "a tensor list recorded empty is sized like its sibling list"


def _sized_lists(args: Args, name: str, positions=None) -> tuple[list, tuple]:
    """The tensor lists of a call (at ``positions``, else every one), each
    recorded-empty list sized like the first list with shapes, and the
    notes that says so. Raises UnknownWork when no list has shapes."""
    at = range(len(args)) if positions is None else positions
    lists = [l for l in (args.tensor_list(i) for i in at) if l is not None]
    sized = next((l for l in lists if l), None)
    if sized is None:
        raise UnknownWork(f"{name}: {EMPTY_LISTS}" if lists else f"{name}: no tensor list recorded")
    filled = [l if l else sized for l in lists]
    return filled, ((SIBLING_NOTE,) if any(not l for l in lists) else ())


def foreach(name: str):
    base = name[len("_foreach_"):]
    inplace = base.endswith("_")
    base = base.rstrip("_")

    def model(args: Args) -> OpWork:
        lists, notes = _sized_lists(args, name)
        first = lists[0]
        elements = sum(t.numel for t in first)
        itemsize = first[0].itemsize if first else 4
        scalar_tensors = sum(t.nbytes for t in args.tensors())
        if base in REDUCE:
            return work({vector_precision(first[0].dtype if first else "float"): REDUCE[base] * elements},
                        elements * itemsize + len(first) * itemsize, "reduction", args=args,
                        assumptions=notes)
        reads = lists[1:] if inplace and base in WRITE_ONLY else lists
        if base == "addcmul" and len(lists) >= 3 and _alike_lists(args, lists):
            reads, notes = [l for l in reads if l is not lists[2]], notes + (ALIAS_NOTE,)
        nbytes = (sum(t.numel for l in reads for t in l) + elements) * itemsize + scalar_tensors
        return work({vector_precision(first[0].dtype if first else "float"): COST[base] * elements},
                    nbytes, "optimizer", args=args, assumptions=notes)
    return model


def _alike_lists(args: Args, lists: list) -> bool:
    """The two factor lists of ``_foreach_addcmul`` recorded alike (shapes
    and strides; a list recorded empty is not alike: it was sized)."""
    c = args.call
    at = [i for i in range(len(args)) if args.tensor_list(i) is not None]
    return (len(at) >= 3 and bool(lists[1]) and c.dims[at[1]] == c.dims[at[2]] != ()
            and args.strides(at[1]) == args.strides(at[2]))


def _params(args: Args, name: str, states: int) -> tuple[int, int, str, tuple]:
    """Elements of the parameters (sized from the first of the first
    ``states`` lists with shapes), their size, dtype and notes."""
    if args.tensor_list(0) is None:
        raise LookupError("fused optimizer without a parameter list")
    lists, notes = _sized_lists(args, name, range(states))
    params = lists[0]
    dtype = params[0].dtype if params else "float"
    return sum(t.numel for t in params), Tensor((), dtype).itemsize, dtype, notes + tuple(args.notes)


def adam(args: Args) -> OpWork:
    """``(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
    lr, beta1, beta2, weight_decay, eps, amsgrad, ...)``."""
    n, size, dtype, notes = _params(args, "adam", 4)
    amsgrad = args.value(11) is True
    decay = args.value(9, 0.0)
    flop = 12 + (2 if decay else 0) + (1 if amsgrad else 0)
    tensors = 7 + (2 if amsgrad else 0)
    return work({vector_precision(dtype): flop * n}, tensors * n * size, "optimizer",
                assumptions=notes)


def sgd(args: Args) -> OpWork:
    """``(self, grads, momentum_buffer_list, weight_decay, momentum, lr, ...)``."""
    n, size, dtype, notes = _params(args, "sgd", 2)
    momentum, decay = args.value(4, 0.0), args.value(3, 0.0)
    flop = 2 + (2 if momentum else 0) + (2 if decay else 0)
    tensors = 5 if momentum else 3
    return work({vector_precision(dtype): flop * n}, tensors * n * size, "optimizer",
                assumptions=notes)


def adagrad(args: Args) -> OpWork:
    """``(self, grads, state_sums, state_steps, lr, lr_decay, weight_decay, eps, ...)``."""
    n, size, dtype, notes = _params(args, "adagrad", 3)
    return work({vector_precision(dtype): 6 * n}, 5 * n * size, "optimizer", assumptions=notes)


FOREACH = [f"_foreach_{b}{s}" for b in [k for k in COST if COST[k] or k in ("copy", "zero")]
           for s in ("", "_")] + ["_foreach_norm", "_foreach_max"]
MODELS = {name: foreach(name) for name in FOREACH}
MODELS.update({"_fused_adam_": adam, "_fused_adamw_": adam, "_fused_adam": adam,
               "_fused_adamw": adam, "_fused_sgd_": sgd, "_fused_sgd": sgd,
               "_fused_adagrad_": adagrad, "_fused_adagrad": adagrad})
