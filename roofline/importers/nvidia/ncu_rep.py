"""Nsight Compute binary reports (``.ncu-rep``) -> one kernel per profiled launch.

Needs the optional ``ncu-report`` package (``pip install 'roofline[ncu]'``),
which reads reports without a GPU or an Nsight Compute install. Every scalar
metric of each action (launch) goes through the same counter rules as the CSV
exports (:mod:`roofline.importers.nvidia.counters`), so a report and
``ncu --import report.ncu-rep --csv`` give the same kernels; launch IDs are
numbered in report order across ranges, as in the CSV.

Two checks guard against bad files, because ``ncu_report.load_report`` does
not fail on them: a report with zero ranges (what it returns for garbage) is
an error, and so is a file whose block framing does not end exactly at the
end of the file. Every report seen so far (Nsight Compute 2019 to 2025) is
the magic ``NVR\\0`` followed by blocks of a 4-byte little-endian length and
that many bytes; a truncated or spliced file breaks that chain, where the
library would silently return the launches before the damage.
"""
from __future__ import annotations

import math
import struct
from pathlib import Path

from ..options import DEFAULT, ReadOptions
from ...core.errors import InputError, RooflineError
from ...core.import_result import DeviceClues, ImportResult
from ..base import Reader, register
from .counters import ncu_counts
from .metrics import Metric, MetricSet
from ..results import advice_for, all_nan_advice, family_for, kernel_from_counts

MAGIC = b"NVR\x00"
INSTALL_HINT = "pip install 'roofline[ncu]'"


def sniff(path: Path, head: bytes) -> bool:
    return head.startswith(MAGIC)


def _ncu_report():
    try:
        import ncu_report  # noqa: PLC0415 - optional dependency, imported on use
    except ImportError:
        raise RooflineError("reading .ncu-rep files needs the ncu-report package: "
                            f"{INSTALL_HINT}") from None
    return ncu_report


def check_framing(path, data: bytes) -> None:
    """Raise InputError unless ``data`` is MAGIC + length-prefixed blocks
    ending exactly at the end of the file."""
    if not data.startswith(MAGIC):
        raise InputError(path, None, "not an Nsight Compute report (no NVR magic)")
    offset, blocks = len(MAGIC), 0
    while offset < len(data):
        if offset + 4 > len(data):
            break
        (size,) = struct.unpack_from("<I", data, offset)
        offset += 4 + size
        blocks += 1
    if offset != len(data):
        raise InputError(path, None, f"truncated or corrupted report: block {blocks} ends at byte "
                         f"{offset}, the file has {len(data)} bytes")


def read(path: Path, options: ReadOptions = DEFAULT) -> ImportResult:
    _ncu_report()           # a clear error when the package is missing
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    check_framing(path, data)
    found = _read_in_child(path)
    if found["ranges"] == 0:
        raise InputError(path, None, "not a readable Nsight Compute report: it has no ranges")
    kernels, counted, device, capability = [], [], None, None
    for launch_id, act in enumerate(found["actions"]):
        name = act["name"]
        if not isinstance(name, str) or not name:
            raise InputError(path, None, f"launch {launch_id} has no kernel name: a damaged report")
        metrics = {k: Metric(v, unit) for k, (v, unit) in act["numbers"].items()}
        strings = act["strings"]
        ms = MetricSet(path, metrics)
        cc = None
        major = ms.get("device__attribute_compute_capability_major")
        minor = ms.get("device__attribute_compute_capability_minor")
        if major is not None and minor is not None and math.isfinite(major) and math.isfinite(minor):
            cc = f"{int(major)}.{int(minor)}"
        counts = ncu_counts(ms, name, cc)
        launch = {"id": launch_id}
        for metric, key in (("launch__grid_size", "grid"), ("launch__block_size", "block"),
                            ("launch__stream_id", "stream"), ("launch__context_id", "context")):
            v = ms.get(metric)
            if v is not None and math.isfinite(v):
                launch[key] = int(v)
        if cc:
            launch["cc"] = cc
        device = device or strings.get("device__attribute_display_name")
        capability = capability or cc
        kernels.append(kernel_from_counts(name, counts, launch=launch, family=family_for(name)))
        counted.append(counts)
    if not kernels:
        raise InputError(path, None, "the report has no profiled kernel")
    nan_only = [i for i, act in enumerate(found["actions"])
                if act["numbers"] and all(math.isnan(v) for v, _ in act["numbers"].values())]
    return ImportResult(str(path), "ncu-rep", tuple(kernels),
                        warnings=tuple(advice_for(path, kernels, counted, tool="ncu")
                                               + all_nan_advice(path, nan_only, len(kernels))),
                        device=DeviceClues(name=device, capability=capability, kind="gpu"))


CHILD_TIMEOUT_S = 600


def child_command(path) -> list[str]:
    """The command that reads ``path`` in a child Python, isolated (``-I``:
    no PYTHON* variables, no user site, and neither the working directory
    nor the script's folder on ``sys.path``), so that a stray ``inspect.py``
    or ``json.py`` where the user runs roofline, or a PYTHONPATH, is never
    imported. The child is run as a file, not with ``-m roofline...``,
    because it needs nothing of roofline; the folder the parent found
    ``ncu_report`` in is passed when the isolated child would not see it
    (a user-site or PYTHONPATH install), and the child puts it after the
    standard library."""
    import sys
    from . import ncu_rep_child
    return [sys.executable, "-I", str(Path(ncu_rep_child.__file__).resolve()), str(path), *_ncu_report_home()]


def _ncu_report_home() -> list[str]:
    """[the folder holding the ncu_report package] when it is not one the
    isolated child searches anyway, and not the working directory; else []."""
    import os
    import site
    import sysconfig
    found = Path(_ncu_report().__file__).resolve()
    home = found.parent.parent if found.name == "__init__.py" else found.parent
    searched = {Path(p).resolve() for p in (sysconfig.get_paths().get("purelib"), sysconfig.get_paths().get("platlib"),
                                            *getattr(site, "getsitepackages", lambda: [])()) if p}
    if home in searched or home == Path(os.getcwd()).resolve():
        return []
    return [str(home)]


def _read_in_child(path) -> dict:
    """The report's launches, read by ncu_report in a child process (it
    aborts the process on some damaged files); any failure is one InputError."""
    import json
    import subprocess
    try:
        proc = subprocess.run(child_command(path), capture_output=True, timeout=CHILD_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise InputError(path, None, f"ncu_report did not finish in {CHILD_TIMEOUT_S} s") from None
    if proc.returncode != 0:
        how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit code {proc.returncode}"
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        hint = next((line for line in detail if "Check failed" in line or "rror" in line), "")
        raise InputError(path, None, f"ncu_report crashed reading the report ({how}): a damaged "
                         f"report{'; ' + hint[-160:] if hint else ''}")
    try:
        found = json.loads(proc.stdout)
    except ValueError:
        raise InputError(path, None, "ncu_report gave no readable answer: a damaged report") from None
    if "error" in found:
        raise InputError(path, None, f"ncu_report cannot read the report ({found['error']})")
    return found


register(Reader("ncu-rep", sniff, read))
