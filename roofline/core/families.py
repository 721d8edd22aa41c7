"""Kernel families from kernel names, and what each family is (:data:`TABLE`).

A family says what kind of work a kernel does, so that a report can put
cuDNN's implicit GEMM next to its Winograd and FFT kernels and a hand-written
convolution, or sum the 900k kernels of a training trace into a dozen rows.
It is read from the name alone (no counters), so it is a heuristic; the
rules below are ordered and the first match wins.

How a name is matched
---------------------
The name is lower-cased and its trailing parameter list is dropped
(``foo<float, 4>(float*, int)`` -> ``foo<float, 4>``): template arguments
carry the useful words (``cutlass::Kernel2<cutlass_80_tensorop_..._gemm>``,
``MapPlanKernel<..., ReduceWithAxisExp<...>>``) while parameter types
mislead (``fft2d_c2r(..., cudnn::reduced_divisor, ...)``). An
Itanium-mangled name is first reduced to its identifiers
(``_ZN5mxnet2op14forward_kernelEPfPKfS3_iiiiii`` -> ``mxnet::op::forward_kernel``,
``_Z14forward_kernelPfPKfS1_iiiiii`` -> ``forward_kernel``, ``_Z5test0Pdyy`` ->
``test0``; :func:`demangle_identifiers`), so it is classified like its
demangled form.

Rules, in order (``FAMILIES`` lists the names, from :data:`TABLE`)
----------------------------------------------
0. TorchInductor's Triton kernels (``triton_{poi,red,per,tem,for,spl}_fused_<ops>_<n>``)
   are read from their kind and the fused ops their name lists, not from
   substrings (``triton_poi_fused_addmm_gelu_0`` is the pointwise epilogue
   of a GEMM, not one): a template (``tem``) is ``gemm`` (``mm``, ``addmm``,
   ``bmm``...), ``implicit_gemm`` (``convolution``) or ``attention``
   (``flex_attention``, ``sdpa``); otherwise ``softmax`` or
   ``normalization`` when a fused op is one, else ``elementwise`` (``poi``,
   ``for``) or ``reduction`` (``red``, ``per``, ``spl``). Names without
   ops (``triton__0d1d2d``) go through the rules below.
1. ``memcpy``: a copy-engine transfer, named as profilers name them:
   ``[CUDA memcpy HtoD]`` (nvprof, nsys), ``Memcpy HtoD (Pageable -> Device)``
   (Kineto), ``[Unified Memory Memcpy DtoH]``, ``[CUDA Unified Memory memcpy
   HtoD]`` (nsys), TensorFlow's ``MemcpyH2D``/``MemcpyD2H``, ROCm's
   ``CopyHostToDevice``/``CopyDeviceToHost``. A kernel merely named
   ``memcpy_kernel`` is not one.
2. ``memset``: ``[CUDA memset]``, ``Memset (Device)``, ROCm's ``FillBuffer``.
3. ``communication``: collective and point-to-point kernels (``nccl``,
   ``rccl``, ``AllReduce``, ``AllGather``, ``ReduceScatter``, ``SendRecv``;
   RCCL's ``ncclDevKernel_Generic``; DeepEP's expert-parallel dispatch and
   combine, ``dpsk::ep::``/``deep_ep::``; PyTorch symmetric memory's
   ``multimem_all_reduce`` and one/two-shot all-reduce; vLLM's custom
   all-reduce ``cross_device_reduce_*``; MSCCL, NVSHMEM). Not "reduction":
   they are bound by the interconnect. DeepEP's ``get_dispatch_layout``
   only counts tokens per rank on one GPU: ``other``.
4. ``attention``: fused attention (``flash_fwd_kernel``, ``fmha_cutlassF``,
   ``*sdpa*``, ``*attention*``, Triton ``_attn_fwd``, SageAttention's
   ``sage_fwd``).
4a. TensorRT-LLM's batched GEMMs (``bmm_MxE4m3_MxE2m1MxE4m3_Fp32_..._swiGlu_...``)
   vLLM's Triton ``fused_moe_kernel`` and triton_kernels' ``_matmul_ogs_*``
   (gpt-oss MXFP4 MoE, a SwiGLU epilogue included) are ``gemm``; a fused
   MoE's routing kernels (``moe::dev::routing::*``, ``_combined_routing_*``,
   ``_sum_bitmatrix_rows``) ``reduction`` and its finalize
   (``moe::dev::finalize::*``, ``_finalize_matmul_scatter_*``)
   ``elementwise``, though their names say CUTLASS types or matmul.
   ``elementwise`` before the library rules: a transpose in any
   namespace (``dpsk::grouped_gemm::...::transpose``), rotary embeddings
   (``vllm::rotary_embedding_kernel``), SwiGLU.
4b. ``embedding``: fbgemm_gpu's table-batched embedding lookups
   (``split_embedding_codegen_forward_*``, ``split_embedding_backward_*``,
   ``embedding_bag``): gathers of table rows, memory-bound.
5. ``winograd``: fused and non-fused Winograd convolution
   (``maxwell_scudnn_winograd_*``, ``cudnn::winograd_nonfused::*``,
   ``generateWinogradTilesKernel``): any name containing ``winograd``.
6. ``fft``: FFT convolution and its helpers: ``fft2d_r2c_*``, ``fft2d_c2r_*``,
   any ``*fft*``, ``*_r2c``/``*_c2r``, ``flip_filter``,
   ``compute_gemm_pointers``, and the complex GEMM/GEMV that does the
   pointwise product in the frequency domain: ``cgemm`` anywhere in the name
   (``volta_cgemm_*``, ``ampere_gcgemm_*``, ``fermiPlusCgemmLDS128_batched``)
   and ``gemv*<..., float2, ...>``. A program that calls cuBLAS complex GEMM
   directly sees those under ``fft`` too.
7. ``explicit_gemm``: ``im2col``/``col2im`` and ``explicit_convolve_sgemm``.
8. ``implicit_gemm``: cuDNN implicit (precomputed) GEMM convolution:
   ``implicit_convolve_sgemm``, ``precomputed_convolve_sgemm`` and its index
   helpers ``cudnn::cnn::kern_precompute_indices`` and
   ``cask_cudnn::computeOffsetsKernel`` (the offset table of an indexed
   implicit GEMM), ``*implicit_gemm*``
   (``sm80_xmma_fprop_implicit_gemm_*``,
   ``xmma_new::gemm::kernel<xmma_new::implicit_gemm::fprop...>``), CUTLASS's
   ``cutlass::conv::kernel::ImplicitGemmConvolution`` (any ``cutlass::conv::``),
   CUTLASS/XMMA ``fprop``/``dgrad``/``wgrad`` kernels, cuDNN ``dgrad_engine``,
   and the architecture-prefixed cuDNN
   kernels (``volta_scudnn_128x64_relu_interior_nn_v1``,
   ``turing_fp16_s1688cudnn_fp16_*``), MIOpen ``igemm_fwd_*``, Composable
   Kernel's ``kernel_grouped_conv_fwd_*`` (XDL implicit GEMM).
9. ``gemm``: cuBLAS, cuBLASLt and CUTLASS GEMM/GEMV (``volta_sgemm_128x128_tn``,
   ``ampere_bf16_s16816gemm_*``, ``sm90_xmma_gemm_*``, ``nvjet_*``,
   ``cutlass::Kernel2<...gemm...>``, ``gemv2T_kernel_val``,
   ``gemvx``, ``cublasGemv*``, ``splitKreduce_kernel``, ROCm's skinny-GEMM
   ``wvSplitK``), Eigen contractions,
   ``*matmul*``/``*_mm_*``, hand-written ``matrixMulCUDA<32>`` (the CUDA
   sample), ``matrixMultiplyShared``/``matrix_multiply`` (``matrix_?mul``
   anywhere) and ``mmKernel``, Triton ``triton_tem_fused_*mm`` and AMD
   Tensile/hipBLASLt ``Cijk_Alik_Bljk_*`` (C_ijk = A_ilk B_jlk). A real GEMV
   inside a non-fused Winograd convolution lands here: the name cannot tell.
10. ``normalization``: batch, layer, group, instance and RMS norm
    (``cudnn::bn_fw_tr_1C11_kernel_NCHW``, ``vectorized_layer_norm_kernel``,
    ``batch_norm_collect_statistics_kernel``, ``cuApplyLayerNorm``; the
    weight and bias gradients ``cuComputePartGradGammaBeta``/``cuComputeGradGammaBeta``
    of layer norm's backward), MIOpen's local response norm ``MIOpenLRN*``.
11. ``softmax``: any name containing ``softmax``.
12. ``pooling``: any name containing ``pool`` (``pooling_fw_4d_kernel``,
    ``max_pool_forward_nchw``, ``adaptive_average_pool``).
13. ``conv_custom``: a direct convolution, outside the GEMM and transform
    algorithms above: a hand-written ``forward_kernel`` (``mxnet::op::forward_kernel``,
    the ECE408 project, and its variants ``forward_kernel_shared``,
    ``forward_kernel_tiled``, and its ``unroll_kernel``), ``conv_forward_kernel``,
    PyTorch's depthwise and direct convolutions: a name with ``conv`` (not
    ``convert``/``conversion``) or a component named ``forward_kernel[_*]``
    or ``unroll_kernel``; MIOpen's direct ``MIOpenCvFwd*``/``Bwd``/``Wrw``;
    and cuDNN's direct backward kernels, whose names
    state no GEMM (``cudnn::detail::dgrad2d_alg1_1``,
    ``wgrad2d_grouped_direct_kernel``, any ``*direct_kernel``). Those are
    library kernels, not custom ones, but calling them implicit GEMM would
    be wrong, and this is the family :mod:`roofline.ops.layers` models as a
    direct convolution (a separate ``conv_direct`` family would need a cost
    model mapping of its own).
14. ``reduction``: ``reduce``/``reduction`` (``at::native::reduce_kernel``,
    ``cub::DeviceReduceKernel``, Eigen ``FullReductionKernel``, mshadow
    ``MapPlanKernel<..., ReduceWithAxisExp<...>>``), scans, arg-max, top-k,
    Triton ``triton_red_*``/``triton_per_*``, bias gradients (TensorFlow
    ``BiasGradNHWC_SharedAtomics``: a sum over all but one axis), CUB's
    exclusive/inclusive sums and histograms, dot products (``vector_dot``),
    rocPRIM's ``lookback_scan`` kernels, the L-p norms of a tensor list
    (``multi_tensor_apply_kernel<..., LpNormFunctor>``, ``lpnorm_cleanup``:
    gradient clipping).
    ``reduced_divisor`` (a cuDNN parameter type) does not count.
15. ``elementwise``: pointwise and data-movement kernels: Eigen
    ``EigenMetaKernel``, mshadow ``MapPlan*``, PyTorch
    ``vectorized_elementwise_kernel``/``unrolled_elementwise_kernel``/
    ``elementwise_kernel``, cuDNN ``op_generic_tensor_kernel`` and epilogues,
    MIOpen's tensor ops (``Op2dTensorGeneric``, ``SubTensorOpWithScalar*``),
    layout changes (``nchwToNhwcKernel``, transpose, TensorFlow
    ``ShuffleInTensor3``/``SwapDimension1And2InTensor3UsingTiles``), padding
    (``PadInputCustomKernelNHWC``), copies, fills and random fills, casts and
    conversions (``convertFloatToHalf``), bias adds,
    activations, dropout, gathers/scatters/index, upsampling, concatenation,
    optimizer ``multi_tensor_apply_kernel``, Triton ``triton_poi_*``, vector
    arithmetic (``vector_add``, ``vector_mul``) and array or matrix
    initialisation (``init_array``, ``InitializeMatrix_kernel``).
16. ``other``: everything else (``test0``, ``update_weights``).

``family_of`` is cached per unique name; ``families_of`` classifies each
distinct name once, so a million kernels with a few hundred names cost a few
hundred regex searches.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

import numpy as np


@dataclass(frozen=True)
class Family:
    """What a family is, for every module that asks: ``matrix``: its work is
    multiply-adds a matrix (tensor) unit can run; ``copies``: it moves data
    and does no arithmetic (left out of GPU kernel-time totals); ``split``:
    the report's work split it counts under; ``kernel``: for an operator
    family (``roofline.ops``), the kernel family its launches take;
    ``algorithm``: the convolution a layer model of its kernels runs."""

    name: str
    matrix: bool = False
    copies: bool = False
    split: str = "other"
    kernel: str = ""
    # the convolution algorithm a bare layer model of a kernel of this family
    # runs (roofline.ops.layers); None: one stage of a multi-kernel algorithm
    algorithm: str | None = None
    # a kernel family the name rules above give (False: an operator family only)
    named: bool = True


# Kernel families (from names, above) and operator families (the operator
# models' answers, roofline.ops) in one table.
TABLE: dict[str, Family] = {f.name: f for f in (
    Family("memcpy", copies=True), Family("memset", copies=True), Family("communication"),
    Family("attention", matrix=True, split="attention", kernel="attention"),
    Family("winograd", matrix=True, split="convolution"), Family("fft", matrix=True, split="convolution"),
    Family("explicit_gemm", matrix=True, split="convolution"),
    Family("implicit_gemm", matrix=True, split="convolution", algorithm="implicit_gemm"),
    Family("conv_custom", matrix=True, split="convolution", algorithm="direct"),
    Family("gemm", matrix=True, split="GEMM", kernel="gemm", algorithm="implicit_gemm"),
    Family("convolution", matrix=True, split="convolution", kernel="conv_custom", named=False),
    Family("normalization", split="normalisation", kernel="normalization"),
    Family("softmax", split="normalisation", kernel="softmax"),
    Family("elementwise", split="element-wise", kernel="elementwise"),
    Family("copy", split="element-wise", kernel="elementwise", named=False),
    Family("embedding", kernel="embedding"), Family("pooling", kernel="pooling"),
    Family("reduction", kernel="reduction"), Family("optimizer", kernel="optimizer", named=False),
    Family("view", kernel="view", named=False),
    Family("other", algorithm="direct"),
)}
# the families whose work runs on matrix units, and those that only copy
# the families a kernel's name can give (family_of)
FAMILIES = tuple(name for name, f in TABLE.items() if f.named)
MATRIX = frozenset(name for name, f in TABLE.items() if f.matrix)
COPIES = frozenset(name for name, f in TABLE.items() if f.copies)
# operator families (roofline.ops models answer with one of these)
OPERATOR_FAMILIES = tuple(name for name, f in TABLE.items() if f.kernel)


def kernel_family(operator_family: str) -> str:
    """The kernel family of an operator family's launches (convolution ->
    conv_custom, copy -> elementwise); unknown names as they are."""
    f = TABLE.get(operator_family)
    return f.kernel if f is not None and f.kernel else operator_family

_RULES: tuple[tuple[str, re.Pattern], ...] = tuple((family, re.compile(pattern)) for family, pattern in (
    ("memcpy", r"^\s*\[?\s*(cuda |unified memory |hip )*memcpy(\b|[hdp]2[hdp]|(htod|dtoh|dtod|htoh|ptop)\b)"
               r"|^\s*\[?\s*copy(host|device)to(host|device)\b"),
    ("memset", r"^\s*\[?\s*(cuda |hip )?memset\b|^\s*fillbuffer\b"),
    # DeepEP's layout pass counts the tokens each rank gets: local work, no traffic
    ("other", r"get_dispatch_layout"),
    ("communication", r"nccl|rccl|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|sendrecv"
                      r"|dpsk::ep::|deep_?ep::|multimem|cross_device_reduce|msccl|nvshmem"),
    ("attention", r"flash|fmha|attention|sdpa|_attn|attn_|\bmha_|(^|[_:\s])sage_?(fwd|bwd|attn)"),
    # TensorRT-LLM's trtllm-gen batched GEMMs (bmm_{C}_{A}{B}_{acc}_..., a fused SwiGLU
    # epilogue included) and vLLM's Triton fused_moe_kernel are GEMMs
    # and triton_kernels' grouped GEMM with gathered/scattered rows (matmul_ogs.py: _matmul_ogs,
    # a fused SwiGLU epilogue included)
    ("gemm", r"^bmm_[a-z0-9]+_|(^|[_:\s])fused_moe_kernel|(^|[_:\s])matmul_ogs_"),
    # a fused MoE's routing (histograms and offsets of expert ids: triton_kernels' routing.py
    # _combined_routing_*, _sum_bitmatrix_rows) and finalize (the weighted sum of the experts'
    # outputs per token: _finalize_matmul*) move data
    ("reduction", r"moe::dev::routing|(^|_)combined_routing_|sum_bitmatrix"),
    ("elementwise", r"moe::dev::finalize|finalizekernel|(^|_)finalize_matmul"),
    # a transpose in a GEMM library's namespace (dpsk::grouped_gemm::...::transpose) moves data
    ("elementwise", r"::(batched_)?transpose\b|rotary_?emb|swiglu"),
    # table-batched embedding lookups of recommendation models (fbgemm_gpu TBE)
    ("embedding", r"split_embedding|embedding_?bag|(^|[_:\s])embedding_(forward|backward)"),
    ("winograd", r"winograd"),
    ("fft", r"fft|_r2c|_c2r|\br2c|\bc2r|flip_filter|compute_gemm_pointers"
            r"|cgemm|gemv\w*<[^()]*\b(float2|double2|cucomplex|cudoublecomplex)\b"),
    ("explicit_gemm", r"im2col|col2im|explicit_convolve"),
    ("implicit_gemm", r"implicit_convolve|implicit_?gemm|implicit_precomp|precomputed_convolve"
                      r"|precompute_indices|cask_cudnn::computeoffsets|cutlass::conv::"
                      r"|(xmma|cutlass)\w*(fprop|dgrad|wgrad)|\b(fprop|dgrad|wgrad)_"
                      r"|(^|[_:\s])(maxwell|pascal|volta|turing|ampere|ada|hopper|blackwell|sm\d+)_\w*cudnn"
                      r"|igemm_(fwd|bwd|wrw)|kernel_grouped_conv_(fwd|bwd)"),
    ("gemm", r"gemm|gemv|cublas|cutlass|nvjet|matmul|matrix_?mul|contraction|splitkreduce|(^|\s)cijk_"
             r"|(^|[_:\s])(bmm|addmm|mm)(_|$)|(^|[_:\s])mm_?kernel|triton_tem_fused_\w*mm|wvsplitk"),
    ("normalization", r"(batch|layer|group|instance|rms|weight)_?norm|(^|::|_|\s)bn_|welford"
                      r"|rowwisemoments|norm_(fw|bw|fwd|bwd|forward|backward)|gradgammabeta|miopenlrn"),
    ("softmax", r"softmax"),
    # data movement of recommendation models (fbgemm_gpu): not pooling
    ("elementwise", r"permute_pooled_embs|permute_\w*(data|indices|embs|sparse|lengths)|bucketize"),
    ("pooling", r"pool"),
    ("conv_custom", r"conv(?!ert|ersion)|miopencv(fwd|bwd|wrw)|(^|::|\s)forward_kernel(\b|_)|(^|::|\s)unroll(_input|_x)?_?kernel\b"
                    r"|(dgrad|wgrad)2d_|grouped_direct|direct_kernel"),
    ("reduction", r"reduc(?!ed_?divisor)|\bscan|devicescan|(ex|in)clusive_?sum|histogram|argmax|argmin|topk"
                  r"|cumsum|triton_(red|per)_|bias_?grad|(^|[_:\s])dot(_?product)?($|_)|lookback_scan|lpnorm"),
    ("elementwise", r"eigen|mapplan|elementwise|op_generic_tensor|optensor|op[1-5]d_?tensor|subtensorop|epilogue|nchwtonhwc|nhwctonchw"
                    r"|transpose|shuffle|swapdimension|permute|(^|[_:\s])pad|copy|fill|philox|random|cast"
                    r"|convert|conversion|bias|relu|gelu|silu|sigmoid"
                    r"|tanh|activation|dropout|gather|scatter|index|arange|upsample|concat|multi_tensor_apply"
                    r"|triton_poi_|(^|[_:\s])vector_?(add|sub|mul|div|scale)\d*($|_)"
                    r"|(^|[_:\s])init(iali[sz]e)?_?(array|matrix|vector|buffer)"),
))


# <length><identifier>; digits after S/T (substitutions S1_, T_), A (array
# bounds A10_) and Dv (vector sizes Dv4_) are not lengths
_MANGLED_PIECE = re.compile(r"(?<![STAv\d])(\d+)")
# A run of more digits is no length prefix (no identifier is that long), and
# int() of thousands of digits raises ValueError (Python's 4,300-digit limit)
_MAX_LENGTH_DIGITS = 6
_WORD_RUN = re.compile(r"\w*")
_IDENT_START = re.compile(r"[A-Za-z_]")


def demangle_identifiers(name: str) -> str:
    """The identifiers of an Itanium-mangled name, joined by ``::``:
    ``_ZN5mxnet2op14forward_kernelE...`` -> ``mxnet::op::forward_kernel``,
    ``_Z14forward_kernelPfPKfS1_iiiiii`` -> ``forward_kernel`` (template
    arguments' identifiers follow). Not a demangler: enough for the rules,
    which never look at parameter types. Other names come back unchanged."""
    if not name.startswith("_Z"):
        return name
    out, i = [], 2
    run_from = run_end = -1      # the run of word characters last measured
    while m := _MANGLED_PIECE.search(name, i):
        i = start = m.end()
        if start - m.start() > _MAX_LENGTH_DIGITS:
            continue
        if not run_from <= start < run_end:     # measured once per run: linear in the name
            run_from, run_end = start, _WORD_RUN.match(name, start).end()
        length = int(m.group(1))
        if length >= 2 and start + length <= run_end and _IDENT_START.match(name, start):
            out.append(name[start:start + length])
            i = start + length
    return "::".join(out) if out else name


def strip_parameters(name: str) -> str:
    """``ns::f<T, 4>(float*, int) const`` -> ``ns::f<T, 4>``: the trailing
    balanced parameter list goes, template arguments stay."""
    text = name.rstrip()
    if text.endswith(" const"):
        text = text[:-6].rstrip()
    if not text.endswith(")"):
        return text
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                head = text[:i].rstrip()
                # "(anonymous namespace)" or a bare "(...)" is not a parameter list
                return head if head else text
    return text


_TRITON = re.compile(r"^triton_(poi|red|per|tem|for|spl)_(?:fused_)?(.*?)(?:_\d+)?$")
_TRITON_KIND = {"poi": "elementwise", "for": "elementwise", "red": "reduction", "per": "reduction",
                "spl": "reduction"}


def _triton_family(kind: str, ops: str) -> str:
    """Rule 0: a Triton kernel's family from its kind and fused ops."""
    words = f"_{ops}_"
    if kind == "tem":
        if re.search(r"flex_attention|sdpa|_attention|attn", words):
            return "attention"
        return "implicit_gemm" if "convolution" in words else "gemm"
    if "softmax" in words:
        return "softmax"
    if re.search(r"(layer|batch|group|instance|rms)_norm", words):
        return "normalization"
    return _TRITON_KIND[kind]


@lru_cache(maxsize=65536)
def family_of(name: str) -> str:
    """The family of one kernel name (see the module doc for the rules)."""
    key = strip_parameters(demangle_identifiers(str(name))).lower()
    triton = _TRITON.match(key)
    if triton:
        return _triton_family(*triton.groups())
    # the library name fbgemm is no GEMM: its permute, bucketize and
    # embedding kernels must not match the gemm rule
    key = key.replace("fbgemm", "fbg")
    for family, pattern in _RULES:
        if pattern.search(key):
            return family
    return "other"


def families_of(names: Iterable[str]) -> np.ndarray:
    """Families of many names (an object array), each distinct name
    classified once."""
    names = np.asarray(list(names) if not isinstance(names, (list, tuple, np.ndarray)) else names, dtype=object)
    distinct, codes = _distinct(names)
    return np.array([family_of(str(n)) for n in distinct] or [""], dtype=object)[codes] if len(names) \
        else np.zeros(0, dtype=object)


def _distinct(names: np.ndarray) -> tuple[list, np.ndarray]:
    """The distinct names (in order of first appearance) and each row's
    index into them: Arrow's hash encoding of the strings (fast on a
    million rows), a Python dict where a name is no string or Arrow is
    missing."""
    try:
        import pyarrow as pa
        encoded = pa.array(names, type=pa.string()).dictionary_encode()
        if encoded.null_count == 0:
            return encoded.dictionary.to_pylist(), encoded.indices.to_numpy(zero_copy_only=False)
    except (ImportError, ValueError, TypeError):    # no pyarrow; None, a number, a lone surrogate
        pass
    index: dict = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in names.tolist()), dtype=np.int64,
                        count=len(names))
    return list(index), codes


def filled(names: np.ndarray, families: np.ndarray) -> np.ndarray:
    """``families`` with every empty one named from its kernel's name (a
    copy where any was empty)."""
    empty = families == ""
    if not empty.any():
        return families
    out = families.copy()
    out[empty] = families_of(names[empty])
    return out
