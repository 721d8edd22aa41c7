"""The real-file download writes only inside its cache (issue 30): a
registry entry named ``../../x``, an absolute path, a backslash or drive
name is refused when the registry is read, before anything is fetched (the
session's fetch in conftest.py comes after), and a name that a link in the
cache would lead outside is refused before the download. Served from
127.0.0.1 only (tests/test_realdata_registry.py's server)."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest
import realdata_registry as rr
from test_realdata_registry import _made_up, _pytest, server  # noqa: F401  (server: a fixture)

HERE = Path(__file__).parent
BAD_NAMES = ["../../x", "ert/../../x", "/tmp/x", "~/x", "ert\\..\\x", "C:/x", "C:x", "ert//x", "./x", "ert/",
             "", "a/\x00b", "a/b\n"]


def _entry(name: str, data: bytes = b"x", url: str = "http://127.0.0.1:9/x") -> dict:
    return {"name": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "url": url}


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_bad_name_is_refused_when_the_registry_is_read(name, tmp_path):
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"files": [_entry("ert/fine"), _entry(name)]}))
    with pytest.raises(rr.RegistryError) as info:
        rr.load_registry(path)
    assert repr(name) in str(info.value) and "\n" not in str(info.value)


def test_a_name_listed_twice_is_refused(tmp_path):
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"files": [_entry("ert/a"), _entry("ert/a")]}))
    with pytest.raises(rr.RegistryError, match="listed twice"):
        rr.load_registry(path)


def test_the_real_registry_passes():
    assert len(rr.load_registry()) >= 44


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_bad_name_cannot_even_be_made_into_an_entry(name):
    with pytest.raises(rr.RegistryError):
        rr.RealFile(name, "0" * 64, 1, url="http://127.0.0.1:9/x")


def test_a_link_in_the_cache_that_leads_out_is_refused_before_any_download(server, tmp_path):  # noqa: F811
    outside = tmp_path / "outside"
    outside.mkdir()
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "ert").symlink_to(outside, target_is_directory=True)
    good = _made_up(server, "nvprof/good.csv", b"good")
    led_out = _made_up(server, "ert/victim", b"written through the link")
    with pytest.raises(rr.RegistryError, match="outside"):
        rr.fetch([good, led_out], cache, retries=0)
    assert server.requests == [] and list(outside.iterdir()) == [] and not (cache / "nvprof").exists()


def test_a_link_that_stays_inside_the_cache_is_followed(server, tmp_path):  # noqa: F811
    cache = tmp_path / "cache"
    (cache / "real").mkdir(parents=True)
    (cache / "ert").symlink_to(cache / "real", target_is_directory=True)
    f = _made_up(server, "ert/fine", b"fine")
    assert rr.fetch([f], cache, retries=0).fetched == ["ert/fine"]
    assert (cache / "real" / "fine").read_bytes() == b"fine"


def test_a_session_with_a_bad_registry_stops_before_fetching(server, tmp_path):  # noqa: F811
    """ROOFLINE_FETCH_REALDATA=1 and an entry named ../../x (served, with its
    right sha256): the run stops at conftest with the entry named; nothing
    is asked of the server and nothing is written beside the cache."""
    tests = tmp_path / "a" / "b" / "tests"
    tests.mkdir(parents=True)
    for name in ("conftest.py", "realdata_registry.py"):
        shutil.copy(HERE / name, tests / name)
    data = b"replaced\n"
    url = server.put("owner/repo/x", data)
    (tests / "realdata_registry.json").write_text(json.dumps(
        {"files": [asdict(_made_up(server, "ert/one.txt", b"one\n")), _entry("../../x", data, url)]}))
    (tests / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    cache = tmp_path / "c1" / "c2" / "cache"
    victim = tmp_path / "c1" / "x"
    out = _pytest(tests, **{rr.ENV_CACHE: str(cache), rr.ENV_FETCH: "1"})
    assert out.returncode != 0
    assert "registry entry name '../../x'" in out.stdout + out.stderr
    assert server.requests == [] and not victim.exists() and not cache.exists()
    assert not os.path.exists(tmp_path / "c1" / "c2" / "x")
