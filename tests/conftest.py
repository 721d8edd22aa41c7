from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
REALDATA = Path(__file__).resolve().parents[2] / "shared" / "realdata"
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def toy_gpu():
    from roofline.profile import load_device
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
