"""Peak memory and time of the TensorFlow/JAX readers on big profiles, against
a bare parse of the same file in the same run:

    python benchmarks/xplane_memory.py                      # 0.3M and 1M events, every shape
    python benchmarks/xplane_memory.py --events 3000000 --shapes bare,few

Writes synthetic XPlane protobufs (``.xplane.pb``) and Trace Viewer JSON
files (``.trace.json.gz``) of N GPU stream events to /tmp/roofline_xplane_bench/
(once; the wire format is written by hand, so writing needs no protobuf
message per event), in several shapes:

- ``bare``: 100 distinct kernel names, no stat on the events (13-14 bytes
  an event on the wire, like the 38.7 MB file of 3M events in issue 30);
- ``few``: 100 names, a correlation id and a ``kernel_details`` reference
  (20 launch configurations) on every event, as TF 2.x writes;
- ``many-names``: one distinct name (an XLA fusion's) per 4 events;
- ``many-stats``: 100 names whose metadata carry 6 stats, and 10 stats
  on every event (op names, XLA cost analysis, numbers nobody reads).

For each file it runs, each in a fresh child process, the reference
(``json.loads`` of the inflated JSON, or ``XSpace.ParseFromString`` of the
.pb with the protobuf runtime roofline uses) and ``roofline classify FILE
--device v100-sxm2 --format csv`` (the path users run, output to
/dev/null), and prints each one's peak RSS (``ru_maxrss`` of the child,
read with ``resource.getrusage(RUSAGE_CHILDREN)``) and wall time. Target
(issue 30): 3M events under 1.5 GB peak for both readers.
"""
from __future__ import annotations

import argparse
import gzip
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

from roofline.importers.xplane.xplane_wire import field_bytes as _field

OUT = Path("/tmp/roofline_xplane_bench")
SHAPES = ("bare", "few", "many-names", "many-stats")
NAMES = ["volta_sgemm_128x64_nn", "void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>",
         "loop_multiply_fusion", "input_reduce_fusion", "void tensorflow::functor::ColumnReduceKernel",
         "MemcpyH2D", "implicit_convolve_sgemm", "redzone_checker"]


# ---------------------------------------------------------------- protobuf wire format (xplane_wire writes fields)

def _stat(meta_id: int, value, ref: bool = False) -> bytes:
    if ref:
        return _field(1, meta_id) + _field(7, value)
    if isinstance(value, str):
        return _field(1, meta_id) + _field(5, value)
    if isinstance(value, float):
        return _field(1, meta_id) + _field(2, value)
    return _field(1, meta_id) + _field(4, value)


def _shape_names(n: int, shape: str, rng) -> list[str]:
    distinct = max(1, n // 4) if shape == "many-names" else 100
    if shape == "many-names":
        return [f"loop_{rng.choice(('add', 'multiply', 'select', 'convert'))}_fusion_{i}" for i in range(distinct)]
    return [f"{NAMES[i % len(NAMES)]}_{i}" for i in range(distinct)]


STAT_NAMES = ["correlation_id", "kernel_details", "tf_op", "hlo_op", "hlo_module", "flops", "bytes_accessed",
              "context_id", "occupancy_pct", "theoretical_occupancy", "device_id", "stream_id"]


def write_xplane(path: Path, n: int, shape: str, seed: int = 1) -> None:
    rng = random.Random(seed)
    names = _shape_names(n, shape, rng)
    stat_ids = {name: i + 1 for i, name in enumerate(STAT_NAMES)}
    configs = [f"regs:{32 + i} shm:0 grid:{80 * (i + 1)},1,1 block:256,1,1" for i in range(20)]
    for i, text in enumerate(configs):
        stat_ids[text] = 100 + i
    plane = bytearray(_field(1, 1) + _field(2, "/device:GPU:0"))
    for key, value in (("core_count", 80), ("clock_rate", 1530000), ("compute_cap_major", 7),
                       ("compute_cap_minor", 0), ("memory_size", 16 << 30)):
        stat_ids.setdefault(key, 200 + len(stat_ids))
        plane += _field(6, _stat(stat_ids[key], value))
    plane += _field(6, _stat(stat_ids.setdefault("device_vendor", 300), "Nvidia"))
    plane += _field(6, _stat(stat_ids.setdefault("gpu_device_name", 301), "Tesla V100-SXM2-16GB"))
    events = bytearray()
    t = 0
    for i in range(n):
        meta = rng.randrange(len(names)) + 1
        dur = rng.randrange(2_000, 500_000)          # ps
        t += dur + rng.randrange(0, 5_000_000)
        stats = b""
        if shape != "bare":
            stats += _field(4, _stat(1, i)) + _field(4, _stat(2, stat_ids[configs[meta % 20]], ref=True))
        if shape == "many-stats":
            stats += b"".join((_field(4, _stat(8, 7)), _field(4, _stat(9, 0.5)), _field(4, _stat(10, 0.75)),
                               _field(4, _stat(11, 0)), _field(4, _stat(12, 7)), _field(4, _stat(6, float(100 + i % 97))),
                               _field(4, _stat(7, 200.0)), _field(4, _stat(3, f"model/op_{meta}:MatMul"))))
        events += _field(4, _field(1, meta) + _field(2, t) + _field(3, dur) + stats)
    plane += _field(3, _field(1, 7) + _field(2, "Stream #7(Compute)") + _field(3, 1_000_000) + bytes(events))
    for i, name in enumerate(names):
        meta_stats = b""
        if shape == "many-stats":
            meta_stats = b"".join(_field(5, _stat(stat_ids[k], v)) for k, v in (
                ("hlo_op", f"fusion.{i}"), ("hlo_module", "jit_train_step"), ("context_id", 1),
                ("occupancy_pct", 50.0), ("theoretical_occupancy", 62.5), ("device_id", 0)))
        entry = _field(1, i + 1) + _field(2, _field(1, i + 1) + _field(2, name) + meta_stats)
        plane += _field(4, entry)
    for name, sid in stat_ids.items():
        plane += _field(5, _field(1, sid) + _field(2, _field(1, sid) + _field(2, name)))
    path.write_bytes(_field(1, bytes(plane)) + _field(4, "bench-host"))


def write_trace_json(path: Path, n: int, shape: str, seed: int = 1) -> None:
    rng = random.Random(seed)
    names = _shape_names(n, shape, rng)
    configs = [f"regs:{32 + i} shm:0 grid:{80 * (i + 1)},1,1 block:256,1,1" for i in range(20)]
    parts = ['{"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[',
             '{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},',
             '{"ph":"M","pid":1,"tid":7,"name":"thread_name","args":{"name":"Stream #7(Compute)"}},',
             '{"ph":"M","pid":2,"name":"process_name","args":{"name":"/host:CPU"}}']
    t = 1000.0
    for i in range(n):
        meta = rng.randrange(len(names))
        dur = rng.randrange(2_000, 500_000) / 1e6          # us
        t += dur + rng.randrange(0, 5_000_000) / 1e6
        args = ""
        if shape != "bare":
            args = f'"correlation_id":"{i}","kernel_details":"{configs[meta % 20]}"'
        if shape == "many-stats":
            args += (f',"tf_op":"model/op_{meta}:MatMul","hlo_op":"fusion.{meta}","hlo_module":"jit_train_step",'
                     f'"flops":"{100 + i % 97}","bytes_accessed":"200","context_id":"$$1",'
                     '"occupancy_pct":"50","theoretical_occupancy":"62.5","device_id":"0","stream_id":"7"')
        parts.append(f',{{"pid":1,"tid":7,"ts":{t:.6f},"dur":{dur:.6f},"ph":"X","name":"{names[meta]}",'
                     f'"args":{{{args}}}}}')
    parts.append("]}")
    path.write_bytes(gzip.compress("".join(parts).encode(), compresslevel=3))


# ---------------------------------------------------------------- measuring, each run in a fresh child

REFERENCE = {
    "pb": ("from roofline.importers.xplane.xplane_schema import message_classes\n"
           "import sys; s = message_classes()['XSpace'](); s.ParseFromString(open(sys.argv[1], 'rb').read())\n"
           "assert len(s.planes) > 0"),
    "json": ("import gzip, json, sys\n"
             "d = json.loads(gzip.open(sys.argv[1]).read()); assert len(d['traceEvents']) > 0"),
}


def child(argv: list[str]) -> tuple[float, float, int]:
    """(wall s, peak RSS bytes, exit code) of a fresh process running ``argv``.
    RUSAGE_CHILDREN's ru_maxrss is the largest of all waited-for children, so
    each measurement runs under a fresh intermediate process."""
    probe = ("import resource, subprocess, sys, time\n"
             "t0 = time.perf_counter()\n"
             "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n"
             "dt = time.perf_counter() - t0\n"
             "print(dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, rc)\n")
    out = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, check=True).stdout
    dt, rss, rc = out.split()
    return float(dt), float(rss), int(rc)


def measure(path: Path, kind: str) -> None:
    ref = child([sys.executable, "-c", REFERENCE[kind], str(path)])
    ours = child([sys.executable, "-m", "roofline.cli.main", "classify", str(path), "--device", "v100-sxm2",
                  "--format", "csv"])
    size = os.path.getsize(path) / 1e6
    print(f"  {path.name:42s} {size:7.1f} MB   reference {ref[0]:6.1f} s {ref[1] / 1e6:7.0f} MB   "
          f"classify {ours[0]:6.1f} s {ours[1] / 1e6:7.0f} MB  ({ours[1] / max(ref[1], 1):.1f}x ref RSS)"
          + ("" if ours[2] == 0 else f"   EXIT {ours[2]}"), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", default="300000,1000000", help="comma-separated event counts")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--kinds", default="pb,json")
    args = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    print(f"peak RSS of a bare python -c 'import roofline': {child([sys.executable, '-c', 'import roofline'])[1] / 1e6:.0f} MB")
    for n in (int(x) for x in args.events.split(",")):
        for shape in args.shapes.split(","):
            for kind in args.kinds.split(","):
                path = OUT / f"{shape}_{n}.{'xplane.pb' if kind == 'pb' else 'trace.json.gz'}"
                if not path.exists():
                    t0 = time.perf_counter()
                    (write_xplane if kind == "pb" else write_trace_json)(path, n, shape)
                    print(f"  (wrote {path} in {time.perf_counter() - t0:.0f} s)", file=sys.stderr)
                measure(path, kind)


if __name__ == "__main__":
    main()
