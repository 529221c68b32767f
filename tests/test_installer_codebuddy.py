"""CodeBuddy's registration against what the real CLI does with it (issue 30): only the last
hook's context per event reaches its model, so ours goes last on the events that inject and
setup says who else is there; PreToolUse's context is ignored, so an older registration of it
is stale and goes. Plain files in a temp HOME; tests/test_codebuddy_cli.py runs the real CLI."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from memevo.installer import jsonfile
from memevo.installer.clients import client_status, get, needs_repair, register_client

OTHER = {"type": "command", "command": "/usr/local/bin/other-memory --prompt", "timeout": 5}


def settings_path(home: Path) -> Path:
    return home / ".codebuddy" / "settings.json"


def read(home: Path) -> dict[str, Any]:
    return dict(json.loads(settings_path(home).read_text(encoding="utf-8")))


def write(home: Path, data: dict[str, Any]) -> None:
    settings_path(home).write_text(json.dumps(data), encoding="utf-8")


def commands(data: dict[str, Any], event: str) -> list[str]:
    return [h["command"] for group in data["hooks"].get(event, []) for h in group["hooks"]]


def ours(command: str) -> bool:
    return "memevo_hook.py" in command


@pytest.fixture
def home(isolated_home: Path) -> Path:
    """The test's HOME with only ~/.codebuddy (conftest's `home` seeds every client)."""
    root = Path(os.environ["HOME"])
    (root / ".codebuddy").mkdir(parents=True)
    return root


def test_another_tools_prompt_hook_after_ours_is_stale_and_repair_puts_ours_last(home: Path) -> None:
    first = register_client("codebuddy", jsonfile.Writer())
    assert first.ok and client_status("codebuddy")["hooks"] == "ok"
    data = read(home)
    data["hooks"]["UserPromptSubmit"].append({"matcher": "", "hooks": [OTHER]})  # their installer appends
    data["hooks"]["SessionStart"][0]["hooks"].append(
        dict(OTHER, command="/usr/local/bin/other-memory --start")
    )
    write(home, data)

    report = client_status("codebuddy")
    assert report["hooks"] == "stale" and needs_repair(report)  # the tray's watcher repairs it
    repaired = register_client("codebuddy", jsonfile.Writer())
    after = read(home)
    for event in ("UserPromptSubmit", "SessionStart"):
        listed = commands(after, event)
        assert ours(listed[-1]) and sum(map(ours, listed)) == 1, listed
        assert any("other-memory" in c for c in listed), listed  # theirs stays, before ours
    # a group shared with their hook: ours left it for one of its own, theirs kept its group
    assert [len(g["hooks"]) for g in after["hooks"]["SessionStart"]] == [1, 1]
    assert client_status("codebuddy")["hooks"] == "ok"
    warned = [line for line in repaired.lines if line.startswith("warning:")]
    assert len(warned) == 2 and all("/usr/local/bin/other-memory" in line for line in warned), repaired.lines
    assert any("UserPromptSubmit" in line for line in warned) and any(
        "SessionStart" in line for line in warned
    )
    # nothing changed: nothing said again, nothing moved
    again = register_client("codebuddy", jsonfile.Writer())
    assert not again.changed and read(home) == after


def test_other_hooks_on_events_without_context_are_left_where_they_are(home: Path) -> None:
    write(home, {"hooks": {"Stop": [{"matcher": "", "hooks": [OTHER]}]}})
    result = register_client("codebuddy", jsonfile.Writer())
    stop = commands(read(home), "Stop")
    assert "other-memory" in stop[0] and ours(stop[1])
    assert not [line for line in result.lines if line.startswith("warning:")]
    # their Stop hook after ours changes nothing: every Stop hook's answer is kept
    data = read(home)
    data["hooks"]["Stop"].append({"matcher": "", "hooks": [dict(OTHER, command="/opt/late --stop")]})
    write(home, data)
    assert client_status("codebuddy")["hooks"] == "ok"


def test_an_older_pretooluse_registration_is_stale_and_replaced_by_posttooluse(home: Path) -> None:
    client = get("codebuddy")
    register_client("codebuddy", jsonfile.Writer())
    data = read(home)
    old = json.loads(json.dumps(data["hooks"]["PostToolUse"]))
    old[0]["hooks"][0]["command"] = old[0]["hooks"][0]["command"].replace("PostToolUse", "PreToolUse")
    data["hooks"]["PreToolUse"] = [*old, {"matcher": "Bash", "hooks": [OTHER]}]
    write(home, data)
    assert client_status("codebuddy")["hooks"] == "stale"
    register_client("codebuddy", jsonfile.Writer())
    after = read(home)
    assert commands(after, "PreToolUse") == [OTHER["command"]]  # theirs stays
    assert client_status("codebuddy")["hooks"] == "ok"
    assert "PreToolUse" not in client.snippet()["hooks"]
    matcher = client.snippet()["hooks"]["PostToolUse"][0]["matcher"]
    for tool in ("Bash", "Edit", "Write", "execute_command", "write_to_file"):
        assert re.search(matcher, tool), tool
    for tool in (
        "NotebookWrite",
        "DeferExecuteTool",
        "mcp__memory-self-evolution__memory_search",
        "mcp__x__Edit",
    ):
        assert not re.search(matcher, tool), tool  # MCP tools fire tool hooks twice: neither is ours
