"""Golden tests: each adapter's exact stdin -> (request to the service, stdout), per event.

Payloads follow the documented examples (shared/reference/client-protocols.md). They pin
what we send and print, not what the client does with it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookrun import FakeService, run_hook

CTX = "memory-self-evolution 按本轮输入召回的长期记忆：\n【规则】\n- 回答用中文"
REPLY = {"context": CTX, "system_message": "SHOWN", "notice": "NOTICE"}
BLOCK = {"decision": "block", "reason": CTX}

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
        {"op": "hook.stop", "client": "claude", "session": "cc-1", "continuation": False, "subagent": False},
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
        {"additional_context": CTX},
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
        "Stop",
        {"session_id": "wb-1", "hook_event_name": "Stop"},
        {"op": "hook.stop", "client": "workbuddy"},
        BLOCK,
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
    assert json.loads(cursor.stdout) == {"additional_context": CTX}
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
