"""The relay hook's other half: a client's raw hook payload in, the client's raw output out.

The hook (hooks/memevo_hook.py) imports nothing but `_socket` and sends stdin's bytes; here the
client's adapter, the same code the hook falls back on (hooks/handler.py, hooks/clients/*,
loaded as memevo.hooks.*), reads the payload, the service's hook_* operation answers through
`dispatch`, and the adapter renders the client's output. What the hook would have written to
logs/hooks.log comes back with it, for the hook to write.

Params: client, event, payload (hex of stdin's bytes), environ (the few variables adapters
read), cwd (the hook's folder). Result: {"relay": "1:<kind>:<hex of the output>:<hex of
each log line, joined by dots>"}: hex and colons only, so the hook finds it in the reply line
without a JSON parser.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ...hooks import client_table, clients, handler
from ...hooks import relay as hook_relay
from ..errors import InvalidInput, MemevoError

log = logging.getLogger("memevo.service")
Dispatch = Callable[[str, dict[str, Any]], dict[str, Any]]
FRAME = hook_relay.FRAME
MAX_PAYLOAD_HEX = 2 * hook_relay.RELAY_MAX  # in hex


def warm() -> None:
    """Load the adapters now (at the service's start) rather than in the first hook's time."""
    for name in client_table.CLIENTS:
        clients.load(name)


def answer(dispatch: Dispatch, params: dict[str, Any]) -> dict[str, Any]:
    client, event, payload = params.get("client"), params.get("event"), params.get("payload")
    if not isinstance(client, str) or not isinstance(event, str) or not isinstance(payload, str):
        raise InvalidInput("hook_relay needs client, event and payload")
    if len(payload) > MAX_PAYLOAD_HEX:
        raise InvalidInput("hook_relay: payload too large")
    try:
        raw = bytes.fromhex(payload)
    except ValueError as exc:
        raise InvalidInput("hook_relay: the payload is not hex") from exc
    given = params.get("environ")
    environ = {k: v for k, v in (given.items() if isinstance(given, dict) else ()) if isinstance(v, str)}
    cwd = params.get("cwd") if isinstance(params.get("cwd"), str) else None
    lines: list[str] = []

    def ask(op: str, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """As the hook's own request would end: a refusal or a failure is a RuntimeError
        carrying the error the service would have replied (the hook logs it, injects nothing)."""
        try:
            return dispatch(op, request)
        except MemevoError as exc:
            raise RuntimeError(str(exc)) from exc
        except Exception as exc:
            log.exception("%s failed", op)
            raise RuntimeError(f"{op} failed: {exc}") from exc

    try:
        out, kind = handler.handle(client, event, raw, environ, ask=ask, log=lines.append, cwd=cwd)
        return {"relay": frame(kind, out, lines)}
    except Exception as exc:  # as the hook's own crash guard: logged, nothing printed
        log.exception("hook_relay: %s %s failed", client, event)
        lines.append(f"hook crashed: {exc.__class__.__name__}: {exc}")
        return {"relay": frame(None, "", lines)}


def frame(kind: str | None, out: str, lines: list[str]) -> str:
    logged = ".".join(line.encode("utf-8", "replace").hex() for line in lines)
    return f"{FRAME}:{kind or ''}:{out.encode('utf-8').hex()}:{logged}"
