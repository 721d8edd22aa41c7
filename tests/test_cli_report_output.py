"""`roofline report -o PATH` refuses an output it cannot write before any
input is read or any file written (issue 30: a .md path that was a
directory was refused only after its charts had been written)."""
from __future__ import annotations

import pytest
from conftest import DATA, REPO

from roofline.cli.main import main

EXAMPLE = REPO / "examples" / "ece408_kernels.csv"
TOY = str(DATA / "toy_gpu.yaml")


def _tree(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("name", ["report.md", "report.html", "notes.markdown"])
def test_an_output_that_is_a_directory_is_refused_before_anything_is_written(tmp_path, capsys, name):
    (tmp_path / name).mkdir()
    before = _tree(tmp_path)
    assert main(["report", str(EXAMPLE), "--device", TOY, "-o", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a directory" in err[0] and str(tmp_path / name) in err[0]
    assert _tree(tmp_path) == before                        # no chart, no temporary file


def test_the_check_comes_before_the_inputs_are_read(tmp_path, capsys):
    (tmp_path / "out.md").mkdir()
    missing = tmp_path / "no-such-trace.json"
    assert main(["report", str(missing), "--device", TOY, "-o", str(tmp_path / "out.md")]) == 2
    assert "is a directory" in capsys.readouterr().err   # not the input's error: nothing was read


def test_a_chart_name_taken_by_a_directory_is_refused_first(tmp_path, capsys):
    (tmp_path / "r_roofline-cache-aware.png").mkdir()
    assert main(["report", str(EXAMPLE), "--device", TOY, "-o", str(tmp_path / "r.md")]) == 2
    err = capsys.readouterr().err
    assert "r_roofline-cache-aware.png: is a directory where the Markdown report writes a chart" in err
    assert _tree(tmp_path) == ["r_roofline-cache-aware.png"]


def test_a_parent_that_is_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert main(["report", str(EXAMPLE), "--device", TOY, "-o", str(tmp_path / "file" / "r.html")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_a_good_markdown_output_still_writes_its_charts(tmp_path, capsys):
    out = tmp_path / "r.md"
    assert main(["report", str(EXAMPLE), "--device", TOY, "-o", str(out)]) == 0, capsys.readouterr().err
    names = _tree(tmp_path)
    assert "r.md" in names and any(n.startswith("r_") and n.endswith(".png") for n in names)
