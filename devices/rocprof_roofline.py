"""rocprof-compute's ``roofline.csv``, read as a measured device profile.

ROCm Compute Profiler (rocprof-compute, formerly Omniperf) measures the
roofs of the GPU it profiles on (its ``roofline`` benchmark, now
rocm-amdgpu-bench) and writes them into the workload folder beside
``pmc_perf.csv``: one row per GPU (``device`` 0, 1, ...), each figure with
its measured range::

    device,HBMBw,HBMBwLow,hbmBwHigh,L2Bw,...,L1Bw,...,LDSBw,...,FP32Flops,...,FP64Flops,...,
    MFMABF16Flops,...,MFMAF16Flops,...,MFMAF32Flops,...,MFMAF64Flops,...,MFMAI8Ops,MFMAFI8OpsLow,MFMAI8OpsHigh

Bandwidths are GB/s and rates GFLOP/s (GOP/s for integers), as
rocprof-compute draws them (ROCm/rocprofiler-compute ``src/utils/roofline_calc.py``,
``calc_ceilings``: ``<level>Bw``, ``<type>Flops``, ``MFMA<type>Flops``).
Column names are matched ignoring case (the tool writes ``hbmBwHigh``) and
its ``MFMAFI8OpsLow`` spelling is read as ``MFMAI8OpsLow``; newer versions add
``FP16Flops``, ``BF16Flops``, ``FP8Flops``, ``I8Ops``, ``I32Ops``,
``MFMAF8Flops``, which are read too.

The profile (:func:`read_rocprof_roofline`):

* memory: ``L1Bw`` (the vector L1, vL1D) -> ``L1``, ``L2Bw`` -> ``L2``, ``HBMBw``
  -> ``DRAM``. The LDS is not a memory level (as in the mi250-gcd profile):
  its bandwidth is kept as ``architecture.lds_bytes_s``.
* compute: ``FP32Flops`` -> ``fp32``, ``FP64Flops`` -> ``fp64`` (and fp16,
  bf16, fp8, int8, int32 when given); matrix cores ``MFMAF16Flops`` ->
  ``tensor_fp16``, ``MFMABF16Flops`` -> ``tensor_bf16``, ``MFMAF64Flops`` ->
  ``tensor_fp64``, ``MFMAI8Ops`` -> ``tensor_int8``, ``MFMAF8Flops`` ->
  ``tensor_fp8``, ``MFMAF6Flops``/``MFMAF4Flops`` -> ``tensor_fp6``/``tensor_fp4``.
  Matrix fp32 shares the ``fp32`` roof (the rocprof readers put
  ``SQ_INSTS_VALU_MFMA_MOPS_F32`` work there, as the datasheet profiles
  do): ``fp32`` is the larger of ``FP32Flops`` (VALU, measured without
  packed math: half of ``MFMAF32Flops`` on an MI200) and ``MFMAF32Flops``,
  both kept in ``architecture`` (``valu_fp32_flop_s``, ``mfma_fp32_flop_s``).
* each ceiling's value is the figure rocprof-compute draws; its samples
  are (Low, value, High), so the spread is the measured range.
* the name: the GPU of the ``sysinfo.csv`` beside it (``gpu_model``:
  ``MI300X_A1`` -> ``AMD Instinct MI300X``), else of the folder
  (``workloads/vcopy/MI200/`` -> ``AMD Instinct MI200``).
"""
from __future__ import annotations

import csv
import io
import math
import re
import zlib
from decimal import Decimal, InvalidOperation
from pathlib import Path

from ..core.errors import Advice, InputError
from ..core.model import Ceiling, Device, MemoryLevel
from ..core.text_files import GZIP_MAGIC, gzip_damage, read_text, regular_file, text_bytes

_COMPUTE = {"fp32flops": "fp32", "fp64flops": "fp64", "fp16flops": "fp16", "bf16flops": "bf16",
            "fp8flops": "fp8", "i8ops": "int8", "i32ops": "int32",
            "mfmaf16flops": "tensor_fp16", "mfmabf16flops": "tensor_bf16", "mfmaf32flops": "fp32",
            "mfmaf64flops": "tensor_fp64", "mfmai8ops": "tensor_int8", "mfmaf8flops": "tensor_fp8",
            "mfmaf6flops": "tensor_fp6", "mfmaf4flops": "tensor_fp4"}
_MEMORY = {"l1bw": "L1", "l2bw": "L2", "hbmbw": "DRAM"}
_TYPOS = {"mfmafi8ops": "mfmai8ops"}
MAX_RATE = 1e18          # G-figures beyond an exa-rate are damage, as for ERT
HEADER_KEYS = ("device", "hbmbw", "l2bw")


def is_rocprof_roofline(head: str) -> bool:
    """The first line is rocprof-compute's roofline.csv header."""
    first = head.lstrip().split("\n", 1)[0].lower()
    return all(re.search(rf"(^|,)\s*\"?{key}\"?\s*(,|$)", first) for key in HEADER_KEYS)


def read_rocprof_roofline(path: str | Path, device: int | None = None, name: str | None = None) -> Device:
    """The measured roofs of GPU ``device`` (default: the first row) of a
    rocprof-compute ``roofline.csv`` (or of the workload folder holding one)."""
    path = Path(path)
    if path.is_dir():
        path = path / "roofline.csv"
    rows, header_line = _rows(path)
    line, row = _pick(rows, device, path)
    compute, memory, lds = _ceilings(row, line, path)
    if not compute:
        raise InputError(path, header_line, "no compute figure: expected columns such as FP32Flops, FP64Flops")
    if not memory:
        raise InputError(path, header_line, "no bandwidth figure: expected columns HBMBw, L2Bw, L1Bw")
    gpu = name or _gpu_name(path)
    architecture = _architecture(row, line, path, lds, gpu)
    return Device(name=gpu or f"rocprof-compute roofline ({path.parent.name or path.stem})", kind="gpu",
                  compute=compute, memory=memory, architecture=architecture,
                  provenance={"method": "measured", "tool": "rocprof-compute roofline", "source": str(path),
                              "device_row": architecture["rocprof_device"]},
                  warnings=_warnings(memory))


def _architecture(row: dict, line: int, path: Path, lds: float | None, gpu: str | None) -> dict:
    """What the roofs do not hold: the row, the LDS bandwidth, both fp32
    figures (the roof is the larger), the GPU's name."""
    out = {"vendor": "AMD", "rocprof_device": int(row["device"]) if row["device"].isdigit() else row["device"]}
    for key, what in (("fp32flops", "valu_fp32_flop_s"), ("mfmaf32flops", "mfma_fp32_flop_s")):
        if row.get(key):
            out[what] = _rate(row[key], key, line, path)
    if lds is not None:
        out["lds_bytes_s"] = lds
    if gpu:
        out["gpu_name"] = gpu
    return out


def _rows(path: Path) -> tuple[list[tuple[int, dict]], int]:
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    header, rows = None, []
    try:
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            if header is None:
                header, header_line = [_key(c) for c in cells], reader.line_num
                if "device" not in header:
                    raise InputError(path, header_line, "not a rocprof-compute roofline.csv: no 'device' column")
                continue
            if len(cells) != len(header):
                raise InputError(path, reader.line_num, f"expected {len(header)} cells as the header has, "
                                 f"found {len(cells)}")
            rows.append((reader.line_num, dict(zip(header, (c.strip() for c in cells)))))
    except csv.Error as exc:
        raise InputError(path, reader.line_num, f"malformed CSV: {exc}") from None
    if header is None or not rows:
        raise InputError(path, None, "no roofline rows: expected a header and one row per GPU")
    return rows, header_line


def _key(cell: str) -> str:
    key = cell.strip().lower()
    for typo, right in _TYPOS.items():
        if key.startswith(typo):
            key = right + key[len(typo):]
    return key


def _pick(rows, device: int | None, path: Path):
    if device is None:
        return rows[0]
    for line, row in rows:
        if row["device"] == str(device):
            return line, row
    raise InputError(path, None, f"no row for device {device} (devices: "
                     f"{', '.join(r['device'] for _, r in rows)})")


def _ceilings(row: dict, line: int, path: Path):
    compute, memory, lds = {}, {}, None
    for key, cell in row.items():
        target = _COMPUTE.get(key) or _MEMORY.get(key) or ("lds" if key == "ldsbw" else None)
        if target is None or cell == "":
            continue
        ceiling = Ceiling(_rate(cell, key, line, path), samples=_range(row, key, line, path),
                          source=f"rocprof-compute roofline.csv {key}")
        if target == "lds":
            lds = ceiling.value
        elif key in _MEMORY:
            memory[target] = MemoryLevel(target, ceiling)
        elif target not in compute or ceiling.value > compute[target].value:   # fp32: VALU or MFMA
            compute[target] = ceiling
    return compute, memory, lds


def _rate(cell: str, key: str, line: int, path: Path) -> float:
    try:    # decimal-exact: 20941.971 G -> 2.0941971e13, not 20941970999999.996
        value = float(Decimal(cell).scaleb(9))
    except (InvalidOperation, ValueError):
        raise InputError(path, line, f"column {key}: expected a number (G/s), found {cell[:40]!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_RATE):
        raise InputError(path, line, f"column {key}: {cell[:40]!r} G/s is not a positive rate below 1e18/s")
    return value


def _range(row: dict, key: str, line: int, path: Path) -> tuple[float, ...]:
    out = [_rate(row[key], key, line, path)]
    for bound in ("low", "high"):
        cell = row.get(key + bound, "")
        if cell:
            out.append(_rate(cell, key + bound, line, path))
    return tuple(sorted(out))


def _warnings(memory: dict) -> tuple[Advice, ...]:
    if "DRAM" in memory:
        return ()
    return (Advice("the rocprof-compute roofline has no HBM figure", "rerun rocprof-compute profile with "
                   "the roofline benchmark (--roof-only)", subject="roofline.csv"),)


# --------------------------------------------------------------------------
# naming the GPU
# --------------------------------------------------------------------------

def product_name(model: str) -> str:
    """rocprof-compute's gpu_model as AMD names the product: 'MI300X_A1' ->
    'AMD Instinct MI300X' (the stepping suffix dropped), 'MI200' -> 'AMD
    Instinct MI200'; other text unchanged."""
    text = model.strip()
    m = re.fullmatch(r"(MI\d+[A-Z]*)(?:_[A-Z]\d+)?", text, re.IGNORECASE)
    return f"AMD Instinct {m.group(1).upper()}" if m else text


# A file that describes the machine (sysinfo.csv: one row of about 1 KB,
# agent_info.csv: a row per CPU and GPU) is read up to this size, no further.
MAX_DESCRIPTION_BYTES = 1 << 20


def read_small_text(path, what: str) -> str:
    """The text of a file that describes the machine (sysinfo.csv,
    rocprofv3's agent_info.csv), gzip or not, without reading (or inflating)
    past :data:`MAX_DESCRIPTION_BYTES`: a larger one is refused naming
    ``what`` it should have been."""
    regular_file(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_DESCRIPTION_BYTES + 1)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    if raw.startswith(GZIP_MAGIC):
        try:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, MAX_DESCRIPTION_BYTES + 1)
        except zlib.error as exc:
            raise InputError(path, None, gzip_damage(exc)) from None
    if len(raw) > MAX_DESCRIPTION_BYTES:
        raise InputError(path, None, f"more than {MAX_DESCRIPTION_BYTES:,} bytes: not {what} (not read further)")
    try:
        return text_bytes(raw).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not UTF-8 text (byte {exc.start})") from None


def sysinfo_row(path: Path) -> dict[str, str] | None:
    """The one row of a sysinfo.csv, keys lower-case; None when unreadable
    (or larger than :data:`MAX_DESCRIPTION_BYTES`)."""
    try:
        rows = list(csv.reader(io.StringIO(read_small_text(path, "a sysinfo.csv"), newline="")))
    except (InputError, csv.Error):
        return None
    rows = [r for r in rows if any(c.strip() for c in r)]
    if len(rows) != 2 or len(rows[0]) != len(rows[1]):
        return None
    return {k.strip().lower(): v.strip() for k, v in zip(*rows)}


def _gpu_name(path: Path) -> str | None:
    stem = path.name[:-len("roofline.csv")] if path.name.endswith("roofline.csv") else None
    info = path.with_name(stem + "sysinfo.csv") if stem is not None else None
    row = sysinfo_row(info) if info is not None and info.is_file() else None
    if row and row.get("gpu_model"):
        return product_name(row["gpu_model"])
    folder = product_name(path.parent.name)
    return folder if folder.startswith("AMD Instinct") else None
