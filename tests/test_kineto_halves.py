"""A Kineto trace read by two processes (.halves) gives what one pass gives."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from conftest import REALDATA

from roofline.core.errors import InputError
from roofline.importers import kineto
from roofline.importers.kineto import halves
from roofline.importers.options import ReadOptions

pytestmark = pytest.mark.skipif(not halves.can_fork(), reason="no fork on this platform")

ROOT = Path(__file__).resolve().parents[1]
TRACES = sorted((REALDATA / "kineto_trace").glob("*.json*")) + [ROOT / "examples" / "pytorch_cpu_trace.json.gz"]
ONE = ReadOptions(stream=True, workers=1)
TWO = ReadOptions(stream=True, workers=2)


def everything(result) -> tuple:
    """All a result says, as text (NaN times compare equal as text)."""
    return ([repr(k) for k in result.kernels], repr(result.device), repr(result.program),
            [str(w) for w in result.warnings], result.rank, repr(result.phases), repr(result.communication))


def plain(path: Path, tmp_path: Path) -> Path:
    """The trace as a plain JSON file (a gzip file is not cut in two)."""
    out = tmp_path / path.name.removesuffix(".gz")
    out.write_bytes(gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes())
    return out


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name[:40])
def test_every_real_trace_reads_the_same_in_two_processes(path, tmp_path):
    if not path.exists():
        pytest.skip(f"{path} is not present")
    text = plain(path, tmp_path)
    assert halves.read_in_halves(text, None, None) is not None       # the halves were read, not one pass
    assert everything(kineto.read(text, TWO)) == everything(kineto.read(text, ONE))


def _events(n: int, name=lambda i: "aten::add") -> list:
    """Operators, launches, kernels (two grids for one name, across the
    file), copies with and without bytes, and their runtime calls."""
    out = []
    for i in range(n):
        t = 1_000.0 + 50.0 * i
        out.append({"ph": "X", "cat": "cpu_op", "name": name(i), "pid": 1, "tid": 1, "ts": t, "dur": 20.0,
                    "args": {"External id": i, "Input Dims": [[64, 64], [64, 64], []],
                             "Input type": ["float", "float", "Scalar"], "Concrete Inputs": ["", "", "1"]}})
        out.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                    "ts": t + 2.0, "dur": 3.3 + i % 7 * 0.1, "args": {"External id": i, "correlation": 10 * i}})
        grid = [1 + (i * 3 > 2 * n), 1, 1]           # changes two thirds of the way through
        out.append({"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": t + 6.0,
                    "dur": 1.1 + i % 5 * 0.37, "args": {"External id": i, "correlation": 10 * i, "device": 0,
                                                        "grid": grid, "block": [128, 1, 1],
                                                        "registers per thread": 32, "shared memory": 0}})
        out.append({"ph": "f", "id": 10 * i, "pid": 0, "tid": 7, "ts": t + 6.0, "cat": "ac2g", "name": "ac2g"})
        if i % 9 == 0:
            copy = {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
                    "tid": 7, "ts": t + 12.0, "dur": 0.7 + i % 4 * 0.13, "args": {"correlation": 10 * i + 1}}
            if i % 2:
                copy["args"]["bytes"] = 4096 + i
            out.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1,
                        "ts": t + 10.0, "dur": 1.7, "args": {"correlation": 10 * i + 1, "bytes": 8192}})
            out.append(copy)
    return out


def _write(path: Path, events: list) -> Path:
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}],
           "traceEvents": events, "distributedInfo": {"rank": 2}}
    path.write_text(json.dumps(doc, separators=(", ", ": ")))
    return path


def test_sums_copies_and_launch_configurations_merge_as_one_pass_gives(tmp_path):
    path = _write(tmp_path / "t.json", _events(2000))
    assert halves.read_in_halves(path, None, None) is not None
    one, two = kineto.read(path, ONE), kineto.read(path, TWO)
    assert everything(two) == everything(one)
    assert two.rank == 2 and two.device.name == "NVIDIA A100-SXM4-80GB"    # the metadata after the array
    # the API sums are the same floats, summed in file order
    assert two.program.api_s == one.program.api_s


def test_a_cut_inside_a_string_reads_in_one_pass(tmp_path):
    # the middle of the file is inside an operator's name, which looks like boundaries between events
    events = _events(40)
    events[len(events) // 2]["name"] = "x}, {" * 50_000
    path = _write(tmp_path / "t.json", events)
    assert halves.read_in_halves(path, None, None) is None
    assert everything(kineto.read(path, TWO)) == everything(kineto.read(path, ONE))


def test_a_damaged_event_in_the_second_half_is_the_same_error(tmp_path):
    events = _events(2000)
    events[int(len(events) * 0.8)]["dur"] = -1.0
    path = _write(tmp_path / "t.json", events)
    with pytest.raises(InputError) as one:
        kineto.read(path, ONE)
    with pytest.raises(InputError) as two:
        kineto.read(path, TWO)
    assert str(two.value) == str(one.value) and "bad time" in str(one.value)


def test_a_launch_without_args_first_in_the_second_half_reads_in_one_pass(tmp_path):
    events = _events(2000)
    for e in events[len(events) // 2 - 400:len(events) // 2 + 400]:
        if e["cat"] == "kernel":  # the first kernel of the second half among them: what it kept says nothing
            del e["args"]
    path = _write(tmp_path / "t.json", events)
    assert halves.read_in_halves(path, None, None) is None
    assert everything(kineto.read(path, TWO)) == everything(kineto.read(path, ONE))


def test_gzip_and_small_files_are_read_in_one_pass(tmp_path, monkeypatch):
    path = _write(tmp_path / "t.json", _events(50))
    assert not kineto._two_processes(ReadOptions(), path.stat().st_size, False)
    assert not kineto._two_processes(TWO, 10 ** 12, True)
    assert not kineto._two_processes(ReadOptions(workers=1), 10 ** 12, False)
    called = []
    monkeypatch.setattr(kineto, "read_in_halves", lambda *a: called.append(a))
    kineto.read(path)
    assert not called


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_is_told_up_to_the_file_size(tmp_path, monkeypatch, workers):
    monkeypatch.setattr(halves, "PROGRESS_STEP", 4096)
    path = _write(tmp_path / "t.json", _events(1000))
    told = []
    kineto.read(path, ReadOptions(stream=True, workers=workers, progress=lambda done, total: told.append((done, total))))
    size = path.stat().st_size
    assert len(told) > 5 and told[-1] == (size, size)
    assert all(t == size for _, t in told) and [d for d, _ in told] == sorted(d for d, _ in told)


@pytest.mark.parametrize("in_file", [True, False], ids=["in a shared file", "down the pipe"])
def test_the_workers_columns_arrive_whole_either_way(in_file, tmp_path, monkeypatch):
    """The worker's columns cross in an in-memory file where the platform
    makes one (Linux's memfd), else down the pipe: the same result."""
    if in_file and halves._handoff_file() is None:
        pytest.skip("no anonymous in-memory file on this platform")
    if not in_file:
        monkeypatch.setattr(halves, "_handoff_file", lambda: None)
    sent = []
    real = halves._unpickled
    monkeypatch.setattr(halves, "_unpickled", lambda message, shared: sent.append(len(message)) or real(message, shared))
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": _events(3000)}))
    assert everything(kineto.read(path, TWO)) == everything(kineto.read(path, ONE))
    assert len(sent) == 1 and (sent[0] < 100) == in_file          # a size down the pipe, or the pickle itself
