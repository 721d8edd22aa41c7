"""Time the user's path on Kineto traces generated differently: the BERT
shape of ``bert_trace.py`` with one thing changed at a time, each against
``json.loads`` of the same file in the same round, each in a fresh process:

    python benchmarks/kineto_variants.py                      # every variant, 300,000 kernels
    python benchmarks/kineto_variants.py --kernels 100000 --only indent2 null_args

``kineto_speed.py`` times a few shapes at full size; this finds what makes
the reader leave its fast path (issue 36: "also checked on trace shapes
generated differently"). Each variant changes one thing a generator or a
tool might:

* layout: ``indent2`` (one key a line, as ``json.dump(indent=2)``),
  ``kineto_spaces`` (a space after every separator), ``crlf_tabs`` (CRLF
  between events, a tab after separators), ``args_first`` and
  ``reversed_keys`` (keys in another order);
* values: ``ints`` (integer times), ``nanos`` (19-digit times, more than a
  double holds), ``unicode_escaped`` and ``unicode_raw`` (non-ASCII names,
  as ``\\u`` escapes or as UTF-8), ``str_ids`` (flow ids as text, kernels on
  ``"stream 7"`` threads), ``schema2021`` (the 2021 categories and keys),
  ``no_launch_args`` (kernels without grid or block);
* other events and arguments: ``extra_events`` (``python_function``,
  instants and step annotations between the kernels), ``nested_args``
  (unread nested values), ``null_args`` (flows with ``"args": null``),
  ``dtype_args`` (operators with a ``dtype`` argument);
* cardinality: ``random_shapes`` (every operator its own shapes),
  ``unique_ops`` (every operator its own name), ``unique_names`` (every
  kernel its own name). The reader works per distinct call and per
  distinct (kernel, operator) row in Python: these show what that costs.

Prints per variant: the file's size, ``json.loads``'s seconds,
``roofline classify FILE --format csv``'s seconds and their ratio (target
<= 0.1), its peak RSS against the file's size (target < 1), and how many
chunks of the file the compiled scanner handed to msgspec (0: every chunk
took the fast path). Files are written once to /tmp/kineto_variant_<name>_<N>.json
(about 9 GB for the twenty at the default size).
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bert_trace  # noqa: E402
from fresh_process import compile_checkout, run  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LOADS = "import json, sys; json.loads(open(sys.argv[1], 'rb').read())"
# the chunks the scanner read and handed back, from a read in a fresh process
COUNT = ("import sys; from roofline.importers import kineto; from roofline.importers.kineto import scanned\n"
         "from roofline.importers.options import ReadOptions\n"
         "seen = [0, 0]; call = scanned.Scanner.__call__\n"
         "def counted(self, buf):\n    r = call(self, buf); seen[r is None] += 1; return r\n"
         "scanned.Scanner.__call__ = counted\n"
         "kineto.read(sys.argv[1], ReadOptions(workers=1, quick_numba_load=True)); print(*seen)\n")


def _with_args(e: dict, **more) -> dict:
    return {**e, "args": {**e["args"], **more}}


def _renamed(e: dict, cat: str, name: str) -> dict:
    return {**e, "name": name} if e.get("cat") == cat else e


def _ints(e, i):
    return {**e, "ts": int(e["ts"]), **({"dur": int(round(e["dur"]))} if "dur" in e else {})}


def _nanos(e, i):
    return {**e, "ts": round(e["ts"] * 1000 + 0.123, 3)}


def _unicode(e, i):
    return {**e, "name": e["name"] + " \u2014 \u00b5s"} if e.get("cat") in ("cpu_op", "kernel") else e


def _args_first(e, i):
    return {"args": e["args"], **{k: v for k, v in e.items() if k != "args"}} if "args" in e else e


def _reversed(e, i):
    out = {k: e[k] for k in reversed(list(e))}
    if isinstance(out.get("args"), dict):
        out["args"] = {k: out["args"][k] for k in reversed(list(out["args"]))}
    return out


def _str_ids(e, i):
    if e.get("ph") in ("s", "f"):
        return {**e, "id": hex(e["id"])}
    return {**e, "tid": f"stream {e['tid']}"} if e.get("cat") == "kernel" else e


def _schema2021(e, i):
    cats = {"cpu_op": "Operator", "cuda_runtime": "Runtime", "kernel": "Kernel"}
    if e.get("cat") not in cats:
        return e
    args = {("external id" if k == "External id" else k): v for k, v in e["args"].items()}
    return {**e, "cat": cats[e["cat"]], "args": args, **({"tid": "stream 7"} if e["cat"] == "kernel" else {})}


def _no_launch_args(e, i):
    if e.get("cat") != "kernel":
        return e
    a = e["args"]
    return {**e, "args": {"External id": a["External id"], "correlation": a["correlation"], "device": 0}}


def _nested(e, i):
    return _with_args(e, extra={"k": [1, 2, {"z": None}], "s": "x"}, flag=True, nothing=None) if "args" in e else e


def _null_args(e, i):
    return {**e, "args": None} if e.get("ph") in ("s", "f") else e


def _dtype(e, i):
    return _with_args(e, dtype="c10::Half") if e.get("cat") == "cpu_op" else e


def _random_shapes(e, i):
    if e.get("cat") != "cpu_op":
        return e
    s = random.Random(i).randint(1, 100_000)       # a sequence length per call, as a server's steps have
    dims = [[s if d == bert_trace.S else d for d in shape] if shape and not isinstance(shape[0], list) else shape
            for shape in e["args"]["Input Dims"]]
    return _with_args(e, **{"Input Dims": dims})


def _extra(e, i):
    yield e
    if e.get("cat") != "cpu_op":
        return
    yield {"ph": "X", "cat": "python_function", "name": f"model.py({i % 500}): forward", "pid": 7, "tid": 7,
           "ts": e["ts"] - 1.0, "dur": 30.0, "args": {"Python parent id": i, "Python id": i + 1, "Python thread": 0}}
    yield {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 7, "ts": e["ts"],
           "args": {"Total Reserved": 1 << 30, "Total Allocated": 1 << 29, "Bytes": 4096, "Addr": 140_000_000 + i,
                    "Device Id": 0, "Device Type": 1}}
    if i % 13 == 0:
        step = {"name": f"ProfilerStep#{i // 13}", "dur": 480.0, "args": {"External id": 10 ** 7 + i}}
        yield {"ph": "X", "cat": "user_annotation", "pid": 7, "tid": 7, "ts": e["ts"] - 2.0, **step}
        yield {"ph": "X", "cat": "gpu_user_annotation", "pid": 0, "tid": 7, "ts": e["ts"] + 18.0, **step}


def _same(e, i):
    return e


# name -> (each event's edit (event, kernel index) -> the event, or the events, to write; json.dumps
# options; the text between events)
VARIANTS = {
    "base": (_same, {"separators": (",", ":")}, ",\n"),
    "indent2": (_same, {"indent": 2}, ",\n"),
    "kineto_spaces": (_same, {}, ",\n"),
    "crlf_tabs": (_same, {"separators": (",\t", ":\t")}, ",\r\n"),
    "args_first": (_args_first, {}, ",\n"),
    "reversed_keys": (_reversed, {}, ",\n"),
    "ints": (_ints, {}, ",\n"),
    "nanos": (_nanos, {}, ",\n"),
    "unicode_escaped": (_unicode, {}, ",\n"),
    "unicode_raw": (_unicode, {"ensure_ascii": False}, ",\n"),
    "str_ids": (_str_ids, {}, ",\n"),
    "schema2021": (_schema2021, {}, ",\n"),
    "no_launch_args": (_no_launch_args, {}, ",\n"),
    "extra_events": (_extra, {}, ",\n"),
    "nested_args": (_nested, {}, ",\n"),
    "null_args": (_null_args, {}, ",\n"),
    "dtype_args": (_dtype, {}, ",\n"),
    "random_shapes": (_random_shapes, {}, ",\n"),
    "unique_ops": (lambda e, i: _renamed(e, "cpu_op", f"{e['name']}_{i}"), {}, ",\n"),
    "unique_names": (lambda e, i: _renamed(e, "kernel", f"triton_poi_fused_add_mul_{i}"), {}, ",\n"),
}


def write(name: str, kernels: int, folder: Path = Path("/tmp")) -> Path:
    """The variant's trace of ``kernels`` kernels (written once; the tests
    read small ones, tests/test_kineto_scanned.py)."""
    path = Path(folder) / f"kineto_variant_{name}_{kernels}.json"
    if path.exists():
        return path
    edit, options, between = VARIANTS[name]
    head = {"schemaVersion": 1, "deviceProperties": [
        {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85_899_345_920, "computeMajor": 8,
         "computeMinor": 0, "numSms": 108}], "record_shapes": 1}
    part = path.with_suffix(".part")
    with open(part, "w", encoding="utf-8", newline="") as fh:
        fh.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
        first = True
        for j, e in enumerate(bert_trace.events(kernels)):
            i = j // 5                                   # the kernel's index (five events a kernel)
            edited = edit(e, i)
            for event in ((edited,) if isinstance(edited, dict) else edited):
                fh.write(("" if first else between) + json.dumps(event, **options))
                first = False
        fh.write('\n], "displayTimeUnit": "ms"}\n')
    part.rename(path)
    return path


def handed_back(path: Path) -> str:
    """'N of M': the chunks the scanner handed to msgspec, of those it was given."""
    out = subprocess.run([sys.executable, "-c", COUNT, str(path)], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    scanned, back = int(out[0]), int(out[1])
    return f"{back} of {scanned + back}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernels", type=int, default=300_000,
                        help="kernels a trace (default 300,000: 0.35-0.55 GB; about 0.3 s of imports and numba "
                             "and 0.2 GB of interpreter count against each, a share that shrinks as traces grow)")
    parser.add_argument("--only", nargs="+", choices=list(VARIANTS), help="these variants only")
    args = parser.parse_args()
    compile_checkout(ROOT)
    print(f"{'variant':16s} {'MB':>6s} {'loads s':>8s} {'classify s':>10s} {'ratio':>6s} {'RSS/file':>8s}  "
          "chunks to msgspec", flush=True)
    for name in args.only or VARIANTS:
        path = write(name, args.kernels)
        size = path.stat().st_size
        loads = run([sys.executable, "-c", LOADS, str(path)])[0]
        wall, _, rss = run([sys.executable, "-m", "roofline.cli.main", "classify", str(path), "--format", "csv"],
                           cwd=str(ROOT))
        print(f"{name:16s} {size / 1e6:6.0f} {loads:8.2f} {wall:10.2f} {wall / loads:6.3f} {rss / size:8.2f}  "
              f"{handed_back(path)}", flush=True)


if __name__ == "__main__":
    main()
