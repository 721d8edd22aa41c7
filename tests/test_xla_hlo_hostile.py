"""Hostile HLO modules in JAX profiles (issue 35, red team): a profile is a
file from anyone. Cyclic or deep computations, damaged shapes, modules of
millions of instructions, quadratic shapes of work, names with control
characters: each ends in a row that says why it has no work, or a one-line
InputError, never a traceback, a hang, a memory blow-up or an astronomical
count. Nothing is timed: the guards against hangs are an alarm minutes past
what the bounded code needs (seconds at most)."""
from __future__ import annotations

import signal
from contextlib import contextmanager

import pytest

from roofline.core.errors import InputError
from roofline.importers.xplane import reader as xplane
from roofline.importers.xplane.xla_hlo_schema import MAX_INSTRUCTIONS, decode_module
from roofline.importers.xplane.xla_hlo_cost import ModuleCosts
from roofline.importers.xplane.xplane_wire import field_bytes as _f
from test_xla_hlo import F32, NCHW, TUPLE, Module, _jax_space


@contextmanager
def no_hang(seconds=120):
    """Fail instead of hanging: the bounded code takes seconds here, the
    unbounded one took minutes to hours."""
    def stop(*_):
        raise TimeoutError(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _row(tmp_path, module: Module, **kw):
    """The one row of the kernel that ran instruction 'dot' of ``module``."""
    path = tmp_path / "h.xplane.pb"
    path.write_bytes(_jax_space(module, **kw))
    with no_hang():
        (row,) = xplane.read(path).kernels
    return row


def _fusion_of(m: Module, body, shape, operands=None):
    main = m.computation("main")
    params = operands or [m.param(main, 0, m.shape(F32, 4)), m.param(main, 1, m.shape(F32, 4))]
    m.add(main, "dot", "fusion", shape, params, called_computation_ids=[body.id])


def test_computations_calling_each_other_or_nested_deep_say_so_once(tmp_path):
    m = Module("jit_mm")
    a, b = m.computation("A"), m.computation("B")
    m.add(a, "fa", "fusion", m.shape(F32, 4), (m.param(a, 0, m.shape(F32, 4)),), called_computation_ids=[b.id])
    m.add(b, "fb", "fusion", m.shape(F32, 4), (m.param(b, 0, m.shape(F32, 4)),), called_computation_ids=[a.id])
    _fusion_of(m, a, m.shape(F32, 4))
    row = _row(tmp_path, m)
    assert not row.flops and "calls itself" in row.why
    m = Module("jit_mm")
    chain = [m.computation(f"c{i}") for i in range(2000)]
    for i, c in enumerate(chain):
        p = m.param(c, 0, m.shape(F32, 4))
        if i + 1 < len(chain):
            m.add(c, f"f{i}", "fusion", m.shape(F32, 4), (p,), called_computation_ids=[chain[i + 1].id])
        else:
            m.add(c, "neg", "negate", m.shape(F32, 4), (p,))
    _fusion_of(m, chain[0], m.shape(F32, 4))
    row = _row(tmp_path, m)
    # said once: the reason once ran to 64 nested "its body's"
    assert "nested too deep" in row.why and len(row.why) < 200


def _body_dot(m: Module, lhs, rhs, out, lc=(1,), rc=(0,)):
    body = m.computation("body")
    a, b = m.param(body, 0, m.shape(F32, *lhs)), m.param(body, 1, m.shape(F32, *rhs))
    m.add(body, "d", "dot", m.shape(F32, *out), (a, b),
          dot_dimension_numbers=dict(lhs_contracting_dimensions=list(lc), rhs_contracting_dimensions=list(rc)))
    return body


@pytest.mark.parametrize("lhs, rhs, out, lc, rc, why", [
    ((1, 1 << 61), (1 << 61, 1), (1, 1), (1,), (0,), "no real tensor"),        # was 9.2e18 FLOP
    ((4, -8), (-8, 4), (4, 4), (1,), (0,), "no real tensor"),                # was an InputError for the file
    ((4, 1 << 20), (1 << 20, 4), (4, 4), (1, 1, 1), (0, 0, 0), "named twice"),  # was 7.4e19 FLOP
    ((4, 8), (16, 4), (4, 4), (1,), (0,), "different sizes"),
    ((4, 8), (8, 4), (1000, 1000), (1,), (0,), "not the product"),
])
def test_damaged_dot_shapes_in_a_fused_body_give_a_reason_not_a_count(tmp_path, lhs, rhs, out, lc, rc, why):
    m = Module("jit_mm")
    _fusion_of(m, _body_dot(m, lhs, rhs, out, lc, rc), m.shape(F32, *out[:1]))
    row = _row(tmp_path, m)
    assert not row.flops and not row.modelled and why in row.why


def test_a_convolution_whose_window_and_shapes_disagree_gives_a_reason(tmp_path):
    m = Module("jit_mm")
    comp = m.computation("main")
    x, w = m.param(comp, 0, m.shape(F32, 1, 1, 8, 8)), m.param(comp, 1, m.shape(F32, 1, 1, 3, 3))
    dim = dict(size=1 << 40, stride=1, base_dilation=2, window_dilation=1)      # was 3e26 FLOP
    m.add(comp, "dot", "convolution", m.shape(F32, 1, 1, 8, 8), (x, w), window=[dim, dim],
          convolution_dimension_numbers=NCHW)
    row = _row(tmp_path, m)
    assert not row.flops and "shapes that disagree" in row.why
    m = Module("jit_mm")
    comp = m.computation("main")
    big = 1 << 20                            # each dimension a real size, the tensor 2^60 elements: was 4.8e24
    x, w = m.param(comp, 0, m.shape(F32, 1, big, big, big)), m.param(comp, 1, m.shape(F32, big, big, 1, 1))
    m.add(comp, "dot", "convolution", m.shape(F32, 1, big, big, big), (x, w),
          window=[dict(size=1, stride=1)] * 2, convolution_dimension_numbers=NCHW)
    row = _row(tmp_path, m)
    assert not row.flops and "no real tensor" in row.why


def test_work_no_gpu_does_in_the_kernel_time_is_refused(tmp_path):
    """Shapes each a real size whose dot is 4.6e18 FLOP in 2 x 100 ns."""
    m = Module("jit_mm")
    comp = m.computation("main")
    a, b = m.param(comp, 0, m.shape(F32, 1 << 20, 1 << 21)), m.param(comp, 1, m.shape(F32, 1 << 21, 1 << 20))
    m.add(comp, "dot", "dot", m.shape(F32, 1 << 20, 1 << 20), (a, b),
          dot_dimension_numbers=dict(lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0]))
    row = _row(tmp_path, m)
    assert not row.flops and "more than any GPU does" in row.why


def test_a_module_of_a_million_empty_instructions_is_refused_before_it_is_decoded(tmp_path):
    # 2 bytes an instruction on the wire, 220 in the decoded message: 50 MB of them were 5.5 GB
    comp = _f(1, "main") + b"\x12\x00" * (MAX_INSTRUCTIONS + 1) + _f(5, 1)
    data = _f(1, _f(1, "jit_mm") + _f(3, comp))
    from roofline.importers.xplane.xla_hlo import HloModules
    modules = HloModules({"jit_mm(7)": data})
    assert "could not be decoded" in modules.cost(("jit_mm", 7, "dot"))
    assert "more than 1,048,576" in modules.failures["jit_mm(7)"]


def test_the_modules_of_one_profile_are_bounded_together(monkeypatch):
    """Each decoded module is kept: 25 modules just under the per-module
    limit (2 MB each on the wire) would be 5.5 GB decoded together."""
    from roofline.importers.xplane import xla_hlo
    monkeypatch.setattr(xla_hlo, "TOTAL_INSTRUCTIONS", 1000)
    comp = _f(1, "main") + b"\x12\x00" * 600 + _f(5, 1)
    protos = {f"jit_{j}({j})": _f(1, _f(1, f"jit_{j}") + _f(3, comp)) for j in range(3)}
    modules = xla_hlo.HloModules(protos)
    for j in range(3):
        modules.cost((f"jit_{j}", j, "dot"))
    assert list(modules.failures) == ["jit_1(1)", "jit_2(2)"]
    assert all("for all the modules of one profile" in why for why in modules.failures.values())


def test_a_fusion_of_many_operands_is_read_in_linear_time():
    """50,000 operands and a body of 50,000 parameters: each operand looked
    its parameter up among all the body's instructions (2.5e9 steps)."""
    m = Module("jit_mm")
    n = 50_000
    body = m.computation("body")
    for i in range(n):
        m.param(body, i, m.shape(F32, 4))
    main = m.computation("main")
    params = [m.param(main, i, m.shape(F32, 4)) for i in range(n)]
    m.add(main, "big", "fusion", m.shape(F32, 4), params, called_computation_ids=[body.id])
    costs = m.costs()
    with no_hang():
        cost = costs.cost("big")
    assert cost.bytes == 4.0 * 4 * (n + 1)


def test_kernels_naming_no_module_are_looked_up_in_one_index():
    """Kernels whose hlo_op names no module: each asked every module (a file
    of 20,000 modules and 200,000 such kernels: 4e9 steps). Counted in calls."""
    from roofline.importers.xplane.xla_hlo import HloModules
    protos = {}
    for j in range(300):
        m = Module(f"jit_{j}")
        comp = m.computation("main")
        m.add(comp, f"op{j}", "negate", m.shape(F32, 4), (m.param(comp, 0, m.shape(F32, 4)),))
        proto = m.C["HloProto"]()
        proto.hlo_module.CopyFrom(m.proto)
        protos[f"jit_{j}({j})"] = proto.SerializeToString()

    class Counted(HloModules):
        calls = 0

        def module(self, *key):
            Counted.calls += 1
            return super().module(*key)
    modules = Counted(protos)
    with no_hang():
        costs = [modules.cost(("", None, f"op{i % 300}")) for i in range(3000)]
    assert all(c.flops == {"fp32": 4.0} for c in costs)
    assert Counted.calls <= 2 * (300 + 3000)            # was 300 x 3000


def test_names_that_are_no_utf8_or_hold_control_characters(tmp_path):
    m = Module("jit_mm")
    comp = m.computation("main")
    x = m.param(comp, 0, m.shape(F32, 4))
    evil = "\x1b[31m<script>alert(1)</script>\u202e" + "A" * 10_000
    m.add(comp, "dot", "custom-call", m.shape(F32, 4), (x,), custom_call_target=evil)
    row = _row(tmp_path, m)
    assert not row.flops and "\x1b" not in row.why and "\u202e" not in row.why and len(row.why) < 300
    assert "\\x1b" in row.why                   # escaped, not dropped
    # an instruction name that is no UTF-8 (same length, so every enclosing length stays right)
    m = Module("jit_u")
    comp = m.computation("main")
    m.add(comp, "dot", "negate", m.shape(F32, 4), (m.param(comp, 0, m.shape(F32, 4)),))
    raw = _jax_space(m)
    assert raw.count(b"\x0a\x03dot") == 1
    path = tmp_path / "u.xplane.pb"
    path.write_bytes(raw.replace(b"\x0a\x03dot", b"\x0a\x03d\xffx"))
    result = xplane.read(path)
    assert [k.why for k in result.kernels] == ["HLO: its HLO module could not be decoded"]
    assert any("HLO module jit_u(7)" in str(w) for w in result.warnings)
    # the kernel did join its module: no warning says it joined none
    assert not any("join none" in str(w) for w in result.warnings)


def test_a_hlo_proto_stat_of_enormous_declared_length_is_one_line(tmp_path):
    stat = _f(1, 1) + b"\x32" + bytes.fromhex("80808080802000")       # bytes_value declaring 2^40 bytes
    meta = _f(2, "/host:metadata") + _f(5, _f(1, 1) + _f(2, _f(1, 1) + _f(2, "Hlo Proto")))
    meta += _f(4, _f(1, 1) + _f(2, _f(1, 1) + _f(2, "jit_m(1)") + _f(5, stat)))
    path = tmp_path / "big.xplane.pb"
    path.write_bytes(_f(1, meta))
    with pytest.raises(InputError, match="declares 1,099,511,627,776 bytes") as info:
        xplane.read(path)
    assert "\n" not in str(info.value)


def test_a_bare_hlo_module_proto_is_taken():
    m = Module("jit_some_module_name")
    comp = m.computation("main")
    m.add(comp, "neg", "negate", m.shape(F32, 8), (m.param(comp, 0, m.shape(F32, 8)),))
    # its field 1 is the name, a string that is no message: it was refused as a damaged HloProto
    assert ModuleCosts(decode_module(m.proto.SerializeToString())).cost("neg").flops == {"fp32": 8.0}


def test_a_tuple_shape_nested_past_the_decoders_limit_is_a_reason(tmp_path):
    m = Module("jit_mm")
    comp = m.computation("main")
    s = m.shape(F32, 4)
    for _ in range(200):
        t = m.C["ShapeProto"](element_type=TUPLE)
        t.tuple_shapes.add().CopyFrom(s)
        s = t
    m.add(comp, "dot", "negate", s, (m.param(comp, 0, m.shape(F32, 4)),))
    row = _row(tmp_path, m)
    assert not row.flops and "could not be decoded" in row.why


def test_a_gemm_backend_config_nested_past_the_stack_is_no_config():
    m = Module()
    comp = m.computation("main")
    a, b = m.param(comp, 0, m.shape(F32, 4, 3, 8)), m.param(comp, 1, m.shape(F32, 4, 8, 2))
    m.add(comp, "gemm", "custom-call", m.shape(F32, 4, 3, 2), (a, b), custom_call_target="__cublas$gemm",
          backend_config=b"[" * 200_000)
    # was "a shape that is no real tensor" (the RecursionError of json.loads caught as a bad shape)
    assert "gives no dot dimension numbers" in m.costs().cost("gemm").unmodelled
