"""Shared by the importer tests: real files from conftest.REALDATA (skipped
when absent; tests/realdata_registry.py says where they are) and corrupted
copies of files for the hypothesis tests that check nothing but a
RooflineError escapes a reader.

Two ways of corrupting a file:

* :func:`corrupt`: by slices at fractions ``a`` and ``b`` of the file,
  drawn by the test (truncate, drop or duplicate a slice, or flip bits);
* :func:`corrupt_randomly`: with a ``random.Random`` the test draws
  (truncate, flip 1-7 bytes, or drop 1-3 lines); :func:`check_random_corruption`
  draws everything and reads the result with ``read_profile``.
"""
from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import strategies as st

from conftest import REAL_FILES_ABSENT, REALDATA
from realdata_registry import holds_files
from roofline.core.errors import RooflineError
from roofline.importers import ImportResult, read_profile

NOT_PRESENT = REAL_FILES_ABSENT


def needs_folder(folder: Path) -> pytest.MarkDecorator:
    """Skip a test when ``folder`` (REALDATA or one of its folders) is absent or empty."""
    return pytest.mark.skipif(not holds_files(folder), reason=f"{REAL_FILES_ABSENT} in {folder}")


needs_realdata = needs_folder(REALDATA)


def real_file(path: Path) -> Path:
    """``path``, or skip the test when the file is absent."""
    if not path.exists():
        pytest.skip(f"{REAL_FILES_ABSENT}: {path}")
    return path


def fuzz_dir(name: str) -> Path:
    """A fresh temporary folder for one test module's corrupted files."""
    return Path(tempfile.mkdtemp(prefix=f"roofline-fuzz-{name}-"))


# ---------------------------------------------------------------- by slices

def corrupt(raw: bytes, how: str, a: float, b: float, bits: int) -> bytes:
    """truncate at a, drop [a, b), flip bits at a few places, or duplicate a slice."""
    n = len(raw)
    i, j = sorted((int(a * n), int(b * n)))
    if how == "truncate":
        return raw[:i]
    if how == "drop":
        return raw[:i] + raw[j:]
    if how == "duplicate":
        return raw[:j] + raw[i:j] + raw[j:]
    out = bytearray(raw)
    for k in range(bits):
        if out:
            out[(i + k * 7919 * (j - i + 1)) % n] ^= 1 << (k % 8)
    return bytes(out)


# ---------------------------------------------------------------- at random

RANDOM_KINDS = ["truncate", "flip", "drop_lines"]


def corrupt_randomly(data: bytes, kind: str, rnd) -> bytes:
    """Truncate, flip 1-7 bytes, or drop 1-3 lines."""
    if not data:
        return data
    if kind == "truncate":
        return data[:rnd.randrange(len(data))]
    if kind == "flip":
        b = bytearray(data)
        for _ in range(rnd.randrange(1, 8)):
            b[rnd.randrange(len(b))] ^= rnd.randrange(1, 256)
        return bytes(b)
    lines = data.split(b"\n")
    for _ in range(rnd.randrange(1, 4)):
        if len(lines) > 1:
            del lines[rnd.randrange(len(lines))]
    return b"\n".join(lines)


def check_only_roofline_errors(path: Path, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / path.name
        target.write_bytes(data)
        try:
            result = read_profile(target)
        except RooflineError:
            return
        assert isinstance(result, ImportResult)
        for k in result.kernels:
            assert k.count >= 1
            assert math.isnan(k.time_s) or k.time_s >= 0


def check_random_corruption(data, files: list[Path]) -> None:
    """Draw one of ``files`` and a corruption of it (``data``: hypothesis's
    ``st.data()``), and check that reading it raises only RooflineError."""
    path = data.draw(st.sampled_from(files))
    kind = data.draw(st.sampled_from(RANDOM_KINDS))
    rnd = data.draw(st.randoms(use_true_random=False))
    check_only_roofline_errors(path, corrupt_randomly(path.read_bytes(), kind, rnd))
