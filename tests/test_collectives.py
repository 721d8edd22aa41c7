"""Collectives on link roofs (issue 21, items 1-3): the message size and bus
bandwidth as nccl-tests defines them (NVIDIA/nccl-tests doc/PERFORMANCE.md
and the *GetBw functions of src/*.cu), the link roofs with their latency
floor, exposed communication and the waiting across ranks; on synthetic
traces with hand-computed answers and on the real traces."""
from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from conftest import REALDATA
from corrupt import needs_folder, real_file

from dataclasses import replace

from roofline import find_device
from roofline.core.errors import RooflineError
from roofline.analysis.collectives import collective_points, exposed_rows, rank_waits, wait_by_rank
from roofline.core import comm as C
from roofline.core.errors import RooflineError
from roofline.core.model import Ceiling, Device, KernelSet, MemoryLevel
from roofline.core.placement import place
from roofline.devices.links import ScaleUp, link_roofs, missing_links, parse_network
from roofline.importers import read_profile
from roofline.importers.kineto import parse
from roofline.ops.collectives import canonical

KINETO = REALDATA / "kineto_trace"
NCCL_DATA = KINETO / "facebookresearch__HolisticTraceAnalysis__nccl_data.json.gz"
NEG_QUEUE = KINETO / "facebookresearch__HolisticTraceAnalysis__negative_queue_rank0.json.gz"
B200 = KINETO / "AMD-AGI__TraceLens__b200_eager_trace.json.gz"
needs_kineto = needs_folder(KINETO)


# ------------------------------------------------------------ nccl-tests' formulas

def test_bus_factors_are_nccl_tests():
    assert C.bus_factor("all_reduce", 8) == pytest.approx(2 * 7 / 8)        # 1.75
    assert C.bus_factor("all_gather", 4) == pytest.approx(3 / 4)
    assert C.bus_factor("reduce_scatter", 2) == pytest.approx(1 / 2)
    assert C.bus_factor("all_to_all", 16) == pytest.approx(15 / 16)
    for one in ("broadcast", "reduce", "send_recv"):
        assert C.bus_factor(one, 8) == 1.0
    with pytest.raises(ValueError):
        C.bus_factor("all_reduce", 0)


def test_message_size_follows_nccl_tests_convention():
    # all-gather: S is the gathered output (sendcount x n); reduce-scatter the whole input
    assert C.message_elements("all_gather", 8, 25136, 201088) == 201088
    assert C.message_elements("all_gather", 8, 25136, 0) == 25136 * 8
    assert C.message_elements("reduce_scatter", 8, 65536 * 384, 8192 * 384) == 65536 * 384
    assert C.message_elements("all_reduce", 2, 2049000, 2049000) == 2049000
    assert C.message_elements("all_to_all", 16, 3145728, 2883584) == 3145728     # alltoallv: the larger side
    # the recorded whole side stands, whatever group size is assumed (finding 3)
    assert C.message_elements("all_gather", 16, 25136, 201088) == 201088
    assert C.message_elements("reduce_scatter", 16, 201088, 25136) == 201088
    assert C.group_from_sides("all_gather", 25136, 201088) == 8
    assert C.group_from_sides("reduce_scatter", 201088, 25136) == 8
    assert C.group_from_sides("all_gather", 25136, 0) is None and C.group_from_sides("all_gather", 3, 10) is None
    assert C.group_from_sides("all_reduce", 10, 10) is None


def _trace(kernels, ops=(), api=(), annotations=(), info=None, gpus=8):
    events = []
    for name, ts, dur, args in ops:
        events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
                       "args": args})
    for name, ts, dur, args in annotations:
        events.append({"ph": "X", "cat": "user_annotation", "name": name, "pid": 1, "tid": 1, "ts": ts,
                       "dur": dur, "args": args})
    for ts, corr in api:
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": ts, "dur": 1.0, "args": {"correlation": corr}})
    for name, ts, dur, args in kernels:
        events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": args.pop("stream", 7),
                       "ts": ts, "dur": dur, "args": {"device": 0, **args}})
    doc = {"traceEvents": events, "deviceProperties": [{"id": i, "name": "NVIDIA A100-SXM4-80GB"}
                                                       for i in range(gpus)]}
    if info is not None:
        doc["distributedInfo"] = info
    return doc


def _placed(doc, device="a100-80gb-sxm", network=None):
    r = parse(doc)
    dev = find_device(device)
    if network:
        from roofline.devices.links import with_links
        dev = with_links(dev, network)
    return r, place(KernelSet.from_kernels(r.kernels), dev)


NCCL_ARGS = {"Collective name": "allreduce", "In msg nelems": 1 << 28, "Out msg nelems": 1 << 28,
             "Group size": 8, "dtype": "Float", "Process Group Name": "0",
             "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]", "correlation": 5}


def test_busbw_of_a_hand_computed_all_reduce():
    """1 GiB all-reduce (2^28 floats) on 8 ranks in 10 ms: algbw = 2^30 B / 10 ms
    = 107.37 GB/s, busbw = x 2(8-1)/8 = 187.9 GB/s (nccl-tests' formula)."""
    doc = _trace([("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 100.0, 10_000.0,
                   dict(NCCL_ARGS))], api=[(50.0, 5)])
    _, p = _placed(doc)
    rec = [r for r in p.records() if r["collective"]][0]
    assert rec["collective"] == "all_reduce" and rec["dtype"] == "Float" and rec["group_size"] == 8
    assert rec["comm_bytes"] == 2 ** 30
    assert rec["algbw_bytes_s"] == pytest.approx(2 ** 30 / 10e-3)
    assert rec["busbw_bytes_s"] == pytest.approx(2 ** 30 / 10e-3 * 1.75)
    # NVLink 3 through NVSwitch: 600 GB/s both ways = 300 GB/s a rank sends;
    # latency 14 steps x 0.6 us (NCCL's per-step latency; its base latency is no floor)
    roof_t = 2 ** 30 * 1.75 / 300e9 + 14 * 0.6e-6
    assert rec["bound"] == "bandwidth" and rec["level"] == "NVLink"
    assert rec["roofline_time_s"] == pytest.approx(roof_t)
    assert rec["efficiency"] == pytest.approx(roof_t / 10e-3)
    assert "comm:message" not in rec["bytes"]          # the link quantities are no memory level


def test_small_message_is_latency_bound():
    args = dict(NCCL_ARGS, **{"In msg nelems": 8, "Out msg nelems": 8})
    doc = _trace([("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", 100.0, 30.0,
                   args)], api=[(50.0, 5)])
    _, p = _placed(doc)
    rec = [r for r in p.records() if r["collective"]][0]
    assert rec["bound"] == "overhead" and rec["reason"] == "link latency"
    assert rec["roofline_time_s"] == pytest.approx(14 * 0.6e-6 + 32 * 1.75 / 300e9)    # 2(n-1) NVLink steps


def test_wait_pseudo_collective_is_not_traffic():
    args = {"Collective name": "wait", "In msg nelems": 0, "Out msg nelems": 0, "Group size": 1,
            "dtype": "Byte", "correlation": 5}
    doc = _trace([("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", 100.0, 30.0, args)], api=[(50.0, 5)])
    r, p = _placed(doc)
    k = r.kernels[0]
    assert k.collective is None and not k.bytes and k.why == "no traffic"
    assert p.reason[0] == "no traffic" and p.bound[0] == "unknown"


def test_old_schema_size_from_the_nccl_annotation_and_group_from_the_world():
    """2023 traces: record_param_comms has no sizes; nccl:all_reduce's Input
    Dims hold the input; the group is the job's world (an assumption said)."""
    doc = _trace([("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", 200.0, 100.0, {"correlation": 9})],
                 ops=[("c10d::allreduce_", 10.0, 50.0, {"Input Dims": [[], []], "Input type": ["TensorList", ""]}),
                      ("record_param_comms", 12.0, 40.0, {"Input Dims": [[], []], "Input type": ["", ""]})],
                 annotations=[("nccl:all_reduce", 14.0, 30.0, {"Input Dims": [[1000]], "Input type": ["float"]})],
                 api=[(20.0, 9)], info={"rank": 0, "world_size": 16})
    r, p = _placed(doc)
    k = [k for k in r.kernels if k.collective is not None][0]
    assert k.collective.name == "all_reduce" and k.collective.bytes == 4000 and k.collective.group_size == 16
    assert k.collective.nodes == 2 and "world size" in " ".join(k.collective.assumptions)
    assert k.collective.source == "nccl:all_reduce Input Dims"
    assert p.limiter[0] == "network"
    # the row says what it assumed, in JSON as in the records
    import json
    from roofline.render.json_rows import placements_json_bytes
    rec = [r for r in p.records() if r["collective"]][0]
    assert rec["comm_assumed"] == "; ".join(k.collective.assumptions) and "world size" in rec["comm_assumed"]
    fast = [r for r in json.loads(placements_json_bytes(p)) if r["collective"]][0]
    assert fast["comm_assumed"] == rec["comm_assumed"] and set(fast) == set(rec)


def test_group_from_allgather_shapes():
    doc = _trace([("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*)", 200.0, 100.0, {"correlation": 9})],
                 ops=[("c10d::_allgather_base_", 10.0, 50.0,
                       {"Input Dims": [[65536, 64], [8192, 64], []], "Input type": ["float", "float", ""]})],
                 annotations=[("nccl:_all_gather_base", 14.0, 30.0,
                               {"Input Dims": [[8192, 64]], "Input type": ["float"]})],
                 api=[(20.0, 9)], info={"rank": 0, "world_size": 16})
    r, _ = _placed(doc)
    c = r.kernels[0].collective
    assert (c.name, c.group_size, c.bytes, c.nodes) == ("all_gather", 8, 65536 * 64 * 4, 1)
    assert c.source == "c10d::_allgather_base_ shapes"      # the operator's shapes sized it, not Input Dims


def test_annotation_wins_over_operator_shapes_with_a_missing_side():
    """Finding 5: c10d::reduce_scatter_(Tensor[] output, Tensor[][] input)
    records the input as a GenericList: its shapes give only the output
    (a side of 0); the nccl annotation's Input Dims (the whole input) win."""
    doc = _trace([("ncclKernel_ReduceScatter_RING_LL_Sum_float(ncclDevComm*)", 200.0, 100.0, {"correlation": 9})],
                 ops=[("c10d::reduce_scatter_", 10.0, 50.0,
                       {"Input Dims": [[[8192, 64]], []], "Input type": ["TensorList", "GenericList"]})],
                 annotations=[("nccl:reduce_scatter", 14.0, 30.0,
                               {"Input Dims": [[65536, 64]], "Input type": ["float"]})],
                 api=[(20.0, 9)], info={"rank": 0, "world_size": 8})
    r, _ = _placed(doc)
    c = r.kernels[0].collective
    assert (c.name, c.bytes, c.group_size) == ("reduce_scatter", 65536 * 64 * 4, 8)
    assert c.source == "nccl:reduce_scatter Input Dims"


def test_all_gather_group_from_its_sides_not_the_world():
    """Finding 3: In 25136 / Out 201088 bf16 without a Group size in a job
    of 16: out / in says 8 ranks, and S is the recorded output, 402,176 B."""
    args = {"Collective name": "_allgather_base", "In msg nelems": 25136, "Out msg nelems": 201088,
            "dtype": "BFloat16", "correlation": 5}
    doc = _trace([("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 100.0, 30.0, args)],
                 api=[(50.0, 5)], info={"rank": 0, "world_size": 16})
    c = parse(doc).kernels[0].collective
    assert (c.name, c.group_size, c.bytes, c.nodes) == ("all_gather", 8, 402176, 1)
    assert "ratio" in " ".join(c.assumptions) and "world size" not in " ".join(c.assumptions)
    rs = dict(args, **{"Collective name": "_reduce_scatter_base", "In msg nelems": 201088, "Out msg nelems": 25136})
    doc = _trace([("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 100.0, 30.0,
                   rs)], api=[(50.0, 5)], info={"rank": 0, "world_size": 16})
    c = parse(doc).kernels[0].collective
    assert (c.name, c.group_size, c.bytes) == ("reduce_scatter", 8, 402176)


def test_one_listed_gpu_says_nothing_of_the_node():
    """Finding 1: a rank that sees only its own GPU (SLURM) lists one GPU in
    deviceProperties; an 8-rank all-reduce still spans one node of the 8
    assumed, and the collective says it assumed them."""
    for gpus in (1, 0):
        doc = _trace([("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 100.0,
                       10_000.0, dict(NCCL_ARGS))], api=[(50.0, 5)], gpus=gpus)
        r, p = _placed(doc)
        c = r.kernels[0].collective
        assert c.nodes == 1 and p.limiter[0] == "NVLink", gpus
        assert "8 ranks per node assumed" in " ".join(c.assumptions), gpus
        said = [str(w) for w in p.warnings if w.subject == "collectives"]     # said as the other assumptions
        assert any("8 ranks per node assumed" in w for w in said), gpus
    # eight listed GPUs are the node: nothing assumed
    doc = _trace([("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 100.0,
                   10_000.0, dict(NCCL_ARGS))], api=[(50.0, 5)], gpus=8)
    assert parse(doc).kernels[0].collective.assumptions == ()


def test_the_group_of_the_sizing_source_is_matched_across_ranks():
    """Finding 7: collectives sized by record_param_comms carry its process
    group, so two groups of one size and message are not matched together."""
    def rank(first, second):
        ops, kernels, api = [], [], []
        for i, pg in enumerate((first, second)):
            t = 1000.0 * i
            ops.append(("record_param_comms", t + 10, 50.0,
                        {"Collective name": "allreduce", "In msg nelems": 1024, "Out msg nelems": 1024,
                         "Group size": 4, "dtype": "Float", "Process Group Name": pg,
                         "Process Group Ranks": "[0, 1, 2, 3]" if pg == "1" else "[4, 5, 6, 7]"}))
            api.append((t + 20, 10 + i))
            kernels.append(("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", t + 100,
                            100.0 if pg == "1" else 300.0, {"correlation": 10 + i}))
        return parse(_trace(kernels, ops=ops, api=api)).communication
    a, b = rank("1", "2"), rank("2", "1")
    assert a.group == ("1", "2") and b.group == ("2", "1")
    waits = {w.group: w for w in rank_waits({0: a, 1: b})}
    # each group's calls matched with its own: same durations on both ranks, no waiting
    assert set(waits) == {"1", "2"} and all(sum(w.wait_s.values()) == 0 for w in waits.values())


# ------------------------------------------------------------ link roofs

def _cpu() -> Device:
    """A measured CPU profile, injected: it has a PCIe level, which is no GPU-to-GPU link."""
    return Device(name="my-cpu", kind="cpu", compute={"fp64": Ceiling(1e11)},
                  memory={"DRAM": MemoryLevel("DRAM", Ceiling(5e10)), "PCIe": MemoryLevel("PCIe", Ceiling(3e10))})


def test_link_roofs_of_profiles():
    a100 = find_device("a100-80gb-sxm").links
    assert a100.up_bytes_s == 300e9 and a100.up_level == "NVLink" and not a100.in_switch
    assert a100.net_bytes_s == 200e9 / 8 and a100.assumed     # DGX A100's HDR, assumed
    h100 = find_device("h100-sxm").links
    assert h100.up_bytes_s == 450e9 and h100.in_switch
    mi = find_device("mi300x").links
    assert mi.up(8) == pytest.approx(7 * 64e9) and mi.up(4) == pytest.approx(3 * 64e9)   # xGMI mesh
    t4 = find_device("t4").links
    assert t4.up_level == "PCIe P2P" and t4.up_bytes_s == pytest.approx(15.75e9, rel=1e-3)
    assert [a[1] for a in t4.assumed if a[0] == "PCIe P2P"] == [
        "GPU-to-GPU traffic over PCIe assumed: the profile names no NVLink or xGMI link"]
    # a CPU has no links, whatever profile this machine has measured (finding 12)
    assert link_roofs(_cpu()) is None and missing_links(_cpu()) == ""


def test_a_link_named_without_a_rate_gives_no_roof():
    """Finding 2: MI300A (its PCIe level is the on-package CPU-GPU fabric)
    and MI350X/MI355X (xGMI named, rate unknown) get no GPU-to-GPU roof, and
    what is missing is said; collectives there get reason no link roof."""
    for stem in ("mi300a", "mi350x", "mi355x"):
        dev = find_device(stem)
        assert dev.links is None and link_roofs(dev) is None, stem
        assert "without a rate" in missing_links(dev) and "per_link_bidirectional_bytes_s" in missing_links(dev)
    # no scale_up_link and a host link that is no PCIe: no PCIe stand-in either
    apu = find_device("mi300a")
    bare = replace(apu, architecture={k: v for k, v in apu.architecture.items() if k != "scale_up_link"})
    assert link_roofs(bare) is None and "host link" in missing_links(bare)
    assert missing_links(find_device("h100-sxm")) == ""
    doc = _trace([("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 100.0, 10_000.0,
                   dict(NCCL_ARGS))], api=[(50.0, 5)])
    _, p = _placed(doc, device="mi355x")
    assert p.records()[0]["reason"] == "no link roof" and p.bound[0] == "unknown"


def test_mesh_links_take_the_lowest_pair_rate_and_say_so():
    """Finding 4: DGX-1's NVLink cube-mesh (a pair has two NVLinks, one or
    none) and MI250X's GCDs (200 GB/s to the other GCD of the OAM, 50-100 to
    other OAMs) are meshes, not switches: every peer at the lowest sourced
    pair rate, one link, assumed and said."""
    v100 = find_device("v100-sxm2")
    v = v100.links
    assert (v.up(2), v.up(4), v.up(8)) == (25e9, 75e9, 150e9)      # 6 links of 25 GB/s each way at most
    assert any("mesh rate assumed" in a[1] for a in v.assumed if a[0] == "NVLink")
    assert "hybrid cube-mesh" in v100.architecture["scale_up_link"]["source"]
    for stem in ("mi250x-gcd", "mi250x", "mi250-gcd"):
        dev = find_device(stem)
        m = dev.links
        assert (m.up(2), m.up(8)) == (50e9, 350e9) and m.up_bytes_s == 400e9, stem
        assert any("mesh rate assumed" in a[1] for a in m.assumed if a[0] == "xGMI"), stem
        assert "GCD pairs 2-6 and 0-4" in dev.architecture["scale_up_link"]["source"]
    # a switch stays a switch: every group gets all of it, nothing assumed of the link
    h = find_device("h100-sxm").links
    assert h.up(2) == h.up(8) == 450e9 and not [a for a in h.assumed if a[0] == "NVLink"]


def test_roof_formulas():
    b = C.LinkRoofs("NVLink 5", "NVLink", 900e9, "network", 50e9, in_switch=True)
    assert b.roof("intra", 8, 8, "ring") == 900e9
    assert b.roof("intra", 8, 8, "nvls") == pytest.approx(900e9 * 1.75)      # in-switch: can exceed the wire
    assert b.roof("inter", 8, 16, "ring") == pytest.approx(min(900e9, 8 * 50e9))
    assert b.roof("inter", 8, 16, "a2a") == pytest.approx(min(50e9 * 15 / 8, 900e9 * 15 / 7))
    assert b.roof("inter", 1, 2, "p2p") == 50e9
    # finding 10: a switch that does not reduce raises no roof; no dead fields
    assert replace(b, in_switch=False).roof("intra", 8, 8, "nvls") == 900e9
    assert not hasattr(b, "ranks_per_node")
    assert ScaleUp._fields[:3] == ("name", "level", "bytes_s")


def test_latency_follows_nccl_where_it_models_the_case():
    """Finding 8: ring broadcast and reduce take n steps; an all-reduce
    ring 2(n-1); NVLS two NVLink steps. NCCL's base latencies (6.6 us ring,
    25 us NVLS) are no floor: an 8-rank RCCL broadcast ran in 5.9 us."""
    rows = []
    for name, args in (("ncclDevKernel_AllReduce_Sum_bf16_NVLS_SIMPLE(ncclDevKernelArgsStorage<4096ul>)",
                        dict(NCCL_ARGS, dtype="BFloat16")),
                       ("ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                        dict(NCCL_ARGS, **{"Collective name": "broadcast"})),
                       ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", dict(NCCL_ARGS))):
        args["In msg nelems"] = args["Out msg nelems"] = 8          # latency-bound
        doc = _trace([(name, 100.0, 60.0, args)], api=[(50.0, 5)])
        _, p = _placed(doc, device="h100-sxm")
        rows.append(p.link.latency_s[0])
    assert rows == pytest.approx([2 * 0.6e-6, 8 * 0.6e-6, 14 * 0.6e-6])
    one = C.Collective("broadcast", group_size=16, bytes=1e6, nodes=2)
    q = C.comm_bytes(one, 1)
    assert (q[C.STEPS_INTRA], q[C.STEPS_INTER]) == (0.0, 16.0)       # NCCL: every ring step on the network
    assert C.latency_steps("all_gather", 8) == 7 and C.latency_steps("reduce", 8) == 8


def test_network_option():
    assert parse_network("ndr") == ("InfiniBand NDR 400 Gb/s", 50e9)
    assert parse_network("400Gb/s")[1] == pytest.approx(50e9)
    assert parse_network("400Gbit/s")[1] == pytest.approx(50e9)
    assert parse_network("400gbps")[1] == pytest.approx(50e9)
    assert parse_network("50GB/s")[1] == pytest.approx(50e9)
    assert parse_network("2.5e10B/s")[1] == pytest.approx(2.5e10)
    with pytest.raises(RooflineError, match="without a unit"):     # 2.5e10 what? bits or bytes
        parse_network("2.5e10")
    with pytest.raises(RooflineError):
        parse_network("fast")
    # finding 9: lower-case gb/s could be bits or bytes: refused, saying what to write
    with pytest.raises(RooflineError, match=r"write 400Gb/s .* bits per second, 400GB/s for bytes"):
        parse_network("400gb/s")
    links = link_roofs(find_device("a100-80gb-sxm"), "ndr")
    assert links.net_bytes_s == 50e9 and not [a for a in links.assumed if a[0] == "network"]


# ------------------------------------------------------------ exposed and waiting

def test_exposed_time_is_the_part_no_compute_overlaps():
    # one collective 0-100 us; compute 20-50 and 40-70 (another stream) -> 50 us hidden
    got = C.exposed(np.array([0.0, 200.0]), np.array([100.0, 250.0]),
                    np.array([20.0, 40.0, 240.0]), np.array([50.0, 70.0, 300.0]))
    assert got.tolist() == [50.0, 40.0]
    doc = _trace([("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", 0.0, 100.0, dict(NCCL_ARGS, stream=20)),
                  ("void gemm_kernel<float>(float*)", 20.0, 50.0, {"correlation": 6, "stream": 7})],
                 api=[(-10.0, 5), (-5.0, 6)])
    r = parse(doc)
    c = r.communication
    assert len(c) == 1 and c.total_s == pytest.approx(100e-6) and c.exposed_total_s == pytest.approx(50e-6)
    assert exposed_rows({0: c})[0].exposed_share == pytest.approx(0.5)


def test_transfer_is_the_fastest_rank_and_the_rest_is_waiting():
    def launches(durs):
        n = len(durs)
        return C.CommLaunches(("nccl",) * n, ("all_reduce",) * n, ("0",) * n, np.full(n, 1e6),
                              np.arange(n, dtype=float), np.array(durs), np.array(durs))
    waits = rank_waits({0: launches([5e-3, 1e-3]), 1: launches([1e-3, 3e-3]), 2: launches([2e-3, 1e-3])})
    w = waits[0]
    assert w.calls == 2 and w.transfer_s == pytest.approx(1e-3 + 1e-3)
    assert w.wait_s == pytest.approx({0: 4e-3, 1: 2e-3, 2: 1e-3})
    assert w.least_waiting == 2 and wait_by_rank(waits)[0] == pytest.approx(4e-3)


# ------------------------------------------------------------ real traces

def _read(path):
    return read_profile(real_file(path))


@needs_kineto
def test_nccl_data_every_collective_on_a_link_roof():
    r = _read(NCCL_DATA)
    comm = [k for k in r.kernels if k.family == "communication"]
    assert comm and all(k.collective is not None for k in comm)
    assert sum(k.count for k in comm if k.collective.name == "all_reduce") == 15
    assert sum(k.count for k in comm if k.collective.name == "broadcast") == 6
    assert {k.collective.group_size for k in comm} == {2}
    # the kernel args say: In msg nelems 6637568, Float -> S = 26550272 B
    assert 6637568 * 4 in {k.collective.bytes for k in comm}
    p = place(KernelSet.from_kernels(r.kernels), find_device("a100-40gb-sxm"))
    for i, k in enumerate(r.kernels):
        if k.family == "communication":
            assert p.bound[i] in ("bandwidth", "overhead") and p.limiter[i] == "NVLink"
    points = collective_points(p)
    assert len(points) == len(comm)
    # by hand from the raw events: 3 launches of 6637568 floats on 2 ranks
    # (F = 2(2-1)/2 = 1), 7214.656 us in all -> busbw = 3 x 26550272 B / 7.214656 ms
    doc = json.load(gzip.open(NCCL_DATA))
    durs = [e["dur"] for e in doc["traceEvents"] if e.get("cat") == "kernel"
            and e["args"].get("In msg nelems") == 6637568]
    assert len(durs) == 3 and sum(durs) == pytest.approx(7214.656)
    pt = [x for x in points if x.message_bytes == 6637568 * 4][0]
    assert pt.calls == 3 and pt.busbw_bytes_s == pytest.approx(3 * 26550272 / 7.214656e-3)
    assert pt.algbw_bytes_s == pt.busbw_bytes_s


@needs_kineto
def test_negative_queue_every_sized_collective_placed():
    r = _read(NEG_QUEUE)
    p = place(KernelSet.from_kernels(r.kernels), find_device("a100-80gb-sxm"))
    for i, k in enumerate(r.kernels):
        if k.family != "communication":
            continue
        if k.collective is not None:
            assert p.limiter[i] in ("NVLink", "network") and p.bound[i] != "unknown"
        else:
            assert k.why == "launched before the CPU window"
    rs = [k.collective for k in r.kernels if k.collective is not None and k.collective.name == "reduce_scatter"]
    assert {c.group_size for c in rs} == {8} and {c.nodes for c in rs} == {1}     # 65536 / 8192 rows
    assert max(c.bytes for c in rs) == 65536 * 384 * 4
    assert r.communication is not None and 0 < r.communication.exposed_total_s <= r.communication.total_s


@needs_kineto
def test_b200_communication_is_named_and_placed():
    r = _read(B200)
    comm = [k for k in r.kernels if k.family == "communication"]
    assert {k.collective.name for k in comm} == {"all_reduce", "all_gather"}
    ag = [k.collective for k in comm if k.collective.name == "all_gather"][0]
    assert (ag.bytes, ag.group_size, ag.dtype) == (201088 * 2, 8, "BFloat16")
    ar = [k.collective for k in comm if k.collective.name == "all_reduce"]
    assert 2557440 * 2 in {c.bytes for c in ar} and {c.algorithm for c in ar} == {"multimem"}
    assert {c.source for c in ar} == {"symm_mem::multimem_all_reduce_ shapes"}      # finding 6
    assert ag.group == "3" and ag.source == "kernel arguments"
    p = place(KernelSet.from_kernels(r.kernels), find_device("b200"))
    assert all(p.bound[i] != "unknown" for i, k in enumerate(r.kernels) if k.family == "communication")


def test_canonical_finds_the_collective_after_a_prefix():
    assert canonical("symm_mem::multimem_all_reduce_") == "all_reduce"
    assert canonical("symm_mem::one_shot_all_reduce") == "all_reduce"
    assert canonical("symm_mem::two_shot_all_reduce_") == "all_reduce"
    assert canonical("vllm::outplace_all_reduce") == "all_reduce"
    assert canonical("nccl:_reduce_scatter_base") == "reduce_scatter" and canonical("send") == "send_recv"
    assert canonical("_c10d_functional::wait_tensor") == "wait" and canonical("symm_mem::rendezvous") is None


def test_cli_says_the_network_it_assumed_and_uses_the_one_given(tmp_path):
    """Finding 12: a 2-rank all-reduce across two nodes (ranks 0 and 8): the
    network roof is the assumed DGX A100 HDR (25 GB/s), said on stderr, or
    the --network rate (ndr: 50 GB/s)."""
    import subprocess
    import sys
    args = dict(NCCL_ARGS, **{"Group size": 2, "Process Group Ranks": "[0, 8]"})
    path = tmp_path / "two_nodes.json"
    path.write_text(json.dumps(_trace([("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                                        100.0, 100_000.0, args)], api=[(50.0, 5)])))
    alpha = 2 * 2.7e-6                           # 2(n-1) = 2 steps, both across the network
    for network, rate in ((None, 25e9), ("ndr", 50e9)):
        out = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(path), "--format", "json"]
                             + (["--network", network] if network else []), capture_output=True, text=True,
                             check=True)
        rec = [r for r in json.loads(out.stdout) if r["collective"]][0]
        assert rec["limiter"] == "network" and rec["roofline_time_s"] == pytest.approx(alpha + 2 ** 30 / rate)
        if network is None:
            assert ("warning: link network: the network is not in any GPU datasheet: DGX A100: one 200 Gb/s HDR "
                    "NIC per GPU assumed") in out.stderr


@needs_kineto
def test_cli_writes_the_collective_fields(tmp_path):
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(real_file(NCCL_DATA)),
                          "--format", "csv", "--network", "hdr"], capture_output=True, text=True, check=True)
    head = out.stdout.splitlines()[0].split(",")
    assert head[-8:-1] == ["collective", "dtype", "group_size", "comm_bytes", "algbw_bytes_s", "busbw_bytes_s",
                           "comm_assumed"]
    assert "all_reduce" in out.stdout and "using device profile a100" in out.stderr
    report = tmp_path / "r.html"
    subprocess.run([sys.executable, "-m", "roofline.cli.main", "report", str(NCCL_DATA), "-o", str(report)],
                   capture_output=True, check=True)
    html = report.read_text()
    assert 'id="rr-communication"' in html and "Collective roofline" in html and "Exposed communication" in html


def test_cli_says_what_a_profile_without_a_link_rate_lacks():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(real_file(NCCL_DATA)),
                          "--format", "csv", "--device", "mi300a"], capture_output=True, text=True, check=True)
    assert ("warning: links: collectives get no link roof on AMD Instinct MI300A: the profile names its "
            "Infinity Fabric (xGMI) link without a rate (scale_up_link.links and "
            "per_link_bidirectional_bytes_s missing)") in " ".join(out.stderr.split())
    assert "no link roof" in out.stdout


@pytest.mark.parametrize("field, value, said", [
    ("Group size", 0, "Group size 0: a group has at least one rank"),
    ("Group size", -4, "Group size -4"),
    ("Group size", True, "Group size True: expected a whole number of ranks"),
    ("Group size", 10 ** 9, "more ranks than the job's 16"),
    ("In msg nelems", 1e30, "In msg nelems 1e+30"),
    ("Out msg nelems", "nan", "Out msg nelems nan: not a finite count"),
])
def test_an_impossible_collective_size_is_a_one_line_error_naming_file_and_field(tmp_path, field, value, said):
    """Issue 30: a damaged Group size or element count was treated as absent
    (0, -4, true) or used (1e30 elements, 10^9 ranks in a 16-rank job)."""
    args = {"Collective name": "allreduce", "In msg nelems": 1024, "Out msg nelems": 1024, "Group size": 8,
            "dtype": "Float", field: value}
    doc = _trace([("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 100.0, 100.0,
                   {"correlation": 10})], ops=[("record_param_comms", 10.0, 50.0, args)], api=[(20.0, 10)],
                 info={"rank": 0, "world_size": 16})
    path = tmp_path / "rank0.json"
    path.write_text(json.dumps(doc))
    from roofline.importers import read_profile
    with pytest.raises(RooflineError) as err:
        read_profile(path)
    text = str(err.value)
    assert text.startswith(str(path)) and "record_param_comms" in text and said in text and "\n" not in text


def test_counts_written_as_text_still_size_a_collective():
    args = {"Collective name": "allreduce", "In msg nelems": "1024", "Out msg nelems": "1024", "Group size": 8,
            "dtype": "Float"}
    doc = _trace([("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 100.0, 100.0,
                   {"correlation": 10})], ops=[("record_param_comms", 10.0, 50.0, args)], api=[(20.0, 10)])
    (k,) = [k for k in parse(doc).kernels if k.collective is not None]
    assert k.collective.group_size == 8
