"""Memories scoped to repositories through real processes: a `memevo serve`, the hook executable,
the CLI. Recall keeps to the session's repository; search shows each hit's scope, which `project add
--here` and `scope` set; the session-start text is the same bytes for every session and within its
budget; imported notes are searchable at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import servicerun
from deadlines import HANG_S
from hookrun import run_hook
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.store.database import Store

pytestmark = pytest.mark.usefixtures("provisioned_model")

RULE = "回答问题时请一律使用中文"
OURS = "支付页新流程的灰度开关是 pay_new_flow_v2"
THEIRS = "支付页新流程的灰度开关是 checkout_flag_v9"
PROMPT = "支付页新流程要在测试环境打开，开关叫什么来着"


def _populate(home: Path) -> None:
    os.environ["MEMEVO_HOME"] = str(home)
    (home / "repo-a" / ".git").mkdir(parents=True)
    (home / "repo-b" / ".git").mkdir(parents=True)
    (home / "repo-a" / "src").mkdir()
    with Store.open() as store:
        # written an hour ago: the real-clock service's maintenance (it runs once, some time
        # after the start) finds nothing idle to decay, whenever it runs
        clock = FakeClock(datetime.now(UTC) - timedelta(hours=1))
        for i in range(30):
            memories.create(
                store, "rule", f"规则 {i:02d}：" + "提交前先跑完整的单元测试和静态检查，" * 4, clock
            )
        clock.advance(minutes=1)
        memories.create(store, "rule", RULE, clock)  # the newest of equals: listed first
        memories.create(store, "project", OURS, clock, str(home / "repo-a"))
        memories.create(store, "project", THEIRS, clock, str(home / "repo-b"))


@pytest.fixture(scope="module")
def scoped_service_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The data dir of this module's running `memevo serve`: 31 rules, and one fact scoped to each
    of the repositories repo-a and repo-b inside it."""
    with servicerun.populated(tmp_path_factory.mktemp("peer-home"), _populate) as home:
        yield home


@pytest.fixture(autouse=True)
def _home_env(scoped_service_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVO_HOME", str(scoped_service_home))


def _context(result: subprocess.CompletedProcess[bytes]) -> str:
    assert result.returncode == 0 and result.stderr == b""
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"])


def _memevo(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memevo.cli", *args],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        cwd=cwd,
    )


def test_session_start_is_byte_identical_and_within_budget(scoped_service_home: Path) -> None:
    starts = [
        _context(
            run_hook("claude", "SessionStart", json.dumps({"session_id": s, "source": "startup", "cwd": c}))
        )
        for s, c in (("s1", str(scoped_service_home / "repo-a")), ("s2", str(scoped_service_home / "repo-a")))
    ]
    assert starts[0] == starts[1]
    assert len(starts[0]) <= 2400 and "因篇幅未列出" in starts[0] and RULE in starts[0]
    cached = (scoped_service_home / "cache" / "session-start-claude.txt").read_text(encoding="utf-8")
    assert cached == starts[0]  # the hook's fallback text is the same bytes


def test_recall_keeps_to_the_sessions_repository(scoped_service_home: Path) -> None:
    def recalled(cwd: Path) -> str:
        payload = {"session_id": "r", "prompt_id": str(cwd), "prompt": PROMPT, "cwd": str(cwd)}
        return _context(run_hook("claude", "UserPromptSubmit", json.dumps(payload, ensure_ascii=False)))

    in_a = recalled(scoped_service_home / "repo-a" / "src")  # a subfolder: its git top-level is repo-a
    assert OURS in in_a and THEIRS not in in_a
    in_b = recalled(scoped_service_home / "repo-b")
    assert THEIRS in in_b and OURS not in in_b
    elsewhere = recalled(scoped_service_home)
    assert OURS not in elsewhere and THEIRS not in elsewhere


def test_search_scope_and_pin_from_the_command_line(scoped_service_home: Path) -> None:
    found = json.loads(_memevo("search", "灰度开关叫什么", "--category", "project", "--json").stdout)
    texts = [h["text"] for h in found["hits"]]
    assert OURS in texts and THEIRS in texts
    ours = next(h for h in found["hits"] if h["text"] == OURS)
    assert ours["scope"] == str(scoped_service_home / "repo-a") and ours["confidence"] >= 0.5 and ours["id"]
    before = json.loads(_memevo("read", "project", "--json").stdout)["memories"]
    _memevo("search", "灰度开关叫什么", "--json")
    assert json.loads(_memevo("read", "project", "--json").stdout)["memories"] == before  # never awards
    made = json.loads(
        _memevo(
            "project",
            "add",
            "--here",
            "构建产物放在 dist 目录下",
            "--json",
            cwd=scoped_service_home / "repo-b" / ".git",
        ).stdout
    )
    assert made["memory"]["scope"] == str(scoped_service_home / "repo-b")
    made_global = json.loads(_memevo("scope", made["memory"]["id"], "global", "--json").stdout)
    assert made_global["memory"]["scope"] == "global"
    assert "now applies everywhere" in _memevo("scope", made["memory"]["id"], "global").stdout
    plain = _memevo("search", "构建产物放在哪", "--limit", "3")
    assert plain.returncode == 0 and "构建产物放在 dist 目录下" in plain.stdout


def test_imported_notes_are_searchable_at_once_through_the_service(scoped_service_home: Path) -> None:
    repo = scoped_service_home / "repo-c"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("- 订单服务的数据库迁移脚本放在 db/migrations 目录\n", encoding="utf-8")
    done = json.loads(_memevo("import-notes", "--yes", "--json", cwd=repo).stdout)
    assert [m["scope"] for m in done["imported"]] == [str(repo)]
    found = json.loads(_memevo("search", "数据库迁移脚本在哪个目录", "--limit", "1", "--json").stdout)
    assert found["hits"][0]["text"] == "订单服务的数据库迁移脚本放在 db/migrations 目录"


def test_memevo_off_in_a_repository_leaves_its_sessions_alone(scoped_service_home: Path) -> None:
    """`memevo off` inside repo-a: its sessions get nothing (not even the rules), nothing of them
    is learned; repo-b's sessions are served as before; `memevo on` brings it back."""
    repo_a, repo_b = scoped_service_home / "repo-a", scoped_service_home / "repo-b"

    def prompt(cwd: Path) -> subprocess.CompletedProcess[bytes]:
        payload = {"session_id": "off", "prompt_id": f"p-{cwd.name}", "prompt": PROMPT, "cwd": str(cwd)}
        return run_hook("claude", "UserPromptSubmit", json.dumps(payload, ensure_ascii=False))

    def start(cwd: Path) -> subprocess.CompletedProcess[bytes]:
        return run_hook(
            "claude", "SessionStart", json.dumps({"session_id": "off", "source": "startup", "cwd": str(cwd)})
        )

    switched = _memevo("off", cwd=repo_a / "src")
    assert switched.returncode == 0 and "memevo is off in" in switched.stdout, switched.stderr
    try:
        assert _memevo("off", "--list").stdout.strip() == str(repo_a)
        for answered in (start(repo_a), prompt(repo_a / "src")):
            assert answered.returncode == 0 and answered.stdout == b"" and answered.stderr == b""
        assert THEIRS in _context(prompt(repo_b)) and RULE in _context(start(repo_b))
    finally:
        assert _memevo("on", cwd=repo_a).returncode == 0
    assert OURS in _context(prompt(repo_a / "src"))
