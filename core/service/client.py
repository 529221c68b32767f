"""Talking to the running service from the CLI (and later the MCP servers and the panel)."""

from __future__ import annotations

import json
import os
import socket
from typing import Any

from ..errors import InvalidInput, MemevoError, NotFound, StoreBusy
from . import protocol

_ERRORS: dict[str, type[MemevoError]] = {
    "InvalidInput": InvalidInput,
    "NotFound": NotFound,
    "StoreBusy": StoreBusy,
}


class ServiceUnavailable(Exception):
    """No service answers on the socket; the caller may work on the store itself."""


def _connect(timeout_s: float) -> tuple[socket.socket, str | None]:
    if protocol.transport() == "tcp":
        endpoint = protocol.read_endpoint()
        if endpoint is None:
            raise ServiceUnavailable("no service endpoint file")
        try:
            conn = socket.create_connection(("127.0.0.1", int(endpoint["port"])), timeout=timeout_s)
        except OSError as exc:
            raise ServiceUnavailable(str(exc)) from exc
        return conn, str(endpoint["token"])
    path = protocol.socket_path()
    if not path.exists():
        raise ServiceUnavailable("no socket")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(timeout_s)
    try:
        conn.connect(str(path))
    except OSError as exc:  # refused: a socket file left by a service that died
        conn.close()
        raise ServiceUnavailable(str(exc)) from exc
    return conn, None


def call(op: str, params: dict[str, Any], timeout_s: float = 60.0) -> dict[str, Any]:
    conn, token = _connect(timeout_s)
    conn.settimeout(timeout_s)
    try:
        conn.sendall(protocol.request(op, params, token))
        data = _read_line(conn)
    except TimeoutError as exc:
        raise MemevoError(f"the memevo service did not answer {op} within {timeout_s:g} s") from exc
    finally:
        conn.close()
    reply = json.loads(data)
    if reply.get("ok"):
        return dict(reply["result"])
    if reply.get("code") == "stale":
        raise ServiceUnavailable("the running service is from another version")
    error = _ERRORS.get(str(reply.get("code")), MemevoError)
    raise error(str(reply.get("error")))


def _read_line(conn: socket.socket) -> bytes:
    chunks = []
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            break
    if not chunks:
        raise ServiceUnavailable("the service closed the connection without answering")
    return b"".join(chunks)


def call_or_local(op: str, params: dict[str, Any]) -> dict[str, Any]:
    """Through the service when one runs (it owns the store), else on the store directly."""
    if os.environ.get("MEMEVO_NO_SERVICE") != "1":
        try:
            return call(op, params)
        except ServiceUnavailable:
            pass
    from ..ops import call_local

    return call_local(op, params)
