from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
REALDATA = Path(__file__).resolve().parents[2] / "shared" / "realdata"
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def toy_gpu():
    from roofline.devices.profile import load_device
    return load_device(DATA / "toy_gpu.yaml")


@pytest.fixture
def realdata():
    if not REALDATA.is_dir():
        pytest.skip("../shared/realdata is not present on this machine")
    return REALDATA


@pytest.fixture(autouse=True)
def _isolated_profiles(tmp_path, monkeypatch):
    """Saved profiles go to a temporary home, never the user's."""
    monkeypatch.setenv("ROOFLINE_HOME", str(tmp_path / "roofline-home"))


def ncu_first_launch_numbers(path) -> dict:
    """The numeric metrics of a real .ncu-rep's first launch, read through
    roofline's child-process reader (skips without ncu_report)."""
    import json
    import subprocess
    import sys
    pytest.importorskip("ncu_report")
    out = subprocess.run([sys.executable, "-m", "roofline.importers.ncu_rep_child", str(path)],
                         capture_output=True, text=True, timeout=300, check=True)
    data = json.loads(out.stdout)
    assert "error" not in data, data
    return {k: v[0] for k, v in data["actions"][0]["numbers"].items()}
