"""The registry of real files (tests/realdata_registry.py): its entries, the
folder the tests read, and the download path, run against an HTTP server on
127.0.0.1 (no other host is ever asked), with made-up files that have their
own registry entries and, where the real files are here, copies of a few."""
from __future__ import annotations

import contextlib
import hashlib
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import asdict, replace
from functools import partial
from pathlib import Path

import pytest
import realdata_registry as rr
from conftest import REAL_FILES, REAL_FILES_ABSENT, REALDATA, is_real_file_skip

HERE = Path(__file__).parent
RAW = "https://raw.githubusercontent.com/"


# ---------------------------------------------------------------- a server on 127.0.0.1

class _Server:
    def __init__(self, root: Path):
        self.root = root
        self.requests: list[str] = []
        seen = self.requests

        class Handler(http.server.SimpleHTTPRequestHandler):
            def do_GET(self):
                seen.append(self.path)
                super().do_GET()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(root)))
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def put(self, rel: str, data: bytes) -> str:
        """Serve ``data`` at ``rel``; its URL."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return self.base + rel


@pytest.fixture
def server(tmp_path, monkeypatch):
    import pooch  # noqa: F401  ([test] installs it: missing is a failure, not a skip)
    for var in ("NO_PROXY", "no_proxy"):   # a proxy set in the environment must not see these requests
        monkeypatch.setenv(var, "127.0.0.1,localhost")
    s = _Server(tmp_path / "served")
    s.root.mkdir()
    s.thread.start()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()
    s.thread.join(timeout=10)


def _made_up(server: _Server, name: str, data: bytes, **kw) -> rr.RealFile:
    url = server.put(f"owner/repo/{'0' * 40}/deep/path/{Path(name).name}", data)
    return rr.RealFile(name=name, sha256=hashlib.sha256(data).hexdigest(), size=len(data), url=url, **kw)


def _cache_files(cache: Path) -> list[str]:
    return sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file())


# ---------------------------------------------------------------- the registry itself

def test_registry_entries_are_complete_and_their_urls_name_the_commit():
    names = [f.name for f in REAL_FILES]
    assert len(names) == len(set(names)) >= 44
    for f in REAL_FILES:
        assert re.fullmatch(r"[\w.+-]+(/[\w.+-]+)+", f.name) and ".." not in f.name.split("/"), f.name
        assert re.fullmatch(r"[0-9a-f]{64}", f.sha256) and f.size > 0, f.name
        if f.downloadable:
            assert re.fullmatch(r"[0-9a-f]{40}", f.commit), f.name
            assert f.url == f"{RAW}{f.repo}/{f.commit}/{f.path}", f.name
        else:
            assert f.note, f"{f.name}: say why it has no origin"


def test_every_registry_sha256_matches_the_file_on_disk():
    if not rr.holds_files(REALDATA):
        pytest.skip(f"{REAL_FILES_ABSENT} in {REALDATA}")
    wrong = {f.name: "missing" for f in REAL_FILES if not (REALDATA / f.name).is_file()}
    for f in REAL_FILES:
        path = REALDATA / f.name
        if path.is_file() and (path.stat().st_size != f.size or rr.sha256_of(path) != f.sha256):
            wrong[f.name] = "size or sha256 differs"
    assert not wrong, wrong
    on_disk = {p.relative_to(REALDATA).as_posix() for p in REALDATA.rglob("*")
               if p.is_file() and p.name != "MANIFEST.md"}
    unlisted = on_disk - {f.name for f in REAL_FILES}
    assert not unlisted, f"add these to tests/realdata_registry.json: {sorted(unlisted)}"


# ---------------------------------------------------------------- which folder

def test_roofline_realdata_wins_over_the_folder_beside_the_checkout_and_the_cache(tmp_path):
    beside, mine, cache = tmp_path / "beside", tmp_path / "mine", tmp_path / "cache"
    for d in (beside, mine, cache):
        d.mkdir()
    env = {rr.ENV_FOLDER: str(mine), rr.ENV_CACHE: str(cache)}
    assert rr.choose_folder(env, beside) == rr.Choice(mine, rr.ENV_FOLDER)


def test_the_local_folder_wins_over_a_filled_cache(tmp_path):
    beside, cache = tmp_path / "beside", tmp_path / "cache"
    (beside / "ert").mkdir(parents=True)
    (cache / "ert").mkdir(parents=True)
    (cache / "ert" / "x").write_text("cached")
    choice = rr.choose_folder({rr.ENV_CACHE: str(cache)}, beside)
    assert choice.folder == beside and not choice.is_cache


def test_the_cache_is_used_when_no_local_folder_is_there(tmp_path):
    import pooch  # [test] installs it: missing is a failure, not a skip
    absent = tmp_path / "absent"
    assert rr.choose_folder({rr.ENV_CACHE: str(tmp_path / "c")}, absent) == rr.Choice(tmp_path / "c", "cache")
    assert rr.choose_folder({}, absent).folder == Path(pooch.os_cache("roofline-realdata"))


def test_only_an_explicit_setting_asks_for_downloads():
    assert not rr.wants_fetch({})
    assert not rr.wants_fetch({rr.ENV_FETCH: "0"}) and not rr.wants_fetch({rr.ENV_FETCH: ""})
    assert rr.wants_fetch({rr.ENV_FETCH: "1"})


def test_an_empty_folder_counts_as_absent_and_missing_names_what_it_lacks(tmp_path):
    assert not rr.holds_files(tmp_path) and not rr.holds_files(tmp_path / "absent")
    files = [rr.RealFile("a/x", "0" * 64, 3), rr.RealFile("a/y", "0" * 64, 3)]
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").write_bytes(b"abc")
    (tmp_path / "a" / "y").write_bytes(b"abcd")          # another size: a truncated download
    assert rr.holds_files(tmp_path)
    assert [f.name for f in rr.missing(tmp_path, files)] == ["a/y"]


# ---------------------------------------------------------------- downloads

def test_fetch_puts_files_into_the_cache_with_the_registry_layout(server, tmp_path):
    files = [_made_up(server, "ncu_csv/made_up.csv", b'"ID","Kernel Name"\n"0","k"\n'),
             _made_up(server, "kineto_trace/made_up.json", b'{"traceEvents": []}')]
    cache = tmp_path / "cache"
    result = rr.fetch(files, cache, retries=0)
    assert result.fetched == [f.name for f in files] and not result.failed
    assert _cache_files(cache) == sorted(f.name for f in files)
    assert (cache / "ncu_csv" / "made_up.csv").read_bytes() == b'"ID","Kernel Name"\n"0","k"\n'
    assert not rr.missing(cache, files)
    asked = len(server.requests)
    assert rr.fetch(files, cache, retries=0).fetched == [f.name for f in files]
    assert len(server.requests) == asked, "files already in the cache are not downloaded again"


def test_a_download_with_the_wrong_sha256_is_refused(server, tmp_path):
    good = _made_up(server, "nvprof/good.csv", b"good")
    bad = replace(_made_up(server, "nvprof/bad.csv", b"tampered"), sha256=hashlib.sha256(b"expected").hexdigest())
    cache = tmp_path / "cache"
    result = rr.fetch([good, bad], cache, retries=0)
    assert result.fetched == ["nvprof/good.csv"]
    assert [name for name, _ in result.failed] == ["nvprof/bad.csv"]
    assert "hash" in result.failed[0][1].lower()
    assert _cache_files(cache) == ["nvprof/good.csv"], "nothing of the refused download is kept"


def test_a_cached_file_that_no_longer_matches_is_downloaded_again(server, tmp_path):
    f = _made_up(server, "ert/sum", b"2907.99 FP64 GFLOPs\n")
    cache = tmp_path / "cache"
    (cache / "ert").mkdir(parents=True)
    (cache / "ert" / "sum").write_bytes(b"2907.99 FP64 GFLOP")
    assert rr.fetch([f], cache, retries=0).fetched == ["ert/sum"]
    assert (cache / "ert" / "sum").read_bytes() == b"2907.99 FP64 GFLOPs\n"


def test_files_of_unknown_origin_are_not_downloaded(server, tmp_path):
    unknown = rr.RealFile("nsys/unknown.sqlite", "0" * 64, 10, note="origin unknown")
    result = rr.fetch([unknown], tmp_path / "cache", retries=0)
    assert result.not_downloadable == ["nsys/unknown.sqlite"] and not result.fetched and not result.failed
    assert server.requests == []


@contextlib.contextmanager
def _closed_port():
    """A port on 127.0.0.1 that nothing listens on (bound, never listened)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    try:
        yield s.getsockname()[1]
    finally:
        s.close()


def test_an_unreachable_origin_is_reported_not_raised(tmp_path):
    import pooch  # noqa: F401  ([test] installs it: missing is a failure, not a skip)
    with _closed_port() as port:
        f = rr.RealFile("ert/x", "0" * 64, 1, url=f"http://127.0.0.1:{port}/x")
        result = rr.fetch([f], tmp_path / "cache", retries=0, timeout=5)
    assert [name for name, _ in result.failed] == ["ert/x"] and not result.fetched


def test_copies_of_real_files_come_through_at_their_registry_urls(server, tmp_path):
    """The registry's own entries, served from 127.0.0.1 under the same
    OWNER/REPO/COMMIT/PATH as their URLs, land in the cache by their names."""
    if not rr.holds_files(REALDATA):
        pytest.skip(f"{REAL_FILES_ABSENT} in {REALDATA}")
    small = sorted((f for f in REAL_FILES if f.downloadable and (REALDATA / f.name).is_file()),
                   key=lambda f: f.size)[:4]
    assert small
    local = []
    for f in small:
        rel = f.url.removeprefix(RAW)
        local.append(replace(f, url=server.put(rel, (REALDATA / f.name).read_bytes())))
    cache = tmp_path / "cache"
    result = rr.fetch(local, cache, retries=0)
    assert result.fetched == [f.name for f in small] and not result.failed
    for f in small:
        assert rr.sha256_of(cache / f.name) == f.sha256
    assert sorted(server.requests) == sorted("/" + f.url.removeprefix(RAW) for f in small)


# ---------------------------------------------------------------- a whole pytest run

@pytest.fixture
def checkout(tmp_path, server):
    """A copy of tests/ with no ../shared/realdata beside it, whose registry
    names two made-up files served from 127.0.0.1."""
    tests = tmp_path / "a" / "b" / "tests"
    tests.mkdir(parents=True)
    for name in ("conftest.py", "realdata_registry.py"):
        shutil.copy(HERE / name, tests / name)
    entries = [_made_up(server, "ert/one.txt", b"one\n"), _made_up(server, "nvprof/two.txt", b"two\n")]
    (tests / "realdata_registry.json").write_text(json.dumps(
        {"about": ["made up"], "files": [asdict(e) for e in entries]}))
    (tests / "test_reads_real_files.py").write_text(
        "from conftest import REALDATA\n"
        "from corrupt_free import needs_ert\n"
        "def test_reads(realdata):\n"
        "    assert (realdata / 'nvprof' / 'two.txt').read_text() == 'two\\n'\n"
        "@needs_ert\n"
        "def test_marked():\n"
        "    assert (REALDATA / 'ert' / 'one.txt').read_text() == 'one\\n'\n"
        "def test_other():\n"
        "    pass\n")
    (tests / "corrupt_free.py").write_text(
        "import pytest\n"
        "from conftest import REAL_FILES_ABSENT, REALDATA\n"
        "from realdata_registry import holds_files\n"
        "needs_ert = pytest.mark.skipif(not holds_files(REALDATA / 'ert'), reason=f'{REAL_FILES_ABSENT}')\n")
    return tests


def _pytest(tests: Path, **env) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items()
            if k not in (rr.ENV_FOLDER, rr.ENV_FETCH, rr.ENV_CACHE, "PYTEST_ADDOPTS")}
    full.update(env, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")    # none is needed: a faster start
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tests),
                           str(tests)], cwd=tests, env=full, capture_output=True, text=True, timeout=300, check=False)


def test_a_run_without_real_files_says_how_many_tests_did_not_run_and_downloads_nothing(checkout, server, tmp_path):
    out = _pytest(checkout, **{rr.ENV_CACHE: str(tmp_path / "cache")})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed, 2 skipped" in out.stdout
    assert (f"2 real-file tests did not run (no real files in {tmp_path / 'cache'}): "
            "run `ROOFLINE_FETCH_REALDATA=1 pytest` to download them, "
            "or set ROOFLINE_REALDATA to a folder that has them") in out.stdout
    assert server.requests == [], "no download without ROOFLINE_FETCH_REALDATA=1"


def test_roofline_fetch_realdata_fills_the_cache_before_the_tests_run(checkout, server, tmp_path):
    cache = tmp_path / "cache"
    out = _pytest(checkout, **{rr.ENV_CACHE: str(cache), rr.ENV_FETCH: "1"})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 passed" in out.stdout and "did not run" not in out.stdout
    assert _cache_files(cache) == ["ert/one.txt", "nvprof/two.txt"]
    asked = len(server.requests)
    out = _pytest(checkout, **{rr.ENV_CACHE: str(cache)})          # the cache is read; nothing is asked
    assert "3 passed" in out.stdout and len(server.requests) == asked


def test_roofline_realdata_is_read_and_nothing_is_fetched_into_it(checkout, server, tmp_path):
    mine, cache = tmp_path / "mine", tmp_path / "cache"
    (mine / "nvprof").mkdir(parents=True)
    (mine / "nvprof" / "two.txt").write_text("two\n")
    out = _pytest(checkout, **{rr.ENV_FOLDER: str(mine), rr.ENV_CACHE: str(cache), rr.ENV_FETCH: "1"})
    assert "2 passed, 1 skipped" in out.stdout, out.stdout + out.stderr
    assert f"1 real-file tests did not run ({mine} lacks 1 of the 2 real files)" in out.stdout
    assert server.requests == [] and not cache.exists()


def test_skips_of_real_file_tests_are_told_from_other_skips():
    assert is_real_file_skip(f"Skipped: {REAL_FILES_ABSENT}: {REALDATA / 'ert' / 'x'}")
    assert is_real_file_skip(f"Skipped: {REALDATA / 'nsys' / 'x.sqlite'} is not present")
    assert is_real_file_skip(f"Skipped: {REAL_FILES[0].name} is not present")
    assert not is_real_file_skip("Skipped: could not import 'ncu_report'")
    assert not is_real_file_skip("Skipped: Chromium is not installed")
