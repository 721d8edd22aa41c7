"""The fake CuPy and NVML of test_gpu_runner.py against the real packages.

The simulated-GPU test proves the runner's arithmetic only if the fakes
look like CuPy and nvidia-ml-py: a misspelt attribute in both the runner and
its fake would pass there and fail on every real GPU. Without a GPU the
calls cannot run, but every name the fakes provide must exist in the real
packages (which import without a driver), with the same kind (callable or
constant) and, for constants, the same value; and every property key the
fake device reports must be one CuPy's runtime module can return.
"""
from __future__ import annotations

import importlib
import pathlib
import re
import sys
import types

import pytest

import test_gpu_runner as sim
from roofline.microbench.gpu import build, probe

cupy = importlib.import_module("cupy")
pynvml = importlib.import_module("pynvml")
REAL_NVRTC = build.CupyNvrtc


def _names(ns, prefix=""):
    """(dotted name, value) of every attribute of nested SimpleNamespaces."""
    for key, value in vars(ns).items():
        if key.startswith("__"):
            continue
        yield prefix + key, value
        if isinstance(value, types.SimpleNamespace):
            yield from _names(value, prefix + key + ".")


def _real(module, dotted):
    obj = module
    for part in dotted.split("."):
        if not hasattr(obj, part):
            return None, f"{module.__name__}.{dotted}: no {part!r}"
        obj = getattr(obj, part)
    return obj, None


def _mismatches(fake, module):
    out = []
    for dotted, value in _names(fake):
        real, missing = _real(module, dotted)
        if missing:
            out.append(missing)
        elif isinstance(value, types.SimpleNamespace):
            continue
        elif callable(value) != callable(real):
            out.append(f"{dotted}: callable in one, not in the other")
        elif isinstance(value, int) and value != real:
            out.append(f"{dotted}: fake {value}, real {real}")
    return out


@pytest.fixture
def fakes(monkeypatch):
    sim._install_fake_cupy(monkeypatch, sim.SimulatedGPU())
    return sys.modules["cupy"], sys.modules["pynvml"]


def test_the_checker_sees_a_wrong_name_and_a_wrong_constant():
    wrong = types.SimpleNamespace(cuda=types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCnt=lambda: 1)))
    assert _mismatches(wrong, cupy) == ["cupy.cuda.runtime.getDeviceCnt: no 'getDeviceCnt'"]
    assert _mismatches(types.SimpleNamespace(NVML_CLOCK_SM=0), pynvml) == [
        "NVML_CLOCK_SM: fake 0, real 1"]


def test_every_cupy_name_of_the_fake_exists(fakes):
    fake_cupy, _ = fakes
    assert _mismatches(fake_cupy, cupy) == []
    # the classes the fake defines, with the members the runner calls
    for cls, members in ((cupy.cuda.Event, ("record", "synchronize")),
                         (cupy.RawModule, ("get_function",)),
                         (cupy.RawKernel, ("kernel",)),
                         (cupy.cuda.Device, ("use", "compute_capability")),
                         (cupy.ndarray, ("data", "nbytes")),
                         (cupy.cuda.MemoryPointer, ("ptr",)),
                         (cupy.cuda.PinnedMemoryPointer, ("ptr",))):
        assert [m for m in members if not hasattr(cls, m)] == [], cls


def test_every_nvml_name_of_the_fake_exists(fakes):
    _, fake_nvml = fakes
    assert _mismatches(fake_nvml, pynvml) == []
    assert issubclass(pynvml.NVMLError, Exception)


def test_the_probes_device_attributes_exist():
    source = pathlib.Path(probe.__file__).read_text()
    wanted = sorted(set(re.findall(r'"(cudaDevAttr\w+)"', source)))
    assert len(wanted) >= 6
    assert [a for a in wanted if not hasattr(cupy.cuda.runtime, a)] == []


def test_the_fake_device_properties_are_keys_cupy_returns(fakes):
    """getDeviceProperties builds its dict in compiled code: the key
    strings are in the extension module's bytes."""
    fake_cupy, _ = fakes
    keys = fake_cupy.cuda.runtime.getDeviceProperties(0)
    binary = pathlib.Path(importlib.import_module("cupy_backends.cuda.api.runtime").__file__)
    data = binary.read_bytes()
    assert b"notAPropertyOfCuda" not in data
    assert [k for k in keys if k.encode() not in data] == []


def test_the_fake_nvrtc_has_the_real_wrappers_methods(fakes):
    fake = build.CupyNvrtc          # the fixture swapped it for FakeNvrtc
    assert fake is not REAL_NVRTC
    methods = [m for m in vars(fake) if not m.startswith("_")]
    assert sorted(methods) == ["compile", "supported_archs", "version"]
    assert [m for m in methods if not callable(getattr(REAL_NVRTC, m, None))] == []
