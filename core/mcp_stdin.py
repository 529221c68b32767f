"""A guard in front of the MCP SDK's stdin: every request gets a JSON-RPC answer.

The SDK drops a line it cannot validate without answering — a lone surrogate in the
arguments (valid JSON, not valid Unicode) or a line that is not JSON at all — and the client
then waits for its own timeout. The guard reads stdin on a thread, passes every sound line
through a pipe the SDK reads as its stdin, and answers the others itself: -32602 (invalid
params) with the request's id, or -32700 (parse error) with id null, as JSON-RPC says.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

_SURROGATES = range(0xD800, 0xE000)
_write_lock = threading.Lock()
_wire: int | None = None  # our own copy of fd 1: the SDK diverts fd 1 to stderr once it runs


def install() -> None:
    """Put the guard between the real stdin (fd 0) and the SDK, which keeps reading fd 0."""
    global _wire
    _wire = os.dup(1)
    real_stdin = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)
    threading.Thread(target=_pump, args=(real_stdin, write_end), name="memevo-mcp-stdin", daemon=True).start()


def _pump(source_fd: int, sink_fd: int) -> None:
    with os.fdopen(source_fd, "rb") as source, os.fdopen(sink_fd, "wb") as sink:
        for line in source:
            problem = check(line)
            if problem is None:
                sink.write(line)
                sink.flush()
            else:
                answer(problem)
    # Leaving the block closes the pipe: the SDK sees end of input, as with the real stdin.


def check(line: bytes) -> dict[str, Any] | None:
    """None for a line the SDK can take; else the error answer to send instead."""
    if not line.strip():
        return None
    try:
        message = json.loads(line)
    except ValueError as exc:  # also invalid UTF-8
        return _error(None, -32700, f"parse error: the line is not JSON ({exc.__class__.__name__})")
    where = _lone_surrogate(message)
    if where is None:
        return None
    request_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    return _error(
        request_id,
        -32602,
        f"invalid params: {where} holds a lone surrogate (text that is not valid Unicode); nothing was done",
    )


def _lone_surrogate(value: Any, path: str = "the request") -> str | None:
    if isinstance(value, str):
        return path if any(ord(ch) in _SURROGATES for ch in value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _lone_surrogate(key, path) or _lone_surrogate(item, f"{path}.{key}"[:120])
            if found:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _lone_surrogate(item, f"{path}[{index}]"[:120])
            if found:
                return found
    return None


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def answer(reply: dict[str, Any]) -> None:
    """One os.write of one short line: not split between the SDK's own writes to stdout."""
    data = (json.dumps(reply, ensure_ascii=True) + "\n").encode("ascii")
    with _write_lock:
        os.write(1 if _wire is None else _wire, data)
