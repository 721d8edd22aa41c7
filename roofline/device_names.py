"""Device names as people type them and as profilers write them, to the
profile meant.

Typed names (``--device``): case and punctuation are ignored, a unique
prefix or GPU model is enough (``4090`` -> ``rtx-4090``), an ambiguous one
lists its candidates (``v100``: ``v100-pcie``, ``v100-sxm2``), a typo gets
"did you mean". Names in files ("Tesla V100-SXM2-16GB", "NVIDIA
A100-SXM4-80GB", "NVIDIA H800"): the profile of the same GPU model whose
form factor (SXM or PCIe) and memory size agree best, or a documented
stand-in (H800 and GH200 -> H100 SXM), with a note saying which and why.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_VENDOR = {"nvidia", "geforce", "tesla", "quadro", "amd", "graphics", "gpu", "laptop", "with", "design"}
_MODEL = re.compile(r"^[a-z]{0,4}\d{2,4}[a-z]?$|^[a-z]\d$")
_FORM = {"sxm": "sxm", "sxm2": "sxm", "sxm3": "sxm", "sxm4": "sxm", "sxm5": "sxm", "pcie": "pcie",
         "nvl": "pcie"}
_MEMORY = re.compile(r"^(\d+)gb$")

# GPUs without a profile of their own and the profile that stands in, with why.
STAND_INS = {
    "h800": ("h100-sxm", "the H800 is an H100 SXM with reduced NVLink bandwidth: same SMs, clocks and HBM3"),
    "gh200": ("h100-sxm", "GH200's GPU is an H100 (132 SMs) with 96 GB HBM3 (144 GB HBM3e on later parts); "
              "h100-sxm's HBM3 bandwidth is assumed"),
    "pg509": ("a100-40gb-sxm", "A100-PG509-200 is an A100 SXM4 board (PG509-200: 40 GB)"),
}


@dataclass(frozen=True)
class Match:
    stem: str
    note: str = ""


class NameError_(LookupError):
    """A name that names no profile, or several."""

    def __init__(self, message: str, candidates=()):
        super().__init__(message)
        self.candidates = tuple(candidates)


def key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def tokens(name: str) -> list[str]:
    words = re.split(r"[^a-z0-9]+", name.lower())
    return [w for w in words if w and w not in _VENDOR]


def model_of(name: str) -> str | None:
    """The GPU model token: ``a100``, ``v100``, ``4090``, ``t4``, ``k40c``."""
    for t in tokens(name):
        if t in _FORM or _MEMORY.match(t):
            continue
        if _MODEL.match(t):
            return t
    return None


def resolve_typed(text: str, stems: dict[str, str]) -> Match:
    """The profile a user means by ``text``; ``stems`` maps profile file
    stems to the display names inside them. Raises NameError_."""
    wanted = key(text)
    for stem, shown in stems.items():
        if wanted in (key(stem), key(shown)):
            return Match(stem)
    prefixed = [s for s in stems if key(s).startswith(wanted)] if wanted else []
    if len(prefixed) == 1:
        return Match(prefixed[0])
    model = model_of(text)
    same_model = [s for s in stems if model and model_of(s) == model]
    if len(same_model) == 1 and len(tokens(text)) == 1:
        return Match(same_model[0])
    if len(same_model) > 1:
        best = _best(text, same_model)
        if best:
            return Match(best)
    candidates = prefixed if len(prefixed) > 1 else same_model
    if len(candidates) > 1:
        raise NameError_(f"device name {text!r} is ambiguous: {', '.join(sorted(candidates))}", candidates)
    if model in STAND_INS and STAND_INS[model][0] in stems:
        stem, why = STAND_INS[model]
        return Match(stem, f"{text} has no profile of its own; {stem} stands in: {why}")
    close = difflib.get_close_matches(wanted, [key(s) for s in stems], n=3, cutoff=0.6)
    by_key = {key(s): s for s in stems}
    hint = f"; did you mean {', '.join(by_key[c] for c in close)}?" if close else ""
    raise NameError_(f"no device profile named {text!r}{hint}", [by_key[c] for c in close])


def resolve_reported(reported: str, stems: dict[str, str]) -> Match | None:
    """The profile for the GPU a profiler names, or None when no profile
    is of that model. The note says how the choice was made."""
    wanted = key(reported)
    for stem, shown in stems.items():
        if wanted in (key(stem), key(shown)):
            return Match(stem, f"the file names {reported}")
    model = model_of(reported)
    for alias, (stem, why) in STAND_INS.items():
        if alias in tokens(reported) and stem in stems:
            return Match(stem, f"the file names {reported}; {stem} stands in: {why}")
    same_model = [s for s in stems if model and model_of(s) == model]
    if not same_model:
        return None
    if len(same_model) == 1:
        return Match(same_model[0], f"the file names {reported}")
    best = _best(reported, same_model)
    if best is None:
        return None
    conflicts = _conflicts(reported, best)
    why = f"the file names {reported}" + (f" ({conflicts}; the closest profile)" if conflicts else "")
    return Match(best, why)


def _features(name: str) -> tuple[str | None, str | None]:
    form = mem = None
    for t in tokens(name):
        form = form or _FORM.get(t)
        m = _MEMORY.match(t)
        mem = mem or (m.group(1) if m else None)
    return form, mem


def _score(reported: str, stem: str) -> int:
    rf, rm = _features(reported)
    sf, sm = _features(stem)
    score = 0
    for mine, theirs in ((rf, sf), (rm, sm)):
        if mine and theirs:
            score += 1 if mine == theirs else -1
    return score


def _best(reported: str, stems: list[str]) -> str | None:
    scored = sorted(((_score(reported, s), s) for s in stems), reverse=True)
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        return None
    return scored[0][1]


def _conflicts(reported: str, stem: str) -> str:
    rf, rm = _features(reported)
    sf, sm = _features(stem)
    out = []
    if rf and sf and rf != sf:
        out.append(f"{rf.upper()} card, {sf.upper()} profile")
    if rm and sm and rm != sm:
        out.append(f"{rm} GB card, {sm} GB profile")
    return ", ".join(out)
