"""The wire format between hooks, CLI, MCP servers and the service (JSON, one line each way).

The version, the data folder's files and the installed build are the wire's (hooks/wire.py),
which the hooks, this module and every client of the service read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...hooks import wire
from .. import __version__, envvars, paths

PROTOCOL_VERSION = wire.PROTOCOL_VERSION
# MEMEVO_BUILD_OVERRIDE lets a test run a service that believes it is an older release.
BUILD = envvars.BUILD_OVERRIDE.get() or __version__
MAX_LINE = 64 * 1024 * 1024


def socket_path() -> Path:
    return paths.data_dir() / wire.SOCKET_FILE


def lock_path() -> Path:
    return paths.data_dir() / "service.lock"


def info_path() -> Path:
    return paths.data_dir() / "service.json"


def recorded_pid() -> int | None:
    """The pid the running (or last) service wrote into service.json, if it is readable."""
    try:
        pid = json.loads(info_path().read_text(encoding="utf-8"))["pid"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return pid if isinstance(pid, int) and not isinstance(pid, bool) else None


def transport() -> str:
    """A Unix socket (mode 600) on Linux and macOS; on Windows, loopback TCP with a token
    kept in a user-only file. MEMEVO_TRANSPORT=tcp selects the latter anywhere (tests)."""
    return "tcp" if wire.uses_tcp() else "unix"


def endpoint_path() -> Path:
    return paths.data_dir() / wire.ENDPOINT_FILE


def read_endpoint() -> dict[str, Any] | None:
    try:
        data = json.loads(endpoint_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "port" in data and "token" in data else None


def request(op: str, params: dict[str, Any], token: str | None = None) -> bytes:
    body = {"v": PROTOCOL_VERSION, "build": BUILD, "op": op, "params": params}
    if token:
        body["token"] = token
    return (json.dumps(body) + "\n").encode()


def reply_ok(result: dict[str, Any]) -> bytes:
    return (
        json.dumps({"v": PROTOCOL_VERSION, "ok": True, "result": result}, ensure_ascii=False) + "\n"
    ).encode()


def reply_error(code: str, message: str, **extra: Any) -> bytes:
    body = {"v": PROTOCOL_VERSION, "ok": False, "code": code, "error": message} | extra
    return (json.dumps(body, ensure_ascii=False) + "\n").encode()


def installed_build() -> str:
    """The version of the files on disk now; differs from BUILD after an upgrade in place."""
    return wire.build() or BUILD
