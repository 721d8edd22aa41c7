"""Profiler counters -> work, traffic and time: the rules every GPU reader shares.

Readers collect a kernel's metrics into a
:class:`~roofline.importers.nvidia.metrics.MetricSet` (name -> value and unit as the
file wrote them, :mod:`.metrics`) and call :func:`ncu_counts` (here) or
:func:`roofline.importers.nvidia.nvprof_counters.nvprof_counts`; both return a
:class:`Counts` in SI units. Tensor-core FLOP per instruction live in
:mod:`roofline.importers.nvidia.tensor_flops`.

Work (FLOP), per precision
--------------------------
Nsight Compute counts thread instructions per opcode
(``sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum``, or the
``smsp__`` variant, which sums to the same total)::

    FLOP[p] = add[p] + mul[p] + 2 * fma[p]        p in fp64 (d), fp32 (f), fp16 (h)

plus Blackwell's paired fp32 opcodes ``fadd2``/``fmul2`` (2 FLOP each) and
``ffma2`` (4 FLOP). A precision where only some of add/mul/fma were collected
gets the partial sum and a note saying it is a lower bound. nvprof's
``flop_count_{dp,sp,hp}`` already count an FMA twice; without them the reader
uses ``flop_count_*_add + _mul + 2 * _fma``.

Tensor cores, in order of preference:

1. ``sm__ops_path_tensor_src_<type>[_dst_<type>].sum``: operations on the
   tensor path, taken as FLOP (a multiply-add is two), which is how Nsight
   Compute's own tensor roofline plots them. ``_sparsity_on/off`` variants
   are used only when the plain counter is absent (they are its two halves).
2. ``sm__inst_executed_pipe_tensor[_op_{hmma,imma,dmma}].sum`` (warp
   instructions) times the FLOP of one instruction, which depends on the
   chip and the instruction shape:

   * compute capability 7.0/7.2 (Volta): 512 FLOP per HMMA (Yang et al.,
     "Hierarchical Roofline Analysis for GPUs", 2019, on V100). CC 7.0 has
     only HMMA, so its unsplit count is all HMMA; CC 7.2 (Xavier) also has
     IMMA, so ``_op_imma`` there needs a shape in the name, and an unsplit
     count uses a shape in the name first, else is assumed HMMA (noted);
   * DMMA (fp64, ``_op_dmma``): m8n8k4 = 512 FLOP on compute capability 8.x
     only; elsewhere (Hopper's DMMA is another shape) or without the compute
     capability it stays unknown with a note. The unsplit
     ``pipe_tensor.sum`` includes DMMA, so the DMMA count is subtracted
     from it before the rules for HMMA/IMMA below (no double count);
   * ``_op_hmma`` and ``_op_imma`` are applied each on its own (neither
     hides the other);
   * otherwise only when the kernel name states the shape: cuBLAS/CUTLASS
     names such as ``ampere_s16816gemm_fp16_*`` (m16n8k16: 2*16*8*16 = 4096
     FLOP), ``turing_h1688gemm_*`` (2048), or CUTLASS's
     ``arch::Mma<GemmShape<16, 8, 8>, 32, cutlass::half_t, ...>``, and the
     input type can be read from the name too (an integer shape is never
     applied to an HMMA count, nor a floating one to IMMA).

   Anything else (Hopper ``wgmma``, names without a shape) stays unknown and
   gets a note: there is no single FLOP-per-instruction figure across chips.

Traffic (bytes), per level
--------------------------
* DRAM: ``dram__bytes.sum``, else ``dram__bytes_read.sum + dram__bytes_write.sum``,
  else ``dram__sectors_{read,write}.sum`` x 32 B; nvprof ``dram_{read,write}_bytes``,
  else ``dram_{read,write}_transactions`` x 32 B, else the Kepler events
  ``fb_subp*_{read,write}_sectors`` x 32 B.
* L2: ``lts__t_bytes.sum``, else ``lts__t_sectors.sum`` x 32 B, else
  ``derived__lts__lts2xbar_bytes`` (the hierarchical-roofline section's L2
  figure); nvprof ``l2_{read,write}_transactions`` x 32 B.
* L1: ``l1tex__t_bytes.sum``, else ``l1tex__t_sectors.sum`` x 32 B, else
  ``derived__l1tex__lsu_writeback_bytes_mem_lg``; nvprof
  ``gld_transactions + gst_transactions`` x 32 B (32 B sectors; on Kepler
  with L1-cached loads a transaction is a 128 B line, so a lower bound there),
  plus on Kepler ``tex_cache_transactions`` x 32 B (texture and ``__ldg``
  loads take the texture path, which ``gld_transactions`` misses; from
  Maxwell on the unified cache counts global loads in both, so it is not
  added). A note says when L1 bytes come out below L2 bytes.

Transactions per level are the 32-byte sectors (bytes / 32 where only bytes
were collected). Any total can also come from its rate: ``X.sum.per_second``
x time, or ``X.sum.per_cycle_elapsed`` x ``<unit>__cycles_elapsed.avg.per_second``
x time (section exports such as the hierarchical roofline charts).

Time
----
``gpu__time_duration.sum``, else the section's ``Duration``, else
``sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second`` (or the
``smsp__``/``gpc__`` pair, or ``Elapsed Cycles`` / ``SM Frequency``).
:attr:`Counts.time_source` says which was used.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ...core.kernel_name_types import accumulated
from .metrics import MetricSet, unit_kind
from .tensor_flops import cc_tuple, tensor_flop_per_instruction

SECTOR_BYTES = 32.0

# --------------------------------------------------------------------------
# result of the rules
# --------------------------------------------------------------------------

@dataclass
class Counts:
    time_s: float = math.nan
    time_source: str = ""
    flops: dict[str, float] = field(default_factory=dict)
    bytes: dict[str, float] = field(default_factory=dict)
    transactions: dict[str, float] = field(default_factory=dict)
    instructions: float | None = None
    notes: list[str] = field(default_factory=list)
    has_fp_counters: bool = False   # CUDA-core FP counters (SASS opcodes, flop_count_*)
    from_rates: bool = False
    thread_instructions: float | None = None   # instruction roofline: predication ratio

    def scaled(self, factor: float) -> "Counts":
        """Totals times ``factor`` (per-invocation averages -> totals)."""
        return Counts(self.time_s * factor if math.isfinite(self.time_s) else self.time_s,
                      self.time_source,
                      {k: v * factor for k, v in self.flops.items()},
                      {k: v * factor for k, v in self.bytes.items()},
                      {k: v * factor for k, v in self.transactions.items()},
                      None if self.instructions is None else self.instructions * factor,
                      list(self.notes), self.has_fp_counters, self.from_rates,
                      None if self.thread_instructions is None else self.thread_instructions * factor)


# --------------------------------------------------------------------------
# Nsight Compute
# --------------------------------------------------------------------------

_FP_PREFIX = {"d": "fp64", "f": "fp32", "h": "fp16"}
# opcode -> FLOP per thread instruction
_FP_OPS = {"add": 1.0, "mul": 1.0, "fma": 2.0}
_FP32_PAIRED = {"fadd2": 2.0, "fmul2": 2.0, "ffma2": 4.0}

# The FLOP counters a roofline needs, for the advice when they are missing.
NCU_FLOP_METRICS = tuple(
    f"smsp__sass_thread_inst_executed_op_{p}{op}_pred_on.sum"
    for p in "dfh" for op in ("add", "mul", "fma"))
NCU_BYTE_METRICS = ("dram__bytes.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum")
NCU_TIME_METRICS = ("gpu__time_duration.sum",)
NVPROF_FLOP_METRICS = ("flop_count_dp", "flop_count_sp", "flop_count_hp")
NVPROF_BYTE_METRICS = ("dram_read_transactions", "dram_write_transactions",
                       "l2_read_transactions", "l2_write_transactions",
                       "gld_transactions", "gst_transactions")

_TENSOR_SRC = {"fp16": "tensor_fp16", "bf16": "tensor_bf16", "tf32": "tensor_tf32",
               "fp64": "tensor_fp64", "fp8": "tensor_fp8", "int8": "tensor_int8",
               "int4": "tensor_int8", "int1": "tensor_int8"}


class _Rates:
    """Totals from ``X.sum``, or from rates x time when only rates exist."""

    def __init__(self, ms: MetricSet):
        self.ms = ms
        self.time_s = math.nan
        self.used_rates = False

    def total(self, base: str, rates: bool = True) -> float | None:
        ms = self.ms
        v = ms.get(base + ".sum")
        if v is not None:
            return v
        if not rates or not math.isfinite(self.time_s):
            return None
        v = ms.get(base + ".sum.per_second")
        if v is not None:
            self.used_rates = True
            return v * self.time_s
        v = ms.get(base + ".sum.per_cycle_elapsed")
        if v is not None:
            unit = base.split("__", 1)[0]
            hz = ms.get(f"{unit}__cycles_elapsed.avg.per_second")
            if hz is not None:
                self.used_rates = True
                return v * hz * self.time_s
        return None


def ncu_time(ms: MetricSet) -> tuple[float, str]:
    """(seconds, which metric) or (nan, '')."""
    v = ms.get("gpu__time_duration.sum")
    if v is not None:
        return v, "gpu__time_duration.sum"
    if "Duration" in ms.metrics and unit_kind(ms.unit("Duration")) == "time":
        v = ms.get("Duration")
        if v is not None:
            return v, "Duration"
    for cycles, hz in (("sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second"),
                       ("smsp__cycles_elapsed.avg", "smsp__cycles_elapsed.avg.per_second"),
                       ("gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second"),
                       ("Elapsed Cycles", "SM Frequency")):
        c, f = ms.get(cycles), ms.get(hz)
        if c is not None and f:
            return c / f, f"{cycles} / {hz}"
    return math.nan, ""


def ncu_counts(ms: MetricSet, kernel_name: str = "", cc: str | None = None) -> Counts:
    """Apply the Nsight Compute rules (module docstring) to one launch."""
    out = Counts()
    out.time_s, out.time_source = ncu_time(ms)
    r = _Rates(ms)
    r.time_s = out.time_s

    # ---- FP work from thread-instruction counters
    for letter, precision in _FP_PREFIX.items():
        total, found, missing = 0.0, [], []
        for op, weight in _FP_OPS.items():
            v = None
            for unit in ("smsp", "sm"):
                v = r.total(f"{unit}__sass_thread_inst_executed_op_{letter}{op}_pred_on")
                if v is not None:
                    break
            if v is None:
                missing.append(letter + op)
            else:
                found.append(letter + op)
                total += weight * v
        if precision == "fp32":
            for op, weight in _FP32_PAIRED.items():
                for unit in ("smsp", "sm"):
                    v = r.total(f"{unit}__sass_thread_inst_executed_op_{op}_pred_on")
                    if v is not None:
                        total += weight * v
                        break
        if found:
            out.has_fp_counters = True
            out.flops[precision] = total
            if missing:
                out.notes.append(f"{precision} work counts only {'/'.join(found).upper()} "
                                 f"({'/'.join(missing).upper()} not collected): a lower bound")

    _ncu_tensor(ms, r, out, kernel_name, cc)

    # ---- traffic: direct totals first, rates x time only when no total exists
    for rates in (False, True):
        dram = _dram(r, rates, out)
        if dram is not None:
            out.bytes["DRAM"] = dram
            break
    else:
        if "Memory Throughput" in ms.metrics and math.isfinite(out.time_s) \
                and unit_kind(ms.unit("Memory Throughput")) == "bandwidth":
            # Memory Workload Analysis: "Memory Throughput" is dram__bytes.sum.per_second
            bw = ms.get("Memory Throughput")
            if bw is not None:
                out.bytes["DRAM"] = bw * out.time_s
                r.used_rates = True
    for level, chain in (("L2", ("lts__t_bytes", "lts__t_sectors", "derived__lts__lts2xbar_bytes")),
                         ("L1", ("l1tex__t_bytes", "l1tex__t_sectors",
                                 "derived__l1tex__lsu_writeback_bytes_mem_lg"))):
        for rates in (False, True):
            v = None
            for base in chain:
                v = r.total(base, rates)
                if v is not None:
                    if base.endswith("_sectors"):
                        v *= SECTOR_BYTES
                    break
            if v is not None:
                out.bytes[level] = v
                break
    for level in ("L1", "L2", "DRAM"):
        if level in out.bytes:
            out.transactions[level] = out.bytes[level] / SECTOR_BYTES

    # ---- warp and thread instructions, shared-memory wavefronts (instruction roofline)
    for base in ("smsp__inst_executed", "sm__inst_executed"):
        v = r.total(base)
        if v is not None:
            out.instructions = v
            break
    else:
        v = ms.get("Executed Instructions")
        if v is not None:
            out.instructions = v
    out.thread_instructions = next((v for base in ("smsp__thread_inst_executed", "sm__thread_inst_executed")
                                    if (v := r.total(base)) is not None), None)
    shared = r.total("l1tex__data_pipe_lsu_wavefronts_mem_shared")
    if shared is not None:
        out.transactions["shared"] = shared
    out.from_rates = r.used_rates
    return out


def _dram(r: _Rates, rates: bool, out: Counts) -> float | None:
    v = r.total("dram__bytes", rates)
    if v is not None:
        return v
    rd, wr = r.total("dram__bytes_read", rates), r.total("dram__bytes_write", rates)
    if rd is not None or wr is not None:
        if rd is None or wr is None:
            out.notes.append(f"DRAM bytes count only {'reads' if wr is None else 'writes'}: "
                             "a lower bound")
        return (rd or 0.0) + (wr or 0.0)
    v = r.total("dram__sectors", rates)
    if v is None:
        sr, sw = r.total("dram__sectors_read", rates), r.total("dram__sectors_write", rates)
        if sr is not None and sw is not None:
            v = sr + sw
    return None if v is None else v * SECTOR_BYTES


def _ncu_tensor(ms: MetricSet, r: _Rates, out: Counts, name: str, cc: str | None) -> None:
    # 1. sm__ops_path_tensor_src_<type>[_dst_<type>][_sparsity_on|off]
    bases: dict[str, set[str]] = {}
    for metric in ms.names():
        m = re.match(r"(sm__ops_path_tensor_src_[a-z0-9]+(?:_dst_[a-z0-9]+)?)"
                     r"(_sparsity_(?:on|off))?\.sum(?:\.per_second|\.per_cycle_elapsed)?$", metric)
        if m:
            bases.setdefault(m.group(1), set()).add(m.group(2) or "")
    ops_found = False
    for base, variants in sorted(bases.items()):
        src, dst = re.match(r"sm__ops_path_tensor_src_([a-z0-9]+)(?:_dst_([a-z0-9]+))?", base).groups()
        # dst is the accumulator: FP16 accumulate has a roof of its own on GeForce parts
        precision = accumulated(_TENSOR_SRC.get(src), "f16" if dst == "fp16" else None)
        if precision is None:
            continue
        v = r.total(base) if "" in variants else None
        if v is None and {"_sparsity_on", "_sparsity_off"} <= variants:
            on, off = r.total(base + "_sparsity_on"), r.total(base + "_sparsity_off")
            v = None if on is None or off is None else on + off
        if v is None:
            continue
        ops_found = True
        if v:
            out.flops[precision] = out.flops.get(precision, 0.0) + v
    if ops_found:
        return

    # 2. tensor-pipe warp instructions x FLOP per instruction. The unsplit
    # pipe_tensor counter includes the _op_* ones, so DMMA is taken out of it
    # before the name-based rule (which is about HMMA/IMMA shapes).
    parts: dict[str, float | None] = {}
    for unit in ("sm", "smsp"):
        parts = {suffix: r.total(f"{unit}__inst_executed_pipe_tensor{suffix}")
                 for suffix in ("_op_hmma", "_op_imma", "_op_dmma", "")}
        if any(v is not None for v in parts.values()):
            break
    hmma, imma, dmma, total = (parts.get(k) for k in ("_op_hmma", "_op_imma", "_op_dmma", ""))
    arch = cc_tuple(cc)
    if dmma:
        if arch is not None and arch[0] == 8:
            out.flops["tensor_fp64"] = out.flops.get("tensor_fp64", 0.0) + 512.0 * dmma
            out.notes.append("fp64 tensor-core FLOP = DMMA warp instructions x 512 "
                             "(m8n8k4 on compute capability 8.x)")
        else:
            where = f"on compute capability {cc}" if cc else "without the compute capability"
            out.notes.append(f"fp64 tensor-core work unknown: {dmma:.4g} DMMA warp instructions, "
                             f"but 512 FLOP per DMMA (m8n8k4) holds only on compute capability 8.x "
                             f"({where}); collect sm__ops_path_tensor_src_fp64.sum")
    if hmma is not None or imma is not None:
        kinds = [("HMMA", hmma or 0.0), ("IMMA", imma or 0.0)]
    elif total is not None:
        kinds = [("", max(total - (dmma or 0.0), 0.0))]
    else:
        return
    for kind, inst in kinds:
        if not inst:
            continue
        per_inst, precision, why = tensor_flop_per_instruction(name, cc, kind)
        what = f"{kind} " if kind else "tensor-pipe "
        if per_inst is None:
            out.notes.append(f"tensor-core work unknown: {inst:.4g} {what}warp instructions, "
                             f"but the FLOP per instruction {why}; collect "
                             "sm__ops_path_tensor_src_<type>_dst_<type>.sum")
            continue
        out.flops[precision] = out.flops.get(precision, 0.0) + per_inst * inst
        out.notes.append(f"tensor-core FLOP = {what}warp instructions x {per_inst:g} ({why})")
