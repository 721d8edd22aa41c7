"""TensorFlow/JAX profiles: XPlane protobufs and Trace Viewer JSON.

The real files are a TF 2.5 Conv2D training step on a CC 7.5 laptop GPU
(../shared/realdata/tf_profile, both files of one run); the synthetic
XSpace messages are built here with the reader's own protobuf classes.
"""
from __future__ import annotations

import collections
import gzip
import json
import math
import sys

import pytest
from conftest import REALDATA
from corrupt import needs_folder, real_file

from roofline.core.errors import InputError, RooflineError
from roofline.importers import base
from roofline.importers.xplane import reader as xplane, xplane_schema
from roofline.importers.kineto import sniff as kineto_sniff
from roofline.importers.xplane.xplane_costs import SAME_STRIDE_1, op_cost, parse_shapes
from roofline.importers.xplane.xplane_json import read_trace_json, sniff_trace_json
from roofline.importers.xplane.xplane_kernels import annotation_op, launch_config

TF = REALDATA / "tf_profile"
PB = TF / "aoberai__chess-engine__aoberai.xplane.pb"
JSON = TF / "aoberai__chess-engine__aoberai.trace.json.gz"
needs_tf = needs_folder(TF)
CONV_OPS = ("_FusedConv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput")


def _head(path) -> bytes:
    from roofline.core.text_files import read_head
    return read_head(path)


# ---------------------------------------------------------------- the real files

@pytest.fixture(scope="module")
def real_pb():
    return xplane.read(real_file(PB))


@pytest.fixture(scope="module")
def real_json():
    return read_trace_json(real_file(JSON))


@needs_tf
def test_real_xplane_kernels_ops_and_launches(real_pb):
    kernels = [k for k in real_pb.kernels if k.family != "memcpy"]
    copies = [k for k in real_pb.kernels if k.family == "memcpy"]
    # one row per kernel name, device and op: every TF op launched its kernels once in this step
    assert len(kernels) == 301 and all(k.count == 1 for k in kernels)
    calls = collections.Counter()
    for k in copies:
        calls[k.name] += k.count
    assert calls == {"MemcpyH2D": 7, "MemcpyD2H": 4} and len(copies) == 9     # two ops copied twice
    assert all(k.operator for k in kernels)                     # every kernel has its TF op (from annotation)
    assert all(k.launch["stream"] == 13 and k.launch["device"] == "/device:GPU:0" for k in kernels)
    assert all(k.launch.get("grid") and k.launch.get("block") for k in kernels)
    first = kernels[0]
    assert first.launch["grid"] == (30, 1, 1) and first.launch["block"] == (1024, 1, 1)
    assert first.launch["registers_per_thread"] == 16 and first.launch["shared_bytes"] == 0
    assert math.isclose(sum(k.time_s for k in real_pb.kernels), 38.5724e-3, rel_tol=1e-3)
    assert copies[0].bytes == {"PCIe": 196608.0}


@needs_tf
def test_real_xplane_convolution_families(real_pb):
    conv = [k for k in real_pb.kernels if k.operator.partition(":")[2] in CONV_OPS]
    assert len(conv) == 187
    assert collections.Counter(k.family for k in conv) == {"winograd": 148, "elementwise": 38, "implicit_gemm": 1}
    # cuBLAS sgemm launched by a Winograd convolution op is its product stage
    stages = [k for k in conv if k.name.startswith("volta_sgemm")]
    assert len(stages) == 37 and {k.family for k in stages} == {"winograd"}
    # a GEMM of a MatMul op stays a GEMM
    assert {k.family for k in real_pb.kernels if k.operator.endswith(":MatMul")} <= {"gemm", "reduction"}


@needs_tf
def test_real_xplane_device_and_one_warning(real_pb):
    assert real_pb.format == "xplane" and real_pb.device.name is None and real_pb.device.kind == "gpu"
    assert real_pb.device.capability == "7.5"
    assert real_pb.device.properties == {"capability": "7.5", "sms": 30, "memory_bytes": 6222839808,
                                         "clock_hz": 1185000000, "memory_bandwidth_bytes_s": 264048000000}
    assert len(real_pb.warnings) == 1
    assert "host_tracer_level=3" in str(real_pb.warnings[0]) and "301 kernels" in str(real_pb.warnings[0])
    assert not any(k.flops for k in real_pb.kernels) and not any(k.modelled for k in real_pb.kernels)
    program = real_pb.program
    assert program.api_s["cuLaunchKernel"] > 0 and program.api_s["cuStreamSynchronize"] > 0
    assert 0 < program.gpu_busy_s < program.span_s


@needs_tf
def test_real_trace_json_matches_the_xplane(real_pb, real_json):
    assert real_json.format == "tf-trace-json"
    assert [k.name for k in real_json.kernels] == [k.name for k in real_pb.kernels]
    assert [k.operator for k in real_json.kernels] == [k.operator for k in real_pb.kernels]
    assert [k.family for k in real_json.kernels] == [k.family for k in real_pb.kernels]
    for a, b in zip(real_json.kernels, real_pb.kernels):
        assert math.isclose(a.time_s, b.time_s, rel_tol=1e-9, abs_tol=1e-12)
    # what the JSON lacks: launch configuration and device properties
    assert not any("grid" in k.launch for k in real_json.kernels)
    assert real_json.device.capability is None and real_json.device.properties is None
    assert len(real_json.warnings) == 1


@needs_tf
def test_real_sniffs_and_registration():
    pb_head, json_head = _head(real_file(PB)), _head(real_file(JSON))
    assert xplane.sniff(PB, pb_head) and xplane.sniff(TF / "renamed.bin", pb_head)    # by content too
    assert not sniff_trace_json(PB, pb_head)
    assert sniff_trace_json(JSON, json_head) and not xplane.sniff(JSON, json_head)
    assert kineto_sniff(JSON, json_head)     # a Chrome trace: the TF reader must be asked first
    names = [r.name for r in base.readers()]
    assert "xplane" in names and "tf-trace-json" in names
    if names.index("tf-trace-json") > names.index("kineto"):
        pytest.skip("roofline/importers/__init__.py does not import .xplane before .kineto yet")
    assert base.detect(JSON).name == "tf-trace-json" and base.detect(PB).name == "xplane"


def test_kineto_traces_are_not_taken(tmp_path):
    trace = {"schemaVersion": 1, "deviceProperties": [{"name": "NVIDIA A100"}],
             "traceEvents": [{"ph": "M", "pid": 0, "name": "process_name", "args": {"name": "python3"}},
                             {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}]}
    path = tmp_path / "x.pt.trace.json"
    path.write_text(json.dumps(trace))
    assert not sniff_trace_json(path, _head(path)) and not xplane.sniff(path, _head(path))
    # TF/JAX process names, in either key order, are what marks a Trace Viewer JSON
    for meta in ('{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}}',
                 '{"args":{"name":"/host:CPU"},"name":"process_name","ph":"M","pid":2}'):
        assert sniff_trace_json(path, ('{"traceEvents":[' + meta + "]}").encode())


# ---------------------------------------------------------------- synthetic XSpace messages

class Space:
    """An XSpace under construction: planes with interned event and stat names."""

    def __init__(self):
        self.msg = xplane_schema.message_classes()["XSpace"]()

    def plane(self, name: str, stats: dict | None = None):
        plane = self.msg.planes.add(id=len(self.msg.planes), name=name)
        for key, value in (stats or {}).items():
            self._stat(plane, plane.stats.add(), key, value)
        return plane

    def event(self, plane, line_name: str, name: str, offset_ns: float, duration_ns: float,
              stats: dict | None = None, meta_stats: dict | None = None, line_id: int = 0):
        line = next((x for x in plane.lines if x.name == line_name), None) or plane.lines.add(
            id=line_id, name=line_name, timestamp_ns=1000)
        meta_id = next((k for k, m in plane.event_metadata.items() if m.name == name), None)
        if meta_id is None:
            meta_id = len(plane.event_metadata) + 1
            meta = plane.event_metadata[meta_id]
            meta.id, meta.name = meta_id, name
            for key, value in (meta_stats or {}).items():
                self._stat(plane, meta.stats.add(), key, value)
        event = line.events.add(metadata_id=meta_id, offset_ps=int(offset_ns * 1000),
                                duration_ps=int(duration_ns * 1000))
        for key, value in (stats or {}).items():
            self._stat(plane, event.stats.add(), key, value)

    def _stat(self, plane, stat, key, value):
        stat.metadata_id = self._stat_id(plane, key)
        if isinstance(value, float):
            stat.double_value = value
        elif isinstance(value, int):
            stat.int64_value = value
        else:
            stat.ref_value = self._stat_id(plane, value)    # strings as TF writes them: references

    @staticmethod
    def _stat_id(plane, name: str) -> int:
        found = next((k for k, m in plane.stat_metadata.items() if m.name == name), None)
        if found is None:
            found = len(plane.stat_metadata) + 1
            plane.stat_metadata[found].id = found
            plane.stat_metadata[found].name = name
        return found

    def write(self, path):
        path.write_bytes(self.msg.SerializeToString())
        return path


GPU_STATS = {"core_count": 80, "clock_rate": 1530000, "compute_cap_major": 7, "compute_cap_minor": 0,
             "memory_size": 16 * 2 ** 30, "device_vendor": "Nvidia", "gpu_device_name": "Tesla V100-SXM2-16GB"}


def test_xla_cost_stats_spread_over_the_hlo_ops_kernels(tmp_path):
    sp = Space()
    gpu = sp.plane("/device:GPU:0", GPU_STATS)
    costs = {"flops": 4e9, "bytes_accessed": 8e6}
    for step in range(2):                        # fusion.1 runs twice, launching two kernels each time
        t = step * 100.0
        sp.event(gpu, "XLA Ops", "fusion.1", t, 30.0, meta_stats=costs, stats={"hlo_module": "jit_step"})
        for i, (name, dur) in enumerate((("loop_multiply_fusion", 10.0), ("input_reduce_fusion", 30.0))):
            sp.event(gpu, "Stream #7(Compute)", name, t + 40 * i, dur, line_id=7,
                     stats={"hlo_op": "fusion.1", "hlo_module": "jit_step", "correlation_id": step * 2 + i,
                            "kernel_details": "regs:32 static_shared:1024 dynamic_shared:0 grid:80,1,1 "
                                              "block:256,1,1 occ_pct:50"})
    sp.event(gpu, "Stream #7(Compute)", "triton_gemm_dot", 300.0, 5.0, line_id=7,
             stats={"hlo_op": "dot.3", "hlo_module": "jit_step", "flops": 1e6, "bytes_accessed": 1e3})
    result = xplane.read(sp.write(tmp_path / "host.xplane.pb"))
    ks = result.kernels
    assert result.device.name == "Tesla V100-SXM2-16GB" and result.device.capability == "7.0"
    assert result.device.properties["warp_size"] == 32 and result.device.properties["sms"] == 80
    assert [k.family for k in ks] == ["elementwise", "reduction", "gemm"]
    assert ks[0].operator == "jit_step/fusion.1" and ks[0].launch["shared_bytes"] == 1024
    assert ks[0].launch["grid"] == (80, 1, 1) and "id" not in ks[0].launch     # a row is many launches
    assert [k.count for k in ks] == [2, 2, 1]                                # one row per kernel name
    assert math.isclose(sum(k.flops["fp32"] for k in ks[:2]), 2 * 4e9)      # two occurrences
    assert math.isclose(ks[1].flops["fp32"], 2 * 4e9 * 30 / 40)              # by duration
    assert math.isclose(sum(k.bytes["DRAM"] for k in ks[:2]), 2 * 8e6)
    assert ks[2].flops == {"fp32": 1e6} and ks[2].bytes == {"DRAM": 1e3}     # on the kernel itself
    assert all(k.modelled for k in ks)
    assert len(result.warnings) == 1 and "XLA cost analysis" in str(result.warnings[0])


def test_copies_and_memsets_carry_their_bytes(tmp_path):
    sp = Space()
    gpu = sp.plane("/device:GPU:1", GPU_STATS)
    for i, (name, stats) in enumerate((("MemcpyD2D", {"memcpy_details": "kind:device size:4096 dest:1 async:1"}),
                                       ("MemcpyH2D", {"memcpy_details": "kind:pinned size:100 dest:1 async:1"}),
                                       ("Memset", {"Memset_details": "kind:device size:512"}))):
        sp.event(gpu, "Stream #20(MemcpyD2D)", name, 10.0 * i, 2.0, stats={**stats, "annotation": "x:Copy"},
                 line_id=20)
    ks = xplane.read(sp.write(tmp_path / "c.xplane.pb")).kernels
    assert [k.family for k in ks] == ["memcpy", "memcpy", "memset"]
    assert [dict(k.bytes) for k in ks] == [{"DRAM": 8192.0}, {"PCIe": 100.0}, {"DRAM": 512.0}]
    assert ks[0].launch["device"] == "/device:GPU:1" and ks[0].launch["stream"] == 20
    assert not any(k.modelled for k in ks)


def test_two_gpus_the_busiest_names_the_device(tmp_path):
    sp = Space()
    for i, (name, dur) in enumerate((("/device:GPU:0", 5.0), ("/device:GPU:1", 50.0))):
        gpu = sp.plane(name, {**GPU_STATS, "core_count": 40 + i})
        sp.event(gpu, "Stream #7(Compute)", "ampere_sgemm_128x64_nn", 0.0, dur, line_id=7,
                 stats={"hlo_op": "dot.1"}, meta_stats=None)
        sp.event(gpu, "XLA Ops", "dot.1", 0.0, dur, stats={"flops": 1e6})     # no module on the XLA op
    result = xplane.read(sp.write(tmp_path / "two.xplane.pb"))
    assert result.device.properties["sms"] == 41
    assert any("2 GPUs" in str(w) for w in result.warnings)
    assert [k.flops for k in result.kernels] == [{"fp32": 1e6}, {"fp32": 1e6}]


def _tf_conv_space(shape: str, output=None) -> Space:
    sp = Space()
    host = sp.plane("/host:CPU")
    sp.event(host, "tf_Compute", "model/conv/Conv2D:Conv2D", 0.0, 50.0, stats={"shape": shape})
    if output:
        sp.event(host, "tf_Compute", "MemoryAllocation", 1.0, 0.0,
                 stats={"tf_op": "model/conv/Conv2D", "region_type": "output", "shape": output})
    gpu = sp.plane("/device:GPU:0", {"compute_cap_major": 8, "compute_cap_minor": 0})
    for i, (name, dur) in enumerate((("void tensorflow::functor::ShuffleInTensor3Simple<float, 2, 1, 0, false>", 5.0),
                                     ("void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false>",
                                      40.0))):
        sp.event(gpu, "Stream #13(Compute)", name, 10.0 + 10 * i, dur, line_id=13,
                 stats={"annotation": "model/conv/Conv2D:Conv2D", "correlation_id": i})
    return sp


def test_tf_conv_from_host_shapes_stride_assumed(tmp_path):
    sp = _tf_conv_space("(float[8,32,32,16];float[3,3,16,32])")
    result = xplane.read(sp.write(tmp_path / "a.xplane.pb"))
    shuffle, conv = result.kernels
    assert conv.family == "implicit_gemm" and conv.operator == "model/conv/Conv2D:Conv2D"
    assert conv.flops == {"fp32": 2.0 * 8 * 32 * 32 * 32 * 16 * 9} and conv.modelled
    assert conv.bytes["DRAM"] == 4.0 * (8 * 32 * 32 * 16 + 3 * 3 * 16 * 32 + 8 * 32 * 32 * 32)
    assert not shuffle.flops and not shuffle.modelled          # a layout change keeps no FLOPs
    assert any(SAME_STRIDE_1 in str(w) for w in result.warnings)


def test_tf_conv_output_allocation_gives_the_stride(tmp_path):
    sp = _tf_conv_space("(float[8,32,32,16];float[3,3,16,32])", output="[8,16,16,32]")
    result = xplane.read(sp.write(tmp_path / "a.xplane.pb"))
    assert result.kernels[1].flops == {"fp32": 2.0 * 8 * 16 * 16 * 32 * 16 * 9}
    assert not any(SAME_STRIDE_1 in str(w) for w in result.warnings)


def test_op_cost_models():
    assert parse_shapes("(float[64,8,8,12];;int32[4])") == [("float", (64, 8, 8, 12)), None, ("int32", (4,))]
    mm = op_cost("MatMul", "(float[64,32768];float[32768,16])")
    assert mm.flops == {"fp32": 2.0 * 64 * 16 * 32768}
    assert op_cost("MatMul", "(float[32768,64];float[32768,16])").flops == {"fp32": 2.0 * 64 * 16 * 32768}
    bmm = op_cost("BatchMatMulV2", "(half[4,1,128,64];half[8,64,32])")
    assert bmm.flops == {"tensor_fp16": 2.0 * 32 * 128 * 32 * 64}
    grad_in = op_cost("Conv2DBackpropInput", "(int32[4];float[3,3,12,64];float[64,8,8,64])")
    assert grad_in.flops == {"fp32": 2.0 * 64 * 8 * 8 * 64 * 12 * 9} and grad_in.assumption == SAME_STRIDE_1
    grad_w = op_cost("Conv2DBackpropFilter", "(float[64,8,8,12];int32[4];float[64,8,8,64])", [(3, 3, 12, 64)])
    assert grad_w.flops == {"fp32": 2.0 * 64 * 8 * 8 * 64 * 12 * 9} and not grad_w.assumption
    assert op_cost("Conv2DBackpropFilter", "(float[64,8,8,12];int32[4];float[64,8,8,64])") is None
    assert op_cost("Relu", "(float[64,8,8,12])") is None
    assert op_cost("Conv2D", "(float[64,8,8,12];float[3,3,5,64])") is None       # channels disagree
    assert op_cost("MatMul", "(int32[4,4];int32[4,4])") is None


def test_annotations_and_kernel_details():
    assert annotation_op("IteratorGetNext/_2:_Recv#from=a,to=b#::#edge_name=edge_39#") == "IteratorGetNext/_2:_Recv"
    assert annotation_op("#edge_name=copy#") == ""
    assert annotation_op("train_step::model/dense/MatMul:MatMul#id=3#") == "model/dense/MatMul:MatMul"
    assert launch_config("regs:16 shm:0 grid:30,1,1 block:1024,1,1") == {
        "registers_per_thread": 16, "shared_bytes": 0, "grid": (30, 1, 1), "block": (1024, 1, 1)}
    assert launch_config("grid:a,b block:0,1,1 regs:x") == {}


# ---------------------------------------------------------------- bad files: one line, nothing returned

def _one_line_error(path, match: str):
    with pytest.raises(InputError, match=match) as info:
        xplane.read(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_empty_space_is_refused(tmp_path):
    _one_line_error(Space().write(tmp_path / "empty.xplane.pb"), "no named plane")


def test_space_without_gpu_plane_is_refused(tmp_path):
    sp = Space()
    sp.event(sp.plane("/host:CPU"), "python3", "train_function", 0.0, 10.0)
    _one_line_error(sp.write(tmp_path / "cpu.xplane.pb"), "no GPU plane")
    sp.plane("/device:TPU:0")
    _one_line_error(sp.write(tmp_path / "tpu.xplane.pb"), "no GPU plane")


def test_gpu_plane_without_events_is_refused(tmp_path):
    sp = Space()
    sp.plane("/device:GPU:0", GPU_STATS)
    _one_line_error(sp.write(tmp_path / "idle.xplane.pb"), "no kernel or copy events")


@pytest.mark.parametrize("cut", [1, 7, 100, 0.5, -3])
def test_truncated_xspace_is_refused(tmp_path, cut):
    data = _tf_conv_space("(float[8,32,32,16];float[3,3,16,32])").msg.SerializeToString()
    n = int(len(data) * cut) if isinstance(cut, float) else cut
    path = tmp_path / "cut.xplane.pb"
    path.write_bytes(data[:n])
    _one_line_error(path, "truncated or damaged|no named plane")


@needs_tf
def test_truncated_real_xplane_is_refused(tmp_path):
    data = real_file(PB).read_bytes()
    for n in (10, len(data) // 3, len(data) - 1):
        path = tmp_path / f"cut{n}.xplane.pb"
        path.write_bytes(data[:n])
        _one_line_error(path, "truncated or damaged")


def test_wrong_magic_is_refused(tmp_path):
    path = tmp_path / "notes.xplane.pb"
    path.write_text("these are notes, not a profile\n")
    _one_line_error(path, "XSpace")
    assert not xplane.sniff(tmp_path / "notes.txt", b"these are notes")


def test_reading_needs_no_protobuf(tmp_path, monkeypatch):
    """The reader walks the wire format itself: an XSpace reads without the
    protobuf runtime (only building messages, as these tests do, needs it)."""
    sp = Space()
    gpu = sp.plane("/device:GPU:0", GPU_STATS)
    sp.event(gpu, "Stream #7(Compute)", "volta_sgemm_128x64_nn", 0.0, 10.0, line_id=7,
             stats={"correlation_id": 3, "kernel_details": "regs:32 shm:0 grid:80,1,1 block:256,1,1"})
    path = sp.write(tmp_path / "x.xplane.pb")
    monkeypatch.setitem(sys.modules, "google.protobuf", None)
    monkeypatch.setitem(sys.modules, "google.protobuf.message", None)
    (k,) = xplane.read(path).kernels
    assert k.name == "volta_sgemm_128x64_nn" and k.launch["stream"] == 7 and k.launch["grid"] == (80, 1, 1)


def test_trace_json_bad_and_cpu_only(tmp_path):
    head = '{"traceEvents":[{"ph":"M","pid":1,"name":"process_name","args":{"name":"/host:CPU"}}'
    broken = tmp_path / "h.trace.json.gz"
    broken.write_bytes(gzip.compress((head + ",{").encode()))
    assert sniff_trace_json(broken, _head(broken))
    with pytest.raises(InputError, match="not a readable Trace Viewer JSON"):
        read_trace_json(broken)
    cpu = tmp_path / "cpu.trace.json.gz"
    cpu.write_bytes(gzip.compress((head + ',{"ph":"X","pid":1,"tid":2,"ts":1,"dur":2,"name":"f"}]}').encode()))
    with pytest.raises(InputError, match="no GPU plane"):
        read_trace_json(cpu)
