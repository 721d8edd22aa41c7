"""The device profile of a PyTorch (Kineto) trace that does not name its GPU:
the GPU its deviceProperties single out (PyTorch on ROCm writes "name": ""
for an MI300X), an SM count that tells apart the profiles a name fits
equally ("NVIDIA H100": 132 SMs is the SXM card), a refusal asking for
--device when nothing does, and never this machine's CPU profile for a
trace with GPU kernels; CPU traces keep my-cpu. Also the warnings for
device activity the rows leave out (MTIA events, GPUs listed in
deviceProperties with no GPU activity). Traces are built here; the CPU
profile is a stand-in copied into the test's ROOFLINE_HOME (conftest), so
nothing depends on this machine."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest
import yaml

from roofline.core.errors import UnknownDeviceError
from roofline.devices.choice import device_for
from roofline.devices.profile import builtin_profiles, user_profile_dir
from roofline.importers import read_profile
from roofline.importers.kineto import parse
from roofline.importers.kineto.events import GpuEvents

GIB = 2 ** 30
NAMES = set(builtin_profiles())
# deviceProperties of PyTorch on ROCm for an MI300X (TraceLens' vLLM decode trace): no name
MI300X = {"name": "", "totalGlobalMem": 206141652992, "computeMajor": 9, "computeMinor": 4,
          "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
          "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 304}
# Kineto's own test trace: an H100 of 132 SMs (and 96 GB) that calls itself "NVIDIA H100"
H100 = {"name": "NVIDIA H100", "totalGlobalMem": 102085492736, "computeMajor": 9, "computeMinor": 0,
        "warpSize": 32, "numSms": 132}
A100 = {"name": "NVIDIA A100-SXM4-40GB", "totalGlobalMem": 42505273344, "computeMajor": 8, "computeMinor": 0,
        "warpSize": 32, "numSms": 108}


def op(name="aten::mm", ts=0, dur=10, **args):
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
            "args": {"External id": 1, **args}}


def gpu_events(cats=("cuda_runtime", "kernel")):
    """A launch and its kernel (cats: the 2021 format's "Runtime", "Kernel")."""
    api, kernel = cats
    return [op(),
            {"ph": "X", "cat": api, "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 2,
             "args": {"External id": 1, "correlation": 7}},
            {"ph": "X", "cat": kernel, "name": "Cijk_gemm", "pid": 0, "tid": 7, "ts": 5, "dur": 20,
             "args": {"device": 0, "stream": 7, "correlation": 7, "External id": 1}}]


def trace(events, devices=None, path="trace.json"):
    data = {"traceEvents": events}
    if devices is not None:
        data["deviceProperties"] = devices
    return parse(data, path)


def gpus(entry, n=8):
    return [{"id": i, **entry} for i in range(n)]


@pytest.fixture
def my_cpu():
    """A saved my-cpu (any profile will do: only its name is looked for)."""
    data = yaml.safe_load(builtin_profiles()["t4"].read_text())
    data["name"], data["kind"] = "my-cpu", "cpu"
    folder = user_profile_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "my-cpu.yaml").write_text(yaml.safe_dump(data, sort_keys=False))


# ------------------------------------------------------------- GPU traces that name no GPU

def test_a_nameless_mi300x_gets_mi300x_from_its_device_properties(my_cpu):
    assert {"mi300x", "mi300a", "mi325x"} <= NAMES
    r = trace(gpu_events(), gpus(MI300X))
    assert r.device.kind == "gpu" and r.device.name is None
    assert r.device.properties == {"sms": 304, "warp_size": 64, "capability": "9.4",
                                   "memory_bytes": 206141652992}
    choice = device_for([r])
    assert choice.profile == "mi300x" and choice.device.kind == "gpu"
    assert choice.reason.startswith("the trace names no GPU; its deviceProperties give compute capability 9.4, "
                                    "304 compute units, warp size 64, 192.0 GiB: mi300x is the only profile")
    assert "mi325x has 256.0 GiB" in choice.reason and "mi300a has 228 compute units" in choice.reason
    assert device_for([r], requested="mi300x").warnings == ()


@pytest.mark.parametrize("sms, memory, stem", [(228, 128 * GIB, "mi300a"), (304, 255 * GIB, "mi325x")])
def test_the_cu_count_and_memory_pick_among_the_gfx942_profiles(sms, memory, stem):
    r = trace(gpu_events(), gpus({**MI300X, "numSms": sms, "totalGlobalMem": memory}))
    assert device_for([r]).profile == stem


def test_nameless_properties_no_profile_has_are_refused_in_one_line(my_cpu):
    r = trace(gpu_events(), gpus({**MI300X, "numSms": 80}))      # an MI308X: gfx942 with 80 CUs
    with pytest.raises(UnknownDeviceError) as info:
        device_for([r])
    text = str(info.value)
    assert "\n" not in text and "my-cpu" in text                   # the device values are listed
    assert text.startswith("trace.json: the trace names no GPU; its deviceProperties give compute capability "
                           "9.4, 80 compute units, warp size 64, 192.0 GiB, which no profile has (")
    assert "mi300x has 304 compute units" in text and "pass --device" in text


def test_nameless_properties_of_profiles_that_compute_differently_are_refused():
    same = sorted(s for s in NAMES if s in ("mi350x", "mi355x"))
    if len(same) < 2:
        pytest.skip("needs the mi350x and mi355x profiles")
    r = trace(gpu_events(), gpus({**MI300X, "computeMinor": 5, "numSms": 256, "totalGlobalMem": 288 * GIB}))
    with pytest.raises(UnknownDeviceError, match=r"which fit 2 profiles that compute differently "
                                                 r"\(mi350x, mi355x\): pass --device"):
        device_for([r])


def test_nameless_nvidia_properties_use_sms_and_memory():
    r = trace(gpu_events(), gpus({**A100, "name": ""}, 1))
    choice = device_for([r])
    assert choice.profile == "a100-40gb-sxm" and "compute capability 8.0, 108 SMs" in choice.reason
    r = trace(gpu_events(), gpus({**A100, "name": "", "totalGlobalMem": 85 * 10 ** 9}, 1))
    assert device_for([r]).profile == "a100-80gb-sxm"


@pytest.mark.parametrize("cats", [("cuda_runtime", "kernel"), ("Runtime", "Kernel")], ids=["now", "2021"])
@pytest.mark.parametrize("devices", [None, []], ids=["absent", "empty"])
def test_kernels_without_device_properties_ask_for_device_not_my_cpu(my_cpu, cats, devices):
    r = trace(gpu_events(cats), devices)
    assert r.device.kind == "gpu" and r.device.name is None and r.device.properties is None
    with pytest.raises(UnknownDeviceError) as info:
        device_for([r])
    text = str(info.value)
    assert text.startswith("trace.json: the file does not name its GPU (it holds GPU kernels, and no "
                           "deviceProperties to tell the GPU by); pass --device (built-in: ")
    assert "\n" not in text
    assert device_for([r], requested="h100-sxm").profile == "h100-sxm"


# ------------------------------------------------------------- a name that fits several profiles

def test_nvidia_h100_with_132_sms_is_the_sxm_card():
    assert {"h100-sxm", "h100-pcie"} <= NAMES
    r = trace(gpu_events(), [H100])
    assert r.device.name == "NVIDIA H100"
    choice = device_for([r])
    assert choice.profile == "h100-sxm"
    assert ("the file names NVIDIA H100, which fits h100-pcie, h100-sxm equally; its deviceProperties give "
            "compute capability 9.0, 132 SMs, warp size 32, 95.1 GiB: those of h100-sxm (h100-pcie has 114 SMs)"
            in choice.reason)
    assert "95.1 GiB of memory is not the 80.0 GiB" in choice.reason         # a 96 GB board: said
    assert device_for([r], requested="h100-sxm").warnings == ()
    (warning,) = device_for([r], requested="h100-pcie").warnings
    assert "names the GPU 'NVIDIA H100' but --device gives 'NVIDIA H100 PCIe'" in warning


def test_nvidia_h100_with_114_sms_is_the_pcie_card_and_without_sms_stays_an_error():
    r = trace(gpu_events(), [{**H100, "numSms": 114, "totalGlobalMem": 80 * 10 ** 9}])
    choice = device_for([r])
    assert choice.profile == "h100-pcie" and "GiB of memory is not" not in choice.reason
    bare = {k: v for k, v in H100.items() if k != "numSms"}
    with pytest.raises(UnknownDeviceError, match="matches 2 profiles equally well: h100-pcie, h100-sxm"):
        device_for([trace(gpu_events(), [bare])])
    with pytest.raises(UnknownDeviceError, match="matches 2 profiles equally well"):
        device_for([trace(gpu_events(), [{**H100, "numSms": 100}])])


# ------------------------------------------------------------- CPU traces

def test_cpu_traces_still_choose_the_cpu_profile(my_cpu):
    for devices in (None, []):
        r = trace([op(), op("aten::add", ts=20)], devices)
        assert r.device.kind == "cpu" and r.device.properties is None
        choice = device_for([r])
        assert choice.profile == "my-cpu" and "without a GPU" in choice.reason
        assert not [w for w in r.warnings if w.subject == "devices"]


def test_a_cpu_trace_listing_gpus_warns_that_its_times_are_host_times(my_cpu):
    r = trace([op(), op("aten::add", ts=20)], gpus(A100, 8))
    assert r.device.kind == "cpu"
    (warning,) = [w for w in r.warnings if w.subject == "devices"]
    assert ("the trace lists 8 GPUs (NVIDIA A100-SXM4-40GB) in deviceProperties but holds no GPU activity: "
            "if the model ran on a GPU, the operator times are host launch times, not work") in warning.message
    assert "ProfilerActivity.CUDA" in warning.advice
    assert device_for([r]).profile == "my-cpu"


# ------------------------------------------------------------- devices roofline does not read

def mtia_events():
    out = [{"ph": "M", "name": "process_name", "pid": 9, "args": {"name": "MTIA 9"}}, op()]
    out += [{"ph": "X", "cat": "mtia_ccp_events", "name": f"ccp_{i}", "pid": 9, "tid": 1, "ts": 20 + i,
             "dur": 1} for i in range(3)]
    out += [{"ph": "X", "cat": "mtia_runtime", "name": "mtiaLaunch", "pid": 1, "tid": 1, "ts": 15, "dur": 1}]
    out += [{"ph": "f", "cat": "ac2g", "name": "flow", "id": 1, "pid": 9, "tid": 1, "ts": 20}]
    return out


def _unread_device_warning(r):
    (warning,) = [w for w in r.warnings if w.subject == "devices"]
    assert warning.message.startswith("the trace holds 4 events of a device roofline does not read "
                                      "(mtia_ccp_events 3, mtia_runtime 1): the rows are its host operators")
    return warning


def test_mtia_events_are_counted_and_named_in_a_warning(my_cpu):
    r = trace(mtia_events(), [])
    assert r.device.kind == "cpu"
    _unread_device_warning(r)
    assert device_for([r]).profile == "my-cpu"
    quiet = trace([op()] + [e for e in mtia_events() if e.get("cat") == "ac2g"])
    assert not [w for w in quiet.warnings if w.subject == "devices"]      # flow events are no device's


def test_mtia_events_warn_in_a_streamed_trace_too(tmp_path):
    if not hasattr(GpuEvents(), "other_categories"):
        pytest.skip("the event reader does not count the categories it drops (GpuEvents.other_categories)")
    path = tmp_path / "mtia.json.gz"                     # gzip: read in chunks, the events not kept
    with gzip.open(path, "wt") as fh:
        json.dump({"deviceProperties": [], "traceEvents": mtia_events()}, fh)
    _unread_device_warning(read_profile(path))


# ------------------------------------------------------------- the command line

def test_classify_names_the_evidence_and_the_rank_directory_agrees(tmp_path, my_cpu):
    home = os.environ["ROOFLINE_HOME"]
    ranks = tmp_path / "ranks"
    ranks.mkdir()
    for rank in (0, 1):
        data = {"traceEvents": gpu_events(), "deviceProperties": gpus(MI300X), "distributedInfo": {"rank": rank}}
        (ranks / f"rank{rank}.json").write_text(json.dumps(data))
    env = {**os.environ, "ROOFLINE_HOME": home}
    for target in (ranks / "rank0.json", ranks):
        out = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(target), "--format",
                              "csv"], capture_output=True, text=True, timeout=300, env=env)
        assert out.returncode == 0, out.stderr
        assert ("roofline classify: using device profile mi300x (the trace names no GPU; its deviceProperties "
                "give compute capability 9.4, 304 compute units") in out.stderr, (target, out.stderr)


def test_device_against_the_trace_figures_warns():
    r = trace(gpu_events(), gpus(MI300X))
    (warning,) = device_for([r], requested="mi300a").warnings
    assert ("its deviceProperties give compute capability 9.4, 304 compute units, warp size 64, 192.0 GiB but "
            "--device gives 'AMD Instinct MI300A' (228 compute units)") in warning
    (warning,) = device_for([r], requested="h100-sxm").warnings
    assert "(compute capability 9.0, 132 SMs, warp size 32)" in warning


def test_a_cpu_profile_given_for_a_gpu_trace_warns(my_cpu):
    r = trace(gpu_events(), None)
    (warning,) = device_for([r], requested="my-cpu").warnings
    assert "holds GPU kernels but --device gives the CPU profile my-cpu" in warning
