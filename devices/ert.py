"""Empirical Roofline Toolkit (ERT) results, read as a measured device profile.

ERT (Berkeley Lab CS Roofline Toolkit) writes, per run directory:

* ``roofline.json``: ``{"empirical": {"gflops": {"data": [["FP64 GFLOPs",
  4258.4]], "metadata": ...}, "gbytes": {"data": [["L1", 1723.76], ["L2",
  ...], ["DRAM", ...]], ...}}, "spec": {...}}``. Two metadata schemas exist:
  ERT 1.1.0's Python 2 driver stores a mapping (``{"ERT_VERSION": "1.1.0",
  "CONFIG": {...}, ...}``); the later Python 3 driver stores the raw lines,
  a list of ``"KEY  value"`` strings under the key ``""``. Both are read.
  ``spec`` figures (``ERT_SPEC_GFLOPS``, ``ERT_SPEC_GBYTES_<level>``), when
  present, become the ceilings' ``theoretical`` rates.
* ``sum`` per FLOPS/blocks/threads configuration: lines ``value label``
  (``2907.99 FP64 GFLOPs``, ``4729.06 Weight``, ``727.00 L1``, ``439.42
  DRAM``), then ``META_DATA`` and ``KEY  value`` lines. Read the same way
  (``Weight`` is ERT's internal score and is skipped).
* ``try.NNN``: the raw sweep, one per experiment: a precision line
  (``fp64``), then per line working-set bytes, trials, time in
  microseconds, total bytes, total FLOP. :func:`read_ert_sweep` derives
  GB/s and GFLOP/s the way ERT's scripts do: for each (working set, trials)
  the best time over experiments (try files), then for each working set
  the line with the most trials. The sweep's peaks are what ERT's ``sum``
  reports for the compute roof and the first (L1) band; naming the other
  levels needs ERT's plateau finder, so a device is not built from a sweep.

:func:`read_ert_device` returns a :class:`~roofline.core.model.Device` with
``provenance`` ``{method: measured, tool: ERT, ...}``. Compute ceilings come
from the gflops labels (``FP64 GFLOPs`` -> ``fp64``; an unlabelled ``GFLOPs``
takes ``ERT_PRECISION`` from the metadata, FP64 by default); memory labels
``L1``/``L2``/``L3``/``DRAM`` keep their names (``HBM``/``MCDRAM`` become
``DRAM`` when there is no ``DRAM`` row).

ERT files are device profiles, not kernel profiles: the reader registered
in :mod:`roofline.importers.ert` recognises them (:func:`ert_kind`) so that
``roofline plot ert/roofline.json`` fails with a message pointing to
``--device PATH`` instead of "unrecognised format".
"""
from __future__ import annotations

import ast
import datetime as _dt
import json
import math
import re
import warnings
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import numpy as np

from ..core.errors import Advice, InputError
from ..core.model import Ceiling, Device, MemoryLevel
from ..core.text_files import read_text

_LEVELS = {"l1": "L1", "l2": "L2", "l3": "L3", "dram": "DRAM"}
_DRAM_ALIASES = ("hbm", "mcdram", "gddr", "memory", "mem")
_PRECISIONS = (("fp64", "fp64"), ("double", "fp64"), ("dp", "fp64"), ("fp32", "fp32"),
               ("single", "fp32"), ("sp", "fp32"), ("fp16", "fp16"), ("half", "fp16"),
               ("hp", "fp16"), ("bf16", "bf16"))
_SUM_LINE = re.compile(r"^\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s+(\S.*?)\s*$")


# ---------------------------------------------------------------- metadata

def _literal(text: str):
    try:
        with warnings.catch_warnings():  # odd escapes in compiler flags are not our concern
            warnings.simplefilter("ignore")
            return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def parse_metadata_lines(lines) -> dict:
    """``["FLOPS          1024", "ERT_VERSION  1.1.0", ...]`` -> mapping,
    values as Python literals where they are ones."""
    out: dict = {}
    for line in lines:
        if not isinstance(line, str):
            continue
        key, _, value = line.strip().partition(" ")
        if not key or key == "META_DATA":
            continue
        out[key] = _literal(value.strip())
    return out


def _metadata(node) -> dict:
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "" and isinstance(v, list):
                out.update(parse_metadata_lines(v))
            else:
                out[k] = v
        return out
    if isinstance(node, list):
        return parse_metadata_lines(node)
    return {}


def _config(meta: dict) -> dict:
    cfg = meta.get("CONFIG")
    return cfg if isinstance(cfg, dict) else {}


def _first(value):
    if isinstance(value, (list, tuple)) and value:
        return value[0]
    return value


def _is_gpu(meta: dict) -> bool:
    gpu = _first(_config(meta).get("ERT_GPU"))
    if gpu is None and ("GPU_BLOCKS" in meta or "GPU_THREADS" in meta):
        return True
    return str(gpu).strip().lower() == "true"


def _precision(label: str, meta: dict) -> str:
    text = label.lower()
    for word, key in _PRECISIONS:
        if re.search(rf"\b{word}\b", text):
            return key
    configured = _first(_config(meta).get("ERT_PRECISION"))
    if isinstance(configured, str):
        first = configured.split(",")[0].strip().lower()
        for word, key in _PRECISIONS:
            if first == word:
                return key
    return "fp64"


def _level(label: str, taken: set) -> str:
    key = label.strip().lower()
    if key in _LEVELS:
        return _LEVELS[key]
    if key in _DRAM_ALIASES and "DRAM" not in taken:
        return "DRAM"
    return label.strip()


def _device_name(meta: dict, path: Path) -> str:
    """The results folder or host name; a lone surrogate (json.loads reads
    "\\ud800" as one, and no output can encode it) becomes U+FFFD."""
    return re.sub("[\ud800-\udfff]", "\ufffd", _raw_name(meta, path))


def _raw_name(meta: dict, path: Path) -> str:
    results = _first(_config(meta).get("ERT_RESULTS"))
    if isinstance(results, str) and results.strip():
        name = Path(results.strip()).name
        return re.sub(r"^Results\.", "", name) or name
    host = meta.get("HOSTNAME")
    if isinstance(host, (list, tuple)) and host:
        host = host[0]
    if isinstance(host, str) and host:
        return host
    return path.stem


def _provenance(meta: dict, path: Path, kind: str) -> dict:
    prov = {"method": "measured", "tool": "ERT", "source": str(path), "ert_file": kind}
    version = meta.get("ERT_VERSION")
    if version is not None:
        prov["version"] = str(version)
    stamp = meta.get("TIMESTAMP_DATA")
    if isinstance(stamp, (int, float)) and math.isfinite(stamp) and 0 < stamp < 1e11:
        prov["date"] = _dt.datetime.fromtimestamp(stamp, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    host = meta.get("HOSTNAME")
    if isinstance(host, (list, tuple)) and host:
        host = host[0]
    if isinstance(host, str):
        prov["host"] = host
    for key in ("FLOPS", "GPU_BLOCKS", "GPU_THREADS", "OPENMP_THREADS", "MPI_PROCS"):
        value = meta.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            prov[f"ert_{key.lower()}"] = value
    return prov


# No device measures more than an exa-rate (1e18 FLOP/s or bytes/s); a
# larger figure in an ERT file is damage, not a measurement.
MAX_RATE = 1e18


def _rate(value, path, line, what) -> float:
    """A positive G-rate (GFLOP/s, GB/s) -> the SI rate, decimal-exact
    (4258.4 -> 4.2584e12, not 4258399999999.9995), for any exponent (the
    figure is scaled as a decimal, never pasted into a string: '1e+16' + 'e9'
    was no number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(path, line, f"{what}: expected a number, found {_short(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(path, line, f"{what}: expected a positive rate, found {value!r}")
    rate = float((Decimal(value) if isinstance(value, int) else Decimal(repr(value))).scaleb(9))
    if not 0 < rate <= MAX_RATE:
        raise InputError(path, line, f"{what}: {_short(value)} G/s is "
                         f"{'not a positive rate' if rate <= 0 else 'beyond any device (over 1e18 per second)'}")
    return rate


def _short(value) -> str:
    """repr of a value from the file, at most 40 characters (a 4,000-digit
    integer would flood the message)."""
    text = repr(value) if not isinstance(value, int) or value.bit_length() < 128 else f"a {value.bit_length()}-bit integer"
    return text if len(text) <= 40 else text[:40] + "..."


def _build(path: Path, flop_rows, byte_rows, meta: dict, kind: str, name: str | None,
           spec_flops=None, spec_bytes=None) -> Device:
    """rows are (label, G-rate, line) triples."""
    compute: dict[str, Ceiling] = {}
    for label, value, line in flop_rows:
        prec = _precision(label, meta)
        rate = _rate(value, path, line, f"gflops {label!r}")
        theo = (spec_flops or {}).get(prec)
        if prec not in compute or rate > compute[prec].value:
            compute[prec] = Ceiling(rate, theoretical=theo, source=f"ERT {label}")
    if not compute:
        raise InputError(path, None, "no GFLOP/s figure (expected a row like 'FP64 GFLOPs')")
    memory: dict[str, MemoryLevel] = {}
    for label, value, line in byte_rows:
        level = _level(label, set(memory))
        rate = _rate(value, path, line, f"gbytes {label!r}")
        theo = (spec_bytes or {}).get(level)
        memory[level] = MemoryLevel(level, Ceiling(rate, theoretical=theo, source=f"ERT {label}"))
    if not memory:
        raise InputError(path, None, "no GB/s figure (expected rows like 'L1', 'DRAM')")
    gpu = _is_gpu(meta)
    warnings = []
    if not gpu:
        warnings.append(Advice(
            "ERT's compute kernel runs one dependent FMA chain per element; on CPUs it can read "
            "about a third below the FMA peak", "compare with 'roofline measure' or likwid-bench",
            subject="ERT"))
    if "DRAM" not in memory:
        warnings.append(Advice("the ERT result has no DRAM level", "rerun ERT with a working set "
                               "larger than 4x the last-level cache (ERT_MEMORY_MAX)", subject="ERT"))
    return Device(name=name or _device_name(meta, path), kind="gpu" if gpu else "cpu",
                  compute=compute, memory=memory, provenance=_provenance(meta, path, kind),
                  warnings=tuple(warnings))


# ---------------------------------------------------------------- roofline.json

def _rows(node, path, where) -> list:
    if node is None:
        return []
    data = node.get("data") if isinstance(node, dict) else None
    if not isinstance(data, list):
        raise InputError(path, None, f"{where}.data: expected a list of [label, value] pairs")
    rows = []
    for i, row in enumerate(data):
        if not (isinstance(row, (list, tuple)) and len(row) == 2 and isinstance(row[0], str)):
            raise InputError(path, None, f"{where}.data[{i}]: expected [label, value], found {row!r}")
        rows.append((row[0], row[1], None))
    return rows


def _from_json(data, path: Path, name: str | None) -> Device:
    if not isinstance(data, dict) or not isinstance(data.get("empirical"), dict):
        raise InputError(path, None, "not an ERT roofline.json: no 'empirical' object")
    emp = data["empirical"]
    meta: dict = {}
    nodes = [emp.get("metadata")] + [emp[k].get("metadata") for k in ("gflops", "gbytes")
                                     if isinstance(emp.get(k), dict)]
    for node in nodes:
        for k, v in _metadata(node).items():
            meta.setdefault(k, v)
    flop_rows = _rows(emp.get("gflops"), path, "empirical.gflops")
    byte_rows = _rows(emp.get("gbytes"), path, "empirical.gbytes")
    spec_flops, spec_bytes = {}, {}
    spec = data.get("spec")
    if isinstance(spec, dict):
        try:
            for label, value, _ in _rows(spec.get("gflops"), path, "spec.gflops"):
                spec_flops[_precision(label, meta)] = _rate(value, path, None, f"spec gflops {label!r}")
            for label, value, _ in _rows(spec.get("gbytes"), path, "spec.gbytes"):
                spec_bytes[_level(label, set(spec_bytes))] = _rate(value, path, None, f"spec gbytes {label!r}")
        except InputError:
            spec_flops, spec_bytes = {}, {}
    return _build(path, flop_rows, byte_rows, meta, "roofline.json", name, spec_flops, spec_bytes)


# ---------------------------------------------------------------- sum

def parse_sum(text: str, path: str | Path = "<ERT sum>", name: str | None = None) -> Device:
    path = Path(str(path))
    flop_rows, byte_rows, meta_lines = [], [], []
    in_meta = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if line.strip() == "META_DATA":
            in_meta = True
            continue
        if in_meta:
            meta_lines.append(line)
            continue
        m = _SUM_LINE.match(line)
        if not m:
            raise InputError(path, number, f"expected 'value label' (e.g. '727.00 L1'), found {line.strip()!r}")
        value, label = float(m.group(1)), m.group(2)
        if label.lower() == "weight":
            continue
        (flop_rows if "flop" in label.lower() else byte_rows).append((label, value, number))
    return _build(path, flop_rows, byte_rows, parse_metadata_lines(meta_lines), "sum", name)


# ---------------------------------------------------------------- try.NNN sweeps

@dataclass(frozen=True)
class ErtSweep:
    """A raw ERT sweep: one row per (precision, working set, trials), the best
    time over the experiments read. Rates in SI (bytes/s, FLOP/s)."""

    precision: np.ndarray          # object array of labels ("fp64")
    working_set_bytes: np.ndarray
    trials: np.ndarray
    time_s: np.ndarray
    total_bytes: np.ndarray
    total_flops: np.ndarray
    experiments: int = 1
    metadata: dict = field(default_factory=dict)

    @property
    def bytes_s(self) -> np.ndarray:
        return self.total_bytes / self.time_s

    @property
    def flop_s(self) -> np.ndarray:
        return self.total_flops / self.time_s

    def best(self) -> "ErtSweep":
        """For each (precision, working set) the row with the most trials,
        as ERT's ``maximum.py`` keeps it."""
        keep: dict[tuple, int] = {}
        for i, key in enumerate(zip(self.precision, self.working_set_bytes)):
            j = keep.get(key)
            if j is None or self.trials[i] > self.trials[j]:
                keep[key] = i
        idx = np.array(sorted(keep.values()), dtype=int)
        return ErtSweep(self.precision[idx], self.working_set_bytes[idx], self.trials[idx],
                        self.time_s[idx], self.total_bytes[idx], self.total_flops[idx],
                        self.experiments, self.metadata)

    @property
    def peak_flop_s(self) -> float:
        """ERT's compute figure: the best FLOP/s over working sets (of :meth:`best`)."""
        return float(np.max(self.best().flop_s))

    @property
    def peak_bytes_s(self) -> float:
        """ERT's first-band bandwidth: the best bytes/s over working sets (of :meth:`best`)."""
        return float(np.max(self.best().bytes_s))


def _parse_try(text: str, path: Path):
    rows, meta_lines = [], []
    precision = None
    in_meta = False
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "META_DATA":
            in_meta = True
            continue
        if in_meta:
            meta_lines.append(line)
            continue
        if len(parts) == 1 and re.fullmatch(r"[A-Za-z]+\d*", parts[0]):
            precision = parts[0].lower()
            continue
        if len(parts) != 5:
            raise InputError(path, number, "expected 5 columns (working-set bytes, trials, time us, "
                             f"total bytes, total FLOP), found {len(parts)}")
        try:
            ws, trials, usec, nbytes, nflops = (float(p) for p in parts)
        except ValueError:
            raise InputError(path, number, f"expected 5 numbers, found {line.strip()!r}") from None
        if precision is None:
            raise InputError(path, number, "data before the precision line (e.g. 'fp64')")
        if not all(math.isfinite(v) and v >= 0 for v in (ws, trials, usec, nbytes, nflops)) or usec <= 0:
            raise InputError(path, number, f"expected non-negative numbers and a positive time, "
                             f"found {line.strip()!r}")
        rows.append((precision, ws, trials, usec * 1e-6, nbytes, nflops))
    if not rows:
        raise InputError(path, None, "no sweep rows: expected a precision line then "
                         "'working-set trials usec bytes flops' rows")
    return rows, parse_metadata_lines(meta_lines)


def read_ert_sweep(*paths: str | Path) -> ErtSweep:
    """One or more ``try.NNN`` files of one run (experiments) -> the sweep,
    keeping the best (shortest) time of each (precision, working set,
    trials) over experiments, as ERT's ``preprocess.py`` does."""
    if not paths:
        raise ValueError("read_ert_sweep needs at least one try file")
    best: dict[tuple, list] = {}
    meta: dict = {}
    for p in paths:
        path = Path(p)
        rows, m = _parse_try(_read_text(path), path)
        meta = meta or m
        for prec, ws, trials, t, nbytes, nflops in rows:
            key = (prec, ws, trials)
            if key not in best or t < best[key][0]:
                best[key] = [t, nbytes, nflops]
    keys = list(best)
    return ErtSweep(
        precision=np.array([k[0] for k in keys], dtype=object),
        working_set_bytes=np.array([k[1] for k in keys]),
        trials=np.array([k[2] for k in keys]),
        time_s=np.array([best[k][0] for k in keys]),
        total_bytes=np.array([best[k][1] for k in keys]),
        total_flops=np.array([best[k][2] for k in keys]),
        experiments=len(paths), metadata=meta)


# ---------------------------------------------------------------- entry points

def _read_text(path: Path) -> str:
    return read_text(path)   # gzip, byte-order marks and UTF-16 as every text reader


def ert_kind(head: bytes) -> str | None:
    """'json', 'sum' or 'try' when ``head`` looks like an ERT file."""
    text = head.lstrip()
    if text.startswith(b"{"):
        if b'"empirical"' in text and (b'"gflops"' in text or b'"gbytes"' in text):
            return "json"
        return None
    try:
        lines = [ln for ln in head.decode("utf-8", errors="replace").splitlines() if ln.strip()]
    except Exception:  # pragma: no cover - decode with replace does not raise
        return None
    if not lines:
        return None
    first = lines[0].split()
    if len(first) == 1 and re.fullmatch(r"fp\d+|double|single|half", first[0].lower()):
        if len(lines) > 1 and len(lines[1].split()) == 5:
            return "try"
    if _SUM_LINE.match(lines[0]) and "gflop" in lines[0].lower():
        return "sum"
    return None


def read_ert_device(path: str | Path, name: str | None = None) -> Device:
    """An ERT ``roofline.json`` or per-run ``sum`` file -> a measured Device.

    ``name`` overrides the device name (default: the ERT results directory
    from the metadata, e.g. ``kingspeak-p100-gpu.01``, else the host name).
    """
    path = Path(path)
    text = _read_text(path)
    kind = "json" if text.lstrip().startswith("{") else ert_kind(text[:65536].encode("utf-8", errors="replace"))
    if kind == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(path, exc.lineno, f"not valid JSON: {exc.msg}") from None
        except RecursionError:
            raise InputError(path, None, "JSON nested too deeply") from None
        except ValueError as exc:   # an integer over 4,300 digits (int() refuses it)
            raise InputError(path, None, f"not valid JSON: {str(exc)[:100]}") from None
        return _from_json(data, path, name)
    if kind == "sum":
        return parse_sum(text, path, name)
    if kind == "try":
        raise InputError(path, None, "this is a raw ERT sweep (try.NNN): its bands are not named; use "
                         "the roofline.json or sum file of the run, or read_ert_sweep() for the curve")
    raise InputError(path, None, "not an ERT result: expected roofline.json (with 'empirical' gflops/"
                     "gbytes) or a per-run 'sum' file")
