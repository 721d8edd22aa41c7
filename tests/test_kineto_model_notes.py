"""What an operator model assumed reaches its row: the random-number note,
causal attention's FLOP convention, alike factors read once, a model's
reason for unknown work (tensor lists recorded ``[]``). It is in the row
(Kernel.assumed) and in classify's JSON and CSV ('assumed'). And an
operator beside layout copies of its own tensors keeps its work
(roofline.importers.kineto.layout; tests/fixtures/cpu_traces/
record_upsample.py recorded the fixture)."""
from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

from roofline.core import reasons as R
from roofline.core.model import Ceiling, Device, KernelSet, MemoryLevel
from roofline.core.placement import place
from roofline.importers.kineto import parse
from roofline.importers.kineto.operators import PART_NOTE
from roofline.ops import RNG_NOTE, OpCall, unknown_reason
from roofline.ops.attention import CAUSAL_NOTE
from roofline.ops.elementwise import ALIAS_NOTE
from roofline.ops.optimizer import EMPTY_LISTS, SIBLING_NOTE
from roofline.render.json_rows import placements_json_bytes
from roofline.render.tables import placements_csv


def op(name, ts, dims, types, concrete=None):
    args = {"Input Dims": dims, "Input type": types}
    if concrete is not None:
        args["Concrete Inputs"] = concrete
    return {"ph": "X", "cat": "cpu_op", "name": name, "ts": ts, "dur": 50, "pid": 1, "tid": 1, "args": args}


def trace():
    q = [2, 4, 128, 64]
    return {"traceEvents": [
        op("aten::bernoulli_", 0, [[16, 64], []], ["float", "Scalar"], ["", "0.9"]),
        op("aten::_scaled_dot_product_flash_attention_for_cpu", 100, [q, q, q, [], []],
           ["float", "float", "float", "Scalar", "Scalar"], ["", "", "", "0.0", "True"]),
        op("aten::relu", 200, [[16, 64]], ["float"]),
    ], "roofline": {"intra_op_threads": 2}}


def cpu():
    return Device("toy-cpu", "cpu", {"fp32": Ceiling(100e9)}, {"DRAM": MemoryLevel("DRAM", Ceiling(20e9))},
                  architecture={"threads": 2}, provenance={"method": "measured"})


def test_model_notes_are_in_the_rows_and_in_classify_outputs():
    rows = {k.operator: k for k in parse(trace()).kernels}
    assert RNG_NOTE in rows["aten::bernoulli_"].assumed
    sdpa = rows["aten::_scaled_dot_product_flash_attention_for_cpu"]
    assert sdpa.flops and CAUSAL_NOTE in sdpa.assumed
    assert rows["aten::relu"].assumed == ""            # a model that assumed nothing says nothing
    p = place(KernelSet.from_kernels(rows.values()), cpu())
    js = {r["operator"]: r for r in json.loads(placements_json_bytes(p))}
    assert RNG_NOTE in js["aten::bernoulli_"]["assumed"] and js["aten::relu"]["assumed"] is None
    table = {r["operator"]: r for r in csv.DictReader(io.StringIO(placements_csv(p)))}
    assert CAUSAL_NOTE in table["aten::_scaled_dot_product_flash_attention_for_cpu"]["assumed"]
    assert {r["operator"]: r["assumed"] for r in p.records()}["aten::bernoulli_"] == js["aten::bernoulli_"]["assumed"]


# --- the aliasing note and tensor lists recorded [] --------------------------

def test_alike_factors_note_reaches_the_row_and_json():
    g = [16, 64]
    t = {"traceEvents": [
        op("aten::addcmul_", 0, [g, g, g, []], ["float", "float", "float", "Scalar"], ["", "", "", "0.5"]),
        op("aten::addcmul_", 100, [g, g, [64], []], ["float", "float", "float", "Scalar"], ["", "", "", "0.5"]),
    ]}
    rows = parse(t).kernels
    alike = next(k for k in rows if k.name.endswith("(16x64, 16x64, 16x64)"))
    other = next(k for k in rows if k.name.endswith("(16x64, 16x64, 64)"))
    assert ALIAS_NOTE in alike.assumed and ALIAS_NOTE not in other.assumed
    p = place(KernelSet.from_kernels(rows), cpu())
    js = {r["name"]: r for r in json.loads(placements_json_bytes(p))}
    assert ALIAS_NOTE in js[alike.name]["assumed"]


def empty_lists_trace():
    return {"traceEvents": [
        # torch 2.14 records tensor lists as []: no list has shapes, the work is unknown
        op("aten::_foreach_add_", 0, [[], [], []], ["TensorList", "TensorList", "Scalar"], ["", "", "1"]),
        # one list with shapes sizes its empty sibling
        op("aten::_foreach_mul_", 100, [[[16, 64], [64]], []], ["TensorList", "TensorList"], ["", ""]),
    ]}


def test_empty_tensor_lists_give_the_models_reason():
    rows = {k.operator: k for k in parse(empty_lists_trace()).kernels}
    unknown = rows["aten::_foreach_add_"]
    text = unknown_reason(OpCall("aten::_foreach_add_", ((), (), ()), ("TensorList", "TensorList", "Scalar"),
                                 (), ("", "", "1")))
    assert text and EMPTY_LISTS in text
    assert not unknown.flops and not unknown.bytes
    assert unknown.why == R.LIST_SHAPES and unknown.why in R.WITHOUT_WORK
    assert unknown.assumed == text                       # the model's own words, on the row
    sized = rows["aten::_foreach_mul_"]
    assert sized.bytes["DRAM"] > 0 and SIBLING_NOTE in sized.assumed and sized.why == ""
    p = place(KernelSet.from_kernels(rows.values()), cpu())
    js = {r["operator"]: r for r in json.loads(placements_json_bytes(p))}
    assert js["aten::_foreach_add_"]["assumed"] == text
    table = {r["operator"]: r for r in csv.DictReader(io.StringIO(placements_csv(p)))}
    assert table["aten::_foreach_add_"]["assumed"] == text


def test_an_operator_without_a_model_keeps_the_generic_reason():
    t = {"traceEvents": [op("aten::frobnicate", 0, [[16, 64]], ["float"])]}
    row = parse(t).kernels[0]
    assert row.why == R.NO_MODEL and row.assumed == ""


# --- an operator beside layout copies of its own tensors keeps its work --------

FIXTURE = Path(__file__).parent / "fixtures" / "cpu_traces" / "upsample_infer.json.gz"
NCHW, CL = [65536, 1024, 32, 1], [65536, 1, 2048, 64]
NCHW_OUT, CL_OUT = [262144, 4096, 64, 1], [262144, 1, 4096, 64]
X, Y = [8, 64, 32, 32], [8, 64, 64, 64]
XB, YB = 8 * 64 * 32 * 32 * 4, 8 * 64 * 64 * 64 * 4      # fp32 input and output bytes


def ev(name, ts, dur, dims, types, strides, concrete):
    e = op(name, ts, dims, types, concrete)
    e["dur"] = dur
    e["args"]["Input Strides"] = strides
    return e


def upsample_call(ts, children, name="aten::upsample_nearest2d", x_strides=NCHW, dur=12000):
    """``name`` on 8x64x32x32 to 64x64 (the inner overload, output size
    recorded), with ``children`` (events) inside it, as torch 2.13 records
    it on a CPU."""
    return [ev(name, ts, dur, [X, [], [], []], ["float", "ScalarList", "Scalar", "Scalar"],
               [x_strides, [], [], []], ["", "[64, 64]", "2.", "2."])] + children


def layout_chain(ts, shape, src, dst, dur):
    """contiguous -> clone -> copy_(dst strides <- src strides), as torch records it."""
    return [ev("aten::contiguous", ts, dur, [shape, []], ["float", ""], [src, []], ["", "2"]),
            ev("aten::clone", ts + 1, dur - 2, [shape, []], ["float", ""], [src, []], ["", "2"]),
            ev("aten::copy_", ts + 2, dur - 4, [shape, shape, []], ["float", "float", "Scalar"],
               [dst, src, []], ["", "", "False"])]


def copy_back(ts, dur, dst=NCHW_OUT, src=CL_OUT):
    return [ev("aten::copy_", ts, dur, [Y, Y, []], ["float", "float", "Scalar"], [dst, src, []], ["", "", "False"])]


def rows_of(events):
    return {k.name: k for k in parse({"traceEvents": events}).kernels}


def test_upsample_keeps_its_work_beside_its_channels_last_copies():
    events = upsample_call(0, layout_chain(10, X, NCHW, CL, 1700) + layout_chain(2000, Y, NCHW_OUT, CL_OUT, 6400)
                           + copy_back(9000, 2300))
    rows = rows_of(events)
    up = rows["aten::upsample_nearest2d(64x8x32x32)".replace("64x8", "8x64")]
    assert up.family == "pooling" and up.bytes["DRAM"] == XB + YB     # its input read, its output written
    assert up.time_s == (12000 - 1700 - 6400 - 2300) * 1e-6            # its own interpolation, not dispatch
    copies = rows["aten::copy_(8x64x32x32, 8x64x32x32)"], rows["aten::copy_(8x64x64x64, 8x64x64x64)"]
    assert copies[0].bytes["DRAM"] == 2 * XB and copies[1].bytes["DRAM"] == 2 * 2 * YB   # theirs, once each
    assert all(rows[n].family == "overhead" for n in ("aten::contiguous", "aten::clone"))
    assert sum(k.bytes.get("DRAM", 0.0) for k in rows.values()) == XB + YB + 2 * XB + 4 * YB


def test_bilinear_keeps_its_flops_and_its_bytes_beside_its_copies():
    events = upsample_call(0, layout_chain(10, X, NCHW, CL, 1500) + layout_chain(2000, Y, NCHW_OUT, CL_OUT, 11000)
                           + copy_back(14000, 2200), name="aten::upsample_bilinear2d", dur=16000)
    events[0]["args"].update({"Input Dims": [X, [], [], [], []],
                              "Input type": ["float", "ScalarList", "Scalar", "Scalar", "Scalar"],
                              "Input Strides": [NCHW, [], [], [], []],
                              "Concrete Inputs": ["", "[64, 64]", "False", "2.", "2."]})
    up = rows_of(events)["aten::upsample_bilinear2d(8x64x32x32)"]
    assert up.flops["fp32"] == 9 * 8 * 64 * 64 * 64 and up.bytes["DRAM"] == XB + YB
    assert PART_NOTE not in up.assumed


def test_the_recorded_upsample_trace_keeps_the_interpolation_as_work():
    rows = parse(json.loads(gzip.decompress(FIXTURE.read_bytes()))).kernels
    by_op = {}
    for k in rows:
        by_op.setdefault(k.operator, []).append(k)
    for name in ("aten::upsample_nearest2d", "aten::upsample_bilinear2d"):
        working = [k for k in by_op[name] if k.bytes.get("DRAM")]
        # one row for both calls (NCHW and channels-last, same shapes): both calls' bytes
        assert len(working) == 1 and working[0].count == 2
        assert working[0].bytes["DRAM"] == 2 * (XB + YB)
        # the outer (.vec) overload gave its work to the inner one: dispatch only
        assert all(k.family == "overhead" for k in by_op[name] if k is not working[0])
    copies = [k for k in by_op["aten::copy_"]]
    assert sum(k.bytes["DRAM"] for k in copies) == 2 * (2 * XB + 2 * 2 * YB)     # two NCHW calls' copies


def test_a_copy_that_is_the_work_still_takes_it():
    # pow(x, 1.) copies x into its output: the copy keeps the layout, it *is* the work
    x = [4, 32, 64]
    st = [2048, 64, 1]
    events = [ev("aten::pow", 0, 100, [x, []], ["float", "Scalar"], [st, []], ["", "1."]),
              ev("aten::copy_", 10, 50, [x, x, []], ["float", "float", "Scalar"], [st, st, []], ["", "", "False"])]
    rows = rows_of(events)
    # its bytes are the copy's (counted there once); its FLOPs (x^1) stay, as before
    assert rows["aten::pow(4x32x64)"].bytes["DRAM"] == 0.0 and PART_NOTE in rows["aten::pow(4x32x64)"].assumed
    assert rows["aten::copy_(4x32x64, 4x32x64)"].bytes["DRAM"] == 2 * 4 * 32 * 64 * 4


def test_upsample_whose_copies_keep_the_layout_gives_its_work_away():
    # the same tree, but copies that change no strides: no layout conversion, the rule before applies
    events = upsample_call(0, layout_chain(10, X, NCHW, NCHW, 1700) + layout_chain(2000, Y, NCHW_OUT, NCHW_OUT, 6400)
                           + copy_back(9000, 2300, dst=NCHW_OUT, src=NCHW_OUT))
    rows = rows_of(events)
    assert "aten::upsample_nearest2d(8x64x32x32)" not in rows
    assert rows["aten::upsample_nearest2d"].family == "overhead"


def test_upsample_with_a_child_doing_other_work_gives_it_away():
    # a descendant doing work that is not a layout conversion (here mul on the output) keeps the rule before
    events = upsample_call(0, layout_chain(10, X, NCHW, CL, 1700)
                           + [ev("aten::mul", 2000, 6000, [Y, Y], ["float", "float"], [NCHW_OUT, NCHW_OUT], ["", ""])])
    rows = rows_of(events)
    assert "aten::upsample_nearest2d(8x64x32x32)" not in rows
    assert rows["aten::upsample_nearest2d"].family == "overhead"
    assert rows["aten::mul(8x64x64x64, 8x64x64x64)"].bytes["DRAM"] == 3 * YB


def test_a_dtype_conversion_is_not_a_layout_copy():
    # sum over an int tensor converts it to long first (to -> _to_copy -> copy_, same strides): the
    # conversion took the sum's work before the layout rule and still does
    x, st = [6, 65536], [65536, 1]
    events = [ev("aten::sum", 0, 100, [x, [], [], []], ["int", "", "Scalar", ""], [st, [], [], []], ["", "", "", ""]),
              ev("aten::copy_", 10, 50, [x, x, []], ["long int", "int", "Scalar"], [st, st, []], ["", "", "False"])]
    rows = rows_of(events)
    assert rows["aten::sum"].family == "overhead"          # integer sum: no FLOPs, its bytes went to the copy
    assert rows["aten::copy_(6x65536, 6x65536)"].bytes["DRAM"] == 6 * 65536 * (8 + 4)


# --- GPU rows carry their operator's notes too -----------------------------

def launch(ts, corr):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts, "dur": 1,
            "args": {"correlation": corr}}


def kernel(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"correlation": corr, "device": 0, "stream": 7}}


def test_gpu_rows_carry_the_notes_of_the_operators_they_ran():
    q = [2, 4, 128, 64]
    sdpa = op("aten::_scaled_dot_product_flash_attention", 0, [q, q, q, [], [], []],
              ["c10::BFloat16"] * 3 + ["Scalar", "Scalar", "Scalar"], ["", "", "", "0.0", "True", "False"])
    sdpa["dur"] = 50
    drop = op("aten::bernoulli_", 100, [[16, 64], []], ["float", "Scalar"], ["", "0.9"])
    relu = op("aten::relu", 200, [[16, 64]], ["float"])
    events = [sdpa, launch(5, 1), kernel("flash_fwd_kernel", 60, 30, 1),
              drop, launch(105, 2), kernel("philox_bernoulli_kernel", 160, 10, 2),
              relu, launch(205, 3), kernel("elementwise_relu_kernel", 260, 5, 3)]
    rows = {k.name: k for k in parse({"traceEvents": events}).kernels}
    assert CAUSAL_NOTE in rows["flash_fwd_kernel"].assumed and rows["flash_fwd_kernel"].flops
    assert RNG_NOTE in rows["philox_bernoulli_kernel"].assumed
    assert rows["elementwise_relu_kernel"].assumed == ""
