"""Batches of ranks read on a running ``dask.distributed`` cluster, with
a deadline on every step that waits for the scheduler: distributed's own
connect timeout does not cover its handshake, so a server that accepts and
never answers would be waited for forever."""
from __future__ import annotations

import asyncio
import logging
import re
from contextlib import contextmanager

from ...core.errors import InputError

_SCHEMES = ("tcp", "tls", "ws", "wss")
_ADDRESS = re.compile(r"(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)"
                      r"(?::(?P<port>\d{1,5}))?")
_EXPECTED = "expected HOST:PORT or tcp://HOST:PORT, the address `dask scheduler` prints"


def check_address(address: str) -> str:
    """The scheduler address in distributed's form, or an InputError saying why not."""
    where = f"--scheduler {address!r}"
    m = _ADDRESS.fullmatch(address.strip())
    if not m:
        raise InputError(where, None, f"not an address: {_EXPECTED}")
    scheme, port = m.group("scheme") or "tcp", m.group("port")
    if scheme not in _SCHEMES:
        hint = " (http:// is the dashboard's, not the scheduler's)" if scheme in ("http", "https") else ""
        raise InputError(where, None, f"{scheme}:// is not a scheduler protocol{hint}: {_EXPECTED}")
    if port is not None and not 0 < int(port) < 65536:
        raise InputError(where, None, f"port {port} is not a port (1 to 65535): {_EXPECTED}")
    return f"{scheme}://{m.group('host')}" + (f":{port}" if port else "")


def on_cluster(batches_for, task, address: str, timeout: float, progress=None) -> list:
    """``task(batch)`` of every batch of ``batches_for(threads on the cluster)``
    on the scheduler at ``address``, in batch order."""
    work = _run(batches_for, task, address, timeout, progress)
    with _quiet("distributed"):   # what goes wrong is raised as an InputError: no log lines besides
        if not _in_event_loop():
            return asyncio.run(work)
        # called from a running event loop (a notebook): ours runs on a thread of its own
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(1) as thread:
            return thread.submit(asyncio.run, work).result()


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@contextmanager
def _quiet(name: str):
    """Silence a logger and all below it (each may carry its own level:
    dask's configuration gives distributed.client one)."""
    names = [name] + [n for n in list(logging.root.manager.loggerDict) if n.startswith(name + ".")]
    logs = [logging.getLogger(n) for n in names]
    levels = [log.level for log in logs]
    for log in logs:
        log.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for log, level in zip(logs, levels):
            log.setLevel(level)


async def _run(batches_for, task, address, timeout, progress) -> list:
    from concurrent.futures import CancelledError
    from distributed import Client
    where = f"--scheduler {address}"
    client = Client(address, asynchronous=True, timeout=timeout, set_as_default=False)
    try:
        threads = await _connect(client, address, timeout)
        batches = batches_for(threads)
        try:
            return await _gather(client, task, batches, progress)
        except (OSError, CancelledError) as exc:   # the connection closed; its tasks cancelled
            why = getattr(exc, "reason", None) or _reason(exc)
            raise InputError(where, None, f"lost the scheduler while reading the ranks: {why}") from None
    finally:
        await _close(client, timeout)


async def _connect(client, address: str, timeout: float) -> int:
    """Threads on the cluster, once it has a worker."""
    where = f"--scheduler {address}"
    try:
        # distributed's timeout covers reaching the port (and says why it
        # could not); ours, a little longer, the handshake after it
        await asyncio.wait_for(client, timeout + 1)
    except (asyncio.TimeoutError, TimeoutError):
        raise InputError(where, None, f"no answer from a dask scheduler within {timeout:g} s "
                         "(is it one? --scheduler-timeout waits longer)") from None
    except OSError as exc:     # refused, reset, unreachable, unknown host
        why = _tcp_refusal(address, timeout) or _reason(exc)
        raise InputError(where, None, f"cannot connect to a dask scheduler: {why}") from None
    except Exception as exc:
        if address.startswith(("tls:", "wss:")):   # no TLS settings in dask's configuration
            raise InputError(where, None, f"cannot connect over TLS: {_reason(exc)}") from None
        # a server speaking some other protocol: its bytes decode to anything
        raise InputError(where, None, "the server does not answer as a dask scheduler: "
                         f"it sent what dask cannot decode ({type(exc).__name__})") from None
    try:
        await asyncio.wait_for(client.wait_for_workers(1), timeout)
        nthreads = await asyncio.wait_for(client.nthreads(), timeout)
    except (asyncio.TimeoutError, TimeoutError):
        raise InputError(where, None, f"the scheduler has no worker after {timeout:g} s "
                         "(start one with `dask worker ADDRESS`; --scheduler-timeout waits longer)") from None
    except OSError as exc:
        raise InputError(where, None, f"lost the scheduler: {_reason(exc)}") from None
    return max(sum(nthreads.values()), 1)


async def _gather(client, task, batches, progress) -> list:
    from distributed import KilledWorker, as_completed

    from .rank_pool import worker_died
    futures = client.map(task, batches, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    out = [None] * len(batches)
    async for fut in as_completed(futures, loop=client.loop):
        i = index[fut.key]
        try:
            out[i] = await fut
        except KilledWorker:
            raise InputError(batches[i][0], None, worker_died(batches[i], "--scheduler")) from None
        if hasattr(out[i], "raise_it"):   # a refused file: no point reading the rest
            out[i].raise_it()
        if progress:
            progress(len(batches[i]))
    return out


async def _close(client, timeout: float) -> None:
    # the scheduler may be the reason we are leaving: do not wait on it long
    try:
        await asyncio.wait_for(client.close(), timeout)
    except Exception:   # noqa: BLE001 - nothing left to tell the user
        pass


def _tcp_refusal(address: str, timeout: float) -> str | None:
    """Why the scheduler's port cannot be reached, asked once more directly:
    distributed retries until its timeout and its last attempt, cut short
    by the deadline, often says only that it was cancelled."""
    import socket
    m = _ADDRESS.fullmatch(address)
    if not m or not m.group("port"):
        return None
    try:
        socket.create_connection((m.group("host").strip("[]"), int(m.group("port"))), timeout).close()
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__
    return None


def _reason(exc: BaseException) -> str:
    """Why, from the innermost cause (distributed wraps the OSError that
    says it, "Connection refused", in its own)."""
    root = exc
    while root.__cause__ is not None:
        root = root.__cause__
    if isinstance(root, (asyncio.CancelledError, asyncio.TimeoutError, TimeoutError)):
        return "timed out"
    why = root.strerror if isinstance(root, OSError) and root.strerror else str(root)
    why = " ".join(re.sub(r"\bin <[^>]*>:?", "", why).split()) or type(root).__name__
    return why if len(why) <= 200 else why[:197] + "..."
