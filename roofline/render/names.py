"""Kernel and operator names short enough to read and still told apart.

A C++ kernel name shows without its return type, anonymous namespaces,
template arguments and parameter list (``void at::native::elementwise_kernel
<128, 4, ...>(int, ...)`` -> ``at::native::elementwise_kernel``). A
framework operator keeps its shapes, which are what tells its rows apart
(``aten::mm(512x768, 768x50257)``). Where short names of different kernels
collide in one table or chart (``cutlass::Kernel`` for every CUTLASS
kernel), :func:`distinct_names` adds what differs: the first template
argument, else a number; the full name is always one hover away.
"""
from __future__ import annotations

import re

from ..core.families import strip_parameters

# framework operators as PyTorch writes them: namespace::name(shapes)
_OPERATOR = re.compile(r"^[A-Za-z_][\w.]*::[\w.]+\(")


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _without_templates(text: str) -> str:
    depth, out = 0, []
    for ch in text:     # drop template arguments, nested included
        depth += ch == "<"
        if depth == 0:
            out.append(ch)
        depth -= ch == ">" and depth > 0
    return "".join(out).strip()


def short_name(name: str, width: int = 34) -> str:
    """The name as charts and tables show it (see the module doc)."""
    text = name.strip()
    if _OPERATOR.match(text) and "<" not in text:
        return _fit(text, width)        # an operator at its shapes
    base = strip_parameters(re.sub(r"^void\s+", "", text)).replace("(anonymous namespace)::", "")
    return _fit(_without_templates(base) or name, width)


def first_template_argument(name: str) -> str:
    """The first top-level template argument of a C++ name ("" if none)."""
    base = strip_parameters(re.sub(r"^void\s+", "", name.strip()))
    start = base.find("<")
    if start < 0:
        return ""
    depth = 0
    for i in range(start, len(base)):
        ch = base[i]
        depth += ch in "<(["
        depth -= ch in ">)]"
        if depth == 1 and ch == "," or depth == 0:
            return base[start + 1:i].strip()
    return base[start + 1:].strip()


def distinct_names(names, width: int = 48) -> list[str]:
    """:func:`short_name` of each name, with what tells apart those whose
    short names collide (the first template argument, else a number)."""
    names = [str(n) for n in names]
    short = [short_name(n, width) for n in names]
    seen: dict[str, list[int]] = {}
    for i, s in enumerate(short):
        seen.setdefault(s, []).append(i)
    out = list(short)
    for label, rows in seen.items():
        distinct_full = {names[i] for i in rows}
        if len(distinct_full) < 2:
            continue
        tagged = {i: f"{label}<{first_template_argument(names[i])}>" for i in rows}
        if len({tagged[i] for i in rows}) == len(distinct_full):
            for i in rows:
                out[i] = _fit(tagged[i], width + 24)
            continue
        number = {n: k for k, n in enumerate(dict.fromkeys(names[i] for i in rows), start=1)}
        for i in rows:
            out[i] = f"{label} #{number[names[i]]}"
    return out
