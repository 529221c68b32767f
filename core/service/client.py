"""Talking to the running service from the CLI, the MCP servers and scripts.

`call` is one request. `call_or_local` is what commands use: through the service when one
runs (it owns the store), on the store directly when none does, and — the point of it — never
a wrong answer in between:
- a service that holds the instance lock but is not listening yet (starting, taking over) is
  waited for, with a line on a terminal after 2 s, instead of reporting the store "in use";
- a write whose reply was lost (the service died or hung after the request was sent) is never
  written again locally: it is retried through the service with the same request id (starting
  one if needed), which the service answers with the first result if it had applied it
  (core/store/applied.py); past the deadline it says plainly that it cannot know.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from ...hooks import wire
from .. import envvars
from ..errors import InvalidInput, MemevoError, NotFound, StoreBusy, StoreDamaged
from . import protocol, spawn

_ERRORS: dict[str, type[MemevoError]] = {
    "InvalidInput": InvalidInput,
    "NotFound": NotFound,
    "StoreBusy": StoreBusy,
    "StoreDamaged": StoreDamaged,
}
WAIT_S = float(envvars.SERVICE_WAIT_S.get() or 60)
ANNOUNCE_AFTER_S = 2.0


class ServiceUnavailable(Exception):
    """No service answers on the socket and nothing was sent; the caller may work locally."""


class ReplyLost(ServiceUnavailable):
    """The request was sent but no reply came (reset, closed, or no answer in time): the
    service may have applied it. Never redo a write locally after this."""


class NoAnswer(ReplyLost):
    """The service took the request and sent nothing back in time: it is busy or stuck."""


def _connect(timeout_s: float) -> tuple[Any, str | None]:
    """The service's socket, connected the way every client connects (hooks/wire.py)."""
    try:
        return wire.connect(time.monotonic() + timeout_s)
    except FileNotFoundError as exc:
        raise ServiceUnavailable("no service endpoint file" if wire.uses_tcp() else "no socket") from exc
    except (OSError, ValueError, IndexError) as exc:  # refused: a socket left by a service that died
        raise ServiceUnavailable(str(exc) or exc.__class__.__name__) from exc


def call(op: str, params: dict[str, Any], timeout_s: float = 60.0) -> dict[str, Any]:
    """One request. ServiceUnavailable: nothing was sent; ReplyLost: sent, no answer."""
    conn, token = _connect(timeout_s)
    conn.settimeout(timeout_s)
    try:
        try:
            conn.sendall(protocol.request(op, params, token))
        except OSError as exc:
            raise ReplyLost(f"the connection broke while sending {op}: {exc}") from exc
        try:
            data = _read_line(conn)
        except TimeoutError as exc:
            raise NoAnswer(f"the memevo service did not answer {op} within {timeout_s:g} s") from exc
        except OSError as exc:
            raise ReplyLost(f"the connection broke before the answer to {op}: {exc}") from exc
    finally:
        conn.close()
    reply = json.loads(data)
    if reply.get("ok"):
        return dict(reply["result"])
    if reply.get("code") == "stale":
        raise ServiceUnavailable("the running service is from another version")
    error = _ERRORS.get(str(reply.get("code")), MemevoError)
    raise error(str(reply.get("error")))


def _read_line(conn: Any) -> bytes:
    chunks = []
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            break
    if not chunks or not chunks[-1].endswith(b"\n"):
        raise ReplyLost("the service closed the connection without answering")
    return b"".join(chunks)


class _Waiting:
    """Says once, on a terminal, that we are waiting for the service (after 2 s)."""

    def __init__(self, op: str) -> None:
        self.op = op
        self.started = time.monotonic()
        self.said = False

    def tick(self, why: str) -> None:
        if self.said or time.monotonic() - self.started < ANNOUNCE_AFTER_S:
            return
        self.said = True
        if sys.stderr.isatty():
            print(f"memevo: {why}; waiting for it…", file=sys.stderr, flush=True)


def call_or_local(
    op: str,
    params: dict[str, Any],
    timeout_s: float = 60.0,
    wait_s: float | None = None,
    deadline: float | None = None,
    since: float | None = None,
) -> dict[str, Any]:
    """Through the service when one runs (or is starting), else on the store directly.

    deadline (a time.monotonic() value) bounds the whole call, the wait for each reply
    included: an MCP tool must answer within the client's own timeout, however stuck the
    service is; since (a time.monotonic() value): when the caller's wait began, so the
    message names the whole wait the user saw, not this call's share of it."""
    from ..ops.memory_ops import call_local
    from ..ops.table import TABLE
    from ..store import applied

    kind = TABLE.get(op)
    writes = kind is not None and kind.writes
    if writes and not params.get(applied.PARAM):
        params = {**params, applied.PARAM: applied.new_id()}
    if envvars.NO_SERVICE.is_set_to("1"):
        return _local(call_local, op, params)
    started = time.monotonic() if since is None else since
    bounded = deadline is not None
    if deadline is None:
        deadline = started + (WAIT_S if wait_s is None else wait_s)
    waiting = _Waiting(op)
    sent = stuck = False
    while True:
        try:
            return call(op, params, _attempt_s(timeout_s, deadline, bounded))
        except ReplyLost as exc:
            sent, stuck, why = True, isinstance(exc, NoAnswer), str(exc)
        except ServiceUnavailable as exc:
            if not spawn.lock_held():
                if not sent:
                    try:
                        return _local(call_local, op, params)
                    except StoreBusy:
                        if not spawn.lock_held():
                            raise  # another command holds the store: its own clear message
                why, stuck = "the memevo service is starting", False
            else:
                why, stuck = f"the memevo service is starting ({exc})", False
        if sent and not spawn.lock_held():
            spawn.start_detached()  # the service died with our request: retry through a new one
        if time.monotonic() >= deadline:
            waited = _waited_s(started)
            if stuck:
                raise MemevoError(_stuck(op, waited, writes))
            if sent and writes:
                raise MemevoError(
                    f"the connection to the memevo service was lost after sending {op} ({why}); "
                    "it may or may not have been applied — check with `memevo read` before trying again"
                )
            raise MemevoError(
                f"the memevo service did not answer {op} within {waited} s ({why}); see `memevo service status`"
            )
        waiting.tick(why)
        time.sleep(0.2)


def call_service(
    op: str,
    params: dict[str, Any],
    timeout_s: float = 60.0,
    wait_s: float | None = None,
    deadline: float | None = None,
    since: float | None = None,
) -> dict[str, Any]:
    """Only through the service (what needs its memory, like memory_resolve), starting one
    if none runs and waiting for it to listen; deadline as in call_or_local."""
    started = time.monotonic() if since is None else since
    bounded = deadline is not None
    if deadline is None:
        deadline = started + (WAIT_S if wait_s is None else wait_s)
    waiting = _Waiting(op)
    while True:
        try:
            return call(op, params, _attempt_s(timeout_s, deadline, bounded))
        except ServiceUnavailable as exc:
            if not spawn.lock_held():
                spawn.start_detached()
            if time.monotonic() >= deadline:
                waited = _waited_s(started)
                if isinstance(exc, NoAnswer):
                    raise MemevoError(_stuck(op, waited, writes=False)) from exc
                raise MemevoError(f"the memevo service did not answer {op} within {waited} s: {exc}") from exc
            waiting.tick("the memevo service is starting")
            time.sleep(0.2)


def _attempt_s(timeout_s: float, deadline: float, bounded: bool) -> float:
    """How long one attempt waits for its reply: never past a caller's deadline."""
    return min(timeout_s, max(deadline - time.monotonic(), 0.5)) if bounded else timeout_s


def _waited_s(started: float) -> int:
    """Whole seconds waited, rounded down: "did not answer within 30 s" stays true at 30.6 s,
    and a wait cut at a 30 s deadline is not reported as 31."""
    return int(time.monotonic() - started)


def _stuck(op: str, waited: int, writes: bool) -> str:
    """One sentence: the service took the request and never answered."""
    pid = protocol.recorded_pid()
    who = f"the memevo service (PID {pid})" if pid else "the memevo service"
    end = f"end process {pid}" if pid else "end the memevo service's process"
    if writes:
        return (
            f"{who} took {op} but did not answer it within {waited} s and seems stuck, so it may or may "
            f"not have been applied: {end}, then check with `memevo read` before trying again"
        )
    return f"{who} took {op} but did not answer it within {waited} s and seems stuck: {end} and try again"


def _local(call_local: Any, op: str, params: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = call_local(op, params)
    return result
