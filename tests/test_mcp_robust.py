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
from deadlines import HANG_S
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcpwire import INIT
from memevo.mcpserver import stdin_guard as mcp_stdin
from test_service import FACT, _populate


class RawServer:
    """`memevo mcp` driven line by line, each answer read before the next line is sent."""

    def __init__(self, home: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memevo.cli", "mcp", "--client", "claude"],
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
        assert listed is not None and listed["id"] == 9 and len(listed["result"]["tools"]) == 8
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
        args=["-m", "memevo.cli", "mcp", "--client", "claude"],
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
    from memevo.mcpserver.server import CALL_WAIT_S

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
    # memory_update writes nothing itself (a rewrite is a proposal the user confirms): no write to doubt
    assert "propose_edit" in _text(results[2][0]) and "may or may not" not in _text(results[2][0])


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


# -- the first answers while the SDK loads (mcpserver/fastpath.py) ----------------------------------------
# The CodeBuddy CLI holds its first hook until its MCP servers answer. A real `memevo mcp`
# process, twice: the first start's SDK answers are kept, the second start gives the same ones
# from the front, each request is answered exactly once, and the tools work behind it.
FAST_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def fast_session(requests: list[dict[str, Any]], answers: int) -> list[dict[str, Any]]:
    """Run `memevo mcp --client codebuddy`, send the requests, read `answers` replies, then close
    its stdin and read whatever else it prints before it exits."""
    with subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "mcp", "--client", "codebuddy"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=os.environ | {"MEMEVO_HEADLESS": "1"},
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for request in requests:
            proc.stdin.write((json.dumps(request) + "\n").encode())
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline()) for _ in range(answers)]
        proc.stdin.close()
        replies += [json.loads(line) for line in proc.stdout if line.strip()]
        proc.wait(HANG_S)
    return replies


def replies_by_id(replies: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    ids = [r.get("id") for r in replies]
    assert len(ids) == len(set(ids)), replies  # exactly one answer per request
    return {r["id"]: r for r in replies}


@pytest.mark.usefixtures("isolated_home")
def test_the_second_start_answers_initialize_and_the_tools_as_the_sdk_did() -> None:
    cache = Path(os.environ["MEMEVO_HOME"]) / "cache" / "mcp-codebuddy.json"
    start = [FAST_INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    listing = [{"jsonrpc": "2.0", "id": n, "method": "tools/list"} for n in (1, 2)]
    first = replies_by_id(fast_session([*start, *listing], 3))
    assert cache.exists()
    kept = json.loads(cache.read_text(encoding="utf-8"))["answers"]
    assert set(kept) == {"initialize:2025-06-18", "tools/list"}

    call = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "memory_config", "arguments": {}},
    }
    second = replies_by_id(fast_session([*start, *listing, call], 4))
    for n in (0, 1, 2):
        assert second[n]["result"] == first[n]["result"], n
    names = [t["name"] for t in second[1]["result"]["tools"]]
    assert "memory_propose" in names and "memory_resolve" in names
    assert "error" not in second[3] and second[3]["result"]["content"], second[3]  # the SDK behind it

    # another protocol version: the SDK's own answer, kept for next time
    other = dict(FAST_INITIALIZE, params=dict(FAST_INITIALIZE["params"], protocolVersion="2024-11-05"))
    third = replies_by_id(fast_session([other], 1))
    assert third[0]["result"]["protocolVersion"] == "2024-11-05"
    assert "initialize:2024-11-05" in json.loads(cache.read_text(encoding="utf-8"))["answers"]


@pytest.mark.usefixtures("isolated_home")
def test_a_kept_answer_of_another_build_is_not_used() -> None:
    cache = Path(os.environ["MEMEVO_HOME"]) / "cache" / "mcp-codebuddy.json"
    cache.parent.mkdir(parents=True)
    stale = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "serverInfo": {"name": "stale", "version": "0"},
    }
    cache.write_text(json.dumps({"build": "an older memevo", "answers": {"initialize:2025-06-18": stale}}))
    [reply] = fast_session([FAST_INITIALIZE], 1)
    assert reply["result"]["serverInfo"]["name"] == "memory-self-evolution"
