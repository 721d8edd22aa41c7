"""Calibrate this CPU: numba kernels -> timed samples -> levels -> Device.

:func:`measure_cpu` runs in the calling process. :func:`measure_cpu_isolated`
(what ``roofline measure`` uses) runs it in a fresh Python subprocess
(``python -m roofline.microbench.cpu.run``) so numba starts with pinned
OpenMP threads and the full vector width (see ``cpuinfo.numba_environment``)
whatever the calling process already imported. The measurement itself is
in :mod:`.measure` (where each figure comes from) and :mod:`.assemble`.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from ...core.errors import MeasurementError, RooflineError
from ...core.model import Device
from .measure import CpuPlan, measure_cpu

__all__ = ["CpuPlan", "main", "measure_cpu", "measure_cpu_isolated"]


def measure_cpu_isolated(quick: bool = False, progress=None, name: str | None = None, *,
                         plan: CpuPlan | None = None, timeout: float | None = None) -> Device:
    """:func:`measure_cpu` in a fresh Python process (pinned threads, full vector width).

    The child writes the profile to a temporary file that is read back here;
    Ctrl-C stops the child and re-raises KeyboardInterrupt.
    """
    import importlib.util
    if importlib.util.find_spec("numba") is None:
        raise MeasurementError("numba is not installed; `roofline measure` on the CPU needs it: "
                               "pip install numba")
    from ...devices.profile import load_device
    with tempfile.TemporaryDirectory(prefix="roofline-measure-") as tmp:
        out, err = Path(tmp) / "cpu.yaml", Path(tmp) / "error.txt"
        cmd = [sys.executable, "-m", "roofline.microbench.cpu.run", "--out", str(out),
               "--error-file", str(err)]
        if quick:
            cmd.append("--quick")
        if progress:
            cmd.append("--progress")
        if name:
            cmd += ["--name", name]
        if plan is not None:
            cmd += ["--plan", repr(plan.__dict__)]
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)
        try:
            rc = proc.wait(timeout=timeout)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        if rc != 0 or not out.exists():
            msg = err.read_text().strip() if err.exists() else ""
            raise MeasurementError(msg or f"the CPU measurement process exited with status {rc}")
        return load_device(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m roofline.microbench.cpu.run",
                                 description="Measure this CPU and write a device profile (YAML).")
    ap.add_argument("--out", required=True)
    ap.add_argument("--error-file")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--name")
    ap.add_argument("--plan", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        plan = None
        if args.plan:
            import ast
            plan = CpuPlan(**ast.literal_eval(args.plan))
        say = (lambda text: print(f"roofline measure: {text}", file=sys.stderr)) if args.progress else None
        device = measure_cpu(quick=args.quick, progress=args.progress, name=args.name, plan=plan, say=say)
        from ...devices.profile import save_device
        save_device(device, args.out)
    except RooflineError as exc:
        if args.error_file:
            Path(args.error_file).write_text(str(exc))
        print(f"error: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
