"""A CPU trace is told apart from a profile of another CPU even when both
name the CPU alike ("AMD EPYC" on a Zen 3 and on a Zen 4 VM): by CPUID
vendor, family and model, which examples/pytorch_cpu.py records in the
trace and `roofline measure` in the profile."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from roofline.core.model import Ceiling, Device, MemoryLevel
from roofline.devices.trust import doubts
from roofline.importers.kineto import parse

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pytorch_cpu_trace.json.gz"


def profile(family: int | None, model: int | None, name: str = "AMD EPYC") -> Device:
    arch = {"cpu_model": name, "vendor": "AuthenticAMD", "cpu_family": family, "cpu_model_id": model}
    return Device("my-cpu", "cpu", {"fp32": Ceiling(100e9)}, {"DRAM": MemoryLevel("DRAM", Ceiling(20e9))},
                  architecture=arch, provenance={"method": "measured"})


def trace_cpu(family, model, name="AMD EPYC"):
    return {"cpu_model": name, "vendor": "AuthenticAMD", "cpu_family": family, "cpu_model_id": model}


def test_two_cpus_with_one_name_are_told_apart_by_cpuid():
    zen3, zen4 = profile(25, 1), trace_cpu(25, 17)
    (d,) = doubts(zen3, [zen4])
    assert d.kind == "other CPU" and not d.note
    assert "recorded on AMD EPYC (family 25 model 17)" in d.message
    assert "measured on AMD EPYC (family 25 model 1)" in d.message
    assert doubts(profile(25, 17), [zen4]) == []


def test_without_cpuid_on_either_side_the_names_decide():
    assert doubts(profile(None, None), [trace_cpu(25, 17)]) == []            # a profile from before
    assert doubts(profile(25, 1), ["AMD EPYC"]) == []                        # a trace from before
    assert [d.kind for d in doubts(profile(25, 1), ["Intel(R) Xeon(R) Processor"])] == ["other CPU"]


def kineto(meta: dict) -> dict:
    return {"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::relu", "ts": 0, "dur": 5, "pid": 1,
                             "tid": 1, "args": {"Input Dims": [[4]], "Input type": ["float"]}}],
            "roofline": {"intra_op_threads": 2, **meta}}


def test_the_trace_reader_keeps_cpuid_numbers_and_drops_what_is_not_one():
    got = parse(kineto(trace_cpu(25, 17))).device.properties
    assert got == {"cpu_model": "AMD EPYC", "vendor": "AuthenticAMD", "cpu_family": 25, "cpu_model_id": 17}
    odd = parse(kineto({"cpu_model": "X", "cpu_family": True, "cpu_model_id": 10 ** 30, "vendor": 3}))
    assert odd.device.properties == {"cpu_model": "X"}


def test_the_bundled_trace_says_which_cpu_recorded_it():
    meta = json.loads(gzip.decompress(EXAMPLE.read_bytes()))["roofline"]
    assert isinstance(meta["cpu_model"], str) and meta["cpu_model"]
    assert isinstance(meta["cpu_family"], int) and isinstance(meta["cpu_model_id"], int)
    assert parse(json.loads(gzip.decompress(EXAMPLE.read_bytes()))).device.properties["cpu_family"] == \
        meta["cpu_family"]
