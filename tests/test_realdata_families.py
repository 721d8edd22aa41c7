"""Every distinct kernel name in the real files of ../shared/realdata keeps
the family pinned in tests/fixtures/realdata_families/families.json (made
once by make.py there and reviewed by hand), and the readers give each
kernel that family."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REALDATA
from corrupt import needs_realdata
from roofline.core.families import FAMILIES, family_of

FIXTURE = Path(__file__).parent / "fixtures" / "realdata_families"
PINS = json.loads((FIXTURE / "families.json").read_text())
# The real files the pins were made from and reviewed against. Files added
# to ../shared/realdata later (B200, torch.compile and NCCL traces) are not
# pinned until their names are reviewed too: pinning what the rules say of
# them now would only record the rules, not check them.
PINNED_FILES = set((FIXTURE / "files.txt").read_text().split())


def test_the_fixture_covers_the_real_files_and_uses_known_families():
    assert len(PINS) > 150                          # 199 names when made
    assert {e["family"] for e in PINS.values()} <= set(FAMILIES)
    # the names the review was about are in it
    assert PINS["void permute_pooled_embs_kernel<float>(float const*, long const*, long const*, "
                "long const*, float*, long, long, long)"]["family"] == "elementwise"


def test_every_pinned_real_name_keeps_its_family():
    moved = {name: (e["family"], family_of(name)) for name, e in PINS.items()
             if family_of(name) != e["family"]}
    assert not moved, f"{len(moved)} real kernel names changed family (pinned, now): {moved}"


@needs_realdata
@pytest.mark.parametrize("folder", ["ncu_csv", "ncu_rep", "nvprof", "nsys", "kineto_trace"])
def test_readers_give_every_real_kernel_its_pinned_family(folder):
    from roofline.importers import read_profile
    from roofline.core.errors import RooflineError
    paths = sorted(p for p in (REALDATA / folder).glob("*") if f"{folder}/{p.name}" in PINNED_FILES)
    if not paths:
        pytest.skip(f"{REALDATA / folder} is empty")
    unknown, wrong = [], []
    for path in paths:
        try:
            kernels = read_profile(path).kernels
        except RooflineError:
            continue   # refused files (NVTX report, .nsys-rep) have no names
        for k in kernels:
            if k.name not in PINS:
                unknown.append(k.name[:80])
            elif k.family != PINS[k.name]["family"]:
                wrong.append((k.name[:80], k.family, PINS[k.name]["family"]))
    assert not wrong
    assert not unknown, ("names not in the fixture (a reader now names kernels differently: "
                         f"review and rerun tests/fixtures/realdata_families/make.py): {unknown[:5]}")


@pytest.mark.parametrize("name, family", [
    ("void cask_cudnn::computeOffsetsKernel<false, false>(cask_cudnn::ComputeOffsetsParams)",
     "implicit_gemm"),                                  # the indexed implicit GEMM's offset table
    ("void cudnn::cnn::kern_precompute_indices<false>(int*, int, int)", "implicit_gemm"),
    ("void cask_cudnn::otherKernel<false>(int)", "other"),   # only the offsets helper moves
])
def test_cudnn_offset_helpers_are_implicit_gemm(name, family):
    assert family_of(name) == family
