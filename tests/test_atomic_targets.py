"""-o onto things that are not regular files: written into, never replaced;
a replaced file keeps its mode; a symlink keeps pointing where it did."""
from __future__ import annotations

import os
import stat
import threading

import pytest

from roofline.core.atomic import write_text_atomic
from roofline.core.errors import RooflineError


def test_dev_null_stays_a_device():
    write_text_atomic("/dev/null", "hello")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_fifo_is_written_into(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    write_text_atomic(fifo, "through the pipe")
    reader.join(5)
    assert got == ["through the pipe"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_mode_and_symlink_are_kept(tmp_path):
    real = tmp_path / "out.csv"
    real.write_text("old")
    os.chmod(real, 0o600)
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    write_text_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o600


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_dev_full_is_an_error_and_stays_a_device():
    with pytest.raises(RooflineError, match="cannot write"):
        write_text_atomic("/dev/full", "x" * 10)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_profiles_refuse_alias_bombs_control_characters_and_devices():
    from roofline.devices.profile import load_device, parse_device
    bomb = 'a: &a ["lol", "lol"]\nb: &b [*a, *a, *a]\nname: x\n'
    with pytest.raises(RooflineError, match=r":2: .*aliases"):
        parse_device(bomb)
    with pytest.raises(RooflineError, match=r":2: not valid YAML"):
        parse_device("name: x\nkind: \x07bad\n")
    with pytest.raises(RooflineError, match="not a regular file"):
        load_device("/dev/zero")


def test_huge_csv_field_and_full_stdout_are_one_line_errors(tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    from roofline.importers.kernels_csv import parse
    with pytest.raises(RooflineError, match="field larger than field limit|a cell longer than"):
        parse("# comment\nname,time_us\n" + "k" * 200_000 + ",1\n", "big.csv")
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    example = Path(__file__).resolve().parents[1] / "examples" / "ece408_kernels.csv"
    with open("/dev/full", "w") as full:
        out = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(example), "--device",
                              "t4"], stdout=full, stderr=subprocess.PIPE, text=True)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip().endswith("cannot write the output: No space left on device")


def test_nsys_api_rows_ending_before_they_start_count_zero(tmp_path):
    import shutil
    import sqlite3
    from pathlib import Path
    from conftest import REALDATA
    from roofline.importers import read_profile
    src = REALDATA / "nsys" / "extra-p__extrap__con_kernel.sqlite"
    if not src.exists():
        pytest.skip(f"{src} is not present")
    db = tmp_path / "skew.sqlite"
    shutil.copy(src, db)
    before = read_profile(src).program.api_s
    with sqlite3.connect(db) as conn:
        rid = conn.execute('SELECT rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1').fetchone()[0]
        conn.execute('UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET "end" = "start" - 175000000000 WHERE rowid = ?', (rid,))
    r = read_profile(db)
    assert all(v >= 0 for v in r.program.api_s.values())
    assert sum(r.program.api_s.values()) <= sum(before.values())
    assert any("end before they start" in w.message for w in r.warnings)
