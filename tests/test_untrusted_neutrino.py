"""A Neutrino run folder from someone else (issue 30): a file in it that is
a link resolving outside the folder, or that is no regular file (a FIFO,
which blocked the read forever), is not read, with a warning naming it;
links that stay inside the folder are followed. Run folders are built as
tests/test_import_neutrino.py builds them."""
from __future__ import annotations

import os
import shutil
import threading

import pytest
from test_import_neutrino import NAME_A, NAME_B, run_folder

from roofline.core.errors import InputError
from roofline.importers.neutrino.reader import read_result, read_run, refusal, sniff

SECRET = "first-line-of-a-file-outside"


def _read(folder, timeout_s: float = 30.0, how=read_run):
    """read_run (or ``how``) in a thread: a read that blocks (on a FIFO)
    fails the test instead of hanging it."""
    out = {}

    def run():
        try:
            out["result"] = how(folder)
        except BaseException as exc:     # noqa: BLE001 - handed to the test
            out["error"] = exc
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout_s)
    assert not t.is_alive(), "read_run blocked"
    if "error" in out:
        raise out["error"]
    return out["result"]


def _messages(result) -> list[str]:
    return [w.message for w in result.warnings]


def _outside(tmp_path, name: str, text: str):
    path = tmp_path / "elsewhere" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def _single_kernel_folder(folder):
    """Keep one kernel/ folder: without event.log its kernel.info names every launch."""
    subs = sorted((folder / "kernel").iterdir())
    for sub in subs[1:]:
        shutil.rmtree(sub)
    return subs[0]


def test_a_single_kernel_info_names_the_launches(tmp_path):
    """The control: the rule the link abused."""
    folder = run_folder(tmp_path, with_log=False)
    _single_kernel_folder(folder)
    assert {k.name for k in read_run(folder).kernels} == {NAME_A}


def test_a_kernel_info_linked_outside_names_nothing(tmp_path):
    folder = run_folder(tmp_path, with_log=False)
    sub = _single_kernel_folder(folder)
    (sub / "kernel.info").unlink()
    (sub / "kernel.info").symlink_to(_outside(tmp_path, "hostname", f"{SECRET}\n"))
    r = _read(folder)
    assert all(k.name.startswith("neutrino launch ") for k in r.kernels)
    assert not any(SECRET in k.name for k in r.kernels) and not any(SECRET in m for m in _messages(r))
    assert f"kernel/{sub.name}/kernel.info is a link to a file outside the run folder: not read" in _messages(r)


def test_a_kernel_folder_linked_outside_is_not_read(tmp_path):
    folder = run_folder(tmp_path, with_log=False)
    sub = _single_kernel_folder(folder)
    away = tmp_path / "elsewhere" / "kfolder"
    shutil.move(str(sub), str(away))
    (away / "kernel.info").write_text(f"{SECRET}\n")
    sub.symlink_to(away, target_is_directory=True)
    r = _read(folder)
    assert not any(SECRET in k.name for k in r.kernels)
    assert any(m.startswith(f"kernel/{sub.name}/kernel.info is a link") for m in _messages(r))


def test_an_event_log_linked_outside_is_not_parsed(tmp_path):
    folder = run_folder(tmp_path)
    log = folder / "event.log"
    text = log.read_text().replace(NAME_A, SECRET).replace(NAME_B, SECRET)
    log.unlink()
    log.symlink_to(_outside(tmp_path, "event.log", text))
    r = _read(folder)
    assert not any(SECRET in k.name for k in r.kernels)
    assert "event.log is a link to a file outside the run folder: not read" in _messages(r)


def test_a_probe_toml_linked_outside_is_not_read(tmp_path):
    folder = run_folder(tmp_path)
    toml = folder / "probe.toml"
    toml.unlink()
    toml.symlink_to(_outside(tmp_path, "probe.toml", "[map.block_sched]\nlevel = 'warp'\n"))
    r = _read(folder)
    assert [k.name for k in r.kernels] == [NAME_A, NAME_B, NAME_A]     # the 16-byte section is found anyway
    assert "probe.toml is a link to a file outside the run folder: not read" in _messages(r)


def test_links_inside_the_folder_are_followed(tmp_path):
    folder = run_folder(tmp_path)
    (folder / "logs").mkdir()
    (folder / "event.log").rename(folder / "logs" / "event.log")
    (folder / "event.log").symlink_to(folder / "logs" / "event.log")
    bin_ = folder / "result" / "1.250000.bin"
    bin_.rename(folder / "logs" / "b.bin")
    bin_.symlink_to("../logs/b.bin")
    r = _read(folder)
    assert [k.name for k in r.kernels] == [NAME_A, NAME_B, NAME_A] and not r.warnings


def test_a_result_file_linked_outside_is_skipped(tmp_path):
    folder = run_folder(tmp_path)
    bin_ = folder / "result" / "1.250000.bin"
    away = tmp_path / "elsewhere"
    away.mkdir()
    bin_.rename(away / "x.bin")
    bin_.symlink_to(away / "x.bin")
    r = _read(folder)
    assert [k.launch["trace_file"] for k in r.kernels] == ["result/0.486795.bin", "result/2.000001.bin"]
    assert "result/1.250000.bin is a link to a file outside the run folder: not read" in _messages(r)
    assert not any("not in result/" in m for m in _messages(r))      # not also called moved or deleted


def test_a_result_folder_linked_outside_reads_nothing_from_there(tmp_path):
    folder = run_folder(tmp_path)
    away = tmp_path / "elsewhere"
    shutil.move(str(folder / "result"), str(away))
    (folder / "result").symlink_to(away, target_is_directory=True)
    r = _read(folder)
    assert r.kernels == () and sum("is a link to a file outside" in m for m in _messages(r)) == 3


@pytest.mark.parametrize("name", ["result/3.000000.bin", "event.log", "kernel/INFO"])
def test_a_fifo_is_never_opened(tmp_path, name):
    folder = run_folder(tmp_path)
    if name == "kernel/INFO":
        name = f"kernel/{sorted((folder / 'kernel').iterdir())[0].name}/kernel.info"
    path = folder / name
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    r = _read(folder)
    assert f"{name} is not a regular file (a FIFO, socket or device): not read" in _messages(r)
    assert len(r.kernels) == 3


def test_a_fifo_probe_toml_makes_no_run_folder(tmp_path):
    """probe.toml is what marks a run folder: a FIFO there is none (one line, no wait)."""
    folder = run_folder(tmp_path)
    (folder / "probe.toml").unlink()
    os.mkfifo(folder / "probe.toml")
    with pytest.raises(InputError, match="not a Neutrino run folder") as info:
        _read(folder)
    assert "\n" not in str(info.value)


def test_a_fifo_given_alone_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "x.bin"
    os.mkfifo(fifo)
    assert refusal(fifo, None) is not None
    assert not _read(fifo, how=lambda p: sniff(p, b""))
    with pytest.raises(InputError, match="not a regular file"):
        _read(fifo, how=read_result)
