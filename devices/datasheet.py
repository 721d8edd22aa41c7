"""Built-in GPU profiles derived in code from published architecture parameters.

Every ceiling is computed from a handful of per-chip parameters with a
short formula, and carries a ``source`` naming the formula and the document
the parameters come from. Nothing here is measured: these are theoretical
peaks at the boost clock, the roofs a measured profile is compared with.

Formulas (SI units throughout):

- vector FLOP/s   = SMs x 2 x FMA units/SM x clock
- tensor FLOP/s   = SMs x dense FLOP/clk/SM x clock (no structured sparsity)
- warp instr/s    = SMs x warp schedulers/SM x 1 instr/clk x clock
                    (Ding & Williams 2019, instruction roofline)
- DRAM bytes/s    = bus width (bits) / 8 x data rate per pin (bit/s)
- L1 bytes/s      = SMs x L1/shared bytes/clk/SM x clock
- L2 bytes/s      = L2 slices x bytes/clk/slice x clock (L2 at the SM clock)
- L3 bytes/s      = channels x bytes/clk/channel x clock (AMD's memory-side
                    Infinity Cache, the only L3 a profile has)
- PCIe bytes/s    = lanes x transfer rate x 128/130 / 8, one direction

Each L1 and L2 figure is marked ``published``, ``derived`` or
``assumption`` (:data:`BASIS`) in its source and in the profile's
``architecture.cache_level_basis``: NVIDIA publishes L2 rates only for V100
and A100, so elsewhere the slice count and per-slice rate come from the
same design (Nsight Compute's device attributes) or are assumed, and say so.

The parameters are in :mod:`roofline.devices.gpus`; the YAML files in
``devices/`` are written from here by ``python -m roofline.devices.regenerate``
(``--check`` reports drift between code and files).
"""
from __future__ import annotations

from ..core.model import Ceiling, Device, MemoryLevel
from .gpus import BASIS, SPECS, SRC, GpuSpec

# Written into every built-in profile's provenance. The name predates the
# package layout (this module was roofline/datasheet.py); it is kept so the
# shipped profiles, and what `roofline show` prints of them, stay the same.
GENERATED_BY = "roofline.datasheet"

# Host-side launch cost of an empty kernel, back to back. No datasheet gives
# it; a few microseconds is the usual figure, so it is marked as assumed.
LAUNCH_OVERHEAD_S = 5e-6
LAUNCH_OVERHEAD_SOURCE = ("assumption: typical CUDA kernel launch overhead (~5 us host side); "
                          "not published for any GPU, measure it with `roofline measure`")
_HIP_LAUNCH = ("assumption: ~5 us host side, the usual CUDA kernel launch figure taken for HIP too; "
               "not published for any GPU, measure it")

SECTOR_BYTES = 32  # L1/L2/DRAM transaction (sector) size; Ding & Williams 2019


# What each vendor calls a multiprocessor, its issue units, its thread group
# and the L1 level the profiles give (AMD's LDS is not that level).
_WORDS = {"NVIDIA": ("SM", "schedulers", "warp", "L1/shared", "SM clock"),
          "AMD": ("CU", "SIMDs", "wavefront", "vector L1 (vL1D)", "engine clock")}


def _unit(spec: GpuSpec) -> str:
    return _WORDS[spec.vendor][0]


def _transaction(spec: GpuSpec, level: str) -> int:
    return spec.transaction_bytes.get(level, SECTOR_BYTES)


# ---------------------------------------------------------------- formulas

def flop_rate(sms: int, flop_per_clk_per_sm: float, clock_hz: float) -> float:
    """FLOP/s = SMs x FLOP per clock per SM x clock."""
    return sms * flop_per_clk_per_sm * clock_hz


def fma_flop_rate(sms: int, fma_per_clk_per_sm: float, clock_hz: float) -> float:
    """FLOP/s of FMA units: each FMA is 2 FLOP."""
    return flop_rate(sms, 2 * fma_per_clk_per_sm, clock_hz)


def warp_instruction_rate(sms: int, schedulers_per_sm: int, clock_hz: float,
                          per_clock: float = 1.0) -> float:
    """Peak warp instructions/s = SMs x schedulers x instr/clk (1, Ding &
    Williams; 1/4 for a CDNA SIMD) x clock."""
    return sms * schedulers_per_sm * per_clock * clock_hz


def dram_bandwidth(bus_bits: int, data_rate_bps: float) -> float:
    """Bytes/s = bus width in bits / 8 x data rate per pin (bit/s)."""
    return bus_bits / 8 * data_rate_bps


def per_clock_bandwidth(units: int, bytes_per_clk: float, clock_hz: float) -> float:
    """Bytes/s of ``units`` parts each moving ``bytes_per_clk`` per clock."""
    return units * bytes_per_clk * clock_hz


PCIE_GT_S = {1: 2.5e9, 2: 5e9, 3: 8e9, 4: 16e9, 5: 32e9, 6: 64e9}
PCIE_ENCODING = 128 / 130  # Gen3 to Gen5
PCIE_GEN2_ENCODING = 8 / 10
PCIE_FLIT_ENCODING = 242 / 256  # Gen6 FLIT mode: 242 of 256 bytes carry data


def _pcie_encoding(gen: int) -> tuple[float, str]:
    if gen >= 6:
        return PCIE_FLIT_ENCODING, "242/256"
    return (PCIE_GEN2_ENCODING, "8/10") if gen <= 2 else (PCIE_ENCODING, "128/130")


def pcie_bandwidth(gen: int, lanes: int) -> float:
    """Raw link bytes/s in one direction = lanes x transfers/s x encoding / 8
    (8b/10b up to Gen2, 128b/130b for Gen3-5, 242/256 FLITs for Gen6)."""
    return lanes * PCIE_GT_S[gen] * _pcie_encoding(gen)[0] / 8


# ---------------------------------------------------------------- ceilings

def _fmt_rate(value: float, unit: str) -> str:
    for scale, prefix in ((1e12, "T"), (1e9, "G")):
        if value >= scale:
            return f"{value / scale:.4g} {prefix}{unit}"
    return f"{value:.4g} {unit}"


def _mhz(hz: float) -> str:
    return f"{hz / 1e6:g} MHz"


def _ceiling(value: float, clock_hz: float | None, source: str) -> Ceiling:
    return Ceiling(value=float(value), theoretical=float(value),
                   clock_hz=None if clock_hz is None else float(clock_hz), source=source)


def _with_note(text: str, spec: GpuSpec, key: str) -> str:
    note = spec.notes.get(key)
    return f"{text}; {note}" if note else text


def tensor_clock(spec: GpuSpec, key: str) -> float:
    """Clock a tensor peak is quoted at (FP64 MMA runs at the boost clock)."""
    if spec.tensor_clock_hz is None or key == "tensor_fp64":
        return spec.boost_clock_hz
    return spec.tensor_clock_hz


def vector_ceiling(spec: GpuSpec, key: str) -> Ceiling:
    fma = spec.fma_per_sm[key]
    value = fma_flop_rate(spec.sms, fma, spec.boost_clock_hz)
    u = _unit(spec)
    text = (f"{key} = {spec.sms} {u}s x {2 * fma} FLOP/clk/{u} ({fma} FMA) x "
            f"{_mhz(spec.boost_clock_hz)} = {_fmt_rate(value, 'FLOP/s')}; "
            f"{spec.src['units']}; clock: {spec.src['clock']}")
    return _ceiling(value, spec.boost_clock_hz, _with_note(text, spec, key))


def tensor_ceiling(spec: GpuSpec, key: str, per_sm: int | None = None, label: str | None = None,
                   note: str | None = None) -> Ceiling:
    """``key``'s roof at ``per_sm`` dense FLOP/clk (default: the datasheet's),
    its source text naming it ``label`` and ending with ``note`` (default:
    the spec's note for ``key``)."""
    per_sm = spec.tensor_flop_per_sm[key] if per_sm is None else per_sm
    clock = tensor_clock(spec, key)
    value = flop_rate(spec.sms, per_sm, clock)
    u = _unit(spec)
    text = (f"{label or key} = {spec.sms} {u}s x {per_sm} dense FLOP/clk/{u} x {_mhz(clock)} = "
            f"{_fmt_rate(value, 'FLOP/s')}; {spec.src['tensor']}")
    if note is not None:
        return _ceiling(value, clock, f"{text}; {note}")
    return _ceiling(value, clock, _with_note(text, spec, key))


# GeForce datasheets quote FP16/FP8 MMA at FP16 accumulate; FP32 accumulate,
# what PyTorch's GEMMs and convolutions run, is half that (spec.extra[ACC32])
ACC32 = "tensor_fp32_accumulate_flop_per_sm_per_clk"


def tensor_ceilings(spec: GpuSpec, key: str) -> dict[str, Ceiling]:
    """``key``'s roof; where FP32 accumulate runs slower than the
    datasheet's FP16-accumulate rate, ``key`` is the FP32-accumulate roof
    and ``key + "_acc16"`` the datasheet's (kernels whose names say they
    accumulate in FP16 are placed there: core.kernel_name_types.accumulated)."""
    acc32 = (spec.extra.get(ACC32) or {}).get(key)
    if acc32 is None:
        return {key: tensor_ceiling(spec, key)}
    note = (f"FP32 accumulate, what PyTorch's GEMMs run; the datasheet's {spec.tensor_flop_per_sm[key]} "
            f"FLOP/clk/{_unit(spec)} is for FP16 accumulate ({key}_acc16): {spec.notes.get(key, '')}")
    return {key: tensor_ceiling(spec, key, acc32, note=note),
            f"{key}_acc16": tensor_ceiling(spec, key, label=f"{key}_acc16 (FP16 accumulate)")}


def instruction_ceiling(spec: GpuSpec) -> Ceiling:
    value = warp_instruction_rate(spec.sms, spec.schedulers_per_sm, spec.boost_clock_hz,
                                  spec.instr_per_clk_per_scheduler)
    unit, schedulers, thread, _, _ = _WORDS[spec.vendor]
    text = (f"{thread} instructions/s = {spec.sms} {unit}s x {spec.schedulers_per_sm} {schedulers} x "
            f"{spec.instr_per_clk_per_scheduler:g} instr/clk x {_mhz(spec.boost_clock_hz)} = "
            f"{_fmt_rate(value, 'inst/s')}; "
            f"formula: {SRC['dw2019']}; schedulers: {spec.src['units']}")
    return _ceiling(value, spec.boost_clock_hz, _with_note(text, spec, "issue"))


def dram_level(spec: GpuSpec) -> MemoryLevel:
    value = dram_bandwidth(spec.bus_bits, spec.data_rate_bps)
    text = (f"DRAM = {spec.bus_bits} bit / 8 x {spec.data_rate_bps / 1e9:g} Gbit/s/pin "
            f"{spec.memory_type} = {_fmt_rate(value, 'B/s')}; {spec.src['dram']}")
    return MemoryLevel("DRAM", _ceiling(value, None, _with_note(text, spec, "dram")),
                       transaction_bytes=_transaction(spec, "DRAM"), capacity_bytes=spec.dram_bytes)


def _basis(spec: GpuSpec, level: str) -> str:
    basis = spec.basis.get(level)
    if basis not in BASIS:
        raise ValueError(f"{spec.stem}: {level} needs a basis, one of {', '.join(BASIS)}")
    return basis


def l1_level(spec: GpuSpec) -> MemoryLevel | None:
    if spec.l1_bytes_per_clk is None:
        return None
    value = per_clock_bandwidth(spec.sms, spec.l1_bytes_per_clk, spec.boost_clock_hz)
    unit, label = _unit(spec), _WORDS[spec.vendor][3]
    text = (f"{label} = {spec.sms} {unit}s x {spec.l1_bytes_per_clk} B/clk/{unit} x "
            f"{_mhz(spec.boost_clock_hz)} = {_fmt_rate(value, 'B/s')} ({_basis(spec, 'l1')}); "
            f"{spec.src['l1']}")
    return MemoryLevel("L1", _ceiling(value, spec.boost_clock_hz, text),
                       transaction_bytes=_transaction(spec, "L1"),
                       capacity_bytes=float(spec.sms * spec.l1_bytes_per_sm))


def l2_level(spec: GpuSpec) -> MemoryLevel | None:
    if spec.l2_bytes_per_clk is None:
        return None
    value = per_clock_bandwidth(spec.l2_slices, spec.l2_slice_bytes_per_clk, spec.boost_clock_hz)
    text = (f"L2 = {spec.l2_slices} slices x {spec.l2_slice_bytes_per_clk} B/clk/slice x "
            f"{_mhz(spec.boost_clock_hz)} (L2 at the {_WORDS[spec.vendor][4]}) = {_fmt_rate(value, 'B/s')} "
            f"({_basis(spec, 'l2')}); {spec.src['l2']}")
    return MemoryLevel("L2", _ceiling(value, spec.boost_clock_hz, text),
                       transaction_bytes=_transaction(spec, "L2"), capacity_bytes=spec.l2_bytes)


def l3_level(spec: GpuSpec) -> MemoryLevel | None:
    """A memory-side cache between L2 and DRAM (AMD's Infinity Cache)."""
    if spec.l3_bytes_per_clk is None:
        return None
    value = per_clock_bandwidth(spec.l3_channels, spec.l3_channel_bytes_per_clk, spec.boost_clock_hz)
    text = (f"L3 {spec.l3_name} = {spec.l3_channels} channels x {spec.l3_channel_bytes_per_clk} B/clk/channel x "
            f"{_mhz(spec.boost_clock_hz)} = {_fmt_rate(value, 'B/s')} ({_basis(spec, 'l3')}); {spec.src['l3']}")
    return MemoryLevel("L3", _ceiling(value, spec.boost_clock_hz, _with_note(text, spec, "l3")),
                       transaction_bytes=_transaction(spec, "L3"), capacity_bytes=spec.l3_bytes)


def pcie_level(spec: GpuSpec) -> MemoryLevel:
    """The host link, kept under the ``PCIe`` level whatever carries it."""
    if spec.host_link is not None:
        value = spec.host_link_bidirectional_bytes_s / 2
        text = (f"host link {spec.host_link} = {_fmt_rate(spec.host_link_bidirectional_bytes_s, 'B/s')} "
                f"bidirectional / 2 = {_fmt_rate(value, 'B/s')} per direction (the CPU-GPU link is "
                f"{spec.host_link}, not PCIe; kept as this level, the host-link roof); {spec.src['host']}")
        return MemoryLevel("PCIe", _ceiling(value, None, text))
    value = pcie_bandwidth(spec.pcie_gen, spec.pcie_lanes)
    text = (f"PCIe Gen{spec.pcie_gen} x{spec.pcie_lanes} = {spec.pcie_lanes} lanes x "
            f"{PCIE_GT_S[spec.pcie_gen] / 1e9:g} GT/s x {_pcie_encoding(spec.pcie_gen)[1]} / 8 = "
            f"{_fmt_rate(value, 'B/s')} "
            f"per direction (raw link; packet overhead lowers what copies reach); {SRC['pcie']}")
    return MemoryLevel("PCIe", _ceiling(value, None, _with_note(text, spec, "pcie")))


# ---------------------------------------------------------------- devices

def compute_ceilings(spec: GpuSpec) -> dict[str, Ceiling]:
    out = {k: vector_ceiling(spec, k) for k in spec.fma_per_sm}
    for k in spec.tensor_flop_per_sm:
        out.update(tensor_ceilings(spec, k))
    return out


def memory_levels(spec: GpuSpec) -> dict[str, MemoryLevel]:
    levels = [l1_level(spec), l2_level(spec), l3_level(spec), dram_level(spec), pcie_level(spec)]
    return {lv.name: lv for lv in levels if lv is not None}


def clocks(spec: GpuSpec) -> dict[str, float]:
    out = {"boost": float(spec.boost_clock_hz)}
    if spec.tensor_clock_hz is not None:
        out["boost_tensor"] = float(spec.tensor_clock_hz)
    return out


def architecture(spec: GpuSpec) -> dict[str, object]:
    """The parameters every ceiling was derived from (YAML-safe plain data)."""
    arch: dict[str, object] = {
        "vendor": spec.vendor, "chip": spec.chip, "family": spec.family,
        "compute_capability": spec.compute_capability, "sms": spec.sms,
        "schedulers_per_sm": spec.schedulers_per_sm,
        "boost_clock_hz": float(spec.boost_clock_hz),
        "fma_per_sm_per_clk": dict(spec.fma_per_sm),
        "tensor_dense_flop_per_sm_per_clk": dict(spec.tensor_flop_per_sm),
        "memory_type": spec.memory_type, "memory_bus_bits": spec.bus_bits,
        "memory_data_rate_bps": float(spec.data_rate_bps),
        "dram_bytes": float(spec.dram_bytes), "l2_bytes": float(spec.l2_bytes),
        "l1_shared_bytes_per_sm": spec.l1_bytes_per_sm,
        "pcie_gen": spec.pcie_gen, "pcie_lanes": spec.pcie_lanes,
        "launch_overhead_source": LAUNCH_OVERHEAD_SOURCE if spec.vendor == "NVIDIA" else _HIP_LAUNCH,
    }
    if spec.compute_capability is None:
        del arch["compute_capability"]          # AMD: the GFX IP version is in extra
    if spec.instr_per_clk_per_scheduler != 1:
        arch["instructions_per_clk_per_scheduler"] = float(spec.instr_per_clk_per_scheduler)
    if spec.transaction_bytes:
        arch["transaction_bytes"] = dict(spec.transaction_bytes)
    if spec.tensor_clock_hz is not None:
        arch["tensor_clock_hz"] = float(spec.tensor_clock_hz)
    if spec.l1_bytes_per_clk is not None:
        arch["l1_bytes_per_clk_per_sm"] = spec.l1_bytes_per_clk
    if spec.l2_bytes_per_clk is not None:
        arch["l2_slices"] = spec.l2_slices
        arch["l2_bytes_per_clk_per_slice"] = spec.l2_slice_bytes_per_clk
        arch["l2_bytes_per_clk"] = spec.l2_bytes_per_clk
    if spec.l3_bytes_per_clk is not None:
        arch["l3_name"] = spec.l3_name
        arch["l3_bytes"] = float(spec.l3_bytes)
        arch["l3_channels"] = spec.l3_channels
        arch["l3_bytes_per_clk_per_channel"] = spec.l3_channel_bytes_per_clk
        arch["l3_bytes_per_clk"] = spec.l3_bytes_per_clk
    if spec.host_link is not None:
        arch["host_link"] = spec.host_link
        arch["host_link_bidirectional_bytes_s"] = float(spec.host_link_bidirectional_bytes_s)
    arch["cache_level_basis"] = {level.upper(): basis for level, basis in spec.basis.items()}
    arch.update({k: v for k, v in spec.extra.items()})
    if spec.notes:
        arch["notes"] = dict(spec.notes)
    return arch


def sources(texts) -> list[str]:
    """The documents of SRC named in any of ``texts``, in SRC order."""
    return [doc for doc in SRC.values() if any(doc in t for t in texts)]


def build_device(spec: GpuSpec) -> Device:
    compute, memory = compute_ceilings(spec), memory_levels(spec)
    inst = instruction_ceiling(spec)
    texts = [c.source for c in compute.values()] + [m.bandwidth.source for m in memory.values()]
    texts.append(str(dict(spec.extra.get("scale_up_link") or {}).get("source", "")))   # not a level, but cited
    from .observed import with_kernel_floor
    # the least a kernel takes on it, observed on real traces (devices/observations)
    return with_kernel_floor(Device(
        name=spec.name, kind="gpu", compute=compute, memory=memory, instruction_rate=inst,
        launch_overhead_s=LAUNCH_OVERHEAD_S,
        clocks_hz=clocks(spec), architecture=architecture(spec),
        provenance={"method": "datasheet", "sources": sources(texts + [inst.source]),
                    "generated_by": GENERATED_BY},
    ))


def devices() -> dict[str, Device]:
    """Every datasheet profile, file stem -> Device."""
    return {spec.stem: build_device(spec) for spec in SPECS}
