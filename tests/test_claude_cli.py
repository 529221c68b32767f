"""End to end with the real Claude Code CLI (npm @anthropic-ai/claude-code), headless, offline,
against a local fake Messages API, with our hooks registered in a throwaway HOME."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import servicerun
from deadlines import HANG_S
from fake_anthropic import FakeAnthropic
from memevo.core.service import texts
from memevo.installer.clients import snippet
from test_service import FACT, RULES, _populate

REPO = Path(__file__).resolve().parents[1]


def claude_binary() -> str | None:
    local = REPO / ".cache" / "npm" / "node_modules" / ".bin" / "claude"
    if local.exists():
        return str(local)
    return shutil.which("claude")


CLAUDE = claude_binary()
pytestmark = [
    pytest.mark.usefixtures("provisioned_model"),
    pytest.mark.skipif(
        CLAUDE is None, reason="the Claude Code CLI is not installed (.ci/run installs it with npm)"
    ),
]


@pytest.fixture(scope="module")
def memevo_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with servicerun.populated(tmp_path_factory.mktemp("claude-memevo-home"), _populate) as home:
        yield home


def run_claude(
    prompt: str, memevo_home: Path, tmp_path: Path
) -> tuple[subprocess.CompletedProcess[str], FakeAnthropic]:
    home = tmp_path / "claude-home"
    (home / ".claude").mkdir(parents=True)
    os.environ["MEMEVO_HOME"] = str(memevo_home)  # print-config reads nothing of it, but be explicit
    (home / ".claude" / "settings.json").write_text(json.dumps(snippet("claude"), indent=2), encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    api = FakeAnthropic()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "MEMEVO_HOME": str(memevo_home),
        "MEMEVO_MODELS_DIR": os.environ["MEMEVO_MODELS_DIR"],
        "ANTHROPIC_BASE_URL": api.url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-real-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "MEMEVO_HEADLESS": "1",
    }
    try:
        result = subprocess.run(
            [str(CLAUDE), "-p", prompt], cwd=project, env=env, capture_output=True, text=True, timeout=HANG_S
        )
    finally:
        api.close()
    return result, api


def test_related_prompt_sends_the_model_rules_and_the_recalled_fact(
    memevo_home: Path, tmp_path: Path
) -> None:
    result, api = run_claude("支付页新流程要在测试环境打开，开关叫什么来着", memevo_home, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    sent = api.texts()
    assert api.bodies, "Claude Code never called the fake API"
    for rule in RULES:
        assert rule in sent  # session start
    assert FACT in sent  # recalled for this prompt
    assert "【项目事实】" in sent


def test_unrelated_prompt_sends_only_the_reminder(memevo_home: Path, tmp_path: Path) -> None:
    result, api = run_claude("帮我写一个快速排序的实现", memevo_home, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    sent = api.texts()
    assert RULES[0] in sent  # the session start still lists the rules
    assert FACT not in sent
    reminder = texts.client_reminder("claude")
    assert json.dumps(reminder, ensure_ascii=False)[1:-1] in sent


def test_claude_mcp_list_reports_our_server_connected(memevo_home: Path, tmp_path: Path) -> None:
    import sys

    home = tmp_path / "claude-home"
    home.mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "MEMEVO_HOME": str(memevo_home),
        "MEMEVO_MODELS_DIR": os.environ["MEMEVO_MODELS_DIR"],
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    added = subprocess.run(
        [
            str(CLAUDE),
            "mcp",
            "add",
            "--scope",
            "user",
            "memory-self-evolution",
            "--",
            sys.executable,
            "-m",
            "memevo.cli",
            "mcp",
            "--client",
            "claude",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert added.returncode == 0, added.stderr
    registered = json.loads((home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"][
        "memory-self-evolution"
    ]
    assert registered["args"][-2:] == ["--client", "claude"]
    listed = subprocess.run(
        [str(CLAUDE), "mcp", "list"], env=env, capture_output=True, text=True, timeout=HANG_S
    )
    line = next(line for line in listed.stdout.splitlines() if "memory-self-evolution" in line)
    assert "Connected" in line, listed.stdout + listed.stderr


# -- the headless in-chat confirmation, end to end --------------------------------------------------------
RESOLVE_TOOL = "mcp__memory-self-evolution__memory_resolve"


def _last_user_text(body: dict) -> str:
    return json.dumps(body.get("messages", [])[-3:], ensure_ascii=False)


def _session_id(text: str) -> str:
    import re

    match = re.search(r"sessionID: ([0-9a-f]{32})", text)
    assert match, text[:500]
    return match.group(1)


SESSION = "0b9e7d2c-4f1a-4e8b-9c3d-5a6f7e8d9c0b"


def _confirm_run(tmp_path: Path, script, memevo_home: Path, reply: str | None = None):  # type: ignore[no-untyped-def]
    """A learning-enabled service (a local judge), hooks + MCP + the allow rule (memory_resolve's,
    as an install from before allowed it), and claude -p; reply: the user's next prompt in that
    session (resumed), after which the rules are read. Returns (first run, api, rules, rules
    before the reply, the reply's api)."""
    import sys

    from fake_openai import FakeOpenAI

    judge = FakeOpenAI(
        lambda body: ("json", {"remember": True, "text": "回答问题时一律使用中文", "category": "rule"})
    )
    (memevo_home / "config.json").write_text(
        json.dumps(
            {"sideApiBase": judge.base, "sideApiModel": "judge", "confirm": True, "sideWaitMs": 10000}
        ),
        encoding="utf-8",
    )
    home = tmp_path / "claude-home"
    (home / ".claude").mkdir(parents=True)
    settings = snippet("claude") | {"permissions": {"allow": [RESOLVE_TOOL]}}
    (home / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    key = {"MEMEVO_SIDE_API_KEY": "sk-test-local-0000000000"}
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "MEMEVO_HOME": str(memevo_home),
        "MEMEVO_MODELS_DIR": os.environ["MEMEVO_MODELS_DIR"],
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "MEMEVO_HEADLESS": "1",
    } | key
    mcp = [sys.executable, "-m", "memevo.cli", "mcp", "--client", "claude"]
    subprocess.run(
        [str(CLAUDE), "mcp", "add", "--scope", "user", "memory-self-evolution", "--", *mcp],
        env=env,
        check=True,
        capture_output=True,
        timeout=HANG_S,
    )
    api = FakeAnthropic(script=script)
    env |= {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "sk-ant-test-not-a-real-key"}
    answer = FakeAnthropic()

    def rules() -> list[dict]:
        read = subprocess.run(
            [sys.executable, "-m", "memevo.cli", "read", "rule", "--json"],
            env=os.environ | {"MEMEVO_HOME": str(memevo_home)},
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
        return list(json.loads(read.stdout)["memories"])

    try:
        with servicerun.service(memevo_home, env=key):
            result = subprocess.run(
                [str(CLAUDE), "-p", "--session-id", SESSION, "记住：以后回答问题一律用中文"],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=HANG_S,
            )
            before = rules()
            if reply is not None:
                resumed = env | {"ANTHROPIC_BASE_URL": answer.url}
                subprocess.run(
                    [str(CLAUDE), "-p", "--resume", SESSION, reply],
                    cwd=project,
                    env=resumed,
                    capture_output=True,
                    text=True,
                    timeout=HANG_S,
                    check=True,
                )
            after = rules()
    finally:
        api.close()
        answer.close()
        judge.close()
    return result, api, after, before, answer


def test_in_chat_confirmation_is_the_users_reply_never_the_models_memory_resolve(tmp_path: Path) -> None:
    """The Stop continuation reaches the model; its own memory_resolve (allowed without asking,
    as by an older install) is refused; the user's next prompt in the session, "1", writes it
    and the model is told the result."""
    from test_service import _populate

    memevo_home = tmp_path / "memevo"
    _populate(memevo_home)
    state: dict = {}

    def model(body: dict) -> list | None:
        recent = _last_user_text(body)
        if (
            "sessionID: " in recent and "tool_use_id" not in recent and "session" not in state
        ):  # the Stop continuation
            state["session"] = _session_id(recent)
            return [
                {
                    "type": "tool_use",
                    "id": "toolu_search",
                    "name": "ToolSearch",
                    "input": {"query": f"select:{RESOLVE_TOOL}"},
                }
            ]
        if '"toolu_search"' in recent and "resolve" not in state:
            state["resolve"] = True
            args = {"sessionID": state["session"], "decision": "create_rule"}
            return [{"type": "tool_use", "id": "toolu_resolve", "name": RESOLVE_TOOL, "input": args}]
        if '"toolu_resolve"' in recent:
            state["tool_result"] = recent
            return [
                {
                    "type": "text",
                    "text": "「记忆确认·插件」保存这条规则吗？请回复选项名称：1. 保存为规则；2. 保存为项目事实；3. 不保存",
                }
            ]
        return None

    # the user names the option: a bare number only discards (the model words the list)
    result, _api, rules, before, answer = _confirm_run(tmp_path, model, memevo_home, reply="保存为规则")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "session" in state, "the Stop continuation never reached the model"
    assert "只能由用户自己确认" in state.get("tool_result", ""), state.get("tool_result", "")[:800]
    assert "回答问题时一律使用中文" not in [m["text"] for m in before]
    told = answer.texts()
    assert "选了「保存为规则」" in told and "归类：rule（规则与偏好）" in told, told[-2000:]
    assert [m["text"] for m in rules].count("回答问题时一律使用中文") == 1


def test_a_skipped_question_leads_to_no_resolve(tmp_path: Path) -> None:
    from test_service import _populate

    memevo_home = tmp_path / "memevo"
    _populate(memevo_home)
    state: dict = {}

    def model(body: dict) -> list | None:
        recent = _last_user_text(body)
        if "sessionID: " in recent and "tool_use_id" not in recent:  # the Stop continuation
            question = {
                "questions": [
                    {
                        "question": "保存这条记忆吗？",
                        "header": "记忆确认·插件",
                        "multiSelect": False,
                        "options": [
                            {"label": "保存为规则", "description": "create_rule"},
                            {"label": "不保存", "description": "discard"},
                        ],
                    }
                ]
            }
            return [{"type": "tool_use", "id": "toolu_ask", "name": "AskUserQuestion", "input": question}]
        if '"toolu_ask"' in recent:
            state["answer"] = recent
            return [{"type": "text", "text": "好的，不保存。"}]  # Skipped: per the instruction, no resolve
        return None

    result, api, rules, _, _ = _confirm_run(tmp_path, model, memevo_home)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "answer" in state
    assert "回答问题时一律使用中文" not in [m["text"] for m in rules]
    called = [
        block.get("name")
        for body in api.bodies
        for message in body.get("messages", [])
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    ]
    assert "AskUserQuestion" in called and RESOLVE_TOOL not in called
    assert "Skipped" in state["answer"] or "tool_result" in state["answer"]


def test_backfill_reads_the_real_clis_transcripts(tmp_path: Path) -> None:
    """Two sessions of the real CLI, the same preference said in each in other words: backfill
    proposes it from the transcripts the CLI wrote, with the user's words as evidence."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    project = home / "project"
    project.mkdir()
    api = FakeAnthropic()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": api.url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-real-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    try:
        for prompt in ("以后回答都用中文。然后帮我看看 main.py", "记住：回答一律用中文"):
            ran = subprocess.run(
                [str(CLAUDE), "-p", prompt],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=HANG_S,
            )
            assert ran.returncode == 0, ran.stderr
    finally:
        api.close()
    found = subprocess.run(
        [sys.executable, "-m", "memevo.cli", "backfill", "--json"],
        env=os.environ | {"HOME": str(home), "MEMEVO_HOME": str(tmp_path / "data")},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert found.returncode == 0, found.stderr
    report = json.loads(found.stdout)
    assert report["sessions"] == 2
    (candidate,) = report["candidates"]
    assert "中文" in candidate["text"] and candidate["category"] == "rule"
    assert set(candidate["evidence"]["words"]) == {"记住：回答一律用中文", "以后回答都用中文。"}
    assert not (tmp_path / "data" / "backfill.json").exists()
