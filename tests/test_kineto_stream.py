"""Kineto traces read a chunk at a time give what the whole-file reader gives."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from conftest import REALDATA

from roofline.core.errors import InputError
from roofline.importers import kineto
from roofline.importers.kineto.stream import StreamedTrace, file_bytes
from roofline.importers.options import ReadOptions

ROOT = Path(__file__).resolve().parents[1]
TRACES = [ROOT / "examples" / "pytorch_cpu_trace.json.gz",
          REALDATA / "kineto_trace" / "facebookresearch__HolisticTraceAnalysis__negative_queue_rank0.json.gz",
          REALDATA / "kineto_trace" / "facebookresearch__HolisticTraceAnalysis__mi250_minitoy_train_ROCm6_2_kineto.json.gz"]


# chunks of 4 KiB read in pieces of 1,000 bytes (ReadOptions.chunk_bytes)
TINY = ReadOptions(stream=True, chunk_bytes=4096)


def summary(result):
    return (sorted((k.name, k.operator, k.count, round(k.time_s, 12), tuple(sorted(k.flops.items())),
                    tuple(sorted(k.bytes.items()))) for k in result.kernels),
            result.device.name, result.rank, sorted(str(w) for w in result.warnings))


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name[:40])
def test_streamed_equals_whole(path):
    if not path.exists():
        pytest.skip(f"{path} is not present")
    whole = kineto._checked(kineto.decode.load(path), path)
    streamed = kineto.read(path, TINY)
    assert summary(streamed) == summary(whole)


def test_boundaries_inside_arguments_and_multi_member_gzip(tmp_path):
    events = []
    for i in range(400):
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": i * 10,
                       "dur": 5, "args": {"Input Dims": [[4, 4], [4, 4], []],
                                          "Input type": ["float", "float", "Scalar"],
                                          "Concrete Inputs": ["", "", "1"],
                                          "nested": [{"a": "},{"}, {"b": "}]"}]}})
    doc = {"schemaVersion": 1, "traceEvents": events, "distributedInfo": {"rank": 3}}
    text = json.dumps(doc).encode()
    path = tmp_path / "t.json.gz"
    half = len(text) // 2
    path.write_bytes(gzip.compress(text[:half]) + gzip.compress(text[half:]))   # two gzip members
    streamed = kineto._checked(StreamedTrace(file_bytes(path), path), path)
    whole = kineto._checked(kineto.decode.load(path), path)
    assert summary(streamed) == summary(whole) and streamed.rank == 3
    assert sum(k.count for k in streamed.kernels) == 400


def test_bare_lists_stream_and_what_is_no_trace_is_an_error_naming_the_line(tmp_path, monkeypatch):
    path = tmp_path / "bare.json"
    path.write_text(json.dumps([{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 1}]))
    assert len(list(StreamedTrace(file_bytes(path), path).traceEvents)) == 1
    odd = tmp_path / "odd.json"
    odd.write_text('{"meta": 1}')
    with pytest.raises(InputError, match="no traceEvents list"):
        list(StreamedTrace(file_bytes(odd), odd).traceEvents)
    assert kineto.read(path, ReadOptions(stream=True)).kernels      # streams even these
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 0, "dur": 1},\n{"ph": }]}')
    with pytest.raises(InputError, match=r"bad.json:2"):
        kineto.read(bad)


def test_gzip_bomb_is_refused_whole_and_streamed_in_bounded_memory(tmp_path, monkeypatch):
    from roofline.importers.kineto import decode as kineto_decode
    monkeypatch.setattr(kineto_decode, "MAX_INFLATED_BYTES", 1 << 20)
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b"{" + b" " * (8 << 20)))      # 8 MiB of blanks in 8 kB
    with pytest.raises(InputError, match="inflates to more than 1 MiB"):
        kineto_decode.load(bomb)
    with pytest.raises(InputError, match="no traceEvents list"):
        kineto.read(bomb)                   # read in chunks: never all of it at once


def test_a_header_longer_than_a_chunk_and_counters_in_one_chunk_only(tmp_path):
    """traceEvents may start after metadata bigger than a chunk; the range
    profiler's counters are read in the chunks that hold them (those are
    decoded with the counter fields, the others without)."""
    props = [{"id": i, "name": "NVIDIA A100-SXM4-80GB", "note": "x" * 200} for i in range(40)]
    events = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": i, "dur": 1,
               "args": {"device": 0, "correlation": i}} for i in range(300)]
    events.append({"ph": "X", "cat": "cuda_profiler_range", "name": "k", "pid": 0, "tid": 0, "ts": 0,
                   "dur": 1, "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1000}})
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"deviceProperties": props, "traceEvents": events}))
    assert len(json.dumps(props)) > TINY.chunk_bytes
    streamed = kineto._checked(StreamedTrace(file_bytes(path), path), path)
    whole = kineto._checked(kineto.decode.load(path), path)
    assert summary(streamed) == summary(whole)
    (k,) = streamed.kernels
    assert k.count == 300 and k.flops == {"fp32": 2000.0 * 300}
