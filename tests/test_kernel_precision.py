"""Precision and execution unit read from a kernel's name
(roofline.core.kernel_precision): one case per rule, names that must say
nothing, and every kernel name of the real profiler files in
../shared/realdata against expectations checked by hand (the operator that
launched the kernel and its input dtypes, where the trace has them)."""
from __future__ import annotations

import gzip
import json
import re
import tarfile
from functools import lru_cache

import pytest

from conftest import REALDATA
from corrupt import needs_realdata
from roofline.core.kernel_precision import PRECISION_KEYS, NamePrecision, precision_from_name
from roofline.core.model import PRECISIONS


def key(name: str) -> str | None:
    found = precision_from_name(name)
    return found.precision if found else None


# ---------------------------------------------------------------- one case per rule
@pytest.mark.parametrize("name, expected", [
    # nvjet (cuBLASLt, Hopper/Blackwell)
    ("nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN", "tensor_bf16"),          # b200_eager_trace, aten::addmm bf16
    ("nvjet_sm100_tst_64x16_64x16_2x4_2cta_h_bz_splitK_bias_TNT", "tensor_bf16"),
    ("nvjet_hsh_192x192_64x3_2x1_v_bz_coopB_NTN", "tensor_fp16"),          # NVIDIA/Fuser #3137 (HSH test)
    ("nvjet_sm90_hss_320x128_64x4_2x1_v_bz_TNN", "tensor_fp16"),
    ("nvjet_qqtst_128x256_128x6_2x1_2cta_v_bz_TNT", "tensor_fp8"),        # FP8 torch._scaled_mm
    ("nvjet_hhh_128x128_64x4_2x1_v_bz_TNN", "tensor_fp16_acc16"),        # half in, half compute, half out
    ("sm80_xmma_gemm_f16f16_f16f16_f16_nn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
     "tensor_fp16_acc16"),                                                # MMA input f16, accumulator f16
    # xmma (cuBLAS, cuDNN)
    ("sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_execute"
     "_kernel__5x_cublas", "tensor_fp16"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off"
     "_kernel__5x_cublas", "tensor_bf16"),
    ("sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1_execute_segment_k_off"
     "_kernel__5x_cublas", "tensor_fp8"),                                   # NVIDIA/TransformerEngine #1391
    ("sm80_xmma_gemm_i8f32_i8i32_f32_tn_n_tilesize128x128x64_stage3_warpsize2x2x1_tensor16x8x32_fused",
     "tensor_int8"),
    ("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize256x64x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4"
     "_execute_kernel__5x_cublas", "fp32"),                                 # FFMA: no f32-operand MMA
    # cuDNN conv, real: facebookresearch__HolisticTraceAnalysis__nccl_data.json.gz (A100)
    ("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4"
     "_warpsize2x2x1_g1_tensor16x8x8_alignc4_execute_kernel_cudnn_infer", "tensor_tf32"),
    # real: CodeGandee__llm-perf-opt__sam_summary_cuda_gpu_kern_sum.csv (RTX 5090)
    ("sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x32x32_stage4_warpsize4x1x1"
     "_g1_tensor16x8x16_execute_kernel__5x_cudnn", "tensor_bf16"),
    # CUTLASS 3.x: NVIDIA/cutlass media/docs/cpp/profiler.md, issue #2923
    ("cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f32_128x128x64_2x1x1_0_ntn_align8", "tensor_fp16"),
    ("cutlass3x_sm90_tensorop_tf32gemm_f32_f32_f32_f32_f32_128x128x32_2x1x1_0_tnn_align4", "tensor_tf32"),
    ("cutlass3x_sm90_tensorop_gemm_f16_f16_f16_void_f16_128x128x64_1x1x1_0_nnn_align8_warpspecialized"
     "_cooperative_epi_tma", "tensor_fp16"),
    ("cutlass3x_sm100_tensorop_gemm_e4m3_e4m3_f32_bf16_bf16_128x160x128_1x1x1_0_tnn_align16_1sm", "tensor_fp8"),
    ("cutlass3x_sm100_bstensorop_gemm_ue8m0xe4m3_ue8m0xe4m3_f32_bf16_bf16_128x128x128_1x1x1_0_tnn_align32",
     "tensor_fp8"),
    ("cutlass3x_sm90_tensorop_gemm_bf16_s4_f32_bf16_bf16_128x128x64_1x1x1_0_tnt_align8_cvt", "tensor_bf16"),
    # CUTLASS 2.x procedural names (also as embedded in cuBLAS/cuDNN)
    ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_16x6_tn_align4>"
     "(cutlass_80_tensorop_s1688gemm_128x64_16x6_tn_align4::Params)", "tensor_tf32"),  # negative_queue_rank0
    ("cutlass_tensorop_s1688tf32gemm_256x128_16x3_nn_align4", "tensor_tf32"),          # NVIDIA/cutlass #999
    ("cutlass_tensorop_tf32_s1688gemm_tf32_256x128_16x3_nn_align4", "tensor_tf32"),    # NVIDIA/cutlass #999
    ("cutlass_tensorop_s1688f16gemm_256x128_32x3_nn_align4", "tensor_fp16"),            # fast_f16 variant
    ("cutlass_tensorop_s16816gemm_f16_256x128_32x3_nn_align8", "tensor_fp16"),          # profiler.md
    ("cutlass_tensorop_h16816gemm_256x128_32x3_nn_align8", "tensor_fp16_acc16"),       # h: FP16 accumulate
    ("cutlass_80_tensorop_f16_s16816gemm_relu_f16_128x128_32x4_tn_align8", "tensor_fp16"),  # cutlass #1025
    ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8>(T1::Params)",
     "tensor_bf16"),                                                        # sam_summary_cuda_gpu_kern_sum.csv
    ("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_32x1_tn_align2>(T1::Params)",
     "tensor_bf16"),                                                        # sam_summary_cuda_gpu_kern_sum.csv
    ("cutlass_tensorop_i16832gemm_s8_256x128_64x3_tn_align16", "tensor_int8"),         # NVIDIA/cutlass #982
    ("cutlass_tensorop_d884gemm_128x128_16x3_nn_align1", "tensor_fp64"),
    ("cutlass_simt_sgemm_128x128_8x2_nn_align1", "fp32"),                              # profiler.md
    ("void cutlass::Kernel<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>"
     "(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::Params)", "fp32"),      # nccl_data, aten::mm
    ("cutlass_simt_dgemm_128x128_8x2_nn_align1", "fp64"),
    ("cutlass_simt_hgemm_256x128_8x2_nn_align1", "fp16"),
    ("void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_64x256_16x4_nhwc_align4>"
     "(cutlass_tensorop_s1688dgrad_optimized_tf32_64x256_16x4_nhwc_align4::Params)", "tensor_tf32"),
    ("void cutlass__5x_cudnn::Kernel<cutlass_tensorop_bf16_s16816fprop_optimized_bf16_128x128_32x3_nhwc_align8>"
     "(T1::Params)", "tensor_bf16"),
    # cuBLAS / cuDNN arch-prefixed names
    ("ampere_sgemm_128x64_nn", "fp32"),                                   # negative_queue_rank0
    ("volta_sgemm_128x64_nt", "fp32"),                                    # tf_profile aoberai (V100)
    ("ampere_dgemm_64x64_nn", "fp64"),
    ("volta_h884gemm_64x128_ldg8_nn", "tensor_fp16_acc16"),              # h: FP16 accumulate
    ("turing_h1688gemm_256x128_ldg8_tn", "tensor_fp16_acc16"),
    ("volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nt", "tensor_fp16"),
    ("ampere_s16816gemm_fp16_256x128_ldg8_stages_64x3_nn", "tensor_fp16"),  # wangzy0327 output_A100.csv
    ("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x3_tn", "tensor_bf16"),
    ("ampere_fp16_s16816gemm_fp16_64x64_sliced1x2_ldg8_relu_f2f_stages_64x6_tn", "tensor_fp16"),  # cutlass #1025
    ("ampere_gcgemm_64x64_nt", "fp32"),                                   # HTA benchmark_result_493459 (FFT conv)
    ("ampere_igemm_int8_128x128_ldg4_nt", "int8"),
    ("cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", "fp32"),        # HTA benchmark_result_493459
    ("volta_fp16_s884cudnn_fp16_256x128_ldg8_relu_f2f_exp_small_nhwc2nchw_tn_v1", "tensor_fp16"),
    ("trt_volta_hcudnn_128x128_relu_small_nn_v1", "fp16"),
    ("maxwell_scudnn_winograd_128x128_ldg1_ldg4_tile148n_nt", "fp32"),
    ("void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, true, true>(int, int, int, "
     "float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, "
     "float const*, float const*, bool, int, int)", "fp32"),              # HTA benchmark_result_924719
    # Tensile / hipBLASLt
    ("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1_AFC1_ISA942_IU1_K1_WS64"
     "_WG32_8_1", "tensor_bf16"),                                          # torch_compile_triton_trace, aten::mm bf16
    ("Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_ISA90a_IU1_WS64_WG64_4_1",
     "fp32"),                                                              # mi250_minitoy, aten::addmm float (FP32 MFMA)
    ("Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x64x32_MI16x16x1_SN_LDSB0_ISA950_WG32_8_1.kd",
     "tensor_bf16"),                                                       # rocprofv3 908_results (code-object symbol)
    ("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_GRVW8_TT4_64_WG32_8_1", "tensor_fp16"),
    ("Cijk_Ailk_Bljk_HHS_BH_MT64x64x16_SN_GRVW2_TT4_4_WG16_16_1", None),   # HPA on the VALU: path not named
    ("Cijk_Ailk_Bljk_HB_MT64x64x16_SN_GRVW2_TT4_4_WG16_16_1", "fp16"),
    ("Cijk_Ailk_Bljk_SB_MT64x64x8_SN_GRVW1_TT4_4_WG16_16_1", "fp32"),
    ("Cijk_Ailk_Bljk_DB_MT64x64x8_MI16x16x4x1_SN_TT4_4_WG16_16_1", "tensor_fp64"),
    ("Cijk_Ailk_Bljk_I8II_BH_MT128x128x64_MI32x32x8x1_SN_WG32_8_1", "tensor_int8"),
    ("Cijk_Ailk_Bljk_F8SS_BH_Bias_SAV_UserArgs_MT128x128x64_MI16x16x1_SN_ISA942", "tensor_fp8"),
    ("Cijk_Ailk_Bljk_F8BS_BH_Bias_FDMN_SPBML0_A_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN_LDSB0", "tensor_fp8"),
    ("Custom_Cijk_Ailk_Bljk_F8H_HHS_BH_Bias_AS_SAB_SAV_MT128x16x128_MI16x16x1_WaveSpecialization",
     "tensor_fp16"),                                                       # fp8 A converted, f16 MFMA
    ("Cijk_Ailk_Bljk_S_MX_B_Bias_SAV_UserArgs_MT128x128x32_MI32x32x1_SN_ISA942", "tensor_tf32"),
    # TensorRT-LLM / FlashInfer trtllm-gen (b200_eager_trace, vllm::moe_forward / unified_attention)
    ("bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut"
     "_schedP2x1x2x3_biasM_bN_tmaOpt_clmp_dynBatch_sm100f", "tensor_fp8"),
    ("bmm_E4m3_E4m3E4m3_Fp32_t128x8x128_et64x8_m64x8x32_cga1x1x1_16dp256b_TN_transOut_dsFp8_schedS_bN_sm100a",
     "tensor_fp8"),                                                        # TensorRT-LLM KernelMetaInfo.h
    ("bmm_Bfloat16_E2m1E2m1_Fp32_t128x16x256_et128x16_m128x16x64_cga1x1x1_16dp256b_TN_transOut_schedP_bN"
     "_dynBatch_sm100a", "tensor_fp4"),                                    # NVFP4 x NVFP4: the mxf4nvf4 kind
    ("bmm_Bfloat16_MxE2m1MxE2m1_Fp32_t128x16x256_et128x16_m128x16x64_cga1x1x1_16dp256b_TN_sm100f",
     "tensor_fp4"),                                                        # MXFP4 x MXFP4: the mxf4 kind
    ("bmm_Bfloat16_MxE2m3MxE2m1_Fp32_t128x16x128_et128x16_m128x16x32_cga1x1x1_16dp256b_TN_sm100f",
     "tensor_fp8"),                                                        # FP6 x FP4: f8f6f4 kind, FP8 rate
    # CUTLASS 3 block-scaled (bstensorop) FP4 runs the mxf4 kinds; plain tensorop FP4 the f8f6f4 kind
    ("cutlass3x_sm100_bstensorop_gemm_ue8m0xe2m1_ue8m0xe2m1_f32_bf16_bf16_128x128x256_1x1x1_0_tnn_align32",
     "tensor_fp4"),
    ("cutlass3x_sm100_tensorop_gemm_e2m1_e2m1_f32_bf16_bf16_128x128x128_1x1x1_0_tnn_align32", "tensor_fp8"),
    ("cute::SM100_MMA_MXF4NVF4_SS<cutlass::float_e2m1_t, cutlass::float_e2m1_t, float, 128, 256>",
     "tensor_fp4"),
    ("fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext", "tensor_fp8"),
    ("fmhaSm100fKernel_QkvBfloat16OBfloat16H64PagedKvSlidingOrChunkedCausalP64VarSeqQ8Kv128Persistent",
     "tensor_bf16"),
    # PyTorch memory-efficient attention
    ("fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, "
     "cutlass::arch::Sm80, (bool)1, (int)64, (int)64, (int)64, (bool)1, (bool)1>::Params)", "tensor_bf16"),
    ("fmha_cutlassB_f16_aligned_64x64_k64_sm70(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::arch"
     "::Sm70, cutlass::half_t, true, false, false, 64, 64, 64, false>::Params)", "tensor_fp16"),
    ("fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, "
     "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)", "tensor_tf32"),
    ("fmha_cutlassF_f32_aligned_32x128_gmem_sm50(PyTorchMemEffAttention::AttentionKernel<float, "
     "cutlass::arch::Sm50, true, 32, 128, 65536, true, true>::Params)", "fp32"),
    # cute MMA atoms (CUTLASS 3 device kernels, FlashAttention 3); the mangled GMMA atom is found too
    ("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
     "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4, "
     "cute::tuple<cute::C<2>, cute::C<1>, cute::C<1>>, cutlass::gemm::KernelTmaWarpSpecializedCooperative>, "
     "cute::TiledMMA<cute::MMA_Atom<cute::SM90_64x128x16_F32BF16BF16_SS<(cute::GMMA::Major)0, "
     "(cute::GMMA::Major)0>>>>>>(T1::Params)", "tensor_bf16"),
    ("_ZN7cutlass13device_kernelIN4cute4SM904GMMA24MMA_64x128x16_F32F16F16_SSILNS2_5MajorE0ELS4_0EEEEEvNT_6ParamsE",
     "tensor_fp16"),
    ("void flash::compute<cute::TiledMMA<cute::MMA_Atom<cute::SM80_16x8x16_F32F16F16F32_TN>>>()", "tensor_fp16"),
    ("void k<cute::MMA_Atom<cute::SM89_16x8x32_F32E4M3E4M3F32_TN>>()", "tensor_fp8"),
    ("void k<cute::MMA_Atom<cute::SM100_MMA_TF32_SS<float, float, float, 128, 256>>>()", "tensor_tf32"),
    ("void k<cute::MMA_Atom<cute::SM100_MMA_F16BF16_SS<cutlass::bfloat16_t, cutlass::bfloat16_t, float, "
     "128, 256>>>()", "tensor_bf16"),
    ("void k<cute::MMA_Atom<cute::SM100_MMA_MXF4_SS<cutlass::float_e2m1_t, float>>>()", "tensor_fp4"),  # mxf4 kind
    # xmma templates (HTA benchmark_result_924719)
    ("void xmma_new::gemm::kernel<xmma_new::implicit_gemm::fprop::Kernel_traits<xmma_new::Ampere_hmma_tf32"
     "_traits<unsigned int, float>, xmma_new::Cta_tile<xmma_new::Ampere, 128, 128, 16, 2, 2, 1, 1, 1>>>"
     "(Params)", "tensor_tf32"),
    # CUTLASS 2 templates: wangzy0327 output_A100.csv (half_t operands, MmaTensorOp, GemmShape<16,8,8>)
    ("void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaMultistage<"
     "cutlass::gemm::GemmShape<(int)128, (int)128, (int)16>, cutlass::half_t, cutlass::gemm::warp::MmaTensorOp<"
     "cutlass::gemm::GemmShape<(int)64, (int)64, (int)16>, cutlass::half_t, float>>>>(T1::Params)",
     "tensor_fp16"),
    ("_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS_10tfloat32_tENS_4gemm4warp"
     "11MmaTensorOpIfEEEEEEvNT_6ParamsE", "tensor_tf32"),               # mangled, nccl_data (shortened)
    # FlashAttention 2
    ("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, "
     "Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t>>, false, true, false, false, false, true, "
     "false, false>(Flash_fwd_params)", "tensor_bf16"),
    # composable_kernel: A data type is the first element type after the layouts
    ("void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemmMultiD_ABScale_xdl_cshuffle_v3<"
     "ck::tensor_layout::gemm::RowMajor, ck::tensor_layout::gemm::ColumnMajor, ck::Tuple<>, "
     "ck::tensor_layout::gemm::RowMajor, ck::f8_fnuz_t, ck::f8_fnuz_t, float, float, ck::Tuple<>, "
     "unsigned short, ck::tensor_operation::element_wise::PassThrough>>(T1::Argument)", "tensor_fp8"),
    ("void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<ck::tensor_layout::gemm::RowMajor, "
     "ck::tensor_layout::gemm::ColumnMajor, ck::tensor_layout::gemm::RowMajor, unsigned short, unsigned short, "
     "float, unsigned short, unsigned short>>(T1::Argument)", "tensor_bf16"),
])
def test_rule(name, expected):
    assert key(name) == expected


# ---------------------------------------------------------------- names that must say nothing
@pytest.mark.parametrize("name", [
    "",
    "gemm",
    "GEMM",
    "void gemm_v1<float>(float *, float *, float *, int, int, int)",         # Gardenia-Tian sgemm.csv
    "void matrixMulCUDA<int=32>(float*, float*, float*, int, int)",        # leimingyu matrixMul
    "void cutlass::Kernel<Operator>(Operator::Params)",
    "void cutlass::Kernel2<T1>(T1::Params)",
    "void cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<"
    "cutlass_cudnn_train::MatrixShape<4, 128>, cutlass_cudnn_train::epilogue::thread::LinearCombination<"
    "float, 4, float, float>>>(T1::Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, "
    "float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, "
    "float, float>, unsigned int, float, 4>)",
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
    "at::native::CUDAFunctor_add<c10::BFloat16> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<"
    "c10::BFloat16> const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<"
    "at::native::CUDAFunctor_add<c10::BFloat16> >)",
    "triton_poi_fused_add_cos_sin_0",
    "triton_red_fused_add_mean_mul_pow_rsqrt_0",
    "triton__0d1d2d3d",
    "attn_fwd",
    "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    "mscclKernel_Sum_rccl_float8_Simple_false",
    "Cijk_SS_BiasH_HAS_ScaleAlphaVec_PostGSU16_VW1.kd",                 # hipBLASLt split-K reduce, not a GEMM
    "void splitKreduce_kernel<float, float, float, float>(cublasSplitKParams<float>, float const*, "
    "float const*, float*, float const*, float const*, float const*)",
    "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 2, 2, false, false, "
    "cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
    "cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float "
    "const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>, float, "
    "float)",
    "void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::"
    "WinogradDataParams<float, float>)",
    "void cask_cudnn::computeOffsetsKernel<false, false>(cask_cudnn::ComputeOffsetsParams)",
    "void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<cutlass::bfloat16_t, "
    "cutlass::bfloat16_t, 4, true> >(moe::dev::finalize::KernelParams<cutlass::bfloat16_t, "
    "cutlass::bfloat16_t, 4, true>)",                                       # a bf16 type but no MMA
    "nvjet_sss_128x128_64x4_2x1_v_bz_TNN",                                 # fp32 nvjet: TF32 or not, unsaid
    "sm80_xmma_gemm_f64f64_f64f64_f64_nn_n_tilesize64x64x16",               # fp64 without a unit marker
    "cutlass_tensorop_s4_i16864gemm_s4_256x128_128x3_tn_align32",            # int4: no key
    "aten::mm",
    "sigma_gpp_gpu_34",
])
def test_says_nothing(name):
    assert precision_from_name(name) is None


def test_result_carries_library_evidence_and_source():
    found = precision_from_name("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x256_16x3_nn_align4>"
                                "(cutlass_80_tensorop_s1688gemm_128x256_16x3_nn_align4::Params)")
    assert found == NamePrecision(found.precision, found.library, found.evidence, found.source)
    assert (found.precision, found.library, found.evidence) == ("tensor_tf32", "CUTLASS", "tensorop_s1688gemm")
    assert "cutlass_library/gemm_operation.py" in found.source
    with pytest.raises(AttributeError):
        found.precision = "fp32"                                            # frozen
    nvjet = precision_from_name("nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT")
    assert (nvjet.library, nvjet.evidence) == ("cuBLASLt", "nvjet_tst")
    assert precision_from_name("Cijk_Ailk_Bljk_BBS_BH_MT64x64x32_MI16x16x1_SN").evidence == "BBS + MI16x16x1"


def test_keys_are_the_projects_precisions():
    assert set(PRECISION_KEYS) <= set(PRECISIONS)


def test_cached_and_quick():
    precision_from_name.cache_clear()
    names = [f"void at::native::vectorized_elementwise_kernel<{i}, at::native::CUDAFunctor_add<float>>"
             for i in range(2000)] + [f"ampere_sgemm_{i}x64_nn" for i in range(2000)]
    import time
    t0 = time.perf_counter()
    for n in names:
        precision_from_name(n)
    assert time.perf_counter() - t0 < 0.5
    assert precision_from_name.cache_info().currsize == len(names)
    assert precision_from_name(names[-1]) is precision_from_name(names[-1])


# ---------------------------------------------------------------- every name of the real files
# The files reviewed (../shared/realdata/MANIFEST.md). Files added there later
# are not read: their names would need the same review first. The ncu-rep
# reports are left out for speed (their six kernels are the GENE, COALDA,
# Extra-P and BerkeleyGW user kernels, none a library GEMM).
JSON_FILES = [   # every "name" string of these (kernels, operators, threads) is checked
    "kineto_trace/AMD-AGI__TraceLens__b200_eager_trace.json.gz",
    "kineto_trace/AMD-AGI__TraceLens__torch_compile_triton_trace.json.gz",
    "kineto_trace/facebookresearch__HolisticTraceAnalysis__benchmark_result_493459_1694039959_trace.json.gz",
    "kineto_trace/facebookresearch__HolisticTraceAnalysis__benchmark_result_924719_1679055439_trace.json.gz",
    "kineto_trace/facebookresearch__HolisticTraceAnalysis__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "kineto_trace/facebookresearch__HolisticTraceAnalysis__nccl_data.json.gz",
    "kineto_trace/facebookresearch__HolisticTraceAnalysis__negative_queue_rank0.json.gz",
    "kineto_trace/facebookresearch__HolisticTraceAnalysis__triton_example.json.gz",
    "tf_profile/aoberai__chess-engine__aoberai.trace.json.gz",
]
DLRM_TAR = "kineto_trace/facebookresearch__param__dlrm_kineto.tar.gz"
ROCPROFV3 = "rocprofv3/AMD-AGI__TraceLens__908_results.json.gz"
READER_FILES = [  # read with the project's importers
    "ncu_csv/CodeGandee__llm-perf-opt__kernel_0001_ncu.details.csv",
    "ncu_csv/CodeGandee__llm-perf-opt__kernel_0001_ncu.section_SpeedOfLight_RooflineChart.csv",
    "ncu_csv/Gardenia-Tian__LearningNote4Dev__sgemm.csv",
    "ncu_csv/peihunglin__XPlacer-ML-DataPlacement__nsight_bfs_graph4096.log",
    "ncu_csv/wangzy0327__cuda-roofline__output_A100.csv",
    "ncu_csv/wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-dram_ncuroof-time-1.csv",
    "ncu_csv/wdmapp__gene-paper-artifacts-pop2020__dgdxy_time-flops_ncuroof-time-1.csv",
    "nsys/CodeGandee__llm-perf-opt__sam_summary_cuda_gpu_kern_sum.csv",
    "nsys/extra-p__extrap__con_kernel.sqlite",
    "nsys/extra-p__extrap__ex-gpu.s10.sqlite",
    "nvprof/leimingyu__magus__matrixMul_metrics.csv",
    "nvprof/leimingyu__magus__matrixMul_trace.csv",
    "nvprof/peihunglin__XPlacer-ML-DataPlacement__GPUTraceOutput_111100_graph4096.log",
    "nvprof/peihunglin__XPlacer-ML-DataPlacement__output_000000_graph4096.log",
    "nvprof/pssrawat__IEEE2017__jacobi-orig.profile",
    "nvprof/pssrawat__IEEE2017__jacobi-orig.trace",
    "nvprof/pssrawat__IEEE2017__jacobi-unroll.time",
    "nvprof/pssrawat__IEEE2017__untiled.csv",
    "nvprof/sankarmanoj__thrust2D__native.profile",
]

# Hand-checked expectations, by name prefix (the longest matching prefix
# decides; a name no prefix matches must give None). Every prefix matches at
# least one real name. Evidence from the traces is in the comments.
REAL = [
    # negative_queue_rank0 (A100, PyTorch 2.0) and nccl_data (A100): in nccl_data these run under
    # aten::cudnn_convolution / convolution_backward (cuDNN allows TF32 by default) while aten::mm
    # (TF32 off by default) runs ampere_sgemm_32x128_nt: s1688 on sm80 with f32 data = TF32
    ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_", "tensor_tf32"),          # 14 names
    ("void cutlass::Kernel<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>", "fp32"),     # nccl_data aten::mm
    ("ampere_sgemm_", "fp32"),                       # 3 names: negative_queue, nccl_data, HTA 493459
    ("void gemv2T_kernel_val<", None),               # cuBLAS GEMV: unit not named
    ("void cublasLt::splitKreduce_kernel<", None),
    ("void splitKreduce_kernel<", None),
    ("void epilogue::impl::globalKernel<", None),
    # cuDNN convolutions (nccl_data, HTA 493459/924719, A100, float tensors)
    ("sm80_xmma_dgrad_implicit_gemm_tf32f32_tf32f32_f32_", "tensor_tf32"),
    ("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_", "tensor_tf32"),
    ("sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_", "tensor_tf32"),
    ("sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_", "tensor_tf32"),
    ("void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_", "tensor_tf32"),
    ("void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688fprop_optimized_tf32_", "tensor_tf32"),
    ("void cutlass_cudnn_train::Kernel<cutlass_tensorop_s1688wgrad_optimized_tf32_", "tensor_tf32"),
    ("_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolution", "tensor_tf32"),  # tfloat32_t
    ("void cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<", None),
    ("cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1", "fp32"),
    ("cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", "fp32"),
    ("ampere_gcgemm_64x64_nt", "fp32"),              # complex GEMM of cuDNN's FFT convolution
    ("void fft2d_", None),
    ("void implicit_convolve_sgemm<float, float, ", "fp32"),
    ("void xmma_new::gemm::kernel<xmma_new::implicit_gemm::fprop::Kernel_traits<xmma_new::Ampere_hmma_tf32_"
     "traits<", "tensor_tf32"),
    ("void cask_cudnn", None),
    ("void cudnn::winograd_nonfused::", None),
    ("void cudnn::cnn::wgrad_alg0_engine<", None),
    # AMD: mi250_minitoy (MI250, aten::addmm/mm on float: FP32 MFMA, the fp32 roof)
    ("Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_", "fp32"),
    ("Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_", "fp32"),
    # torch_compile_triton_trace (gfx942, aten::mm on BFloat16) and rocprofv3 908_results (gfx950)
    ("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT", "tensor_bf16"),
    ("Cijk_Ailk_Bjlk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT", "tensor_bf16"),
    ("Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT", "tensor_bf16"),
    ("Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT1x4x256_SN_", None),   # no MI: VALU path not named
    # b200_eager_trace (B200, vLLM gpt-oss): nvjet_tst under aten::addmm/mm on BFloat16; the MoE bmm
    # (MXFP4 weights x MXFP8 activations, m..x32 MMA) and the attention with a Float8_e4m3fn query
    ("nvjet_tst_", "tensor_bf16"),                   # 4 names
    ("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_", "tensor_fp8"),
    ("bmm_Bfloat16_MxE2m1MxE4m3_Fp32_", "tensor_fp8"),
    ("fmhaSm100aKernel_QkvE4m3OBfloat16H64", "tensor_fp8"),                 # 2 names
    ("void moe::dev::", None),
    # sam_summary_cuda_gpu_kern_sum.csv (RTX 5090, a BF16 model)
    ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_", "tensor_bf16"),   # 4 names
    ("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_", "tensor_bf16"),  # 2 names
    ("void cutlass__5x_cudnn::Kernel<cutlass_tensorop_bf16_s16816fprop_optimized_bf16_", "tensor_bf16"),
    ("sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_", "tensor_bf16"),
    ("fmha_cutlassF_bf16_aligned_64x64_rf_sm80", "tensor_bf16"),
    # wangzy0327 output_A100.csv: cuBLAS HGEMM with f32 accumulate, CUTLASS example on half_t
    ("ampere_s16816gemm_fp16_256x128_ldg8_stages_64x3_nn", "tensor_fp16"),
    ("void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaMultistage<",
     "tensor_fp16"),
    # CodeGandee kernel_0001 (cuBLAS GEMV on bf16 with float compute): not a tensor-core kernel, unit unsaid
    ("enable_if<!T7, void>::type kernel<int, int, __nv_bfloat16", None),
    # tf_profile aoberai (V100) and the DLRM traces (V100): fp32 SIMT GEMMs; the cuBLAS helpers say nothing
    ("volta_sgemm_", "fp32"),
    ("void gemmk1_kernel<", None),
    ("void gemvNSP_kernel<", None),
    ("void gemmSN_", None),
    ("void dot_kernel<", None),
    # user GEMMs without library names
    ("void gemm_v1<float>", None),
    ("void matrixMulCUDA<", None),
    ("attn_fwd", None),
]


def _json_names(raw: bytes) -> set[str]:
    """Every "name" value of a JSON document (faster than parsing it)."""
    return {json.loads(b'"' + m + b'"') for m in set(re.findall(rb'"name":\s?"((?:[^"\\]|\\.)*)"', raw))}


@lru_cache(maxsize=1)
def real_names() -> frozenset:
    names: set[str] = set()
    for rel in JSON_FILES:
        path = REALDATA / rel
        if path.exists():
            with gzip.open(path) as f:
                names |= _json_names(f.read())
    if (REALDATA / DLRM_TAR).exists():
        with tarfile.open(REALDATA / DLRM_TAR) as tar:
            for member in tar.getmembers():
                if member.isfile() and member.name.endswith(".json"):
                    names |= _json_names(tar.extractfile(member).read())
    if (REALDATA / ROCPROFV3).exists():
        # the kernels dispatched, by their code-object symbol (kernel_symbols records hold
        # kernel_id, code_object_id, kernel_name in that order in this file)
        with gzip.open(REALDATA / ROCPROFV3) as f:
            raw = f.read()
        dispatched = set(re.findall(rb'"kernel_id":(\d+),"dispatch_id"', raw))
        for kid, sym in re.findall(rb'"kernel_id":(\d+),"code_object_id":\d+,"kernel_name":"((?:[^"\\]|\\.)*)"',
                                   raw):
            if kid in dispatched:
                names.add(json.loads(b'"' + sym + b'"'))
    from roofline.importers import read_profile
    for rel in READER_FILES:
        path = REALDATA / rel
        if path.exists():
            names |= {k.name for k in read_profile(path).kernels}
    return frozenset(names)


def expected_for(name: str):
    matches = [(len(prefix), precision) for prefix, precision in REAL if name.startswith(prefix)]
    return max(matches)[1] if matches else None


@needs_realdata
def test_every_real_kernel_name_gives_the_checked_precision():
    names = real_names()
    assert len(names) > 1500                         # kernels, operators and other named events
    unmatched = [prefix for prefix, _ in REAL if not any(n.startswith(prefix) for n in names)]
    assert not unmatched, f"expectations matching no real name: {unmatched}"
    wrong = {}
    for name in names:
        found = precision_from_name(name)
        got = found.precision if found else None
        if got != expected_for(name):
            wrong[name[:120]] = (got, expected_for(name))
    assert not wrong, wrong


def test_fp16_accumulate_sits_on_its_own_roof_where_the_datasheet_has_one():
    """GeForce parts run FP16-accumulate MMA at twice the FP32-accumulate
    rate: an h-accumulator GEMM goes to the faster roof, an s-accumulator one
    (what PyTorch runs) to the slower; on a data-center part both run at the
    datasheet rate, so the FP16-accumulate key falls back to tensor_fp16."""
    from roofline import find_device
    rtx, a100 = find_device("rtx-4090"), find_device("a100-80gb-sxm")
    h = precision_from_name("turing_h1688gemm_256x128_ldg8_tn").precision
    s = precision_from_name("ampere_s16816gemm_fp16_256x128_ldg8_stages_64x3_nn").precision
    assert rtx.compute_rate(h) == 2 * rtx.compute_rate(s) == pytest.approx(330.3e12, rel=1e-3)
    assert a100.compute_key(h) == a100.compute_key(s) == "tensor_fp16"
