"""Which device profile a profile file's kernels are placed on.

Readers report what the file says about its device on the import result:
``device_name`` (the GPU's name as the tool writes it), ``compute_capability``
(``"8.0"``, when the file gives it), ``device_kind`` (``"cpu"`` for a
PyTorch trace whose operators ran on the host) and ``device_properties``
(multiprocessors, warp size, version, memory: a Kineto trace's
deviceProperties, which tell an MI250 GCD from an APU when both are called
"AMD Radeon Graphics"). :func:`device_for` turns
that, or the name a user typed, into a profile and says why; the CLI prints
the reason and warnings. Nothing here prints.
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from .names import (Match, NameError_, capability_warning, key, model_of, resolve_capability, resolve_properties,
                    resolve_reported, resolve_typed, shown_properties)
from ..core.errors import ProfileError, UnknownDeviceError
from ..core.model import Device
from .choice_types import DeviceChoice, ProfileInfo
from .choice_checks import contradicted as _contradicted, match_family as _match_family
from .choice_checks import measured_beside as _measured_beside, stands_in as _stands_in, vendor as _vendor
from .figures import figures as profile_figures, gpu_figures, memory_note, narrowed, shown_figure, shown_figures, telling

CPU_PROFILE = "my-cpu"          # what `roofline measure` saves for this machine's CPU
_HEAD_BYTES = 256 * 1024        # the keys read below sit before a measured profile's raw samples


def profile_infos() -> dict[str, ProfileInfo]:
    """Saved profiles (measured here) first, then built-in ones; a saved
    profile hides a built-in one of the same stem."""
    from .profile import builtin_profiles, saved_profiles
    out: dict[str, ProfileInfo] = {}
    for origin, paths in (("saved", saved_profiles()), ("built-in", builtin_profiles())):
        for stem, path in paths.items():
            if stem not in out:
                out[stem] = _info(stem, path, origin)
    return out


_LINE = {field: re.compile(rf"^{indent}{field}:[ \t]*['\"]?(.*?)['\"]?[ \t]*$", re.MULTILINE)
         for field, indent in (("name", ""), ("kind", ""), ("compute_capability", r"[ \t]+"),
                               ("gpu_name", r"[ \t]+"), ("sms", r"[ \t]+"), ("wavefront_size", r"[ \t]+"),
                               ("gfxip_version", r"[ \t]+"), ("dram_bytes", r"[ \t]+"),
                               ("same_figures_as", r"[ \t]+"))}


def _info(stem: str, path: Path, origin: str) -> ProfileInfo:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        head = ""
    found = {f: (m.group(1) if (m := rx.search(head)) else None) for f, rx in _LINE.items()}
    # a profile with another's figures is chosen by name only: its figures would tie with the other's
    same_as = found["same_figures_as"] or None
    return ProfileInfo(stem, Path(path), origin, found["name"] or stem, found["kind"],
                       found["compute_capability"], found["gpu_name"],
                       None if same_as else _identity(found, found["name"] or stem),
                       None if same_as else _number(found["sms"], int), _number(found["dram_bytes"], float),
                       same_as)


def _number(text, kind):
    try:
        value = kind(float(text)) if text is not None else None
    except (TypeError, ValueError, OverflowError):
        return None
    return value if value is not None and value > 0 else None


def _identity(found: dict, shown: str) -> dict | None:
    """An AMD profile's figures in the terms of ImportResult.device_properties
    (NVIDIA profiles state no GFX IP version, so have none)."""
    if not found["gfxip_version"]:
        return None
    try:
        return {"sms": int(found["sms"]), "warp_size": int(found["wavefront_size"]),
                "capability": found["gfxip_version"], "memory_bytes": float(found["dram_bytes"]),
                "shown": shown}
    except (TypeError, ValueError):
        return None


def known_devices(infos: dict[str, ProfileInfo] | None = None) -> str:
    """The --device values that exist, for error messages."""
    infos = profile_infos() if infos is None else infos
    parts = []
    for origin in ("built-in", "saved"):
        stems = sorted(s for s, i in infos.items() if i.origin == origin)
        if stems:
            parts.append(f"{origin}: {', '.join(stems)}")
    return "; ".join(parts) or "none"


def device_for(results, requested: str | None = None) -> DeviceChoice:
    """The profile for the kernels of ``results`` (import results): the one
    ``requested`` names (a name as typed, or a path), else the GPU the files
    name (their SM count and memory telling apart profiles the name fits
    equally), else their compute capability, else the one profile their
    device properties single out (a trace that names no GPU: PyTorch on
    ROCm), else my-cpu for a PyTorch CPU trace; never my-cpu for a trace
    with GPU kernels. Raises UnknownDeviceError saying which --device values
    exist."""
    infos = profile_infos()
    if requested:
        choice = _typed(str(requested), infos)
        return _with_warnings(choice, _mismatch(choice, results, infos))
    named = list(dict.fromkeys(r.device.name for r in results if r.device.name))
    if named:
        choice = _reported(named[0], results, infos)
        extra = ()
        if len(named) > 1:
            extra = (f"the files name {len(named)} GPUs ({', '.join(named)}); {choice.profile} is used "
                     "for all (pass --device to choose)",)
        return _with_warnings(choice, extra)
    amd = next((p for r in results if _vendor(p := r.device.properties) == "amd"
                and gpu_figures(p)), None)
    if amd is not None:     # an AMD GPU's 'compute capability' is its GFX IP version: told by its figures
        return _by_properties(amd, results, infos, vendor="amd")
    capabilities = list(dict.fromkeys(c for r in results if (c := r.device.capability)))
    # an NVIDIA XPlane gives SMs and memory beside the capability: they tell the H100s (and the A100s) apart
    counted = next((p for r in results if "sms" in (gpu_figures(p := r.device.properties)
                                                    or {})), None)
    if capabilities and counted is not None:
        return _with_warnings(_by_nvidia_figures(counted, capabilities[0], results, infos), _differing(results))
    if capabilities:            # figures without an SM count (memory, clock) can still contradict it
        given = next((p for r in results if gpu_figures(p := r.device.properties)), None)
        return _doubted(_by_capability(capabilities[0], results, infos), given, results, infos)
    properties = next((p for r in results if gpu_figures(p := r.device.properties)), None)
    if properties is not None:
        return _by_properties(properties, results, infos)
    if results and all(_ran_on_cpu(r) for r in results):
        return _cpu(infos)
    raise UnknownDeviceError(f"{_paths(results)}: the file does not name its GPU{_nameless(results)}; "
                             f"pass --device ({known_devices(infos)})")


def _by_nvidia_figures(counted, capability: str, results, infos: dict[str, ProfileInfo]) -> DeviceChoice:
    """The profile an NVIDIA file's SMs and memory pick beside its compute
    capability, with what its other figures (memory, clock) say against it
    as doubts. The capability alone decides only when it names a profile
    whose SM count is the file's: a file whose SMs no profile has (a MIG
    slice of 14 of an A100's 108) is refused, not put on a whole GPU's roofs."""
    try:
        choice = _by_properties(counted, results, infos)
    except UnknownDeviceError as by_figures:
        try:
            choice = _by_capability(capability, results, infos)
        except UnknownDeviceError:
            raise by_figures from None          # it says more: the figures and the profiles near them
        if profile_figures(infos[choice.profile]).get("sms") != gpu_figures(counted).get("sms"):
            raise by_figures from None
    return _doubted(choice, counted, results, infos)


def _doubted(choice: DeviceChoice, properties, results, infos: dict[str, ProfileInfo]) -> DeviceChoice:
    """``choice`` with what the file's figures (memory, clock, SMs) say
    against its profile as doubts, for the report's banner too."""
    info = infos.get(choice.profile)
    if info is None or not properties:
        return choice
    said = [d for d in _contradicted(properties, info, choice.device) if d.split(":")[0] not in choice.reason]
    return replace(choice, doubts=choice.doubts + tuple(f"{_paths(results)}: {d}" for d in said))


def _differing(results) -> tuple[str, ...]:
    """A warning when the files give GPUs of different figures (one profile is used for all)."""
    seen = list(dict.fromkeys(shown_figures(g) for r in results
                              if (g := gpu_figures(r.device.properties))))
    if len(seen) < 2:
        return ()
    return (f"the files give {len(seen)} different GPUs ({'; '.join(seen)}); one profile is used for all "
            "(pass --device to choose)",)


def _typed(text: str, infos: dict[str, ProfileInfo]) -> DeviceChoice:
    path = Path(text)
    roofline_csv = path.is_dir() and (path / "roofline.csv").is_file()    # a rocprof-compute workload
    a_file = path.exists() and not path.is_dir()
    if path.suffix.lower() in (".yaml", ".yml", ".json", ".csv") or roofline_csv or a_file:
        return DeviceChoice(_load_path(path), text)
    try:
        match = resolve_typed(text, {s: i.name for s, i in infos.items()})
    except NameError_ as exc:
        if "ambiguous" in str(exc):
            raise UnknownDeviceError(f"{exc}: pass one of them") from None
        raise UnknownDeviceError(f"{exc} ({known_devices(infos)}; or a path to a .yaml profile)") from None
    return DeviceChoice(_load(infos[match.stem]), match.stem, match.note)


def _reported(name: str, results, infos: dict[str, ProfileInfo]) -> DeviceChoice:
    properties = _properties(results, name)
    try:
        match, info = _match_named(name, properties, infos, _source(results))
    except NameError_ as exc:
        raise UnknownDeviceError(f"{_path_naming(results, name)}: {exc}; pass --device with one of them"
                                 ) from None
    if match is None:
        measured = _measured_beside(results, name)
        if measured is not None:
            return measured
        said = f" ({shown_properties(properties)})" if properties else ""
        raise UnknownDeviceError(
            f"{_path_naming(results, name)} names the GPU {name!r}{said}, which has no built-in or saved "
            f"profile: pass --device with the closest one or a measured profile ({known_devices(infos)})")
    reason = match.note + (" (measured by `roofline measure`)" if info.origin == "saved" else "")
    device = _load(info)
    doubts = [f"{name} is not {info.stem}'s GPU: {match.note}"] if _stands_in(match) else []
    said = [d for d in _contradicted(properties, info, device) if d.split(":")[0] not in reason]
    doubts += [f"{_path_naming(results, name)} names {name}, whose profile is {info.stem}, but {d}" for d in said]
    return DeviceChoice(device, info.stem, reason, doubts=tuple(doubts))





def _match_reported(name: str, infos: dict[str, ProfileInfo]):
    """(Match, ProfileInfo) or (None, None): a measured profile of that GPU
    when one agrees with it in every respect, else the closest of all."""
    gpus = {s: i for s, i in infos.items() if i.kind != "cpu"}
    saved = {s: i.shown for s, i in gpus.items() if i.origin == "saved"}
    try:
        match = resolve_reported(name, saved) if saved else None
    except NameError_:
        match = None
    if match is None or match.conflicts:
        match = resolve_reported(name, {s: i.shown for s, i in gpus.items()})
    return (match, gpus[match.stem]) if match else (None, None)


def _match_named(name: str, properties, infos: dict[str, ProfileInfo], source: str = "its device properties"):
    """(Match, ProfileInfo) or (None, None) for the GPU a file names: by
    the name, the profiles it fits equally told apart by the SM count
    (then memory) the file gives (an "NVIDIA H100" of 132 SMs is the SXM
    card, the PCIe one has 114), else by the device properties alone.
    Raises NameError_ when nothing tells them apart."""
    try:
        match, info = _match_reported(name, infos)
    except NameError_ as exc:
        match = _tie_broken(name, exc, properties, infos, source)
        if match is None:
            raise
        return match, infos[match.stem]
    if match is None:
        match, info = _match_properties(name, properties, infos)
    if match is None:
        match, info = _match_family(name, properties, infos)
    return match, info



def _tie_broken(name: str, exc: NameError_, properties, infos: dict[str, ProfileInfo], source: str):
    """The Match among the profiles a name fits equally that alone agrees
    with the file's device properties, or None."""
    given = gpu_figures(properties)
    candidates = {s: profile_figures(infos[s]) for s in exc.candidates if s in infos}
    if not given or given.get("sms") is None or len(candidates) < 2:
        return None
    steps = narrowed(given, candidates)
    if len(steps[-1][1]) != 1:
        return None
    stem = steps[-1][1][0]
    others = [s for s in sorted(candidates) if s != stem]
    theirs = "; ".join(f"{s} has {shown_figure(k, candidates[s].get(k), given)}" for s in others
                       for k in [telling(given, candidates[stem], candidates[s])] if k)
    note = (f"the file names {name}, which fits {', '.join(sorted(candidates))} equally; {source} give "
            f"{shown_figures(given)}: those of {stem}" + (f" ({theirs})" if theirs else ""))
    return Match(stem, note + memory_note(given, candidates[stem], stem))


def _match_properties(name: str, properties, infos: dict[str, ProfileInfo]):
    """(Match, ProfileInfo) or (None, None): the profile whose identity is
    what the file's device properties say, for a name no profile matched."""
    identities = {s: i.identity for s, i in infos.items() if i.identity and i.kind != "cpu"}
    match = resolve_properties(name, properties, identities)
    return (match, infos[match.stem]) if match else (None, None)


def _properties(results, name: str):
    return next((r.device.properties for r in results
                 if r.device.name == name and r.device.properties), None)


def _by_capability(capability: str, results, infos: dict[str, ProfileInfo]) -> DeviceChoice:
    gpus = {s: i for s, i in infos.items() if i.kind != "cpu" and i.capability}
    same = [i for i in gpus.values() if i.capability == capability]
    signature = {i.stem: _compute_signature(i) for i in same}
    try:
        match = resolve_capability(capability, {s: (i.capability, signature.get(s)) for s, i in gpus.items()})
    except NameError_ as exc:
        raise UnknownDeviceError(f"{_paths(results)}: {exc}; pass --device with one of them") from None
    if match is None:
        raise UnknownDeviceError(
            f"{_paths(results)}: the file gives only the compute capability ({capability}), not the GPU's "
            f"name, and no profile has that capability: pass --device ({known_devices(infos)})")
    warning = capability_warning(capability, match.stem)
    return DeviceChoice(_load(infos[match.stem]), match.stem, match.note, (warning,) if warning else ())


def _compute_signature(info: ProfileInfo):
    """Equal for profiles whose compute ceilings are equal (the A100 40 GB
    and 80 GB SXM4 differ only in memory)."""
    try:
        device = _load(info)
    except UnknownDeviceError:
        return info.stem                    # unreadable: never equal to another
    return tuple(sorted((p, round(c.value, -6)) for p, c in device.compute.items()))


def _traced(results) -> bool:
    """Whether the results come from PyTorch traces (their figures are deviceProperties)."""
    return any(r.format in ("kineto", "rank") for r in results)


def _source(results) -> str:
    return "its deviceProperties" if _traced(results) else "its device properties"


def _subject(results) -> str:
    return "the trace" if _traced(results) else "the file"


def _nameless(results) -> str:
    """Why a file that names nothing is not a CPU trace, when it says so."""
    if any(r.device.kind == "gpu" and r.format == "kineto" for r in results):
        return " (it holds GPU kernels, and no deviceProperties to tell the GPU by)"
    return ""



def _by_properties(properties, results, infos: dict[str, ProfileInfo], vendor: str | None = None) -> DeviceChoice:
    """The profile for a GPU a file does not name, when its device
    properties single one out (an MI300X traced by PyTorch on ROCm gives
    "name": "" with compute capability 9.4, 304 compute units, 192 GiB)."""
    given = gpu_figures(properties)
    if vendor == "amd":
        given["vendor"] = "amd"         # compute units, not SMs, in what is said
    said = f"{_subject(results)} names no GPU; {_source(results)} give {shown_figures(given)}"
    if vendor == "amd":
        said += " and the vendor AMD (its compute capability is the GFX IP version)"
    gpus = {s: i for s, i in infos.items() if i.kind != "cpu" and (vendor != "amd" or i.identity)}
    figures = {s: profile_figures(i) for s, i in gpus.items()}
    steps = narrowed(given, figures)
    first, left = steps[0][1], steps[-1][1]
    saved = [s for s in left if gpus[s].origin == "saved"]
    if len(left) > 1 and len(saved) == 1:
        left = saved
    if len(left) == 1:
        stem = left[0]
        others = [f"{s} has {shown_figure(k, figures[s].get(k), given)}" for s in first if s != stem
                  for k in [telling(given, figures[stem], figures[s])] if k]
        measured = " (measured by `roofline measure`)" if gpus[stem].origin == "saved" else ""
        reason = (f"{said}: {stem} is the only profile with them{measured}"
                  + (f" ({'; '.join(others)})" if others else "") + memory_note(given, figures[stem], stem))
        return DeviceChoice(_load(gpus[stem]), stem, reason)
    if left and len({repr(_compute_signature(gpus[s])) for s in left}) == 1:
        memory = given.get("memory_bytes")
        stem = (min(left, key=lambda s: abs((figures[s].get("memory_bytes") or 0) - memory)) if memory
                else left[0])
        reason = (f"{said}: {stem} assumed: the profiles with them ({', '.join(left)}) have the same compute "
                  "ceilings and differ in memory; pass --device to choose")
        reason += memory_note(given, figures[stem], stem)
        return DeviceChoice(_load(gpus[stem]), stem, reason)
    if left:
        raise UnknownDeviceError(f"{_paths(results)}: {said}, which fit {len(left)} profiles that compute "
                                 f"differently ({', '.join(left)}): pass --device with one of them")
    near = ""
    if first and "sms" in given:
        near = " (" + "; ".join(f"{s} has {shown_figure('sms', figures[s].get('sms'), given)}"
                                for s in first) + ")"
    elif "capability" in given:
        near = f" (none is of compute capability {given['capability']}" + (
            f" with warp size {given['warp_size']}" if "warp_size" in given else "") + ")"
    raise UnknownDeviceError(f"{_paths(results)}: {said}, which no profile has{near}: pass --device with the "
                             f"closest one or a measured profile ({known_devices(infos)})")


def _figures_mismatch(choice: DeviceChoice, results) -> str | None:
    """A warning when --device is given for a file that names no GPU and
    its device properties are not the profile's."""
    device = choice.device
    if any(r.device.capability for r in results):
        return None                 # said by the compute capability's own warning
    if device.kind == "cpu" and results and all(r.device.kind == "gpu" for r in results):
        return (f"{_paths(results)} holds GPU kernels but --device gives the CPU profile {choice.profile}: "
                "the kernels are placed on a CPU's roofs")
    given = next((g for r in results if (g := gpu_figures(r.device.properties))), None)
    if not given or device.kind != "gpu":
        return None
    arch = device.architecture
    theirs = {"capability": arch.get("gfxip_version") or arch.get("compute_capability"), "sms": arch.get("sms"),
              "warp_size": arch.get("wavefront_size") or (32 if arch.get("compute_capability") else None)}
    differ = [k for k in ("capability", "sms", "warp_size")
              if k in given and theirs[k] is not None and str(theirs[k]) != str(given[k])]
    if not differ:
        return None
    shown = ", ".join(shown_figure(k, theirs[k], theirs) for k in differ)
    return (f"{_paths(results)}: {_source(results)} give {shown_figures(given)} but --device gives "
            f"{device.name!r} ({shown}): the roofs are {device.name}'s")


def _ran_on_cpu(result) -> bool:
    kind = result.device.kind
    if kind is not None:
        return kind == "cpu"
    # a result made without device_kind (the Kineto reader sets it): a Kineto
    # trace that says nothing of a GPU is a CPU trace
    return (result.format == "kineto" and not result.device.name
            and not result.device.capability
            and not gpu_figures(result.device.properties))


def _cpu(infos: dict[str, ProfileInfo]) -> DeviceChoice:
    info = infos.get(CPU_PROFILE)
    if info is None:
        raise UnknownDeviceError("a PyTorch CPU trace: run `roofline measure` first to calibrate this CPU "
                                 f"(it saves {CPU_PROFILE}), or pass --device ({known_devices(infos)})")
    return DeviceChoice(_load(info), CPU_PROFILE, "a PyTorch trace without a GPU: its operators are placed on "
                        "the roofs `roofline measure` saved for this machine's CPU")


def _mismatch(choice: DeviceChoice, results, infos: dict[str, ProfileInfo]) -> tuple[str, ...]:
    """One warning when --device is not the GPU the files name."""
    named = next((r.device.name for r in results if r.device.name), None)
    given = f"{choice.device.name!r}" + (f" ({choice.profile})" if key(choice.profile) != key(choice.device.name)
                                         else "")
    if named:
        if _same_gpu(named, choice, infos, _properties(results, named)):
            return ()
        return (f"{_path_naming(results, named)} names the GPU {named!r} but --device gives {given}: "
                f"the roofs are {choice.device.name}'s",)
    capability = next((c for r in results if (c := r.device.capability)), None)
    theirs = choice.device.architecture.get("compute_capability")
    if capability and theirs and str(theirs) != capability:
        return (f"{_paths(results)} ran on a GPU of compute capability {capability} but --device gives "
                f"{given}, of compute capability {theirs}: the roofs are {choice.device.name}'s",)
    if results and all(_ran_on_cpu(r) for r in results) and choice.device.kind == "gpu":
        return (f"{_paths(results)} is a PyTorch CPU trace but --device gives the GPU {given}",)
    differ = _figures_mismatch(choice, results)
    return (differ,) if differ else ()


def _same_gpu(named: str, choice: DeviceChoice, infos: dict[str, ProfileInfo], properties=None) -> bool:
    """The profile given is the one the file's GPU picks (by name, or by its
    device properties), or of its model when none does (a measured
    profile, an ERT file)."""
    device = choice.device
    if key(named) == key(device.name) or named == device.architecture.get("gpu_name"):
        return True
    try:
        match, info = _match_named(named, properties, infos)
    except NameError_ as exc:           # several fit equally: any of them is the GPU
        return choice.profile in exc.candidates
    if match is not None:
        return match.stem == choice.profile or key(info.name) == key(device.name)
    return device.kind == "gpu" and model_of(named) is not None and model_of(named) == model_of(device.name)


def _with_warnings(choice: DeviceChoice, warnings) -> DeviceChoice:
    from dataclasses import replace
    return replace(choice, warnings=choice.warnings + tuple(warnings)) if warnings else choice


def _load(info: ProfileInfo) -> Device:
    from .profile import load_device
    try:
        return load_device(info.path)
    except ProfileError as exc:
        raise UnknownDeviceError(f"device profile {info.stem} cannot be used: {exc}") from None


def _load_path(path: Path) -> Device:
    if path.is_dir() or path.suffix.lower() == ".csv":     # rocprof-compute's measured roofline.csv
        from .rocprof_roofline import read_rocprof_roofline
        return read_rocprof_roofline(path)
    if path.suffix.lower() == ".json":
        from .ert import read_ert_device
        return read_ert_device(path)
    from .profile import find_device
    return find_device(path)


def _paths(results) -> str:
    paths = list(dict.fromkeys(str(r.path) for r in results)) or ["the input"]
    return paths[0] if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more)"


def _path_naming(results, name: str) -> str:
    return next((str(r.path) for r in results if r.device.name == name), "the file")
