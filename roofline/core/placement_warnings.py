"""The warnings a placement carries: work on a unit the device lacks,
kernels that cannot be placed, points above their roof."""
from __future__ import annotations

import math

import numpy as np

from .cpu_units import MATRIX_UNIT
from .errors import Advice
from .reasons import ABOVE_ROOF_SHARE

# A point this far above its roof is reported (counter or ceiling error); its
# row's reason says "above its roof" from the same share.
ABOVE_ROOF_TOLERANCE = ABOVE_ROOF_SHARE


def warn_substituted(kernels, device, warnings):
    for precision, flops in kernels.flops.items():
        key = device.compute_key(precision)
        if device.kind == "cpu" and precision in MATRIX_UNIT.values():
            continue        # said by cpu_units.matrix_unit_note (a CPU without AMX has no such unit to add)
        if key != precision and np.nansum(flops) > 0:
            warnings.append(Advice(
                f"device {device.name!r} has no {precision} ceiling; that work is timed on its {key} roof",
                f"add a {precision} ceiling to the device profile for an exact roof", subject=precision))


def warn_missing(kernels, work, known, no_flop_family, warnings):
    no_counters = ~known
    unmodelled_ops = no_counters & (kernels.operators != "")
    if unmodelled_ops.any():
        warnings.append(Advice(
            f"{int(unmodelled_ops.sum())} row(s) linked to framework operators have no modelled work and "
            "cannot be placed", "they are listed as unknown; the report's operator table shows their time",
            subject="models"))
    no_counters &= kernels.operators == ""
    if no_counters.any():
        warnings.append(Advice(
            f"{int(no_counters.sum())} kernel(s) have neither FLOP nor byte counters and cannot be placed",
            "collect FLOP and byte metrics (ncu --section SpeedOfLight_RooflineChart) "
            "or supply work from a cost model", subject="counters"))
    no_flops = known & np.isnan(work) & ~no_flop_family
    if no_flops.any():
        warnings.append(Advice(
            f"{int(no_flops.sum())} kernel(s) have byte counters but no FLOP counters; "
            "their compute roof is not checked",
            "add ncu --metrics smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,"
            "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,"
            "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", subject="counters"))


def _times(ratio: float) -> str:
    """2.13x; 6.4e+295x for a time of 1e-300 s; past the float range
    (5e-324 s), more than 1e308x."""
    if not math.isfinite(ratio):
        return "more than 1e308x"
    return f"{ratio:.2f}x" if ratio < 1e4 else f"{ratio:.2g}x"


def above_roof_advice(kernels, i: int, device) -> str:
    """What to check for row ``i`` above its roof, from where its work came:
    an operator model that assumed something (the row's ``assumed`` text:
    that assumption, not the counters), an operator model, or counters."""
    where = ("the CPU the trace was recorded on" if device.kind == "cpu"
             else "the GPU the profile came from")
    if kernels.families[i] == "communication":
        return ("a collective above its link roof: an algorithm that reduces in the switch or the network "
                "(NVLS, SHARP) or a tree moves less than the bus formula assumes, or the group size, "
                "ranks per node or --network is not the job's")
    assumed = str(kernels.assumed[i]) if kernels.modelled[i] else ""
    if assumed:
        return (f"its work is an operator model's, which assumed: {assumed}; an assumption that does not "
                f"hold can overstate the work (no counter is involved); check also that the device profile "
                f"matches {where}")
    if kernels.modelled[i]:
        return (f"its work is an operator model's, not counters: check the model and that the device "
                f"profile matches {where}")
    if device.kind == "cpu":
        return f"check its operator model and that the device profile matches {where}"
    return f"check the counters and that the device profile matches {where}"


def warn_above_roof(kernels, efficiency, device, warnings, listed: int = 5):
    above = np.flatnonzero(np.nan_to_num(efficiency) > ABOVE_ROOF_TOLERANCE)
    for i in above[:listed]:
        warnings.append(Advice(f"runs at {_times(efficiency[i])} its roof", above_roof_advice(kernels, i, device),
                               subject=str(kernels.names[i])))
    if len(above) > listed:
        warnings.append(Advice(f"{len(above) - listed} more kernel(s) above their roof", subject="roof"))
