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
    removed and ``path`` is untouched.
    """
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix or ".tmp",
                                   dir=target.parent)
    except OSError as exc:
        raise RooflineError(f"{target}: cannot write: {exc.strerror}") from None
    os.close(fd)
    try:
        yield Path(tmp)
        # mkstemp makes the file private (0600); give it the usual mode
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise RooflineError(f"{target}: cannot write: {exc.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
