"""`roofline` entry point: builds the parser from the command modules and
turns the package's one error family into a one-line message and exit 2,
Ctrl-C into exit 130 and SIGTERM into exit 143, each after the cleanups
on the way out have run."""
from __future__ import annotations

import argparse
import signal
import sys
import threading

from ..core.errors import RooflineError

DESCRIPTION = """\
Roofline performance modeling: calibrate a device, read profiler outputs,
and see whether each kernel is compute-, bandwidth- or overhead-bound.

typical use:
  roofline measure --quick                   calibrate this machine (CPU if no GPU)
  roofline plot kernels.csv --device v100-sxm2 -o roofline.png
  roofline classify profile.ncu-rep --device a100-40gb-sxm --format json
  roofline report trace.json.gz --device a100-40gb-sxm -o report.html
  roofline project trace.json.gz --to mi300x    what it would take on another device
  roofline devices                           built-in and saved device profiles
"""


def _command_modules():
    from . import classify, devices, diff, import_, plot, project, report
    modules = [plot, classify, report, project, import_, diff, devices]
    try:
        from . import measure
        modules.insert(0, measure)
    except ImportError:  # measure ships with the CPU backend
        pass
    return modules


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="roofline", description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    from .._version import __version__
    parser.add_argument("--version", action="version", version=f"roofline {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        module.add_parser(sub)
    return parser


class Terminated(BaseException):
    """SIGTERM, raised where the program was, so that every ``finally`` and
    ``with`` on the way out runs (temporary files, profile locks, child
    processes) before the exit status 143 (128 + SIGTERM)."""


def main(argv: list[str] | None = None) -> int:
    state = {"command": None}
    restore = _raise_on_sigterm()
    try:
        return _main(argv, state)
    except Terminated:
        command = f" {state['command']}" if state["command"] else ""
        print(f"roofline{command}: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    finally:
        restore()


def _main(argv, state: dict) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    state["command"] = args.command
    try:
        return int(args.func(args) or 0)
    except RooflineError as exc:   # messages quote names and cells of the input: shown, not sent
        from ..render.terminal import visible_lines
        print(visible_lines(f"roofline {args.command}: error: {exc}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"roofline {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `roofline classify ... | head`
        return 0
    except OSError as exc:   # standard output that cannot take the result (> /dev/full, a full disk)
        if exc.filename is None:
            print(f"roofline {args.command}: error: cannot write the output: {exc.strerror}", file=sys.stderr)
            return 1
        raise


def _raise_on_sigterm():
    """Make SIGTERM raise :class:`Terminated` (once: a second one while the
    cleanups run does not cut them short) until the returned function
    restores the previous handler. Only the main thread can set handlers;
    an ignored SIGTERM stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGTERM)
    if previous is None or previous == signal.SIG_IGN:
        return lambda: None
    raised = []

    def handler(signum, frame):
        if not raised:
            raised.append(signum)
            raise Terminated()

    signal.signal(signal.SIGTERM, handler)
    return lambda: signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
