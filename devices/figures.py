"""A GPU told by its figures (compute capability, SMs or compute units,
warp size, memory) rather than its name: the figures of a file's
deviceProperties and of each profile, narrowed one figure at a time, and
the words that say which figure told them apart (:mod:`.choice` decides).
"""
from __future__ import annotations

import re

# A file's memory may be this much below its board's: the runtime holds some
# back, ECC more (a T4 with ECC on reports 14.75 of its 16 GiB).
MEMORY_SHORT = 0.10
FIGURE_ORDER = ("capability", "sms", "warp_size", "memory_bytes")


def gpu_figures(properties) -> dict | None:
    """What ImportResult.device_properties say of a GPU (compute capability,
    SMs or compute units, warp size, memory), or None when they give
    neither a compute capability nor an SM count (a CPU trace's cpu_model)."""
    if not hasattr(properties, "get"):
        return None
    out = {}
    capability = properties.get("capability")
    if isinstance(capability, str) and re.fullmatch(r"\d+\.\d+", capability.strip()):
        out["capability"] = capability.strip()
    for k in ("sms", "warp_size"):
        v = properties.get(k)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            out[k] = v
    memory = properties.get("memory_bytes")
    if isinstance(memory, (int, float)) and not isinstance(memory, bool) and 0 < memory < float("inf"):
        out["memory_bytes"] = float(memory)
    return out if ("capability" in out or "sms" in out) else None


def figures(info) -> dict:
    """A GPU profile's figures (a :class:`.choice.ProfileInfo`) in the same terms (NVIDIA profiles: warp size 32)."""
    if info.identity:
        return {k: info.identity.get(k) for k in FIGURE_ORDER}
    return {"capability": info.capability, "sms": info.sms, "warp_size": 32 if info.capability else None,
            "memory_bytes": info.memory_bytes}


def memory_fits(given: float, theirs) -> bool:
    return bool(theirs) and theirs * (1 - MEMORY_SHORT) <= given <= theirs * 1.005


def narrowed(given: dict, candidates: dict[str, dict]) -> list[tuple[str, list[str]]]:
    """The candidates left after each figure the file gives: (figure, stems)
    for the compute capability with the warp size, the SM count, then
    memory (only while several are left, and only when some fit it)."""
    left = sorted(candidates)
    steps = []
    if "capability" in given or "warp_size" in given:
        left = [s for s in left
                if all(given[k] == candidates[s].get(k) for k in ("capability", "warp_size") if k in given)]
        steps.append(("capability", left))
    if "sms" in given:
        left = [s for s in left if candidates[s].get("sms") == given["sms"]]
        steps.append(("sms", left))
    if "memory_bytes" in given and len(left) > 1:
        fit = [s for s in left if memory_fits(given["memory_bytes"], candidates[s].get("memory_bytes"))]
        if fit:
            left = fit
            steps.append(("memory_bytes", left))
    return steps or [("", left)]


def units(figures: dict) -> str:
    return "compute units" if figures.get("warp_size") == 64 or figures.get("vendor") == "amd" else "SMs"


def shown_figure(k: str, value, given: dict) -> str:
    if value is None:
        return f"no {'SM count' if k == 'sms' else 'stated ' + k.replace('_', ' ')}"
    if k == "capability":
        return f"compute capability {value}"
    if k == "sms":
        return f"{value} {units(given)}"
    if k == "warp_size":
        return f"warp size {value}"
    return f"{value / 2 ** 30:.1f} GiB"


def shown_figures(given: dict) -> str:
    """'compute capability 9.4, 304 compute units, warp size 64, 192.0 GiB'."""
    return ", ".join(shown_figure(k, given[k], given) for k in FIGURE_ORDER if k in given)


def telling(given: dict, chosen: dict, other: dict) -> str | None:
    """The first figure the file gives that ``other`` does not share with it."""
    for k in FIGURE_ORDER:
        if k not in given:
            continue
        if k == "memory_bytes":
            if memory_fits(given[k], chosen.get(k)) and not memory_fits(given[k], other.get(k)):
                return k
        elif other.get(k) != given[k]:
            return k
    return None


def memory_note(given: dict, figures: dict, stem: str) -> str:
    """What memory the file gives when it is not the profile's board's."""
    memory, theirs = given.get("memory_bytes"), figures.get("memory_bytes")
    if memory is None or not theirs or memory_fits(memory, theirs):
        return ""
    return (f"; the file's {memory / 2 ** 30:.1f} GiB of memory is not the {theirs / 2 ** 30:.1f} GiB of "
            f"{stem}'s board (another memory size: its DRAM roof may differ)")


CLOCK_TOLERANCE = 0.03      # a file's clock this far from the profile's boost clock is another clock


def disagreements(given: dict, theirs: dict, stem: str, clock_hz=None, boost_hz=None) -> list[str]:
    """What a file's figures (SMs/CUs, compute capability, memory, clock)
    say against the profile its GPU's name picked: one phrase each, empty
    when they agree or the file does not give them. ``theirs`` is the
    profile's :func:`figures`; ``clock_hz`` the file's clock (XPlane's
    clock_rate), ``boost_hz`` the profile's boost clock."""
    out = []
    if given.get("sms") is not None and theirs.get("sms") and given["sms"] != theirs["sms"]:
        out.append(f"the file's {given['sms']} {units(given)} are not the {theirs['sms']} of {stem}: its roofs "
                   "scale with the count, so they are wrong for this GPU")
    if given.get("capability") and theirs.get("capability") and given["capability"] != theirs["capability"]:
        out.append(f"the file's compute capability {given['capability']} is not {stem}'s {theirs['capability']}: "
                   "another chip")
    note = memory_note(given, theirs, stem)
    if note:
        out.append(note.removeprefix("; "))
    if _positive(clock_hz) and _positive(boost_hz) and abs(clock_hz - boost_hz) > CLOCK_TOLERANCE * boost_hz:
        above = clock_hz > boost_hz
        out.append(f"the file's clock {clock_hz / 1e6:.0f} MHz is {'above' if above else 'below'} {stem}'s "
                   f"{boost_hz / 1e6:.0f} MHz: its compute and cache roofs are "
                   + ("too low for this GPU" if above else "above what this GPU reaches at its clock"))
    return out


def _positive(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < float("inf")
