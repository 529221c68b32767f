"""The MCP server's first answers, given while the SDK still loads.

The MCP SDK takes most of a second to import (pydantic models for every protocol type), and
the CodeBuddy CLI holds its first hook until its MCP servers have answered (so the import
delayed every `codebuddy -p`). This front runs before that import. It stands between the
client's stdio and the SDK's (two pipes), answers `initialize` and `tools/list` at once with
the answers the SDK itself gave last time (kept per client, for this build of memevo, of the
SDK and of Python), and forwards every line to the SDK as before; the SDK's own reply to a
request answered here is dropped, and refreshes the kept answer. Without a kept answer for
that exact request (the first start, another protocol version, a new build) the SDK answers
as it always has. POSIX only (it waits for its pipe to drain with FIONREAD); elsewhere the
server starts as before. Standard library only: nothing here may cost the time it saves.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

FAST = ("initialize", "tools/list")
DRAIN_S = 5.0  # at the end: how long the SDK's last replies may take to reach the client


class Front:
    def __init__(self, cache_path: Path, build: str) -> None:
        self.cache_path = cache_path
        self.build = build
        self.answers: dict[str, Any] = self._load()
        self.asked: dict[str, str] = {}  # request id (as JSON) -> its signature, for the SDK's reply
        self.answered: set[str] = set()  # request ids answered here: the SDK's reply is dropped
        self.lock = threading.Lock()
        self.write_lock = threading.Lock()
        self.busy = False
        self.out = -1
        self.sdk_out = -1
        self.back: threading.Thread | None = None

    # -- the kept answers -----------------------------------------------------------------------------
    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.cache_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if (
            not isinstance(data, dict)
            or data.get("build") != self.build
            or not isinstance(data.get("answers"), dict)
        ):
            return {}
        return dict(data["answers"])

    def _save(self) -> None:
        from ..core import atomic  # stdlib only, like this module

        try:
            text = json.dumps({"build": self.build, "answers": self.answers})
            atomic.write_text(self.cache_path, text, mode=0o600)
        except OSError:
            pass  # only the next start's speed depends on it

    # -- the pipes ------------------------------------------------------------------------------------
    def start(self) -> None:
        client_in, self.out = os.dup(0), os.dup(1)
        sdk_in_read, sdk_in_write = os.pipe()
        self.sdk_out, sdk_out_write = os.pipe()
        os.dup2(sdk_in_read, 0)
        os.close(sdk_in_read)
        os.dup2(sdk_out_write, 1)
        os.close(sdk_out_write)
        threading.Thread(
            target=self._front, args=(client_in, sdk_in_write), name="memevo-mcp-front", daemon=True
        ).start()
        self.back = threading.Thread(target=self._back, name="memevo-mcp-back", daemon=True)
        self.back.start()

    def _front(self, source_fd: int, sink_fd: int) -> None:
        """The client's lines, each to the SDK; an initialize or tools/list answered first when kept."""
        with os.fdopen(source_fd, "rb") as source, os.fdopen(sink_fd, "wb") as sink:
            for line in source:
                with contextlib.suppress(Exception):  # never the end of the client's input
                    self._maybe_answer(line)
                try:
                    sink.write(line)
                    sink.flush()
                except OSError:
                    break

    def _maybe_answer(self, line: bytes) -> None:
        message = _message(line)
        if message is None or message.get("method") not in FAST or "id" not in message:
            return
        signature = _signature(message)
        if signature is None:
            return
        key = json.dumps(message["id"])
        with self.lock:
            self.asked[key] = signature
            kept = self.answers.get(signature)
            if kept is None:
                return
            self.answered.add(key)
        self._write({"jsonrpc": "2.0", "id": message["id"], "result": kept})

    def _back(self) -> None:
        """The SDK's lines to the client, but for its replies to requests answered here."""
        pending = b""
        while True:
            try:
                chunk = os.read(self.sdk_out, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            self.busy = True
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if not self._dropped(line):
                    self._write_bytes(line + b"\n")
            self.busy = bool(pending)
        if pending:
            self._write_bytes(pending)
        self.busy = False

    def _dropped(self, line: bytes) -> bool:
        message = _message(line)
        if message is None or "id" not in message or "method" in message:
            return False
        key = json.dumps(message["id"])
        with self.lock:
            signature = self.asked.pop(key, None)
            if signature is None:
                return False
            if isinstance(message.get("result"), dict) and self.answers.get(signature) != message["result"]:
                self.answers[signature] = message["result"]
                self._save()
            if key in self.answered:
                self.answered.discard(key)
                return True
        return False

    def _write(self, reply: dict[str, Any]) -> None:
        self._write_bytes((json.dumps(reply, ensure_ascii=True) + "\n").encode("ascii"))

    def _write_bytes(self, data: bytes) -> None:
        with self.write_lock:
            view = memoryview(data)
            while view:
                try:
                    written = os.write(self.out, view)
                except OSError:  # the client went away
                    return
                view = view[written:]

    def finish(self) -> None:
        """The SDK is done: let its last replies through before the process ends."""
        import fcntl
        import termios

        deadline = time.monotonic() + DRAIN_S
        while time.monotonic() < deadline and self.back is not None and self.back.is_alive():
            try:
                waiting = int.from_bytes(
                    fcntl.ioctl(self.sdk_out, termios.FIONREAD, b"\0\0\0\0"), sys.byteorder
                )
            except OSError:
                break
            if not waiting and not self.busy:
                break
            time.sleep(0.01)


def _message(line: bytes) -> dict[str, Any] | None:
    if len(line) > 1 << 20 or not line.lstrip().startswith(b"{"):
        return None
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) and message.get("jsonrpc") == "2.0" else None


def _signature(message: dict[str, Any]) -> str | None:
    """What makes the SDK's answer the same: the method, and initialize's protocol version (it
    answers the version asked for when it knows it). A paged tools/list is left to the SDK."""
    params = message.get("params") or {}
    if not isinstance(params, dict):
        return None
    if message["method"] == "initialize":
        version = params.get("protocolVersion")
        return f"initialize:{version}" if isinstance(version, str) and len(version) < 40 else None
    if params.get("cursor") is not None:
        return None
    return "tools/list"


def start(client: str) -> Front | None:
    """The front for this client's server, running; None where it does not apply."""
    from ..core import __version__, envvars, paths

    if os.name != "posix" or envvars.MCP_FASTPATH.is_set_to("0"):
        return None

    here = Path(__file__).resolve().parent
    stamps = [
        f"{p.name}:{p.stat().st_mtime_ns}:{p.stat().st_size}"
        for p in (here / "server.py", here / "stdin_guard.py")
    ]
    build = "|".join([__version__, sys.version.split()[0], _sdk_stamp(), *stamps])
    front = Front(paths.data_dir() / "cache" / f"mcp-{client}.json", build)
    front.start()
    return front


def _sdk_stamp() -> str:
    """The installed MCP SDK, from its metadata folder's name (no import of the SDK, nor of
    importlib.metadata)."""
    for folder in sys.path:
        try:
            names = [
                n for n in os.listdir(folder or ".") if n.startswith("mcp-") and n.endswith(".dist-info")
            ]
        except OSError:
            continue
        if names:
            return sorted(names)[-1]
    return "mcp-unknown"
