"""What an operator model assumed reaches its row: the random-number note,
causal attention's FLOP convention, alike factors read once. It is in the
row (Kernel.assumed) and in classify's JSON and CSV ('assumed')."""
from __future__ import annotations

import csv
import io
import json

from roofline.core.model import Ceiling, Device, KernelSet, MemoryLevel
from roofline.core.placement import place
from roofline.importers.kineto import parse
from roofline.ops import RNG_NOTE
from roofline.ops.attention import CAUSAL_NOTE
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
