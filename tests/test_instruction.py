"""Instruction roofline (Ding and Williams 2019): V100 ceilings, placement, outputs."""
import io
import json

import pytest

from roofline.core.errors import RooflineError
from roofline.analysis.instruction import (GLOBAL_WALLS, SHARED_WALLS, describe_access, instruction_ceilings,
                                           instruction_roofline)
from roofline.render.instruction import instruction_json, instruction_roofline_figure, instruction_table
from roofline.core.model import Ceiling, Device, Kernel, MemoryLevel


def paper_v100() -> Device:
    """V100 with the bandwidths behind Ding & Williams' ceilings:
    L1 14.0 TB/s (437.5 GTXN/s x 32 B), L2 2.9952 TB/s (93.6 x 32),
    HBM 828.8 GB/s measured (25.9 x 32); 80 SMs x 4 x 1.53 GHz = 489.6 warp GIPS."""
    levels = {"L1": 14.0e12, "L2": 2.9952e12, "DRAM": 828.8e9}
    return Device("V100 (Ding & Williams 2019)", "gpu", compute={"fp32": Ceiling(15.7e12)},
                  memory={k: MemoryLevel(k, Ceiling(v), transaction_bytes=32) for k, v in levels.items()},
                  instruction_rate=Ceiling(80 * 4 * 1.53e9))


def test_transaction_rates_are_bandwidth_over_transaction_size():
    # a unit rule, not an agreement: the bandwidths above are the paper's
    # GTXN/s times 32 B, so dividing them by 32 B gives the paper's figures back
    c = instruction_ceilings(paper_v100())
    assert c.transactions_s["L1"] == pytest.approx(14.0e12 / 32)
    assert c.transactions_s["DRAM"] == pytest.approx(828.8e9 / 32)
    assert list(c.transactions_s) == ["L1", "shared", "L2", "DRAM"]
    assert c.ridge("DRAM") == pytest.approx(c.warp_inst_s / c.transactions_s["DRAM"])


def test_shared_memory_from_the_l1_bandwidth_agrees_with_the_paper():
    # the one independent check: shared memory's wavefront rate is derived
    # from the L1 SRAM's bandwidth (14.0 TB/s / 128 B = 109.4 G); Ding and
    # Williams measured shared memory on its own: 109.3 GTXN/s
    assert instruction_ceilings(paper_v100()).transactions_s["shared"] == pytest.approx(109.3e9, rel=1e-3)


def test_builtin_v100_profile():
    # the datasheet derivation (80 SMs x 4 schedulers x 1530 MHz) against the
    # paper's published peak, 489.6 warp GIPS
    from roofline.devices.profile import find_device
    c = instruction_ceilings(find_device("v100-sxm2"))
    assert c.warp_inst_s == pytest.approx(489.6e9)
    assert c.transactions_s["L1"] == pytest.approx(15.6672e12 / 32)  # datasheet, above measured


def test_walls():
    assert dict(GLOBAL_WALLS) == {"stride-0": 1.0, "unit stride (32-bit)": 0.25, "scattered": 1 / 32}
    assert dict(SHARED_WALLS) == {"no bank conflict": 1.0, "32-way bank conflict": 1 / 32}
    assert describe_access("global", 1.0).startswith("stride-0")
    assert describe_access("global", 0.25).startswith("unit stride")
    assert describe_access("global", 1 / 8).startswith("strided (8.0")
    assert describe_access("global", 1 / 32).startswith("scattered")
    assert describe_access("shared", 1.0) == "no bank conflict"
    assert describe_access("shared", 1 / 32) == "32.0-way bank conflicts"


def kernel(**extra):
    # 1e9 warp instructions in 20 ms = 50 warp GIPS
    # times: instructions 1e9 / 489.6e9 = 2.04 ms; L1 2e9 / 437.5e9 = 4.57 ms;
    # L2 1e9 / 93.6e9 = 10.7 ms; HBM 2e8 / 25.9e9 = 7.72 ms -> L2-bound, 53 % of roof
    return Kernel("stencil<float>(float*)", time_s=20e-3, instructions=1e9,
                  transactions={"L1": 2e9, "L2": 1e9, "HBM": 2e8}, **extra)


def test_placement():
    roof = instruction_roofline([kernel()], paper_v100())
    p, = roof.points
    assert p.warp_inst_s == pytest.approx(50e9)
    assert p.intensity == pytest.approx({"L1": 0.5, "L2": 1.0, "DRAM": 5.0})  # HBM -> DRAM
    assert p.limiter == "L2"
    assert p.efficiency == pytest.approx(1e9 / 93.6e9 / 20e-3)
    assert p.predication is None and p.access == {}


def test_predication_and_access_walls():
    launch = {"thread_instructions": 0.75 * 32 * 1e9, "global_ldst_instructions": 5e8,
              "shared_ldst_instructions": 1e8}
    k = Kernel("k", time_s=1e-3, instructions=1e9, launch=launch,
               transactions={"L1": 2e9, "shared": 8e8})
    p, = instruction_roofline([k], paper_v100()).points
    assert p.predication == pytest.approx(0.75)
    assert p.access["global"] == pytest.approx(0.25)   # 4 sectors per request: coalesced
    assert p.access["shared"] == pytest.approx(0.125)  # 8 wavefronts: 8-way conflicts
    assert describe_access("shared", p.access["shared"]) == "8.0-way bank conflicts"


def test_missing_counters_are_reported():
    roof = instruction_roofline([Kernel("no_counters", time_s=1e-3), kernel()], paper_v100())
    assert len(roof.points) == 1
    assert "smsp__inst_executed.sum" in str(roof.warnings[0])
    bare = Device("cpu", "cpu", compute={"fp64": Ceiling(1e9)}, memory={})
    with pytest.raises(RooflineError, match="instruction ceiling"):
        instruction_ceilings(bare)


def test_table_json_and_figure():
    roof = instruction_roofline([kernel(variant="tiled")], paper_v100())
    table = instruction_table(roof)
    assert "489.6 warp GIPS" in table and "25.9 GTXN/s" in table
    assert "stencil<float>(float*) [tiled]" in table and "L2" in table
    data = json.loads(instruction_json(roof))
    assert data["kernels"][0]["limiter"] == "L2"
    fig = instruction_roofline_figure(roof)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any("GTXN/s" in t for t in texts) and any("stride-0" in t for t in texts)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=40)
    assert buf.getvalue().startswith(b"\x89PNG")
