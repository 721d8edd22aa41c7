"""What docs/architecture.md says a new format, operator model, chart or
device takes, held to the code: each addition is one entry in one place,
and the rest of the tool picks it up from there."""
from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _registered_names(folder: Path) -> dict[str, str]:
    """Reader name -> module file, for every ``register(Reader("name", ...))``
    in the source."""
    out = {}
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "register" and node.args
                    and isinstance(node.args[0], ast.Call) and getattr(node.args[0].func, "id", "") == "Reader"):
                first = node.args[0].args[0]
                out[first.value] = str(path.relative_to(ROOT))
    return out


def test_a_new_format_is_a_registered_reader_the_package_imports():
    """A reader module registers itself; importing roofline.importers must
    reach every one (else its format is never recognised)."""
    from roofline.importers import readers
    in_source = _registered_names(ROOT / "roofline" / "importers")
    assert sorted(r.name for r in readers()) == sorted(in_source)
    assert len(in_source) >= 20


def test_every_reader_takes_read_options():
    """read(path, options) for every reader: --input-format and the
    engines reach each one the same way."""
    import inspect

    from roofline.importers import readers
    for reader in readers():
        params = list(inspect.signature(reader.read).parameters)
        assert params[:2] == ["path", "options"], (reader.name, params)


def test_a_new_operator_model_is_one_models_table_in_ops():
    """Every ops module's MODELS table is reachable through op_work's
    lookup (roofline.ops collects them)."""
    import roofline.ops as ops
    for path in sorted((ROOT / "roofline" / "ops").glob("*.py")):
        module = importlib.import_module(f"roofline.ops.{path.stem}")
        models = getattr(module, "MODELS", None)
        if models is None:
            continue
        for name in models:
            full = name if "::" in name else ops.NAMESPACE + name
            # an autograd Function (triton_kernels' TopK) is recorded by its bare class name
            assert full in ops.MODELLED_OPERATORS or name in ops.MODELLED_OPERATORS, \
                f"{path.name}: {name} is not looked up"


def test_a_new_chart_is_one_view_that_plot_and_the_report_offer():
    from roofline.render.views import VIEWS, choices
    done = subprocess.run([sys.executable, "-m", "roofline.cli.main", "plot", "--help"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0
    help_text = " ".join(done.stdout.split())
    for key, view in VIEWS.items():
        assert key in choices() and key in help_text
        assert " ".join(view.summary.split()[:4]) in help_text, key
    assert len({v.figure for v in VIEWS.values()}) == len(VIEWS)   # each its own picture in the report


def test_a_new_gpu_is_one_datasheet_entry_and_its_profile_is_generated():
    """devices/gpus holds the entries; every built-in datasheet profile is
    what the regenerator writes from them (no YAML edited by hand)."""
    from roofline.devices import regenerate
    assert {k: v for k, v in regenerate.compare_with_files().items() if v} == {}


def test_a_new_output_field_is_one_row_of_the_schema():
    """CSV's header and JSON's keys are the schema's names, in its order."""
    import csv
    import io
    import json
    from roofline.core.row_schema import NAMES

    def classify(*fmt):
        done = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify",
                               str(ROOT / "examples" / "ece408_kernels.csv"), "-d", "v100-sxm2", *fmt],
                              capture_output=True, text=True, check=True, cwd=ROOT)
        return done.stdout
    def fields(columns):
        """Each column's field: bytes_DRAM and intensity_L2 are the bytes and
        intensity fields (one column per memory level in CSV)."""
        return [c if c in NAMES else c.split("_", 1)[0] for c in columns]
    header = fields(next(csv.reader(io.StringIO(classify("--format", "csv")))))
    keys = fields(json.loads(classify("--format", "json"))[0])
    for got in (header, keys):
        assert set(got) <= set(NAMES), set(got) - set(NAMES)
        order = [NAMES.index(f) for f in got]
        assert order == sorted(order)                   # in the schema's order
    assert set(header) == set(keys)


# Literals that hold family names but are no list of families: Kineto's
# event categories (memcpy/memset events become copies), an HLO opcode ->
# family pair, the multi-kernel convolution algorithms a GEMM stage belongs to.
NOT_FAMILY_LISTS = {("importers/kineto/events.py", "_COPY_OR"), ("importers/xplane/xla_hlo_cost.py", "opcode"),
                    ("importers/xplane/xplane_kernels.py", "algorithm")}


def test_a_new_family_is_one_row_of_the_table():
    """No module but core/families.py holds a literal set, tuple, list or
    dict made only of family names: what a family is (matrix work, a copy,
    its split, its algorithm) is read from the table, so a new family is one
    row there."""
    from roofline.core.families import TABLE
    names = set(TABLE)
    found = []
    for path in sorted((ROOT / "roofline").rglob("*.py")):
        rel = str(path.relative_to(ROOT / "roofline"))
        if rel == "core/families.py":
            continue
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            items = (node.elts if isinstance(node, (ast.Set, ast.Tuple, ast.List))
                     else node.keys if isinstance(node, ast.Dict) else [])
            strings = [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
            if len(strings) >= 2 and len(strings) == len(items) and set(strings) <= names:
                line = lines[node.lineno - 1]
                if not any(rel == f and word in line for f, word in NOT_FAMILY_LISTS):
                    found.append(f"{rel}:{node.lineno} {strings}")
    assert not found, found
