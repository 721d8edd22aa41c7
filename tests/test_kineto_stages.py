"""The Kineto reader's stage order as docs/architecture.md draws it ("The
PyTorch reader": a table of levels and modules) holds in the code: every
module of roofline/importers/kineto/ is drawn once, and imports only the
modules drawn before it; no module imports another's private name; the
records the stages hand on are frozen; operator nesting is computed in one
place (nesting.py) and asked for once (result.py)."""
from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from roofline.importers.kineto import attribution, cpu_rows, nesting, operators
from roofline.importers.kineto.op_columns import OpEvents

ROOT = Path(__file__).resolve().parents[1]
KINETO = ROOT / "roofline" / "importers" / "kineto"
PACKAGE = "roofline.importers.kineto"


def drawn_order(doc: str) -> list[tuple[int, str]]:
    """(level, module) in the order the doc's table lists them."""
    section = doc.split("## The PyTorch reader", 1)[1].split("\n## ", 1)[0]
    out = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].isdigit():
            out += [(int(cells[0]), m) for m in re.findall(r"`(\w+)`", cells[2])]
    return out


def kineto_imports(source: str) -> set[str]:
    """The kineto modules a module's source imports, at any depth of its
    code (imports inside functions count: they run in the same order)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                if node.module:
                    found.add(node.module.split(".")[0])
                else:
                    found |= {a.name for a in node.names}
            elif node.level == 0 and node.module and node.module.startswith(PACKAGE + "."):
                found.add(node.module[len(PACKAGE) + 1:].split(".")[0])
        elif isinstance(node, ast.Import):
            found |= {a.name[len(PACKAGE) + 1:].split(".")[0] for a in node.names
                      if a.name.startswith(PACKAGE + ".")}
    return found


def upward_imports(order: list[tuple[int, str]], sources: dict[str, str]) -> list[str]:
    """Each import of a module drawn at or after the importing one."""
    position = {m: i for i, (_, m) in enumerate(order)}
    bad = []
    for module, source in sources.items():
        for target in sorted(kineto_imports(source)):
            if target not in position:
                bad.append(f"{module} imports {target}, which the table does not draw")
            elif position[target] >= position[module]:
                bad.append(f"{module} (level {order[position[module]][0]}) imports {target} "
                           f"(level {order[position[target]][0]}), drawn at or after it")
    return bad


def _sources() -> dict[str, str]:
    return {p.stem: p.read_text() for p in sorted(KINETO.glob("*.py"))}


def _order() -> list[tuple[int, str]]:
    return drawn_order((ROOT / "docs" / "architecture.md").read_text())


def test_every_module_is_drawn_once_at_one_level_in_rising_levels():
    order = _order()
    modules = [m for _, m in order]
    assert sorted(modules) == sorted(_sources()), "the table and kineto/*.py name different modules"
    assert len(set(modules)) == len(modules)
    levels = [lv for lv, _ in order]
    assert levels == sorted(levels) and levels[0] == 0


def test_each_module_imports_only_modules_drawn_before_it():
    assert upward_imports(_order(), _sources()) == []


def test_an_import_against_the_drawn_order_is_caught():
    order = [(0, "scan"), (1, "decode"), (2, "events"), (3, "operators")]
    sources = {"scan": "", "decode": "from .scan import x\n",
               "events": "def f():\n    from .operators import OpEvents\n",
               "operators": "from . import decode\nimport roofline.importers.kineto.events\n"}
    assert upward_imports(order, sources) == [
        "events (level 2) imports operators (level 3), drawn at or after it"]
    assert upward_imports(order[:3], {"decode": "from .result import r\n"}) == [
        "decode imports result, which the table does not draw"]


def test_no_module_imports_a_private_name_of_another():
    private = [f"{m}: from .{node.module} import {a.name}"
               for m, source in _sources().items() for node in ast.walk(ast.parse(source))
               if isinstance(node, ast.ImportFrom) and node.level == 1
               for a in node.names if a.name.startswith("_")]
    assert private == []


@pytest.mark.parametrize("record", [nesting.Nesting, operators.OpTree, attribution.Attribution,
                                    cpu_rows.CpuRows])
def test_the_records_stages_hand_on_are_frozen_with_slots(record):
    assert dataclasses.is_dataclass(record)
    assert record.__dataclass_params__.frozen
    assert "__slots__" in vars(record)


def _calls(source: str, name: str) -> int:
    return sum(isinstance(n, ast.Call) and (getattr(n.func, "id", None) == name or
                                            getattr(n.func, "attr", None) == name)
               for n in ast.walk(ast.parse(source)))


def test_nesting_is_asked_for_once_and_worked_out_in_one_module():
    sources = _sources()
    assert {m: _calls(s, "nest") for m, s in sources.items() if _calls(s, "nest")} == {"result": 1}
    # interval containment by a stack per thread: only nesting.py walks one
    stacks = {m for m, s in sources.items() if re.search(r"\bstacks?\b.*\.pop\(\)", s)}
    assert stacks == {"nesting"}


def _ops(rows: list[tuple[str, float, float, int]]) -> OpEvents:
    ops = OpEvents()
    names, ts, dur, threads = map(list, zip(*rows))
    ops.extend(names, ts, dur, threads, [None] * len(rows))
    return ops


def test_nesting_parents_self_times_and_levels():
    # a(0..10) holds b(1..4) and c(4..9; touches b: a sibling), c holds d;
    # e on another thread overlaps a in time but nests on its own thread
    ops = _ops([("a", 0.0, 10.0, 1), ("b", 1.0, 3.0, 1), ("c", 4.0, 5.0, 1), ("d", 5.0, 1.0, 1),
                ("e", 2.0, 1.0, 2)])
    n = nesting.nest(ops)
    assert n.parent.tolist() == [-1, 0, 0, 2, -1]
    assert n.self_time_us.tolist() == [2.0, 3.0, 4.0, 1.0, 1.0]
    assert [lv.tolist() for lv in n.levels] == [[1, 2], [3]]
    assert len(n) == 5


def test_nesting_of_no_operators_is_empty():
    n = nesting.nest(OpEvents())
    assert n.parent.dtype == np.int64 and len(n) == 0 and n.levels == ()
