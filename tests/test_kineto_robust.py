"""Kineto traces that are damaged, hostile or odd (issue 20): the chunked
reader and the whole-file reader give one answer, and what is wrong is a
one-line InputError naming the event or the line.

The fuzz test builds random traces with a seeded generator and reads each
in tiny chunks and whole; the other tests each build the input of one
finding of the fuzzing review in ``tmp_path``.
"""
from __future__ import annotations

import gzip
import json
import os
import random
import time

import pytest

from roofline.core.errors import InputError
from roofline.importers import kineto, read_profile
from roofline.importers.kineto import decode as kineto_decode
from roofline.importers.kineto import stream as kineto_stream
from roofline.importers.options import ReadOptions
from roofline.importers.kineto.stream import StreamedTrace, file_bytes


def streamed(path, chunk_bytes=None):
    """The chunked reader as ``kineto.read`` runs it: lines counted again
    from the file only for an error message."""
    return kineto._checked(StreamedTrace(file_bytes(path), path, reread=lambda: file_bytes(path),
                                         chunk_bytes=chunk_bytes), path)


def streamed_counting(path):
    """The chunked reader on a stream that can't be read twice: lines
    counted chunk by chunk."""
    return kineto._checked(StreamedTrace(file_bytes(path), path), path)


def whole(path):
    return kineto._checked(kineto_decode.load(path), path)


def both_raise(path, match: str) -> list[InputError]:
    """The InputErrors of the chunked readers (lines counted as read, and
    counted again when asked) and the whole-file reader for ``path``."""
    out = []
    for read in (streamed, streamed_counting, whole):
        with pytest.raises(InputError, match=match) as info:
            read(path)
        out.append(info.value)
    return out


@pytest.fixture
def tiny_chunks(monkeypatch):
    monkeypatch.setattr(kineto_stream, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(kineto_stream, "READ_BYTES", 1000)


# ---------------------------------------------------------------- generated traces

NASTY = ['},{', '}]', '}],', '"}', '\\"', '\\\\', '\\\\"', '{"ph": "X"}', '"traceEvents": [', 'ü', '€', '𝄞',
         'ä},{ö', '\n', '\u2029', ' ', '[', ']', '{', '}', ',']


def nasty_string(rnd: random.Random) -> str:
    return "".join(rnd.choice(NASTY) for _ in range(rnd.randrange(0, 6)))


def nasty_value(rnd: random.Random, depth: int = 0):
    kind = rnd.randrange(6 if depth < 3 else 3)
    if kind == 0:
        return nasty_string(rnd)
    if kind == 1:
        return rnd.choice([0, 1, -7, 2.5, 1e-9, None, True, False, 10**20])
    if kind == 2:
        return rnd.randrange(1000)
    if kind == 3:
        return [nasty_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    if kind == 4:
        return [{"a": nasty_value(rnd, depth + 1), nasty_string(rnd): nasty_string(rnd)}
                for _ in range(rnd.randrange(4))]
    return {nasty_string(rnd): nasty_value(rnd, depth + 1) for _ in range(rnd.randrange(4))}


SHAPES = {"aten::mm": ([[16, 32], [32, 8]], ["float", "float"]),
          "aten::add": ([[64], [64], []], ["float", "float", "Scalar"]),
          "aten::relu": ([[8, 8]], ["float"]),
          "aten::linear": ([[4, 16], [8, 16], [8]], ["float", "float", "float"])}


def random_events(rnd: random.Random, gpu: bool) -> list:
    events, t = [], 1_700_000_000_000.0
    for i in range(rnd.randrange(1, 60)):
        t += rnd.randrange(1, 50)
        extra = {nasty_string(rnd): nasty_value(rnd) for _ in range(rnd.randrange(3))}
        name = rnd.choice(list(SHAPES))
        dims, types = SHAPES[name]
        op = {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": rnd.choice([1, 2]), "ts": t,
              "dur": rnd.randrange(5, 40), "args": {"Input Dims": dims, "Input type": types,
                                                   "External id": i, **extra}}
        events.append(op)
        if gpu:
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                           "tid": op["tid"], "ts": t + 1, "dur": 2, "args": {"correlation": 1000 + i,
                                                                            "External id": i}})
            events.append({"ph": "X", "cat": "kernel", "name": rnd.choice(["sgemm_32x32", "relu_k€", "k \"q\""]),
                           "pid": 0, "tid": 7, "ts": t + 3, "dur": rnd.randrange(1, 30),
                           "args": {"device": 0, "correlation": 1000 + i, "External id": i,
                                    "grid": [rnd.randrange(1, 4), 1, 1], "block": [128, 1, 1],
                                    "notes": nasty_value(rnd)}})
            if rnd.random() < 0.2:
                events.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)",
                               "pid": 0, "tid": 7, "ts": t + 4, "dur": 3,
                               "args": {"bytes": rnd.randrange(1, 10**6), "list": nasty_value(rnd)}})
        if rnd.random() < 0.2:
            events.append({"ph": "i", "name": nasty_string(rnd) or "mark", "ts": t, "args": {"v": nasty_value(rnd)}})
    return events


def random_trace(rnd: random.Random) -> bytes:
    gpu = rnd.random() < 0.7
    events = random_events(rnd, gpu)
    if rnd.random() < 0.15:
        return json.dumps(events, ensure_ascii=rnd.random() < 0.5).encode()
    before = {"schemaVersion": 1, "metadata": {"traceEvents": [nasty_value(rnd)], "x": nasty_value(rnd)}}
    after = {"traceName": nasty_string(rnd), "more": nasty_value(rnd)}
    if gpu:
        before["deviceProperties"] = [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "numSms": 108}]
    doc = {**before, "traceEvents": events, **after}
    if rnd.random() < 0.3:
        doc["distributedInfo"] = {"rank": rnd.randrange(8)}
    indent = rnd.choice([None, None, 1, "\t"])
    return json.dumps(doc, ensure_ascii=rnd.random() < 0.5, indent=indent).encode()


def test_fuzz_chunked_and_whole_readers_agree(tmp_path, monkeypatch):
    """Random traces (operators with shapes, runtime calls, kernels, copies,
    instant events, arguments of nested lists and objects, strings full of
    ``},{``, ``}]``, escaped quotes and multibyte characters) read in tiny
    chunks give the ImportResult the whole-file reader gives."""
    started = time.perf_counter()
    for seed in range(150):
        rnd = random.Random(seed)
        raw = random_trace(rnd)
        path = tmp_path / f"t{seed}.json"
        if rnd.random() < 0.3:
            path = tmp_path / f"t{seed}.json.gz"
            cut = rnd.randrange(len(raw) + 1)       # sometimes two gzip members
            raw = gzip.compress(raw[:cut]) + gzip.compress(raw[cut:])
        path.write_bytes(raw)
        # pieces smaller than a chunk cut events and characters anywhere: READ_BYTES has no option
        monkeypatch.setattr(kineto_stream, "READ_BYTES", rnd.choice([7, 100, 1000]))
        assert streamed(path, rnd.choice([64, 300, 1000, 4096])) == whole(path), f"seed {seed}"
    assert time.perf_counter() - started < 20


# ---------------------------------------------------------------- finding 1: a nested traceEvents first

def kernel(i: int, **changes) -> dict:
    event = {"ph": "X", "cat": "kernel", "name": f"real_kernel_{i}", "pid": 0, "tid": 7, "ts": 1000 + 20 * i,
             "dur": 10, "args": {"device": 0, "correlation": i}}
    return {**event, **changes}


REAL = [kernel(i) for i in range(14)]
FAKE = [kernel(0, name="fake", dur=1e9)]


@pytest.mark.parametrize("gz", [False, True])
def test_a_nested_trace_events_array_before_the_real_one_is_not_read(tmp_path, monkeypatch, gz):
    quoted = json.dumps(FAKE).replace('"', '\\"')          # the fake array again, inside a string
    text = (f'{{"metadata": {{"traceEvents": {json.dumps(FAKE)}}}, "note": "\\"traceEvents\\": {quoted}", '
            f'"traceEvents": {json.dumps(REAL)}}}')
    path = tmp_path / ("t.json.gz" if gz else "t.json")
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    result = kineto.read(path, ReadOptions(stream=True))    # a plain file over a MiB would stream
    assert sorted(k.name for k in result.kernels) == sorted(e["name"] for e in REAL)
    assert result == whole(path)


# ---------------------------------------------------------------- finding 2: traceEvents twice

@pytest.mark.parametrize("second_key", ["traceEvents", "trace\\u0045vents"])
def test_two_trace_events_arrays_are_an_error_on_both_paths(tmp_path, monkeypatch, second_key):
    text = f'{{"traceEvents": {json.dumps(REAL[:3])},\n"{second_key}": {json.dumps(REAL)}}}'
    plain, packed = tmp_path / "t.json", tmp_path / "t.json.gz"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    for path in (plain, packed):
        for error in both_raise(path, "a second traceEvents array at the top level"):
            assert error.line == 2
    with pytest.raises(InputError, match="second traceEvents"):
        kineto.read(plain)                                    # small: decoded whole
    with pytest.raises(InputError, match="second traceEvents"):
        kineto.read(plain, ReadOptions(stream=True))          # in chunks


# ---------------------------------------------------------------- finding 3: impossible times

@pytest.mark.parametrize("bad, words", [
    (kernel(1, dur=1e15), r"traceEvents\[1\] \('real_kernel_1'\): duration 1e\+15 us is beyond a year"),
    (kernel(1, ts=1e308), r"traceEvents\[1\] \('real_kernel_1'\): ts 1e\+308 us is past 2\^63 ns"),
    (kernel(1, ts=-1e17), r"traceEvents\[1\] .*: ts -1e\+17 us is past 2\^63 ns"),
    ({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 4e13},
     r"traceEvents\[1\] \('aten::mm'\): duration 4e\+13 us is beyond a year"),
])
def test_an_impossible_time_names_the_event(tmp_path, bad, words):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": [kernel(0), bad]}))
    both_raise(path, words)


@pytest.mark.parametrize("events, words", [
    ([kernel(0, ts=i, dur=2e13) for i in range(2)], r"kernel 'real_kernel_0': time 4.*s is beyond a year"),
    ([kernel(0), kernel(1, ts=9e15)], "timeline span"),
])
def test_every_result_goes_through_the_common_checks(tmp_path, events, words):
    """Times each possible that add up to more than a year: what
    importers.base.checked refuses for every reader."""
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}))
    both_raise(path, words)
    with pytest.raises(InputError, match=words):
        read_profile(path)


# ---------------------------------------------------------------- finding 12: bounded memory

def listy_trace(events: int, listy_tail: int) -> bytes:
    """A trace whose last ``listy_tail`` events (and every tenth before them)
    carry a list of 100 objects in their args: far more ``}]`` and ``},``
    in a chunk than candidates a byte search would try."""
    out = []
    for i in range(events):
        e = {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10 * i, "dur": 5,
             "args": {"Input Dims": [[64], [64], []], "Input type": ["float", "float", "Scalar"]}}
        if i >= events - listy_tail or i % 10 == 0:
            e["args"]["inputs"] = [{"id": j, "s": "}]"} for j in range(100)]
            e["args"]["nested"] = [[{"x": "},{"}], [{"y": 1}]]
        out.append(e)
    return json.dumps({"schemaVersion": 1, "traceEvents": out, "deviceProperties": []}).encode()


def test_events_full_of_lists_of_objects_stream_in_bounded_chunks(tmp_path, monkeypatch):
    """The 298 MB trace of the review at 1/100 scale: read in chunks (never
    whole: decode.load is not called), each chunk decoded no bigger than a
    chunk and a read, whether plain or gzipped (which the whole-file reader
    refuses past its limit)."""
    raw = listy_trace(events=2500, listy_tail=50)
    assert len(raw) > kineto.STREAM_ABOVE_BYTES
    plain, packed = tmp_path / "t.json", tmp_path / "t.json.gz"
    plain.write_bytes(raw)
    packed.write_bytes(gzip.compress(raw))
    expected = whole(plain)
    sizes = []

    class Recording:
        def __init__(self, decoder):
            self.decoder = decoder

        def decode(self, view):
            sizes.append(len(view))
            return self.decoder.decode(view)

    monkeypatch.setattr(kineto_stream, "_EVENTS", {t: Recording(d) for t, d in kineto_stream._EVENTS.items()})
    monkeypatch.setattr(kineto_decode, "load", lambda path: pytest.fail("decoded whole"))
    monkeypatch.setattr(kineto_decode, "MAX_INFLATED_BYTES", 1 << 20)
    for path in (plain, packed):
        sizes.clear()
        assert kineto.read(path).kernels == expected.kernels
        assert len(sizes) > 4 and max(sizes) <= kineto_stream.CHUNK_BYTES + kineto_stream.READ_BYTES + 20_000


def sparse_file(path, head: bytes, size: int):
    """``head`` and then zeros up to ``size`` bytes, in a sparse file (skips
    the test where the file system would store the zeros)."""
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)
    if os.stat(path).st_blocks * 512 > 1 << 20:
        os.unlink(path)
        pytest.skip("no sparse files on this file system")
    return path


def test_a_huge_file_of_zeros_is_refused_at_its_first_chunk(tmp_path):
    import tracemalloc
    path = sparse_file(tmp_path / "zeros.json", b'{"traceEvents": [', 6 << 30)
    with pytest.raises(InputError):       # once first: the modules it imports (10 MB of code) are not the read's
        kineto.read(path)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(InputError, match=r"zeros.json:1: not valid JSON: .*invalid character \(byte 17\)"):
            kineto.read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20 and time.perf_counter() - started < 5
    with pytest.raises(InputError, match="too big to decode whole"):
        kineto_decode.load(path)                   # the whole-file reader refuses before reading


def test_running_out_of_memory_is_a_one_line_error(tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": REAL}))

    class Hungry:
        def decode(self, raw):
            raise MemoryError

    monkeypatch.setattr(kineto_decode, "_DECODERS", {t: Hungry() for t in kineto_decode._DECODERS})
    with pytest.raises(InputError, match="do not fit in memory"):
        kineto.read(path)
    monkeypatch.setattr(kineto_stream, "_EVENTS", {t: Hungry() for t in kineto_stream._EVENTS})
    with pytest.raises(InputError, match="does not fit in memory"):
        streamed(path)


# ---------------------------------------------------------------- messages that were misleading

def test_a_byte_order_mark_and_utf16_are_read(tmp_path):
    text = json.dumps({"traceEvents": REAL, "note": "naïve €"}, ensure_ascii=False)
    expected = kineto.parse(json.loads(text))
    for name, raw in [("bom.json", b"\xef\xbb\xbf" + text.encode()),
                      ("le.json", text.encode("utf-16")),              # with a BOM
                      ("be.json", b"\xfe\xff" + text.encode("utf-16-be")),
                      ("bom.json.gz", gzip.compress(b"\xef\xbb\xbf" + text.encode()))]:
        path = tmp_path / name
        path.write_bytes(raw)
        for read in (streamed, whole, kineto.read):
            assert read(path).kernels == expected.kernels, (name, read)


def test_utf16_without_a_byte_order_mark_says_so(tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(json.dumps({"traceEvents": REAL}).encode("utf-16-le"))
    both_raise(path, r"t.json:1: UTF-16 \(little-endian\) without a byte-order mark: re-save the trace as UTF-8")


def test_gzip_zero_padding_is_accepted_and_damage_named(tmp_path):
    text = json.dumps({"traceEvents": REAL}).encode()
    packed = gzip.compress(text)
    padded = tmp_path / "padded.json.gz"
    padded.write_bytes(packed + b"\0" * 5000)                # gzip(1) takes this
    assert streamed(padded).kernels == whole(padded).kernels == kineto.parse(json.loads(text)).kernels
    bad_crc = bytearray(packed)
    bad_crc[-8] ^= 1                                         # the CRC-32 in the trailer
    cases = [(bad_crc, "corrupt gzip stream: CRC mismatch"),
             (packed + b"junk", "neither another gzip member nor zero padding"),
             (packed[:-20], "corrupt gzip stream: truncated")]
    for raw, words in cases:
        path = tmp_path / "bad.json.gz"
        path.write_bytes(bytes(raw))
        both_raise(path, words)
        with pytest.raises(InputError, match=words):
            kineto.read(path)
    assert kineto.sniff(tmp_path / "crc.json.gz", bytes(bad_crc))   # a Kineto trace, damaged


def test_one_bad_event_in_a_big_gzip_trace_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(kineto_decode, "MAX_INFLATED_BYTES", 1 << 20)    # the file is past it
    events = [kernel(i % 14, ts=i) for i in range(20_000)]
    events[19_000]["ts"] = "soon"
    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"traceEvents": events}).encode()))
    with pytest.raises(InputError, match=r"traceEvents\[19000\]\.ts: Expected `float \| null`, got `str`"):
        kineto.read(path)


@pytest.mark.parametrize("event, words", [
    ({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
      "args": {"bytes": "BIG"}}, r"traceEvents\[1\] \('Memcpy HtoD'\): bytes is not a byte count from 0 to 2\*\*53"),
    ({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
      "args": {"correlation": 5, "size": "BIG"}}, r"traceEvents\[1\] \('cudaMemcpyAsync'\): size 1000"),
    ({"ph": "X", "cat": "cuda_profiler_range", "name": "k", "pid": 0, "tid": 0, "ts": 1, "dur": 1,
      "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "BIG"}},
     r"traceEvents\[1\] \('k'\): counter smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"),
    ({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": "BIG"},
     r"traceEvents\[1\]\.dur: Number out of range"),
])
def test_a_400_digit_number_names_the_event(tmp_path, event, words):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": [kernel(0), event]}).replace('"BIG"', "1" + "0" * 400))
    errors = both_raise(path, words)
    assert all(len(str(e)) < 300 for e in errors)


def test_a_400_digit_number_where_none_is_needed_is_ignored(tmp_path):
    events = [kernel(0, args={"registers per thread": "BIG", "grid": ["BIG", 1, 1], "block": [128, 1, 1]}),
              {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
               "args": {"flops": "BIG"}}]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}).replace('"BIG"', "1" + "0" * 400))
    (k,) = whole(path).kernels
    assert k.launch == {"block": (128, 1, 1)} and streamed(path) == whole(path)


def test_names_keep_every_character_but_ascii_blanks_are_not_added(tmp_path):
    """Kernel and operator names are the trace's, whatever Unicode blanks
    (no-break space, ideographic space, paragraph separator) they hold."""
    name, op = "\u00a0sgemm\u3000k\u2029", "\u3000aten::mm\u00a0"
    events = [{"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": 0, "dur": 50,
               "args": {"External id": 1}},
              kernel(0, name=name, ts=10, args={"device": 0, "External id": 1})]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}))
    for read in (streamed, whole, read_profile):
        (k,) = read(path).kernels
        assert (k.name, k.operator) == (name, op)


def test_syntax_errors_are_named_alike_on_both_paths(tmp_path, tiny_chunks):
    events = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": i, "dur": 1, "args": {"l": [{"a": "},{"}]}}
              for i in range(500)]
    text = json.dumps({"schemaVersion": 1, "traceEvents": events, "deviceProperties": [{"a": 1}]}, indent=1)
    for at in (20, text.index('"ts": 400'), len(text) - 5):
        path = tmp_path / "t.json"
        path.write_text(text[:at] + "@" + text[at:])
        a, c, b = both_raise(path, "not valid JSON")
        assert str(a) == str(b) == str(c) and a.line == text[:at].count("\n") + 1 and f"(byte {at})" in str(a)
    path.write_bytes(text.replace('"aten::mm"', '"aten\xff"', 1).encode("latin-1"))
    a, c, b = both_raise(path, "not UTF-8 text")
    assert a.line == b.line == c.line == text[:text.index('"aten::mm"')].count("\n") + 1
    path.write_text(text[:len(text) // 2])
    both_raise(path, "truncated")


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_json_nested_too_deep_is_a_one_line_error(tmp_path, depth):
    # msgspec decodes recursively: a RecursionError traceback before this
    path = tmp_path / "t.json"
    deep = "[" * depth + "]" * depth
    path.write_text('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, '
                    f'"ts": 1, "dur": 1, "args": {{"device": 0, "x": {deep}}}}}]}}')
    both_raise(path, "nested deeper than Python's recursion limit")
    gz = tmp_path / "t.json.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    with pytest.raises(InputError, match="nested deeper"):
        read_profile(gz)


@pytest.mark.parametrize("event, words", [
    ({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
      "args": {"bytes": 1e300}}, r"traceEvents\[1\] \('Memcpy HtoD'\): bytes is not a byte count from 0 to 2\*\*53"),
    ({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
      "args": {"bytes": 2.0 ** 53 + 2}}, r"bytes is not a byte count from 0 to 2\*\*53: 9007199254740994"),
    ({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
      "args": {"correlation": 5, "bytes": 1e300}}, r"\('cudaMemcpyAsync'\): size 1e\+300 is no byte count"),
])
def test_a_copy_larger_than_any_memory_names_the_event(tmp_path, event, words):
    # a finite size no copy moves: refused, not placed 1e289 s from its roof
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": [kernel(0), event]}))
    both_raise(path, words)


def test_a_copy_of_two_to_the_fifty_three_bytes_still_reads(tmp_path):
    event = {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
             "args": {"bytes": 2 ** 53}}
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": [kernel(0), event]}))
    copy = [k for k in kineto.read(path).kernels if k.name == "Memcpy HtoD"][0]
    assert sum(copy.bytes.values()) >= 2 ** 53


@pytest.mark.parametrize("key", ["traceEvents", "trace\\u0045vents"])
@pytest.mark.parametrize("gz", [False, True])
def test_a_trace_whose_events_key_comes_after_the_head_is_read(tmp_path, key, gz):
    # 70,000 characters of metadata first: the 64 KiB head holds no traceEvents key
    text = ('{"metadata": "' + "m" * 70_000 + f'", "{key}": ' + json.dumps([kernel(0), kernel(1, ts=50)])
            + ', "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}]}')
    path = tmp_path / ("t.json.gz" if gz else "t.json")
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    assert sorted(k.name for k in read_profile(path).kernels) == ["real_kernel_0", "real_kernel_1"]


def test_a_json_object_without_trace_events_is_still_unrecognised(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"metadata": "' + "m" * 70_000 + '", "events": []}')
    with pytest.raises(InputError, match="unrecognised profile format"):
        read_profile(path)
