"""Golden tests: each adapter's exact stdin -> (request to the service, stdout), per event.

The goldens are files, one per client, in tests/golden/hooks/ (tests/hookgolden.py reads them;
UPDATE_GOLDEN=1 rewrites them). Payloads follow the clients' documented examples (what memevo
reads and prints per client: docs/clients.md). They pin what we send and print, not what the client
does with it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hookgolden import (
    CASES,
    CLAUDE_ROWS,
    CODEBUDDY_ROWS,
    CTX,
    CURSOR_ROWS,
    REPLY,
    UPDATE,
    WORKBUDDY_JOINED,
    record,
    write_transcript,
)
from hookrun import HOOK, FakeService, run_hook


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
    if UPDATE:  # tests/hookgolden.py: write what the hook did, then hold it to the file
        printed = json.loads(result.stdout) if result.stdout else None
        expected, stdout = record(client, event, payload, {k: sent.get(k) for k in expected}, printed)
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
            "PostToolUse",
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


def test_an_earlier_codebuddy_pretooluse_registration_answers_nothing(data_dir: Path) -> None:
    """Issue 30, item 5: the CLI ignores PreToolUse's context; until setup or the tray's repair
    takes an older registration away, it asks the service nothing and prints nothing."""
    service = FakeService(data_dir, REPLY)
    try:
        payload = {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "git commit -m x"}}
        result = run_hook("codebuddy", "PreToolUse", json.dumps(payload))
    finally:
        service.close()
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert service.requests == []


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
    ("prompt", "kind"),
    [
        # the CLI's continuation after our Stop: our notice behind its prefix
        (
            "Stop hook: memory-self-evolution 捕捉到了新的记忆。请把下面的结果原样展示给用户：\n已记下",
            "plugin",
        ),
        ("Stop hook: MEMORY_CONFIRM_V1\nmemory-self-evolution 请你向用户确认一条记忆", "plugin"),
        # another tool's Stop hook: not the user's words either
        ("Stop hook: 请再跑一遍测试，以后提交信息都用英文写", "other"),
        ("  Stop hook: lint failed", "other"),
        ("转述一下：memory-self-evolution 捕捉到了新的记忆", "plugin"),
        ("请解释一下 Stop hook: 是什么", "user"),
        ("以后提交信息都用英文写", "user"),
    ],
)
def test_codebuddy_stop_continuations_are_not_the_users_words(data_dir: Path, prompt: str, kind: str) -> None:
    service = FakeService(data_dir, {"context": None})
    try:
        for client in ("codebuddy", "workbuddy"):
            payload = {"session_id": "s", "prompt": prompt, "hook_event_name": "UserPromptSubmit"}
            run_hook(client, "UserPromptSubmit", json.dumps(payload, ensure_ascii=False))
    finally:
        service.close()
    assert [r["params"]["kind"] for r in service.requests] == [kind, kind]


CLI_SESSION_START = {  # verbatim shape, as the CodeBuddy Code CLI sends it: no cwd
    "session_id": "cb-9",
    "transcript_path": "/h/.codebuddy/projects/w/cb-9.jsonl",
    "hook_event_name": "SessionStart",
    "source": "startup",
    "permission_mode": "default",
    "client": "CLI",
    "version": "2.117.0",
    "model": "default-model",
}


@pytest.mark.parametrize("relay", [True, False], ids=["relayed", "alone"])
def test_codebuddy_takes_the_project_from_its_environment_when_the_payload_has_none(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, relay: bool
) -> None:
    """Issue 30, item 2: the CLI's SessionStart has no cwd; CODEBUDDY_PROJECT_DIR names the
    project, else the folder the CLI started the hook in. A payload's cwd still wins."""
    named, started_in = tmp_path / "named-project", tmp_path / "hook-folder"
    named.mkdir()
    started_in.mkdir()
    monkeypatch.chdir(started_in)
    service = FakeService(data_dir, {"context": None}, relay=relay)
    try:
        stdin = json.dumps(CLI_SESSION_START)
        run_hook("codebuddy", "SessionStart", stdin, env={"CODEBUDDY_PROJECT_DIR": str(named)})
        run_hook("codebuddy", "SessionStart", stdin, env={"CODEBUDDY_PROJECT_DIR": ""})
        given = json.dumps(CLI_SESSION_START | {"cwd": "/srv/shop"})
        run_hook("codebuddy", "SessionStart", given, env={"CODEBUDDY_PROJECT_DIR": str(named)})
        ide = json.dumps(CLI_SESSION_START | {"cwd": "/", "client": "CodeBuddyIDE"})
        run_hook("codebuddy", "SessionStart", ide, env={"CODEBUDDY_PROJECT_DIR": str(named)})
        run_hook("claude", "SessionStart", stdin, env={"CODEBUDDY_PROJECT_DIR": str(named)})
    finally:
        service.close()
    asked = [r["params"].get("cwd") for r in service.requests]
    assert asked == [str(named), str(started_in), "/srv/shop", str(named), None]


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


@pytest.mark.quiet  # asserts the product's own deadline: no other test's load
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
@pytest.mark.quiet  # asserts the product's own deadline: no other test's load
def test_stop_reads_the_answer_from_the_end_of_the_transcript(
    data_dir: Path, tmp_path: Path, client: str, event: str, rows: list, padding: int, answer: str
) -> None:
    path = write_transcript(tmp_path / "session.jsonl", rows, padding)
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
    path = write_transcript(tmp_path / "session.jsonl", CLAUDE_ROWS)
    long_answer = "结论在最后。" + "很长的解释 " * 2000 + "最后一句。"
    cursor_env = {"CURSOR_TRANSCRIPT_PATH": write_transcript(tmp_path / "cursor.jsonl", CURSOR_ROWS)}
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
    # the CodeBuddy engine counts a Stop hook's timeout as a block and continues, in a loop:
    # seconds of margin, not milliseconds
    for name in ("codebuddy", "workbuddy"):
        client = next(c for c in REGISTRY if c.name == name)
        assert client.timeouts["stop"] - load(name).timeouts["stop"] >= 10, name


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
