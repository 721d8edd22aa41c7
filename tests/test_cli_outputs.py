"""What the commands write where: output formats chosen from -o or refused,
and text that reaches a terminal or a spreadsheet cannot act on it."""
from __future__ import annotations

import json

import pytest

from conftest import REPO
from roofline.cli.main import main

EXAMPLE = REPO / "examples" / "ece408_kernels.csv"


@pytest.mark.parametrize("name", ["x.xml", "x.txt", "x.csv.bak"])
def test_import_refuses_an_extension_no_writer_knows(tmp_path, capsys, name):
    out = tmp_path / name
    assert main(["import", str(EXAMPLE), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot tell the format" in err and ".csv or .json" in err
    assert not out.exists()


def test_import_follows_an_explicit_format_and_any_case(tmp_path, capsys):
    xml = tmp_path / "x.xml"
    assert main(["import", str(EXAMPLE), "-o", str(xml), "--format", "json"]) == 0
    assert len(json.loads(xml.read_text())) == 16
    upper = tmp_path / "x.JSON"
    assert main(["import", str(EXAMPLE), "-o", str(upper)]) == 0
    assert json.loads(upper.read_text()) == json.loads(xml.read_text())
    bare = tmp_path / "kernels"           # no extension: kernels.csv text, as the help says
    assert main(["import", str(EXAMPLE), "-o", str(bare)]) == 0
    assert bare.read_text().startswith("name,time_s,count,")
