"""Stale memories through real processes: a `memevo serve`, the hook executable and the CLI on a
real git repository. A session start in the repository has the service check it off the request; the
flag a fact names is gone, so the fact turns stale, `memevo read` says why and the prompt's recall
injects it with a note; `memevo maintenance --force` checks again at once and clears it when the
flag is back."""

from __future__ import annotations

import json
import os
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import servicerun
from deadlines import HANG_S
from gitrepo import git
from hookrun import run_hook
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.repos import staleness
from memevo.core.store.database import Store

pytestmark = pytest.mark.usefixtures("provisioned_model")

FACT = "支付页新流程的灰度开关是 pay_new_flow_v2"
RULE = "提交前必须运行 check_all_things 脚本"
PROMPT = "支付页新流程要在测试环境打开，灰度开关叫什么来着"


def _populate(home: Path) -> None:
    os.environ["MEMEVO_HOME"] = str(home)
    repo = home / "shop"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "src" / "flags.py").write_text("pay_new_flow_v2 = True\ncheck_all_things = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    with Store.open() as store:
        clock = FakeClock(datetime.now(UTC) - timedelta(hours=1))
        memories.create(store, "project", FACT, clock, str(repo))
        memories.create(store, "rule", RULE, clock)  # global: no repository makes it stale
        staleness.check_repo(store, str(repo), clock)  # the names were found when written


home, _home_env = servicerun.module_service("stale-home", _populate)
memevo = servicerun.cli


def read(category: str) -> dict[str, dict[str, object]]:
    done = memevo("read", category, "--json")
    assert done.returncode == 0, done.stderr
    return {str(m["text"]): m for m in json.loads(done.stdout)["memories"]}


def context(result: subprocess.CompletedProcess[bytes]) -> str:
    assert result.returncode == 0 and result.stderr == b""
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"])


def recalled(home: Path, prompt_id: str) -> str:
    payload = {"session_id": "s", "prompt_id": prompt_id, "prompt": PROMPT, "cwd": str(home / "shop")}
    return context(run_hook("claude", "UserPromptSubmit", json.dumps(payload, ensure_ascii=False)))


def test_stale_at_session_start_injected_with_a_note_and_fresh_again(home: Path) -> None:
    repo = home / "shop"
    assert read("project")[FACT]["stale"] is None
    (repo / "src" / "flags.py").write_text("pay_flow_v3 = True\n")
    git(repo, "commit", "-q", "-am", "the flag and the script are gone")

    started = time.monotonic()
    payload = {"session_id": "s", "source": "startup", "cwd": str(repo / "src")}
    start_text = context(run_hook("claude", "SessionStart", json.dumps(payload)))
    assert RULE in start_text and "可能已过时" not in start_text  # the global rule stays fresh
    deadline = started + HANG_S
    while read("project")[FACT]["stale"] is None:  # checked off the request, soon after
        assert time.monotonic() < deadline, "the session start's check never marked the fact"
        time.sleep(0.2)
    today = datetime.now().astimezone().strftime("%Y-%m-%d")
    reason = f"pay_new_flow_v2 not found in shop since {today}"
    assert read("project")[FACT]["stale"] == reason
    assert read("rule")[RULE]["stale"] is None
    listed = memevo("read", "project").stdout
    assert f"[stale: {reason}]" in listed
    page = home / "memories.html"  # rendered off the request, soon after (core/service/html_page_work.py)
    while f"可能已过时：{reason}" not in page.read_text(encoding="utf-8"):
        assert time.monotonic() < deadline, "memories.html never showed the note"
        time.sleep(0.2)

    injected = recalled(home, "p1")
    assert f"{FACT}（可能已过时：{reason}）" in injected

    (repo / "src" / "flags.py").write_text("pay_new_flow_v2 = True\n")
    git(repo, "commit", "-q", "-am", "the flag is back")
    done = memevo("maintenance", "--force", "--json")
    assert done.returncode == 0, done.stderr
    checked = json.loads(done.stdout)["anchors"]
    assert checked["fresh_again"] and checked["timed_out"] == []
    assert read("project")[FACT]["stale"] is None
    assert "可能已过时" not in recalled(home, "p2")


def test_why_gives_each_injections_receipt(home: Path) -> None:
    """`memevo why SESSION` (a prefix is enough): what each hook injected into the session, the
    signals each recalled memory passed the gate with, and what is known of its names."""
    repo = home / "shop"
    payload = {"session_id": "why-session-1", "source": "startup", "cwd": str(repo)}
    context(run_hook("claude", "SessionStart", json.dumps(payload)))
    asked = {"session_id": "why-session-1", "prompt_id": "w1", "prompt": PROMPT, "cwd": str(repo)}
    context(run_hook("claude", "UserPromptSubmit", json.dumps(asked, ensure_ascii=False)))
    deadline = time.monotonic() + HANG_S
    while True:  # the injection log is written off the request, in batches
        done = memevo("why", "why-sess", "--json")
        if done.returncode == 0 and len(json.loads(done.stdout)["injections"]) == 2:
            break
        assert time.monotonic() < deadline, done.stdout + done.stderr
        time.sleep(0.2)
    result = json.loads(done.stdout)
    assert result["session"] == "why-session-1"
    start, prompt = result["injections"]
    assert start["event"] == "session_start" and RULE in [m["text"] for m in start["memories"]]
    assert all(m["why"] is None for m in start["memories"])  # listed, not recalled
    assert prompt["event"] == "prompt" and prompt["prompt"] == PROMPT and prompt["receipt"]
    [fact] = [m for m in prompt["memories"] if m["text"] == FACT]
    signals = fact["why"]
    assert (
        signals["score"] >= signals["minimum"] and {"cosine", "lexical", "cued", "damped"} <= signals.keys()
    )
    assert fact["anchors"]["names"][0]["value"] == "pay_new_flow_v2" and fact["anchors"]["checked"]
    assert fact["scope"] == str(repo) and fact["where"] == "live"

    said = memevo("why", "why-session-1").stdout
    assert "answered: “" in said and f"score {signals['score']} >= minimum {signals['minimum']}" in said
    assert "a rule listed at session start" in said
    refused = memevo("why", "nope-no-such-session")
    assert refused.returncode != 0 and "nothing was injected into or learned from a session" in refused.stderr
