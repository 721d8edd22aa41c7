"""From counter totals to import results: kernels, advice, merging.

:func:`kernel_from_counts` and :func:`advice_for` turn the
:class:`~roofline.importers.nvidia.counters.Counts` of each launch into kernels and
the warnings that name the exact ``ncu``/``nvprof`` metrics to collect;
:func:`merge_results` combines several files of one run (two-pass roofline
collections, nvprof ``--metrics`` with its trace).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable

from ..core.errors import Advice, InputError
from ..core.families import COPIES
from ..core.model import Kernel
from ..core.import_result import DeviceClues, ImportResult
from .nvidia.counters import Counts
from .recipes import MISSING, missing_counter_advice
from .sums import sum_by_name

# --------------------------------------------------------------------------
# shared helpers for readers
# --------------------------------------------------------------------------

def kernel_from_counts(name: str, counts: Counts, *, count: int = 1, launch=None,
                       family: str = "") -> Kernel:
    launch = dict(launch or {})
    if counts.time_source:
        launch["time_source"] = counts.time_source
    if counts.thread_instructions is not None:
        launch["thread_instructions"] = counts.thread_instructions
    return Kernel(name=name, time_s=counts.time_s, count=count, flops=counts.flops,
                  bytes=counts.bytes, instructions=counts.instructions,
                  transactions=counts.transactions, launch=launch, family=family)


def family_for(name: str) -> str:
    """Family of a kernel name (roofline.core.families when available)."""
    try:
        from ..core.families import family_of
    except ImportError:  # pragma: no cover - the classifier ships with the package
        return ""
    try:
        return family_of(name)
    except Exception:  # noqa: BLE001 - a heuristic must never fail an import
        return ""


def advice_for(path, kernels, counts: list[Counts], *, tool: str) -> list[Advice]:
    """Warnings for a file: missing counters (with the exact metrics to add),
    notes from the rules, and where time came from."""
    subject = Path(str(path)).name
    out = missing_counter_advice(kernels, tool=tool, subject=subject)
    sources = {c.time_source for c in counts if c.time_source}
    derived = sorted(s for s in sources if "/" in s)
    if derived:
        out.append(Advice(f"kernel time derived from {' and '.join(derived)}",
                          "gpu__time_duration.sum measures it directly", subject))
    if any(c.from_rates for c in counts):
        out.append(Advice("some totals are rates x duration (the file holds per-second or "
                          "per-cycle values)", "", subject))
    notes: dict[str, int] = {}
    for c in counts:
        for n in c.notes:
            notes[n] = notes.get(n, 0) + 1
    for note, n in notes.items():
        out.append(Advice(f"{note} ({n} kernel{'s' if n > 1 else ''})", "", subject))
    return out


# --------------------------------------------------------------------------
# merging several files of one run
# --------------------------------------------------------------------------

def _is_measured(source: str) -> bool:
    return bool(source) and "/" not in source and not source.startswith("normalised")


def merge_results(results: Iterable[ImportResult]) -> ImportResult:
    """Merge several imports of one program run into one result.

    Typical use: the two passes of a roofline collection (one ncu run with
    ``dram__bytes``, one with the FLOP counters), or nvprof's ``--metrics``
    output with its GPU trace or summary. Kernels match on launch ID and name
    when every kernel has an ID, otherwise on name (per-launch kernels are
    then summed per name first). Counters are taken from whichever file has
    them and never added across files; a counter present in two files keeps
    the first value (a warning says so when they differ by more than 5 %).
    Time: a measured duration beats one derived from cycles; between two of
    the same kind the shorter wins, since instrumented passes (SASS
    instruction counters) run much longer. A roofline-chart export (rates
    per second of kernel time, no duration) is scaled by the other file's
    duration. Copies and sets (families memcpy/memset) are left out of the
    "match no kernel" count: a metrics file never has them.
    """
    results = list(results)
    if not results:
        raise InputError(None, None, "merge_results: no results to merge")
    if len(results) == 1:
        return results[0]
    warnings: list[Advice] = []
    by_id = all(k.launch.get("id") is not None for r in results for k in r.kernels)
    merged: dict[tuple, Kernel] = {}
    seen_in: dict[tuple, set[int]] = {}
    for i, r in enumerate(results):
        kernels = list(r.kernels) if by_id else sum_by_name(r.kernels).kernels()
        for k in kernels:
            key = (k.launch.get("id"), k.name) if by_id else (None, k.name)
            seen_in.setdefault(key, set()).add(i)
            if key not in merged:
                merged[key] = k
            else:
                merged[key] = _merge_two(merged[key], k, warnings)
    # copies and sets never appear in a metrics file: they do not count (every
    # kernel here came from an ImportResult's KernelSet, so it has its family)
    work = [key for key, k in merged.items() if k.family not in COPIES]
    partial = [key for key in work if len(seen_in[key]) < len(results)]
    if partial:
        what = "launch ID and name" if by_id else "name"
        example = partial[0][1][:60] + (f" (ID {partial[0][0]})" if by_id else "")
        warnings.append(Advice(f"{len(partial)} of {len(work)} kernels match no kernel "
                               f"(by {what}) in at least one other file, e.g. {example}",
                               "were the files collected from the same run?", "merge"))
    kernels = tuple(merged.values())
    tool = "ncu" if any(r.format.startswith("ncu") for r in results) else "nvprof"
    kept = [w for r in results for w in r.warnings if not w.message.startswith(MISSING)]
    missing = missing_counter_advice(kernels, tool=tool, subject="merge")
    return ImportResult(path=";".join(r.path for r in results), format="+".join(r.format for r in results),
                        kernels=kernels,
                        program=next((r.program for r in results if r.program is not None), None),
                        warnings=tuple(_dedupe(kept + missing + warnings)),
                        device=_first_clues([r.device for r in results]))


def _first_clues(clues: list[DeviceClues]) -> DeviceClues:
    """Each device fact from the first pass that gives it."""
    def first(field):
        return next((v for c in clues if (v := getattr(c, field))), None)
    return DeviceClues(name=first("name"), capability=first("capability"), kind=first("kind"),
                       properties=first("properties"))


def merge_files(paths) -> ImportResult:
    """Read each file (format recognised from its content) and merge them:
    ``merge_files(["time-dram.csv", "time-flops.csv"])``."""
    from .read import read_profile   # read imports the readers, which import this module
    return merge_results([read_profile(p) for p in paths])


def _dedupe(items: list[Advice]) -> list[Advice]:
    return list(dict.fromkeys(items))


def _normalised(k: Kernel) -> bool:
    return str(k.launch.get("time_source", "")).startswith("normalised")


def _merge_two(a: Kernel, b: Kernel, warnings: list[Advice]) -> Kernel:
    """One kernel from two files' views of it (see :func:`merge_results`)."""
    real = [k for k in (a, b) if not _normalised(k) and math.isfinite(k.time_s)]
    target = real[0].count if real else a.count
    if a.count != b.count:
        warnings.append(Advice(f"{a.name}: {a.count} calls in one file, {b.count} in another",
                               f"counters were scaled per call to {target} calls", "merge"))
    # candidate durations, scaled to the target number of calls
    candidates = [(k.time_s * target / k.count, str(k.launch.get("time_source", "")))
                  for k in real]
    if candidates:
        time_s, source = candidates[0]
        if len(candidates) == 2:
            (t0, s0), (t1, s1) = candidates
            if (_is_measured(s1) and not _is_measured(s0)) or \
                    (_is_measured(s0) == _is_measured(s1) and t1 < t0):
                time_s, source = t1, s1
            lo, hi = sorted((t0, t1))
            if lo > 0 and hi / lo > 1.5:
                warnings.append(Advice(
                    f"{a.name}: durations differ {hi / lo:.3g}x between files; kept "
                    f"{time_s:.4g} s ({source or 'measured'})",
                    "passes that collect SASS instruction counters run slower", "merge"))
    else:  # only rates over a normalised second (or no time at all)
        time_s, source = a.time_s, str(a.launch.get("time_source", ""))

    def factor(k: Kernel) -> float:
        if _normalised(k) and candidates:
            # rates (per second of kernel time) x real duration; older
            # normalised kernels carry time_s = 1 s, newer ones NaN
            per = k.time_s if math.isfinite(k.time_s) and k.time_s > 0 else 1.0
            return time_s / per
        return target / k.count

    fa, fb = factor(a), factor(b)

    def union(attr: str) -> dict:
        da = {key: v * fa for key, v in getattr(a, attr).items()}
        for key, v in getattr(b, attr).items():
            v *= fb
            if key not in da:
                da[key] = v
            elif abs(da[key] - v) > 0.05 * max(abs(da[key]), abs(v)):
                warnings.append(Advice(f"{a.name}: {attr}[{key}] differs between files "
                                       f"({da[key]:.4g} vs {v:.4g}); kept the first", "", "merge"))
        return da

    inst = a.instructions * fa if a.instructions is not None else (
        b.instructions * fb if b.instructions is not None else None)
    launch = dict(b.launch)
    launch.update(a.launch)
    if source:
        launch["time_source"] = source
    else:
        launch.pop("time_source", None)
    return Kernel(name=a.name, time_s=time_s, count=target,
                  flops=union("flops"), bytes=union("bytes"), transactions=union("transactions"),
                  instructions=inst, launch=launch, family=a.family or b.family,
                  variant=a.variant or b.variant, source=a.source or b.source)


def all_nan_advice(path, launch_ids: list, total: int) -> list[Advice]:
    """Launches whose every numeric metric is NaN (n/a): Nsight Compute did
    not collect them, which is not the same as the file lacking counters."""
    if not launch_ids:
        return []
    shown = ", ".join(str(i) for i in launch_ids[:8]) + (" ..." if len(launch_ids) > 8 else "")
    return [Advice(f"{len(launch_ids)} of {total} launches have every metric NaN (launch ID {shown}): "
                   "Nsight Compute collected nothing for them",
                   "profile them again (a replay that failed, a kernel cut short, or a filtered "
                   "launch); the other launches are unaffected", Path(str(path)).name)]
