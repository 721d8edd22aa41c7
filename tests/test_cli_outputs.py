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


# ---------------------------------------------------------------- terminal text

ACTIVE = "\x1b\x07\x9b\u202e\u2066\r\t"
EVIL = "evil\x1b[31mRED\x1b]0;title\x07"
NAMES = [EVIL, "bidi\u202eabc\u2066x", "c1\x9bx", "tab\tcr\rx"]


def _evil_csv(tmp_path):
    path = tmp_path / "evil.csv"
    rows = "".join(f'"{n}",{i + 1},1,1e9,5e6\n' for i, n in enumerate(NAMES))
    path.write_text("name,time_us,count,flops_fp32,bytes_dram\n" + rows, encoding="utf-8")
    return path


def _evil_profile(tmp_path, name: str):
    from conftest import DATA
    text = (DATA / "toy_gpu.yaml").read_text().replace("name: toy GPU (V100-like numbers)", f'name: "{name}"')
    path = tmp_path / "evil.yaml"
    path.write_text(text)
    return path


def _no_active(text: str) -> bool:
    return not any(c in text for c in ACTIVE)


def test_names_reach_the_terminal_as_escapes(tmp_path, capsys):
    data = _evil_csv(tmp_path)
    assert main(["classify", str(data), "--device", "v100-sxm2"]) == 0
    out, err = capsys.readouterr()
    assert _no_active(out) and _no_active(err)
    assert "evil\\x1b[31mRED\\x1b]0;title\\x07" in out and "bidi\\u202eabc\\u2066x" in out
    assert "c1\\x9bx" in out and "tab\\x09cr\\x0dx" in out      # tab and CR inside a name too
    assert "runs at" in err and "evil\\x1b[31mRED" in err       # the warning names the kernel, escaped
    widths = {len(line) for line in out.splitlines()[2:6]}
    assert len(widths) == 1                                      # columns stay aligned


def test_json_and_csv_keep_the_real_names(tmp_path, capsys):
    import csv
    import io
    data = _evil_csv(tmp_path)
    assert main(["classify", str(data), "--device", "v100-sxm2", "--format", "json"]) == 0
    assert sorted(r["name"] for r in json.loads(capsys.readouterr().out)) == sorted(NAMES)
    assert main(["classify", str(data), "--device", "v100-sxm2", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert sorted(r[0] for r in rows[1:]) == sorted(NAMES)


def test_device_names_reach_the_terminal_as_escapes(tmp_path, capsys):
    profile = _evil_profile(tmp_path, "toy \\e[2J\\u202e GPU")     # YAML escapes: ESC and RLO
    assert main(["show", str(profile)]) == 0
    out, _ = capsys.readouterr()
    assert _no_active(out) and out.startswith("toy \\x1b[2J\\u202e GPU  (gpu, datasheet)")
    assert main(["classify", str(_evil_csv(tmp_path)), "--device", str(profile)]) == 0
    assert main(["diff", str(_evil_csv(tmp_path)), str(_evil_csv(tmp_path)), "--device", str(profile)]) == 0
    out, err = capsys.readouterr()
    assert _no_active(out) and _no_active(err) and "toy \\x1b[2J\\u202e GPU" in out


def test_a_lone_surrogate_in_a_profile_is_a_one_line_error(tmp_path, capsys):
    profile = _evil_profile(tmp_path, "toy \\ud800 GPU")
    for args in (["show", str(profile)], ["plot", str(EXAMPLE), "--device", str(profile), "-o",
                                          str(tmp_path / "x.png")]):
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "evil.yaml:2: key 'name': holds a lone surrogate" in err


def test_error_messages_reach_the_terminal_as_escapes(tmp_path, capsys):
    missing = tmp_path / "no\x1b[31mfile\u202e.csv"          # paths are quoted as they are
    assert main(["classify", str(missing), "--device", "v100-sxm2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("roofline classify: error:") and _no_active(err)
    assert "no\\x1b[31mfile\\u202e.csv: cannot read" in err


def test_a_lone_surrogate_in_an_ert_device_name_is_replaced(tmp_path, capsys):
    from conftest import DATA
    ert = tmp_path / "roofline.json"     # json.loads reads the escape as a lone surrogate
    ert.write_text((DATA / "ert_roofline_py2.json").read_text().replace("Results.node17.01",
                                                                        "Results.node\\ud80017.01"))
    assert main(["plot", str(EXAMPLE), "--device", str(ert), "-o", str(tmp_path / "x.png")]) == 0
    assert "on node\ufffd17.01" in capsys.readouterr().out     # matplotlib could not draw the title


def test_classify_keeps_pandas_out_and_pyarrow_still_reaches_it(capsys):
    """cli/classify.arrow_without_pandas: a classify process never imports
    pandas (pyarrow's first array did, 0.2 s), its CSV is the same, and
    pyarrow's pandas conversions still work after it."""
    import subprocess
    import sys
    script = (
        "import io, sys, contextlib\n"
        "from roofline.cli.main import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    main(['classify', {str(EXAMPLE)!r}, '--device', 'v100-sxm2', '--format', 'csv'])\n"
        "print('pandas' in sys.modules)\n"
        "import pyarrow as pa\n"
        "print(type(pa.table({'a': [1.5]}).to_pandas()).__name__)\n"
        "sys.stdout.write(out.getvalue())\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    lines = run.stdout.splitlines()
    assert lines[:2] == ["False", "DataFrame"]
    assert main(["classify", str(EXAMPLE), "--device", "v100-sxm2", "--format", "csv"]) == 0
    assert "\n".join(lines[2:]) + "\n" == capsys.readouterr().out
