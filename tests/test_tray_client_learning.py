"""Client mode as a desktop user meets it: separate processes all the way, no side API.

A real `memevo setup --only claude` registers the hooks; a real `memevo tray` (offscreen: the
display is not the subject here) hosts the service; the registered UserPromptSubmit command
carries the user's words; a real MCP server (`memevo mcp --client claude`, through the
official SDK client) plays the client's model calling memory_propose. The tray's test hook
reads and answers its confirmation dialog as a user does.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import test_tray_learning
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from test_tray_learning import (
    dialog_for,
    memevo,
    pending,
    prompt_payload,
    rules,
    run_registered,
    wait_until,
)

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("provisioned_model")]
tray = test_tray_learning.tray  # the fixture: a real `memevo tray` with its test hook
WORDS = "以后提交信息都用英文写"
TEXT = "提交信息（commit message）一律用英文写"


def _set_up(data_dir: Path, confirm: bool) -> None:
    """A new user: install into Claude Code, no side API (learning auto → the client's model)."""
    (Path(os.environ["HOME"]) / ".claude").mkdir()
    memevo(data_dir, "setup", "--only", "claude")
    memevo(data_dir, "config", "confirm", "true" if confirm else "false")


def propose(data_dir: Path, **fields: Any) -> str:
    """The client's model calls memory_propose through our MCP server, from the project folder."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memevo.cli", "mcp", "--client", "claude"],
        env=os.environ | {"MEMEVO_HOME": str(data_dir)},
        cwd=os.environ["HOME"],  # where the prompt's session runs (prompt_payload's cwd)
    )

    async def call() -> str:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool(
                "memory_propose", {"text": TEXT, "category": "rule", "words": WORDS} | fields
            )
            return "\n".join(getattr(c, "text", "") for c in result.content)

    return asyncio.run(call())


def test_a_proposal_from_the_clients_model_reaches_the_dialog_and_the_store(
    data_dir: Path, tray: Callable[..., dict[str, Any]]
) -> None:
    _set_up(data_dir, confirm=True)
    assert run_registered(data_dir, "UserPromptSubmit", prompt_payload("s-client", WORDS)).returncode == 0
    answer = propose(data_dir)
    assert "确认弹窗" in answer, answer
    dialog = dialog_for(tray, WORDS)
    assert dialog["text"] == TEXT
    [waiting] = pending(data_dir)
    assert (waiting["client"], waiting["session"], waiting["words"]) == ("claude", "s-client", WORDS)
    assert rules(data_dir) == []  # nothing before the user answers
    refused = test_tray_learning._resolve_over_mcp(data_dir, dialog["job"], "create_rule")  # the model
    assert refused.is_error and rules(data_dir) == [], refused
    again = propose(data_dir)  # the model proposes it again: no second question, no second memory
    assert "已经提交过" in again, again
    tray(action="answer", job=dialog["job"], decision="create_rule", text=TEXT)
    written = wait_until("the confirmed rule", lambda: [r for r in rules(data_dir) if r["text"] == TEXT])
    assert len(written) == 1
    history = json.loads(memevo(data_dir, "history", written[0]["id"], "--json").stdout)
    [origin] = history["origins"]
    assert (origin["client"], origin["session"], origin["proposer"]) == ("claude", "s-client", "client")
    start = run_registered(
        data_dir, "SessionStart", {"session_id": "s-next", "hook_event_name": "SessionStart"}
    )
    assert TEXT in start.stdout.decode()


def test_confirm_off_it_is_written_with_a_notification(
    data_dir: Path, tray: Callable[..., dict[str, Any]]
) -> None:
    _set_up(data_dir, confirm=False)
    assert run_registered(data_dir, "UserPromptSubmit", prompt_payload("s-off", WORDS)).returncode == 0
    answer = propose(data_dir, cues=["git commit -m"])
    assert "新增记忆" in answer, answer
    assert [r["text"] for r in rules(data_dir)] == [TEXT]
    wait_until(
        "the notification about it",
        lambda: [n for n in tray(action="state")["notifications"] if TEXT in n["message"]],
    )
    assert tray(action="state")["dialog"] is None
