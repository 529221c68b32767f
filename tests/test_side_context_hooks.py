"""sideContext end to end: a real `memevo serve`, the real hook executable as each client runs
it, a local chat/completions server as the side judge. The Stop hook carries the answer that
ended the turn (the payload's field, or the end of the client's transcript); the judge request
for the next prompt shows it, redacted — and only while sideContext is on.

tests/test_learning.py (test_side_context_sends_the_previous_answer_only_when_on) checks the
same at the service level."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import servicerun
from fake_openai import FakeOpenAI
from hookrun import run_hook
from memevo.core import config as config_mod
from memevo.core.recall.textfilter import REDACTED

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("provisioned_model")]

KEY = {"MEMEVO_SIDE_API_KEY": "sk-test-local-judge-0001"}
WORDS = "记住刚才那个结论"
ANSWER = "结论：支付页新流程的灰度开关叫 pay_new_flow_v2，测试库的密码是 hunter2。"


class Judge:
    """Records what each judge request says the user wrote; never asks to remember."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.server = FakeOpenAI(self._answer)

    def _answer(self, body: dict[str, Any]) -> tuple[str, Any]:
        self.seen.append(body["messages"][1]["content"])
        return "json", {"remember": False}

    def next_request(self, before: int) -> str:
        deadline = time.monotonic() + 60
        while len(self.seen) <= before:
            assert time.monotonic() < deadline, "the side judge was never asked"
            time.sleep(0.1)
        return self.seen[-1]


def turn(judge: Judge, client: str, stop: tuple[str, dict], prompt: tuple[str, dict]) -> str:
    """A turn ends (Stop), the user writes the next prompt: what does the judge get?"""
    before = len(judge.seen)
    for event, payload in (stop, prompt):
        result = run_hook(client, event, json.dumps(payload, ensure_ascii=False))
        assert result.returncode == 0 and result.stderr == b"", result.stderr
    return judge.next_request(before)


def test_the_stop_hook_carries_the_previous_answer_to_the_judge(data_dir: Path, tmp_path: Path) -> None:
    judge = Judge()
    config_mod.set_key("sideApiBase", judge.server.base)
    config_mod.set_key("sideApiModel", "local-judge")
    config_mod.set_key("confirm", True)
    cursor_transcript = tmp_path / "agent-transcripts" / "cv-1.jsonl"
    cursor_transcript.parent.mkdir()
    cursor_transcript.write_text(
        "\n".join(
            json.dumps(row, ensure_ascii=False)
            for row in (
                {
                    "role": "user",
                    "message": {"content": [{"type": "text", "text": "<user_query>开关</user_query>"}]},
                },
                {"role": "assistant", "message": {"content": [{"type": "text", "text": ANSWER}]}},
            )
        )
        + "\n",
        encoding="utf-8",
    )
    try:
        with servicerun.service(data_dir, env=KEY):
            off = turn(
                judge,
                "claude",
                (
                    "Stop",
                    {"session_id": "cc-off", "stop_hook_active": False, "last_assistant_message": ANSWER},
                ),
                ("UserPromptSubmit", {"session_id": "cc-off", "prompt_id": "p-1", "prompt": WORDS}),
            )
            config_mod.set_key("sideContext", True)
            claude = turn(
                judge,
                "claude",
                (
                    "Stop",
                    {"session_id": "cc-on", "stop_hook_active": False, "last_assistant_message": ANSWER},
                ),
                ("UserPromptSubmit", {"session_id": "cc-on", "prompt_id": "p-2", "prompt": WORDS}),
            )
            cursor = turn(
                judge,
                "cursor",
                (
                    "stop",
                    {
                        "conversation_id": "cv-1",
                        "status": "completed",
                        "loop_count": 0,
                        "transcript_path": str(cursor_transcript),
                    },
                ),
                ("beforeSubmitPrompt", {"conversation_id": "cv-1", "generation_id": "g-2", "prompt": WORDS}),
            )
            workbuddy = turn(
                judge,
                "workbuddy",
                ("Stop", {"session_id": "wb-1", "stop_hook_active": False, "last_assistant_message": ANSWER}),
                (
                    "UserPromptSubmit",
                    {
                        "session_id": "wb-1",
                        "prompt": "<system-reminder>\n<user_info>OS: darwin</user_info>\n</system-reminder>\n"
                        "<user_query>支付页的开关叫什么</user_query>\n"
                        f"<user_query>\n{WORDS}\n</user_query>",
                    },
                ),
            )
    finally:
        judge.server.close()
    assert off == WORDS  # sideContext off (the default): the user's words only
    for sent in (claude, cursor, workbuddy):
        assert "pay_new_flow_v2" in sent and sent.endswith(WORDS)
        assert "hunter2" not in sent and REDACTED in sent
    assert "支付页的开关叫什么" not in workbuddy  # WorkBuddy's earlier query is not the user's words now
