"""The rules every importer shares, each written once (#32 item 4): copy
traffic (roofline.importers.copies), what to collect when counters are
missing (roofline.importers.recipes) and kernels summed by name
(roofline.importers.sums)."""
from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from roofline.core.model import Kernel, KernelSet
from roofline.importers import copies, recipes
from roofline.importers.sums import sum_by_name

IMPORTERS = Path(copies.__file__).parent


def _literals(path: Path) -> set[str]:
    """String constants of a module's code (docstrings left out)."""
    tree = ast.parse(path.read_text())
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs}


def _modules_with(predicate) -> list[str]:
    return sorted(str(p.relative_to(IMPORTERS)) for p in IMPORTERS.rglob("*.py")
                  if any(predicate(s) for s in _literals(p)))


# ------------------------------------------------------------------ copies

@pytest.mark.parametrize("spelling, direction", [
    ("HtoD", "HtoD"), ("h2d", "HtoD"), ("Host-to-Device", "HtoD"), ("D2H", "DtoH"), ("device-to-device", "DtoD"),
    ("D2D", "DtoD"), ("P2P", "PtoP"), ("Peer-to-Peer", "PtoP"), ("HtoH", "HtoH"), ("sideways", "unknown")])
def test_every_spelling_of_a_direction_is_one_direction(spelling, direction):
    assert copies.direction_named(spelling) == direction


@pytest.mark.parametrize("name, direction", [
    ("[CUDA memcpy HtoD]", "HtoD"), ("[CUDA memcpy Device-to-Host]", "DtoH"),
    ("[CUDA Unified Memory memcpy DtoH]", "DtoH"), ("Memcpy DtoD (Device -> Device)", "DtoD"),
    ("Memcpy PtoP (Device -> Device)", "PtoP"), ("Memcpy HtoD (Pageable -> Device)", "HtoD"),
    ("[CUDA memcpy]", None), ("gemm_HtoDx_kernel", None)])
def test_the_direction_a_copy_name_names(name, direction):
    assert copies.direction_in(name) == direction


def test_bytes_go_on_the_level_they_cross():
    assert copies.copy_bytes("HtoD", 100.0) == {"PCIe": 100.0}
    assert copies.copy_bytes("PtoD", 100.0) == {"PCIe": 100.0}
    assert copies.copy_bytes("DtoD", 100.0) == {"DRAM": 200.0}     # read and written
    assert copies.copy_bytes("AtoD", 100.0) == {"DRAM": 200.0}
    assert copies.copy_bytes("HtoH", 100.0) == {}                  # no device level
    assert copies.copy_bytes("unknown", 100.0) == {}
    assert copies.copy_bytes(None, 100.0) == {}
    assert copies.copy_bytes("HtoD", math.nan) == {}               # size unknown: no bytes guessed
    assert copies.set_bytes(64.0) == {"DRAM": 64.0}
    assert copies.set_bytes(math.nan) == {}


def test_every_tools_copy_enum_names_a_direction_with_a_rule():
    for kinds in (copies.CUPTI_KINDS, copies.ROCPROFILER_KINDS):
        assert {d for d in kinds.values() if d != "unknown"} <= set(copies.LEVELS)
    assert copies.copy_name(copies.cupti_direction(8)) == "[CUDA memcpy DtoD]"
    assert copies.copy_name(copies.cupti_direction(99)) == "[CUDA memcpy unknown]"
    assert copies.copy_name(copies.ROCPROFILER_KINDS[2], "HIP") == "[HIP memcpy HtoD]"


def test_only_the_copies_module_says_where_copy_bytes_go():
    assert _modules_with(lambda s: s == "PCIe") == ["copies.py"]


# ------------------------------------------------------------------ recipes

def _k(name="k", time_s=1.0, flops=None, nbytes=None, family=""):
    return Kernel(name=name, time_s=time_s, flops=flops or {}, bytes=nbytes or {}, family=family)


def test_each_tool_is_told_its_own_counters_and_command():
    bare = [_k()]
    for tool, recipe in recipes.RECIPES.items():
        advice = recipes.missing_counter_advice(bare, tool=tool, subject="f")
        flops, nbytes = advice[0], advice[1]
        assert flops.message.startswith(recipes.MISSING) and nbytes.message.startswith(recipes.MISSING)
        assert recipe.joiner.join(recipe.flop_counters) in flops.advice
        assert recipe.joiner.join(recipe.byte_counters) in nbytes.advice
        assert len(advice) == 2     # every kernel has a time


def test_a_recipe_is_asked_only_for_what_is_missing():
    measured = [_k(flops={"fp32": 1.0}, nbytes={"DRAM": 1.0})]
    assert recipes.missing_counter_advice(measured, tool="ncu", subject="f") == []
    tensor_only = [_k(flops={"tensor_fp16": 1.0}, nbytes={"DRAM": 1.0})]
    (advice,) = recipes.missing_counter_advice(tensor_only, tool="ncu", subject="f")
    assert "bytes but no floating-point work (except tensor-core work in 1 kernel)" in advice.message
    (advice,) = recipes.missing_counter_advice(tensor_only, tool="rocprofv3", subject="f")
    assert "kernels have no floating-point work" in advice.message


def test_no_duration_is_advised_where_the_tool_can_give_one():
    untimed = [_k(time_s=math.nan, flops={"fp32": 1.0}, nbytes={"DRAM": 1.0})]
    (ncu,) = recipes.missing_counter_advice(untimed, tool="ncu", subject="f")
    assert "gpu__time_duration.sum" in ncu.advice
    (nvprof,) = recipes.missing_counter_advice(untimed, tool="nvprof", subject="f")
    assert "merge_results" in nvprof.advice
    assert recipes.missing_counter_advice(untimed, tool="rocprofv3", subject="f") == []


def test_copies_need_no_counters():
    only_copies = [_k("[CUDA memcpy HtoD]", family="memcpy"), _k("[CUDA memset]", family="memset")]
    for tool in recipes.RECIPES:
        assert recipes.missing_counter_advice(only_copies, tool=tool, subject="f") == []
    # a copy's bytes are no kernel's memory traffic
    mixed = only_copies[:1] + [_k(flops={"fp32": 1.0})]
    mixed[0] = _k("[CUDA memcpy HtoD]", nbytes={"PCIe": 8.0}, family="memcpy")
    (advice,) = recipes.missing_counter_advice(mixed, tool="ncu", subject="f")
    assert "no memory traffic" in advice.message


def test_amd_gpus_get_their_generations_counters():
    bare = [_k()]
    mi200 = recipes.missing_counter_advice(bare, tool="rocprofv3", subject="f", gfx="gfx90a")
    mi300 = recipes.missing_counter_advice(bare, tool="rocprofv3", subject="f", gfx="gfx942")
    assert mi200[1].advice != mi300[1].advice
    (old, _) = recipes.missing_counter_advice(bare, tool="rocprof", subject="f", gfx="gfx906")
    assert "gfx906 has no per-precision VALU counters" in old.advice


def test_only_the_recipes_module_writes_advice_on_missing_counters():
    assert _modules_with(lambda s: "collect them with" in s) == ["recipes.py"]


# ------------------------------------------------------------------ sums

def _oracle(kernels: list[Kernel]) -> list[tuple]:
    """Per name, in order of first appearance: (name, calls, time, flops, bytes, time source),
    a total only where every launch has it."""
    names = list(dict.fromkeys(k.name for k in kernels))
    out = []
    for name in names:
        ks = [k for k in kernels if k.name == name]

        def every(attr):
            keys = set.intersection(*(set(getattr(k, attr)) for k in ks))
            return {key: sum(getattr(k, attr)[key] for k in ks) for key in keys}
        sources = {k.launch.get("time_source", "") for k in ks}
        out.append((name, sum(k.count for k in ks), sum(k.time_s for k in ks), every("flops"), every("bytes"),
                    sources.pop() if len(sources) == 1 else ""))
    return out


def test_sum_by_name_keeps_a_total_only_where_every_launch_has_it():
    rng = np.random.default_rng(7)
    kernels = []
    for i in range(200):
        name = f"k{int(rng.integers(0, 12))}"
        flops = {"fp32": float(rng.integers(1, 1000))} if rng.random() < 0.9 else {}
        nbytes = {"DRAM": float(rng.integers(1, 1000))} if rng.random() < 0.95 else {}
        if rng.random() < 0.3:
            nbytes["L2"] = float(rng.integers(1, 1000))
        time_s = float(rng.integers(1, 100)) * 1e-6 if rng.random() < 0.97 else math.nan
        launch = {"time_source": "gpu__time_duration.sum" if rng.random() < 0.9 else "sm__cycles"}
        kernels.append(Kernel(name=name, time_s=time_s, count=int(rng.integers(1, 3)), flops=flops,
                              bytes=nbytes, launch=launch, variant=f"v{i}"))
    got = sum_by_name(KernelSet.from_kernels(kernels)).kernels()
    want = _oracle(kernels)
    assert [k.name for k in got] == [w[0] for w in want]
    for k, (name, calls, time_s, flops, nbytes, source) in zip(got, want):
        assert k.count == calls
        assert (math.isnan(k.time_s) and math.isnan(time_s)) or k.time_s == pytest.approx(time_s, rel=1e-12)
        assert k.flops == pytest.approx(flops, rel=1e-12) and k.bytes == pytest.approx(nbytes, rel=1e-12)
        assert k.launch.get("time_source", "") == source
        assert k.variant == next(x.variant for x in kernels if x.name == name)    # its first launch's


def test_sum_by_name_of_nothing_is_nothing():
    assert len(sum_by_name(KernelSet.from_kernels([]))) == 0


def test_an_nsys_gpu_trace_sums_each_copy_kind_once_whatever_its_rows_are_called():
    from roofline.importers.nvidia import nsys
    head = "Start (ns),Duration (ns),Bytes (MB),Strm,Name\n"
    rows = ["1000,500,4.000,7,[CUDA memcpy Host-to-Device]", "2000,100,1.000,7,[CUDA memcpy DtoD]",
            "3000,250,2.000,7,[CUDA memcpy HtoD]", "4000,100,1.000,7,[CUDA memcpy DtoD]",
            "5000,50,,7,[CUDA memcpy DtoH]", "6000,50,0.500,7,[CUDA memcpy Device-to-Host]",
            "7000,1000,,7,gemm_kernel"]
    got = {k.name: k for k in nsys.parse_csv(head + "\n".join(rows) + "\n").kernels}
    assert list(got) == ["[CUDA memcpy HtoD]", "[CUDA memcpy DtoD]", "[CUDA memcpy DtoH]", "gemm_kernel"]
    htod, dtod, dtoh = got["[CUDA memcpy HtoD]"], got["[CUDA memcpy DtoD]"], got["[CUDA memcpy DtoH]"]
    assert (htod.count, htod.time_s, dict(htod.bytes)) == (2, pytest.approx(750e-9), {"PCIe": 6e6})
    assert (dtod.count, dict(dtod.bytes)) == (2, {"DRAM": 4e6})          # read and written
    assert (dtoh.count, dict(dtoh.bytes)) == (2, {})                      # one copy has no size
    assert dict(got["gemm_kernel"].bytes) == {} and got["gemm_kernel"].family != "memcpy"
