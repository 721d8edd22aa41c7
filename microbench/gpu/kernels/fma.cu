// Arithmetic peaks: FP64, FP32, FP16 (half2), BF16 (bf16x2), INT32 multiply-add
// and an FFMA/LOP3 mix for the warp-instruction rate.
//
// Shape of every kernel (declared in roofline/microbench/gpu/kernels.py and
// checked against the SASS by tests/test_gpu_static.py):
//   * FMA_CHAINS independent accumulators per thread (independent dependency
//     chains, so the FMA latency is hidden inside one thread);
//   * the timed loop runs `iters` times and is pinned with `#pragma unroll 1`;
//     its body is FMA_UNROLL x FMA_CHAINS fully unrolled FMAs;
//   * the accumulators are folded and stored only when they equal `magic`,
//     which the host chooses so that it never happens: the store never runs,
//     but the compiler cannot prove that, so the loop stays alive.
// Header-free on purpose (half2/bf16x2 FMAs are inline PTX on 32-bit
// registers): the SASS depends only on the source and the compile options.

#define FMA_CHAINS 8
#define FMA_UNROLL 64
#define MIX_UNROLL 32

extern "C" __global__ void peak_fp64(double *sink, double a, double b, int iters, double magic)
{
    double acc[FMA_CHAINS];
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) acc[c] = (double)(threadIdx.x + c);
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < FMA_UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < FMA_CHAINS; ++c) acc[c] = fma(acc[c], a, b);
        }
    }
    double s = 0.0;
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) s += acc[c];
    if (s == magic) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // sink
}

extern "C" __global__ void peak_fp32(float *sink, float a, float b, int iters, float magic)
{
    float acc[FMA_CHAINS];
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) acc[c] = (float)(threadIdx.x + c);
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < FMA_UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < FMA_CHAINS; ++c) acc[c] = fmaf(acc[c], a, b);
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) s += acc[c];
    if (s == magic) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // sink
}

// a, b, magic: bit patterns of half2 values (passed as 32-bit integers).
// f16x2 arithmetic needs sm_53; on older targets the kernel is empty.
extern "C" __global__ void peak_fp16(unsigned *sink, unsigned a, unsigned b, int iters, unsigned magic)
{
#if __CUDA_ARCH__ >= 530
    unsigned acc[FMA_CHAINS];
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) acc[c] = 0x3c003c00u + (threadIdx.x & 0xffu) * 0x00010001u + c;
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < FMA_UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < FMA_CHAINS; ++c)
                asm("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(acc[c]) : "r"(a), "r"(b));
        }
    }
    unsigned s = 0u;
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) s ^= acc[c];
    if (s == magic) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // sink
#endif
}

// bf16x2 FMA needs sm_80; on older targets the kernel is empty (not measured).
extern "C" __global__ void peak_bf16(unsigned *sink, unsigned a, unsigned b, int iters, unsigned magic)
{
#if __CUDA_ARCH__ >= 800
    unsigned acc[FMA_CHAINS];
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) acc[c] = 0x3f803f80u + (threadIdx.x & 0xffu) * 0x00010001u + c;
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < FMA_UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < FMA_CHAINS; ++c)
                asm("fma.rn.bf16x2 %0, %0, %1, %2;" : "+r"(acc[c]) : "r"(a), "r"(b));
        }
    }
    unsigned s = 0u;
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) s ^= acc[c];
    if (s == magic) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // sink
#endif
}

// The multiply-add is inline PTX: written in C, NVVM for sm_100/sm_120 spends
// 20-30 s optimising the 512-deep integer polynomial (seconds at FMA_UNROLL 32).
extern "C" __global__ void peak_int32(unsigned *sink, unsigned a, unsigned b, int iters, unsigned magic)
{
    unsigned acc[FMA_CHAINS];
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) acc[c] = threadIdx.x * 0x9e3779b9u + c;
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < FMA_UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < FMA_CHAINS; ++c)
                asm("mad.lo.u32 %0, %0, %1, %2;" : "+r"(acc[c]) : "r"(a), "r"(b));
        }
    }
    unsigned s = 0u;
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) s ^= acc[c];
    if (s == magic) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // sink
}

// Warp-instruction rate: FFMA (FMA pipe) interleaved with integer ALU
// instructions (IADD3 and LOP3), one integer instruction per FFMA, so that one
// warp instruction can issue every cycle on every scheduler whatever the FP32
// width of the architecture. The integer chains are add-rotate-xor style
// (x = x + y + k, then y = y ^ x ^ k): the mix of carries and xor cannot be
// folded algebraically across unrolled steps (pure bitwise chains can: ptxas
// for sm_100 collapses them into one LOP3).
extern "C" __global__ void inst_mix(unsigned *sink, float a, float b, unsigned k, int iters, unsigned magic)
{
    float f[FMA_CHAINS];
    unsigned x[FMA_CHAINS / 2], y[FMA_CHAINS / 2];
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) f[c] = (float)(threadIdx.x + c);
#pragma unroll
    for (int c = 0; c < FMA_CHAINS / 2; ++c) {
        x[c] = threadIdx.x * 0x9e3779b9u + c;
        y[c] = threadIdx.x * 0x85ebca6bu + c;
    }
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < MIX_UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < FMA_CHAINS / 2; ++c) {
                f[2 * c] = fmaf(f[2 * c], a, b);
                x[c] = x[c] + y[c] + k;
                f[2 * c + 1] = fmaf(f[2 * c + 1], a, b);
                y[c] = y[c] ^ x[c] ^ k;
            }
        }
    }
    unsigned s = 0u;
#pragma unroll
    for (int c = 0; c < FMA_CHAINS / 2; ++c) s ^= x[c] ^ y[c] ^ __float_as_uint(f[2 * c]) ^ __float_as_uint(f[2 * c + 1]);
    if (s == magic) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // sink
}
