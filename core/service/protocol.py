"""The wire format between hooks, CLI, MCP servers and the service (JSON, one line each way).

hooks/hookio.py keeps its own copy of PROTOCOL_VERSION (hooks import nothing of ours);
a test keeps the two equal.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .. import __version__, paths

PROTOCOL_VERSION = 1
# MEMEVO_BUILD_OVERRIDE lets a test run a service that believes it is an older release.
BUILD = os.environ.get("MEMEVO_BUILD_OVERRIDE") or __version__
MAX_LINE = 64 * 1024 * 1024


def socket_path() -> Path:
    return paths.data_dir() / "memevo.sock"


def lock_path() -> Path:
    return paths.data_dir() / "service.lock"


def info_path() -> Path:
    return paths.data_dir() / "service.json"


def request(op: str, params: dict[str, Any]) -> bytes:
    return (json.dumps({"v": PROTOCOL_VERSION, "build": BUILD, "op": op, "params": params}) + "\n").encode()


def reply_ok(result: dict[str, Any]) -> bytes:
    return (
        json.dumps({"v": PROTOCOL_VERSION, "ok": True, "result": result}, ensure_ascii=False) + "\n"
    ).encode()


def reply_error(code: str, message: str, **extra: Any) -> bytes:
    body = {"v": PROTOCOL_VERSION, "ok": False, "code": code, "error": message} | extra
    return (json.dumps(body, ensure_ascii=False) + "\n").encode()


def installed_build() -> str:
    """The version of the files on disk now; differs from BUILD after an upgrade in place."""
    text = (Path(__file__).resolve().parents[1] / "__init__.py").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith("__version__"):
            return line.split("=", 1)[1].strip().strip("\"'")
    return BUILD
