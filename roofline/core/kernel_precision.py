"""Which precision, on which execution unit, a GPU kernel's math runs at,
read from the kernel's name alone. Standard library only.

Vendor libraries spell the data types and the math unit into their kernel
names. :func:`precision_from_name` reads them and returns one of the
project's precision keys (``fp64 fp32 fp16 bf16 tf32 fp8 int8`` for the
vector units: FFMA/DFMA/HFMA2/DP4A on NVIDIA, VALU on AMD; ``tensor_fp64
tensor_fp16 tensor_bf16 tensor_tf32 tensor_fp8 tensor_int8`` for the matrix
units: NVIDIA tensor cores, AMD MFMA/WMMA), or ``None`` when the name does
not say. The trace's own dtype is what a caller falls back on then.

Rules, in the order they are tried (pattern -> precision / unit [source]).
"A" is the A operand's type, the type the MMA instruction is fed; "tensor"
is the matrix unit, "vector" the FMA units.

  nvjet_[smNN_]{ab}{acc}{cd}_...            e.g. nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN
      -> letter h: tensor_fp16, t: tensor_bf16, q: tensor_fp8;
         s (fp32) and other letters: None; a three-letter code with h in
         the middle (hhh) accumulates in FP16: tensor_fp16_acc16         [1]
  smNN_xmma_{op}_{AB}{CD}_{M}{acc}_...      e.g. sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_...
      -> MMA input M f16/bf16/tf32/e4m3/e5m2/i8: tensor_*; f32: fp32;
         accumulator f16 with f16/f8 input: tensor_fp16/fp8_acc16
         (the _ffma_ kernels); f64: tensor_fp64 with a tensor marker,
         fp64 with _dfma_, else None                                     [2]
  cutlass3x_smNN_{opclass}_[M]gemm_{A}_{B}_{acc}_{C}_{D}_...
      -> tensorop/sptensorop/bstensorop: tensor at M or the A/B pair;
         FP4 operands: tensor_fp4 when block-scaled (bstensorop), else
         the f8f6f4 kind's FP8 rate; simt: vector                        [3]
  cutlass_[NN_]{opclass}_[{C}_]{acc}{inst}[{M}]{gemm|fprop|dgrad|wgrad}[_{A}]_{tile}...
      e.g. cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4,
      cutlass_80_tensorop_bf16_s16816gemm_bf16_..., cutlass_80_simt_sgemm_...
      -> tensorop/wmma_tensorop: tensor at M, else A, else the
         accumulator type; f32 data on a tensorop runs as TF32
         (tensor_tf32); simt: the accumulator letter on the FMA units
         (s fp32, d fp64, h fp16, c/gc fp32, z fp64, i with s8 int8)      [4]
  {maxwell|pascal|volta|turing|ampere|ada|hopper}_[{C}_]{acc}[{inst}]{gemm|cudnn}[_{A}]_...
      e.g. volta_h884gemm_..., ampere_s16816gemm_fp16_..., ampere_sgemm_...,
      cudnn_ampere_scudnn_..., ampere_gcgemm_...
      -> an instruction shape (884, 1688, 16816, 8816): tensor at A or C,
         else f16 for h.../s884, f64 for d, int8 for i8816/i16816, TF32
         for an untyped s1684/s1688 on ampere/ada/hopper; no shape: the
         accumulator letter on the CUDA cores; a tensor shape with the
         accumulator h (h884, h1688, h16816): tensor_fp16_acc16          [5]
  {implicit|explicit}_convolve_{s|d|h}gemm  -> fp32 / fp64 / fp16            [5]
  Cijk_A{..}_B{..}_[{A}{B}_]{T}[{D}{C}_]...  (Tensile, hipBLASLt; ".kd" dropped)
      -> with _MI{m}x{n}x{b}_: T = H tensor_fp16, B tensor_bf16, X (or S
         with _MX_) tensor_tf32, D/Z tensor_fp64, I8/4xi8 tensor_int8,
         F8/B8/F8N/B8N/F8B8.. tensor_fp8, S/C fp32 (see below);
         without MI (VALU): S/C fp32, D/Z fp64, H without high-precision
         accumulate fp16                                                 [6]
  bmm_{C}_{A}{B}_{acc}_...                  (TensorRT-LLM/FlashInfer trtllm-gen)
      -> a bf16 or fp16 pair: tensor_bf16/fp16; an E4m3/E5m2 operand with
         an FP8/FP6/FP4 other, or FP6 with FP4 (the f8f6f4 MMA kind):
         tensor_fp8; E2m1 x E2m1 (MXFP4, or NVFP4 with FP8 scales: the
         mxf4/mxf4nvf4 kinds, mMmaK 64): tensor_fp4                       [7]
  fmhaSmNNN[af]Kernel_Qkv{T}O{T}...         -> E4m3 tensor_fp8, Bfloat16/Fp16 tensor_bf16/fp16  [8]
  fmha_cutlass{F|B}_{T}_{aligned}_..._smNN  (PyTorch memory-efficient attention)
      -> f16 on sm70+, bf16 on sm80+: tensor; f32: tensor_tf32 on sm80+
         (3xTF32), else fp32; f16 below sm70: fp16                        [9]
  cute MMA atoms SMnn_MxNxK_{D}{A}{B}[{C}]_.., SM90 MMA_MxNxK_{D}{A}{B}_SS,
  SM100_MMA_{TF32|F16BF16|F8F6F4|S8}_..    -> the tensor key of the A/B pair;
  SM100_MMA_{MXF4|MXF4NVF4}_..             -> tensor_fp4                        [10]
  xmma templates {Arch}_{hmma|imma|dmma|hgmma|qgmma}_{T}_traits
      -> hmma_tf32/bf16/fp16, imma_int8, dmma_fp64, qgmma_e4m3/e5m2:
         the matching tensor key                                         [11]
  CUTLASS 2 templates with MmaTensorOp (demangled or mangled)
      -> the one element type present: half_t, bfloat16_t, tfloat32_t,
         float_e4m3_t/e5m2_t; none but OpMultiplyAddFastF32: tensor_tf32  [12]
  flash_{fwd|bwd}*kernel<..cutlass::half_t|bfloat16_t..>  (FlashAttention 2)
      -> tensor_fp16 / tensor_bf16                                        [13]
  ck::*xdl*<...> / ck::*wmma*<...>           (composable_kernel)
      -> the first element type (A) after the layouts: _Float16/half_t
         tensor_fp16, unsigned short/bhalf_t tensor_bf16, f8/bf8
         tensor_fp8, signed char/int8_t tensor_int8, double tensor_fp64,
         float fp32                                                      [14]

FP32 on AMD matrix cores (Tensile ``S``/``C`` with ``MI``, CK xdl with
float A) is given ``fp32``: the project has no ``tensor_fp32`` key and on
CDNA the MFMA FP32 rate equals the packed-FP32 vector rate, so the two share
the fp32 roof (devices/mi250-gcd.yaml says so).

Sources:

[1] cuBLASLt's nvjet names are not documented by NVIDIA (NVIDIA declined to
    explain its kernel names: NVIDIA/TensorRT-LLM issue #1541). The letters
    are read from real traces: ``nvjet_tst_*`` launched by aten::addmm/mm on
    BF16 tensors (AMD-AGI/TraceLens b200_eager_trace, ../shared/realdata),
    ``nvjet_hsh_*`` in NVIDIA/Fuser issue #3137 (its HSH tests: half in,
    single accumulate, half out), ``nvjet_qqtst_*`` for FP8 torch._scaled_mm.
[2] xmma (cuBLAS/cuDNN): NVIDIA/TransformerEngine issue #1391 ("e4m3bf16
    means tensor A/B in fp8, C/D in bf16"); the second pair is read as MMA
    input and accumulator (i8i32, e4m3f32, tf32f32, bf16f32 in real names);
    ``_ffma_`` marks CUDA-core kernels, ``tensorMxNxK`` / ``warpgroupsize``
    / ``hmma`` tensor-core ones. There is no FP32-operand MMA instruction
    (PTX ISA, "Warp-level matrix multiply-accumulate": .f16 .bf16 .tf32 .f64
    .e4m3 .e5m2 .s8 .u8 .s4 .u4 .b1), so f32 math is FFMA.
[3] NVIDIA/cutlass media/docs/cpp/profiler.md, "CUTLASS 3.0 GEMM procedural
    names"; python/cutlass_library/gemm_operation.py extended_name_3x.
[4] NVIDIA/cutlass python/cutlass_library/gemm_operation.py (core_name,
    extended_name, procedural_name), conv2d_operation.py (conv names),
    library.py (ShortDataTypeNames s=f32 h=f16 d=f64 i=s32 c=cf32 z=cf64,
    DataTypeNames, OpcodeClassNames simt/tensorop/wmma_tensorop); FP32
    operands of a tensorop run on TF32 tensor cores: NVIDIA/cutlass issue
    #466 (maintainer) and generator.py GenerateSM80_TensorOp_1688_fast_math /
    _fast_fp32_math. In ../shared/realdata (nccl_data trace) the
    ``cutlass_80_tensorop_s1688gemm`` kernels run under cuDNN convolutions
    (TF32 allowed by default) while aten::mm (TF32 off) runs ampere_sgemm.
[5] cuBLAS/cuDNN arch-prefixed names are undocumented; they follow the
    CUTLASS letters: CUTLASS 1.3 tools/test/perf/gemm/volta884_gemm.cu
    ("s884gemm": f16 inputs, f32 accumulate; "h884gemm": f16 accumulate),
    sgemm.cu/dgemm.cu/hgemm.cu/igemm.cu (CUDA-core GEMMs). The shapes are
    the PTX ``mma`` shapes (m8n8k4 f16/f64, m16n8k8 f16/tf32, m16n8k16
    f16/bf16/s8, m8n8k16 s8).
[6] ROCm/Tensile Tensile/SolutionStructs.py ProblemType.__str__ and
    Tensile/DataType.py; ROCm/hipBLASLt tensilelite/Tensile/SolutionStructs/
    Naming.py (``MI{M}x{N}x{B}`` only when a matrix instruction is used,
    else ``TT``), Problem.py (mixed ``_{A}{B}`` prefix, ``_MX_`` xf32 math),
    tensilelite/Tensile/TensileInstructions/DataType.py (type letters).
[7] NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/trtllmGenKernels/
    batchedGemm/trtllmGen_bmm_export/KernelMetaInfo.h (each name with its
    mDtypeC/mDtypeA/mDtypeB/mDtypeAcc and mMmaK; the name's m{M}x{N}x{K}
    field has K 32 for E4m3 and MxE2m1 x MxE4m3, 64 for E2m1 x E2m1); PTX
    ISA tcgen05.mma kinds: .kind::f8f6f4 / mxf8f6f4 take any mix of e2m1,
    e2m3, e3m2, e4m3, e5m2 at the K of FP8, .kind::mxf4 (FP4 only) twice it.
[8] NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/trtllmGenKernels/fmha/
    cubin/kernelMetaInfo.h (entries {DATA_TYPE_Q, DATA_TYPE_KV, DATA_TYPE_O,
    ..., "fmhaSm100aKernel_QkvE4m3OBfloat16..."}).
[9] pytorch/pytorch aten/src/ATen/native/transformers/cuda/mem_eff_attention/
    kernels/generate_kernels.py (names) and gemm_kernel_utils.h
    (DefaultGemmType: TensorOp for 16-bit types on sm75+ and f16 on sm70,
    TensorOp OpMultiplyAddFastF32 for f32 on sm80+, Simt otherwise).
[10] NVIDIA/cutlass include/cute/arch/mma_sm70.hpp ... mma_sm100_umma.hpp
    (atom names list D, A, B[, C] types).
[11] NVIDIA "CUDA Binary Utilities", instruction set reference (HMMA, IMMA,
    DMMA, HGMMA, QGMMA are the tensor-core MMA opcodes).
[12] NVIDIA/cutlass include/cutlass/gemm/warp/mma_tensor_op.h (MmaTensorOp),
    include/cutlass/numeric_types.h (element types).
[13] Dao-AILab/flash-attention csrc/flash_attn/src/kernel_traits.h (MMA
    atoms SM80_16x8x16_F32F16F16F32_TN / F32BF16BF16F32_TN).
[14] ROCm/composable_kernel include/ck/utility/data_type.hpp (half_t =
    _Float16, bhalf_t = ushort), gridwise_gemm_xdl_cshuffle_v3.hpp (template
    order: layouts, then ADataType); xdl = XDLOPS = MFMA.

Deliberately NOT inferred (None): names without types (``gemm``,
``cutlass::Kernel<...>`` without an MMA and element types, Triton
``triton_*``, ``attn_fwd``, user kernels such as ``gemm_v1<float>``);
elementwise, reduction, copy, NCCL/RCCL kernels (their work is not a
matrix product: the trace dtype is the better guide); cuBLAS GEMV/dot/
split-K reduce/epilogue helpers and cuDNN transform kernels (winograd,
FFT, layout, offsets), whose unit is not in the name; nvjet with fp32 or
unknown letters (TF32 or FP32 emulation is not spelled out); int4 MMAs (no
precision key for them); Tensile HPA types (HHS, HSS, BBS, BSS,
I8II) without a matrix instruction (the VALU path differs by ISA: v_dot2,
v_fma_mix or converted v_fma_f32); mixed-input pairs that are not a narrow
type converted to a 16-bit one.
"""
from __future__ import annotations

import re
from functools import lru_cache

from .kernel_name_rules import (bmm, ck, convolve, cute, cutlass2, cutlass3, cutlass_template, flash, fmha,
                                legacy, memeff, nvjet, tensile, xmma, xmma_traits)
from .kernel_name_types import PRECISION_KEYS, NamePrecision

__all__ = ["PRECISION_KEYS", "NamePrecision", "precision_from_name"]


# ---------------------------------------------------------------- dispatch
# (substring that must be present, rule); the substrings keep the cost of a
# name no rule matches (most of a trace) to a few `in` tests
_RULES = (
    ("nvjet_", nvjet),
    ("_xmma_", xmma),
    ("cutlass3x_", cutlass3),
    ("cutlass_", cutlass2),
    ("_convolve_", convolve),
    ("Cijk_", tensile),
    ("mm_", bmm),
    ("fmhaSm", fmha),
    ("fmha_cutlass", memeff),
    ("_", cute),
    ("_traits", xmma_traits),
    ("MmaTensorOp", cutlass_template),
    ("flash_", flash),
    ("ck::", ck),
)
_ARCH_WORDS = ("maxwell_", "pascal_", "volta_", "turing_", "ampere_", "ada_", "hopper_")
_CUTE_HINT = re.compile(r"SM\d{2,3}_|MMA_\d")


@lru_cache(maxsize=65536)
def precision_from_name(name: str) -> NamePrecision | None:
    """The precision key a kernel's name states for its math, or None when
    the name does not say. Demangled C++ names (templates, parameter lists)
    and mangled ones are searched for the library's own name inside them;
    a trailing ``.kd`` (AMD code-object symbol) is ignored."""
    if not name:
        return None
    name = name.strip().removesuffix(".kd")
    for needle, rule in _RULES:
        if needle not in name:
            continue
        if rule is cute and not _CUTE_HINT.search(name):
            continue
        found = rule(name)
        if found is not None:
            return found
    if any(w in name for w in _ARCH_WORDS):
        return legacy(name)
    return None
