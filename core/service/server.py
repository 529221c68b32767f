"""The service's socket server (asyncio), its single-instance lock, and `memevo serve`.

The same server runs headless (its own asyncio loop) and inside the tray app's Qt loop
(qasync). Work that touches the store or the model runs on a small thread pool so the loop
keeps accepting connections; the store and the encoder have their own locks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ...hooks import wire
from .. import atomic, paths
from ..errors import MemevoError, StoreDamaged
from ..privacy.redaction import RedactingFilter
from ..store.damage import damage_in
from . import protocol, routes
from .host import ServiceHost
from .idle import IdleWatch, exit_when_idle

log = logging.getLogger("memevo.service")


class AlreadyRunning(MemevoError):
    pass


@dataclass
class InstanceLock:
    """An flock on service.lock: released by the kernel when the process dies, so a crashed
    service never blocks the next one."""

    handle: IO[str] | None = None

    def acquire(self, wait_s: float = 0.0) -> None:
        """wait_s: a hook that replaces a stale service waits for it to finish stopping."""
        path = protocol.lock_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the process's life
        deadline = time.monotonic() + wait_s
        while True:
            try:
                _lock_file(handle)
                break
            except (BlockingIOError, PermissionError, OSError) as exc:
                if time.monotonic() < deadline:
                    time.sleep(0.1)
                    continue
                handle.close()
                raise AlreadyRunning(
                    f"the memevo service is already running ({holder_description()})"
                ) from exc
        self.handle = handle

    def release(self) -> None:
        if self.handle is not None:
            _unlock_file(self.handle)
            self.handle.close()
            self.handle = None


def _lock_file(handle: IO[str]) -> None:
    if os.name == "nt":  # pragma: no cover - Windows only
        import msvcrt

        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
    else:
        import fcntl

        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def _unlock_file(handle: IO[str]) -> None:
    if os.name == "nt":  # pragma: no cover - Windows only
        import msvcrt

        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
    else:
        import fcntl

        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def holder_description() -> str:
    try:
        info = json.loads(protocol.info_path().read_text(encoding="utf-8"))
        return f"pid {info['pid']}, version {info['build']}, socket {info['socket']}"
    except (OSError, ValueError, KeyError):
        return "pid unknown"


# glibc keeps what requests freed in its heaps (one per request thread): over thousands of
# prompts a service grows this way, all of it given back by malloc_trim; and DuckDB keeps
# writes' log and undo buffers until it checkpoints by itself at 16 MB of log (most of it back
# at a CHECKPOINT). So after requests, at most this often, off the request's reply: a
# checkpoint, DuckDB's cache of blocks let go (Store.release_cache), then a trim (each cheap
# when little was written).
TRIM_EVERY_S = 30.0
# And once requests pause this long after some came: a burst (a session's prompts, an import)
# otherwise left up to 30 s of its garbage in the heaps until the next request came, which for
# a resident process can be hours (the soak's growth: `soak_growth_pct`).
IDLE_TRIM_S = 2.0


class HeapTrim:
    def __init__(self) -> None:
        self._last = time.monotonic()
        self._lock = threading.Lock()
        self._requests = 0  # requests answered so far
        self._trimmed_at = 0  # how many had been answered at the last trim

    def due(self) -> bool:
        """After a request: the last trim is TRIM_EVERY_S old."""
        with self._lock:
            self._requests += 1
            if time.monotonic() - self._last < TRIM_EVERY_S:
                return False
            self._last, self._trimmed_at = time.monotonic(), self._requests
            return True

    def seen(self) -> int:
        with self._lock:
            return self._requests

    def idle_due(self, seen: int) -> bool:
        """IDLE_TRIM_S after a request: none came since (`seen` is still the count) and some
        came since the last trim."""
        with self._lock:
            if self._requests != seen or self._trimmed_at == seen:
                return False
            self._last, self._trimmed_at = time.monotonic(), seen
            return True

    @staticmethod
    def trim(host: Any, at_pause: bool = False) -> None:
        """The host's store and, once loaded, its engine. At a pause (not between a burst's
        requests) the store is also reopened when DuckDB has run enough queries to hold
        memory only closing it gives back (Store.reopen_if_worn)."""
        from ..encoder.encoder import release_free_memory

        store, engine = host.store, host.engine
        if engine is not None:  # pages mapped from the model's files: mapped again by the next prompt
            engine.encoder.release_pages()
        reopened = False
        if at_pause:
            try:
                reopened = store.reopen_if_worn()  # closing checkpoints and empties the cache
            except Exception:
                log.error("could not open the store again", exc_info=True)
        if not reopened:
            try:
                store.checkpoint()
                store.release_cache()  # the blocks the requests and the checkpoint read
            except Exception:  # a damaged or read-only store, a transaction under way: next time
                log.debug("no checkpoint after requests", exc_info=True)
        release_free_memory()


@dataclass
class Server:
    host: ServiceHost
    executor: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(4, "memevo-req"))
    stopping: asyncio.Event | None = None
    _server: asyncio.AbstractServer | None = None

    token: str | None = None
    activity: IdleWatch | None = None  # a headless service's idle exit counts requests
    heap: HeapTrim = field(default_factory=HeapTrim)

    async def start(self) -> Path:
        self.stopping = asyncio.Event()
        self.host.ctx.request_stop = self._request_stop
        if protocol.transport() == "tcp":
            return await self._start_tcp()
        path = protocol.socket_path()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # left by a crashed service; we hold the instance lock, so it is not live
        old_umask = os.umask(0o177)  # the socket is created 0600: user-only
        try:
            self._server = await asyncio.start_unix_server(
                self._connection, path=str(path), limit=protocol.MAX_LINE
            )
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        return path

    async def _start_tcp(self) -> Path:
        """Loopback only, and every request must carry the token from a user-only file."""
        import secrets

        self.token = secrets.token_hex(24)
        self._server = await asyncio.start_server(
            self._connection, host="127.0.0.1", port=0, limit=protocol.MAX_LINE
        )
        port = self._server.sockets[0].getsockname()[1]
        endpoint = {"port": port, "token": self.token, "pid": os.getpid()}
        atomic.write_text(protocol.endpoint_path(), json.dumps(endpoint) + "\n", mode=0o600)
        return protocol.endpoint_path()

    def _request_stop(self) -> None:
        """The shutdown operation: runs on the loop (an inline operation), so no thread hop."""
        assert self.stopping is not None
        self.stopping.set()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        with contextlib.suppress(FileNotFoundError):
            protocol.socket_path().unlink()
        with contextlib.suppress(FileNotFoundError):
            protocol.endpoint_path().unlink()
        self.executor.shutdown(wait=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readline()
            writer.write(await self._answer(line))
            await writer.drain()
        except (ConnectionResetError, BrokenPipeError) as exc:
            # Routine: a caller that stopped reading (`memevo service status | grep -q …`, a
            # hook its client killed at the deadline). Nothing was lost on our side.
            log.debug("a client left before reading its reply (%s)", type(exc).__name__)
        except Exception:
            log.exception("a request failed")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(self, line: bytes) -> bytes:
        try:
            request = json.loads(line)
            op, params = str(request["op"]), dict(request.get("params") or {})
        except (ValueError, KeyError, TypeError):
            return protocol.reply_error("invalid", "not a memevo request")
        if self.token is not None and request.get("token") != self.token:
            return protocol.reply_error("forbidden", "missing or wrong token")
        kind = routes.TABLE.get(op)
        # A probe is always answered; anything else from another build (an op this build may not
        # even know) gets "stale", so the caller starts the service of its own build.
        stale = None if kind is not None and kind.any_version else self._version_problem(request)
        if stale:
            return stale
        try:
            if kind is not None and kind.inline:  # on the loop itself: never queued behind busy requests
                result = self.host.handle(op, params)
            else:
                loop = asyncio.get_running_loop()
                result = await loop.run_in_executor(self.executor, self._handle, op, params)
                if self.heap.due():
                    loop.run_in_executor(self.executor, self.heap.trim, self.host)
                else:
                    loop.call_later(IDLE_TRIM_S, self._trim_if_idle, self.heap.seen())
        except MemevoError as exc:
            return protocol.reply_error(type(exc).__name__, str(exc))
        except Exception as exc:
            log.exception("%s failed", op)
            damage = damage_in(exc, self.host.store.path)
            if damage is not None:  # a damaged block met by a request: named, with its remedy
                return protocol.reply_error(StoreDamaged.__name__, str(damage))
            return protocol.reply_error("internal", f"{op} failed: {exc}")
        return protocol.reply_ok(result)

    def _trim_if_idle(self, seen: int) -> None:
        if self.stopping is None or self.stopping.is_set() or not self.heap.idle_due(seen):
            return
        with contextlib.suppress(RuntimeError):  # the executor shut down meanwhile
            asyncio.get_running_loop().run_in_executor(self.executor, self.heap.trim, self.host, True)

    def _handle(self, op: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.activity is None:
            return self.host.handle(op, params)
        with self.activity.request():
            return self.host.handle(op, params)

    def _version_problem(self, request: dict[str, Any]) -> bytes | None:
        if request.get("v") == protocol.PROTOCOL_VERSION and request.get("build") in (None, protocol.BUILD):
            return None
        # After an upgrade in place the files on disk are newer than this process: step aside
        # so the caller starts the new service, rather than serving it with old code.
        if protocol.installed_build() != protocol.BUILD and self.stopping is not None:
            log.warning(
                "memevo was upgraded on disk (%s); this service (%s) stops",
                protocol.installed_build(),
                protocol.BUILD,
            )
            self.stopping.set()
        return protocol.reply_error(
            "stale",
            "protocol or build mismatch",
            service_v=protocol.PROTOCOL_VERSION,
            service_build=protocol.BUILD,
        )


def write_info(socket_file: Path) -> None:
    info = {
        "pid": os.getpid(),
        "build": protocol.BUILD,
        "protocol": protocol.PROTOCOL_VERSION,
        "socket": str(socket_file),
    }
    atomic.write_text(protocol.info_path(), json.dumps(info) + "\n", mode=0o600)


def setup_logging(name: str) -> Path:
    log_file = paths.log_dir() / f"{name}.log"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(log_file, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())  # a prompt or key quoted in a message never reaches the file
    root = logging.getLogger("memevo")
    root.setLevel(logging.INFO)
    root.addHandler(handler)
    return log_file


@contextlib.asynccontextmanager
async def hosted_service() -> AsyncIterator[tuple[ServiceHost, Server, Path]]:
    """The store, the host and the listening server, shared by `memevo serve` and the tray;
    everything is closed again, in order, however the body ends. The caller holds the lock."""
    from ..errors import StoreDamaged
    from ..store.database import Store

    with contextlib.suppress(OSError):  # started again: a Quit from the tray's menu is over
        (paths.data_dir() / wire.QUIT_FILE).unlink()
    tightened = paths.tighten_data_dir()  # an install from before files were user-only
    if tightened:
        log.info("made %d files and folders in the data dir user-only", tightened)
    try:
        store, damage = Store.open(), None
    except StoreDamaged as exc:
        # Start anyway: the tray shows it, `memevo service status` and every command say it,
        # hooks answer from the cached texts, and `memevo repair` asks this service to stop.
        log.error("%s", exc)
        store, damage = Store.unusable(paths.store_path(), exc), exc
    host = ServiceHost(store)
    if damage is not None:
        from . import damaged

        damaged.mark(host.ctx, damage)
    else:
        host.start_model_load()  # while the hooks' texts are written and the server starts
    server = Server(host)
    try:
        endpoint = await server.start()
        write_info(endpoint)
        if damage is None:
            host.ctx.refresh_caches()
        yield host, server, endpoint
    finally:
        await server.close()
        host.close()
        store.close()
        with contextlib.suppress(FileNotFoundError):
            protocol.info_path().unlink()


async def run_headless(announce: Any = print, wait_lock_s: float = 0.0) -> None:
    """`memevo serve`: lock, open the store, listen at once, load the model in the background.

    Started on demand by a hook or an MCP server, it exits after serviceIdleMinutes without
    requests (the next caller starts it again; hooks answer from the cached texts meanwhile).
    The tray app hosts its own service and never comes through here, so it never idles out."""
    lock = InstanceLock()
    lock.acquire(max(wait_lock_s, 2.0))  # a caller probing the lock holds it for an instant
    try:
        async with hosted_service() as (host, server, endpoint):
            announce(f"memevo service listening on {endpoint} (pid {os.getpid()}); loading the model")
            watch = IdleWatch()
            server.activity = watch
            loader = threading.Thread(target=_load_and_announce, args=(host, announce), daemon=True)
            loader.start()
            loop = asyncio.get_running_loop()
            assert server.stopping is not None
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, server.stopping.set)
            idle = asyncio.create_task(exit_when_idle(watch, loader, server.stopping))
            await server.stopping.wait()
            idle.cancel()
    finally:
        lock.release()
        log.info("service stopped")


def _load_and_announce(host: ServiceHost, announce: Any) -> None:
    host.load_engine()
    if host.engine is not None:
        announce(f"memevo service ready: model loaded in {host.ctx.ready_after_s:.1f} s")
    else:
        announce(f"memevo service running without recall: {host.ctx.engine_error}")


def ping(timeout_s: float = 1.0) -> dict[str, Any] | None:
    """The running service's status, or None when none answers."""
    from .client import ServiceUnavailable, call

    try:
        return call("ping", {}, timeout_s=timeout_s)
    except ServiceUnavailable:
        return None


def wait_ready(timeout_s: float = 120.0, need_model: bool = True) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        status = ping()
        if status and (status["model_ready"] or status["model_error"] or not need_model):
            return status
        time.sleep(0.2)
    raise TimeoutError(f"the memevo service was not ready within {timeout_s:g} s")


def socket_alive(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.5)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()
