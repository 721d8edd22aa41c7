"""aiter's RMSNorm operators (ROCm/aiter), as SGLang and vLLM call them on
ROCm: ``aiter::rmsnorm``, ``aiter::add_rmsnorm`` (SGLang), ``aiter::rms_norm``
and ``aiter::rmsnorm2d_fwd_with_add_ck`` (vLLM), and their siblings of the
same schemas.

Argument positions and which arguments are written come from
``aiter/ops/rmsnorm.py`` (the Python declarations of the compiled ops) and
``csrc/kernels/rmsnorm_quant_kernels.cu`` (``add_rmsnorm_quant_kernel``:
x = input [+ residual_in]; residual_out = x; out = x rsqrt(mean(x^2) +
eps) w, fp32 accumulation) and ``csrc/include/rmsnorm.h`` (the CK
``rmsnorm2d_with_add``: the same with separate out and residual_out).
Every tensor argument is read or written once (out and residual_out are
arguments the caller allocated), except the ``fused_add_rms_norm_cu``
form, which adds in place on input and residual (read and written: twice).
The ``rms_norm``/``rmsnorm2d_fwd`` forms return their output (``empty_like``
the input): it is counted as written once at the input's shape and dtype.

FLOPs per element, as :mod:`.serving` counts RMSNorm: 4 (square, sum,
scale by the reciprocal root, weight), +1 for the residual add, +1 for a
Gemma weight (1 + w, where ``gemma_norm`` is recorded True), +2 for a
fused dynamic quantization (absolute maximum, scale). The T5-like
``use_model_sensitive_rmsnorm`` rounds to the input dtype before the
weight multiply: the same count.

May import ``.call`` and ``.serving`` (and the standard library).
"""
from __future__ import annotations

from .call import Args, OpWork, Tensor, vector_precision, work
from .serving import ADD, RMS

GEMMA = 1                  # the weight used as 1 + w
DYNAMIC_QUANT = 2          # the row's absolute maximum, then the scale multiply


def _checked(args: Args, x_at: int, weight_at: int) -> Tensor:
    """The normalised input, after checking the weight is a row of its
    width (a call whose arguments are not this schema's is not sized)."""
    x, w = args.need(x_at), args.need(weight_at)
    if not x.shape or not w.shape or w.shape[-1] != x.shape[-1] or w.numel != x.shape[-1]:
        raise LookupError(f"weight {w.shape} is not a row of the input's width {x.shape}")
    return x


def norm(x_at: int, weight_at: int, *, add: bool = False, quant: bool = False,
         gemma_at: int | None = None, in_place: tuple = (), returned: bool = False):
    """RMSNorm of argument ``x_at`` with the weight at ``weight_at``; ``add``:
    the residual is added first; ``quant``: a dynamic quantization is fused;
    ``gemma_at``: position of the ``gemma_norm`` flag; ``in_place``: the
    arguments read and written; ``returned``: the output is returned (not
    an argument), written at the input's shape and dtype."""
    def model(args: Args) -> OpWork:
        x = _checked(args, x_at, weight_at)
        gemma = gemma_at is not None and args.value(gemma_at) is True
        per_element = RMS + (ADD if add else 0) + (DYNAMIC_QUANT if quant else 0) + (GEMMA if gemma else 0)
        nbytes = sum(args.need(i).nbytes * (2 if i in in_place else 1) for i in args.tensor_positions())
        return work({vector_precision(x.dtype): per_element * x.numel},
                    nbytes + (x.nbytes if returned else 0), "normalization", args=args)
    return model


MODELS = {
    # ROCm/aiter aiter/ops/rmsnorm.py (module_rmsnorm_quant, the HIP add_rmsnorm_quant_kernel):
    # rmsnorm(out!, input, weight, epsilon[, gemma_norm])
    "aiter::rmsnorm": norm(1, 2, gemma_at=4),
    # add_rmsnorm(out!, input, residual_in, residual_out!, weight, epsilon[, gemma_norm])
    "aiter::add_rmsnorm": norm(1, 4, add=True, gemma_at=6),
    # rmsnorm_quant(out!, input, scale!, weight, epsilon, group_size, shuffle_scale, gemma_norm)
    "aiter::rmsnorm_quant": norm(1, 3, quant=True, gemma_at=7),
    # add_rmsnorm_quant(out!, input, residual_in, residual_out!, scale!, weight, epsilon, group_size,
    #   shuffle_scale, gemma_norm)
    "aiter::add_rmsnorm_quant": norm(1, 5, add=True, quant=True, gemma_at=9),
    # rms_norm / rmsnorm2d_fwd / rmsnorm2d_fwd_ck(input, weight, epsilon,
    #   use_model_sensitive_rmsnorm) -> out (empty_like(input))
    "aiter::rms_norm": norm(0, 1, returned=True),
    "aiter::rmsnorm2d_fwd": norm(0, 1, returned=True),
    "aiter::rmsnorm2d_fwd_ck": norm(0, 1, returned=True),
    # rmsnorm2d_fwd_with_add_ck(out!, input, residual_in, residual_out!, weight, epsilon,
    #   use_model_sensitive_rmsnorm) (CK rmsnorm2d_with_add, csrc/include/rmsnorm.h);
    # rmsnorm2d_fwd_with_add(... the same six, gemma_norm, use_model_sensitive_rmsnorm)
    "aiter::rmsnorm2d_fwd_with_add_ck": norm(1, 4, add=True),
    "aiter::rmsnorm2d_fwd_with_add": norm(1, 4, add=True, gemma_at=6),
    # rms_norm_cu(out!, input, weight, epsilon); fused_add_rms_norm_cu(input!, residual_in!, weight,
    #   epsilon): x = input + residual; residual = x; input = rmsnorm(x) w, in place
    "aiter::rms_norm_cu": norm(1, 2),
    "aiter::fused_add_rms_norm_cu": norm(0, 2, add=True, in_place=(0, 1)),
}
