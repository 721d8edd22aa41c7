"""Events decoded as a union tagged by phase (complete events whole, the
others their category alone) read as the plain decoder reads them."""
from __future__ import annotations

import json

import pytest

from roofline.importers import kineto
from roofline.importers.kineto import decode, stream
from roofline.importers.options import ReadOptions


def _trace(extra: list) -> dict:
    events = []
    for i in range(50):
        t = 100.0 * i
        events += [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t, "dur": 10.0,
                    "args": {"External id": i, "Input Dims": [[8, 8], [8, 8]], "Input type": ["float", "float"]}},
                   {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 1,
                    "dur": 2.0, "args": {"correlation": i, "External id": i}},
                   {"ph": "s", "id": i, "pid": 1, "tid": 1, "ts": t + 1, "cat": "ac2g", "name": "ac2g"},
                   {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": t + 5, "dur": 3.0,
                    "args": {"correlation": i, "External id": i, "device": 0}},
                   {"ph": "i", "cat": "mtia_ccp_events", "name": "x", "pid": 0, "tid": 0, "ts": t, "s": "t"}]
    return {"traceEvents": events + extra, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}]}


def _everything(result) -> tuple:
    return ([repr(k) for k in result.kernels], repr(result.program), [str(w) for w in result.warnings])


def test_other_phases_are_their_category_alone():
    body = json.dumps(_trace([])["traceEvents"]).encode()
    tagged = stream._EVENTS[decode.LeanEvent].decode(body)
    plain = stream._EVENTS[decode.LeanEvent].plain.decode(body)
    assert [type(e) is decode.LeanComplete for e in tagged] == [e.ph == "X" for e in plain]
    assert [(e.ph, e.cat) for e in tagged] == [(e.ph, e.cat) for e in plain]
    assert all(e.name is None and e.args is None for e in tagged if e.ph != "X")


@pytest.mark.parametrize("extra", [[], [{"ph": "q", "cat": "odd", "name": "y", "ts": 1.0}],
                                   [{"cat": "no_phase", "name": "z", "ts": 2.0}]], ids=["known", "unknown", "none"])
def test_a_phase_the_union_does_not_know_reads_as_before(tmp_path, extra):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_trace(extra)))
    whole = kineto.read(path, ReadOptions(stream=False))
    streamed = kineto.read(path, ReadOptions(stream=True, chunk_bytes=4096, workers=1))
    assert _everything(whole) == _everything(streamed)
    assert "mtia_ccp_events 50" in " ".join(str(w) for w in whole.warnings)     # other phases still counted
    body = json.dumps(_trace(extra)["traceEvents"]).encode()
    if extra:          # the union refuses these bytes: the plain decoder reads them
        with pytest.raises(Exception):
            stream._EVENTS[decode.LeanEvent].tagged.decode(body)
    assert len(stream._EVENTS[decode.LeanEvent].decode(body)) == 250 + len(extra)
