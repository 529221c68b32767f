"""A local stand-in for the Anthropic Messages API: answers every request with a short text
(SSE when streaming, as the real API does) and keeps each request body for the test."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeAnthropic:
    """`script(body)` may return the content blocks of the next answer (text or tool_use),
    so a test can play the model: call a tool, read its result, answer."""

    def __init__(self, reply: str = "好的。", script: Any = None) -> None:
        self.reply = reply
        self.script = script
        self.bodies: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"raw": raw.decode("utf-8", "replace")}
                if self.path.startswith("/v1/messages") and "count_tokens" not in self.path:
                    owner.bodies.append(body)
                    if body.get("stream"):
                        self._stream(body)
                    else:
                        self._json(200, owner._message(body))
                elif "count_tokens" in self.path:
                    self._json(200, {"input_tokens": 100})
                else:
                    self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "no"}})

            def do_GET(self) -> None:
                self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "no"}})

            def _json(self, status: int, data: dict[str, Any]) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _stream(self, body: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                message = owner._message(body)
                start = dict(message, content=[], stop_reason=None)
                events: list[tuple[str, dict[str, Any]]] = [
                    ("message_start", {"type": "message_start", "message": start})
                ]
                for index, block in enumerate(message["content"]):
                    if block["type"] == "text":
                        opening: dict[str, Any] = {"type": "text", "text": ""}
                        delta: dict[str, Any] = {"type": "text_delta", "text": block["text"]}
                    else:
                        opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                        delta = {
                            "type": "input_json_delta",
                            "partial_json": json.dumps(block["input"], ensure_ascii=False),
                        }
                    events += [
                        (
                            "content_block_start",
                            {"type": "content_block_start", "index": index, "content_block": opening},
                        ),
                        (
                            "content_block_delta",
                            {"type": "content_block_delta", "index": index, "delta": delta},
                        ),
                        ("content_block_stop", {"type": "content_block_stop", "index": index}),
                    ]
                stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
                events += [
                    (
                        "message_delta",
                        {"type": "message_delta", "delta": stop, "usage": {"output_tokens": 3}},
                    ),
                    ("message_stop", {"type": "message_stop"}),
                ]
                for name, data in events:
                    self.wfile.write(
                        f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
                    )
                    self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _message(self, body: dict[str, Any]) -> dict[str, Any]:
        content = self.script(body) if self.script else None
        content = content or [{"type": "text", "text": self.reply}]
        tool_use = any(block["type"] == "tool_use" for block in content)
        return {
            "id": f"msg_{len(self.bodies)}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-test"),
            "content": content,
            "stop_reason": "tool_use" if tool_use else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 3},
        }

    def texts(self) -> str:
        """Everything the model was sent, as one searchable string."""
        return "\n".join(json.dumps(b, ensure_ascii=False) for b in self.bodies)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
