"""Golden tests: each adapter's exact stdin -> (request to the service, stdout), per event.

Payloads follow the documented examples (shared/reference/client-protocols.md). They pin
what we send and print, not what the client does with it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hookrun import HOOK, FakeService, run_hook

CTX = "memory-self-evolution 按本轮输入召回的长期记忆：\n【规则】\n- 回答用中文"
REPLY = {"context": CTX, "system_message": "SHOWN", "notice": "NOTICE"}
BLOCK = {"decision": "block", "reason": CTX}
CONTINUE = {"continue": False, "reason": CTX}  # the CodeBuddy CLI's documented Stop form (v1.16+)
# WorkBuddy's UserPromptSubmit `prompt`: every user message of the session joined, each with
# the blocks WorkBuddy injects (client-protocols.md, Appendix B; oceanbase/powercontext #1702).
WORKBUDDY_JOINED = (
    "<system-reminder>\n<user_info>\nOS Version: darwin 24.6.0\nShell: zsh\n"
    "Workspace: /Users/ann/WorkBuddy/2026-11-30\n</user_info>\n<project_context>\n周报模板在 docs/weekly.md"
    "\n</project_context>\n</system-reminder>\n<user_query>\n帮我把上周的会议纪要整理成要点\n</user_query>\n"
    "<system-reminder>\n<user_info>\nOS Version: darwin 24.6.0\n</user_info>\n</system-reminder>\n"
    "<user_query>\n记住：周报一律用表格列出，不要写成段落\n</user_query>"
)

CASES = [
    # client, event, payload, expected params (subset), expected stdout
    (
        "claude",
        "SessionStart",
        {
            "session_id": "cc-1",
            "transcript_path": "/t.jsonl",
            "cwd": "/w",
            "hook_event_name": "SessionStart",
            "source": "startup",
        },
        {
            "op": "hook.session_start",
            "client": "claude",
            "flavor": "claude",
            "session": "cc-1",
            "prompt_id": None,
            "max_chars": 10000,
        },
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": CTX}},
    ),
    (
        "claude",
        "UserPromptSubmit",
        {
            "session_id": "cc-1",
            "prompt_id": "p-9",
            "cwd": "/w",
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "帮我看看支付页",
        },
        {
            "op": "hook.prompt",
            "client": "claude",
            "session": "cc-1",
            "prompt_id": "p-9",
            "prompt": "帮我看看支付页",
            "kind": "user",
        },
        {
            "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": CTX},
            "systemMessage": "SHOWN",
        },
    ),
    (
        "claude",
        "Stop",
        {
            "session_id": "cc-1",
            "prompt_id": "p-9",
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "done",
        },
        {
            "op": "hook.stop",
            "client": "claude",
            "session": "cc-1",
            "continuation": False,
            "subagent": False,
            "last_assistant_message": "done",
        },
        BLOCK,
    ),
    (
        "cursor",
        "sessionStart",
        {
            "conversation_id": "cv-1",
            "session_id": "cv-1",
            "generation_id": "g-0",
            "hook_event_name": "sessionStart",
            "cursor_version": "2.1",
            "is_background_agent": False,
            "composer_mode": "agent",
        },
        {"op": "hook.session_start", "client": "cursor", "flavor": "default", "session": "cv-1"},
        {"additional_context": CTX},
    ),
    (
        "cursor",
        "beforeSubmitPrompt",
        {
            "conversation_id": "cv-1",
            "generation_id": "g-1",
            "hook_event_name": "beforeSubmitPrompt",
            "prompt": "帮我看看支付页",
            "attachments": [],
            "cursor_version": "2.1",
        },
        {
            "op": "hook.prompt",
            "client": "cursor",
            "session": "cv-1",
            "prompt_id": "g-1",
            "prompt": "帮我看看支付页",
            "kind": "user",
        },
        {"continue": True, "additional_context": CTX},
    ),
    (
        "cursor",
        "stop",
        {
            "conversation_id": "cv-1",
            "generation_id": "g-1",
            "hook_event_name": "stop",
            "status": "completed",
            "loop_count": 0,
        },
        {"op": "hook.stop", "client": "cursor", "session": "cv-1", "continuation": False},
        {"followup_message": "NOTICE"},
    ),
    (
        "cursor",
        "stop",
        {
            "conversation_id": "cv-1",
            "generation_id": "g-2",
            "hook_event_name": "stop",
            "status": "aborted",
            "loop_count": 0,
        },
        {"op": "hook.stop", "client": "cursor", "session": "cv-1", "continuation": True},
        None,  # the user stopped the turn (or it failed): no follow-up
    ),
    (
        "codebuddy",
        "SessionStart",
        {
            "session_id": "cb-1",
            "transcript_path": "/t",
            "cwd": "/",
            "hook_event_name": "SessionStart",
            "source": "startup",
        },
        {"op": "hook.session_start", "client": "codebuddy", "flavor": "codebuddy", "session": "cb-1"},
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": CTX}},
    ),
    (
        "codebuddy",
        "UserPromptSubmit",
        {
            "session_id": "cb-1",
            "cwd": "/",
            "hook_event_name": "UserPromptSubmit",
            "user_prompt": "IDE 发来的输入",
        },
        {
            "op": "hook.prompt",
            "client": "codebuddy",
            "session": "cb-1",
            "prompt_id": None,
            "prompt": "IDE 发来的输入",
            "kind": "user",
        },
        {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": CTX}},
    ),
    (
        "codebuddy",
        "UserPromptSubmit",
        {"session_id": "cb-2", "hook_event_name": "UserPromptSubmit", "prompt": "CLI 发来的输入"},
        {
            "op": "hook.prompt",
            "client": "codebuddy",
            "session": "cb-2",
            "prompt": "CLI 发来的输入",
            "kind": "user",
        },
        {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": CTX}},
    ),
    (
        "codebuddy",
        "Stop",
        {"session_id": "cb-1", "hook_event_name": "Stop", "stop_hook_active": False},
        {"op": "hook.stop", "client": "codebuddy", "continuation": False},
        BLOCK,
    ),
    (  # the CLI (CodeBuddy Code): its documented form
        "codebuddy",
        "Stop",
        {
            "session_id": "cb-3",
            "transcript_path": "/Users/ann/.codebuddy/projects/Users-ann-shop/cb-3.jsonl",
            "cwd": "/Users/ann/shop",
            "hook_event_name": "Stop",
            "permission_mode": "default",
            "stop_hook_active": False,
            "last_assistant_message": "支付页的开关叫 pay_new_flow_v2。",
            "client": "cli",
        },
        {
            "op": "hook.stop",
            "client": "codebuddy",
            "session": "cb-3",
            "continuation": False,
            "last_assistant_message": "支付页的开关叫 pay_new_flow_v2。",
        },
        CONTINUE,
    ),
    (  # the IDE: `decision: "block"`, whose `reason` it passes on
        "codebuddy",
        "Stop",
        {
            "session_id": "cb-4",
            "transcript_path": "/path/to/transcript.txt",
            "cwd": "/",
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "client": "CodeBuddyIDE",
        },
        {"op": "hook.stop", "client": "codebuddy", "session": "cb-4", "continuation": False},
        BLOCK,
    ),
    (
        "workbuddy",
        "SessionStart",
        {"session_id": "wb-1", "hook_event_name": "SessionStart", "source": "startup"},
        {"op": "hook.session_start", "client": "workbuddy", "flavor": "default", "session": "wb-1"},
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": CTX}},
    ),
    (
        "workbuddy",
        "UserPromptSubmit",
        {"session_id": "wb-1", "hook_event_name": "UserPromptSubmit", "prompt": "WorkBuddy 的输入"},
        {"op": "hook.prompt", "client": "workbuddy", "session": "wb-1", "prompt_id": None, "kind": "user"},
        {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": CTX}},
    ),
    (
        "workbuddy",
        "UserPromptSubmit",
        {
            "session_id": "wb-2",
            "transcript_path": "/Users/ann/.workbuddy/projects/ws/wb-2.jsonl",
            "cwd": "/Users/ann/WorkBuddy/2026-11-30",
            "hook_event_name": "UserPromptSubmit",
            "prompt": WORKBUDDY_JOINED,
        },
        {
            "op": "hook.prompt",
            "client": "workbuddy",
            "session": "wb-2",
            "prompt": "记住：周报一律用表格列出，不要写成段落",
            "kind": "user",
        },
        {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": CTX}},
    ),
    (
        "workbuddy",
        "Stop",
        {"session_id": "wb-1", "hook_event_name": "Stop", "last_assistant_message": "已整理成 5 条要点。"},
        {"op": "hook.stop", "client": "workbuddy", "last_assistant_message": "已整理成 5 条要点。"},
        CONTINUE,
    ),
    # A tool call about to run: its rules as context for that step, never a permission decision.
    (
        "claude",
        "PreToolUse",
        {
            "session_id": "cc-1",
            "prompt_id": "p-9",
            "cwd": "/w",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git commit -am 'fix'", "description": "Commit"},
            "tool_use_id": "tu-1",
        },
        {
            "op": "hook.action",
            "client": "claude",
            "session": "cc-1",
            "prompt_id": "p-9",
            "tool": "Bash",
            "input": {"command": "git commit -am 'fix'", "description": "Commit"},
        },
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": CTX}},
    ),
    (
        "claude",
        "PreToolUse",
        {
            "session_id": "cc-1",
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x" * 5000},
        },
        {
            "op": "hook.action",
            "tool": "Edit",
            "input": {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x" * 4000},
        },
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": CTX}},
    ),
    # CodeBuddy: the CLI's Claude-named tools and the IDE's own (camelCase filePath, a diff).
    (
        "codebuddy",
        "PreToolUse",
        {
            "session_id": "cb-1",
            "cwd": "/w",
            "hook_event_name": "PreToolUse",
            "client": "CodeBuddyIDE",
            "tool_name": "execute_command",
            "tool_input": {"command": "git commit -m wip", "requires_approval": False},
        },
        {
            "op": "hook.action",
            "client": "codebuddy",
            "session": "cb-1",
            "tool": "execute_command",
            "input": {"command": "git commit -m wip", "requires_approval": False},
        },
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": CTX}},
    ),
    (
        "codebuddy",
        "PreToolUse",
        {
            "session_id": "cb-1",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "pip install requests"},
            "transcript_path": "/h/.codebuddy/projects/w/cb-1.jsonl",
        },
        {
            "op": "hook.action",
            "client": "codebuddy",
            "tool": "Bash",
            "input": {"command": "pip install requests"},
        },
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": CTX}},
    ),
    (
        "cursor",
        "beforeShellExecution",
        {
            "conversation_id": "cv-1",
            "generation_id": "g-2",
            "hook_event_name": "beforeShellExecution",
            "command": "pip install requests",
            "cwd": "/w",
            "sandbox": False,
        },
        {
            "op": "hook.action",
            "client": "cursor",
            "session": "cv-1",
            "prompt_id": "g-2",
            "tool": "Shell",
            "input": {"command": "pip install requests"},
        },
        {"agent_message": CTX},
    ),
    (
        "cursor",
        "beforeMCPExecution",
        {
            "conversation_id": "cv-1",
            "generation_id": "g-3",
            "hook_event_name": "beforeMCPExecution",
            "tool_name": "execute_sql",
            "tool_input": '{"sql": "ALTER TABLE t ADD COLUMN c int"}',
            "command": "npx db-mcp",
        },
        {
            "op": "hook.action",
            "tool": "MCP",
            "input": {"tool_name": "execute_sql", "tool_input": '{"sql": "ALTER TABLE t ADD COLUMN c int"}'},
        },
        {"agent_message": CTX},
    ),
]


@pytest.mark.parametrize(
    ("client", "event", "payload", "expected", "stdout"), CASES, ids=lambda v: v if isinstance(v, str) else ""
)
def test_adapter_golden(
    data_dir: Path, client: str, event: str, payload: dict, expected: dict, stdout: dict | None
) -> None:
    service = FakeService(data_dir, REPLY)
    try:
        result = run_hook(client, event, json.dumps(payload, ensure_ascii=False))
    finally:
        service.close()
    assert result.returncode == 0 and result.stderr == b""
    assert len(service.requests) == 1
    request = service.requests[0]
    assert request["v"] == 1
    sent = {"op": request["op"], **request["params"]}
    assert {k: sent.get(k) for k in expected} == expected
    if stdout is None:
        assert result.stdout == b""
    else:
        assert json.loads(result.stdout) == stdout


@pytest.mark.parametrize(
    ("client", "event", "payload"),
    [
        ("claude", "UserPromptSubmit", {"session_id": "s", "prompt": "x"}),
        ("codebuddy", "UserPromptSubmit", {"session_id": "s", "prompt": "x"}),
        ("workbuddy", "SessionStart", {"session_id": "s"}),
        ("cursor", "beforeSubmitPrompt", {"conversation_id": "c", "prompt": "x"}),
        ("claude", "PreToolUse", {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}}),
        (
            "codebuddy",
            "PreToolUse",
            {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}},
        ),
        ("cursor", "beforeShellExecution", {"conversation_id": "c", "command": "ls"}),
    ],
)
def test_nothing_to_inject_prints_nothing(data_dir: Path, client: str, event: str, payload: dict) -> None:
    """Not even `{}`: CodeBuddy's CLI would add a literal "{}" to the context."""
    service = FakeService(data_dir, {"context": None})
    try:
        result = run_hook(client, event, json.dumps(payload))
    finally:
        service.close()
    assert result.returncode == 0 and result.stdout == b""


def test_claude_hook_stays_silent_under_cursor(data_dir: Path) -> None:
    """Cursor runs ~/.claude/settings.json hooks too: one prompt is injected once, by Cursor's."""
    service = FakeService(data_dir, REPLY)
    try:
        payload = {"session_id": "s", "prompt": "帮我看看支付页", "hook_event_name": "UserPromptSubmit"}
        by_env = run_hook("claude", "UserPromptSubmit", json.dumps(payload), env={"CURSOR_VERSION": "2.1.0"})
        by_field = run_hook("claude", "UserPromptSubmit", json.dumps(payload | {"cursor_version": "2.1.0"}))
        cursor = run_hook(
            "cursor",
            "beforeSubmitPrompt",
            json.dumps({"conversation_id": "c", "prompt": "帮我看看支付页"}),
            env={"CURSOR_VERSION": "2.1.0"},
        )
    finally:
        service.close()
    assert by_env.stdout == b"" and by_field.stdout == b""
    assert json.loads(cursor.stdout) == {"continue": True, "additional_context": CTX}
    assert [r["params"]["client"] for r in service.requests] == ["cursor"]


@pytest.mark.parametrize(
    ("prompt", "extra", "kind"),
    [
        ("MEMORY_CONFIRM_V1 请弹窗确认", {}, "plugin"),
        ("memory-self-evolution 捕捉到了新的记忆：……", {}, "plugin"),
        ("<question_answer>保存为规则</question_answer>", {}, "other"),
        ("/compact", {}, "other"),
        ("<task-notification>done</task-notification>", {}, "other"),
        ("<command-name>/model</command-name>", {}, "other"),
        ("<system-reminder>x</system-reminder> 你好", {}, "other"),
        ("帮我写一个函数", {"agent_id": "sub-1"}, "other"),
        ("[Request interrupted by user]", {}, "other"),
        ("记住：以后回答都用中文", {}, "user"),
        ("/ 不是命令，只是斜杠开头的话", {}, "user"),
    ],
)
def test_inputs_that_are_not_the_users_words(data_dir: Path, prompt: str, extra: dict, kind: str) -> None:
    service = FakeService(data_dir, {"context": None})
    try:
        run_hook("claude", "UserPromptSubmit", json.dumps({"session_id": "s", "prompt": prompt, **extra}))
    finally:
        service.close()
    assert service.requests[0]["params"]["kind"] == kind


@pytest.mark.parametrize(
    ("client", "event", "payload"),
    [
        ("claude", "Stop", {"session_id": "s", "stop_hook_active": True}),
        ("codebuddy", "Stop", {"session_id": "s", "stop_hook_active": True}),
        ("cursor", "stop", {"conversation_id": "c", "loop_count": 1}),
        ("claude", "Stop", {"session_id": "s", "agent_id": "sub-1"}),
    ],
)
def test_stop_tells_the_service_about_continuations_and_subagents(
    data_dir: Path, client: str, event: str, payload: dict
) -> None:
    service = FakeService(data_dir, {"context": None})
    try:
        run_hook(client, event, json.dumps(payload))
    finally:
        service.close()
    params = service.requests[0]["params"]
    assert params["continuation"] or params["subagent"]


# -- Windows: what Cursor's builds put on stdin ----------------------------------------------------------
CURSOR_PROMPT = {
    "conversation_id": "cv-w",
    "generation_id": "g-w",
    "hook_event_name": "beforeSubmitPrompt",
    "prompt": "帮我看看支付页",
    "attachments": [],
    "cursor_version": "3.7.21",
    "workspace_roots": ["c:/Users/Ann/shop"],
}


@pytest.mark.parametrize(
    "stdin",
    [
        # Cursor on Windows: a UTF-8 BOM, then the payload (PowerShell's line ends)
        b"\xef\xbb\xbf"
        + json.dumps(CURSOR_PROMPT, ensure_ascii=False, indent=2).replace("\n", "\r\n").encode(),
        # something a shell printed first
        b"Windows PowerShell\r\nCopyright (C) Microsoft Corporation.\r\n"
        + json.dumps(CURSOR_PROMPT, ensure_ascii=False).encode(),
    ],
    ids=["bom", "banner"],
)
def test_cursor_on_windows_payload(data_dir: Path, stdin: bytes) -> None:
    service = FakeService(data_dir, REPLY)
    try:
        result = run_hook("cursor", "beforeSubmitPrompt", stdin)
    finally:
        service.close()
    assert result.returncode == 0 and result.stderr == b""
    params = service.requests[0]["params"]
    assert (params["session"], params["prompt_id"], params["prompt"], params["kind"]) == (
        "cv-w",
        "g-w",
        "帮我看看支付页",
        "user",
    )
    assert json.loads(result.stdout) == {"continue": True, "additional_context": CTX}


@pytest.mark.parametrize(
    "stdin",
    [
        b"x" * 5000 + b'{"conversation_id": "c", "prompt": "hi"}',  # the object starts too late
        b'[{"conversation_id": "c", "prompt": "hi"}]',  # not one object
        b'{"conversation_id": "c", "prompt": "hi"} {"prompt": "two"}',
        b"\xef\xbb\xbf" + b"\xff" * 1_000_000,  # a BOM and garbage: one bounded look, no object
    ],
    ids=["late", "array", "two-objects", "bom-garbage"],
)
def test_only_junk_before_one_object_is_skipped(data_dir: Path, stdin: bytes) -> None:
    service = FakeService(data_dir, REPLY)
    try:
        result = run_hook("cursor", "beforeSubmitPrompt", stdin)
    finally:
        service.close()
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert service.requests == []


@pytest.mark.parametrize(
    ("payload", "continuation", "stdout"),
    [
        ({"status": "completed", "loop_count": 0}, False, {"followup_message": "NOTICE"}),
        ({"status": "error", "loop_count": 0}, True, None),
        ({"loop_count": 0}, False, {"followup_message": "NOTICE"}),  # no status: as before
    ],
)
def test_cursor_follows_up_only_after_a_completed_turn(
    data_dir: Path, payload: dict, continuation: bool, stdout: dict | None
) -> None:
    service = FakeService(data_dir, REPLY)
    try:
        result = run_hook("cursor", "stop", json.dumps({"conversation_id": "c"} | payload))
    finally:
        service.close()
    assert service.requests[0]["params"]["continuation"] is continuation
    assert (json.loads(result.stdout) if result.stdout else None) == stdout


def test_windows_output_is_plain_ascii(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows runs hooks under PowerShell or Git Bash and code pages: `\\u` escapes survive them."""
    import sys

    monkeypatch.syspath_prepend(str(HOOK.parent))
    from clients import load

    adapter = load("cursor")
    payload = {"conversation_id": "c"}
    on_linux = adapter.render("prompt", {"context": CTX}, payload)
    monkeypatch.setattr(sys, "platform", "win32")
    on_windows = adapter.render("prompt", {"context": CTX}, payload)
    assert on_windows.isascii() and not on_linux.isascii()
    assert json.loads(on_windows) == json.loads(on_linux) == {"continue": True, "additional_context": CTX}


# -- WorkBuddy: the user's words out of the joined session ----------------------------------------------
@pytest.mark.parametrize(
    ("prompt", "words", "kind"),
    [
        (WORKBUDDY_JOINED, "记住：周报一律用表格列出，不要写成段落", "user"),
        (  # a block injected inside the query
            "<user_query>旧问题</user_query>\n<user_query>\n<system-reminder>选中的专家：周报助手</system-reminder>"
            "\n周报发给谁？\n</user_query>",
            "周报发给谁？",
            "user",
        ),
        ("只有这一句，没有标签", "只有这一句，没有标签", "user"),  # older builds: the words alone
        (
            "<system-reminder>\n<user_info>OS</user_info>\n</system-reminder>\n今天的待办",
            "今天的待办",
            "user",
        ),
        (
            "<user_query>先做A</user_query>\n<user_query>\n最后一句没有结束标签",
            "最后一句没有结束标签",
            "user",
        ),
        ("<user_query>/compact</user_query>", "/compact", "other"),
        (
            "<user_query><question_answer>保存为规则</question_answer></user_query>",
            "<question_answer>保存为规则</question_answer>",
            "other",
        ),
        # an earlier answer echo no longer makes every later prompt "not the user's words"
        (
            "<user_query><question_answer>保存为规则</question_answer></user_query>\n"
            "<user_query>支付页的开关叫什么</user_query>",
            "支付页的开关叫什么",
            "user",
        ),
        ("<system-reminder>\n<user_info>OS</user_info>", "", "user"),  # injected only: nothing said
    ],
)
def test_workbuddy_takes_the_last_user_query(data_dir: Path, prompt: str, words: str, kind: str) -> None:
    service = FakeService(data_dir, {"context": None})
    try:
        run_hook("workbuddy", "UserPromptSubmit", json.dumps({"session_id": "wb", "prompt": prompt}))
    finally:
        service.close()
    params = service.requests[0]["params"]
    assert (params["prompt"], params["kind"]) == (words, kind)


def test_a_long_workbuddy_session_is_read_in_linear_time(data_dir: Path) -> None:
    """Thousands of joined messages, and unclosed injected tags that a backtracking pattern
    would rescan each time: one pass."""
    turn = "<system-reminder>\n<user_info>OS</user_info>\n" + "<user_info " * 50 + "</system-reminder>\n"
    joined = "\n".join(f"{turn}<user_query>第 {i} 个问题</user_query>" for i in range(4000))
    joined += "\n<user_query>" + "<system-reminder " * 20_000 + "</user_query>"
    service = FakeService(data_dir, {"context": None})
    try:
        started = time.monotonic()
        result = run_hook("workbuddy", "UserPromptSubmit", json.dumps({"session_id": "wb", "prompt": joined}))
        elapsed = time.monotonic() - started
    finally:
        service.close()
    assert result.returncode == 0 and len(joined) > 1_000_000
    assert service.requests[0]["params"]["prompt"] == ""
    assert elapsed < 3


# -- sideContext: the previous answer, from the payload or the end of the transcript -------------------
def _transcript(path: Path, rows: list[dict], padding: int = 0) -> str:
    with path.open("wb") as handle:
        if padding:
            handle.truncate(padding)  # sparse: reading it whole would take seconds and gigabytes
            handle.seek(padding)
            handle.write(b"\n")
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False).encode() + b"\n")
    return str(path)


CLAUDE_ROWS = [
    {"type": "user", "message": {"role": "user", "content": "支付页的开关叫什么"}},
    {
        "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "我先查一下配置。"}]},
    },
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}],
        },
    },
    {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]}},
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "不是回答"},
                {"type": "text", "text": "开关叫 pay_new_flow_v2，在测试环境打开。"},
            ],
        },
    },
    {
        "type": "assistant",
        "isSidechain": True,
        "message": {"role": "assistant", "content": [{"type": "text", "text": "子代理的话"}]},
    },
    {"type": "system", "subtype": "turn_duration"},
]
CURSOR_ROWS = [
    {
        "role": "user",
        "message": {"content": [{"type": "text", "text": "<user_query>\n开关叫什么\n</user_query>"}]},
    },
    {"role": "assistant", "message": {"content": [{"type": "text", "text": "开关叫 pay_new_flow_v2。"}]}},
    {"type": "turn_ended"},
]
CODEBUDDY_ROWS = [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "开关叫什么"}]},
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "开关叫 pay_new_flow_v2。"}],
    },
    {"type": "function_call", "name": "read_file"},
]


@pytest.mark.parametrize(
    ("client", "event", "rows", "padding", "answer"),
    [
        ("claude", "Stop", CLAUDE_ROWS, 0, "开关叫 pay_new_flow_v2，在测试环境打开。"),
        ("claude", "Stop", CLAUDE_ROWS, 4 << 30, "开关叫 pay_new_flow_v2，在测试环境打开。"),
        ("cursor", "stop", CURSOR_ROWS, 0, "开关叫 pay_new_flow_v2。"),
        ("codebuddy", "Stop", CODEBUDDY_ROWS, 0, "开关叫 pay_new_flow_v2。"),
        ("workbuddy", "Stop", CODEBUDDY_ROWS, 0, "开关叫 pay_new_flow_v2。"),
    ],
    ids=["claude", "claude-4GiB", "cursor", "codebuddy-cli", "workbuddy"],
)
def test_stop_reads_the_answer_from_the_end_of_the_transcript(
    data_dir: Path, tmp_path: Path, client: str, event: str, rows: list, padding: int, answer: str
) -> None:
    path = _transcript(tmp_path / "session.jsonl", rows, padding)
    service = FakeService(data_dir, {"context": None})
    try:
        started = time.monotonic()
        run_hook(
            client, event, json.dumps({"session_id": "s", "conversation_id": "s", "transcript_path": path})
        )
        elapsed = time.monotonic() - started
    finally:
        service.close()
    assert service.requests[0]["params"]["last_assistant_message"] == answer
    assert elapsed < 3


def test_the_answer_field_wins_is_bounded_and_a_missing_transcript_is_no_answer(
    data_dir: Path, tmp_path: Path
) -> None:
    path = _transcript(tmp_path / "session.jsonl", CLAUDE_ROWS)
    long_answer = "结论在最后。" + "很长的解释 " * 2000 + "最后一句。"
    cursor_env = {"CURSOR_TRANSCRIPT_PATH": _transcript(tmp_path / "cursor.jsonl", CURSOR_ROWS)}
    service = FakeService(data_dir, {"context": None})
    try:
        run_hook(
            "claude",
            "Stop",
            json.dumps({"session_id": "s", "transcript_path": path, "last_assistant_message": "字段"}),
        )
        run_hook("claude", "Stop", json.dumps({"session_id": "s", "last_assistant_message": long_answer}))
        run_hook(
            "claude", "Stop", json.dumps({"session_id": "s", "transcript_path": str(tmp_path / "gone.jsonl")})
        )
        run_hook(
            "claude", "Stop", json.dumps({"session_id": "s", "transcript_path": str(tmp_path)})
        )  # a folder
        run_hook(
            "cursor", "stop", json.dumps({"conversation_id": "c", "transcript_path": None}), env=cursor_env
        )
    finally:
        service.close()
    answers = [r["params"].get("last_assistant_message") for r in service.requests]
    assert answers[0] == "字段"
    assert (
        answers[1].endswith("最后一句。") and len(answers[1]) <= 4000 and answers[1].startswith("很长的解释")
    )
    assert answers[2:4] == [None, None]
    assert answers[4] == "开关叫 pay_new_flow_v2。"


def test_each_hook_gives_up_on_the_service_well_inside_its_registered_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A WorkBuddy hook that times out blocks the prompt; Claude Code drops a late injection."""
    from memevo.installer.clients import REGISTRY

    monkeypatch.syspath_prepend(str(HOOK.parent))
    from clients import load

    for client in REGISTRY:
        adapter = load(client.name)
        for kind, registered in client.timeouts.items():
            assert adapter.timeouts[kind] <= registered - 1.5, (client.name, kind)
    assert load("workbuddy").timeouts["prompt"] <= 5


def test_a_subagents_last_message_is_not_the_previous_answer(data_dir: Path) -> None:
    service = FakeService(data_dir, {"context": None})
    try:
        payload = {"session_id": "s", "agent_id": "sub-1", "last_assistant_message": "子代理的结论"}
        run_hook("claude", "Stop", json.dumps(payload))
    finally:
        service.close()
    params = service.requests[0]["params"]
    assert params["subagent"] and "last_assistant_message" not in params


def test_a_tool_call_is_never_held_up_without_the_service(data_dir: Path) -> None:
    """No service: a tool call's hook prints nothing (no permission decision, no block), exits 0."""
    for client, event, payload in (
        (
            "claude",
            "PreToolUse",
            {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "git push"}},
        ),
        ("cursor", "beforeShellExecution", {"conversation_id": "c", "command": "git push"}),
        ("cursor", "beforeMCPExecution", {"conversation_id": "c", "tool_name": "t", "tool_input": "{}"}),
    ):
        result = run_hook(client, event, json.dumps(payload))
        assert result.returncode == 0 and result.stdout == b"", (client, event)
    assert not (data_dir / "service.spawned").exists()  # a tool call never starts the service
