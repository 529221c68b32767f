"""Learning end to end, as a user runs it: separate processes all the way.

A real `memevo setup --only claude` registers the hooks; a real `memevo tray` (offscreen)
hosts the service; a local chat/completions server plays the side judge; the registered
UserPromptSubmit command carries the prompt. The tray's test hook (desktop/testhook.py,
reached over the service socket) reads what the tray shows and answers its confirmation
dialog the way a user does: by editing the text and clicking a button.

Then the headless in-chat flow under `memevo serve`: the Stop hook asks in the chat, the
model's own `memory_resolve` is refused, and the user's next prompt (through the registered
UserPromptSubmit command) answers it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import servicerun
from deadlines import CALL_S, HANG_S
from fake_openai import FakeOpenAI
from memevo.core.learning import judge
from memevo.core.service import client

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("provisioned_model")]

TIMEOUT_S = 60.0


# -- the side judge: a local server scripted by the test ----------------------------------------------
class Judge:
    """Answers judge calls with `verdicts[prompt words]` and decide calls with `decision`."""

    def __init__(self) -> None:
        self.verdicts: dict[str, dict[str, Any]] = {}
        self.decision: dict[str, Any] = {"action": "create", "target": None, "text": None}
        self.server = FakeOpenAI(self._answer)

    def _answer(self, body: dict[str, Any]) -> tuple[str, Any]:
        system = body["messages"][0]["content"]
        user = body["messages"][-1]["content"]
        if system == judge.DECIDE_SYSTEM:
            return "json", self.decision
        for words, verdict in self.verdicts.items():
            if words in user:
                return "json", verdict
        return "json", {"remember": False}

    def calls(self, kind: str) -> int:
        wanted = judge.JUDGE_SYSTEM if kind == "judge" else judge.DECIDE_SYSTEM
        return sum(1 for r in self.server.requests if r["messages"][0]["content"] == wanted)


@pytest.fixture
def side_judge() -> Iterator[Judge]:
    j = Judge()
    yield j
    j.server.close()


# -- processes -----------------------------------------------------------------------------------------
def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ) | {"MEMEVO_HOME": str(data_dir), "MEMEVO_SIDE_API_KEY": "sk-test-local-judge-0001"}
    env.pop("DISPLAY", None)  # offscreen: nothing here may reach a real screen
    return env | extra


def memevo(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "memevo.cli", *args],
        capture_output=True,
        text=True,
        env=_env(data_dir),
        timeout=HANG_S,
    )
    assert done.returncode == 0, f"memevo {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


def _set_up_claude(data_dir: Path, judge_base: str, confirm: bool) -> None:
    """What a user does: install into Claude Code, point learning at their endpoint."""
    (Path(os.environ["HOME"]) / ".claude").mkdir()
    memevo(data_dir, "setup", "--only", "claude")
    memevo(data_dir, "config", "sideApiBase", judge_base)
    memevo(data_dir, "config", "sideApiModel", "local-judge")
    memevo(data_dir, "config", "confirm", "true" if confirm else "false")


def registered_command(event: str) -> str:
    """The command `memevo setup` wrote into Claude Code's settings.json for this event."""
    settings = json.loads((Path(os.environ["HOME"]) / ".claude" / "settings.json").read_text())
    for group in settings["hooks"][event]:
        for handler in group["hooks"]:
            if "memevo_hook.py" in handler["command"]:
                return str(handler["command"])
    raise AssertionError(f"no memevo {event} hook in settings.json: {settings}")


def run_registered(data_dir: Path, event: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
    """Exactly what Claude Code does: the command through a shell, the JSON payload on stdin."""
    return subprocess.run(
        registered_command(event),
        shell=True,
        input=json.dumps(payload, ensure_ascii=False).encode(),
        capture_output=True,
        env=_env(data_dir),
        timeout=HANG_S,
    )


def prompt_payload(session: str, prompt: str) -> dict[str, Any]:
    cwd = os.environ["HOME"]
    return {
        "session_id": session,
        "transcript_path": f"{cwd}/.claude/projects/x/{session}.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


@pytest.fixture
def tray(data_dir: Path, tmp_path: Path) -> Iterator[Callable[..., dict[str, Any]]]:
    """A real `memevo tray` (offscreen) with its test hook on; yields a `ui_test` caller."""
    log = (tmp_path / "tray.out").open("w+b")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "tray"],
        env=_env(data_dir, QT_QPA_PLATFORM="offscreen", MEMEVO_TRAY_TEST_HOOK="1"),
        stdout=log,
        stderr=subprocess.STDOUT,
    )

    def ui(**params: Any) -> dict[str, Any]:
        os.environ["MEMEVO_HOME"] = str(data_dir)
        return client.call("ui_test", params, timeout_s=CALL_S)

    try:
        servicerun.wait_for(data_dir)
        yield ui
        # What the menu and every panel view do, then: the UI thread (which also runs the
        # service's loop) used the store nowhere in the test (Store.keep_off records each use).
        ui(action="menu")
        wait_until("the workers' answers to reach the UI", lambda: not ui(action="state")["busy"])
        assert ui(action="state")["store_on_ui_thread"] == []
    finally:
        servicerun.stop(data_dir, proc)
        log.seek(0)
        output = log.read().decode(errors="replace")
        log.close()
        # The symptom of the bug this file exists for: a Qt loop asked to run off the main thread.
        assert "Must be called from the main thread" not in output, output
        assert "event dispatcher has already been destroyed" not in output, output


def wait_until(what: str, check: Callable[[], Any], timeout_s: float = TIMEOUT_S) -> Any:
    deadline = time.monotonic() + timeout_s
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}; last seen: {last!r}")


def rules(data_dir: Path) -> list[dict[str, Any]]:
    return list(json.loads(memevo(data_dir, "read", "rule", "--all", "--json").stdout)["memories"])


def pending(data_dir: Path) -> list[dict[str, Any]]:
    return list(json.loads(memevo(data_dir, "pending", "--json").stdout)["pending"])


def dialog_for(ui: Callable[..., dict[str, Any]], words: str) -> dict[str, Any]:
    def shown() -> dict[str, Any] | None:
        dialog = ui(action="state")["dialog"]
        return (
            dialog
            if dialog and dialog["visible"] and any(words in label for label in dialog["labels"])
            else None
        )

    return dict(wait_until(f"the confirmation dialog for {words!r}", shown))


# -- the tray app --------------------------------------------------------------------------------------
def test_confirm_off_the_tray_learns_from_a_real_prompt_and_notifies(
    data_dir: Path, side_judge: Judge, tray: Callable[..., dict[str, Any]]
) -> None:
    _set_up_claude(data_dir, side_judge.server.base, confirm=False)
    words = "记住：以后回答问题都用中文"
    side_judge.verdicts[words] = {"remember": True, "text": "以后回答问题都用中文", "category": "rule"}
    hook = run_registered(data_dir, "UserPromptSubmit", prompt_payload("s-off", words))
    assert hook.returncode == 0, hook.stderr

    wait_until("the side judge to be called", lambda: side_judge.calls("judge"))
    written = wait_until(
        "the learned rule in the store",
        lambda: [r for r in rules(data_dir) if r["text"] == "以后回答问题都用中文"],
    )
    assert len(written) == 1
    note = wait_until(
        "the notification about it",
        lambda: [n for n in tray(action="state")["notifications"] if "以后回答问题都用中文" in n["message"]],
    )
    assert len(note) == 1
    assert tray(action="state")["dialog"] is None  # confirm off: no dialog
    assert pending(data_dir) == []
    # The next session starts with it.
    start = run_registered(
        data_dir, "SessionStart", {"session_id": "s-next", "hook_event_name": "SessionStart"}
    )
    assert "以后回答问题都用中文" in start.stdout.decode()


def test_confirm_on_the_dialog_appears_and_writes_the_users_edit(
    data_dir: Path, side_judge: Judge, tray: Callable[..., dict[str, Any]]
) -> None:
    _set_up_claude(data_dir, side_judge.server.base, confirm=True)
    words = "记住：改完代码不要自动 commit"
    side_judge.verdicts[words] = {"remember": True, "text": "改完代码后不要自动 commit", "category": "rule"}
    assert run_registered(data_dir, "UserPromptSubmit", prompt_payload("s-on", words)).returncode == 0

    dialog = dialog_for(tray, "改完代码不要自动 commit")
    assert dialog["text"] == "改完代码后不要自动 commit"
    assert set(dialog["buttons"]) == {"create_rule", "create_project", "discard"}
    # Waiting, and visible to anything that checks the queue.
    [waiting] = pending(data_dir)
    assert waiting["sessionID"] == dialog["job"]
    assert (waiting["client"], waiting["session"], waiting["words"]) == ("claude", "s-on", words)
    assert (waiting["action"], waiting["text"]) == ("create", "改完代码后不要自动 commit")
    assert rules(data_dir) == []  # nothing is written before the user answers

    edited = "改完代码后不要自动 git commit，先给我看 diff"
    tray(action="answer", job=dialog["job"], decision="create_rule", text=edited)
    written = wait_until("the edited rule", lambda: [r for r in rules(data_dir) if r["text"] == edited])
    assert len(written) == 1
    assert [r["text"] for r in rules(data_dir)] == [edited]  # exactly what was chosen, nothing else
    wait_until(
        "the result notification",
        lambda: [n for n in tray(action="state")["notifications"] if edited in n["message"]],
    )
    assert pending(data_dir) == []
    assert tray(action="state")["dialog"] is None


def test_confirm_on_a_replace_proposal_replaces_the_memory(
    data_dir: Path, side_judge: Judge, tray: Callable[..., dict[str, Any]]
) -> None:
    _set_up_claude(data_dir, side_judge.server.base, confirm=True)
    old = json.loads(memevo(data_dir, "rule", "add", "回答问题时一律使用英文", "--json").stdout)["memory"]
    words = "记住：以后回答问题改用中文，不要再用英文了"
    side_judge.verdicts[words] = {"remember": True, "text": "回答问题时一律使用中文", "category": "rule"}
    side_judge.decision = {"action": "replace", "target": old["id"], "text": "回答问题时一律使用中文"}
    assert run_registered(data_dir, "UserPromptSubmit", prompt_payload("s-replace", words)).returncode == 0

    dialog = dialog_for(tray, "不要再用英文了")
    assert side_judge.calls("decide") == 1
    assert "replace" in dialog["buttons"] and old["id"] in dialog["buttons"]["replace"]
    assert any("回答问题时一律使用英文" in label for label in dialog["labels"])  # what it replaces
    tray(action="answer", job=dialog["job"], decision="replace")

    def replaced() -> list[dict[str, Any]]:
        return [r for r in rules(data_dir) if r["id"] == old["id"] and r["text"] == "回答问题时一律使用中文"]

    wait_until("the replaced rule", replaced)
    assert [r["text"] for r in rules(data_dir)] == ["回答问题时一律使用中文"]  # replaced, not added


def test_a_dialog_closed_unanswered_stays_pending(
    data_dir: Path, side_judge: Judge, tray: Callable[..., dict[str, Any]]
) -> None:
    _set_up_claude(data_dir, side_judge.server.base, confirm=True)
    words = "记住：提交信息一律用英文写"
    side_judge.verdicts[words] = {"remember": True, "text": "提交信息一律用英文写", "category": "rule"}
    assert run_registered(data_dir, "UserPromptSubmit", prompt_payload("s-discard", words)).returncode == 0
    dialog = dialog_for(tray, "提交信息一律用英文写")
    tray(action="answer", job=dialog["job"], decision="discard")
    wait_until("the proposal to be answered", lambda: not pending(data_dir))
    assert rules(data_dir) == []  # discard writes nothing


# -- headless: the in-chat flow under `memevo serve` ---------------------------------------------------
def test_headless_the_stop_hook_asks_in_the_chat_and_the_users_reply_writes(
    data_dir: Path, side_judge: Judge
) -> None:
    _set_up_claude(data_dir, side_judge.server.base, confirm=True)
    words = "记住：以后回答问题都用中文"
    side_judge.verdicts[words] = {"remember": True, "text": "以后回答问题都用中文", "category": "rule"}
    with servicerun.service(data_dir, env={"MEMEVO_SIDE_API_KEY": "sk-test-local-judge-0001"}):
        assert run_registered(data_dir, "UserPromptSubmit", prompt_payload("s-chat", words)).returncode == 0
        [waiting] = wait_until("the proposal", lambda: pending(data_dir))
        stop = run_registered(
            data_dir,
            "Stop",
            {"session_id": "s-chat", "hook_event_name": "Stop", "stop_hook_active": False},
        )
        answer = json.loads(stop.stdout)
        assert answer["decision"] == "block"
        assert "MEMORY_CONFIRM_V1" in answer["reason"] and waiting["sessionID"] in answer["reason"]
        assert "直接用文字问用户" in answer["reason"]
        refused = _resolve_over_mcp(data_dir, waiting["sessionID"], "create_rule")  # the model, at once
        assert refused.is_error, refused
        assert rules(data_dir) == [] and len(pending(data_dir)) == 1
        # the user, naming the option (a bare number only discards: the model words the list)
        reply = run_registered(data_dir, "UserPromptSubmit", prompt_payload("s-chat", "保存为规则"))
        context = json.loads(reply.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "选了「保存为规则」" in context and "以后回答问题都用中文" in context, context
        assert [r["text"] for r in rules(data_dir)] == ["以后回答问题都用中文"]
        assert pending(data_dir) == []


def _resolve_over_mcp(data_dir: Path, session_id: str, decision: str) -> Any:
    """The model's memory_resolve, through our MCP server, as Claude Code would send it."""
    import asyncio

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def go() -> Any:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "memevo.cli", "mcp", "--client", "claude"],
            env=_env(data_dir),
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await session.call_tool("memory_resolve", {"sessionID": session_id, "decision": decision})

    return asyncio.run(go())
