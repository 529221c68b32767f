"""A local stand-in for the OpenAI chat/completions API as the CodeBuddy Code CLI calls it
(POST {base}/chat/completions; SSE `chat.completion.chunk`s when the body says stream, plain
JSON otherwise), keeping each request body for the test. It is also the refusing HTTPS proxy:
with HTTP(S)_PROXY pointing here every CONNECT is logged and answered 403, so nothing the CLI
tries leaves the machine (see docs: client-protocols.md, Appendix C §1)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# What `script(body)` returns for the next answer: None (the default reply), a str (that text),
# or a list of tool calls, each {"name": …, "arguments": dict or JSON str, "id": optional}.
Answer = str | list[dict[str, Any]] | None
USAGE = {"prompt_tokens": 100, "completion_tokens": 3, "total_tokens": 103}


class FakeOpenAIChat:
    """`script(body)` plays the model: answer with text, or call tools and read their results
    in the next request (role "tool" messages)."""

    def __init__(
        self, reply: str = "好的。", script: Callable[[dict[str, Any]], Answer] | None = None
    ) -> None:
        self.reply = reply
        self.script = script
        self.bodies: list[dict[str, Any]] = []  # every chat/completions request body, in order
        self.headers: list[dict[str, str]] = []
        self.others: list[tuple[str, str]] = []  # (method, path) of anything else, CONNECTs included
        self.errors: list[str] = []  # the script's exceptions (each answered 500): a test fails on them
        self._lock = threading.Lock()
        self._calls = 0
        self.turns_ended = 0  # answers without tool calls: each ends a turn (the CLI's Stop hooks run)
        self.client_log = ""  # what the client around it logged, set by the test: for failures' messages
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_CONNECT(self) -> None:
                owner._other("CONNECT", self.path)
                self.send_response(403)
                self.send_header("content-length", "0")
                self.end_headers()
                self.close_connection = True

            def do_GET(self) -> None:
                owner._other("GET", self.path)
                self._json(404, {"error": {"message": "not found (fake server)", "type": "not_found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.headers.get("content-encoding", "").lower() == "gzip" and raw:
                    import gzip

                    raw = gzip.decompress(raw)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                if not self.path.split("?")[0].endswith("/chat/completions") or not isinstance(body, dict):
                    owner._other("POST", self.path)
                    self._json(404, {"error": {"message": "not found (fake server)", "type": "not_found"}})
                    return
                with owner._lock:
                    owner.bodies.append(body)
                    owner.headers.append(dict(self.headers))
                try:
                    content, calls = owner._answer(body)
                except Exception as exc:  # a broken script: said, never a hung connection
                    owner.errors.append(f"{exc.__class__.__name__}: {exc}")
                    self._json(
                        500, {"error": {"message": f"fake model script failed: {exc}", "type": "test"}}
                    )
                    return
                if body.get("stream"):
                    self._stream(body, content, calls)
                else:
                    self._json(200, owner._completion(body, content, calls))

            def _json(self, status: int, data: dict[str, Any]) -> None:
                payload = json.dumps(data, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _stream(self, body: dict[str, Any], content: str | None, calls: list[dict[str, Any]]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                cid = owner._id()
                model = body.get("model", "fake-model")

                def send(data: dict[str, Any] | str) -> None:
                    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
                    self.wfile.write(f"data: {text}\n\n".encode())
                    self.wfile.flush()

                def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
                    choice = {"index": 0, "delta": delta, "finish_reason": finish}
                    send(
                        {
                            "id": cid,
                            "object": "chat.completion.chunk",
                            "created": int(time.time()),
                            "model": model,
                            "choices": [choice],
                        }
                    )

                if calls:
                    chunk({"role": "assistant", "content": None})
                    for index, call in enumerate(calls):
                        opening = {"name": call["function"]["name"], "arguments": ""}
                        chunk(
                            {
                                "tool_calls": [
                                    {
                                        "index": index,
                                        "id": call["id"],
                                        "type": "function",
                                        "function": opening,
                                    }
                                ]
                            }
                        )
                        arguments = call["function"]["arguments"]
                        chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]})
                    chunk({}, "tool_calls")
                else:
                    text = content or ""
                    chunk({"role": "assistant", "content": ""})
                    chunk({"content": text[: len(text) // 2]})
                    chunk({"content": text[len(text) // 2 :]})
                    chunk({}, "stop")
                send(
                    {
                        "id": cid,
                        "object": "chat.completion.chunk",
                        "created": int(time.time()),
                        "model": model,
                        "choices": [],
                        "usage": USAGE,
                    }
                )
                send("[DONE]")
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.base = f"{self.url}/v1"  # CODEBUDDY_BASE_URL
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _other(self, method: str, path: str) -> None:
        with self._lock:
            self.others.append((method, path))

    def _id(self) -> str:
        with self._lock:
            self._calls += 1
            return f"chatcmpl-fake-{self._calls}"

    def _answer(self, body: dict[str, Any]) -> tuple[str | None, list[dict[str, Any]]]:
        answer = self.script(body) if self.script else None
        if isinstance(answer, list) and answer:
            calls = []
            for n, call in enumerate(answer):
                arguments = call.get("arguments", {})
                if not isinstance(arguments, str):
                    arguments = json.dumps(arguments, ensure_ascii=False)
                calls.append(
                    {
                        "id": call.get("id") or f"call_fake_{len(self.bodies)}_{n}",
                        "type": "function",
                        "function": {"name": call["name"], "arguments": arguments},
                    }
                )
            return None, calls
        with self._lock:
            self.turns_ended += 1
        return (answer if isinstance(answer, str) else self.reply), []

    def _completion(
        self, body: dict[str, Any], content: str | None, calls: list[dict[str, Any]]
    ) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": self._id(),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake-model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": USAGE,
        }

    def texts(self) -> str:
        """Everything the model was sent, as one searchable string (JSON-escaped as sent)."""
        return "\n".join(json.dumps(b, ensure_ascii=False) for b in self.bodies)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def text_of(content: Any) -> str:
    """A message's content as plain text (a string, or a list of {"type": "text", "text"} parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def tool_results(body: dict[str, Any]) -> dict[str, str]:
    """The role "tool" messages of a request: tool_call_id → its text."""
    return {
        str(m.get("tool_call_id")): text_of(m.get("content"))
        for m in body.get("messages") or []
        if m.get("role") == "tool"
    }
