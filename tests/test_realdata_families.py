"""Every distinct kernel name in the real files of ../shared/realdata gets
the family a person decided for it by reading the name
(tests/fixtures/realdata_families/reviewed.json, reviewed by hand on
2026-11-25 without looking at what the rules say; see the README there),
and the readers give each kernel the family the rules give its name.

families.json beside it is what ``family_of`` said when make.py ran: a
record of the rules, not evidence. Where the review disagrees with the
rules (DISAGREE below), the test is an xfail(strict=True): fixing the rule
in roofline/core/families.py makes it pass, and strict turns that into a
failure that asks for the name to be moved out of DISAGREE."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REALDATA
from corrupt import needs_realdata
from roofline.core.families import FAMILIES, family_of

FIXTURE = Path(__file__).parent / "fixtures" / "realdata_families"
PINS = json.loads((FIXTURE / "families.json").read_text())
REVIEWED = json.loads((FIXTURE / "reviewed.json").read_text())
# The real files the pins were made from and reviewed against. Files added
# to ../shared/realdata later (B200, torch.compile and NCCL traces) are not
# pinned until their names are reviewed too: pinning what the rules say of
# them now would only record the rules, not check them.
PINNED_FILES = set((FIXTURE / "files.txt").read_text().split())

# Names whose reviewed family is not the one the rules gave when reviewed
# (families.json): name -> the rules' family then. Why the review differs
# is in reviewed.json ("why").
DISAGREE = {
    "add_i_col_times_ij_block_kernel(int, int, int, int, double*, double*, thrust::complex<double>*, "
    "thrust::complex<double>*)": "other",
    "getdotError(int, int, float*, float*, float*)": "other",
    "rgb_increase_brightness_pass_ready(int *, int *, int, float)": "other",
    "update_weights(float*, float*, float)": "other",
}
# the fbgemm TBE names are long: matched by their start
DISAGREE_PREFIX = {
    "void bounds_check_indices_kernel<long, false>(": "other",
}


def rules_family_when_reviewed(name: str) -> str | None:
    """The rules' family of a name the review disagrees with, else None."""
    if name in DISAGREE:
        return DISAGREE[name]
    return next((f for p, f in DISAGREE_PREFIX.items() if name.startswith(p)), None)


def _case(i: int, name: str):
    entry = REVIEWED[name]
    rule = rules_family_when_reviewed(name)
    marks = () if rule is None else pytest.mark.xfail(
        strict=True, reason=f"the rules say {rule!r}, the review {entry['family']!r}: {entry['why']}")
    return pytest.param(name, entry["family"], id=f"{i:03d}-{name[:48]}", marks=marks)


def test_the_review_covers_the_pinned_names_and_uses_known_families():
    assert len(REVIEWED) > 150                       # 199 names when reviewed
    assert set(REVIEWED) == set(PINS), "review the new names (README.md) before pinning them"
    assert {e["family"] for e in REVIEWED.values()} <= set(FAMILIES)
    assert all(e["why"].strip() for e in REVIEWED.values())
    # the names the first review was about are in it
    assert REVIEWED["void permute_pooled_embs_kernel<float>(float const*, long const*, long const*, "
                    "long const*, float*, long, long, long)"]["family"] == "elementwise"


def test_the_disagreements_are_exactly_where_review_and_record_differ():
    """DISAGREE lists the names where reviewed.json and families.json (the
    rules' output when reviewed) differ, with families.json's family: a
    rule change and a regenerated families.json must not hide one."""
    differ = {n: PINS[n]["family"] for n in REVIEWED if REVIEWED[n]["family"] != PINS[n]["family"]}
    listed = {n: rules_family_when_reviewed(n) for n in REVIEWED if rules_family_when_reviewed(n)}
    assert len(listed) == len(DISAGREE) + len(DISAGREE_PREFIX)   # each prefix matches one name
    stale = {n: (listed.get(n), differ.get(n)) for n in set(listed) | set(differ)
             if listed.get(n) != differ.get(n)}
    assert not stale, ("families.json changed for reviewed names: check them against reviewed.json "
                       f"and update DISAGREE: {stale}")


@pytest.mark.parametrize("name, family", [_case(i, n) for i, n in enumerate(REVIEWED)])
def test_every_real_name_has_its_reviewed_family(name, family):
    assert family_of(name) == family


@needs_realdata
@pytest.mark.parametrize("folder", ["ncu_csv", "ncu_rep", "nvprof", "nsys", "kineto_trace"])
def test_readers_give_every_real_kernel_the_family_of_its_name(folder):
    from roofline.core.errors import RooflineError
    from roofline.importers import read_profile
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
            if k.name not in REVIEWED:
                unknown.append(k.name[:80])
            elif k.family != family_of(k.name):
                wrong.append((k.name[:80], k.family, family_of(k.name)))
    assert not wrong
    assert not unknown, ("names not in the review (a reader now names kernels differently: rerun "
                         "tests/fixtures/realdata_families/make.py and review the new names by hand, "
                         f"README.md there): {unknown[:5]}")


@pytest.mark.parametrize("name, family", [
    ("void cask_cudnn::computeOffsetsKernel<false, false>(cask_cudnn::ComputeOffsetsParams)",
     "implicit_gemm"),                                  # the indexed implicit GEMM's offset table
    ("void cudnn::cnn::kern_precompute_indices<false>(int*, int, int)", "implicit_gemm"),
    ("void cask_cudnn::otherKernel<false>(int)", "other"),   # only the offsets helper moves
])
def test_cudnn_offset_helpers_are_implicit_gemm(name, family):
    assert family_of(name) == family
