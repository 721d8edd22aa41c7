"""Kineto events read by the compiled scanner (.jsonscan, .scanned) give
what msgspec's typed decoding gives: on every real trace, in chunks of
every size, and on the odd inputs where the scanner hands a chunk back
(the same result, or the same error)."""
from __future__ import annotations

import gzip
import json
import math
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import REALDATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roofline.core.errors import InputError
from roofline.importers import kineto
from roofline.importers.kineto import jsongrammar, jsonscan, jsonvalues, scanfields, scanned
from roofline.importers.options import ReadOptions

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import kineto_variants  # noqa: E402  (the traces generated differently of benchmarks/kineto_variants.py)

ROOT = Path(__file__).resolve().parents[1]
TRACES = (sorted((REALDATA / "kineto_trace").glob("*.json.gz")) + sorted((REALDATA / "pairs").glob("*.json.gz"))
          + sorted((ROOT / "tests" / "fixtures" / "serving").glob("*.json.gz"))
          + [ROOT / "examples" / "pytorch_cpu_trace.json.gz"])


def options(engine: str, chunk: int | None = None) -> ReadOptions:
    return ReadOptions(stream=True, workers=1, kineto_engine=engine, chunk_bytes=chunk)


def everything(result) -> tuple:
    """All a result says, as text (NaN times compare equal as text)."""
    return ([repr(k) for k in result.kernels], repr(result.device), repr(result.program),
            [str(w) for w in result.warnings], result.rank, repr(result.phases), repr(result.communication))


class Counting(scanned.Scanner):
    """A scanner that counts the events it read and the chunks it handed back."""

    def __init__(self):
        super().__init__()
        self.events = self.handed_back = 0

    def __call__(self, buf):
        out = super().__call__(buf)
        if out is None:
            self.handed_back += 1
        else:
            self.events += len(out[0])
        return out


def read_counting(path: Path, chunk: int | None = None, monkeypatch=None):
    counter = Counting()
    monkeypatch.setattr(kineto, "_scanner", lambda *a: lambda: counter)
    return kineto.read(path, options("scan", chunk)), counter


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name[:48])
def test_every_real_trace_reads_the_same_scanned(path, monkeypatch):
    if not path.exists():
        pytest.skip(f"{path} is not present")
    result, counter = read_counting(path, monkeypatch=monkeypatch)
    assert everything(result) == everything(kineto.read(path, options("msgspec")))
    assert counter.events > 0 or counter.handed_back > 0


@pytest.mark.parametrize("chunk", [4096, 65536])
def test_small_chunks_read_the_same_and_most_events_are_scanned(chunk, monkeypatch):
    path = REALDATA / "kineto_trace" / "facebookresearch__HolisticTraceAnalysis__negative_queue_rank0.json.gz"
    if not path.exists():
        pytest.skip(f"{path} is not present")
    result, counter = read_counting(path, chunk, monkeypatch)
    assert everything(result) == everything(kineto.read(path, options("msgspec", chunk)))
    total = len(json.loads(gzip.decompress(path.read_bytes()))["traceEvents"])
    assert counter.events > total // 2, (counter.events, total)


def _trace(events: list, **top) -> bytes:
    return json.dumps({"schemaVersion": 1, "traceEvents": events, **top}).encode()


def _bert_like(n: int) -> list:
    out = []
    for i in range(n):
        out += [{"ph": "X", "cat": "cpu_op", "name": f"aten::op{i % 7}", "pid": 1, "tid": 1, "ts": 1e6 + 10 * i,
                 "dur": 4.5, "args": {"External id": i, "Fwd thread id": 0, "Input Dims": [[4, i % 3]],
                                      "Input type": ["float"], "Record function id": 0}},
                {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                 "ts": 1e6 + 10 * i + 1, "dur": 2, "args": {"External id": i, "correlation": 100 + i}},
                {"ph": "s", "id": 100 + i, "pid": 1, "tid": 1, "ts": 1e6 + 10 * i + 1, "cat": "ac2g", "name": "ac2g"},
                {"ph": "X", "cat": "kernel", "name": f"kernel_{i % 5}", "pid": 0, "tid": 7, "ts": 1e6 + 10 * i + 3,
                 "dur": 3.25, "args": {"External id": i, "correlation": 100 + i, "device": 0,
                                       "grid": [i % 2 + 1, 1, 1], "block": [128, 1, 1],
                                       "registers per thread": 32, "shared memory": 0}},
                {"ph": "i", "cat": "python_function", "name": "x", "pid": 1, "tid": 1, "ts": 1e6 + 10 * i, "s": "t"}]
        if i % 40 == 0:        # a step's range, a copy with its bytes, a set, a copy call naming its bytes
            out += [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i // 40}", "pid": 1, "tid": 1,
                     "ts": 1e6 + 10 * i, "dur": 400},
                    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1,
                     "ts": 1e6 + 10 * i + 2, "dur": 1, "args": {"correlation": 9000 + i, "bytes": 4096}},
                    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
                     "tid": 7, "ts": 1e6 + 10 * i + 5, "dur": 1.5,
                     "args": {"correlation": 9000 + i, "bytes": 4096, "kind": 1, "device": 0}},
                    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0,
                     "tid": 7, "ts": 1e6 + 10 * i + 6, "dur": 0.5, "args": {"correlation": 9000 + i}},
                    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7,
                     "ts": 1e6 + 10 * i + 7, "dur": 0.25, "args": {"bytes": 512, "device": 0}}]
    return out


def _both(path: Path, chunk: int | None = None):
    """(scanned, msgspec): each the result's text, or the error's."""
    out = []
    for engine in ("scan", "msgspec"):
        try:
            out.append(everything(kineto.read(path, options(engine, chunk))))
        except InputError as exc:
            out.append(str(exc))
    return out


# each an edit of the bert-like trace's text: what the scanner hands to msgspec, or reads as msgspec does
ODD = {
    "escaped name": lambda t: t.replace(b'"kernel_3"', b'"kernel_\\u0033\\"x"', 1),
    "escaped key": lambda t: t.replace(b'"name": "kernel_2"', b'"na\\u006de": "kernel_2"', 1),
    "key twice": lambda t: t.replace(b'"name": "kernel_2"', b'"name": "kernel_2", "name": "kernel_9"', 1),
    "non-ASCII name": lambda t: t.replace(b'"kernel_4"', '"kernel_\u00b5"'.encode(), 1),
    "exponent and long numbers": lambda t: t.replace(b'"dur": 3.25', b'"dur": 3.25e0', 1)
                                              .replace(b'"dur": 4.5', b'"dur": 4.50000000000000000001', 1),
    "integer as float id": lambda t: t.replace(b'"correlation": 105', b'"correlation": 105.0', 1),
    "huge id": lambda t: t.replace(b'"External id": 7,', b'"External id": 123456789012345678901234567890,', 1),
    "every time past 16 digits": lambda t: re.sub(rb'"(ts|dur)": (\d+)\.(\d+)', rb'"\1": 168356\2.\g<3>123', t),
    "every time with zeros after it": lambda t: re.sub(rb'"(ts|dur)": (\d+)\.(\d+)', rb'"\1": 1683564\2.\g<3>000', t),
    "a null duration past 16 digits": lambda t: re.sub(rb'"(ts|dur)": (\d+)\.(\d+)', rb'"\1": 168356\2.\g<3>123', t)
                                               .replace(b'"dur": 1683564.5123', b'"dur": null', 1),
    "a time past 16 digits as text": lambda t: re.sub(rb'"(ts|dur)": (\d+)\.(\d+)', rb'"\1": 168356\2.\g<3>123', t)
                                              .replace(b'"ts": 1683561000030.0123', b'"ts": "1683561000030.0123"', 1),
    "ts as text": lambda t: t.replace(b'"ts": 1000030.0', b'"ts": "1000030.0"', 1),
    "ts null": lambda t: t.replace(b'"ts": 1000030.0', b'"ts": null', 1),
    "ts true": lambda t: t.replace(b'"ts": 1000030.0', b'"ts": true', 1),
    "no ts": lambda t: t.replace(b'"ts": 1000030.0, ', b'', 1),
    "negative duration": lambda t: t.replace(b'"dur": 3.25', b'"dur": -3.25', 1),
    "args null": lambda t: t.replace(b'"args": {"External id": 2, "correlation"', b'"args": null, "x": {"a": 2, "b"', 1),
    "args null on every flow and kernel": lambda t: t.replace(b'"ph": "s", ', b'"ph": "s", "args": null, ')
    .replace(b'"dur": 3.25, "args": {', b'"dur": 3.25, "args": null, "x": {'),
    "args a number, text or list": lambda t: t.replace(b'"ph": "s", ', b'"ph": "s", "args": 5, ', 1)
    .replace(b'"ph": "f", ', b'"ph": "f", "args": "x", ', 1).replace(b'"ph": "i", ', b'"ph": "i", "args": [], ', 1),
    "a kernel's args a number": lambda t: t.replace(b'"dur": 3.25, "args": {', b'"dur": 3.25, "args": 5, "x": {', 1),
    "empty args and event": lambda t: t.replace(b'{"ph": "s", "id": 104,', b'{}, {"args": {}, "ph": "s", "id": 104,', 1),
    "bad JSON in an unread value": lambda t: t.replace(b'"Record function id": 0', b'"Record function id": [1,,2]', 1),
    "bad number in an unread value": lambda t: t.replace(b'"Record function id": 0', b'"Record function id": 01', 1),
    "bad literal": lambda t: t.replace(b'"Record function id": 0', b'"Record function id": nul', 1),
    "trailing comma": lambda t: t.replace(b']}]', b']},]', 1) if b']}]' in t else t[:-2] + b',]}',
    "memcpy among kernels": lambda t: t.replace(b'"cat": "kernel", "name": "kernel_1"',
                                                b'"cat": "gpu_memcpy", "name": "Memcpy HtoD", "x": 1', 1),
    "copy bytes past 2**53": lambda t: t.replace(b'"bytes": 4096, "kind"', b'"bytes": 1e300, "kind"', 1),
    "copy bytes as text": lambda t: t.replace(b'"bytes": 4096, "kind"', b'"bytes": "4096", "kind"', 1),
    "a call's size as text (ROCm)": lambda t: t.replace(b'"bytes": 4096}}', b'"size": "4096"}}'),
    "a call's size no trace holds": lambda t: t.replace(b'"bytes": 4096}}', b'"size": -5}}', 1),
    "a copy without bytes gets its call's": lambda t: t.replace(b'"bytes": 4096, "kind": 1, ', b''),
    "an nccl annotation": lambda t: t.replace(b'"ProfilerStep#2"', b'"nccl:all_reduce"', 1),
    "an nccl annotation with sizes": lambda t: t.replace(
        b'"name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 1001200.0, "dur": 400',
        b'"name": "nccl:all_reduce", "pid": 1, "tid": 1, "ts": 1001200.0, "dur": 400, '
        b'"args": {"Input Dims": [[1024]], "Input type": ["float"]}', 1),
    "a collective's kernel and operator": lambda t: t.replace(
        b'"name": "kernel_3", "pid": 0, "tid": 7, "ts": 1000033.0, "dur": 3.25, "args": {',
        b'"name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, '
        b'"tid": 7, "ts": 1000033.0, "dur": 3.25, "args": {"Collective name": "allreduce", "In msg nelems": 1024, '
        b'"Out msg nelems": 1024, "Group size": 8, "dtype": "Float", "Process Group Name": "0", '
        b'"Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]", ', 1).replace(
        b'"name": "aten::op3", "pid": 1, "tid": 1, "ts": 1000030.0, "dur": 4.5, "args": {',
        b'"name": "record_param_comms", "pid": 1, "tid": 1, "ts": 1000030.0, "dur": 4.5, "args": {'
        b'"Collective name": "allreduce", "In msg nelems": 1024, "Out msg nelems": 1024, "Group size": 8, '
        b'"dtype": "Float", ', 1),
    "Inductor's counts on a Triton launch": lambda t: t.replace(
        b'"name": "aten::op4", "pid": 1, "tid": 1, "ts": 1000040.0, "dur": 4.5, "args": {',
        b'"name": "triton_poi_fused_add_0", "pid": 1, "tid": 1, "ts": 1000040.0, "dur": 4.5, "args": {'
        b'"kernel_flop": 4096, "kernel_num_gb": 0.0001, ', 1),
    "a counter range": lambda t: t.replace(b'"cat": "user_annotation"', b'"cat": "cuda_profiler_range"', 1),
    "name missing": lambda t: t.replace(b'"kernel_2"', b'"__missing__"'),
    "name not text": lambda t: t.replace(b'"name": "kernel_2"', b'"name": 2', 1),
    "empty name": lambda t: t.replace(b'"name": "kernel_2"', b'"name": ""', 1),
    "phase unknown": lambda t: t.replace(b'"ph": "s"', b'"ph": "Q"', 1),
    "a collective's fields without its name": lambda t: t.replace(
        b'"Record function id": 0', b'"Record function id": 0, "dtype": "Float", "Group size": 8, '
        b'"In msg nelems": "x", "Process Group Name": [1], "Process Group Ranks": null').replace(
        b'"device": 0,', b'"device": 0, "dtype": 3, "Out msg nelems": 1024,', 2),
    "collective args": lambda t: t.replace(b'"device": 0,', b'"device": 0, "Collective name": "allreduce",', 1),
    "counters": lambda t: t.replace(b'"device": 0,', b'"device": 0, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 5,', 1),
    "2021 schema": lambda t: t.replace(b'"cat": "kernel"', b'"cat": "Kernel"').replace(b'"External id"', b'"external id"')
                             .replace(b'"tid": 7', b'"tid": "stream 7"'),
    "truncated": lambda t: t[:len(t) * 2 // 3],
    "deep nesting": lambda t: t.replace(b'"Record function id": 0', b'"Record function id": ' + b"[" * 70 + b"]" * 70, 1),
    "device as a list": lambda t: t.replace(b'"device": 0,', b'"device": [0],', 1),
    "stream as a list": lambda t: t.replace(b'"tid": 7', b'"tid": [7, 1]', 1),
    "registers as a list": lambda t: t.replace(b'"registers per thread": 32', b'"registers per thread": [32]'),
    "invalid UTF-8 in a name": lambda t: t.replace(b'"kernel_3"', b'"kernel_\xff3"', 1),
    "invalid UTF-8 in an unread value": lambda t: t.replace(b'"Record function id": 0', b'"Record function id": "\xff"', 1),
    "non-ASCII key": lambda t: t.replace(b'"Record function id": 0', '"R\u00e9cord": 0'.encode(), 1),
    "control character in a string": lambda t: t.replace(b'"kernel_3"', b'"kernel\x01_3"', 1),
}


@pytest.mark.parametrize("edit", list(ODD), ids=list(ODD))
@pytest.mark.parametrize("chunk", [None, 4096])
def test_odd_inputs_read_or_fail_as_msgspec_reads_them(edit, chunk, tmp_path):
    path = tmp_path / "t.json"
    text = ODD[edit](json.dumps({"traceEvents": _bert_like(300)}, separators=(", ", ": ")).encode())
    path.write_bytes(text)
    scan, plain = _both(path, chunk)
    assert scan == plain


def test_a_clean_trace_is_read_by_the_scanner_alone(tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_bytes(_trace(_bert_like(3000)))
    result, counter = read_counting(path, 65536, monkeypatch)
    assert counter.handed_back == 0 and counter.events == 5 * 3000 + 5 * 3000 // 40
    assert everything(result) == everything(kineto.read(path, options("msgspec", 65536)))


def test_args_null_is_read_by_the_scanner_as_no_args(tmp_path, monkeypatch):
    # msgspec reads "args": null as no args (an event's args are an object or
    # None; a flow's are not read): the scanner too, without handing its chunk back
    path = tmp_path / "t.json"
    text = _trace(_bert_like(3000)).replace(b'"ph": "s", ', b'"ph": "s", "args": null, ')
    text = text.replace(b'"dur": 4.5, "args": {', b'"dur": 4.5, "args": null, "x": {', 1)
    path.write_bytes(text)
    result, counter = read_counting(path, 65536, monkeypatch)
    assert counter.handed_back == 0 and text.count(b'"args": null') > 3000
    assert everything(result) == everything(kineto.read(path, options("msgspec", 65536)))


def test_a_collectives_fields_without_its_name_are_read_by_the_scanner(tmp_path, monkeypatch):
    # dtype, sizes and group fields count only beside a collective's name (extras):
    # alone they leave the event the scanner's, and its chunk with it
    path = tmp_path / "t.json"
    text = _trace(_bert_like(3000)).replace(b'"Record function id": 0', b'"Record function id": 0, "dtype": "Float"')
    path.write_bytes(text.replace(b'"device": 0,', b'"device": 0, "Group size": 8, "Process Group Name": "0",'))
    result, counter = read_counting(path, 65536, monkeypatch)
    assert counter.handed_back == 0
    assert everything(result) == everything(kineto.read(path, options("msgspec", 65536)))


@pytest.mark.parametrize("variant", list(kineto_variants.VARIANTS))
def test_traces_generated_differently_are_scanned_and_read_as_msgspec_reads_them(variant, tmp_path, monkeypatch):
    # benchmarks/kineto_variants.py's traces (layouts, key orders, times, names,
    # schemas, extra events and args, cardinality): valid JSON, every chunk read
    # by the scanner (none handed to msgspec), and the result msgspec's
    path = kineto_variants.write(variant, 400, tmp_path)
    json.loads(path.read_bytes())
    result, counter = read_counting(path, 65536, monkeypatch)
    assert counter.handed_back == 0 and counter.events >= 5 * 400
    assert everything(result) == everything(kineto.read(path, options("msgspec", 65536)))


def _number(text: bytes, as_float: bool = True):
    """jsonvalues.number of ``text`` followed by a comma: (end, value, exact)."""
    end, f, i, exact = jsonvalues.number(np.frombuffer(text + b",", dtype=np.uint8), 0, len(text) + 1, as_float)
    return end, (f if as_float else i), exact


def test_numbers_convert_exactly_or_are_left_to_python():
    cases = [b"0", b"-0", b"12.5", b"1700000000123.456", b"0.1", b"123456789012345", b"1234567890123456",
             b"1683564903138155.0", b"9007199254740993.0", b"0.000", b"1.10000000000000000000",
             b"1e3", b"-7.25", b"9007199254740993", b"0.000000000000000000000001", b"0.0000000000000000000001",
             b"12345678901234567", b"-1.5E+2"]
    for text in cases:
        end, value, exact = _number(text)
        assert end == len(text), text
        if exact:
            assert value == float(text) and str(value) == str(float(text)), text
    assert _number(b"1700000000123.456")[2] and _number(b"1234567890123456")[2]
    # a fraction's last zeros: 17 digits written, 16 that count
    for text in (b"1683564903138155.0", b"1683564903138155.000", b"0.10", b"-12.50", b"100.0"):
        assert _number(text) == (len(text), float(text), True), text
    assert not any(_number(t)[2] for t in (b"1e3", b"9007199254740993", b"12345678901234567", b"0.0000000000000000000000001"))
    ints = {b"0": 0, b"-0": 0, b"42": 42, b"-17": -17, b"999999999999999999": 999999999999999999}
    assert all(_number(t, False) == (len(t), v, True) for t, v in ints.items())
    assert not any(_number(t, False)[2] for t in (b"1.0", b"1e2", b"1000000000000000000"))


def _key_end_bytewise(text: bytes, n: int) -> int:
    for i in range(1, n):
        c = text[i]
        if c == 34:
            return i + 1
        if c == 92 or c < 32 or c >= 128:
            return jsonvalues.BAD
    return jsonvalues.TRUNCATED


def test_a_key_ends_where_a_byte_by_byte_reading_ends_it():
    # eight bytes a step (jsonscan._key_end): every length, every odd byte at every
    # place, and the chunk's end anywhere (where the last word would pass it)
    for size in range(0, 20):
        for odd in (None, b"\\", b"\x01", b"\xc3", b"\x7f", b"\x80", b"\xff"):
            for at in ([None] if odd is None else range(size)):
                body = bytearray(b"abcdefghijklmnopqrstuvwxyz"[:size])
                if odd is not None:
                    body[at] = odd[0]
                text = b'"' + bytes(body) + b'": 1'
                for n in range(1, len(text) + 1):
                    buf = np.frombuffer(text[:n], dtype=np.uint8)
                    assert jsongrammar.key_end(buf, 0, n) == _key_end_bytewise(text, n), (text, n)


def _string_end_bytewise(text: bytes, n: int) -> int:
    """jsongrammar.string_end as it read a byte at a time, before #36."""
    i = 1
    while i < n:
        c = text[i]
        if c == 34:
            return i + 1
        if c == 92:
            if i + 1 >= n:
                return jsonvalues.TRUNCATED
            e = text[i + 1]
            if e == 117:
                if i + 5 >= n:
                    return jsonvalues.TRUNCATED
                if not all(chr(h) in "0123456789abcdefABCDEF" for h in text[i + 2:i + 6]):
                    return jsonvalues.BAD
                i += 6
                continue
            if e in b'"\\/bfnrt':
                i += 2
                continue
            return jsonvalues.BAD
        if c < 32:
            return jsonvalues.BAD
        i += 1
    return jsonvalues.TRUNCATED


def test_a_string_ends_where_a_byte_by_byte_reading_ends_it():
    # eight bytes a step (jsongrammar.string_end): every length, an escape, a control
    # or non-ASCII byte or a quote at every place, and the chunk's end anywhere
    odds = (None, b"\\n", b"\\u00e9", b"\\uZZ00", b"\\q", b"\\", b"\x01", b"\x1f", b"\xc3\xa9", b"\x7f",
            b"\x80", b"\xff", b'"', b'\\"')
    for size in range(0, 20):
        for odd in odds:
            for at in ([None] if odd is None else range(size + 1)):
                body = b"abcdefghijklmnopqrstuvwxyz"[:size]
                if odd is not None:
                    body = body[:at] + odd + body[at:]
                text = b'"' + body + b'", 1'
                for n in range(1, len(text) + 1):
                    buf = np.frombuffer(text[:n], dtype=np.uint8)
                    assert jsongrammar.string_end(buf, 0, n) == _string_end_bytewise(text, n), (text, n)


def test_a_converted_number_is_what_python_reads():
    # random decimals, many with trailing zeros or past what a double holds: exact
    # ones equal float(text) bit for bit; the rest are left to Python
    rng = random.Random(36)
    exact = 0
    for _ in range(20000):
        whole = str(rng.randrange(10 ** rng.randrange(1, 21)))
        part = "".join(rng.choice("0123456789") for _ in range(rng.randrange(0, 24)))
        part += "0" * rng.randrange(0, 4) if part else ""
        text = ("-" if rng.random() < 0.2 else "") + whole + ("." + part if part else "")
        end, value, ok = _number(text.encode())
        assert end == len(text), text
        if ok:
            exact += 1
            assert value == float(text) and math.copysign(1, value) == math.copysign(1, float(text)), text
    assert exact > 5000                  # most are read here, not handed back


def test_numbers_are_checked_against_the_grammar():
    for text in (b"-", b"-a", b"01", b"1.", b"1.e3", b"1e", b"1e+", b".5"):
        end, _, _ = _number(text)
        assert end == jsonvalues.BAD or end < len(text), text    # refused, or ends before what is no number
    buf = np.frombuffer(b"123", dtype=np.uint8)
    assert jsonvalues.number(buf, 0, 3, True)[0] == jsonvalues.TRUNCATED   # the chunk may go on


def test_distinct_values_are_numbered_by_content_in_order_of_first_appearance():
    text = b'[{"name": "b"}, {"name": "a"}, {"name": "b"}, {"x": 1}, {"name": "ab"}]'
    cols = scanfields.Columns(16)
    buf = np.frombuffer(bytearray(text), dtype=np.uint8)
    n, end, status = cols.scan(buf, 1)
    assert (n, end, status) == (5, len(text), jsonscan.ARRAY_CLOSED)
    chunk = scanfields.Chunk(buf, cols, n)
    d = chunk.distinct(scanfields.COLUMN["name"])
    assert d.codes.tolist() == [0, 1, 0, -1, 2] and d.raw == [b'"b"', b'"a"', b'"ab"']


def test_engine_is_checked():
    with pytest.raises(Exception, match="kineto_engine"):
        ReadOptions(kineto_engine="fast")


def test_collectives_and_inductor_counts_are_read_by_the_scanner(tmp_path, monkeypatch):
    text = json.dumps({"traceEvents": _bert_like(300)}, separators=(", ", ": ")).encode()
    for edit in ("an nccl annotation with sizes", "a collective's kernel and operator",
                 "Inductor's counts on a Triton launch"):
        text = ODD[edit](text)
    path = tmp_path / "t.json"
    path.write_bytes(text)
    result, counter = read_counting(path, 65536, monkeypatch)
    plain = kineto.read(path, options("msgspec", 65536))
    assert counter.handed_back == 0
    assert everything(result) == everything(plain)
    assert "allreduce" in repr(result.communication).lower()


# any JSON value, small: what a damaged or unusual trace may hold where the reader expects something else
_JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
                     | st.text(max_size=6),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                  max_size=3),
                     max_leaves=6)
_CATS = st.sampled_from(["kernel", "cpu_op", "cuda_runtime", "gpu_memcpy", "gpu_memset", "user_annotation",
                         "ac2g", "python_function", "Kernel", "Runtime"])
_ARG_KEYS = st.sampled_from(["External id", "external id", "correlation", "device", "grid", "block",
                             "registers per thread", "shared memory", "Input Dims", "Input type", "Input Strides",
                             "Concrete Inputs", "Fwd thread id", "flops", "kernel", "bytes", "size", "kind",
                             "Sequence number", "stream"])


@st.composite
def _event(draw):
    """A complete event, its usual fields right or, now and then, any value."""
    usual = {"ph": st.sampled_from(["X", "X", "X", "s", "f", "i", "M"]), "cat": _CATS,
             "name": st.sampled_from(["aten::mm", "kernel_a", "cudaLaunchKernel", "__missing__", "Memcpy HtoD"]),
             "pid": st.integers(0, 3), "tid": st.integers(0, 3) | st.just("stream 7"),
             "ts": st.floats(0, 1e13, allow_nan=False) | st.integers(0, 2**40),
             "dur": st.floats(0, 1e4, allow_nan=False) | st.integers(0, 1000)}
    event = {k: draw(v if draw(st.integers(0, 99)) else _JSON) for k, v in usual.items() if draw(st.integers(0, 99))}
    args = draw(st.dictionaries(_ARG_KEYS, st.integers(0, 5000) | st.lists(st.integers(1, 64), max_size=3)
                                | st.just("float") | _JSON, max_size=6))
    if draw(st.integers(0, 9)):
        event["args"] = args
    return event


# the same 60 examples in every run (CI stays a verdict on the change); set
# ROOFLINE_FUZZ_EXAMPLES to search further, with fresh random examples
@settings(max_examples=int(os.environ.get("ROOFLINE_FUZZ_EXAMPLES", 60)), deadline=None,
          derandomize="ROOFLINE_FUZZ_EXAMPLES" not in os.environ, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_event(), min_size=1, max_size=40), st.sampled_from([(", ", ": "), (",", ":"), (",\n  ", ": ")]),
       st.sampled_from([None, 512]))
def test_random_events_read_or_fail_alike(tmp_path_factory, events, separators, chunk):
    """Both read a trace to the same result, or both refuse it. Which
    complaint comes first may differ: msgspec's path types a flow's or an
    instant's ts only in a chunk that also holds an event of no known phase
    (it then decodes the chunk untagged), so with other chunk boundaries
    another damaged field can be the one reported."""
    path = tmp_path_factory.mktemp("h") / "t.json"
    path.write_bytes(json.dumps({"traceEvents": events}, separators=separators).encode())
    scan, plain = _both(path, chunk)
    assert isinstance(scan, str) == isinstance(plain, str), (scan, plain)
    if not isinstance(plain, str):
        assert scan == plain


def _columns(path: Path, scanner) -> tuple:
    """(GPU columns, operator columns) of a trace read chunk by chunk one way."""
    from roofline.importers.kineto.events import GpuEvents, Span, take_chunk
    from roofline.importers.kineto.op_columns import OpEvents
    from roofline.importers.kineto.stream import StreamedTrace, file_bytes
    trace = StreamedTrace(file_bytes(path, 1 << 16), path, scanner=scanner, chunk_bytes=1 << 16)
    gpu, ops, span, first = GpuEvents(), OpEvents(), Span(), 0
    for chunk in trace.event_chunks:
        take_chunk(chunk, first, gpu, ops, span, path)
        first += len(chunk)
    return gpu, ops


def _api_time(path: Path, scanner) -> list:
    """GpuEvents.api, in order: the runtime calls' time by name, first seen first."""
    gpu, _ = _columns(path, scanner)
    gpu.finish()
    return list(gpu.api.items())


@pytest.mark.parametrize("path", TRACES[:9], ids=lambda p: p.name[:48])
def test_api_time_by_name_is_the_same_floats_in_the_same_order(path):
    if not path.exists():
        pytest.skip(f"{path} is not present")
    assert _api_time(path, scanned.Scanner()) == _api_time(path, None)


def _as_the_command_line(path: Path, then: str, env: dict | None = None) -> list[str]:
    """What ``then`` prints, in a fresh process that read ``path`` as the
    command line reads it (the scanner, numba loaded quick: kineto.numba_load)."""
    code = ("import sys; from roofline.importers import kineto; from roofline.importers.options import ReadOptions\n"
            f"path = {str(path)!r}\n"
            "r = kineto.read(path, ReadOptions(kineto_engine='scan', stream=True, quick_numba_load=True))\n"
            "from roofline.importers.kineto import jsonscan\n" + then)     # (after: it imports numba)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=env).stdout.split()


def test_the_command_line_loads_the_scanner_without_importing_scipy(tmp_path):
    # numba imports SciPy (a version check) and its BLAS probe scipy.linalg
    # when the scanner loads; the CLI's reads hide SciPy for that moment, and
    # it still imports after
    path = tmp_path / "t.json"
    path.write_bytes(_trace(_bert_like(50)))
    out = _as_the_command_line(path, "assert jsonscan.scan.overloads\n"
                               "print(len(r.kernels), 'scipy.linalg' in sys.modules, 'scipy' in sys.modules)\n"
                               "import scipy.linalg; print(scipy.linalg.__name__)\n")
    assert int(out[0]) > 0 and out[1:] == ["False", "False", "scipy.linalg"]


@pytest.mark.parametrize("cache", ["warm", "empty"])
def test_the_command_line_loads_cached_code_without_numbas_whole_target(tmp_path, cache):
    # cached machine code is loaded without numba's registries of implementations;
    # with no cache (a first run: NUMBA_CACHE_DIR empty) the target is loaded,
    # SciPy hidden, and the scan compiled: the same kernels either way
    path = tmp_path / "t.json"
    path.write_bytes(_trace(_bert_like(50)))
    env = dict(os.environ)
    if cache == "empty":
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")
    else:       # this process's reads have written the cache the command line reads back
        kineto.read(path, ReadOptions(kineto_engine="scan", stream=True))
    out = _as_the_command_line(path, "print(len(jsonscan.scan.overloads), sorted((k.name, k.count) for k in "
                               "r.kernels) == sorted((k.name, k.count) for k in kineto.read(path, ReadOptions("
                               "kineto_engine='msgspec')).kernels))\n"
                               "print('numba.np.arraymath' in sys.modules, 'scipy.linalg' in sys.modules)\n", env)
    assert out == ["1", "True", "False" if cache == "warm" else "True", "False"]


def _id_columns(path: Path, scanner) -> dict:
    """The id columns (.columns.Ids) of a trace read one way, as lists."""
    gpu, ops = _columns(path, scanner)
    columns = {name: getattr(gpu, name).tolist() for name in ("kernel_ext", "kernel_corr", "api_corr", "api_ext_col")}
    return {**columns, "external_id": ops.external_id.tolist(), "call": ops.call.tolist()}


_ID_EDITS = {
    "as written": lambda t: t,
    "some ids absent": lambda t: t.replace(b'"External id": 3, ', b"").replace(b'"correlation": 105', b'"x": 105'),
    "2021 key on some": lambda t: t.replace(b'"External id": 4,', b'"external id": 4,'),
    "null, text, float and huge ids": lambda t: t.replace(b'"External id": 5,', b'"External id": null,')
    .replace(b'"correlation": 106', b'"correlation": "106"').replace(b'"External id": 7,', b'"External id": 7.0,')
    .replace(b'"correlation": 108', b'"correlation": 100000000000000000000000'),
    "the lowest 64-bit id": lambda t: t.replace(b'"correlation": 109', b'"correlation": -9223372036854775808'),
}


@pytest.mark.parametrize("edit", list(_ID_EDITS), ids=list(_ID_EDITS))
def test_id_columns_hold_what_msgspec_reads(edit, tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(_ID_EDITS[edit](json.dumps({"traceEvents": _bert_like(300)}, separators=(", ", ": ")).encode()))
    scan, plain = _id_columns(path, scanned.Scanner()), _id_columns(path, None)
    assert scan == plain
    assert len(plain["kernel_corr"]) == 300 and len(plain["external_id"]) == 300
