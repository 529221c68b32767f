"""Recall cues: cleaning the side model's answer, storage tied to the text, recall with the
real model, and the service writing them through a local chat/completions server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fake_openai import FakeOpenAI
from memevo.core import config as config_mod
from memevo.core import paths
from memevo.core.clock import FakeClock
from memevo.core.learning import cue_writer, jobs
from memevo.core.learning.learn import LearningRunner
from memevo.core.memories import cues, purge
from memevo.core.memories import live as memories
from memevo.core.memories import trash as memory_trash
from memevo.core.recall.engine import RecallEngine
from memevo.core.recall.textfilter import REDACTED
from memevo.core.service.host import ServiceHost
from memevo.core.store.database import Store
from test_secrets import needs_keyring

SECRET = "sk-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3A"  # 40 alphanumerics after "sk-"
MONEY = "Money amounts are integers in cents or Decimal, never floats"
MONEY_CUES = ["价格字段用 double 存", "price = 19.99", "计算折扣金额", "Add a price column"]
PRICE_PROMPT = "这个商品的价格字段我打算用 double 类型"
OTHER_RULES = [
    "回答问题时请一律使用中文",
    "改完代码不要自动 commit，等我确认后再提交",
    "Python 代码统一用 ruff 格式化",
    "Don't add any new third-party dependency without asking me first",
]


# -- cleaning what the side model answered ----------------------------------------------------------
@pytest.mark.parametrize("value", [None, "价格字段用 double 存", 42, {"cues": ["a"]}, ("a", "b")])
def test_anything_but_a_list_gives_no_cues(value: object) -> None:
    assert cues.clean(value) == []


def test_clean_keeps_strings_one_line_each_without_duplicates() -> None:
    got = cues.clean(
        [
            "  价格字段用 double 存  ",
            7,
            None,
            ["nested"],
            {"k": "v"},
            "line one\nline two\r\tend",
            "bell\x07and\x1bescape\x7f",
            "para\u2028graph",
            "   \n\t  ",
            "",
            "价格字段用 double 存",  # a duplicate once stripped
            "price = 19.99",
            "price = 19.99",
        ]
    )
    assert got == [
        "价格字段用 double 存",
        "line one line two end",
        "bell and escape",
        "para graph",
        "price = 19.99",
    ]


def test_clean_bounds_the_length_and_the_number_of_cues() -> None:
    long = cues.clean(["x" * 500, "短" * 100])
    assert long == ["x" * cues.MAX_CUE_CHARS, "短" * cues.MAX_CUE_CHARS]
    many = cues.clean([f"cue number {i}" for i in range(30)])
    assert many == [f"cue number {i}" for i in range(cues.MAX_CUES)]
    assert cues.clean(["same"] * (4 * cues.MAX_CUES) + ["other"]) == ["same"]  # reads 4 × MAX_CUES at most


def test_clean_redacts_a_key_in_a_cue() -> None:
    got = cues.clean([f"call the API with {SECRET}", "测试环境 token 是 abc123secret"])
    assert got == [f"call the API with {REDACTED}", f"测试环境 token 是 {REDACTED}"]
    assert not any(SECRET in c or "abc123secret" in c for c in got)


def test_a_key_cut_by_the_length_limit_does_not_survive_in_part() -> None:
    got = cues.clean(["x" * 40 + " key " + SECRET])
    assert got and SECRET[:12] not in got[0]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"cues": ["价格字段用 double 存", "price = 19.99"]}', ["价格字段用 double 存", "price = 19.99"]),
        (
            '好的：\n```json\n{"cues": ["计算折扣金额", "Add a price column"]}\n```',
            ["计算折扣金额", "Add a price column"],
        ),
        ("I would rather not write cues for this memory.", []),
        ('{"cues": "not a list"}', []),
        ('["a bare list", "not an object"]', []),
        ('{"hints": ["wrong key"]}', []),
        ('{"cues": ["ok", 3, "ok", "line\\nbreak"]}', ["ok", "line break"]),
    ],
)
def test_cues_from_an_answer(content: str, expected: list[str]) -> None:
    assert cue_writer.cues_from(content) == expected


def test_the_request_names_the_kind_and_redacts_the_memory() -> None:
    sent = cue_writer.request(f"The staging key is {SECRET} for tests", "project")
    assert f"Memory (project fact): «The staging key is {REDACTED} for tests»" in sent
    assert SECRET not in sent
    assert "Memory (rule): «回答问题时请一律使用中文»" in cue_writer.request(
        "回答问题时请一律使用中文", "rule"
    )


# -- storage, tied to the text ---------------------------------------------------------------------------
def _rows(store: Store, table: str, memory_id: str) -> int:
    return int(store.query(f"SELECT count(*) FROM {table} WHERE memory_id = ?", [memory_id])[0][0])


def test_cues_are_saved_only_for_the_text_they_were_written_for(store: Store, clock: FakeClock) -> None:
    memory = memories.create(store, "rule", MONEY, clock)
    assert cues.save(store, memory.id, MONEY + " (edited meanwhile)", MONEY_CUES, clock.now_ms()) is False
    assert _rows(store, "cues", memory.id) == 0
    assert cues.save(store, "0000dead", MONEY, MONEY_CUES, clock.now_ms()) is False
    assert _rows(store, "cues", "0000dead") == 0
    assert cues.save(store, memory.id, MONEY, MONEY_CUES, clock.now_ms()) is True
    stored = store.query("SELECT cues, made_ms FROM cues WHERE memory_id = ?", [memory.id])
    assert stored == [(MONEY_CUES, clock.now_ms())]
    edited = "Money amounts are integers in cents, never floats"
    memories.replace_text(store, memory.id, edited, clock)
    assert cues.save(store, memory.id, MONEY, ["stale"], clock.now_ms()) is False  # written for the old text
    memories.delete(store, [memory.id], clock)
    assert cues.save(store, memory.id, edited, ["in the trash"], clock.now_ms()) is False
    assert store.query("SELECT cues FROM cues WHERE memory_id = ?", [memory.id]) == [(MONEY_CUES,)]


def test_wanted_follows_the_text(store: Store, clock: FakeClock) -> None:
    money = memories.create(store, "rule", MONEY, clock)
    clock.advance(minutes=1)
    fact = memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    assert cues.wanted(store, 10) == [(money.id, "rule", MONEY), (fact.id, "project", fact.text)]
    assert cues.wanted(store, 1) == [(money.id, "rule", MONEY)]
    assert cues.counts(store) == {"memories": 2, "with_cues": 0}

    assert cues.save(store, money.id, MONEY, MONEY_CUES, clock.now_ms())
    assert cues.wanted(store, 10) == [(fact.id, "project", fact.text)]
    assert cues.counts(store) == {"memories": 2, "with_cues": 1}

    assert cues.save(store, fact.id, fact.text, [], clock.now_ms())  # an unusable answer: kept empty
    assert cues.wanted(store, 10) == []
    assert cues.counts(store) == {"memories": 2, "with_cues": 1}  # an empty answer is no cues

    edited = "Money amounts are integers in cents (or Decimal); a float is never used for money"
    memories.replace_text(store, money.id, edited, clock)
    assert cues.wanted(store, 10) == [(money.id, "rule", edited)]
    assert cues.counts(store) == {"memories": 2, "with_cues": 0}
    assert cues.save(store, money.id, edited, ["金额不用 float"], clock.now_ms())
    assert cues.wanted(store, 10) == []

    merged = memories.merge_manual(
        store, fact.id, money.id, "支付页新流程的灰度开关是 pay_new_flow_v3", clock
    )
    assert cues.wanted(store, 10) == [(fact.id, "project", merged.text)]  # the merged text wants new ones


def test_deprecated_memories_are_not_asked_for(store: Store, clock: FakeClock) -> None:
    memory = memories.create(store, "rule", MONEY, clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 40, deprecated = TRUE WHERE id = ?", [memory.id])
    assert cues.wanted(store, 10) == []
    assert cues.counts(store) == {"memories": 0, "with_cues": 0}


def test_purge_removes_a_memorys_cues_and_their_vector(store: Store, clock: FakeClock) -> None:
    gone = memories.create(store, "rule", MONEY, clock)
    kept = memories.create(store, "rule", OTHER_RULES[0], clock)
    for memory in (gone, kept):
        assert cues.save(store, memory.id, memory.text, MONEY_CUES, clock.now_ms())
    items = [(gone.id, MONEY_CUES), (kept.id, MONEY_CUES)]
    cues.save_vectors(store, "test-model", items, np.ones((2, 4), dtype=np.float32))
    assert cues.stale_vectors(store, "test-model") == []
    purge.purge(store, gone.id)
    assert _rows(store, "cues", gone.id) == 0 and _rows(store, "cue_vectors", gone.id) == 0
    assert _rows(store, "cues", kept.id) == 1 and _rows(store, "cue_vectors", kept.id) == 1


def test_drop_orphans_keeps_live_and_trashed_memories_cues(store: Store, clock: FakeClock) -> None:
    live = memories.create(store, "rule", MONEY, clock)
    trashed = memories.create(store, "rule", OTHER_RULES[0], clock)
    for memory in (live, trashed):
        assert cues.save(store, memory.id, memory.text, ["a cue"], clock.now_ms())
    memories.delete(store, [trashed.id], clock)
    with store.transaction() as con:
        con.execute("INSERT INTO cues VALUES ('0rphan00', 'abc', ['left behind'], 0)")
        vec = np.asarray([1.0, 0.0], dtype="<f4").tobytes()  # as core/store/vector_bytes.py stores it
        con.execute("INSERT INTO cue_vectors VALUES ('0rphan00', 'm', 'abc', ?)", [vec])
    with store.transaction() as con:
        assert cues.drop_orphans(con) == 1
    assert _rows(store, "cues", "0rphan00") == 0 and _rows(store, "cue_vectors", "0rphan00") == 0
    assert _rows(store, "cues", live.id) == 1 and _rows(store, "cues", trashed.id) == 1
    memory_trash.restore(store, trashed.id)
    assert cues.wanted(store, 10) == []  # restored with the same text: its cues still count
    with store.transaction() as con:
        assert cues.drop_orphans(con) == 0


# -- recall with the real model ------------------------------------------------------------------------------
def _pool(store: Store, clock: FakeClock) -> memories.Memory:
    money = memories.create(store, "rule", MONEY, clock)
    for text in OTHER_RULES:
        memories.create(store, "rule", text, clock)
    memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    return money


def _recalled(engine: RecallEngine, prompt: str) -> list[str]:
    return [h.id for h in engine.recall(prompt, award=False).hits]


def test_cues_recall_a_rule_the_memory_alone_misses(
    store: Store, clock: FakeClock, engine: RecallEngine
) -> None:
    money = _pool(store, clock)
    engine.sync_all()
    assert engine.cued == frozenset()
    assert money.id not in _recalled(engine, PRICE_PROMPT)

    assert cues.save(store, money.id, MONEY, MONEY_CUES, clock.now_ms())
    engine.sync_ids([money.id])
    assert engine.cued == frozenset({money.id})
    assert engine.index.has_cue(money.id)
    assert engine.cue_texts(money.id) == MONEY_CUES
    assert _recalled(engine, PRICE_PROMPT) == [money.id]
    settings = engine.settings()
    assert settings.use_cues and settings.cue_offset_rule > 0
    best = engine.signals(PRICE_PROMPT, 3, settings)["rule"][0]
    assert best.id == money.id and best.cued and best.score >= settings.min_rule
    alone = engine.alone(PRICE_PROMPT, money.id, settings)
    assert alone is not None and alone.cued and alone.score >= settings.min_rule
    # cues only help where they fit
    assert _recalled(engine, "帮我写一个快速排序") == []
    # the cue vector is kept per model: a fresh engine (a restart) uses it without encoding again
    assert cues.stale_vectors(store, engine.encoder.model_id) == []
    assert _recalled(RecallEngine(store, engine.encoder, clock), PRICE_PROMPT) == [money.id]

    paths.config_path().parent.mkdir(parents=True, exist_ok=True)
    paths.config_path().write_text('{"recallCues": false}', encoding="utf-8")
    off = engine.settings()
    assert off.use_cues is False and (off.cue_offset_rule, off.cue_offset_project) == (0.0, 0.0)
    assert money.id not in _recalled(engine, PRICE_PROMPT)
    unused = engine.alone(PRICE_PROMPT, money.id, off)
    assert unused is not None and not unused.cued and unused.score < off.min_rule


def test_a_changed_text_drops_its_cues_from_recall(
    store: Store, clock: FakeClock, engine: RecallEngine
) -> None:
    money = _pool(store, clock)
    assert cues.save(store, money.id, MONEY, MONEY_CUES, clock.now_ms())
    engine.sync_all()
    assert engine.cued == frozenset({money.id})
    assert _recalled(engine, PRICE_PROMPT) == [money.id]
    memories.replace_text(store, money.id, "Money amounts are integers in cents, never floats", clock)
    engine.sync_ids([money.id])
    assert engine.cued == frozenset() and not engine.index.has_cue(money.id)
    assert engine.cue_texts(money.id) == []
    assert money.id not in _recalled(engine, PRICE_PROMPT)


def test_a_deprecated_memorys_cues_do_not_recall_it(
    store: Store, clock: FakeClock, engine: RecallEngine
) -> None:
    money = _pool(store, clock)
    assert cues.save(store, money.id, MONEY, MONEY_CUES, clock.now_ms())
    engine.sync_ids([money.id])
    assert _recalled(engine, PRICE_PROMPT) == [money.id]
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 40, deprecated = TRUE WHERE id = ?", [money.id])
    engine.sync_ids([money.id])
    assert _recalled(engine, PRICE_PROMPT) == []
    assert all(row.id != money.id for row in engine.signals(PRICE_PROMPT, 10, engine.settings())["rule"])
    engine.sync_all()
    assert _recalled(engine, PRICE_PROMPT) == []
    # and a deleted one's neither (its cues stay with it in the trash)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 50, deprecated = FALSE WHERE id = ?", [money.id])
    engine.sync_ids([money.id])
    assert _recalled(engine, PRICE_PROMPT) == [money.id]
    memories.delete(store, [money.id], clock)
    engine.sync_ids([money.id])
    assert money.id not in engine.cued
    assert _recalled(engine, PRICE_PROMPT) == []


# -- the service writes them through the side API (side_host: the real model, a side API key) ---------------
@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI([])
    fake.cue_answer = ("json", {"cues": MONEY_CUES})
    yield fake
    fake.close()


def _configure(server: FakeOpenAI) -> None:
    config_mod.set_key("sideApiBase", server.base)
    config_mod.set_key("sideApiModel", "judge-mini")
    config_mod.set_key("confirm", False)


def _add(host: ServiceHost, text: str, category: str = "rule") -> str:
    return str(host.handle("add", {"category": category, "text": text})["memory"]["id"])


def _runner(host: ServiceHost) -> LearningRunner:
    runner = host.ctx.learner.runner
    assert runner is not None
    runner.wait_cues(10)
    return runner


def _stored(host: ServiceHost) -> dict[str, tuple[str, ...]]:
    assert host.engine is not None
    return {i: c.cues for i, c in cues.current(host.store, host.engine.encoder.model_id).items()}


def test_a_new_memory_gets_cues_from_the_side_model(side_host: ServiceHost, server: FakeOpenAI) -> None:
    _configure(server)
    text = f"{MONEY}; the payments sandbox key is {SECRET}"
    memory_id = _add(side_host, text)
    runner = _runner(side_host)
    assert len(server.cue_requests) == 1 and server.requests == []  # no judge call
    sent = server.cue_requests[0]
    assert sent["model"] == "judge-mini"
    assert sent["messages"][0] == {"role": "system", "content": cue_writer.CUES_SYSTEM}
    assert sent["messages"][1]["role"] == "user"
    user = sent["messages"][1]["content"]
    assert user == cue_writer.request(text, "rule")
    assert f"Memory (rule): «{MONEY}; the payments sandbox key is {REDACTED}»" in user
    assert SECRET not in json.dumps(server.cue_requests, ensure_ascii=False)
    assert runner.cue_error is None and side_host.status()["cue_error"] is None
    assert _stored(side_host) == {memory_id: tuple(MONEY_CUES)}
    assert jobs.calls_today(side_host.store, side_host.clock.local_day(side_host.clock.now_ms())) == 1
    assert side_host.engine is not None and side_host.engine.cued == frozenset({memory_id})
    assert [h.id for h in side_host.engine.recall(PRICE_PROMPT, award=False).rules] == [memory_id]

    # nothing is asked again for the same text; a change of text asks again
    side_host.ctx.learner.want_cues()
    runner.wait_cues(10)
    assert len(server.cue_requests) == 1
    edited = "Money amounts are integers in cents, never floats or doubles"
    side_host.handle("replace", {"id": memory_id, "text": edited})
    runner.wait_cues(10)
    assert len(server.cue_requests) == 2
    assert f"«{edited}»" in server.cue_requests[1]["messages"][1]["content"]
    assert _stored(side_host) == {memory_id: tuple(MONEY_CUES)} and side_host.engine.cued == frozenset(
        {memory_id}
    )


def test_a_failing_side_api_leaves_no_cues_until_asked_again(
    side_host: ServiceHost, server: FakeOpenAI
) -> None:
    _configure(server)
    server.cue_answer = ("status", 500)
    memory_id = _add(side_host, MONEY)
    runner = _runner(side_host)
    assert len(server.cue_requests) == 1
    assert runner.cue_error == "the side API answered HTTP 500"
    assert side_host.status()["cue_error"] == "the side API answered HTTP 500"
    assert _stored(side_host) == {} and cues.wanted(side_host.store, 10) == [(memory_id, "rule", MONEY)]
    assert side_host.engine is not None and side_host.engine.cued == frozenset()

    server.cue_answer = ("json", {"cues": MONEY_CUES})
    side_host.ctx.learner.want_cues()
    runner.wait_cues(10)
    assert len(server.cue_requests) == 2
    assert runner.cue_error is None
    assert _stored(side_host) == {memory_id: tuple(MONEY_CUES)}
    assert side_host.engine.cued == frozenset({memory_id})


def test_a_memory_the_side_api_refuses_does_not_block_the_others(
    side_host: ServiceHost, server: FakeOpenAI, clock: FakeClock
) -> None:
    """HTTP 400/413/422 refuse this request (a filtered or oversized body): that text gets no
    cues and is not asked again, and the memories after it still get theirs."""
    _configure(server)
    refused = "这条记忆总被内容过滤拦下"
    answers = {refused: ("status", 400)}

    def answer(body: dict[str, Any]) -> tuple[str, Any]:
        user = body["messages"][1]["content"]
        return next((step for text, step in answers.items() if text in user), ("json", {"cues": MONEY_CUES}))

    server.cue_for = answer
    first = _add(side_host, refused)
    clock.advance(minutes=1)
    second = _add(side_host, MONEY)
    runner = _runner(side_host)
    runner.wait_cues(10)
    assert runner.cue_error is None
    assert side_host.store.query("SELECT cues FROM cues WHERE memory_id = ?", [first]) == [([],)]
    assert _stored(side_host) == {second: tuple(MONEY_CUES)}
    assert cues.wanted(side_host.store, 10) == []


def test_an_unusable_answer_is_kept_empty_and_not_asked_again(
    side_host: ServiceHost, server: FakeOpenAI
) -> None:
    _configure(server)
    server.cue_answer = ("text", "Sorry, I can only write cues on weekdays.")
    memory_id = _add(side_host, MONEY)
    runner = _runner(side_host)
    assert len(server.cue_requests) == 1 and runner.cue_error is None
    assert side_host.store.query("SELECT cues FROM cues WHERE memory_id = ?", [memory_id]) == [([],)]
    assert _stored(side_host) == {} and cues.wanted(side_host.store, 10) == []
    assert side_host.engine is not None and side_host.engine.cued == frozenset()
    side_host.ctx.learner.want_cues()
    runner.wait_cues(10)
    assert len(server.cue_requests) == 1


def test_recall_cues_off_sends_nothing(side_host: ServiceHost, server: FakeOpenAI) -> None:
    _configure(server)
    config_mod.set_key("recallCues", False)
    _add(side_host, MONEY)
    assert side_host.ctx.learner.runner is None  # not even started for cues
    assert server.cue_requests == []

    # a runner already running checks again before each pass
    side_host.ctx.learner.start()
    runner = side_host.ctx.learner.runner
    assert runner is not None
    runner.want_cues()
    runner.wait_cues(10)
    assert server.cue_requests == [] and cues.wanted(side_host.store, 10) != []

    config_mod.set_key("recallCues", True)
    side_host.ctx.learner.want_cues()
    runner.wait_cues(10)
    assert len(server.cue_requests) == 1 and cues.wanted(side_host.store, 10) == []


def test_no_side_api_configured_sends_nothing(side_host: ServiceHost, server: FakeOpenAI) -> None:
    _add(side_host, MONEY)
    assert side_host.ctx.learner.runner is None and server.cue_requests == []


def test_cues_use_at_most_half_of_the_daily_limit(
    side_host: ServiceHost, server: FakeOpenAI, clock: FakeClock
) -> None:
    _configure(server)
    config_mod.set_key("sideDailyLimit", 4)
    ids = []
    for text in (MONEY, *OTHER_RULES[:2]):
        ids.append(memories.create(side_host.store, "rule", text, clock).id)
        clock.advance(minutes=1)
    side_host.ctx.learner.want_cues()
    runner = _runner(side_host)
    assert len(server.cue_requests) == 2
    assert runner.cue_error == "half of today's side API calls are used; the rest wait for tomorrow"
    assert jobs.calls_today(side_host.store, clock.local_day(clock.now_ms())) == 2
    assert set(_stored(side_host)) == set(ids[:2])  # oldest first
    assert cues.wanted(side_host.store, 10) == [(ids[2], "rule", OTHER_RULES[1])]
    assert cues.counts(side_host.store) == {"memories": 3, "with_cues": 2}

    side_host.ctx.learner.want_cues()  # the same day: still waiting
    runner.wait_cues(10)
    assert len(server.cue_requests) == 2

    clock.advance(days=1)
    side_host.ctx.learner.want_cues()
    runner.wait_cues(10)
    assert len(server.cue_requests) == 3 and runner.cue_error is None
    assert set(_stored(side_host)) == set(ids)
    assert side_host.engine is not None and side_host.engine.cued == frozenset(ids)


def test_history_shows_the_cues_of_the_text_now(side_host: ServiceHost, clock: FakeClock) -> None:
    """`memevo history ID` and the panel's history dialog show what recall matches beside the
    text: nothing before the side model wrote cues, the cues after, nothing once it changed."""
    memory_id = memories.create(side_host.store, "rule", MONEY, clock).id
    assert side_host.handle("history", {"id": memory_id})["cues"] is None
    assert cues.save(side_host.store, memory_id, MONEY, MONEY_CUES, clock.now_ms())
    assert side_host.handle("history", {"id": memory_id})["cues"] == MONEY_CUES
    side_host.handle("replace", {"id": memory_id, "text": MONEY + " (also in reports)"})
    assert side_host.handle("history", {"id": memory_id})["cues"] is None


def test_configuring_the_side_api_starts_cues_for_memories_already_there(
    side_host: ServiceHost, server: FakeOpenAI
) -> None:
    memory_id = _add(side_host, MONEY)  # learning not configured yet: nothing asked
    assert server.cue_requests == [] and side_host.ctx.learner.runner is None
    side_host.handle("config_set", {"key": "sideApiBase", "value": server.base})
    side_host.handle("config_set", {"key": "sideApiModel", "value": "judge-mini"})
    runner = _runner(side_host)
    assert len(server.cue_requests) == 1 and runner.cue_error is None
    assert _stored(side_host) == {memory_id: tuple(MONEY_CUES)}


def test_paused_memevo_sends_no_cue_requests_until_resumed(
    side_host: ServiceHost, server: FakeOpenAI
) -> None:
    """Paused means nothing is injected or learned: no memory text goes to the side model either."""
    _configure(server)
    side_host.handle("config_set", {"key": "enabled", "value": False})
    memory_id = _add(side_host, MONEY)
    runner = side_host.ctx.learner.runner
    if runner is not None:
        runner.wait_cues(10)
    assert server.cue_requests == [] and _stored(side_host) == {}
    side_host.handle("config_set", {"key": "enabled", "value": True})  # the tray's resume does this
    _runner(side_host)
    assert len(server.cue_requests) == 1
    assert _stored(side_host) == {memory_id: tuple(MONEY_CUES)}


def test_a_key_set_outside_the_service_starts_cues_at_once(
    side_host: ServiceHost, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memevo secret set` (or the settings page) tells the service: memories added while the
    key was missing get their cues now, not at the next change."""
    from memevo.core.privacy import side_api_key as secrets

    _configure(server)
    monkeypatch.delenv(secrets.ENV)
    side_host.ctx.keys.forget()
    memory_id = _add(side_host, MONEY)
    runner = _runner(side_host)
    assert server.cue_requests == [] and runner.cue_error is not None  # not configured: nothing sent
    monkeypatch.setenv(secrets.ENV, "sk-test-local-only-0000000000")  # as the keyring would now answer
    assert side_host.handle("secret_changed", {}) == {"noticed": True}
    runner.wait_cues(10)
    assert len(server.cue_requests) == 1 and _stored(side_host) == {memory_id: tuple(MONEY_CUES)}
    assert runner.cue_error is None


@pytest.mark.slow
@needs_keyring
def test_memevo_secret_set_reaches_the_running_service(
    data_dir: Path, server: FakeOpenAI, run_cli: Any, provisioned_model: Any
) -> None:
    """Real processes and the real keyring: a `memevo serve` started without a key, a memory added
    through it, then `memevo secret set` in another process — the service asks the side model
    for the memory's cues within seconds (it used to wait for the next change)."""
    import servicerun
    from memevo.core.privacy import side_api_key as secrets

    _configure(server)
    secrets.clear_api_key()
    try:
        with servicerun.service(data_dir, env={secrets.ENV: ""}):
            added = run_cli("rule", "add", MONEY, env={secrets.ENV: ""})
            assert added.returncode == 0, added.stderr
            time.sleep(1.0)
            assert server.cue_requests == []  # no key yet: nothing leaves the machine
            stored = run_cli("secret", "set", input="sk-test-local-only-0000000000\n", env={secrets.ENV: ""})
            assert stored.returncode == 0, stored.stderr
            deadline = time.monotonic() + 20
            while not server.cue_requests and time.monotonic() < deadline:
                time.sleep(0.1)
            assert len(server.cue_requests) == 1
            assert f"«{MONEY}»" in server.cue_requests[0]["messages"][1]["content"]
    finally:
        secrets.clear_api_key()
