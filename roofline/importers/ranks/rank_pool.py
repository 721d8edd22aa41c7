"""Batches of ranks read on local worker processes that never outlive the
reading: on any way out of :func:`on_processes` (an error, Ctrl-C, a
signal the caller turns into an exception) the workers are killed, and a
worker dies with its parent even when the parent is killed outright."""
from __future__ import annotations

import os
import signal
import sys
import threading
import time

from ...core.errors import InputError

_STOP = {signal.SIGINT, signal.SIGTERM}
_PR_SET_PDEATHSIG = 1   # <linux/prctl.h>


def on_processes(batches: list, task, workers: int, progress=None) -> list:
    """``task(batch)`` of every batch on up to ``workers`` processes, in batch order."""
    from concurrent.futures import ProcessPoolExecutor
    pool = ProcessPoolExecutor(min(workers, len(batches)), mp_context=_context(),
                               initializer=_worker_start, initargs=(os.getpid(),))
    finished = False
    try:
        futures = _submit_all(pool, task, batches)
        out = _collect(futures, batches, progress)
        finished = True
        return out
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:
            _kill(pool)


def _context():
    import multiprocessing
    # forked workers start with roofline already imported (spawned ones
    # would import it again, about a second each)
    return multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")


def _submit_all(pool, task, batches) -> dict:
    """Ctrl-C and SIGTERM held back while the workers start (a worker that
    got one before its initializer ran would die with a traceback), then
    delivered to the parent."""
    blocking = hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    if blocking:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP)
    try:
        return {pool.submit(task, b): i for i, b in enumerate(batches)}
    finally:
        if blocking:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _collect(futures: dict, batches: list, progress) -> list:
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool
    out = [None] * len(batches)
    for fut in as_completed(futures):
        i = futures[fut]
        try:
            out[i] = fut.result()
        except BrokenProcessPool:
            raise InputError(batches[i][0], None, worker_died(batches[i], "--workers")) from None
        except Exception as exc:   # noqa: BLE001 - e.g. a result that could not be sent back
            raise InputError(batches[i][0], None, not_sent(batches[i], exc)) from exc
        if hasattr(out[i], "raise_it"):   # a refused file: no point reading the rest
            out[i].raise_it()
        if progress:
            progress(len(batches[i]))
    return out


def not_sent(batch: list, exc: Exception) -> str:
    """Why a worker's answer for this batch did not come back (the task
    itself turns every failure into data: this is the way back failing)."""
    more = f" or one of the {len(batch) - 1} after it" if len(batch) > 1 else ""
    text = " ".join(str(exc).split())[:200]
    return (f"a worker read this file{more} but its answer could not be sent back ({type(exc).__name__}"
            f"{': ' + text if text else ''}): read without --workers to see which")


def worker_died(batch: list, option: str) -> str:
    more = f" or one of the {len(batch) - 1} after it" if len(batch) > 1 else ""
    return f"a worker process died reading this file{more} (out of memory?): read without {option} to see which"


def _kill(pool) -> None:
    """Stop the workers now, whatever they are doing."""
    if hasattr(pool, "kill_workers"):      # Python 3.14
        pool.kill_workers()
        return
    # before 3.14 the executor can only wait for running tasks: kill its
    # processes, which it keeps in _processes
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for p in procs:
        p.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        p.join(5)


def _worker_start(parent: int) -> None:
    # Ctrl-C reaches the whole process group: the parent decides and kills
    # the workers; SIGTERM as for any process (a forked worker inherits the
    # parent's handlers)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP)
    if not _die_with_parent():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:   # the parent died before we could ask
        os._exit(1)


def _die_with_parent() -> bool:
    """Linux: the kernel sends SIGKILL to this process when its parent dies."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    """Elsewhere: exit once the parent is gone (the worker is re-parented)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)
