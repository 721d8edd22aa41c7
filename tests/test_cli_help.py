"""Every option of every command has help text of its own, and a command
that writes a file says what it wrote."""
from __future__ import annotations

import argparse
from pathlib import Path

from roofline.cli.main import build_parser, main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _commands():
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices


def test_every_option_has_help():
    missing = [(name, a.option_strings or a.dest) for name, p in _commands().items() for a in p._actions
               if not isinstance(a, argparse._HelpAction) and (not a.help or a.help == argparse.SUPPRESS)]
    assert missing == []


def test_show_does_not_borrow_the_device_option_text():
    (arg,) = [a for a in _commands()["show"]._actions if a.dest == "device"]
    assert "--device" not in arg.help and "profile to show" in arg.help


def test_import_says_what_it_wrote(tmp_path, capsys):
    out = tmp_path / "k.json"
    assert main(["import", str(EXAMPLES / "ece408_kernels.csv"), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"wrote {out} (16 kernel rows, json)" in err and out.exists()
