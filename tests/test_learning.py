"""Learning: the side judge against a local chat/completions server, jobs, resolve, cleanup."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from memevo.core import config as config_mod
from memevo.core.clock import FakeClock
from memevo.core.errors import InvalidInput
from memevo.core.learning import jobs, judge, resolve, sessionid
from memevo.core.memories import live as memories
from memevo.core.memories import maintenance
from memevo.core.recall.textfilter import REDACTED, redact_secrets
from memevo.core.service.host import ServiceHost
from memevo.core.store.database import Store

ASK = {"client": "claude", "flavor": "claude", "session": "sess-1", "prompt_id": "p-1"}


# -- sessionIDs ------------------------------------------------------------------------------------------
def test_session_ids_are_stable_keyed_and_fail_closed(data_dir: Path) -> None:
    a = sessionid.session_id("claude", "s", "p", "记住：回答用中文")
    assert a == sessionid.session_id("claude", "s", "p", "记住：回答用中文")  # a retried hook
    others = {
        sessionid.session_id("cursor", "s", "p", "记住：回答用中文"),
        sessionid.session_id("claude", "s2", "p", "记住：回答用中文"),
        sessionid.session_id("claude", "s", "p2", "记住：回答用中文"),
        sessionid.session_id("claude", "s", "p", "记住：回答用英文"),
    }
    assert a not in others and len(others) == 4
    secret = data_dir / "session-secret"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600 and len(secret.read_bytes()) == 32
    with pytest.raises(ValueError, match="no stable session id"):
        sessionid.session_id("codebuddy", "", None, "记住：回答用中文")


# -- parsing the judge ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "remember"),
    [
        ('{"remember": true, "text": "回答用中文回答", "category": "rule"}', True),
        ('好的：\n```json\n{"remember": true, "text": "回答用中文回答", "category": "rule"}\n```', True),
        ("我觉得应该记住这句话", False),
        ('{"remember": "yes", "text": "x"}', False),
        ('{"remember": true, "text": ""}', False),
        ("[1, 2]", False),
    ],
)
def test_verdicts(content: str, remember: bool) -> None:
    assert judge.verdict_from(content).remember is remember


def test_impossible_decisions_fall_back_to_create() -> None:
    assert judge.decision_from('{"action": "merge", "target": "zzz", "text": "x"}', ["a"]).action == "create"
    assert judge.decision_from('{"action": "merge", "target": "a", "text": null}', ["a"]).action == "create"
    assert judge.decision_from("not json", ["a"]).action == "create"
    assert judge.decision_from(
        '{"action": "reinforce", "target": "a", "text": "x"}', ["a"]
    ) == judge.Decision("reinforce", "a", None)


# -- redaction -------------------------------------------------------------------------------------------------
SECRETS = [
    "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx12345678",
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx-12345678",
    "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "AKIAIOSFODNN7EXAMPLE",
    "AIzaSyA-1234567890abcdefghijklmnopqrstu",
    "xoxb-123456789012-abcdefghijklmnop",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


@pytest.mark.parametrize("secret", SECRETS)
def test_key_like_strings_are_hidden(secret: str) -> None:
    redacted = redact_secrets(f"记住测试环境用这个 {secret} 调接口")
    assert secret not in redacted and REDACTED in redacted


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ("password=hunter2 连数据库用", "hunter2"),
        ("token: abc123secret", "abc123secret"),
        ("Authorization: Bearer abcdefghijklmnop1234567890", "abcdefghijklmnop1234567890"),
        ("测试库的密码是 Pa55w0rd! 记一下", "Pa55w0rd!"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "MIIEow"),
    ],
)
def test_secret_pairs_are_hidden(text: str, gone: str) -> None:
    assert gone not in redact_secrets(text)


@pytest.mark.parametrize(
    "text",
    [
        "支付页新流程的灰度开关是 pay_new_flow_v2",
        "文档在 https://wiki.example.com/payment/new-flow 里",
        "提交 3f2a9c1 修复了登录超时",
        "memory id 0d136432 的那条记忆",
        "用 pnpm 管理依赖，Node 版本 20",
    ],
)
def test_ordinary_text_survives_redaction(text: str) -> None:
    assert redact_secrets(text) == text


# -- the side path end to end (side_host: in-process service, real model, real HTTP) ----------------------------
def _configure(server: FakeOpenAI, confirm: bool) -> None:
    config_mod.set_key("sideApiBase", server.base)
    config_mod.set_key("sideApiModel", "judge-mini")
    config_mod.set_key("confirm", confirm)


def _learn(host: ServiceHost, prompt: str, **ask: str) -> jobs.Job:
    job_id = host.ctx.learner.learn(ASK | ask, prompt)
    assert job_id is not None
    host.ctx.learner.runner.wait(job_id, 30)
    job = jobs.get(host.store, job_id)
    assert job is not None
    return job


def test_confirm_off_writes_directly_and_says_its_group(side_host: ServiceHost) -> None:
    server = FakeOpenAI([("json", {"remember": True, "text": "回答问题时一律使用中文", "category": "rule"})])
    try:
        _configure(server, confirm=False)
        job = _learn(side_host, "以后回答我都用中文")
    finally:
        server.close()
    assert job.status == "applied"
    assert job.result is not None and job.result["message"].endswith("归类：rule（规则与偏好）")
    assert [m.text for m in memories.ranked(side_host.store, "rule")] == ["回答问题时一律使用中文"]
    sent = server.requests[0]
    assert sent["model"] == "judge-mini" and sent["messages"][1]["content"] == "以后回答我都用中文"
    assert server.headers[0]["Authorization"] == "Bearer sk-test-local-only-0000000000"
    assert len(server.requests) == 1  # no live memories yet: no second call


def test_confirm_on_leaves_a_proposal_and_resolve_applies_it(side_host: ServiceHost) -> None:
    server = FakeOpenAI(
        [
            (
                "json",
                {"remember": True, "text": "支付页新流程的灰度开关是 pay_new_flow_v2", "category": "project"},
            )
        ]
    )
    try:
        _configure(server, confirm=True)
        job = _learn(side_host, "记一下：支付页新流程的灰度开关是 pay_new_flow_v2")
    finally:
        server.close()
    assert job.status == "ready" and job.proposal is not None
    assert job.proposal["options"] == ["create_rule", "create_project", "discard"]
    assert memories.counts(side_host.store)["project"]["live"] == 0
    with pytest.raises(resolve.ResolveRejected, match="another client"):
        resolve.resolve(side_host.store, side_host.clock, "cursor", job.id, "create_project")
    with pytest.raises(resolve.ResolveRejected, match="not offered"):
        resolve.resolve(side_host.store, side_host.clock, "claude", job.id, "merge")
    with pytest.raises(resolve.ResolveRejected, match=r"\(2000000 characters\)' was not offered") as big:
        resolve.resolve(side_host.store, side_host.clock, "claude", job.id, "y" * 2_000_000)
    assert len(str(big.value)) < 300
    result = resolve.resolve(side_host.store, side_host.clock, "claude", job.id, "create_project")
    assert result["message"].endswith("归类：project（项目事实）")
    with pytest.raises(resolve.ResolveRejected, match="already handled"):
        resolve.resolve(side_host.store, side_host.clock, "claude", job.id, "discard")
    with pytest.raises(resolve.ResolveRejected, match="unknown sessionID"):
        resolve.resolve(side_host.store, side_host.clock, "claude", "nope", "discard")
    # a model's megabyte of sessionID or decision is not sent back whole
    with pytest.raises(
        resolve.ResolveRejected, match=r"unknown sessionID x{80}… \(1000000 characters\)$"
    ) as big:
        resolve.resolve(side_host.store, side_host.clock, "claude", "x" * 1_000_000, "discard")
    assert len(str(big.value)) < 200


@pytest.mark.parametrize("action", ["reinforce", "merge", "replace"])
def test_decisions_against_a_near_memory(side_host: ServiceHost, clock: FakeClock, action: str) -> None:
    old = memories.create(side_host.store, "rule", "提交信息用英文写", clock)
    side_host.engine.sync_ids([old.id])
    clock.advance(days=1)
    new_text = {
        "reinforce": None,
        "merge": "提交信息用英文写，遵循 Conventional Commits",
        "replace": "提交信息改用中文写",
    }[action]
    server = FakeOpenAI(
        [
            ("json", {"remember": True, "text": "提交信息要用英文", "category": "rule"}),
            (
                "text",
                "```json\n"
                + json.dumps({"action": action, "target": old.id, "text": new_text}, ensure_ascii=False)
                + "\n```",
            ),
        ]
    )
    try:
        _configure(server, confirm=False)
        job = _learn(side_host, "提交信息要用英文")
    finally:
        server.close()
    assert job.status == "applied", job.error
    after = memories.get(side_host.store, old.id)
    expected = {"reinforce": ("提交信息用英文写", 60), "merge": (new_text, 60), "replace": (new_text, 50)}[
        action
    ]
    assert (after.text, after.confidence) == expected
    assert old.id in server.requests[1]["messages"][1]["content"]  # the nearest memories were sent as is


@pytest.mark.parametrize("action", ["merge", "replace"])
def test_confirm_off_a_pinned_memorys_text_waits_for_the_user(
    side_host: ServiceHost, clock: FakeClock, action: str
) -> None:
    """The side judge's merge or replace of a pinned memory is held for the user even with
    confirmation off; the memory keeps its text until the user answers."""
    old = memories.create(side_host.store, "rule", "提交信息用英文写", clock)
    memories.set_pinned(side_host.store, old.id, True, clock)
    side_host.engine.sync_ids([old.id])
    new_text = "提交信息改用中文写"
    server = FakeOpenAI(
        [
            ("json", {"remember": True, "text": "提交信息要用中文", "category": "rule"}),
            ("json", {"action": action, "target": old.id, "text": new_text}),
        ]
    )
    try:
        _configure(server, confirm=False)
        job = _learn(side_host, "提交信息要用中文")
    finally:
        server.close()
    assert job.status == "ready" and job.proposal is not None and job.proposal["action"] == action
    assert memories.get(side_host.store, old.id).text == "提交信息用英文写"


@pytest.mark.parametrize(
    ("step", "status"),
    [
        (("text", "这句话值得记住吗？我认为值得。"), "nothing"),
        (("status", 500), "failed"),
        (("status", 429), "failed"),
        (("garbage", "<html>bad gateway</html>"), "failed"),
        (("sleep", 4), "failed"),
        (("json", {"remember": True, "text": "短", "category": "rule"}), "refused"),
    ],
    ids=["not-json", "500", "429", "garbage", "hang", "text-too-short"],
)
def test_failures_write_nothing_and_keep_a_reason(side_host: ServiceHost, step: tuple, status: str) -> None:
    server = FakeOpenAI([step])
    try:
        _configure(server, confirm=False)
        job = _learn(side_host, "以后回答我都用中文")
    finally:
        server.close()
    assert job.status == status
    if status in ("failed", "refused"):
        assert job.error
    assert sum(memories.counts(side_host.store)["rule"].values()) == 0


def test_a_failing_side_api_shows_in_the_status_until_a_call_succeeds(side_host: ServiceHost) -> None:
    """A wrong key (HTTP 401) or the daily limit was kept only in the job and the log: a user
    without the tray saw nothing in `memevo service`, and each prompt's reminder still said
    learning works. The status says why, and the reminder that learning is failing, until the
    side API answers again."""
    from memevo.core.service import hookops, texts

    def reminder() -> str:  # what the next prompt's hook injects beside the recall
        return hookops.prompt_reminder(side_host.ctx, config_mod.load(), "claude")

    server = FakeOpenAI([("status", 401), ("json", {"remember": False})])
    try:
        _configure(server, confirm=True)
        assert side_host.status()["side_error"] is None
        assert reminder() == texts.reminder("claude")
        assert _learn(side_host, "第一句话：以后都用中文", prompt_id="a").status == "failed"
        assert "401" in (side_host.status()["side_error"] or "")
        # the model is told learning is failing, so it does not promise to remember
        assert reminder() == texts.reminder("claude") + texts.side_failing()
        assert "401" not in reminder() and "不会被记下" in reminder()
        assert _learn(side_host, "第二句话：以后都用英文", prompt_id="b").status == "nothing"
    finally:
        server.close()
    assert side_host.status()["side_error"] is None
    assert reminder() == texts.reminder("claude")


def test_terminal_escapes_and_control_characters_never_reach_the_judge(side_host: ServiceHost) -> None:
    """A prompt pasted from a terminal: its colour sequences went to the side API whole, and a
    judge that copied the words left "[31m" in the memory."""
    server = FakeOpenAI([("json", {"remember": False})])
    try:
        _configure(server, confirm=True)
        _learn(side_host, "记住：提交前\x1b[31m先跑测试\x1b[0m，\u202e别忘了\x07")
    finally:
        server.close()
    sent = server.requests[0]["messages"][1]["content"]
    assert sent == "记住：提交前先跑测试，别忘了"


def test_a_retried_hook_starts_the_analysis_once(side_host: ServiceHost) -> None:
    server = FakeOpenAI([("json", {"remember": False})])
    try:
        _configure(server, confirm=True)
        first = _learn(side_host, "以后回答我都用中文")
        second = _learn(side_host, "以后回答我都用中文")
    finally:
        server.close()
    assert first.id == second.id and len(server.requests) == 1


def test_no_session_id_fails_closed(side_host: ServiceHost) -> None:
    server = FakeOpenAI([("json", {"remember": True, "text": "回答问题时一律使用中文", "category": "rule"})])
    try:
        _configure(server, confirm=False)
        assert side_host.ctx.learner.learn(ASK | {"session": None}, "以后回答我都用中文") is None
    finally:
        server.close()
    assert server.requests == []


def test_the_daily_limit_stops_runaway_cost(side_host: ServiceHost) -> None:
    config_mod.set_key("sideDailyLimit", 1)
    server = FakeOpenAI(lambda body: ("json", {"remember": False}))
    try:
        _configure(server, confirm=True)
        assert _learn(side_host, "第一句话：以后都用中文", prompt_id="a").status == "nothing"
        limited = _learn(side_host, "第二句话：以后都用英文", prompt_id="b")
    finally:
        server.close()
    assert limited.status == "failed" and "daily limit" in (limited.error or "")
    assert len(server.requests) == 1


def test_jobs_are_isolated_by_client_and_session(store: Store, clock: FakeClock) -> None:
    for client, session in (("claude", "a"), ("claude", "b"), ("cursor", "a")):
        jobs.create(store, f"{client}-{session}", client, session, None, "words", clock.now_ms())
    mine = jobs.of_session(store, "claude", "a", jobs.OPEN)
    assert [j.id for j in mine] == ["claude-a"]


def test_zombie_cleanup_with_an_injected_clock(store: Store, clock: FakeClock) -> None:
    jobs.create(store, "shown-old", "claude", "s", None, "w", clock.now_ms())
    jobs.update(
        store, "shown-old", clock.now_ms(), status="shown", shown_ms=clock.now_ms(), proposal={"text": "x"}
    )
    jobs.create(store, "never-shown", "claude", "s", None, "w", clock.now_ms())
    jobs.update(store, "never-shown", clock.now_ms(), status="ready", proposal={"text": "x"})
    jobs.create(store, "shown-today", "claude", "s", None, "w", clock.now_ms())
    clock.advance(days=1)
    jobs.update(
        store, "shown-today", clock.now_ms(), status="shown", shown_ms=clock.now_ms(), proposal={"text": "x"}
    )
    report = maintenance.run(store, clock, config_mod.load())
    assert report.zombies == 1
    states = {j: jobs.get(store, j).status for j in ("shown-old", "never-shown", "shown-today")}  # type: ignore[union-attr]
    assert states == {"shown-old": "zombie", "never-shown": "ready", "shown-today": "shown"}
    assert jobs.get(store, "shown-old").error == jobs.ZOMBIE  # type: ignore[union-attr]
    clock.advance(days=31)
    maintenance.run(store, clock, config_mod.load())
    assert jobs.get(store, "never-shown") is None  # dropped after 30 days
    assert jobs.get(store, "shown-old") is None  # its tombstone ended too


def test_text_limits_hold_for_learned_memories(side_host: ServiceHost) -> None:
    with pytest.raises(InvalidInput):
        resolve.apply(
            side_host.store,
            side_host.clock,
            {"text": "短", "category": "rule", "action": "create"},
            "create_rule",
        )
    assert os.environ["MEMEVO_SIDE_API_KEY"]


# -- Stop: results and the in-chat confirmation (headless) ---------------------------------------------------
def _stop(host: ServiceHost, **params: object) -> dict:
    return host.handle("hook_stop", {"client": "claude", "flavor": "claude", "session": "sess-1"} | params)


def _reply(host: ServiceHost, prompt: str, prompt_id: str = "reply", **ask: str) -> dict:
    """The user's next prompt, through the prompt hook's operation."""
    return host.handle("hook_prompt", ASK | ask | {"prompt_id": prompt_id, "prompt": prompt, "kind": "user"})


def test_stop_asks_in_words_and_only_the_users_reply_writes(side_host: ServiceHost) -> None:
    server = FakeOpenAI([("json", {"remember": True, "text": "回答问题时一律使用中文", "category": "rule"})])
    try:
        _configure(server, confirm=True)
        job = _learn(side_host, "以后回答我都用中文")
    finally:
        server.close()
    assert _stop(side_host, continuation=True) == {"context": None}  # never continue a continuation
    assert _stop(side_host, subagent=True) == {"context": None}
    reply = _stop(side_host)
    text = reply["context"]
    assert text.startswith("MEMORY_CONFIRM_V1") and job.id in text
    assert "「记忆确认·插件」" in text and "1. 保存为规则（create_rule）" in text and "编号" in text
    assert "不要用 AskUserQuestion" in text and "不要调用 memory_resolve" in text
    assert jobs.get(side_host.store, job.id).status == "shown"  # type: ignore[union-attr]
    assert _stop(side_host) == {"context": None}  # shown once
    with pytest.raises(InvalidInput, match="another client"):
        side_host.handle("side_resolve", {"client": "cursor", "sessionID": job.id, "decision": "create_rule"})
    with pytest.raises(InvalidInput, match="只能由用户自己确认"):  # the model answering for the user
        side_host.handle("side_resolve", {"client": "claude", "sessionID": job.id, "decision": "create_rule"})
    assert memories.ranked(side_host.store, "rule") == []
    answered = _reply(side_host, "保存为规则")["context"]
    assert "选了「保存为规则」" in answered and answered.count("新增记忆") == 1
    assert "归类：rule（规则与偏好）" in answered
    assert [m.text for m in memories.ranked(side_host.store, "rule")] == ["回答问题时一律使用中文"]
    # the model's memory_resolve after it: the user's own choice reported, nothing written twice
    again = side_host.handle(
        "side_resolve", {"client": "claude", "sessionID": job.id, "decision": "create_rule"}
    )
    assert "已经在对话里回答过" in again["message"]
    with pytest.raises(InvalidInput, match="用户选的是 create_rule"):
        side_host.handle("side_resolve", {"client": "claude", "sessionID": job.id, "decision": "discard"})
    assert [m.text for m in memories.ranked(side_host.store, "rule")] == ["回答问题时一律使用中文"]


def test_stop_only_touches_its_own_client_and_session(side_host: ServiceHost) -> None:
    server = FakeOpenAI(
        lambda body: ("json", {"remember": True, "text": "回答问题时一律使用中文", "category": "rule"})
    )
    try:
        _configure(server, confirm=True)
        mine = _learn(side_host, "以后回答我都用中文")
        other_session = _learn(side_host, "以后回答我都用中文", session="sess-2")
        other_client = _learn(side_host, "以后回答我都用中文", client="codebuddy")
    finally:
        server.close()
    _stop(side_host)
    states = {j.id: jobs.get(side_host.store, j.id).status for j in (mine, other_session, other_client)}  # type: ignore[union-attr]
    assert states == {mine.id: "shown", other_session.id: "ready", other_client.id: "ready"}


def test_a_new_question_voids_the_unanswered_one(side_host: ServiceHost) -> None:
    server = FakeOpenAI(
        lambda body: ("json", {"remember": True, "text": "回答问题时一律使用中文", "category": "rule"})
    )
    try:
        _configure(server, confirm=True)
        first = _learn(side_host, "以后回答我都用中文", prompt_id="a")
        _stop(side_host)
        _prompt(side_host, "以后都用中文回答", "b")  # the user moved on: no answer to the first
        _stop(side_host)
    finally:
        server.close()
    second = sessionid.session_id(ASK["client"], ASK["session"], "b", "以后都用中文回答")
    assert jobs.get(side_host.store, first.id).status == "voided"  # type: ignore[union-attr]
    assert jobs.get(side_host.store, second).status == "shown"  # type: ignore[union-attr]
    with pytest.raises(InvalidInput, match="already handled"):
        side_host.handle("side_resolve", {"client": "claude", "sessionID": first.id, "decision": "discard"})
    assert "选了「不保存」" in _reply(side_host, "不保存")["context"]  # the second is answerable
    assert jobs.get(side_host.store, second).status == "done"  # type: ignore[union-attr]


def test_stop_shows_results_written_without_confirmation(side_host: ServiceHost) -> None:
    server = FakeOpenAI([("json", {"remember": True, "text": "回答问题时一律使用中文", "category": "rule"})])
    try:
        _configure(server, confirm=False)
        _learn(side_host, "以后回答我都用中文")
    finally:
        server.close()
    text = _stop(side_host)["context"]
    assert "原样展示" in text and "新增记忆" in text and "归类：rule（规则与偏好）" in text
    assert "MEMORY_CONFIRM_V1" not in text


def test_cursor_keeps_the_instruction_hidden_until_the_next_prompt(side_host: ServiceHost) -> None:
    server = FakeOpenAI([("json", {"remember": True, "text": "回答问题时一律使用中文", "category": "rule"})])
    try:
        _configure(server, confirm=True)
        _learn(side_host, "以后回答我都用中文", client="cursor")
    finally:
        server.close()
    reply = side_host.handle("hook_stop", {"client": "cursor", "flavor": "default", "session": "sess-1"})
    assert (
        reply["notice"].startswith("memory-self-evolution 捕捉到了新的记忆")
        and "MEMORY_CONFIRM_V1" not in reply["notice"]
    )
    back = side_host.handle(
        "hook_prompt",
        {
            "client": "cursor",
            "flavor": "default",
            "session": "sess-1",
            "prompt": reply["notice"],
            "kind": "plugin",
        },
    )
    assert back["context"].startswith("MEMORY_CONFIRM_V1") and "AskQuestion" in back["context"]
    again = side_host.handle(
        "hook_prompt",
        {
            "client": "cursor",
            "flavor": "default",
            "session": "sess-1",
            "prompt": reply["notice"],
            "kind": "plugin",
        },
    )
    assert again["context"] is None  # used once, then deleted


def _prompt(host: ServiceHost, prompt: str, prompt_id: str) -> None:
    """Through the prompt hook's service operation, as a client's hook would."""
    host.handle("hook_prompt", ASK | {"prompt_id": prompt_id, "prompt": prompt, "kind": "user"})
    host.ctx.learner.runner.wait(sessionid.session_id(ASK["client"], ASK["session"], prompt_id, prompt), 30)


def test_side_context_sends_the_previous_answer_only_when_on(side_host: ServiceHost) -> None:
    answer = "结论：灰度开关叫 pay_new_flow_v2，密码是 hunter2"
    seen: list[str] = []

    def script(body: dict) -> tuple:
        seen.append(body["messages"][1]["content"])
        return ("json", {"remember": False})

    server = FakeOpenAI(script)
    try:
        _configure(server, confirm=True)
        _stop(side_host, last_assistant_message=answer)
        _prompt(side_host, "记住刚才那个结论", "a")
        config_mod.set_key("sideContext", True)
        _stop(side_host, last_assistant_message=answer)
        _prompt(side_host, "记住刚才那个结论", "b")
    finally:
        server.close()
    assert seen[0] == "记住刚才那个结论"  # off by default: the user's words only
    assert "pay_new_flow_v2" in seen[1] and "hunter2" not in seen[1] and REDACTED in seen[1]


def test_a_refused_decision_is_shown_not_only_logged(side_host: ServiceHost) -> None:
    server = FakeOpenAI([("json", {"remember": True, "text": "短", "category": "rule"})])
    try:
        _configure(server, confirm=False)
        _learn(side_host, "记住：短")
    finally:
        server.close()
    text = _stop(side_host)["context"]
    assert "这条记忆没有写入" in text and "6–400" in text


def test_changing_a_memory_voids_proposals_that_point_at_it(side_host: ServiceHost, clock: FakeClock) -> None:
    target = memories.create(side_host.store, "rule", "提交信息用英文写", clock)
    other = memories.create(side_host.store, "rule", "不要在周五发布上线", clock)
    for job_id, about in (("about-target", target.id), ("about-other", other.id)):
        jobs.create(side_host.store, job_id, "claude", "s", None, "words", clock.now_ms())
        proposal = {"text": "提交信息要用英文", "category": "rule", "action": "reinforce", "target": about}
        jobs.update(side_host.store, job_id, clock.now_ms(), status="ready", proposal=proposal)
    side_host.handle("replace", {"id": target.id, "text": "提交信息一律用英文写"})
    assert jobs.get(side_host.store, "about-target").status == "voided"  # type: ignore[union-attr]
    assert jobs.get(side_host.store, "about-other").status == "ready"  # type: ignore[union-attr]
    assert side_host.ctx.page.flush()  # the page is rendered off the request
    assert "提交信息一律用英文写" in (side_host.store.path.parent / "memories.html").read_text(
        encoding="utf-8"
    )


def test_a_learned_fact_belongs_to_the_sessions_repository(side_host: ServiceHost, tmp_path: Path) -> None:
    repo = tmp_path / "payments"
    (repo / ".git").mkdir(parents=True)
    (repo / "web").mkdir()
    fact = {"remember": True, "text": "支付页新流程的灰度开关是 pay_new_flow_v2", "category": "project"}
    decision = {
        "remember": True,
        "text": "后端服务一律用 Go 1.22 开发",
        "category": "project",
        "scope": "global",
    }
    server = FakeOpenAI([("json", fact), ("json", decision)])
    try:
        _configure(server, confirm=True)
        job = _learn(side_host, "记一下：支付页新流程的灰度开关是 pay_new_flow_v2", cwd=str(repo / "web"))
        kept = _learn(side_host, "以后后端服务一律用 Go 1.22", cwd=str(repo), prompt_id="p2")
    finally:
        server.close()
    assert server.requests[0]["messages"][1]["content"].startswith("（当前仓库：payments）\n")
    assert job.proposal is not None and job.proposal["scope"] == str(repo)
    made = resolve.resolve(side_host.store, side_host.clock, "claude", job.id, "create_project")["memory"]
    assert made["scope"] == str(repo)
    assert kept.proposal is not None and "scope" not in kept.proposal  # a cross-project decision: global
    ruled = resolve.resolve(side_host.store, side_host.clock, "claude", kept.id, "create_rule")
    assert ruled["memory"]["scope"] == "global"


def test_a_finished_turn_s_lesson_is_proposed_and_always_waits_for_the_user(side_host: ServiceHost) -> None:
    """sideContext on: at Stop the side judge is asked what the turn taught, from the user's
    last words and the assistant's answer (redacted); a lesson is a project fact that waits for
    the user even with confirmation off. With sideContext off nothing of the answer is sent."""
    answer = "查明了：订单同步报 KeyError: 'user_id' 是上游 webhook 少了 user_id，已在 sync.py 里用 customer_id 补上。token=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
    seen: list[tuple[str, str]] = []
    lesson = (
        "订单同步报 KeyError: 'user_id' 时，是上游 webhook 少了 user_id：在 sync.py 里用 customer_id 补上"
    )

    def script(body: dict) -> tuple:
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        seen.append((system, user))
        if "编程助手刚结束一轮工作" in system:
            return ("json", {"remember": True, "text": lesson, "category": "rule", "scope": "repo"})
        return ("json", {"remember": False})

    server = FakeOpenAI(script)
    try:
        _configure(server, confirm=False)
        _prompt(side_host, "订单同步又挂了，帮我查一下", "t1")
        _stop(side_host, last_assistant_message=answer)
        assert not any("编程助手刚结束一轮工作" in s for s, _ in seen)  # sideContext off: not asked
        config_mod.set_key("sideContext", True)
        _prompt(side_host, "订单同步又挂了，帮我查一下", "t2")
        _stop(side_host, last_assistant_message=answer)
        deadline = time.monotonic() + 30
        while not any("编程助手刚结束一轮工作" in s for s, _ in seen) and time.monotonic() < deadline:
            time.sleep(0.05)
        for job_id in list(side_host.ctx.learner.runner.futures):
            side_host.ctx.learner.runner.wait(job_id, 30)
    finally:
        server.close()
    asked = [u for s, u in seen if "编程助手刚结束一轮工作" in s]
    assert len(asked) == 1 and "订单同步又挂了" in asked[0] and "KeyError: 'user_id'" in asked[0]
    assert "ghp_" not in asked[0] and REDACTED in asked[0]
    waiting = [j for j in jobs.pending(side_host.store) if j.proposal and j.proposal["text"] == lesson]
    assert len(waiting) == 1 and waiting[0].proposal["category"] == "project", waiting
    assert not any(m.text == lesson for m in memories.ranked(side_host.store, "project", limit=None))
