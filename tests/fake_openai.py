"""A local server speaking OpenAI's chat/completions with scripted answers (no httpx mocking)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A script step: ("json", obj) | ("text", str) | ("status", code) | ("sleep", seconds) | ("garbage", str)
Step = tuple[str, Any]


def _is_cue_request(body: dict[str, Any]) -> bool:
    from memevo.core.learning.cue_writer import CUES_SYSTEM

    messages = body.get("messages") or [{}]
    return bool(messages[0].get("content") == CUES_SYSTEM)


class FakeOpenAI:
    def __init__(self, script: list[Step] | Callable[[dict[str, Any]], Step]) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        # Recall-cue requests (core/learning/cue_writer.py) are answered on their own, so a
        # test's script of judge answers is not consumed by the cues written after a change.
        self.cue_requests: list[dict[str, Any]] = []
        self.cue_answer: Step = ("json", {"cues": ["a scripted cue", "另一个提示"]})
        self.cue_for: Callable[[dict[str, Any]], Step] | None = None  # per request, when set
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                if _is_cue_request(body):
                    owner.cue_requests.append(body)
                    kind, value = owner.cue_for(body) if owner.cue_for is not None else owner.cue_answer
                else:
                    owner.requests.append(body)
                    owner.headers.append(dict(self.headers))
                    kind, value = owner._next(body)
                if kind == "sleep":
                    time.sleep(value)
                    kind, value = "json", {"remember": False}
                if kind == "status":
                    self._send(value, b'{"error": {"message": "scripted failure"}}')
                    return
                if kind == "garbage":
                    self._send(200, value.encode())
                    return
                content = json.dumps(value, ensure_ascii=False) if kind == "json" else value
                answer = {
                    "id": "c1",
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                }
                self._send(200, json.dumps(answer, ensure_ascii=False).encode())

            def _send(self, status: int, payload: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the client gave up (a timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _next(self, body: dict[str, Any]) -> Step:
        if callable(self.script):
            return self.script(body)
        return self.script.pop(0) if self.script else ("json", {"remember": False})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
