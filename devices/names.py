"""Device names as people type them and as profilers write them, to the
profile meant. Pure functions over ``{profile stem: display name}``: no
file is read here, so the rules can be tested on any set of profiles.

Typed names (``--device``): case and punctuation are ignored, a unique
prefix or GPU model is enough (``4090`` -> ``rtx-4090``), an ambiguous one
lists its candidates (``v100``: ``v100-pcie``, ``v100-sxm2``), a typo gets
"did you mean". Names in files ("Tesla V100-SXM2-16GB", "NVIDIA
A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"): the profile of the same GPU
model whose form factor (SXM, PCIe, laptop) and memory size agree best, or
a documented stand-in (H800 and GH200 -> an H100 SXM profile when they have
none of their own), with a note saying which and why. A file that gives
only a compute capability (an Nsight Compute CSV's ``CC`` column) gets the
profile of that capability when it is the only one, or when all of them
compute alike and differ only in memory (the note says so), or when it is
the capability's stated default (:data:`CAPABILITY_DEFAULT`). A name that
says nothing of the model ("AMD Radeon Graphics", which ROCm gives an MI250
GCD and a Ryzen APU's integrated graphics alike), or names several ("AMD
Instinct MI250X / MI250"), gets a profile only when the file's device
properties (multiprocessors, warp size, version, memory) are all that
profile's. A GPU name with a one-GCD profile and a whole-GPU profile
(MI250X) is the GCD: that is what a runtime shows as one device.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Mapping

# words in product names that say nothing about which GPU it is
_VENDOR = {"nvidia", "geforce", "tesla", "quadro", "amd", "graphics", "gpu", "with", "design", "radeon"}
_MODEL = re.compile(r"^[a-z]{0,4}\d{2,4}[a-z]?$|^[a-z]\d$")
# a word after the model that makes it another product (GTX 1080 vs GTX 1080 Ti)
_VARIANT = {"ti", "super"}
_LINES = {"rtx", "gtx", "gt", "mx", "titan"}     # product lines, not products
_FORM = {"sxm": "sxm", "sxm2": "sxm", "sxm3": "sxm", "sxm4": "sxm", "sxm5": "sxm", "pcie": "pcie",
         "nvl": "nvl", "dgxs": "sxm", "laptop": "laptop", "maxq": "laptop", "mobile": "laptop",
         # the H100 SXM5 calls itself "NVIDIA H100 80GB HBM3"; the PCIe card (HBM2e) says PCIe
         "hbm3": "sxm"}
_FORM_SHOWN = {"sxm": "SXM", "pcie": "PCIe", "nvl": "NVL", "laptop": "laptop", None: "desktop"}
# words that pick a form factor by assumption rather than by name: the note says so
_FORM_ASSUMED = {
    "dgxs": ("a V100-DGXS (the V100 of a DGX Station) is taken as an SXM2-class V100: NVLink-connected, 80 SMs at "
             "1530 MHz and 900 GB/s of HBM2 as the V100 SXM2 (assumed: NVIDIA publishes no V100-DGXS datasheet; "
             "the DGX Station's totals are four such GPUs)"),
}
_MEMORY = re.compile(r"^(\d+)gb?$")


@dataclass(frozen=True)
class StandIn:
    """A GPU without a profile of its own: the model whose profile stands
    in, words that pick among that model's profiles, and why it may."""

    model: str
    hint: str
    why: str
    shown: str = ""                 # the GPU as people write it, when not just upper case


# Used only when the GPU has no profile of its own and the model standing in
# has one; otherwise they are skipped (profiles come and go).
STAND_INS = {
    "h800": StandIn("h100", "sxm", "the H800 SXM5 is an H100 SXM5 with NVLink cut to 400 GB/s and FP64 "
                                   "cut to about 1 TFLOP/s (NVIDIA H800 datasheet); FP64 roofs are too high"),
    "gh200": StandIn("h100", "sxm", "GH200's GPU is an H100 (132 SMs, H100 SXM5 compute peaks) with 96 GB "
                                    "HBM3 at 4 TB/s or 144 GB HBM3e at 4.9 TB/s; the profile's DRAM roof "
                                    "is lower than the real one"),
    "a800": StandIn("a100", "", "the A800 is an A100 with NVLink cut to 400 GB/s: same SMs, clocks "
                                "and memory"),
    "pg509": StandIn("a100", "sxm 40gb", "A100-PG509-200 is an A100 SXM4 40 GB board", "A100-PG509-200"),
    "a10g": StandIn("a10", "", "the A10G (AWS G5) is a GA102 board like the A10, with 24 GB of GDDR6; "
                               "its SM count and clocks differ"),
    "mi210": StandIn("mi250", "", "an MI210 is one MI250 GCD on a PCIe card: 104 CUs at 1.7 GHz, 64 GB of "
                                  "HBM2e at 1.6 TB/s, 8 MB of L2 (AMD ROCm GPU hardware specifications)"),
}


@dataclass(frozen=True)
class Match:
    stem: str
    note: str = ""
    conflicts: str = ""        # what differs between the GPU named and the profile


class NameError_(LookupError):
    """A name that names no profile, or several."""

    def __init__(self, message: str, candidates=()):
        super().__init__(message)
        self.candidates = tuple(candidates)


def key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def tokens(name: str) -> list[str]:
    low = re.sub(r"max[\s_-]*q", "maxq", name.lower())
    words = re.split(r"[^a-z0-9]+", low)
    return [w for w in words if w and w not in _VENDOR]


def model_of(name: str) -> str | None:
    """The GPU model: ``a100``, ``v100``, ``4090``, ``1080ti``, ``t4``, ``k40c``,
    ``pro6000`` (an RTX PRO 6000 is not an RTX 6000 Ada)."""
    words = tokens(name)
    for i, t in enumerate(words):
        if t in _FORM or _MEMORY.match(t):
            continue
        if _MODEL.match(t):
            following = words[i + 1] if i + 1 < len(words) else ""
            model = t + following if following in _VARIANT else t
            return "pro" + model if i and words[i - 1] == "pro" else model
    return None


def models_named(name: str) -> list[str]:
    """The models a name lists when it names several, one per '/'-separated
    part: AMD calls both GPUs of device id 0x740c 'AMD Instinct MI250X /
    MI250', so the name alone cannot say which (their CU counts can)."""
    models = [m for part in name.split("/") if (m := model_of(part))]
    return list(dict.fromkeys(models)) if len(set(models)) > 1 else []


def _exact(wanted: str, stems: dict[str, str]) -> str | None:
    """The stem named exactly: a file stem first, then the name inside a
    profile. A stem wins over names: `roofline measure` keeps a busy run
    beside a quieter profile as NAME.busy.yaml, which holds the same name
    and must not be taken for NAME.yaml."""
    for stem in stems:
        if key(stem) == wanted:
            return stem
    for stem, shown in stems.items():
        if key(shown) == wanted:
            return stem
    return None


def resolve_typed(text: str, stems: dict[str, str]) -> Match:
    """The profile a user means by ``text``; ``stems`` maps profile file
    stems to the display names inside them. Raises NameError_."""
    wanted = key(text)
    named = _exact(wanted, stems)
    if named is not None:
        return Match(named)
    prefixed = [s for s in stems if _is_prefix(wanted, key(s))]
    if len(prefixed) == 1:
        return Match(prefixed[0])
    same_model, best = _same_model(text, stems)
    if best is not None:
        return _typed_model(text, best)
    stand_in = _stand_in(text, stems)
    if stand_in is not None:
        return stand_in
    candidates = prefixed if len(prefixed) > 1 else same_model if _all_understood(text) else []
    if len(candidates) > 1:
        raise NameError_(f"device name {text!r} is ambiguous: {', '.join(sorted(candidates))}", candidates)
    close = _did_you_mean(text, stems) or sorted(same_model)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise NameError_(f"no device profile named {text!r}{hint}", close)


def resolve_reported(reported: str, stems: dict[str, str]) -> Match | None:
    """The profile for the GPU a profiler names, or None when no profile is
    of that model (nor stands in for it). Several equally close profiles
    raise NameError_ listing them. The note says how the choice was made."""
    wanted = key(reported)
    named = _exact(wanted, stems)
    if named is not None:
        return Match(named, f"the file names {reported}")
    if models_named(reported):
        return None                 # 'MI250X / MI250': the device properties must decide
    same_model, best = _same_model(reported, stems)
    if best is not None:
        return best
    stand_in = _stand_in(reported, stems)
    if stand_in is not None:
        return stand_in
    gcds = [s for s in same_model if s.endswith("-gcd")]
    if len(same_model) > 1 and len(gcds) == 1:
        return Match(gcds[0], f"the file names {reported}; {gcds[0]}: HIP and PyTorch see each GCD of a "
                              "multi-die GPU as one device")
    if len(same_model) > 1:
        top = _top(reported, same_model, stems)
        raise NameError_(f"{reported} matches {len(top)} profiles equally well: {', '.join(sorted(top))}", top)
    return None


# GPUs with no profile that share a compute capability with one that has
# (NVIDIA's CUDA GPUs table, developer.nvidia.com/cuda-gpus): a file that
# gives only that capability may come from any of them.
SHARED_CAPABILITY = {
    "5.2": "GeForce GTX 980 Ti, 980, 960, 950, GTX TITAN X, Tesla M40, M60",
    "8.0": "A800",
    "12.0": "GeForce RTX 5080, 5070 Ti, 5070, 5060 Ti, 5060, the RTX PRO 5000, 4500 and 4000 Blackwell cards",
}

# The profile a file that gives only a compute capability gets when several
# profiles have that capability and compute differently: the one the tool
# took for it before the others were added (the RTX 5090 for 12.0, now
# shared with the RTX PRO 6000). The note names the others; the choice is
# stated, not detected, so --device remains the way to be sure.
CAPABILITY_DEFAULT = {"12.0": "rtx-5090", "8.0": "a100-40gb-sxm"}

# Names of a GPU family rather than a product, as rocprof-compute writes them
# (its gpu_model "MI200" for an MI210, MI250 or MI250X): the device
# properties decide among the family's profiles.
FAMILIES = {"mi200": "the CDNA2 family (MI210, MI250, MI250X)",
            "mi300": "the CDNA3 family (MI300X, MI300A, MI325X)"}


def capability_warning(capability: str, stem: str) -> str | None:
    """A warning for a profile chosen from a compute capability alone that
    other GPUs share (their roofs would be lower: an RTX 5080 has 84 SMs to
    the RTX 5090's 170)."""
    others = SHARED_CAPABILITY.get(capability)
    if not others:
        return None
    return (f"compute capability {capability} is also that of the {others}; the {stem} roofs are used: "
            f"pass --device if the file comes from another GPU")


def resolve_capability(capability: str, profiles: dict[str, tuple[str | None, object]]) -> Match | None:
    """The profile for a file that gives only a compute capability
    (``"8.0"``). ``profiles`` maps stem -> (its compute capability, a value
    equal for profiles whose compute ceilings are equal). One candidate, or
    several that compute alike (they differ in memory only), give a match
    whose note names the others; candidates that compute differently raise
    NameError_; none gives None."""
    same = sorted(s for s, (cc, _) in profiles.items() if cc == capability)
    if not same:
        return None
    shown = f"the file gives only the compute capability ({capability}), not the GPU's name"
    if len(same) == 1:
        return Match(same[0], f"{shown}; {same[0]} is the only profile of it")
    if len({repr(profiles[s][1]) for s in same}) == 1:
        others = ", ".join(same[1:])
        return Match(same[0], f"{shown}; {same[0]} assumed: the other profiles of it ({others}) have the "
                              "same compute ceilings and differ in memory; pass --device to choose")
    default = CAPABILITY_DEFAULT.get(capability)
    if default in same:
        alike = [s for s in same if s != default and repr(profiles[s][1]) == repr(profiles[default][1])]
        other = [s for s in same if s != default and s not in alike]
        parts = ([f"{', '.join(alike)} {'differs' if len(alike) == 1 else 'differ'} from it in memory only"]
                 if alike else []) + [f"{', '.join(other)} {'computes' if len(other) == 1 else 'compute'} "
                                      "differently"]
        return Match(default, f"{shown}; {default} assumed, the only profile taken for {capability} when the file "
                              f"says nothing more: of the other profiles of it, {'; '.join(parts)}; pass "
                              "--device to choose")
    raise NameError_(f"{shown}, and {len(same)} profiles have it: {', '.join(same)}", same)


# What a file's device properties must give, and a profile's identity must
# match, before a name that tells nothing may be passed over.
IDENTITY_KEYS = ("sms", "warp_size", "capability", "memory_bytes")
MEMORY_HELD_BACK = 0.03     # the runtime reports a little less memory than the board has


def resolve_properties(reported: str, properties: Mapping | None,
                       identities: dict[str, Mapping]) -> Match | None:
    """The profile for a GPU whose name picked none, from what else the file
    says of it (``properties``: sms, warp_size, capability, memory_bytes).
    ``identities`` maps stem -> the same four figures of profiles that state
    them (and ``shown``, the profile's name). Every figure must agree
    (memory: the file's at most 3 % below the profile's); several such
    profiles raise NameError_; none gives None."""
    if not properties or any(properties.get(k) is None for k in IDENTITY_KEYS):
        return None
    same = sorted(s for s, ident in identities.items() if _same_identity(properties, ident))
    if len(same) > 1:
        raise NameError_(f"{reported} ({shown_properties(properties)}) matches {len(same)} profiles: "
                         f"{', '.join(same)}", same)
    if not same:
        return None
    stem = same[0]
    several = models_named(reported)
    name = (f"a name given to several GPUs ({', '.join(m.upper() for m in several)})" if several
            else "a name that does not say which GPU it is" if model_of(reported) is None
            else "which names no profile")
    return Match(stem, f"the file names {reported}, {name}; its device properties "
                       f"({shown_properties(properties)}) are those of {identities[stem].get('shown', stem)}")


_SHOWN = {"sms": lambda v: f"{v} SMs/CUs", "warp_size": lambda v: f"warp size {v}",
          "capability": lambda v: f"version {v}", "memory_bytes": lambda v: f"{v / 2 ** 30:.1f} GiB"}


def shown_properties(properties: Mapping) -> str:
    """What the file said of its device, for notes and errors:
    '104 SMs/CUs, warp size 64, version 9.0, 64.0 GiB'."""
    return ", ".join(show(properties[k]) for k, show in _SHOWN.items() if properties.get(k) is not None)


def _same_identity(properties: Mapping, identity: Mapping) -> bool:
    try:
        memory, theirs = float(properties["memory_bytes"]), float(identity["memory_bytes"])
        return (int(properties["sms"]) == int(identity["sms"])
                and int(properties["warp_size"]) == int(identity["warp_size"])
                and str(properties["capability"]) == str(identity["capability"])
                and theirs * (1 - MEMORY_HELD_BACK) <= memory <= theirs)
    except (KeyError, TypeError, ValueError):
        return False


def stand_ins_in_effect(stems: dict[str, str]) -> list[tuple[str, list[str], str]]:
    """(GPU, the profiles that stand in for it, why) for each GPU of
    :data:`STAND_INS` that has no profile here while its stand-in has."""
    out = []
    for gpu, entry in STAND_INS.items():
        own = [s for s in stems if gpu in (model_of(s), model_of(stems[s]))]
        model = [s for s in stems if entry.model in (model_of(s), model_of(stems[s]))]
        if model and not own:
            chosen = _stand_in(gpu, stems)         # one profile, or several told apart by memory or form
            out.append((entry.shown or gpu.upper(), [chosen.stem] if chosen else sorted(model), entry.why))
    return out


def _is_prefix(wanted: str, candidate: str) -> bool:
    """``wanted`` starts ``candidate`` without cutting a number in two
    (``a10`` is not a prefix of ``a100``)."""
    if not wanted or not candidate.startswith(wanted) or candidate == wanted:
        return False
    return not (wanted[-1].isdigit() and candidate[len(wanted)].isdigit())


def _same_model(name: str, stems: dict[str, str]) -> tuple[list[str], Match | None]:
    """Profiles of the GPU model ``name`` names, and the closest of them
    when one is closer than the rest."""
    model = model_of(name)
    same = [s for s in stems if model and model in (model_of(s), model_of(stems[s]))]
    if not same:
        return same, None
    best = same[0] if len(same) == 1 else _best(name, same, stems)
    if best is None:
        return same, None
    conflicts = _conflicts(name, best, stems)
    note = f"the file names {name}" + (f"; the closest profile: {conflicts}" if conflicts else "")
    assumed = [_FORM_ASSUMED[t] for t in tokens(name) if t in _FORM_ASSUMED]
    if assumed:
        note += "; " + "; ".join(assumed)
        conflicts = conflicts or "form factor assumed"
    return same, Match(best, note, conflicts)


def _typed_model(text: str, match: Match) -> Match:
    """A typed model ('4060') leaves form factor and memory open: the
    profile of that model is meant, without a note. Only a form factor or
    memory size typed and different from the profile's gets one."""
    if not match.conflicts or _features(text) == (None, None):
        return Match(match.stem)
    return Match(match.stem, f"--device {text}: the closest profile is {match.stem} ({match.conflicts})",
                 match.conflicts)


def _stand_in(name: str, stems: dict[str, str]) -> Match | None:
    for word in tokens(name):
        entry = STAND_INS.get(word)
        if entry is None:
            continue
        candidates = [s for s in stems if entry.model in (model_of(s), model_of(stems[s]))]
        if not candidates:
            continue                # the model standing in has no profile here
        chosen = _best(f"{name} {entry.hint}", candidates, stems) if len(candidates) > 1 else candidates[0]
        if chosen is not None:
            return Match(chosen, f"{name} has no profile of its own; {chosen} stands in: {entry.why}")
    return None


def _all_understood(text: str) -> bool:
    """Every word is the model, a variant, a form factor or a memory size
    ('v100', 'H100 SXM'), none a misspelling of one ('h100-sxn')."""
    model = model_of(text) or ""
    return all(t in _FORM or t in _VARIANT or t in _LINES or _MEMORY.match(t) or t in model
               for t in tokens(text))


def _did_you_mean(text: str, stems: dict[str, str]) -> list[str]:
    by_key = {key(s): s for s in stems}
    close = [by_key[c] for c in difflib.get_close_matches(key(text), list(by_key), n=3, cutoff=0.6)]
    model = model_of(text)
    longer = [s for s in stems if model and (model_of(s) or "").startswith(model)]   # 1080 -> 1080ti
    return list(dict.fromkeys(close + sorted(longer)))[:4]


def _features(name: str) -> tuple[str | None, str | None]:
    form = mem = None
    words = tokens(name)
    for t in words:
        if t == "maxq" and "workstation" in words:
            continue                # RTX PRO 6000 Blackwell Max-Q Workstation Edition: a 300 W desktop card
        form = form or _FORM.get(t)
        m = _MEMORY.match(t)
        mem = mem or (m.group(1) if m else None)
    return form, mem


def _profile_features(stem: str, stems: dict[str, str]) -> tuple[str | None, str | None]:
    sf, sm = _features(stem)
    shown_form, shown_mem = _features(stems.get(stem, stem))
    return sf or shown_form, sm or shown_mem


def _score(name: str, stem: str, stems: dict[str, str]) -> int:
    rf, rm = _features(name)
    sf, sm = _profile_features(stem, stems)
    score = 0
    if rf and sf:
        score += 1 if rf == sf else -1
    elif (rf == "laptop") != (sf == "laptop"):
        score -= 1                  # a laptop part against a desktop profile, or the reverse
    elif rf is None and sf == "nvl":
        score -= 1                  # an H100 NVL calls itself so: a name without NVL is another card
    if rm and sm:
        score += 1 if rm == sm else -1
    return score


def _top(name: str, candidates: list[str], stems: dict[str, str]) -> list[str]:
    """The candidates that score best for ``name`` (several when tied)."""
    scores = {s: _score(name, s, stems) for s in candidates}
    best = max(scores.values())
    return [s for s in candidates if scores[s] == best]


def _best(name: str, candidates: list[str], stems: dict[str, str]) -> str | None:
    scored = sorted(((_score(name, s, stems), s) for s in candidates), reverse=True)
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        return None
    return scored[0][1]


def _conflicts(name: str, stem: str, stems: dict[str, str]) -> str:
    rf, rm = _features(name)
    sf, sm = _profile_features(stem, stems)
    out = []
    if (rf or sf) and rf != sf and (rf and sf or "laptop" in (rf, sf)):
        out.append(f"{_FORM_SHOWN[rf]} card, {_FORM_SHOWN[sf]} profile")
    if rm and sm and rm != sm:
        out.append(f"{rm} GB card, {sm} GB profile")
    return ", ".join(out)
