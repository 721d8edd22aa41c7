"""Two writers of one profile: the second stops with an error naming the
first, instead of silently replacing its result (no measurement is run)."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import DATA
from roofline.core.errors import ProfileError
from roofline.devices.profile import load_device, profile_lock, save_device

HOLDER = textwrap.dedent("""
    import sys
    from roofline.devices.profile import profile_lock
    with profile_lock(sys.argv[1]):
        print("held", flush=True)
        sys.stdin.read()                # until the test closes our stdin
""")


@pytest.fixture
def toy():
    return load_device(DATA / "toy_gpu.yaml")


def test_a_second_process_cannot_write_a_profile_being_written(tmp_path, toy):
    target = tmp_path / "my-cpu.yaml"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(target)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ProfileError, match=rf"my-cpu.yaml: another roofline measure \(process "
                                               rf"{holder.pid}\) is writing this profile"):
            save_device(toy, target)
        assert not target.exists()
    finally:
        holder.stdin.close()
        holder.wait(10)
    save_device(toy, target)                    # released: written
    assert load_device(target).name == toy.name
    assert [p.name for p in tmp_path.iterdir()] == ["my-cpu.yaml"]     # no lock file left behind


def test_the_lock_is_reentrant_within_a_process(tmp_path, toy):
    target = tmp_path / "sub" / "my-gpu.yaml"   # the folder does not exist yet
    with profile_lock(target):                  # measure holds it for the whole run ...
        save_device(toy, target)                # ... and saves under it
        with profile_lock(target):
            pass
    other = subprocess.run([sys.executable, "-c", "import sys; from roofline.devices.profile import profile_lock\n"
                            "with profile_lock(sys.argv[1]): print('free')", str(target)],
                           capture_output=True, text=True, timeout=60)
    assert other.stdout.strip() == "free", other.stderr     # released after the outermost


def test_devices_and_fifos_are_written_without_a_lock(toy):
    save_device(toy, "/dev/null")
    assert not Path("/dev/.null.lock").exists()
