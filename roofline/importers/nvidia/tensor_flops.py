"""Tensor-core FLOP per warp instruction, from the kernel name's instruction
shape (cuBLAS ``s1688gemm``, CUTLASS ``GemmShape<16, 8, 16>``) and the compute
capability; never one fixed figure for every chip (see counters.py's rules)."""
from __future__ import annotations

import re

_CUBLAS_SHAPE = re.compile(r"(?:^|[^a-z0-9])([hsdic])(16|8)(8)(4|8|16|32|64|128|256)gemm")
_CUTLASS_MMA = re.compile(
    r"arch::Mma<cutlass::gemm::GemmShape<(?:\(int\))?(\d+), ?(?:\(int\))?(\d+), ?(?:\(int\))?(\d+)>,"
    r" ?(?:\(int\))?32, ?([\w:]+)")
_CUTLASS_TYPES = {"cutlass::half_t": "tensor_fp16", "half": "tensor_fp16", "__half": "tensor_fp16",
                  "cutlass::bfloat16_t": "tensor_bf16", "cutlass::tfloat32_t": "tensor_tf32",
                  "int8_t": "tensor_int8", "signed char": "tensor_int8", "unsigned char": "tensor_int8",
                  "cutlass::int4b_t": "tensor_int8", "double": "tensor_fp64",
                  "cutlass::float_e4m3_t": "tensor_fp8", "cutlass::float_e5m2_t": "tensor_fp8"}


def cc_tuple(cc: str | None) -> tuple[int, int] | None:
    if not cc:
        return None
    m = re.match(r"\s*(\d+)\.(\d+)", str(cc))
    return (int(m.group(1)), int(m.group(2))) if m else None


_HMMA_PRECISIONS = frozenset({"tensor_fp16", "tensor_bf16", "tensor_tf32", "tensor_fp8", "tensor_fp16_acc16"})


def tensor_flop_per_instruction(name: str, cc: str | None, kind: str = "") -> tuple[float | None, str, str]:
    """(FLOP per tensor-pipe warp instruction, precision key, reason) for a
    kernel, or (None, '', why not).

    ``kind`` is ``"HMMA"`` or ``"IMMA"`` when the counter says which
    instructions were counted (``_op_hmma``/``_op_imma``), ``""`` for the
    unsplit ``pipe_tensor`` count (DMMA already taken out). Volta's 512 FLOP
    is an HMMA figure: on compute capability 7.2 (Xavier, which also has
    IMMA) an unsplit count uses a shape stated in the name first and is
    otherwise assumed to be HMMA, with a reason that says so.
    """
    arch = cc_tuple(cc)
    low = name.lower()
    volta = "Volta HMMA: 512 FLOP per warp instruction (Yang et al. 2019)"
    if kind != "IMMA" and (arch == (7, 0) or (arch == (7, 2) and kind == "HMMA")
                           or (arch is None and low.startswith("volta_"))):
        return 512.0, "tensor_fp16", volta
    per_inst, precision, why = _shape_from_name(name, low)
    if per_inst is not None:
        if kind == "IMMA" and precision != "tensor_int8" or \
                kind == "HMMA" and precision not in _HMMA_PRECISIONS:
            return None, "", (f"is unknown: the name states a {precision.replace('tensor_', '')} "
                              f"shape but the counter is {kind}")
        return per_inst, precision, why
    if arch == (7, 2) and kind == "":
        return 512.0, "tensor_fp16", (volta + "; compute capability 7.2 also has IMMA, which this "
                                      "unsplit count would include: assumed HMMA")
    if why:   # a shape without its input type
        return None, "", why
    where = f"on compute capability {cc}" if cc else "without the compute capability"
    return None, "", f"depends on the instruction shape, which the name does not state ({where})"


def _shape_from_name(name: str, low: str) -> tuple[float | None, str, str]:
    """FLOP per instruction from a CUTLASS/cuBLAS instruction shape in the
    name: (FLOP, precision, reason), (None, '', why) when the shape is there
    but not the type, (None, '', '') when there is no shape."""
    m = _CUTLASS_MMA.search(name)
    if m:
        mm, nn, kk = (int(g) for g in m.group(1, 2, 3))
        precision = _CUTLASS_TYPES.get(m.group(4))
        if precision and nn == 8 and mm in (8, 16):
            return 2.0 * mm * nn * kk, precision, f"CUTLASS instruction shape m{mm}n{nn}k{kk} in the name"
    m = _CUBLAS_SHAPE.search(low)
    if m:
        prefix, mm, nn, kk = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
        if "bf16" in low:
            precision = "tensor_bf16"
        elif "tf32" in low:
            precision = "tensor_tf32"
        elif prefix == "i" or "int8" in low or "_i8" in low:
            precision = "tensor_int8"
        elif prefix == "d":
            precision = "tensor_fp64"
        elif prefix == "h":
            precision = "tensor_fp16_acc16"          # the accumulator letter: h884gemm accumulates in FP16
        elif "fp16" in low or "f16" in low:
            precision = "tensor_fp16"
        else:
            precision = ""
        if precision:
            return 2.0 * mm * nn * kk, precision, f"instruction shape m{mm}n{nn}k{kk} in the name"
        return None, "", "depends on the input type, which the name does not state"
    return None, "", ""
