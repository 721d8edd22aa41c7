"""numba kernels of the CPU microbenchmarks (fastmath, cache=True).

Import this module only after :func:`cpuinfo.configure_numba_environment`
when 512-bit code and pinned threads are wanted (``measure.py`` does this,
in the fresh subprocess ``run.py`` starts). Block sizes are module
constants, so numba compiles them as literals and caches one version per
CPU name and feature set.

Kernels and the work each timed repetition does:

* ``fma_f64(n, a, b)`` / ``fma_f32``: a register block of 14 vector
  accumulators (``FMA_BLOCK_*`` elements) updated ``acc = acc * a + b``
  ``n`` times: ``2 * FMA_BLOCK * n`` FLOP. 14 independent chains cover the
  FMA latency (4-5 cycles) times 2 pipes with room to spare and fit the
  register file without spilling. ``*_par`` run one block per thread.
* ``load(x, n, reps)``: streams the first ``n`` elements of ``x`` as two
  half-streams of a slice view, ``reps`` times, with pure vector loads (each
  loaded vector is handed to an empty ``asm volatile`` so it must be loaded
  and no ALU op is spent on it, as likwid-bench's ``load`` does):
  ``8 * n * reps`` bytes. ``read_sum`` is the portable reduction over the
  same two half-streams (one vector add per load; on AVX-512 cores its two
  vector ALU ports cap it below the L1 load rate) used where the inline asm
  is unavailable (non-x86).
* ``triad(x, n, reps, s)``: ``a = b + s * c`` over three thirds of ``x[:n]``:
  ``24 * (n // 3) * reps`` bytes as STREAM counts them (the write-allocate
  read of ``a`` is not counted).
* ``add_chain(n, x, y, z)``: ``x = (x ^ y) + z`` n times: a dependent chain of
  two one-cycle integer ops, 2 n cycles; gives the clock actually reached.
  (An immediate add such as ``x + 1`` is not used: recent Intel cores
  execute it at rename with zero latency.)
* ``empty()``: nothing; the cost of calling a compiled kernel from Python.
* ``scalar_fma_f64``: one dependent scalar chain: the negative control of the
  assembly check.
"""
from __future__ import annotations

import platform
import re

import numpy as np
from numba import njit, prange, types

from .cpuinfo import cpu_info

_INFO = cpu_info()
VECTOR_BYTES = _INFO.isa_vector_bits // 8
ACCUMULATORS = 14
FMA_BLOCK_F64 = ACCUMULATORS * VECTOR_BYTES // 8
FMA_BLOCK_F32 = ACCUMULATORS * VECTOR_BYTES // 4
LANES_F64 = VECTOR_BYTES // 8
# load() consumes 4 vectors per half-stream per step: n must be a multiple of this
LOAD_MULTIPLE = 2 * 4 * LANES_F64
HAS_ASM_LOAD = platform.machine().lower() in ("x86_64", "amd64")


# ------------------------------------------------------------------ compute

@njit(fastmath=True, cache=True, inline="always")
def _fma_block_f64(n, a, b):
    acc = np.empty(FMA_BLOCK_F64, dtype=np.float64)
    for j in range(FMA_BLOCK_F64):
        acc[j] = 1.0 + j * 1e-3
    for _ in range(n):
        for j in range(FMA_BLOCK_F64):
            acc[j] = acc[j] * a + b
    return acc.sum()


@njit(fastmath=True, cache=True, inline="always")
def _fma_block_f32(n, a, b):
    acc = np.empty(FMA_BLOCK_F32, dtype=np.float32)
    for j in range(FMA_BLOCK_F32):
        acc[j] = np.float32(1.0 + j * 1e-3)
    for _ in range(n):
        for j in range(FMA_BLOCK_F32):
            acc[j] = acc[j] * a + b
    return acc.sum()


@njit(fastmath=True, cache=True)
def fma_f64(n, a, b):
    return _fma_block_f64(n, a, b)


@njit(fastmath=True, cache=True)
def fma_f32(n, a, b):
    return _fma_block_f32(n, a, b)


@njit(fastmath=True, cache=True, parallel=True)
def fma_f64_par(n, a, b, threads):
    out = np.zeros(threads)
    for t in prange(threads):
        out[t] = _fma_block_f64(n, a, b)
    return out.sum()


@njit(fastmath=True, cache=True, parallel=True)
def fma_f32_par(n, a, b, threads):
    out = np.zeros(threads, dtype=np.float32)
    for t in prange(threads):
        out[t] = _fma_block_f32(n, a, b)
    return out.sum()


@njit(fastmath=True, cache=True)
def scalar_fma_f64(n, a, b):
    """One dependent scalar chain: must FAIL the vector-FMA check."""
    x = 1.0
    for _ in range(n):
        x = x * a + b
    return x


def fma_flop_per_rep(precision: str, threads: int = 1) -> float:
    block = FMA_BLOCK_F64 if precision == "fp64" else FMA_BLOCK_F32
    return 2.0 * block * threads


# ------------------------------------------------------------------ memory

@njit(fastmath=True, cache=True, inline="always")
def _sum_halves(x, start, n, reps):
    """Reduction over two half-streams of x[start:start+n] (slice views)."""
    h = n // 2
    a = x[start:start + h]
    b = x[start + h:start + 2 * h]
    s0 = 0.0
    s1 = 0.0
    for _ in range(reps):
        for i in range(h):
            s0 += a[i]
            s1 += b[i]
    return s0 + s1


if HAS_ASM_LOAD:
    from llvmlite import ir
    from numba.extending import intrinsic

    @intrinsic
    def _load_sink(typingctx, arr, idx):
        """Load one full vector at arr[idx] and hand it to an empty asm volatile."""
        sig = types.void(arr, idx)

        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, args[0])
            ptr = builder.gep(ary.data, [args[1]])
            vty = ir.VectorType(ir.DoubleType(), LANES_F64)
            value = builder.load(builder.bitcast(ptr, vty.as_pointer()), align=8)
            fty = ir.FunctionType(ir.VoidType(), [vty])
            builder.asm(fty, "", "x,~{memory}", [value], side_effect=True)
            return context.get_dummy_value()

        return sig, codegen

    @njit(cache=True, inline="always")
    def _load_block(x, start, n, reps):
        h = n // 2
        a = x[start:start + h]
        b = x[start + h:start + 2 * h]
        step = 4 * LANES_F64
        for _ in range(reps):
            for i in range(0, h - step + 1, step):
                _load_sink(a, i)
                _load_sink(a, i + LANES_F64)
                _load_sink(a, i + 2 * LANES_F64)
                _load_sink(a, i + 3 * LANES_F64)
                _load_sink(b, i)
                _load_sink(b, i + LANES_F64)
                _load_sink(b, i + 2 * LANES_F64)
                _load_sink(b, i + 3 * LANES_F64)
        return 0.0
else:  # pragma: no cover - exercised on non-x86 machines only
    _load_block = _sum_halves


@njit(cache=True)
def load(x, n, reps):
    return _load_block(x, 0, n, reps)


@njit(cache=True, parallel=True)
def load_par(x, n_per_thread, reps, threads):
    out = np.zeros(threads)
    for t in prange(threads):
        out[t] = _load_block(x, t * n_per_thread, n_per_thread, reps)
    return out.sum()


@njit(fastmath=True, cache=True)
def read_sum(x, n, reps):
    """Reduction over two half-streams of a slice view (portable read kernel)."""
    return _sum_halves(x, 0, n, reps)


@njit(fastmath=True, cache=True, inline="always")
def _triad_block(x, start, n, reps, s):
    m = n // 3
    a = x[start:start + m]
    b = x[start + m:start + 2 * m]
    c = x[start + 2 * m:start + 3 * m]
    for _ in range(reps):
        for i in range(m):
            a[i] = b[i] + s * c[i]
    return a[0]


@njit(fastmath=True, cache=True)
def triad(x, n, reps, s):
    return _triad_block(x, 0, n, reps, s)


@njit(fastmath=True, cache=True, parallel=True)
def triad_par(x, n_per_thread, reps, s, threads):
    out = np.zeros(threads)
    for t in prange(threads):
        out[t] = _triad_block(x, t * n_per_thread, n_per_thread, reps, s)
    return out.sum()


def triad_bytes(n: int) -> float:
    return 24.0 * (n // 3)


@njit(cache=True, parallel=True)
def fill_par(x, value, threads):
    """First touch of the whole buffer, one chunk per (pinned) thread."""
    n = x.size
    chunk = (n + threads - 1) // threads
    for t in prange(threads):
        lo = t * chunk
        hi = min(n, lo + chunk)
        for i in range(lo, hi):
            x[i] = value


# ------------------------------------------------------------------ misc

@njit(cache=True)
def add_chain(n, x, y, z):
    for _ in range(n):
        x = (x ^ y) + z
    return x


ADD_CHAIN_CYCLES_PER_ITER = 2


@njit(cache=True)
def empty():
    return 0


# ------------------------------------------------------------------ assembly check

_VECTOR_FMA = re.compile(r"^\s*vfn?m(?:add|sub)\w*p[sd]\b[^\n]*%([yz])mm", re.M)


def vector_fma_counts(dispatcher) -> dict[str, int]:
    """Packed FMA instructions on ymm/zmm registers in a compiled kernel's assembly."""
    counts = {"ymm": 0, "zmm": 0}
    for asm in dispatcher.inspect_asm().values():
        for reg in _VECTOR_FMA.findall(asm):
            counts[reg + "mm"] += 1
    return counts


def count_vector_fma(dispatcher) -> int:
    """Number of vector FMAs (vfmadd...pd/ps on ymm or zmm) numba generated.

    The dispatcher must have been compiled in this process (numba cannot
    show the assembly of code loaded from its cache: use
    :func:`fresh_vector_fma_counts`). 0 means the kernel is scalar or
    SSE-only and cannot reach the FMA peak.
    """
    return sum(vector_fma_counts(dispatcher).values())


def fresh_vector_fma_counts(dispatcher, signature) -> dict[str, int]:
    """Compile an uncached twin of ``dispatcher`` for ``signature`` and count
    its vector FMAs (same options: fastmath, parallel)."""
    import numba
    opts = dispatcher.targetoptions
    twin = numba.njit(fastmath=bool(opts.get("fastmath", False)),
                      parallel=bool(opts.get("parallel", False)))(dispatcher.py_func)
    twin.compile(signature)
    return vector_fma_counts(twin)


FMA_SIGNATURES = {
    "fp64": (types.int64, types.float64, types.float64),
    "fp32": (types.int64, types.float32, types.float32),
}


def warm_all(buffer: np.ndarray, threads: int) -> None:
    """Call every kernel once on tiny inputs (compiles or loads numba's cache)."""
    n = max(LOAD_MULTIPLE, 48)
    fma_f64(1, 0.5, 0.5)
    fma_f32(1, np.float32(0.5), np.float32(0.5))
    fma_f64_par(1, 0.5, 0.5, threads)
    fma_f32_par(1, np.float32(0.5), np.float32(0.5), threads)
    load(buffer, n, 1)
    load_par(buffer, n, 1, threads)
    triad(buffer, n, 1, 0.5)
    triad_par(buffer, n, 1, 0.5, threads)
    add_chain(1, 3, 5, 7)
    fill_par(buffer[:n], 1.0, threads)
    empty()


ALL_KERNELS = ("fma_f64", "fma_f32", "fma_f64_par", "fma_f32_par", "load", "load_par",
               "triad", "triad_par", "add_chain", "fill_par", "empty")
