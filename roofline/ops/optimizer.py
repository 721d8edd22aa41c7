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
"""
from __future__ import annotations

from .call import Args, OpWork, Tensor, vector_precision, work
from .elementwise import COST, WRITE_ONLY

REDUCE = {"norm": 2, "max": 1}


def foreach(name: str):
    base = name[len("_foreach_"):]
    inplace = base.endswith("_")
    base = base.rstrip("_")

    def model(args: Args) -> OpWork:
        lists = [l for l in (args.tensor_list(i) for i in range(len(args))) if l is not None]
        if not lists:
            raise LookupError(f"{name} without tensor lists")
        first = lists[0]
        elements = sum(t.numel for t in first)
        itemsize = first[0].itemsize if first else 4
        scalar_tensors = sum(t.nbytes for t in args.tensors())
        if base in REDUCE:
            return work({vector_precision(first[0].dtype if first else "float"): REDUCE[base] * elements},
                        elements * itemsize + len(first) * itemsize, "reduction", args=args)
        reads = lists[1:] if inplace and base in WRITE_ONLY else lists
        nbytes = (sum(t.numel for l in reads for t in l) + elements) * itemsize + scalar_tensors
        return work({vector_precision(first[0].dtype if first else "float"): COST[base] * elements},
                    nbytes, "optimizer", args=args)
    return model


def _params(args: Args) -> tuple[int, int, str]:
    params = args.tensor_list(0)
    if params is None:
        raise LookupError("fused optimizer without a parameter list")
    dtype = params[0].dtype if params else "float"
    return sum(t.numel for t in params), Tensor((), dtype).itemsize, dtype


def adam(args: Args) -> OpWork:
    """``(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
    lr, beta1, beta2, weight_decay, eps, amsgrad, ...)``."""
    n, size, dtype = _params(args)
    amsgrad = args.value(11) is True
    decay = args.value(9, 0.0)
    flop = 12 + (2 if decay else 0) + (1 if amsgrad else 0)
    tensors = 7 + (2 if amsgrad else 0)
    return work({vector_precision(dtype): flop * n}, tensors * n * size, "optimizer", args=args)


def sgd(args: Args) -> OpWork:
    """``(self, grads, momentum_buffer_list, weight_decay, momentum, lr, ...)``."""
    n, size, dtype = _params(args)
    momentum, decay = args.value(4, 0.0), args.value(3, 0.0)
    flop = 2 + (2 if momentum else 0) + (2 if decay else 0)
    tensors = 5 if momentum else 3
    return work({vector_precision(dtype): flop * n}, tensors * n * size, "optimizer", args=args)


def adagrad(args: Args) -> OpWork:
    """``(self, grads, state_sums, state_steps, lr, lr_decay, weight_decay, eps, ...)``."""
    n, size, dtype = _params(args)
    return work({vector_precision(dtype): 6 * n}, 5 * n * size, "optimizer", args=args)


FOREACH = [f"_foreach_{b}{s}" for b in [k for k in COST if COST[k] or k in ("copy", "zero")]
           for s in ("", "_")] + ["_foreach_norm", "_foreach_max"]
MODELS = {name: foreach(name) for name in FOREACH}
MODELS.update({"_fused_adam_": adam, "_fused_adamw_": adam, "_fused_adam": adam,
               "_fused_adamw": adam, "_fused_sgd_": sgd, "_fused_sgd": sgd,
               "_fused_adagrad_": adagrad, "_fused_adagrad": adagrad})
