"""The TensorFlow/JAX readers are bounded (issue 30): columns, not an object
per event; an event metadata's stats decoded once; names, stats and planes
capped before they are allocated; deep JSON, huge stream numbers and files
that are no regular file refused in one line naming the file and the field.

Every input is written here, on the wire or as JSON text; nothing is timed.
"""
from __future__ import annotations

import gzip
import json
import os
import tracemalloc

import pytest

from roofline.core.errors import InputError
from roofline.importers.xplane import reader as xplane, xplane_json, xplane_wire
from roofline.importers.xplane.xplane_wire import field_bytes as _f, varint_bytes as _varint


# ---------------------------------------------------------------- the wire format, by hand



def _stat(meta: int, value, ref: bool = False) -> bytes:
    kind = 7 if ref else 5 if isinstance(value, str) else 2 if isinstance(value, float) else 4
    return _f(1, meta) + _f(kind, value)


STATS = {"correlation_id": 1, "kernel_details": 2, "tf_op": 3, "unused": 4, "core_count": 5,
         "regs:32 shm:0 grid:80,1,1 block:256,1,1": 6, "compute_cap_major": 7, "compute_cap_minor": 8}


def space(events: int, names: int = 3, line: str = "Stream #7(Compute)", meta_stats: bytes = b"",
          event_stats=None, plane_name: str = "/device:GPU:0", name_of=None) -> bytes:
    """An XSpace with one GPU plane and one line of ``events`` kernels."""
    body = b"".join(_f(4, _f(1, i % names + 1) + _f(2, 1000 * i) + _f(3, 500)
                         + (event_stats(i) if event_stats else b"")) for i in range(events))
    plane = _f(2, plane_name) + _f(3, _f(1, 7) + _f(2, line) + _f(3, 10) + body)
    for key, value in (("core_count", 80), ("compute_cap_major", 7), ("compute_cap_minor", 0)):
        plane += _f(6, _stat(STATS[key], value))
    for i in range(names):
        name = name_of(i) if name_of else f"volta_sgemm_{i}"
        plane += _f(4, _f(1, i + 1) + _f(2, _f(1, i + 1) + _f(2, name) + meta_stats))
    for name, sid in STATS.items():
        plane += _f(5, _f(1, sid) + _f(2, _f(1, sid) + _f(2, name)))
    return _f(1, plane)


def usual_stats(i: int) -> bytes:
    return _f(4, _stat(1, i)) + _f(4, _stat(2, 6, ref=True))


def _one_line(path, match: str, read=xplane.read):
    with pytest.raises(InputError, match=match) as info:
        read(path)
    text = str(info.value)
    assert "\n" not in text and str(path) in text
    return text


# ---------------------------------------------------------------- columns, not objects

def _allocated_blocks(path, read) -> int:
    """Memory blocks still allocated by what ``read`` returns (its result kept)."""
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        result = read(path)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    assert len(result.kernels) > 0
    diff = after.compare_to(before, "filename")
    return sum(max(d.count_diff, 0) for d in diff)


def test_xplane_keeps_columns_not_objects_per_event(tmp_path):
    small, large = tmp_path / "s.xplane.pb", tmp_path / "l.xplane.pb"
    small.write_bytes(space(20_000, event_stats=usual_stats))
    large.write_bytes(space(200_000, event_stats=usual_stats))
    xplane.read(small)                               # imports and caches before counting
    n_small, n_large = _allocated_blocks(small, xplane.read), _allocated_blocks(large, xplane.read)
    # 10x the events: an object per event would be 10x the blocks; columns are a few
    # object arrays of pointers to the same few names (numpy's arrays are one block each)
    assert n_large < 2 * n_small + 2000, (n_small, n_large)


def _trace_json(path, events: int, thread: str = "Stream #7(Compute)", extra: str = ""):
    parts = ['{"displayTimeUnit":"ns","traceEvents":[',
             '{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},',
             f'{{"ph":"M","pid":1,"tid":7,"name":"thread_name","args":{{"name":{json.dumps(thread)}}}}}']
    parts += [f',{{"pid":1,"tid":7,"ts":{i}.5,"dur":0.25,"ph":"X","name":"k{i % 3}",'
              f'"args":{{"correlation_id":"{i}","kernel_details":"grid:80,1,1 block:256,1,1"}}}}'
              for i in range(events)]
    parts.append(extra + "]}")
    path.write_bytes(gzip.compress("".join(parts).encode()))
    return path


def test_trace_json_keeps_columns_not_objects_per_event(tmp_path):
    small = _trace_json(tmp_path / "s.trace.json.gz", 20_000)
    large = _trace_json(tmp_path / "l.trace.json.gz", 200_000)
    xplane_json.read_trace_json(small)
    n_small = _allocated_blocks(small, xplane_json.read_trace_json)
    n_large = _allocated_blocks(large, xplane_json.read_trace_json)
    assert n_large < 2 * n_small + 2000, (n_small, n_large)


def test_columns_read_the_same_as_kernels(tmp_path):
    path = tmp_path / "a.xplane.pb"
    path.write_bytes(space(7, event_stats=usual_stats))
    ks = xplane.read(path).kernels
    # one row per kernel name (and device and op), in order of first launch, with its calls
    assert [k.name for k in ks] == [f"volta_sgemm_{i}" for i in range(3)] and [k.count for k in ks] == [3, 2, 2]
    assert all(k.launch["grid"] == (80, 1, 1) and k.launch["stream"] == 7 and "id" not in k.launch for k in ks)
    assert list(ks.blocks) == [80.0] * 3
    assert [k.time_s for k in ks] == pytest.approx([1.5e-9, 1e-9, 1e-9])


# ---------------------------------------------------------------- stats of a metadata, once

def test_metadata_stats_are_decoded_once_not_per_event(tmp_path, monkeypatch):
    many = b"".join(_f(5, _stat(4 if j % 2 else 3, j if j % 2 else f"op{j}:MatMul")) for j in range(20_000))
    path = tmp_path / "m.xplane.pb"
    path.write_bytes(space(2_000, names=1, meta_stats=many))
    calls = []
    real = xplane_wire.stat
    monkeypatch.setattr(xplane, "stat", lambda *a: calls.append(1) or real(*a))
    (first,) = xplane.read(path).kernels
    assert first.operator == "op19998:MatMul" and first.count == 2_000      # the last tf_op stat wins
    assert len(calls) < 20_000 + 2_000 * 2 + 100        # once per metadata stat, not per event


# ---------------------------------------------------------------- caps, before allocation

def test_a_huge_name_is_refused_by_its_length(tmp_path):
    path = tmp_path / "n.xplane.pb"
    path.write_bytes(space(2, name_of=lambda i: "k" * (xplane_wire.MAX_NAME_BYTES + 1)))
    text = _one_line(path, "event metadata's name")
    assert f"{xplane_wire.MAX_NAME_BYTES + 1:,} bytes" in text


def test_a_declared_length_past_the_end_is_refused_before_slicing(tmp_path):
    # a name declaring 1.2 GB in a file of a few bytes: truncated, nothing allocated for it
    path = tmp_path / "t.xplane.pb"
    plane = _varint(2 << 3 | 2) + _varint(1_200_000_000) + b"/device:GPU:0"
    path.write_bytes(_varint(1 << 3 | 2) + _varint(len(plane)) + plane)
    _one_line(path, "truncated or damaged")


def test_too_many_stats_on_an_event_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(xplane, "MAX_STATS", 50)
    path = tmp_path / "s.xplane.pb"
    path.write_bytes(space(1, event_stats=lambda i: _f(4, _stat(4, 1)) * 51))
    _one_line(path, "more than 50 stats")


def test_too_many_planes_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(xplane, "MAX_PLANES", 3)
    path = tmp_path / "p.xplane.pb"
    path.write_bytes(space(1) * 4)
    _one_line(path, "4 planes")


# ---------------------------------------------------------------- stream numbers, nesting, files

def test_a_stream_number_of_thousands_of_digits_is_refused(tmp_path):
    path = tmp_path / "d.xplane.pb"
    path.write_bytes(space(2, line="Stream #" + "7" * 5000))
    assert "5,000 digits" in _one_line(path, "stream number")
    js = _trace_json(tmp_path / "d.trace.json.gz", 2, thread="Stream #" + "9" * 5000)
    assert "5,000 digits" in _one_line(js, "stream number", xplane_json.read_trace_json)


def test_json_nested_50000_deep_is_one_line(tmp_path):
    deep = ',{"ph":"X","pid":1,"tid":7,"ts":1,"dur":1,"name":"k","args":{"x":' + "[" * 50_000 + "]" * 50_000 + "}}"
    path = _trace_json(tmp_path / "deep.trace.json.gz", 3, extra=deep)
    _one_line(path, "nested more than 64 levels", xplane_json.read_trace_json)
    head = tmp_path / "head.trace.json.gz"         # deep in the top level, before the events
    head.write_bytes(gzip.compress(('{"metadata":' + "[" * 50_000 + "]" * 50_000 + ',"traceEvents":[]}').encode()))
    _one_line(head, "nested more than 64 levels", xplane_json.read_trace_json)


def test_json_broken_after_the_events_is_refused(tmp_path):
    path = _trace_json(tmp_path / "b.trace.json.gz", 3)
    path.write_bytes(gzip.compress(gzip.decompress(path.read_bytes()) + b"x"))
    _one_line(path, "not a readable Trace Viewer JSON", xplane_json.read_trace_json)


def test_json_chunks_read_the_same_as_one(tmp_path, monkeypatch):
    from roofline.importers.xplane import xplane_json_chunks
    path = _trace_json(tmp_path / "c.trace.json.gz", 3000)
    whole = xplane_json.read_trace_json(path).kernels
    monkeypatch.setattr(xplane_json_chunks, "CHUNK_BYTES", 512)      # hundreds of chunks
    chunked = xplane_json.read_trace_json(path).kernels
    assert [k.count for k in whole] == [1000, 1000, 1000] and [k.count for k in chunked] == [1000] * 3
    assert [k.name for k in chunked] == [k.name for k in whole]
    assert [k.time_s for k in chunked] == pytest.approx([k.time_s for k in whole], rel=1e-12)


@pytest.mark.parametrize("reader", [xplane.read, xplane_json.read_trace_json])
def test_a_fifo_is_refused_without_opening_it(tmp_path, reader):
    fifo = tmp_path / "x.xplane.pb"
    os.mkfifo(fifo)
    _one_line(fifo, "not a regular file", reader)
