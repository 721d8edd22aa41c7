"""Every user-visible output of the CLI on the real files, written to one
folder, so that two checkouts can be compared with ``diff -r``.

    python tools/realdata_snapshot.py /tmp/before ../shared/realdata examples
    (change the code)
    python tools/realdata_snapshot.py /tmp/after ../shared/realdata examples
    diff -r /tmp/before /tmp/after && echo identical

For each file: ``classify`` as JSON, CSV and table (on the device the file
names, and on a fixed one), ``import`` to CSV, and ``report`` to Markdown
(its PNGs hashed); plus the device list and every built-in profile as JSON.
``--cpu-device PROFILE.yaml`` (first) adds ``classify`` and ``report`` on
that CPU profile: the same file for both runs, since every measurement
differs.
Each output keeps the exit status and standard error, so a changed message
or a new failure shows as a difference too. Meant for refactors that must
not change what a user sees.

It runs the code of the checkout it lives in (``python -m
roofline.cli.main`` with that checkout first on ``PYTHONPATH``), so an old
commit checked out with ``git worktree add`` snapshots itself with the same
Python environment. Saved profiles are kept out (``ROOFLINE_HOME`` is an
empty folder) and wall-clock times in messages are masked.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

FIXED_DEVICE = "v100-sxm2"
CHECKOUT = Path(__file__).resolve().parents[1]
HOME = tempfile.mkdtemp(prefix="roofline-snapshot-home-")   # no saved profiles
ELAPSED = re.compile(r"(wrote .*), [0-9.]+ (m?s)\)$", re.M)


def _run(argv: list[str], cwd: Path) -> str:
    env = dict(os.environ, MPLBACKEND="Agg", COLUMNS="120", NO_COLOR="1", ROOFLINE_HOME=HOME,
               PYTHONPATH=os.pathsep.join([str(CHECKOUT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "roofline.cli.main", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, errors="backslashreplace", timeout=900)
    out = f"$ roofline {' '.join(argv)}\nexit {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"
    return masked(out, cwd, HOME, CHECKOUT)


def masked(out: str, cwd, home, checkout) -> str:
    """``out`` with what differs between runs named once: the working
    folder, the empty ROOFLINE_HOME, the checkout, and wall-clock times
    (tests/test_golden_outputs.py masks its outputs the same way)."""
    out = out.replace(str(cwd), "<tmp>").replace(str(home), "<home>").replace(str(checkout), "<checkout>")
    return ELAPSED.sub(r"\1, <elapsed>)", out)


def _files_of(report: Path) -> str:
    lines = []
    for p in sorted(report.parent.iterdir()):
        if p.is_file() and p != report:
            lines.append(f"{p.name} {hashlib.sha256(p.read_bytes()).hexdigest()}")
    return "\n".join(lines)


_SKIP = {"MANIFEST.md", ".py"}


def _jobs(data: Path, cpu: str | None):
    files = sorted(p for p in data.rglob("*") if p.is_file() and p.name not in _SKIP
                   and p.suffix not in _SKIP)
    for f in files:
        key = data.name + "__" + str(f.relative_to(data)).replace("/", "__")
        yield key + ".classify.json", ["classify", str(f), "--format", "json"]
        yield key + ".classify.csv", ["classify", str(f), "--format", "csv"]
        yield key + ".classify.table", ["classify", str(f)]
        yield key + ".classify.fixed.json", ["classify", str(f), "--device", FIXED_DEVICE, "--format", "json"]
        yield key + ".import.csv", ["import", str(f)]
        yield key + ".report", ["report", str(f), "-o", "report.md"]
        if cpu:
            yield key + ".classify.cpu.json", ["classify", str(f), "--device", cpu, "--format", "json"]
            yield key + ".cpu.report", ["report", str(f), "--device", cpu, "-o", "report.md"]


def _one(job, out: Path) -> str:
    name, argv = job
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        text = _run(argv, cwd)
        if name.endswith(".report") and (cwd / "report.md").exists():
            text += "\n--- report.md\n" + (cwd / "report.md").read_text()
            text += "\n--- files\n" + _files_of(cwd / "report.md")
    (out / name).write_text(text)
    return name


def main(argv: list[str]) -> int:
    cpu = None
    if argv[:1] == ["--cpu-device"]:
        cpu, argv = str(Path(argv[1]).resolve()), argv[2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    jobs = [job for d in argv[1:] for job in _jobs(Path(d).resolve(), cpu)]
    jobs.append(("devices.json", ["devices", "--format", "json"]))
    listed = _run(["devices", "--format", "json"], Path(HOME)).split("--- stdout\n", 1)[1]
    for d in json.loads(listed.split("--- stderr", 1)[0]):
        if d["origin"] == "built-in":
            jobs.append((f"show.{d['name']}.json", ["show", d["name"], "--format", "json"]))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for i, name in enumerate(pool.map(lambda j: _one(j, out), jobs), 1):
            print(f"\r{i}/{len(jobs)} {name[:70]:70}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
