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

import html
import re

from ..core.families import strip_parameters
from .terminal import visible

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


def template_arguments(name: str) -> list[str]:
    """The top-level template arguments of a C++ name ([] if none)."""
    base = strip_parameters(re.sub(r"^void\s+", "", name.strip()))
    start = base.find("<")
    if start < 0:
        return []
    out, depth, begin = [], 0, start + 1
    for i in range(start, len(base)):
        ch = base[i]
        depth += ch in "<(["
        depth -= ch in ">)]"
        if depth == 1 and ch == ",":
            out.append(base[begin:i].strip())
            begin = i + 1
        elif depth == 0:
            out.append(base[begin:i].strip())
            return out
    out.append(base[begin:].strip())
    return out


def first_template_argument(name: str) -> str:
    """The first top-level template argument of a C++ name ("" if none)."""
    args = template_arguments(name)
    return args[0] if args else ""


_QUALIFIER = re.compile(r"(?:\(anonymous namespace\)::|\b\w+::)+")


def _differing_argument(names: list[str]) -> int | None:
    """The first template argument position at which ``names`` all differ
    from each other (None if there is none)."""
    args = [template_arguments(n) for n in names]
    for i in range(max((len(a) for a in args), default=0)):
        values = [a[i] if i < len(a) else "" for a in args]
        if len(set(values)) == len(values):
            return i
    return None


def distinct_names(names, width: int = 48) -> list[str]:
    """:func:`short_name` of each name, with what tells apart those whose
    short names collide: the first template argument in which they all
    differ, without its namespaces (``vectorized_elementwise_kernel<…,
    CUDAFunctor_add<float>>``), else a number."""
    names = [str(n) for n in names]
    short = [short_name(n, width) for n in names]
    seen: dict[str, list[int]] = {}
    for i, s in enumerate(short):
        seen.setdefault(s, []).append(i)
    out = list(short)
    for label, rows in seen.items():
        distinct_full = list(dict.fromkeys(names[i] for i in rows))
        if len(distinct_full) < 2:
            continue
        at = _differing_argument(distinct_full)
        # the argument without its own template arguments where that still
        # tells the names apart (AUnaryFunctor, CUDAFunctor_add), else whole
        for strip in ((True, False) if at is not None else ()):
            for i in rows:
                arg = _QUALIFIER.sub("", template_arguments(names[i])[at])
                arg = (_without_templates(arg) or arg) if strip else arg
                out[i] = _fit(f"{label}<{'…, ' if at else ''}{arg}>", width + 24)
            if len({out[i] for i in rows}) == len(distinct_full):
                break
        if at is not None and len({out[i] for i in rows}) == len(distinct_full):
            continue
        number = {n: k for k, n in enumerate(distinct_full, start=1)}
        for i in rows:
            out[i] = f"{label} #{number[names[i]]}"
    return out


def html_text(text) -> str:
    """``text`` (a name or message from the files we read) as HTML text, fit
    for an element or a quoted attribute: markup escaped, and the characters
    that act on what is shown (bidi overrides and isolates, LRM/RLM, other
    controls, lone surrogates) written as escapes as the terminal does
    (:func:`.terminal.visible`); newlines are kept (HTML shows them as
    spaces)."""
    return html.escape("\n".join(map(visible, str(text).split("\n"))), quote=True)
