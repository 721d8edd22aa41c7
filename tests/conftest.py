from pathlib import Path

import pytest
import realdata_registry

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[1]

# The real profiler outputs (tests/realdata_registry.py): $ROOFLINE_REALDATA, else
# ../shared/realdata beside the checkout, else the download cache, which
# ROOFLINE_FETCH_REALDATA=1 fills at the start of the run.
REALDATA_CHOICE = realdata_registry.choose_folder()
REALDATA = REALDATA_CHOICE.folder
try:            # a name that would be written outside the folder stops the run here, before any fetch
    REAL_FILES = realdata_registry.load_registry()
except realdata_registry.RegistryError as exc:
    raise pytest.UsageError(f"tests/realdata_registry.json: {exc}") from None
# Every skip of a test for want of its real files says this (the realdata
# fixture, corrupt.needs_folder/needs_realdata/real_file); the summary counts them.
REAL_FILES_ABSENT = "real files are not present"


@pytest.fixture
def toy_gpu():
    from roofline.devices.profile import load_device
    return load_device(DATA / "toy_gpu.yaml")


@pytest.fixture
def realdata():
    if not realdata_registry.holds_files(REALDATA):
        pytest.skip(f"{REAL_FILES_ABSENT} in {REALDATA}")
    return REALDATA


# ---------------------------------------------------------------- real files: fetch and summary

_fetch_report: list[str] = []


def pytest_sessionstart(session):
    """With ROOFLINE_FETCH_REALDATA=1, download the real files the cache lacks
    (before the test modules are collected: some decide at import what to skip)."""
    if not realdata_registry.wants_fetch():
        return
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    say = tr.write_line if tr else print
    if not REALDATA_CHOICE.is_cache:
        say(f"{realdata_registry.ENV_FETCH}=1: nothing downloaded, the real files are read from "
            f"{REALDATA} ({REALDATA_CHOICE.source})")
        return
    lacking = realdata_registry.missing(REALDATA, REAL_FILES)
    if not lacking:
        return
    try:
        import pooch  # noqa: F401
    except ImportError:
        _fetch_report.append(f"{realdata_registry.ENV_FETCH}=1 needs pooch: pip install '.[test]'")
        say(_fetch_report[-1])
        return
    mb = sum(f.size for f in lacking if f.downloadable) / 1e6
    say(f"fetching {len(lacking)} real files ({mb:.1f} MB) into {REALDATA} ...")
    result = realdata_registry.fetch(lacking, REALDATA)
    say(f"fetched {len(result.fetched)} real files into {REALDATA}")
    if result.failed or result.not_downloadable:
        _fetch_report.append(
            f"{len(result.failed)} real files could not be fetched "
            f"({', '.join(n for n, _ in result.failed[:3])}{', ...' if len(result.failed) > 3 else ''}); "
            f"{len(result.not_downloadable)} have no known origin")
        for name, why in result.failed:
            say(f"  {name}: {why}")


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr or "")


def is_real_file_skip(reason: str) -> bool:
    """A skip for want of real files: the reason the realdata fixture,
    needs_realdata, needs_folder and real_file give, or one that names the
    real-file folder or a file of the registry."""
    return (REAL_FILES_ABSENT in reason or str(REALDATA) in reason or "realdata" in reason
            or any(f.name in reason for f in REAL_FILES))


def real_file_summary(not_run: int) -> str:
    lacking = realdata_registry.missing(REALDATA, REAL_FILES)
    where = (f"no real files in {REALDATA}" if len(lacking) == len(REAL_FILES)
             else f"{REALDATA} lacks {len(lacking)} of the {len(REAL_FILES)} real files" if lacking
             else f"their files are not in {REALDATA}")
    return (f"{not_run} real-file tests did not run ({where}): "
            f"run `{realdata_registry.ENV_FETCH}=1 pytest` to download them, "
            f"or set {realdata_registry.ENV_FOLDER} to a folder that has them")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    """One line, after the short test summary, when real-file tests did not run."""
    yield
    for line in _fetch_report:
        terminalreporter.write_line(line, yellow=True)
    not_run = {r.nodeid for r in terminalreporter.stats.get("skipped", [])
               if is_real_file_skip(_skip_reason(r))}
    if not_run:
        terminalreporter.write_line(real_file_summary(len(not_run)), yellow=True)


@pytest.fixture(autouse=True)
def _isolated_profiles(tmp_path, monkeypatch):
    """Saved profiles go to a temporary home, never the user's."""
    monkeypatch.setenv("ROOFLINE_HOME", str(tmp_path / "roofline-home"))


def ncu_first_launch_numbers(path) -> dict:
    """The numeric metrics of a real .ncu-rep's first launch, read through
    roofline's child-process reader (skips without ncu_report)."""
    import json
    import subprocess
    import ncu_report  # noqa: F401  ([test] installs it: missing is a failure, not a skip)
    from roofline.importers.nvidia.ncu_rep import child_command
    out = subprocess.run(child_command(path), capture_output=True, text=True, timeout=300, check=True)
    data = json.loads(out.stdout)
    assert "error" not in data, data
    return {k: v[0] for k, v in data["actions"][0]["numbers"].items()}
