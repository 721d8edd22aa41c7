"""Write files so that an interruption never leaves a half-written one.

The target's links are followed here (to replace the file a link names, not
the link), so the kernel never sees them: its ``fs.protected_symlinks`` rule
is applied here instead. A link in a sticky, world-writable folder (``/tmp``)
is followed only when it belongs to the user or to the folder's owner;
another user's link there is refused with one line naming it, as the kernel
would refuse it, so that nobody can aim another user's output (root's
included) at a file of their choosing.
"""
from __future__ import annotations

import os
import signal
import stat
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from .errors import RooflineError


@contextmanager
def atomic_path(path: str | Path):
    """Yield a temporary path beside ``path``; move it into place on success.

    On any exception (KeyboardInterrupt included) and on SIGTERM the
    temporary file is removed and ``path`` is untouched. A symlink is followed (the file it
    names is replaced, the link stays); an existing file keeps its mode; a
    target that is not a regular file (a FIFO, /dev/stdout, /dev/null) is
    written into, not replaced. A link the kernel's protected_symlinks rule
    would not follow is refused (:func:`followed`).
    """
    resolved = followed(path)
    target = resolved if os.path.islink(path) else Path(path)
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


MAX_LINKS = 40        # as the kernel's ELOOP limit


def followed(path: str | Path) -> Path:
    """``path`` with every link in it followed (as ``os.path.realpath``),
    or a RooflineError naming the first link that :func:`may_follow`
    refuses, or a loop."""
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    whole = Path(path) if Path(path).is_absolute() else Path(os.getcwd()) / path   # '..' kept: resolved as met
    pending = list(whole.parts[1:])
    at, hops = Path(whole.anchor), 0
    while pending:
        name = pending.pop(0)
        if name in ("", "."):
            continue
        if name == "..":
            at = at.parent
            continue
        step = at / name
        try:
            link = os.lstat(step)
        except OSError:             # absent (it will be made) or unreadable: nothing to follow
            at = step
            continue
        if not stat.S_ISLNK(link.st_mode):
            at = step
            continue
        hops += 1
        if hops > MAX_LINKS:
            raise RooflineError(f"{path}: cannot write: too many levels of symbolic links")
        if uid is not None and not may_follow(link, os.stat(at), uid):
            raise RooflineError(f"{path}: refusing to write through {step}: a link owned by user {link.st_uid} "
                                "in a sticky, world-writable folder, neither yours nor the folder owner's "
                                "(the kernel's fs.protected_symlinks rule)")
        into = Path(os.readlink(step))
        if into.is_absolute():
            at = Path(into.anchor)
        pending = list(into.parts[1:] if into.is_absolute() else into.parts) + pending
    return at


def may_follow(link: os.stat_result, folder: os.stat_result, uid: int) -> bool:
    """The kernel's rule (fs/namei.c, may_follow_link): a link is followed
    when its owner is the follower, or its folder is not both sticky and
    world-writable, or its owner is the folder's owner."""
    sticky_shared = (folder.st_mode & (stat.S_ISVTX | stat.S_IWOTH)) == (stat.S_ISVTX | stat.S_IWOTH)
    return link.st_uid == uid or not sticky_shared or link.st_uid == folder.st_uid


def _usual_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def _temporary(directory, prefix: str, suffix: str):
    """A new empty file, removed on the way out whatever happens (after a
    successful os.replace there is nothing left to remove). Ctrl-C and
    SIGTERM are held back while the file is made and while it is removed,
    and raised as an exception while it exists, so the cleanup runs first:
    no temporary file is ever left behind. The signal is then delivered to
    the handler it had before (KeyboardInterrupt, the CLI's exit 143, or the
    default action)."""
    guard = _SignalGuard()
    try:
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix or ".tmp", dir=directory)
        os.close(fd)
    except BaseException:
        guard.release()
        raise
    try:
        try:
            guard.arm()         # a signal noted meanwhile is raised here
            yield Path(tmp)
        finally:                # a signal raised before this line still reaches the unlink
            guard.hold()
    finally:
        try:
            Path(tmp).unlink(missing_ok=True)
        finally:
            guard.release()


_GUARDED = (signal.SIGINT, signal.SIGTERM)


class _Signalled(KeyboardInterrupt):
    """A guarded signal arrived while a temporary file existed. The signal
    is delivered again once the file is gone, so what its own handler raises
    replaces this; only a handler that raises nothing lets it through, and
    then the write stops as if interrupted (never as if it had succeeded)."""


class _SignalGuard:
    """SIGINT and SIGTERM noted instead of acted on (held), or raised as
    :class:`_Signalled` (armed), until :meth:`release` restores the previous
    handlers and delivers what was noted. Only the main thread can change
    signal handlers (and only there are they run): elsewhere it does
    nothing. An ignored signal, or one whose handler Python did not set,
    stays as it is. Outside its life (a signal cutting its setup or its
    release short) its handler passes signals on as the previous one would,
    so a handler left behind never swallows Ctrl-C."""

    def __init__(self):
        self.noted: list[int] = []
        self.armed = self.active = False
        self.previous = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in _GUARDED:
            old = signal.getsignal(sig)
            if old is not None and old != signal.SIG_IGN:
                self.previous[sig] = old
                signal.signal(sig, self._handle)
        self.active = True

    def _handle(self, signum, frame) -> None:
        if not self.active:
            _pass_on(self.previous[signum], signum, frame)
            return
        if signum not in self.noted:
            self.noted.append(signum)
        if self.armed:
            self.armed = False
            raise _Signalled()

    def arm(self) -> None:
        if self.noted:
            raise _Signalled()
        self.armed = True

    def hold(self) -> None:
        self.armed = False

    def release(self) -> None:
        self.armed = self.active = False
        for sig, old in self.previous.items():
            signal.signal(sig, old)
        # SIGTERM first: the graver one decides how the program ends
        for sig in sorted(self.noted, key=lambda s: s != signal.SIGTERM):
            signal.raise_signal(sig)


def _pass_on(handler, signum: int, frame) -> None:
    """Act on a signal as ``handler`` (a function or SIG_DFL) would."""
    if callable(handler):
        handler(signum, frame)
    else:
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)


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
