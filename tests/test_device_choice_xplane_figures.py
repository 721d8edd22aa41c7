"""Device choice from an NVIDIA XPlane's plane figures (compute capability,
SMs, memory, clock) when they are missing or contradict every profile:
never a whole GPU's roofs put silently under a file whose figures say
otherwise (issue 35, red team)."""
from __future__ import annotations

import pytest

from roofline.core.errors import UnknownDeviceError
from roofline.devices.choice import device_for
from roofline.core.import_result import DeviceClues, ImportResult
from roofline.importers.xplane import reader as xplane, xplane_schema

GIB = 2 ** 30


def result(properties, path="a.xplane.pb"):
    return ImportResult(path, "xplane", (), device=DeviceClues(capability=properties.get("capability"), kind="gpu",
                                                              properties=properties))


def test_a_mig_slice_is_not_put_on_a_whole_a100():
    """A MIG 1g.10gb slice: capability 8.0, 14 of the A100's 108 SMs. The
    capability alone chose the A100 40 GB (7.7x its compute) with no word."""
    with pytest.raises(UnknownDeviceError, match="14 SMs, warp size 32, 10.0 GiB, which no profile has"):
        device_for([result({"capability": "8.0", "sms": 14, "memory_bytes": 10 * GIB, "warp_size": 32})])


def test_figures_of_the_chosen_profile_that_disagree_are_doubts():
    choice = device_for([result({"capability": "8.0", "sms": 108, "memory_bytes": 80 * GIB, "clock_hz": 500e6})])
    assert choice.profile == "a100-80gb-sxm"
    assert any("clock 500 MHz is below" in d for d in choice.doubts)      # it reaches the report's banner


def test_a_capability_without_sms_is_doubted_by_the_memory_it_gives():
    """CC 8.0 and 24 GiB (an A30's memory, no SM count): the capability
    picks the A100 40 GB, and now says that its memory is not the file's."""
    choice = device_for([result({"capability": "8.0", "memory_bytes": 24 * GIB})])
    assert choice.profile == "a100-40gb-sxm"
    assert any("24.0 GiB of memory is not the 40.0 GiB" in d for d in choice.doubts)


def test_files_of_different_gpus_are_said():
    choice = device_for([result({"capability": "8.0", "sms": 108, "memory_bytes": 80 * GIB}),
                         result({"capability": "8.0", "sms": 56, "memory_bytes": 24 * GIB}, "b.xplane.pb")])
    assert any("2 different GPUs" in w for w in choice.warnings)


def test_missing_figures_do_not_pick_among_gpus_that_compute_differently():
    with pytest.raises(UnknownDeviceError, match="pass --device"):
        device_for([result({"capability": "9.0", "memory_bytes": 80 * GIB})])       # no SM count
    with pytest.raises(UnknownDeviceError, match="compute differently"):
        device_for([result({"capability": "9.0", "sms": 132})])                    # no memory


def test_planes_of_different_gpus_in_one_xspace_are_said(tmp_path):
    X = xplane_schema.message_classes()
    space = X["XSpace"]()
    for n, (sms, mem, events) in enumerate(((108, 80, 3), (56, 24, 1))):
        plane = space.planes.add(id=n + 1, name=f"/device:GPU:{n}")
        for k, v in {1: "core_count", 2: "memory_size", 3: "compute_cap_major", 4: "compute_cap_minor"}.items():
            plane.stat_metadata[k].id, plane.stat_metadata[k].name = k, v
        for k, v in ((1, sms), (2, mem * GIB), (3, 8), (4, 0)):
            plane.stats.add(metadata_id=k, int64_value=v)
        plane.event_metadata[1].id, plane.event_metadata[1].name = 1, "ampere_sgemm_128x64_nn"
        line = plane.lines.add(id=7, name="Stream #7(Compute)", timestamp_ns=1000)
        for i in range(events):
            line.events.add(metadata_id=1, offset_ps=i * 10 ** 6, duration_ps=10 ** 5)
    path = tmp_path / "two.xplane.pb"
    path.write_bytes(space.SerializeToString())
    warnings = [str(w) for w in xplane.read(path).warnings]
    assert any("/device:GPU:1) give other figures" in w for w in warnings), warnings
