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


def _bandwidths(device, n):
    return {name: np.full(n, lv.bytes_s) for name, lv in device.memory.items()}


def test_compulsory_bytes_stay_on_dram_unless_the_kernel_beat_it():
    ks = KernelSet.from_kernels([
        # 32 kB a call, 10 calls in 1 s: 320 kB/s, far below DRAM: stays on DRAM (fits in L2)
        Kernel("small_slow", 1.0, count=10, bytes={"DRAM": 10 * 32e3}, modelled=True),
        # 1 MB a call at 100 GB/s: beats DRAM (30), L2 (200 GB/s, 2 MB) explains it
        Kernel("medium_fast", 2e-5, count=2, bytes={"DRAM": 2 * 1e6}, modelled=True),
        # 32 kB at 320 GB/s: faster than L2 too; L1 never holds data across kernels,
        # so it goes on the fastest level that holds it (L2) and is above that roof
        Kernel("tiny_faster_than_l2", 1e-7, bytes={"DRAM": 32e3}, modelled=True),
        # 1 GB, beating DRAM but larger than any cache: stays on DRAM
        Kernel("large_fast", 1e-2, bytes={"DRAM": 1e9}, modelled=True),
        Kernel("counted", 1e-9, bytes={"DRAM": 32e3}),                  # counters: untouched
    ])
    device = cpu()
    out = place_compulsory(ks, device, _bandwidths(device, len(ks)))
    level = [next(lv for lv, v in out.kernels.bytes.items() if not math.isnan(v[i])) for i in range(5)]
    assert level == ["DRAM", "L2", "L2", "DRAM", "DRAM"]
    assert out.cache_level == "L2"
    assert out.from_cache.tolist() == [False, True, True, False, False]
    assert out.fits_cache.tolist() == [True, True, True, False, False]
    assert out.kernels.bytes["L2"][1] == 2e6 and np.isnan(out.kernels.bytes["DRAM"][1])
    assert ks.bytes["DRAM"][1] == 2e6  # the input set is not changed


def test_a_modelled_operator_that_beat_dram_says_its_data_came_from_cache():
    # 32 kB a call in 1 us: 32 GB/s beats the 30 GB/s DRAM roof: from L2, at 16 % of it
    k = Kernel("aten::add_", 1e-6, flops={"fp64": 4e3}, bytes={"DRAM": 32e3}, modelled=True)
    p = place(KernelSet.from_kernels([k]), cpu())
    assert p.limiter[0] == "L2" and p.efficiency[0] < 1
    assert p.reason[0] == "data from cache"
    assert not [w for w in p.warnings if "above" in w.message or "its roof" in w.message]
