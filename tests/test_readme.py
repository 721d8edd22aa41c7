"""The README's Python examples run as written."""
import re

from conftest import REPO


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_readme_python_blocks_run(monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    blocks = python_blocks(REPO / "README.md")
    assert blocks
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "bandwidth" in out and "no evidence" in out


def test_readme_shell_blocks_are_the_ci_contract():
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    assert "pip install ." in blocks[0] and "roofline measure" in blocks[0]
    assert "pytest" in blocks[1]
    assert "readme_block" in (REPO / ".ci" / "run").read_text()
