"""Whether a measured profile's roofs can be trusted for a given profile
file, said once, up front, instead of as a string of per-kernel warnings.

A roof is only as good as the measurement behind it. These make the roofs
of a measured profile doubtful, each a :class:`Doubt`:

- ``busy``: ``roofline measure`` found the machine busy while it ran
  (``provenance.machine_load.busy``: load average, steal time, noisy
  samples), so its ceilings may be low;
- ``levels out of order``: a level farther from the cores measured faster
  than a nearer one (L2 above L1, DRAM above L3) by more than
  :data:`ORDER_TOLERANCE`: at least one of them was disturbed;
- ``one core above all``: a one-core figure above the all-core one, which
  no idle machine shows;
- ``other CPU``: the trace names the CPU it ran on and it is not the one
  the profile was measured on (by CPUID vendor, family and model where
  both record them, else by name). A trace that does not name its CPU leaves
  this unchecked, and :func:`doubts` says so (as a note, not a doubt).

Two doubts hold for every profile, measured or datasheet, GPU or CPU:

- ``levels out of order`` (above) and ``above theoretical``: a ceiling
  more than :data:`THEORETICAL_TOLERANCE` above the theoretical peak the
  profile itself states for it (a measured 7x its own peak is a damaged or
  edited profile, not a fast machine);
- ``chosen``: what the choice of profile said against it for the files at
  hand (a stand-in, a trace whose SM count or memory is not the profile's),
  attached by :func:`with_choice_doubts` so that the report's banner says
  it, not only stderr.

The rest apply to measured CPU profiles only: datasheet profiles are
theoretical peaks, not measurements.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.model import HOST_LINK, LEVELS, Device

ORDER_TOLERANCE = 0.10      # a farther level this much faster than a nearer one is out of order
ONE_CORE_TOLERANCE = 0.10   # a one-core figure this much above the all-core one
# a ceiling this much above the theoretical peak stored beside it: turbo and
# rounding stay well inside it, a damaged or hand-edited profile does not
THEORETICAL_TOLERANCE = 0.5
CHOICE_DOUBTS = "choice_doubts"     # provenance key; not saved (roofline.devices.profile)


@dataclass(frozen=True)
class Doubt:
    """One reason not to trust a profile's roofs; ``note`` is informational
    (something that could not be checked), not a reason."""

    kind: str
    message: str
    note: bool = False

    def __str__(self) -> str:
        return self.message


def doubts(device: Device, trace_cpus: list | None = None, what: str = "trace") -> list[Doubt]:
    """What makes ``device``'s roofs doubtful for traces that ran on
    ``trace_cpus`` (the CPU each trace names: a dict with ``cpu_model`` and,
    where recorded, ``vendor``/``cpu_family``/``cpu_model_id``, or the bare
    model name, or None where it names none; omit for files that are not
    CPU traces); ``what`` the input is called in the text ("trace", "file")."""
    prov = device.provenance or {}
    out = _chosen(device) + _out_of_order(device) + _above_theoretical(device)
    if device.kind != "cpu" or prov.get("method") != "measured":
        return out
    load = prov.get("machine_load") or {}
    if load.get("busy"):
        why = "; ".join(str(r) for r in load.get("reasons") or []) or "its samples were noisy"
        out.append(Doubt("busy", f"the profile was measured on a busy machine ({why}): its roofs may be low; "
                                 "measure again with `roofline measure` when the machine is idle"))
    out += _one_core_above_all(device)
    if trace_cpus is not None:
        out += _other_cpu(device, trace_cpus, what)
    return out


def _out_of_order(device: Device) -> list[Doubt]:
    """Every pair of levels, not only neighbours: an L1 slower than DRAM is
    out of order even when the L2 between them looks fine."""
    levels = [lv for lv in LEVELS if lv in device.memory and lv != HOST_LINK]
    measured = (device.provenance or {}).get("method") == "measured"
    out = []
    for i, near in enumerate(levels):
        for far in levels[i + 1:]:
            a, b = device.bandwidth(near), device.bandwidth(far)
            if b > a * (1 + ORDER_TOLERANCE):
                why = ("so the measurement was disturbed; measure again" if measured else
                       "so the profile is damaged or mistyped; check its figures")
                out.append(Doubt("levels out of order",
                                 f"{far} {'measured ' if measured else 'is '}faster than {near} ({b / 1e9:.3g} against "
                                 f"{a / 1e9:.3g} GB/s): a level farther from the cores cannot be faster, {why}"))
    return out


def _above_theoretical(device: Device) -> list[Doubt]:
    """Ceilings far above the theoretical peak the profile states beside them."""
    ceilings = [(k, c) for k, c in device.compute.items()] + [(k, m.bandwidth) for k, m in device.memory.items()]
    if device.instruction_rate is not None:
        ceilings.append(("instructions", device.instruction_rate))
    above = [f"{k} {c.value / c.theoretical:.2g}x" for k, c in ceilings
             if c.theoretical and c.theoretical > 0 and c.value > c.theoretical * (1 + THEORETICAL_TOLERANCE)]
    if not above:
        return []
    return [Doubt("above theoretical", f"ceilings far above the theoretical peaks the profile itself states "
                                       f"({', '.join(above)}): no measurement exceeds the hardware's peak, so "
                                       "the profile is damaged or its figures were edited; measure again")]


def _chosen(device: Device) -> list[Doubt]:
    said = (device.provenance or {}).get(CHOICE_DOUBTS) or ()
    return [Doubt("chosen", str(text)) for text in said if isinstance(text, str)]


def with_choice_doubts(device: Device, doubts) -> Device:
    """``device`` carrying what choosing it said against it for the files at
    hand (stand-in, figures that disagree): :func:`doubts` returns them, so
    the report's banner shows them. Kept out of saved profiles."""
    from dataclasses import replace
    prov = dict(device.provenance or {})
    prov[CHOICE_DOUBTS] = tuple(dict.fromkeys(tuple(prov.get(CHOICE_DOUBTS) or ()) + tuple(doubts)))
    out = replace(device, provenance=prov)
    object.__setattr__(out, "links", device.links)
    return out


def _one_core_above_all(device: Device) -> list[Doubt]:
    single = (device.architecture or {}).get("single_core")
    if not isinstance(single, dict):
        return []
    above = []
    for key, c in (single.get("compute") or {}).items():
        rate = c.get("flop_s") if isinstance(c, dict) else None
        if isinstance(rate, (int, float)) and key in device.compute and rate > device.compute[key].value * (
                1 + ONE_CORE_TOLERANCE):
            above.append(key)
    for name, m in (single.get("memory") or {}).items():
        rate = m.get("bytes_s") if isinstance(m, dict) else None
        if isinstance(rate, (int, float)) and name in device.memory and rate > device.bandwidth(name) * (
                1 + ONE_CORE_TOLERANCE):
            above.append(name)
    if not above:
        return []
    return [Doubt("one core above all", f"one core measured faster than all cores together ({', '.join(above)}): "
                                        "the all-core runs were disturbed; measure again")]


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", name.lower()).strip()


def _identity(cpu) -> dict:
    """A trace's or a profile's CPU as a dict (a bare string is the model name)."""
    return {"cpu_model": cpu} if isinstance(cpu, str) else dict(cpu or {})


def _cpuid(ident: dict):
    """(vendor, family, model) where all three are recorded, else None."""
    parts = (ident.get("vendor"), ident.get("cpu_family"), ident.get("cpu_model_id"))
    ok = isinstance(parts[0], str) and all(isinstance(v, int) and not isinstance(v, bool) for v in parts[1:])
    return parts if ok else None


def _same_cpu(trace: dict, profile: dict) -> bool:
    """CPUID vendor, family and model where both record them (two VMs
    both named "AMD EPYC" are a Zen 3 and a Zen 4), else the model names."""
    a, b = _cpuid(trace), _cpuid(profile)
    if a is not None and b is not None:
        return a == b
    return _key(str(trace.get("cpu_model"))) == _key(str(profile.get("cpu_model")))


def _shown(ident: dict) -> str:
    ids = _cpuid(ident)
    name = str(ident.get("cpu_model") or "an unnamed CPU")
    return f"{name} (family {ids[1]} model {ids[2]})" if ids else name


def _other_cpu(device: Device, trace_cpus: list, what: str = "trace") -> list[Doubt]:
    arch = device.architecture or {}
    profile = {"cpu_model": arch.get("cpu_model") or (device.provenance or {}).get("cpu_model"),
               "vendor": arch.get("vendor"), "cpu_family": arch.get("cpu_family"),
               "cpu_model_id": arch.get("cpu_model_id")}
    traces = [_identity(c) for c in trace_cpus]
    if any(not t.get("cpu_model") for t in traces):
        ran = "it ran on" if what == "trace" else "its rows were measured on"
        return [Doubt("other CPU", f"the {what} does not name the CPU {ran}, so that the profile "
                                   f"(measured on {_shown(profile)}) describes it cannot be checked",
                      note=True)]
    if not profile["cpu_model"]:
        return []
    other = sorted({_shown(t) for t in traces if not _same_cpu(t, profile)})
    if not other:
        return []
    return [Doubt("other CPU", f"the trace was recorded on {', '.join(other)} but the profile was measured on "
                               f"{_shown(profile)}: the roofs are this machine's, so an operator can sit above "
                               "them where the recording CPU is faster; pass the profile of the machine that "
                               "recorded the trace, or record the trace here (examples/pytorch_cpu.py)")]


def doubts_for(device: Device, results) -> list[Doubt]:
    """:func:`doubts` for the import results of some profile files: on a CPU
    profile, the CPU each result names (``device_properties['cpu_model']``,
    which the Kineto reader takes from traces that record it)."""
    results = list(results or ())
    if device.kind != "cpu" or not results:
        return doubts(device)
    # a PyTorch trace is a trace; a kernels.csv or another table is a file of rows
    what = "trace" if all(r.format == "kineto" for r in results) else "file"
    return doubts(device, [_identity(r.device.properties) for r in results], what)
