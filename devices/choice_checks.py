"""What a file's figures say about the profile a choice settles on, and
the choices that need more than a GPU's name (:mod:`.choice` decides):
the figures a trace gives against the profile its name picked, a stand-in
said as such, a family name ("MI200") told by its compute units, an AMD
GPU known by vendor and GFX IP version, and the roofs rocprof-compute
measured beside a workload whose GPU has no profile.
"""
from __future__ import annotations

from pathlib import Path

from ..core.model import Device
from .figures import disagreements, figures as profile_figures, gpu_figures, narrowed, shown_figures
from .names import FAMILIES, Match, model_of

from .choice_types import DeviceChoice, ProfileInfo


def _choice(device, profile, reason):
    return DeviceChoice(device, profile, reason)


def stands_in(match: Match) -> bool:
    """The profile is a neighbour's (another form factor or memory, a
    stand-in), not the GPU's own."""
    return bool(match.conflicts) or "stands in" in match.note


def contradicted(properties, info: ProfileInfo, device: Device) -> list[str]:
    """What the file's device properties say against the profile its GPU's
    name picked (SMs/CUs, capability, memory, clock)."""
    given = gpu_figures(properties)
    if not given:
        return []
    theirs = profile_figures(info)
    if info.same_as:                # figures hidden from choosing, not from checking
        arch = device.architecture
        theirs = {"capability": arch.get("gfxip_version"), "sms": arch.get("sms"),
                  "warp_size": arch.get("wavefront_size"), "memory_bytes": theirs.get("memory_bytes")}
    return disagreements(given, theirs, info.stem, properties.get("clock_hz"), device.clocks_hz.get("boost"))


def measured_beside(results, name: str) -> DeviceChoice | None:
    """The roofs rocprof-compute measured in the workload of a GPU that
    has no profile (its roofline.csv beside pmc_perf.csv), or None."""
    for r in results:
        path = Path(str(r.path))
        if r.device.name != name or not path.name.endswith("pmc_perf.csv"):
            continue
        roofs = path.with_name(path.name[:-len("pmc_perf.csv")] + "roofline.csv")
        if roofs.is_file():
            from .rocprof_roofline import read_rocprof_roofline
            reason = (f"the file names {name}, which has no built-in profile; the roofs are the ones rocprof-compute "
                      f"measured in the same workload ({roofs.name})")
            return _choice(read_rocprof_roofline(roofs, name=name), str(roofs), reason)
    return None


def match_family(name: str, properties, infos: dict[str, ProfileInfo]):
    """(Match, ProfileInfo) or (None, None) for a family name (rocprof-compute's
    "MI200"): the one profile of the family's vendor whose CU count, warp size
    and version are the file's (memory too where given)."""
    family = FAMILIES.get(model_of(name) or "")
    given = gpu_figures(properties)
    if not family or not given or given.get("sms") is None or "capability" not in given:
        return None, None
    amd = {s: profile_figures(i) for s, i in infos.items() if i.identity and i.kind != "cpu"}
    left = narrowed(given, amd)[-1][1]
    if len(left) != 1:
        return None, None
    stem = left[0]
    alike = [s for s, i in infos.items() if i.same_as == stem]
    note = (f"the file names {name}, {family}; its figures ({shown_figures(given)}) are those of {stem}"
            + (f" ({', '.join(alike)} {'has' if len(alike) == 1 else 'have'} the same figures and roofs)"
               if alike else ""))
    return Match(stem, note), infos[stem]


def vendor(properties) -> str | None:
    """'amd' or 'nvidia' where the file's device properties name the vendor
    (an XPlane's device_vendor), else None."""
    vendor = properties.get("vendor") if hasattr(properties, "get") else None
    if not isinstance(vendor, str):
        return None
    low = vendor.lower()
    return "amd" if ("amd" in low or "advanced micro" in low) else "nvidia" if "nvidia" in low else None
