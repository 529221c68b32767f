"""The MCP server under hostile lines and an unwell service: real stdio servers, real services.

- every line gets a JSON-RPC answer, however deep or odd, and the server reads on;
- a service that took a request and hangs (SIGSTOP) costs a tool at most CALL_WAIT_S in all,
  with one sentence saying what did not answer and what to do;
- memory_search right after the service died waits for the new one's model, then answers.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import servicerun
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcpwire import INIT
from memevo.core import mcp_stdin
from test_service import FACT, _populate


class RawServer:
    """`memevo mcp` driven line by line, each answer read before the next line is sent."""

    def __init__(self, home: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memevo.core.cli", "mcp", "--client", "claude"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=os.environ | {"MEMEVO_HOME": str(home), "MEMEVO_HEADLESS": "1"},
        )

    def send(self, line: bytes, wait_s: float = 30) -> dict[str, Any] | None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()
        if not select.select([self.proc.stdout], [], [], wait_s)[0]:
            return None
        answer = self.proc.stdout.readline()
        return json.loads(answer) if answer else None

    def close(self) -> str:
        self.proc.kill()
        _, stderr = self.proc.communicate()
        return stderr.decode(errors="replace")


def _tool_line(request_id: int, arguments: bytes) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_config","arguments":%s}}'
        % (request_id, arguments)
    )


def test_every_line_is_answered_and_the_server_reads_on(data_dir: Path) -> None:
    server = RawServer(data_dir)
    try:
        assert server.send(json.dumps(INIT).encode())["result"]  # type: ignore[index]
        server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}', wait_s=0.5)
        nested = {
            2: _tool_line(2, b'{"key":' + b"[" * 990 + b"]" * 990 + b"}"),  # 2 KB: ended the guard thread
            3: _tool_line(3, b'{"key":' + b"[" * 150 + b"]" * 150 + b"}"),  # the SDK dropped it unanswered
            4: _tool_line(4, b'{"key":' + b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"}"),
        }
        for request_id, line in nested.items():
            reply = server.send(line)
            assert reply is not None and reply["id"] == request_id, reply
            assert reply["error"]["code"] == -32600 and "nests deeper than" in reply["error"]["message"]
        for line, request_id in [(b"[1,2,3]", None), (b"42", None), (b'{"jsonrpc":"2.0","id":7}', 7)]:
            reply = server.send(line)
            assert reply is not None, line
            assert reply["id"] == request_id and reply["error"]["code"] == -32600, reply
        reply = server.send(b'{"jsonrpc":"2.0","id":8,"method":')
        assert reply is not None and reply["id"] is None and reply["error"]["code"] == -32700
        listed = server.send(b'{"jsonrpc":"2.0","id":9,"method":"tools/list"}')
        assert listed is not None and listed["id"] == 9 and len(listed["result"]["tools"]) == 7
        assert server.proc.poll() is None
    finally:
        stderr = server.close()
    assert "Traceback" not in stderr and "Exception in thread" not in stderr, stderr


def test_no_exception_in_a_check_ends_the_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a check raises is answered, and the next line still reaches the SDK."""
    answers: list[dict[str, Any]] = []
    monkeypatch.setattr(mcp_stdin, "answer", answers.append)
    real_check = mcp_stdin.check

    def check(line: bytes) -> dict[str, Any] | None:
        if b"boom" in line:
            raise MemoryError("boom")
        return real_check(line)

    monkeypatch.setattr(mcp_stdin, "check", check)
    source_r, source_w = os.pipe()
    sink_r, sink_w = os.pipe()
    pump = threading.Thread(target=mcp_stdin._pump, args=(source_r, sink_w), daemon=True)
    pump.start()
    good = b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
    os.write(source_w, b'{"id": 3, "boom": 1}\n' + b"[" * 5000 + b"\n" + good)
    os.close(source_w)
    pump.join(10)
    with os.fdopen(sink_r, "rb") as sink:
        assert sink.read() == good
    assert [(a["id"], a["error"]["code"]) for a in answers] == [(3, -32603), (None, -32600)]


# -- against a real service --------------------------------------------------------------------
def _text(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def _timed_calls(home: Path, calls: list[tuple[str, dict[str, Any]]], before: Any = None) -> list[Any]:
    """The calls at once in one session; each with its own duration, in seconds."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memevo.core.cli", "mcp", "--client", "claude"],
        env=os.environ | {"MEMEVO_HOME": str(home), "MEMEVO_HEADLESS": "1", "BROWSER": "true"},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        if before is not None:
            before()

        async def timed(name: str, args: dict[str, Any]) -> tuple[Any, float]:
            started = time.monotonic()
            result = await session.call_tool(name, args)
            return result, time.monotonic() - started

        return list(await asyncio.gather(*(timed(name, args) for name, args in calls)))


@pytest.mark.usefixtures("provisioned_model")
def test_a_hung_service_costs_a_tool_30_s_and_one_clear_sentence(data_dir: Path) -> None:
    from memevo.core.mcp_server import CALL_WAIT_S

    with servicerun.populated(data_dir, _populate):
        pid = int(servicerun.ping(data_dir)["pid"])  # type: ignore[index]
        os.kill(pid, signal.SIGSTOP)  # takes connections and requests, answers nothing
        try:
            results = asyncio.run(
                _timed_calls(
                    data_dir,
                    [
                        ("memory_list", {}),  # through the service, else locally
                        ("memory_search", {"query": "灰度开关"}),  # only through the service
                        ("memory_update", {"action": "replace", "id": "abc", "text": "足够长的新正文文字"}),
                    ],
                )
            )
        finally:
            os.kill(pid, signal.SIGCONT)
    for result, seconds in results:
        text = _text(result)
        assert result.is_error, text
        assert CALL_WAIT_S - 1 < seconds < 45, (seconds, text)  # not 30 s per attempt, nor 60 s
        assert f"the memevo service (PID {pid}) took " in text, text
        assert f"within {CALL_WAIT_S:g} s" in text and "seems stuck" in text and f"end process {pid}" in text
        assert text.count("within") == 1 and text.count(".") == 0, text  # one sentence, one reason
    assert "may or may not have been applied" in _text(results[2][0])  # a write: it cannot know


@pytest.mark.usefixtures("provisioned_model")
def test_search_waits_for_a_new_service_to_load_its_model(data_dir: Path) -> None:
    with servicerun.populated(data_dir, _populate):
        old = int(servicerun.ping(data_dir)["pid"])  # type: ignore[index]

        def kill() -> None:
            os.kill(old, signal.SIGKILL)  # the next call starts a new service, model not loaded

        ((found, seconds),) = asyncio.run(
            _timed_calls(data_dir, [("memory_search", {"query": "灰度开关"})], kill)
        )
        status = servicerun.ping(data_dir)
        assert status is not None and status["pid"] != old and status["model_ready"]
        assert not found.is_error, _text(found)
        assert FACT in _text(found) and seconds < 45
