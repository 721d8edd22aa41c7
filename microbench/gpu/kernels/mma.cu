// Tensor-core peaks with warp-level mma.sync (sm_80+; FP16 also on sm_75).
//
// Each warp keeps MMA_CHAINS independent accumulator tiles and issues
// MMA_UNROLL x MMA_CHAINS mma.sync per timed-loop iteration (loop pinned with
// `#pragma unroll 1`). The operands A and B are the same registers for every
// mma (their values do not change the rate); the accumulators start from
// distinct values, so no two mma have identical inputs and none can be merged.
// The mma asm is not volatile: only the never-executed store at the end keeps
// the loop alive (tests/test_gpu_static.py removes it and expects the loop to
// vanish). Shapes and FLOP per warp-level mma:
//   fp16, bf16: m16n8k16, FP32 accumulate   2*16*8*16 = 4096
//   tf32:       m16n8k8,  FP32 accumulate   2*16*8*8  = 2048
//   int8:       m16n8k32, INT32 accumulate  2*16*8*32 = 8192 (integer ops)
// On sm_75 the FP16 kernel issues two m16n8k8 per step (same FLOP).

#define MMA_CHAINS 8
#define MMA_UNROLL 8

#define MMA_PROLOGUE(T, INIT)                                                  \
    unsigned A0 = a_bits ^ threadIdx.x, A1 = A0 + 1u, A2 = A0 + 2u, A3 = A0 + 3u; \
    unsigned B0 = a_bits + threadIdx.x, B1 = B0 + 1u;                           \
    T d[MMA_CHAINS][4];                                                         \
    _Pragma("unroll") for (int c = 0; c < MMA_CHAINS; ++c)                      \
        _Pragma("unroll") for (int j = 0; j < 4; ++j) d[c][j] = INIT;

#define MMA_EPILOGUE(T, TOBITS)                                                \
    unsigned s = 0u;                                                            \
    _Pragma("unroll") for (int c = 0; c < MMA_CHAINS; ++c)                      \
        _Pragma("unroll") for (int j = 0; j < 4; ++j) s ^= TOBITS(d[c][j]);

extern "C" __global__ void mma_fp16(unsigned *sink, unsigned a_bits, int iters, unsigned magic)
{
#if __CUDA_ARCH__ >= 750
    MMA_PROLOGUE(float, (float)(threadIdx.x * 4 + c * 64 + j))
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < MMA_UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < MMA_CHAINS; ++c) {
#if __CUDA_ARCH__ >= 800
                asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                    "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                    : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                    : "r"(A0), "r"(A1), "r"(A2), "r"(A3), "r"(B0), "r"(B1));
#else
                asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                    "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                    : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                    : "r"(A0), "r"(A1), "r"(B0));
                asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                    "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                    : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                    : "r"(A2), "r"(A3), "r"(B1));
#endif
            }
        }
    }
    MMA_EPILOGUE(float, __float_as_uint)
    if (s == magic) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // sink
#endif
}

extern "C" __global__ void mma_bf16(unsigned *sink, unsigned a_bits, int iters, unsigned magic)
{
#if __CUDA_ARCH__ >= 800
    MMA_PROLOGUE(float, (float)(threadIdx.x * 4 + c * 64 + j))
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < MMA_UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < MMA_CHAINS; ++c)
                asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                    "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                    : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                    : "r"(A0), "r"(A1), "r"(A2), "r"(A3), "r"(B0), "r"(B1));
        }
    }
    MMA_EPILOGUE(float, __float_as_uint)
    if (s == magic) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // sink
#endif
}

extern "C" __global__ void mma_tf32(unsigned *sink, unsigned a_bits, int iters, unsigned magic)
{
#if __CUDA_ARCH__ >= 800
    MMA_PROLOGUE(float, (float)(threadIdx.x * 4 + c * 64 + j))
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < MMA_UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < MMA_CHAINS; ++c)
                asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                    "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                    : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                    : "r"(A0), "r"(A1), "r"(A2), "r"(A3), "r"(B0), "r"(B1));
        }
    }
    MMA_EPILOGUE(float, __float_as_uint)
    if (s == magic) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // sink
#endif
}

extern "C" __global__ void mma_int8(unsigned *sink, unsigned a_bits, int iters, unsigned magic)
{
#if __CUDA_ARCH__ >= 800
    MMA_PROLOGUE(int, (int)(threadIdx.x * 4 + c * 64 + j))
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < MMA_UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < MMA_CHAINS; ++c)
                asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                    "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                    : "+r"(d[c][0]), "+r"(d[c][1]), "+r"(d[c][2]), "+r"(d[c][3])
                    : "r"(A0), "r"(A1), "r"(A2), "r"(A3), "r"(B0), "r"(B1));
        }
    }
    MMA_EPILOGUE(int, (unsigned))
    if (s == magic) sink[blockIdx.x * blockDim.x + threadIdx.x] = s;  // sink
#endif
}
