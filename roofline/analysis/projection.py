"""A trace recorded on one device, projected onto another, row by row
(docs/concepts.md, "Projection", has the model with its formulas).

For a row of n calls that took t on the source, with roofline times
r_s and r_t on the two devices (each row's work on the matching unit and
precision, its bytes on the same level, collectives on the links) and
kernel floors f_s and f_t (the least a kernel takes on each device):

    wave fill       w = B / (ceil(B / SMs) x SMs)  for a launch of B >= SMs blocks, on
                    the compute term (fewer blocks than SMs: the placement's compute
                    roof is B/SMs of the device's already)
    variable time   v = max(t - n f_s, r_s / w_s)
    efficiency      e = (r_s / w_s) / v            on the source, in (0, 1]
    on the target   e' = min(1, e x L_t / L_s)     matrix-unit rows, L the
                                                   GPUs' library efficiency
    projected       t' = n f_t + (r_t / w_t) / e'

Rows without work take the ratio t'/t of a twin (same kernel name and
launch, with work), else of their family, else of the trace. Every row
carries its basis (:mod:`.projection_bases`) and an 80 % interval; totals
and families combine them (:mod:`.projection_totals`). Analyses return
columns; :mod:`roofline.render.projection` writes them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..core.kernel_arch import device_sm, older_than_device
from ..core.model import Device
from ..core.evidence import wave_fill
from ..core.families import COPIES as COPY_FAMILIES, MATRIX
from ..core.placement import Placements, limiting, multiprocessors, place
from ..devices.observed import Figure, attention_efficiency, fallback_efficiency, kernel_floor, matrix_efficiency
from .projection_bases import ACROSS_KINDS, CODE, FAR_FROM_ROOF, SIGMA, TEXT, Z80
from .projection_fill import fill_without_work
from .projection_totals import Totals, totals

# Families that are copies, not kernels: projected, left out of the totals
# (a trace's GPU kernel time leaves memcpy and memset out)
COPIES = COPY_FAMILIES


@dataclass(frozen=True)
class Figures:
    """What a projection takes from outside the trace: each device's kernel
    floor and library efficiency (``devices/observations/gpus.yaml`` by default; the
    benchmark swaps in figures observed on other traces only)."""

    floor: object = kernel_floor
    library: object = matrix_efficiency
    fallback: object = fallback_efficiency
    attention: object = attention_efficiency


@dataclass(frozen=True)
class Projection:
    """Columns, one entry per row of the source trace, and their totals."""

    source: Device
    target: Device
    names: np.ndarray
    families: np.ndarray
    measured_s: np.ndarray
    projected_s: np.ndarray
    low_s: np.ndarray
    high_s: np.ndarray
    at_roof_s: np.ndarray
    basis: np.ndarray            # index into projection_bases.BASES
    counted: np.ndarray          # in the totals (copies are not)
    share: float                 # the share of its roof "at the roof" assumes
    totals: Totals
    notes: tuple[str, ...] = field(default=())
    # the rows placed on the target's roofs (work, bytes, roofline time
    # there): where a chart puts the projected points
    on_target: Placements | None = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.names)

    def basis_texts(self) -> list[str]:
        return [TEXT[int(c)] for c in self.basis]


def project(placements: Placements, target: Device, share: float = 0.8,
            figures: Figures = Figures()) -> Projection:
    """``placements`` (a trace placed on its own device) projected onto
    ``target``; ``share``: the share of its roof each row reaches in the
    "at the roof" answer."""
    if not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share!r}")
    source = placements.device
    kernels = placements.kernels
    tensor = _tensor_matrix(placements)
    # a matrix library tiles each GPU its own way: the source's grid says
    # nothing of the target's, so only other kernels keep their launch there
    blocks = np.where(tensor, np.nan, kernels.blocks)
    without_grid = kernels.with_columns(blocks=blocks)
    # ... and on the source alike, so a row lands on its own time on its own device
    on_source = place(without_grid, source) if np.any(tensor & np.isfinite(kernels.blocks)) else placements
    on_target = place(without_grid, target)
    notes: list[str] = []
    f_s, f_t = _floor(figures.floor(source), source, notes), _floor(figures.floor(target), target, notes)
    n = np.maximum(np.nan_to_num(kernels.count, nan=1.0), 1.0)
    time_s = kernels.time_s
    roof_s = _roof(on_source, _wave_fill(blocks, source))
    roof_t = _roof(on_target, _wave_fill(blocks, target))
    matrix = _matrix_unit(placements)
    older = tensor & older_than_device(kernels.names, source.architecture)
    lib_s, lib_t = figures.library(source), figures.library(target)
    efficiency = _efficiency(time_s, n * f_s, roof_s)
    carried, basis = _carried(efficiency, matrix, older, lib_s, lib_t, placements)
    carried, basis = _attention(carried, basis, efficiency, matrix & ~older & (kernels.families == "attention"),
                                figures.attention(source), figures.attention(target), target, notes)
    carried, basis = _fallback(carried, basis, efficiency, tensor & (kernels.unaligned > 0.5), target,
                               figures.fallback(target), notes)
    with np.errstate(divide="ignore", invalid="ignore"):
        projected = n * f_t + roof_t / carried
        # a row faster than its floors and roof: the model's time moves, scaled to what it took
        beat = time_s < n * f_s + roof_s
        projected = np.where(beat, time_s * (n * f_t + roof_t / carried) / (n * f_s + roof_s), projected)
    plain = np.isin(basis, [CODE["bandwidth"], CODE["compute"]])
    basis = np.where(plain & np.isfinite(projected) & (n * f_s >= 0.5 * time_s), CODE["floor"], basis)
    # rows that do no work of their own (roof 0): their time is all fixed cost,
    # host work across kinds of device (no kernel floor measures it)
    own = np.isfinite(time_s) & (placements.roofline_time_s == 0)
    floor_ratio = f_t / f_s if f_s > 0 and f_t > 0 and source.kind == target.kind else 1.0
    projected = np.where(own, time_s * floor_ratio, projected)
    basis = np.where(own, CODE["no_work_own"], basis).astype(np.int8)
    sigma = np.asarray(SIGMA)[basis] + FAR_FROM_ROOF * np.log(1 / np.where(np.isfinite(efficiency), efficiency, 1.0))
    counted = ~np.isin(kernels.families, list(COPIES))
    projected, basis, sigma = fill_without_work(kernels, time_s, projected, basis, sigma, counted)
    sigma = np.where(basis >= CODE["twin"], np.asarray(SIGMA)[basis] + sigma, sigma)
    if source.kind != target.kind:     # host code's share of a CPU roof says little of a GPU kernel's
        sigma = sigma + ACROSS_KINDS
        notes.append(f"{source.kind.upper()} -> {target.kind.upper()}: each row's share of its roof is carried "
                     "across kinds of device, which little evidence supports, and rows without work of "
                     "their own (host work) keep their time: every interval is wider")
    if _same_roofs(source, target):     # the identity: nothing moves, so nothing is uncertain
        sigma = np.zeros_like(sigma)
        notes.append(f"{device_label(target)} has the source's roofs and floors: each row keeps its measured time")
    # a row without a measured time has nothing to carry (classify calls it unmeasured)
    unmeasured = ~(np.isfinite(time_s) & (time_s > 0))
    if unmeasured.any():
        projected = np.where(unmeasured, math.nan, projected)
        basis = np.where(unmeasured, CODE["unmeasured"], basis).astype(np.int8)
        counted = counted & ~unmeasured
        notes.append(f"{int(unmeasured.sum())} row(s) have no measured time: not projected, not in the totals")
    low, high = projected * np.exp(-Z80 * sigma), projected * np.exp(Z80 * sigma)
    with np.errstate(invalid="ignore"):
        at_roof = np.where(np.isfinite(roof_t) & (roof_t > 0) & ~own,
                           np.minimum(projected, np.maximum(n * f_t, roof_t / share)), projected)
    _note_figures(lib_s, lib_t, source, target, matrix, time_s, notes)
    return Projection(source, target, kernels.names, kernels.families, time_s, projected, low, high,
                      at_roof, basis, counted, share,
                      totals(kernels.families, time_s, projected, low, high, at_roof, basis, counted),
                      tuple(notes), on_target)


def _same_roofs(source: Device, target: Device) -> bool:
    """The same profile on both sides (its name, compute and memory ceilings)."""
    return (source.name == target.name and dict(source.compute) == dict(target.compute)
            and dict(source.memory) == dict(target.memory))


def device_label(device: Device) -> str:
    """A device's name, and a CPU's model (every measured CPU profile is
    named my-cpu: the model tells two apart)."""
    model = (device.architecture or {}).get("cpu_model") if device.kind == "cpu" else None
    return f"{device.name} ({model})" if model and str(model) not in device.name else device.name


def _floor(figure: Figure | None, device: Device, notes: list[str]) -> float:
    if figure is None:
        notes.append(f"{device_label(device)}: no kernel floor known (no trace of it observed and no measured "
                     "launch overhead): its rows are projected without one")
        return 0.0
    notes.append(f"{device_label(device)}: kernel floor {figure.value * 1e6:.2f} us ({figure.source})")
    return figure.value


def _wave_fill(blocks: np.ndarray, device: Device) -> np.ndarray:
    """The waves beyond the first of each launch (a launch of fewer blocks
    than SMs has its compute roof lowered by the placement already); the
    same launch is assumed on both devices."""
    return wave_fill(blocks, multiprocessors(device))


def _roof(placements: Placements, wave: np.ndarray) -> np.ndarray:
    """Each row's roofline time with its compute term stretched by its wave
    fill (the memory roofs do not wait for the last wave's idle SMs)."""
    return limiting(placements.time_compute_s / wave, placements.time_level_s)[1]


def _tensor_matrix(placements: Placements) -> np.ndarray:
    """Rows of matrix families with work on tensor (matrix) cores."""
    kernels = placements.kernels
    tensor = np.zeros(len(kernels), dtype=bool)
    for key, flops in kernels.flops.items():
        if key.startswith("tensor"):
            tensor |= np.nan_to_num(flops) > 0
    return np.isin(kernels.families, list(MATRIX)) & tensor


def library_rows(placements: Placements) -> np.ndarray:
    """Rows a device's matrix-library efficiency is observed on: compute-bound
    tensor-core matrix rows (GEMMs, convolutions; not attention, whose
    kernels come from other libraries)."""
    return _tensor_matrix(placements) & (placements.limiter_index == 0) & (placements.kernels.families != "attention")


def _matrix_unit(placements: Placements) -> np.ndarray:
    """Rows whose time is set by a matrix kernel: compute-bound tensor-core
    matrix rows, and fused attention (whose modelled traffic is a floor, not
    what limits it; it takes the GEMM libraries' ratio, an assumption)."""
    family = placements.kernels.families
    return _tensor_matrix(placements) & ((placements.limiter_index == 0) | (family == "attention"))


def _efficiency(time_s: np.ndarray, fixed_s: np.ndarray, roof_s: np.ndarray) -> np.ndarray:
    """The share of its roof the row's variable time reached: at most 1 (a
    row faster than its roof after its floor is taken as at its roof)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        variable = np.maximum(time_s - fixed_s, roof_s)
        return np.where((roof_s > 0) & (variable > 0), roof_s / variable, math.nan)


def _carried(efficiency: np.ndarray, matrix: np.ndarray, older: np.ndarray,
             lib_s: Figure | None, lib_t: Figure | None, placements: Placements):
    """The efficiency each row reaches on the target, and its basis."""
    carried = efficiency.copy()
    basis = np.full(len(efficiency), CODE["bandwidth"], dtype=np.int8)
    basis[placements.limiter_index == 0] = CODE["compute"]
    if placements.link is not None:     # collectives: their link time (latency + bytes / link roof)
        basis[np.asarray(placements.link.level) != ""] = CODE["collective"]
    if lib_s is not None and lib_t is not None:
        carried = np.where(matrix & ~older, efficiency * lib_t.value / lib_s.value, carried)
        basis[matrix & ~older] = CODE["matrix"]
    else:
        basis[matrix & ~older] = CODE["matrix_carried"]
    # an older-architecture kernel's efficiency is the library's choice on
    # the source: the target's library reaches its own observed level
    instead = lib_t.value if lib_t is not None else (lib_s.value if lib_s is not None else None)
    if instead is not None:
        carried = np.where(older, np.maximum(efficiency, instead), carried)
        basis[older] = CODE["older_kernel"]
    else:
        basis[older] = CODE["matrix_carried"]
    return np.minimum(carried, 1.0), basis


def _attention(carried, basis, efficiency, rows, att_s: Figure | None, att_t: Figure | None,
               target: Device, notes: list[str]):
    """Fused attention rows between two GPUs whose attention kernels were
    both observed: the ratio of those figures (its libraries are not the
    GEMM libraries); else they keep the GEMM libraries' ratio (_carried)."""
    if not rows.any() or att_s is None or att_t is None:
        return carried, basis
    basis = basis.copy()
    carried = np.where(rows, np.minimum(efficiency * att_t.value / att_s.value, 1.0), carried)
    basis[rows] = CODE["attention"]
    notes.append(f"fused attention: {device_label(target)}'s attention kernels reached {att_t.value:.0%} of the "
                 f"matrix roof ({att_t.source}), the source's {att_s.value:.0%} ({att_s.source})")
    return carried, basis


# cuBLAS/CUTLASS kernels for sm_90 and later load operands with TMA, which
# needs every row stride a multiple of 16 bytes; unaligned GEMMs run kernels
# built for older GPUs (cutlass_75_*_align1 on an H100)
TMA_SM = 90


def _fallback(carried: np.ndarray, basis: np.ndarray, efficiency: np.ndarray, unaligned: np.ndarray,
              target: Device, figure: Figure | None, notes: list[str]):
    """Matrix rows whose operands are not 16-byte aligned, on an NVIDIA GPU
    whose GEMM kernels need them to be: at most the share of their roof the
    target's fallback kernels were observed to reach, else the source's own
    share (not the target library's: its kernels cannot take the rows), said."""
    vendor = str((target.architecture or {}).get("vendor", "NVIDIA"))
    if not unaligned.any() or vendor != "NVIDIA" or not device_sm(target.architecture) >= TMA_SM:
        return carried, basis
    basis = basis.copy()
    if figure is not None:
        # a fallback is slower than the target's own kernels, never faster: a
        # row already further from its roof (a small launch) stays there
        carried = np.where(unaligned, np.minimum(carried, figure.value), carried)
        basis[unaligned] = CODE["fallback"]
        notes.append(f"{int(unaligned.sum())} matrix row(s) with operands not 16-byte aligned: "
                     f"{device_label(target)}'s libraries fall back to older kernels there, which reached "
                     f"{figure.value:.0%} of their roof ({figure.source})")
    else:
        carried = np.where(unaligned, efficiency, carried)
        basis[unaligned] = CODE["fallback_unobserved"]
        notes.append(f"{int(unaligned.sum())} matrix row(s) with operands not 16-byte aligned: "
                     f"{device_label(target)}'s libraries fall back to older kernels there, whose efficiency "
                     "no trace of it shows: the source's efficiency is carried, with a wider interval")
    return carried, basis


def _note_figures(lib_s, lib_t, source: Device, target: Device, matrix: np.ndarray,
                  time_s: np.ndarray, notes: list[str]) -> None:
    if not matrix.any():
        return
    for device, figure in ((source, lib_s), (target, lib_t)):
        if figure is None:
            share = np.nansum(time_s[matrix]) / max(np.nansum(time_s), 1e-300)
            notes.append(f"{device_label(device)}: no library efficiency observed: the source's efficiency is carried "
                         f"for matrix rows ({share:.0%} of the time), with a wider interval")
        else:
            notes.append(f"{device_label(device)}: matrix libraries reach {figure.value:.0%} of the matrix roof "
                         f"({figure.source})")
