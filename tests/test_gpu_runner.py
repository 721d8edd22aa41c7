"""The GPU runner's pure parts, and the runner itself against a fake CuPy.

Nothing here needs a GPU, CuPy or NVML: the calibration runs on fake timers,
theoretical peaks on datasheet attributes, the SASS parser on small texts,
and ``measure_gpu`` end to end on a simulated device whose true rates are
known, so the work formulas, the calibration and the profile assembly are
checked. test_gpu_fakes.py checks that every CuPy and NVML name the fakes
provide exists in the real packages; what the calls return on a device is
only checked on a real GPU.
"""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from roofline.core.errors import MeasurementError
from roofline.microbench.gpu import build, runner, sass, theory, timing, verify
from roofline.microbench.gpu.kernels import BY_NAME
from roofline.devices.profile import dump_device, parse_device


# ---------------------------------------------------------------- calibration

def test_calibrate_reaches_target_with_linear_cost():
    calls = []

    def fake(n):  # 3 us per unit plus 5 us fixed cost
        calls.append(n)
        return 5e-6 + 3e-6 * n

    n, t = timing.calibrate(fake, 0.010)
    assert t >= 0.010
    assert 0.010 <= 5e-6 + 3e-6 * n < 0.030   # not wildly overshooting
    assert len(calls) <= 4
    assert calls == sorted(calls)


def test_calibrate_handles_zero_time_and_limit():
    n, t = timing.calibrate(lambda n: 0.0, 0.01, limit=1000)
    assert n == 1000 and t == 0.0
    n, t = timing.calibrate(lambda n: 1.0, 0.01)
    assert n == 1 and t == 1.0


def test_calibrate_grows_by_at_least_two_and_at_most_hundred():
    seen = []
    timing.calibrate(lambda n: seen.append(n) or n * 1e-9, 0.01, start=1)
    ratios = [b / a for a, b in zip(seen, seen[1:])]
    assert all(2 <= r <= 100 for r in ratios)


def test_rates_and_fit():
    assert timing.rates(100.0, [1.0, 2.0, 0.0]) == (100.0, 50.0)
    sizes = [1e3, 1e6, 1e8]
    lat, bw = timing.fit_latency_bandwidth(sizes, [5e-6 + s / 20e9 for s in sizes])
    assert lat == pytest.approx(5e-6, rel=1e-6)
    assert bw == pytest.approx(20e9, rel=1e-9)
    with pytest.raises(ValueError):
        timing.fit_latency_bandwidth([1.0, 1.0], [1.0, 2.0])


# ---------------------------------------------------------------- grids

def test_full_waves_and_occupancy_sweep():
    assert timing.full_wave_grid(108, 8) == 864
    with pytest.raises(ValueError):
        timing.full_wave_grid(0, 1)
    assert timing.occupancy_sweep(8) == [1, 2, 4, 8]
    assert timing.occupancy_sweep(6) == [1, 2, 4, 6]
    assert timing.occupancy_sweep(6, quick=True) == [4, 6]
    assert timing.occupancy_sweep(1) == [1]
    assert timing.occupancy_sweep(0) == [1]


def test_buffer_sizes():
    assert timing.pow2_floor(40e6 / 2) == 16 * 2**20
    assert timing.pow2_floor(0.5) == 1
    assert timing.dram_buffer_bytes(40e6, 80e9) == 320e6          # 8x L2
    assert timing.dram_buffer_bytes(4e6, 16e9) == 256e6           # floor
    assert timing.dram_buffer_bytes(50e6, 1e9) == 0.25e9          # capped by free memory
    assert timing.stream_iterations(1e6, 1000, 64) == 16


def test_stream_formulas_cover_the_buffer():
    spec = BY_NAME["dram_copy"]
    grid, block, iters = 216, 256, 10
    n4 = spec.stream_length(grid, block, iters)
    assert n4 == iters * 4 * grid * block
    assert spec.total_work(grid, block, iters) == n4 * 16 * 2   # read + write


def test_compute_formula():
    spec = BY_NAME["peak_fp32"]
    assert spec.total_work(108, 256, 1000) == 1000 * 108 * 256 * 1024
    assert BY_NAME["mma_fp16"].total_work(1, 32, 1) == 64 * 4096   # one warp, 64 mma
    assert BY_NAME["wgmma_fp16"].total_work(1, 128, 1) == 8 * 2 * 64 * 128 * 16


# ---------------------------------------------------------------- theory

def test_theoretical_peaks_from_attributes():
    a100 = dict(cc=(8, 0), sm_count=108, sm_clock_hz=1.41e9)
    assert theory.compute_peak("fp64", **a100) == pytest.approx(9.7e12, rel=0.01)
    assert theory.compute_peak("fp32", **a100) == pytest.approx(19.5e12, rel=0.01)
    assert theory.compute_peak("tensor_fp16", **a100) == pytest.approx(312e12, rel=0.01)
    assert theory.compute_peak("tensor_tf32", **a100) == pytest.approx(156e12, rel=0.01)
    h100 = dict(cc=(9, 0), sm_count=132, sm_clock_hz=1.83e9)
    assert theory.compute_peak("tensor_fp16", **h100) == pytest.approx(989e12, rel=0.01)
    rtx3090 = dict(cc=(8, 6), sm_count=82, sm_clock_hz=1.695e9)
    assert theory.compute_peak("fp32", **rtx3090) == pytest.approx(35.6e12, rel=0.01)
    geforce = theory.compute_peak("tensor_fp16", **rtx3090, name="NVIDIA GeForce RTX 3090")
    assert geforce == pytest.approx(71e12, rel=0.01)       # FP32 accumulate at half rate
    assert theory.compute_peak("fp32", (6, 0), 56, 1.48e9) is None   # P100: no spec of cc 6.0
    # figures theory.py did not know before it read the datasheet table
    assert theory.compute_peak("tensor_fp8", **h100) == pytest.approx(1979e12, rel=0.01)
    assert theory.compute_peak("tensor_fp64", **h100) == pytest.approx(61.8e12, rel=0.03)
    assert theory.compute_peak("fp32", (8, 0), 108, None) is None
    assert theory.instruction_peak((7, 0), 80, 1.53e9) == pytest.approx(489.6e9)  # Ding & Williams
    assert theory.dram_peak(1215e6, 5120) == pytest.approx(1.555e12, rel=0.001)
    assert theory.dram_peak(10501e6, 384) == pytest.approx(1.008e12, rel=0.001)
    assert theory.pcie_peak(4, 16) == pytest.approx(31.5e9, rel=0.01)
    assert theory.pcie_peak(6, 16) == pytest.approx(121e9, rel=0.01)   # 64 GT/s, 242/256 FLITs
    assert theory.pcie_peak(7, 16) is None
    assert theory.onchip_peak("shared", (8, 0), 108, 1.41e9) == pytest.approx(19.5e12, rel=0.01)
    assert theory.onchip_peak("L2", (8, 0), 108, 1.41e9) is None


# ---------------------------------------------------------------- build

def test_select_arch():
    supported = (75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121)
    assert build.select_arch((8, 0), supported) == "80"
    assert build.select_arch((8, 6), supported) == "86"
    assert build.select_arch((9, 0), supported, arch_specific=True) == "90a"
    assert build.select_arch((12, 2), supported) == "121"     # same major, lower minor runs
    with pytest.raises(MeasurementError, match="sm_70"):
        build.select_arch((7, 0), supported)
    assert build.select_arch((8, 6), (80, 90)) == "80"          # an sm_80 cubin runs on 8.6
    with pytest.raises(MeasurementError):
        build.select_arch((8, 6), (80, 90), arch_specific=True)  # sm_86a needs an exact match


def test_options_are_cupys():
    opts = build.compile_options("80")
    assert "-ftz=true" in opts and "--device-as-default-execution-space" in opts
    assert opts[-1] == "-arch=sm_80"


def test_complete_elf_pads_a_short_cubin():
    import struct
    header = bytearray(64)
    header[:5] = b"\x7fELF\x02"
    struct.pack_into("<QQ", header, 0x20, 0, 64)              # no program headers; sections at 64
    struct.pack_into("<HHHH", header, 0x36, 0, 0, 64, 2)       # two 64-byte section headers
    full = bytes(header) + b"\1" * 127 + b"\0"
    assert build.complete_elf(full[:-1]) == full
    assert build.complete_elf(full) == full
    assert build.complete_elf(b"not elf") == b"not elf"


# ---------------------------------------------------------------- SASS text

NVDISASM = """
//--------------------- .text.k                   --------------------------
        .section        .text.k,"ax",@progbits
k:
.text.k:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/              @!P0 BRA `(.L_x_0) ;
.L_x_1:
        /*0020*/                   FFMA.FTZ R9, R9, R2.reuse, c[0x0][0x16c] ;
        /*0030*/                   FFMA2 R4, R4, R2, R6 ;
        /*0040*/                   LDG.E.128.STRONG.GPU R8, desc[UR4][R2.64] ;
        /*0050*/                   ISETP.GE.AND P0, PT, R4, c[0x0][0x170], PT ;
        /*0060*/               @P0 CALL.REL.NOINC `(.L_x_0) ;
        /*0070*/                   BRA `(.L_x_1) ;
.L_x_0:
        /*0080*/                   EXIT ;
.L_x_2:
        /*0090*/                   BRA `(.L_x_2);
        /*00a0*/                   NOP;
"""

CUOBJDUMP = """
        code for sm_80
                Function : k
        .headerflags    @"EF_CUDA_SM80 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM80)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;        /* 0x00000a0000017a02 */
                                                                 /* 0x000fe40000000f00 */
        /*0010*/                   HFMA2.MMA R5, R5, R2, R3 ;    /* 0x0000000000007919 */
        /*0020*/                   HFMA2 R6, R6, R2, R3 ;        /* 0x0000000000007919 */
        /*0030*/                   BRA.U UP0, 0x10 ;             /* 0xffffdfb000007947 */
        /*0040*/                   EXIT ;
        /*0050*/                   BRA 0x50;
"""


def test_parse_nvdisasm_loops_and_counts():
    fn = sass.parse_sass(NVDISASM)["k"]
    assert fn.instructions[1].predicate == "@!P0"
    loops = fn.loops()
    assert len(loops) == 1                       # the trailing BRA-to-self is not a loop
    body = loops[0].counts()
    assert body["FFMA.FTZ"] == 1 and body["LDG.E.128.STRONG.GPU"] == 1
    assert verify.count_declared("FFMA", loops[0].body) == 3   # FFMA2 counts twice
    assert verify.count_declared("LDG.E.128.STRONG.GPU", loops[0].body) == 1
    assert verify.count_declared("LDG.E.128", loops[0].body) == 0


def test_parse_cuobjdump_hex_targets():
    fn = sass.parse_sass(CUOBJDUMP)["k"]
    (loop,) = fn.loops()
    assert [i.opcode for i in loop.body] == ["HFMA2.MMA", "HFMA2", "BRA.U"]
    assert verify.count_declared("HFMA2", loop.body) == 2        # .MMA variant counts
    assert verify.count_declared("HFMA2.BF16_V2", loop.body) == 0


def test_resource_usage_parse():
    text = (" Function peak_fp32:\n  REG:20 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:376 "
            "TEXTURE:0 SURFACE:0 SAMPLER:0\n")
    assert sass.parse_resource_usage(text) == {"peak_fp32": {
        "REG": 20, "STACK": 0, "SHARED": 0, "LOCAL": 0, "CONSTANT[0]": 376,
        "TEXTURE": 0, "SURFACE": 0, "SAMPLER": 0}}


def test_check_reports_count_mismatch_and_missing_loop():
    spec = BY_NAME["peak_fp32"]
    fn = sass.parse_sass(NVDISASM)["k"]
    problems = verify.check(spec, fn, 80)
    assert any("FFMA x3" in p and "declared 512" in p for p in problems)
    assert any("undeclared memory" in p for p in problems)
    empty = sass.Function("k", (sass.Instruction(0, "EXIT"),))
    assert "no loop" in verify.check(spec, empty, 80)[0]
    assert verify.check(spec, None, 80) == ["peak_fp32: not found in the cubin"]


# ---------------------------------------------------------------- probe

def _fake_cupy(status=None, count=1):
    class CUDARuntimeError(RuntimeError):
        def __init__(self, status):
            super().__init__(f"cudaError {status}")
            self.status = status

    def get_count():
        if status is not None:
            raise CUDARuntimeError(status)
        return count

    rt = types.SimpleNamespace(CUDARuntimeError=CUDARuntimeError, getDeviceCount=get_count)
    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=rt))


@pytest.mark.parametrize("status,message", [(35, "no NVIDIA driver found"),
                                            (100, "no GPU device found")])
def test_probe_errors_are_one_plain_line(monkeypatch, status, message):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(status))
    with pytest.raises(MeasurementError) as err:
        runner.probe_gpu(0)
    assert str(err.value) == message


def test_probe_without_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)   # import cupy -> ImportError
    with pytest.raises(MeasurementError) as err:
        runner.probe_gpu(0)
    assert str(err.value) == "CuPy is not installed (pip install 'roofline[gpu]')"


def test_probe_index_out_of_range(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(count=1))
    with pytest.raises(MeasurementError, match="no GPU device found at index 1"):
        runner.probe_gpu(1)


# ---------------------------------------------------------------- the whole runner, simulated

class SimulatedGPU:
    """An A100-like device: each kernel runs at a known rate on a virtual
    clock that CUDA events and the host timer read."""

    RATES = {"fp64": 9.0e12, "fp32": 18.0e12, "fp16": 70e12, "bf16": 35e12, "int32": 9e12,
             "inst": 550e9, "tensor_fp16": 280e12, "tensor_bf16": 280e12, "tensor_tf32": 140e12,
             "tensor_int8": 560e12, "L1": 15e12, "L2": 4.5e12, "DRAM": 1.4e12, "shared": 17e12}
    LAUNCH_S = 4e-6
    H2D, D2H = 24e9, 22e9

    def __init__(self):
        self.now = 0.0

    def run_kernel(self, spec, grid, block, args):
        if not spec.has_loop:
            self.now += self.LAUNCH_S
            return
        sig = dict(zip(spec.signature, args))
        if "n4" in sig:
            iters = int(sig["n4"]) // (spec.elements_per_iteration * grid * block)
        else:
            iters = int(sig["iters"])
        rate = self.RATES["DRAM" if spec.name.startswith("dram") else spec.ceiling]
        # occupancy matters: fewer than 4 resident blocks per SM runs slower
        penalty = 1.0 if grid >= 8 * 108 else 0.8
        self.now += 3e-6 + spec.total_work(grid, block, iters) / (rate * penalty)


def _install_fake_cupy(monkeypatch, gpu: SimulatedGPU):
    class Event:
        def record(self):
            self.t = gpu.now

        def synchronize(self):
            pass

    class Array:
        def __init__(self, n, dtype=np.uint8):
            self.data = types.SimpleNamespace(ptr=id(self))
            self.nbytes = int(n) * np.dtype(dtype).itemsize

    class Kernel:
        def __init__(self, name):
            self.spec = BY_NAME[name]
            self.kernel = types.SimpleNamespace(ptr=0)

        def __call__(self, grid, block, args):
            gpu.run_kernel(self.spec, grid[0], block[0], args)

    class RawModule:
        def __init__(self, path):
            assert open(path, "rb").read() == b"fake cubin"

        def get_function(self, name):
            return Kernel(name)

    def memcpy(dst, src, size, kind):
        gpu.now += 10e-6 + size / (gpu.H2D if kind == 1 else gpu.D2H)

    rt = types.SimpleNamespace(
        CUDARuntimeError=type("CUDARuntimeError", (RuntimeError,), {}),
        getDeviceCount=lambda: 1,
        getDeviceProperties=lambda i: {
            "name": b"Simulated A100", "major": 8, "minor": 0, "multiProcessorCount": 108,
            "l2CacheSize": 40 * 2**20, "totalGlobalMem": 40 * 2**30, "memoryBusWidth": 5120,
            "maxThreadsPerMultiProcessor": 2048, "sharedMemPerMultiprocessor": 164 * 1024,
            "warpSize": 32},
        deviceGetAttribute=lambda a, i: 0, cudaDevAttrClockRate=13, cudaDevAttrMemoryClockRate=36,
        driverGetVersion=lambda: 13000, runtimeGetVersion=lambda: 13000,
        memGetInfo=lambda: (38 * 2**30, 40 * 2**30), memcpy=memcpy,
        deviceSynchronize=lambda: None)
    cuda = types.SimpleNamespace(
        runtime=rt, Event=Event, Device=lambda i: types.SimpleNamespace(use=lambda: None),
        get_elapsed_time=lambda a, b: (b.t - a.t) * 1e3,
        driver=types.SimpleNamespace(
            occupancyMaxActiveBlocksPerMultiprocessor=lambda ptr, block, smem: 2048 // block),
        alloc_pinned_memory=lambda n: types.SimpleNamespace(ptr=1))
    fake = types.SimpleNamespace(
        cuda=cuda, RawModule=RawModule, __version__="fake",
        zeros=lambda n, dtype=np.uint8: Array(n, dtype), ones=lambda n, dtype=np.uint8: Array(n, dtype),
        empty=lambda n, dtype=np.uint8: Array(n, dtype))
    monkeypatch.setitem(sys.modules, "cupy", fake)

    class FakeNvrtc:
        def version(self):
            return (13, 0)

        def supported_archs(self):
            return (75, 80, 86, 89, 90, 100, 120)

        def compile(self, source, name, options):
            assert options == build.compile_options(options[-1].split("_")[1])
            return b"fake cubin", ""

    monkeypatch.setattr(build, "CupyNvrtc", FakeNvrtc)
    monkeypatch.setattr(runner, "time", types.SimpleNamespace(perf_counter=lambda: gpu.now))

    class NVMLError(Exception):
        pass

    nvml = types.SimpleNamespace(
        # the constants are nvidia-ml-py's (test_gpu_fakes.py checks them)
        NVMLError=NVMLError, NVML_CLOCK_SM=1, NVML_CLOCK_MEM=2, NVML_TEMPERATURE_GPU=0,
        nvmlInit=lambda: None, nvmlDeviceGetHandleByIndex=lambda i: "h",
        nvmlDeviceGetHandleByPciBusId=lambda b: "h",
        nvmlDeviceGetClockInfo=lambda h, c: 1410 if c == 1 else 1215,
        nvmlDeviceGetMaxClockInfo=lambda h, c: 1410 if c == 1 else 1215,
        nvmlDeviceGetPowerUsage=lambda h: 250_000, nvmlDeviceGetTemperature=lambda h, s: 55,
        nvmlDeviceGetMaxPcieLinkGeneration=lambda h: 4, nvmlDeviceGetMaxPcieLinkWidth=lambda h: 16,
        nvmlSystemGetDriverVersion=lambda: "580.00")
    monkeypatch.setitem(sys.modules, "pynvml", nvml)


def test_measure_gpu_on_a_simulated_device(monkeypatch):
    gpu = SimulatedGPU()
    _install_fake_cupy(monkeypatch, gpu)
    steps = []
    dev = runner.measure_gpu(0, quick=True, progress=lambda name, f: steps.append((name, f)))

    assert dev.kind == "gpu" and dev.name == "Simulated A100"
    for key in ("fp64", "fp32", "fp16", "bf16", "int32", "tensor_fp16", "tensor_tf32", "tensor_int8"):
        c = dev.compute[key]
        assert c.value == pytest.approx(gpu.RATES[key], rel=0.01), key
        assert len(c.samples) == 3 and c.clock_hz == 1.41e9
    assert dev.compute["fp32"].fraction_of_theoretical == pytest.approx(18.0 / 19.49, rel=0.01)
    assert dev.instruction_rate.value == pytest.approx(gpu.RATES["inst"], rel=0.01)
    for level in ("L1", "L2", "DRAM"):
        assert dev.memory[level].bytes_s == pytest.approx(gpu.RATES[level], rel=0.01), level
    assert dev.memory["DRAM"].bandwidth.theoretical == pytest.approx(1.555e12, rel=0.001)
    assert dev.memory["PCIe"].bytes_s == pytest.approx(gpu.H2D, rel=0.01)
    assert dev.launch_overhead_s == pytest.approx(gpu.LAUNCH_S, rel=0.01)
    extra = dev.provenance["extra_ceilings"]
    assert extra["shared_read"]["value"] == pytest.approx(gpu.RATES["shared"], rel=0.01)
    assert len({"dram_read", "dram_write", "dram_copy"} & set(extra)) == 2   # the best is DRAM
    link = dev.provenance["host_link"]["h2d_pinned"]
    assert link["latency_s"] == pytest.approx(10e-6, rel=0.05)
    assert link["fit_bytes_s"] == pytest.approx(gpu.H2D, rel=0.01)
    assert dev.provenance["configs"]["peak_fp32"]["blocks_per_sm"] == 8   # best of the sweep
    assert dev.provenance["sass_target"] == "sm_80"
    assert "wgmma_fp16" not in dev.provenance["configs"]                  # sm_90a only
    assert steps[0] == ("compiling kernels", 0.0) and steps[-1] == ("done", 1.0)
    # the profile round-trips through YAML
    again = parse_device(dump_device(dev))
    assert again.compute["fp32"].samples == dev.compute["fp32"].samples


def test_theory_finds_each_board_by_its_name():
    """The runner reads its per-SM rates from the datasheet table: each
    NVIDIA board's name (as NVML writes it) finds that board's own rates,
    so capped boards (H800, H20) and near names (A10/A10G, L4/L40S, H20/H200)
    are told apart."""
    from roofline.devices.gpus import SPECS_BY_STEM

    nvml = {"h800": "NVIDIA H800", "h20": "NVIDIA H20", "h200": "NVIDIA H200", "a10": "NVIDIA A10",
            "a10g": "NVIDIA A10G", "l4": "NVIDIA L4", "l40s": "NVIDIA L40S",
            "rtx-4090": "NVIDIA GeForce RTX 4090", "h100-sxm": "NVIDIA H100 80GB HBM3"}
    for stem, name in nvml.items():
        spec = SPECS_BY_STEM[stem]
        cc = tuple(int(x) for x in spec.compute_capability.split("."))
        found = theory.spec_for(cc, name)
        table = theory.per_sm_per_clock(cc, name)
        assert table["fp64"] == 2 * spec.fma_per_sm["fp64"], stem
        assert table["tensor_fp16"] <= spec.tensor_flop_per_sm["tensor_fp16"], stem
        assert theory._model(found) == theory._model(spec), (stem, found.stem)
    # an H800 keeps Hopper's compute capability but 1 TFLOP/s of FP64
    assert theory.compute_peak("fp64", (9, 0), 132, 1.98e9, "NVIDIA H800") < 1.1e12
    # a GeForce board without a spec of its own: the professional board's
    # rates, tensor FP16/BF16/TF32 at the FP32-accumulate half rate
    assert theory.spec_for((8, 6), "NVIDIA GeForce RTX 3080").stem == "a10"
    assert (theory.per_sm_per_clock((8, 6), "NVIDIA GeForce RTX 3080")["tensor_bf16"]
            == theory.per_sm_per_clock((8, 6), "NVIDIA A10")["tensor_bf16"] / 2)
    # the RTX 4090's spec gives its own FP32-accumulate rate for FP16
    assert theory.per_sm_per_clock((8, 9), "NVIDIA GeForce RTX 4090")["tensor_fp16"] == 512
    assert theory.per_sm_per_clock((8, 9), "NVIDIA L40S")["tensor_fp16"] == 1024
    # Turing's L1 moves 64 B/clk/SM (the spec's), not Volta's 128
    assert theory.onchip_peak("L1", (7, 5), 40, 1.59e9, "Tesla T4") == pytest.approx(40 * 64 * 1.59e9)
