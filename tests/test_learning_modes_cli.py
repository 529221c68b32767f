"""The learning modes on the command line, run as a user runs it: `memevo service` says who
proposes (and what auto chose) beside today's proposals and side API calls against their caps,
and `memevo pending` says whether a waiting proposal came from the client's own model or the
side judge, with the user's words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import servicerun


def _config(data_dir: Path, values: dict[str, object]) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "config.json").write_text(json.dumps(values), encoding="utf-8")


def _lines(text: str) -> dict[str, str]:
    """`memevo service`'s lines by their label (the first 18 columns)."""
    return {line[:18].strip(): line[19:] for line in text.splitlines() if line.strip()}


def test_service_status_says_the_mode_what_auto_chose_and_the_caps(
    run_cli, data_dir: Path, provisioned_model, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMEVO_SIDE_API_KEY", raising=False)  # no side API: auto means the client's model
    _config(data_dir, {"proposalsPerDay": 12, "proposalsPerSession": 3, "sideDailyLimit": 40})
    with servicerun.service(data_dir):
        auto = run_cli("service", "status")
        assert auto.returncode == 0, auto.stderr
        shown = _lines(auto.stdout)
        assert shown["learning"] == "auto → client: your coding assistant's model proposes memories"
        assert shown["proposals today"] == "0 of 12 a day (at most 3 per session)"
        assert shown["side API calls"] == "0 of 40 today"
        assert "{" not in auto.stdout and "proposals_per_day" not in auto.stdout  # not the raw dict

        assert run_cli("config", "learning", "client").returncode == 0
        assert _lines(run_cli("service", "status").stdout)["learning"] == (
            "client: your coding assistant's model proposes memories"
        )
        assert run_cli("config", "learning", "side").returncode == 0
        assert _lines(run_cli("service", "status").stdout)["learning"] == (
            "side → off: it is set to the side judge, whose API is not set up (base URL, model and key)"
        )
        assert run_cli("config", "learning", "off").returncode == 0
        assert _lines(run_cli("service", "status").stdout)["learning"] == "off (you chose off)"

        as_json = json.loads(run_cli("service", "status", "--json").stdout)
        assert as_json["learning"]["mode"] == "off" and as_json["learning"]["proposals_per_day"] == 12


def test_learning_lines_for_the_side_judge_and_a_status_that_failed() -> None:
    from memevo.cli.service_commands import learning_lines

    side = {
        "mode": "side",
        "chosen": "auto",
        "proposals_today": 2,
        "proposals_per_day": 30,
        "proposals_per_session": 8,
        "side_calls_today": 17,
        "side_daily_limit": 300,
    }
    assert learning_lines(side) == [
        ("learning", "auto → side: the side judge proposes memories"),
        ("proposals today", "2 of 30 a day (at most 8 per session)"),
        ("side API calls", "17 of 300 today"),
    ]
    legacy = side | {"mode": "off"}
    assert learning_lines(legacy)[0] == (
        "learning",
        "auto → off: set the side API in Settings or run `memevo setup`",
    )
    assert learning_lines({"error": "IOException: busy"}) == [("learning", "unknown: IOException: busy")]


def _waiting_from_both(day: str) -> None:
    """One proposal from Claude Code's own model whose quote the user did say, one whose quote
    is not among the user's words, and one from the side judge about what was said in Cursor."""
    from memevo.core.clock import SystemClock
    from memevo.core.learning import jobs, resolve
    from memevo.core.store.database import Store

    store, now = Store.open(), SystemClock().now_ms()
    try:
        for job_id, text, words, verified in (
            ("c1" + "0" * 30, "提交前先跑一遍单元测试", "以后提交前都先跑单元测试", True),
            ("c2" + "0" * 30, "发布只在周二下午", "发布只在周二下午", False),
        ):
            proposal: dict[str, object] = {
                "text": text,
                "category": "rule",
                "action": "create",
                "origin": "client",  # as propose.proposal makes it
                "day": day,
                "verified_words": verified,
            }
            made = jobs.create_proposed(
                store,
                job_id,
                "claude",
                "s1",
                words,
                now,
                proposal | {"options": resolve.options(proposal)},
                "shown",
                (8, 30),
            )
            assert made == "created"
        assert jobs.create(store, "5" * 32, "cursor", "s2", None, "记住：回答问题时一律使用中文", now)
        side = {"text": "回答问题时一律使用中文", "category": "rule", "action": "create"}
        jobs.update(store, "5" * 32, now, status="ready", proposal=side | {"options": resolve.options(side)})
    finally:
        store.close()


def _blocks(text: str) -> dict[str, str]:
    """`memevo pending`'s output per proposal: its sessionID to the lines under it."""
    found: dict[str, str] = {}
    current = ""
    for line in text.splitlines():
        if line and not line.startswith(" "):
            current = line.split()[0]
            found[current] = line
        else:
            found[current] += "\n" + line
    return found


def test_pending_says_who_proposed_and_the_users_words(run_cli, data_dir: Path) -> None:
    from memevo.core.clock import SystemClock

    clock = SystemClock()
    _waiting_from_both(clock.local_day(clock.now_ms()))
    listed = run_cli("pending")
    assert listed.returncode == 0, listed.stderr
    blocks = _blocks(listed.stdout)
    verified, unverified, side = blocks["c1" + "0" * 30], blocks["c2" + "0" * 30], blocks["5" * 32]
    assert "claude  session s1" in verified
    assert "\n  from:      Claude Code's own model (memory_propose)\n" in verified
    assert "\n  you said:  以后提交前都先跑单元测试\n" in verified
    assert "\n  from:      Claude Code's own model (memory_propose)\n" in unverified
    assert "\n  quoted:    发布只在周二下午  (not found among what you said in that session)\n" in unverified
    assert "you said:" not in unverified
    assert "\n  from:      the side judge (your side API), from what you said in Cursor\n" in side
    assert "\n  you said:  记住：回答问题时一律使用中文\n" in side
    waiting = json.loads(run_cli("pending", "--json").stdout)["pending"]
    assert sorted(item["proposer"] for item in waiting) == ["client", "client", "side"]
