// Tensor-core peak on Hopper with warpgroup-level wgmma (sm_90a only).
//
// One block is one warpgroup (128 threads). Per timed-loop iteration the
// warpgroup issues WG_UNROLL wgmma.mma_async m64n128k16 (FP16 inputs, FP32
// accumulate, both operands from shared memory through matrix descriptors)
// into one 64-register accumulator, commits them as one group and waits for
// it. FLOP per wgmma = 2*64*128*16 = 262144 (per warpgroup).
// The tiles hold arbitrary FP16 values: the rate does not depend on them.
// The wgmma asm is volatile and its accumulators are fenced (they are in
// flight until wgmma.wait_group, so the compiler must not move it), but
// volatile is not enough to keep it: ptxas deletes a wgmma whose results are
// dead. As in the other kernels, the never-executed sink store keeps the loop.

#define WG_UNROLL 8

#define WG_FENCE_OPERANDS(D)                                                   \
    _Pragma("unroll") for (int j = 0; j < 64; ++j)                              \
        asm volatile("" : "+f"(D[j]) :: "memory");

#define WGMMA_M64N128K16_F32_F16(D, DESC_A, DESC_B)                            \
    asm volatile(                                                              \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                           \
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "                 \
        "{"                                                                    \
        "%0, %1, %2, %3, %4, %5, %6, %7, "                                     \
        "%8, %9, %10, %11, %12, %13, %14, %15, "                               \
        "%16, %17, %18, %19, %20, %21, %22, %23, "                             \
        "%24, %25, %26, %27, %28, %29, %30, %31, "                             \
        "%32, %33, %34, %35, %36, %37, %38, %39, "                             \
        "%40, %41, %42, %43, %44, %45, %46, %47, "                             \
        "%48, %49, %50, %51, %52, %53, %54, %55, "                             \
        "%56, %57, %58, %59, %60, %61, %62, %63"                               \
        "}, "                                                                  \
        "%64, %65, p, 1, 1, 0, 0;\n}"                                          \
      : "+f"(D[0]), "+f"(D[1]), "+f"(D[2]), "+f"(D[3]), "+f"(D[4]), "+f"(D[5]), "+f"(D[6]), "+f"(D[7]), \
        "+f"(D[8]), "+f"(D[9]), "+f"(D[10]), "+f"(D[11]), "+f"(D[12]), "+f"(D[13]), "+f"(D[14]), "+f"(D[15]), \
        "+f"(D[16]), "+f"(D[17]), "+f"(D[18]), "+f"(D[19]), "+f"(D[20]), "+f"(D[21]), "+f"(D[22]), "+f"(D[23]), \
        "+f"(D[24]), "+f"(D[25]), "+f"(D[26]), "+f"(D[27]), "+f"(D[28]), "+f"(D[29]), "+f"(D[30]), "+f"(D[31]), \
        "+f"(D[32]), "+f"(D[33]), "+f"(D[34]), "+f"(D[35]), "+f"(D[36]), "+f"(D[37]), "+f"(D[38]), "+f"(D[39]), \
        "+f"(D[40]), "+f"(D[41]), "+f"(D[42]), "+f"(D[43]), "+f"(D[44]), "+f"(D[45]), "+f"(D[46]), "+f"(D[47]), \
        "+f"(D[48]), "+f"(D[49]), "+f"(D[50]), "+f"(D[51]), "+f"(D[52]), "+f"(D[53]), "+f"(D[54]), "+f"(D[55]), \
        "+f"(D[56]), "+f"(D[57]), "+f"(D[58]), "+f"(D[59]), "+f"(D[60]), "+f"(D[61]), "+f"(D[62]), "+f"(D[63]) \
      : "l"(DESC_A), "l"(DESC_B), "r"(1))

// Matrix descriptor (no swizzle): start address, leading and stride byte
// offsets, each in 16-byte units.
__device__ __forceinline__ unsigned long long wg_desc(const void *smem, unsigned lbo, unsigned sbo)
{
    unsigned addr = (unsigned)__cvta_generic_to_shared(smem);
    return (unsigned long long)((addr & 0x3FFFFu) >> 4)
         | ((unsigned long long)(lbo >> 4) << 16)
         | ((unsigned long long)(sbo >> 4) << 32);
}

extern "C" __global__ void __launch_bounds__(128) wgmma_fp16(unsigned *sink, int iters, unsigned magic)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __shared__ __align__(128) unsigned tiles[(64 * 16 + 128 * 16) / 2];
    for (int t = threadIdx.x; t < (64 * 16 + 128 * 16) / 2; t += blockDim.x)
        tiles[t] = 0x3c003c00u ^ (unsigned)(t & 0x3ff);
    __syncthreads();
    const unsigned long long desc_a = wg_desc(tiles, 128, 256);
    const unsigned long long desc_b = wg_desc(tiles + 64 * 16 / 2, 128, 256);
    float D[64];
#pragma unroll
    for (int j = 0; j < 64; ++j) D[j] = (float)(threadIdx.x * 64 + j);
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
        WG_FENCE_OPERANDS(D)
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int u = 0; u < WG_UNROLL; ++u)
            WGMMA_M64N128K16_F32_F16(D, desc_a, desc_b);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        WG_FENCE_OPERANDS(D)
    }
    unsigned s = 0u;
#pragma unroll
    for (int j = 0; j < 64; ++j) s ^= __float_as_uint(D[j]);
    if (s == magic) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // sink
#endif
}
