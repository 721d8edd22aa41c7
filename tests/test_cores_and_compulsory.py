"""One-core roofs for single-threaded kernels, and where the compulsory
bytes of modelled kernels are served from. The CPU here is made up (two
cores, one core pulls half the DRAM bandwidth), never this machine's."""
import math

import numpy as np
import pytest

from roofline.core.compulsory import place_compulsory
from roofline.core.cores import one_core_device
from roofline.importers.kernels_csv import format_kernels, parse
from roofline.core.errors import InputError
from roofline.core.model import Ceiling, Device, Kernel, KernelSet, MemoryLevel
from roofline.core.placement import place


def cpu(single=True) -> Device:
    memory = {"L1": MemoryLevel("L1", Ceiling(400e9), 64, 64e3),
              "L2": MemoryLevel("L2", Ceiling(200e9), 64, 2e6),
              "DRAM": MemoryLevel("DRAM", Ceiling(30e9), 64, 16e9)}
    arch = {"single_core": {"compute": {"fp64": {"flop_s": 50e9}},
                            "memory": {"L1": {"bytes_s": 200e9}, "L2": {"bytes_s": 100e9},
                                       "DRAM": {"bytes_s": 15e9}}}} if single else {}
    return Device("toy-cpu", "cpu", {"fp64": Ceiling(100e9)}, memory, launch_overhead_s=50e-9, architecture=arch)


def test_one_core_device_takes_the_single_core_figures():
    one = one_core_device(cpu())
    assert one.name == "toy-cpu (1 core)"
    assert one.compute["fp64"].value == 50e9
    assert [m.bytes_s for m in one.memory.values()] == [200e9, 100e9, 15e9]
    assert one.memory["L2"].capacity_bytes == 2e6
    assert one_core_device(cpu(single=False)) is None


def test_single_threaded_kernel_is_placed_on_one_core_roofs():
    # 15 GB in 1 s: at the one-core DRAM roof (15 GB/s), half the two-core one (30 GB/s)
    ks = KernelSet.from_kernels([Kernel("add", 1.0, flops={"fp64": 1e9}, bytes={"DRAM": 15e9}, threads=1),
                                 Kernel("add", 1.0, flops={"fp64": 1e9}, bytes={"DRAM": 15e9})])
    p = place(ks, cpu())
    assert p.efficiency == pytest.approx([1.0, 0.5])
    assert p.mixed_threads and p.roof_device.name == "toy-cpu"
    alone = place(KernelSet.from_kernels([Kernel("add", 1.0, bytes={"DRAM": 15e9}, threads=1)]), cpu())
    assert alone.roof_device.name == "toy-cpu (1 core)" and not alone.mixed_threads


def test_threads_round_trip_through_kernels_csv():
    ks = [Kernel("a", 1.0, flops={"fp64": 1.0}, threads=1), Kernel("b", 2.0, flops={"fp64": 1.0})]
    back = parse(format_kernels(ks))
    assert [k.threads for k in back] == [1, None]
    with pytest.raises(InputError, match="threads"):
        parse("name,time_s,threads\nk,1,0.5\n")


def test_operator_and_modelled_columns_round_trip():
    ks = [Kernel("gemm", 1.0, flops={"fp32": 2.0}, bytes={"DRAM": 4.0}, modelled=True, operator="aten::mm")]
    (k,) = parse(format_kernels(ks))
    assert (k.modelled, k.operator) == (True, "aten::mm")
    with pytest.raises(InputError, match="modelled"):
        parse("name,time_s,modelled\nk,1,maybe\n")


def test_compulsory_bytes_go_to_the_level_that_holds_the_working_set():
    ks = KernelSet.from_kernels([
        Kernel("small", 1.0, count=10, bytes={"DRAM": 10 * 32e3}, modelled=True),   # 32 kB a call: L1
        Kernel("medium", 1.0, count=2, bytes={"DRAM": 2 * 1e6}, modelled=True),    # 1 MB a call: L2
        Kernel("large", 1.0, bytes={"DRAM": 1e9}, modelled=True),                   # stays on DRAM
        Kernel("counted", 1.0, bytes={"DRAM": 32e3}),                               # counters: untouched
    ])
    out = place_compulsory(ks, cpu())
    level = [next(lv for lv, v in out.bytes.items() if not math.isnan(v[i])) for i in range(4)]
    assert level == ["L1", "L2", "DRAM", "DRAM"]
    assert out.bytes["L1"][0] == 10 * 32e3 and np.isnan(out.bytes["DRAM"][0])
    assert ks.bytes["DRAM"][0] == 10 * 32e3  # the input set is not changed


def test_small_modelled_operator_is_not_above_its_roof():
    # 32 kB a call in 1 us: 32 GB/s beats the 30 GB/s DRAM roof, not the L1 one
    k = Kernel("aten::add_", 1e-6, flops={"fp64": 4e3}, bytes={"DRAM": 32e3}, modelled=True)
    p = place(KernelSet.from_kernels([k]), cpu())
    assert p.limiter[0] == "L1" and p.efficiency[0] < 1
    assert not [w for w in p.warnings if "above" in w.message or "its roof" in w.message]
