"""The package layout the design asks for (docs/architecture.md), checked
on the source: subpackages by concern whose imports point one way, no
import circle, few loose modules, short modules, each subpackage saying
what it is for.

Imports are read with ``ast`` from every module, at module level and
inside functions alike: a lazy import still makes one module depend on
another."""
from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Where each import name lives in the checkout (pyproject.toml maps the
# design card's top-level microbench/ and devices/ into the package).
SOURCES = {"roofline": ROOT / "roofline", "roofline.microbench": ROOT / "microbench",
           "roofline.devices": ROOT / "devices"}

# Which parts of the package each part may import (besides itself). The
# top-level modules (``roofline``, ``roofline.report``) are the library's
# entry points and, like the CLI, may import anything.
ALLOWED = {
    "core": set(),
    "ops": {"core"},
    "devices": {"core"},
    "importers": {"core", "ops", "devices"},
    "microbench": {"core", "devices"},
    "analysis": {"core", "devices"},
    "render": {"core", "devices", "analysis"},
}
# Imports nothing: every layer may name the version (profile provenance,
# the report's footer).
VERSION = "roofline._version"
MAX_LOOSE_MODULES = 8
MAX_MODULE_LINES = 500


def _modules() -> dict[str, Path]:
    out = {}
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _targets(module: str, path: Path, node) -> list[str]:
    """The package modules an import statement names (a name imported
    from a package is the submodule of that name when there is one)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = module.split(".")
            if path.name != "__init__.py":
                base = base[:-1]
            base = base[: len(base) - node.level + 1]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        names = [f"{source}.{a.name}" if f"{source}.{a.name}" in MODULES else source
                 for a in node.names]
    out = []
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != module:
            out.append(name)
    return out


def _graph() -> dict[str, set[str]]:
    graph = defaultdict(set)
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[module].update(_targets(module, path, node))
    return graph


GRAPH = _graph()


def _part(module: str) -> str:
    """core, ops, devices, ... or "" for the top-level entry points."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and MODULES[module].name == "__init__.py") else ""


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(set(graph).union(*graph.values())):
        if v not in index:
            visit(v)
    return out


def test_the_walk_sees_the_imports_it_must():
    # a check that finds nothing because it reads nothing would pass too
    assert len(MODULES) > 100
    assert "roofline.core.model" in GRAPH["roofline.core.placement"]
    assert "roofline.importers.kineto.decode" in GRAPH["roofline.importers.kineto"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle():
    assert _cycles(GRAPH) == []


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_dependencies_point_inward(part):
    wrong = sorted(f"{m} -> {t}" for m, targets in GRAPH.items() if _part(m) == part
                   for t in targets if t != VERSION and _part(t) not in ALLOWED[part] | {part})
    assert not wrong, f"{part} may import only {sorted(ALLOWED[part])}: {wrong}"


def test_every_part_is_a_known_subpackage():
    parts = {_part(m) for m in MODULES if m.startswith("roofline.")}
    assert parts <= set(ALLOWED) | {"cli", ""}, parts - set(ALLOWED) - {"cli", ""}


def test_few_loose_modules():
    loose = sorted(p.name for p in (ROOT / "roofline").glob("*.py"))
    assert len(loose) <= MAX_LOOSE_MODULES, loose


def test_no_module_over_500_lines():
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long, long


def _packages() -> dict[str, Path]:
    return {m: p for m, p in MODULES.items() if p.name == "__init__.py" and m != "roofline"}


def test_every_subpackage_says_what_it_is_for_and_may_import():
    """Nested subpackages too (importers/nvidia, render/sections ...)."""
    for module, path in _packages().items():
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        assert len(doc) > 200, f"{module}: its docstring should say what it is for"
        assert "import" in doc, f"{module}: its docstring should say what it may import"


def _members(package: str) -> list[str]:
    """The modules and subpackages directly in ``package``."""
    depth = package.count(".") + 1
    return sorted(m.rsplit(".", 1)[1] for m in MODULES
                  if m.startswith(package + ".") and m.count(".") == depth)


@pytest.mark.parametrize("package", sorted(_packages()))
def test_every_module_is_named_in_its_package_docstring(package):
    """docs/architecture.md sends a reader to each package's docstring for
    what is in it: a module the docstring does not name is one nobody finds."""
    doc = ast.get_docstring(ast.parse(MODULES[package].read_text())) or ""
    named = set(re.findall(r"\.?\b([a-z_][a-z0-9_]*)\b", doc))
    missing = [m for m in _members(package) if m not in named]
    assert not missing, f"{package}: its docstring names none of {missing}"


# Third-party packages each part may import. A package that is an extra
# (pip install roofline[gpu], [dask], [ncu], [pandas]) or optional speed-up
# is imported inside the function that needs it, so the part still imports
# without it (LAZY).
THIRD_PARTY = {
    "core": {"numpy"},
    "ops": {"numpy"},
    "devices": {"numpy", "yaml"},
    # numba: the Kineto reader's compiled JSON scanner (importers/kineto/jsonscan.py)
    "importers": {"numpy", "msgspec", "pyarrow", "google", "numba"},
    "analysis": {"numpy", "scipy"},
    "render": {"numpy", "matplotlib", "msgspec", "pyarrow", "bokeh"},
    "microbench": {"numpy", "numba", "llvmlite", "archspec", "tqdm"},
    "cli": {"numpy", "tqdm"},
    "": {"numpy"},
}
LAZY = {"pandas", "pyarrow", "cupy", "cupy_backends", "nvidia", "pynvml", "distributed", "dask", "ncu_report",
        "scipy", "bokeh", "torch"}


def _third_party(path: Path) -> list[tuple[str, bool]]:
    """(top-level package, imported at module level) of each import of a
    package that is neither ours nor the standard library's."""
    tree = ast.parse(path.read_text())
    top_level = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            first = name.split(".")[0]
            if first not in sys.stdlib_module_names and first not in ("roofline", "__future__"):
                out.append((first, id(node) in top_level))
    return out


@pytest.mark.parametrize("part", sorted(THIRD_PARTY))
def test_third_party_imports_per_layer(part):
    wrong, eager = [], []
    for module, path in MODULES.items():
        if _part(module) != part:
            continue
        for name, at_top in _third_party(path):
            if name not in THIRD_PARTY[part] | LAZY:
                wrong.append(f"{module}: {name}")
            elif at_top and name in LAZY - THIRD_PARTY[part]:
                eager.append(f"{module}: {name}")
    assert not wrong, f"{part} may import only {sorted(THIRD_PARTY[part])} (lazily {sorted(LAZY)}): {wrong}"
    assert not eager, f"imported at module level, though optional for {part}: {eager}"


def test_every_subpackage_is_installed():
    """pyproject.toml lists packages by hand: a subpackage missing there is
    left out of `pip install .` (render/sections was, and CI's installed
    copy could not import the report), while the tests, run from the
    checkout, still pass."""
    import tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {m for m, p in MODULES.items() if p.name == "__init__.py"}
    assert packages - listed == set()
