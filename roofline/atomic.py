"""Write files so that an interruption never leaves a half-written one."""
from __future__ import annotations

import os
import tempfile
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
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix or ".tmp",
                                   dir=target.parent)
    except OSError as exc:
        raise RooflineError(f"{target}: cannot write: {exc.strerror}") from None
    os.close(fd)
    try:
        yield Path(tmp)
        # mkstemp makes the file private (0600): keep the replaced file's
        # mode, else give the usual one
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise RooflineError(f"{target}: cannot write: {exc.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def _into_special(target: Path):
    """Write a complete temporary file, then copy it into a FIFO or device."""
    fd, tmp = tempfile.mkstemp(prefix=".roofline-", suffix=target.suffix or ".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        with open(tmp, "rb") as src, open(target, "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
    except OSError as exc:
        raise RooflineError(f"{target}: cannot write: {exc.strerror}") from None
    finally:
        Path(tmp).unlink(missing_ok=True)


def write_text_atomic(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
