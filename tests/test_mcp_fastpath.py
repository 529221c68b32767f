"""The MCP server's first answers while the SDK loads (core/mcp_fastpath.py; issue 30, item 7:
the CodeBuddy CLI holds its first hook until its MCP servers answer). A real `memevo mcp`
process, twice: the first start's SDK answers are kept, the second start gives the same ones
from the front, each request is answered exactly once, and the tools work behind it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from deadlines import HANG_S

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def session(requests: list[dict[str, Any]], answers: int) -> list[dict[str, Any]]:
    """Run `memevo mcp --client codebuddy`, send the requests, read `answers` replies, then close
    its stdin and read whatever else it prints before it exits."""
    with subprocess.Popen(
        [sys.executable, "-m", "memevo.core.cli", "mcp", "--client", "codebuddy"],
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


def by_id(replies: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    ids = [r.get("id") for r in replies]
    assert len(ids) == len(set(ids)), replies  # exactly one answer per request
    return {r["id"]: r for r in replies}


@pytest.mark.usefixtures("isolated_home")
def test_the_second_start_answers_initialize_and_the_tools_as_the_sdk_did() -> None:
    cache = Path(os.environ["MEMEVO_HOME"]) / "cache" / "mcp-codebuddy.json"
    start = [INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    listing = [{"jsonrpc": "2.0", "id": n, "method": "tools/list"} for n in (1, 2)]
    first = by_id(session([*start, *listing], 3))
    assert cache.exists()
    kept = json.loads(cache.read_text(encoding="utf-8"))["answers"]
    assert set(kept) == {"initialize:2025-06-18", "tools/list"}

    call = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "memory_config", "arguments": {}},
    }
    second = by_id(session([*start, *listing, call], 4))
    for n in (0, 1, 2):
        assert second[n]["result"] == first[n]["result"], n
    names = [t["name"] for t in second[1]["result"]["tools"]]
    assert "memory_propose" in names and "memory_resolve" in names
    assert "error" not in second[3] and second[3]["result"]["content"], second[3]  # the SDK behind it

    other = dict(INITIALIZE, params=dict(INITIALIZE["params"], protocolVersion="2024-11-05"))
    third = by_id(session([other], 1))  # another version: the SDK's own answer, kept for next time
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
    [reply] = session([INITIALIZE], 1)
    assert reply["result"]["serverInfo"]["name"] == "memory-self-evolution"
