"""A guard in front of the MCP SDK's stdin: every request gets a JSON-RPC answer.

The SDK drops a line it cannot validate without answering — a lone surrogate in the
arguments (valid JSON, not valid Unicode), a line that is not JSON at all, JSON that is no
JSON-RPC message (`42`, `[1,2,3]`, an object without a method), or one nested deeper than its
parser takes — and the client then waits for its own timeout. The guard reads stdin on a
thread, passes every sound line through a pipe the SDK reads as its stdin, and answers the
others itself, as JSON-RPC 2.0 says: -32700 (parse error) with id null, -32600 (invalid
request) or -32602 (invalid params) with the request's id when it has one. Nesting is bounded
(MAX_DEPTH) and the checks never recurse, so no line can end the thread; whatever a check
raises is answered too, and the thread reads on.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import threading
from typing import Any

_SURROGATE = re.compile("[\\ud800-\\udfff]")
MAX_DEPTH = 64  # levels of [ and { in a whole message; the SDK's own parser gives up near 200
_write_lock = threading.Lock()
_wire: int | None = None  # our own copy of fd 1: the SDK diverts fd 1 to stderr once it runs
# Set once the main thread has imported the SDK: the guard's thread importing it at the same
# time would meet half-initialised modules. Cleared by install(), set by sdk_loaded().
_sdk = threading.Event()
_sdk.set()
SDK_WAIT_S = 60.0


def install() -> None:
    """Put the guard between the real stdin (fd 0) and the SDK, which keeps reading fd 0."""
    global _wire
    _sdk.clear()
    _wire = os.dup(1)
    real_stdin = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)
    threading.Thread(target=_pump, args=(real_stdin, write_end), name="memevo-mcp-stdin", daemon=True).start()


def sdk_loaded() -> None:
    """The main thread has imported the MCP SDK: the guard may use it."""
    _sdk.set()


def _pump(source_fd: int, sink_fd: int) -> None:
    with os.fdopen(source_fd, "rb") as source, os.fdopen(sink_fd, "wb") as sink:
        for line in source:
            problem = safe_check(line)
            if problem is None:
                try:
                    sink.write(line)
                    sink.flush()
                except OSError:  # the SDK stopped reading: it is shutting down
                    break
            else:
                with contextlib.suppress(OSError):  # the client closed our stdout: nobody to answer
                    answer(problem)
    # Leaving the block closes the pipe: the SDK sees end of input, as with the real stdin.


def safe_check(line: bytes) -> dict[str, Any] | None:
    """check(), and an internal-error answer instead of any exception it raises."""
    try:
        return check(line)
    except Exception as exc:  # never the end of the thread, and of stdin with it
        logging.getLogger("memevo.mcp").warning("could not check a request line", exc_info=True)
        request_id: str | int | None = None
        with contextlib.suppress(Exception):
            request_id = _shallow_id(line)
        return _error(
            request_id, -32603, f"internal error: the request could not be checked ({exc.__class__.__name__})"
        )


def check(line: bytes) -> dict[str, Any] | None:
    """None for a line the SDK can take; else the error answer to send instead."""
    if not line.strip():
        return None
    try:
        message = json.loads(line)
    except RecursionError:  # json's own limit, far above MAX_DEPTH
        return _too_deep(_shallow_id(line))
    except ValueError as exc:  # also invalid UTF-8
        return _error(None, -32700, f"parse error: the line is not JSON ({exc.__class__.__name__})")
    request_id = _request_id(message)
    depth, where = _walk(message)
    if depth > MAX_DEPTH:
        return _too_deep(request_id)
    if where is not None:
        return _error(
            request_id,
            -32602,
            f"invalid params: {where} holds a lone surrogate (text that is not valid Unicode); nothing was done",
        )
    return _shape(line, message, request_id)


def _too_deep(request_id: str | int | None) -> dict[str, Any]:
    return _error(
        request_id,
        -32600,
        f"invalid request: the message nests deeper than {MAX_DEPTH} levels; nothing was done",
    )


def _request_id(message: Any) -> str | int | None:
    request_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        return None
    return request_id


_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}:]')


def _shallow_id(line: bytes) -> str | int | None:
    """The id of a message too deep for json to parse, read from its top level alone (a scan,
    no recursion), so that the client gets its answer rather than waiting for its timeout."""
    if not line.lstrip().startswith(b"{"):
        return None
    depth = 0
    key = b""
    for token in _TOKENS.finditer(line):
        text = token.group()
        if text in (b"[", b"{"):
            depth += 1
        elif text in (b"]", b"}"):
            depth -= 1
        elif depth == 1 and text == b":" and key == b'"id"':
            rest = line[token.end() : token.end() + 4096].lstrip()
            if rest[:1] in (b"[", b"{"):
                return None
            try:
                value, _ = json.JSONDecoder().raw_decode(rest.decode("utf-8", "replace"))
            except ValueError:
                return None
            return _request_id({"id": value})
        elif depth == 1:
            key = text
    return None


def _walk(message: Any) -> tuple[int, str | None]:
    """The message's nesting depth and where it first holds a lone surrogate, without
    recursion; the walk stops past MAX_DEPTH (the message is refused whatever it holds)."""
    depth = 0
    found: str | None = None
    stack: list[tuple[Any, str, int]] = [(message, "the request", 1)]
    while stack:
        value, path, level = stack.pop()
        if isinstance(value, str):
            if found is None and _SURROGATE.search(value):
                found = path
            continue
        if not isinstance(value, dict | list):
            continue
        depth = max(depth, level)
        if depth > MAX_DEPTH:
            return depth, found
        if isinstance(value, dict):
            items = [(item, f"{path}.{key}"[:120], level + 1) for key, item in value.items()]
            items += [(key, path, level + 1) for key in value]
        else:
            items = [(item, f"{path}[{index}]"[:120], level + 1) for index, item in enumerate(value)]
        stack.extend(reversed(items))
    return depth, found


def _shape(line: bytes, message: Any, request_id: str | int | None) -> dict[str, Any] | None:
    """The SDK's own validation of a message, answered here rather than dropped there."""
    _sdk.wait(SDK_WAIT_S)
    from mcp import types  # imported by the main thread first (mcp_server.main)

    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:  # pydantic's ValidationError
        pass
    else:
        return None
    if isinstance(message, list):
        what = "a batch (a JSON array) is not supported: send one JSON-RPC message per line"
    elif not isinstance(message, dict):
        what = f"the line is a bare JSON {_KINDS.get(type(message), 'number')}, not a JSON-RPC 2.0 message"
    elif message.get("jsonrpc") != "2.0":
        what = 'the message lacks "jsonrpc": "2.0"'
    elif "method" not in message and "result" not in message and "error" not in message:
        what = 'the message has no "method" (nor "result" or "error")'
    else:
        what = "the message's fields do not fit a JSON-RPC request, notification or response"
    return _error(request_id, -32600, f"invalid request: {what}; nothing was done")


_KINDS = {str: "string", bool: "true or false", type(None): "null"}


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def answer(reply: dict[str, Any]) -> None:
    """One os.write of one short line: not split between the SDK's own writes to stdout."""
    data = (json.dumps(reply, ensure_ascii=True) + "\n").encode("ascii")
    with _write_lock:
        os.write(1 if _wire is None else _wire, data)
