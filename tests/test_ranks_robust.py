"""Rank folders that fight back (issue 20): entries that are not files, ranks
that are not ranks, Ctrl-C / SIGTERM / SIGKILL while workers read, schedulers
that do not answer or answer garbage, and many tiny ranks read in batches."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from rank_traces import trace, write_ranks  # noqa: E402

from roofline.core.errors import InputError  # noqa: E402
from roofline.importers.ranks.rank_cluster import check_address  # noqa: E402
from roofline.importers.ranks.rank_files import MAX_RANK, batches, rank_files, rank_from_name, read_ranks  # noqa: E402
from roofline.importers.ranks.rank_pool import on_processes  # noqa: E402

LINUX = sys.platform.startswith("linux")
HUNG = 120   # seconds: only to catch a hang


def cli(*args, timeout=HUNG):
    return subprocess.run([sys.executable, "-m", "roofline.cli.main", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def one_line_error(proc, *phrases):
    """Exit 2 and a single line on stderr saying all of ``phrases``."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
    return lines[0]


# --- folder entries that are not regular files -------------------------------

@pytest.fixture
def folder(tmp_path):
    write_ranks(tmp_path, ranks=2, kernels=3)
    return tmp_path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_not_opened(folder):
    os.mkfifo(folder / "job_rank7.json")
    proc = cli("classify", folder, "--device", "a100-80gb-sxm", timeout=60)   # opening it would block
    one_line_error(proc, "job_rank7.json", "FIFO", "not a regular file")


@pytest.mark.parametrize("make, says", [
    (lambda p: p.symlink_to(p), "symbolic link loop"),
    (lambda p: p.symlink_to(p.parent / "missing.json"), "link to nothing"),
    (lambda p: p.symlink_to("/dev/null"), "character device"),
    (lambda p: p.mkdir(), "a directory"),
])
def test_entries_that_are_not_files_are_named(folder, make, says):
    if "device" in says and not Path("/dev/null").exists():
        pytest.skip("no /dev/null")
    make(folder / "job_rank5.json")
    with pytest.raises(InputError, match=says) as err:
        rank_files([folder])
    assert err.value.path.endswith("job_rank5.json")


def test_other_names_in_the_folder_are_still_ignored(folder):
    (folder / "notes").mkdir()
    (folder / "README.txt").write_text("not a trace")
    assert [p.name for p in rank_files([folder])] == ["job_rank0.json", "job_rank1.json"]


# --- ranks that are not ranks -------------------------------------------------

def test_an_absurd_rank_in_a_file_name_is_no_rank(tmp_path):
    data = trace(0, 1, 3, slow=-1)
    del data["distributedInfo"]
    (tmp_path / "rank9999999999999999999999999.json").write_text(json.dumps(data))
    (tmp_path / "rank3.json").write_text(json.dumps(data))
    assert rank_from_name(Path("rank9999999999999999999999999.json")) is None
    assert rank_from_name(Path(f"rank{MAX_RANK + 1}.json")) is None
    assert rank_from_name(Path(f"rank{MAX_RANK}.json")) == MAX_RANK
    proc = cli("classify", tmp_path, "--device", "a100-80gb-sxm", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ranks"] == [3, 4]   # the absurd one numbered after the known


@pytest.mark.parametrize("rank", [10**20, MAX_RANK + 1])
def test_an_absurd_distributed_rank_is_refused(tmp_path, rank):
    write_ranks(tmp_path, ranks=2, kernels=3)
    data = trace(1, 2, 3, slow=-1)
    data["distributedInfo"]["rank"] = rank
    (tmp_path / "job_rank1.json").write_text(json.dumps(data))
    proc = cli("classify", tmp_path, "--device", "a100-80gb-sxm")
    one_line_error(proc, "job_rank1.json", f"rank {rank} is not a rank", str(MAX_RANK))


def test_a_bad_rank_read_by_a_worker_is_a_one_line_error(tmp_path):
    write_ranks(tmp_path, ranks=6, kernels=3)
    (tmp_path / "job_rank3.json").write_text('{"traceEvents": [')
    proc = cli("classify", tmp_path, "--device", "a100-80gb-sxm", "--workers", "2")
    one_line_error(proc, "job_rank3.json")


# --- many tiny ranks: batches ---------------------------------------------------

def test_batches_keep_the_order_and_split_by_bytes(tmp_path):
    files = []
    for i, size in enumerate([10] * 100 + [5000] + [10] * 100):
        f = tmp_path / f"r{i:03}.json"
        f.write_bytes(b"x" * size)
        files.append(str(f))
    runs = batches(files, workers=2)
    assert [f for run in runs for f in run] == files
    assert [files[100]] in runs                     # bigger than a run: a run of its own
    assert 4 <= len(runs) <= 2 * 8 + 2              # about 8 runs per worker, not one per file
    assert batches(files[:1], workers=4) == [files[:1]]


def test_many_small_ranks_on_workers_give_the_serial_answer(tmp_path):
    write_ranks(tmp_path, ranks=60, kernels=3)
    serial, _ = read_ranks([tmp_path])
    parallel, notes = read_ranks([tmp_path], workers=2)
    assert [(p.rank, p.path) for p in parallel] == [(p.rank, p.path) for p in serial]
    assert all((p.summary.time_s == q.summary.time_s).all() for p, q in zip(parallel, serial))
    assert notes == []


def _die(batch):
    os._exit(3)


def test_a_worker_that_dies_is_an_error_not_a_hang(tmp_path):
    with pytest.raises(InputError, match="worker process died"):
        on_processes([["a.json"], ["b.json"]], _die, 2)


# --- signals: no worker outlives the command -------------------------------------

def children(pid: int) -> set[int]:
    """Live descendants of ``pid`` (zombies do not count)."""
    try:
        import psutil
    except ImportError:
        return _proc_children(pid)
    try:
        kids = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return set()
    return {k.pid for k in kids if _alive(k.pid)}


def _proc_children(pid: int) -> set[int]:
    out, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for status in Path("/proc").glob("[0-9]*/status"):
            try:
                fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            except OSError:
                continue
            if int(fields.get("PPid", "0")) == parent and "Z" not in fields.get("State", ""):
                out.add(int(status.parent.name))
                todo.append(int(status.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    return state not in ("Z", "X")


@pytest.fixture(scope="module")
def slow_job(tmp_path_factory):
    """64 ranks of 20,000 kernels each, hard links to one file (ranks from
    the file names): several seconds of reading, one file's space."""
    folder = tmp_path_factory.mktemp("slow_job")
    data = trace(0, 1, 20_000, slow=-1)
    del data["distributedInfo"]
    first = folder / "rank0.json"
    first.write_text(json.dumps(data))
    for r in range(1, 64):
        os.link(first, folder / f"rank{r}.json")
    return folder


def _as_from_a_terminal() -> None:
    """Ctrl-C's disposition in a terminal: a job started in the background of
    a script (as CI may start pytest) inherits SIGINT ignored, and a Python
    started so keeps ignoring it, as it should; the test is of a user's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_and_wait_for_workers(folder, tmp_path, workers=2):
    err = open(tmp_path / "stderr.txt", "w")   # a pipe would stay open in an orphan: a file cannot hang us
    proc = subprocess.Popen([sys.executable, "-m", "roofline.cli.main", "classify", str(folder), "--device",
                             "a100-80gb-sxm", "--format", "json", "--workers", str(workers)],
                            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
                            preexec_fn=_as_from_a_terminal)
    deadline = time.monotonic() + 60
    while len(children(proc.pid)) < workers:
        assert proc.poll() is None and time.monotonic() < deadline, "the workers never started"
        time.sleep(0.05)
    time.sleep(0.3)
    return proc, children(proc.pid), err


def _no_survivors(pids: set[int]) -> None:
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = {p for p in pids if _alive(p)}
    for p in left:   # do not leave them to the next test
        os.kill(p, signal.SIGKILL)
    assert not left, f"workers left behind: {left}"


@pytest.mark.skipif(not LINUX, reason="process groups and /proc: Linux")
@pytest.mark.parametrize("how, status, says", [
    ("SIGINT", 130, "interrupted"),      # Ctrl-C: the whole process group gets it
    ("SIGTERM", 143, "terminated"),      # timeout(1), kill: only the parent gets it
])
def test_a_signal_stops_the_job_and_its_workers(slow_job, tmp_path, how, status, says):
    proc, workers, err = _start_and_wait_for_workers(slow_job, tmp_path)
    assert len(workers) == 2
    started = time.monotonic()
    if how == "SIGINT":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        err.close()
    assert time.monotonic() - started < 10
    lines = (tmp_path / "stderr.txt").read_text().strip().splitlines()
    assert proc.returncode == status and lines == [f"roofline classify: {says}"], lines
    _no_survivors(workers)


@pytest.mark.skipif(not LINUX, reason="PR_SET_PDEATHSIG: Linux")
def test_workers_die_with_a_killed_parent(slow_job, tmp_path):
    proc, workers, err = _start_and_wait_for_workers(slow_job, tmp_path)
    proc.kill()
    proc.wait(timeout=30)
    err.close()
    _no_survivors(workers)


# --- schedulers that do not answer, or not as a scheduler ----------------------

@pytest.mark.parametrize("address, says", [
    ("http://localhost:8787", "http:// is not a scheduler protocol"),
    ("tcp://a b:1", "not an address"),
    ("localhost:99999", "port 99999 is not a port"),
    ("", "not an address"),
    ("tcp://", "not an address"),
])
def test_malformed_addresses_are_refused(address, says):
    with pytest.raises(InputError, match=says):
        check_address(address)


def test_addresses_get_distributeds_form():
    assert check_address("10.0.0.1:8786") == "tcp://10.0.0.1:8786"
    assert check_address("tls://sched.example.org:8786") == "tls://sched.example.org:8786"
    assert check_address("tcp://[::1]:8786") == "tcp://[::1]:8786"


def _server(answer: bytes | None) -> tuple[int, socket.socket]:
    """A TCP server on localhost that accepts and then sends ``answer``
    (None: says nothing, ever)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    held = []

    def serve():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            held.append(conn)
            if answer:
                try:
                    conn.sendall(answer)
                except OSError:
                    pass
    threading.Thread(target=serve, daemon=True).start()
    return srv.getsockname()[1], srv


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


HAS_DISTRIBUTED = __import__("importlib").util.find_spec("distributed") is not None


@pytest.mark.skipif(not HAS_DISTRIBUTED, reason="dask.distributed is not installed (roofline[dask])")
@pytest.mark.parametrize("kind, says", [
    ("silent", "no answer from a dask scheduler within 1 s"),
    ("garbage", "does not answer as a dask scheduler"),
    ("http", "does not answer as a dask scheduler"),
    ("closed", "Connection refused"),
])
def test_bad_schedulers_are_one_line_errors(folder, kind, says):
    srv = None
    if kind == "closed":
        port = _closed_port()
    else:
        answer = {"silent": None, "garbage": b"\xff" * 4096,
                  "http": b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"}[kind]
        port, srv = _server(answer)
    try:
        started = time.monotonic()
        proc = cli("classify", folder, "--device", "a100-80gb-sxm", "--scheduler", f"127.0.0.1:{port}",
                   "--scheduler-timeout", "1")
        assert time.monotonic() - started < 60
    finally:
        if srv:
            srv.close()
    one_line_error(proc, f"--scheduler tcp://127.0.0.1:{port}", says)


@pytest.mark.skipif(not HAS_DISTRIBUTED, reason="dask.distributed is not installed (roofline[dask])")
@pytest.mark.filterwarnings("ignore:Port .* is already in use")   # its HTTP server moves: no matter
def test_a_real_scheduler_gives_the_serial_answer_and_one_without_workers_an_error(folder):
    from distributed import LocalCluster
    serial = cli("classify", folder, "--device", "a100-80gb-sxm", "--format", "json")
    assert serial.returncode == 0, serial.stderr
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address=None) as cluster:
        proc = cli("classify", folder, "--device", "a100-80gb-sxm", "--format", "json",
                   "--scheduler", cluster.scheduler_address)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == json.loads(serial.stdout)
    with LocalCluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=None) as empty:
        proc = cli("classify", folder, "--device", "a100-80gb-sxm", "--scheduler", empty.scheduler_address,
                   "--scheduler-timeout", "1")
        one_line_error(proc, "has no worker after 1 s")
