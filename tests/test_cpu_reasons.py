"""The named causes of a CPU row below its roof (roofline.core.causes), each
given on its evidence and not without it, and fixed costs kept only where the
fit is plausible (roofline.core.evidence.plausible_fits). Rows and devices
are made up here (never this machine's figures); the recorded trace under
tests/fixtures/cpu_reasons is read at the end."""
from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

from roofline.analysis.overhead import analyze_overhead
from roofline.core.causes import (MMAP_THRESHOLD_BYTES, in_place, output_shapes, rng_rows)
from roofline.core.evidence import FAR_ABOVE, _fit
from roofline.core.model import Ceiling, Device, Kernel, KernelSet, MemoryLevel
from roofline.core.placement import place
from roofline.render.overhead import overhead_text

MIB = 1 << 20
FIXTURE = Path(__file__).parent / "fixtures" / "cpu_reasons"


def cpu() -> Device:
    """400 GFLOP/s fp32, 40 GB/s DRAM, a 32 MB L3 (ridge 10 FLOP/B)."""
    memory = {"L1": MemoryLevel("L1", Ceiling(800e9), 64, 48e3), "L2": MemoryLevel("L2", Ceiling(400e9), 64, 1e6),
              "L3": MemoryLevel("L3", Ceiling(200e9), 64, 32e6), "DRAM": MemoryLevel("DRAM", Ceiling(40e9))}
    return Device("toy-cpu", "cpu", {"fp32": Ceiling(400e9)}, memory, launch_overhead_s=60e-9,
                  architecture={"threads": 2}, provenance={"method": "measured"})


def gpu() -> Device:
    return Device("toy-gpu", "gpu", {"fp32": Ceiling(10e12)}, {"DRAM": MemoryLevel("DRAM", Ceiling(1e12))},
                  launch_overhead_s=5e-6, architecture={"sms": 80})


def op(name: str, per_call_s: float, nbytes: float, flops: float = 0.0, calls: int = 2,
       family: str = "elementwise") -> Kernel:
    """A Kineto CPU row: ``aten::x(shapes)``, its operator, per-call work."""
    return Kernel(name, time_s=per_call_s * calls, count=calls, flops={"fp32": flops * calls},
                  bytes={"DRAM": nbytes * calls}, modelled=True, operator=name.split("(")[0], family=family)


def reasons(device, kernels) -> dict[str, str]:
    p = place(KernelSet.from_kernels(kernels), device)
    return dict(zip(p.kernels.names.tolist(), p.reason.tolist()))


# 1024x4096 fp32: 16 MiB. An out-of-place sqrt reads and writes it (32 MiB a
# call), an in-place mul_ by a scalar too: at 40 GB/s, 0.84 ms a call.
BIG = 2 * 16 * MIB


def sqrt(per_call_s=10e-3, shape="1024x4096", nbytes=BIG):
    return op(f"aten::sqrt({shape})", per_call_s, nbytes)


def mul_(per_call_s=1.2e-3, shape="1024x4096", nbytes=BIG):
    return op(f"aten::mul_({shape}, scalar)", per_call_s, nbytes, calls=4)


# ------------------------------------------------------------- page faults on fresh outputs

def test_a_big_fresh_output_slow_against_in_place_peers_of_its_shape_is_page_faults():
    # 10 ms against 1.2 ms for as many bytes in place: 8x slower per byte
    r = reasons(cpu(), [sqrt(), mul_()])
    assert r["aten::sqrt(1024x4096)"] == "page faults on fresh outputs"
    assert r["aten::mul_(1024x4096, scalar)"] == "no evidence"        # in place: its pages are mapped


def test_no_page_faults_without_the_evidence():
    alone = reasons(cpu(), [sqrt()])                                    # no in-place peer to compare with
    other_shape = reasons(cpu(), [sqrt(), mul_(shape="4096x1024")])    # a peer of another shape
    close = reasons(cpu(), [sqrt(per_call_s=4e-3), mul_()])            # 3.3x per byte: under 4x
    for r in (alone, other_shape, close):
        assert r["aten::sqrt(1024x4096)"] == "traffic above compulsory"
    # 64x64 fp32 = 16 KiB out: under glibc's 128 KiB mmap threshold, the heap keeps it
    small = 2 * 64 * 64 * 4
    assert small / 2 < MMAP_THRESHOLD_BYTES
    r = reasons(cpu(), [sqrt(shape="64x64", nbytes=small, per_call_s=20e-6),
                        mul_(shape="64x64", nbytes=small, per_call_s=1e-6)])
    assert r["aten::sqrt(64x64)"] != "page faults on fresh outputs"
    # a GPU's caching allocator keeps its memory
    assert reasons(gpu(), [sqrt(per_call_s=10e-3 / 25), mul_(per_call_s=1.2e-3 / 25)])[
        "aten::sqrt(1024x4096)"] != "page faults on fresh outputs"


def test_in_place_peers_served_from_a_cache_are_no_yardstick():
    # 1024x1024 fp32, 4 MiB: fits the 32 MB L3. A mul_ at 84 GB/s beat DRAM (its data was in
    # the L3): a fresh output cannot be held to that. At 38 GB/s it moved from DRAM: 4.5x
    four = 2 * 4 * MIB
    from_l3 = reasons(cpu(), [sqrt(1e-3, "1024x1024", four), mul_(0.1e-3, "1024x1024", four)])
    from_dram = reasons(cpu(), [sqrt(1e-3, "1024x1024", four), mul_(0.22e-3, "1024x1024", four)])
    assert from_l3["aten::mul_(1024x1024, scalar)"] == "data from cache"
    assert from_l3["aten::sqrt(1024x1024)"] == "traffic above compulsory"
    assert from_dram["aten::sqrt(1024x1024)"] == "page faults on fresh outputs"


def test_output_shape_and_share_come_from_the_label():
    shapes, share = output_shapes(np.array(["aten::div(1024x4096, scalar)", "aten::add(8x1, 8x16)", "k"],
                                           dtype=object),
                                  np.array(["aten::div", "aten::add", ""], dtype=object))
    assert shapes.tolist() == ["1024x4096", "8x16", ""]
    # div: a scalar tensor (one element) in, the output out: about half the bytes
    assert share[0] == pytest.approx(4194304 / (4194304 + 1 + 4194304))
    assert share[1] == pytest.approx(128 / (8 + 128 + 128)) and share[2] == 0
    assert in_place(np.array(["aten::add_", "aten::add", "aten::_foreach_sqrt", "aten::_foreach_add_"],
                             dtype=object)).tolist() == [True, False, False, True]


def test_labels_that_are_not_shapes_give_none():
    names = np.array(["aten::relu", "aten::relu()", "aten::mm(2x3, 3x4)", "other(2x3)", "aten::cat(scalar)",
                      "aten::where(4x1, 4x4, 1x4) tail", None, "aten::add((2x2), 2x2)"], dtype=object)
    ops = np.array(["aten::relu", "aten::relu", "aten::mm", "aten::mm", "aten::cat", "aten::where", "x",
                    "aten::add"], dtype=object)
    shapes, share = output_shapes(names, ops)
    # only a name spelled operator(shapes) says its shapes; "(2x2)" is not a shape
    assert shapes.tolist() == ["", "", "3x4", "", "", "", "", "2x2"]
    assert share[2] == pytest.approx(12 / (6 + 12 + 12)) and share[7] == pytest.approx(0.5)


# ------------------------------------------------------------- random-number generation

@pytest.mark.parametrize("name", ["aten::bernoulli_", "aten::bernoulli", "aten::native_dropout", "aten::uniform_",
                                  "aten::normal_", "aten::rand", "aten::randn_like", "aten::randint",
                                  "aten::randperm", "aten::multinomial", "aten::exponential_", "aten::geometric_",
                                  "aten::cauchy_", "aten::log_normal_", "aten::random_"])
def test_rng_operators_are_known_by_name(name):
    assert rng_rows(np.array([name], dtype=object), np.array(["elementwise"], dtype=object)).tolist() == [True]


def test_other_operators_are_not_rng_unless_a_model_says_so():
    names = np.array(["aten::add_", "aten::fill_", "aten::dropout", "aten::ran", "aten::mul"], dtype=object)
    assert not rng_rows(names, np.full(5, "elementwise", dtype=object)).any()
    assert rng_rows(names[:1], np.array(["rng"], dtype=object)).tolist() == [True]


def test_dropout_masks_are_random_number_generation():
    # 8x64x1024 fp32 written, 2 MiB, in 5 ms: a fill_ of the same buffer is far faster
    bern = op("aten::bernoulli_(8x64x1024)", 5e-3, 2 * MIB)
    fill = op("aten::fill_(8x64x1024)", 5e-3, 2 * MIB)
    r = reasons(cpu(), [bern, fill])
    assert r["aten::bernoulli_(8x64x1024)"] == "random-number generation"
    assert r["aten::fill_(8x64x1024)"] != "random-number generation"
    # an out-of-place RNG operator with a fresh output is named for its generator first
    normal = op("aten::normal(1024x4096)", 10e-3, 16 * MIB)
    assert reasons(cpu(), [normal, mul_()])["aten::normal(1024x4096)"] == "random-number generation"


# ------------------------------------------------------------- slow library kernel

DW = "aten::convolution_backward(16x96x56x56, 16x96x56x56, 96x1x3x3)"
PW = "aten::convolution_backward(16x96x56x56, 16x96x56x56, 96x96x1x1)"


def depthwise(per_call_s=20e-3, calls=3):
    # 38.5 MB (beyond the 32 MB L3), 3.5e8 FLOP: bandwidth-bound, 0.96 ms at the roof; 4.8 % at 20 ms
    return op(DW, per_call_s, 38.5e6, 3.5e8, calls, family="convolution")


def pointwise(per_call_s=7.7e-3, calls=3, nbytes=57.9e6, name=PW):
    # 1.85 GFLOP: compute-bound, 4.6 ms at the roof; 60 % at 7.7 ms
    return op(name, per_call_s, nbytes, 1.85e9, calls, family="convolution")


def test_a_shape_far_below_what_its_operator_reaches_elsewhere_is_a_slow_library_kernel():
    p = place(KernelSet.from_kernels([depthwise(), pointwise()]), cpu())
    assert p.reason.tolist() == ["slow library kernel", "no evidence"]
    # the peer is named beside the reason
    assert PW in p.reason_detail[0] and "60%" in p.reason_detail[0] and p.reason_detail[1] == ""


def test_the_named_peer_is_the_faster_one_with_most_time():
    other = pointwise(per_call_s=5e-3, calls=1, name=PW.replace("96x96x1x1", "96x48x1x1"))   # 92 %, 1 call
    p = place(KernelSet.from_kernels([depthwise(), other, pointwise()]), cpu())
    assert p.reason[0] == "slow library kernel" and PW in p.reason_detail[0]        # 23 ms, not 5 ms


def test_no_slow_library_kernel_without_a_trusted_faster_peer():
    equally_slow = pointwise(per_call_s=60e-3)                     # 7.7 %: under 4x the depthwise 4.8 %
    two_calls = pointwise(calls=2)                                  # 10x, but in 2 calls
    above_roof = pointwise(per_call_s=3e-3)                         # 150 % of its roof: a model error
    in_cache = op("aten::convolution_backward(1x96x8x8, 1x96x8x8, 96x1x3x3)", 30e-6, 1e6, 1e6,
                  calls=10, family="convolution")                   # 1 MB: in cache, near any DRAM roof
    for peer in (equally_slow, two_calls, above_roof, in_cache):
        assert reasons(cpu(), [depthwise(), peer])[DW] == "traffic above compulsory", peer.name
    # losing under 100 us a call: a fixed cost could be all of it
    small = op("aten::convolution_backward(1x96x56x56, 1x96x56x56, 96x1x3x3)", 80e-6, 38.5e6 / 16,
               3.5e8 / 16, 3, family="convolution")
    assert reasons(cpu(), [small, pointwise()])[small.name] != "slow library kernel"


# ------------------------------------------------------------- plausible fixed costs

def conv_sizes(times_s=None, fixed_s=None, roofs=(10e-6, 100e-6, 1e-3)):
    """Convolutions at several sizes, compute-bound (``roofs``: roofline
    time per call), taking ``times_s`` or ``fixed_s`` + twice their roof."""
    times = times_s if fixed_s is None else [fixed_s + 2 * r for r in roofs]
    return [op(f"aten::convolution(16x{c}x28x28, {c}x{c}x3x3)", t, 1e3, r * 400e9, calls=4, family="convolution")
            for c, t, r in zip((8, 16, 24, 48, 80), times, roofs)]


def add_sizes(fixed_s=5e-6):
    """In-place adds at four sizes: 5 us fixed cost, then 40 GB/s at 80 %."""
    return [op(f"aten::add_({n}, {n})", fixed_s + 3 * n * 4 / 32e9, 3 * n * 4, n, calls=10)
            for n in (1_000, 10_000, 100_000, 1_000_000)]


def test_a_fixed_cost_larger_than_the_shortest_call_is_no_fixed_cost():
    # 1.6, 1.6, 1.6, 1.0 and 1.4 ms for 10, 20, 50, 100 and 1000 us at the roof: the
    # fit's constant, 1.33 ms, is above the 1.0 ms call by more than the fit's 1.21x scatter
    rows = conv_sizes([1.6e-3, 1.6e-3, 1.6e-3, 1.0e-3, 1.4e-3], roofs=(10e-6, 20e-6, 50e-6, 100e-6, 1e-3))
    for device in (cpu(), gpu()):
        p = place(KernelSet.from_kernels(rows), device)
        assert np.isnan(p.fixed_s).all() and p.fitted_groups == 0 and p.discarded_fits == 1
        assert "fixed cost" not in p.reason.tolist()
        text = overhead_text(analyze_overhead(p))
        assert "1 fit(s) across sizes discarded" in text and "typical" not in text
    # above the shortest call only within the fit's scatter (rounded times): the shortest call
    r = np.array([4e3, 4e4, 4e5]) / 900e9
    assert _fit(r, np.array([5.0, 5.05, 5.4]) * 1e-6) == pytest.approx(5e-6)   # the fit alone: 5.0027 us


def test_on_a_cpu_a_fixed_cost_far_above_the_element_wise_ones_is_no_fixed_cost():
    far = place(KernelSet.from_kernels(add_sizes() + conv_sizes(None, fixed_s=500e-6)), cpu())
    conv = far.kernels.families == "convolution"
    assert far.dispatch_s == pytest.approx(5e-6, rel=1e-3)
    assert np.isnan(far.fixed_s[conv]).all() and far.discarded_fits == 1
    assert far.fixed_s[~conv] == pytest.approx([5e-6] * 4, rel=1e-3)
    k = analyze_overhead(far).kernels
    assert k.fitted_groups == 1 and k.typical_fixed_s == pytest.approx(5e-6, rel=1e-3)
    assert k.fixed_cost_s == pytest.approx(40 * 5e-6, rel=1e-3)     # the adds' calls only
    # within FAR_ABOVE x the adds' fixed cost, the convolutions keep theirs
    near = place(KernelSet.from_kernels(add_sizes() + conv_sizes(None, fixed_s=0.9 * FAR_ABOVE * 5e-6)), cpu())
    assert near.fixed_s[conv] == pytest.approx([45e-6] * 3, rel=1e-3) and near.discarded_fits == 0
    assert near.reason[conv][0] == "fixed cost"


def test_without_element_wise_fits_the_cap_is_the_substantial_time():
    assert place(KernelSet.from_kernels(conv_sizes(None, fixed_s=500e-6)), cpu()).discarded_fits == 1
    kept = place(KernelSet.from_kernels(conv_sizes(None, fixed_s=60e-6)), cpu())
    assert kept.discarded_fits == 0 and math.isnan(kept.dispatch_s)
    # a GPU has no such cap: only the shortest call bounds a fit
    assert place(KernelSet.from_kernels(conv_sizes(None, fixed_s=500e-6)), gpu()).discarded_fits == 0


# ------------------------------------------------------------- a recorded trace

def recorded(dram_bytes_s: float = 40e9):
    """The recorded ViT-ish AdamW + dropout + depthwise/pointwise trace
    (tests/fixtures/cpu_reasons/record.py: torch 2.13, 2 threads, 3 steps,
    glibc's default allocator), placed on a made-up 2-core CPU: 200 GFLOP/s
    fp32, ``dram_bytes_s`` DRAM, a 32 MiB L3."""
    from roofline.importers.kineto import parse
    memory = {"L1": MemoryLevel("L1", Ceiling(400e9), 64, 32e3), "L2": MemoryLevel("L2", Ceiling(200e9), 64, 1e6),
              "L3": MemoryLevel("L3", Ceiling(100e9), 64, 32 * MIB), "DRAM": MemoryLevel("DRAM", Ceiling(dram_bytes_s))}
    device = Device("made-up-2-core", "cpu", {"fp32": Ceiling(200e9), "fp64": Ceiling(100e9)}, memory,
                    launch_overhead_s=100e-9, architecture={"threads": 2}, provenance={"method": "measured"})
    with gzip.open(FIXTURE / "vitish_adamw_dropout.json.gz", "rt") as f:
        kernels = parse(json.load(f)).kernels
    return place(KernelSet.from_kernels(kernels), device)


def test_the_recorded_trace_names_its_page_faults_and_its_dropout():
    p = recorded()
    r = dict(zip(p.kernels.names.tolist(), p.reason.tolist()))
    # AdamW's out-of-place sqrt and div of the 16 MiB moments: 109-170 ps per modelled byte
    # against 16-21 ps for the in-place lerp_/addcdiv_ of the same shapes (6-10x)
    for name in ("aten::sqrt(1024x4096)", "aten::sqrt(4096x1024)", "aten::div(1024x4096, scalar)",
                 "aten::div(4096x1024, scalar)"):
        assert r[name] == "page faults on fresh outputs", name
    # dropout's masks: 3.8 ms for 2 MiB a call
    assert r["aten::bernoulli_(8x64x1024)"] == "random-number generation"
    inplace = np.array([str(o).endswith("_") for o in p.kernels.operators.tolist()])
    assert not (p.reason[inplace] == "page faults on fresh outputs").any()
    # the element-wise fits (2-9 us) are the dispatch yardstick; none of the trace's fits is far above it
    assert 1e-6 < p.dispatch_s < 10e-6 and p.discarded_fits == 0


def test_the_recorded_depthwise_backward_is_slow_only_on_roofs_that_say_so():
    # depthwise weight/input gradients, bandwidth-bound, 18 ms a call; the pointwise one,
    # compute-bound, 34 ms: on 40 GB/s and 200 GFLOP/s roofs 5.3 % against 27 % (5x) ...
    p = recorded(40e9)
    i = p.kernels.names.tolist().index(DW)
    assert p.reason[i] == "slow library kernel" and PW in p.reason_detail[i]
    # ... on a 20 GB/s DRAM roof the depthwise one is at 10.6 %: 2.6x, no evidence of a slower path
    q = recorded(20e9)
    assert q.reason[i] == "traffic above compulsory"
