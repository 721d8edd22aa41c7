"""HLO costs against XLA's own cost analysis (xla/service/hlo_cost_analysis.cc,
read for its rules): small modules counted here by hand. Where this
project counts otherwise on purpose (compulsory bytes), the test says so."""
from __future__ import annotations

import numpy as np
import pytest

from test_xla_hlo import F32, NCHW, TUPLE, Module, _add_computation, window_conv

S32, U32 = 4, 8


def _two_input_reducer(m):
    """(a0, a1), (b0, b1) -> (a0 + b0, a1 + b1): two FLOPs a run."""
    comp = m.computation("add2")
    p = [m.param(comp, i, m.shape(F32)) for i in range(4)]
    s0 = m.add(comp, "s0", "add", m.shape(F32), (p[0], p[2]))
    s1 = m.add(comp, "s1", "add", m.shape(F32), (p[1], p[3]))
    out = m.C["ShapeProto"](element_type=TUPLE)
    out.tuple_shapes.add().CopyFrom(m.shape(F32))
    out.tuple_shapes.add().CopyFrom(m.shape(F32))
    m.add(comp, "t", "tuple", out, (s0, s1))
    return comp


def test_a_variadic_reduce_counts_its_first_input_as_xla_does():
    m = Module()
    reducer = _two_input_reducer(m)
    main = m.computation("main")
    x, y = m.param(main, 0, m.shape(F32, 64, 32)), m.param(main, 1, m.shape(F32, 64, 32))
    z0, z1 = m.add(main, "z0", "constant", m.shape(F32)), m.add(main, "z1", "constant", m.shape(F32))
    out = m.C["ShapeProto"](element_type=TUPLE)
    out.tuple_shapes.add().CopyFrom(m.shape(F32, 64))
    out.tuple_shapes.add().CopyFrom(m.shape(F32, 64))
    m.add(main, "r", "reduce", out, (x, y, z0, z1), dimensions=[1], called_computation_ids=[reducer.id])
    # XLA: (2048 - 64) runs of a reducer that does 2 FLOPs (both inputs' work is in it); was twice that
    assert m.costs().cost("r").flops == {"fp32": (64 * 32 - 64) * 2.0}


def test_reduce_window_that_is_a_reduce_then_broadcast_counts_as_xla_does():
    m = Module()
    add = _add_computation(m)
    main = m.computation("main")
    x = m.param(main, 0, m.shape(F32, 8, 16))
    zero = m.add(main, "zero", "constant", m.shape(F32))
    # a cumulative-sum-like window of 31 = 2 x 15 + 1 padded 15 each side over a dimension of 16
    m.add(main, "rw", "reduce-window", m.shape(F32, 8, 16), (x, zero), called_computation_ids=[add.id],
          window=[dict(size=1, stride=1), dict(size=31, stride=1, padding_low=15, padding_high=15)])
    # XLA: output / 16 + 16 - 1 = 8 + 15 reductions (was 128 x 30)
    assert m.costs().cost("rw").flops == {"fp32": 8.0 + 15}


def test_select_and_scatter_runs_select_and_scatter_computations():
    m = Module()
    select = m.computation("ge")
    a, b = m.param(select, 0, m.shape(F32)), m.param(select, 1, m.shape(F32))
    m.add(select, "ge", "compare", m.shape(1), (a, b))
    scatter = m.computation("add_mul")
    c, d = m.param(scatter, 0, m.shape(F32)), m.param(scatter, 1, m.shape(F32))
    s = m.add(scatter, "s", "add", m.shape(F32), (c, d))
    m.add(scatter, "t", "multiply", m.shape(F32), (s, d))
    main = m.computation("main")
    operand, source = m.param(main, 0, m.shape(F32, 8, 8)), m.param(main, 1, m.shape(F32, 4, 4))
    init = m.add(main, "zero", "constant", m.shape(F32))
    m.add(main, "sas", "select-and-scatter", m.shape(F32, 8, 8), (operand, source, init),
          called_computation_ids=[select.id, scatter.id], window=[dict(size=2, stride=2)] * 2)
    # XLA: 16 sources x (4 - 1) selects of 1 FLOP + 16 scatters of 2 FLOPs (was 16 x 4)
    assert m.costs().cost("sas").flops == {"fp32": 16.0 * 3 + 16 * 2}


def test_sort_and_random_numbers_as_xla_counts_them():
    m = Module()
    less = m.computation("less")
    a, b = m.param(less, 0, m.shape(F32)), m.param(less, 1, m.shape(F32))
    m.add(less, "lt", "compare", m.shape(1), (a, b))
    main = m.computation("main")
    x = m.param(main, 0, m.shape(F32, 1000))
    m.add(main, "sort", "sort", m.shape(F32, 1000), (x,), called_computation_ids=[less.id])
    state = m.param(main, 1, m.shape(U32, 2))
    out = m.C["ShapeProto"](element_type=TUPLE)
    out.tuple_shapes.add().CopyFrom(m.shape(U32, 2))
    out.tuple_shapes.add().CopyFrom(m.shape(U32, 256))
    m.add(main, "rng", "rng-bit-generator", out, (state,))
    m.add(main, "cmp", "compare", m.shape(1, 1000), (x, x))
    costs = m.costs()
    assert costs.cost("sort").flops == {"fp32": 1000.0 * 10}          # n ceil(log2 n); was none
    assert costs.cost("rng").transcendentals == 2 + 256                # every element, as XLA
    assert costs.cost("cmp").flops == {"fp32": 1000.0}                 # on its operands' type, not pred's


def test_slices_and_in_place_updates_touch_only_their_part():
    m = Module()
    main = m.computation("main")
    cache = m.param(main, 0, m.shape(F32, 1024, 1024))
    row = m.param(main, 1, m.shape(F32, 1, 1024))
    i = m.param(main, 2, m.shape(S32))
    m.add(main, "sl", "slice", m.shape(F32, 2, 1024), (cache,))
    m.add(main, "ds", "dynamic-slice", m.shape(F32, 1, 1024), (cache, i, i))
    m.add(main, "dus", "dynamic-update-slice", m.shape(F32, 1024, 1024), (cache, row, i, i))
    # a KV-cache update fused: the cache is aliased to the result, only the row is written
    body = m.computation("fused_dus")
    bc, br, bi = (m.param(body, 0, m.shape(F32, 1024, 1024)), m.param(body, 1, m.shape(F32, 1, 1024)),
                  m.param(body, 2, m.shape(S32)))
    scaled = m.add(body, "scaled", "multiply", m.shape(F32, 1, 1024), (br, br))
    m.add(body, "upd", "dynamic-update-slice", m.shape(F32, 1024, 1024), (bc, scaled, bi, bi))
    m.add(main, "fusion", "fusion", m.shape(F32, 1024, 1024), (cache, row, i), called_computation_ids=[body.id])
    costs = m.costs()
    assert costs.cost("sl").bytes == 2 * 4.0 * 2 * 1024
    assert costs.cost("ds").bytes == 2 * 4.0 * 1024 + 2 * 4
    assert costs.cost("dus").bytes == 2 * 4.0 * 1024 + 2 * 4
    fused = costs.cost("fusion")
    # row read, indices read, row written: was the 4 MiB cache read and written whole
    assert fused.bytes == 4.0 * 1024 + 4 + 4.0 * 1024 and fused.flops == {"fp32": 1024.0}


def _pairs_numpy(size_in, size_out, taps, stride, pad, w_dil=1, b_dil=1):
    o = np.arange(size_out)[:, None]
    i = o * stride + np.arange(taps)[None, :] * w_dil - pad
    return int(((i >= 0) & (i <= (size_in - 1) * b_dil) & (i % b_dil == 0)).sum())


@pytest.mark.parametrize("size_in, taps, stride, pad, w_dil, b_dil", [
    (300_000, 4, 1, 3, 1, 2),       # a transposed convolution's long dimension: was counted as every tap
    (1000, 5, 3, 2, 2, 4), (7, 3, 2, 1, 1, 3), (50, 2, 4, 0, 3, 6)])
def test_base_dilated_windows_are_counted_exactly(size_in, taps, stride, pad, w_dil, b_dil):
    m, size_out = window_conv(F32, size_in, taps, stride, pad, w_dil, b_dil, 2, 3)
    expected = _pairs_numpy(size_in, size_out, taps, stride, pad, w_dil, b_dil)
    assert m.costs().cost("conv").flops == {"fp32": 2.0 * 3 * 2 * expected}


def test_batch_groups_divide_the_input_batch_and_groups_must_fit_the_kernel():
    m = Module()
    comp = m.computation("main")
    # a depthwise filter gradient as XLA writes it: batch 4 in 4 batch groups, 4 output features
    x, w = m.param(comp, 0, m.shape(F32, 4, 3, 5, 5)), m.param(comp, 1, m.shape(F32, 4, 3, 3, 3))
    dim = dict(size=3, stride=1)
    m.add(comp, "conv", "convolution", m.shape(F32, 1, 4, 3, 3), (x, w), window=[dim, dim],
          convolution_dimension_numbers=NCHW, batch_group_count=4)
    # XLA: (3 / 1) x 4 x (4 / 4) x (3 x 3 outputs x 3 x 3 taps)
    assert m.costs().cost("conv").flops == {"fp32": 2.0 * 3 * 4 * 1 * 81}
    m.add(comp, "bad", "convolution", m.shape(F32, 1, 4, 3, 3), (x, w), window=[dim, dim],
          convolution_dimension_numbers=NCHW, feature_group_count=3)         # 3 / 3 = 1 is not the kernel's 3
    assert "input features" in m.costs().cost("bad").unmodelled
