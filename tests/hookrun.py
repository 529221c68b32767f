"""Helpers to run the real hook executable and to stand in for the service in golden tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
HOOK = REPO / "hooks" / "memevo_hook.py"


def run_hook(
    client: str, event: str, stdin: bytes | str, env: dict[str, str] | None = None, timeout: float = 30
) -> subprocess.CompletedProcess[bytes]:
    """Exactly as a client runs it: the interpreter with -I -S, the hook path, client, event."""
    import sys

    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    full_env = os.environ | {"MEMEVO_HEADLESS": "1"} | (env or {})
    return subprocess.run(
        [sys.executable, "-I", "-S", str(HOOK), client, event],
        input=data,
        capture_output=True,
        env=full_env,
        timeout=timeout,
    )


class FakeService:
    """A Unix socket that records each request and answers with a canned reply (or hangs)."""

    def __init__(self, data_dir: Path, reply: dict[str, Any] | None = None, hang: bool = False) -> None:
        self.path = data_dir / "memevo.sock"
        data_dir.mkdir(parents=True, exist_ok=True)
        self.reply = reply if reply is not None else {"context": None}
        self.hang = hang
        self.requests: list[dict[str, Any]] = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(self.path))
        self.sock.listen(64)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                if data:
                    self.requests.append(json.loads(data))
                if self.hang:
                    self.stop.wait(30)
                    continue
                body = {"v": 1, "ok": True, "result": self.reply}
                conn.sendall((json.dumps(body, ensure_ascii=False) + "\n").encode())

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        self.thread.join(5)
        self.path.unlink(missing_ok=True)
