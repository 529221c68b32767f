"""The real service with the real model, driven through the real hook executable."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import servicerun
from deadlines import HANG_S
from hookrun import run_hook
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.service import texts
from memevo.core.store.database import Store

pytestmark = pytest.mark.usefixtures("provisioned_model")

RULES = ["回答问题时请一律使用中文", "改完代码不要自动 commit，等我确认后再提交"]
FACT = "支付页新流程的灰度开关是 pay_new_flow_v2"
RELATED = "支付页新流程要在测试环境打开，开关叫什么来着"
UNRELATED = "帮我写一个快速排序的实现"


def _two_days_ago() -> FakeClock:
    moment = datetime.now(timezone(timedelta(hours=8))) - timedelta(days=2)
    return FakeClock(moment)


def _populate(home: Path) -> None:
    os.environ["MEMEVO_HOME"] = str(home)
    with Store.open() as store:
        clock = _two_days_ago()
        for rule in RULES:
            memories.create(store, "rule", rule, clock)
            clock.advance(minutes=5)
        memories.create(store, "project", FACT, clock)


@pytest.fixture(scope="module")
def shared_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with servicerun.populated(tmp_path_factory.mktemp("service-home"), _populate) as home:
        yield home


@pytest.fixture
def service_home(shared_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The data dir of this module's running `memevo serve` (RULES and FACT in it), as MEMEVO_HOME."""
    monkeypatch.setenv("MEMEVO_HOME", str(shared_home))
    return shared_home


def _context(result: subprocess.CompletedProcess[bytes]) -> str:
    assert result.returncode == 0 and result.stderr == b""
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"])


def _memevo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memevo.cli", *args], capture_output=True, text=True, timeout=HANG_S
    )


def test_session_start_injects_rules_never_project_facts(service_home: Path) -> None:
    context = _context(
        run_hook("claude", "SessionStart", json.dumps({"session_id": "s1", "source": "startup"}))
    )
    assert context.index(RULES[1]) < context.index(RULES[0])  # same confidence: most recently active first
    assert FACT not in context
    assert texts.client_duties("claude") in context  # no side API: the client's model proposes
    assert "Claude Code 自带的记忆" not in context or "不影响" in context


def test_related_prompt_recalls_the_fact_unrelated_gets_only_the_reminder(service_home: Path) -> None:
    related = _context(
        run_hook(
            "claude",
            "UserPromptSubmit",
            json.dumps({"session_id": "s1", "prompt_id": "a", "prompt": RELATED}),
        )
    )
    assert "【项目事实】\n- " + FACT in related
    assert related.endswith(texts.client_reminder("claude"))
    unrelated = _context(
        run_hook(
            "claude",
            "UserPromptSubmit",
            json.dumps({"session_id": "s1", "prompt_id": "b", "prompt": UNRELATED}),
        )
    )
    assert unrelated == texts.client_reminder("claude")


@pytest.mark.quiet  # asserts the product's own deadline: no other test's load
def test_fifty_hooks_at_once_are_all_answered_and_awarded_once(service_home: Path) -> None:
    payload = json.dumps({"conversation_id": "c50", "generation_id": "g", "prompt": RELATED})
    with ThreadPoolExecutor(50) as pool:
        results = list(
            pool.map(lambda _: run_hook("cursor", "beforeSubmitPrompt", payload, timeout=HANG_S), range(50))
        )
    contexts = [json.loads(r.stdout)["additional_context"] for r in results]
    assert all(FACT in c for c in contexts), [r.stdout[:80] for r in results if FACT.encode() not in r.stdout]
    fact = next(
        m for m in json.loads(_memevo("read", "project", "--json").stdout)["memories"] if m["text"] == FACT
    )
    assert fact["confidence"] == 0.55  # +0.05 once: not lost, not doubled


def test_cli_goes_through_the_running_service(service_home: Path) -> None:
    added = _memevo("rule", "add", "提交信息一律用英文写")
    assert added.returncode == 0, added.stderr
    context = _context(run_hook("codebuddy", "SessionStart", json.dumps({"session_id": "s2"})))
    assert "提交信息一律用英文写" in context
    assert "update_memory" in context and "memory_propose" in context  # CodeBuddy's wording, client mode


def test_config_changes_apply_from_the_next_prompt(service_home: Path) -> None:
    assert _memevo("config", "showRecall", "true").returncode == 0
    try:
        shown = run_hook("claude", "UserPromptSubmit", json.dumps({"session_id": "s1", "prompt": RELATED}))
        assert FACT in json.loads(shown.stdout)["systemMessage"]
        assert _memevo("config", "enabled", "false").returncode == 0
        for client, event in (
            ("claude", "SessionStart"),
            ("claude", "UserPromptSubmit"),
            ("codebuddy", "UserPromptSubmit"),
        ):
            off = run_hook(client, event, json.dumps({"session_id": "s1", "prompt": RELATED}))
            assert off.returncode == 0 and off.stdout == b""
    finally:
        _memevo("config", "--unset", "showRecall")
        _memevo("config", "--unset", "enabled")


def test_plugin_continuations_get_nothing(service_home: Path) -> None:
    result = run_hook(
        "claude",
        "UserPromptSubmit",
        json.dumps({"session_id": "s1", "prompt": "MEMORY_CONFIRM_V1 " + RELATED}),
    )
    assert result.returncode == 0 and result.stdout == b""


def test_slash_commands_and_subagents_are_not_recalled(service_home: Path) -> None:
    for payload in ({"prompt": "/review " + RELATED}, {"prompt": RELATED, "agent_id": "sub"}):
        context = _context(
            run_hook("claude", "UserPromptSubmit", json.dumps({"session_id": "s1", **payload}))
        )
        assert FACT not in context


def test_heartbeats_and_injections_are_recorded(service_home: Path) -> None:
    run_hook("workbuddy", "Stop", json.dumps({"session_id": "w"}))
    run_hook("workbuddy", "UserPromptSubmit", json.dumps({"session_id": "w", "prompt": RELATED}))
    import time

    time.sleep(0.6)  # written off the request path, in batches
    activity = json.loads(_memevo("service", "--json").stdout)
    assert activity["running"] and activity["model_ready"]
    from memevo.core.service.client import call

    log = call("hook_activity", {"limit": 50})
    events = {(h["client"], h["event"]) for h in log["hooks"]}
    assert {("workbuddy", "stop"), ("workbuddy", "prompt")} <= events
    latest = next(i for i in log["injections"] if i["client"] == "workbuddy")
    assert latest["session"] == "w" and latest["chars"] > 0 and latest["memory_ids"]
    assert latest["prompt"] == RELATED  # what the recall answered, as an excerpt
    # the command line lists the same log, with the prompt each injection answered
    listed = _memevo("injections", "--client", "workbuddy", "--limit", "5")
    assert listed.returncode == 0, listed.stderr
    assert f"answered: “{RELATED}”" in listed.stdout and FACT in listed.stdout
    as_json = json.loads(_memevo("injections", "--json", "--limit", "50").stdout)
    assert any(i["prompt"] == RELATED for i in as_json["injections"])
    starts = [i for i in as_json["injections"] if i["event"] == "session_start"]
    assert all(i["prompt"] is None for i in starts)


def test_fallback_text_is_kept_current(service_home: Path) -> None:
    cached = (service_home / "cache" / "session-start-claude.txt").read_text(encoding="utf-8")
    assert RULES[0] in cached and FACT not in cached
    assert oct((service_home / "cache" / "session-start-claude.txt").stat().st_mode & 0o777) == "0o600"
    assert oct((service_home / "memevo.sock").stat().st_mode & 0o777) == "0o600"


def test_a_second_service_is_refused_and_names_the_first(service_home: Path) -> None:
    second = _memevo("serve")
    assert second.returncode != 0
    status = servicerun.ping(service_home)
    assert status is not None and f"pid {status['pid']}" in second.stderr


# -- services of their own -----------------------------------------------------------------------------
def test_a_crashed_service_is_replaced_by_the_next_hook(data_dir: Path) -> None:
    _populate(data_dir)
    with subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "serve"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as first:
        old = servicerun.wait_for(data_dir, model=False)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
    assert (data_dir / "memevo.sock").exists()  # left behind by the crash
    answered = run_hook("claude", "SessionStart", json.dumps({"session_id": "x"}))
    assert RULES[0] in _context(answered)  # from the cached text, at once
    new = servicerun.wait_for(data_dir, model=False, not_pid=old["pid"])
    try:
        assert new["pid"] != old["pid"]
    finally:
        servicerun.stop(data_dir, pid=new["pid"])


def test_a_stale_service_steps_aside_after_an_upgrade(data_dir: Path) -> None:
    _populate(data_dir)
    with servicerun.service(data_dir, env={"MEMEVO_BUILD_OVERRIDE": "0.0.1"}) as old_proc:
        old = servicerun.ping(data_dir)
        assert old is not None and old["build"] == "0.0.1"
        result = run_hook("claude", "SessionStart", json.dumps({"session_id": "x"}))
        assert RULES[0] in _context(result)  # answered from the cache, never by the old code
        old_proc.wait(30)  # it stopped itself
        new = servicerun.wait_for(data_dir, model=False, not_pid=old["pid"])
        try:
            assert new["build"] != "0.0.1"
        finally:
            servicerun.stop(data_dir, pid=new["pid"])


def test_loopback_tcp_transport_with_a_token(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Windows transport (no Unix sockets there), exercised here with MEMEVO_TRANSPORT=tcp."""
    import socket

    _populate(data_dir)
    monkeypatch.setenv("MEMEVO_TRANSPORT", "tcp")
    with servicerun.service(data_dir, env={"MEMEVO_TRANSPORT": "tcp"}):
        endpoint = json.loads((data_dir / "service-endpoint.json").read_text(encoding="utf-8"))
        assert oct((data_dir / "service-endpoint.json").stat().st_mode & 0o777) == "0o600"
        assert not (data_dir / "memevo.sock").exists()
        context = _context(
            run_hook(
                "claude", "SessionStart", json.dumps({"session_id": "t"}), env={"MEMEVO_TRANSPORT": "tcp"}
            )
        )
        assert RULES[0] in context
        with socket.create_connection(("127.0.0.1", endpoint["port"]), timeout=5) as raw:
            raw.sendall(b'{"v": 1, "op": "counts", "params": {}, "token": "wrong"}\n')
            assert b"forbidden" in raw.recv(4096)
        with socket.create_connection(("127.0.0.1", endpoint["port"]), timeout=5) as raw:
            raw.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # what a web page could send
            assert b'"ok": false' in raw.recv(4096)
        listening = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
        ours = [
            cols[1] for cols in listening if cols[1].endswith(f":{endpoint['port']:04X}") and cols[3] == "0A"
        ]
        assert ours == [f"0100007F:{endpoint['port']:04X}"]  # 127.0.0.1 only


def test_a_caller_that_leaves_before_its_reply_is_routine_not_an_error(data_dir: Path) -> None:
    """`memevo service status | grep -q …` and hooks killed at their deadline hang up early:
    one debug line at most, never an ERROR with a traceback in service.log."""
    import socket
    import struct

    from memevo.core.service import protocol

    with servicerun.service(data_dir):
        for _ in range(20):
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(str(protocol.socket_path()))
            conn.sendall(protocol.request("read", {"category": "rule", "limit": None}, None))
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()  # a reset, before reading a byte
        assert servicerun.ping(data_dir) is not None  # still serving
    log = (data_dir / "logs" / "service.log").read_text()
    assert "ERROR" not in log and "Traceback" not in log, log
