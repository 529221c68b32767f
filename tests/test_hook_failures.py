"""Failure is quiet and bounded: bad input, a hung or absent service — exit 0, nothing
printed that should not be, never a traceback; the reason goes to logs/hooks.log."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hookrun import MALFORMED_STDIN, FakeService, run_hook


@pytest.mark.parametrize("stdin", list(MALFORMED_STDIN.values()), ids=list(MALFORMED_STDIN))
def test_malformed_stdin(data_dir: Path, stdin: bytes) -> None:
    service = FakeService(data_dir, {"context": "SHOULD NOT APPEAR"})
    try:
        result = run_hook("claude", "UserPromptSubmit", stdin)
    finally:
        service.close()
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert service.requests == []
    assert "claude UserPromptSubmit" in (data_dir / "logs" / "hooks.log").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("client", "event"),
    [("claude", "Notification"), ("cursor", "afterFileEdit"), ("nosuchclient", "Stop")],
)
def test_unknown_events_and_clients(data_dir: Path, client: str, event: str) -> None:
    result = run_hook(client, event, json.dumps({"session_id": "s"}))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert "unknown" in (data_dir / "logs" / "hooks.log").read_text(encoding="utf-8")


def test_missing_fields_still_answer(data_dir: Path) -> None:
    service = FakeService(data_dir, {"context": None})
    try:
        result = run_hook(
            "cursor", "beforeSubmitPrompt", json.dumps({"hook_event_name": "beforeSubmitPrompt"})
        )
    finally:
        service.close()
    assert result.returncode == 0 and result.stdout == b""
    assert service.requests[0]["params"]["session"] is None


def test_a_one_megabyte_prompt_is_handled(data_dir: Path) -> None:
    service = FakeService(data_dir, {"context": "ok"})
    try:
        prompt = "日志如下\n" + "2026-11-29 10:00:00 ERROR boom\n" * 40_000
        assert len(prompt.encode()) > 1_000_000
        result = run_hook("claude", "UserPromptSubmit", json.dumps({"session_id": "s", "prompt": prompt}))
    finally:
        service.close()
    assert result.returncode == 0
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "ok"
    assert service.requests[0]["params"]["prompt"] == prompt


@pytest.mark.quiet  # asserts the product's own deadline: no other test's load
def test_a_hung_service_costs_less_than_the_clients_timeout(data_dir: Path) -> None:
    service = FakeService(data_dir, hang=True)
    try:
        started = time.monotonic()
        result = run_hook(
            "cursor", "beforeSubmitPrompt", json.dumps({"conversation_id": "c", "prompt": "你好你好你好"})
        )
        elapsed = time.monotonic() - started
    finally:
        service.close()
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert elapsed < 5  # Cursor kills a prompt hook at 5 s; ours gives up on the service at 3.5 s
    assert "timed out" in (data_dir / "logs" / "hooks.log").read_text(encoding="utf-8")


def test_no_service_starts_one_and_answers_from_the_cache(data_dir: Path) -> None:
    cache = data_dir / "cache"
    cache.mkdir(parents=True)
    (cache / "session-start-claude.txt").write_text("缓存的规则：回答用中文", encoding="utf-8")
    (cache / "prompt-reminder-claude.txt").write_text("缓存的提醒", encoding="utf-8")
    (data_dir / "service.spawned").write_text("1", encoding="utf-8")  # pretend one was just started
    start = run_hook("claude", "SessionStart", json.dumps({"session_id": "s", "source": "startup"}))
    prompt = run_hook(
        "claude", "UserPromptSubmit", json.dumps({"session_id": "s", "prompt": "支付页的开关叫什么"})
    )
    assert json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"] == "缓存的规则：回答用中文"
    assert json.loads(prompt.stdout)["hookSpecificOutput"]["additionalContext"] == "缓存的提醒"
    assert "falling back" in (data_dir / "logs" / "hooks.log").read_text(encoding="utf-8")


def test_no_service_and_no_cache_is_silent(data_dir: Path) -> None:
    (data_dir).mkdir(parents=True, exist_ok=True)
    (data_dir / "service.spawned").write_text("1", encoding="utf-8")
    result = run_hook("codebuddy", "SessionStart", json.dumps({"session_id": "s"}))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
