"""What a Kineto event's numbers may be: range-profiler counters as FLOP,
byte counts of copies and of the runtime calls that name them; each check
raises ValueError saying what is wrong (the reader names the event)."""
from __future__ import annotations

import math
import re

_COUNTER = re.compile(r"^(sm|smsp)__sass_thread_inst_executed_op_([dfh])(add|mul|fma)_pred_on\.sum$")
_PRECISION = {"d": "fp64", "f": "fp32", "h": "fp16"}
_WEIGHT = {"add": 1.0, "mul": 1.0, "fma": 2.0}


def flops_from_counters(args: dict) -> dict[str, float]:
    """FLOP per precision from SASS instruction counters (FMA counts 2).
    ``smsp__`` and ``sm__`` spellings of one counter are not added twice."""
    seen: dict[tuple[str, str], tuple[str, float]] = {}
    for key, value in args.items():
        m = _COUNTER.match(key)
        if not m:
            continue
        scope, prec, op = m.groups()
        count = count_of(value)
        if count is None:
            raise ValueError(f"counter {key} is not a non-negative number: {short(value)}")
        if (prec, op) in seen and seen[(prec, op)][0] == "smsp":
            continue
        seen[(prec, op)] = (scope, count)
    flops: dict[str, float] = {}
    for (prec, op), (_, value) in seen.items():
        p = _PRECISION[prec]
        flops[p] = flops.get(p, 0.0) + _WEIGHT[op] * value
    return flops


def count_of(value) -> float | None:
    """``value`` as a float when it is a finite, non-negative number (an
    integer too big for a float is not), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        x = float(value)
    except OverflowError:
        return None
    return x if math.isfinite(x) and x >= 0 else None


# a copy's byte count: a whole number of bytes a float holds exactly (9 PB);
# more is a damaged field (a "bytes": 1e300 made a copy 1e289 s long on its roof)
MAX_COPY_BYTES = 2 ** 53


def byte_count(value) -> float | None:
    """A copy's size in bytes, or None for what no trace holds."""
    x = count_of(value)
    return x if x is not None and x <= MAX_COPY_BYTES else None


def short(value) -> str:
    """A value as error messages quote it: at most about 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}... ({len(text)} characters)"


def named_size(value) -> float | None:
    """The bytes a runtime call names (``bytes``, or ROCm's ``size``, a
    string there) as a float; None where it is no number (the copy's bytes
    stay unknown); ValueError where it is a number no trace holds."""
    try:
        size = float(value)
    except OverflowError:
        size = math.inf
    except (TypeError, ValueError):
        return None
    if byte_count(size) is None and not math.isnan(size):
        raise ValueError(f"size {short(value)} is no byte count a trace holds (from 0 to 2**53)")
    return size


def copy_row(kind: str, name: str, dur: float, nbytes, args_kind, correlation) -> tuple:
    """What GpuEvents.finish groups of one copy or set; ValueError for bytes no trace holds."""
    if nbytes is not None and byte_count(nbytes) is None:
        raise ValueError(f"bytes is not a byte count from 0 to 2**53: {short(nbytes)}")
    return (kind, name, dur, "" if args_kind is None else str(args_kind),
            None if nbytes is None else byte_count(nbytes), correlation)
