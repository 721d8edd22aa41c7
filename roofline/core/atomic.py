"""Write files so that an interruption never leaves a half-written one."""
from __future__ import annotations

import os
import signal
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from .errors import RooflineError


@contextmanager
def atomic_path(path: str | Path):
    """Yield a temporary path beside ``path``; move it into place on success.

    On any exception (KeyboardInterrupt included) the temporary file is
    removed and ``path`` is untouched. A symlink is followed (the file it
    names is replaced, the link stays); an existing file keeps its mode; a
    target that is not a regular file (a FIFO, /dev/stdout, /dev/null) is
    written into, not replaced.
    """
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    if target.exists() and not target.is_file():
        with _into_special(target) as tmp:
            yield tmp
        return
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _temporary(target.parent, f".{target.name}.", target.suffix) as tmp:
            yield tmp
            # mkstemp makes the file private (0600): keep the replaced file's
            # mode, else give the usual one
            os.chmod(tmp, _usual_mode() if mode is None else mode)
            os.replace(tmp, target)
    except OSError as exc:
        raise RooflineError(f"{target}: cannot write: {exc.strerror}") from None


def _usual_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def _temporary(directory, prefix: str, suffix: str):
    """A new empty file, removed on the way out whatever happens (after a
    successful os.replace there is nothing left to remove). Ctrl-C is held
    back while the file is made and while it is removed, and raised only
    where the cleanup will run, so no temporary file is ever left behind."""
    release = _hold_interrupts()
    try:
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix or ".tmp", dir=directory)
        os.close(fd)
    except BaseException:
        release()
        raise
    try:
        release()               # a Ctrl-C pressed meanwhile is raised here
        yield Path(tmp)
    finally:
        release = _hold_interrupts()
        try:
            Path(tmp).unlink(missing_ok=True)
        finally:
            release()


def _hold_interrupts():
    """Note SIGINT instead of raising it, until the returned function is
    called; that call hands a noted one to the usual handler
    (KeyboardInterrupt). Only the main thread can change signal handlers,
    and only there is KeyboardInterrupt raised: elsewhere nothing is held."""
    previous = signal.getsignal(signal.SIGINT)
    if previous is None or threading.current_thread() is not threading.main_thread():
        return lambda: None
    noted = []
    signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))

    def release() -> None:
        signal.signal(signal.SIGINT, previous)
        if noted:
            noted.clear()
            signal.raise_signal(signal.SIGINT)
    return release


@contextmanager
def _into_special(target: Path):
    """Write a complete temporary file, then copy it into a FIFO or device."""
    try:
        with _temporary(None, ".roofline-", target.suffix) as tmp:
            yield tmp
            with open(tmp, "rb") as src, open(target, "wb") as dst:
                while chunk := src.read(1 << 20):
                    dst.write(chunk)
    except OSError as exc:
        raise RooflineError(f"{target}: cannot write: {exc.strerror}") from None


def write_text_atomic(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
