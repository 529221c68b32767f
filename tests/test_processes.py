"""Every process working together, started in any order, some of them killed or stopped.

Real processes throughout: `memevo serve`, `memevo tray` (offscreen), the CLI, the hook
executable, the MCP server through the SDK client; faults are real signals (SIGKILL,
SIGSTOP) and a lock held with no socket behind it (a service still starting).
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import servicerun
from deadlines import HANG_S
from hookrun import run_hook
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from memevo.core.service.server import InstanceLock

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("provisioned_model")]
RULE = "回答问题时请一律使用中文"


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ) | {"MEMEVO_HOME": str(data_dir)}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env | extra


def cli(
    data_dir: Path, *args: str, env: dict[str, str] | None = None, pipe: bool = True
) -> subprocess.Popen[str]:
    out = subprocess.PIPE if pipe else subprocess.DEVNULL  # a long-lived process must not fill a pipe
    return subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", *args],
        stdout=out,
        stderr=out,
        text=True,
        env=env or _env(data_dir),
    )


def run(data_dir: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    proc = cli(data_dir, *args)
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def ok(data_dir: Path, *args: str, timeout: float = 300) -> str:
    done = run(data_dir, *args, timeout=timeout)
    assert done.returncode == 0, f"memevo {' '.join(args)} → {done.returncode}: {done.stdout}{done.stderr}"
    assert "in use" not in done.stderr, done.stderr
    return done.stdout


@pytest.fixture
def serve(data_dir: Path) -> Iterator[subprocess.Popen[str]]:
    with servicerun.service(data_dir) as proc:
        yield proc


def session_start(data_dir: Path) -> str:
    done = run_hook(
        "claude", "SessionStart", json.dumps({"session_id": "s", "source": "startup"}), env=_env(data_dir)
    )
    assert done.returncode == 0
    return done.stdout.decode()


# -- one owner, any start order -------------------------------------------------------------------------
def test_a_command_waits_for_a_service_that_holds_the_lock_but_does_not_listen_yet(data_dir: Path) -> None:
    os.environ["MEMEVO_HOME"] = str(data_dir)
    starting = InstanceLock()
    starting.acquire()  # a service that took the lock and has no socket yet
    adding = cli(data_dir, "rule", "add", RULE)
    try:
        time.sleep(3)
        assert adding.poll() is None, adding.communicate()  # waiting, not refusing
    finally:
        starting.release()
    with servicerun.service(data_dir):
        out, err = adding.communicate(timeout=HANG_S)
        assert adding.returncode == 0, err
        assert "added rule" in out
        rules = json.loads(ok(data_dir, "read", "rule", "--json"))["memories"]
        assert [r["text"] for r in rules] == [RULE]


def test_the_tray_takes_the_store_over_from_a_headless_service(
    data_dir: Path, serve: subprocess.Popen[str]
) -> None:
    ok(data_dir, "rule", "add", RULE)
    headless = servicerun.ping(data_dir)
    assert headless is not None and not headless["desktop"]
    tray = cli(data_dir, "tray", env=_env(data_dir, QT_QPA_PLATFORM="offscreen"), pipe=False)
    try:
        assert RULE in session_start(data_dir)  # during the handover: the service or the cache
        status = servicerun.wait_for(data_dir, not_pid=headless["pid"])
        assert status["desktop"] and status["pid"] == tray.pid
        assert serve.wait(30) == 0  # the headless service handed over and exited cleanly
        assert RULE in session_start(data_dir)
        assert [r["text"] for r in json.loads(ok(data_dir, "read", "rule", "--json"))["memories"]] == [RULE]
    finally:
        servicerun.stop(data_dir, tray)  # type: ignore[arg-type]


def test_on_a_desktop_the_mcp_server_starts_the_tray_app(data_dir: Path) -> None:
    env = _env(data_dir, DISPLAY=":77", QT_QPA_PLATFORM="offscreen")
    tools = asyncio.run(_mcp(env, [("memory_list", {})]))
    assert "memory_list" in tools["names"]
    status = servicerun.wait_for(data_dir, model=False)
    assert status["desktop"], status  # the tray app, so native dialogs can appear
    servicerun.stop(data_dir, pid=status["pid"])


def test_the_mcp_server_answers_at_once_while_the_service_is_stopped(
    data_dir: Path, serve: subprocess.Popen[str]
) -> None:
    ok(data_dir, "rule", "add", RULE)
    os.kill(serve.pid, signal.SIGSTOP)
    try:
        listed = asyncio.run(_mcp(_env(data_dir), [], timeout=20))
        assert len(listed["names"]) >= 5  # initialize and tools/list, with the service stopped
    finally:
        os.kill(serve.pid, signal.SIGCONT)
    read = asyncio.run(_mcp(_env(data_dir), [("memory_read", {"category": "rule"})]))
    assert RULE in read["texts"][0]


def test_a_stopped_service_is_said_to_be_not_answering_not_absent(
    data_dir: Path, serve: subprocess.Popen[str]
) -> None:
    """`memevo service` said "running no" and `service stop` "no service is running" for a
    service stopped with SIGSTOP, while `memevo serve` said one was running."""
    servicerun.wait_for(data_dir, model=False)
    os.kill(serve.pid, signal.SIGSTOP)
    try:
        status = json.loads(ok(data_dir, "service", "--json"))
        stop = json.loads(ok(data_dir, "service", "stop", "--json"))
    finally:
        os.kill(serve.pid, signal.SIGCONT)
    assert status["running"] is False and f"pid {serve.pid}" in status["not_answering"]
    assert stop["stopped"] is False and f"kill -CONT {serve.pid}" in stop["reason"]
    assert serve.wait(60) == 0  # resumed, it takes the stop it was asked for


def test_the_tray_without_a_display_runs_the_headless_service_and_says_so(data_dir: Path) -> None:
    """Offscreen, nobody could see its dialogs: a learned proposal waited on one forever."""
    env = _env(data_dir)
    env.pop("QT_QPA_PLATFORM", None)
    tray = subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "tray"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        status = servicerun.wait_for(data_dir, model=False)
        assert status["pid"] == tray.pid and not status["desktop"]
    finally:
        servicerun.stop(data_dir, pid=tray.pid)
        _, err = tray.communicate(timeout=HANG_S)
    assert b"no display here; running the headless service instead" in err


async def _mcp(
    env: dict[str, str], calls: list[tuple[str, dict[str, Any]]], timeout: float = 120
) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memevo.cli", "mcp", "--client", "claude"], env=env
    )

    async def go() -> dict[str, Any]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = [t.name for t in (await session.list_tools()).tools]
            texts = []
            for name, args in calls:
                result = await session.call_tool(name, args)
                assert not result.is_error, result
                texts.append("\n".join(getattr(c, "text", "") for c in result.content))
            return {"names": names, "texts": texts}

    return await asyncio.wait_for(go(), timeout)


# -- rules at every session start -----------------------------------------------------------------------
def test_the_first_session_start_after_install_has_the_rules_with_no_service(data_dir: Path) -> None:
    ok(data_dir, "rule", "add", RULE)  # no service runs: the command writes the store itself
    assert servicerun.ping(data_dir) is None
    (data_dir / "service.spawned").write_text("1")  # a service is starting (its guard is fresh)
    assert RULE in session_start(data_dir)


def test_setup_writes_the_fallback_texts_before_any_service_runs(data_dir: Path) -> None:
    (Path(os.environ["HOME"]) / ".claude").mkdir()
    ok(data_dir, "setup", "--only", "claude")
    (data_dir / "service.spawned").write_text("1")
    assert "memory_propose" in session_start(data_dir)  # no side API: the client's model proposes


def test_a_stopped_service_still_gives_the_rules_at_session_start(
    data_dir: Path, serve: subprocess.Popen[str]
) -> None:
    ok(data_dir, "rule", "add", RULE)
    os.kill(serve.pid, signal.SIGSTOP)
    try:
        assert RULE in session_start(data_dir)
    finally:
        os.kill(serve.pid, signal.SIGCONT)


# -- every command with the service running -------------------------------------------------------------
def test_every_command_works_with_the_service_running(data_dir: Path, tmp_path: Path) -> None:
    # every eighth case and tool call of the verify set, with its whole pool: the same figures
    # alone and served is the subject here (the whole set's figures: tests/test_recall_model.py)
    whole = json.loads((Path(__file__).parent / "data" / "recall-set.json").read_text(encoding="utf-8"))
    cases = tmp_path / "recall-subset.json"
    cases.write_text(
        json.dumps(
            whole | {"cases": whole["cases"][::8], "actions": whole["actions"][::8]}, ensure_ascii=False
        ),
        encoding="utf-8",
    )
    alone = json.loads(ok(data_dir, "verify", "--cases", str(cases), "--json"))
    assert alone["relevant_total"] + alone["unrelated_total"] == len(whole["cases"][::8])
    assert not (data_dir / "memevo.duckdb").exists()  # a file with its own pool never touches the store
    legacy = {"id": "legacy0001", "text": "部署前先跑一遍冒烟测试", "confidence": 0.8}
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "rule.jsonl").write_text(json.dumps(legacy, ensure_ascii=False) + "\n")
    with servicerun.service(data_dir):
        added = json.loads(ok(data_dir, "rule", "add", RULE, "--json"))["memory"]
        served = json.loads(ok(data_dir, "verify", "--cases", str(cases), "--json"))
        assert _figures(served) == _figures(alone)  # the same figures with the service running
        assert json.loads(ok(data_dir, "rebuild-index", "--json"))["encoded"] >= 1
        ok(data_dir, "build-background", "--json")
        ok(data_dir, "maintenance", "--force", "--json")
        assert json.loads(ok(data_dir, "import-legacy", "--json"))["import"]["imported"]["rule"] == 1
        ok(data_dir, "purge", added["id"], "--yes", "--json")
        ok(data_dir, "model", "provision", "--json")
        ok(data_dir, "config", "recallTopK", "2")
        ok(data_dir, "pending", "--json")
        texts = [r["text"] for r in json.loads(ok(data_dir, "read", "rule", "--json"))["memories"]]
        assert texts == ["部署前先跑一遍冒烟测试"]


def _figures(report: dict[str, Any]) -> tuple[Any, ...]:
    keys = ("relevant_hit", "unrelated_rule_leaks", "unrelated_project_leaks", "single_memory_hit")
    return tuple(report[k] for k in keys)


# -- exactly-once writes ---------------------------------------------------------------------------------
def test_kill_9_during_a_burst_of_writes_neither_duplicates_nor_loses_an_acknowledged_write(
    data_dir: Path, serve: subprocess.Popen[str]
) -> None:
    texts = [f"第 {i} 条规则：提交前先运行 make check" for i in range(40)]
    writers = [cli(data_dir, "rule", "add", text) for text in texts]
    deadline = time.monotonic() + 120
    while sum(1 for w in writers if w.poll() is not None) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(serve.pid, signal.SIGKILL)  # mid-burst: some committed, some unanswered, some unsent
    serve.wait()
    outcomes = [(w.returncode if w.wait(180) is not None else None, *w.communicate()) for w in writers]
    servicerun.wait_for(data_dir, model=False)  # a writer that lost its reply started a new one
    stored = collections.Counter(
        r["text"] for r in json.loads(ok(data_dir, "read", "rule", "--all", "--json"))["memories"]
    )
    acknowledged = [t for t, (code, _, _) in zip(texts, outcomes, strict=True) if code == 0]
    figures = {
        "sent": len(texts),
        "acknowledged": len(acknowledged),
        "stored": sum(stored.values()),
        "duplicated": sum(n - 1 for n in stored.values() if n > 1),
    }
    print("kill -9 burst:", json.dumps(figures))
    assert figures["duplicated"] == 0, figures
    assert all(stored[t] == 1 for t in acknowledged), figures  # every acknowledged write, once
    for code, _, err in outcomes:  # the rest said plainly that they can't know
        assert code == 0 or "may or may not have been applied" in err, err
        assert "internal error" not in err, err
