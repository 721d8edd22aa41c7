"""No code from the working directory runs (issue 30): the Nsight Compute
reader's child Python is isolated, so an ``inspect.py`` or ``json.py`` (or
a package the binding might import) planted where the user runs roofline,
or a PYTHONPATH, is never imported."""
from __future__ import annotations

import subprocess
import sys

import pytest

from roofline.core.errors import InputError
from roofline.importers.nvidia import ncu_rep

pytest.importorskip("ncu_report", reason="the .ncu-rep reader needs ncu-report (pip install '.[test]')")

# stdlib names the child (and ncu_report) import, and one they might
PLANTED = ("inspect", "json", "sys_extra", "struct", "typing", "enum", "ncu_report")


def _plant(folder, marker):
    for name in PLANTED:
        # builtins only: an import here could itself hit a planted module
        (folder / f"{name}.py").write_text(f"open({str(marker / name)!r}, 'w').write('ran')\n")
    marker.mkdir()


def _report(folder):
    """A file with the report's framing (magic + one empty block) that
    ncu_report then reads as nothing: the child runs to the end."""
    path = folder / "empty.ncu-rep"
    path.write_bytes(ncu_rep.MAGIC + b"\x00\x00\x00\x00")
    return path


def test_the_planted_modules_do_run_in_a_plain_child(tmp_path):
    """The control: a child that puts the working directory first imports them."""
    marker = tmp_path / "ran"
    _plant(tmp_path, marker)
    subprocess.run([sys.executable, "-c", "import inspect"], cwd=tmp_path, check=False, capture_output=True)
    assert (marker / "inspect").exists()


def _read(report) -> None:
    try:
        found = ncu_rep._read_in_child(report)
    except InputError as exc:          # the binding may refuse the empty report: one line, no traceback
        assert "\n" not in str(exc)
    else:
        assert found["ranges"] == 0 and found["actions"] == []


def test_the_ncu_child_imports_nothing_from_the_working_directory(tmp_path, monkeypatch):
    work, marker = tmp_path / "work", tmp_path / "ran"
    work.mkdir()
    _plant(work, marker)
    monkeypatch.chdir(work)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    _read(_report(tmp_path))
    assert list(marker.iterdir()) == []


def test_the_ncu_child_ignores_pythonpath(tmp_path, monkeypatch):
    elsewhere, marker = tmp_path / "pythonpath", tmp_path / "ran"
    elsewhere.mkdir()
    _plant(elsewhere, marker)
    monkeypatch.setenv("PYTHONPATH", str(elsewhere))
    monkeypatch.setenv("PYTHONSTARTUP", str(elsewhere / "inspect.py"))
    _read(_report(tmp_path))
    assert list(marker.iterdir()) == []


def test_the_child_is_started_isolated():
    command = ncu_rep.child_command("r.ncu-rep")
    assert command[0] == sys.executable and command[1] == "-I"
    assert command[2].endswith("ncu_rep_child.py") and command[3] == "r.ncu-rep"
    assert "-m" not in command
