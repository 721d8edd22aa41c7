"""rocprof v1/v2 JSON traces, written here as rocprof's sqlitedb.py lays
them out: every value a string, kernels on processes labelled GPU<n>.
Times are read exactly (args BeginNs/EndNs, else ts/dur in microseconds as
decimals); a timestamp that is no number is one error naming the event and
field, read no further than it must be."""
from __future__ import annotations

import json
import time

import pytest

from roofline.core.errors import InputError
from roofline.importers import read_profile
from roofline.importers.base import detect

DAXPY = "daxpy(double*, double const*, double, int)"
SAXPY = "saxpy(float*, float const*, float, int)"


def kern(name, begin, end, fma):
    """A kernel event of rocprof's KERN table (rocprof -i with pmc lines)."""
    return {"ph": "X", "name": name, "pid": 6, "tid": 0, "ts": str(begin // 1000), "dur": str((end - begin) // 1000),
            "args": {"KernelName": name + " [clone .kd]", "gpu-id": "0", "queue-id": "0", "grd": "1048576",
                     "wgr": "256", "lds": "0", "scr": "0", "arch_vgpr": "8", "accum_vgpr": "0", "sgpr": "16",
                     "wave_size": "64", "SQ_INSTS_VALU_FMA_F64": str(fma), "DispatchNs": str(begin - 700),
                     "BeginNs": str(begin), "EndNs": str(end), "CompleteNs": str(end + 900),
                     "DurationNs": str(end - begin)}}


def ops(name, ts, dur, pid="7"):
    """A HIP activity event (hcc_ops table): only ts/dur in microseconds."""
    return {"ph": "X", "name": name, "pid": pid, "tid": 0, "ts": ts, "dur": dur,
            "args": {"dev-id": "1", "queue-id": "0", "Name": name, "pid": "4242", "tid": "4242", "stream-id": "0"}}


def trace(*events) -> dict:
    labels = [{"args": {"name": "0 COPY"}, "ph": "M", "pid": 1, "name": "process_name"},
              {"args": {"name": "GPU0"}, "ph": "M", "pid": 6, "name": "process_name", "sort_index": 3},
              {"args": {"name": "4 GPU1"}, "ph": "M", "pid": "7", "name": "process_name"},
              {"args": {"name": "GPU Barriers0"}, "ph": "M", "pid": 518, "name": "process_name"}]
    api = {"ph": "X", "name": "hipLaunchKernel", "pid": 2, "tid": 4242, "ts": "10.5", "dur": "3.25", "args": {}}
    return {"traceEvents": [{}] + labels + [api] + list(events) + [
        {"ph": "X", "name": "<barrier packet>", "pid": 518, "tid": 0, "ts": "99", "dur": "1", "args": {}}],
        "otherData": {"ROCm version": "5.4"}}


def write(tmp_path, data, name="results.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=1))
    return path


def test_kernels_with_counters_and_activity_times(tmp_path):
    events = [kern(DAXPY, 1_000_123, 1_011_456, 16384), kern(DAXPY, 2_000_000, 2_010_000, 16384),
              ops(SAXPY, "3000.125", "12.5"), ops(SAXPY, "3100.000", "0.001")]
    path = write(tmp_path, trace(*events))
    assert detect(path).name == "rocprof-json"
    r = read_profile(path)
    assert r.format == "rocprof-json"
    k = {x.name: x for x in r.kernels}
    assert set(k) == {DAXPY, SAXPY}
    assert k[DAXPY].count == 2 and k[DAXPY].time_s == pytest.approx((11_333 + 10_000) * 1e-9, abs=1e-15)
    assert k[DAXPY].flops == {"fp64": 2 * 64 * 2 * 16384}
    assert k[DAXPY].launch["grid"] == (4096, 1, 1) and k[DAXPY].launch["agent"] == 0
    # decimals of microseconds to exact nanoseconds: 12.5 us and 0.001 us
    assert k[SAXPY].time_s == pytest.approx((12_500 + 1) * 1e-9, abs=1e-15)
    assert k[SAXPY].launch.get("agent") == 1
    text = " ".join(map(str, r.warnings))
    assert "2 kernel event(s) have no BeginNs/EndNs" in text and "--device" in text
    assert r.program.span_s == pytest.approx((3_100_001 - 1_000_123) * 1e-9, abs=1e-15)


@pytest.mark.parametrize("field, value, message", [
    ("ts", "abc", "traceEvents[7].ts: expected microseconds"),
    ("ts", "-5", "traceEvents[7].ts: expected microseconds"),
    ("ts", "NaN", "traceEvents[7].ts: expected microseconds"),
    ("dur", "1e30", "traceEvents[7].dur: '1e30' microseconds is past any timestamp"),
    ("dur", None, "traceEvents[7].dur: expected microseconds (a non-negative number of at most 40 characters), "
                  "found none"),
    ("ts", "1" * 5000, "(5000 characters)"),
])
def test_timestamps_that_are_no_number_name_the_event_and_field(tmp_path, field, value, message):
    event = ops(SAXPY, "3000.125", "12.5")
    event[field] = value
    path = write(tmp_path, trace(kern(DAXPY, 1_000, 2_000, 1), event))
    t0 = time.monotonic()
    with pytest.raises(InputError) as err:
        read_profile(path)
    assert time.monotonic() - t0 < 10
    assert message in str(err.value) and str(path) in str(err.value)


def test_args_that_are_no_number_name_the_event_and_arg(tmp_path):
    event = kern(DAXPY, 1_000, 2_000, 1)
    event["args"]["EndNs"] = "soon"
    path = write(tmp_path, trace(kern(DAXPY, 5_000, 6_000, 1), event))
    with pytest.raises(InputError, match=r"traceEvents\[7\]\.args\.EndNs: expected a timestamp"):
        read_profile(path)
    event["args"]["EndNs"], event["args"]["grd"] = "2000", "many"
    path = write(tmp_path, trace(event))
    with pytest.raises(InputError, match=r"traceEvents\[6\]\.args\.grd: expected a number, found 'many'"):
        read_profile(path)


def test_a_trace_without_gpu_kernels_is_refused(tmp_path):
    data = trace()
    with pytest.raises(InputError, match="no kernel events"):
        read_profile(write(tmp_path, data))


def test_numeric_timestamps_stay_with_the_chrome_trace_readers(tmp_path):
    kineto = {"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.5,
                               "dur": 2.0, "args": {"device": 0, "stream": 7}}]}
    assert detect(write(tmp_path, kineto, "k.json")).name != "rocprof-json"


def test_json_nested_thousands_deep_is_one_line(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "results.json"
    path.write_text(json.dumps(trace(kern(DAXPY, 1_000, 2_000, 1)))[:-1] + ', "junk": ' + deep + "}")
    with pytest.raises(InputError, match="nested too deeply to read"):
        read_profile(path)
