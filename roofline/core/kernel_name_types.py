"""What the kernel-name rules share (:mod:`.kernel_precision`): the result
type, the documents each convention comes from, and the operand types as the
names spell them, mapped to the project's precision keys. Standard library
only."""
from __future__ import annotations

from dataclasses import dataclass

PRECISION_KEYS = ("fp64", "fp32", "fp16", "bf16", "tf32", "fp8", "int8",
                  "tensor_fp64", "tensor_fp16", "tensor_bf16", "tensor_tf32",
                  "tensor_fp8", "tensor_int8", "tensor_fp6", "tensor_fp4",
                  "tensor_fp16_acc16", "tensor_fp8_acc16")


@dataclass(frozen=True)
class NamePrecision:
    """What a kernel's name says about its math: the precision key, the
    library whose convention it follows, the part of the name that says it,
    and where that convention is documented."""

    precision: str
    library: str
    evidence: str
    source: str


SRC_NVJET = ("undocumented (NVIDIA/TensorRT-LLM #1541); letters read from real traces: nvjet_tst with "
             "BF16 aten::addmm/mm (AMD-AGI/TraceLens b200_eager_trace), nvjet_hsh in NVIDIA/Fuser #3137 "
             "(HSH), nvjet_qqtst for FP8 _scaled_mm")
SRC_XMMA = ("NVIDIA/TransformerEngine #1391 (first pair: A/B type, C/D type); second pair read as MMA "
            "input/accumulator; '_ffma_' = CUDA cores; PTX ISA mma types (no f32-operand MMA)")
SRC_CUTLASS3 = ("NVIDIA/cutlass media/docs/cpp/profiler.md 'CUTLASS 3.0 GEMM procedural names'; "
                "python/cutlass_library/gemm_operation.py extended_name_3x")
SRC_CUTLASS2 = ("NVIDIA/cutlass python/cutlass_library/gemm_operation.py core_name/extended_name/"
                "procedural_name, conv2d_operation.py, library.py ShortDataTypeNames/OpcodeClassNames; "
                "f32 operands on tensorop run as TF32: NVIDIA/cutlass #466")
SRC_LEGACY = ("cuBLAS/cuDNN arch-prefixed names (undocumented) follow the CUTLASS letters: CUTLASS 1.3 "
              "tools/test/perf/gemm/volta884_gemm.cu (s884gemm, h884gemm), sgemm.cu/dgemm.cu/hgemm.cu/"
              "igemm.cu; instruction shapes are PTX mma shapes")
SRC_TENSILE = ("ROCm/Tensile Tensile/SolutionStructs.py ProblemType.__str__, Tensile/DataType.py; "
               "ROCm/hipBLASLt tensilelite/Tensile/SolutionStructs/Naming.py (MI only with a matrix "
               "instruction), Problem.py, TensileInstructions/DataType.py")
SRC_TRTLLM_BMM = ("NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/trtllmGenKernels/batchedGemm/"
                  "trtllmGen_bmm_export/KernelMetaInfo.h (mDtypeC/A/B/Acc, mMmaK); PTX ISA tcgen05.mma "
                  ".kind::f8f6f4")
SRC_TRTLLM_FMHA = ("NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/trtllmGenKernels/fmha/cubin/"
                   "kernelMetaInfo.h (DATA_TYPE_Q, DATA_TYPE_KV, DATA_TYPE_O per name)")
SRC_MEMEFF = ("pytorch/pytorch aten/src/ATen/native/transformers/cuda/mem_eff_attention/kernels/"
              "generate_kernels.py and gemm_kernel_utils.h DefaultGemmType")
SRC_CUTE = "NVIDIA/cutlass include/cute/arch/mma_sm70.hpp .. mma_sm100_umma.hpp (atom names: D, A, B[, C])"
SRC_XMMA_TRAITS = "NVIDIA 'CUDA Binary Utilities' instruction set reference (HMMA/IMMA/DMMA/HGMMA/QGMMA)"
SRC_CUTLASS_TEMPLATE = ("NVIDIA/cutlass include/cutlass/gemm/warp/mma_tensor_op.h (MmaTensorOp), "
                        "include/cutlass/numeric_types.h")
SRC_FLASH = ("Dao-AILab/flash-attention csrc/flash_attn/src/kernel_traits.h "
             "(SM80_16x8x16_F32F16F16F32_TN / F32BF16BF16F32_TN atoms)")
SRC_CK = ("ROCm/composable_kernel include/ck/utility/data_type.hpp (half_t=_Float16, bhalf_t=ushort), "
          "gridwise_gemm_xdl_cshuffle_v3.hpp (layouts, then ADataType); xdl = XDLOPS = MFMA")
SRC_AMD_FP32 = "; FP32 MFMA shares the fp32 roof on CDNA (devices/mi250-gcd.yaml)"

# ---------------------------------------------------------------- type helpers
# canonical operand types: f16 bf16 tf32 f32 f64 i8 f8 f6 f4 i4 c32 c64
TENSOR = {"f16": "tensor_fp16", "bf16": "tensor_bf16", "tf32": "tensor_tf32", "f32": "tensor_tf32",
           "f64": "tensor_fp64", "i8": "tensor_int8", "f8": "tensor_fp8", "c32": "tensor_tf32",
           "c64": "tensor_fp64", "f6": "tensor_fp6", "f4": "tensor_fp4"}
VECTOR = {"f32": "fp32", "f64": "fp64", "f16": "fp16", "bf16": "bf16", "i8": "int8", "c32": "fp32",
           "c64": "fp64"}

# the type words of CUTLASS DataTypeNames and of cuBLAS/xmma names
TYPE_WORD = {
    "f16": "f16", "fp16": "f16", "bf16": "bf16", "tf32": "tf32", "f32": "f32", "fp32": "f32",
    "f64": "f64", "fp64": "f64", "s8": "i8", "u8": "i8", "i8": "i8", "int8": "i8",
    "e4m3": "f8", "e5m2": "f8", "f8": "f8", "fp8": "f8", "e2m3": "f6", "e3m2": "f6", "f6": "f6",
    "e2m1": "f4", "f4": "f4", "s4": "i4", "u4": "i4", "int4": "i4", "cf32": "c32", "cf64": "c64",
}
ACC_LETTER = {"s": "f32", "h": "f16", "d": "f64", "c": "c32", "z": "c64", "gc": "c32", "gz": "c64"}
NARROW = {"i8", "i4", "f8", "f6", "f4"}


def accumulated(key: str | None, acc: str | None) -> str | None:
    """``key`` with FP16 accumulate where the name says the accumulator is
    f16 (``tensor_fp16_acc16``: GeForce parts run it at twice the FP32-
    accumulate rate); other keys and accumulators as they are."""
    return f"{key}_acc16" if acc == "f16" and key in ("tensor_fp16", "tensor_fp8") else key


def pair_type(a: str | None, b: str | None) -> str | None:
    """The type an MMA runs at when its A and B operands are a and b."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    wide = {a, b} & {"f16", "bf16"}
    if len(wide) == 1 and ({a, b} - wide) <= NARROW:
        return wide.pop()                       # mixed input: the narrow one is converted
    if {a, b} <= {"f8", "f6", "f4"} and "f8" in (a, b):
        return "f8"                             # f8f6f4 MMA kind: the FP8 rate
    if {a, b} == {"f6", "f4"}:
        return "f6"                             # the slower of the two narrow types
    return None


def nvidia_narrow(mma: str | None, block_scaled: bool) -> str | None:
    """On NVIDIA Blackwell only the block-scaled FP4 MMA kinds (``mxf4``,
    ``mxf4nvf4``) run FP4 at twice the FP8 rate; FP4 and FP6 operands of
    the ``f8f6f4`` kind (and FP6 always) run at the FP8 rate (PTX ISA,
    tcgen05.mma kinds). ``mma``: the operand pair's type."""
    if mma == "f6" or (mma == "f4" and not block_scaled):
        return "f8"
    return mma


def named(key: str | None, library: str, evidence: str, source: str) -> NamePrecision | None:
    return NamePrecision(key, library, evidence, source) if key else None


def library_of(name: str, default: str) -> str:
    return "cuDNN" if "cudnn" in name.lower() else default
