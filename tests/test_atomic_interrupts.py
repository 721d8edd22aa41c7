"""One Ctrl-C at any moment of an atomic write leaves no temporary file.

A child process writes in a loop, each round interrupted once by a thread
after a random delay of up to 200 us. Before the temporary file's creation
and the cleanup taking charge of it were made one step, 1,925 of 2,000 such
rounds left an empty hidden file beside the target (the interrupt landed in
tempfile.mkstemp's Python code after the file existed)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

ROUNDS = textwrap.dedent("""
    import json, os, random, signal, sys, threading, time
    from pathlib import Path
    from roofline.core.atomic import atomic_path

    target, rounds = sys.argv[1], int(sys.argv[2])
    interrupted = 0

    def write():
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"x" * 100)

    def interrupt_once():
        time.sleep(random.uniform(0, 0.0002))
        os.kill(os.getpid(), signal.SIGINT)

    for _ in range(rounds):
        shooter = threading.Thread(target=interrupt_once)
        try:
            shooter.start()
            while True:
                write()
        except KeyboardInterrupt:
            interrupted += 1
        shooter.join()
    print(json.dumps({"interrupted": interrupted}))
""")


def _interrupted_writes(tmp_path, target: str, rounds: int = 2000) -> int:
    script = tmp_path / "rounds.py"
    script.write_text(ROUNDS)
    # the default SIGINT disposition, whatever the test runner inherited,
    # so the child's Python installs its KeyboardInterrupt handler
    run = subprocess.run([sys.executable, str(script), target, str(rounds)], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "TMPDIR": str(tmp_path / "tmp")},
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Exception ignored" not in run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])["interrupted"]


def test_an_interrupted_write_leaves_no_temporary_file(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "tmp").mkdir()
    assert _interrupted_writes(tmp_path, str(out / "chart.png")) == 2000
    assert sorted(p.name for p in out.iterdir()) in ([], ["chart.png"])


def test_an_interrupted_write_into_a_device_leaves_no_temporary_file(tmp_path):
    tmp = tmp_path / "tmp"           # /dev/null is written through a file in TMPDIR
    tmp.mkdir()
    assert _interrupted_writes(tmp_path, "/dev/null", rounds=500) == 500
    assert list(tmp.iterdir()) == []
