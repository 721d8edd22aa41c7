"""JAX/XLA profiles: kernels costed from the HLO modules the profile embeds
(issue 35). Small HLO modules are built here with the reader's own message
classes; the real profile is a JAX 0.8 bf16 3D convolution on 8x MI300X
(../shared/realdata/tf_profile/AMD-AGI__TraceLens__tw003.xplane.pb)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import REALDATA
from corrupt import needs_folder, real_file

from roofline.devices.choice import device_for
from roofline.importers.xplane import reader as xplane, xplane_schema
from roofline.importers.xplane.xla_hlo import HloModules
from roofline.importers.xplane.xla_hlo_cost import ModuleCosts
from roofline.importers.xplane.xla_hlo_schema import HloDecodeError, decode_module, message_classes
from roofline.importers.xplane.xplane_wire import field_bytes

JAX_PB = REALDATA / "tf_profile" / "AMD-AGI__TraceLens__tw003.xplane.pb"
needs_jax = needs_folder(REALDATA / "tf_profile")
F32, BF16, F16, U8, TUPLE = 11, 16, 10, 6, 13


class Module:
    """An HloModuleProto under construction; instructions get module-unique ids."""

    def __init__(self, name="jit_f"):
        self.C = message_classes()
        self.proto = self.C["HloModuleProto"](name=name, id=7)
        self.next_id = 1

    def computation(self, name):
        comp = self.proto.computations.add(name=name, id=len(self.proto.computations) + 1)
        return comp

    def shape(self, kind, *dims):
        return self.C["ShapeProto"](element_type=kind, dimensions=dims)

    def add(self, comp, name, opcode, shape, operands=(), **fields):
        inst = comp.instructions.add(name=name, opcode=opcode, id=self.next_id)
        inst.shape.CopyFrom(shape)
        inst.operand_ids.extend(o.id for o in operands)
        for key, value in fields.items():
            if key == "window":
                for dim in value:
                    inst.window.dimensions.add(**dim)
            elif key in ("convolution_dimension_numbers", "dot_dimension_numbers"):
                getattr(inst, key).CopyFrom(self.C["ConvolutionDimensionNumbers" if key.startswith("conv")
                                                  else "DotDimensionNumbers"](**value))
            elif key in ("called_computation_ids", "dimensions"):
                getattr(inst, key).extend(value)
            else:
                setattr(inst, key, value)
        self.next_id += 1
        comp.root_id = inst.id
        return inst

    def param(self, comp, number, shape):
        return self.add(comp, f"p{number}.{comp.id}", "parameter", shape, parameter_number=number)

    def costs(self):
        proto = self.C["HloProto"]()
        proto.hlo_module.CopyFrom(self.proto)
        return ModuleCosts(decode_module(proto.SerializeToString()))


NCHW = dict(input_batch_dimension=0, input_feature_dimension=1, input_spatial_dimensions=[2, 3],
            kernel_output_feature_dimension=0, kernel_input_feature_dimension=1, kernel_spatial_dimensions=[2, 3],
            output_batch_dimension=0, output_feature_dimension=1, output_spatial_dimensions=[2, 3])


def _pairs_by_brute_force(size_in, size_out, size, stride, pad_low, w_dil=1, b_dil=1):
    """(output, tap) pairs landing on a real input element, counted one by one."""
    return sum(1 for o in range(size_out) for k in range(size)
               if 0 <= o * stride + k * w_dil - pad_low <= (size_in - 1) * b_dil
               and (o * stride + k * w_dil - pad_low) % b_dil == 0)


def test_depthwise_dilated_convolution_counts_only_real_taps():
    m = Module()
    comp = m.computation("main")
    x = m.param(comp, 0, m.shape(F32, 2, 8, 10, 10))
    w = m.param(comp, 1, m.shape(F32, 8, 1, 3, 3))
    dim = dict(size=3, stride=1, padding_low=2, padding_high=2, window_dilation=2, base_dilation=1)
    m.add(comp, "conv", "convolution", m.shape(F32, 2, 8, 10, 10), (x, w), window=[dim, dim],
          convolution_dimension_numbers=NCHW, feature_group_count=8)
    cost = m.costs().cost("conv")
    # per spatial dimension: taps 0, 1, 2 reach input o-2, o, o+2: 8 + 10 + 8 = 26 of the 30 pairs are real
    assert _pairs_by_brute_force(10, 10, 3, 1, 2, w_dil=2) == 26
    # N x K x (C / groups) x pairs^2 multiply-adds, 2 FLOP each
    assert cost.flops == {"fp32": 2.0 * 2 * 8 * 1 * 26 * 26} and cost.matrix and not cost.unmodelled
    assert cost.bytes == 4.0 * (2 * 8 * 10 * 10 + 8 * 9 + 2 * 8 * 10 * 10)


def window_conv(kind, size_in, taps, stride, pad, w_dil, b_dil, features_in, features_out):
    """A module of one convolution along one window dimension, and its output size."""
    m = Module()
    comp = m.computation("main")
    dilated = (size_in - 1) * b_dil + 1
    size_out = (dilated + 2 * pad - (taps - 1) * w_dil - 1) // stride + 1
    x = m.param(comp, 0, m.shape(kind, 1, features_in, 1, size_in))
    w = m.param(comp, 1, m.shape(kind, features_out, features_in, 1, taps))
    one = dict(size=1, stride=1, window_dilation=1, base_dilation=1)
    dim = dict(size=taps, stride=stride, padding_low=pad, padding_high=pad, window_dilation=w_dil,
               base_dilation=b_dil)
    m.add(comp, "conv", "convolution", m.shape(kind, 1, features_out, 1, size_out), (x, w), window=[one, dim],
          convolution_dimension_numbers=NCHW)
    return m, size_out


@pytest.mark.parametrize("size_in, size, stride, pad, w_dil, b_dil", [
    (7, 3, 2, 1, 1, 1), (16, 4, 3, 0, 2, 1), (5, 3, 1, 2, 1, 2), (9, 2, 2, 3, 3, 3), (1, 5, 1, 4, 1, 1)])
def test_window_pairs_agree_with_counting_one_by_one(size_in, size, stride, pad, w_dil, b_dil):
    m, size_out = window_conv(F16, size_in, size, stride, pad, w_dil, b_dil, 3, 4)
    expected = _pairs_by_brute_force(size_in, size_out, size, stride, pad, w_dil, b_dil)
    assert m.costs().cost("conv").flops == {"tensor_fp16": 2.0 * 4 * 3 * expected}


def test_dot_with_batch_dimensions_and_gemm_custom_call():
    m = Module()
    comp = m.computation("main")
    a = m.param(comp, 0, m.shape(BF16, 4, 32, 64))
    b = m.param(comp, 1, m.shape(BF16, 4, 64, 16))
    dims = dict(lhs_batch_dimensions=[0], rhs_batch_dimensions=[0], lhs_contracting_dimensions=[2],
                rhs_contracting_dimensions=[1])
    m.add(comp, "dot", "dot", m.shape(BF16, 4, 32, 16), (a, b), dot_dimension_numbers=dims)
    out = m.C["ShapeProto"](element_type=TUPLE)
    out.tuple_shapes.add().CopyFrom(m.shape(BF16, 4, 32, 16))
    out.tuple_shapes.add().CopyFrom(m.shape(U8, 1 << 20))           # cuBLAS workspace: no traffic
    config = {"gemm_backend_config": {"dot_dimension_numbers": {
        k: [str(v) for v in vals] for k, vals in dims.items()}}}
    m.add(comp, "gemm", "custom-call", out, (a, b), custom_call_target="__cublas$lt$matmul",
          backend_config=json.dumps(config).encode())
    costs = m.costs()
    dot, gemm = costs.cost("dot"), costs.cost("gemm")
    assert dot.flops == {"tensor_bf16": 2.0 * 4 * 32 * 16 * 64} and dot.matrix
    assert gemm.flops == dot.flops and gemm.bytes == dot.bytes == 2.0 * (4 * 32 * 64 + 4 * 64 * 16 + 4 * 32 * 16)


def _add_computation(m, kind=F32):
    comp = m.computation("add")
    x, y = m.param(comp, 0, m.shape(kind)), m.param(comp, 1, m.shape(kind))
    m.add(comp, "sum", "add", m.shape(kind), (x, y))
    return comp


def test_fusion_by_its_body_and_a_sliced_parameter_read_at_its_slice():
    m = Module()
    body = m.computation("fused")
    p0, p1 = m.param(body, 0, m.shape(F32, 1024)), m.param(body, 1, m.shape(F32, 4096))
    part = m.add(body, "slice", "slice", m.shape(F32, 1024), (p1,))
    prod = m.add(body, "mul", "multiply", m.shape(F32, 1024), (p0, part))
    summed = m.add(body, "add", "add", m.shape(F32, 1024), (prod, p0))
    m.add(body, "exp", "exponential", m.shape(F32, 1024), (summed,))
    main = m.computation("main")
    a, b = m.param(main, 0, m.shape(F32, 1024)), m.param(main, 1, m.shape(F32, 4096))
    m.add(main, "loop_fusion", "fusion", m.shape(F32, 1024), (a, b), fusion_kind="kLoop",
          called_computation_ids=[body.id])
    cost = m.costs().cost("loop_fusion")
    assert cost.flops == {"fp32": 2048.0} and cost.transcendentals == 1024 and not cost.matrix
    assert cost.bytes == 4.0 * (1024 + 1024 + 1024)              # of p1's 4096 floats only the slice is read


def test_reduce_and_reduce_window_by_their_reducer():
    m = Module()
    add = _add_computation(m)
    main = m.computation("main")
    x = m.param(main, 0, m.shape(F32, 128, 256))
    zero = m.add(main, "zero", "constant", m.shape(F32))
    m.add(main, "reduce", "reduce", m.shape(F32, 128), (x, zero), dimensions=[1], called_computation_ids=[add.id])
    m.add(main, "pool", "reduce-window", m.shape(F32, 64, 128), (x, zero), called_computation_ids=[add.id],
          window=[dict(size=2, stride=2), dict(size=2, stride=2)])
    costs = m.costs()
    reduce, pool = costs.cost("reduce"), costs.cost("pool")
    assert reduce.flops == {"fp32": 128.0 * 256 - 128} and reduce.bytes == 4.0 * (128 * 256 + 1 + 128)
    assert pool.flops == {"fp32": 64.0 * 128 * 3}


def test_backward_convolutions_count_the_forward_multiply_adds():
    m = Module()
    comp = m.computation("main")
    dy = m.param(comp, 0, m.shape(F16, 8, 32, 14, 14))
    w = m.param(comp, 1, m.shape(F16, 32, 16, 3, 3))
    x = m.param(comp, 2, m.shape(F16, 8, 16, 14, 14))
    dim = dict(size=3, stride=1, padding_low=1, padding_high=1, window_dilation=1, base_dilation=1)
    for name, target, operands, result in (("dx", "__cudnn$convBackwardInput", (dy, w), x.shape),
                                           ("dw", "__cudnn$convBackwardFilter", (x, dy), w.shape),
                                           ("y", "__cudnn$convForward", (x, w), dy.shape)):
        out = m.C["ShapeProto"](element_type=TUPLE)
        out.tuple_shapes.add().CopyFrom(result)
        out.tuple_shapes.add().CopyFrom(m.shape(U8, 4096))
        m.add(comp, name, "custom-call", out, operands, custom_call_target=target, window=[dim, dim],
              convolution_dimension_numbers=NCHW)
    costs = m.costs()
    per_dim = _pairs_by_brute_force(14, 14, 3, 1, 1)              # 14 x 3 less the 2 padding taps = 40
    assert per_dim == 40
    expected = {"tensor_fp16": 2.0 * 8 * 32 * 16 * per_dim * per_dim}
    assert costs.cost("dx").flops == costs.cost("dw").flops == costs.cost("y").flops == expected


def test_what_is_not_modelled_says_why():
    m = Module()
    comp = m.computation("main")
    x = m.param(comp, 0, m.shape(F32, 16))
    m.add(comp, "tk", "custom-call", m.shape(F32, 16), (x,), custom_call_target="__gpu$xla.gpu.triton")
    m.add(comp, "ar", "all-reduce", m.shape(F32, 16), (x,))
    m.add(comp, "huge", "add", m.shape(F32, 1 << 40, 1 << 40), (x, x))
    costs = m.costs()
    assert "Triton" in costs.cost("tk").unmodelled and "collective" in costs.cost("ar").unmodelled
    assert "no real tensor" in costs.cost("huge").unmodelled
    assert costs.cost("nothing") is None


def test_damaged_bytes_and_unknown_fields():
    with pytest.raises(HloDecodeError):
        decode_module(b"\x0a\xff\xff\xff\x0f")
    m = Module()
    comp = m.computation("main")
    x = m.param(comp, 0, m.shape(F32, 8))
    m.add(comp, "neg", "negate", m.shape(F32, 8), (x,))
    proto = m.C["HloProto"]()
    proto.hlo_module.CopyFrom(m.proto)
    # a field this schema does not declare (a newer XLA's), a message inside: skipped
    data = proto.SerializeToString() + field_bytes(999, field_bytes(1, "x"))
    assert ModuleCosts(decode_module(data)).cost("neg").flops == {"fp32": 8.0}


def _jax_space(module: Module, program_id=7, bare=()):
    """An XSpace with a /host:metadata plane carrying ``module`` and a GPU
    plane of two launches of its instruction ``dot`` (and one of each kernel
    name in ``bare``, with no stats)."""
    X = xplane_schema.message_classes()
    space = X["XSpace"]()
    meta = space.planes.add(id=1, name="/host:metadata")
    meta.stat_metadata[1].id, meta.stat_metadata[1].name = 1, "Hlo Proto"
    proto = module.C["HloProto"]()
    proto.hlo_module.CopyFrom(module.proto)
    em = meta.event_metadata[3]
    em.id, em.name = 3, f"{module.proto.name}({program_id})"
    em.stats.add(metadata_id=1, bytes_value=proto.SerializeToString())
    gpu = space.planes.add(id=2, name="/device:GPU:0")
    names = {1: "hlo_op", 2: "hlo_module", 3: "program_id", 4: "core_count", 5: "compute_cap_major",
             6: "compute_cap_minor", 7: "memory_size"}
    for k, v in names.items():
        gpu.stat_metadata[k].id, gpu.stat_metadata[k].name = k, v
    for k, v in ((4, 108), (5, 8), (6, 0), (7, 80 * 2 ** 30)):
        gpu.stats.add(metadata_id=k, int64_value=v)
    gpu.event_metadata[1].id, gpu.event_metadata[1].name = 1, "ampere_bf16_s16816gemm_bf16_128x128_nn"
    line = gpu.lines.add(id=7, name="Stream #7(Compute)", timestamp_ns=1000)
    for i in range(2):
        event = line.events.add(metadata_id=1, offset_ps=i * 10 ** 6, duration_ps=10 ** 5)
        event.stats.add(metadata_id=1, str_value="dot")
        event.stats.add(metadata_id=2, str_value=module.proto.name)
        event.stats.add(metadata_id=3, int64_value=program_id)
    for j, name in enumerate(bare, start=2):
        gpu.event_metadata[j].id, gpu.event_metadata[j].name = j, name
        line.events.add(metadata_id=j, offset_ps=(j + 2) * 10 ** 6, duration_ps=10 ** 5)
    return space.SerializeToString()


def test_a_jax_profile_joins_its_kernels_to_the_embedded_module(tmp_path):
    m = Module("jit_mm")
    comp = m.computation("main")
    a, b = m.param(comp, 0, m.shape(BF16, 256, 512)), m.param(comp, 1, m.shape(BF16, 512, 128))
    m.add(comp, "dot", "dot", m.shape(BF16, 256, 128), (a, b),
          dot_dimension_numbers=dict(lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0]))
    path = tmp_path / "h.xplane.pb"
    path.write_bytes(_jax_space(m))
    result = xplane.read(path)
    (row,) = result.kernels                                         # two launches, one row
    assert row.count == 2 and row.operator == "jit_mm/dot" and row.modelled
    assert row.flops == {"tensor_bf16": 2 * 2.0 * 256 * 128 * 512}
    assert row.bytes == {"DRAM": 2 * 2.0 * (256 * 512 + 512 * 128 + 256 * 128)}
    assert any("HLO modules the profile embeds" in str(w) and "100% of kernel time" in str(w)
               for w in result.warnings)
    # an NVIDIA plane with SMs and memory beside capability 8.0: its figures pick the A100 80 GB
    assert device_for([result]).profile == "a100-80gb-sxm"
    # a program id the metadata plane does not have, with only one program of that name: joined by name
    path.write_bytes(_jax_space(m, program_id=7).replace(b"jit_mm(7)", b"jit_mm(8)"))
    assert xplane.read(path).kernels.modelled.all()


def test_a_launch_without_stats_is_joined_by_its_kernel_name_and_gets_its_family(tmp_path):
    m = Module("jit_sum")
    add = _add_computation(m)
    body = m.computation("fused_reduce")
    p0 = m.param(body, 0, m.shape(F32, 64, 32))
    zero = m.add(body, "zero", "constant", m.shape(F32))
    m.add(body, "r", "reduce", m.shape(F32, 64), (p0, zero), dimensions=[1], called_computation_ids=[add.id])
    main = m.computation("main")
    x = m.param(main, 0, m.shape(F32, 64, 32))
    m.add(main, "fusion.12", "fusion", m.shape(F32, 64), (x,), fusion_kind="kInput",
          called_computation_ids=[body.id])
    y = m.param(main, 1, m.shape(F32, 32, 8))
    m.add(main, "dot", "dot", m.shape(F32, 64, 8), (x, y),
          dot_dimension_numbers=dict(lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0]))
    path = tmp_path / "h.xplane.pb"
    path.write_bytes(_jax_space(m, bare=("fusion_12", "some_other_kernel")))
    rows = {k.name: k for k in xplane.read(path).kernels}
    fused = rows["fusion_12"]                     # XLA's kernel name for fusion.12: '.' made '_'
    assert fused.operator == "jit_sum/fusion.12" and fused.family == "reduction"
    assert fused.flops == {"fp32": 64.0 * 32 - 64} and fused.bytes == {"DRAM": 4.0 * (64 * 32 + 64)}
    assert not rows["some_other_kernel"].flops and not rows["some_other_kernel"].modelled


def test_modules_named_twice_need_the_program_id():
    modules = HloModules({"jit_f(1)": b"", "jit_f(2)": b""})
    assert "no program id" in modules.cost(("jit_f", None, "dot"))
    assert "no HLO module" in modules.cost(("jit_g", 1, "dot"))
    assert "could not be decoded" in modules.cost(("jit_f", 1, "dot")) and modules.failures


# ---------------------------------------------------------------- the real JAX profile

@pytest.fixture(scope="module")
def jax_profile():
    return xplane.read(real_file(JAX_PB))


@needs_jax
def test_real_jax_convolution_flops_by_hand(jax_profile):
    X = xplane_schema.message_classes()
    space = X["XSpace"]()
    space.ParseFromString(real_file(JAX_PB).read_bytes())
    (meta,) = [p for p in space.planes if p.name == "/host:metadata"]
    (conv_module,) = [m for m in meta.event_metadata.values() if m.name == "jit_forward_3d_conv(15)"]
    costs = ModuleCosts(decode_module(conv_module.stats[0].bytes_value))
    conv = costs.cost("cudnn-conv.1")
    # input bf16[1,16,32,60,104] (NCDHW), kernel bf16[5120,16,1,2,2], output bf16[1,5120,34,31,53];
    # window D: 1 tap, pad 1/1 -> 32 of 34 outputs see a real element; H: 2 taps stride 2 pad 1/1 ->
    # 31 x 2 pairs less the 2 padding ones = 60; W: 53 x 2 - 2 = 104. Every input element is used once.
    macs = 1 * 5120 * 16 * (32 * 60 * 104)
    assert conv.flops == {"tensor_bf16": 2.0 * macs} and conv.matrix
    assert conv.bytes == 2.0 * (16 * 32 * 60 * 104 + 5120 * 16 * 4 + 5120 * 34 * 31 * 53)
    assert costs.cost("input_transpose_fusion").flops == {"bf16": 0.0}      # a transpose: bytes only
    assert costs.cost("input_transpose_fusion").bytes == 2 * 2.0 * 5120 * 34 * 31 * 53


@needs_jax
def test_real_jax_profile_is_placed_aggregated_and_its_device_chosen(jax_profile):
    ks = jax_profile.kernels
    time = ks.time_s
    known = np.zeros(len(ks), dtype=bool)
    for column in list(ks.flops.values()) + list(ks.bytes.values()):
        known |= ~np.isnan(column)
    assert known[~np.isnan(time)].any() and time[known].sum() / time.sum() >= 0.8
    # 235 launches of 6 kernel names on 8 GPUs: one row per name, device and HLO op
    assert ks.count.sum() == 235 and len(ks) <= 6 * 8 + 8
    devices = {k.launch["device"] for k in jax_profile.kernels}
    assert len(devices) == 8
    gemm = [k for k in jax_profile.kernels if k.name.startswith("Cijk_")]
    assert len(gemm) == 8 and all(k.operator == "jit_forward_3d_conv/cudnn-conv.1" for k in gemm)
    assert sum(k.count for k in gemm) == 40
    for k in gemm:          # each launch is one execution of the convolution: its FLOPs times its calls
        assert math.isclose(k.flops["tensor_bf16"], k.count * 2.0 * 5120 * 16 * 32 * 60 * 104)
    choice = device_for([jax_profile])
    assert choice.profile == "mi300x" and "AMD" in choice.reason





def test_a_fusion_that_calls_its_own_body_ends():
    m = Module()
    body = m.computation("loop")
    p0 = m.param(body, 0, m.shape(F32, 4))
    for i in range(3):          # each calls this very computation: walked naively, 3^64 visits
        m.add(body, f"self.{i}", "fusion", m.shape(F32, 4), (p0,), called_computation_ids=[body.id])
    main = m.computation("main")
    x = m.param(main, 0, m.shape(F32, 4))
    m.add(main, "f", "fusion", m.shape(F32, 4), (x,), called_computation_ids=[body.id])
    costs = m.costs()
    assert "calls itself" in costs.cost("f").unmodelled
    assert costs.family(costs.by_name["f"]) == "elementwise"
