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
    lines = capsys.readouterr().out.splitlines()
    assert lines == _expected_example_lines()


def _expected_example_lines() -> list[str]:
    """The README example's output, computed by hand from the CSV and the
    V100 datasheet profile read as plain CSV and YAML: efficiency is the
    achieved rate over the roof, min(peak, intensity x bandwidth), and with
    one size per kernel no overhead evidence exists; modelled rows far below
    a bandwidth roof likely move more than their compulsory bytes."""
    import csv
    import yaml
    rows = list(csv.DictReader(line for line in (REPO / "examples" / "ece408_kernels.csv").open()
                               if not line.startswith("#")))[:3]
    dev = yaml.safe_load((REPO / "devices" / "v100-sxm2.yaml").read_text())
    peak = dev["compute"]["fp32"]["flop_s"]
    bw = {lv: dev["memory"][lv]["bytes_s"] for lv in ("DRAM", "PCIe")}
    out = []
    for r in rows:
        time_s = float(r["time_ms"]) * 1e-3
        if r["flops_fp32"]:
            flops, dram = float(r["flops_fp32"]), float(r["bytes_dram"])
            eff, level = (flops / time_s) / min(peak, flops / dram * bw["DRAM"]), "DRAM"
        else:
            eff, level = float(r["bytes_pcie"]) / time_s / bw["PCIe"], "PCIe"
        # compulsory (modelled) bytes far below the bandwidth roof: it likely moves more (under half the roof)
        why = "traffic above compulsory" if r.get("modelled") == "1" and eff < 0.5 else "no evidence"
        out.append(f"{r['name'][:40]} bandwidth {level} {round(eff, 3)} {why}")
    return out


def test_readme_shell_blocks_are_the_ci_contract():
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    assert "pip install ." in blocks[0] and "roofline measure" in blocks[0]
    assert "pytest" in blocks[1]
    assert "readme_block" in (REPO / ".ci" / "run").read_text()
