"""Every user-visible output of the CLI on the real files, frozen: a refactor
that must not change what users see (docs/architecture.md) is held to it.

For each real file (tests/realdata_registry.json) and the examples:
``classify`` as JSON on the device the file names and on a fixed one, as
CSV, and ``report`` to Markdown (its text; PNG bytes depend on the
matplotlib and FreeType build, so pictures count by name only), each with its
exit status and standard error. A CPU trace (one the CLI would place on
this machine's CPU) also runs on a fixed measured CPU profile,
tests/data/zen3_cpu.yaml: the machine's own would differ everywhere. The
CLI runs in this process (``roofline.cli.main.main(argv)``, its own
folder, an empty ROOFLINE_HOME). The input's path, wall-clock times and
temporary paths are masked (:func:`realdata_snapshot.masked`).

A change that is meant to change an output regenerates the files and the
commit shows the difference:

    ROOFLINE_UPDATE_GOLDEN=1 python -m pytest tests/test_golden_outputs.py

A difference fails with a unified diff (its first 40 lines) and that
command. A missing golden file fails (when its real file is here): a new
file or command needs its golden file committed. Real files absent: their
cases skip, the examples are still checked.
"""
from __future__ import annotations

import contextlib
import difflib
import gzip
import io
import json
import os
import sys
from pathlib import Path

import pytest

from conftest import REALDATA

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).with_name("golden")
sys.path.insert(0, str(ROOT / "tools"))
from realdata_snapshot import masked  # noqa: E402

FIXED_GPU = "v100-sxm2"
# A measured CPU profile (schema 1), the same file on every machine: the
# machine's own would change every CPU figure. (A cpu_sweeps/ fixture is a
# trimmed sweep, not a profile: --device refuses it.)
FIXED_CPU = ROOT / "tests" / "data" / "zen3_cpu.yaml"
EXAMPLES = ("ece408_kernels.csv", "ece408_nvprof_m1.txt", "pytorch_cpu_trace.json.gz")
CPU_TRACES = {"examples/pytorch_cpu_trace.json.gz"}
ASKS_FOR_MY_CPU = "calibrate this CPU"      # a file the CLI would place on this machine's CPU
UPDATE = os.environ.get("ROOFLINE_UPDATE_GOLDEN") == "1"


def _real_names() -> list[str]:
    files = json.loads((ROOT / "tests" / "realdata_registry.json").read_text())["files"]
    return sorted(f["name"] for f in files)


GPU_COMMANDS = ("classify.json", "classify.fixed.json", "classify.csv", "report.md")
CPU_COMMANDS = ("cpu.classify.json", "cpu.report.md")


def _argv(what: str, path: str) -> list[str]:
    return {"classify.json": ["classify", path, "--format", "json"],
            "classify.fixed.json": ["classify", path, "--device", FIXED_GPU, "--format", "json"],
            "classify.csv": ["classify", path, "--format", "csv"],
            "report.md": ["report", path, "-o", "report.md"],
            "cpu.classify.json": ["classify", path, "--device", str(FIXED_CPU), "--format", "json"],
            "cpu.report.md": ["report", path, "--device", str(FIXED_CPU), "-o", "report.md"]}[what]


def _cases():
    for name in EXAMPLES:
        yield pytest.param(f"examples/{name}", ROOT / "examples" / name, id=f"examples/{name}")
    for name in _real_names():
        yield pytest.param(f"realdata/{name}", None, id=f"realdata/{name}")


def _run(argv: list[str], cwd: Path) -> str:
    """The CLI in this process, as a user would see it: exit status, stdout,
    stderr, and the report it wrote (its text; its pictures by name)."""
    from roofline.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exc:       # argparse's own errors
                status = exc.code
    finally:
        os.chdir(here)
    text = f"$ roofline {' '.join(argv)}\nexit {status}\n--- stdout\n{out.getvalue()}--- stderr\n{err.getvalue()}"
    report = cwd / "report.md"
    if report.exists():
        text += "\n--- report.md\n" + report.read_text()
        text += "\n--- files\n" + "\n".join(sorted(p.name for p in cwd.iterdir() if p != report))
        report.unlink()
    return text


def _golden_file(key: str, what: str) -> Path:
    return GOLDEN / (key.replace("/", "__") + "." + what + ".gz")


def _seen(argv: list[str], key: str, path: Path, work: Path, home: Path) -> str:
    # The input's own path first (it may lie inside the checkout), then the
    # snapshot tool's masks.
    return masked(_run(argv, work).replace(str(path), f"<{key}>"), work, str(home), ROOT)


def test_every_golden_file_belongs_to_a_case():
    """A renamed or dropped case leaves no stale golden file behind (it would
    hold nothing)."""
    keys = [p.values[0] for p in _cases()]
    known = {_golden_file(k, w).name for k in keys for w in GPU_COMMANDS + CPU_COMMANDS}
    stale = sorted(p.name for p in GOLDEN.glob("*.gz") if p.name not in known)
    assert not stale, f"golden files of no case: {stale}"


@pytest.mark.parametrize("key, path", list(_cases()))
def test_outputs_are_what_they_were(key, path, tmp_path, monkeypatch):
    if path is None:
        path = REALDATA / key.removeprefix("realdata/")
        if not path.is_file():
            pytest.skip(f"real file absent: {path}")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("ROOFLINE_HOME", str(home))      # no saved profile is chosen
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("NO_COLOR", "1")
    work = tmp_path / "work"
    work.mkdir()
    failures = []
    whats = list(GPU_COMMANDS)
    for what in whats:
        argv = _argv(what, str(path))
        got = _seen(argv, key, path, work, home)
        if what == "classify.json" and (key in CPU_TRACES or ASKS_FOR_MY_CPU in got):
            whats += CPU_COMMANDS           # the CLI would use this machine's CPU: a fixed one instead
        if what == "report.md" and "\nexit 2\n" in got and "--device" in got:   # names no GPU: on a fixed one
            got += "\n\n" + _seen(argv + ["--device", FIXED_GPU], key, path, work, home)
        golden = _golden_file(key, what)
        if UPDATE:
            golden.parent.mkdir(exist_ok=True)
            golden.write_bytes(gzip.compress(got.encode(), mtime=0))
            continue
        if not golden.exists():
            failures.append(f"{golden.name}: no golden file (ROOFLINE_UPDATE_GOLDEN=1 to write it)")
            continue
        want = gzip.decompress(golden.read_bytes()).decode()
        if got != want:
            diff = list(difflib.unified_diff(want.splitlines(), got.splitlines(), "golden", "now", lineterm="", n=1))
            failures.append(f"{golden.name} differs:\n" + "\n".join(diff[:40]))
    if failures:                    # the diffs alone, not this function's source around them
        pytest.fail("\n\n".join(failures) + "\n\nif the change is meant: ROOFLINE_UPDATE_GOLDEN=1 python -m "
                    "pytest tests/test_golden_outputs.py, and say why in the commit", pytrace=False)
