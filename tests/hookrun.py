"""Helpers to run the real hook executable and to stand in for the service in golden tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any

from deadlines import HANG_S

REPO = Path(__file__).resolve().parents[1]
HOOK = REPO / "hooks" / "memevo_hook.py"
# stdin no client sends on purpose: each must leave the hook quiet (exit 0, nothing printed)
MALFORMED_STDIN = {
    "empty": b"",
    "blank": b"   ",
    "broken-json": b"{not json",
    "array": b"[1, 2, 3]",
    "string": b'"just a string"',
    "binary": bytes(range(256)) * 64,
    "bad-utf8": b"\xff\xfe\x00garbage",
}


def run_hook(
    client: str, event: str, stdin: bytes | str, env: dict[str, str] | None = None, timeout: float = HANG_S
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
    """A Unix socket that records each request and answers with a canned reply (or hangs).

    The relay hook's request (hook_relay) runs through the service's own relay code
    (core/service/relay.py, the client's adapter in this process); what it asks of the service
    (hook_prompt, ...) is what gets recorded and answered. relay=False: an older service,
    which refuses hook_relay, so the hook answers on its own."""

    def __init__(
        self, data_dir: Path, reply: dict[str, Any] | None = None, hang: bool = False, relay: bool = True
    ) -> None:
        self.path = data_dir / "memevo.sock"
        data_dir.mkdir(parents=True, exist_ok=True)
        self.reply = reply if reply is not None else {"context": None}
        self.hang = hang
        self.relay = relay
        self.relayed = 0  # hook_relay requests answered
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
                chunks: list[bytes] = []
                while not chunks or not chunks[-1].endswith(b"\n"):
                    chunk = conn.recv(1 << 20)
                    if not chunk:
                        break
                    chunks.append(chunk)
                data = b"".join(chunks)
                request = json.loads(data) if data else {}
                if request.get("op") == "hook_relay":
                    body = self._relay(request)
                else:
                    if data:
                        self.requests.append(request)
                    if self.hang:
                        self.stop.wait(30)
                    body = {"v": 1, "ok": True, "result": self.reply}
                if self.hang:
                    continue
                conn.sendall((json.dumps(body, ensure_ascii=False) + "\n").encode())

    def _relay(self, request: dict[str, Any]) -> dict[str, Any]:
        from memevo.core.service import relay

        if not self.relay:
            return {"v": 1, "ok": False, "code": "InvalidInput", "error": "unknown op 'hook_relay'"}

        def dispatch(op: str, params: dict[str, Any]) -> dict[str, Any]:
            self.requests.append({"v": request["v"], "op": op, "params": json.loads(json.dumps(params))})
            if self.hang:
                self.stop.wait(30)
            return dict(json.loads(json.dumps(self.reply)))

        self.relayed += 1
        return {"v": 1, "ok": True, "result": relay.answer(dispatch, request["params"])}

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        self.thread.join(5)
        self.path.unlink(missing_ok=True)
