"""numba kernels that reach the CPU's narrow-precision, integer and matrix
units (cache=True; the selection and timing are in :mod:`.units`).

numba cannot be asked for ``vdpbf16ps`` or ``vpdpbusd``: its vectoriser
only emits what plain loops lower to (FP32/FP64 FMAs, integer adds). Each
block here is therefore a numba ``@intrinsic`` that writes the LLVM IR of
the whole timed loop itself, calling the LLVM intrinsic of the instruction
(``llvm.x86.avx512bf16.dpbf16ps.512``, ``llvm.x86.avx512.vpdpbusd.512``,
``llvm.fma.v32f16``, the AMX ``llvm.x86.tdp*`` tile intrinsics), or, for
the scalar integer adds, one inline-asm ``add`` per operation (plain adds of
a loop-invariant are folded into a multiply by LLVM's loop analysis, or
vectorised by its SLP pass). The FP32 and INT32 operands of the vector
intrinsics are declared in their pre-LLVM-17 integer forms, which LLVM
upgrades when it parses the module, so the same code builds on older
llvmlite releases too.

Every block keeps ``ACCUMULATORS`` independent accumulator chains (one
per instruction per iteration: enough to cover 4-6 cycle latencies on two
pipes) and reduces them into the return value, so nothing is dead. The
operands are splats of the ``seed`` argument, so nothing folds at compile
time. ``*_par`` run one block per thread (prange), as ``kernels.py`` does.

A kernel is compiled on its first call only: the caller must check the
CPU's flags first (an AVX-512 BF16 kernel compiled on a CPU without it
fails to compile; run, it would be an illegal instruction).
"""
from __future__ import annotations

import numpy as np
import llvmlite.binding as _llvm
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

# numba does not set up LLVM's assembly parser, which an inline asm with
# text (the scalar adds) needs ("Inline asm not supported by this streamer")
_llvm.initialize_native_asmparser()

ACCUMULATORS = 12
SCALAR_CHAINS = 8      # 8 chains x 4 rounds: 32 adds per iteration, loop overhead ~6 %
SCALAR_ROUNDS = 4
AMX_ACCUMULATORS = 4   # tmm0-3 += tmm4/5 x tmm6/7 (2 x 2 blocking, 8 tiles in all)
AMX_TILE_BYTES = 1024  # 16 rows x 64 bytes

I8, I16, I32, I64 = ir.IntType(8), ir.IntType(16), ir.IntType(32), ir.IntType(64)
F16, F32, F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()


def _vec(t, n):
    return ir.VectorType(t, n)


def _splat(builder, value, vty):
    undef = ir.Constant(vty, ir.Undefined)
    v = builder.insert_element(undef, value, ir.Constant(I32, 0))
    return builder.shuffle_vector(v, undef, ir.Constant(_vec(I32, vty.count), [0] * vty.count))


def _call(builder, name, ret, args):
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ret, [a.type for a in args]), name)
    return builder.call(fn, args)


def _loop(builder, n, body):
    """for i in range(n): body(); n is an i64."""
    with cgutils.for_range(builder, n):
        body()


def _vector_block(builder, n, acc_ty, init, step, reduce, rotate=False):
    """The common loop: ACCUMULATORS allocas (promoted to registers by
    mem2reg), each updated by ``step(acc)`` once per iteration, or with
    ``rotate`` by ``step(acc, next)`` where ``next`` is the following
    accumulator's value of the previous iteration."""
    slots = [cgutils.alloca_once_value(builder, init(k)) for k in range(ACCUMULATORS)]

    def body():
        old = [builder.load(slot) for slot in slots]
        for k, slot in enumerate(slots):
            new = step(old[k], old[(k + 1) % ACCUMULATORS]) if rotate else step(old[k])
            builder.store(new, slot)
    _loop(builder, n, body)
    return reduce([builder.load(s) for s in slots])


def _sum_lanes(builder, vectors, to):
    """Sum of every lane of every vector, as ``to`` (f64 or i64)."""
    total = ir.Constant(to, 0.0 if to is F64 else 0)
    for v in vectors:
        for lane in range(v.type.count):
            x = builder.extract_element(v, ir.Constant(I32, lane))
            if to is F64:
                total = builder.fadd(total, builder.fpext(x, F64))
            else:
                total = builder.add(total, builder.sext(x, I64))
    return total


def _check(n, seed):
    return isinstance(n, types.Integer) and isinstance(seed, types.Integer)


# ------------------------------------------------------------------ vector units

@intrinsic
def _bf16_zmm(typingctx, n, seed):
    """acc(16 x f32) += a(32 x bf16) . b(32 x bf16) pairwise: vdpbf16ps zmm."""
    if not _check(n, seed):
        return None

    def codegen(context, builder, sig, args):
        count, s = args
        vi = _vec(I32, 16)
        # bf16 pairs near 2^-7 (0x3C00 | seed's low bits): no overflow, no denormals
        bits = builder.or_(builder.and_(builder.trunc(s, I32), ir.Constant(I32, 0x000F000F)),
                           ir.Constant(I32, 0x3C003C00))
        a = _splat(builder, bits, vi)
        acc_ty = _vec(F32, 16)
        return _vector_block(
            builder, count, acc_ty,
            init=lambda k: ir.Constant(acc_ty, [1.0 + k * 1e-3] * 16),
            step=lambda acc: _call(builder, "llvm.x86.avx512bf16.dpbf16ps.512", acc_ty, [acc, a, a]),
            reduce=lambda accs: _sum_lanes(builder, accs, F64))
    return types.float64(n, seed), codegen


@intrinsic
def _fp16_zmm(typingctx, n, seed):
    """acc(32 x f16) = acc * a + b: vfmadd...ph zmm (AVX512-FP16)."""
    if not _check(n, seed):
        return None

    def codegen(context, builder, sig, args):
        count, s = args
        vh = _vec(F16, 32)
        # a = 1 - 2^-11 + seed's low bit (0x3BFF/0x3BFE), b = 2^-11: acc settles near 1, no overflow
        abits = builder.sub(ir.Constant(I16, 0x3BFF), builder.and_(builder.trunc(s, I16), ir.Constant(I16, 1)))
        a = _splat(builder, builder.bitcast(abits, F16), vh)
        b = ir.Constant(vh, [2.0 ** -11] * 32)
        return _vector_block(
            builder, count, vh,
            init=lambda k: ir.Constant(vh, [1.0 + k * 2.0 ** -8] * 32),
            step=lambda acc: _call(builder, "llvm.fma.v32f16", vh, [acc, a, b]),
            reduce=lambda accs: _sum_lanes(builder, accs, F64))
    return types.float64(n, seed), codegen


@intrinsic
def _int8_vnni_zmm(typingctx, n, seed):
    """acc(16 x i32) += u8 x s8 over 4 bytes per lane: vpdpbusd zmm."""
    if not _check(n, seed):
        return None

    def codegen(context, builder, sig, args):
        count, s = args
        vi = _vec(I32, 16)
        a = _splat(builder, builder.or_(builder.trunc(s, I32), ir.Constant(I32, 0x01010101)), vi)
        return _vector_block(
            builder, count, vi,
            init=lambda k: ir.Constant(vi, [k] * 16),
            step=lambda acc: _call(builder, "llvm.x86.avx512.vpdpbusd.512", vi, [acc, a, a]),
            reduce=lambda accs: _sum_lanes(builder, accs, I64))
    return types.int64(n, seed), codegen


@intrinsic
def _int8_maddubs_ymm(typingctx, n, seed):
    """The int8 form without VNNI: vpmaddubsw (u8 x s8 -> i16 pairs), vpmaddwd
    with ones (-> i32), vpaddd into the accumulator: 32 multiply-adds per
    step on ymm. The accumulator's own bytes are the unsigned operand, so
    the multiplies depend on the loop and cannot be hoisted out of it."""
    if not _check(n, seed):
        return None

    def codegen(context, builder, sig, args):
        count, s = args
        vi, vb, vw = _vec(I32, 8), _vec(I8, 32), _vec(I16, 16)
        b = builder.bitcast(_splat(builder, builder.or_(builder.trunc(s, I32), ir.Constant(I32, 0x01010101)),
                                   vi), vb)
        ones = ir.Constant(vw, [1] * 16)

        def step(acc):
            pairs = _call(builder, "llvm.x86.avx2.pmadd.ub.sw", vw, [builder.bitcast(acc, vb), b])
            return builder.add(acc, _call(builder, "llvm.x86.avx2.pmadd.wd", vi, [pairs, ones]))
        return _vector_block(builder, count, vi, init=lambda k: ir.Constant(vi, [k + 1] * 8),
                             step=step, reduce=lambda accs: _sum_lanes(builder, accs, I64))
    return types.int64(n, seed), codegen


def _int32_add(lanes):
    @intrinsic
    def block(typingctx, n, seed):
        """acc_k(lanes x i32) += acc_k+1: vpaddd on the widest registers.
        Not ``acc += b``: integer adds of a loop invariant reassociate, and
        LLVM folded the unrolled iterations into one add of a multiple of
        b (a first version read 8x the vector ALUs' peak)."""
        if not _check(n, seed):
            return None

        def codegen(context, builder, sig, args):
            count, s = args
            vi = _vec(I32, lanes)
            b = _splat(builder, builder.trunc(s, I32), vi)
            return _vector_block(builder, count, vi,
                                 init=lambda k: builder.add(b, ir.Constant(vi, [k] * lanes)),
                                 step=lambda acc, nxt: builder.add(acc, nxt), rotate=True,
                                 reduce=lambda accs: _sum_lanes(builder, accs, I64))
        return types.int64(n, seed), codegen
    return block


_int32_zmm = _int32_add(16)
_int32_ymm = _int32_add(8)


@intrinsic
def _scalar_add(typingctx, n, seed):
    """SCALAR_CHAINS independent 64-bit chains x += b, SCALAR_ROUNDS times per
    iteration, each add an inline-asm ``add r64, r64`` (opaque to LLVM). The
    asm clobbers the flags: without saying so, LLVM kept the loop counter's
    ``dec`` flags across the adds and the loop never ended."""
    if not _check(n, seed):
        return None

    def codegen(context, builder, sig, args):
        count, s = args
        b = builder.or_(s, ir.Constant(I64, 1))
        slots = [cgutils.alloca_once_value(builder, builder.add(s, ir.Constant(I64, k)))
                 for k in range(SCALAR_CHAINS)]
        fty = ir.FunctionType(I64, [I64, I64])

        def body():
            xs = [builder.load(slot) for slot in slots]
            for _ in range(SCALAR_ROUNDS):
                xs = [builder.asm(fty, "add $2, $0", "=r,0,r,~{flags}", [x, b],
                                  side_effect=False) for x in xs]
            for x, slot in zip(xs, slots):
                builder.store(x, slot)
        _loop(builder, count, body)
        total = ir.Constant(I64, 0)
        for slot in slots:
            total = builder.add(total, builder.load(slot))
        return total
    return types.int64(n, seed), codegen


# ------------------------------------------------------------------ AMX

def _amx(name):
    @intrinsic
    def block(typingctx, n, cfg, data, out):
        """ldtilecfg; tmm4-7 loaded from ``data``; tmm0-3 zeroed; n times
        tmm0 += tmm4.tmm6, tmm1 += tmm4.tmm7, tmm2 += tmm5.tmm6, tmm3 += tmm5.tmm7;
        tmm0-3 stored to ``out``; tilerelease. ``cfg``: 64-byte tile config."""
        if not isinstance(n, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            count, cfg_a, data_a, out_a = args
            ptr = lambda ary, ty: context.make_array(ty)(context, builder, ary).data  # noqa: E731
            p8 = I8.as_pointer()
            cfg_p = builder.bitcast(ptr(cfg_a, sig.args[1]), p8)
            data_p = builder.bitcast(ptr(data_a, sig.args[2]), p8)
            out_p = builder.bitcast(ptr(out_a, sig.args[3]), p8)
            stride = ir.Constant(I64, 64)
            void = ir.VoidType()
            _call(builder, "llvm.x86.ldtilecfg", void, [cfg_p])
            for t in range(4, 8):
                src = builder.gep(data_p, [ir.Constant(I64, (t - 4) * AMX_TILE_BYTES)])
                _call(builder, "llvm.x86.tileloadd64", void, [ir.Constant(I8, t), src, stride])
            for t in range(AMX_ACCUMULATORS):
                _call(builder, "llvm.x86.tilezero", void, [ir.Constant(I8, t)])
            pairs = ((0, 4, 6), (1, 4, 7), (2, 5, 6), (3, 5, 7))

            def body():
                for c, a, b in pairs:
                    _call(builder, name, void, [ir.Constant(I8, c), ir.Constant(I8, a), ir.Constant(I8, b)])
            _loop(builder, count, body)
            for t in range(AMX_ACCUMULATORS):
                dst = builder.gep(out_p, [ir.Constant(I64, t * AMX_TILE_BYTES)])
                _call(builder, "llvm.x86.tilestored64", void, [ir.Constant(I8, t), dst, stride])
            _call(builder, "llvm.x86.tilerelease", void, [])
            return context.get_dummy_value()
        return types.void(n, cfg, data, out), codegen
    return block


_amx_bf16 = _amx("llvm.x86.tdpbf16ps")
_amx_int8 = _amx("llvm.x86.tdpbusd")
_amx_fp16 = _amx("llvm.x86.tdpfp16ps")


def amx_config() -> np.ndarray:
    """The 64-byte tile configuration: palette 1, tiles 0-7 of 16 rows x 64 bytes."""
    cfg = np.zeros(64, dtype=np.uint8)
    cfg[0] = 1
    for t in range(8):
        cfg[16 + 2 * t] = 64      # colsb, little-endian u16
        cfg[48 + t] = 16          # rows
    return cfg


def amx_buffers(threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Config, input tiles (small non-zero values: 0x3C = 2^-7 bf16/fp16 high
    bytes, int8 60) and one output area per thread."""
    data = np.full(4 * AMX_TILE_BYTES, 0x3C, dtype=np.uint8)
    out = np.zeros(threads * AMX_ACCUMULATORS * AMX_TILE_BYTES, dtype=np.uint8)
    return amx_config(), data, out


# ------------------------------------------------------------------ kernels (one core, all cores)
# Written out one by one: numba caches a function by its name and source
# line, so a factory of njit functions would share one cache entry.

@njit(cache=True)
def bf16_zmm(n, seed):
    return _bf16_zmm(n, seed)


@njit(cache=True, parallel=True)
def bf16_zmm_par(n, seed, threads):
    out = np.zeros(threads)
    for t in prange(threads):
        out[t] = _bf16_zmm(n, seed + t)
    return out.sum()


@njit(cache=True)
def fp16_zmm(n, seed):
    return _fp16_zmm(n, seed)


@njit(cache=True, parallel=True)
def fp16_zmm_par(n, seed, threads):
    out = np.zeros(threads)
    for t in prange(threads):
        out[t] = _fp16_zmm(n, seed + t)
    return out.sum()


@njit(cache=True)
def int8_vnni_zmm(n, seed):
    return _int8_vnni_zmm(n, seed)


@njit(cache=True, parallel=True)
def int8_vnni_zmm_par(n, seed, threads):
    out = np.zeros(threads, dtype=np.int64)
    for t in prange(threads):
        out[t] = _int8_vnni_zmm(n, seed + t)
    return out.sum()


@njit(cache=True)
def int8_maddubs_ymm(n, seed):
    return _int8_maddubs_ymm(n, seed)


@njit(cache=True, parallel=True)
def int8_maddubs_ymm_par(n, seed, threads):
    out = np.zeros(threads, dtype=np.int64)
    for t in prange(threads):
        out[t] = _int8_maddubs_ymm(n, seed + t)
    return out.sum()


@njit(cache=True)
def int32_zmm(n, seed):
    return _int32_zmm(n, seed)


@njit(cache=True, parallel=True)
def int32_zmm_par(n, seed, threads):
    out = np.zeros(threads, dtype=np.int64)
    for t in prange(threads):
        out[t] = _int32_zmm(n, seed + t)
    return out.sum()


@njit(cache=True)
def int32_ymm(n, seed):
    return _int32_ymm(n, seed)


@njit(cache=True, parallel=True)
def int32_ymm_par(n, seed, threads):
    out = np.zeros(threads, dtype=np.int64)
    for t in prange(threads):
        out[t] = _int32_ymm(n, seed + t)
    return out.sum()


@njit(cache=True)
def scalar_add(n, seed):
    return _scalar_add(n, seed)


@njit(cache=True, parallel=True)
def scalar_add_par(n, seed, threads):
    out = np.zeros(threads, dtype=np.int64)
    for t in prange(threads):
        out[t] = _scalar_add(n, seed + t)
    return out.sum()


@njit(cache=True)
def amx_bf16(n, cfg, data, out):
    _amx_bf16(n, cfg, data, out)


@njit(cache=True, parallel=True)
def amx_bf16_par(n, cfg, data, out, threads):
    size = out.size // threads
    for t in prange(threads):
        _amx_bf16(n, cfg, data, out[t * size:(t + 1) * size])


@njit(cache=True)
def amx_int8(n, cfg, data, out):
    _amx_int8(n, cfg, data, out)


@njit(cache=True, parallel=True)
def amx_int8_par(n, cfg, data, out, threads):
    size = out.size // threads
    for t in prange(threads):
        _amx_int8(n, cfg, data, out[t * size:(t + 1) * size])


@njit(cache=True)
def amx_fp16(n, cfg, data, out):
    _amx_fp16(n, cfg, data, out)


@njit(cache=True, parallel=True)
def amx_fp16_par(n, cfg, data, out, threads):
    size = out.size // threads
    for t in prange(threads):
        _amx_fp16(n, cfg, data, out[t * size:(t + 1) * size])


@njit(cache=True)
def no_unit(n, seed):
    """A block of the same shape with plain FP32 adds: the negative control
    of the assembly check (holds none of the units' instructions)."""
    acc = np.zeros(16, dtype=np.float32)
    for _ in range(n):
        for j in range(16):
            acc[j] += np.float32(seed)
    return acc.sum()
