"""Time a command in a fresh process, as a user's shell runs it: wall and
CPU seconds, and peak RSS. Shared by ``kineto_speed.py`` and
``classify_csv.py``.

Compiled bytecode: a user's install has ``.pyc`` files, but this workplace
sets ``PYTHONDONTWRITEBYTECODE=1``, so every fresh process would compile
the package's sources again (about 0.2-0.4 s, counted against roofline
and not against ``json.loads``/``csv.reader``). :func:`compile_checkout`
writes the bytecode of the checkout's ``roofline`` package (into its
``__pycache__`` folders, which git ignores) before anything is timed, and
:func:`user_env` lets the timed processes keep what they compile: they
read bytecode, as an installed package does.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

def user_env() -> dict:
    """The environment of a user's shell: compiled bytecode kept."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


# numba compiles the Kineto scanner at its first use and caches the machine
# code beside the source (as it does in a user's install after the first
# big trace): compiled before anything is timed. A checkout older than the
# scanner has nothing to compile. The cache is cleared first: numba checks
# only the source file of the function it loads, so an edit of a module the
# scanner calls into (jsongrammar.py, jsonvalues.py, spancodes.py) would
# otherwise time the code before the edit.
WARM_SCANNER = ("import numpy as np\n"
                "try:\n    from roofline.importers.kineto.scanfields import Columns\n"
                "except ImportError:\n    raise SystemExit(0)\n"
                "Columns(16).scan(np.frombuffer(bytearray(b'[{\"ph\": \"X\"}]'), dtype=np.uint8), 1)\n"
                "try:\n    from roofline.importers.kineto.nestwalk import walked_parents\n"
                "except ImportError:\n    raise SystemExit(0)\n"
                "walked_parents(np.zeros(1, dtype=np.int64), np.zeros(1), np.zeros(1), 0.0)\n")


def compile_checkout(root: str | Path) -> None:
    """Bytecode of the ``roofline`` package in ``root``, as an install
    writes it, and the scanner's and the nesting walk's machine code, as
    their first use does."""
    subprocess.run([sys.executable, "-c", "import compileall, sys; "
                    "sys.exit(not compileall.compile_dir(sys.argv[1], quiet=1))",
                    str(Path(root) / "roofline")], env=user_env(), check=True)
    for cached in (Path(root) / "roofline").rglob("__pycache__/*.nb[ic]"):
        cached.unlink()
    subprocess.run([sys.executable, "-c", WARM_SCANNER], cwd=root, env=user_env(), check=True)


def run(cmd: list[str], cwd: str | None = None, stdout=subprocess.DEVNULL) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds (user + system), peak RSS in bytes) of
    ``cmd`` in a fresh process (``cwd``: a checkout whose ``roofline``
    package ``-m`` then imports). On a loaded machine the CPU time varies
    less than the wall time."""
    with tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=err, cwd=cwd, env=user_env())
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status):
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed:\n{err.read()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024.0   # Linux: KiB
