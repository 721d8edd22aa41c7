"""A point above its roof says so in its own row: its reason is "above its
roof" (more than 5 % over), whatever else its evidence shows, with the
possible causes in the reason's fix text."""
from __future__ import annotations

from roofline.core.model import Ceiling, Device, Kernel, KernelSet, MemoryLevel
from roofline.core.placement import place
from roofline.core.reasons import ABOVE_ROOF_SHARE, REASON_FIXES


def cpu() -> Device:
    mem = {"L3": MemoryLevel("L3", Ceiling(200e9), 64, 32e6), "DRAM": MemoryLevel("DRAM", Ceiling(20e9))}
    return Device("toy-cpu", "cpu", {"fp32": Ceiling(100e9)}, mem, architecture={"threads": 2},
                  provenance={"method": "measured"})


def row(efficiency: float, name: str) -> Kernel:
    # compute-bound: 1e9 FLOP at 100 GFLOP/s is 10 ms on the roof
    return Kernel(name, time_s=10e-3 / efficiency, flops={"fp32": 1e9}, bytes={"DRAM": 1e3})


def test_a_row_above_its_roof_says_so_and_one_within_the_tolerance_does_not():
    recs = {r["name"]: r for r in place(KernelSet.from_kernels(
        [row(1.3, "over"), row(1.03, "at"), row(0.2, "below")]), cpu()).records()}
    assert recs["over"]["efficiency"] > ABOVE_ROOF_SHARE and recs["over"]["reason"] == "above its roof"
    assert recs["at"]["reason"] != "above its roof"
    assert recs["below"]["reason"] not in ("", "above its roof")
    fix = REASON_FIXES["above its roof"]
    assert "another" in fix and "busy" in fix and "model" in fix


def test_above_the_roof_wins_over_data_from_cache():
    # 4 MB in 10 us (400 GB/s): faster than DRAM, fits L3 -> placed on L3, and still above it
    k = Kernel("in_place_add", time_s=1e-5, flops={"fp32": 1e3}, bytes={"DRAM": 4e6}, modelled=True)
    (rec,) = place(KernelSet.from_kernels([k]), cpu()).records()
    assert rec["level"] == "L3" and rec["efficiency"] > ABOVE_ROOF_SHARE and rec["reason"] == "above its roof"


def test_every_reason_a_placed_row_can_get_says_what_to_do():
    """The report's "what to do" column is never empty for a named reason
    ("no evidence" gets the report's note on what to collect instead)."""
    from roofline.core.reasons import FIXES, REASONS, WITHOUT_WORK
    named = [r for r in REASONS if r not in ("", "no evidence") and r not in WITHOUT_WORK]
    assert [r for r in named if not REASON_FIXES.get(r)] == []
    assert [r for r in WITHOUT_WORK if not FIXES.get(r)] == []      # rows without work: their own fixes
